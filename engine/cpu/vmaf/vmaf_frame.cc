#include "engine/cpu/vmaf/vmaf_frame.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "engine/vmaf/model_registry.h"

namespace ssimd {
namespace {

// The suffix libvmaf appends to every output of `extractor` for the model's options: the
// difference between a feature's output name and its default key.
std::string ExtractorSuffix(const VmafModel& model, const std::string& extractor) {
  for (const VmafModelFeature& feature : model.features) {
    if (feature.extractor != extractor) continue;
    const std::string key = VmafFeatureKey(feature);
    if (!key.empty() && feature.output_name.size() > key.size()) {
      return feature.output_name.substr(key.size());
    }
  }
  return "";
}

}  // namespace

absl::Status CheckVmafRequest(const Geometry& geometry, const VmafOptions& vmaf) {
  const int min_side = std::max(kAdmMinSide, IntegerVifMinSide());
  if (geometry.width < min_side || geometry.height < min_side) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "vmaf needs pictures of at least %dx%d (libvmaf's adm and vif filters refuse smaller "
        "ones), got %dx%d",
        min_side, min_side, geometry.width, geometry.height));
  }
  if (vmaf.resolved == nullptr) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "vmaf model %s was not resolved against the models this process loaded", vmaf.model));
  }
  const VmafModel& model = *vmaf.resolved;
  absl::Status status = ValidateAdmOptions(model.extractors.adm);
  if (status.ok()) status = ValidateVifOptions(model.extractors.vif);
  if (status.ok()) status = ValidateMotionOptions(model.extractors.motion);
  if (status.ok() && model.extractors.motion.five_frame_window) {
    status = absl::UnimplementedError(
        "it sets motion_five_frame_window=true, which compares each frame with the one two "
        "back; ssimd's motion compares consecutive frames only");
  }
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrFormat("model %s: %s", model.source, status.message()));
}

absl::Status AddVmafFrameScores(const VmafOptions& options, const LumaView& reference,
                                const LumaView& distorted, const LumaView* previous_reference,
                                ThreadPool& pool, FrameScores& scores) {
  // The scorers called CheckVmafRequest; the extractors check their own inputs.
  if (options.resolved == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrFormat("vmaf model %s was not resolved", options.model));
  }
  const VmafModel& model = *options.resolved;
  const VmafExtractorOptions& extractors = model.extractors;

  // The three extractors are independent: run them side by side.
  absl::StatusOr<AdmScores> adm = absl::UnknownError("adm not run");
  absl::StatusOr<VifScores> vif = absl::UnknownError("vif not run");
  absl::StatusOr<double> motion = 0.0;
  pool.ParallelFor(3, 1, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      if (task == 0) adm = ScoreIntegerAdm(reference, distorted, extractors.adm);
      if (task == 1) vif = ScoreIntegerVif(reference, distorted, extractors.vif);
      if (task == 2 && previous_reference != nullptr && !extractors.motion.force_zero) {
        absl::StatusOr<uint64_t> sum = MotionSadSum(*previous_reference, reference);
        motion = sum.ok() ? MotionSadScoreFromSum(extractors.motion, *sum, reference.width,
                                                  reference.height)
                          : absl::StatusOr<double>(sum.status());
      }
    }
  });
  if (!adm.ok()) return adm.status();
  if (!vif.ok()) return vif.status();
  if (!motion.ok()) return motion.status();
  AddVmafFeatureScores(model, *adm, *vif, *motion, scores);
  return absl::OkStatus();
}

void AddVmafFeatureScores(const VmafModel& model, const AdmScores& adm, const VifScores& vif,
                          double motion_sad_score, FrameScores& scores) {
  const std::string adm_suffix = ExtractorSuffix(model, "adm");
  scores["integer_adm2" + adm_suffix] = adm.adm2;
  for (int scale = 0; scale < 4; ++scale) {
    scores[absl::StrCat("integer_adm_scale", scale, adm_suffix)] = adm.scale[scale];
  }
  scores["integer_adm3" + adm_suffix] = adm.adm3;
  scores["integer_aim" + adm_suffix] = adm.aim;
  const std::string vif_suffix = ExtractorSuffix(model, "vif");
  for (int scale = 0; scale < 4; ++scale) {
    scores[absl::StrCat("integer_vif_scale", scale, vif_suffix)] = vif.scale[scale];
  }
  scores[kMotionSadScoreName] = motion_sad_score;
}

}  // namespace ssimd
