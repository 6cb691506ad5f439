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
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "engine/cpu/vmaf/adm.h"
#include "engine/picture.h"
#include "engine/synthetic_picture.h"
#include "gtest/gtest.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"

#if defined(SSIMD_GPU_NVIDIA) || defined(SSIMD_GPU_ROCM)
#include "kernels/hip_portability.h"
#include "kernels/vmaf_adm_kernels.h"
#include "kernels/vmaf_adm_math.h"
#define SSIMD_TEST_HAS_GPU_BUILD 1
#endif

namespace ssimd {
namespace {

#ifdef SSIMD_TEST_HAS_GPU_BUILD

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

// The kernels on device copies of two planes, on one buffer set reused (and grown) from pair to
// pair as the GPU frame reuses a slot's buffers.
class DeviceAdm {
 public:
  DeviceAdm() = default;
  DeviceAdm(const DeviceAdm&) = delete;
  DeviceAdm& operator=(const DeviceAdm&) = delete;
  ~DeviceAdm() {
    if (reference_ != nullptr) hipFree(reference_);
    if (distorted_ != nullptr) hipFree(distorted_);
    if (workspace_ != nullptr) hipFree(workspace_);
    if (sums_ != nullptr) hipFree(sums_);
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
    return HipStatus(hipMalloc(reinterpret_cast<void**>(&sums_), sizeof(AdmSums)),
                     "hipMalloc sums");
  }

  // Copies both planes (packing their rows) to the device.
  absl::Status Upload(const LumaView& reference, const LumaView& distorted) {
    const size_t row_bytes = static_cast<size_t>(reference.width) *
                             static_cast<size_t>(BytesPerSample(reference.bit_depth));
    const size_t bytes = row_bytes * static_cast<size_t>(reference.height);
    if (bytes > capacity_) {
      if (reference_ != nullptr) hipFree(reference_);
      if (distorted_ != nullptr) hipFree(distorted_);
      reference_ = distorted_ = nullptr;
      capacity_ = 0;
      if (absl::Status s = HipStatus(hipMalloc(&reference_, bytes), "hipMalloc"); !s.ok()) {
        return s;
      }
      if (absl::Status s = HipStatus(hipMalloc(&distorted_, bytes), "hipMalloc"); !s.ok()) {
        return s;
      }
      capacity_ = bytes;
    }
    const size_t workspace = VmafAdmWorkspaceBytes(reference.width, reference.height);
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
    for (const auto& [view, device] :
         {std::pair{&reference, reference_}, {&distorted, distorted_}}) {
      for (int y = 0; y < view->height; ++y) {
        std::memcpy(packed.data() + static_cast<size_t>(y) * row_bytes,
                    view->data + static_cast<size_t>(y) * view->stride_bytes, row_bytes);
      }
      // On the test's stream, which does not wait for the legacy default stream; synchronised
      // before `packed` is refilled.
      if (absl::Status s = HipStatus(
              hipMemcpyAsync(device, packed.data(), bytes, hipMemcpyHostToDevice, stream_),
              "hipMemcpyAsync to device");
          !s.ok()) {
        return s;
      }
      if (absl::Status s = HipStatus(hipStreamSynchronize(stream_), "hipStreamSynchronize");
          !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }

  VmafAdmLaunch LaunchFor(int width, int height, int bit_depth, const AdmOptions& options) const {
    VmafAdmLaunch l;
    l.reference = reference_;
    l.distorted = distorted_;
    l.width = width;
    l.height = height;
    l.bit_depth = bit_depth;
    l.options = AdmSumOptionsOf(options);
    l.workspace = workspace_;
    l.sums = sums_;
    return l;
  }

  // The sums of the planes last uploaded, with garbage in the sums and the workspace beforehand:
  // the launch must zero what it accumulates, and write every plane sample it reads.
  absl::StatusOr<AdmSums> Run(int width, int height, int bit_depth, const AdmOptions& options) {
    if (absl::Status s =
            HipStatus(hipMemsetAsync(sums_, 0x5a, sizeof(AdmSums), stream_), "hipMemsetAsync");
        !s.ok()) {
      return s;
    }
    if (workspace_ != nullptr) {
      if (absl::Status s = HipStatus(
              hipMemsetAsync(workspace_, 0xa5, workspace_capacity_, stream_), "hipMemsetAsync");
          !s.ok()) {
        return s;
      }
    }
    if (absl::Status s = HipStatus(
            LaunchVmafAdm(LaunchFor(width, height, bit_depth, options), stream_), "LaunchVmafAdm");
        !s.ok()) {
      return s;
    }
    if (absl::Status s = HipStatus(hipStreamSynchronize(stream_), "hipStreamSynchronize");
        !s.ok()) {
      return s;
    }
    AdmSums sums;
    if (absl::Status s = HipStatus(
            hipMemcpyAsync(&sums, sums_, sizeof(sums), hipMemcpyDeviceToHost, stream_),
            "hipMemcpyAsync from device");
        !s.ok()) {
      return s;
    }
    if (absl::Status s = HipStatus(hipStreamSynchronize(stream_), "hipStreamSynchronize");
        !s.ok()) {
      return s;
    }
    return sums;
  }

  // Mean device time of one frame's launch (zeroing included), in microseconds, over `runs`
  // launches back to back on the planes last uploaded.
  absl::StatusOr<double> MicrosecondsPerFrame(int width, int height, int bit_depth, int runs) {
    const VmafAdmLaunch l = LaunchFor(width, height, bit_depth, AdmOptions{});
    for (int i = 0; i < 3; ++i) {  // warm-up
      if (absl::Status s = HipStatus(LaunchVmafAdm(l, stream_), "launch"); !s.ok()) return s;
    }
    if (absl::Status s = HipStatus(hipEventRecord(start_, stream_), "hipEventRecord"); !s.ok()) {
      return s;
    }
    for (int i = 0; i < runs; ++i) {
      if (absl::Status s = HipStatus(LaunchVmafAdm(l, stream_), "launch"); !s.ok()) return s;
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
  void* reference_ = nullptr;
  void* distorted_ = nullptr;
  size_t capacity_ = 0;
  void* workspace_ = nullptr;
  size_t workspace_capacity_ = 0;
  AdmSums* sums_ = nullptr;
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
    EXPECT_EQ(Bits(g[k]), Bits(c[k])) << what << " " << kKeys[k] << ": device "
                                      << absl::StrFormat("%.17g", g[k]) << ", CPU "
                                      << absl::StrFormat("%.17g", c[k]);
    ++counts.values;
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
  std::string why;
  if (!DeviceUsable(why)) GTEST_SKIP() << why;
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
  std::string why;
  if (!DeviceUsable(why)) GTEST_SKIP() << why;
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

// A pair's frames as the vmaf tool reads them (what libvmaf's values were computed from).
struct PairFrames {
  std::vector<std::vector<uint8_t>> storage;
  std::vector<LumaView> reference, distorted;
};

absl::StatusOr<PairFrames> ReadFrames(const testing::ReferencePair& pair) {
  absl::StatusOr<testing::ToolPair> tool = testing::ReadPairAsVmafTool(pair);
  if (!tool.ok()) return tool.status();
  PairFrames out;
  for (size_t f = 0; f < tool->frames(); ++f) {
    out.reference.push_back(tool->reference.frames[f][0]);
    out.distorted.push_back(tool->distorted().frames[f][0]);
  }
  // The views point into the ToolFrames' storage, which moving keeps in place.
  out.storage.push_back(std::move(tool->reference.storage));
  if (tool->distorted_clip) out.storage.push_back(std::move(tool->distorted_clip->storage));
  return out;
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
    absl::StatusOr<PairFrames> frames = ReadFrames(pair);
    if (!frames.ok()) continue;  // a size the tool could not read: no frames it scored
    const std::map<std::string, std::vector<double>>* libvmaf = nullptr;
    if (const auto e = expected->find(pair.id);
        e != expected->end() && e->second.metrics.count("integer_adm2") != 0) {
      libvmaf = &e->second.metrics;
    }
    for (size_t f = 0; f < frames->reference.size(); ++f) {
      const LumaView& ref = frames->reference[f];
      const LumaView& dis = frames->distorted[f];
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

TEST(VmafAdmDeviceTest, ReferenceSubsetFramesEqualTheCpuAndLibvmaf) {
  std::string why;
  if (!DeviceUsable(why)) GTEST_SKIP() << why;
  DeviceAdm device;
  ASSERT_TRUE(device.Init().ok());
  Counts counts;
  ReplaySet(device, testing::RunfilePath("tests/data/reference"), counts);
  EXPECT_GT(counts.libvmaf, 0);
  std::printf("adm on the device, reference subset: %lld frames, %lld sums and %lld values "
              "compared with the CPU, %lld values with libvmaf\n",
              static_cast<long long>(counts.pairs), static_cast<long long>(counts.sums),
              static_cast<long long>(counts.values), static_cast<long long>(counts.libvmaf));
}

TEST(VmafAdmDeviceTest, FullReferenceSetFramesEqualTheCpuAndLibvmaf) {
  std::string why;
  if (!DeviceUsable(why)) GTEST_SKIP() << why;
  const std::string dir = testing::FullReferenceDirectory();
  if (dir.empty()) GTEST_SKIP() << "no full reference set: $SSIMD_REFERENCE_DIR is not set";
  DeviceAdm device;
  ASSERT_TRUE(device.Init().ok());
  Counts counts;
  ReplaySet(device, dir, counts);
  std::printf("adm on the device, full reference set: %lld frames, %lld sums and %lld values "
              "compared with the CPU, %lld values with libvmaf\n",
              static_cast<long long>(counts.pairs), static_cast<long long>(counts.sums),
              static_cast<long long>(counts.values), static_cast<long long>(counts.libvmaf));
}

// Not a limit, a record: device time per frame at common sizes.
TEST(VmafAdmDeviceTest, PrintsDeviceTimePerFrame) {
  std::string why;
  if (!DeviceUsable(why)) GTEST_SKIP() << why;
  DeviceAdm device;
  ASSERT_TRUE(device.Init().ok());
  struct Size {
    int width, height, bit_depth;
  };
  for (const Size& s : {Size{1920, 1080, 8}, Size{1920, 1080, 10}, Size{3840, 2160, 8},
                        Size{3840, 2160, 16}}) {
    const SyntheticPlane a = TexturedPlane(s.width, s.height, s.bit_depth, 3, 0);
    const SyntheticPlane b = Distort(a, 4, 6, 2);
    ASSERT_TRUE(device.Upload(a.view(), b.view()).ok());
    const absl::StatusOr<double> us =
        device.MicrosecondsPerFrame(s.width, s.height, s.bit_depth, 100);
    ASSERT_TRUE(us.ok()) << us.status();
    std::printf("adm on the device: %dx%d %d-bit, %.1f us per frame\n", s.width, s.height,
                s.bit_depth, *us);
  }
}

#else  // no GPU build

TEST(VmafAdmDeviceTest, SkipsWithoutAGpuBuild) {
  GTEST_SKIP() << "no GPU to test: built without a GPU configuration (--config=nvidia or rocm)";
}

#endif

}  // namespace
}  // namespace ssimd
