// libvmaf's integer `adm` feature on the CPU, bit for bit (libvmaf/src/feature/integer_adm.c at
// Netflix/vmaf f85a8536): integer_adm2, integer_adm_scale0..3, integer_adm3 and integer_aim of one
// frame pair. The arithmetic is kernels/vmaf_adm_math.h; this file checks the inputs, walks the
// planes through the four scales and owns the buffers. A frame is scored in two parts: its exact
// integer sums (IntegerAdmSums here, or the device's kernels/vmaf_adm_kernels.h), and the host
// finish that turns them into values (FinishIntegerAdm), which both paths share.
#ifndef SSIMD_ENGINE_CPU_VMAF_ADM_H_
#define SSIMD_ENGINE_CPU_VMAF_ADM_H_

#include <array>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/picture.h"
#include "engine/vmaf/extractor_options.h"
#include "kernels/vmaf_adm_math.h"

namespace ssimd {

// kAdmMinSide (kernels/vmaf_adm_math.h): the smallest side accepted.

// libvmaf's JSON keys: integer_adm2, integer_adm_scale0..3, integer_adm3, integer_aim.
struct AdmScores {
  double adm2 = 0;
  std::array<double, 4> scale{};
  double adm3 = 0;
  double aim = 0;
};

// OK, or INVALID_ARGUMENT naming the option and its accepted range. Besides libvmaf's ranges:
// the viewing set-up libvmaf's extractor refuses (nvd * rdh < 3240), and the blend modes (2, 3)
// for a set-up libvmaf has no table for (it then computes with an error code as the CSF factor).
absl::Status ValidateAdmOptions(const AdmOptions& options);

// The adm values of one frame pair. INVALID_ARGUMENT for invalid options, pictures of different
// sizes or bit depths, a bit depth other than 8, 10, 12 or 16, or a side below kAdmMinSide (33),
// where libvmaf reads outside its buffers or crashes.
//
// Where the reference is flat and adm_noise_weight is 0, adm2's denominator is 0: libvmaf then
// reports adm2 1 and each scale 0/0 (NaN), and leaves aim unset (its tool printed a stack
// leftover of about 1e-309, and adm3 1); aim is 0 here, which gives the same adm3.
//
// Values follow libvmaf's C code. Its x86 SIMD versions (what its tool runs by default) agree
// with it for the default options and those the shipped models use; they differ under a
// non-integer adm_enhn_gain_limit (they round the gain-limited value where the C code truncates)
// and, with AVX-512, under Barten's CSF (adm_csf_mode 1) at scale 3.
absl::StatusOr<AdmScores> ScoreIntegerAdm(const LumaView& reference, const LumaView& distorted,
                                          const AdmOptions& options = AdmOptions{});

// The options that change the integer sums, as the device's launch takes them.
AdmSumOptions AdmSumOptionsOf(const AdmOptions& options);

// The integer sums of one frame pair; refuses what ScoreIntegerAdm refuses.
absl::StatusOr<AdmSums> IntegerAdmSums(const LumaView& reference, const LumaView& distorted,
                                       const AdmOptions& options = AdmOptions{});

// The values of a width x height frame from its sums, whichever path made them (ScoreIntegerAdm
// is IntegerAdmSums then this). INVALID_ARGUMENT for invalid options.
absl::StatusOr<AdmScores> FinishIntegerAdm(const AdmSums& sums, int width, int height,
                                           const AdmOptions& options = AdmOptions{});

}  // namespace ssimd

#endif  // SSIMD_ENGINE_CPU_VMAF_ADM_H_
