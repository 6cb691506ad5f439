// libvmaf's integer `vif` feature on the CPU, bit for bit (libvmaf/src/feature/integer_vif.c at
// Netflix/vmaf f85a8536): a frame pair's integer_vif_scale0..3 (libvmaf's internal names
// VMAF_integer_feature_vif_scale0..3_score). The arithmetic is kernels/vmaf_vif_math.h; this file
// checks the planes, owns the padded buffers and walks the four scales.
//
// The buffers are laid out and padded as libvmaf's are: each scale's picture is written over the
// previous one in one padded plane and mirrored by row copies, and the rows of column moments are
// reused from row to row and scale to scale. At the smallest sizes accepted (8 to 15 samples on a
// side, where scale 3 is one sample wide or high) libvmaf's mirroring reads values a previous
// scale left in those buffers; reproducing the layout reproduces its values there too.
#ifndef SSIMD_ENGINE_CPU_VMAF_VIF_H_
#define SSIMD_ENGINE_CPU_VMAF_VIF_H_

#include <array>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/picture.h"
#include "engine/vmaf/extractor_options.h"
#include "kernels/vmaf_vif_math.h"

namespace ssimd {

// OK, or INVALID_ARGUMENT naming the option outside libvmaf's range.
absl::Status ValidateVifOptions(const VifOptions& options);

// integer_vif_scale0..3 of one frame pair, as libvmaf reports them (binary32 ratios widened).
struct VifScores {
  std::array<double, 4> scale{};
};

// Smallest side libvmaf's vif can score (8): below 8 rows it crashes, below 8 columns its
// scale 3 has no samples and every score there is 0/0.
int IntegerVifMinSide();

// The frame pair's scores. INVALID_ARGUMENT for invalid options, planes that differ in size or bit
// depth, a bit depth other than 8, 10, 12 or 16, missing data, a stride shorter than a row, or a
// side below IntegerVifMinSide(). Samples above the bit depth's peak are not refused; they are
// computed with libvmaf's integer widths, as libvmaf would.
absl::StatusOr<VifScores> ScoreIntegerVif(const LumaView& reference, const LumaView& distorted,
                                          const VifOptions& options);

// The exact integer sums of the frame pair's four scales (scale 0 left zero where skip_scale0 is
// set), which IntegerVifScoresFromSums turns into its scores. The same checks and errors as
// ScoreIntegerVif.
absl::StatusOr<VifFrameSums> IntegerVifSums(const LumaView& reference, const LumaView& distorted,
                                            const VifOptions& options);

// The host finish of every backend: a frame's scores from its sums (VifScaleScore of each scale,
// and 0 for scale 0 where skip_scale0 is set). The sums come from IntegerVifSums or a device.
VifScores IntegerVifScoresFromSums(const VifFrameSums& sums, const VifOptions& options);

// libvmaf's log2 table (kernels/vmaf_vif_math.h), built once, for backends that copy it to a
// device: 65536 entries, of which [32767, 65535] are used.
const std::array<uint16_t, 65536>& IntegerVifLog2Table();

}  // namespace ssimd

#endif  // SSIMD_ENGINE_CPU_VMAF_VIF_H_
