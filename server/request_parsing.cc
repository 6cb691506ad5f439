#include "server/request_parsing.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/client_text.h"
#include "base/prefixed_status.h"
#include "base/status_macros.h"
#include "engine/feature_table.h"
#include "proto/pixel_format.h"

namespace ssimd {
namespace {

// Labels end up in logs and metrics; bounds keep one request from flooding either.
constexpr size_t kMaxLabels = 32;
constexpr size_t kMaxLabelBytes = 256;
constexpr size_t kMaxPercentiles = 32;

absl::Status Invalid(absl::string_view field, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", message));
}

// An option of the one feature table (engine/feature_table.h); the names are this file's own.
const OptionDescription& TableOption(absl::string_view feature, absl::string_view option) {
  for (const OptionDescription& o : FindFeature(feature)->options) {
    if (o.name == option) return o;
  }
  std::abort();  // a name this file spells wrongly: a programming error, caught by its tests
}

absl::Status CheckLabel(absl::string_view field, const std::string& value) {
  if (value.size() > kMaxLabelBytes) {
    return Invalid(field, absl::StrFormat("at most %d bytes, got %d", kMaxLabelBytes,
                                          value.size()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WithField(const absl::Status& status, absl::string_view field) {
  // Payloads (a decoder error's kind) stay with the status.
  return PrefixedStatus(status, absl::StrCat(field, ": "));
}

absl::StatusOr<Geometry> ParseGeometry(const v1::Geometry& geometry, absl::string_view field) {
  Geometry out;
  // Checked here as unsigned so that values above INT_MAX are not wrapped into valid ones.
  if (geometry.width() < 1 || geometry.width() > static_cast<uint32_t>(kMaxDimension)) {
    return Invalid(field, absl::StrFormat("width: expected 1 to %d pixels, got %d", kMaxDimension,
                                          geometry.width()));
  }
  if (geometry.height() < 1 || geometry.height() > static_cast<uint32_t>(kMaxDimension)) {
    return Invalid(field, absl::StrFormat("height: expected 1 to %d pixels, got %d",
                                          kMaxDimension, geometry.height()));
  }
  const uint32_t depth = geometry.bit_depth();
  if (depth != 8 && depth != 10 && depth != 12 && depth != 16) {
    return Invalid(field, absl::StrFormat("bit_depth: expected 8, 10, 12 or 16, got %d", depth));
  }
  out.width = static_cast<int>(geometry.width());
  out.height = static_cast<int>(geometry.height());
  out.bit_depth = static_cast<int>(depth);
  const std::optional<ChromaFormat> chroma = PixelFormatFromProto(geometry.pixel_format());
  if (!chroma.has_value()) {
    return Invalid(field, absl::StrFormat("pixel_format: expected PIXEL_FORMAT_420, _422, _444 "
                                          "or _400, got enum value %d",
                                          static_cast<int>(geometry.pixel_format())));
  }
  out.chroma = *chroma;
  // Sizes within each side's range can still make too many pixels.
  SSIMD_RETURN_IF_ERROR(WithField(ValidateGeometry(out), field));
  return out;
}

absl::StatusOr<FeatureSet> ParseFeatures(const v1::Features& features, absl::string_view field,
                                         const VmafModelRegistry& models) {
  FeatureSet out;
  if (features.feature_args_size() > 0) {
    std::vector<std::string> args(features.feature_args().begin(), features.feature_args().end());
    auto parsed = ParseFeatureArgs(args);
    if (!parsed.ok()) return WithField(parsed.status(), absl::StrCat(field, ".feature_args"));
    out = *parsed;
  }
  if (features.has_float_ssim()) {
    if (out.float_ssim.has_value()) {
      return Invalid(field, "float_ssim is requested both in float_ssim and in feature_args; "
                            "request it once");
    }
    const v1::FloatSsimOptions& o = features.float_ssim();
    // Checked here as unsigned, before the conversion to int, against the table's range.
    const OptionDescription& scale = TableOption("float_ssim", "scale");
    if (o.scale() > static_cast<uint32_t>(scale.max_value)) {
      return Invalid(field, absl::StrFormat("float_ssim.scale: expected %s (automatic) to %s, "
                                            "got %d",
                                            OptionValueText(scale, scale.min_value),
                                            OptionValueText(scale, scale.max_value), o.scale()));
    }
    FloatSsimOptions options;
    options.scale = static_cast<int>(o.scale());
    options.enable_db = o.enable_db();
    options.clip_db = o.clip_db();
    options.enable_lcs = o.enable_lcs();
    out.float_ssim = options;
  }
  if (features.has_ssim()) {
    if (out.ssim.has_value()) {
      return Invalid(field, "ssim is requested both in ssim and in feature_args; request it once");
    }
    const v1::IntegerSsimOptions& o = features.ssim();
    if (o.exact() && o.fast_sum()) {
      return Invalid(field, "ssim.exact (deprecated) and ssim.fast_sum contradict each other; "
                            "set fast_sum only");
    }
    IntegerSsimOptions options;
    options.enable_db = o.enable_db();
    options.exact = !o.fast_sum();  // raster order unless block order is asked for
    out.ssim = options;
  }
  const bool any = std::any_of(FeatureTable().begin(), FeatureTable().end(),
                               [&](const FeatureDescription& f) { return f.requested(out); });
  if (!any) {
    return Invalid(field, "no feature requested: set float_ssim, ssim, or feature_args "
                          "(e.g. \"float_ssim\")");
  }
  SSIMD_RETURN_IF_ERROR(WithField(ValidateFeatureSet(out), field));
  SSIMD_RETURN_IF_ERROR(WithField(models.Resolve(out), field));
  return out;
}

absl::StatusOr<BackendPreference> ParseBackend(int backend, BackendPreference policy,
                                               absl::string_view field) {
  BackendPreference asked;
  switch (backend) {
    case v1::BACKEND_AUTO:
      asked = BackendPreference::kAuto;
      break;
    case v1::BACKEND_GPU:
      asked = BackendPreference::kGpu;
      break;
    case v1::BACKEND_CPU:
      asked = BackendPreference::kCpu;
      break;
    default:
      return Invalid(field, absl::StrFormat("expected BACKEND_AUTO, BACKEND_GPU or BACKEND_CPU, "
                                            "got enum value %d",
                                            backend));
  }
  if (policy == BackendPreference::kCpu) {
    if (asked == BackendPreference::kGpu) {
      return absl::FailedPreconditionError(absl::StrCat(
          field, ": BACKEND_GPU was asked for, but this server runs with --backend=cpu; ask for "
                 "BACKEND_AUTO or BACKEND_CPU"));
    }
    return BackendPreference::kCpu;
  }
  if (policy == BackendPreference::kGpu && asked == BackendPreference::kAuto) {
    return BackendPreference::kGpu;
  }
  return asked;
}

absl::StatusOr<ClipSettings> ParseClipOptions(const v1::ClipConfig& config,
                                              const ServiceOptions& options,
                                              absl::string_view field) {
  ClipSettings out;
  if (!config.has_features()) {
    return Invalid(absl::StrCat(field, ".features"),
                   "missing: request at least one feature, e.g. float_ssim");
  }
  auto features =
      ParseFeatures(config.features(), absl::StrCat(field, ".features"), *options.vmaf_models);
  if (!features.ok()) return features.status();
  out.features = *features;
  auto backend =
      ParseBackend(config.backend(), options.backend_policy, absl::StrCat(field, ".backend"));
  if (!backend.ok()) return backend.status();
  out.backend = *backend;

  SSIMD_RETURN_IF_ERROR(CheckLabel(absl::StrCat(field, ".title_id"), config.title_id()));
  SSIMD_RETURN_IF_ERROR(CheckLabel(absl::StrCat(field, ".rung"), config.rung()));
  if (config.labels_size() > static_cast<int>(kMaxLabels)) {
    return Invalid(absl::StrCat(field, ".labels"),
                   absl::StrFormat("at most %d entries, got %d", kMaxLabels, config.labels_size()));
  }
  for (const auto& [key, value] : config.labels()) {
    const std::string label_field = absl::StrCat(field, ".labels[", QuoteClientText(key), "]");
    if (key.empty()) return Invalid(absl::StrCat(field, ".labels"), "keys must not be empty");
    SSIMD_RETURN_IF_ERROR(CheckLabel(label_field, key));
    SSIMD_RETURN_IF_ERROR(CheckLabel(label_field, value));
    out.labels.emplace(key, value);
  }
  out.title_id = config.title_id();
  out.rung = config.rung();

  if (config.percentiles_size() > static_cast<int>(kMaxPercentiles)) {
    return Invalid(absl::StrCat(field, ".percentiles"),
                   absl::StrFormat("at most %d values, got %d", kMaxPercentiles,
                                   config.percentiles_size()));
  }
  for (int i = 0; i < config.percentiles_size(); ++i) {
    const double p = config.percentiles(i);
    if (!(p >= 0.0 && p <= 100.0)) {
      return Invalid(absl::StrFormat("%s.percentiles[%d]", field, i),
                     absl::StrCat("expected 0 to 100, got ", ShortestDecimal(p)));
    }
    out.percentiles.push_back(p);
  }
  if (out.percentiles.empty()) out.percentiles = options.default_percentiles;
  return out;
}

absl::Status CheckFitsMessage(const Geometry& geometry, int64_t max_message_bytes,
                              absl::string_view field) {
  // Two planes plus a generous allowance for the index, tags and length prefixes.
  const int64_t needed = 2 * static_cast<int64_t>(LumaBytes(geometry)) + 64;
  if (needed > max_message_bytes) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "%s: a %dx%d %d-bit frame pair needs %d bytes per message, over this server's limit of %d "
        "bytes (--max_message_bytes)",
        field, geometry.width, geometry.height, geometry.bit_depth, needed, max_message_bytes));
  }
  return absl::OkStatus();
}

absl::Status CheckPlaneSize(const Geometry& geometry, size_t bytes, absl::string_view field) {
  const size_t expected = LumaBytes(geometry);
  if (bytes == expected) return absl::OkStatus();
  return Invalid(field, absl::StrFormat(
                            "expected %d bytes (a %dx%d luma plane, %d byte%s per sample, no "
                            "padding), got %d",
                            expected, geometry.width, geometry.height,
                            BytesPerSample(geometry.bit_depth),
                            BytesPerSample(geometry.bit_depth) == 1 ? "" : "s little-endian",
                            bytes));
}

absl::Status MessageTooLarge(absl::string_view message, size_t bytes, int64_t max_message_bytes) {
  return absl::ResourceExhaustedError(absl::StrFormat(
      "%s of %d bytes is larger than this server's --max_message_bytes=%d; send smaller frames, "
      "or ask the operator to raise the limit",
      message, bytes, max_message_bytes));
}

int TransportReceiveLimit(int64_t max_message_bytes) {
  constexpr int64_t kGrpcMax = (int64_t{1} << 31) - 1;
  return static_cast<int>(std::min(kGrpcMax, 2 * max_message_bytes));
}

}  // namespace ssimd
