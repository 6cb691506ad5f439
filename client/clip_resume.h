// A clip stream that survives the loss of its server: when ScoreClip is cut before the summary
// (UNAVAILABLE: the replica died, or drains and refuses new streams), the clip goes on in a new
// stream from the first frame without a result; on a balanced channel that stream lands on
// another replica. The caller gets one report, as if one server had scored the whole clip.
#ifndef SSIMD_CLIENT_CLIP_RESUME_H_
#define SSIMD_CLIENT_CLIP_RESUME_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/ssimd_client.h"
#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd {

// Opens the clip's frame pairs starting at frame `first` (0 = the clip's first frame).
using FrameSourceOpener = std::function<absl::StatusOr<FramePlanesSource>(uint64_t first)>;

struct ResumeOptions {
  int max_streams = 4;  // streams tried in all, the first one included
  absl::Duration pause = absl::Milliseconds(200);  // before each new stream, times its number
  // Told before each new stream: the frame it starts from and why the last one ended.
  std::function<void(uint64_t first, const absl::Status& cut)> on_resume;
};

// Streams the clip, resuming as above. `on_frame` sees every frame once, with its index in the
// clip. A resumed clip's summary is pooled here over all its frames; its elapsed_seconds is that
// of the last stream. Any error other than UNAVAILABLE ends the call at once. When the streams
// run out, the UNAVAILABLE error says which frames were scored and from which frame to go on.
absl::StatusOr<ClipReport> ScoreClipResuming(SsimdClient& client, const v1::ClipConfig& config,
                                             const FrameSourceOpener& open,
                                             const FrameCallback& on_frame,
                                             absl::Duration timeout,
                                             const ResumeOptions& options = {});

// The summary of a clip scored in pieces: what the server computes over the same frames in
// order (pooled scores, `percentiles`, frames by backend, fallbacks); elapsed_seconds stays 0.
v1::ClipSummary SummarizeFrames(const std::vector<v1::FrameResult>& frames,
                                const std::vector<double>& percentiles);

}  // namespace ssimd

#endif  // SSIMD_CLIENT_CLIP_RESUME_H_
