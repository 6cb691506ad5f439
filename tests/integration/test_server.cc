#include "tests/integration/test_server.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "base/status_macros.h"
#include "engine/cpu/cpu_scorer.h"
#include "engine/dispatcher.h"
#include "grpcpp/grpcpp.h"

namespace ssimd::testing {
ServerOptions FastServerOptions() {
  ServerOptions options;
  options.address = "127.0.0.1:0";
  options.workers = 2;
  options.health_poll_interval = absl::Milliseconds(20);
  return options;
}

std::unique_ptr<TestServer> TestServer::Start(ServerOptions options, std::unique_ptr<Scorer> cpu,
                                              std::unique_ptr<GpuScorer> gpu) {
  auto server = std::unique_ptr<TestServer>(new TestServer());
  server->metrics_ = std::make_unique<ServiceMetrics>();
  if (cpu == nullptr) cpu = MakeCpuScorer();
  Backends backends;
  backends.gpu = gpu.get();
  backends.gpu_unavailable_reason = gpu == nullptr ? "no GPU in this test" : "";
  backends.dispatcher = std::make_unique<Dispatcher>(std::move(cpu), std::move(gpu),
                                                     backends.gpu_unavailable_reason);
  auto runner = ServerRunner::Start(options, std::move(backends), server->metrics_.get());
  if (!runner.ok()) return nullptr;
  server->runner_ = *std::move(runner);
  ClientOptions client;
  client.target = server->address();
  client.max_message_bytes = options.service.max_message_bytes;
  server->client_ = *SsimdClient::Connect(client);
  server->stub_ = v1::ScoringService::NewStub(
      grpc::CreateChannel(server->address(), grpc::InsecureChannelCredentials()));
  return server;
}

std::string TestServer::address() const { return absl::StrCat("127.0.0.1:", runner_->port()); }

InstrumentedScorer::InstrumentedScorer(std::unique_ptr<Scorer> inner, bool gate_open)
    : inner_(std::move(inner)), gate_open_(gate_open) {}

absl::StatusOr<ScoreResult> InstrumentedScorer::Score(const Geometry& geometry,
                                                      const FeatureSet& features,
                                                      const FramePair& pair) {
  {
    absl::MutexLock lock(&mu_);
    ++calls_;
    ++active_;
    if (active_ > max_active_) max_active_ = active_;
    mu_.Await(absl::Condition(&gate_open_));
  }
  if (delay_) absl::SleepFor(delay_(pair.reference.Sample(0, 0)));
  auto result = inner_->Score(geometry, features, pair);
  absl::MutexLock lock(&mu_);
  --active_;
  return result;
}

void InstrumentedScorer::OpenGate() {
  absl::MutexLock lock(&mu_);
  gate_open_ = true;
}

void InstrumentedScorer::WaitForActive(int n) {
  absl::MutexLock lock(&mu_);
  auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return active_ >= n; };
  mu_.Await(absl::Condition(&enough));
}

int InstrumentedScorer::calls() const {
  absl::MutexLock lock(&mu_);
  return calls_;
}

int InstrumentedScorer::active() const {
  absl::MutexLock lock(&mu_);
  return active_;
}

int InstrumentedScorer::max_active() const {
  absl::MutexLock lock(&mu_);
  return max_active_;
}

FakeGpuScorer::FakeGpuScorer(int max_width) : max_width_(max_width), cpu_(MakeCpuScorer()) {}

absl::Status FakeGpuScorer::CheckContext(const Geometry& geometry,
                                         const FeatureSet& features) const {
  SSIMD_RETURN_IF_ERROR(cpu_->CheckContext(geometry, features));
  if (geometry.width > max_width_) {
    return absl::FailedPreconditionError(
        absl::StrFormat("the test GPU takes pictures up to %d pixels wide", max_width_));
  }
  return absl::OkStatus();
}

absl::StatusOr<ScoreResult> FakeGpuScorer::Score(const Geometry& geometry,
                                                 const FeatureSet& features,
                                                 const FramePair& pair) {
  auto result = cpu_->Score(geometry, features, pair);
  if (result.ok()) {
    result->backend = "gpu:0";
    frames_.fetch_add(1);
  }
  return result;
}

std::vector<GpuDeviceInfo> FakeGpuScorer::Devices() const {
  GpuDeviceInfo info;
  info.index = 0;
  info.name = "test device";
  info.arch = "sm_90";
  info.total_memory_bytes = int64_t{1} << 30;
  std::vector<GpuDeviceInfo> devices = {info};
  for (GpuDeviceInfo other : without_code_) {
    other.index = static_cast<int>(devices.size());
    devices.push_back(std::move(other));
  }
  return devices;
}

std::vector<GpuDeviceStats> FakeGpuScorer::Stats() const {
  GpuDeviceStats stats;
  stats.index = 0;
  stats.frames_scored = frames_.load();
  stats.slots_total = 4;
  stats.lost = lost_.load();
  return {stats};
}

}  // namespace ssimd::testing
