// Who decodes which segment of a file shared by several decoders (segmented_decoding.h): a
// decoder done with its segment claims the next one nobody has, so a faster decoder (a GPU
// engine beside CPU decoders, or one that started earlier) takes more of the file, instead of
// every decoder being held to the pace of the slowest by a fixed share. The reader asks the book
// which decoder holds the segment it hands out next. Not synchronised: its owner guards it.
#ifndef SSIMD_ENGINE_MEDIA_SEGMENT_CLAIM_BOOK_H_
#define SSIMD_ENGINE_MEDIA_SEGMENT_CLAIM_BOOK_H_

#include <cstdint>
#include <deque>
#include <optional>

namespace ssimd {

class SegmentClaimBook {
 public:
  // `worker`, whose packets have reached segment `reached`, takes the lowest segment nobody
  // holds that it can still decode: segments are given out in order, never one behind
  // `reached`. Returns it.
  uint64_t Claim(int worker, uint64_t reached);
  // Who claimed `segment`; none if nobody has yet, or it was forgotten (ForgetBefore).
  std::optional<int> OwnerOf(uint64_t segment) const;
  // Drops what is known of the segments before `segment` (they were handed out): the book
  // holds only the segments between the reader and the decoders.
  void ForgetBefore(uint64_t segment);

 private:
  uint64_t next_ = 0;    // the lowest segment never given out
  uint64_t first_ = 0;   // the segment of owners_.front()
  std::deque<int> owners_;  // by segment from first_; -1 for one passed over
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_SEGMENT_CLAIM_BOOK_H_
