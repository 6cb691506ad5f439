#include "client/channel_config.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace ssimd {
namespace {

enum class Family { kV4, kV6 };

bool IsIpv4(absl::string_view host) {
  std::vector<absl::string_view> parts = absl::StrSplit(host, '.');
  if (parts.size() != 4) return false;
  for (absl::string_view part : parts) {
    int n = 0;
    if (part.empty() || part.size() > 3 || !absl::SimpleAtoi(part, &n) || n > 255) return false;
  }
  return true;
}

bool IsIpv6(absl::string_view host) {
  if (host.empty() || !absl::StrContains(host, ':')) return false;
  for (char c : host) {
    if (!absl::ascii_isxdigit(c) && c != ':' && c != '.') return false;
  }
  return true;
}

// One element of a comma list: "1.2.3.4:50051" or "[::1]:50051".
absl::StatusOr<Family> CheckAddress(absl::string_view address) {
  absl::string_view host;
  absl::string_view port;
  Family family;
  if (absl::StartsWith(address, "[")) {
    const size_t close = address.find(']');
    if (close == absl::string_view::npos || address.substr(close + 1, 1) != ":") {
      return absl::InvalidArgumentError(
          absl::StrCat("--server: \"", address, "\" is not [IPv6]:port"));
    }
    host = address.substr(1, close - 1);
    port = address.substr(close + 2);
    family = Family::kV6;
    if (!IsIpv6(host)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--server: \"", host, "\" is not an IPv6 address"));
    }
  } else {
    const size_t colon = address.rfind(':');
    if (colon == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("--server: \"", address, "\" has no port; write it as IP:PORT"));
    }
    host = address.substr(0, colon);
    port = address.substr(colon + 1);
    family = Family::kV4;
    if (!IsIpv4(host)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--server: a comma list takes IP addresses, and \"", host,
          "\" is not one; for a name that resolves to several servers use dns:///NAME:PORT"));
    }
  }
  int port_number = 0;
  if (!absl::SimpleAtoi(port, &port_number) || port_number < 1 || port_number > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--server: \"", address, "\" needs a port from 1 to 65535"));
  }
  return family;
}

}  // namespace

absl::StatusOr<std::string> ChannelTarget(absl::string_view server) {
  server = absl::StripAsciiWhitespace(server);
  if (server.empty()) {
    return absl::InvalidArgumentError("--server: empty; give host:port, a comma list of IP:PORT, "
                                      "or dns:///NAME:PORT");
  }
  if (!absl::StrContains(server, ',') || absl::StrContains(server, "://") ||
      absl::StartsWith(server, "ipv4:") || absl::StartsWith(server, "ipv6:")) {
    return std::string(server);
  }
  std::vector<std::string> addresses;
  std::optional<Family> family;
  for (absl::string_view piece : absl::StrSplit(server, ',')) {
    piece = absl::StripAsciiWhitespace(piece);
    if (piece.empty()) continue;  // a trailing comma
    auto this_family = CheckAddress(piece);
    if (!this_family.ok()) return this_family.status();
    if (family.has_value() && *family != *this_family) {
      return absl::InvalidArgumentError(
          "--server: a comma list must be all IPv4 or all IPv6 addresses");
    }
    family = *this_family;
    addresses.emplace_back(piece);
  }
  if (addresses.empty()) return absl::InvalidArgumentError("--server: the comma list is empty");
  return absl::StrCat(*family == Family::kV4 ? "ipv4:" : "ipv6:", absl::StrJoin(addresses, ","));
}

bool TargetMayNameManyServers(absl::string_view target) {
  return absl::StartsWith(target, "dns:") ||
         ((absl::StartsWith(target, "ipv4:") || absl::StartsWith(target, "ipv6:")) &&
          absl::StrContains(target, ','));
}

std::string ServiceConfigJson(bool balance) {
  // Calls whose repetition cannot count a frame twice: unary calls and server-streaming calls
  // (ScoreFiles, ScoreLadder) that gRPC retries only before their first response. ScoreClip is
  // absent: its frames come from the caller, and a cut stream is resumed by the caller from its
  // first missing frame.
  constexpr absl::string_view kRetryable[] = {"ScorePair", "ScoreFiles", "ScoreLadder",
                                               "GetCapabilities"};
  std::vector<std::string> names;
  for (absl::string_view method : kRetryable) {
    names.push_back(
        absl::StrCat(R"({"service":"ssimd.v1.ScoringService","method":")", method, R"("})"));
  }
  const std::string method_config = absl::StrCat(
      R"("methodConfig":[{"name":[)", absl::StrJoin(names, ","),
      R"(],"retryPolicy":{"maxAttempts":5,"initialBackoff":"0.1s","maxBackoff":"2s",)",
      R"("backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}])");
  if (!balance) return absl::StrCat("{", method_config, "}");
  return absl::StrCat(R"({"loadBalancingConfig":[{"round_robin":{}}],)",
                      R"("healthCheckConfig":{"serviceName":"ssimd.v1.ScoringService"},)",
                      method_config, "}");
}

}  // namespace ssimd
