#include "tests/reference/psnr_replay.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"
#include "tests/reference/json.h"

namespace ssimd::testing {
namespace {

constexpr const char* kPsnrMetrics[] = {"psnr_y", "psnr_cb", "psnr_cr"};

}  // namespace

absl::StatusOr<std::map<std::string, ExpectedMetrics>> LoadExpectedMetrics(
    const std::string& directory) {
  const std::string path = directory + "/expected_metrics.json";
  auto json = ReadJsonFile(path);
  if (!json.ok()) return json.status();
  const auto pairs = json->find("pairs");
  if (pairs == json->end() || !pairs->is_array() || pairs->empty()) {
    return absl::InvalidArgumentError(path + " lists no pairs");
  }
  std::map<std::string, ExpectedMetrics> out;
  for (const nlohmann::json& p : *pairs) {
    if (!p.is_object() || !p.contains("id") || !p["id"].is_string()) {
      return absl::InvalidArgumentError(path + ": a pair has no id");
    }
    const std::string id = p["id"].get<std::string>();
    ExpectedMetrics entry;
    if (p.contains("refused") && p["refused"].is_object()) {
      for (auto it = p["refused"].begin(); it != p["refused"].end(); ++it) {
        entry.refused[it.key()] = it.value().is_string() ? it.value().get<std::string>() : "";
      }
    }
    if (p.contains("metrics") && p["metrics"].is_object()) {
      for (auto it = p["metrics"].begin(); it != p["metrics"].end(); ++it) {
        if (!it.value().is_array()) {
          return absl::InvalidArgumentError(
              absl::StrFormat("%s: pair %s %s is not a list", path, id, it.key()));
        }
        std::vector<double>& values = entry.metrics[it.key()];
        for (const nlohmann::json& v : it.value()) {
          auto value = ReadScoreValue(v);
          if (!value.ok()) {
            return absl::InvalidArgumentError(absl::StrFormat(
                "%s: pair %s %s: %s", path, id, it.key(), value.status().message()));
          }
          values.push_back(*value);
        }
      }
    }
    out[id] = std::move(entry);
  }
  return out;
}

absl::StatusOr<ToolFrames> ReadClipAsVmafTool(const std::string& path, const Geometry& geometry) {
  ToolFrames out;
  auto bytes = ReadXzFile(path);
  if (!bytes.ok()) return bytes.status();
  out.storage = std::move(*bytes);
  const size_t sample_bytes = static_cast<size_t>(BytesPerSample(geometry.bit_depth));
  PlaneSize sizes[3];
  size_t plane_bytes[3];
  size_t frame_bytes = 0;
  for (int p = 0; p < 3; ++p) {
    sizes[p] = PsnrPlaneSize(geometry, p);
    plane_bytes[p] =
        static_cast<size_t>(sizes[p].width) * static_cast<size_t>(sizes[p].height) * sample_bytes;
    frame_bytes += plane_bytes[p];
  }
  if (out.storage.empty() || out.storage.size() % frame_bytes != 0) {
    return absl::DataLossError(absl::StrFormat(
        "%s: %d bytes are not a whole number of %d-byte frames as the vmaf tool reads them", path,
        out.storage.size(), frame_bytes));
  }
  for (size_t offset = 0; offset < out.storage.size(); offset += frame_bytes) {
    PsnrPlanes planes;
    size_t at = offset;
    for (int p = 0; p < 3; ++p) {
      planes[p].width = sizes[p].width;
      planes[p].height = sizes[p].height;
      planes[p].bit_depth = geometry.bit_depth;
      planes[p].stride_bytes = static_cast<size_t>(sizes[p].width) * sample_bytes;
      planes[p].data = plane_bytes[p] > 0 ? out.storage.data() + at : nullptr;
      at += plane_bytes[p];
    }
    out.frames.push_back(planes);
  }
  return out;
}

absl::StatusOr<ToolPair> ReadPairAsVmafTool(const ReferencePair& pair) {
  ToolPair out;
  absl::StatusOr<ToolFrames> reference = ReadClipAsVmafTool(pair.reference_clip, pair.geometry);
  if (!reference.ok()) return reference.status();
  out.reference = std::move(*reference);
  if (pair.distorted_clip != pair.reference_clip) {
    absl::StatusOr<ToolFrames> distorted =
        ReadClipAsVmafTool(pair.distorted_clip, pair.geometry);
    if (!distorted.ok()) return distorted.status();
    out.distorted_clip = std::move(*distorted);
  }
  return out;
}

absl::StatusOr<ReplayReport> ReplayPsnrPair(const ReferencePair& pair,
                                            const ExpectedMetrics& expected) {
  if (expected.psnr_refused()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "pair %s: libvmaf refused psnr (%s)", pair.id, expected.refused.at("psnr")));
  }
  absl::StatusOr<ToolPair> clips = ReadPairAsVmafTool(pair);
  if (!clips.ok()) return clips.status();
  const ToolFrames* ref = &clips->reference;
  const ToolFrames* dist = &clips->distorted();
  const size_t frames = clips->frames();
  for (const char* metric : kPsnrMetrics) {
    const auto it = expected.metrics.find(metric);
    if (it == expected.metrics.end()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("pair %s: no %s although psnr was not refused", pair.id, metric));
    }
    if (it->second.size() != frames) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "pair %s: %d values of %s for the %d frames the vmaf tool reads", pair.id,
          it->second.size(), metric, frames));
    }
  }
  auto scorer = PsnrScorer::Create(pair.geometry, PsnrOptions{});
  if (!scorer.ok()) return scorer.status();
  ReplayReport report;
  for (size_t f = 0; f < frames; ++f) {
    auto scores = scorer->Score(ref->frames[f], dist->frames[f]);
    if (!scores.ok()) return scores.status();
    for (const char* metric : kPsnrMetrics) {
      const auto got = scores->find(metric);
      if (got == scores->end()) {
        return absl::InternalError(absl::StrFormat("pair %s: psnr gave no %s", pair.id, metric));
      }
      const double want = expected.metrics.at(metric)[f];
      ++report.compared;
      if (!SameBits(want, got->second)) {
        report.mismatches.push_back({"psnr", metric, static_cast<int>(f), want, got->second});
      }
    }
  }
  return report;
}

}  // namespace ssimd::testing
