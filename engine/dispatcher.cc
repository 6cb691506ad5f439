#include "engine/dispatcher.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "spdlog/spdlog.h"

namespace ssimd {
namespace {

// Each distinct fallback reason is logged once: a clip on a picture size the GPU refuses would
// otherwise log every frame. The response and the metric still carry every occurrence.
void LogFallbackOnce(const std::string& reason) {
  static absl::Mutex mu(absl::kConstInit);
  static std::set<std::string>* seen = new std::set<std::string>();  // guarded by mu
  constexpr size_t kMaxRemembered = 1024;
  {
    absl::MutexLock lock(&mu);
    if (seen->count(reason) > 0 || seen->size() >= kMaxRemembered) return;
    seen->insert(reason);
  }
  spdlog::warn("scoring on the CPU instead of the GPU: {}", reason);
}

}  // namespace

Dispatcher::Dispatcher(std::unique_ptr<Scorer> cpu, std::unique_ptr<Scorer> gpu,
                       std::string gpu_unavailable_reason)
    : cpu_(std::move(cpu)),
      gpu_(std::move(gpu)),
      gpu_unavailable_reason_(std::move(gpu_unavailable_reason)) {}

absl::Status Dispatcher::CheckRequest(const Geometry& geometry, const FeatureSet& features,
                                      BackendPreference preference) const {
  // The CPU's check also validates the request itself: an invalid one fails on every backend.
  SSIMD_RETURN_IF_ERROR(cpu_->CheckContext(geometry, features));
  if (preference != BackendPreference::kGpu) return absl::OkStatus();
  if (gpu_ == nullptr) {
    return absl::UnavailableError(absl::StrCat(
        "backend gpu was requested but no GPU is available: ", gpu_unavailable_reason_));
  }
  if (!gpu_->Healthy()) {
    return absl::UnavailableError(
        "backend gpu was requested but the GPU was lost; use backend auto or cpu");
  }
  if (absl::Status status = gpu_->CheckContext(geometry, features); !status.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("backend gpu cannot serve this request: ", status.message(),
                     "; use backend auto or cpu to score it on the CPU"));
  }
  return absl::OkStatus();
}

template <typename ScoreOn>
absl::StatusOr<ScoreResult> Dispatcher::Dispatch(const Geometry& geometry,
                                                 const FeatureSet& features,
                                                 BackendPreference preference,
                                                 const ScoreOn& score_on) {
  switch (preference) {
    case BackendPreference::kCpu:
      return score_on(*cpu_);
    case BackendPreference::kGpu: {
      SSIMD_RETURN_IF_ERROR(CheckRequest(geometry, features, preference));
      return score_on(*gpu_);
    }
    case BackendPreference::kAuto:
      break;
  }

  std::string reason;
  if (gpu_ == nullptr) {
    reason = absl::StrCat("gpu unavailable: ", gpu_unavailable_reason_);
  } else if (!gpu_->Healthy()) {
    reason = "gpu unavailable: the GPU was lost";
  } else if (absl::Status refused = gpu_->CheckContext(geometry, features); !refused.ok()) {
    // An invalid request is not the GPU's to refuse: the CPU reports it below.
    if (refused.code() != absl::StatusCode::kInvalidArgument) {
      reason = absl::StrCat("gpu refused: ", refused.message());
    }
  } else {
    absl::StatusOr<ScoreResult> result = score_on(*gpu_);
    if (result.ok() || result.status().code() == absl::StatusCode::kInvalidArgument) {
      return result;
    }
    reason = absl::StrCat("gpu error: ", result.status().message());
  }

  absl::StatusOr<ScoreResult> result = score_on(*cpu_);
  if (result.ok() && !reason.empty()) {
    LogFallbackOnce(reason);
    result->fallback_reason = std::move(reason);
  }
  return result;
}

absl::StatusOr<ScoreResult> Dispatcher::Score(const Geometry& geometry, const FeatureSet& features,
                                              const FramePair& pair, BackendPreference preference) {
  return Dispatch(geometry, features, preference,
                  [&](Scorer& scorer) { return scorer.Score(geometry, features, pair); });
}

absl::StatusOr<ScoreResult> Dispatcher::ScorePieces(const Geometry& geometry,
                                                    const FeatureSet& features,
                                                    const PiecewiseFramePair& pair,
                                                    BackendPreference preference) {
  return Dispatch(geometry, features, preference,
                  [&](Scorer& scorer) { return scorer.ScorePieces(geometry, features, pair); });
}

bool Dispatcher::WouldUseGpu(const Geometry& geometry, const FeatureSet& features,
                             BackendPreference preference) const {
  return preference != BackendPreference::kCpu && GpuHealthy() &&
         gpu_->CheckContext(geometry, features).ok();
}

std::string Dispatcher::DefaultBackend() const { return GpuHealthy() ? "gpu" : "cpu"; }

bool Dispatcher::CanServe(BackendPreference preference) const {
  return preference != BackendPreference::kGpu || GpuHealthy();
}

bool Dispatcher::GpuHealthy() const { return gpu_ != nullptr && gpu_->Healthy(); }

}  // namespace ssimd
