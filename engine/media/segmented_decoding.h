// One file decoded by several decoders at once and put back together: the file is cut into
// segments at split points (split_points.h), each decoder on a thread of its own decodes the
// segments it claims (VideoDecoder::DecodeSegmentShare): done with one, it takes the next that
// nobody has (segment_claim_book.h), so faster decoders take more. The pictures are handed out
// segment by segment. Every segment starts where a decoder may start afresh and nothing after it
// refers to what came before, so the pictures are those of one decoder reading the whole file, in
// the same order, byte for byte. What it buys: one file on several cores, or on several GPU video
// engines (one decoder session each), where one decoder is slower than what comes after it.
#ifndef SSIMD_ENGINE_MEDIA_SEGMENTED_DECODING_H_
#define SSIMD_ENGINE_MEDIA_SEGMENTED_DECODING_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "engine/media/av_handles.h"
#include "engine/media/segment_claim_book.h"
#include "engine/media/video_decoder.h"

namespace ssimd {

struct SegmentedDecodingOptions {
  int decoders = 2;  // decoders at once (2 or more)
  // A segment ends at the first split point after this many packets: fewer, longer segments
  // cost fewer decoder resets.
  int min_segment_packets = 24;
  // Pictures each decoder may hold ready ahead of the one handed out; bounds memory. A decoder
  // ahead of its turn by more waits.
  size_t pictures_ahead = 32;
  // Of the decoders, how many decode on the CPU, whatever device the first one uses: a file
  // on a GPU's engine and on idle cores at once (the faster take more segments).
  int cpu_decoders = 0;
};

class SegmentedDecoding : private VideoDecoder::SegmentClaims {
 public:
  // Opens the other decoders beside `first` (VideoDecoder::OpenAgain, side by side on threads of
  // their own: opening reads and probes the file) and starts them all, taking `first` over; it
  // must not have returned a frame yet. On error (options out of range, a decoder that could not
  // be opened, no thread) `first` stays the caller's, untouched.
  static absl::StatusOr<std::unique_ptr<SegmentedDecoding>> Start(
      std::unique_ptr<VideoDecoder>& first, const DecodeLimits& limits,
      const SegmentedDecodingOptions& options);
  // Stops the decoders after the pictures they are decoding.
  ~SegmentedDecoding() override;
  SegmentedDecoding(const SegmentedDecoding&) = delete;
  SegmentedDecoding& operator=(const SegmentedDecoding&) = delete;

  // VideoDecoder::Next's contract over the whole file: the next picture in presentation order,
  // valid until the next call; nullptr after the last; a decoder's error once every picture
  // before it was handed out, and again on every later call.
  absl::StatusOr<const AVFrame*> Next();
  uint64_t frames_decoded() const { return frames_; }
  // VideoDecoder::KeepPicturesOnDevice for every decoder.
  void KeepPicturesOnDevice();
  // The file's segments, once Next() returned its end; 0 before.
  uint64_t segments() const { return segments_in_file_; }
  // Segments each decoder decoded (claimed and handed out pictures of), by decoder; once
  // Next() returned the file's end.
  std::vector<uint64_t> segments_by_decoder() const;

  // Of the decoders that decoded pictures so far (the first one before any did): "nvdec" or
  // "vaapi" while all of them run on a device's engine, else "cpu"; and the first one's reason
  // for decoding on the CPU, if any of them has one. A decoder whose share of a file holds no
  // segment does not count.
  std::string decode_backend() const;
  DecodeFallback decode_fallback() const;
  std::string decode_fallback_detail() const;

 private:
  // What a decoder's thread hands over: a picture of a segment, or its end (with the file's
  // segment count), or its error.
  struct Item {
    AvFramePtr picture;
    uint64_t segment = 0;
    bool end = false;
    uint64_t segments_in_file = 0;
    absl::Status error;
  };
  struct Worker {
    std::unique_ptr<VideoDecoder> decoder;
    std::deque<Item> ready;  // guarded by the owner's mutex_
    uint64_t pictures = 0;   // decoded so far; guarded by the owner's mutex_
    uint64_t segments = 0;   // handed out, with pictures; guarded by the owner's mutex_
    bool finished = false;   // its end or error is queued; guarded by the owner's mutex_
    bool started = false;    // asked for its first segment; guarded by the owner's mutex_
    std::thread thread;
  };

  explicit SegmentedDecoding(const SegmentedDecodingOptions& options) : options_(options) {}
  // Opens decoders 1..n-1 beside workers_[0]'s, side by side.
  absl::Status OpenOthers(const DecodeLimits& limits);
  void Run(Worker* worker);
  // VideoDecoder::SegmentClaims, on the decoders' threads.
  uint64_t ClaimNext(int worker, uint64_t reached) override;
  // The outcome when nobody holds the segment to hand out: once every decoder has finished,
  // the file's end (the segment lies past it) or the first error; none while one still runs.
  std::optional<absl::StatusOr<const AVFrame*>> EndWithoutOwner()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // On to the next segment to hand out.
  void NextSegment() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The head of `worker`'s ready pictures, waiting for one.
  Item& Head(Worker& worker) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The decoders that count for decode_backend() and the fallback.
  std::vector<const VideoDecoder*> DecodingWorkers() const;

  const SegmentedDecodingOptions options_;
  std::vector<std::unique_ptr<Worker>> workers_;
  AvFramePtr current_;
  uint64_t segment_ = 0;  // the segment being handed out
  bool segment_has_pictures_ = false;  // some of its pictures were handed out
  uint64_t segments_in_file_ = 0;
  uint64_t frames_ = 0;
  std::optional<absl::StatusOr<const AVFrame*>> ended_;

  mutable absl::Mutex mutex_;
  absl::CondVar changed_;
  bool stop_ ABSL_GUARDED_BY(mutex_) = false;
  SegmentClaimBook claims_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_SEGMENTED_DECODING_H_
