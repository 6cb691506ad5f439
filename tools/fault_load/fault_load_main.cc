// fault_load: drives a running ssimd server with concurrent ScoreClip streams and ScorePair calls
// while injecting faults (cancelled streams, expired deadlines, clients that vanish mid-stream,
// malformed and oversized messages, slow readers), and checks that
//   - every healthy stream gets every frame's score, in order, equal to the CPU engine's;
//   - every faulty stream ends with the status its fault calls for;
//   - the server keeps answering health checks and stays alive;
//   - with --mix=...,bomb=N,idle=N, gzip-compressed requests are refused UNIMPLEMENTED and silent
//     streams are ended by the server's --stream_idle_timeout (--server_stream_idle_timeout);
//   - with --metrics_address, /metrics keeps answering while idle connections and slow partial
//     requests hold the metrics port;
//   - its resident memory (--server_pid) stays flat after warm-up;
//   - with --sigterm_after, in-flight streams finish within the grace period after SIGTERM and
//     the server exits, while new streams are refused explicitly;
//   - with --files_root and ladder kinds in --mix (ladder, ladder_cancel, ladder_deadline,
//     ladder_vanish, ladder_stalled_reader, decode_bomb, ladder_slow_url), ScoreLadder calls get
//     every result right and in order, faulty ones end as their fault calls for, decode bombs are
//     refused naming their size, and cancelled URL fetches stop (ladder_*.h);
//   - with --rss_budget_bytes, the server's peak resident memory stays below its memory at rest
//     plus that budget.
// The run is bounded in time (--duration) and count (--max_streams) and stops by itself. It prints
// a JSON summary and one readable line; the exit status is 0 when every check passed.
//
//   fault_load --target=127.0.0.1:50051 --server_pid=$(pidof ssimd_server) --duration=600s
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "client/ssimd_client.h"
#include "google/protobuf/stubs/logging.h"
#include "engine/cpu/cpu_scorer.h"
#include "process/frame_memory.h"
#include "grpc/compression.h"
#include "grpcpp/grpcpp.h"
#include "proto/ssimd/v1/ssimd.grpc.pb.h"
#include "tools/fault_load/child_process.h"
#include "tools/fault_load/fault_plan.h"
#include "tools/fault_load/ffmpeg_command.h"
#include "tools/fault_load/ladder_calls.h"
#include "tools/fault_load/ladder_judge.h"
#include "tools/fault_load/ladder_rig.h"
#include "tools/fault_load/load_report.h"
#include "tools/fault_load/metrics_hog.h"
#include "tools/fault_load/process_watch.h"
#include "tools/fault_load/stream_runner.h"
#include "tools/fault_load/synthetic_clips.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "The server, host:port (loopback only).");
ABSL_FLAG(absl::Duration, duration, absl::Seconds(20),
          "How long new streams are started; streams in flight then finish.");
ABSL_FLAG(int, max_streams, 1000000, "At most this many streams in all.");
ABSL_FLAG(int, concurrency, 8, "Streams open at once (keep it below the server's limit).");
ABSL_FLAG(int, channels, 4, "Separate connections the streams are spread over.");
ABSL_FLAG(int, frames, 12, "Typical frames per clip (each clip draws from half to 1.5 times it).");
ABSL_FLAG(std::string, mix,
          "healthy=8,slow_reader=2,pair=2,cancel=2,deadline=2,vanish=1,malformed=3,oversized=1",
          "Relative frequency of each stream kind. Also: bomb (a gzip-compressed frame of "
          "--bomb_mib MiB of zeros, which the server must refuse) and idle (a stream that falls "
          "silent; needs --server_stream_idle_timeout), in the mix only when named.");
ABSL_FLAG(int, bomb_mib, 64, "Zeros in a compression bomb's frame, MiB.");
ABSL_FLAG(absl::Duration, server_stream_idle_timeout, absl::ZeroDuration(),
          "The server's --stream_idle_timeout; idle streams (--mix idle=N) wait that long plus "
          "--idle_margin for the server to end them. Needed for idle streams.");
ABSL_FLAG(absl::Duration, idle_margin, absl::Seconds(10),
          "How much longer than the server's idle timeout an idle stream waits.");
ABSL_FLAG(std::string, metrics_address, "",
          "The server's metrics port, 127.x.x.x:PORT: hold idle connections and slow partial "
          "requests open to it and scrape /metrics throughout the run. Empty: leave it alone.");
ABSL_FLAG(int, metrics_idle_connections, 50, "Idle TCP connections held open to the metrics port.");
ABSL_FLAG(int, metrics_slow_requests, 3,
          "HTTP requests to the metrics port that dribble a byte a scrape interval, never complete.");
ABSL_FLAG(absl::Duration, metrics_scrape_interval, absl::Seconds(1), "Between /metrics scrapes.");
ABSL_FLAG(absl::Duration, metrics_scrape_timeout, absl::Seconds(5),
          "A scrape not answered completely within this counts as failed.");
ABSL_FLAG(uint64_t, seed, 1, "Seed of the stream plans (same seed, same sequence per worker).");
ABSL_FLAG(bool, large, false, "Add 1280x720 10-bit and 1920x1080 clips (for GPU servers).");
ABSL_FLAG(int, server_pid, 0,
          "The server's process id: watch that it stays alive and that its resident memory stays "
          "flat. 0: do not watch.");
ABSL_FLAG(bool, watch_gpu_memory, false,
          "Also sample the server's device memory with nvidia-smi every 5 s and judge its growth "
          "like resident memory's.");
ABSL_FLAG(absl::Duration, warmup, absl::ZeroDuration(),
          "Memory samples before this are ignored; 0 = a third of --duration, at least 2 s "
          "(the server keeps freed frame memory, so resident memory climbs to its high-water "
          "mark first; docs/adr/0065).");
ABSL_FLAG(double, max_rss_growth_pct, 5,
          "Fail when resident memory grows more than this after warm-up; 0 = only report it.");
ABSL_FLAG(absl::Duration, health_interval, absl::Milliseconds(500), "Between health checks.");
ABSL_FLAG(absl::Duration, health_timeout, absl::Seconds(5),
          "A health check slower than this counts as a failure (a stuck server).");
ABSL_FLAG(absl::Duration, stream_deadline, absl::Seconds(120),
          "Deadline of healthy streams; one that runs into it counts as stalled.");
ABSL_FLAG(absl::Duration, wait_for_server, absl::Seconds(30),
          "How long to wait for the server to report SERVING before the run.");
ABSL_FLAG(std::string, json_out, "", "Also write the JSON summary to this file.");
ABSL_FLAG(absl::Duration, sigterm_after, absl::ZeroDuration(),
          "Graceful shutdown check: send SIGTERM to --server_pid this long into the run, then "
          "check that in-flight streams finish and the server exits within --grace.");
ABSL_FLAG(absl::Duration, grace, absl::Seconds(30), "The server's --grace_period.");
ABSL_FLAG(absl::Duration, send_delay, absl::ZeroDuration(),
          "Pause between the frames a stream sends (to keep streams in flight longer).");
// The vanishing client runs this same binary with these.
ABSL_FLAG(bool, vanish_child, false, "Internal: run as a client that vanishes mid-stream.");
ABSL_FLAG(int, vanish_variant, 0, "Internal: the vanishing client's clip variant.");
ABSL_FLAG(int, vanish_frames, 1, "Internal: frames the vanishing client sends.");
ABSL_FLAG(uint64_t, vanish_offset, 0, "Internal: the vanishing client's pair offset.");
ABSL_FLAG(bool, ladder_vanish_child, false, "Internal: run as a ladder client that vanishes.");
ABSL_FLAG(std::string, ladder_vanish_request, "", "Internal: its request, serialized, base64.");
ABSL_FLAG(int, ladder_vanish_after, 0, "Internal: responses it reads before it vanishes.");

// The ladder kinds.
ABSL_FLAG(std::string, files_root, "",
          "The server's --files_root as seen from here: the ladder kinds write their files below "
          "it (in fault_load/) and ask the server to read them. Empty: no ladder kinds.");
ABSL_FLAG(std::string, ffmpeg, "auto",
          "The ffmpeg that makes the encoded renditions and the encoded decode bomb: a path, auto "
          "(ffmpeg on PATH, if any) or none (only files made before, e.g. by ladder_soak.sh "
          "--prepare, are used).");
ABSL_FLAG(bool, prepare_only, false,
          "Write the ladder files below --files_root and exit; no server is needed.");
ABSL_FLAG(int, ladder_frames, 12, "Typical frames per rendition of a healthy ladder.");
ABSL_FLAG(int, ladder_long_frames, 1200,
          "Frames of the long ladder (stalled readers, deadlines, vanishing clients).");
ABSL_FLAG(int, url_port, 0,
          "Port on 127.0.0.1 for the slow HTTP server of ladder_slow_url; start the ssimd server "
          "with --allow_url_prefix=http://127.0.0.1:PORT/. 0: no slow URL ladders.");
ABSL_FLAG(int64_t, url_chunk_bytes, 16384, "The slow HTTP server sends this many bytes ...");
ABSL_FLAG(absl::Duration, url_chunk_interval, absl::Milliseconds(100), "... every this long.");
ABSL_FLAG(absl::Duration, url_cancel_grace, absl::Seconds(1),
          "After a cancel the server may touch the call's URLs this long; later fetches fail.");
ABSL_FLAG(int64_t, rss_budget_bytes, 0,
          "Fail when the server's peak resident memory exceeds its resident memory at rest "
          "(measured before the load) plus this many bytes. 0: not judged. Needs --server_pid.");
ABSL_FLAG(bool, require_every_kind, false,
          "Fail when a kind with a weight in --mix was never run (for short runs that must cover "
          "every kind).");

namespace ssimd::fault_load {
namespace {

// Above this the oversized fault would need a huge message of its own; start the server with a
// smaller --max_message_bytes for load runs.
constexpr int64_t kMaxOversizedBytes = int64_t{64} << 20;

std::vector<std::shared_ptr<grpc::Channel>> MakeChannels(const std::string& target, int n) {
  std::vector<std::shared_ptr<grpc::Channel>> out;
  for (int i = 0; i < n; ++i) {
    grpc::ChannelArguments args;
    args.SetMaxSendMessageSize(-1);
    args.SetMaxReceiveMessageSize(-1);
    // Without this, channels to one target share a connection.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetInt("ssimd.fault_load.channel", i);
    out.push_back(grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args));
  }
  return out;
}

// The compression bomb's channel: every message gzip-compressed, no size limit of its own.
std::shared_ptr<grpc::Channel> MakeGzipChannel(const std::string& target) {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(-1);
  args.SetMaxReceiveMessageSize(-1);
  args.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
}

// Faults and load are for a server on this machine, never one across the network.
bool IsLoopback(const std::string& target) {
  for (const char* prefix : {"127.", "[::1]:", "localhost:", "unix:", "ipv4:127.", "ipv6:[::1]:"}) {
    if (absl::StartsWith(target, prefix)) return true;
  }
  return false;
}

bool WaitForServing(SsimdClient& client, absl::Duration limit) {
  const absl::Time give_up = absl::Now() + limit;
  while (absl::Now() < give_up) {
    auto health = client.CheckHealth("", absl::Seconds(2));
    if (health.ok() && *health == grpc::health::v1::HealthCheckResponse::SERVING) return true;
    absl::SleepFor(absl::Milliseconds(200));
  }
  return false;
}

class Run {
 public:
  Run(std::vector<ClipVariant> variants, KindWeights weights, PlanLimits limits,
      int64_t max_message_bytes, std::unique_ptr<MetricsHog> metrics_hog,
      std::unique_ptr<LadderRig> ladders)
      : variants_(std::move(variants)),
        weights_(weights),
        limits_(limits),
        max_message_bytes_(max_message_bytes),
        metrics_hog_(std::move(metrics_hog)),
        ladders_(std::move(ladders)) {}

  int Main() {
    const std::string target = absl::GetFlag(FLAGS_target);
    channels_ = MakeChannels(target, std::max(1, absl::GetFlag(FLAGS_channels)));
    gzip_channel_ = MakeGzipChannel(target);
    self_exe_ = SelfExe();
    const absl::Duration duration = absl::GetFlag(FLAGS_duration);
    const int pid = absl::GetFlag(FLAGS_server_pid);
    const absl::Duration sigterm_after = absl::GetFlag(FLAGS_sigterm_after);
    report_.server_pid = pid;
    report_.max_rss_growth_pct = absl::GetFlag(FLAGS_max_rss_growth_pct);
    report_.watch_gpu_memory = absl::GetFlag(FLAGS_watch_gpu_memory) && pid != 0;
    report_.shutdown_test = sigterm_after > absl::ZeroDuration();
    report_.grace_seconds = absl::ToDoubleSeconds(absl::GetFlag(FLAGS_grace));
    report_.rss_budget_bytes = pid != 0 ? absl::GetFlag(FLAGS_rss_budget_bytes) : 0;
    if (ladders_ != nullptr) report_.notes = ladders_->notes;
    if (pid != 0) report_.idle_rss_kb = RssAtRest(pid);

    start_ = absl::Now();
    end_ = start_ + duration;
    std::thread monitor([&] { Monitor(pid); });
    std::thread hog;
    if (metrics_hog_ != nullptr) hog = std::thread([&] { metrics_hog_->Run(start_); });
    std::thread terminator;
    if (report_.shutdown_test) terminator = std::thread([&] { Terminate(pid, sigterm_after); });

    std::vector<std::thread> workers;
    const int concurrency = std::max(1, absl::GetFlag(FLAGS_concurrency));
    for (int w = 0; w < concurrency; ++w) workers.emplace_back([this, w] { Worker(w); });
    for (std::thread& t : workers) t.join();
    const absl::Time load_done = absl::Now();
    if (terminator.joinable()) terminator.join();
    stop_monitor_.Notify();
    monitor.join();
    if (metrics_hog_ != nullptr) {
      metrics_hog_->Stop();
      hog.join();
      const MetricsHogTotals m = metrics_hog_->Totals();
      absl::MutexLock lock(&mu_);
      report_.metrics_watched = true;
      report_.metrics_scrapes = m.scrapes;
      report_.metrics_scrape_failures = m.scrape_failures;
      report_.metrics_max_latency_ms = m.scrape_max_latency_ms;
      report_.metrics_idle_connections = absl::GetFlag(FLAGS_metrics_idle_connections);
      report_.metrics_slow_requests = absl::GetFlag(FLAGS_metrics_slow_requests);
      report_.metrics_connections_reopened = m.connections_reopened;
      report_.metrics_connect_failures = m.connect_failures;
      // Failed scrapes fail the run through their counter; these say when and why.
      for (const std::string& p : m.problems) {
        if (report_.problems.size() < 20) report_.problems.push_back(p);
      }
    }

    report_.duration_seconds = absl::ToDoubleSeconds(load_done - start_);
    if (ladders_ != nullptr && ladders_->http != nullptr) {
      ladders_->http->Stop();
      const HttpTotals http = ladders_->http->Totals();
      absl::MutexLock lock(&mu_);
      report_.urls_served = true;
      report_.url_requests = http.requests;
      report_.url_complete = http.complete;
      report_.url_aborted = http.aborted;
    }
    if (pid != 0) NotePeakRss(pid);
    if (absl::GetFlag(FLAGS_require_every_kind)) RequireEveryKind();
    if (pid != 0 && !report_.shutdown_test) {
      report_.server_alive_at_end = ProcessAlive(pid);
      // The last word on a stuck server: one more health check after the load.
      SsimdClient client(channels_[0]);
      auto health = client.CheckHealth("", absl::GetFlag(FLAGS_health_timeout));
      ++report_.health_checks;
      if (!health.ok()) {
        ++report_.health_failures;
        report_.AddProblem(absl::StrCat("final health check: ", health.status().ToString()));
      }
    }
    absl::Duration warmup = absl::GetFlag(FLAGS_warmup);
    if (warmup <= absl::ZeroDuration()) warmup = std::max(absl::Seconds(2), duration / 3);
    {
      absl::MutexLock lock(&mu_);
      report_.rss = ComputeRssGrowth(rss_samples_, absl::ToDoubleSeconds(warmup));
      report_.gpu_memory = ComputeRssGrowth(gpu_samples_, absl::ToDoubleSeconds(warmup));
    }

    const std::string json = ToJson(report_);
    std::printf("%s\n%s\n", json.c_str(), SummaryLine(report_).c_str());
    std::fflush(stdout);
    const std::string json_out = absl::GetFlag(FLAGS_json_out);
    if (!json_out.empty()) std::ofstream(json_out) << json << "\n";
    return report_.Passed(nullptr) ? 0 : 1;
  }

 private:
  bool KeepStarting(int64_t started) {
    if (started >= absl::GetFlag(FLAGS_max_streams)) return false;
    const absl::Time now = absl::Now();
    if (now >= end_) return false;
    absl::MutexLock lock(&mu_);
    // After SIGTERM, a second of new streams checks that they are refused; then stop.
    return !judge_.shutdown_started || now < judge_.shutdown_at + absl::Seconds(1);
  }

  void Worker(int index) {
    std::mt19937_64 rng(absl::GetFlag(FLAGS_seed) * 1000003u + static_cast<uint64_t>(index));
    v1::ScoringService::Stub* stub = nullptr;
    auto owned_stub = v1::ScoringService::NewStub(channels_[index % channels_.size()]);
    stub = owned_stub.get();
    auto gzip_stub = v1::ScoringService::NewStub(gzip_channel_);
    while (KeepStarting(started_.fetch_add(1))) {
      const StreamPlan plan = DrawPlan(weights_, limits_, variants_, rng);
      const ClipVariant& variant = variants_[plan.variant];
      if (IsLadderKind(plan.kind)) {
        RunLadderKind(plan, stub);
        continue;
      }
      StreamOutcome outcome;
      switch (plan.kind) {
        case StreamKind::kPair:
          outcome = RunPairCall(stub, plan, variant);
          break;
        case StreamKind::kBomb:
          outcome = RunBombStream(gzip_stub.get(), plan, variant);
          break;
        case StreamKind::kIdle:
          outcome = RunIdleStream(stub, plan, variant);
          break;
        case StreamKind::kVanish: {
          VanishArgs args;
          args.target = absl::GetFlag(FLAGS_target);
          args.large = absl::GetFlag(FLAGS_large);
          args.variant = plan.variant;
          args.frames = plan.fault_frame;
          args.pair_offset = plan.pair_offset;
          outcome = RunVanishingClient(self_exe_, args);
          break;
        }
        default:
          outcome = RunClipStream(stub, plan, variant, max_message_bytes_);
          break;
      }
      absl::MutexLock lock(&mu_);
      const Verdict verdict = Judge(plan, outcome, variant, judge_);
      Record(plan, outcome, verdict);
    }
  }

  // A ladder kind's call, judged outside the lock: a long ladder has thousands of results.
  void RunLadderKind(const StreamPlan& plan, v1::ScoringService::Stub* stub) {
    const LadderOutcome outcome = ladders_->calls->Run(plan, stub);
    JudgeContext context;
    {
      absl::MutexLock lock(&mu_);
      context = judge_;
    }
    const Verdict verdict = JudgeLadder(plan, outcome, ladders_->media, ladders_->judge, context);
    absl::MutexLock lock(&mu_);
    Record(plan, outcome.call, verdict);
  }

  void Record(const StreamPlan& plan, const StreamOutcome& outcome, const Verdict& verdict)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    report_.Add(plan, outcome, verdict);
    // Streams that were running at the signal and still completed: the grace period at work.
    if (judge_.shutdown_started && outcome.started < judge_.shutdown_at &&
        outcome.finished > judge_.shutdown_at && outcome.code == grpc::StatusCode::OK) {
      ++report_.streams_finished_in_grace;
      report_.last_stream_after_sigterm_seconds =
          std::max(report_.last_stream_after_sigterm_seconds,
                   absl::ToDoubleSeconds(outcome.finished - judge_.shutdown_at));
    }
  }

  // Health checks and memory samples until the load is over.
  void Monitor(int pid) {
    SsimdClient client(channels_[0]);
    const absl::Duration interval = absl::GetFlag(FLAGS_health_interval);
    const absl::Duration timeout = absl::GetFlag(FLAGS_health_timeout);
    absl::Time next_rss = absl::Now();
    absl::Time next_gpu = absl::Now();
    const bool watch_gpu = absl::GetFlag(FLAGS_watch_gpu_memory) && pid != 0;
    bool reported_death = false;
    do {
      bool shutting_down;
      {
        absl::MutexLock lock(&mu_);
        shutting_down = judge_.shutdown_started;
      }
      if (!shutting_down) {
        const absl::Time asked = absl::Now();
        auto health = client.CheckHealth("", timeout);
        const double ms = absl::ToDoubleMilliseconds(absl::Now() - asked);
        absl::MutexLock lock(&mu_);
        // The signal may have come while the check was under way: then any answer is fine.
        if (!judge_.shutdown_started) {
          ++report_.health_checks;
          report_.health_max_latency_ms = std::max(report_.health_max_latency_ms, ms);
          if (!health.ok() || *health != grpc::health::v1::HealthCheckResponse::SERVING) {
            ++report_.health_failures;
            report_.AddProblem(absl::StrFormat(
                "health check at %.1f s: %s", absl::ToDoubleSeconds(asked - start_),
                health.ok() ? "NOT_SERVING" : health.status().ToString()));
          }
        }
      }
      if (pid != 0 && absl::Now() >= next_rss) {
        next_rss += absl::Seconds(1);
        auto rss = ReadVmRssKb(pid);
        auto hwm = ReadVmHwmKb(pid);
        absl::MutexLock lock(&mu_);
        if (hwm.ok()) report_.peak_rss_kb = std::max(report_.peak_rss_kb, *hwm);
        if (rss.ok()) {
          report_.peak_rss_kb = std::max(report_.peak_rss_kb, *rss);
          rss_samples_.push_back({absl::ToDoubleSeconds(absl::Now() - start_), *rss});
        } else if (!judge_.shutdown_started && !reported_death) {
          reported_death = true;
          report_.server_alive_at_end = false;
          report_.AddProblem(absl::StrFormat("the server process %d is gone at %.1f s", pid,
                                             absl::ToDoubleSeconds(absl::Now() - start_)));
        }
      }
      if (watch_gpu && absl::Now() >= next_gpu) {
        next_gpu += absl::Seconds(5);
        auto mib = ReadGpuMemoryMib(pid);
        if (mib.ok()) {
          absl::MutexLock lock(&mu_);
          gpu_samples_.push_back({absl::ToDoubleSeconds(absl::Now() - start_), *mib});
        }
      }
    } while (!stop_monitor_.WaitForNotificationWithTimeout(interval));
  }

  // The server's resident memory before the load: the median of a few samples, so that one
  // taken during a passing allocation does not set the budget.
  static int64_t RssAtRest(int pid) {
    std::vector<int64_t> kb;
    for (int i = 0; i < 5; ++i) {
      if (i > 0) absl::SleepFor(absl::Milliseconds(100));
      auto rss = ReadVmRssKb(pid);
      if (rss.ok()) kb.push_back(*rss);
    }
    if (kb.empty()) return 0;
    std::sort(kb.begin(), kb.end());
    return kb[kb.size() / 2];
  }

  // The kernel's high-water mark once more after the load (the last samples may predate it).
  void NotePeakRss(int pid) {
    auto hwm = ReadVmHwmKb(pid);
    absl::MutexLock lock(&mu_);
    if (hwm.ok()) report_.peak_rss_kb = std::max(report_.peak_rss_kb, *hwm);
  }

  void RequireEveryKind() {
    absl::MutexLock lock(&mu_);
    for (int k = 0; k < kStreamKinds; ++k) {
      if (weights_.weight[k] > 0 && report_.kinds[k].streams == 0) {
        report_.AddProblem(absl::StrCat("no ", KindName(static_cast<StreamKind>(k)),
                                        " stream ran (--require_every_kind)"));
      }
    }
  }

  // The graceful shutdown check: SIGTERM, then wait for the server to exit.
  void Terminate(int pid, absl::Duration after) {
    absl::SleepFor(after);
    const absl::Time at = absl::Now();
    {
      absl::MutexLock lock(&mu_);
      judge_.shutdown_started = true;
      judge_.shutdown_at = at;
    }
    if (pid == 0 || kill(pid, SIGTERM) != 0) {
      absl::MutexLock lock(&mu_);
      report_.AddProblem("--sigterm_after needs the server's --server_pid");
      return;
    }
    const absl::Time give_up = at + absl::GetFlag(FLAGS_grace) + absl::Seconds(10);
    while (absl::Now() < give_up) {
      if (!ProcessAlive(pid)) {
        absl::MutexLock lock(&mu_);
        report_.server_exit_after_sigterm_seconds = absl::ToDoubleSeconds(absl::Now() - at);
        return;
      }
      absl::SleepFor(absl::Milliseconds(20));
    }
  }

  const std::vector<ClipVariant> variants_;
  const KindWeights weights_;
  const PlanLimits limits_;
  const int64_t max_message_bytes_;
  std::unique_ptr<MetricsHog> metrics_hog_;
  std::unique_ptr<LadderRig> ladders_;  // null: no ladder kinds
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::shared_ptr<grpc::Channel> gzip_channel_;
  std::string self_exe_;
  absl::Time start_;
  absl::Time end_;
  std::atomic<int64_t> started_{0};
  absl::Notification stop_monitor_;

  absl::Mutex mu_;
  LoadReport report_ ABSL_GUARDED_BY(mu_);
  JudgeContext judge_ ABSL_GUARDED_BY(mu_);
  std::vector<RssSample> rss_samples_ ABSL_GUARDED_BY(mu_);
  std::vector<RssSample> gpu_samples_ ABSL_GUARDED_BY(mu_);  // MiB
};

std::string FfmpegFromFlag() {
  const std::string flag = absl::GetFlag(FLAGS_ffmpeg);
  if (flag == "none") return "";
  if (flag == "auto") return FindFfmpeg();
  return flag;
}

LadderRigOptions RigOptions(uint64_t server_max_pixels) {
  LadderRigOptions o;
  o.media.files_root = absl::GetFlag(FLAGS_files_root);
  o.media.ffmpeg = FfmpegFromFlag();
  o.media.long_frames = absl::GetFlag(FLAGS_ladder_long_frames);
  o.server_max_pixels = server_max_pixels;
  o.url_port = absl::GetFlag(FLAGS_url_port);
  o.url_chunk_bytes = absl::GetFlag(FLAGS_url_chunk_bytes);
  o.url_chunk_interval = absl::GetFlag(FLAGS_url_chunk_interval);
  o.limits.frames = std::max(1, absl::GetFlag(FLAGS_ladder_frames));
  o.limits.healthy_deadline = absl::GetFlag(FLAGS_stream_deadline);
  o.limits.server_idle_timeout = absl::GetFlag(FLAGS_server_stream_idle_timeout);
  o.limits.idle_margin = absl::GetFlag(FLAGS_idle_margin);
  o.calls.target = absl::GetFlag(FLAGS_target);
  o.calls.self_exe = SelfExe();
  o.calls.url_cancel_grace = absl::GetFlag(FLAGS_url_cancel_grace);
  o.judge.server_idle_timeout = absl::GetFlag(FLAGS_server_stream_idle_timeout);
  return o;
}

// Ladder kinds in the mix need what they draw on; a run that silently drew none would pass
// without testing them.
absl::Status CheckLadderFlags(const KindWeights& weights) {
  auto weighted = [&](StreamKind kind) { return weights.weight[static_cast<int>(kind)] > 0; };
  bool any = false;
  for (int k = 0; k < kStreamKinds; ++k) any |= IsLadderKind(static_cast<StreamKind>(k)) &&
                                                weights.weight[k] > 0;
  if (any && absl::GetFlag(FLAGS_files_root).empty()) {
    return absl::InvalidArgumentError(
        "ladder kinds in --mix need --files_root, the server's --files_root");
  }
  if (weighted(StreamKind::kLadderStalledReader) &&
      absl::GetFlag(FLAGS_server_stream_idle_timeout) <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "ladder_stalled_reader needs --server_stream_idle_timeout, the server's "
        "--stream_idle_timeout");
  }
  if (weighted(StreamKind::kLadderSlowUrl) && absl::GetFlag(FLAGS_url_port) <= 0) {
    return absl::InvalidArgumentError(
        "ladder_slow_url needs --url_port, with the server started with "
        "--allow_url_prefix=http://127.0.0.1:PORT/");
  }
  return absl::OkStatus();
}

// --prepare_only: the files for a machine without ffmpeg (ladder_soak.sh --prepare).
int PrepareOnly() {
  LadderMediaOptions options;
  options.files_root = absl::GetFlag(FLAGS_files_root);
  options.ffmpeg = FfmpegFromFlag();
  options.long_frames = absl::GetFlag(FLAGS_ladder_long_frames);
  if (options.files_root.empty()) {
    std::fprintf(stderr, "fault_load: --prepare_only needs --files_root\n");
    return 2;
  }
  std::unique_ptr<Scorer> cpu = MakeCpuScorer();
  auto media = PrepareLadderMedia(options, cpu.get());
  if (!media.ok()) {
    std::fprintf(stderr, "fault_load: %s\n", media.status().ToString().c_str());
    return 1;
  }
  for (const std::string& note : media->notes) std::fprintf(stderr, "fault_load: %s\n", note.c_str());
  std::printf("fault_load: prepared %zu ladders (encoded renditions: %s) and %zu decode bombs in "
              "%s/%s\n",
              media->sets.size(), media->encoded_set >= 0 ? "yes" : "no", media->bombs.size(),
              options.files_root.c_str(), kMediaFolder);
  return media->encoded_set >= 0 || options.ffmpeg.empty() ? 0 : 1;
}

int Setup() {
  if (absl::GetFlag(FLAGS_vanish_child)) {
    VanishArgs args;
    args.target = absl::GetFlag(FLAGS_target);
    args.large = absl::GetFlag(FLAGS_large);
    args.variant = static_cast<size_t>(absl::GetFlag(FLAGS_vanish_variant));
    args.frames = absl::GetFlag(FLAGS_vanish_frames);
    args.pair_offset = absl::GetFlag(FLAGS_vanish_offset);
    return VanishChildMain(args);
  }
  if (absl::GetFlag(FLAGS_ladder_vanish_child)) {
    return LadderVanishChildMain(absl::GetFlag(FLAGS_target),
                                 absl::GetFlag(FLAGS_ladder_vanish_request),
                                 absl::GetFlag(FLAGS_ladder_vanish_after));
  }
  if (absl::GetFlag(FLAGS_prepare_only)) return PrepareOnly();
  const std::string target = absl::GetFlag(FLAGS_target);
  if (!IsLoopback(target)) {
    std::fprintf(stderr,
                 "fault_load: --target=%s is not a loopback address; this tool only drives a "
                 "local server (127.0.0.1:PORT, [::1]:PORT, localhost:PORT or unix:PATH)\n",
                 target.c_str());
    return 2;
  }
  auto weights = ParseKindWeights(absl::GetFlag(FLAGS_mix));
  if (!weights.ok()) {
    std::fprintf(stderr, "fault_load: %s\n", std::string(weights.status().message()).c_str());
    return 2;
  }
  if (weights->weight[static_cast<int>(StreamKind::kIdle)] > 0 &&
      absl::GetFlag(FLAGS_server_stream_idle_timeout) <= absl::ZeroDuration()) {
    std::fprintf(stderr,
                 "fault_load: idle streams (--mix idle=N) need --server_stream_idle_timeout, the "
                 "server's --stream_idle_timeout (start the server with a short one, e.g. 2s)\n");
    return 2;
  }
  std::unique_ptr<MetricsHog> metrics_hog;
  if (!absl::GetFlag(FLAGS_metrics_address).empty()) {
    auto address = ParseLoopbackAddress(absl::GetFlag(FLAGS_metrics_address));
    if (!address.ok()) {
      std::fprintf(stderr, "fault_load: %s\n", std::string(address.status().message()).c_str());
      return 2;
    }
    MetricsHogOptions options;
    options.address = *address;
    options.idle_connections = std::max(0, absl::GetFlag(FLAGS_metrics_idle_connections));
    options.slow_requests = std::max(0, absl::GetFlag(FLAGS_metrics_slow_requests));
    options.scrape_interval = absl::GetFlag(FLAGS_metrics_scrape_interval);
    options.scrape_timeout = absl::GetFlag(FLAGS_metrics_scrape_timeout);
    metrics_hog = std::make_unique<MetricsHog>(options);
  }
  if (absl::Status s = CheckLadderFlags(*weights); !s.ok()) {
    std::fprintf(stderr, "fault_load: %s\n", std::string(s.message()).c_str());
    return 2;
  }
  if (absl::GetFlag(FLAGS_sigterm_after) > absl::ZeroDuration() &&
      absl::GetFlag(FLAGS_server_pid) == 0) {
    std::fprintf(stderr, "fault_load: --sigterm_after needs --server_pid\n");
    return 2;
  }

  // Expected scores come from the CPU engine in this process: the ground truth.
  std::unique_ptr<Scorer> cpu = MakeCpuScorer();
  auto variants = MakeClipVariants(absl::GetFlag(FLAGS_large), cpu.get());
  if (!variants.ok()) {
    std::fprintf(stderr, "fault_load: %s\n", variants.status().ToString().c_str());
    return 2;
  }

  auto client = SsimdClient::Connect({.target = absl::GetFlag(FLAGS_target)});
  if (!client.ok() || !WaitForServing(**client, absl::GetFlag(FLAGS_wait_for_server))) {
    std::fprintf(stderr, "fault_load: %s does not report SERVING; is the server running?\n",
                 absl::GetFlag(FLAGS_target).c_str());
    return 2;
  }
  auto capabilities = (*client)->GetCapabilities(absl::Seconds(10));
  if (!capabilities.ok()) {
    std::fprintf(stderr, "fault_load: GetCapabilities: %s\n",
                 capabilities.status().ToString().c_str());
    return 2;
  }
  const v1::Limits& server_limits = capabilities->limits();
  PlanLimits limits;
  limits.frames = std::max(1, absl::GetFlag(FLAGS_frames));
  limits.healthy_deadline = absl::GetFlag(FLAGS_stream_deadline);
  limits.send_delay = absl::GetFlag(FLAGS_send_delay);
  limits.bomb_bytes = int64_t{std::max(1, absl::GetFlag(FLAGS_bomb_mib))} << 20;
  limits.server_idle_timeout = absl::GetFlag(FLAGS_server_stream_idle_timeout);
  limits.idle_margin = absl::GetFlag(FLAGS_idle_margin);
  const int64_t max_message_bytes = static_cast<int64_t>(server_limits.max_message_bytes());
  limits.oversized_enabled = max_message_bytes > 0 && max_message_bytes <= kMaxOversizedBytes;
  if (!limits.oversized_enabled) {
    std::fprintf(stderr,
                 "fault_load: the server accepts messages up to %lld bytes; oversized messages "
                 "are skipped (start it with --max_message_bytes of at most %lld to test them)\n",
                 static_cast<long long>(max_message_bytes),
                 static_cast<long long>(kMaxOversizedBytes));
  }
  const int concurrency = absl::GetFlag(FLAGS_concurrency);
  if (server_limits.max_concurrent_streams() > 0 &&
      concurrency >= static_cast<int>(server_limits.max_concurrent_streams())) {
    std::fprintf(stderr,
                 "fault_load: --concurrency=%d reaches the server's limit of %u streams; healthy "
                 "streams would be refused. Use fewer.\n",
                 concurrency, server_limits.max_concurrent_streams());
    return 2;
  }
  std::unique_ptr<LadderRig> ladders;
  if (!absl::GetFlag(FLAGS_files_root).empty()) {
    auto rig = MakeLadderRig(RigOptions(server_limits.max_pixels()), cpu.get());
    if (!rig.ok()) {
      std::fprintf(stderr, "fault_load: ladder files: %s\n", rig.status().ToString().c_str());
      return 2;
    }
    ladders = *std::move(rig);
    limits.ladder = ladders->limits;
    std::fprintf(stderr, "fault_load: %zu ladders, %zu decode bombs below %s\n",
                 ladders->media.sets.size(), ladders->media.bombs.size(),
                 absl::GetFlag(FLAGS_files_root).c_str());
    for (const std::string& note : ladders->notes) {
      std::fprintf(stderr, "fault_load: %s\n", note.c_str());
    }
  }
  std::fprintf(stderr, "fault_load: %zu clip variants, backend %s, %d workers, %s\n",
               variants->size(), capabilities->default_backend().c_str(), concurrency,
               absl::FormatDuration(absl::GetFlag(FLAGS_duration)).c_str());
  Run run(*std::move(variants), *weights, limits, max_message_bytes, std::move(metrics_hog),
          std::move(ladders));
  return run.Main();
}

}  // namespace
}  // namespace ssimd::fault_load

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Drives a running ssimd server with concurrent streams and injected faults, and checks "
      "that nothing is lost, misordered or wrong.\n"
      "  fault_load --target=127.0.0.1:50051 --server_pid=PID --duration=600s");
  absl::ParseCommandLine(argc, argv);
  ssimd::KeepFrameMemoryInProcess();
  // A vanishing child that is killed mid-write must not take the parent with it.
  signal(SIGPIPE, SIG_IGN);
  // The invalid-UTF-8 fault makes protobuf log every serialization of it; the report says enough.
  google::protobuf::SetLogHandler(nullptr);
  return ssimd::fault_load::Setup();
}
