#include "server/server_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/impl/server_builder_option.h"
#include "grpcpp/security/server_credentials.h"
#include "server/logging.h"
#include "server/request_parsing.h"

namespace ssimd {
namespace {

// How long a stopping server keeps its connections open after the last RPC ended, for clients
// still reading the results their side had buffered.
constexpr absl::Duration kShutdownLinger = absl::Seconds(1);

absl::StatusOr<std::string> ReadPem(const std::string& path, const char* flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, ": cannot read ", path));
  }
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeCredentials(const TlsOptions& tls) {
  if (tls.cert_file.empty() && tls.key_file.empty()) {
    if (!tls.client_ca_file.empty()) {
      return absl::InvalidArgumentError(
          "--tls_client_ca_file needs --tls_cert_file and --tls_key_file (mTLS is TLS plus client "
          "certificates)");
    }
    return grpc::InsecureServerCredentials();
  }
  if (tls.cert_file.empty() || tls.key_file.empty()) {
    return absl::InvalidArgumentError(
        "TLS needs both --tls_cert_file and --tls_key_file, or neither for plaintext");
  }
  auto cert = ReadPem(tls.cert_file, "tls_cert_file");
  if (!cert.ok()) return cert.status();
  auto key = ReadPem(tls.key_file, "tls_key_file");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions ssl(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  ssl.pem_key_cert_pairs.push_back({*key, *cert});
  if (!tls.client_ca_file.empty()) {
    auto ca = ReadPem(tls.client_ca_file, "tls_client_ca_file");
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *ca;
    ssl.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(ssl);
}

// Turns reflection on or off for one server. Linking gRPC's reflection library registers its
// plugin for every server the process builds; this option keeps exactly one copy, or none.
class ReflectionOption final : public grpc::ServerBuilderOption {
 public:
  explicit ReflectionOption(bool enabled) : enabled_(enabled) {}
  void UpdateArguments(grpc::ChannelArguments* /*args*/) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override {
    auto reflection = std::make_unique<grpc::reflection::ProtoServerReflectionPlugin>();
    const std::string name = reflection->name();
    plugins->erase(std::remove_if(plugins->begin(), plugins->end(),
                                  [&](const std::unique_ptr<grpc::ServerBuilderPlugin>& p) {
                                    return p->name() == name;
                                  }),
                   plugins->end());
    if (enabled_) plugins->push_back(std::move(reflection));
  }

 private:
  const bool enabled_;
};

// gRPC takes durations as int milliseconds.
int ClampedMilliseconds(absl::Duration d) {
  return static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(d), INT32_MAX));
}

bool CanServe(const ServiceContext& ctx) {
  return ctx.dispatcher->CanServe(ctx.options.backend_policy);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ServerRunner>> ServerRunner::Start(const ServerOptions& options,
                                                                  Backends backends,
                                                                  ServiceMetrics* metrics) {
  if (backends.dispatcher == nullptr || metrics == nullptr) {
    return absl::InvalidArgumentError("ServerRunner needs a dispatcher and metrics");
  }
  const ServiceOptions& so = options.service;
  if (so.max_concurrent_streams < 1 || so.max_frames_in_flight < 1 || so.max_pending_pairs < 1) {
    return absl::InvalidArgumentError(
        "--max_concurrent_streams, --max_frames_in_flight and --max_pending_pairs must be at "
        "least 1");
  }
  if (so.max_message_bytes < 1024 || so.max_message_bytes > (int64_t{1} << 31) - 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max_message_bytes must be from 1024 to 2147483647 (gRPC's limit), got ",
        so.max_message_bytes));
  }
  auto credentials = MakeCredentials(options.tls);
  if (!credentials.ok()) return credentials.status();

  std::unique_ptr<ServerRunner> runner(new ServerRunner());
  runner->backends_ = std::move(backends);
  runner->health_poll_interval_ = options.health_poll_interval;
  if (!so.files_root.empty()) {
    auto guard = PathGuard::Create(so.files_root);
    if (!guard.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--files_root: ", guard.status().message()));
    }
    runner->files_ = std::make_unique<PathGuard>(*std::move(guard));
  }
  if (!options.uploads.dir.empty()) {
    auto spool = UploadSpool::Create(options.uploads);
    if (!spool.ok()) return spool.status();
    runner->uploads_ = *std::move(spool);
  }
  if (!options.urls.allowed_prefixes.empty()) {
    auto urls = UrlSource::Create(options.urls);
    if (!urls.ok()) return urls.status();
    runner->urls_ = *std::move(urls);
  }
  runner->inputs_ = std::make_unique<InputResolver>(runner->files_.get(), runner->uploads_.get(),
                                                    runner->urls_.get());
  runner->streams_ = std::make_unique<StreamRegistry>();
  runner->pool_ = std::make_unique<ThreadPool>(options.workers, ThreadPool::Sizing::kStarted);
  runner->ctx_ = std::make_unique<ServiceContext>();
  ServiceContext& ctx = *runner->ctx_;
  ctx.dispatcher = runner->backends_.dispatcher.get();
  ctx.gpu = runner->backends_.gpu;
  ctx.gpu_unavailable_reason = runner->backends_.gpu_unavailable_reason;
  if (!so.hw_decode_api.empty()) {
    absl::StatusOr<std::shared_ptr<HwDecodeDevice>> device =
        HwDecodeDevice::Open({so.hw_decode_api, so.hw_decode_device, so.hw_decode_sessions});
    if (device.ok()) {
      ctx.hw_decode = *std::move(device);
    } else if (device.status().code() == absl::StatusCode::kInvalidArgument) {
      return device.status();
    } else {
      ctx.hw_decode_unavailable_reason = std::string(device.status().message());
      LogEvent(spdlog::level::warn, "hardware decoding unavailable: files decode on the CPU",
               {{"api", so.hw_decode_api}, {"reason", ctx.hw_decode_unavailable_reason}});
    }
  }
  ctx.pool = runner->pool_.get();
  ctx.metrics = metrics;
  ctx.files = runner->files_.get();
  ctx.uploads = runner->uploads_.get();
  ctx.inputs = runner->inputs_.get();
  ctx.streams = runner->streams_.get();
  ctx.options = so;
  runner->service_ = std::make_unique<ScoringServiceImpl>(runner->ctx_.get());

  // A process-wide switch (and not thread-safe): set once, before the first server is built.
  static const bool health_enabled = [] {
    grpc::EnableDefaultHealthCheckService(true);
    return true;
  }();
  (void)health_enabled;

  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.address, *credentials, &runner->port_);
  builder.SetMaxReceiveMessageSize(TransportReceiveLimit(so.max_message_bytes));
  // gRPC sets SO_REUSEPORT by default: a second server on a busy port would start and silently
  // take half the connections instead of failing.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // Compressed requests are refused (UNIMPLEMENTED) before any message is read: gRPC inflates a
  // compressed message whole before checking its size, so 1 MB of gzip could cost 1 GB of memory,
  // and video planes hardly compress anyway. Bit 0 is "identity". See ADR 0067.
  builder.AddChannelArgument(GRPC_COMPRESSION_CHANNEL_ENABLED_ALGORITHMS_BITSET, 1);
  if (options.max_connection_age > absl::ZeroDuration()) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS,
                               ClampedMilliseconds(options.max_connection_age));
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS,
                               ClampedMilliseconds(options.max_connection_age_grace));
  }
  builder.RegisterService(runner->service_.get());
  builder.SetOption(std::make_unique<ReflectionOption>(options.reflection));
  runner->server_ = builder.BuildAndStart();
  if (runner->server_ == nullptr || runner->port_ == 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", options.address,
        " (address in use, or not a local address?); choose another with --address"));
  }
  runner->streams_->StartWatchdog(so.stream_idle_timeout,
                                  std::clamp(so.stream_idle_timeout / 4, absl::Milliseconds(50),
                                             absl::Seconds(1)));
  runner->UpdateHealth();
  runner->health_thread_ = std::thread([r = runner.get()] { r->PollHealth(); });
  return runner;
}

ServerRunner::~ServerRunner() { Shutdown(absl::ZeroDuration()); }

bool ServerRunner::serving() const {
  absl::MutexLock lock(&mu_);
  return serving_;
}

void ServerRunner::UpdateHealth() {
  const bool serving = CanServe(*ctx_);
  if (ctx_->gpu != nullptr) ctx_->metrics->UpdateDevices(ctx_->gpu->Stats());
  if (ctx_->hw_decode != nullptr) {
    ctx_->metrics->UpdateDecodeSessions(ctx_->hw_decode->sessions_in_use(),
                                        ctx_->hw_decode->max_sessions());
    if (absl::StatusOr<double> busy = ctx_->hw_decode->EngineUtilization(); busy.ok()) {
      ctx_->metrics->UpdateDecodeEngineUtilization(*busy);
    }
  }
  absl::MutexLock lock(&mu_);
  if (shut_down_) return;
  if (serving != serving_ || !health_published_) {
    grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
    if (health != nullptr) {
      health->SetServingStatus("", serving);
      health->SetServingStatus(kScoringServiceName, serving);
    }
    if (health_published_) {
      LogEvent(serving ? spdlog::level::info : spdlog::level::err,
               serving ? "health: SERVING" : "health: NOT_SERVING (no backend can serve)",
               {{"default_backend", ctx_->dispatcher->DefaultBackend()}});
    }
    serving_ = serving;
    health_published_ = true;
  }
}

void ServerRunner::PollHealth() {
  while (!stop_health_.WaitForNotificationWithTimeout(health_poll_interval_)) UpdateHealth();
}

void ServerRunner::Shutdown(absl::Duration grace) {
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
    serving_ = false;
    if (server_ == nullptr) return;  // Start failed before the server existed
    // Probes see NOT_SERVING while the streams drain, so traffic moves elsewhere.
    grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
    if (health != nullptr) health->Shutdown();
  }
  stop_health_.Notify();
  if (health_thread_.joinable()) health_thread_.join();
  const absl::Time deadline = absl::Now() + grace;
  // gRPC's own Shutdown sends GOAWAY at once, and a connection whose last stream ends after a
  // GOAWAY is closed at once too, before a client that reads slowly has taken the results
  // still buffered on its side: the close resets the connection and they are lost. So the
  // service refuses new RPCs itself first, and gRPC is told to stop only once the accepted ones
  // are over and their last bytes had a moment to reach the client.
  ctx_->draining.store(true);
  while (absl::Now() < deadline &&
         (ctx_->active_streams.load() > 0 || ctx_->pending_pairs.load() > 0)) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  const int streams_left = ctx_->active_streams.load();
  const int pairs_left = ctx_->pending_pairs.load();
  if (streams_left > 0 || pairs_left > 0) {
    LogEvent(spdlog::level::warn, "shutting down: grace period over, cancelling what is left",
             {{"active_streams", absl::StrCat(streams_left)},
              {"pending_pairs", absl::StrCat(pairs_left)}});
    // Ended here rather than by gRPC's own shutdown, so that each client, the log and the metrics
    // get the same status and a reason.
    streams_->ForEach([](RegisteredStream& stream) {
      stream.Abort(absl::UnavailableError(
          "the server shut down: its grace period (--grace_period) ended before this stream "
          "finished; retry on another replica"));
    });
    const absl::Time abort_deadline = absl::Now() + absl::Seconds(2);
    while (absl::Now() < abort_deadline && ctx_->active_streams.load() > 0) {
      absl::SleepFor(absl::Milliseconds(5));
    }
  } else {
    LogEvent(spdlog::level::info, "shutting down: every accepted request finished");
  }
  absl::SleepFor(std::max(absl::ZeroDuration(), std::min(kShutdownLinger, deadline - absl::Now())));
  // Nothing accepted is left (or the grace period is over): a deadline of now makes gRPC close
  // the idle connections at once instead of waiting for their clients to hang up.
  server_->Shutdown(std::chrono::system_clock::now());
  server_->Wait();
  streams_->StopWatchdog();
  // Frames still queued belong to finished streams; they end quickly and free their streams.
  pool_.reset();
}

}  // namespace ssimd
