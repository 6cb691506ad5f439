// Writes the checked-in seed corpora of the fuzz targets (fuzz/corpus/<target>/seed-*). The seeds
// are small valid and nearly valid inputs that reach each path of the code under test; the fuzzer
// mutates from there. Run after changing the input format of a target:
//
//   bazel run //fuzz:make_seeds -- "$PWD/fuzz/corpus"
//
// Inputs found by fuzzing that once crashed are kept next to the seeds as regress-* files; this
// tool never touches them.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd {
namespace {

namespace fs = std::filesystem;

bool Write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream out(dir / ("seed-" + name), std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

// A deterministic picture: a diagonal ramp plus a little pseudo-noise, so reference and
// distorted differ and the SSIM terms are not degenerate.
std::string Plane(int width, int height, int bit_depth, uint32_t seed) {
  const uint32_t peak = (1u << bit_depth) - 1;
  std::string out;
  uint32_t state = seed * 2654435761u + 1;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      state = state * 1103515245u + 12345u;
      const uint32_t ramp = static_cast<uint32_t>((x + y) * peak / (width + height));
      const uint32_t v = std::min(peak, ramp + ((state >> 16) % 5));
      if (bit_depth == 8) {
        out.push_back(static_cast<char>(v));
      } else {
        out.push_back(static_cast<char>(v & 0xff));
        out.push_back(static_cast<char>(v >> 8));
      }
    }
  }
  return out;
}

// --- request: byte 0 = mode and policy, then varint-framed ScoreClipRequests or a ScorePair ---

enum Mode : uint8_t { kClip = 0, kPair = 1 };
enum Policy : uint8_t { kAuto = 0, kGpu = 1 << 1, kCpu = 2 << 1 };

std::string Framed(uint8_t mode_and_policy, const std::vector<v1::ScoreClipRequest>& messages) {
  std::string out(1, static_cast<char>(mode_and_policy));
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    for (const v1::ScoreClipRequest& m : messages) {
      coded.WriteVarint32(static_cast<uint32_t>(m.ByteSizeLong()));
      m.SerializeWithCachedSizes(&coded);
    }
  }
  return out;
}

v1::ScoreClipRequest Config(uint32_t width, uint32_t height, uint32_t bit_depth,
                            v1::PixelFormat format) {
  v1::ScoreClipRequest r;
  v1::Geometry* g = r.mutable_config()->mutable_geometry();
  g->set_width(width);
  g->set_height(height);
  g->set_bit_depth(bit_depth);
  g->set_pixel_format(format);
  return r;
}

v1::ScoreClipRequest Frame(uint64_t index, int width, int height, int bit_depth) {
  v1::ScoreClipRequest r;
  v1::FramePair* f = r.mutable_frame();
  f->set_index(index);
  f->set_reference_luma(Plane(width, height, bit_depth, static_cast<uint32_t>(2 * index)));
  f->set_distorted_luma(Plane(width, height, bit_depth, static_cast<uint32_t>(2 * index + 1)));
  return r;
}

std::vector<v1::ScoreClipRequest> Clip(v1::ScoreClipRequest config, int width, int height,
                                       int bit_depth, int frames) {
  std::vector<v1::ScoreClipRequest> out = {std::move(config)};
  for (int i = 0; i < frames; ++i) out.push_back(Frame(i, width, height, bit_depth));
  return out;
}

std::string Pair(uint8_t policy, uint32_t width, uint32_t height, uint32_t bit_depth,
                 const std::string& reference, const std::string& distorted,
                 v1::Backend backend) {
  v1::ScorePairRequest r;
  r.mutable_geometry()->set_width(width);
  r.mutable_geometry()->set_height(height);
  r.mutable_geometry()->set_bit_depth(bit_depth);
  r.mutable_features()->mutable_float_ssim()->set_enable_db(true);
  r.mutable_features()->mutable_ssim();
  r.set_backend(backend);
  r.set_reference_luma(reference);
  r.set_distorted_luma(distorted);
  return std::string(1, static_cast<char>(kPair | policy)) + r.SerializeAsString();
}

bool RequestSeeds(const fs::path& dir) {
  bool ok = true;
  {
    auto config = Config(8, 8, 8, v1::PIXEL_FORMAT_420);
    config.mutable_config()->mutable_features()->mutable_float_ssim();
    ok &= Write(dir, "clip-float-ssim-8x8", Framed(kClip | kAuto, Clip(config, 8, 8, 8, 2)));
  }
  {
    auto config = Config(16, 16, 10, v1::PIXEL_FORMAT_422);
    config.mutable_config()->mutable_features()->mutable_ssim()->set_enable_db(true);
    config.mutable_config()->set_backend(v1::BACKEND_CPU);
    ok &= Write(dir, "clip-ssim-db-10bit", Framed(kClip | kCpu, Clip(config, 16, 16, 10, 2)));
  }
  {
    auto config = Config(11, 11, 8, v1::PIXEL_FORMAT_444);
    v1::ClipConfig* c = config.mutable_config();
    c->mutable_features()->add_feature_args("float_ssim=scale=2:enable_lcs=true:clip_db=true");
    c->mutable_features()->add_feature_args("ssim=exact=true");
    c->set_title_id("title-0042");
    c->set_rung("1080p-4500k");
    (*c->mutable_labels())["encoder"] = "x264";
    c->add_percentiles(0);
    c->add_percentiles(50);
    c->add_percentiles(100);
    ok &= Write(dir, "clip-feature-args-lcs", Framed(kClip | kAuto, Clip(config, 11, 11, 8, 3)));
  }
  {
    auto config = Config(1, 1, 16, v1::PIXEL_FORMAT_400);
    config.mutable_config()->mutable_features()->mutable_float_ssim()->set_scale(10);
    ok &= Write(dir, "clip-1x1-16bit-scale10", Framed(kClip | kAuto, Clip(config, 1, 1, 16, 2)));
  }
  {
    auto config = Config(17, 9, 12, v1::PIXEL_FORMAT_420);
    config.mutable_config()->mutable_features()->mutable_float_ssim()->set_enable_db(true);
    config.mutable_config()->mutable_features()->mutable_ssim()->set_enable_db(true);
    auto clip = Clip(config, 17, 9, 12, 2);
    clip[2].mutable_frame()->set_reference_luma(clip[1].frame().reference_luma());
    clip[2].mutable_frame()->set_distorted_luma(clip[1].frame().reference_luma());
    ok &= Write(dir, "clip-identical-frame-12bit", Framed(kClip | kAuto, clip));
  }
  {
    auto config = Config(4, 4, 8, v1::PIXEL_FORMAT_420);
    config.mutable_config()->mutable_features()->mutable_ssim();
    auto clip = Clip(config, 4, 4, 8, 3);
    clip[2].mutable_frame()->set_index(2);  // skips index 1
    ok &= Write(dir, "clip-index-gap", Framed(kClip | kAuto, clip));
  }
  {
    auto config = Config(4, 4, 10, v1::PIXEL_FORMAT_420);
    config.mutable_config()->mutable_features()->mutable_ssim();
    auto clip = Clip(config, 4, 4, 10, 1);
    clip[1].mutable_frame()->mutable_distorted_luma()->pop_back();  // one byte short
    ok &= Write(dir, "clip-short-plane", Framed(kClip | kAuto, clip));
  }
  {
    auto config = Config(4, 4, 10, v1::PIXEL_FORMAT_420);
    config.mutable_config()->mutable_features()->mutable_float_ssim();
    auto clip = Clip(config, 4, 4, 10, 1);
    (*clip[1].mutable_frame()->mutable_reference_luma())[1] = static_cast<char>(0xff);
    ok &= Write(dir, "clip-sample-above-peak", Framed(kClip | kAuto, clip));
  }
  {
    auto config = Config(16384, 16384, 16, v1::PIXEL_FORMAT_420);
    config.mutable_config()->mutable_features()->mutable_float_ssim();
    ok &= Write(dir, "clip-over-message-limit", Framed(kClip | kAuto, {config}));
  }
  {
    auto config = Config(64, 36, 8, v1::PIXEL_FORMAT_420);
    config.mutable_config()->mutable_features()->mutable_float_ssim();
    config.mutable_config()->set_backend(v1::BACKEND_GPU);
    ok &= Write(dir, "clip-gpu-only", Framed(kClip | kGpu, Clip(config, 64, 36, 8, 1)));
  }
  {
    auto config = Config(8, 8, 7, v1::PIXEL_FORMAT_420);
    config.mutable_config()->mutable_features()->add_feature_args("float_ssim=scale=11");
    config.mutable_config()->add_percentiles(101);
    ok &= Write(dir, "clip-bad-config", Framed(kClip | kAuto, {config}));
  }
  {
    auto config = Config(8, 8, 8, v1::PIXEL_FORMAT_420);
    config.mutable_config()->mutable_features()->mutable_float_ssim();
    ok &= Write(dir, "clip-frame-first-then-two-configs",
                Framed(kClip | kAuto, {Frame(0, 8, 8, 8), config, config}));
  }
  ok &= Write(dir, "pair-8bit-5x7",
              Pair(kAuto, 5, 7, 8, Plane(5, 7, 8, 1), Plane(5, 7, 8, 2), v1::BACKEND_AUTO));
  ok &= Write(dir, "pair-16bit-3x2",
              Pair(kCpu, 3, 2, 16, Plane(3, 2, 16, 3), Plane(3, 2, 16, 4), v1::BACKEND_CPU));
  ok &= Write(dir, "pair-gpu-on-cpu-server",
              Pair(kCpu, 2, 2, 8, Plane(2, 2, 8, 5), Plane(2, 2, 8, 6), v1::BACKEND_GPU));
  return ok;
}

// --- y4m_reader: a whole .y4m file ---

std::string Y4m(const std::string& header, const std::vector<std::string>& frame_lines,
                size_t frame_bytes, uint32_t seed) {
  std::string out = header + "\n";
  for (size_t i = 0; i < frame_lines.size(); ++i) {
    out += frame_lines[i] + "\n";
    const std::string body = Plane(static_cast<int>(frame_bytes), 1, 8, seed + i);
    out += body;
  }
  return out;
}

bool Y4mSeeds(const fs::path& dir) {
  bool ok = true;
  // Frame sizes: luma plus both chroma planes (ceil halves where subsampled).
  ok &= Write(dir, "420-8x8-2frames",
              Y4m("YUV4MPEG2 W8 H8 F25:1 Ip A1:1 C420jpeg", {"FRAME", "FRAME"}, 64 + 2 * 16, 1));
  ok &= Write(dir, "420p10-5x3-frame-params",
              Y4m("YUV4MPEG2 W5 H3 F30000:1001 It C420p10 XYSCSS=420P10",
                  {"FRAME Ixyz", "FRAME"}, 2 * (15 + 2 * 3 * 2), 2));
  ok &= Write(dir, "mono-4x4-3frames",
              Y4m("YUV4MPEG2 W4 H4 Cmono", {"FRAME", "FRAME", "FRAME"}, 16, 3));
  ok &= Write(dir, "444p16-2x2", Y4m("YUV4MPEG2 C444p16 W2 H2", {"FRAME"}, 2 * 12, 4));
  ok &= Write(dir, "422p12-3x3", Y4m("YUV4MPEG2 W3 H3 C422p12", {"FRAME"}, 2 * (9 + 2 * 6), 5));
  ok &= Write(dir, "no-colorspace-1x1", Y4m("YUV4MPEG2 W1 H1", {"FRAME"}, 3, 6));
  {
    std::string truncated = Y4m("YUV4MPEG2 W8 H8 C420", {"FRAME"}, 96, 7);
    truncated += "FRAME\n" + Plane(40, 1, 8, 8);
    ok &= Write(dir, "truncated-second-frame", truncated);
  }
  ok &= Write(dir, "bad-frame-line", Y4m("YUV4MPEG2 W2 H2 C444", {"FRAMEX"}, 12, 9));
  ok &= Write(dir, "zero-width", Y4m("YUV4MPEG2 W0 H8", {}, 0, 0));
  ok &= Write(dir, "unsupported-colorspace", Y4m("YUV4MPEG2 W8 H8 C411", {"FRAME"}, 96, 10));
  ok &= Write(dir, "not-y4m", std::string("RIFF\0\0\0\0WAVEfmt ", 16));
  return ok;
}

// --- yuv_reader: 4 parameter bytes (see yuv_reader_fuzzer.cc), then the raw file ---

std::string Yuv(int width, int height, int depth_code, int chroma_code, int skip,
                size_t file_bytes, uint32_t seed) {
  std::string out;
  out.push_back(static_cast<char>(width - 1));
  out.push_back(static_cast<char>(height - 1));
  out.push_back(static_cast<char>(depth_code | (chroma_code << 2)));
  out.push_back(static_cast<char>(skip));
  out += Plane(static_cast<int>(file_bytes), 1, 8, seed);
  return out;
}

bool YuvSeeds(const fs::path& dir) {
  bool ok = true;
  // depth codes: 0=8 1=10 2=12 3=16; chroma codes: 0=400 1=420 2=422 3=444.
  ok &= Write(dir, "420-8bit-8x8-3frames", Yuv(8, 8, 0, 1, 0, 3 * 96, 1));
  ok &= Write(dir, "420-8bit-odd-5x3-skip1", Yuv(5, 3, 0, 1, 1, 2 * (15 + 2 * 6), 2));
  ok &= Write(dir, "422-10bit-4x2", Yuv(4, 2, 1, 2, 0, 2 * 2 * (8 + 2 * 4), 3));
  ok &= Write(dir, "444-16bit-2x2-ragged", Yuv(2, 2, 3, 3, 0, 2 * 12 + 5, 4));
  ok &= Write(dir, "400-12bit-3x1", Yuv(3, 1, 2, 0, 0, 4 * 6, 5));
  ok &= Write(dir, "empty-file", Yuv(16, 16, 0, 1, 0, 0, 6));
  ok &= Write(dir, "skip-past-end", Yuv(2, 2, 0, 1, 3, 2 * 6, 7));
  return ok;
}

// --- feature_args: arguments separated by newlines ---

bool FeatureArgsSeeds(const fs::path& dir) {
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"float-ssim", "float_ssim"},
      {"ssim", "ssim"},
      {"both-with-options", "float_ssim=scale=2:enable_db=true\nssim=enable_db=1"},
      {"every-float-option", "float_ssim=scale=0:enable_db=false:clip_db=true:enable_lcs=true"},
      {"ssim-exact", "ssim=exact=true:enable_db=false"},
      {"scale-out-of-range", "float_ssim=scale=11"},
      {"empty-options", "float_ssim="},
      {"unknown-feature", "vmaf=model=version=vmaf_v0.6.1"},
      {"repeated-feature", "float_ssim\nfloat_ssim=enable_db=1"},
      {"option-without-value", "float_ssim=scale"},
      {"repeated-option", "float_ssim=scale=2:scale=3"},
      {"empty-option", "ssim=enable_db=true::exact=0"},
      {"bad-bool", "ssim=enable_db=yes"},
  };
  bool ok = true;
  for (const auto& [name, text] : seeds) ok &= Write(dir, name, text);
  return ok;
}

}  // namespace
}  // namespace ssimd

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR   (e.g. \"$PWD/fuzz/corpus\")\n", argv[0]);
    return 2;
  }
  const std::filesystem::path root = argv[1];
  const bool ok = ssimd::RequestSeeds(root / "request") && ssimd::Y4mSeeds(root / "y4m_reader") &&
                  ssimd::YuvSeeds(root / "yuv_reader") &&
                  ssimd::FeatureArgsSeeds(root / "feature_args");
  if (!ok) {
    std::fprintf(stderr, "could not write every seed under %s\n", argv[1]);
    return 1;
  }
  std::printf("seeds written under %s\n", argv[1]);
  return 0;
}
