#include "server/upload_reactor.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "base/client_text.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "server/grpc_convert.h"
#include "server/logging.h"
#include "server/request_parsing.h"

namespace ssimd {
namespace {

constexpr const char* kMethod = "UploadFile";

}  // namespace

UploadReactor::UploadReactor(ServiceContext* ctx, grpc::CallbackServerContext* call,
                             grpc::ByteBuffer* response)
    : ctx_(ctx),
      call_(call),
      response_(response),
      peer_(call->peer()),
      deadline_(absl::FromChrono(call->deadline())),
      started_(absl::Now()) {
  ctx_->metrics->StreamStarted();
  if (ctx_->streams != nullptr) ctx_->streams->Add(this);
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    actions = ReadLocked();
  }
  Execute(std::move(actions));
}

UploadReactor::~UploadReactor() {
  if (ctx_->streams != nullptr) ctx_->streams->Remove(this);
}

void UploadReactor::OnReadDone(bool ok) {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    reading_ = false;
    if (finish_called_ || failure_.has_value()) {
      // The upload already ended (the idle timeout, a shutdown): this is its pending read.
      read_buffer_.Clear();
    } else if (!ok) {
      if (call_->IsCancelled()) {
        FailLocked(CancellationLocked());
      } else if (file_name_.empty()) {
        FailLocked(absl::InvalidArgumentError(
            "file_name: the upload ended before its first UploadChunk; send one that names the "
            "file, then its bytes"));
      } else {
        // The client half-closed: every byte is stored.
        storing_ = true;
        ctx_->pool->Submit([this] { CommitUpload(); });
      }
    } else {
      std::string data;
      if (absl::Status taken = TakeChunk(&data); !taken.ok()) {
        FailLocked(taken);
      } else {
        storing_ = true;
        auto shared = std::make_shared<std::string>(std::move(data));
        ctx_->pool->Submit([this, shared] { Store(std::move(*shared)); });
      }
    }
    actions = PlanLocked();
  }
  Execute(std::move(actions));
}

absl::Status UploadReactor::TakeChunk(std::string* data) {
  // gRPC's own limit is above --max_message_bytes (ADR 0066), so that a chunk just over it is
  // refused here, with a status the log and the metrics record as the client sees it.
  if (const size_t bytes = read_buffer_.Length();
      bytes > static_cast<size_t>(ctx_->options.max_message_bytes)) {
    read_buffer_.Clear();
    return MessageTooLarge("an UploadChunk", bytes, ctx_->options.max_message_bytes);
  }
  v1::UploadChunk chunk;
  const bool parsed = ParseRawMessage(read_buffer_, &chunk);
  read_buffer_.Clear();
  if (!parsed) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "the UploadChunk after %d bytes is not a valid ssimd.v1.UploadChunk (protobuf "
        "encoding); check the client's generated code",
        bytes_received_));
  }
  if (file_name_.empty()) {
    if (chunk.file_name().empty()) {
      return absl::InvalidArgumentError(
          "file_name: missing in the first UploadChunk; name the file there (e.g. "
          "\"720p.mp4\": its extension says how the file is read)");
    }
    file_name_ = chunk.file_name();
  } else if (!chunk.file_name().empty() && chunk.file_name() != file_name_) {
    // One stream uploads one file: a second name means the client mixed up two uploads.
    return absl::InvalidArgumentError(absl::StrCat(
        "file_name: ", QuoteClientText(chunk.file_name()), " in the chunk after ",
        bytes_received_, " bytes differs from the first chunk's ", QuoteClientText(file_name_),
        "; name the file in the first chunk only, and upload each file in a call of its own"));
  }
  bytes_received_ += static_cast<int64_t>(chunk.data().size());
  *data = std::move(*chunk.mutable_data());
  return absl::OkStatus();
}

void UploadReactor::Store(std::string data) {
  std::string file_name;
  {
    absl::MutexLock lock(&mu_);
    if (!failure_.has_value()) file_name = file_name_;
  }
  absl::Status status;
  if (!file_name.empty()) {  // else the upload already ended: nothing more is written
    if (writer_ == nullptr) {
      absl::StatusOr<std::unique_ptr<UploadWriter>> writer = ctx_->uploads->Begin(file_name);
      if (writer.ok()) {
        writer_ = *std::move(writer);
      } else {
        status = writer.status();
      }
    }
    if (status.ok()) status = WithField(writer_->Append(data), "data");
  }
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    storing_ = false;
    if (!status.ok()) FailLocked(status);
    actions = failure_.has_value() ? PlanLocked() : ReadLocked();
  }
  Execute(std::move(actions));
}

void UploadReactor::CommitUpload() {
  absl::StatusOr<UploadReceiptInfo> receipt;
  bool ended = false;
  std::string file_name;
  {
    absl::MutexLock lock(&mu_);
    ended = failure_.has_value();
    file_name = file_name_;
  }
  if (!ended) {
    // An upload of zero bytes never wrote, so its file is made here.
    if (writer_ == nullptr) {
      absl::StatusOr<std::unique_ptr<UploadWriter>> writer = ctx_->uploads->Begin(file_name);
      if (writer.ok()) {
        writer_ = *std::move(writer);
      } else {
        receipt = writer.status();
      }
    }
    if (writer_ != nullptr) receipt = writer_->Commit();
  }
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    storing_ = false;
    if (!ended) {
      if (receipt.ok()) {
        // Stored even if the client cancels from now on: it expires with --upload_ttl.
        if (!failure_.has_value()) receipt_ = *receipt;
      } else {
        FailLocked(receipt.status());
      }
    }
    actions = PlanLocked();
  }
  Execute(std::move(actions));
}

void UploadReactor::OnCancel() {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    if (!finish_called_) FailLocked(CancellationLocked());
    actions = PlanLocked();
  }
  Execute(std::move(actions));
}

void UploadReactor::OnDone() {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    done_ = true;
    actions = PlanLocked();
  }
  Execute(std::move(actions));
}

bool UploadReactor::TryHold() {
  absl::MutexLock lock(&mu_);
  if (finish_called_ || destroyed_) return false;
  ++holds_;
  return true;
}

void UploadReactor::Release() {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    --holds_;
    actions = PlanLocked();
  }
  Execute(std::move(actions));
}

absl::Duration UploadReactor::WaitingOnClient(absl::Time now) const {
  absl::MutexLock lock(&mu_);
  if (!reading_ || finish_called_ || failure_.has_value()) return absl::ZeroDuration();
  return now - read_started_;
}

void UploadReactor::Abort(const absl::Status& status) {
  Actions actions;
  {
    absl::MutexLock lock(&mu_);
    if (finish_called_ || failure_.has_value()) return;
    FailLocked(status);
    actions = PlanLocked();
  }
  Execute(std::move(actions));
}

void UploadReactor::AbortIdle(absl::Duration waited, absl::Duration timeout) {
  int64_t bytes = 0;
  bool named = false;
  {
    absl::MutexLock lock(&mu_);
    bytes = bytes_received_;
    named = !file_name_.empty();
  }
  Abort(absl::DeadlineExceededError(absl::StrFormat(
      "the upload was idle for %s, waiting for %s (--stream_idle_timeout=%s); nothing was kept",
      absl::FormatDuration(absl::Trunc(waited, absl::Milliseconds(100))),
      named ? absl::StrFormat("the chunk after %d bytes", bytes)
            : std::string("the first chunk (the one with file_name)"),
      absl::FormatDuration(timeout))));
}

void UploadReactor::FailLocked(const absl::Status& status) {
  if (!failure_.has_value()) failure_ = status;
}

absl::Status UploadReactor::CancellationLocked() const {
  // As in StreamPipeline: gRPC cancels a call whose deadline passed, and the client then sees
  // DEADLINE_EXCEEDED, so the log and the metrics should too.
  if (ClientDeadlinePassed(deadline_)) {
    return absl::DeadlineExceededError(absl::StrFormat(
        "the client's deadline passed after %d bytes of the upload; nothing was kept",
        bytes_received_));
  }
  return absl::CancelledError(absl::StrFormat(
      "the upload was cancelled after %d bytes: by the client, or by gRPC for a message above "
      "its transport limit or compressed (compression is refused); nothing was kept",
      bytes_received_));
}

UploadReactor::Actions UploadReactor::ReadLocked() {
  Actions a;
  reading_ = true;
  read_started_ = absl::Now();
  ++reads_starting_;
  a.read = true;
  return a;
}

UploadReactor::Actions UploadReactor::PlanLocked() {
  Actions a;
  if (!finish_called_ && (failure_.has_value() || receipt_.has_value()) && !storing_ &&
      reads_starting_ == 0) {
    finish_called_ = true;
    if (failure_.has_value()) {
      a.finish = ToGrpcStatus(*failure_);
      // No task holds the writer now: removing the partial file here means it is gone before the
      // client hears the status.
      a.discard = std::move(writer_);
    } else {
      a.finish = grpc::Status::OK;
    }
  }
  if (done_ && holds_ == 0 && !storing_ && reads_starting_ == 0 && !destroyed_) {
    destroyed_ = true;
    a.destroy = true;
  }
  return a;
}

void UploadReactor::Execute(Actions actions) {
  actions.discard.reset();
  if (actions.read) {
    StartRead(&read_buffer_);
    Actions next;
    {
      absl::MutexLock lock(&mu_);
      --reads_starting_;
      next = PlanLocked();
    }
    Execute(std::move(next));
    return;
  }
  if (actions.finish.has_value()) {
    grpc::Status status = *actions.finish;
    int64_t bytes = 0;
    {
      absl::MutexLock lock(&mu_);
      bytes = receipt_.has_value() ? receipt_->size_bytes : bytes_received_;
      if (status.ok()) {
        v1::UploadReceipt receipt;
        receipt.set_input(receipt_->input);
        receipt.set_size_bytes(static_cast<uint64_t>(receipt_->size_bytes));
        receipt.set_expires_in_seconds(
            static_cast<uint64_t>(absl::ToInt64Seconds(receipt_->expires_in)));
        status = SerializeToBuffer(receipt, response_);
      }
    }
    Conclude(status, bytes);
    return;  // OnDone may already have run and deleted this reactor
  }
  if (actions.destroy) delete this;
}

void UploadReactor::Conclude(const grpc::Status& status, int64_t bytes) {
  const std::string code = StatusCodeName(status.error_code());
  ctx_->metrics->RecordRpc(kMethod, code);
  ctx_->metrics->StreamFinished();
  std::string file_name;
  std::string input;
  {
    absl::MutexLock lock(&mu_);
    file_name = file_name_;
    if (receipt_.has_value() && status.ok()) input = receipt_->input;
  }
  LogFields fields = {{"method", kMethod},
                      {"peer", peer_},
                      {"status", code},
                      {"file_name", QuoteClientText(file_name)},
                      {"bytes", absl::StrCat(bytes)},
                      {"seconds", absl::StrFormat("%.3f", absl::ToDoubleSeconds(
                                                              absl::Now() - started_))}};
  if (!input.empty()) fields.emplace_back("input", input);
  if (!status.ok()) fields.emplace_back("error", status.error_message());
  LogEvent(status.ok() ? spdlog::level::info : spdlog::level::warn, "upload finished", fields);
  ctx_->active_streams.fetch_sub(1);
  // The last use of `this` on this thread: OnDone may run (and delete it) from inside.
  Finish(status);
}

}  // namespace ssimd
