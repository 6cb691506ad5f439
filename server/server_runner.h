// Builds, starts and stops the gRPC server: the scoring service, the standard health service, server
// reflection, TLS, message limits, and the worker pool. main() and the in-process tests share it.
#ifndef SSIMD_SERVER_SERVER_RUNNER_H_
#define SSIMD_SERVER_SERVER_RUNNER_H_

#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "base/thread_pool.h"
#include "engine/dispatcher.h"
#include "engine/gpu/gpu_scorer.h"
#include "grpcpp/grpcpp.h"
#include "server/metrics.h"
#include "server/input_resolver.h"
#include "server/path_guard.h"
#include "server/scoring_service.h"
#include "server/service_context.h"
#include "server/service_options.h"
#include "server/upload_spool.h"
#include "server/url_source.h"

namespace ssimd {

// The name the health service reports besides "" (the whole server).
inline constexpr char kScoringServiceName[] = "ssimd.v1.ScoringService";

struct TlsOptions {
  std::string cert_file;       // PEM certificate chain; with key_file, turns TLS on
  std::string key_file;        // PEM private key
  std::string client_ca_file;  // PEM roots; when set, clients must present a certificate (mTLS)
};

struct ServerOptions {
  std::string address = "127.0.0.1:50051";  // host:port; port 0 picks a free port
  ServiceOptions service;
  int workers = 0;  // scoring threads; 0 = one per hardware thread
  TlsOptions tls;
  bool reflection = true;
  absl::Duration health_poll_interval = absl::Seconds(1);
  // A connection older than this is asked to close (GOAWAY) once its streams end, so a client
  // that keeps one channel for hours reconnects and its round-robin takes in new replicas;
  // streams still open after the grace are cut. Zero: connections live forever.
  absl::Duration max_connection_age = absl::ZeroDuration();
  absl::Duration max_connection_age_grace = absl::ZeroDuration();
  // Inputs by reference (docs/adr/0078). An empty uploads.dir turns UploadFile and "upload:<id>"
  // inputs off; no urls.allowed_prefixes turns URL inputs off.
  UploadSpoolOptions uploads;
  UrlSourceOptions urls;
};

// The engine the server scores with.
struct Backends {
  std::unique_ptr<Dispatcher> dispatcher;
  GpuScorer* gpu = nullptr;  // owned by the dispatcher; null when no device is usable
  std::string gpu_unavailable_reason;
};

class ServerRunner {
 public:
  // Starts serving. `metrics` must outlive the runner. INVALID_ARGUMENT for bad settings (TLS
  // files, files root, upload directory, URL prefixes), UNAVAILABLE when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<ServerRunner>> Start(const ServerOptions& options,
                                                             Backends backends,
                                                             ServiceMetrics* metrics);
  // Shuts down with no grace period if Shutdown was not called.
  ~ServerRunner();
  ServerRunner(const ServerRunner&) = delete;
  ServerRunner& operator=(const ServerRunner&) = delete;

  int port() const { return port_; }

  // Graceful stop: health turns NOT_SERVING, new RPCs are refused, running streams get up to
  // `grace` to finish, then the rest are cancelled; returns when every RPC and every queued frame
  // is done. Safe to call more than once.
  void Shutdown(absl::Duration grace);

  // Health as last published (true = SERVING).
  bool serving() const;
  const ServiceContext& context() const { return *ctx_; }

 private:
  ServerRunner() = default;
  void PollHealth();
  void UpdateHealth();

  Backends backends_;
  std::unique_ptr<PathGuard> files_;
  std::unique_ptr<UploadSpool> uploads_;
  std::unique_ptr<UrlSource> urls_;
  std::unique_ptr<InputResolver> inputs_;
  std::unique_ptr<StreamRegistry> streams_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<ServiceContext> ctx_;
  std::unique_ptr<ScoringServiceImpl> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;

  absl::Notification stop_health_;
  std::thread health_thread_;
  absl::Duration health_poll_interval_;

  mutable absl::Mutex mu_;
  bool serving_ ABSL_GUARDED_BY(mu_) = false;
  bool health_published_ ABSL_GUARDED_BY(mu_) = false;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_SERVER_RUNNER_H_
