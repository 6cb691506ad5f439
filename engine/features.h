// The features a client can ask for and their options, named and bounded as libvmaf's extractors.
// The options' names, types, defaults, ranges and help live in one table: engine/feature_table.h.
#ifndef SSIMD_ENGINE_FEATURES_H_
#define SSIMD_ENGINE_FEATURES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/picture.h"

namespace ssimd {

// libvmaf `float_ssim`: luma, binary32 planes, 11-tap Gaussian, optional decimation.
struct FloatSsimOptions {
  int scale = 0;  // 0 = automatic; 1..10 forced (libvmaf's option range)
  bool enable_db = false;
  bool clip_db = false;
  bool enable_lcs = false;  // also float_ssim_l, float_ssim_c, float_ssim_s
};

// The integer `ssim` extractor (9-tap integer window, int64 moments).
struct IntegerSsimOptions {
  bool enable_db = false;
  // Sum per-pixel terms in libvmaf's raster order at every size: libvmaf's number, bit for bit.
  // Off only at the user's request (option fast_sum=true): a GPU then sums pictures above 4096
  // pixels in block order, within a bound (docs/adr/0022, 0016).
  bool exact = true;
};

// libvmaf `psnr`: integer sums of squared errors per plane, dB capped as libvmaf caps them.
struct PsnrOptions {
  bool enable_chroma = true;      // psnr_cb and psnr_cr too (never for 4:0:0)
  bool enable_mse = false;        // also mse_y, mse_cb, mse_cr
  bool enable_apsnr = false;      // pool apsnr_* over the frames
  bool reduced_hbd_peak = false;  // peak 255 * 2^(b-8) instead of 2^b - 1
  double min_sse = 0.0;           // > 0: cap psnr where the error would be below this
};

// libvmaf `float_ms_ssim`: luma, binary32, five scales of SSIM on a 9/7 low-pass pyramid.
struct FloatMsSsimOptions {
  bool enable_db = false;
  bool clip_db = false;
  bool enable_lcs = false;  // also the per-scale float_ms_ssim_{l,c,s}_scale{0..4}
};

class VmafModel;  // engine/vmaf/model.h

// libvmaf's VMAF: a model (vmaf_v0.6.1 by default) over the integer adm, vif and motion features,
// predicted per frame. The model is named by the client and resolved by the server against the
// models it has loaded (engine/vmaf/model_registry.h); the backends read only `resolved`.
struct VmafOptions {
  std::string model = "vmaf_v0.6.1";
  bool enable_transform = false;  // apply the model's score transform, if it has one
  bool disable_clip = false;      // leave the score outside the model's clip range
  std::shared_ptr<const VmafModel> resolved;
};

struct FeatureSet {
  std::optional<FloatSsimOptions> float_ssim;
  std::optional<IntegerSsimOptions> ssim;
  std::optional<PsnrOptions> psnr;
  std::optional<FloatMsSsimOptions> float_ms_ssim;
  std::optional<VmafOptions> vmaf;
};

// OK, or INVALID_ARGUMENT naming the option and its accepted range.
absl::Status ValidateFeatureSet(const FeatureSet& features);

// True when a frame of `chroma` format scored with `features` needs its chroma planes: psnr with
// enable_chroma on a picture that has chroma.
bool FeaturesReadChroma(const FeatureSet& features, ChromaFormat chroma);

// True when a frame scored with `features` reads the previous frame's reference picture too:
// vmaf's motion compares consecutive reference pictures.
bool FeaturesReadPreviousReference(const FeatureSet& features);

// Frames a frame's result waits for after it is scored, in input order, before its temporal
// values are known: 1 with vmaf (motion2 of frame i takes the minimum with frame i + 1), else 0.
int TemporalLag(const FeatureSet& features);

// OK unless `features` ask for a value pooled over a clip's frames into its summary (psnr's
// enable_apsnr), which a call scoring one pair (ScorePair) has no summary for: INVALID_ARGUMENT
// saying to score a clip instead.
absl::Status CheckOnePairFeatures(const FeatureSet& features);

// Parses libvmaf CLI style feature arguments: "float_ssim", "float_ssim=scale=2:enable_db=true",
// "ssim=enable_db=1:fast_sum=true". Repeated features, unknown features or options, and bad values are
// INVALID_ARGUMENT with a message naming them.
absl::StatusOr<FeatureSet> ParseFeatureArgs(const std::vector<std::string>& args);

// The inverse of ParseFeatureArgs: one canonical argument per requested feature, every option
// spelled out under its current name (e.g.
// "float_ssim=scale=0:enable_db=false:clip_db=false:enable_lcs=false").
std::vector<std::string> FormatFeatureArgs(const FeatureSet& features);

// The metric names a frame of `chroma` format scored with `features` carries, in a fixed order:
// float_ssim, float_ssim_l, float_ssim_c, float_ssim_s (with enable_lcs), ssim, psnr_y, psnr_cb,
// psnr_cr (where FeaturesReadChroma), mse_* (with enable_mse), float_ms_ssim and its per-scale
// terms (with enable_lcs), vmaf and VmafFeatureNames. Pooled values (apsnr_*) are the summary's.
std::vector<std::string> MetricNames(const FeatureSet& features,
                                     ChromaFormat chroma = ChromaFormat::k420);

// float_ms_ssim's per-scale outputs with enable_lcs, in libvmaf's order:
// float_ms_ssim_l_scale0..4, then _c_, then _s_.
std::vector<std::string> FloatMsSsimLcsNames();

// vmaf's per-frame companions, libvmaf's JSON keys for a run with a model: the model's integer
// features (and those libvmaf reports beside them), after `vmaf` itself in MetricNames.
std::vector<std::string> VmafFeatureNames();
// motion's per-frame value, which libvmaf's JSON reports under its internal name.
inline constexpr const char kMotionSadScoreName[] = "VMAF_integer_feature_motion_sad_score";

// One frame's scores keyed by libvmaf's metric names: float_ssim, float_ssim_l, float_ssim_c,
// float_ssim_s, ssim. Values are exactly what libvmaf reports (dB where enable_db is set).
using FrameScores = std::map<std::string, double>;

// One frame's exact integer sums behind a clip's aggregate values (libvmaf's aggregate_metrics),
// keyed by name; every value adds over the frames of a clip. With psnr's enable_apsnr:
// psnr_sse_<plane> and psnr_pixels_<plane> for y, cb and cr (0 for a plane not scored), and
// psnr_peak (the frame's peak, so that a clip's total is its frame count times the peak).
using FrameSums = std::map<std::string, uint64_t>;

}  // namespace ssimd

#endif  // SSIMD_ENGINE_FEATURES_H_
