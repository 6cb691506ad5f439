#include "engine/media/segmented_decoding.h"

#include <system_error>
#include <utility>

#include "absl/strings/str_format.h"

namespace ssimd {

absl::StatusOr<std::unique_ptr<SegmentedDecoding>> SegmentedDecoding::Start(
    std::unique_ptr<VideoDecoder>& first, const DecodeLimits& limits,
    const SegmentedDecodingOptions& options) {
  if (options.decoders < 2 || options.min_segment_packets < 1 || options.pictures_ahead < 1 ||
      options.cpu_decoders < 0 || options.cpu_decoders >= options.decoders) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "segmented decoding: %d decoders (%d of them on the CPU), segments of %d packets and %d "
        "pictures ahead; expected at least 2 decoders, fewer on the CPU than in all, 1 packet "
        "and 1 picture",
        options.decoders, options.cpu_decoders, options.min_segment_packets,
        options.pictures_ahead));
  }
  if (first == nullptr) return absl::InvalidArgumentError("segmented decoding: no decoder");
  std::unique_ptr<SegmentedDecoding> decoding(new SegmentedDecoding(options));
  auto& workers = decoding->workers_;
  for (int i = 0; i < options.decoders; ++i) workers.push_back(std::make_unique<Worker>());
  // Borrowed for the opening; `first` gets it back below if anything fails.
  workers[0]->decoder = std::move(first);
  if (absl::Status opened = decoding->OpenOthers(limits); !opened.ok()) {
    first = std::move(workers[0]->decoder);
    return opened;
  }
  {
    // Decoder i starts with segment i, whichever thread runs first: the first segments go to
    // the first decoders (the first one already open, and the device's before the CPU's).
    absl::MutexLock lock(&decoding->mutex_);
    for (int i = 0; i < options.decoders; ++i) decoding->claims_.Claim(i, 0);
  }
  for (int i = 0; i < options.decoders; ++i) {
    workers[i]->decoder->DecodeSegmentShare(
        {i, options.decoders, options.min_segment_packets, decoding.get()});
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

absl::Status SegmentedDecoding::OpenOthers(const DecodeLimits& limits) {
  const VideoDecoder& first = *workers_[0]->decoder;
  std::vector<absl::Status> opened(workers_.size());
  // The last `cpu_decoders` decode on the CPU.
  const size_t first_on_cpu = workers_.size() - static_cast<size_t>(options_.cpu_decoders);
  auto Open = [&](size_t i) {
    absl::StatusOr<std::unique_ptr<VideoDecoder>> another =
        first.OpenAgain(limits, /*on_cpu=*/i >= first_on_cpu);
    if (another.ok()) {
      workers_[i]->decoder = *std::move(another);
    } else {
      opened[i] = another.status();
    }
  };
  std::vector<std::thread> openers;
  for (size_t i = 1; i < workers_.size(); ++i) {
    try {
      openers.emplace_back(Open, i);
    } catch (const std::system_error&) {
      Open(i);  // no thread to spare: here, one after another
    }
  }
  for (std::thread& opener : openers) opener.join();
  for (const absl::Status& status : opened) {
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

uint64_t SegmentedDecoding::ClaimNext(int worker, uint64_t reached) {
  uint64_t segment;
  {
    absl::MutexLock lock(&mutex_);
    Worker& asking = *workers_[static_cast<size_t>(worker)];
    if (!asking.started) {
      asking.started = true;
      segment = static_cast<uint64_t>(worker);  // claimed for it by Start
    } else {
      segment = claims_.Claim(worker, reached);
    }
  }
  // The reader may be waiting to learn who holds the segment it hands out next.
  changed_.SignalAll();
  return segment;
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
      worker->finished = last;
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

std::optional<absl::StatusOr<const AVFrame*>> SegmentedDecoding::EndWithoutOwner() {
  // Claims are given out in order, so nobody holds a later segment either: the decoders hold
  // nothing the reader has not taken, and none waits for it. Once all have finished, those
  // that reached the file's end know how many segments it has.
  const Item* error = nullptr;
  for (const auto& worker : workers_) {
    if (!worker->finished) return std::nullopt;
    const Item& last = worker->ready.back();
    if (last.end && segment_ >= last.segments_in_file) {
      segments_in_file_ = last.segments_in_file;
      return absl::StatusOr<const AVFrame*>(nullptr);
    }
    if (!last.error.ok() && (error == nullptr || last.segment < error->segment)) error = &last;
  }
  if (error != nullptr) return absl::StatusOr<const AVFrame*>(error->error);
  return absl::StatusOr<const AVFrame*>(absl::InternalError(absl::StrFormat(
      "%s: segmented decoding lost its place (no decoder took segment %d)",
      workers_[0]->decoder->name(), segment_)));
}

absl::StatusOr<const AVFrame*> SegmentedDecoding::Next() {
  if (ended_.has_value()) return *ended_;
  current_.reset();
  absl::MutexLock lock(&mutex_);
  while (true) {
    const std::optional<int> owner = claims_.OwnerOf(segment_);
    if (!owner.has_value()) {
      ended_ = EndWithoutOwner();
      if (ended_.has_value()) return *ended_;
      changed_.Wait(&mutex_);
      continue;
    }
    Worker& worker = *workers_[*owner];
    Item& head = Head(worker);
    if (head.end) {
      // Every decoder reads every packet, so each knows how many segments the file has: a
      // segment without pictures is passed over, and after the last the file has ended.
      if (segment_ + 1 >= head.segments_in_file) {
        segments_in_file_ = head.segments_in_file;
        ended_ = nullptr;
        return *ended_;
      }
      NextSegment();
      continue;
    }
    if (head.segment > segment_) {
      // This decoder's next picture (or error) is of a later segment: the current one is
      // complete.
      NextSegment();
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
    if (!segment_has_pictures_) {
      segment_has_pictures_ = true;
      ++worker.segments;
    }
    changed_.SignalAll();
    ++frames_;
    return current_.get();
  }
}

void SegmentedDecoding::NextSegment() {
  ++segment_;
  segment_has_pictures_ = false;
  claims_.ForgetBefore(segment_);
}

std::vector<uint64_t> SegmentedDecoding::segments_by_decoder() const {
  std::vector<uint64_t> segments;
  absl::MutexLock lock(&mutex_);
  for (const auto& worker : workers_) segments.push_back(worker->segments);
  return segments;
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
