// vmaf through the GPU scorer: every frame's adm, vif and motion values equal the CPU engine's bit
// for bit (synthetic clips from 33x33 to 4K, 8 to 16 bits, with and without the frame before), and
// the checked-in reference subset replayed through the device gives libvmaf's values, vmaf itself
// where $SSIMD_VMAF_MODEL_DIR holds libvmaf's model. Skips, saying why, where no GPU can be used.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "base/double_bits.h"
#include "engine/cpu/cpu_scorer.h"
#include "engine/gpu/gpu_scorer.h"
#include "engine/synthetic_picture.h"
#include "engine/vmaf/test_model.h"
#include "gtest/gtest.h"
#include "tests/reference/full_metrics_set.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_set.h"
#include "tests/reference/vmaf_replay.h"

namespace ssimd {
namespace {

using testing::ExpectedMetrics;
using testing::ReferencePair;

FeatureSet VmafFeatures() {
  FeatureSet features;
  features.vmaf = VmafOptions{};
  features.vmaf->resolved = testing::ReferenceVmafModel();
  if (features.vmaf->resolved == nullptr) features.vmaf->resolved = SixFeatureTestModel();
  return features;
}

class GpuVmafTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<GpuScorer>> gpu = MakeGpuScorer(GpuOptions{});
    if (!gpu.ok()) GTEST_SKIP() << "no GPU to test: " << gpu.status().message();
    gpu_ = *std::move(gpu);
    cpu_ = MakeCpuScorer();
  }
  std::unique_ptr<GpuScorer> gpu_;
  std::unique_ptr<Scorer> cpu_;
};

// --gpu_vmaf=false: the gate sends vmaf frames to the CPU, saying why; other features stay.
TEST_F(GpuVmafTest, OffKeepsVmafOnTheCpu) {
  GpuOptions options;
  options.vmaf_on_device = false;
  absl::StatusOr<std::unique_ptr<GpuScorer>> off = MakeGpuScorer(options);
  ASSERT_TRUE(off.ok()) << off.status();
  const Geometry g{64, 36, 8, ChromaFormat::k420};
  const absl::Status refused = (*off)->CheckContext(g, VmafFeatures());
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("--gpu_vmaf=false"), std::string::npos) << refused;
  FeatureSet float_ssim;
  float_ssim.float_ssim = FloatSsimOptions{};
  EXPECT_TRUE((*off)->CheckContext(g, float_ssim).ok());
}

TEST_F(GpuVmafTest, EveryFrameEqualsTheCpu) {
  const FeatureSet features = VmafFeatures();
  struct Size {
    int width, height, bit_depth;
  };
  const Size sizes[] = {{33, 33, 8},    {64, 36, 10},    {65, 47, 8},    {176, 144, 12},
                        {320, 180, 16}, {641, 361, 8},   {1280, 720, 10}, {1920, 1080, 8},
                        {1920, 1080, 10}, {3840, 2160, 8}};
  int64_t compared = 0;
  for (const Size& s : sizes) {
    SCOPED_TRACE(::testing::Message() << s.width << "x" << s.height << " " << s.bit_depth << "-bit");
    const Geometry g{s.width, s.height, s.bit_depth, ChromaFormat::k420};
    ASSERT_TRUE(gpu_->CheckContext(g, features).ok()) << gpu_->CheckContext(g, features);
    SyntheticPlane previous = TexturedPlane(g, 7, 0);
    for (int frame = 0; frame < 3; ++frame) {
      const SyntheticPlane ref = TexturedPlane(g, 7, frame + 1);
      const SyntheticPlane dist = Distort(ref, 11 + frame, 4 + 3 * frame);
      FramePair pair{ref.view(), dist.view()};
      const LumaView previous_view = previous.view();
      if (frame > 0) pair.previous_reference = &previous_view;
      absl::StatusOr<ScoreResult> on_gpu = gpu_->Score(g, features, pair);
      absl::StatusOr<ScoreResult> on_cpu = cpu_->Score(g, features, pair);
      ASSERT_TRUE(on_gpu.ok()) << on_gpu.status();
      ASSERT_TRUE(on_cpu.ok()) << on_cpu.status();
      EXPECT_EQ(on_gpu->backend.rfind("gpu", 0), 0u) << on_gpu->backend;
      ASSERT_EQ(on_gpu->scores.size(), on_cpu->scores.size());
      for (const auto& [name, value] : on_cpu->scores) {
        ASSERT_TRUE(on_gpu->scores.count(name)) << name;
        EXPECT_TRUE(SameBits(value, on_gpu->scores.at(name)))
            << name << " frame " << frame << ": gpu " << on_gpu->scores.at(name) << " cpu "
            << value;
        ++compared;
      }
      previous = ref;
    }
  }
  std::cout << compared << " vmaf values compared with the CPU\n";
}

void ReplaySet(const testing::MetricsSet& set, Scorer& gpu) {
  std::shared_ptr<const VmafModel> model = testing::ReferenceVmafModel();
  const bool libvmafs = model != nullptr;
  if (!libvmafs) model = SixFeatureTestModel();
  int64_t compared = 0;
  for (const ReferencePair& pair : set.set.pairs) {
    absl::StatusOr<testing::VmafReplay> replay =
        testing::ReplayVmafPair(pair, set.expected.at(pair.id), model, libvmafs, gpu);
    ASSERT_TRUE(replay.ok()) << replay.status();
    for (const testing::Mismatch& m : replay->report.mismatches) {
      ADD_FAILURE() << pair.id << ": " << m.ToString();
    }
    compared += replay->report.compared;
  }
  if (!libvmafs) std::cout << testing::VmafModelAbsent() << "\n";
  std::cout << compared << " values compared with libvmaf's\n";
}

TEST_F(GpuVmafTest, ReferenceSubsetThroughTheDevice) {
  const absl::StatusOr<testing::MetricsSet> subset = testing::LoadMetricsSubset();
  ASSERT_TRUE(subset.ok()) << subset.status();
  ReplaySet(*subset, *gpu_);
}

TEST_F(GpuVmafTest, FullReferenceSetThroughTheDevice) {
  const testing::MetricsSet* loaded = testing::LoadedFullMetricsSet();
  if (loaded == nullptr) GTEST_SKIP() << testing::FullMetricsSetAbsent("gpu_vmaf_test");
  ReplaySet(*loaded, *gpu_);
}

}  // namespace
}  // namespace ssimd
