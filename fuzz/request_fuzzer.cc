// Fuzzes request validation: the protobuf parse of ScoreClip and ScorePair messages and the checks
// the server runs on them (server/request_parsing, then the engine), in the order the ScoreClip
// reactor and ScorePair handler run them. Small accepted frames are scored on the CPU and pooled
// into a clip summary, so odd geometries and options reach the arithmetic too.
//
// Input: byte 0 picks the RPC and the server's backend policy:
//   bit 0   0 = ScoreClip, 1 = ScorePair
//   bits 1-2  policy: 0 auto, 1 gpu, 2 cpu, 3 auto (this harness has no GPU)
// ScoreClip: then a sequence of ScoreClipRequest messages, each preceded by its size as a varint
// (the stream's framing). ScorePair: then one ScorePairRequest.
//
// Checked beyond "no crash": every refusal carries one of the API's documented codes and a
// message that starts with the offending field's path; accepted geometries are valid; a scored
// frame carries exactly the requested metrics; the summary counts the scored frames and reports
// every requested percentile of every metric.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
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
#include "proto/ssimd/v1/ssimd.pb.h"
#include "server/clip_accumulator.h"
#include "server/request_parsing.h"
#include "server/service_options.h"
#include "spdlog/spdlog.h"

namespace ssimd {
namespace {

// Frames up to this many pixels are scored (a 64x64 frame takes well under a millisecond).
constexpr int64_t kMaxScoredPixels = 64 * 64;
// Messages read from one input: a config and a few frames cover every path.
constexpr int kMaxMessages = 12;

Dispatcher& CpuOnlyDispatcher() {
  static Dispatcher* dispatcher = [] {
    CpuScorerOptions options;
    options.threads = 1;
    return new Dispatcher(MakeCpuScorer(options), nullptr, "this fuzz harness has no GPU");
  }();
  return *dispatcher;
}

absl::Span<const uint8_t> Bytes(const std::string& s) {
  return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
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
bool ScoreFrame(const ClipSettings& settings, const std::string& reference,
                const std::string& distorted, ClipAccumulator* accumulator) {
  auto ref = MakeLumaView(settings.geometry, Bytes(reference), "reference_luma");
  auto dis = MakeLumaView(settings.geometry, Bytes(distorted), "distorted_luma");
  FUZZ_CHECK(ref.ok() && dis.ok(), "a plane that passed CheckPlaneSize has no view");
  for (const auto* view : {&*ref, &*dis}) {
    absl::Status range = ValidateSampleRange(*view, "luma");
    if (!range.ok()) {
      FUZZ_CHECK(range.code() == absl::StatusCode::kInvalidArgument, "range check code %d",
                 static_cast<int>(range.code()));
      return false;
    }
  }
  const int64_t pixels = static_cast<int64_t>(settings.geometry.width) * settings.geometry.height;
  if (pixels > kMaxScoredPixels) return true;
  absl::StatusOr<ScoreResult> result = CpuOnlyDispatcher().Score(
      settings.geometry, settings.features, FramePair{*ref, *dis}, settings.backend);
  FUZZ_CHECK(result.ok(), "an accepted frame failed to score: %s",
             result.status().ToString().c_str());
  std::set<std::string> expected;
  for (const std::string& name : MetricNames(settings.features)) expected.insert(name);
  std::set<std::string> got;
  for (const auto& [name, value] : result->scores) got.insert(name);
  FUZZ_CHECK(got == expected, "the frame's metrics are not the requested ones");
  accumulator->Add(result->scores, result->backend, !result->fallback_reason.empty());
  return true;
}

void CheckSummary(const ClipSettings& settings, const ClipAccumulator& accumulator) {
  v1::ClipSummary summary;
  accumulator.FillSummary(settings.percentiles, &summary);
  FUZZ_CHECK(summary.frames() == accumulator.frames(), "the summary miscounts frames");
  if (accumulator.frames() == 0) return;
  const std::vector<std::string> names = MetricNames(settings.features);
  FUZZ_CHECK(static_cast<size_t>(summary.pooled_size()) == names.size(),
             "the summary pools %d metrics, expected %zu", summary.pooled_size(), names.size());
  for (const auto& [metric, pooled] : summary.pooled()) {
    FUZZ_CHECK(static_cast<size_t>(pooled.percentiles_size()) == settings.percentiles.size(),
               "%s reports %d percentiles, %zu were asked", metric.c_str(),
               pooled.percentiles_size(), settings.percentiles.size());
  }
}

// The ScoreClip reactor's checks, message by message, until the stream would end.
void RunClip(google::protobuf::io::CodedInputStream* in, const ServiceOptions& options) {
  bool configured = false;
  ClipSettings settings;
  ClipAccumulator accumulator;
  uint64_t next_index = 0;
  for (int m = 0; m < kMaxMessages; ++m) {
    uint32_t size = 0;
    if (!in->ReadVarint32(&size)) break;
    const auto limit = in->PushLimit(static_cast<int>(std::min<uint32_t>(size, 1u << 30)));
    v1::ScoreClipRequest request;
    const bool parsed = request.ParseFromCodedStream(in) && in->ConsumedEntireMessage();
    in->PopLimit(limit);
    if (!parsed) return;  // gRPC would refuse the message before the service sees it

    if (request.has_config()) {
      if (configured) return;  // FAILED_PRECONDITION: a second config
      const v1::ClipConfig& config = request.config();
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
    } else if (request.has_frame()) {
      if (!configured) return;  // FAILED_PRECONDITION: a frame before the config
      const v1::FramePair& frame = request.frame();
      if (frame.index() != next_index) return;
      absl::Status status =
          CheckPlaneSize(settings.geometry, frame.reference_luma().size(), "frame.reference_luma");
      if (!status.ok()) return CheckRefusal(status, "frame.reference_luma");
      status =
          CheckPlaneSize(settings.geometry, frame.distorted_luma().size(), "frame.distorted_luma");
      if (!status.ok()) return CheckRefusal(status, "frame.distorted_luma");
      ++next_index;
      if (!ScoreFrame(settings, frame.reference_luma(), frame.distorted_luma(), &accumulator)) {
        return;
      }
    } else {
      return;  // INVALID_ARGUMENT: an empty message
    }
  }
  if (configured) CheckSummary(settings, accumulator);
}

// The ScorePair handler's checks.
void RunPair(google::protobuf::io::CodedInputStream* in, const ServiceOptions& options) {
  v1::ScorePairRequest request;
  if (!request.ParseFromCodedStream(in)) return;
  if (!request.has_geometry()) return;
  ClipSettings settings;
  auto geometry = ParseGeometry(request.geometry(), "geometry");
  if (!geometry.ok()) return CheckRefusal(geometry.status(), "geometry");
  settings.geometry = *geometry;
  auto features = ParseFeatures(request.features(), "features");
  if (!features.ok()) return CheckRefusal(features.status(), "features");
  settings.features = *features;
  auto backend = ParseBackend(request.backend(), options.backend_policy, "backend");
  if (!backend.ok()) return CheckRefusal(backend.status(), "backend");
  settings.backend = *backend;
  absl::Status status =
      CheckPlaneSize(settings.geometry, request.reference_luma().size(), "reference_luma");
  if (!status.ok()) return CheckRefusal(status, "reference_luma");
  status = CheckPlaneSize(settings.geometry, request.distorted_luma().size(), "distorted_luma");
  if (!status.ok()) return CheckRefusal(status, "distorted_luma");
  status = CpuOnlyDispatcher().CheckRequest(settings.geometry, settings.features,
                                            settings.backend);
  // The handler passes the engine's refusal on as it is, without a field path.
  if (!status.ok()) return CheckRefusal(status, "");
  ClipAccumulator unused;
  ScoreFrame(settings, request.reference_luma(), request.distorted_luma(), &unused);
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
  google::protobuf::io::CodedInputStream in(data + 1, static_cast<int>(size - 1));
  if (data[0] & 1) {
    ssimd::RunPair(&in, options);
  } else {
    ssimd::RunClip(&in, options);
  }
  return 0;
}
