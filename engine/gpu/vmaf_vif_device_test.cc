// libvmaf's integer vif on a device (kernels/vmaf_vif_kernels.hip) against the CPU's
// (engine/cpu/vmaf/vif.h), bit for bit: every integer sum of every scale and the four scores the
// shared host finish makes of them, on synthetic pictures (sizes from the smallest the device
// serves to 4K, odd sides, 8 to 16 bits, flat, textured and noisy content, identical, mildly and
// strongly distorted and contrast-enhanced pairs, every option that changes values) and on every
// frame of the checked-in reference subset. Sizes the device does not serve (VmafVifDeviceServes)
// are scored by the CPU alone; the test checks the bound on both sides. Skips, saying why, in a
// CPU build or where no GPU can be used.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/double_bits.h"
#include "engine/cpu/vmaf/vif.h"
#include "engine/picture.h"
#include "engine/synthetic_picture.h"
#include "gtest/gtest.h"
#include "kernels/vmaf_vif_math.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"

#if defined(SSIMD_GPU_NVIDIA) || defined(SSIMD_GPU_ROCM)
#include "kernels/hip_portability.h"
#include "kernels/vmaf_vif_kernels.h"
#define SSIMD_TEST_HAS_GPU_BUILD 1
#endif

namespace ssimd {
namespace {

#ifdef SSIMD_TEST_HAS_GPU_BUILD

std::string Describe(const LumaView& view, const VifOptions& options, const std::string& what) {
  return std::to_string(view.width) + "x" + std::to_string(view.height) + " " +
         std::to_string(view.bit_depth) + "-bit " + what +
         " egl=" + std::to_string(options.enhn_gain_limit) +
         (options.skip_scale0 ? " skip_scale0" : "");
}

#define HIP_ASSERT_OK(expr)                                                   \
  do {                                                                        \
    const hipError_t hip_assert_error = (expr);                               \
    ASSERT_EQ(hip_assert_error, hipSuccess) << #expr << ": "                  \
                                            << hipGetErrorString(hip_assert_error); \
  } while (0)

// Device buffers reused from frame to frame, as a GPU slot reuses its own: the pictures, the
// workspace, the sums and the log2 table. The sums and workspace are filled with garbage before
// each launch, so a launch that forgot to zero or to write something shows.
class DeviceVif {
 public:
  DeviceVif() = default;
  DeviceVif(const DeviceVif&) = delete;
  DeviceVif& operator=(const DeviceVif&) = delete;
  ~DeviceVif() {
    for (void* p : {reference_, distorted_, workspace_, sums_, table_}) {
      if (p != nullptr) hipFree(p);
    }
  }

  void Init() {
    HIP_ASSERT_OK(hipMalloc(&table_, kVifLog2TableSize * sizeof(uint16_t)));
    HIP_ASSERT_OK(hipMemcpy(table_, IntegerVifLog2Table().data(),
                            kVifLog2TableSize * sizeof(uint16_t), hipMemcpyHostToDevice));
    HIP_ASSERT_OK(hipMalloc(&sums_, sizeof(VifFrameSums)));
  }

  // The device's sums of a pair the device serves, into *out.
  void Run(const LumaView& reference, const LumaView& distorted, const VifOptions& options,
           VifFrameSums* out) {
    const size_t row_bytes =
        static_cast<size_t>(reference.width) * BytesPerSample(reference.bit_depth);
    const size_t plane_bytes = row_bytes * static_cast<size_t>(reference.height);
    const size_t workspace_bytes = VmafVifWorkspaceBytes(reference.width, reference.height);
    Grow(&reference_, &reference_capacity_, plane_bytes);
    Grow(&distorted_, &distorted_capacity_, plane_bytes);
    Grow(&workspace_, &workspace_capacity_, std::max<size_t>(workspace_bytes, 1));
    ASSERT_TRUE(reference_ != nullptr && distorted_ != nullptr && workspace_ != nullptr);
    std::vector<uint8_t> packed(plane_bytes);
    for (const auto& [view, device] : {std::pair{&reference, reference_},
                                       std::pair{&distorted, distorted_}}) {
      for (int y = 0; y < view->height; ++y) {
        std::memcpy(packed.data() + static_cast<size_t>(y) * row_bytes,
                    view->data + static_cast<size_t>(y) * view->stride_bytes, row_bytes);
      }
      HIP_ASSERT_OK(hipMemcpy(device, packed.data(), plane_bytes, hipMemcpyHostToDevice));
    }
    HIP_ASSERT_OK(hipMemset(sums_, 0xa5, sizeof(VifFrameSums)));
    HIP_ASSERT_OK(hipMemset(workspace_, 0x5a, workspace_bytes));
    VmafVifLaunch launch;
    launch.reference = reference_;
    launch.distorted = distorted_;
    launch.width = reference.width;
    launch.height = reference.height;
    launch.bit_depth = reference.bit_depth;
    launch.enhn_gain_limit = options.enhn_gain_limit;
    launch.skip_scale0 = options.skip_scale0;
    launch.log2_table = static_cast<const uint16_t*>(table_);
    launch.workspace = workspace_;
    launch.sums = static_cast<VifFrameSums*>(sums_);
    last_launch_ = launch;
    HIP_ASSERT_OK(LaunchVmafVif(launch, nullptr));
    HIP_ASSERT_OK(hipDeviceSynchronize());
    HIP_ASSERT_OK(hipMemcpy(out, sums_, sizeof(VifFrameSums), hipMemcpyDeviceToHost));
  }

  // The launch of the last Run, to launch again.
  const VmafVifLaunch& LastLaunch() const { return last_launch_; }

  // LaunchVmafVif's answer for a picture it does not serve (it must enqueue nothing).
  hipError_t LaunchUnserved(int width, int height) {
    VmafVifLaunch launch;
    launch.reference = reference_;
    launch.distorted = distorted_;
    launch.width = width;
    launch.height = height;
    launch.log2_table = static_cast<const uint16_t*>(table_);
    launch.workspace = workspace_;
    launch.sums = static_cast<VifFrameSums*>(sums_);
    return LaunchVmafVif(launch, nullptr);
  }

 private:
  static void Grow(void** buffer, size_t* capacity, size_t bytes) {
    if (*capacity >= bytes) return;
    if (*buffer != nullptr) hipFree(*buffer);
    *buffer = nullptr;
    *capacity = 0;
    if (hipMalloc(buffer, bytes) != hipSuccess) {
      *buffer = nullptr;
      return;
    }
    *capacity = bytes;
  }

  void* reference_ = nullptr;
  void* distorted_ = nullptr;
  void* workspace_ = nullptr;
  void* sums_ = nullptr;
  void* table_ = nullptr;
  size_t reference_capacity_ = 0;
  size_t distorted_capacity_ = 0;
  size_t workspace_capacity_ = 0;
  VmafVifLaunch last_launch_;
};

// Compares the device's sums and finished scores with the CPU's; returns how many values it
// compared (16 sums and 4 scores a frame).
int CompareWithCpu(DeviceVif& device, const LumaView& reference, const LumaView& distorted,
                   const VifOptions& options, const std::string& what) {
  const std::string label = Describe(reference, options, what);
  absl::StatusOr<VifFrameSums> cpu = IntegerVifSums(reference, distorted, options);
  absl::StatusOr<VifScores> cpu_scores = ScoreIntegerVif(reference, distorted, options);
  EXPECT_TRUE(cpu.ok() && cpu_scores.ok()) << label << ": " << cpu.status();
  if (!cpu.ok() || !cpu_scores.ok()) return 0;
  VifFrameSums gpu;
  device.Run(reference, distorted, options, &gpu);
  if (::testing::Test::HasFatalFailure()) return 0;
  int compared = 0;
  for (int s = 0; s < kVifScales; ++s) {
    const VifSums& c = cpu->scale[s];
    const VifSums& g = gpu.scale[s];
    EXPECT_EQ(g.num_log, c.num_log) << label << " scale " << s << " num_log";
    EXPECT_EQ(g.den_log, c.den_log) << label << " scale " << s << " den_log";
    EXPECT_EQ(g.num_non_log, c.num_non_log) << label << " scale " << s << " num_non_log";
    EXPECT_EQ(g.den_non_log, c.den_non_log) << label << " scale " << s << " den_non_log";
    compared += 4;
  }
  const VifScores finished = IntegerVifScoresFromSums(gpu, options);
  for (int s = 0; s < kVifScales; ++s) {
    EXPECT_EQ(DoubleBits(finished.scale[s]), DoubleBits(cpu_scores->scale[s]))
        << label << " integer_vif_scale" << s << ": device " << finished.scale[s] << ", CPU "
        << cpu_scores->scale[s];
    ++compared;
  }
  return compared;
}

// `reference` with its contrast raised about the middle of the range, clamped: a distortion
// whose gain exceeds 1, where vif_enhn_gain_limit changes values.
SyntheticPlane Enhance(const SyntheticPlane& reference) {
  const int peak = static_cast<int>(PeakValue(reference.bit_depth));
  SyntheticPlane p = reference;
  for (int y = 0; y < reference.height; ++y) {
    for (int x = 0; x < reference.width; ++x) {
      const int v = static_cast<int>(reference.Get(x, y));
      const int stretched = peak / 2 + (v - peak / 2) * 7 / 4;
      p.Set(x, y, static_cast<uint32_t>(std::clamp(stretched, 0, peak)));
    }
  }
  return p;
}

std::vector<VifOptions> OptionSets() {
  std::vector<VifOptions> sets(4);
  sets[1].enhn_gain_limit = 1.0;
  sets[2].enhn_gain_limit = 1.37;
  sets[3].skip_scale0 = true;
  return sets;
}

bool HaveDevice(std::string* why) {
  int count = 0;
  const hipError_t e = hipGetDeviceCount(&count);
  if (e != hipSuccess) {
    *why = std::string("no GPU to test: ") + hipGetErrorString(e);
    return false;
  }
  if (count == 0) {
    *why = "no GPU to test: the runtime sees no device";
    return false;
  }
  return true;
}

TEST(VmafVifDevice, ServesFromSixteenOnEverySide) {
  for (int h = 1; h <= 40; ++h) {
    for (int w = 1; w <= 40; ++w) {
      EXPECT_EQ(VmafVifDeviceServes(w, h), w >= 16 && h >= 16) << w << "x" << h;
    }
  }
  EXPECT_TRUE(VmafVifDeviceServes(kMaxDimension, kMaxDimension));
}

TEST(VmafVifDevice, SyntheticPicturesEqualTheCpu) {
  std::string why;
  if (!HaveDevice(&why)) GTEST_SKIP() << why;
  DeviceVif device;
  device.Init();
  if (HasFatalFailure()) return;

  struct Size {
    int width, height;
    bool every_case;  // all contents, pairs and options; else a few
  };
  const Size sizes[] = {{16, 16, true},   {17, 16, true},    {16, 17, true},
                        {16, 64, true},   {64, 16, true},    {31, 19, true},
                        {33, 47, true},   {64, 36, true},    {65, 37, true},
                        {127, 255, true}, {333, 77, true},   {1280, 720, false},
                        {1921, 1081, false}, {3840, 2160, false}};
  const std::vector<VifOptions> options = OptionSets();
  int compared = 0;
  int frames = 0;
  for (const Size& size : sizes) {
    for (int bit_depth : {8, 10, 12, 16}) {
      const uint32_t seed = static_cast<uint32_t>(size.width * 131 + size.height * 7 + bit_depth);
      const int amplitude = 3 << (bit_depth - 8);
      struct Content {
        const char* name;
        SyntheticPlane plane;
      };
      std::vector<Content> contents;
      contents.push_back({"textured", TexturedPlane(size.width, size.height, bit_depth, seed)});
      if (size.every_case) {
        contents.push_back(
            {"flat", FlatPlane(size.width, size.height, bit_depth, PeakValue(bit_depth) / 3)});
        contents.push_back({"noisy", NoisyPlane(size.width, size.height, bit_depth, seed + 9)});
      }
      for (const Content& content : contents) {
        struct Distorted {
          const char* name;
          SyntheticPlane plane;
        };
        std::vector<Distorted> pairs;
        pairs.push_back({"distorted", Distort(content.plane, seed + 1, amplitude, 1)});
        pairs.push_back({"enhanced", Enhance(content.plane)});
        if (size.every_case) {
          pairs.push_back({"identical", content.plane});
          pairs.push_back(
              {"unrelated", NoisyPlane(size.width, size.height, bit_depth, seed + 17)});
        }
        for (const Distorted& pair : pairs) {
          for (size_t o = 0; o < options.size(); ++o) {
            if (!size.every_case && o == 2) continue;
            const std::string what = std::string(content.name) + " " + pair.name;
            const LumaView ref = content.plane.view();
            ASSERT_TRUE(VmafVifDeviceServes(ref.width, ref.height));
            compared += CompareWithCpu(device, ref, pair.plane.view(), options[o], what);
            if (HasFatalFailure()) return;
            ++frames;
          }
        }
      }
    }
  }
  std::printf("integer vif on the device: %d values compared bit for bit over %d frames\n",
              compared, frames);
}

TEST(VmafVifDevice, SmallerPicturesAreLeftToTheCpu) {
  std::string why;
  if (!HaveDevice(&why)) GTEST_SKIP() << why;
  DeviceVif device;
  device.Init();
  if (HasFatalFailure()) return;
  // Just below the bound on one side or both: the CPU scores them and the device refuses them.
  struct Size {
    int width, height;
  };
  const Size below[] = {{8, 8}, {15, 15}, {15, 16}, {16, 15}, {15, 300}, {300, 15}, {8, 1000}};
  int scored = 0;
  for (const Size& s : below) {
    EXPECT_FALSE(VmafVifDeviceServes(s.width, s.height)) << s.width << "x" << s.height;
    const SyntheticPlane ref = TexturedPlane(s.width, s.height, 8, 3);
    const SyntheticPlane dis = Distort(ref, 4, 3);
    EXPECT_TRUE(ScoreIntegerVif(ref.view(), dis.view(), VifOptions{}).ok());
    EXPECT_EQ(device.LaunchUnserved(s.width, s.height), hipErrorInvalidValue);
    ++scored;
  }
  EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
  std::printf("%d sizes below the device's bound scored on the CPU alone\n", scored);
}

TEST(VmafVifDevice, ReferenceSubsetEqualsTheCpu) {
  std::string why;
  if (!HaveDevice(&why)) GTEST_SKIP() << why;
  DeviceVif device;
  device.Init();
  if (HasFatalFailure()) return;
  const std::string dir = testing::RunfilePath("tests/data/reference");
  absl::StatusOr<testing::ReferenceSet> set = testing::LoadReferenceSet(dir);
  ASSERT_TRUE(set.ok()) << set.status();
  const std::vector<VifOptions> options = OptionSets();
  int compared = 0;
  int frames = 0;
  int cpu_only = 0;
  for (const testing::ReferencePair& pair : set->pairs) {
    absl::StatusOr<testing::ToolPair> clips = testing::ReadPairAsVmafTool(pair);
    if (!clips.ok()) continue;  // sizes the vmaf tool cannot read: nothing libvmaf scored
    for (size_t f = 0; f < clips->frames(); ++f) {
      const LumaView& ref = clips->reference.frames[f][0];
      const LumaView& dis = clips->distorted().frames[f][0];
      if (!VmafVifDeviceServes(ref.width, ref.height)) {
        ++cpu_only;
        continue;
      }
      for (const VifOptions& o : options) {
        compared += CompareWithCpu(device, ref, dis, o, pair.id);
        if (HasFatalFailure()) return;
        ++frames;
      }
    }
  }
  EXPECT_GT(frames, 0);
  std::printf(
      "integer vif on the device, reference subset: %d values compared bit for bit over %d "
      "frames and option sets; %d frames below the bound left to the CPU\n",
      compared, frames, cpu_only);
}

// Device time of one 1080p frame, printed (not checked: the machines running the test differ).
TEST(VmafVifDevice, DeviceTimeOfA1080pFrame) {
  std::string why;
  if (!HaveDevice(&why)) GTEST_SKIP() << why;
  DeviceVif device;
  device.Init();
  if (HasFatalFailure()) return;
  for (int bit_depth : {8, 10}) {
    const SyntheticPlane ref = TexturedPlane(1920, 1080, bit_depth, 11);
    const SyntheticPlane dis = Distort(ref, 12, 3 << (bit_depth - 8), 1);
    VifFrameSums sums;
    device.Run(ref.view(), dis.view(), VifOptions{}, &sums);  // uploads and warms up
    if (HasFatalFailure()) return;
    VmafVifLaunch launch = device.LastLaunch();
    hipEvent_t start, stop;
    HIP_ASSERT_OK(hipEventCreate(&start));
    HIP_ASSERT_OK(hipEventCreate(&stop));
    constexpr int kFrames = 50;
    HIP_ASSERT_OK(hipEventRecord(start, nullptr));
    for (int i = 0; i < kFrames; ++i) HIP_ASSERT_OK(LaunchVmafVif(launch, nullptr));
    HIP_ASSERT_OK(hipEventRecord(stop, nullptr));
    HIP_ASSERT_OK(hipEventSynchronize(stop));
    float ms = 0;
    HIP_ASSERT_OK(hipEventElapsedTime(&ms, start, stop));
    hipEventDestroy(start);
    hipEventDestroy(stop);
    std::printf("integer vif, 1920x1080 %d-bit: %.1f us of device time a frame\n", bit_depth,
                1000.0 * ms / kFrames);
  }
}

#else  // !SSIMD_TEST_HAS_GPU_BUILD

TEST(VmafVifDevice, NeedsAGpuBuild) {
  GTEST_SKIP() << "CPU build (no --config=nvidia or --config=rocm): no device code to test";
}

#endif  // SSIMD_TEST_HAS_GPU_BUILD

}  // namespace
}  // namespace ssimd
