// libvmaf's integer motion on a device (kernels/vmaf_motion_kernels.hip) against the CPU's
// (engine/cpu/vmaf/motion.h), bit for bit: the exact SAD sum of each picture pair, and the score
// the host finishes from the device's sum (MotionSadScoreFromSum) against the CPU's whole path
// (MotionSadScore) under every option that changes a frame's score. Pairs: synthetic planes at
// every depth, from the smallest accepted side (3) to 4K and the longest accepted row, sizes on
// and one past the kernel's blocks, flat, textured, noisy and the extremes of the range; and the
// frames of the checked-in reference subset, also against libvmaf's own values. Skips, saying
// why, where no GPU can be used.
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "base/double_bits.h"
#include "engine/cpu/vmaf/motion.h"
#include "engine/gpu/device_test_support.h"
#include "engine/picture.h"
#include "engine/synthetic_picture.h"
#include "gtest/gtest.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"

#ifdef SSIMD_DEVICE_TEST_GPU_BUILD
#include "kernels/vmaf_motion_kernels.h"
#include "kernels/vmaf_motion_math.h"
#endif

namespace ssimd {
namespace {

#ifdef SSIMD_DEVICE_TEST_GPU_BUILD

using device_test::PatternPlane;

constexpr char kSadMetric[] = "VMAF_integer_feature_motion_sad_score";

// The kernel on device copies of two planes, on one buffer set reused (and grown) from pair to
// pair as the GPU frame reuses a slot's buffers.
class DeviceMotion {
 public:
  absl::Status Init() {
    if (absl::Status s = stream_.Init(); !s.ok()) return s;
    return sum_.Reserve(sizeof(unsigned long long));  // NOLINT(runtime/int)
  }

  // Copies both planes (packing their rows) to the device.
  absl::Status Upload(const LumaView& previous, const LumaView& current) {
    if (absl::Status s = stream_.UploadPacked(previous, previous_); !s.ok()) return s;
    if (absl::Status s = stream_.UploadPacked(current, current_); !s.ok()) return s;
    return workspace_.Reserve(VmafMotionWorkspaceBytes(current.width, current.height));
  }

  VmafMotionLaunch LaunchFor(int width, int height, int bit_depth) const {
    VmafMotionLaunch l;
    l.previous = previous_.data();
    l.reference = current_.data();
    l.width = width;
    l.height = height;
    l.bit_depth = bit_depth;
    l.workspace = workspace_.data();
    l.sad_sum = sum_.as<unsigned long long>();  // NOLINT(runtime/int)
    return l;
  }

  // The sum of the planes last uploaded, with garbage in the sum word beforehand: the launch must
  // zero it.
  absl::StatusOr<uint64_t> Run(int width, int height, int bit_depth) {
    unsigned long long sum = 0;  // NOLINT(runtime/int)
    if (absl::Status s = stream_.FillWithJunk(sum_.data(), sizeof(sum), 0x5a); !s.ok()) return s;
    SSIMD_TEST_HIP_RETURN_IF_ERROR(
        LaunchVmafMotion(LaunchFor(width, height, bit_depth), stream_.get()), "LaunchVmafMotion");
    if (absl::Status s = stream_.Synchronize(); !s.ok()) return s;
    if (absl::Status s = stream_.CopyToHost(&sum, sum_.data(), sizeof(sum)); !s.ok()) return s;
    return static_cast<uint64_t>(sum);
  }

  absl::StatusOr<uint64_t> Sad(const LumaView& previous, const LumaView& current) {
    if (absl::Status s = Upload(previous, current); !s.ok()) return s;
    return Run(current.width, current.height, current.bit_depth);
  }

  // Mean device time of one frame's launch (zeroing included), in microseconds, over `runs`
  // launches back to back on the planes last uploaded.
  absl::StatusOr<double> MicrosecondsPerFrame(int width, int height, int bit_depth, int runs) {
    const VmafMotionLaunch l = LaunchFor(width, height, bit_depth);
    return stream_.MicrosecondsPerLaunch([&](hipStream_t s) { return LaunchVmafMotion(l, s); },
                                         runs);
  }

 private:
  device_test::TestStream stream_;
  device_test::DeviceBuffer previous_, current_, workspace_, sum_;
};

// Option sets whose finish of a frame's score differs: the defaults, fps weights (a fraction and
// the largest), caps that bind (small, and 0) and the five-frame window (which changes which
// picture comes before, not the finish; the callers choose the pair).
std::vector<MotionOptions> ScoreOptions() {
  std::vector<MotionOptions> out(6);
  out[1].fps_weight = 0.3;
  out[2].fps_weight = 5.0;
  out[3].max_val = 0.5;
  out[4].max_val = 0.0;
  out[5].five_frame_window = true;
  out[5].fps_weight = 2.5;
  out[5].max_val = 3.0;
  return out;
}

struct Counts {
  int64_t sums = 0;
  int64_t scores = 0;
  int64_t libvmaf = 0;
};

// The device's sum of one pair against the CPU's, and the scores both finish from it.
// Returns the device's sum (0 after a failure, which is reported).
uint64_t ComparePair(DeviceMotion& device, const LumaView& previous, const LumaView& current,
                     const std::string& what, Counts& counts) {
  const absl::StatusOr<uint64_t> cpu = MotionSadSum(previous, current);
  const absl::StatusOr<uint64_t> gpu = device.Sad(previous, current);
  EXPECT_TRUE(cpu.ok()) << what << ": " << cpu.status();
  EXPECT_TRUE(gpu.ok()) << what << ": " << gpu.status();
  if (!cpu.ok() || !gpu.ok()) return 0;
  EXPECT_EQ(*gpu, *cpu) << what;
  ++counts.sums;
  for (const MotionOptions& options : ScoreOptions()) {
    const absl::StatusOr<double> cpu_score =
        MotionSadScore(options, MotionPreviousDistance(options), &previous, current);
    const absl::StatusOr<double> gpu_score =
        MotionSadScoreFromSum(options, *gpu, current.width, current.height);
    EXPECT_TRUE(cpu_score.ok() && gpu_score.ok()) << what;
    if (!cpu_score.ok() || !gpu_score.ok()) continue;
    EXPECT_EQ(DoubleBits(*gpu_score), DoubleBits(*cpu_score))
        << what << " with fps_weight " << options.fps_weight << ", max_val " << options.max_val
        << ": device " << absl::StrFormat("%.17g", *gpu_score) << ", CPU "
        << absl::StrFormat("%.17g", *cpu_score);
    ++counts.scores;
  }
  return *gpu;
}

struct SyntheticCase {
  std::string name;
  SyntheticPlane previous, current;
};

std::vector<SyntheticCase> SyntheticCases(int width, int height, int bit_depth, bool all) {
  const uint32_t peak = PeakValue(bit_depth);
  const uint32_t seed = static_cast<uint32_t>(width * 31 + height * 7 + bit_depth);
  std::vector<SyntheticCase> out;
  SyntheticPlane textured = TexturedPlane(width, height, bit_depth, seed, 0);
  out.push_back({"textured moving", textured, TexturedPlane(width, height, bit_depth, seed, 1)});
  out.push_back({"textured distorted", textured, Distort(textured, seed + 1, 6, 2)});
  out.push_back({"textured identical", textured, textured});
  // The largest filtered values, both signs: every sample's difference at the peak.
  out.push_back({"flat 0 then peak", FlatPlane(width, height, bit_depth, 0),
                 FlatPlane(width, height, bit_depth, peak)});
  if (!all) return out;
  out.push_back({"flat peak then 0", FlatPlane(width, height, bit_depth, peak),
                 FlatPlane(width, height, bit_depth, 0)});
  // The smallest nonzero difference, where the rounding decides everything.
  out.push_back({"flat one step", FlatPlane(width, height, bit_depth, peak / 3),
                 FlatPlane(width, height, bit_depth, peak / 3 + 1)});
  out.push_back({"flat identical", FlatPlane(width, height, bit_depth, peak / 3),
                 FlatPlane(width, height, bit_depth, peak / 3)});
  out.push_back({"noise full range", NoisyPlane(width, height, bit_depth, seed + 2),
                 NoisyPlane(width, height, bit_depth, seed + 3)});
  // Extremes alternating along each axis: the mirrored borders see a sign change at every step.
  out.push_back({"columns alternating",
                 PatternPlane(width, height, bit_depth,
                              [&](int x, int) { return x % 2 == 0 ? peak : 0u; }),
                 PatternPlane(width, height, bit_depth,
                              [&](int x, int) { return x % 2 == 0 ? 0u : peak; })});
  out.push_back({"rows and columns",
                 PatternPlane(width, height, bit_depth,
                              [&](int x, int y) { return (x / 3 + y) % 2 == 0 ? peak : 0u; }),
                 FlatPlane(width, height, bit_depth, peak / 2)});
  return out;
}

TEST(VmafMotionDeviceTest, SyntheticPlanesEqualTheCpu) {
  SSIMD_SKIP_WITHOUT_DEVICE();
  DeviceMotion device;
  ASSERT_TRUE(device.Init().ok());
  struct Size {
    int width, height;
    bool all;  // every content (small sizes), or the main ones
  };
  // A block of the kernel covers 128 columns and 32 rows: sizes on a block, one past, and a last
  // block narrower than the filter's reach.
  const Size sizes[] = {{3, 3, true},       {4, 3, true},        {3, 4, true},
                        {5, 5, true},       {7, 3, true},        {3, 11, true},
                        {17, 9, true},      {64, 64, true},      {124, 16, true},
                        {125, 17, true},    {126, 18, true},     {127, 31, true},
                        {128, 32, true},    {129, 33, true},     {248, 15, true},
                        {249, 47, true},    {250, 49, true},     {333, 77, true},
                        {1280, 720, false}, {1919, 1081, false}, {1920, 1080, false},
                        {3840, 2160, false}, {kMaxDimension, 3, true}, {3, kMaxDimension, true},
                        {kMaxDimension, 5, false}};
  Counts counts;
  int pairs = 0;
  for (const Size& s : sizes) {
    for (int bit_depth : {8, 10, 12, 16}) {
      for (const SyntheticCase& c : SyntheticCases(s.width, s.height, bit_depth, s.all)) {
        const std::string what = absl::StrFormat("%dx%d %d-bit %s", s.width, s.height, bit_depth,
                                                 c.name);
        ComparePair(device, c.previous.view(), c.current.view(), what, counts);
        ++pairs;
      }
    }
  }
  std::printf("motion on the device, synthetic planes: %d pairs, %lld sums and %lld scores "
              "compared with the CPU\n",
              pairs, static_cast<long long>(counts.sums), static_cast<long long>(counts.scores));
}

TEST(VmafMotionDeviceTest, LaunchZeroesTheSumAndRefusesSidesBelowThree) {
  SSIMD_SKIP_WITHOUT_DEVICE();
  DeviceMotion device;
  ASSERT_TRUE(device.Init().ok());
  const SyntheticPlane a = TexturedPlane(8, 8, 8, 1, 0);
  const SyntheticPlane b = TexturedPlane(8, 8, 8, 1, 1);
  ASSERT_TRUE(device.Upload(a.view(), b.view()).ok());
  for (const auto& [w, h] : {std::pair{2, 8}, {8, 2}, {1, 1}, {0, 5}}) {
    const absl::StatusOr<uint64_t> sum = device.Run(w, h, 8);
    EXPECT_FALSE(sum.ok()) << w << "x" << h << " was accepted";
  }
  // A refused launch leaves the word zeroed.
  int compared = 0;
  for (int repeat = 0; repeat < 3; ++repeat) {
    const absl::StatusOr<uint64_t> sum = device.Run(8, 8, 8);
    ASSERT_TRUE(sum.ok()) << sum.status();
    EXPECT_EQ(*sum, *MotionSadSum(a.view(), b.view()));
    ++compared;
  }
  std::printf("motion on the device, repeated launches: %d sums compared\n", compared);
}

// Reads a pair's clips as the vmaf tool does; where it cannot (odd sizes it refused), the luma of
// the frames as stored.
struct PairFrames {
  device_test::ToolLuma luma;
  bool as_tool = false;
};

absl::StatusOr<PairFrames> ReadFrames(const testing::ReferencePair& pair) {
  PairFrames out;
  if (absl::StatusOr<device_test::ToolLuma> tool = device_test::ReadLumaAsVmafTool(pair);
      tool.ok()) {
    out.luma = *std::move(tool);
    out.as_tool = true;
    return out;
  }
  const Geometry& g = pair.geometry;
  const size_t stride = static_cast<size_t>(g.width) * BytesPerSample(g.bit_depth);
  for (const auto& [clip, views] : {std::pair{&pair.reference_clip, &out.luma.reference},
                                    {&pair.distorted_clip, &out.luma.distorted}}) {
    if (views == &out.luma.distorted && pair.distorted_clip == pair.reference_clip) break;
    absl::StatusOr<std::vector<std::vector<uint8_t>>> luma =
        testing::ReadClipLuma(*clip, g, pair.frames);
    if (!luma.ok()) return luma.status();
    for (std::vector<uint8_t>& plane : *luma) {
      out.luma.storage.push_back(std::move(plane));
      views->push_back(
          LumaView{out.luma.storage.back().data(), stride, g.width, g.height, g.bit_depth});
    }
  }
  return out;
}

// Every pair of reference frames one and two apart (motion's distances without and with the
// five-frame window), and each distorted frame before its reference frame (real content with
// little difference); the scores of consecutive frames also against libvmaf's where given.
void ReplaySet(DeviceMotion& device, const std::string& dir, Counts& counts, int& pairs) {
  absl::StatusOr<testing::ReferenceSet> set = testing::LoadReferenceSet(dir);
  ASSERT_TRUE(set.ok()) << set.status();
  absl::StatusOr<std::map<std::string, testing::ExpectedMetrics>> expected =
      testing::LoadExpectedMetrics(dir);
  ASSERT_TRUE(expected.ok()) << expected.status();
  for (const testing::ReferencePair& pair : set->pairs) {
    const Geometry& g = pair.geometry;
    if (g.width < kMotionMinSide || g.height < kMotionMinSide) continue;
    absl::StatusOr<PairFrames> frames = ReadFrames(pair);
    ASSERT_TRUE(frames.ok()) << pair.id << ": " << frames.status();
    const std::vector<LumaView>& ref = frames->luma.reference;
    const std::vector<LumaView>& distorted = frames->luma.distorted;
    const std::vector<double>* libvmaf = nullptr;
    if (const auto e = expected->find(pair.id); e != expected->end() && frames->as_tool) {
      if (const auto m = e->second.metrics.find(kSadMetric); m != e->second.metrics.end()) {
        libvmaf = &m->second;
      }
    }
    for (size_t f = 0; f < ref.size(); ++f) {
      for (size_t distance : {size_t{1}, size_t{2}}) {
        if (f < distance) continue;
        const uint64_t sum = ComparePair(device, ref[f - distance], ref[f],
                                         absl::StrFormat("%s frames %d, %d", pair.id,
                                                         f - distance, f),
                                         counts);
        ++pairs;
        if (distance == 1 && libvmaf != nullptr && f < libvmaf->size()) {
          const absl::StatusOr<double> score =
              MotionSadScoreFromSum(MotionOptions{}, sum, g.width, g.height);
          ASSERT_TRUE(score.ok());
          EXPECT_EQ(DoubleBits(*score), DoubleBits((*libvmaf)[f]))
              << pair.id << " frame " << f << ": libvmaf "
              << absl::StrFormat("%.17g", (*libvmaf)[f]) << ", device "
              << absl::StrFormat("%.17g", *score);
          ++counts.libvmaf;
        }
      }
      if (f < distorted.size()) {
        ComparePair(device, distorted[f], ref[f],
                    absl::StrFormat("%s distorted then reference frame %d", pair.id, f), counts);
        ++pairs;
      }
    }
  }
}

// Replays the set in `dir` on a fresh device and prints what was compared, naming the set.
Counts ReplayAndPrint(const std::string& dir, const char* set_name) {
  Counts counts;
  DeviceMotion device;
  const absl::Status init = device.Init();
  EXPECT_TRUE(init.ok()) << init;
  if (!init.ok()) return counts;
  int pairs = 0;
  ReplaySet(device, dir, counts, pairs);
  std::printf("motion on the device, %s: %d pairs, %lld sums and %lld scores compared with the "
              "CPU, %lld scores with libvmaf\n",
              set_name, pairs, static_cast<long long>(counts.sums),
              static_cast<long long>(counts.scores), static_cast<long long>(counts.libvmaf));
  return counts;
}

TEST(VmafMotionDeviceTest, ReferenceSubsetFramesEqualTheCpuAndLibvmaf) {
  SSIMD_SKIP_WITHOUT_DEVICE();
  const Counts counts =
      ReplayAndPrint(testing::RunfilePath("tests/data/reference"), "reference subset");
  EXPECT_GT(counts.libvmaf, 0);
}

TEST(VmafMotionDeviceTest, FullReferenceSetFramesEqualTheCpuAndLibvmaf) {
  SSIMD_SKIP_WITHOUT_DEVICE();
  const std::string dir = testing::FullReferenceDirectory();
  if (dir.empty()) GTEST_SKIP() << "no full reference set: $SSIMD_REFERENCE_DIR is not set";
  ReplayAndPrint(dir, "full reference set");
}

TEST(VmafMotionDeviceTest, PrintsDeviceTimePerFrame) {
  SSIMD_SKIP_WITHOUT_DEVICE();
  DeviceMotion device;
  ASSERT_TRUE(device.Init().ok());
  device_test::PrintDeviceTimePerFrame(
      "motion", [&](int w, int h, int d) -> absl::StatusOr<double> {
        const SyntheticPlane a = TexturedPlane(w, h, d, 3, 0);
        const SyntheticPlane b = TexturedPlane(w, h, d, 3, 1);
        if (absl::Status s = device.Upload(a.view(), b.view()); !s.ok()) return s;
        return device.MicrosecondsPerFrame(w, h, d, 200);
      });
}

#else  // no GPU build

TEST(VmafMotionDeviceTest, SkipsWithoutAGpuBuild) { GTEST_SKIP() << SSIMD_NO_GPU_BUILD_REASON; }

#endif

}  // namespace
}  // namespace ssimd
