// The GPU backend against the CPU engine and libvmaf's reference scores, bit for bit, plus the
// pool's behaviour under concurrency, errors and a lost device. Every test skips, saying why, where
// no GPU can be used (a CPU-only build, or no device). main() prints what was compared.
//
// Reference clips: the full set named by $SSIMD_REFERENCE_DIR (optional external data), else the
// checked-in subset tests/data/reference.
#include "engine/gpu/gpu_scorer.h"

#include <functional>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_format.h"
#include "engine/cpu/cpu_scorer.h"
#include "engine/dispatcher.h"
#include "engine/gpu/exact_sum.h"
#include "engine/gpu/gpu_test_hooks.h"
#include "engine/luma_scale_plan.h"
#include "engine/synthetic_picture.h"
#include "gtest/gtest.h"
#include "kernels/decimate.h"
#include "kernels/ms_ssim_math.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"
#include "tests/reference/scorer_metrics_replay.h"
#include "engine/psnr_scores.h"

#if defined(SSIMD_GPU_NVIDIA) || defined(SSIMD_GPU_ROCM)
#include "kernels/float_ssim_kernels.h"
#include "kernels/hip_portability.h"
#include "kernels/ms_ssim_kernels.h"
#define SSIMD_TEST_HAS_GPU_BUILD 1
#endif

namespace ssimd {
namespace {

using testing::SameBits;

// What was compared, for the closing summary.
struct Tally {
  std::atomic<int64_t> frames{0};            // frames scored on the GPU and compared
  std::atomic<int64_t> values{0};            // score values compared bit for bit
  std::atomic<int64_t> refused{0};           // requests the context gate sent to the CPU
  std::atomic<int64_t> planes{0};            // decimated planes compared byte for byte
  std::atomic<int64_t> reference_values{0};  // values compared with libvmaf's reference
  std::atomic<int64_t> ms_ssim_frames{0};     // of frames, those with float_ms_ssim
  std::atomic<int64_t> pyramid_planes{0};     // float_ms_ssim pyramid planes byte for byte
};
Tally g_tally;

struct SharedGpu {
  std::unique_ptr<GpuScorer> scorer;
  std::string unavailable;
};

const SharedGpu& Gpu() {
  static const SharedGpu* const gpu = [] {
    auto* shared = new SharedGpu;
    GpuOptions options;
    options.streams_per_device = 4;
    absl::StatusOr<std::unique_ptr<GpuScorer>> made = MakeGpuScorer(options);
    if (made.ok()) {
      shared->scorer = *std::move(made);
    } else {
      shared->unavailable = std::string(made.status().message());
    }
    return shared;
  }();
  return *gpu;
}

Scorer& Cpu() {
  static Scorer* const cpu = MakeCpuScorer().release();
  return *cpu;
}

#define SKIP_WITHOUT_GPU()                                   \
  if (Gpu().scorer == nullptr) {                             \
    GTEST_SKIP() << "no GPU to test: " << Gpu().unavailable; \
  }

// ---- Synthetic pictures ------------------------------------------------------------------------

enum class Content { kNoise, kSmooth, kFlat };

// The shared generator's planes (engine/synthetic_picture.h).
using Picture = SyntheticPlane;

Geometry MakeGeometry(int width, int height, int bit_depth) {
  Geometry g;
  g.width = width;
  g.height = height;
  g.bit_depth = bit_depth;
  return g;
}

Picture MakePicture(const Geometry& geometry, Content content, uint64_t seed, uint32_t level = 0) {
  switch (content) {
    case Content::kNoise:
      return NoisyPlane(geometry.width, geometry.height, geometry.bit_depth,
                        static_cast<uint32_t>(seed));
    case Content::kSmooth:
      return TexturedPlane(geometry, static_cast<uint32_t>(seed));
    case Content::kFlat:
      break;
  }
  return FlatPlane(geometry.width, geometry.height, geometry.bit_depth, level);
}

// The reference with bounded noise added, as a codec's error; `amplitude` in 8-bit levels.
Picture DistortScaled(const Picture& reference, uint64_t seed, int amplitude) {
  return Distort(reference, static_cast<uint32_t>(seed), amplitude << (reference.bit_depth - 8));
}

// The pictures a parity test compares at one size and depth.
struct SyntheticCase {
  Geometry geometry;
  Picture ref, dist, flat, flat_other;
};

// For each size, two bit depths in turn from 8, 10, 12, 16: a reference (`every_third` content
// on every third case, else `otherwise`), its distortion (seeds from `distort_seed`), and two
// flat pictures 3 apart.
void ForEachSyntheticCase(const std::vector<std::pair<int, int>>& sizes, Content every_third,
                          Content otherwise, uint64_t distort_seed,
                          const std::function<void(const SyntheticCase&)>& test) {
  const int depths[] = {8, 10, 12, 16};
  int k = 0;
  for (auto [w, h] : sizes) {
    for (int bit_depth : {depths[k % 4], depths[(k + 1) % 4]}) {
      ++k;
      const Geometry g = MakeGeometry(w, h, bit_depth);
      const Picture ref = MakePicture(g, k % 3 == 0 ? every_third : otherwise, k);
      test({g, ref, DistortScaled(ref, distort_seed + k, 6),
            MakePicture(g, Content::kFlat, 0, PeakValue(bit_depth) / 2),
            MakePicture(g, Content::kFlat, 0, PeakValue(bit_depth) / 2 + 3)});
    }
  }
}

FramePair PairOf(const Picture& reference, const Picture& distorted) {
  return FramePair{reference.view(), distorted.view()};
}

// ---- Comparison -------------------------------------------------------------------------------

std::string Describe(const Geometry& g, const FeatureSet& f) {
  std::string options;
  if (f.float_ssim) {
    absl::StrAppendFormat(&options, " float_ssim(scale=%d lcs=%d db=%d clip=%d)",
                          f.float_ssim->scale, f.float_ssim->enable_lcs, f.float_ssim->enable_db,
                          f.float_ssim->clip_db);
  }
  if (f.ssim) {
    absl::StrAppendFormat(&options, " ssim(db=%d exact=%d)", f.ssim->enable_db, f.ssim->exact);
  }
  if (f.psnr) {
    absl::StrAppendFormat(&options, " psnr(mse=%d reduced_peak=%d min_sse=%g)",
                          f.psnr->enable_mse, f.psnr->reduced_hbd_peak, f.psnr->min_sse);
  }
  if (f.float_ms_ssim) {
    absl::StrAppendFormat(&options, " float_ms_ssim(lcs=%d db=%d clip=%d)",
                          f.float_ms_ssim->enable_lcs, f.float_ms_ssim->enable_db,
                          f.float_ms_ssim->clip_db);
  }
  return absl::StrFormat("%dx%d %d-bit%s", g.width, g.height, g.bit_depth, options);
}

void ExpectSameScores(const FrameScores& expected, const FrameScores& actual,
                      const std::string& where) {
  ASSERT_EQ(expected.size(), actual.size()) << where;
  for (const auto& [key, value] : expected) {
    const auto it = actual.find(key);
    ASSERT_NE(it, actual.end()) << where << ": no " << key;
    EXPECT_TRUE(SameBits(value, it->second))
        << where << " " << key << ": cpu " << absl::StrFormat("%.17g (%a)", value, value) << " gpu "
        << absl::StrFormat("%.17g (%a)", it->second, it->second);
    g_tally.values.fetch_add(1);
  }
}

// Scores on both backends and compares; a request the gate refuses must be one the CPU serves.
// Returns false when the GPU refused it.
bool CompareWithCpu(GpuScorer& gpu, const Geometry& geometry, const FeatureSet& features,
                    const FramePair& pair) {
  const std::string where = Describe(geometry, features);
  absl::StatusOr<ScoreResult> cpu = Cpu().Score(geometry, features, pair);
  EXPECT_TRUE(cpu.ok()) << where << ": " << cpu.status();
  if (!cpu.ok()) return false;
  if (absl::Status gate = gpu.CheckContext(geometry, features); !gate.ok()) {
    EXPECT_EQ(gate.code(), absl::StatusCode::kFailedPrecondition) << where << ": " << gate;
    EXPECT_EQ(gpu.Score(geometry, features, pair).status().code(),
              absl::StatusCode::kFailedPrecondition);
    g_tally.refused.fetch_add(1);
    return false;
  }
  absl::StatusOr<ScoreResult> result = gpu.Score(geometry, features, pair);
  EXPECT_TRUE(result.ok()) << where << ": " << result.status();
  if (!result.ok()) return false;
  EXPECT_EQ(result->backend.rfind("gpu:", 0), 0u) << result->backend;
  ExpectSameScores(cpu->scores, result->scores, where);
  EXPECT_EQ(cpu->sums, result->sums) << where << ": the sums a clip pools";
  g_tally.frames.fetch_add(1);
  if (features.float_ms_ssim) g_tally.ms_ssim_frames.fetch_add(1);
  return true;
}

FeatureSet FloatSsim(int scale, bool lcs = false, bool db = false, bool clip = false) {
  FeatureSet f;
  f.float_ssim = FloatSsimOptions{};
  f.float_ssim->scale = scale;
  f.float_ssim->enable_lcs = lcs;
  f.float_ssim->enable_db = db;
  f.float_ssim->clip_db = clip;
  return f;
}

// psnr of the luma (frame pairs carry no chroma).
PsnrOptions LumaPsnr(bool mse = false, bool reduced_peak = false, double min_sse = 0) {
  PsnrOptions options;
  options.enable_chroma = false;
  options.enable_mse = mse;
  options.reduced_hbd_peak = reduced_peak;
  options.min_sse = min_sse;
  return options;
}

FeatureSet IntegerSsim(bool db, bool exact) {
  FeatureSet f;
  f.ssim = IntegerSsimOptions{};
  f.ssim->enable_db = db;
  f.ssim->exact = exact;
  return f;
}

// ---- Decimation, straight against the shared host loop ---------------------------------------

#ifdef SSIMD_TEST_HAS_GPU_BUILD
std::vector<float> HostDecimate(const Picture& p, int factor) {
  const Geometry g = p.geometry();
  const int w = DecimatedSize(g.width, factor);
  const int h = DecimatedSize(g.height, factor);
  std::vector<float> out(static_cast<size_t>(w) * h);
  const float tap = DecimationTapWeight(factor);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      out[static_cast<size_t>(y) * w + x] =
          g.bit_depth == 8
              ? DecimatePixel(p.bytes.data(), g.width, g.width, g.height, 8, factor, tap, x, y)
              : DecimatePixel(reinterpret_cast<const uint16_t*>(p.bytes.data()), g.width, g.width,
                              g.height, g.bit_depth, factor, tap, x, y);
    }
  }
  return out;
}

// Both device planes of one decimation, read back.
void DeviceDecimate(const Picture& ref, const Picture& dist, int factor,
                    std::vector<float>& ref_out, std::vector<float>& dist_out) {
  const Geometry g = ref.geometry();
  const int w = DecimatedSize(g.width, factor);
  const int h = DecimatedSize(g.height, factor);
  const size_t in_bytes = ref.bytes.size();
  const size_t out_count = static_cast<size_t>(w) * h;
  void* d_in = nullptr;
  float* d_out = nullptr;
  ASSERT_EQ(hipMalloc(&d_in, 2 * in_bytes), hipSuccess);
  ASSERT_EQ(hipMalloc(reinterpret_cast<void**>(&d_out), 2 * out_count * sizeof(float)), hipSuccess);
  uint8_t* d_ref = static_cast<uint8_t*>(d_in);
  ASSERT_EQ(hipMemcpy(d_ref, ref.bytes.data(), in_bytes, hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(hipMemcpy(d_ref + in_bytes, dist.bytes.data(), in_bytes, hipMemcpyHostToDevice),
            hipSuccess);
  ASSERT_EQ(LaunchFloatSsimDecimate(d_ref, d_ref + in_bytes, g.width, g.width, g.height,
                                    g.bit_depth, factor, DecimationTapWeight(factor), d_out,
                                    d_out + out_count, w, h, nullptr),
            hipSuccess);
  ref_out.resize(out_count);
  dist_out.resize(out_count);
  ASSERT_EQ(hipMemcpy(ref_out.data(), d_out, out_count * sizeof(float), hipMemcpyDeviceToHost),
            hipSuccess);
  ASSERT_EQ(hipMemcpy(dist_out.data(), d_out + out_count, out_count * sizeof(float),
                      hipMemcpyDeviceToHost),
            hipSuccess);
  (void)hipFree(d_in);
  (void)hipFree(d_out);
}
#endif

TEST(GpuDecimationTest, PlanesAreByteIdenticalToTheHostLoop) {
  SKIP_WITHOUT_GPU();
#ifdef SSIMD_TEST_HAS_GPU_BUILD
  struct Case {
    int width, height;
    std::vector<int> factors;
  };
  const std::vector<int> small = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const std::vector<Case> cases = {
      {853, 481, small}, {1366, 768, small}, {1921, 1081, small}, {97, 89, small},
      {5, 7, small},     {1920, 1080, {4}},  {3840, 2160, {8}},   {1500, 1409, {16, 17, 64, 128}},
  };
  int depth_index = 0;
  for (const Case& c : cases) {
    for (int factor : c.factors) {
      const int bit_depth = std::vector<int>{8, 10, 12, 16}[depth_index++ % 4];
      const Geometry g = MakeGeometry(c.width, c.height, bit_depth);
      const Picture ref = MakePicture(g, Content::kNoise, 1000 + depth_index);
      const Picture dist = DistortScaled(ref, 2000 + depth_index, 9);
      std::vector<float> ref_plane, dist_plane;
      DeviceDecimate(ref, dist, factor, ref_plane, dist_plane);
      const std::vector<float> ref_host = HostDecimate(ref, factor);
      const std::vector<float> dist_host = HostDecimate(dist, factor);
      ASSERT_EQ(ref_plane.size(), ref_host.size());
      EXPECT_EQ(std::memcmp(ref_plane.data(), ref_host.data(), ref_host.size() * sizeof(float)), 0)
          << c.width << "x" << c.height << " " << bit_depth << "-bit factor " << factor;
      EXPECT_EQ(std::memcmp(dist_plane.data(), dist_host.data(), dist_host.size() * sizeof(float)),
                0)
          << c.width << "x" << c.height << " " << bit_depth << "-bit factor " << factor;
      g_tally.planes.fetch_add(2);
    }
  }
#endif
}

// ---- Planes in pieces (the received-message path) ---------------------------------------------

// A plane cut into pieces of `piece` bytes, as gRPC's slices cut a message.
PlanePieces Cut(const Picture& p, size_t piece) {
  PlanePieces pieces;
  for (size_t at = 0; at < p.bytes.size(); at += piece) {
    pieces.Add(absl::Span<const uint8_t>(p.bytes.data() + at,
                                         std::min(piece, p.bytes.size() - at)));
  }
  return pieces;
}

TEST(GpuPiecesTest, PiecesCutAnywhereScoreAsTheWholePlaneAndTheCpu) {
  SKIP_WITHOUT_GPU();
  int k = 0;
  for (auto [w, h, bit_depth] : std::vector<std::tuple<int, int, int>>{
           {1920, 1080, 8}, {1920, 1080, 10}, {853, 481, 12}, {64, 64, 16}, {3840, 2160, 8}}) {
    const Geometry g = MakeGeometry(w, h, bit_depth);
    const Picture ref = MakePicture(g, Content::kSmooth, 900 + k);
    const Picture dist = DistortScaled(ref, 950 + k, 5);
    ++k;
    FeatureSet features = FloatSsim(0, true);
    features.ssim = IntegerSsim(false, true).ssim;  // exact: bit for bit at any size
    features.psnr = LumaPsnr(true);
    absl::StatusOr<ScoreResult> cpu = Cpu().Score(g, features, PairOf(ref, dist));
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    for (size_t piece : {size_t{16384}, size_t{4097}, size_t{1} << 20, ref.bytes.size()}) {
      const PlanePieces ref_pieces = Cut(ref, piece);
      const PlanePieces dist_pieces = Cut(dist, piece + 1);  // never aligned with the other's
      absl::StatusOr<ScoreResult> gpu =
          Gpu().scorer->ScorePieces(g, features, {&ref_pieces, &dist_pieces});
      ASSERT_TRUE(gpu.ok()) << gpu.status();
      ExpectSameScores(cpu->scores, gpu->scores,
                       absl::StrFormat("%s in pieces of %d", Describe(g, features), piece));
      g_tally.frames.fetch_add(1);
    }
  }
}

TEST(GpuPiecesTest, BadPiecesAreRefusedAsOnTheCpuAndNoSlotStaysTaken) {
  SKIP_WITHOUT_GPU();
  const Geometry g = MakeGeometry(64, 32, 10);
  Picture ref = MakePicture(g, Content::kNoise, 5);
  const Picture dist = DistortScaled(ref, 6, 3);
  const PlanePieces short_plane(absl::Span<const uint8_t>(ref.bytes.data(), ref.bytes.size() - 2));
  const PlanePieces dist_pieces = Cut(dist, 100);
  absl::StatusOr<ScoreResult> result =
      Gpu().scorer->ScorePieces(g, FloatSsim(0), {&short_plane, &dist_pieces});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument) << result.status();
  ref.Set(63, 31, 1024);  // one above the 10-bit peak, in the last piece
  const PlanePieces bad = Cut(ref, 100);
  result = Gpu().scorer->ScorePieces(g, FloatSsim(0), {&bad, &dist_pieces});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument) << result.status();
  EXPECT_EQ(result.status(), Cpu().Score(g, FloatSsim(0), PairOf(ref, dist)).status());
  for (const GpuDeviceStats& stats : Gpu().scorer->Stats()) EXPECT_EQ(stats.slots_in_use, 0);
}

// ---- Upscaled distorted planes ------------------------------------------------------------------

// A distorted plane sent at its own size with a libswscale plan: upscaled by the device's kernels
// it must score as upscaled by the plan's host model (which equals libswscale,
// engine/media/luma_scale_check_test), bit for bit. Any byte the kernels got wrong would move
// the exact scores.
TEST(GpuUpscaleTest, UpscaledOnTheDeviceScoresAsUpscaledOnTheHost) {
  SKIP_WITHOUT_GPU();
  struct Case {
    int src_width, src_height, dst_width, dst_height, bit_depth;
    ScalerKind kind;
    VerticalRounding rounding;
  };
  const Case cases[] = {
      {426, 240, 1920, 1080, 8, ScalerKind::kBicubic, VerticalRounding::kPackedWords},
      {640, 360, 1920, 1080, 8, ScalerKind::kBicubic, VerticalRounding::kWide},
      {1280, 720, 1920, 1080, 8, ScalerKind::kBilinear, VerticalRounding::kPackedWords},
      {960, 540, 1920, 1080, 10, ScalerKind::kBicubic, VerticalRounding::kWide},
      {1280, 720, 3840, 2160, 8, ScalerKind::kLanczos, VerticalRounding::kPackedWords},
      {853, 480, 1920, 1080, 12, ScalerKind::kSpline, VerticalRounding::kWide},
  };
  int k = 0;
  for (const Case& c : cases) {
    const Geometry g = MakeGeometry(c.dst_width, c.dst_height, c.bit_depth);
    const Geometry small = MakeGeometry(c.src_width, c.src_height, c.bit_depth);
    absl::StatusOr<LumaScalePlan> plan =
        PlanLumaScale(c.src_width, c.src_height, c.dst_width, c.dst_height, c.bit_depth,
                      ScalerChoice{c.kind, false}, c.rounding);
    ASSERT_TRUE(plan.ok()) << plan.status();
    const Picture ref = MakePicture(g, Content::kSmooth, 1200 + k);
    const Picture dist = MakePicture(small, Content::kSmooth, 1300 + k);
    ++k;
    FeatureSet features = FloatSsim(0, true);
    features.ssim = IntegerSsim(false, true).ssim;
    features.psnr = LumaPsnr();
    const PlanePieces ref_pieces = Cut(ref, ref.bytes.size());
    const PlanePieces dist_pieces = Cut(dist, 4097);
    const PiecewiseFramePair pair{&ref_pieces, &dist_pieces, &plan.value()};
    absl::StatusOr<ScoreResult> cpu = Cpu().ScorePieces(g, features, pair);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    absl::StatusOr<ScoreResult> gpu = Gpu().scorer->ScorePieces(g, features, pair);
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    EXPECT_EQ(gpu->backend.rfind("gpu:", 0), 0u) << gpu->backend;
    ExpectSameScores(cpu->scores, gpu->scores,
                     absl::StrFormat("%dx%d upscaled with %s to %s", c.src_width, c.src_height,
                                     ScalerKindName(c.kind), Describe(g, features)));
    g_tally.frames.fetch_add(1);
  }
  // A plane of the wrong size before its upscale is refused before a slot is taken.
  absl::StatusOr<LumaScalePlan> plan = PlanLumaScale(
      640, 360, 1920, 1080, 8, ScalerChoice{ScalerKind::kBicubic, false}, VerticalRounding::kWide);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const Picture ref = MakePicture(MakeGeometry(1920, 1080, 8), Content::kSmooth, 1);
  const Picture wrong = MakePicture(MakeGeometry(640, 361, 8), Content::kSmooth, 2);
  const PlanePieces ref_pieces = Cut(ref, ref.bytes.size());
  const PlanePieces wrong_pieces = Cut(wrong, wrong.bytes.size());
  absl::StatusOr<ScoreResult> refused = Gpu().scorer->ScorePieces(
      MakeGeometry(1920, 1080, 8), FloatSsim(0), {&ref_pieces, &wrong_pieces, &plan.value()});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument) << refused.status();
  for (const GpuDeviceStats& stats : Gpu().scorer->Stats()) EXPECT_EQ(stats.slots_in_use, 0);
}

// A rendition's chroma sent at its own size with the plan's chroma plan: upscaled and summed on
// the device it gives the psnr_cb and psnr_cr of the host model's upscale (which equals
// libswscale's chroma, engine/media/luma_scale_check_test), bit for bit; odd sizes make psnr read
// the top-left part of the upscaled planes.
TEST(GpuUpscaleTest, ChromaUpscaledOnTheDeviceScoresAsUpscaledOnTheHost) {
  SKIP_WITHOUT_GPU();
  struct Case {
    int src_width, src_height, dst_width, dst_height, bit_depth;
    VerticalRounding rounding;
  };
  const Case cases[] = {
      {426, 240, 1920, 1080, 8, VerticalRounding::kPackedWords},
      {640, 360, 1920, 1080, 8, VerticalRounding::kWide},
      {853, 481, 1921, 1081, 8, VerticalRounding::kPackedWords},
      {960, 540, 1920, 1080, 10, VerticalRounding::kWide},
  };
  int k = 0;
  for (const Case& c : cases) {
    const Geometry g = MakeGeometry(c.dst_width, c.dst_height, c.bit_depth);
    const Geometry small = MakeGeometry(c.src_width, c.src_height, c.bit_depth);
    const ScalerChoice choice{ScalerKind::kBicubic, false};
    absl::StatusOr<LumaScalePlan> plan = PlanLumaScale(
        c.src_width, c.src_height, c.dst_width, c.dst_height, c.bit_depth, choice, c.rounding);
    ASSERT_TRUE(plan.ok()) << plan.status();
    absl::StatusOr<LumaScalePlan> chroma_plan = PlanChromaScale(*plan, g.chroma, choice);
    ASSERT_TRUE(chroma_plan.ok()) << chroma_plan.status();
    plan->chroma = std::make_shared<const LumaScalePlan>(*chroma_plan);
    const Picture ref = MakePicture(g, Content::kSmooth, 2600 + k);
    const Picture dist = MakePicture(small, Content::kSmooth, 2700 + k);
    // Each side's Cb and Cr, stored as raw frames hold them (sides rounded up).
    const PlaneSize ref_stored = StoredChromaSize(g);
    const PlaneSize dist_stored = StoredChromaSize(small);
    const Picture ref_chroma = MakePicture(
        MakeGeometry(ref_stored.width, 2 * ref_stored.height, c.bit_depth), Content::kSmooth,
        2800 + k);
    const Picture dist_chroma = MakePicture(
        MakeGeometry(dist_stored.width, 2 * dist_stored.height, c.bit_depth), Content::kNoise,
        2900 + k);
    ++k;
    FeatureSet features = FloatSsim(0);
    features.psnr = PsnrOptions{};
    features.psnr->enable_mse = true;
    absl::StatusOr<std::optional<FrameChroma>> chroma =
        PairChromaToScore(g, features, ref_chroma.bytes, dist_chroma.bytes, "reference chroma",
                          "distorted chroma", &plan.value());
    ASSERT_TRUE(chroma.ok() && chroma->has_value()) << chroma.status();
    const PlanePieces ref_pieces = Cut(ref, ref.bytes.size());
    const PlanePieces dist_pieces = Cut(dist, 4097);
    const PiecewiseFramePair pair{&ref_pieces, &dist_pieces, &plan.value(), &**chroma};
    absl::StatusOr<ScoreResult> cpu = Cpu().ScorePieces(g, features, pair);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    ASSERT_TRUE(cpu->scores.count("psnr_cb") == 1 && cpu->scores.count("psnr_cr") == 1);
    absl::StatusOr<ScoreResult> gpu = Gpu().scorer->ScorePieces(g, features, pair);
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    EXPECT_EQ(gpu->backend.rfind("gpu:", 0), 0u) << gpu->backend;
    ExpectSameScores(cpu->scores, gpu->scores,
                     absl::StrFormat("%dx%d with chroma upscaled to %s", c.src_width,
                                     c.src_height, Describe(g, features)));
    g_tally.frames.fetch_add(1);
  }
}

// ---- float_ssim ---------------------------------------------------------------------------------

TEST(GpuFloatSsimTest, SyntheticPicturesMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const std::vector<std::pair<int, int>> sizes = {
      {1, 1},     {10, 64},    {11, 11},    {12, 13},     {16, 16},     {31, 17},     {64, 64},
      {100, 100}, {127, 255},  {255, 383},  {383, 384},   {384, 384},   {576, 324},   {640, 480},
      {853, 481}, {1280, 720}, {1366, 768}, {1920, 1080}, {1921, 1081}, {2560, 1440}, {3840, 2160}};
  ForEachSyntheticCase(sizes, Content::kSmooth, Content::kNoise, 100, [](const SyntheticCase& c) {
    const Geometry& g = c.geometry;
    CompareWithCpu(*Gpu().scorer, g, FloatSsim(0), PairOf(c.ref, c.dist));
    CompareWithCpu(*Gpu().scorer, g, FloatSsim(0, true, true, false), PairOf(c.ref, c.dist));
    CompareWithCpu(*Gpu().scorer, g, FloatSsim(0, false, true, true), PairOf(c.ref, c.dist));
    CompareWithCpu(*Gpu().scorer, g, FloatSsim(0, true, true, true), PairOf(c.ref, c.ref));
    CompareWithCpu(*Gpu().scorer, g, FloatSsim(0, true), PairOf(c.flat, c.flat));
    CompareWithCpu(*Gpu().scorer, g, FloatSsim(0, true, false, false),
                   PairOf(c.flat, c.flat_other));
  });
}

TEST(GpuFloatSsimTest, ForcedScalesMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const std::vector<Geometry> geometries = {MakeGeometry(853, 481, 8), MakeGeometry(640, 480, 10),
                                            MakeGeometry(1920, 1080, 12),
                                            MakeGeometry(1281, 719, 16), MakeGeometry(110, 109, 8)};
  int k = 0;
  for (const Geometry& g : geometries) {
    const Picture ref = MakePicture(g, Content::kSmooth, 7 + k);
    const Picture dist = DistortScaled(ref, 70 + k, 10);
    ++k;
    for (int scale = 1; scale <= 10; ++scale) {
      CompareWithCpu(*Gpu().scorer, g, FloatSsim(scale, scale % 2 == 0, scale % 3 == 0),
                     PairOf(ref, dist));
    }
  }
}

TEST(GpuFloatSsimTest, OrderedHostSumGivesTheSameScores) {
  SKIP_WITHOUT_GPU();
  auto hooks = std::make_shared<GpuTestHooks>();
  hooks->always_ordered_sum = true;
  absl::StatusOr<std::unique_ptr<GpuScorer>> gpu = MakeGpuScorerWithHooks({}, hooks);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  int64_t frames = 0;
  for (auto [w, h, d] : {std::tuple{64, 64, 8}, {576, 324, 10}, {1920, 1080, 8}, {853, 481, 16}}) {
    const Geometry g = MakeGeometry(w, h, d);
    const Picture ref = MakePicture(g, Content::kNoise, w);
    const Picture dist = DistortScaled(ref, h, 12);
    frames += CompareWithCpu(**gpu, g, FloatSsim(0, true, true, true), PairOf(ref, dist));
    frames += CompareWithCpu(**gpu, g, FloatSsim(0), PairOf(ref, dist));
  }
  int64_t ordered = 0;
  for (const GpuDeviceStats& s : (*gpu)->Stats()) ordered += s.float_ssim_ordered_sums;
  EXPECT_EQ(ordered, frames);
}

// ---- float_ms_ssim ------------------------------------------------------------------------------

FeatureSet MsSsim(bool lcs = false, bool db = false, bool clip = false) {
  FeatureSet f;
  f.float_ms_ssim = FloatMsSsimOptions{};
  f.float_ms_ssim->enable_lcs = lcs;
  f.float_ms_ssim->enable_db = db;
  f.float_ms_ssim->clip_db = clip;
  return f;
}

// Distance in binary32 ulps between two per-scale means (both binary32 values widened).
int64_t FloatUlps(double a, double b) {
  auto ordered = [](float v) {
    int32_t i;
    std::memcpy(&i, &v, sizeof(i));
    return i < 0 ? int64_t{INT32_MIN} - i : int64_t{i};
  };
  return ordered(static_cast<float>(b)) - ordered(static_cast<float>(a));
}

// After a float_ms_ssim mismatch: every scale's l, c and s from both backends, so the failure
// says which scale and term went wrong (the pyramid shows at every scale from the first bad one
// on; a mean's ordered-sum decision shows at one scale and term only).
void ExplainMsSsimMismatch(GpuScorer& gpu, const Geometry& g, const FeatureSet& features,
                           const FramePair& pair) {
  FeatureSet lcs;
  lcs.float_ms_ssim = FloatMsSsimOptions{};
  lcs.float_ms_ssim->enable_lcs = true;
  absl::StatusOr<ScoreResult> cpu = Cpu().Score(g, lcs, pair);
  absl::StatusOr<ScoreResult> dev = gpu.Score(g, lcs, pair);
  if (!cpu.ok() || !dev.ok()) {
    ADD_FAILURE() << "float_ms_ssim per-scale terms unavailable: cpu " << cpu.status() << ", gpu "
                  << dev.status();
    return;
  }
  std::string table;
  for (const std::string& name : FloatMsSsimLcsNames()) {
    const double c = cpu->scores.at(name);
    const double d = dev->scores.at(name);
    absl::StrAppendFormat(&table, "\n  %-24s cpu %-14.9g gpu %-14.9g %s", name, c, d,
                          SameBits(c, d) ? "same"
                                         : absl::StrFormat("DIFFERS by %d ulp", FloatUlps(c, d)));
  }
  ADD_FAILURE() << "float_ms_ssim per scale for " << Describe(g, features) << ":" << table;
}

// CompareWithCpu, with the per-scale breakdown when float_ms_ssim's values differ.
bool CompareMsSsim(GpuScorer& gpu, const Geometry& g, const FeatureSet& features,
                   const FramePair& pair) {
  const int before = ::testing::UnitTest::GetInstance()->current_test_info()->result()
                         ->total_part_count();
  const bool compared = CompareWithCpu(gpu, g, features, pair);
  const int after = ::testing::UnitTest::GetInstance()->current_test_info()->result()
                        ->total_part_count();
  if (compared && after > before) ExplainMsSsimMismatch(gpu, g, features, pair);
  return compared;
}

#ifdef SSIMD_TEST_HAS_GPU_BUILD
using Pyramid = std::vector<std::vector<float>>;

// The sides of the five scales of a width x height picture.
std::vector<std::pair<int, int>> PyramidSides(int width, int height) {
  std::vector<std::pair<int, int>> sides;
  for (int k = 0; k < kMsSsimScales; ++k) {
    sides.emplace_back(width, height);
    width = MsSsimNextSide(width);
    height = MsSsimNextSide(height);
  }
  return sides;
}

// The pyramid as the CPU engine builds it, from the shared per-sample functions.
Pyramid HostPyramid(const Picture& p) {
  const Geometry g = p.geometry();
  const auto sides = PyramidSides(g.width, g.height);
  Pyramid pyramid(kMsSsimScales);
  pyramid[0].resize(static_cast<size_t>(g.width) * g.height);
  for (int y = 0; y < g.height; ++y) {
    for (int x = 0; x < g.width; ++x) {
      pyramid[0][static_cast<size_t>(y) * g.width + x] =
          g.bit_depth == 8 ? LoadScaled(p.bytes.data(), g.width, x, y, 8)
                           : LoadScaled(reinterpret_cast<const uint16_t*>(p.bytes.data()),
                                        g.width, x, y, g.bit_depth);
    }
  }
  for (int k = 1; k < kMsSsimScales; ++k) {
    const auto [in_w, in_h] = sides[k - 1];
    const auto [w, h] = sides[k];
    pyramid[k].resize(static_cast<size_t>(w) * h);
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        pyramid[k][static_cast<size_t>(y) * w + x] =
            LowPassDecimatePixel(pyramid[k - 1].data(), in_w, in_h, x, y);
      }
    }
  }
  return pyramid;
}

// Both pyramids built by the device's kernels, read back.
void DevicePyramids(const Picture& ref, const Picture& dist, Pyramid& ref_out, Pyramid& dist_out) {
  const Geometry g = ref.geometry();
  const auto sides = PyramidSides(g.width, g.height);
  std::vector<size_t> offsets;
  size_t floats = 0;
  for (auto [w, h] : sides) {
    offsets.push_back(floats);
    floats += 2 * static_cast<size_t>(w) * h;
  }
  const size_t in_bytes = ref.bytes.size();
  uint8_t* d_in = nullptr;
  float* d_planes = nullptr;
  ASSERT_EQ(hipMalloc(reinterpret_cast<void**>(&d_in), 2 * in_bytes), hipSuccess);
  ASSERT_EQ(hipMalloc(reinterpret_cast<void**>(&d_planes), floats * sizeof(float)), hipSuccess);
  ASSERT_EQ(hipMemcpy(d_in, ref.bytes.data(), in_bytes, hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(hipMemcpy(d_in + in_bytes, dist.bytes.data(), in_bytes, hipMemcpyHostToDevice),
            hipSuccess);
  auto plane = [&](int k) { return d_planes + offsets[k]; };
  auto size = [&](int k) { return static_cast<size_t>(sides[k].first) * sides[k].second; };
  ASSERT_EQ(LaunchMsSsimLoad(d_in, d_in + in_bytes, g.width, g.width, g.height, g.bit_depth,
                             plane(0), plane(0) + size(0), nullptr),
            hipSuccess);
  for (int k = 1; k < kMsSsimScales; ++k) {
    ASSERT_EQ(LaunchMsSsimDecimate(plane(k - 1), plane(k - 1) + size(k - 1), sides[k - 1].first,
                                   sides[k - 1].second, plane(k), plane(k) + size(k), nullptr),
              hipSuccess);
  }
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  ref_out.assign(kMsSsimScales, {});
  dist_out.assign(kMsSsimScales, {});
  for (int k = 0; k < kMsSsimScales; ++k) {
    ref_out[k].resize(size(k));
    dist_out[k].resize(size(k));
    ASSERT_EQ(hipMemcpy(ref_out[k].data(), plane(k), size(k) * sizeof(float),
                        hipMemcpyDeviceToHost),
              hipSuccess);
    ASSERT_EQ(hipMemcpy(dist_out[k].data(), plane(k) + size(k), size(k) * sizeof(float),
                        hipMemcpyDeviceToHost),
              hipSuccess);
  }
  (void)hipFree(d_in);
  (void)hipFree(d_planes);
}

// "" when the planes hold the same bits, else where they first differ and how many samples do.
std::string PlaneDifference(const std::vector<float>& host, const std::vector<float>& device,
                            int width) {
  if (host.size() != device.size()) {
    return absl::StrFormat("%d samples on the host, %d on the device", host.size(),
                           device.size());
  }
  size_t first = host.size();
  size_t count = 0;
  for (size_t i = 0; i < host.size(); ++i) {
    if (std::memcmp(&host[i], &device[i], sizeof(float)) != 0) {
      if (count++ == 0) first = i;
    }
  }
  if (count == 0) return "";
  return absl::StrFormat("%d samples differ, the first at (%d, %d): host %a, device %a", count,
                         first % width, first / width, host[first], device[first]);
}
#endif

TEST(GpuMsSsimTest, PyramidPlanesAreByteIdenticalToTheHostLoop) {
  SKIP_WITHOUT_GPU();
#ifdef SSIMD_TEST_HAS_GPU_BUILD
  const std::vector<std::tuple<int, int, int>> cases = {
      {176, 176, 8},  {177, 179, 10}, {191, 203, 12},   {353, 289, 16},  {853, 481, 8},
      {1920, 1080, 10}, {1921, 1081, 12}, {176, 2000, 16}, {3840, 2160, 8}, {3841, 2161, 16}};
  int k = 0;
  for (auto [w, h, bit_depth] : cases) {
    const Geometry g = MakeGeometry(w, h, bit_depth);
    const Picture ref = MakePicture(g, k % 2 ? Content::kSmooth : Content::kNoise, 3000 + k);
    const Picture dist = DistortScaled(ref, 3100 + k, 9);
    ++k;
    Pyramid ref_device, dist_device;
    DevicePyramids(ref, dist, ref_device, dist_device);
    if (HasFatalFailure()) return;
    const Pyramid ref_host = HostPyramid(ref);
    const Pyramid dist_host = HostPyramid(dist);
    const auto sides = PyramidSides(w, h);
    for (int scale = 0; scale < kMsSsimScales; ++scale) {
      const int width = sides[scale].first;
      const std::string where = absl::StrFormat("%dx%d %d-bit, scale %d (%dx%d)", w, h, bit_depth,
                                                scale, width, sides[scale].second);
      EXPECT_EQ(PlaneDifference(ref_host[scale], ref_device[scale], width), "")
          << where << ", reference";
      EXPECT_EQ(PlaneDifference(dist_host[scale], dist_device[scale], width), "")
          << where << ", distorted";
      g_tally.pyramid_planes.fetch_add(2);
    }
  }
#endif
}

TEST(GpuMsSsimTest, SyntheticPicturesMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  // The least size, odd sides (the pyramid keeps the last row or column), sides whose halvings
  // are odd at several scales, long thin pictures, and the common video sizes up to 4K.
  const std::vector<std::pair<int, int>> sizes = {
      {176, 176},  {177, 176},  {176, 177},  {177, 179},   {191, 203},   {255, 383},
      {176, 1200}, {1200, 176}, {352, 288},  {353, 289},   {640, 360},   {853, 481},
      {1280, 720}, {1366, 768}, {1920, 1080}, {1921, 1081}, {2560, 1440}, {3840, 2160}};
  ForEachSyntheticCase(sizes, Content::kNoise, Content::kSmooth, 400, [](const SyntheticCase& c) {
    const Geometry& g = c.geometry;
    GpuScorer& gpu = *Gpu().scorer;
    CompareMsSsim(gpu, g, MsSsim(), PairOf(c.ref, c.dist));
    CompareMsSsim(gpu, g, MsSsim(true), PairOf(c.ref, c.dist));
    CompareMsSsim(gpu, g, MsSsim(false, true), PairOf(c.ref, c.dist));
    CompareMsSsim(gpu, g, MsSsim(true, true, true), PairOf(c.ref, c.dist));
    CompareMsSsim(gpu, g, MsSsim(false, false, true), PairOf(c.ref, c.dist));  // clip alone: no-op
    // Identical pictures: 1.0, and in dB +inf or the clip.
    CompareMsSsim(gpu, g, MsSsim(true), PairOf(c.ref, c.ref));
    CompareMsSsim(gpu, g, MsSsim(false, true), PairOf(c.ref, c.ref));
    CompareMsSsim(gpu, g, MsSsim(false, true, true), PairOf(c.ref, c.ref));
    CompareMsSsim(gpu, g, MsSsim(true), PairOf(c.flat, c.flat));
    CompareMsSsim(gpu, g, MsSsim(true, true, true), PairOf(c.flat, c.flat_other));
  });
}

TEST(GpuMsSsimTest, EveryDepthAt1080pAnd4KWithStrongAndMildDistortion) {
  SKIP_WITHOUT_GPU();
  int k = 0;
  for (auto [w, h] : {std::pair{1920, 1080}, {3840, 2160}}) {
    for (int bit_depth : {8, 10, 12, 16}) {
      for (int amplitude : {1, 40}) {
        ++k;
        const Geometry g = MakeGeometry(w, h, bit_depth);
        const Picture ref = MakePicture(g, Content::kSmooth, 500 + k);
        const Picture dist = DistortScaled(ref, 600 + k, amplitude);
        CompareMsSsim(*Gpu().scorer, g, MsSsim(true, true, true), PairOf(ref, dist));
        // Unrelated pictures: low and possibly negative structure (NaN score), as libvmaf.
        const Picture other = MakePicture(g, Content::kNoise, 700 + k);
        CompareMsSsim(*Gpu().scorer, g, MsSsim(true), PairOf(ref, other));
      }
    }
  }
}

// The other features share the frame's planes and some of the slot's buffers (float_ssim's
// filtered planes, its ordered-sum terms, the read-back buffer): every combination, every value
// bit for bit, including float_ssim at scale 1, whose filtered planes are the size of
// float_ms_ssim's scale 0.
TEST(GpuMsSsimTest, BesideFloatSsimSsimAndPsnrMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  int k = 0;
  for (auto [w, h, bit_depth] : std::vector<std::tuple<int, int, int>>{
           {176, 176, 8}, {353, 289, 10}, {1280, 720, 12}, {1920, 1080, 8}, {1921, 1081, 16},
           {3840, 2160, 10}}) {
    const Geometry g = MakeGeometry(w, h, bit_depth);
    const Picture ref = MakePicture(g, Content::kSmooth, 800 + k);
    const Picture dist = DistortScaled(ref, 900 + k, 5);
    ++k;
    for (int mask = 1; mask < 8; ++mask) {
      for (int float_scale : {0, 1}) {
        if (!(mask & 1) && float_scale == 1) continue;
        FeatureSet f = MsSsim(mask % 2 == 0, k % 2 == 0, true);
        if (mask & 1) f.float_ssim = FloatSsim(float_scale, true, k % 2 == 1).float_ssim;
        if (mask & 2) f.ssim = IntegerSsim(false, true).ssim;  // exact: bit for bit
        if (mask & 4) f.psnr = LumaPsnr(true);
        CompareMsSsim(*Gpu().scorer, g, f, PairOf(ref, dist));
      }
    }
  }
}

TEST(GpuMsSsimTest, OrderedHostSumGivesTheSameScores) {
  SKIP_WITHOUT_GPU();
  // Every per-scale mean from the host's raster-order sum of terms read back (and float_ssim's
  // too), as the backend does where the block sums come too close to a binary32 boundary.
  auto hooks = std::make_shared<GpuTestHooks>();
  hooks->always_ordered_sum = true;
  absl::StatusOr<std::unique_ptr<GpuScorer>> gpu = MakeGpuScorerWithHooks({}, hooks);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  int k = 0;
  for (auto [w, h, bit_depth] : std::vector<std::tuple<int, int, int>>{
           {176, 176, 8}, {177, 179, 16}, {640, 360, 10}, {1920, 1080, 12}, {1921, 1081, 8}}) {
    const Geometry g = MakeGeometry(w, h, bit_depth);
    const Picture ref = MakePicture(g, Content::kNoise, 1000 + k);
    const Picture dist = DistortScaled(ref, 1100 + k, 12);
    ++k;
    CompareMsSsim(**gpu, g, MsSsim(true, true, true), PairOf(ref, dist));
    CompareMsSsim(**gpu, g, MsSsim(), PairOf(ref, ref));
    FeatureSet both = MsSsim(true);
    both.float_ssim = FloatSsim(1, true).float_ssim;
    CompareMsSsim(**gpu, g, both, PairOf(ref, dist));
  }
}

TEST(GpuMsSsimTest, BelowTheSizeRuleIsInvalidOnBothBackends) {
  SKIP_WITHOUT_GPU();
  for (auto [w, h] : {std::pair{175, 176}, {176, 175}, {64, 64}}) {
    const Geometry g = MakeGeometry(w, h, 8);
    const Picture ref = MakePicture(g, Content::kNoise, 1);
    const absl::Status cpu = Cpu().Score(g, MsSsim(), PairOf(ref, ref)).status();
    const absl::Status gpu = Gpu().scorer->Score(g, MsSsim(), PairOf(ref, ref)).status();
    EXPECT_EQ(cpu.code(), absl::StatusCode::kInvalidArgument) << w << "x" << h << ": " << cpu;
    EXPECT_EQ(gpu.code(), absl::StatusCode::kInvalidArgument) << w << "x" << h << ": " << gpu;
    EXPECT_EQ(gpu.message(), cpu.message());
  }
  for (const GpuDeviceStats& stats : Gpu().scorer->Stats()) EXPECT_EQ(stats.slots_in_use, 0);
}

// Slots keep their buffers from frame to frame: sizes that grow and shrink, from many threads,
// with and without float_ssim beside it, must keep every value exact.
TEST(GpuMsSsimTest, SlotsReusedAcrossSizesAndThreadsStayExact) {
  SKIP_WITHOUT_GPU();
  struct Job {
    Geometry geometry;
    Picture ref, dist;
    FeatureSet features;
    FrameScores expected;
  };
  std::vector<Job> jobs;
  int k = 0;
  for (auto [w, h, d] : {std::tuple{1920, 1080, 10}, {176, 176, 8}, {853, 481, 12},
                         {3840, 2160, 8}, {177, 179, 16}, {1280, 720, 8}}) {
    Job job;
    job.geometry = MakeGeometry(w, h, d);
    job.ref = MakePicture(job.geometry, Content::kSmooth, 1200 + k);
    job.dist = DistortScaled(job.ref, 1300 + k, 7);
    job.features = MsSsim(true, k % 2 == 0, true);
    if (k % 3 == 0) job.features.float_ssim = FloatSsim(k % 2, true).float_ssim;
    ++k;
    absl::StatusOr<ScoreResult> cpu =
        Cpu().Score(job.geometry, job.features, PairOf(job.ref, job.dist));
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    job.expected = cpu->scores;
    jobs.push_back(std::move(job));
  }
  constexpr int kThreads = 8;
  constexpr int kFramesPerThread = 12;
  std::atomic<int> failures{0};
  std::vector<std::string> mismatches(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kFramesPerThread; ++i) {
        const Job& job = jobs[(t * 5 + i) % jobs.size()];
        absl::StatusOr<ScoreResult> r =
            Gpu().scorer->Score(job.geometry, job.features, PairOf(job.ref, job.dist));
        if (!r.ok()) {
          ++failures;
          continue;
        }
        for (const auto& [key, value] : job.expected) {
          const auto it = r->scores.find(key);
          if (it == r->scores.end() || !SameBits(value, it->second)) {
            absl::StrAppendFormat(&mismatches[t], "\n  %s %s: cpu %a gpu %a",
                                  Describe(job.geometry, job.features), key, value,
                                  it == r->scores.end() ? std::nan("") : it->second);
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures, 0);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], "") << "thread " << t;
  g_tally.frames.fetch_add(kThreads * kFramesPerThread);
  g_tally.ms_ssim_frames.fetch_add(kThreads * kFramesPerThread);
}

// ---- Integer ssim -------------------------------------------------------------------------------

TEST(GpuIntegerSsimTest, TinyFramesMatchBitForBit) {
  SKIP_WITHOUT_GPU();
  const std::vector<std::pair<int, int>> sizes = {{1, 1},  {2, 2},   {1, 2},   {2, 1},  {3, 3},
                                                  {4, 4},  {10, 5},  {2, 37},  {16, 8}, {17, 9},
                                                  {1, 97}, {131, 1}, {33, 31}, {64, 64}};
  int k = 0;
  for (auto [w, h] : sizes) {
    for (int bit_depth : {8, 10, 12, 16}) {
      ++k;
      const Geometry g = MakeGeometry(w, h, bit_depth);
      const Picture noise = MakePicture(g, Content::kNoise, k);
      const Picture flat = MakePicture(g, Content::kFlat, 0, (k * 37) % PeakValue(bit_depth));
      const Picture smooth = MakePicture(g, Content::kSmooth, k);
      const Picture distorted = DistortScaled(noise, k, 20);
      for (bool db : {false, true}) {
        CompareWithCpu(*Gpu().scorer, g, IntegerSsim(db, false), PairOf(noise, noise));
        CompareWithCpu(*Gpu().scorer, g, IntegerSsim(db, false), PairOf(flat, flat));
        CompareWithCpu(*Gpu().scorer, g, IntegerSsim(db, false), PairOf(smooth, smooth));
        CompareWithCpu(*Gpu().scorer, g, IntegerSsim(db, false), PairOf(noise, distorted));
      }
    }
  }
}

TEST(GpuIntegerSsimTest, EveryFlat8BitLevelOnTinyFrames) {
  SKIP_WITHOUT_GPU();
  int not_one = 0;
  for (int side = 1; side <= 4; ++side) {
    const Geometry g = MakeGeometry(side, side, 8);
    for (uint32_t level = 0; level < 256; ++level) {
      const Picture flat = MakePicture(g, Content::kFlat, 0, level);
      absl::StatusOr<ScoreResult> gpu =
          Gpu().scorer->Score(g, IntegerSsim(false, false), PairOf(flat, flat));
      ASSERT_TRUE(gpu.ok());
      not_one += gpu->scores.at("ssim") != 1.0;
      CompareWithCpu(*Gpu().scorer, g, IntegerSsim(true, false), PairOf(flat, flat));
    }
  }
  // docs/numerics.md §14: 59 + 119 + 14 + 3 flat levels miss 1 on 1x1 .. 4x4 (the device reproduces
  // it).
  EXPECT_EQ(not_one, 59 + 119 + 14 + 3);
}

TEST(GpuIntegerSsimTest, LargeFramesExactModeMatchesAndTreeStaysInItsBound) {
  SKIP_WITHOUT_GPU();
  double largest_relative = 0;
  int k = 0;
  for (auto [w, h] : {std::pair{65, 64}, {129, 33}, {640, 480}, {1920, 1080}, {3840, 2160}}) {
    for (int bit_depth : {8, 10, 12}) {
      ++k;
      const Geometry g = MakeGeometry(w, h, bit_depth);
      const Picture ref = MakePicture(g, k % 2 ? Content::kSmooth : Content::kNoise, k);
      const Picture dist = DistortScaled(ref, k, 15);
      CompareWithCpu(*Gpu().scorer, g, IntegerSsim(false, true), PairOf(ref, dist));
      CompareWithCpu(*Gpu().scorer, g, IntegerSsim(false, true), PairOf(ref, ref));
      // Tree path: within 2 * gamma_{n-1} * mean|SSIM| of the CPU (docs/adr/0022); here
      // |SSIM| <= 1, and n counts every thread of the block grid.
      absl::StatusOr<ScoreResult> cpu =
          Cpu().Score(g, IntegerSsim(false, false), PairOf(ref, dist));
      absl::StatusOr<ScoreResult> gpu =
          Gpu().scorer->Score(g, IntegerSsim(false, false), PairOf(ref, dist));
      ASSERT_TRUE(cpu.ok() && gpu.ok());
      const double c = cpu->scores.at("ssim");
      const double d = gpu->scores.at("ssim");
      EXPECT_LE(std::fabs(c - d), IntegerSsimBlockSumBound(w, h))
          << w << "x" << h << " " << bit_depth << "-bit";
      largest_relative = std::max(largest_relative, std::fabs(c - d) / std::fabs(c));
      g_tally.frames.fetch_add(1);
    }
  }
  std::cout << "ssim tree path: largest relative difference from the CPU " << largest_relative
            << "\n";
}

// ---- Reference clips ----------------------------------------------------------------------------

// Scores on the GPU (ssim in exact mode, so every value must be bit-identical), checks each frame
// against the CPU engine too, and lets the CPU score what the gate refuses so the replay can
// compare those frames with libvmaf as well.
class CheckedGpuScorer final : public Scorer {
 public:
  explicit CheckedGpuScorer(GpuScorer& gpu) : gpu_(gpu) {}
  std::string_view name() const override { return "gpu-checked"; }
  absl::Status CheckContext(const Geometry& g, const FeatureSet& f) const override {
    return gpu_.CheckContext(g, f);
  }
  absl::StatusOr<ScoreResult> Score(const Geometry& g, const FeatureSet& features,
                                    const FramePair& pair) override {
    FeatureSet f = features;
    if (f.ssim) f.ssim->exact = true;
    absl::StatusOr<ScoreResult> cpu = Cpu().Score(g, f, pair);
    if (!cpu.ok()) return cpu;
    if (!gpu_.CheckContext(g, f).ok()) {
      g_tally.refused.fetch_add(1);
      return cpu;
    }
    absl::StatusOr<ScoreResult> gpu = gpu_.Score(g, f, pair);
    if (!gpu.ok()) return gpu;
    ExpectSameScores(cpu->scores, gpu->scores, "reference clip " + Describe(g, f));
    g_tally.frames.fetch_add(1);
    return gpu;
  }

 private:
  GpuScorer& gpu_;
};

TEST(GpuReferenceTest, EveryClipMatchesLibvmafAndTheCpu) {
  SKIP_WITHOUT_GPU();
  std::string dir = testing::FullReferenceDirectory();
  if (dir.empty()) dir = testing::RunfilePath("tests/data/reference");
  absl::StatusOr<testing::ReferenceSet> set = testing::LoadReferenceSet(dir);
  if (!set.ok()) {
    GTEST_SKIP() << "no reference set (" << set.status()
                 << "): set SSIMD_REFERENCE_DIR to a directory with expected_scores.json";
  }
  std::cout << "reference set: " << dir << " (" << set->pairs.size() << " pairs)\n";
  CheckedGpuScorer scorer(*Gpu().scorer);
  for (const testing::ReferencePair& pair : set->pairs) {
    absl::StatusOr<testing::ReplayReport> report = testing::ReplayPair(*set, pair, scorer);
    ASSERT_TRUE(report.ok()) << pair.id << ": " << report.status();
    for (const testing::Mismatch& m : report->mismatches) {
      ADD_FAILURE() << pair.id << ": " << m.ToString();
    }
    g_tally.reference_values.fetch_add(report->compared);
  }
}

// ---- psnr ---------------------------------------------------------------------------------------

// The device's sum is an integer, so every size, depth and option gives the CPU's bits; alone and
// beside the other features (which share the frame's uploaded planes).
TEST(GpuPsnrTest, EveryDepthAndOptionMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  int k = 0;
  for (auto [w, h, bit_depth] : std::vector<std::tuple<int, int, int>>{
           {1, 1, 8}, {3, 2, 10}, {17, 9, 8}, {257, 3, 12}, {1920, 1080, 8}, {1920, 1080, 10},
           {853, 481, 16}, {3840, 2160, 8}}) {
    const Geometry g = MakeGeometry(w, h, bit_depth);
    const Picture ref = MakePicture(g, Content::kNoise, 2000 + k);
    const Picture dist = DistortScaled(ref, 2100 + k, 7);
    ++k;
    PsnrOptions pooled = LumaPsnr(false, true);
    pooled.enable_apsnr = true;
    const PsnrOptions option_sets[] = {LumaPsnr(), LumaPsnr(true, true),
                                       LumaPsnr(false, false, 0.5), LumaPsnr(true, false, 1e9),
                                       pooled};
    for (const PsnrOptions& options : option_sets) {
      FeatureSet features;
      features.psnr = options;
      EXPECT_TRUE(CompareWithCpu(*Gpu().scorer, g, features, PairOf(ref, dist)));
      features.float_ssim = FloatSsimOptions{};
      CompareWithCpu(*Gpu().scorer, g, features, PairOf(ref, dist));  // may be gated (tiny)
    }
    // Identical planes: a zero sum, the cap.
    FeatureSet features;
    features.psnr = LumaPsnr(true);
    EXPECT_TRUE(CompareWithCpu(*Gpu().scorer, g, features, PairOf(ref, ref)));
  }
}

// psnr_cb and psnr_cr where frames bring their chroma (summed on the device, as the luma is): the
// CPU's values, and INVALID_ARGUMENT where the chroma is missing.
TEST(GpuPsnrTest, ChromaPlanesGiveTheCpusValues) {
  SKIP_WITHOUT_GPU();
  int k = 0;
  for (ChromaFormat format : {ChromaFormat::k420, ChromaFormat::k422, ChromaFormat::k444}) {
    Geometry g = MakeGeometry(1921, 1081, 10);
    g.chroma = format;
    const Picture ref = MakePicture(g, Content::kSmooth, 2300 + k);
    const Picture dist = DistortScaled(ref, 2400 + k, 5);
    const PlaneSize chroma_size = PsnrPlaneSize(g, 1);
    const Geometry chroma_geometry = MakeGeometry(chroma_size.width, chroma_size.height, 10);
    std::vector<Picture> planes;
    for (int p = 0; p < 4; ++p) {
      planes.push_back(MakePicture(chroma_geometry, Content::kNoise, 2500 + 10 * k + p));
    }
    ++k;
    const FrameChroma chroma{{planes[0].view(), planes[1].view()},
                             {planes[2].view(), planes[3].view()}};
    FeatureSet features;
    features.psnr = PsnrOptions{};
    features.psnr->enable_mse = true;
    features.float_ssim = FloatSsimOptions{};
    FramePair pair = PairOf(ref, dist);
    pair.chroma = &chroma;
    EXPECT_TRUE(CompareWithCpu(*Gpu().scorer, g, features, pair));
    features.psnr->enable_apsnr = true;  // and the sums a clip pools, luma's and chroma's
    EXPECT_TRUE(CompareWithCpu(*Gpu().scorer, g, features, pair));
    features.psnr->enable_apsnr = false;
    pair.chroma = nullptr;
    EXPECT_EQ(Gpu().scorer->Score(g, features, pair).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

// Upstream libvmaf's psnr_y and float_ms_ssim (expected_metrics.json) through the GPU, each frame
// also checked against the CPU engine.
TEST(GpuReferenceTest, UpstreamPsnrAndMsSsimMatchLibvmafAndTheCpu) {
  SKIP_WITHOUT_GPU();
  std::string dir = testing::FullReferenceDirectory();
  if (dir.empty()) dir = testing::RunfilePath("tests/data/reference");
  absl::StatusOr<testing::ReferenceSet> set = testing::LoadReferenceSet(dir);
  auto expected = testing::LoadExpectedMetrics(dir);
  if (!set.ok() || !expected.ok()) {
    GTEST_SKIP() << "no reference set with expected_metrics.json in " << dir << " ("
                 << (set.ok() ? expected.status() : set.status()) << ")";
  }
  CheckedGpuScorer scorer(*Gpu().scorer);
  int64_t compared = 0;
  for (const testing::ReferencePair& pair : set->pairs) {
    const auto entry = expected->find(pair.id);
    if (entry == expected->end()) continue;
    absl::StatusOr<testing::ReplayReport> report =
        testing::ReplayUpstreamMetricsThrough(pair, entry->second, scorer);
    ASSERT_TRUE(report.ok()) << pair.id << ": " << report.status();
    for (const testing::Mismatch& m : report->mismatches) {
      ADD_FAILURE() << pair.id << ": " << m.ToString();
    }
    compared += report->compared;
  }
  std::cout << "upstream psnr_y and float_ms_ssim: " << compared << " values from " << dir << "\n";
  g_tally.reference_values.fetch_add(compared);
}

// ---- The pool
// ------------------------------------------------------------------------------------

TEST(GpuPoolTest, ManyThreadsShareTheDevicesAndGetTheCpuScores) {
  SKIP_WITHOUT_GPU();
  GpuOptions options;
  options.streams_per_device = 2;
  options.pool_repeat = 3;  // one device listed three times: a fake multi-GPU pool
  absl::StatusOr<std::unique_ptr<GpuScorer>> gpu = MakeGpuScorer(options);
  ASSERT_TRUE(gpu.ok()) << gpu.status();

  struct Job {
    Geometry geometry;
    Picture ref, dist;
    FeatureSet features;
    FrameScores expected;
  };
  std::vector<Job> jobs;
  int k = 0;
  for (auto [w, h, d] :
       {std::tuple{576, 324, 8}, {1920, 1080, 10}, {64, 64, 12}, {853, 481, 8}, {3840, 2160, 8}}) {
    Job job;
    job.geometry = MakeGeometry(w, h, d);
    job.ref = MakePicture(job.geometry, Content::kNoise, ++k);
    job.dist = DistortScaled(job.ref, k, 8);
    job.features = FloatSsim(0, k % 2 == 0);
    job.features.ssim = IntegerSsimOptions{};
    job.features.ssim->exact = false;  // the opt-in block-order sum (fast_sum=true)
    absl::StatusOr<ScoreResult> cpu =
        Cpu().Score(job.geometry, job.features, PairOf(job.ref, job.dist));
    ASSERT_TRUE(cpu.ok());
    job.expected = cpu->scores;
    jobs.push_back(std::move(job));
  }
  // Integer ssim above 4096 pixels sums with the tree: compare float_ssim bit for bit and ssim
  // within the bound, so drop ssim from the expectation where it is not exact.
  constexpr int kThreads = 16;
  constexpr int kFramesPerThread = 25;
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kFramesPerThread; ++i) {
        const Job& job = jobs[(t + i) % jobs.size()];
        absl::StatusOr<ScoreResult> r =
            (*gpu)->Score(job.geometry, job.features, PairOf(job.ref, job.dist));
        if (!r.ok()) {
          ++failures;
          continue;
        }
        for (const auto& [key, value] : job.expected) {
          const double got = r->scores.at(key);
          const bool exact_key = key != "ssim" || job.geometry.width * job.geometry.height <= 4096;
          if (exact_key ? !SameBits(value, got) : std::fabs(value - got) > 1e-9) ++mismatches;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(mismatches, 0);
  int64_t frames = 0;
  int entries_used = 0;
  for (const GpuDeviceStats& s : (*gpu)->Stats()) {
    EXPECT_EQ(s.slots_in_use, 0) << "entry " << s.index;
    EXPECT_EQ(s.slots_total, 2);
    frames += s.frames_scored;
    entries_used += s.frames_scored > 0;
  }
  EXPECT_EQ(frames, kThreads * kFramesPerThread);
  EXPECT_EQ(entries_used, 3);
  g_tally.frames.fetch_add(frames);
}

TEST(GpuPoolTest, ErrorsReturnTheSlotAndLeaveTheDeviceUsable) {
  SKIP_WITHOUT_GPU();
  auto hooks = std::make_shared<GpuTestHooks>();
  GpuOptions options;
  options.streams_per_device = 1;
  absl::StatusOr<std::unique_ptr<GpuScorer>> gpu = MakeGpuScorerWithHooks(options, hooks);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  const Geometry g = MakeGeometry(640, 360, 10);
  const Picture ref = MakePicture(g, Content::kNoise, 5);
  const Picture dist = DistortScaled(ref, 6, 4);
  const FeatureSet features = FloatSsim(0, true);

  hooks->recoverable_errors = 1;
  absl::StatusOr<ScoreResult> failed = (*gpu)->Score(g, features, PairOf(ref, dist));
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kInternal) << failed.status();
  EXPECT_TRUE((*gpu)->Healthy());
  EXPECT_EQ((*gpu)->Stats()[0].slots_in_use, 0);

  // A sample above the 10-bit peak: refused as bad input, slot returned.
  Picture bad = dist;
  bad.Set(3, 4, 1023 + 1);
  EXPECT_EQ((*gpu)->Score(g, features, PairOf(ref, bad)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*gpu)->Stats()[0].slots_in_use, 0);

  // With its one slot back, the scorer still works and still matches the CPU.
  EXPECT_TRUE(CompareWithCpu(**gpu, g, features, PairOf(ref, dist)));
  absl::StatusOr<ScoreResult> timed = (*gpu)->Score(g, features, PairOf(ref, dist));
  ASSERT_TRUE(timed.ok());
  EXPECT_GT(timed->timings.upload, 0);
  EXPECT_GT(timed->timings.compute, 0);
  EXPECT_GT(timed->timings.readback, 0);
  EXPECT_GE(timed->timings.total, timed->timings.compute);
}

// Exit codes of the lost-device child, so a failure says which check broke.
enum LostDeviceExit {
  kLostOk = 0,
  kNoScorer = 2,
  kNotUnavailable,
  kStillHealthy,
  kSlotLeaked,
  kNotMarkedLost,
  kNoFallback,
  kLaterFrameNotRefused
};

int RunLostDeviceScenario() {
  auto hooks = std::make_shared<GpuTestHooks>();
  absl::StatusOr<std::unique_ptr<GpuScorer>> made = MakeGpuScorerWithHooks({}, hooks);
  if (!made.ok()) return kNoScorer;
  GpuScorer* gpu = made->get();
  Dispatcher dispatcher(MakeCpuScorer({.threads = 2}), *std::move(made), "");
  const Geometry g = MakeGeometry(320, 180, 8);
  const Picture ref = MakePicture(g, Content::kNoise, 1);
  const Picture dist = DistortScaled(ref, 2, 5);
  const FeatureSet features = FloatSsim(0);

  hooks->device_faults = 1;
  absl::StatusOr<ScoreResult> lost = gpu->Score(g, features, PairOf(ref, dist));
  if (lost.status().code() != absl::StatusCode::kUnavailable) return kNotUnavailable;
  if (gpu->Healthy()) return kStillHealthy;
  if (gpu->Stats()[0].slots_in_use != 0) return kSlotLeaked;
  if (!gpu->Stats()[0].lost) return kNotMarkedLost;
  absl::StatusOr<ScoreResult> fallback =
      dispatcher.Score(g, features, PairOf(ref, dist), BackendPreference::kAuto);
  if (!fallback.ok() || fallback->backend != "cpu" ||
      fallback->fallback_reason.rfind("gpu unavailable", 0) != 0) {
    return kNoFallback;
  }
  if (dispatcher.Score(g, features, PairOf(ref, dist), BackendPreference::kGpu).status().code() !=
      absl::StatusCode::kUnavailable) {
    return kLaterFrameNotRefused;
  }
  return kLostOk;
}

TEST(GpuPoolTest, ALostDeviceTurnsUnhealthyInsteadOfCrashing) {
  SKIP_WITHOUT_GPU();
  // The fault poisons the whole process's device context, so it runs in a child process.
  EXPECT_EXIT(std::_Exit(RunLostDeviceScenario()), ::testing::ExitedWithCode(kLostOk), "");
}

}  // namespace
}  // namespace ssimd

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Re-executes the binary for death tests instead of forking a process that holds a GPU context.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const int rc = RUN_ALL_TESTS();
  const ssimd::SharedGpu& gpu = ssimd::Gpu();
  if (gpu.scorer == nullptr) {
    std::cout << "gpu_scorer_test: no GPU, every GPU test skipped (" << gpu.unavailable << ")\n";
    return rc;
  }
  for (const ssimd::GpuDeviceInfo& d : gpu.scorer->Devices()) {
    std::cout << "device " << d.index << ": " << d.name << " (" << d.arch << ", "
              << d.total_memory_bytes / (1 << 20) << " MiB)\n";
  }
  int64_t shared_frames = 0, float_ordered = 0;
  for (const ssimd::GpuDeviceStats& s : gpu.scorer->Stats()) {
    shared_frames += s.frames_scored;
    float_ordered += s.float_ssim_ordered_sums;
  }
  std::cout << "float_ssim means that needed the raster-order host sum: " << float_ordered << " of "
            << shared_frames << " frames on the shared scorer\n";
  std::cout << "gpu_scorer_test summary: " << ssimd::g_tally.frames << " GPU frames compared with "
            << "the CPU engine, " << ssimd::g_tally.values << " values bit for bit; "
            << ssimd::g_tally.reference_values << " values against libvmaf's reference scores; "
            << ssimd::g_tally.planes << " decimated planes byte for byte; "
            << ssimd::g_tally.ms_ssim_frames << " of the frames with float_ms_ssim, "
            << ssimd::g_tally.pyramid_planes << " float_ms_ssim pyramid planes byte for byte; "
            << ssimd::g_tally.refused << " requests refused by the context gate (CPU's job)\n";
  return rc;
}
