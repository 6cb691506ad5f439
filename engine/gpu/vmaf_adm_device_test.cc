// libvmaf's integer adm on a device (kernels/vmaf_adm_kernels.hip) against the CPU's
// (engine/cpu/vmaf/adm.h), bit for bit: the 36 exact integer sums of each frame pair (per scale
// and band: numerator, AIM and denominator), and the values the host finishes from the device's
// sums (FinishIntegerAdm) against the CPU's whole path (ScoreIntegerAdm), under every option that
// changes a value. Pairs: synthetic planes at every depth, from the smallest accepted sides (33)
// to 4K and the longest accepted rows and columns, odd and even sizes, flat, textured, noisy and
// the extremes of the range; and the frames of the checked-in reference subset (and the full set
// where $SSIMD_REFERENCE_DIR names it), also against libvmaf's own values. Skips, saying why,
// where no GPU can be used.
#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "base/double_bits.h"
#include "engine/cpu/vmaf/adm.h"
#include "engine/gpu/device_test_support.h"
#include "engine/picture.h"
#include "engine/synthetic_picture.h"
#include "gtest/gtest.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"

#ifdef SSIMD_DEVICE_TEST_GPU_BUILD
#include "kernels/vmaf_adm_kernels.h"
#include "kernels/vmaf_adm_math.h"
#endif

namespace ssimd {
namespace {

#ifdef SSIMD_DEVICE_TEST_GPU_BUILD

using device_test::PatternPlane;

// The kernels on device copies of two planes, on one buffer set reused (and grown) from pair to
// pair as the GPU frame reuses a slot's buffers.
class DeviceAdm {
 public:
  absl::Status Init() {
    if (absl::Status s = stream_.Init(); !s.ok()) return s;
    return sums_.Reserve(sizeof(AdmSums));
  }

  // Copies both planes (packing their rows) to the device.
  absl::Status Upload(const LumaView& reference, const LumaView& distorted) {
    if (absl::Status s = stream_.UploadPacked(reference, reference_); !s.ok()) return s;
    if (absl::Status s = stream_.UploadPacked(distorted, distorted_); !s.ok()) return s;
    return workspace_.Reserve(VmafAdmWorkspaceBytes(reference.width, reference.height));
  }

  VmafAdmLaunch LaunchFor(int width, int height, int bit_depth, const AdmOptions& options) const {
    VmafAdmLaunch l;
    l.reference = reference_.data();
    l.distorted = distorted_.data();
    l.width = width;
    l.height = height;
    l.bit_depth = bit_depth;
    l.options = AdmSumOptionsOf(options);
    l.workspace = workspace_.data();
    l.sums = sums_.as<AdmSums>();
    return l;
  }

  // The sums of the planes last uploaded, with garbage in the sums and the workspace beforehand:
  // the launch must zero what it accumulates, and write every plane sample it reads.
  absl::StatusOr<AdmSums> Run(int width, int height, int bit_depth, const AdmOptions& options) {
    if (absl::Status s = stream_.FillWithJunk(sums_.data(), sizeof(AdmSums), 0x5a); !s.ok()) {
      return s;
    }
    if (workspace_.data() != nullptr) {
      if (absl::Status s = stream_.FillWithJunk(workspace_.data(), workspace_.capacity(), 0xa5);
          !s.ok()) {
        return s;
      }
    }
    SSIMD_TEST_HIP_RETURN_IF_ERROR(
        LaunchVmafAdm(LaunchFor(width, height, bit_depth, options), stream_.get()),
        "LaunchVmafAdm");
    if (absl::Status s = stream_.Synchronize(); !s.ok()) return s;
    AdmSums sums;
    if (absl::Status s = stream_.CopyToHost(&sums, sums_.data(), sizeof(sums)); !s.ok()) return s;
    return sums;
  }

  // Mean device time of one frame's launch (zeroing included), in microseconds, over `runs`
  // launches back to back on the planes last uploaded.
  absl::StatusOr<double> MicrosecondsPerFrame(int width, int height, int bit_depth, int runs) {
    const VmafAdmLaunch l = LaunchFor(width, height, bit_depth, AdmOptions{});
    return stream_.MicrosecondsPerLaunch([&](hipStream_t s) { return LaunchVmafAdm(l, s); },
                                         runs);
  }

 private:
  device_test::TestStream stream_;
  device_test::DeviceBuffer reference_, distorted_, workspace_, sums_;
};

// Option sets that change the sums or the finish: the defaults; the `neg` models' gain limit and a
// fraction; Watson's CSF at another viewing set-up (scale 0's factors then come from the CSF, not
// libvmaf's fixed values); Barten's with scaled factors; both blends at set-ups with tables; AIM
// or scale 0 skipped; no noise floor; adm3's weight and floor.
std::vector<std::pair<std::string, AdmOptions>> AllOptions() {
  std::vector<std::pair<std::string, AdmOptions>> out;
  out.push_back({"defaults", AdmOptions{}});
  AdmOptions o;
  o.adm_enhn_gain_limit = 1.0;
  out.push_back({"gain limit 1", o});
  o = AdmOptions{};
  o.adm_enhn_gain_limit = 1.37;
  out.push_back({"gain limit 1.37", o});
  o = AdmOptions{};
  o.adm_norm_view_dist = 5.0;
  o.adm_ref_display_height = 2160;
  out.push_back({"watson 2160/5", o});
  o = AdmOptions{};
  o.adm_norm_view_dist = 3.0;
  o.adm_ref_display_height = 1440;
  out.push_back({"watson 1440/3", o});
  o = AdmOptions{};
  o.adm_csf_mode = 1;
  out.push_back({"barten", o});
  o.adm_csf_scale = 2.5;
  o.adm_csf_diag_scale = 0.3;
  o.adm_norm_view_dist = 4.0;
  out.push_back({"barten scaled 1080/4", o});
  o = AdmOptions{};
  o.adm_csf_mode = 2;
  out.push_back({"blend 1080/3", o});
  o.adm_ref_display_height = 2160;
  o.adm_norm_view_dist = 1.5;
  out.push_back({"blend 2160/1.5", o});
  o = AdmOptions{};
  o.adm_csf_mode = 3;
  o.adm_ref_display_height = 720;
  o.adm_norm_view_dist = 5.0;
  out.push_back({"blend mae 720/5", o});
  o = AdmOptions{};
  o.adm_skip_aim = true;
  out.push_back({"skip aim", o});
  o = AdmOptions{};
  o.adm_skip_scale0 = true;
  out.push_back({"skip scale 0", o});
  o = AdmOptions{};
  o.adm_noise_weight = 0.0;
  out.push_back({"no noise floor", o});
  o = AdmOptions{};
  o.adm_noise_weight = 1500.0;
  o.adm_dlm_weight = 0.2;
  o.adm_min_val = 0.9;
  out.push_back({"noise 1500, dlm 0.2, floor 0.9", o});
  return out;
}

struct Counts {
  int64_t pairs = 0;
  int64_t sums = 0;
  int64_t values = 0;
  int64_t libvmaf = 0;
};

// libvmaf's keys, in the order Values lists them.
const std::array<std::string, 7> kKeys = {"integer_adm2",       "integer_adm_scale0",
                                          "integer_adm_scale1", "integer_adm_scale2",
                                          "integer_adm_scale3", "integer_adm3",
                                          "integer_aim"};

std::array<double, 7> Values(const AdmScores& s) {
  return {s.adm2, s.scale[0], s.scale[1], s.scale[2], s.scale[3], s.adm3, s.aim};
}

void CompareSums(const AdmSums& gpu, const AdmSums& cpu, const std::string& what,
                 Counts& counts) {
  static const char* const kBands[3] = {"h", "v", "d"};
  for (int s = 0; s < 4; ++s) {
    for (int b = 0; b < 3; ++b) {
      const AdmScaleSums& g = gpu.scale[s];
      const AdmScaleSums& c = cpu.scale[s];
      EXPECT_EQ(g.numerator[b], c.numerator[b]) << what << " scale " << s << " " << kBands[b]
                                                << " numerator";
      EXPECT_EQ(g.aim[b], c.aim[b]) << what << " scale " << s << " " << kBands[b] << " aim";
      EXPECT_EQ(g.denominator[b], c.denominator[b])
          << what << " scale " << s << " " << kBands[b] << " denominator";
      counts.sums += 3;
    }
  }
}

// The device's sums of one pair against the CPU's, and the values both finish; returns the
// device's values (empty after a failure, which is reported).
std::optional<AdmScores> ComparePair(DeviceAdm& device, const LumaView& reference,
                                     const LumaView& distorted, const AdmOptions& options,
                                     const std::string& what, Counts& counts) {
  ++counts.pairs;
  const absl::StatusOr<AdmSums> cpu_sums = IntegerAdmSums(reference, distorted, options);
  EXPECT_TRUE(cpu_sums.ok()) << what << ": " << cpu_sums.status();
  if (!cpu_sums.ok()) return std::nullopt;
  const absl::StatusOr<AdmSums> gpu_sums =
      device.Run(reference.width, reference.height, reference.bit_depth, options);
  EXPECT_TRUE(gpu_sums.ok()) << what << ": " << gpu_sums.status();
  if (!gpu_sums.ok()) return std::nullopt;
  CompareSums(*gpu_sums, *cpu_sums, what, counts);
  const absl::StatusOr<AdmScores> cpu = ScoreIntegerAdm(reference, distorted, options);
  const absl::StatusOr<AdmScores> gpu =
      FinishIntegerAdm(*gpu_sums, reference.width, reference.height, options);
  EXPECT_TRUE(cpu.ok() && gpu.ok()) << what;
  if (!cpu.ok() || !gpu.ok()) return std::nullopt;
  const std::array<double, 7> c = Values(*cpu);
  const std::array<double, 7> g = Values(*gpu);
  for (size_t k = 0; k < kKeys.size(); ++k) {
    EXPECT_EQ(DoubleBits(g[k]), DoubleBits(c[k]))
        << what << " " << kKeys[k] << ": device " << absl::StrFormat("%.17g", g[k]) << ", CPU "
        << absl::StrFormat("%.17g", c[k]);
    ++counts.values;
  }
  return *gpu;
}

struct SyntheticCase {
  std::string name;
  SyntheticPlane reference, distorted;
};

std::vector<SyntheticCase> SyntheticCases(int width, int height, int bit_depth, bool all) {
  const uint32_t peak = PeakValue(bit_depth);
  const uint32_t seed = static_cast<uint32_t>(width * 31 + height * 7 + bit_depth);
  std::vector<SyntheticCase> out;
  SyntheticPlane textured = TexturedPlane(width, height, bit_depth, seed, 0);
  out.push_back({"textured distorted", textured, Distort(textured, seed + 1, 6, 2)});
  out.push_back({"textured moving", textured, TexturedPlane(width, height, bit_depth, seed, 1)});
  if (!all) return out;
  out.push_back({"textured identical", textured, textured});
  out.push_back({"flat distorted", FlatPlane(width, height, bit_depth, peak / 3),
                 Distort(FlatPlane(width, height, bit_depth, peak / 3), seed + 2, 9)});
  out.push_back({"flat reference, textured distorted", FlatPlane(width, height, bit_depth, peak),
                 textured});
  // Full-range noise: the largest band values, where libvmaf's fixed-point steps wrap.
  out.push_back({"noise full range", NoisyPlane(width, height, bit_depth, seed + 3),
                 NoisyPlane(width, height, bit_depth, seed + 4)});
  out.push_back({"noise against black", NoisyPlane(width, height, bit_depth, seed + 5),
                 FlatPlane(width, height, bit_depth, 0)});
  // Extremes alternating along each axis: the mirrored borders see a sign change at every step.
  out.push_back({"checkers against columns",
                 PatternPlane(width, height, bit_depth,
                              [&](int x, int y) { return (x + y) % 2 == 0 ? peak : 0u; }),
                 PatternPlane(width, height, bit_depth,
                              [&](int x, int) { return x % 2 == 0 ? 0u : peak; })});
  out.push_back({"blocks against rows",
                 PatternPlane(width, height, bit_depth,
                              [&](int x, int y) { return (x / 5 + y / 3) % 2 == 0 ? peak : 0u; }),
                 PatternPlane(width, height, bit_depth,
                              [&](int, int y) { return y % 3 == 0 ? peak : peak / 4; })});
  return out;
}

TEST(VmafAdmDeviceTest, SyntheticPlanesEqualTheCpu) {
  SSIMD_SKIP_WITHOUT_DEVICE();
  DeviceAdm device;
  ASSERT_TRUE(device.Init().ok());
  struct Size {
    int width, height;
    bool all;  // every content and option set (small sizes), or the main ones
  };
  // The smallest sides, odd and even sides (whose bands round up at each scale), sizes on and one
  // past the kernels' 32 x 8 tiles and 128-thread rows, and the common and extreme shapes.
  const Size sizes[] = {{33, 33, true},      {34, 33, true},      {33, 34, true},
                        {35, 41, true},      {40, 36, true},      {64, 64, true},
                        {65, 63, true},      {127, 129, true},    {257, 33, true},
                        {333, 77, true},     {520, 290, true},    {1280, 720, false},
                        {1919, 1081, false}, {1920, 1080, false}, {3840, 2160, false},
                        {kMaxDimension, 33, false}, {33, kMaxDimension, false}};
  const std::vector<std::pair<std::string, AdmOptions>> all_options = AllOptions();
  Counts counts;
  for (const Size& s : sizes) {
    for (int bit_depth : {8, 10, 12, 16}) {
      const bool large = static_cast<int64_t>(s.width) * s.height > 1000000;
      for (const SyntheticCase& c : SyntheticCases(s.width, s.height, bit_depth, s.all)) {
        for (size_t o = 0; o < all_options.size(); ++o) {
          // Large frames: the defaults and one set that changes every CSF factor.
          if (!s.all && o != 0 && all_options[o].first != "barten scaled 1080/4") continue;
          if (large && bit_depth != 8 && bit_depth != 16 && o != 0) continue;
          const std::string what =
              absl::StrFormat("%dx%d %d-bit %s, %s", s.width, s.height, bit_depth, c.name,
                              all_options[o].first);
          const absl::Status uploaded = device.Upload(c.reference.view(), c.distorted.view());
          ASSERT_TRUE(uploaded.ok()) << what << ": " << uploaded;
          ComparePair(device, c.reference.view(), c.distorted.view(), all_options[o].second,
                      what, counts);
        }
      }
    }
  }
  std::printf("adm on the device, synthetic planes: %lld frames, %lld sums and %lld values "
              "compared with the CPU\n",
              static_cast<long long>(counts.pairs), static_cast<long long>(counts.sums),
              static_cast<long long>(counts.values));
}

TEST(VmafAdmDeviceTest, LaunchRefusesWhatTheCpuRefuses) {
  SSIMD_SKIP_WITHOUT_DEVICE();
  DeviceAdm device;
  ASSERT_TRUE(device.Init().ok());
  const SyntheticPlane a = TexturedPlane(40, 40, 8, 1, 0);
  const SyntheticPlane b = TexturedPlane(40, 40, 8, 1, 1);
  ASSERT_TRUE(device.Upload(a.view(), b.view()).ok());
  for (const auto& [w, h] : {std::pair{32, 40}, {40, 32}, {1, 1}, {0, 40}}) {
    EXPECT_FALSE(device.Run(w, h, 8, AdmOptions{}).ok()) << w << "x" << h << " was accepted";
  }
  EXPECT_FALSE(device.Run(40, 40, 9, AdmOptions{}).ok()) << "bit depth 9 was accepted";
  AdmOptions no_table;
  no_table.adm_csf_mode = 2;
  no_table.adm_ref_display_height = 1440;
  EXPECT_FALSE(device.Run(40, 40, 8, no_table).ok()) << "a blend without a table was accepted";
  // A refused launch leaves nothing behind: the next one gives the CPU's sums again and again.
  Counts counts;
  for (int repeat = 0; repeat < 3; ++repeat) {
    ComparePair(device, a.view(), b.view(), AdmOptions{}, "40x40 repeated", counts);
  }
  std::printf("adm on the device, repeated launches: %lld sums compared\n",
              static_cast<long long>(counts.sums));
}

// Every frame of every pair with adm's sides, under the defaults (also against libvmaf's values
// where the entry gives them) and the `neg` models' gain limit.
void ReplaySet(DeviceAdm& device, const std::string& dir, Counts& counts) {
  absl::StatusOr<testing::ReferenceSet> set = testing::LoadReferenceSet(dir);
  ASSERT_TRUE(set.ok()) << set.status();
  absl::StatusOr<std::map<std::string, testing::ExpectedMetrics>> expected =
      testing::LoadExpectedMetrics(dir);
  ASSERT_TRUE(expected.ok()) << expected.status();
  AdmOptions neg;
  neg.adm_enhn_gain_limit = 1.0;
  for (const testing::ReferencePair& pair : set->pairs) {
    const Geometry& g = pair.geometry;
    if (g.width < kAdmMinSide || g.height < kAdmMinSide) continue;
    absl::StatusOr<device_test::ToolLuma> frames = device_test::ReadLumaAsVmafTool(pair);
    if (!frames.ok()) continue;  // a size the tool could not read: no frames it scored
    const std::map<std::string, std::vector<double>>* libvmaf = nullptr;
    if (const auto e = expected->find(pair.id);
        e != expected->end() && e->second.metrics.count("integer_adm2") != 0) {
      libvmaf = &e->second.metrics;
    }
    for (size_t f = 0; f < frames->reference.size(); ++f) {
      const LumaView& ref = frames->reference[f];
      const LumaView& dis = frames->distorted_or_reference()[f];
      ASSERT_TRUE(device.Upload(ref, dis).ok()) << pair.id;
      const std::optional<AdmScores> got =
          ComparePair(device, ref, dis, AdmOptions{},
                      absl::StrFormat("%s frame %d", pair.id, f), counts);
      ComparePair(device, ref, dis, neg, absl::StrFormat("%s frame %d, gain limit 1", pair.id, f),
                  counts);
      if (!got || libvmaf == nullptr) continue;
      const std::array<double, 7> values = Values(*got);
      for (size_t k = 0; k < kKeys.size(); ++k) {
        const auto it = libvmaf->find(kKeys[k]);
        if (it == libvmaf->end() || f >= it->second.size()) continue;
        EXPECT_TRUE(testing::SameBits(it->second[f], values[k]))
            << pair.id << " frame " << f << " " << kKeys[k] << ": libvmaf "
            << absl::StrFormat("%.17g", it->second[f]) << ", device "
            << absl::StrFormat("%.17g", values[k]);
        ++counts.libvmaf;
      }
    }
  }
}

// Replays the set in `dir` on a fresh device and prints what was compared, naming the set.
Counts ReplayAndPrint(const std::string& dir, const char* set_name) {
  Counts counts;
  DeviceAdm device;
  const absl::Status init = device.Init();
  EXPECT_TRUE(init.ok()) << init;
  if (!init.ok()) return counts;
  ReplaySet(device, dir, counts);
  std::printf("adm on the device, %s: %lld frames, %lld sums and %lld values compared with the "
              "CPU, %lld values with libvmaf\n",
              set_name, static_cast<long long>(counts.pairs), static_cast<long long>(counts.sums),
              static_cast<long long>(counts.values), static_cast<long long>(counts.libvmaf));
  return counts;
}

TEST(VmafAdmDeviceTest, ReferenceSubsetFramesEqualTheCpuAndLibvmaf) {
  SSIMD_SKIP_WITHOUT_DEVICE();
  const Counts counts =
      ReplayAndPrint(testing::RunfilePath("tests/data/reference"), "reference subset");
  EXPECT_GT(counts.libvmaf, 0);
}

TEST(VmafAdmDeviceTest, FullReferenceSetFramesEqualTheCpuAndLibvmaf) {
  SSIMD_SKIP_WITHOUT_DEVICE();
  const std::string dir = testing::FullReferenceDirectory();
  if (dir.empty()) GTEST_SKIP() << "no full reference set: $SSIMD_REFERENCE_DIR is not set";
  ReplayAndPrint(dir, "full reference set");
}

TEST(VmafAdmDeviceTest, PrintsDeviceTimePerFrame) {
  SSIMD_SKIP_WITHOUT_DEVICE();
  DeviceAdm device;
  ASSERT_TRUE(device.Init().ok());
  device_test::PrintDeviceTimePerFrame(
      "adm", [&](int w, int h, int d) -> absl::StatusOr<double> {
        const SyntheticPlane a = TexturedPlane(w, h, d, 3, 0);
        const SyntheticPlane b = Distort(a, 4, 6, 2);
        if (absl::Status s = device.Upload(a.view(), b.view()); !s.ok()) return s;
        return device.MicrosecondsPerFrame(w, h, d, 100);
      });
}

#else  // no GPU build

TEST(VmafAdmDeviceTest, SkipsWithoutAGpuBuild) { GTEST_SKIP() << SSIMD_NO_GPU_BUILD_REASON; }

#endif

}  // namespace
}  // namespace ssimd
