#include "client/frames_transport.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "base/status_macros.h"
#include "client/clip_resume.h"
#include "client/local_video.h"
#include "client/progress_bar.h"
#include "engine/features.h"
#include "proto/pixel_format.h"

namespace ssimd {
namespace {

struct ClipRun {
  const CliOptions& options;
  const std::string& reference;
  const std::string& distorted;
  const std::optional<Geometry>& raw_geometry;
  // The features read chroma where a picture has it: frames are sent with their chroma planes.
  bool chroma;
};

// Opens both videos and skips to frame `first` of the clip (after --frame_skip_ref/_dist).
absl::StatusOr<LocalPair> OpenClip(const ClipRun& run, uint64_t first) {
  absl::StatusOr<LocalPair> pair =
      OpenLocalPair(run.reference, run.distorted, run.raw_geometry, run.options.scaler,
                    run.chroma);
  if (!pair.ok()) return pair.status();
  SSIMD_RETURN_IF_ERROR(pair->reference->Skip(run.options.frame_skip_ref + first));
  SSIMD_RETURN_IF_ERROR(pair->distorted->Skip(run.options.frame_skip_dist + first));
  return pair;
}

// Frame pairs from `pair`, frame `first` of the clip on, up to --frame_cnt frames in all, with
// their chroma planes where the pair was opened with them (otherwise none are sent).
FramePlanesSource PairSource(const CliOptions& o, LocalPair pair, uint64_t first) {
  auto shared = std::make_shared<LocalPair>(std::move(pair));
  auto sent = std::make_shared<uint64_t>(first);
  return [&o, shared, sent](OutgoingPlanes* planes) -> absl::StatusOr<bool> {
    if (o.frame_cnt > 0 && *sent >= o.frame_cnt) return false;
    auto got_r = shared->reference->ReadPlanes(&planes->reference);
    if (!got_r.ok()) return got_r.status();
    auto got_d = shared->distorted->ReadPlanes(&planes->distorted);
    if (!got_d.ok()) return got_d.status();
    if (!*got_r || !*got_d) return false;  // as libvmaf: stop at the shorter video
    if (shared->with_chroma()) {
      // Each picture's chroma follows its luma: the message carries them in fields of their own.
      const size_t luma_bytes = LumaBytes(shared->reference->geometry());
      for (auto [frame, chroma] : {std::pair(&planes->reference, &planes->reference_chroma),
                                   std::pair(&planes->distorted, &planes->distorted_chroma)}) {
        chroma->assign(*frame, std::min(luma_bytes, frame->size()));
        frame->resize(luma_bytes);
      }
    }
    ++*sent;
    return true;
  };
}

// Frames to expect, where both files say how many they hold.
std::optional<uint64_t> ExpectedFrames(const CliOptions& o, const LocalPair& pair) {
  std::optional<uint64_t> total;
  const std::optional<uint64_t> ref_frames = pair.reference->EstimatedFrames();
  const std::optional<uint64_t> dis_frames = pair.distorted->EstimatedFrames();
  if (ref_frames.has_value() && dis_frames.has_value()) {
    total = std::min(*ref_frames - std::min(*ref_frames, o.frame_skip_ref),
                     *dis_frames - std::min(*dis_frames, o.frame_skip_dist));
  }
  if (o.frame_cnt > 0) total = total.has_value() ? std::min(*total, o.frame_cnt) : o.frame_cnt;
  return total;
}

}  // namespace

bool DecodesLocalFiles() { return true; }

absl::StatusOr<ClipReport> ScoreLocalFrames(SsimdClient& client, const CliOptions& o,
                                            const std::string& reference,
                                            const std::string& distorted,
                                            const std::optional<Geometry>& raw_geometry,
                                            v1::ClipConfig config, std::FILE* err,
                                            bool show_progress) {
  absl::StatusOr<FeatureSet> features = ParseFeatureArgs(o.features);
  if (!features.ok()) return features.status();
  // 4:2:0 stands for any picture with chroma: whether this one has any is settled when the
  // reference is opened (a 4:0:0 file is read without).
  const ClipRun run{o, reference, distorted, raw_geometry,
                    FeaturesReadChroma(*features, ChromaFormat::k420)};
  absl::StatusOr<LocalPair> pair = OpenClip(run, 0);
  if (!pair.ok()) return pair.status();
  *config.mutable_geometry() = GeometryToProto(pair->reference->geometry());
  ProgressBar bar(err, show_progress, ExpectedFrames(o, *pair));

  // The first stream reads the files already open; a resumed one opens them again at its frame.
  std::optional<LocalPair> opened = *std::move(pair);
  auto open = [&](uint64_t first) -> absl::StatusOr<FramePlanesSource> {
    if (first == 0 && opened.has_value()) {
      LocalPair now = *std::move(opened);
      opened.reset();
      return PairSource(o, std::move(now), 0);
    }
    absl::StatusOr<LocalPair> reopened = OpenClip(run, first);
    if (!reopened.ok()) return reopened.status();
    return PairSource(o, *std::move(reopened), first);
  };
  uint64_t received = 0;
  auto on_frame = [&](const v1::FrameResult&) { bar.Update(++received); };
  ResumeOptions resume;
  resume.on_resume = [&](uint64_t first, const absl::Status& cut) {
    if (o.quiet) return;
    std::fprintf(err, "ssimd-score: the stream was cut (%s); going on from frame %llu\n",
                 std::string(cut.message()).c_str(), static_cast<unsigned long long>(first));
  };
  absl::StatusOr<ClipReport> report =
      ScoreClipResuming(client, config, open, on_frame, o.timeout, resume);
  bar.Finish(received);
  return report;
}

}  // namespace ssimd
