// An ssimd server in the test process, on 127.0.0.1 with a port the kernel picks, plus a client
// connected to it and the test doubles the service tests need.
#ifndef SSIMD_TESTS_INTEGRATION_TEST_SERVER_H_
#define SSIMD_TESTS_INTEGRATION_TEST_SERVER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "client/ssimd_client.h"
#include "engine/gpu/gpu_scorer.h"
#include "engine/scorer.h"
#include "server/metrics.h"
#include "server/server_runner.h"

namespace ssimd::testing {

// Settings for fast tests: a short health poll, and ports picked by the kernel.
ServerOptions FastServerOptions();

class TestServer {
 public:
  // `cpu` defaults to the real CPU engine; `gpu` may be null (no device).
  static std::unique_ptr<TestServer> Start(ServerOptions options,
                                           std::unique_ptr<Scorer> cpu = nullptr,
                                           std::unique_ptr<GpuScorer> gpu = nullptr);

  SsimdClient& client() { return *client_; }
  ServerRunner& runner() { return *runner_; }
  ServiceMetrics& metrics() { return *metrics_; }
  std::string address() const;
  // A raw stub, for message sequences the client library would never send.
  v1::ScoringService::Stub& stub() { return *stub_; }

 private:
  std::unique_ptr<ServiceMetrics> metrics_;
  std::unique_ptr<ServerRunner> runner_;
  std::unique_ptr<SsimdClient> client_;
  std::unique_ptr<v1::ScoringService::Stub> stub_;
};

// Wraps a scorer: counts calls, records the highest number running at once, and can hold every
// call at a gate until the test opens it, or delay it by a function of the call's first sample.
class InstrumentedScorer : public Scorer {
 public:
  explicit InstrumentedScorer(std::unique_ptr<Scorer> inner, bool gate_open = true);

  std::string_view name() const override { return inner_->name(); }
  absl::Status CheckContext(const Geometry& geometry, const FeatureSet& features) const override {
    return inner_->CheckContext(geometry, features);
  }
  absl::StatusOr<ScoreResult> Score(const Geometry& geometry, const FeatureSet& features,
                                    const FramePair& pair) override;

  void OpenGate();
  // Waits until at least `n` calls are running (held at the gate or scoring).
  void WaitForActive(int n);
  int calls() const;
  int active() const;
  int max_active() const;
  // Delay each call by delay(first reference sample); set before traffic starts.
  void set_delay(std::function<absl::Duration(uint32_t)> delay) { delay_ = std::move(delay); }

 private:
  std::unique_ptr<Scorer> inner_;
  std::function<absl::Duration(uint32_t)> delay_;
  mutable absl::Mutex mu_;
  bool gate_open_ ABSL_GUARDED_BY(mu_);
  int calls_ ABSL_GUARDED_BY(mu_) = 0;
  int active_ ABSL_GUARDED_BY(mu_) = 0;
  int max_active_ ABSL_GUARDED_BY(mu_) = 0;
};

// A stand-in GPU: scores on the CPU engine but reports "gpu:0", refuses pictures wider than
// `max_width` (as a device refuses contexts it cannot serve), and can be marked lost.
class FakeGpuScorer : public GpuScorer {
 public:
  explicit FakeGpuScorer(int max_width);

  std::string_view name() const override { return "gpu"; }
  absl::Status CheckContext(const Geometry& geometry, const FeatureSet& features) const override;
  absl::StatusOr<ScoreResult> Score(const Geometry& geometry, const FeatureSet& features,
                                    const FramePair& pair) override;
  bool Healthy() const override { return !lost_.load(); }
  std::vector<GpuDeviceInfo> Devices() const override;
  std::vector<GpuDeviceStats> Stats() const override;

  void set_lost(bool lost) { lost_.store(lost); }
  // Lists, after the fake device, a device the binary holds no code for (as the real engine does).
  void add_device_without_code(GpuDeviceInfo info) {
    info.has_code = false;
    without_code_.push_back(std::move(info));
  }

 private:
  const int max_width_;
  std::vector<GpuDeviceInfo> without_code_;
  std::unique_ptr<Scorer> cpu_;
  std::atomic<bool> lost_{false};
  std::atomic<int64_t> frames_{0};
};

}  // namespace ssimd::testing

#endif  // SSIMD_TESTS_INTEGRATION_TEST_SERVER_H_
