// Drives a running ssimd with a known mix of traffic for the observability tests: ScoreClip streams
// for distinct titles, ScorePair calls, and one deliberately invalid request per round, so every
// family the dashboard and the alerts read has samples (including an error code). Synthetic
// pictures: a noise reference and a noisier distorted copy. With --ladder_source it first scores
// one ladder of files below the server's files root, for the per-title ladder view.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/synthetic_picture.h"
#include "grpcpp/grpcpp.h"
#include "proto/grpc/health/v1/health.grpc.pb.h"
#include "proto/ssimd/v1/ssimd.grpc.pb.h"

ABSL_FLAG(std::string, address, "127.0.0.1:50051", "ssimd's gRPC address.");
ABSL_FLAG(int, titles, 3, "Distinct titles per round (one ScoreClip stream each).");
ABSL_FLAG(int, frames, 4, "Frames per clip.");
ABSL_FLAG(int, width, 96, "Picture width.");
ABSL_FLAG(int, height, 64, "Picture height.");
ABSL_FLAG(std::string, title_prefix, "title-", "Titles are <prefix><n>.");
ABSL_FLAG(absl::Duration, duration, absl::ZeroDuration(),
          "Repeat rounds (same titles) until this much time has passed; 0 = one round.");
ABSL_FLAG(absl::Duration, ready_timeout, absl::Seconds(20),
          "How long to wait for grpc.health.v1 to report SERVING first.");
ABSL_FLAG(std::string, health_service, "",
          "Service name asked of grpc.health.v1 (\"\" = the server as a whole).");
ABSL_FLAG(bool, health_only, false, "Only wait for SERVING (exit 0) or time out (exit 2).");
ABSL_FLAG(std::string, ladder_source, "",
          "When set: first score one ladder (ScoreLadder) of this source, below the server's "
          "files root, and print each rendition's summary as a JSON line starting \"ladder \".");
ABSL_FLAG(std::vector<std::string>, ladder_renditions, {},
          "The ladder's renditions as NAME=PATH, comma-separated.");
ABSL_FLAG(std::string, ladder_title, "ladder-title", "The ladder's title_id.");

namespace ssimd {
namespace {

namespace v1 = ::ssimd::v1;

struct Picture {
  std::string reference;
  std::string distorted;
};

// A fresh pair for every frame: textured 8-bit content and a copy moved by up to 3 levels, so
// that scores sit high, as the dashboards expect of a lightly noised copy.
Picture MakePicture(int width, int height, std::mt19937& rng) {
  const SyntheticPlane reference = TexturedPlane(width, height, 8, rng());
  return Picture{reference.ToString(), Distort(reference, rng(), 3).ToString()};
}

void FillConfig(const std::string& title, v1::ClipConfig* config) {
  config->mutable_geometry()->set_width(absl::GetFlag(FLAGS_width));
  config->mutable_geometry()->set_height(absl::GetFlag(FLAGS_height));
  config->mutable_geometry()->set_bit_depth(8);
  config->mutable_geometry()->set_pixel_format(v1::PIXEL_FORMAT_420);
  config->mutable_features()->mutable_float_ssim();
  config->mutable_features()->mutable_ssim();
  config->set_backend(v1::BACKEND_AUTO);
  config->set_title_id(title);
  config->set_rung("96x64");
}

bool WaitUntilServing(const std::shared_ptr<grpc::Channel>& channel) {
  auto health = grpc::health::v1::Health::NewStub(channel);
  const absl::Time deadline = absl::Now() + absl::GetFlag(FLAGS_ready_timeout);
  while (absl::Now() < deadline) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    grpc::health::v1::HealthCheckRequest request;
    request.set_service(absl::GetFlag(FLAGS_health_service));
    grpc::health::v1::HealthCheckResponse response;
    if (health->Check(&context, request, &response).ok() &&
        response.status() == grpc::health::v1::HealthCheckResponse::SERVING) {
      return true;
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  return false;
}

// One clip: the config, then the frames from a writer thread while this thread reads results.
bool ScoreClip(v1::ScoringService::Stub& stub, const std::string& title, std::mt19937& rng) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  auto stream = stub.ScoreClip(&context);
  const int frames = absl::GetFlag(FLAGS_frames);
  std::thread writer([&] {
    v1::ScoreClipRequest request;
    FillConfig(title, request.mutable_config());
    if (!stream->Write(request)) return;
    for (int i = 0; i < frames; ++i) {
      const Picture p = MakePicture(absl::GetFlag(FLAGS_width), absl::GetFlag(FLAGS_height), rng);
      v1::ScoreClipRequest frame;
      frame.mutable_frame()->set_index(static_cast<uint64_t>(i));
      frame.mutable_frame()->set_reference_luma(p.reference);
      frame.mutable_frame()->set_distorted_luma(p.distorted);
      if (!stream->Write(frame)) return;
    }
    stream->WritesDone();
  });
  int results = 0;
  bool summary = false;
  v1::ScoreClipResponse response;
  while (stream->Read(&response)) {
    if (response.has_frame()) ++results;
    if (response.has_summary()) summary = true;
  }
  writer.join();
  const grpc::Status status = stream->Finish();
  if (!status.ok() || results != frames || !summary) {
    std::fprintf(stderr, "ScoreClip %s: %s (%d of %d frames, summary %d)\n", title.c_str(),
                 status.error_message().c_str(), results, frames, summary);
    return false;
  }
  return true;
}

bool ScorePair(v1::ScoringService::Stub& stub, std::mt19937& rng, bool valid) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  v1::ScorePairRequest request;
  v1::ClipConfig config;
  FillConfig("", &config);
  *request.mutable_geometry() = config.geometry();
  *request.mutable_features() = config.features();
  const Picture p = MakePicture(absl::GetFlag(FLAGS_width), absl::GetFlag(FLAGS_height), rng);
  request.set_reference_luma(p.reference);
  // A plane one byte short is the invalid case: the server must answer INVALID_ARGUMENT.
  request.set_distorted_luma(valid ? p.distorted : p.distorted.substr(1));
  v1::ScorePairResponse response;
  const grpc::Status status = stub.ScorePair(&context, request, &response);
  const grpc::StatusCode expected = valid ? grpc::StatusCode::OK
                                          : grpc::StatusCode::INVALID_ARGUMENT;
  if (status.error_code() != expected) {
    std::fprintf(stderr, "ScorePair (valid=%d): code %d: %s\n", valid, status.error_code(),
                 status.error_message().c_str());
    return false;
  }
  return true;
}

// One rendition summary as a JSON object, doubles with 17 significant digits so that a reader
// gets the very value the server sent.
std::string SummaryJson(const v1::RenditionSummary& r) {
  std::string json = absl::StrFormat(
      "{\"rendition\": \"%s\", \"bitrate_bits_per_second\": %.17g, \"size_bytes\": %d, "
      "\"codec\": \"%s\", \"width\": %d, \"height\": %d, \"frames\": %d, \"pooled\": {",
      absl::CHexEscape(r.rendition()), r.bitrate_bits_per_second(), r.size_bytes(),
      absl::CHexEscape(r.codec()), r.width(), r.height(), r.summary().frames());
  // Sorted, for a stable line.
  std::map<std::string, v1::PooledScore> pooled(r.summary().pooled().begin(),
                                                r.summary().pooled().end());
  bool first = true;
  for (const auto& [metric, p] : pooled) {
    absl::StrAppendFormat(&json, "%s\"%s\": {\"mean\": %.17g, \"harmonic_mean\": %.17g",
                          first ? "" : ", ", metric, p.mean(), p.harmonic_mean());
    for (const v1::Percentile& q : p.percentiles()) {
      absl::StrAppendFormat(&json, ", \"p%g\": %.17g", q.percentile(), q.value());
    }
    json += "}";
    first = false;
  }
  return json + "}}";
}

bool ScoreLadder(v1::ScoringService::Stub& stub) {
  v1::ScoreLadderRequest request;
  request.mutable_config()->mutable_features()->mutable_float_ssim();
  request.mutable_config()->mutable_features()->mutable_ssim();
  request.mutable_config()->set_title_id(absl::GetFlag(FLAGS_ladder_title));
  request.set_source_path(absl::GetFlag(FLAGS_ladder_source));
  for (const std::string& rung : absl::GetFlag(FLAGS_ladder_renditions)) {
    const std::pair<std::string, std::string> parts = absl::StrSplit(rung, absl::MaxSplits('=', 1));
    v1::Rendition* rendition = request.add_renditions();
    rendition->set_name(parts.first);
    rendition->set_path(parts.second);
  }
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::minutes(5));
  auto reader = stub.ScoreLadder(&context, request);
  v1::ScoreLadderResponse response;
  int summaries = 0;
  while (reader->Read(&response)) {
    if (!response.has_rendition_summary()) continue;
    std::printf("ladder %s\n", SummaryJson(response.rendition_summary()).c_str());
    ++summaries;
  }
  const grpc::Status status = reader->Finish();
  if (!status.ok() || summaries != request.renditions_size()) {
    std::fprintf(stderr, "ScoreLadder: %s (%d of %d rendition summaries)\n",
                 status.error_message().c_str(), summaries, request.renditions_size());
    return false;
  }
  return true;
}

int Run() {
  const std::string address = absl::GetFlag(FLAGS_address);
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  if (!WaitUntilServing(channel)) {
    std::fprintf(stderr, "%s did not report \"%s\" SERVING within --ready_timeout\n",
                 address.c_str(), absl::GetFlag(FLAGS_health_service).c_str());
    return 2;
  }
  if (absl::GetFlag(FLAGS_health_only)) return 0;
  auto stub = v1::ScoringService::NewStub(channel);
  if (!absl::GetFlag(FLAGS_ladder_source).empty() && !ScoreLadder(*stub)) return 1;
  std::mt19937 rng(20261202);
  const absl::Time end = absl::Now() + absl::GetFlag(FLAGS_duration);
  int rounds = 0;
  int clips = 0;
  do {
    for (int t = 0; t < absl::GetFlag(FLAGS_titles); ++t) {
      if (!ScoreClip(*stub, absl::StrCat(absl::GetFlag(FLAGS_title_prefix), t), rng)) return 1;
      ++clips;
    }
    if (!ScorePair(*stub, rng, /*valid=*/true) || !ScorePair(*stub, rng, /*valid=*/false)) {
      return 1;
    }
    ++rounds;
  } while (absl::Now() < end);
  std::printf("rounds=%d clips=%d\n", rounds, clips);
  return 0;
}

}  // namespace
}  // namespace ssimd

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return ssimd::Run();
}
