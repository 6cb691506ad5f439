#include "engine/scorer.h"

#include <vector>

#include "engine/scratch.h"

namespace ssimd {

absl::StatusOr<ScoreResult> Scorer::ScorePieces(const Geometry& geometry,
                                                const FeatureSet& features,
                                                const PiecewiseFramePair& pair) {
  // The calling thread's gather buffers, kept for its next frame unless they grew very large.
  thread_local std::vector<uint8_t> reference_scratch;
  thread_local std::vector<uint8_t> distorted_scratch;
  absl::StatusOr<LumaView> reference =
      MakeLumaView(geometry, pair.reference->Gather(reference_scratch), "reference luma");
  absl::StatusOr<LumaView> distorted =
      reference.ok()
          ? MakeLumaView(geometry, pair.distorted->Gather(distorted_scratch), "distorted luma")
          : reference;
  absl::StatusOr<ScoreResult> result =
      distorted.ok() ? Score(geometry, features, FramePair{*reference, *distorted})
                     : absl::StatusOr<ScoreResult>(distorted.status());
  for (std::vector<uint8_t>* scratch : {&reference_scratch, &distorted_scratch}) {
    if (BytesOf(*scratch) > kKeptScratchBytes) *scratch = std::vector<uint8_t>();
  }
  return result;
}

}  // namespace ssimd
