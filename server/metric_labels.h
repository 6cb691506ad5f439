// Turns what the engine and the service report into bounded Prometheus label values. Every label
// here takes one of a handful of values whatever clients send, so the number of series stays fixed;
// the free text (a fallback's full reason, a device name) belongs in the logs.
#ifndef SSIMD_SERVER_METRIC_LABELS_H_
#define SSIMD_SERVER_METRIC_LABELS_H_

#include <string>
#include <string_view>

#include "engine/features.h"

namespace ssimd {

// ScoreResult.backend split for labels: "cpu" -> {"cpu", ""}, "gpu:3" -> {"gpu", "3"}. Anything
// else is {"other", ""}.
struct BackendLabel {
  std::string backend;
  std::string device;
};
BackendLabel ParseBackendLabel(std::string_view backend);

// The requested feature set as one label value: the requested features' names joined with "+" in
// the feature table's order, e.g. "float_ssim", "float_ssim+ssim", "ssim+psnr" (empty set:
// "none"); at most 2^features - 1 values. One frame is one observation whatever it asks for, so
// sums over the label stay meaningful.
std::string FeatureSetLabel(const FeatureSet& features);

// A fallback's free-text reason reduced to a category: "gpu_unavailable" (no usable device, or a
// build without GPU support), "context_refused" (the device cannot serve this geometry/feature),
// "device_error" (the device failed while scoring), or "other".
std::string FallbackReasonLabel(std::string_view reason);

// A gRPC status code name ("OK", "INVALID_ARGUMENT", ...) checked against the 17 canonical ones;
// anything else is "UNKNOWN".
std::string StatusCodeLabel(std::string_view code);

// An RPC method name kept to [A-Za-z0-9_.] and 64 bytes; empty or anything else is "other".
std::string MethodLabel(std::string_view method);

// A codec name as FFmpeg spells it ("h264", "hevc", "rawvideo"): [a-z0-9_]{1,32}, else "other".
// FFmpeg's names are a fixed list, but a label should not trust that.
std::string CodecLabel(std::string_view codec);

}  // namespace ssimd

#endif  // SSIMD_SERVER_METRIC_LABELS_H_
