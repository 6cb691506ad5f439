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
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/double_bits.h"
#include "engine/cpu/vmaf/vif.h"
#include "engine/gpu/device_test_support.h"
#include "engine/picture.h"
#include "engine/synthetic_picture.h"
#include "gtest/gtest.h"
#include "kernels/vmaf_vif_math.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"

#ifdef SSIMD_DEVICE_TEST_GPU_BUILD
#include "kernels/vmaf_vif_kernels.h"
#endif

namespace ssimd {
namespace {

#ifdef SSIMD_DEVICE_TEST_GPU_BUILD

std::string Describe(const LumaView& view, const VifOptions& options, const std::string& what) {
  return std::to_string(view.width) + "x" + std::to_string(view.height) + " " +
         std::to_string(view.bit_depth) + "-bit " + what +
         " egl=" + std::to_string(options.enhn_gain_limit) +
         (options.skip_scale0 ? " skip_scale0" : "");
}

// Device buffers reused from frame to frame, as a GPU slot reuses its own: the pictures, the
// workspace, the sums and the log2 table. The sums and workspace are filled with garbage before
// each launch, so a launch that forgot to zero or to write something shows.
class DeviceVif {
 public:
  absl::Status Init() {
    if (absl::Status s = stream_.Init(); !s.ok()) return s;
    if (absl::Status s = table_.Reserve(kVifLog2TableSize * sizeof(uint16_t)); !s.ok()) return s;
    SSIMD_TEST_HIP_RETURN_IF_ERROR(hipMemcpy(table_.data(), IntegerVifLog2Table().data(),
                                             kVifLog2TableSize * sizeof(uint16_t),
                                             hipMemcpyHostToDevice),
                                   "hipMemcpy log2 table");
    return sums_.Reserve(sizeof(VifFrameSums));
  }

  // The device's sums of a pair the device serves.
  absl::StatusOr<VifFrameSums> Run(const LumaView& reference, const LumaView& distorted,
                                   const VifOptions& options) {
    const size_t workspace_bytes = VmafVifWorkspaceBytes(reference.width, reference.height);
    if (absl::Status s = stream_.UploadPacked(reference, reference_); !s.ok()) return s;
    if (absl::Status s = stream_.UploadPacked(distorted, distorted_); !s.ok()) return s;
    if (absl::Status s = workspace_.Reserve(std::max<size_t>(workspace_bytes, 1)); !s.ok()) {
      return s;
    }
    if (absl::Status s = stream_.FillWithJunk(sums_.data(), sizeof(VifFrameSums), 0xa5);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = stream_.FillWithJunk(workspace_.data(), workspace_bytes, 0x5a); !s.ok()) {
      return s;
    }
    VmafVifLaunch launch = LaunchFor(reference.width, reference.height);
    launch.bit_depth = reference.bit_depth;
    launch.enhn_gain_limit = options.enhn_gain_limit;
    launch.skip_scale0 = options.skip_scale0;
    last_launch_ = launch;
    SSIMD_TEST_HIP_RETURN_IF_ERROR(LaunchVmafVif(launch, stream_.get()), "LaunchVmafVif");
    if (absl::Status s = stream_.Synchronize(); !s.ok()) return s;
    VifFrameSums sums;
    if (absl::Status s = stream_.CopyToHost(&sums, sums_.data(), sizeof(sums)); !s.ok()) return s;
    return sums;
  }

  // LaunchVmafVif's answer for a picture it does not serve (it must enqueue nothing).
  hipError_t LaunchUnserved(int width, int height) {
    return LaunchVmafVif(LaunchFor(width, height), stream_.get());
  }

  // Mean device time of the last Run's launch, in microseconds, over `runs` launches back to back.
  absl::StatusOr<double> MicrosecondsPerFrame(int runs) {
    const VmafVifLaunch l = last_launch_;
    return stream_.MicrosecondsPerLaunch([&](hipStream_t s) { return LaunchVmafVif(l, s); },
                                         runs);
  }

 private:
  // A launch on this device's buffers for a picture of these sides, its other fields defaults.
  VmafVifLaunch LaunchFor(int width, int height) const {
    VmafVifLaunch launch;
    launch.reference = reference_.data();
    launch.distorted = distorted_.data();
    launch.width = width;
    launch.height = height;
    launch.log2_table = table_.as<const uint16_t>();
    launch.workspace = workspace_.data();
    launch.sums = sums_.as<VifFrameSums>();
    return launch;
  }

  device_test::TestStream stream_;
  device_test::DeviceBuffer reference_, distorted_, workspace_, sums_, table_;
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
  const absl::StatusOr<VifFrameSums> run = device.Run(reference, distorted, options);
  // Fatal, so that the callers (which stop on HasFatalFailure) stop: after a failed launch the
  // device's later answers mean nothing.
  [&] { ASSERT_TRUE(run.ok()) << label << ": " << run.status(); }();
  if (!run.ok()) return 0;
  const VifFrameSums& gpu = *run;
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

TEST(VmafVifDevice, ServesFromSixteenOnEverySide) {
  for (int h = 1; h <= 40; ++h) {
    for (int w = 1; w <= 40; ++w) {
      EXPECT_EQ(VmafVifDeviceServes(w, h), w >= 16 && h >= 16) << w << "x" << h;
    }
  }
  EXPECT_TRUE(VmafVifDeviceServes(kMaxDimension, kMaxDimension));
}

TEST(VmafVifDevice, SyntheticPicturesEqualTheCpu) {
  SSIMD_SKIP_WITHOUT_DEVICE();
  DeviceVif device;
  ASSERT_TRUE(device.Init().ok());

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
  SSIMD_SKIP_WITHOUT_DEVICE();
  DeviceVif device;
  ASSERT_TRUE(device.Init().ok());
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
  SSIMD_SKIP_WITHOUT_DEVICE();
  DeviceVif device;
  ASSERT_TRUE(device.Init().ok());
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
  SSIMD_SKIP_WITHOUT_DEVICE();
  DeviceVif device;
  ASSERT_TRUE(device.Init().ok());
  for (int bit_depth : {8, 10}) {
    const SyntheticPlane ref = TexturedPlane(1920, 1080, bit_depth, 11);
    const SyntheticPlane dis = Distort(ref, 12, 3 << (bit_depth - 8), 1);
    const absl::StatusOr<VifFrameSums> sums =
        device.Run(ref.view(), dis.view(), VifOptions{});  // uploads and warms up
    ASSERT_TRUE(sums.ok()) << sums.status();
    const absl::StatusOr<double> us = device.MicrosecondsPerFrame(50);
    ASSERT_TRUE(us.ok()) << us.status();
    std::printf("integer vif, 1920x1080 %d-bit: %.1f us of device time a frame\n", bit_depth,
                *us);
  }
}

#else  // !SSIMD_DEVICE_TEST_GPU_BUILD

TEST(VmafVifDevice, NeedsAGpuBuild) { GTEST_SKIP() << SSIMD_NO_GPU_BUILD_REASON; }

#endif  // SSIMD_DEVICE_TEST_GPU_BUILD

}  // namespace
}  // namespace ssimd
