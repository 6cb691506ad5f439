#include "tests/reference/ms_ssim_replay.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"
#include "engine/cpu/ms_ssim.h"

namespace ssimd::testing {
namespace {

constexpr char kMetric[] = "float_ms_ssim";
constexpr char kUnreadable[] = "Error reading YUV frame data.";

// True when the tool gave up on the pair's files, whatever features it was asked for: even the
// last fallback (psnr alone) failed reading them.
bool ToolCouldNotRead(const ExpectedMetrics& expected) {
  const auto it = expected.refused.find("psnr");
  return it != expected.refused.end() && it->second == kUnreadable;
}

}  // namespace

absl::StatusOr<MsSsimReplay> ReplayMsSsimPair(const ReferencePair& pair,
                                              const ExpectedMetrics& expected) {
  const Geometry& g = pair.geometry;
  const absl::Status size = CheckFloatMsSsimSize(g.width, g.height);
  const auto values = expected.metrics.find(kMetric);
  MsSsimReplay out;
  if (values == expected.metrics.end()) {
    if (!size.ok()) {
      out.outcome = MsSsimReplay::Outcome::kRefusedForSize;
      out.note = std::string(size.message());
      return out;
    }
    if (ToolCouldNotRead(expected)) {
      out.outcome = MsSsimReplay::Outcome::kClipsUnreadable;
      out.note = absl::StrFormat("the vmaf tool could not read the %dx%d clips (%s)", g.width,
                                 g.height, kUnreadable);
      return out;
    }
    return absl::InvalidArgumentError(
        absl::StrFormat("pair %s: libvmaf gave no %s for %dx%d, which CheckFloatMsSsimSize accepts",
                        pair.id, kMetric, g.width, g.height));
  }
  if (!size.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("pair %s: libvmaf scored %s where CheckFloatMsSsimSize refuses: %s",
                        pair.id, kMetric, size.message()));
  }

  absl::StatusOr<ToolPair> clips = ReadPairAsVmafTool(pair);
  if (!clips.ok()) return clips.status();
  const ToolFrames* ref = &clips->reference;
  const ToolFrames* dist = &clips->distorted();
  const size_t frames = clips->frames();
  if (values->second.size() != frames) {
    return absl::InvalidArgumentError(
        absl::StrFormat("pair %s: %d values of %s for the %d frames the vmaf tool reads", pair.id,
                        values->second.size(), kMetric, frames));
  }
  for (size_t f = 0; f < frames; ++f) {
    // Plane 0 of a tool frame is the luma plane.
    auto got = ComputeFloatMsSsim(ref->frames[f][0], dist->frames[f][0]);
    if (!got.ok()) {
      return absl::InternalError(
          absl::StrFormat("pair %s frame %d: %s", pair.id, f, got.status().ToString()));
    }
    FrameScores scores;
    AddFloatMsSsimScores(FloatMsSsimOptions{}, g, *got, scores);
    const double want = values->second[f];
    ++out.report.compared;
    if (!SameBits(want, scores.at(kMetric))) {
      out.report.mismatches.push_back(
          {"float_ms_ssim", kMetric, static_cast<int>(f), want, scores.at(kMetric)});
    }
  }
  return out;
}

}  // namespace ssimd::testing
