// How the client reaches one server or many: the gRPC target a --server value names, and the
// service config that spreads calls over replicas, skips draining ones and retries safe calls.
#ifndef SSIMD_CLIENT_CHANNEL_CONFIG_H_
#define SSIMD_CLIENT_CHANNEL_CONFIG_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ssimd {

// A --server value as a gRPC target. "host:port" and URIs ("dns:///name:port", "ipv4:...") pass
// through; a comma list of IP addresses ("10.0.0.1:50051,10.0.0.2:50051", "[::1]:1,[::1]:2")
// becomes an ipv4: or ipv6: target. INVALID_ARGUMENT for a comma list with a host name, a missing
// port or both address families, saying what to write instead.
absl::StatusOr<std::string> ChannelTarget(absl::string_view server);

// True when the target may name several servers (a comma list or a dns:/// URI): then calls are
// spread round-robin over the servers whose health says SERVING. A plain host:port keeps one
// connection, so that a server's own errors (e.g. no usable GPU) reach the caller unchanged.
bool TargetMayNameManyServers(absl::string_view target);

// The JSON service config of a channel. Always: ScorePair, ScoreFiles, ScoreLadder and
// GetCapabilities are retried on UNAVAILABLE (the server died or drains before answering), which
// gRPC does only while no response has arrived, so nothing is scored twice into a result. With
// `balance`: round_robin over the resolved addresses with health checking of
// ssimd.v1.ScoringService.
std::string ServiceConfigJson(bool balance);

// gRPC keeps a copy of a retryable request to send it again; a frame pair is larger than gRPC's
// default copy limit (256 KiB), so the channel allows up to this many bytes per call.
inline constexpr char kRetryBufferArg[] = "grpc.per_rpc_retry_buffer_size";

}  // namespace ssimd

#endif  // SSIMD_CLIENT_CHANNEL_CONFIG_H_
