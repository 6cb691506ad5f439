#include "tools/fault_load/stream_runner.h"

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tools/fault_load/child_process.h"

namespace ssimd::fault_load {
namespace {

std::chrono::system_clock::time_point DeadlineIn(absl::Duration d) {
  return std::chrono::system_clock::now() + absl::ToChronoMicroseconds(d);
}

v1::ScoreClipRequest FrameMessage(const ClipVariant& variant, uint64_t index, uint64_t offset) {
  v1::ScoreClipRequest r;
  v1::FramePair* f = r.mutable_frame();
  f->set_index(index);
  const FramePlanes& planes = variant.pairs[variant.PairFor(index, offset)];
  f->set_reference_luma(planes.reference);
  f->set_distorted_luma(planes.distorted);
  return r;
}

v1::ScoreClipRequest ConfigMessage(const ClipVariant& variant) {
  v1::ScoreClipRequest r;
  *r.mutable_config() = variant.config;
  return r;
}

// The message that replaces frame `index` of a malformed stream.
v1::ScoreClipRequest Malformed(Malformation m, const ClipVariant& variant, uint64_t index,
                               uint64_t offset) {
  v1::ScoreClipRequest r = FrameMessage(variant, index, offset);
  switch (m) {
    case Malformation::kShortPlane:
      r.mutable_frame()->mutable_reference_luma()->pop_back();
      break;
    case Malformation::kIndexGap:
      r.mutable_frame()->set_index(index + 1);
      break;
    case Malformation::kSecondConfig:
      r = ConfigMessage(variant);
      break;
    case Malformation::kEmptyMessage:
      r.Clear();
      break;
    case Malformation::kInvalidUtf8MidStream:
      r = ConfigMessage(variant);
      r.mutable_config()->set_title_id("title-\xff\xfe");
      break;
    case Malformation::kSampleAbovePeak: {
      std::string* luma = r.mutable_frame()->mutable_distorted_luma();
      (*luma)[0] = static_cast<char>(0xff);
      (*luma)[1] = static_cast<char>(0xff);
      break;
    }
    default:
      break;  // the config-level malformations are sent in place of the config
  }
  return r;
}

// The stream's first message: the config, or what a malformed stream sends instead.
v1::ScoreClipRequest FirstMessage(const StreamPlan& plan, const ClipVariant& variant) {
  v1::ScoreClipRequest r = ConfigMessage(variant);
  if (plan.kind != StreamKind::kMalformed) return r;
  switch (plan.malformation) {
    case Malformation::kFrameBeforeConfig:
      return FrameMessage(variant, 0, plan.pair_offset);
    case Malformation::kBadConfig:
      r.mutable_config()->mutable_geometry()->set_bit_depth(7);
      break;
    case Malformation::kTooLargeForMessages:
      // 16384x16384 at 16 bits: 1 GiB per pair, over any limit a server can have.
      r.mutable_config()->mutable_geometry()->set_width(16384);
      r.mutable_config()->mutable_geometry()->set_height(16384);
      r.mutable_config()->mutable_geometry()->set_bit_depth(16);
      break;
    case Malformation::kInvalidUtf8:
      r.mutable_config()->set_title_id("title-\xff\xfe");
      break;
    default:
      break;
  }
  return r;
}

bool EndsAtFirstMessage(const StreamPlan& plan) {
  return plan.kind == StreamKind::kMalformed &&
         (plan.malformation == Malformation::kFrameBeforeConfig ||
          plan.malformation == Malformation::kBadConfig ||
          plan.malformation == Malformation::kInvalidUtf8 ||
          plan.malformation == Malformation::kTooLargeForMessages);
}

// For streams that expect frame results and then an error status: every frame result is kept,
// anything else (a summary) is a protocol error; then the stream's status and end time.
void ReadFramesUntilEnd(
    grpc::ClientReaderWriter<v1::ScoreClipRequest, v1::ScoreClipResponse>* stream,
    StreamOutcome& out) {
  v1::ScoreClipResponse response;
  while (stream->Read(&response)) {
    if (response.has_frame()) {
      out.frames.push_back(std::move(*response.mutable_frame()));
    } else {
      out.protocol_error = true;
    }
  }
  const grpc::Status status = stream->Finish();
  out.finished = absl::Now();
  out.code = status.error_code();
  out.message = status.error_message();
}

}  // namespace

StreamOutcome RunClipStream(v1::ScoringService::Stub* stub, const StreamPlan& plan,
                            const ClipVariant& variant, int64_t max_message_bytes) {
  StreamOutcome out;
  out.started = absl::Now();
  grpc::ClientContext context;
  context.set_deadline(DeadlineIn(plan.deadline));
  std::unique_ptr<grpc::ClientReaderWriter<v1::ScoreClipRequest, v1::ScoreClipResponse>> stream =
      stub->ScoreClip(&context);

  // The sender runs beside the reader, as a real client does, so the server can pipeline.
  int frames_sent = 0;
  std::thread sender([&] {
    bool open = stream->Write(FirstMessage(plan, variant));
    for (int i = 0; open && !EndsAtFirstMessage(plan) && i < plan.frames; ++i) {
      if (plan.send_delay > absl::ZeroDuration() && i > 0) absl::SleepFor(plan.send_delay);
      if (plan.kind == StreamKind::kMalformed && i == plan.fault_frame) {
        open = stream->Write(Malformed(plan.malformation, variant, i, plan.pair_offset));
        if (plan.malformation != Malformation::kInvalidUtf8MidStream) break;
        // Frames after an unparsable message keep coming, as from a client that did not notice:
        // a server must refuse the stream, not end it early with OK.
        continue;
      }
      if (plan.kind == StreamKind::kOversized && i == plan.fault_frame) {
        v1::ScoreClipRequest big = FrameMessage(variant, i, plan.pair_offset);
        big.mutable_frame()->mutable_reference_luma()->assign(
            static_cast<size_t>(max_message_bytes) + 1, '\x10');
        stream->Write(big);
        break;
      }
      open = stream->Write(FrameMessage(variant, i, plan.pair_offset));
      if (open) ++frames_sent;
    }
    stream->WritesDone();
  });

  v1::ScoreClipResponse response;
  bool cancelled = false;
  for (;;) {
    if (plan.kind == StreamKind::kCancel && !cancelled &&
        static_cast<int>(out.frames.size()) >= plan.fault_frame) {
      context.TryCancel();
      cancelled = true;
    }
    if (plan.read_delay > absl::ZeroDuration()) absl::SleepFor(plan.read_delay);
    if (!stream->Read(&response)) break;
    if (response.has_frame() && !out.has_summary) {
      out.frames.push_back(std::move(*response.mutable_frame()));
    } else if (response.has_summary() && !out.has_summary) {
      out.has_summary = true;
      out.summary = std::move(*response.mutable_summary());
    } else {
      out.protocol_error = true;
    }
  }
  sender.join();
  const grpc::Status status = stream->Finish();
  out.finished = absl::Now();
  out.code = status.error_code();
  out.message = status.error_message();
  out.frames_sent = frames_sent;
  return out;
}

StreamOutcome RunBombStream(v1::ScoringService::Stub* gzip_stub, const StreamPlan& plan,
                            const ClipVariant& variant) {
  StreamOutcome out;
  out.started = absl::Now();
  grpc::ClientContext context;
  context.set_deadline(DeadlineIn(plan.deadline));
  auto stream = gzip_stub->ScoreClip(&context);
  if (stream->Write(ConfigMessage(variant))) {
    v1::ScoreClipRequest bomb;
    bomb.mutable_frame()->set_index(0);
    bomb.mutable_frame()->mutable_reference_luma()->assign(static_cast<size_t>(plan.bomb_bytes),
                                                           '\0');
    // The server may end the stream before or while this is sent; Finish tells how.
    stream->Write(bomb);
    stream->WritesDone();
  }
  ReadFramesUntilEnd(stream.get(), out);
  return out;
}

StreamOutcome RunIdleStream(v1::ScoringService::Stub* stub, const StreamPlan& plan,
                            const ClipVariant& variant) {
  StreamOutcome out;
  out.started = absl::Now();
  grpc::ClientContext context;
  context.set_deadline(DeadlineIn(plan.deadline));
  auto stream = stub->ScoreClip(&context);
  bool open = stream->Write(ConfigMessage(variant));
  for (int i = 0; open && i < plan.frames; ++i) {
    open = stream->Write(FrameMessage(variant, i, plan.pair_offset));
    if (open) ++out.frames_sent;
  }
  // No WritesDone: the stream stays open and silent. Results are taken as they come, so the
  // server waits on the client's next frame, not on the client's reading.
  ReadFramesUntilEnd(stream.get(), out);
  return out;
}

StreamOutcome RunPairCall(v1::ScoringService::Stub* stub, const StreamPlan& plan,
                          const ClipVariant& variant) {
  StreamOutcome out;
  out.started = absl::Now();
  v1::ScorePairRequest request;
  *request.mutable_geometry() = variant.config.geometry();
  *request.mutable_features() = variant.config.features();
  request.set_backend(variant.config.backend());
  const FramePlanes& planes = variant.pairs[variant.PairFor(0, plan.pair_offset)];
  request.set_reference_luma(planes.reference);
  request.set_distorted_luma(planes.distorted);
  grpc::ClientContext context;
  context.set_deadline(DeadlineIn(plan.deadline));
  v1::ScorePairResponse response;
  const grpc::Status status = stub->ScorePair(&context, request, &response);
  out.finished = absl::Now();
  out.code = status.error_code();
  out.message = status.error_message();
  out.frames_sent = 1;
  if (status.ok()) out.frames.push_back(response.result());
  return out;
}

StreamOutcome RunVanishingClient(const std::string& self_exe, const VanishArgs& args) {
  return AwaitVanishingChild({
      self_exe,
      "--vanish_child",
      absl::StrCat("--target=", args.target),
      absl::StrCat("--large=", args.large ? "true" : "false"),
      absl::StrCat("--vanish_variant=", args.variant),
      absl::StrCat("--vanish_frames=", args.frames),
      absl::StrCat("--vanish_offset=", args.pair_offset),
  });
}

int VanishChildMain(const VanishArgs& args) {
  auto variant = MakeClipVariant(args.variant, args.large, nullptr);
  if (!variant.ok()) {
    std::fprintf(stderr, "vanishing client: %s\n", variant.status().ToString().c_str());
    return 2;
  }
  grpc::ChannelArguments channel_args;
  channel_args.SetMaxSendMessageSize(-1);
  channel_args.SetMaxReceiveMessageSize(-1);
  auto channel =
      grpc::CreateCustomChannel(args.target, grpc::InsecureChannelCredentials(), channel_args);
  auto stub = v1::ScoringService::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(DeadlineIn(absl::Seconds(30)));
  auto stream = stub->ScoreClip(&context);
  bool open = stream->Write(ConfigMessage(*variant));
  for (int i = 0; open && i < args.frames; ++i) {
    open = stream->Write(FrameMessage(*variant, i, args.pair_offset));
  }
  v1::ScoreClipResponse response;
  if (!open || !stream->Read(&response)) {
    const grpc::Status status = stream->Finish();
    std::fprintf(stderr, "vanishing client: the stream ended before the first result: %d %s\n",
                 static_cast<int>(status.error_code()), status.error_message().c_str());
    return 3;
  }
  // One more frame in flight, then gone without a word: no cancel, no half-close.
  stream->Write(FrameMessage(*variant, args.frames, args.pair_offset));
  raise(SIGKILL);
  return 4;  // not reached
}

}  // namespace ssimd::fault_load
