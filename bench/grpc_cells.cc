#include "bench/grpc_cells.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "bench/process_cpu.h"
#include "client/ssimd_client.h"
#include "proto/pixel_format.h"

namespace ssimd::bench {
namespace {

using Clock = std::chrono::steady_clock;

Clock::duration FromSeconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

double SecondsBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// The client library's channel, so that a target of several servers (a comma list) is balanced
// as ssimd-score balances it.
std::shared_ptr<grpc::Channel> MakeChannel(const std::string& target, bool own_connection) {
  grpc::ChannelArguments args;
  // Channels with equal arguments share one connection through gRPC's global subchannel pool; a
  // local pool gives this channel a connection of its own.
  if (own_connection) args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  ClientOptions options;
  options.target = target;
  options.max_message_bytes = (int64_t{1} << 31) - 1;
  auto channel = SsimdClient::CreateChannel(options, args);
  if (channel.ok()) return *channel;
  // A malformed list: gRPC fails every call of a target it cannot resolve, and the cell says so.
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
}

// Round-robin picks among the servers connected when a stream starts, and a cell's streams all
// start at once: give every address of a list a moment to connect first. The wait polls the
// channel (a sleep would not: without a thread polling, connection events wait).
void LetEveryServerConnect(grpc::Channel& channel, const std::string& target) {
  if (target.find(',') == std::string::npos) return;
  channel.WaitForStateChange(channel.GetState(true),
                             std::chrono::system_clock::now() + std::chrono::milliseconds(300));
}

v1::Features ToProto(const FeatureSet& features) {
  v1::Features out;
  for (const std::string& arg : FormatFeatureArgs(features)) out.add_feature_args(arg);
  return out;
}

FrameScores FromProto(const v1::FrameResult& result) {
  return FrameScores(result.scores().begin(), result.scores().end());
}

CellResult NewCell(const GrpcCellSpec& spec, const char* section) {
  CellResult cell;
  cell.section = section;
  cell.backend = spec.backend == v1::BACKEND_GPU ? "gpu" : "cpu";
  cell.width = spec.frames->geometry.width;
  cell.height = spec.frames->geometry.height;
  cell.bit_depth = spec.frames->geometry.bit_depth;
  cell.concurrency = spec.concurrency;
  cell.gpu_slots = spec.backend == v1::BACKEND_GPU ? spec.gpu_slots : 0;
  cell.features = FeatureLabel(spec.features);
  return cell;
}

// Samples both processes' processor time at the window's edges.
class CpuMeter {
 public:
  explicit CpuMeter(pid_t server) : server_(server) {}
  void Begin() {
    client_ = ProcessCpuSeconds(0);
    server_start_ = server_ > 0 ? ProcessCpuSeconds(server_) : -1;
  }
  void End(double seconds, CellResult& cell) {
    const double client = ProcessCpuSeconds(0);
    const double server = server_ > 0 ? ProcessCpuSeconds(server_) : -1;
    if (client >= 0 && client_ >= 0) cell.client_cores = (client - client_) / seconds;
    if (server >= 0 && server_start_ >= 0) cell.server_cores = (server - server_start_) / seconds;
  }

 private:
  pid_t server_;
  double client_ = -1;
  double server_start_ = -1;
};

// Everything the streams of one cell report, under one lock (a few updates per frame).
struct Tally {
  absl::Mutex mu;
  int64_t pairs = 0;
  std::vector<double> latency;
  std::vector<double> upload, compute, readback, queue_wait;
  ScoreCheck check;
  std::string error;

  void Add(const v1::FrameResult& result, const FrameScores& expected, double latency_seconds,
           bool in_window) {
    const FrameScores scores = FromProto(result);
    absl::MutexLock lock(&mu);
    check.Compare(scores, expected, static_cast<int64_t>(result.index()));
    if (!in_window) return;
    ++pairs;
    latency.push_back(latency_seconds);
    upload.push_back(result.timings().upload());
    compute.push_back(result.timings().compute());
    readback.push_back(result.timings().readback());
    queue_wait.push_back(result.timings().queue_wait());
  }
  void Fail(const std::string& message) {
    absl::MutexLock lock(&mu);
    if (error.empty()) error = message;
  }
  void Finish(CellResult& cell) {
    absl::MutexLock lock(&mu);
    cell.pairs = pairs;
    cell.check = check;
    cell.error = error;
    SetLatencies(cell, latency);
    cell.upload_ms = Percentile(upload, 50) * 1e3;
    cell.compute_ms = Percentile(compute, 50) * 1e3;
    cell.readback_ms = Percentile(readback, 50) * 1e3;
    cell.queue_wait_ms = Percentile(queue_wait, 50) * 1e3;
  }
};

}  // namespace

CellResult RunStreamCell(const GrpcCellSpec& spec) {
  CellResult cell = NewCell(spec, "e2e");
  std::shared_ptr<grpc::Channel> shared = MakeChannel(spec.target, false);
  std::vector<std::unique_ptr<SsimdClient>> clients;
  for (int s = 0; s < spec.concurrency; ++s) {
    clients.push_back(std::make_unique<SsimdClient>(
        spec.connection_per_stream ? MakeChannel(spec.target, true) : shared));
    // Connect before the clock starts, so that the warm-up is spent on frames.
    clients.back()->channel()->WaitForConnected(std::chrono::system_clock::now() +
                                                std::chrono::seconds(10));
    if (spec.connection_per_stream || s == 0) {
      LetEveryServerConnect(*clients.back()->channel(), spec.target);
    }
  }
  v1::ClipConfig config;
  *config.mutable_geometry() = GeometryToProto(spec.frames->geometry);
  *config.mutable_features() = ToProto(spec.features);
  config.set_backend(spec.backend);
  config.set_title_id("ssimd-bench");

  Tally tally;
  const Clock::time_point start = Clock::now();
  const Clock::time_point window_start = start + FromSeconds(spec.timing.warmup_seconds);
  const Clock::time_point window_end = window_start + FromSeconds(spec.timing.measure_seconds);
  const absl::Duration stream_timeout =
      absl::Seconds(spec.timing.warmup_seconds + spec.timing.measure_seconds + 120);
  std::vector<std::thread> streams;
  for (int s = 0; s < spec.concurrency; ++s) {
    streams.emplace_back([&, s] {
      absl::Mutex mu;
      std::vector<Clock::time_point> sent;  // by frame index
      const int offset = s * 3;  // streams start on different pairs
      const FramePairSource source = [&](std::string* ref,
                                         std::string* dis) -> absl::StatusOr<bool> {
        const Clock::time_point now = Clock::now();
        if (now >= window_end) return false;
        size_t index;
        {
          absl::MutexLock lock(&mu);
          index = sent.size();
          sent.push_back(now);
        }
        const int frame = static_cast<int>((index + offset) % spec.frames->size());
        *ref = spec.frames->reference[frame];
        *dis = spec.frames->distorted[frame];
        return true;
      };
      const FrameCallback on_frame = [&](const v1::FrameResult& result) {
        const Clock::time_point now = Clock::now();
        Clock::time_point sent_at;
        {
          absl::MutexLock lock(&mu);
          sent_at = sent[result.index()];
        }
        const int frame = static_cast<int>((result.index() + offset) % spec.frames->size());
        tally.Add(result, (*spec.expected)[frame], SecondsBetween(sent_at, now),
                  now >= window_start && now <= window_end);
      };
      absl::StatusOr<ClipReport> report =
          clients[s]->ScoreClip(config, source, on_frame, stream_timeout);
      if (!report.ok()) tally.Fail(absl::StrCat("stream ", s, ": ", report.status().ToString()));
    });
  }
  CpuMeter cpu(spec.server_pid);
  std::this_thread::sleep_until(window_start);
  cpu.Begin();
  std::this_thread::sleep_until(window_end);
  cpu.End(spec.timing.measure_seconds, cell);
  for (std::thread& t : streams) t.join();
  tally.Finish(cell);
  cell.seconds = spec.timing.measure_seconds;
  SetRates(cell, spec.frames->PairBytes());
  return cell;
}

CellResult RunUnaryCell(const GrpcCellSpec& spec) {
  CellResult cell = NewCell(spec, "unary");
  SsimdClient client(MakeChannel(spec.target, true));
  client.channel()->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10));
  // The request's fields, and each pair's planes, built once: the calls measure the service, not
  // the builder. The planes go out as they are (SsimdClient::ScorePair with planes apart).
  v1::ScorePairRequest fields;
  *fields.mutable_geometry() = GeometryToProto(spec.frames->geometry);
  *fields.mutable_features() = ToProto(spec.features);
  fields.set_backend(spec.backend);
  std::vector<std::shared_ptr<const OutgoingPlanes>> planes;
  for (int i = 0; i < spec.frames->size(); ++i) {
    planes.push_back(std::make_shared<const OutgoingPlanes>(
        OutgoingPlanes{spec.frames->reference[i], spec.frames->distorted[i]}));
  }
  Tally tally;
  const Clock::time_point start = Clock::now();
  const Clock::time_point window_start = start + FromSeconds(spec.timing.warmup_seconds);
  const Clock::time_point window_end = window_start + FromSeconds(spec.timing.measure_seconds);
  std::atomic<bool> failed{false};
  std::vector<std::thread> callers;
  for (int c = 0; c < spec.concurrency; ++c) {
    callers.emplace_back([&, c] {
      for (int64_t k = c; !failed.load(std::memory_order_relaxed); k += spec.concurrency) {
        const Clock::time_point begin = Clock::now();
        if (begin >= window_end) break;
        const int frame = static_cast<int>(k % spec.frames->size());
        absl::StatusOr<v1::FrameResult> r =
            client.ScorePair(fields, planes[frame], absl::Seconds(60));
        const Clock::time_point end = Clock::now();
        if (!r.ok()) {
          tally.Fail(r.status().ToString());
          failed.store(true);
          break;
        }
        r->set_index(k);
        tally.Add(*r, (*spec.expected)[frame], SecondsBetween(begin, end),
                  end >= window_start && end <= window_end);
      }
    });
  }
  CpuMeter cpu(spec.server_pid);
  std::this_thread::sleep_until(window_start);
  cpu.Begin();
  std::this_thread::sleep_until(window_end);
  cpu.End(spec.timing.measure_seconds, cell);
  for (std::thread& t : callers) t.join();
  tally.Finish(cell);
  cell.seconds = spec.timing.measure_seconds;
  SetRates(cell, spec.frames->PairBytes());
  return cell;
}

}  // namespace ssimd::bench
