#include "engine/cpu/vmaf/vmaf_frame.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "engine/vmaf/model_registry.h"

namespace ssimd {
namespace {

absl::Status BadOption(const VmafFeatureOption& option, const char* expected) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "the model sets %s=%s, but ssimd expects %s there", option.name, option.value, expected));
}

absl::Status ReadDouble(const VmafFeatureOption& option, double& out) {
  if (!absl::SimpleAtod(option.value, &out)) return BadOption(option, "a number");
  return absl::OkStatus();
}

absl::Status ReadInt(const VmafFeatureOption& option, int& out) {
  double value = 0;
  if (!absl::SimpleAtod(option.value, &value) || value != static_cast<int>(value)) {
    return BadOption(option, "an integer");
  }
  out = static_cast<int>(value);
  return absl::OkStatus();
}

absl::Status ReadBool(const VmafFeatureOption& option, bool& out) {
  if (option.value != "true" && option.value != "false") return BadOption(option, "true or false");
  out = option.value == "true";
  return absl::OkStatus();
}

absl::Status SetAdmOption(const VmafFeatureOption& o, AdmOptions& adm) {
  if (o.name == "adm_enhn_gain_limit") return ReadDouble(o, adm.adm_enhn_gain_limit);
  if (o.name == "adm_norm_view_dist") return ReadDouble(o, adm.adm_norm_view_dist);
  if (o.name == "adm_ref_display_height") return ReadInt(o, adm.adm_ref_display_height);
  if (o.name == "adm_csf_mode") return ReadInt(o, adm.adm_csf_mode);
  if (o.name == "adm_csf_scale") return ReadDouble(o, adm.adm_csf_scale);
  if (o.name == "adm_csf_diag_scale") return ReadDouble(o, adm.adm_csf_diag_scale);
  if (o.name == "adm_noise_weight") return ReadDouble(o, adm.adm_noise_weight);
  if (o.name == "adm_dlm_weight") return ReadDouble(o, adm.adm_dlm_weight);
  if (o.name == "adm_min_val") return ReadDouble(o, adm.adm_min_val);
  if (o.name == "adm_skip_aim") return ReadBool(o, adm.adm_skip_aim);
  if (o.name == "adm_skip_scale0") return ReadBool(o, adm.adm_skip_scale0);
  if (o.name == "debug") return absl::OkStatus();  // adds outputs only
  return BadOption(o, "an option of libvmaf's integer adm");
}

absl::Status SetVifOption(const VmafFeatureOption& o, VifOptions& vif) {
  if (o.name == "vif_enhn_gain_limit") return ReadDouble(o, vif.enhn_gain_limit);
  if (o.name == "vif_skip_scale0") return ReadBool(o, vif.skip_scale0);
  if (o.name == "debug") return absl::OkStatus();
  return BadOption(o, "an option of libvmaf's integer vif");
}

absl::Status SetMotionOption(const VmafFeatureOption& o, MotionOptions& motion) {
  if (o.name == "motion_force_zero") return ReadBool(o, motion.force_zero);
  if (o.name == "motion_fps_weight") return ReadDouble(o, motion.fps_weight);
  if (o.name == "motion_max_val") return ReadDouble(o, motion.max_val);
  if (o.name == "motion_blend_factor") return ReadDouble(o, motion.blend_factor);
  if (o.name == "motion_blend_offset") return ReadDouble(o, motion.blend_offset);
  if (o.name == "motion_moving_average") return ReadBool(o, motion.moving_average);
  if (o.name == "motion_five_frame_window") {
    SSIMD_RETURN_IF_ERROR(ReadBool(o, motion.five_frame_window));
    if (motion.five_frame_window) {
      return absl::UnimplementedError(
          "the model sets motion_five_frame_window=true, which compares each frame with the one "
          "two back; ssimd's motion compares consecutive frames only");
    }
    return absl::OkStatus();
  }
  if (o.name == "debug") return absl::OkStatus();
  return BadOption(o, "an option of libvmaf's integer motion");
}

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

absl::StatusOr<VmafExtractorOptions> VmafExtractorOptionsOf(const VmafModel& model) {
  VmafExtractorOptions out;
  for (const VmafModelFeature& feature : model.features) {
    for (const VmafFeatureOption& option : feature.options) {
      absl::Status set = absl::OkStatus();
      if (feature.extractor == "adm") {
        set = SetAdmOption(option, out.adm);
      } else if (feature.extractor == "vif") {
        set = SetVifOption(option, out.vif);
      } else if (feature.extractor == "motion") {
        set = SetMotionOption(option, out.motion);
      } else {
        set = absl::InvalidArgumentError(absl::StrFormat(
            "feature %s has options, but ssimd does not compute it", feature.name));
      }
      if (!set.ok()) {
        return absl::Status(set.code(),
                            absl::StrFormat("model %s: %s", model.source, set.message()));
      }
    }
  }
  SSIMD_RETURN_IF_ERROR(ValidateAdmOptions(out.adm));
  SSIMD_RETURN_IF_ERROR(ValidateVifOptions(out.vif));
  SSIMD_RETURN_IF_ERROR(ValidateMotionOptions(out.motion));
  return out;
}

absl::Status CheckVmafSize(const Geometry& geometry) {
  const int min_side = std::max(kAdmMinSide, IntegerVifMinSide());
  if (geometry.width < min_side || geometry.height < min_side) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "vmaf needs pictures of at least %dx%d (libvmaf's adm and vif filters refuse smaller "
        "ones), got %dx%d",
        min_side, min_side, geometry.width, geometry.height));
  }
  return absl::OkStatus();
}

absl::Status AddVmafFrameScores(const VmafOptions& options, const LumaView& reference,
                                const LumaView& distorted, const LumaView* previous_reference,
                                ThreadPool& pool, FrameScores& scores) {
  if (options.resolved == nullptr) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "vmaf model %s was not resolved against the models this process loaded", options.model));
  }
  const VmafModel& model = *options.resolved;
  absl::StatusOr<VmafExtractorOptions> extractors = VmafExtractorOptionsOf(model);
  if (!extractors.ok()) return extractors.status();

  // The three extractors are independent: run them side by side.
  absl::StatusOr<AdmScores> adm = absl::UnknownError("adm not run");
  absl::StatusOr<VifScores> vif = absl::UnknownError("vif not run");
  absl::StatusOr<double> motion = 0.0;
  pool.ParallelFor(3, 1, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      if (task == 0) adm = ScoreIntegerAdm(reference, distorted, extractors->adm);
      if (task == 1) vif = ScoreIntegerVif(reference, distorted, extractors->vif);
      if (task == 2 && previous_reference != nullptr && !extractors->motion.force_zero) {
        absl::StatusOr<uint64_t> sum = MotionSadSum(*previous_reference, reference);
        motion = sum.ok() ? MotionSadScoreFromSum(extractors->motion, *sum, reference.width,
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
