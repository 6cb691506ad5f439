#include "client/cli_options.h"

#include <getopt.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "engine/feature_table.h"
#include "engine/vmaf/model.h"

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
  kLadder,
  kLadderSource,
  kRendition,
  kSpread,
  kScaler,
  kAccurateRnd,
  kTransport,
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
    {"ladder", no_argument, nullptr, kLadder},
    {"ladder_source", required_argument, nullptr, kLadderSource},
    {"scaler", required_argument, nullptr, kScaler},
    {"accurate_rnd", no_argument, nullptr, kAccurateRnd},
    {"transport", required_argument, nullptr, kTransport},
    {"rendition", required_argument, nullptr, kRendition},
    {"spread", no_argument, nullptr, kSpread},
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

// Appends `text` to `out` in lines of at most kHelpWidth columns, each starting with `indent`.
void AppendWrapped(absl::string_view text, absl::string_view indent, std::string& out) {
  constexpr size_t kHelpWidth = 100;
  std::string line(indent);
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (line.size() > indent.size() && line.size() + 1 + word.size() > kHelpWidth) {
      absl::StrAppend(&out, line, "\n");
      line = std::string(indent);
    }
    if (line.size() > indent.size()) line += ' ';
    absl::StrAppend(&line, word);
  }
  absl::StrAppend(&out, line, "\n");
}

// The features and their options, written from the engine's one option table.
std::string FeatureHelp() {
  std::string out = "\nfeatures (--feature NAME, or NAME=option=value:option=value):\n";
  for (const FeatureDescription& feature : FeatureTable()) {
    AppendWrapped(absl::StrCat(feature.name, " (outputs ", absl::StrJoin(feature.outputs, ", "),
                               ")"),
                  "  ", out);
    for (const OptionDescription& option : feature.options) {
      absl::StrAppend(&out, "    ", option.name, ": ", OptionRangeText(option), ", default ",
                      OptionDefaultText(option), "\n");
      AppendWrapped(option.help, "        ", out);
    }
  }
  return out;
}

}  // namespace

std::string CliUsage() {
  return R"(ssimd-score: score a distorted video against its reference with an ssimd server.

usage: ssimd-score -r REF -d DIST [-w W -h H -p 420|422|444|400 -b 8|10|12|16] [options]
       ssimd-score --ladder -r SRC -d NAME=FILE [-d NAME=FILE ...] [options]

  -r, --reference FILE     reference video: raw planar .yuv, .y4m (size from its header), or
                           any file FFmpeg reads (mp4, mkv, webm, ts, ...)
  -d, --distorted FILE     distorted video, the same bit depth and frame rate; an encoded
                           rendition of another size is upscaled to the reference's size
  -w, --width N            luma width  (raw .yuv only)
  -h, --height N           luma height (raw .yuv only)
  -p, --pixel_format F     420, 422, 444 or 400 (raw .yuv only)
  -b, --bitdepth N         8, 10, 12 or 16; samples above 8 bits are 16-bit little-endian
      --feature SPEC       a feature and its options in libvmaf syntax, repeatable
                           (default: float_ssim), e.g. float_ssim=scale=2:enable_db=true or
                           ssim=enable_db=true; features and options are listed below
  -m, --model SPEC         VMAF, as libvmaf's: version=NAME[:enable_transform][:disable_clip]
                           (NAME: a model the server loaded, e.g. vmaf_v0.6.1); the same as
                           --feature vmaf=model=NAME
      --json               write libvmaf-shaped JSON (the default with -o)
  -o, --output FILE        write the report to FILE instead of stdout
      --precision P        max (%.17g, default), full, N (%.Ng) or legacy (%.6f)
      --frame_cnt N        score at most N frames
      --frame_skip_ref N   skip N frames of the reference first
      --frame_skip_dist N  skip N frames of the distorted video first
      --server ADDR        ssimd server: host:port (default 127.0.0.1:50051), or many:
                           dns:///NAME:PORT or a comma list IP:PORT,IP:PORT spreads calls
                           over the servers that are SERVING, and a clip cut by a server
                           that stops goes on from its first missing frame on another
      --backend B          auto (default), gpu or cpu
      --scaler S           upscaler for renditions: bicubic (default), bilinear, lanczos,
                           spline or neighbor, as ffmpeg's -vf scale=W:H:flags=S
      --accurate_rnd       add libswscale's accurate_rnd (flags=S+accurate_rnd): the same
                           bytes on every CPU
      --transport T        how the videos reach the server: auto (default: server_files if
                           given, else an upload of encoded files when the server accepts
                           uploads, else frames), server_files, upload or frames (decoded
                           here, luma planes streamed; chroma too, from raw .yuv and .y4m
                           files only, where psnr reads it)
      --server_files       let the server read REF and DIST from its --files_root
                           (the same as --transport server_files)
      --ladder             score a ladder: -r is the source, each -d NAME=FILE a rendition;
                           -o DIR writes DIR/NAME.json (or .txt) per rendition, and a table
                           of the renditions goes to stdout
      --ladder_source SRC --rendition NAME=PATH   the same as --ladder --server_files
                           -r SRC -d NAME=PATH
      --spread             send each rendition in a call of its own (over every server of
                           --server)
      --title ID, --rung R, --label KEY=VALUE   labels for the server's logs and metrics
      --percentile P       pooled percentile to report (repeatable)
      --timeout DURATION   end the whole run after this long (default 1h; e.g. 90s, 10m)
      --tls, --tls_ca_file F, --tls_cert_file F, --tls_key_file F   TLS and mTLS
      --max_message_bytes N  largest message (default 167772160)
  -q, --quiet              no progress bar
      --no_progress        no progress bar
  -n, --no_prediction, --threads N   accepted for libvmaf compatibility; no effect
      --help               this text
)" + FeatureHelp();
}

namespace {

absl::Status Set(std::string& field, const char* arg) {
  field = arg;
  return absl::OkStatus();
}

absl::Status SetDimension(absl::string_view flag, const char* arg, std::optional<int>& field) {
  int n = 0;
  if (!absl::SimpleAtoi(arg, &n) || n < 1) {
    return Bad(flag, absl::StrCat("expected a positive number of pixels, got \"", arg, "\""));
  }
  field = n;
  return absl::OkStatus();
}

absl::Status SetPixelFormat(const char* arg, CliOptions& out) {
  static const auto* const kFormats = new std::map<std::string, ChromaFormat>{
      {"420", ChromaFormat::k420},
      {"422", ChromaFormat::k422},
      {"444", ChromaFormat::k444},
      {"400", ChromaFormat::k400}};
  auto it = kFormats->find(arg);
  if (it == kFormats->end()) {
    return Bad("-p/--pixel_format",
               absl::StrCat("expected 420, 422, 444 or 400, got \"", arg, "\""));
  }
  out.chroma = it->second;
  return absl::OkStatus();
}

absl::Status SetBitDepth(const char* arg, CliOptions& out) {
  int n = 0;
  if (!absl::SimpleAtoi(arg, &n) || (n != 8 && n != 10 && n != 12 && n != 16)) {
    return Bad("-b/--bitdepth", absl::StrCat("expected 8, 10, 12 or 16, got \"", arg, "\""));
  }
  out.bit_depth = n;
  return absl::OkStatus();
}

absl::Status SetPrecision(const char* arg, CliOptions& out) {
  auto format = ParsePrecision(arg);
  if (!format.ok()) return format.status();
  out.precision = *format;
  return absl::OkStatus();
}

absl::Status SetCount(absl::string_view flag, const char* arg, uint64_t& field) {
  auto n = Count(flag, arg);
  if (!n.ok()) return n.status();
  field = *n;
  return absl::OkStatus();
}

absl::Status SetBackend(const char* arg, CliOptions& out) {
  static const auto* const kBackends = new std::map<std::string, v1::Backend>{
      {"auto", v1::BACKEND_AUTO}, {"gpu", v1::BACKEND_GPU}, {"cpu", v1::BACKEND_CPU}};
  auto it = kBackends->find(arg);
  if (it == kBackends->end()) {
    return Bad("--backend", absl::StrCat("expected auto, gpu or cpu, got \"", arg, "\""));
  }
  out.backend = it->second;
  return absl::OkStatus();
}

absl::Status SetTimeout(const char* arg, CliOptions& out) {
  if (!absl::ParseDuration(arg, &out.timeout) || out.timeout <= absl::ZeroDuration()) {
    return Bad("--timeout", absl::StrCat("expected a positive duration such as 90s or 10m, got \"",
                                         arg, "\""));
  }
  return absl::OkStatus();
}

absl::Status AddLabel(const char* arg, CliOptions& out) {
  std::vector<std::string> kv = absl::StrSplit(arg, absl::MaxSplits('=', 1));
  if (kv.size() != 2 || kv[0].empty()) {
    return Bad("--label", absl::StrCat("expected KEY=VALUE, got \"", arg, "\""));
  }
  out.labels[kv[0]] = kv[1];
  return absl::OkStatus();
}

absl::Status AddPercentile(const char* arg, CliOptions& out) {
  double p = 0;
  if (!absl::SimpleAtod(arg, &p) || !(p >= 0 && p <= 100)) {
    return Bad("--percentile", absl::StrCat("expected a number from 0 to 100, got \"", arg, "\""));
  }
  out.percentiles.push_back(p);
  return absl::OkStatus();
}

absl::Status AddRendition(absl::string_view flag, absl::string_view arg, CliOptions& out) {
  std::vector<std::string> kv = absl::StrSplit(arg, absl::MaxSplits('=', 1));
  if (kv.size() != 2 || kv[0].empty() || kv[1].empty()) {
    return Bad(flag, absl::StrCat("expected NAME=FILE, got \"", arg, "\""));
  }
  out.renditions.emplace_back(kv[0], kv[1]);
  return absl::OkStatus();
}

absl::Status SetScaler(const char* arg, CliOptions& out) {
  absl::StatusOr<ScalerKind> kind = ParseScalerKind(arg);
  if (!kind.ok()) return Bad("--scaler", kind.status().message());
  out.scaler.kind = *kind;
  return absl::OkStatus();
}

absl::Status SetTransport(const char* arg, CliOptions& out) {
  static const auto* const kTransports = new std::map<std::string, Transport>{
      {"auto", Transport::kAuto},
      {"server_files", Transport::kServerFiles},
      {"upload", Transport::kUpload},
      {"frames", Transport::kFrames}};
  auto it = kTransports->find(arg);
  if (it == kTransports->end()) {
    return Bad("--transport",
               absl::StrCat("expected auto, server_files, upload or frames, got \"", arg, "\""));
  }
  out.transport = it->second;
  return absl::OkStatus();
}

absl::Status SetMaxMessageBytes(const char* arg, CliOptions& out) {
  int64_t n = 0;
  if (!absl::SimpleAtoi(arg, &n) || n < 1024 || n > (int64_t{1} << 31) - 1) {
    return Bad("--max_message_bytes",
               absl::StrCat("expected 1024 to 2147483647, got \"", arg, "\""));
  }
  out.client.max_message_bytes = n;
  return absl::OkStatus();
}

absl::Status Flag(bool& field) {
  field = true;
  return absl::OkStatus();
}

// libvmaf's `-m version=NAME[:enable_transform][:disable_clip]`, as the vmaf feature's options.
absl::Status AddModel(const char* arg, CliOptions& out) {
  absl::StatusOr<VmafModelOptions> model = ParseVmafModelOptions(arg);
  if (!model.ok()) return Bad("-m/--model", std::string(model.status().message()));
  if (!model->path.empty()) {
    return Bad("-m/--model", "path= is not served: the server scores with the models it loaded "
                             "(--vmaf_model_dir); name one with version=NAME (GetCapabilities, "
                             "or the server's start-up log, lists them)");
  }
  if (!model->name.empty() || !model->overloads.empty()) {
    return Bad("-m/--model", "name= and feature options (fex.option=value) are not supported; "
                             "give version=NAME, enable_transform and disable_clip");
  }
  for (const std::string& feature : out.features) {
    if (absl::StartsWith(feature, "vmaf")) {
      return Bad("-m/--model", "vmaf is asked for once: give one --model (or --feature vmaf=...)");
    }
  }
  out.features.push_back(absl::StrCat(
      "vmaf=model=", model->version.empty() ? "vmaf_v0.6.1" : model->version,
      ":enable_transform=", model->enable_transform ? "true" : "false",
      ":disable_clip=", model->disable_clip ? "true" : "false"));
  return absl::OkStatus();
}

// Applies one option getopt returned (its code and value) to `out`.
absl::Status ApplyOption(int code, const char* arg, CliOptions& out) {
  switch (code) {
    case 'r': return Set(out.reference, arg);
    case 'd': out.distorted_args.push_back(arg); return absl::OkStatus();
    case 'w': return SetDimension("-w/--width", arg, out.width);
    case 'h': return SetDimension("-h/--height", arg, out.height);
    case 'p': return SetPixelFormat(arg, out);
    case 'b': return SetBitDepth(arg, out);
    case 'o': return Set(out.output, arg);
    case 'q': out.progress = false; return Flag(out.quiet);
    case 'n': case kThreads: return absl::OkStatus();  // libvmaf's; nothing to do here
    case kFeature: out.features.push_back(arg); return absl::OkStatus();
    case kJson: return Flag(out.json);
    case kPrecision: return SetPrecision(arg, out);
    case kFrameCnt: return SetCount("--frame_cnt", arg, out.frame_cnt);
    case kFrameSkipRef: return SetCount("--frame_skip_ref", arg, out.frame_skip_ref);
    case kFrameSkipDist: return SetCount("--frame_skip_dist", arg, out.frame_skip_dist);
    case kServer: return Set(out.client.target, arg);
    case kBackend: return SetBackend(arg, out);
    case kTimeout: return SetTimeout(arg, out);
    case kTitle: return Set(out.title, arg);
    case kRung: return Set(out.rung, arg);
    case kLabel: return AddLabel(arg, out);
    case kPercentile: return AddPercentile(arg, out);
    case kServerFiles: out.transport = Transport::kServerFiles; return absl::OkStatus();
    case kNoProgress: out.progress = false; return absl::OkStatus();
    case kTls: return Flag(out.client.tls);
    case kTlsCa: return Set(out.client.ca_file, arg);
    case kTlsCert: return Set(out.client.cert_file, arg);
    case kTlsKey: return Set(out.client.key_file, arg);
    case kMaxMessageBytes: return SetMaxMessageBytes(arg, out);
    case 'm':
    case kModel:
      return AddModel(arg, out);
    case kLadder: return Flag(out.ladder);
    case kLadderSource:
      out.ladder = true;
      out.transport = Transport::kServerFiles;
      return Set(out.reference, arg);
    case kRendition: out.ladder = true; return AddRendition("--rendition", arg, out);
    case kSpread: return Flag(out.spread);
    case kScaler: return SetScaler(arg, out);
    case kAccurateRnd: return Flag(out.scaler.accurate_rounding);
    case kTransport: return SetTransport(arg, out);
    case kHelp: return Flag(out.help);
  }
  return absl::InternalError(absl::StrCat("option code ", code, " has no handler"));
}

// What holds for the whole command line once every option is read.
absl::StatusOr<CliOptions> CheckComplete(int argc, char** argv, CliOptions out) {
  if (optind < argc) {
    return Bad(argv[optind],
               "unexpected argument; options take the form -r FILE or --feature SPEC");
  }
  if (out.spread && !out.ladder) {
    return Bad("--spread", "spreads a ladder's renditions; give --ladder");
  }
  if (out.ladder) {
    for (const std::string& arg : out.distorted_args) {
      SSIMD_RETURN_IF_ERROR(AddRendition("-d", arg, out));
    }
    if (out.reference.empty() || out.renditions.empty()) {
      return Bad("--ladder", "a ladder needs its source (-r SRC) and at least one rendition "
                             "(-d NAME=FILE)");
    }
  } else {
    if (out.reference.empty() || out.distorted_args.empty()) {
      return Bad("-r/-d", "both the reference (-r) and the distorted (-d) video are required");
    }
    if (out.distorted_args.size() > 1) {
      return Bad("-d", "one distorted video per run; for several renditions of one source, use "
                       "--ladder -r SRC -d NAME=FILE -d NAME=FILE");
    }
    out.distorted = out.distorted_args.front();
  }
  if (out.features.empty()) out.features.push_back("float_ssim");
  if (!out.output.empty()) out.json = true;
  return out;
}

}  // namespace

absl::StatusOr<CliOptions> ParseCliOptions(int argc, char** argv) {
  CliOptions out;
  optind = 0;  // GNU getopt: start over (tests parse several command lines)
  opterr = 0;
  for (;;) {
    const int previous = optind;
    const int code = getopt_long(argc, argv, ":r:d:w:h:p:b:o:m:qn", kOptions, nullptr);
    if (code == -1) break;
    const std::string seen = previous < argc ? argv[previous] : "";
    if (code == ':') return Bad(seen, "needs a value");
    if (code == '?') return Bad(seen, "unknown option (see --help)");
    SSIMD_RETURN_IF_ERROR(ApplyOption(code, optarg, out));
    if (out.help) return out;
  }
  return CheckComplete(argc, argv, std::move(out));
}

}  // namespace ssimd
