// Fuzzes request validation: the reading of ScoreClip and ScorePair messages from the received
// bytes (server/wire_request, checked against protobuf's own parse of the same bytes) and the
// checks the server runs on them (server/request_parsing, then the engine), in the order the
// ScoreClip reactor and ScorePair handler run them. Small accepted frames are scored on the CPU
// and pooled into a clip summary, so odd geometries and options reach the arithmetic too.
//
// Input: byte 0 picks the RPC, the server's backend policy and how messages are cut:
//   bit 0     0 = ScoreClip, 1 = ScorePair
//   bits 1-2  policy: 0 auto, 1 gpu, 2 cpu, 3 auto (this harness has no GPU)
//   bits 3-5  the size of the chunks a message arrives in (as gRPC's slices): see kChunkSizes
// ScoreClip: then a sequence of ScoreClipRequest messages, each preceded by its size as a varint
// (the stream's framing). ScorePair: then one ScorePairRequest.
//
// Checked beyond "no crash": the server's reading of a message agrees with protobuf (both refuse
// it, or both give the same fields); every refusal carries one of the API's documented codes and
// a message that starts with the offending field's path; accepted geometries are valid; a scored
// frame carries exactly the requested metrics; the summary counts the scored frames and reports
// every requested percentile of every metric.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/types/span.h"
#include "engine/cpu/cpu_scorer.h"
#include "engine/dispatcher.h"
#include "engine/picture.h"
#include "fuzz/fuzz_support.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/util/field_comparator.h"
#include "google/protobuf/util/message_differencer.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "proto/clip_accumulator.h"
#include "server/request_parsing.h"
#include "server/service_options.h"
#include "server/wire_request.h"
#include "spdlog/spdlog.h"

namespace ssimd {
namespace {

// Frames up to this many pixels are scored (a 64x64 frame takes well under a millisecond).
constexpr int64_t kMaxScoredPixels = 64 * 64;
// Messages read from one input: a config and a few frames cover every path.
constexpr int kMaxMessages = 12;
constexpr size_t kChunkSizes[8] = {SIZE_MAX, 1, 2, 3, 7, 64, 1000, 16384};

Dispatcher& CpuOnlyDispatcher() {
  static Dispatcher* dispatcher = [] {
    CpuScorerOptions options;
    options.threads = 1;
    return new Dispatcher(MakeCpuScorer(options), nullptr, "this fuzz harness has no GPU");
  }();
  return *dispatcher;
}

Chunks Cut(const uint8_t* data, size_t size, size_t chunk) {
  Chunks chunks;
  for (size_t at = 0; at < size; at += std::min(chunk, size - at)) {
    chunks.emplace_back(data + at, std::min(chunk, size - at));
  }
  return chunks;
}

std::string Text(absl::Span<const uint8_t> bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::string Gathered(const PlanePieces& pieces) {
  std::vector<uint8_t> scratch;
  const absl::Span<const uint8_t> whole = pieces.Gather(scratch);
  return std::string(whole.begin(), whole.end());
}

// Unknown fields, which the server ignores either way, are not compared.
class KnownFieldsOnly final : public google::protobuf::util::MessageDifferencer::IgnoreCriteria {
 public:
  bool IsIgnored(const google::protobuf::Message&, const google::protobuf::Message&,
                 const google::protobuf::FieldDescriptor*,
                 const std::vector<google::protobuf::util::MessageDifferencer::SpecificField>&)
      override {
    return false;
  }
  bool IsUnknownFieldIgnored(
      const google::protobuf::Message&, const google::protobuf::Message&,
      const google::protobuf::util::MessageDifferencer::SpecificField&,
      const std::vector<google::protobuf::util::MessageDifferencer::SpecificField>&) override {
    return true;
  }
};

// The server's reading of a message must be protobuf's: both refuse it, or both see the same
// fields.
template <typename Proto>
void CheckAgainstProtobuf(bool ours_ok, const Proto& ours, const uint8_t* data, size_t size) {
  Proto theirs;
  const bool theirs_ok = theirs.ParseFromArray(data, static_cast<int>(size));
  FUZZ_CHECK(ours_ok == theirs_ok, "wire reading %s a message that protobuf %s",
             ours_ok ? "accepted" : "refused", theirs_ok ? "accepts" : "refuses");
  if (!ours_ok) return;
#if defined(__SANITIZE_THREAD__)
  // Under ThreadSanitizer, reflection over a map field (which the comparison needs) crashes
  // inside Debian's uninstrumented libprotobuf (a wild read in MapField's
  // SyncRepeatedFieldWithMapNoLock, through MessageDifferencer and DiscardUnknownFields alike),
  // with or without the server's code involved. The comparison runs in every other build.
  return;
#endif
  google::protobuf::util::DefaultFieldComparator same_bits_or_both_nan;
  same_bits_or_both_nan.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_field_comparator(&same_bits_or_both_nan);
  differencer.AddIgnoreCriteria(new KnownFieldsOnly());  // the differencer owns it
  FUZZ_CHECK(differencer.Compare(ours, theirs),
             "wire reading and protobuf disagree on a message's fields: %.300s vs %.300s",
             ours.ShortDebugString().c_str(), theirs.ShortDebugString().c_str());
}

absl::StatusOr<ReceivedClipMessage> ReadClipMessage(const uint8_t* data, size_t size,
                                                    size_t chunk) {
  const Chunks chunks = Cut(data, size, chunk);
  absl::StatusOr<ReceivedClipMessage> message = ReadScoreClipRequestFromChunks(chunks);
  v1::ScoreClipRequest rebuilt;
  if (message.ok()) {
    if (message->frame_index.has_value()) {
      v1::FramePair* frame = rebuilt.mutable_frame();
      frame->set_index(*message->frame_index);
      frame->set_reference_luma(Gathered(message->planes.reference));
      frame->set_distorted_luma(Gathered(message->planes.distorted));
      frame->set_reference_chroma(Text(message->planes.reference_chroma));
      frame->set_distorted_chroma(Text(message->planes.distorted_chroma));
    } else {
      rebuilt = message->other;
      FUZZ_CHECK(!rebuilt.has_frame(), "a frame message without a frame index");
    }
  } else {
    FUZZ_CHECK(message.status().code() == absl::StatusCode::kInvalidArgument,
               "a message that does not parse is not INVALID_ARGUMENT");
  }
  CheckAgainstProtobuf(message.ok(), rebuilt, data, size);
  return message;
}

absl::StatusOr<ReceivedPairMessage> ReadPairMessage(const uint8_t* data, size_t size,
                                                    size_t chunk) {
  const Chunks chunks = Cut(data, size, chunk);
  absl::StatusOr<ReceivedPairMessage> message = ReadScorePairRequestFromChunks(chunks);
  v1::ScorePairRequest rebuilt;
  if (message.ok()) {
    rebuilt = message->fields;
    FUZZ_CHECK(rebuilt.reference_luma().empty() && rebuilt.distorted_luma().empty(),
               "the planes were left in the message's other fields");
    rebuilt.set_reference_luma(Gathered(message->planes.reference));
    rebuilt.set_distorted_luma(Gathered(message->planes.distorted));
    FUZZ_CHECK(rebuilt.reference_chroma().empty() && rebuilt.distorted_chroma().empty(),
               "the chroma planes were left in the message's other fields");
    rebuilt.set_reference_chroma(Text(message->planes.reference_chroma));
    rebuilt.set_distorted_chroma(Text(message->planes.distorted_chroma));
  }
  CheckAgainstProtobuf(message.ok(), rebuilt, data, size);
  return message;
}

// A refusal as the API documents them: a known code and a message naming the field first.
void CheckRefusal(const absl::Status& status, absl::string_view field) {
  const absl::StatusCode code = status.code();
  FUZZ_CHECK(code == absl::StatusCode::kInvalidArgument ||
                 code == absl::StatusCode::kFailedPrecondition ||
                 code == absl::StatusCode::kResourceExhausted ||
                 code == absl::StatusCode::kUnavailable,
             "refusal with undocumented code %d: %s", static_cast<int>(code),
             status.ToString().c_str());
  FUZZ_CHECK(absl::StartsWith(status.message(), field), "refusal does not start with \"%s\": %s",
             std::string(field).c_str(), status.ToString().c_str());
}

// Scores one accepted frame pair, as a worker does after the reactor accepted the frame. Returns
// false when the frame is refused (which ends the stream).
bool ScoreFrame(const ClipSettings& settings, const ReceivedPlanes& planes,
                ClipAccumulator* accumulator) {
  const int64_t pixels = static_cast<int64_t>(settings.geometry.width) * settings.geometry.height;
  if (pixels > kMaxScoredPixels) return true;
  // As the server: the chroma's sizes were checked when the frame was accepted.
  absl::StatusOr<std::optional<FrameChroma>> chroma =
      ChromaToScore(settings.geometry, settings.features, planes, "");
  FUZZ_CHECK(chroma.ok(), "a frame's chroma was accepted, then refused: %s",
             chroma.status().ToString().c_str());
  absl::StatusOr<ScoreResult> result = CpuOnlyDispatcher().ScorePieces(
      settings.geometry, settings.features,
      {&planes.reference, &planes.distorted, nullptr, chroma->has_value() ? &**chroma : nullptr},
      settings.backend);
  if (!result.ok()) {
    // Only a sample above the bit depth's peak may refuse a frame whose planes have the size.
    FUZZ_CHECK(result.status().code() == absl::StatusCode::kInvalidArgument &&
                   absl::StrContains(result.status().message(), "above"),
               "an accepted frame failed to score: %s", result.status().ToString().c_str());
    return false;
  }
  std::set<std::string> expected;
  for (const std::string& name : MetricNames(settings.features, settings.geometry.chroma)) {
    expected.insert(name);
  }
  std::set<std::string> got;
  for (const auto& [name, value] : result->scores) got.insert(name);
  FUZZ_CHECK(got == expected, "the frame's metrics are not the requested ones");
  accumulator->Add(result->scores, result->sums, result->backend,
                   !result->fallback_reason.empty());
  return true;
}

void CheckSummary(const ClipSettings& settings, const ClipAccumulator& accumulator) {
  v1::ClipSummary summary;
  accumulator.FillSummary(settings.percentiles, &summary);
  FUZZ_CHECK(summary.frames() == accumulator.frames(), "the summary miscounts frames");
  if (accumulator.frames() == 0) return;
  const std::vector<std::string> names = MetricNames(settings.features, settings.geometry.chroma);
  FUZZ_CHECK(static_cast<size_t>(summary.pooled_size()) == names.size(),
             "the summary pools %d metrics, expected %zu", summary.pooled_size(), names.size());
  for (const auto& [metric, pooled] : summary.pooled()) {
    FUZZ_CHECK(static_cast<size_t>(pooled.percentiles_size()) == settings.percentiles.size(),
               "%s reports %d percentiles, %zu were asked", metric.c_str(),
               pooled.percentiles_size(), settings.percentiles.size());
  }
}

// The ScoreClip reactor's checks, message by message, until the stream would end.
void RunClip(google::protobuf::io::CodedInputStream* in, const ServiceOptions& options,
             size_t chunk) {
  bool configured = false;
  ClipSettings settings;
  ClipAccumulator accumulator;
  uint64_t next_index = 0;
  for (int m = 0; m < kMaxMessages; ++m) {
    uint32_t size = 0;
    if (!in->ReadVarint32(&size)) break;
    const void* data = nullptr;
    int available = 0;
    if (size > 0 && !in->GetDirectBufferPointer(&data, &available)) return;
    if (size > static_cast<uint32_t>(available)) return;  // a message cut off: never delivered
    const uint8_t* bytes = static_cast<const uint8_t*>(data);
    absl::StatusOr<ReceivedClipMessage> message = ReadClipMessage(bytes, size, chunk);
    in->Skip(static_cast<int>(size));
    if (!message.ok()) return;  // INVALID_ARGUMENT: the message does not parse

    if (!message->frame_index.has_value() && message->other.has_config()) {
      if (configured) return;  // FAILED_PRECONDITION: a second config
      const v1::ClipConfig& config = message->other.config();
      if (!config.has_geometry()) return;
      auto geometry = ParseGeometry(config.geometry(), "config.geometry");
      if (!geometry.ok()) return CheckRefusal(geometry.status(), "config.geometry");
      FUZZ_CHECK(ValidateGeometry(*geometry).ok(), "ParseGeometry accepted an invalid geometry");
      auto parsed_settings = ParseClipOptions(config, options, "config");
      if (!parsed_settings.ok()) return CheckRefusal(parsed_settings.status(), "config");
      settings = *parsed_settings;
      settings.geometry = *geometry;
      FUZZ_CHECK(ValidateFeatureSet(settings.features).ok(), "accepted features are invalid");
      FUZZ_CHECK(!settings.percentiles.empty(), "a clip without percentiles to report");
      absl::Status status =
          CheckFitsMessage(settings.geometry, options.max_message_bytes, "config.geometry");
      if (status.ok()) {
        status = WithField(CpuOnlyDispatcher().CheckRequest(settings.geometry, settings.features,
                                                            settings.backend),
                           "config");
      }
      if (!status.ok()) return CheckRefusal(status, "config");
      configured = true;
    } else if (message->frame_index.has_value()) {
      if (!configured) return;  // FAILED_PRECONDITION: a frame before the config
      if (*message->frame_index != next_index) return;
      const ReceivedPlanes& planes = message->planes;
      absl::Status status =
          CheckPlaneSize(settings.geometry, planes.reference.size(), "frame.reference_luma");
      if (!status.ok()) return CheckRefusal(status, "frame.reference_luma");
      status = CheckPlaneSize(settings.geometry, planes.distorted.size(), "frame.distorted_luma");
      if (!status.ok()) return CheckRefusal(status, "frame.distorted_luma");
      status = ChromaToScore(settings.geometry, settings.features, planes, "frame.").status();
      if (!status.ok()) return CheckRefusal(status, "frame.");
      ++next_index;
      if (!ScoreFrame(settings, planes, &accumulator)) return;
    } else {
      return;  // INVALID_ARGUMENT: an empty message
    }
  }
  if (configured) CheckSummary(settings, accumulator);
}

// The ScorePair handler's checks.
void RunPair(const uint8_t* data, size_t size, const ServiceOptions& options, size_t chunk) {
  absl::StatusOr<ReceivedPairMessage> message = ReadPairMessage(data, size, chunk);
  if (!message.ok()) return;
  const v1::ScorePairRequest& request = message->fields;
  if (!request.has_geometry()) return;
  ClipSettings settings;
  auto geometry = ParseGeometry(request.geometry(), "geometry");
  if (!geometry.ok()) return CheckRefusal(geometry.status(), "geometry");
  settings.geometry = *geometry;
  auto features = ParseFeatures(request.features(), "features", VmafModelRegistry());
  if (!features.ok()) return CheckRefusal(features.status(), "features");
  settings.features = *features;
  auto backend = ParseBackend(request.backend(), options.backend_policy, "backend");
  if (!backend.ok()) return CheckRefusal(backend.status(), "backend");
  settings.backend = *backend;
  absl::Status status =
      CheckPlaneSize(settings.geometry, message->planes.reference.size(), "reference_luma");
  if (!status.ok()) return CheckRefusal(status, "reference_luma");
  status = CheckPlaneSize(settings.geometry, message->planes.distorted.size(), "distorted_luma");
  if (!status.ok()) return CheckRefusal(status, "distorted_luma");
  status = ChromaToScore(settings.geometry, settings.features, message->planes, "").status();
  if (!status.ok()) return CheckRefusal(status, "");
  status = CpuOnlyDispatcher().CheckRequest(settings.geometry, settings.features,
                                            settings.backend);
  // The handler passes the engine's refusal on as it is, without a field path.
  if (!status.ok()) return CheckRefusal(status, "");
  ClipAccumulator unused;
  ScoreFrame(settings, message->planes, &unused);
}

}  // namespace
}  // namespace ssimd

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  // Refused inputs are the point here: their log lines (protobuf's UTF-8 complaints, fallback
  // warnings) would only flood the fuzzer's output.
  google::protobuf::SetLogHandler(nullptr);
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static constexpr ssimd::BackendPreference kPolicies[] = {
      ssimd::BackendPreference::kAuto, ssimd::BackendPreference::kGpu,
      ssimd::BackendPreference::kCpu, ssimd::BackendPreference::kAuto};
  ssimd::ServiceOptions options;
  options.backend_policy = kPolicies[(data[0] >> 1) & 3];
  const size_t chunk = ssimd::kChunkSizes[(data[0] >> 3) & 7];
  if (data[0] & 1) {
    ssimd::RunPair(data + 1, size - 1, options, chunk);
  } else {
    google::protobuf::io::CodedInputStream in(data + 1, static_cast<int>(size - 1));
    ssimd::RunClip(&in, options, chunk);
  }
  return 0;
}
