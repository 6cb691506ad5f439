// Inputs given as http(s) URLs: fetched only when they lie under a prefix the operator allowed
// (--allow_url_prefix), every redirect checked the same way, within a byte limit and with
// connect, total and stall timeouts. The bytes land in an anonymous memory file whose
// descriptor the readers take, as they take a file's.
#ifndef SSIMD_SERVER_URL_SOURCE_H_
#define SSIMD_SERVER_URL_SOURCE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "server/fetch_control.h"

namespace ssimd {

struct UrlSourceOptions {
  // "https://media.example.com/renditions/": scheme, host, optional port and a path prefix.
  std::vector<std::string> allowed_prefixes;
  int64_t max_bytes = int64_t{1} << 30;
  absl::Duration connect_timeout = absl::Seconds(10);
  absl::Duration total_timeout = absl::Minutes(5);
  // All the fetches of one call together (--url_call_timeout): a ladder of 33 inputs must not
  // hold its stream slot for 33 x --url_timeout.
  absl::Duration call_timeout = absl::Minutes(10);
  // A transfer that moves no byte for this long is abandoned.
  absl::Duration stall_timeout = absl::Seconds(30);
  int max_redirects = 5;
};

// A URL taken apart, normalised: lowercase scheme and host, the port always explicit, the path
// with "." and ".." segments resolved.
struct ParsedUrl {
  std::string scheme;
  std::string host;
  int port = 0;
  std::string path;
  // The whole URL as fetched (the parts above, query included).
  std::string text;
};

// True for text that starts with "http://" or "https://" (any case): such an input is a URL,
// never a path.
bool LooksLikeUrl(absl::string_view text);

// Takes `url` apart. INVALID_ARGUMENT for anything that is not an absolute http(s) URL, and for
// URLs with user names or passwords or with encoded slashes, dots or backslashes in the path
// (they could mean another path to the server than to the prefix check).
absl::StatusOr<ParsedUrl> ParseHttpUrl(absl::string_view url);

class UrlSource {
 public:
  // INVALID_ARGUMENT, naming --allow_url_prefix, for a prefix that is not an http(s) URL.
  static absl::StatusOr<std::unique_ptr<UrlSource>> Create(UrlSourceOptions options);

  // Whether `url` lies under one of the allowed prefixes: same scheme, host and port, and a path
  // that starts with the prefix's path at a segment boundary.
  bool Allowed(const ParsedUrl& url) const;

  // Fetches `url` and returns a read-only descriptor of its bytes (the caller closes it).
  // Messages start with `field` and quote the URL. PERMISSION_DENIED: not under an allowed
  // prefix, or redirected outside them. NOT_FOUND: HTTP 404 or 410. DEADLINE_EXCEEDED: the
  // transfer stalled or took too long, or the call's time for fetching (`control`) ran out.
  // CANCELLED: the call ended (nothing is requested then; a transfer under way is dropped
  // within kStopCheckInterval). RESOURCE_EXHAUSTED: more than --max_url_bytes.
  // FAILED_PRECONDITION: other HTTP errors, too many redirects, no connection.
  absl::StatusOr<int> Fetch(absl::string_view url, absl::string_view field,
                            const FetchControl& control = FetchControl()) const;

  // The control of a call starting now: stopped by `call_ended`, with --url_call_timeout.
  FetchControl ControlForCall(std::function<bool()> call_ended) const {
    return FetchControl(std::move(call_ended), options_.call_timeout);
  }

  // How often a transfer under way looks whether its call ended or ran out of time.
  static constexpr absl::Duration kStopCheckInterval = absl::Milliseconds(50);

  const UrlSourceOptions& options() const { return options_; }

 private:
  UrlSource(UrlSourceOptions options, std::vector<ParsedUrl> prefixes)
      : options_(std::move(options)), prefixes_(std::move(prefixes)) {}

  const UrlSourceOptions options_;
  const std::vector<ParsedUrl> prefixes_;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_URL_SOURCE_H_
