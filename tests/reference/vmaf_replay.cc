#include "tests/reference/vmaf_replay.h"

#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "engine/vmaf/temporal_finish.h"

namespace ssimd::testing {
namespace {

bool IsVmafValue(const std::string& metric) {
  return metric == "vmaf" || absl::StartsWith(metric, "integer_") ||
         metric == kMotionSadScoreName;
}

}  // namespace

std::shared_ptr<const VmafModel> ReferenceVmafModel() {
  const char* dir = std::getenv("SSIMD_VMAF_MODEL_DIR");
  if (dir == nullptr || *dir == '\0') return nullptr;
  absl::StatusOr<VmafModel> model = LoadVmafModelFile(std::string(dir) + "/vmaf_v0.6.1.json");
  if (!model.ok()) return nullptr;
  return std::make_shared<const VmafModel>(*std::move(model));
}

std::string VmafModelAbsent() {
  return "vmaf itself is not compared: set $SSIMD_VMAF_MODEL_DIR to a directory with libvmaf's "
         "vmaf_v0.6.1.json (libvmaf's model files are not part of this repository)";
}

absl::StatusOr<VmafReplay> ReplayVmafPair(const ReferencePair& pair,
                                          const ExpectedMetrics& expected,
                                          std::shared_ptr<const VmafModel> model,
                                          bool model_is_libvmafs, Scorer& scorer) {
  VmafReplay out;
  std::vector<std::string> metrics;
  for (const auto& [metric, values] : expected.metrics) {
    if (!IsVmafValue(metric)) continue;
    if (metric == "vmaf" && !model_is_libvmafs) continue;
    metrics.push_back(metric);
  }
  FeatureSet features;
  features.vmaf = VmafOptions{};
  features.vmaf->resolved = std::move(model);
  const bool libvmaf_refused = expected.refused.count("psnr+vmaf") != 0 &&
                               expected.refused.count("psnr") == 0;
  if (libvmaf_refused) {
    // libvmaf gave psnr but not vmaf: the size is below vmaf's filters.
    absl::Status refused = scorer.CheckContext(pair.geometry, features);
    if (refused.ok()) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "pair %s: libvmaf refused vmaf, but the scorer accepts %dx%d", pair.id,
          pair.geometry.width, pair.geometry.height));
    }
    out.refused = true;
    out.note = std::string(refused.message());
    return out;
  }
  if (metrics.empty()) return out;

  absl::StatusOr<ToolPair> clips = ReadPairAsVmafTool(pair);
  if (!clips.ok()) return clips.status();
  const ToolFrames& ref = clips->reference;
  const ToolFrames& dist = clips->distorted();
  const size_t frames = clips->frames();
  std::vector<FrameScores> scored;
  TemporalFinish finish(features);
  for (size_t f = 0; f < frames; ++f) {
    FramePair frame{ref.frames[f][0], dist.frames[f][0]};
    if (f > 0) frame.previous_reference = &ref.frames[f - 1][0];
    absl::StatusOr<ScoreResult> result = scorer.Score(pair.geometry, features, frame);
    if (!result.ok()) {
      return absl::Status(result.status().code(), absl::StrFormat("pair %s frame %d: %s", pair.id,
                                                                  f, result.status().message()));
    }
    absl::Status added = finish.Add(result->scores);
    if (!added.ok()) return added;
    scored.push_back(std::move(result->scores));
  }
  finish.EndOfInput();
  for (size_t f = 0; f < frames; ++f) {
    absl::StatusOr<FrameScores> completed = finish.Complete(f, scored[f]);
    if (!completed.ok()) return completed.status();
    for (const std::string& metric : metrics) {
      const std::vector<double>& want = expected.metrics.at(metric);
      if (want.size() != frames) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "pair %s: %d values of %s for %d frames", pair.id, want.size(), metric, frames));
      }
      const auto got = scored[f].find(metric);
      if (got == scored[f].end()) {
        return absl::InternalError(
            absl::StrFormat("pair %s frame %d: no %s was scored", pair.id, f, metric));
      }
      ++out.report.compared;
      if (!SameBits(want[f], got->second)) {
        out.report.mismatches.push_back(
            {"vmaf", metric, static_cast<int>(f), want[f], got->second});
      }
    }
  }
  return out;
}

}  // namespace ssimd::testing
