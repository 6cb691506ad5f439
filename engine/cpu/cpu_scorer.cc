#include "engine/cpu/cpu_scorer.h"

#include <chrono>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "base/thread_pool.h"
#include "engine/cpu/float_ssim.h"
#include "engine/cpu/integer_ssim.h"
#include "engine/cpu/ms_ssim.h"
#include "engine/cpu/psnr.h"
#include "engine/cpu/vmaf/vmaf_frame.h"

namespace ssimd {
namespace {

absl::Status CheckView(const Geometry& geometry, const LumaView& view, const char* what) {
  SSIMD_RETURN_IF_ERROR(CheckLumaView(geometry, view, what));
  // Samples above the peak would break the exact decimation sum's range (docs/numerics.md §4).
  return ValidateSampleRange(view, absl::StrFormat("%s luma", what));
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

class CpuScorer final : public Scorer {
 public:
  explicit CpuScorer(const CpuScorerOptions& options)
      : pool_(options.threads, ThreadPool::Sizing::kWithCaller) {}

  std::string_view name() const override { return "cpu"; }

  // The CPU serves every valid request; invalid ones are INVALID_ARGUMENT (no backend could
  // serve them, so there is nothing to fall back to).
  absl::Status CheckContext(const Geometry& geometry, const FeatureSet& features) const override {
    SSIMD_RETURN_IF_ERROR(ValidateGeometry(geometry));
    SSIMD_RETURN_IF_ERROR(ValidateFeatureSet(features));
    if (features.float_ms_ssim.has_value()) {
      SSIMD_RETURN_IF_ERROR(CheckFloatMsSsimSize(geometry.width, geometry.height));
    }
    if (features.vmaf.has_value()) {
      SSIMD_RETURN_IF_ERROR(CheckVmafRequest(geometry, *features.vmaf));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<ScoreResult> Score(const Geometry& geometry, const FeatureSet& features,
                                    const FramePair& pair) override {
    const auto start = std::chrono::steady_clock::now();
    SSIMD_RETURN_IF_ERROR(CheckContext(geometry, features));
    SSIMD_RETURN_IF_ERROR(CheckView(geometry, pair.reference, "reference"));
    SSIMD_RETURN_IF_ERROR(CheckView(geometry, pair.distorted, "distorted"));
    const auto checked = std::chrono::steady_clock::now();

    ScoreResult result;
    result.backend = "cpu";
    if (features.float_ssim.has_value()) {
      const FloatSsimOptions& options = *features.float_ssim;
      const FloatSsimMeans means = ComputeFloatSsim(pair.reference, pair.distorted, options.scale,
                                                    options.enable_lcs, pool_);
      AddFloatSsimScores(options, geometry, means, result.scores);
    }
    if (features.ssim.has_value()) {
      const double score = ComputeIntegerSsim(pair.reference, pair.distorted, pool_);
      AddIntegerSsimScore(*features.ssim, score, result.scores);
    }
    if (features.float_ms_ssim.has_value()) {
      absl::StatusOr<FloatMsSsimValues> values =
          ComputeFloatMsSsim(pair.reference, pair.distorted, pool_);
      if (!values.ok()) return values.status();
      AddFloatMsSsimScores(*features.float_ms_ssim, geometry, *values, result.scores);
    }
    if (features.psnr.has_value()) {
      SSIMD_RETURN_IF_ERROR(AddPsnrScores(geometry, *features.psnr, pair.reference,
                                          pair.distorted, pair.chroma, result.scores,
                                          result.sums));
    }
    if (features.vmaf.has_value()) {
      if (pair.previous_reference != nullptr) {
        SSIMD_RETURN_IF_ERROR(CheckView(geometry, *pair.previous_reference, "previous reference"));
      }
      SSIMD_RETURN_IF_ERROR(AddVmafFrameScores(*features.vmaf, pair.reference, pair.distorted,
                                               pair.previous_reference, pool_, result.scores));
    }
    const auto done = std::chrono::steady_clock::now();
    result.timings.compute = Seconds(done - checked);
    result.timings.total = Seconds(done - start);
    return result;
  }

 private:
  ThreadPool pool_;
};

}  // namespace

std::unique_ptr<Scorer> MakeCpuScorer(const CpuScorerOptions& options) {
  return std::make_unique<CpuScorer>(options);
}

}  // namespace ssimd
