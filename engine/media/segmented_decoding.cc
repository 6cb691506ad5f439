#include "engine/media/segmented_decoding.h"

#include <system_error>
#include <utility>

#include "absl/strings/str_format.h"

namespace ssimd {

absl::StatusOr<std::unique_ptr<SegmentedDecoding>> SegmentedDecoding::Start(
    std::unique_ptr<VideoDecoder>& first, const DecodeLimits& limits,
    const SegmentedDecodingOptions& options) {
  if (options.decoders < 2 || options.min_segment_packets < 1 || options.pictures_ahead < 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "segmented decoding: %d decoders, segments of %d packets and %d pictures ahead; expected "
        "at least 2, 1 and 1",
        options.decoders, options.min_segment_packets, options.pictures_ahead));
  }
  if (first == nullptr) return absl::InvalidArgumentError("segmented decoding: no decoder");
  std::unique_ptr<SegmentedDecoding> decoding(new SegmentedDecoding(options));
  auto& workers = decoding->workers_;
  workers.push_back(std::make_unique<Worker>());
  for (int i = 1; i < options.decoders; ++i) {
    absl::StatusOr<std::unique_ptr<VideoDecoder>> another = first->OpenAgain(limits);
    if (!another.ok()) return another.status();
    workers.push_back(std::make_unique<Worker>());
    workers.back()->decoder = *std::move(another);
  }
  workers[0]->decoder = std::move(first);
  for (int i = 0; i < options.decoders; ++i) {
    workers[i]->decoder->DecodeSegmentShare({i, options.decoders, options.min_segment_packets});
  }
  // The first decoder's thread starts last: until then `first` can still go back to the caller
  // (the destructor stops and joins the threads already started).
  for (int i = options.decoders - 1; i >= 0; --i) {
    Worker* worker = workers[i].get();
    try {
      worker->thread = std::thread([d = decoding.get(), worker] { d->Run(worker); });
    } catch (const std::system_error& e) {
      first = std::move(workers[0]->decoder);
      return absl::ResourceExhaustedError(
          absl::StrFormat("cannot start a decoding thread: %s", e.what()));
    }
  }
  return decoding;
}

SegmentedDecoding::~SegmentedDecoding() {
  {
    absl::MutexLock lock(&mutex_);
    stop_ = true;
  }
  changed_.SignalAll();
  for (auto& worker : workers_) {
    if (worker->thread.joinable()) worker->thread.join();
  }
}

void SegmentedDecoding::Run(Worker* worker) {
  while (true) {
    {
      absl::MutexLock lock(&mutex_);
      while (!stop_ && worker->ready.size() >= options_.pictures_ahead) changed_.Wait(&mutex_);
      if (stop_) return;
    }
    Item item;
    absl::StatusOr<const AVFrame*> picture = worker->decoder->Next();
    if (!picture.ok()) {
      item.error = picture.status();
      item.segment = worker->decoder->segment_in_progress();
    } else if (*picture == nullptr) {
      item.end = true;
      item.segments_in_file = worker->decoder->segments_seen();
    } else {
      // A new reference to the picture's buffers: the decoder gives them fresh to each picture.
      item.picture.reset(av_frame_clone(*picture));
      item.segment = worker->decoder->segment();
      if (item.picture == nullptr) {
        item.error = absl::ResourceExhaustedError("out of memory for a decoded picture");
      }
    }
    const bool last = item.picture == nullptr;
    {
      absl::MutexLock lock(&mutex_);
      if (!last) ++worker->pictures;
      worker->ready.push_back(std::move(item));
    }
    changed_.SignalAll();
    if (last) return;
  }
}

SegmentedDecoding::Item& SegmentedDecoding::Head(Worker& worker) {
  while (worker.ready.empty()) changed_.Wait(&mutex_);
  return worker.ready.front();
}

absl::StatusOr<const AVFrame*> SegmentedDecoding::Next() {
  if (ended_.has_value()) return *ended_;
  current_.reset();
  const uint64_t decoders = workers_.size();
  absl::MutexLock lock(&mutex_);
  while (true) {
    Worker& worker = *workers_[segment_ % decoders];
    Item& head = Head(worker);
    if (head.end) {
      // Every decoder reads every packet, so each knows how many segments the file has: a
      // segment without pictures is passed over, and after the last the file has ended.
      if (segment_ + 1 >= head.segments_in_file) {
        segments_in_file_ = head.segments_in_file;
        ended_ = nullptr;
        return *ended_;
      }
      ++segment_;
      continue;
    }
    if (head.segment > segment_) {
      // This decoder's next picture (or error) is of a later segment: the current one is
      // complete.
      ++segment_;
      continue;
    }
    // An error arises where the decoder was: in its own segment, or for a container that
    // cannot be read, at a packet every decoder reads (then the segment's own decoder reports
    // it too, after the pictures before it).
    if (!head.error.ok()) {
      ended_ = head.error;
      return *ended_;
    }
    if (head.segment < segment_) {
      ended_ = absl::InternalError(absl::StrFormat(
          "%s: segmented decoding lost its place (segment %d after %d)",
          workers_[0]->decoder->name(), head.segment, segment_));
      return *ended_;
    }
    current_ = std::move(head.picture);
    worker.ready.pop_front();
    changed_.SignalAll();
    ++frames_;
    return current_.get();
  }
}

std::vector<const VideoDecoder*> SegmentedDecoding::DecodingWorkers() const {
  std::vector<const VideoDecoder*> decoding;
  absl::MutexLock lock(&mutex_);
  for (const auto& worker : workers_) {
    if (worker->pictures > 0) decoding.push_back(worker->decoder.get());
  }
  if (decoding.empty()) decoding.push_back(workers_[0]->decoder.get());
  return decoding;
}

void SegmentedDecoding::KeepPicturesOnDevice() {
  for (auto& worker : workers_) worker->decoder->KeepPicturesOnDevice();
}

std::string SegmentedDecoding::decode_backend() const {
  const std::vector<const VideoDecoder*> decoding = DecodingWorkers();
  const std::string& first = decoding[0]->decode_backend();
  for (const VideoDecoder* decoder : decoding) {
    if (decoder->decode_backend() != first) return "cpu";
  }
  return first;
}

DecodeFallback SegmentedDecoding::decode_fallback() const {
  for (const VideoDecoder* decoder : DecodingWorkers()) {
    if (decoder->decode_fallback() != DecodeFallback::kNone) return decoder->decode_fallback();
  }
  return DecodeFallback::kNone;
}

std::string SegmentedDecoding::decode_fallback_detail() const {
  for (const VideoDecoder* decoder : DecodingWorkers()) {
    if (decoder->decode_fallback() != DecodeFallback::kNone) {
      return decoder->decode_fallback_detail();
    }
  }
  return "";
}

}  // namespace ssimd
