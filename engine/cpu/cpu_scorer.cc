#include "engine/cpu/cpu_scorer.h"

#include <chrono>

#include "absl/strings/str_format.h"
#include "engine/cpu/float_ssim.h"
#include "engine/cpu/integer_ssim.h"
#include "engine/cpu/thread_pool.h"

namespace ssimd {
namespace {

absl::Status CheckView(const Geometry& geometry, const LumaView& view, const char* what) {
  if (view.data == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat("%s luma has no data", what));
  }
  if (view.width != geometry.width || view.height != geometry.height ||
      view.bit_depth != geometry.bit_depth) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s luma is %dx%d %d-bit but the stream's geometry is %dx%d %d-bit", what, view.width,
        view.height, view.bit_depth, geometry.width, geometry.height, geometry.bit_depth));
  }
  const size_t row_bytes = static_cast<size_t>(view.width) * BytesPerSample(view.bit_depth);
  if (view.stride_bytes < row_bytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s luma stride is %d bytes, less than one %d-pixel row (%d bytes)", what,
        view.stride_bytes, view.width, row_bytes));
  }
  // Samples above the peak would break the exact decimation sum's range (docs/numerics.md §4).
  return ValidateSampleRange(view, absl::StrFormat("%s luma", what));
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

class CpuScorer final : public Scorer {
 public:
  explicit CpuScorer(const CpuScorerOptions& options) : pool_(options.threads) {}

  std::string_view name() const override { return "cpu"; }

  // The CPU serves every valid request; invalid ones are INVALID_ARGUMENT (no backend could
  // serve them, so there is nothing to fall back to).
  absl::Status CheckContext(const Geometry& geometry, const FeatureSet& features) const override {
    if (absl::Status status = ValidateGeometry(geometry); !status.ok()) return status;
    return ValidateFeatureSet(features);
  }

  absl::StatusOr<ScoreResult> Score(const Geometry& geometry, const FeatureSet& features,
                                    const FramePair& pair) override {
    const auto start = std::chrono::steady_clock::now();
    if (absl::Status status = CheckContext(geometry, features); !status.ok()) return status;
    if (absl::Status status = CheckView(geometry, pair.reference, "reference"); !status.ok()) {
      return status;
    }
    if (absl::Status status = CheckView(geometry, pair.distorted, "distorted"); !status.ok()) {
      return status;
    }
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
