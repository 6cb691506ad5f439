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
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "engine/cpu/vmaf/motion.h"
#include "engine/picture.h"
#include "engine/synthetic_picture.h"
#include "gtest/gtest.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"

#if defined(SSIMD_GPU_NVIDIA) || defined(SSIMD_GPU_ROCM)
#include "kernels/hip_portability.h"
#include "kernels/vmaf_motion_kernels.h"
#include "kernels/vmaf_motion_math.h"
#define SSIMD_TEST_HAS_GPU_BUILD 1
#endif

namespace ssimd {
namespace {

#ifdef SSIMD_TEST_HAS_GPU_BUILD

constexpr char kSadMetric[] = "VMAF_integer_feature_motion_sad_score";

uint64_t Bits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

absl::Status HipStatus(hipError_t e, const char* what) {
  if (e == hipSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrFormat("%s: %s", what, hipGetErrorString(e)));
}

// Whether a device can be used; the reason in `why` where not.
bool DeviceUsable(std::string& why) {
  int devices = 0;
  const hipError_t e = hipGetDeviceCount(&devices);
  if (e != hipSuccess) {
    why = std::string("no GPU to test: ") + hipGetErrorString(e);
    return false;
  }
  if (devices == 0) {
    why = "no GPU to test: no device visible";
    return false;
  }
  return true;
}

// The kernel on device copies of two planes, on one buffer set reused (and grown) from pair to
// pair as the GPU frame reuses a slot's buffers.
class DeviceMotion {
 public:
  DeviceMotion() = default;
  DeviceMotion(const DeviceMotion&) = delete;
  DeviceMotion& operator=(const DeviceMotion&) = delete;
  ~DeviceMotion() {
    if (previous_ != nullptr) hipFree(previous_);
    if (current_ != nullptr) hipFree(current_);
    if (workspace_ != nullptr) hipFree(workspace_);
    if (sum_ != nullptr) hipFree(sum_);
    if (stream_ != nullptr) hipStreamDestroy(stream_);
    if (start_ != nullptr) hipEventDestroy(start_);
    if (stop_ != nullptr) hipEventDestroy(stop_);
  }

  absl::Status Init() {
    if (absl::Status s = HipStatus(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking),
                                   "hipStreamCreateWithFlags");
        !s.ok()) {
      return s;
    }
    if (absl::Status s = HipStatus(hipEventCreate(&start_), "hipEventCreate"); !s.ok()) return s;
    if (absl::Status s = HipStatus(hipEventCreate(&stop_), "hipEventCreate"); !s.ok()) return s;
    return HipStatus(hipMalloc(reinterpret_cast<void**>(&sum_), sizeof(*sum_)), "hipMalloc sum");
  }

  // Copies both planes (packing their rows) to the device.
  absl::Status Upload(const LumaView& previous, const LumaView& current) {
    const size_t row_bytes =
        static_cast<size_t>(current.width) * static_cast<size_t>(BytesPerSample(current.bit_depth));
    const size_t bytes = row_bytes * static_cast<size_t>(current.height);
    if (bytes > capacity_) {
      if (previous_ != nullptr) hipFree(previous_);
      if (current_ != nullptr) hipFree(current_);
      previous_ = current_ = nullptr;
      capacity_ = 0;
      if (absl::Status s = HipStatus(hipMalloc(&previous_, bytes), "hipMalloc"); !s.ok()) return s;
      if (absl::Status s = HipStatus(hipMalloc(&current_, bytes), "hipMalloc"); !s.ok()) return s;
      capacity_ = bytes;
    }
    const size_t workspace = VmafMotionWorkspaceBytes(current.width, current.height);
    if (workspace > workspace_capacity_) {
      if (workspace_ != nullptr) hipFree(workspace_);
      workspace_ = nullptr;
      workspace_capacity_ = 0;
      if (absl::Status s = HipStatus(hipMalloc(&workspace_, workspace), "hipMalloc workspace");
          !s.ok()) {
        return s;
      }
      workspace_capacity_ = workspace;
    }
    std::vector<uint8_t> packed(bytes);
    for (const auto& [view, device] : {std::pair{&previous, previous_}, {&current, current_}}) {
      for (int y = 0; y < view->height; ++y) {
        std::memcpy(packed.data() + static_cast<size_t>(y) * row_bytes,
                    view->data + static_cast<size_t>(y) * view->stride_bytes, row_bytes);
      }
      if (absl::Status s = HipStatus(hipMemcpy(device, packed.data(), bytes, hipMemcpyHostToDevice),
                                     "hipMemcpy to device");
          !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }

  VmafMotionLaunch LaunchFor(int width, int height, int bit_depth) const {
    VmafMotionLaunch l;
    l.previous = previous_;
    l.reference = current_;
    l.width = width;
    l.height = height;
    l.bit_depth = bit_depth;
    l.workspace = workspace_;
    l.sad_sum = sum_;
    return l;
  }

  // The sum of the planes last uploaded, with garbage in the sum word beforehand: the launch must
  // zero it.
  absl::StatusOr<uint64_t> Run(int width, int height, int bit_depth) {
    // On the launch's stream: a plain hipMemset runs on the null stream, which a non-blocking
    // stream does not wait for.
    if (absl::Status s =
            HipStatus(hipMemsetAsync(sum_, 0x5a, sizeof(*sum_), stream_), "hipMemsetAsync");
        !s.ok()) {
      return s;
    }
    if (absl::Status s = HipStatus(LaunchVmafMotion(LaunchFor(width, height, bit_depth), stream_),
                                   "LaunchVmafMotion");
        !s.ok()) {
      return s;
    }
    if (absl::Status s = HipStatus(hipStreamSynchronize(stream_), "hipStreamSynchronize");
        !s.ok()) {
      return s;
    }
    unsigned long long sum = 0;  // NOLINT(runtime/int)
    if (absl::Status s = HipStatus(hipMemcpy(&sum, sum_, sizeof(sum), hipMemcpyDeviceToHost),
                                   "hipMemcpy from device");
        !s.ok()) {
      return s;
    }
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
    for (int i = 0; i < 3; ++i) {  // warm-up
      if (absl::Status s = HipStatus(LaunchVmafMotion(l, stream_), "launch"); !s.ok()) return s;
    }
    if (absl::Status s = HipStatus(hipEventRecord(start_, stream_), "hipEventRecord"); !s.ok()) {
      return s;
    }
    for (int i = 0; i < runs; ++i) {
      if (absl::Status s = HipStatus(LaunchVmafMotion(l, stream_), "launch"); !s.ok()) return s;
    }
    if (absl::Status s = HipStatus(hipEventRecord(stop_, stream_), "hipEventRecord"); !s.ok()) {
      return s;
    }
    if (absl::Status s = HipStatus(hipEventSynchronize(stop_), "hipEventSynchronize"); !s.ok()) {
      return s;
    }
    float ms = 0;
    if (absl::Status s = HipStatus(hipEventElapsedTime(&ms, start_, stop_), "elapsed"); !s.ok()) {
      return s;
    }
    return 1000.0 * ms / runs;
  }

 private:
  hipStream_t stream_ = nullptr;
  hipEvent_t start_ = nullptr;
  hipEvent_t stop_ = nullptr;
  void* previous_ = nullptr;
  void* current_ = nullptr;
  size_t capacity_ = 0;
  void* workspace_ = nullptr;
  size_t workspace_capacity_ = 0;
  unsigned long long* sum_ = nullptr;  // NOLINT(runtime/int)
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
    EXPECT_EQ(Bits(*gpu_score), Bits(*cpu_score))
        << what << " with fps_weight " << options.fps_weight << ", max_val " << options.max_val
        << ": device " << absl::StrFormat("%.17g", *gpu_score) << ", CPU "
        << absl::StrFormat("%.17g", *cpu_score);
    ++counts.scores;
  }
  return *gpu;
}

// Every sample f(x, y).
template <typename F>
SyntheticPlane PatternPlane(int width, int height, int bit_depth, F f) {
  SyntheticPlane p(width, height, bit_depth);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) p.Set(x, y, f(x, y));
  }
  return p;
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
  std::string why;
  if (!DeviceUsable(why)) GTEST_SKIP() << why;
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
  std::string why;
  if (!DeviceUsable(why)) GTEST_SKIP() << why;
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
  std::vector<std::vector<uint8_t>> storage;
  std::vector<LumaView> reference, distorted;
  bool as_tool = false;
};

absl::StatusOr<PairFrames> ReadFrames(const testing::ReferencePair& pair) {
  PairFrames out;
  absl::StatusOr<testing::ToolPair> tool = testing::ReadPairAsVmafTool(pair);
  if (tool.ok()) {
    out.as_tool = true;
    const size_t frames = tool->frames();
    for (size_t f = 0; f < frames; ++f) {
      out.reference.push_back(tool->reference.frames[f][0]);
      if (tool->distorted_clip) out.distorted.push_back(tool->distorted_clip->frames[f][0]);
    }
    // The views point into the ToolFrames' storage: keep it.
    out.storage.push_back(std::move(tool->reference.storage));
    if (tool->distorted_clip) out.storage.push_back(std::move(tool->distorted_clip->storage));
    return out;
  }
  const Geometry& g = pair.geometry;
  const size_t stride = static_cast<size_t>(g.width) * BytesPerSample(g.bit_depth);
  for (const auto& [clip, views] :
       {std::pair{&pair.reference_clip, &out.reference}, {&pair.distorted_clip, &out.distorted}}) {
    if (views == &out.distorted && pair.distorted_clip == pair.reference_clip) break;
    absl::StatusOr<std::vector<std::vector<uint8_t>>> luma =
        testing::ReadClipLuma(*clip, g, pair.frames);
    if (!luma.ok()) return luma.status();
    for (std::vector<uint8_t>& plane : *luma) {
      out.storage.push_back(std::move(plane));
      views->push_back(LumaView{out.storage.back().data(), stride, g.width, g.height, g.bit_depth});
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
    const std::vector<LumaView>& ref = frames->reference;
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
          EXPECT_EQ(Bits(*score), Bits((*libvmaf)[f]))
              << pair.id << " frame " << f << ": libvmaf "
              << absl::StrFormat("%.17g", (*libvmaf)[f]) << ", device "
              << absl::StrFormat("%.17g", *score);
          ++counts.libvmaf;
        }
      }
      if (f < frames->distorted.size()) {
        ComparePair(device, frames->distorted[f], ref[f],
                    absl::StrFormat("%s distorted then reference frame %d", pair.id, f), counts);
        ++pairs;
      }
    }
  }
}

TEST(VmafMotionDeviceTest, ReferenceSubsetFramesEqualTheCpuAndLibvmaf) {
  std::string why;
  if (!DeviceUsable(why)) GTEST_SKIP() << why;
  DeviceMotion device;
  ASSERT_TRUE(device.Init().ok());
  Counts counts;
  int pairs = 0;
  ReplaySet(device, testing::RunfilePath("tests/data/reference"), counts, pairs);
  EXPECT_GT(counts.libvmaf, 0);
  std::printf("motion on the device, reference subset: %d pairs, %lld sums and %lld scores "
              "compared with the CPU, %lld scores with libvmaf\n",
              pairs, static_cast<long long>(counts.sums), static_cast<long long>(counts.scores),
              static_cast<long long>(counts.libvmaf));
}

TEST(VmafMotionDeviceTest, FullReferenceSetFramesEqualTheCpuAndLibvmaf) {
  std::string why;
  if (!DeviceUsable(why)) GTEST_SKIP() << why;
  const std::string dir = testing::FullReferenceDirectory();
  if (dir.empty()) GTEST_SKIP() << "no full reference set: $SSIMD_REFERENCE_DIR is not set";
  DeviceMotion device;
  ASSERT_TRUE(device.Init().ok());
  Counts counts;
  int pairs = 0;
  ReplaySet(device, dir, counts, pairs);
  std::printf("motion on the device, full reference set: %d pairs, %lld sums and %lld scores "
              "compared with the CPU, %lld scores with libvmaf\n",
              pairs, static_cast<long long>(counts.sums), static_cast<long long>(counts.scores),
              static_cast<long long>(counts.libvmaf));
}

// Not a limit, a record: device time per frame at common sizes.
TEST(VmafMotionDeviceTest, PrintsDeviceTimePerFrame) {
  std::string why;
  if (!DeviceUsable(why)) GTEST_SKIP() << why;
  DeviceMotion device;
  ASSERT_TRUE(device.Init().ok());
  struct Size {
    int width, height, bit_depth;
  };
  for (const Size& s : {Size{1920, 1080, 8}, Size{1920, 1080, 10}, Size{3840, 2160, 8},
                        Size{3840, 2160, 16}}) {
    const SyntheticPlane a = TexturedPlane(s.width, s.height, s.bit_depth, 3, 0);
    const SyntheticPlane b = TexturedPlane(s.width, s.height, s.bit_depth, 3, 1);
    ASSERT_TRUE(device.Upload(a.view(), b.view()).ok());
    const absl::StatusOr<double> us =
        device.MicrosecondsPerFrame(s.width, s.height, s.bit_depth, 200);
    ASSERT_TRUE(us.ok()) << us.status();
    std::printf("motion on the device: %dx%d %d-bit, %.1f us per frame\n", s.width, s.height,
                s.bit_depth, *us);
  }
}

#else  // no GPU build

TEST(VmafMotionDeviceTest, SkipsWithoutAGpuBuild) {
  GTEST_SKIP() << "no GPU to test: built without a GPU configuration (--config=nvidia or rocm)";
}

#endif

}  // namespace
}  // namespace ssimd
