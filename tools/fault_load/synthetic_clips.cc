#include "tools/fault_load/synthetic_clips.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "engine/gpu/exact_sum.h"
#include "engine/synthetic_picture.h"

namespace ssimd::fault_load {
namespace {

// Distinct frame pairs per variant. Pair 0 is a picture against itself (SSIM exactly 1, +inf dB),
// the others add more and more noise, so every pair of a variant scores differently.
constexpr int kPairsPerVariant = 5;

struct VariantSpec {
  int width;
  int height;
  int bit_depth;
  v1::PixelFormat format;
  std::vector<std::string> feature_args;  // empty: typed float_ssim with enable_db and clip_db
};

absl::Span<const uint8_t> Bytes(const std::string& s) {
  return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

absl::StatusOr<ClipVariant> MakeVariant(const VariantSpec& spec, Scorer* cpu) {
  ClipVariant v;
  v.geometry.width = spec.width;
  v.geometry.height = spec.height;
  v.geometry.bit_depth = spec.bit_depth;
  v.geometry.chroma = spec.format == v1::PIXEL_FORMAT_422   ? ChromaFormat::k422
                      : spec.format == v1::PIXEL_FORMAT_444 ? ChromaFormat::k444
                      : spec.format == v1::PIXEL_FORMAT_400 ? ChromaFormat::k400
                                                            : ChromaFormat::k420;
  v1::Geometry* g = v.config.mutable_geometry();
  g->set_width(spec.width);
  g->set_height(spec.height);
  g->set_bit_depth(spec.bit_depth);
  g->set_pixel_format(spec.format);
  v.config.set_backend(v1::BACKEND_AUTO);
  std::string features_name;
  if (spec.feature_args.empty()) {
    // The typed fields, so both ways of asking for features are exercised.
    v1::FloatSsimOptions* f = v.config.mutable_features()->mutable_float_ssim();
    f->set_enable_db(true);
    f->set_clip_db(true);
    FloatSsimOptions options;
    options.enable_db = true;
    options.clip_db = true;
    v.features.float_ssim = options;
    features_name = "float_ssim(typed:enable_db,clip_db)";
  } else {
    for (const std::string& arg : spec.feature_args) {
      v.config.mutable_features()->add_feature_args(arg);
      absl::StrAppend(&features_name, features_name.empty() ? "" : "+", arg);
    }
    auto parsed = ParseFeatureArgs(spec.feature_args);
    if (!parsed.ok()) return parsed.status();
    v.features = *parsed;
  }
  v.name = absl::StrFormat("%dx%d-%dbit-%s", spec.width, spec.height, spec.bit_depth,
                           features_name);
  v.config.set_title_id(absl::StrCat("fault-load-", v.name));
  v.config.set_rung("synthetic");

  const uint32_t base_seed = static_cast<uint32_t>(spec.width * 7919 + spec.height * 104729 +
                                                   spec.bit_depth);
  for (int p = 0; p < kPairsPerVariant; ++p) {
    // Noise of up to p/50 of the range: pair p is a little further from its reference than p-1.
    const SyntheticPlane reference = TexturedPlane(v.geometry, base_seed + 31u * p);
    const int amplitude = p * static_cast<int>(PeakValue(spec.bit_depth)) / 50;
    FramePlanes planes;
    planes.reference = reference.ToString();
    planes.distorted = Distort(reference, base_seed + 31u * p + 1, amplitude).ToString();
    if (cpu != nullptr) {
      auto ref = MakeLumaView(v.geometry, Bytes(planes.reference), "reference");
      auto dis = MakeLumaView(v.geometry, Bytes(planes.distorted), "distorted");
      if (!ref.ok()) return ref.status();
      if (!dis.ok()) return dis.status();
      auto scored = cpu->Score(v.geometry, v.features, FramePair{*ref, *dis});
      if (!scored.ok()) {
        return absl::Status(scored.status().code(),
                            absl::StrCat(v.name, ": expected scores: ", scored.status().message()));
      }
      v.expected.push_back(scored->scores);
    }
    v.pairs.push_back(std::move(planes));
  }
  return v;
}

std::vector<VariantSpec> Specs(bool large) {
  std::vector<VariantSpec> specs = {
      {64, 36, 8, v1::PIXEL_FORMAT_420, {"float_ssim"}},
      {160, 90, 8, v1::PIXEL_FORMAT_420, {"float_ssim=enable_lcs=true", "ssim=fast_sum=true"}},
      {96, 54, 10, v1::PIXEL_FORMAT_422, {"float_ssim=scale=2:enable_db=true", "ssim=enable_db=true"}},
      {33, 17, 16, v1::PIXEL_FORMAT_444, {}},
      {320, 180, 8, v1::PIXEL_FORMAT_420, {"ssim=exact=true"}},
      {1, 1, 8, v1::PIXEL_FORMAT_400, {"float_ssim", "ssim"}},
  };
  if (large) {
    specs.push_back({1280, 720, 10, v1::PIXEL_FORMAT_420, {"float_ssim", "ssim"}});
    specs.push_back({1920, 1080, 8, v1::PIXEL_FORMAT_420, {"float_ssim=enable_lcs=true", "ssim"}});
  }
  return specs;
}

}  // namespace

size_t ClipVariantCount(bool large) { return Specs(large).size(); }

absl::StatusOr<ClipVariant> MakeClipVariant(size_t index, bool large, Scorer* cpu) {
  const std::vector<VariantSpec> specs = Specs(large);
  if (index >= specs.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("clip variant %d does not exist (there are %d)", index, specs.size()));
  }
  return MakeVariant(specs[index], cpu);
}

absl::StatusOr<std::vector<ClipVariant>> MakeClipVariants(bool large, Scorer* cpu) {
  std::vector<ClipVariant> out;
  for (size_t i = 0; i < ClipVariantCount(large); ++i) {
    auto variant = MakeClipVariant(i, large, cpu);
    if (!variant.ok()) return variant.status();
    out.push_back(*std::move(variant));
  }
  return out;
}

namespace {

double ToDb(double linear) { return linear >= 1 ? HUGE_VAL : -10 * std::log10(1 - linear); }

// Whether `got` is within the GPU block-sum bound of the CPU's `want` (linear or dB).
bool WithinBlockSumBound(const ClipVariant& variant, double want, double got) {
  const double bound =
      IntegerSsimBlockSumBound(variant.geometry.width, variant.geometry.height);
  const bool db = variant.features.ssim->enable_db;
  // Back to the linear score, with a little room for the rounding of that step itself.
  const double linear = db ? (std::isinf(want) ? 1.0 : 1 - std::pow(10, -want / 10)) : want;
  const double slack = 8 * std::numeric_limits<double>::epsilon();
  const double low = linear - bound - slack;
  const double high = linear + bound + slack;
  if (!db) return got >= low && got <= high;
  return got >= ToDb(low) * (1 - slack) && got <= ToDb(high) * (1 + slack);
}

bool MayUseBlockSums(const ClipVariant& variant, const v1::FrameResult& got) {
  return absl::StartsWith(got.backend(), "gpu") && variant.features.ssim.has_value() &&
         !variant.features.ssim->exact &&
         static_cast<int64_t>(variant.geometry.width) * variant.geometry.height >
             kOrderedSsimMaxPixels;
}

}  // namespace

bool SameScores(const ClipVariant& variant, const FrameScores& expected, const v1::FrameResult& got,
                std::string* why) {
  const auto& scores = got.scores();
  if (expected.size() != static_cast<size_t>(scores.size())) {
    *why = absl::StrFormat("%d metrics, expected %d", scores.size(), expected.size());
    return false;
  }
  for (const auto& [metric, want] : expected) {
    auto it = scores.find(metric);
    if (it == scores.end()) {
      *why = absl::StrCat("metric ", metric, " is missing");
      return false;
    }
    uint64_t want_bits = 0;
    uint64_t got_bits = 0;
    std::memcpy(&want_bits, &want, sizeof want);
    std::memcpy(&got_bits, &it->second, sizeof got_bits);
    const bool both_nan = std::isnan(want) && std::isnan(it->second);
    if (want_bits == got_bits || both_nan) continue;
    if (metric == "ssim" && MayUseBlockSums(variant, got) &&
        WithinBlockSumBound(variant, want, it->second)) {
      continue;
    }
    *why = absl::StrFormat("%s is %.17g, expected %.17g (%s)", metric, it->second, want,
                           got.backend());
    return false;
  }
  return true;
}

}  // namespace ssimd::fault_load
