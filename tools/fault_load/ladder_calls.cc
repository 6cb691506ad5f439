#include "tools/fault_load/ladder_calls.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "tools/fault_load/child_process.h"

namespace ssimd::fault_load {
namespace {

std::chrono::system_clock::time_point DeadlineIn(absl::Duration d) {
  return std::chrono::system_clock::now() + absl::ToChronoMicroseconds(d);
}

// The stalled reader's own connection: no BDP probing and a small look-ahead keep its receive
// window small, so that the server runs into flow control soon; and a stream that holds the
// connection's window does not hold up the worker's other streams.
std::shared_ptr<grpc::Channel> StalledReaderChannel(const std::string& target) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 4096);
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
}

void RecordEnd(const grpc::Status& status, StreamOutcome* call) {
  call->finished = absl::Now();
  call->code = status.error_code();
  call->message = status.error_message();
}

// Reads the rest of a ladder call's responses and its status.
void ReadToEnd(grpc::ClientReader<v1::ScoreLadderResponse>* reader, LadderOutcome* out) {
  v1::ScoreLadderResponse response;
  while (reader->Read(&response)) out->responses.push_back(std::move(response));
  RecordEnd(reader->Finish(), &out->call);
}

}  // namespace

v1::ScoreLadderRequest LadderRequest(const LadderSet& set, const LadderPlan& plan,
                                     const std::string& url_origin, const std::string& call) {
  v1::ScoreLadderRequest request;
  *request.mutable_config() = set.shape.config;
  request.set_source_path(set.source_path);
  request.set_source_start_frame(plan.start);
  request.set_frame_count(plan.frame_count);
  // accurate_rnd: libswscale's C rounding, the bytes the expected scores were computed from.
  request.mutable_upscale()->set_scaler(v1::SCALER_BICUBIC);
  request.mutable_upscale()->set_accurate_rounding(true);
  for (int index : plan.renditions) {
    const LadderRendition& rung = set.renditions[index];
    v1::Rendition* rendition = request.add_renditions();
    rendition->set_name(rung.name);
    rendition->set_path(url_origin.empty()
                            ? rung.path
                            : absl::StrCat(url_origin, "/", rung.path, "?call=", call));
    rendition->set_start_frame(plan.start);
    for (const std::string& arg : rung.feature_args) {
      rendition->mutable_features()->add_feature_args(arg);
    }
  }
  return request;
}

LadderOutcome LadderCalls::Run(const StreamPlan& plan, v1::ScoringService::Stub* stub) {
  switch (plan.ladder.fault) {
    case LadderFault::kStalledReader:
      return RunStalledReader(plan.ladder);
    case LadderFault::kVanish:
      return RunVanishing(plan.ladder);
    case LadderFault::kDecodeBomb:
      return RunDecodeBomb(plan.ladder, stub);
    default:
      return RunLadder(plan.ladder, stub);
  }
}

LadderOutcome LadderCalls::RunLadder(const LadderPlan& plan, v1::ScoringService::Stub* stub) {
  LadderOutcome out;
  const LadderSet& set = media_->sets[plan.set];
  const std::string call = absl::StrCat(next_call_.fetch_add(1));
  const bool urls = plan.urls && http_ != nullptr;
  const v1::ScoreLadderRequest request =
      LadderRequest(set, plan, urls ? http_->Origin() : "", call);
  out.call.started = absl::Now();
  grpc::ClientContext context;
  context.set_deadline(DeadlineIn(plan.deadline));
  std::unique_ptr<grpc::ClientReader<v1::ScoreLadderResponse>> reader =
      stub->ScoreLadder(&context, request);

  absl::Mutex mu;
  absl::Time cancelled_at = absl::InfiniteFuture();
  auto cancel = [&] {
    absl::MutexLock lock(&mu);
    if (cancelled_at != absl::InfiniteFuture()) return;
    cancelled_at = absl::Now();
    context.TryCancel();
  };
  // Cancels by time (before the first result, or while the server fetches URLs) come from a
  // timer beside the reader, since Read blocks.
  const bool timed = plan.cancel_point == CancelPoint::kBeforeFirstResult ||
                     plan.cancel_at > absl::ZeroDuration();
  const absl::Duration cancel_after_time =
      plan.cancel_point == CancelPoint::kBeforeFirstResult ? plan.cancel_delay : plan.cancel_at;
  absl::Notification call_over;
  std::thread timer;
  if (timed) {
    timer = std::thread([&] {
      if (!call_over.WaitForNotificationWithTimeout(cancel_after_time)) cancel();
    });
  }
  const bool cancels_by_count = plan.cancel_point == CancelPoint::kMidLadder ||
                                plan.cancel_point == CancelPoint::kLastRounds ||
                                plan.cancel_point == CancelPoint::kAmongSummaries;
  v1::ScoreLadderResponse response;
  while (reader->Read(&response)) {
    out.responses.push_back(std::move(response));
    if (cancels_by_count && static_cast<int>(out.responses.size()) == plan.cancel_after) cancel();
  }
  RecordEnd(reader->Finish(), &out.call);
  call_over.Notify();
  if (timer.joinable()) timer.join();
  if (urls) {
    absl::Time at;
    {
      absl::MutexLock lock(&mu);
      at = cancelled_at;
    }
    if (at != absl::InfiniteFuture()) {
      CheckFetchesAfterCancel(call, at, &out);
    } else {
      http_->Forget(call);
    }
  }
  return out;
}

bool LadderCalls::BombSlotFree() const {
  return bombs_running_ < std::max(1, options_.max_concurrent_bombs);
}

void LadderCalls::CheckFetchesAfterCancel(const std::string& call, absl::Time cancelled_at,
                                          LadderOutcome* out) {
  const absl::Time limit = cancelled_at + options_.url_cancel_grace;
  // Past the grace period, and long enough for the slow server to see a closed connection.
  const absl::Duration wait = limit + absl::Milliseconds(300) - absl::Now();
  if (wait > absl::ZeroDuration()) absl::SleepFor(wait);
  std::vector<std::string> details;
  for (const HttpFetch& fetch : http_->FetchesOf(call)) {
    if (fetch.started > limit) {
      ++out->url_fetches_after_cancel;
      details.push_back(absl::StrFormat("%s started %.0f ms after the cancel", fetch.path,
                                        absl::ToDoubleMilliseconds(fetch.started - cancelled_at)));
    } else if (fetch.ended > limit) {
      ++out->url_fetches_after_cancel;
      details.push_back(absl::StrFormat(
          "%s %s", fetch.path,
          fetch.ended == absl::InfiniteFuture()
              ? std::string("was still being read")
              : absl::StrFormat("was read until %.0f ms after the cancel",
                                absl::ToDoubleMilliseconds(fetch.ended - cancelled_at))));
    }
  }
  if (!details.empty()) {
    out->url_detail = absl::StrCat(details.size(), " fetch(es): ", details.front(),
                                   details.size() > 1 ? ", ..." : "");
  }
  http_->Forget(call);
}

LadderOutcome LadderCalls::RunStalledReader(const LadderPlan& plan) {
  LadderOutcome out;
  const LadderSet& set = media_->sets[plan.set];
  const v1::ScoreLadderRequest request = LadderRequest(set, plan, "", "");
  auto stub = v1::ScoringService::NewStub(StalledReaderChannel(options_.target));
  out.call.started = absl::Now();
  grpc::ClientContext context;
  context.set_deadline(DeadlineIn(plan.deadline));
  auto reader = stub->ScoreLadder(&context, request);
  v1::ScoreLadderResponse response;
  bool open = true;
  while (static_cast<int>(out.responses.size()) < plan.stop_reading_after &&
         (open = reader->Read(&response))) {
    out.responses.push_back(std::move(response));
  }
  out.stopped_reading_at = absl::Now();
  if (open) {
    // Reads nothing for the idle timeout and a margin: the server must end the call meanwhile.
    // Then reads what is left, which tells whether and how it did.
    absl::SleepFor(plan.stall);
    ReadToEnd(reader.get(), &out);
  } else {
    RecordEnd(reader->Finish(), &out.call);
  }
  return out;
}

LadderOutcome LadderCalls::RunVanishing(const LadderPlan& plan) {
  const LadderSet& set = media_->sets[plan.set];
  std::string serialized;
  LadderRequest(set, plan, "", "").SerializeToString(&serialized);
  LadderOutcome out;
  out.call = AwaitVanishingChild({
      options_.self_exe,
      "--ladder_vanish_child",
      absl::StrCat("--target=", options_.target),
      absl::StrCat("--ladder_vanish_request=", absl::WebSafeBase64Escape(serialized)),
      absl::StrCat("--ladder_vanish_after=", plan.vanish_after),
  });
  return out;
}

LadderOutcome LadderCalls::RunDecodeBomb(const LadderPlan& plan, v1::ScoringService::Stub* stub) {
  const BombFile& bomb = media_->bombs[plan.bomb];
  // One bomb at a time: a server without a decode budget spends GiBs on each, and the machine the
  // run shares with it must survive to report that.
  {
    absl::MutexLock lock(&bombs_mu_);
    bombs_mu_.Await(absl::Condition(this, &LadderCalls::BombSlotFree));
    ++bombs_running_;
  }
  LadderOutcome out;
  out.call.started = absl::Now();
  grpc::ClientContext context;
  context.set_deadline(DeadlineIn(plan.deadline));
  if (plan.bomb_via_ladder) {
    v1::ScoreLadderRequest request;
    request.mutable_config()->mutable_features()->add_feature_args("float_ssim");
    request.mutable_config()->set_title_id("fault-load-decode-bomb");
    request.set_source_path(bomb.path);
    v1::Rendition* rendition = request.add_renditions();
    rendition->set_name("bomb");
    rendition->set_path(bomb.path);
    auto reader = stub->ScoreLadder(&context, request);
    ReadToEnd(reader.get(), &out);
  } else {
    v1::ScoreFilesRequest request;
    request.mutable_config()->mutable_features()->add_feature_args("float_ssim");
    request.mutable_config()->set_title_id("fault-load-decode-bomb");
    request.set_reference_path(bomb.path);
    request.set_distorted_path(bomb.path);
    auto reader = stub->ScoreFiles(&context, request);
    v1::ScoreClipResponse response;
    while (reader->Read(&response)) {
      if (response.has_frame()) out.call.frames.push_back(response.frame());
      if (response.has_summary()) out.call.has_summary = true;
    }
    RecordEnd(reader->Finish(), &out.call);
  }
  absl::MutexLock lock(&bombs_mu_);
  --bombs_running_;
  return out;
}

int LadderVanishChildMain(const std::string& target, const std::string& request_base64,
                          int after) {
  std::string serialized;
  v1::ScoreLadderRequest request;
  if (!absl::WebSafeBase64Unescape(request_base64, &serialized) ||
      !request.ParseFromString(serialized)) {
    std::fprintf(stderr, "vanishing ladder client: --ladder_vanish_request does not parse\n");
    return 2;
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  auto channel = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
  auto stub = v1::ScoringService::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(DeadlineIn(absl::Seconds(30)));
  auto reader = stub->ScoreLadder(&context, request);
  v1::ScoreLadderResponse response;
  if (after == 0) {
    // The request is on its way; give it a moment to reach the server, then drop the connection
    // before any result.
    absl::SleepFor(absl::Milliseconds(10));
  }
  for (int i = 0; i < after; ++i) {
    if (!reader->Read(&response)) {
      const grpc::Status status = reader->Finish();
      std::fprintf(stderr,
                   "vanishing ladder client: the call ended after %d of %d responses: %d %s\n", i,
                   after, static_cast<int>(status.error_code()), status.error_message().c_str());
      return 3;
    }
  }
  // Gone without a word: no cancel, no reading on.
  raise(SIGKILL);
  return 4;  // not reached
}

}  // namespace ssimd::fault_load
