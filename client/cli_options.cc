#include "client/cli_options.h"

#include <getopt.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace ssimd {
namespace {

enum LongOnly {
  kFeature = 1000,
  kJson,
  kPrecision,
  kFrameCnt,
  kFrameSkipRef,
  kFrameSkipDist,
  kServer,
  kBackend,
  kTimeout,
  kTitle,
  kRung,
  kLabel,
  kPercentile,
  kServerFiles,
  kNoProgress,
  kTls,
  kTlsCa,
  kTlsCert,
  kTlsKey,
  kMaxMessageBytes,
  kThreads,
  kModel,
  kHelp,
};

const option kOptions[] = {
    {"reference", required_argument, nullptr, 'r'},
    {"distorted", required_argument, nullptr, 'd'},
    {"width", required_argument, nullptr, 'w'},
    {"height", required_argument, nullptr, 'h'},
    {"pixel_format", required_argument, nullptr, 'p'},
    {"bitdepth", required_argument, nullptr, 'b'},
    {"output", required_argument, nullptr, 'o'},
    {"quiet", no_argument, nullptr, 'q'},
    {"no_prediction", no_argument, nullptr, 'n'},
    {"feature", required_argument, nullptr, kFeature},
    {"json", no_argument, nullptr, kJson},
    {"precision", required_argument, nullptr, kPrecision},
    {"frame_cnt", required_argument, nullptr, kFrameCnt},
    {"frame_skip_ref", required_argument, nullptr, kFrameSkipRef},
    {"frame_skip_dist", required_argument, nullptr, kFrameSkipDist},
    {"server", required_argument, nullptr, kServer},
    {"backend", required_argument, nullptr, kBackend},
    {"timeout", required_argument, nullptr, kTimeout},
    {"title", required_argument, nullptr, kTitle},
    {"rung", required_argument, nullptr, kRung},
    {"label", required_argument, nullptr, kLabel},
    {"percentile", required_argument, nullptr, kPercentile},
    {"server_files", no_argument, nullptr, kServerFiles},
    {"no_progress", no_argument, nullptr, kNoProgress},
    {"tls", no_argument, nullptr, kTls},
    {"tls_ca_file", required_argument, nullptr, kTlsCa},
    {"tls_cert_file", required_argument, nullptr, kTlsCert},
    {"tls_key_file", required_argument, nullptr, kTlsKey},
    {"max_message_bytes", required_argument, nullptr, kMaxMessageBytes},
    {"threads", required_argument, nullptr, kThreads},
    {"model", required_argument, nullptr, kModel},
    {"help", no_argument, nullptr, kHelp},
    {nullptr, 0, nullptr, 0},
};

absl::Status Bad(absl::string_view flag, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(flag, ": ", message));
}

absl::StatusOr<uint64_t> Count(absl::string_view flag, const char* text) {
  uint64_t n = 0;
  if (!absl::SimpleAtoi(text, &n)) {
    return Bad(flag, absl::StrCat("expected a frame count (0 or more), got \"", text, "\""));
  }
  return n;
}

}  // namespace

std::string CliUsage() {
  return R"(ssimd-score: score a distorted video against its reference with an ssimd server.

usage: ssimd-score -r REF -d DIST [-w W -h H -p 420|422|444|400 -b 8|10|12|16] [options]

  -r, --reference FILE     reference video: raw planar .yuv, or .y4m (size from its header)
  -d, --distorted FILE     distorted video, same size and bit depth
  -w, --width N            luma width  (raw .yuv only)
  -h, --height N           luma height (raw .yuv only)
  -p, --pixel_format F     420, 422, 444 or 400 (raw .yuv only)
  -b, --bitdepth N         8, 10, 12 or 16; samples above 8 bits are 16-bit little-endian
      --feature SPEC       libvmaf syntax, repeatable: float_ssim, ssim,
                           float_ssim=scale=2:enable_db=true:clip_db=true:enable_lcs=true,
                           ssim=enable_db=true (default: float_ssim)
      --json               write libvmaf-shaped JSON (the default with -o)
  -o, --output FILE        write the report to FILE instead of stdout
      --precision P        max (%.17g, default), full, N (%.Ng) or legacy (%.6f)
      --frame_cnt N        score at most N frames
      --frame_skip_ref N   skip N frames of the reference first
      --frame_skip_dist N  skip N frames of the distorted video first
      --server ADDR        ssimd server, host:port (default 127.0.0.1:50051)
      --backend B          auto (default), gpu or cpu
      --server_files       let the server read REF and DIST from its --files_root
      --title ID, --rung R, --label KEY=VALUE   labels for the server's logs and metrics
      --percentile P       pooled percentile to report (repeatable)
      --timeout DURATION   end the whole run after this long (default 1h; e.g. 90s, 10m)
      --tls, --tls_ca_file F, --tls_cert_file F, --tls_key_file F   TLS and mTLS
      --max_message_bytes N  largest message (default 167772160)
  -q, --quiet              no progress bar
      --no_progress        no progress bar
  -n, --no_prediction, --threads N   accepted for libvmaf compatibility; no effect
      --help               this text
)";
}

absl::StatusOr<CliOptions> ParseCliOptions(int argc, char** argv) {
  CliOptions out;
  optind = 0;  // GNU getopt: start over (tests parse several command lines)
  opterr = 0;
  for (;;) {
    const int previous = optind;
    const int c = getopt_long(argc, argv, ":r:d:w:h:p:b:o:m:qn", kOptions, nullptr);
    if (c == -1) break;
    const char* arg = optarg;
    const std::string seen = previous < argc ? argv[previous] : "";
    switch (c) {
      case 'r':
        out.reference = arg;
        break;
      case 'd':
        out.distorted = arg;
        break;
      case 'w':
      case 'h': {
        int n = 0;
        if (!absl::SimpleAtoi(arg, &n) || n < 1) {
          return Bad(c == 'w' ? "-w/--width" : "-h/--height",
                     absl::StrCat("expected a positive number of pixels, got \"", arg, "\""));
        }
        (c == 'w' ? out.width : out.height) = n;
        break;
      }
      case 'p': {
        const std::string f = arg;
        if (f == "420") {
          out.chroma = ChromaFormat::k420;
        } else if (f == "422") {
          out.chroma = ChromaFormat::k422;
        } else if (f == "444") {
          out.chroma = ChromaFormat::k444;
        } else if (f == "400") {
          out.chroma = ChromaFormat::k400;
        } else {
          return Bad("-p/--pixel_format", absl::StrCat("expected 420, 422, 444 or 400, got \"", f, "\""));
        }
        break;
      }
      case 'b': {
        int n = 0;
        if (!absl::SimpleAtoi(arg, &n) || (n != 8 && n != 10 && n != 12 && n != 16)) {
          return Bad("-b/--bitdepth", absl::StrCat("expected 8, 10, 12 or 16, got \"", arg, "\""));
        }
        out.bit_depth = n;
        break;
      }
      case 'o':
        out.output = arg;
        break;
      case 'q':
        out.quiet = true;
        out.progress = false;
        break;
      case 'n':
      case kThreads:
        break;
      case kFeature:
        out.features.push_back(arg);
        break;
      case kJson:
        out.json = true;
        break;
      case kPrecision: {
        auto format = ParsePrecision(arg);
        if (!format.ok()) return format.status();
        out.precision = *format;
        break;
      }
      case kFrameCnt:
      case kFrameSkipRef:
      case kFrameSkipDist: {
        const char* name = c == kFrameCnt       ? "--frame_cnt"
                           : c == kFrameSkipRef ? "--frame_skip_ref"
                                                : "--frame_skip_dist";
        auto n = Count(name, arg);
        if (!n.ok()) return n.status();
        (c == kFrameCnt ? out.frame_cnt : c == kFrameSkipRef ? out.frame_skip_ref
                                                             : out.frame_skip_dist) = *n;
        break;
      }
      case kServer:
        out.client.target = arg;
        break;
      case kBackend: {
        const std::string b = arg;
        if (b == "auto") {
          out.backend = v1::BACKEND_AUTO;
        } else if (b == "gpu") {
          out.backend = v1::BACKEND_GPU;
        } else if (b == "cpu") {
          out.backend = v1::BACKEND_CPU;
        } else {
          return Bad("--backend", absl::StrCat("expected auto, gpu or cpu, got \"", b, "\""));
        }
        break;
      }
      case kTimeout:
        if (!absl::ParseDuration(arg, &out.timeout) || out.timeout <= absl::ZeroDuration()) {
          return Bad("--timeout", absl::StrCat("expected a positive duration such as 90s or 10m, "
                                               "got \"", arg, "\""));
        }
        break;
      case kTitle:
        out.title = arg;
        break;
      case kRung:
        out.rung = arg;
        break;
      case kLabel: {
        std::vector<std::string> kv = absl::StrSplit(arg, absl::MaxSplits('=', 1));
        if (kv.size() != 2 || kv[0].empty()) {
          return Bad("--label", absl::StrCat("expected KEY=VALUE, got \"", arg, "\""));
        }
        out.labels[kv[0]] = kv[1];
        break;
      }
      case kPercentile: {
        double p = 0;
        if (!absl::SimpleAtod(arg, &p) || !(p >= 0 && p <= 100)) {
          return Bad("--percentile", absl::StrCat("expected a number from 0 to 100, got \"", arg, "\""));
        }
        out.percentiles.push_back(p);
        break;
      }
      case kServerFiles:
        out.server_files = true;
        break;
      case kNoProgress:
        out.progress = false;
        break;
      case kTls:
        out.client.tls = true;
        break;
      case kTlsCa:
        out.client.ca_file = arg;
        break;
      case kTlsCert:
        out.client.cert_file = arg;
        break;
      case kTlsKey:
        out.client.key_file = arg;
        break;
      case kMaxMessageBytes: {
        int64_t n = 0;
        if (!absl::SimpleAtoi(arg, &n) || n < 1024 || n > (int64_t{1} << 31) - 1) {
          return Bad("--max_message_bytes",
                     absl::StrCat("expected 1024 to 2147483647, got \"", arg, "\""));
        }
        out.client.max_message_bytes = n;
        break;
      }
      case 'm':
      case kModel:
        return Bad("-m/--model", "ssimd computes SSIM features only, not VMAF models; use "
                                 "--feature float_ssim and/or --feature ssim");
      case kHelp:
        out.help = true;
        return out;
      case ':':
        return Bad(seen, "needs a value");
      default:
        return Bad(seen, "unknown option (see --help)");
    }
  }
  if (optind < argc) {
    return Bad(argv[optind], "unexpected argument; options take the form -r FILE or --feature SPEC");
  }
  if (out.reference.empty() || out.distorted.empty()) {
    return Bad("-r/-d", "both the reference (-r) and the distorted (-d) video are required");
  }
  if (out.features.empty()) out.features.push_back("float_ssim");
  if (!out.output.empty()) out.json = true;
  return out;
}

}  // namespace ssimd
