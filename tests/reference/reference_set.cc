#include "tests/reference/reference_set.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "base/status_macros.h"
#include "tests/reference/json.h"

namespace ssimd::testing {
namespace {

// The member `key` of `object`, or null when it is absent (or `object` is not an object).
const nlohmann::json& Member(const nlohmann::json& object, const char* key) {
  static const nlohmann::json kAbsent;
  if (!object.is_object()) return kAbsent;
  const auto it = object.find(key);
  return it == object.end() ? kAbsent : *it;
}

std::string Text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : std::string();
}

double Number(const nlohmann::json& value) {
  return value.is_number() ? value.get<double>() : 0;
}

absl::StatusOr<std::vector<double>> ScoreList(const nlohmann::json& list) {
  std::vector<double> out;
  if (!list.is_array()) return absl::InvalidArgumentError("a score list is not an array");
  for (const nlohmann::json& v : list) {
    auto value = ReadScoreValue(v);
    if (!value.ok()) return value.status();
    out.push_back(*value);
  }
  return out;
}

absl::StatusOr<Geometry> PairGeometry(const nlohmann::json& pair) {
  Geometry g;
  g.width = static_cast<int>(Number(Member(pair, "width")));
  g.height = static_cast<int>(Number(Member(pair, "height")));
  g.bit_depth = static_cast<int>(Number(Member(pair, "bitdepth")));
  const std::string format = Text(Member(pair, "pix_fmt"));
  if (format.rfind("yuv420p", 0) == 0) {
    g.chroma = ChromaFormat::k420;
  } else if (format.rfind("yuv422p", 0) == 0) {
    g.chroma = ChromaFormat::k422;
  } else if (format.rfind("yuv444p", 0) == 0) {
    g.chroma = ChromaFormat::k444;
  } else if (format.rfind("gray", 0) == 0) {
    g.chroma = ChromaFormat::k400;
  } else {
    return absl::InvalidArgumentError(absl::StrFormat("unknown pix_fmt %s", format));
  }
  SSIMD_RETURN_IF_ERROR(ValidateGeometry(g));
  return g;
}

}  // namespace

absl::StatusOr<ReferenceSet> LoadReferenceSet(const std::string& directory) {
  auto json = ReadJsonFile(directory + "/expected_scores.json");
  if (!json.ok()) return json.status();
  ReferenceSet set;
  set.directory = directory;
  const nlohmann::json& configs = Member(*json, "configs");
  for (auto config = configs.begin(); configs.is_object() && config != configs.end(); ++config) {
    set.feature_args[config.key()] = Text(Member(config.value(), "feature_arg"));
  }
  const nlohmann::json& pairs = Member(*json, "pairs");
  if (!pairs.is_array() || pairs.empty()) {
    return absl::InvalidArgumentError(directory + "/expected_scores.json lists no pairs");
  }
  for (const nlohmann::json& p : pairs) {
    ReferencePair pair;
    pair.id = Text(Member(p, "id"));
    pair.reference_clip = directory + "/clips/" + Text(Member(p, "ref")) + ".xz";
    pair.distorted_clip = directory + "/clips/" + Text(Member(p, "dist")) + ".xz";
    auto geometry = PairGeometry(p);
    if (!geometry.ok()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("pair %s: %s", pair.id, geometry.status().message()));
    }
    pair.geometry = *geometry;
    pair.frames = static_cast<int>(Number(Member(p, "frames")));
    pair.float_ssim_defined = Member(p, "float_ssim_defined") == true;
    const nlohmann::json& scores = Member(p, "scores");
    for (auto config = scores.begin(); scores.is_object() && config != scores.end(); ++config) {
      const nlohmann::json& metrics = config.value();
      for (auto metric = metrics.begin(); metrics.is_object() && metric != metrics.end();
           ++metric) {
        const nlohmann::json& values = metric.value();
        auto list = ScoreList(values);
        if (!list.ok()) return list.status();
        if (static_cast<int>(list->size()) != pair.frames) {
          return absl::InvalidArgumentError(absl::StrFormat(
              "pair %s %s/%s has %d values for %d frames", pair.id, config.key(), metric.key(),
              list->size(), pair.frames));
        }
        pair.scores[config.key()][metric.key()] = *list;
      }
    }
    const nlohmann::json& upstream =
        Member(Member(p, "float_ssim_undefined"), "upstream_libvmaf_float_ssim");
    if (!upstream.is_null()) {
      auto list = ScoreList(upstream);
      if (!list.ok()) return list.status();
      pair.upstream_float_ssim = *list;
    }
    set.pairs.push_back(std::move(pair));
  }
  if (set.pairs.empty()) {
    return absl::InvalidArgumentError(directory + "/expected_scores.json lists no pairs");
  }
  return set;
}

absl::StatusOr<std::vector<uint8_t>> ReadXzFile(const std::string& path) {
  // The path comes from our own data files; quote it for the shell anyway.
  if (path.find('\'') != std::string::npos) {
    return absl::InvalidArgumentError("clip path contains a quote: " + path);
  }
  FILE* pipe = popen(("xz -dc -- '" + path + "'").c_str(), "r");
  if (pipe == nullptr) return absl::InternalError("cannot run xz for " + path);
  std::vector<uint8_t> bytes;
  uint8_t buffer[1 << 16];
  size_t got;
  while ((got = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
    bytes.insert(bytes.end(), buffer, buffer + got);
  }
  const int rc = pclose(pipe);
  if (rc != 0) {
    return absl::DataLossError(absl::StrFormat(
        "%s: xz exit status %d; is xz installed and the file complete?", path, rc));
  }
  return bytes;
}

absl::StatusOr<std::vector<std::vector<uint8_t>>> ReadClipLuma(const std::string& path,
                                                               const Geometry& geometry,
                                                               int frames) {
  absl::StatusOr<std::vector<uint8_t>> bytes = ReadXzFile(path);
  if (!bytes.ok()) return bytes.status();
  const size_t frame_bytes = FrameBytes(geometry);
  const size_t luma_bytes = LumaBytes(geometry);
  if (frames < 0 || bytes->size() != frame_bytes * static_cast<size_t>(frames)) {
    return absl::DataLossError(absl::StrFormat(
        "%s: %d bytes are not %d frames of %d bytes; is the file complete?", path,
        bytes->size(), frames, frame_bytes));
  }
  std::vector<std::vector<uint8_t>> out;
  for (int i = 0; i < frames; ++i) {
    const auto frame = bytes->begin() + static_cast<std::ptrdiff_t>(frame_bytes * i);
    out.emplace_back(frame, frame + static_cast<std::ptrdiff_t>(luma_bytes));
  }
  return out;
}

bool SameBits(double expected, double actual) {
  if (std::isnan(expected)) return std::isnan(actual);
  return std::memcmp(&expected, &actual, sizeof(double)) == 0;
}

std::string Mismatch::ToString() const {
  return absl::StrFormat("%s %s frame %d: expected %.17g (%a), got %.17g (%a)", config, metric,
                         frame, expected, expected, actual, actual);
}

absl::StatusOr<ReplayReport> ReplayPair(const ReferenceSet& set, const ReferencePair& pair,
                                        Scorer& scorer) {
  auto ref = ReadClipLuma(pair.reference_clip, pair.geometry, pair.frames);
  if (!ref.ok()) return ref.status();
  std::vector<std::vector<uint8_t>> dist_storage;
  const std::vector<std::vector<uint8_t>>* dist = &*ref;
  if (pair.distorted_clip != pair.reference_clip) {
    auto read = ReadClipLuma(pair.distorted_clip, pair.geometry, pair.frames);
    if (!read.ok()) return read.status();
    dist_storage = std::move(*read);
    dist = &dist_storage;
  }

  // Option sets to run: every one the pair lists, plus upstream's value where undefined.
  std::map<std::string, ConfigScores> expected = pair.scores;
  if (!pair.upstream_float_ssim.empty() && expected.count("float_ssim") == 0) {
    expected["float_ssim"]["float_ssim"] = pair.upstream_float_ssim;
  }

  ReplayReport report;
  for (const auto& [config, metrics] : expected) {
    const auto arg = set.feature_args.find(config);
    if (arg == set.feature_args.end()) {
      return absl::InvalidArgumentError(absl::StrFormat("pair %s: unknown config %s", pair.id, config));
    }
    auto features = ParseFeatureArgs({arg->second});
    if (!features.ok()) return features.status();
    for (int f = 0; f < pair.frames; ++f) {
      FramePair frames;
      auto ref_view = MakeLumaView(pair.geometry, (*ref)[f], "reference");
      auto dist_view = MakeLumaView(pair.geometry, (*dist)[f], "distorted");
      if (!ref_view.ok()) return ref_view.status();
      if (!dist_view.ok()) return dist_view.status();
      frames.reference = *ref_view;
      frames.distorted = *dist_view;
      auto result = scorer.Score(pair.geometry, *features, frames);
      if (!result.ok()) return result.status();
      for (const auto& [metric, values] : metrics) {
        const auto it = result->scores.find(metric);
        if (it == result->scores.end()) {
          return absl::InternalError(absl::StrFormat("pair %s %s: scorer gave no %s", pair.id,
                                                     config, metric));
        }
        ++report.compared;
        if (!SameBits(values[f], it->second)) {
          report.mismatches.push_back({config, metric, f, values[f], it->second});
        }
      }
    }
  }
  return report;
}

}  // namespace ssimd::testing
