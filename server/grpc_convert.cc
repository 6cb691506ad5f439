#include "server/grpc_convert.h"

#include "base/client_text.h"
#include "grpcpp/impl/codegen/proto_utils.h"

namespace ssimd {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      CapStatusMessage(status.message()));
}

bool ClientDeadlinePassed(absl::Time deadline) {
  constexpr absl::Duration kClientTimerLead = absl::Milliseconds(100);
  return absl::Now() >= deadline - kClientTimerLead;
}

bool ParseRawMessage(const grpc::ByteBuffer& received, google::protobuf::Message* message) {
  grpc::ByteBuffer copy(received);  // the reader consumes its buffer; this copies references only
  return grpc::SerializationTraits<google::protobuf::Message>::Deserialize(&copy, message).ok();
}

grpc::Status SerializeToBuffer(const google::protobuf::Message& message, grpc::ByteBuffer* buffer) {
  buffer->Clear();
  bool own_buffer = false;
  return grpc::SerializationTraits<google::protobuf::Message>::Serialize(message, buffer,
                                                                          &own_buffer);
}

std::string StatusCodeName(grpc::StatusCode code) {
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
}

void FillFrameResult(uint64_t index, const ScoreResult& result, v1::FrameResult* out) {
  out->set_index(index);
  for (const auto& [metric, value] : result.scores) (*out->mutable_scores())[metric] = value;
  for (const auto& [name, value] : result.sums) (*out->mutable_sums())[name] = value;
  out->set_backend(result.backend);
  out->set_fallback_reason(result.fallback_reason);
  v1::StageTimings* t = out->mutable_timings();
  t->set_queue_wait(result.timings.queue_wait);
  t->set_upload(result.timings.upload);
  t->set_compute(result.timings.compute);
  t->set_readback(result.timings.readback);
  t->set_host_finish(result.timings.host_finish);
  t->set_total(result.timings.total);
}

}  // namespace ssimd
