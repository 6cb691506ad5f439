#include "engine/dispatcher.h"

#include <atomic>
#include <memory>
#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A scriptable backend: its context check, its scoring result and its health are set by the test.
class FakeScorer final : public Scorer {
 public:
  explicit FakeScorer(std::string name, double score) : name_(std::move(name)), score_(score) {}

  std::string_view name() const override { return name_; }
  absl::Status CheckContext(const Geometry&, const FeatureSet&) const override { return context_; }
  absl::StatusOr<ScoreResult> Score(const Geometry&, const FeatureSet&, const FramePair&) override {
    ++calls_;
    if (!score_status_.ok()) return score_status_;
    ScoreResult result;
    result.backend = name_;
    result.scores["float_ssim"] = score_;
    return result;
  }
  absl::StatusOr<ScoreResult> ScorePieces(const Geometry& g, const FeatureSet& f,
                                          const PiecewiseFramePair&) override {
    ++pieces_calls_;
    return Score(g, f, FramePair{});
  }
  bool Healthy() const override { return healthy_; }

  std::atomic<int> pieces_calls_{0};
  absl::Status context_ = absl::OkStatus();
  absl::Status score_status_ = absl::OkStatus();
  bool healthy_ = true;
  std::atomic<int> calls_{0};

 private:
  std::string name_;
  double score_;
};

class DispatcherTest : public ::testing::Test {
 protected:
  // Builds a dispatcher with a CPU and (optionally) a GPU fake, keeping pointers to both.
  Dispatcher Make(bool with_gpu, std::string gpu_reason = "") {
    auto cpu = std::make_unique<FakeScorer>("cpu", 0.5);
    cpu_ = cpu.get();
    std::unique_ptr<FakeScorer> gpu;
    if (with_gpu) {
      gpu = std::make_unique<FakeScorer>("gpu:0", 0.75);
      gpu_ = gpu.get();
    }
    return Dispatcher(std::move(cpu), std::move(gpu), std::move(gpu_reason));
  }

  Geometry geometry_{64, 64, 8};
  FeatureSet features_;
  FramePair pair_;
  FakeScorer* cpu_ = nullptr;
  FakeScorer* gpu_ = nullptr;
};

TEST_F(DispatcherTest, AutoUsesTheGpuWhenItCanServe) {
  Dispatcher dispatcher = Make(true);
  absl::StatusOr<ScoreResult> result =
      dispatcher.Score(geometry_, features_, pair_, BackendPreference::kAuto);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->backend, "gpu:0");
  EXPECT_EQ(result->scores.at("float_ssim"), 0.75);
  EXPECT_TRUE(result->fallback_reason.empty());
  EXPECT_EQ(cpu_->calls_, 0);
  EXPECT_EQ(dispatcher.DefaultBackend(), "gpu");
}

TEST_F(DispatcherTest, AutoFallsBackWhenThereIsNoGpu) {
  Dispatcher dispatcher = Make(false, "ssimd was built without GPU support");
  absl::StatusOr<ScoreResult> result =
      dispatcher.Score(geometry_, features_, pair_, BackendPreference::kAuto);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->backend, "cpu");
  EXPECT_EQ(result->fallback_reason, "gpu unavailable: ssimd was built without GPU support");
  EXPECT_EQ(dispatcher.DefaultBackend(), "cpu");
  EXPECT_FALSE(dispatcher.GpuHealthy());
  EXPECT_TRUE(dispatcher.CanServe(BackendPreference::kAuto));
  EXPECT_FALSE(dispatcher.CanServe(BackendPreference::kGpu));
}

TEST_F(DispatcherTest, AutoFallsBackWhenTheGpuRefusesTheContext) {
  Dispatcher dispatcher = Make(true);
  gpu_->context_ = absl::FailedPreconditionError("plane 5x5 is smaller than the 11x11 window");
  absl::StatusOr<ScoreResult> result =
      dispatcher.Score(geometry_, features_, pair_, BackendPreference::kAuto);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->backend, "cpu");
  EXPECT_EQ(result->fallback_reason, "gpu refused: plane 5x5 is smaller than the 11x11 window");
  EXPECT_EQ(gpu_->calls_, 0);
}

TEST_F(DispatcherTest, AutoFallsBackOnADeviceError) {
  Dispatcher dispatcher = Make(true);
  gpu_->score_status_ = absl::InternalError("kernel launch failed");
  absl::StatusOr<ScoreResult> result =
      dispatcher.Score(geometry_, features_, pair_, BackendPreference::kAuto);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->backend, "cpu");
  EXPECT_EQ(result->fallback_reason, "gpu error: kernel launch failed");
  EXPECT_EQ(gpu_->calls_, 1);
  EXPECT_EQ(cpu_->calls_, 1);
}

TEST_F(DispatcherTest, PiecesTakeTheSameRouteAndFallBackTheSameWay) {
  Dispatcher dispatcher = Make(true);
  gpu_->score_status_ = absl::InternalError("kernel launch failed");
  PlanePieces none;
  absl::StatusOr<ScoreResult> result =
      dispatcher.ScorePieces(geometry_, features_, {&none, &none}, BackendPreference::kAuto);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->backend, "cpu");
  EXPECT_EQ(result->fallback_reason, "gpu error: kernel launch failed");
  EXPECT_EQ(gpu_->pieces_calls_, 1);
  EXPECT_EQ(cpu_->pieces_calls_, 1);
  result = dispatcher.ScorePieces(geometry_, features_, {&none, &none}, BackendPreference::kCpu);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(cpu_->pieces_calls_, 2);
  EXPECT_EQ(gpu_->pieces_calls_, 1);
}

TEST_F(DispatcherTest, AutoSkipsALostGpuAndReportsIt) {
  Dispatcher dispatcher = Make(true);
  gpu_->healthy_ = false;
  absl::StatusOr<ScoreResult> result =
      dispatcher.Score(geometry_, features_, pair_, BackendPreference::kAuto);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->backend, "cpu");
  EXPECT_THAT(result->fallback_reason, StartsWith("gpu unavailable:"));
  EXPECT_EQ(gpu_->calls_, 0);
  EXPECT_EQ(dispatcher.DefaultBackend(), "cpu");
  EXPECT_FALSE(dispatcher.CanServe(BackendPreference::kGpu));
  EXPECT_TRUE(dispatcher.CanServe(BackendPreference::kCpu));
}

TEST_F(DispatcherTest, InvalidInputIsReturnedNotRetriedOnTheCpu) {
  Dispatcher dispatcher = Make(true);
  gpu_->score_status_ = absl::InvalidArgumentError("reference luma sample 1024 exceeds 1023");
  absl::StatusOr<ScoreResult> result =
      dispatcher.Score(geometry_, features_, pair_, BackendPreference::kAuto);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cpu_->calls_, 0);
}

TEST_F(DispatcherTest, GpuOnlyReturnsErrorsInsteadOfFallingBack) {
  Dispatcher dispatcher = Make(true);
  gpu_->score_status_ = absl::UnavailableError("GPU 0 was lost");
  absl::StatusOr<ScoreResult> result =
      dispatcher.Score(geometry_, features_, pair_, BackendPreference::kGpu);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(cpu_->calls_, 0);

  gpu_->context_ = absl::FailedPreconditionError("scale 129 is above 128");
  const absl::Status refused =
      dispatcher.CheckRequest(geometry_, features_, BackendPreference::kGpu);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("scale 129 is above 128"));
  EXPECT_EQ(dispatcher.Score(geometry_, features_, pair_, BackendPreference::kGpu).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(cpu_->calls_, 0);
}

TEST_F(DispatcherTest, GpuOnlyWithoutAGpuIsUnavailableWithTheReason) {
  Dispatcher dispatcher = Make(false, "no usable GPU: the runtime found no device");
  const absl::Status status =
      dispatcher.CheckRequest(geometry_, features_, BackendPreference::kGpu);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("the runtime found no device"));
  EXPECT_EQ(dispatcher.Score(geometry_, features_, pair_, BackendPreference::kGpu).status().code(),
            absl::StatusCode::kUnavailable);
}

TEST_F(DispatcherTest, CpuOnlyNeverTouchesTheGpu) {
  Dispatcher dispatcher = Make(true);
  absl::StatusOr<ScoreResult> result =
      dispatcher.Score(geometry_, features_, pair_, BackendPreference::kCpu);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->backend, "cpu");
  EXPECT_TRUE(result->fallback_reason.empty());
  EXPECT_EQ(gpu_->calls_, 0);
  EXPECT_TRUE(dispatcher.CheckRequest(geometry_, features_, BackendPreference::kCpu).ok());
}

TEST_F(DispatcherTest, AnInvalidRequestIsRefusedWhateverTheBackend) {
  Dispatcher dispatcher = Make(true);
  cpu_->context_ = absl::InvalidArgumentError("bit_depth must be 8, 10, 12 or 16");
  for (BackendPreference preference :
       {BackendPreference::kAuto, BackendPreference::kGpu, BackendPreference::kCpu}) {
    EXPECT_EQ(dispatcher.CheckRequest(geometry_, features_, preference).code(),
              absl::StatusCode::kInvalidArgument);
  }
}

TEST_F(DispatcherTest, WouldUseGpuOnlyWhereFramesWouldGoThere) {
  Dispatcher with_gpu = Make(true);
  EXPECT_TRUE(with_gpu.WouldUseGpu(geometry_, features_, BackendPreference::kAuto));
  EXPECT_TRUE(with_gpu.WouldUseGpu(geometry_, features_, BackendPreference::kGpu));
  EXPECT_FALSE(with_gpu.WouldUseGpu(geometry_, features_, BackendPreference::kCpu));
  gpu_->context_ = absl::FailedPreconditionError("too small");
  EXPECT_FALSE(with_gpu.WouldUseGpu(geometry_, features_, BackendPreference::kAuto));
  gpu_->context_ = absl::OkStatus();
  gpu_->healthy_ = false;
  EXPECT_FALSE(with_gpu.WouldUseGpu(geometry_, features_, BackendPreference::kAuto));
  Dispatcher without_gpu = Make(false, "no device");
  EXPECT_FALSE(without_gpu.WouldUseGpu(geometry_, features_, BackendPreference::kAuto));
}

}  // namespace
}  // namespace ssimd
