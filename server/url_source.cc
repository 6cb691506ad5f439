#include "server/url_source.h"

#include <curl/curl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "base/client_text.h"

namespace ssimd {
namespace {

// curl_url handle, freed on every path.
struct UrlHandle {
  CURLU* handle = curl_url();
  ~UrlHandle() { curl_url_cleanup(handle); }
  // The part, or empty when it is absent.
  std::string Get(CURLUPart part, unsigned int flags = 0) const {
    char* value = nullptr;
    if (curl_url_get(handle, part, &value, flags) != CURLUE_OK || value == nullptr) return "";
    std::string out(value);
    curl_free(value);
    return out;
  }
};

struct EasyHandle {
  CURL* handle = curl_easy_init();
  ~EasyHandle() { curl_easy_cleanup(handle); }
};

// How one transfer ended: curl finished it (with `code`), or the fetch control stopped it.
enum class TransferEnd { kFinished, kCallEnded, kCallOutOfTime };
struct TransferOutcome {
  TransferEnd end = TransferEnd::kFinished;
  CURLcode code = CURLE_OK;
};

// Runs the transfer of `easy` to its end, or until the call ends or its time for fetching runs
// out. curl_easy_perform would look (through a progress callback) only about once a second
// while a server sends nothing; this loop waits on the transfer's sockets at most
// UrlSource::kStopCheckInterval at a time, so that a cancelled call lets go of its slot at once.
TransferOutcome RunTransfer(CURL* easy, const FetchControl& control) {
  CURLM* multi = curl_multi_init();
  if (multi == nullptr || curl_multi_add_handle(multi, easy) != CURLM_OK) {
    if (multi != nullptr) curl_multi_cleanup(multi);
    return {TransferEnd::kFinished, CURLE_OUT_OF_MEMORY};
  }
  const int wait_ms = static_cast<int>(absl::ToInt64Milliseconds(UrlSource::kStopCheckInterval));
  TransferOutcome outcome{TransferEnd::kFinished, CURLE_OK};
  for (;;) {
    int running = 0;
    if (curl_multi_perform(multi, &running) != CURLM_OK) {
      outcome.code = CURLE_OUT_OF_MEMORY;  // the multi interface fails only on memory or misuse
      break;
    }
    if (running == 0) {
      outcome.code = CURLE_GOT_NOTHING;  // unless curl reports how the transfer ended
      int queued = 0;
      for (CURLMsg* m = curl_multi_info_read(multi, &queued); m != nullptr;
           m = curl_multi_info_read(multi, &queued)) {
        if (m->msg == CURLMSG_DONE && m->easy_handle == easy) outcome.code = m->data.result;
      }
      break;
    }
    if (control.CallEnded()) {
      outcome.end = TransferEnd::kCallEnded;
      break;
    }
    if (absl::Now() >= control.deadline()) {
      outcome.end = TransferEnd::kCallOutOfTime;
      break;
    }
    if (curl_multi_poll(multi, nullptr, 0, wait_ms, nullptr) != CURLM_OK) {
      outcome.code = CURLE_OUT_OF_MEMORY;
      break;
    }
  }
  // Removing the handle mid-transfer closes its connection: the server behind sees the fetch
  // end rather than a reader that went quiet.
  curl_multi_remove_handle(multi, easy);
  curl_multi_cleanup(multi);
  return outcome;
}

// Where a transfer's body goes, with the byte limit.
struct Sink {
  int fd = -1;
  int64_t written = 0;
  int64_t max_bytes = 0;
  bool too_large = false;
  bool write_failed = false;
};

size_t WriteToSink(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const size_t bytes = size * count;
  if (sink->written + static_cast<int64_t>(bytes) > sink->max_bytes) {
    sink->too_large = true;
    return 0;  // curl ends the transfer with CURLE_WRITE_ERROR
  }
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::write(sink->fd, data + done, bytes - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      sink->write_failed = true;
      return 0;
    }
    done += static_cast<size_t>(n);
  }
  sink->written += static_cast<int64_t>(bytes);
  return bytes;
}

void InitCurlOnce() {
  // Not thread-safe in libcurl, hence once, before any transfer.
  static const CURLcode init = curl_global_init(CURL_GLOBAL_DEFAULT);
  (void)init;
}

long Milliseconds(absl::Duration d) {
  return static_cast<long>(std::max<int64_t>(1, absl::ToInt64Milliseconds(d)));
}

bool IsRedirect(long code) {
  return code == 301 || code == 302 || code == 303 || code == 307 || code == 308;
}

std::string MiBText(int64_t bytes) {
  return absl::StrFormat("%d bytes (%.1f MiB)", bytes, static_cast<double>(bytes) / (1 << 20));
}

}  // namespace

bool LooksLikeUrl(absl::string_view text) {
  return absl::StartsWithIgnoreCase(text, "http://") ||
         absl::StartsWithIgnoreCase(text, "https://");
}

absl::StatusOr<ParsedUrl> ParseHttpUrl(absl::string_view url) {
  if (!LooksLikeUrl(url)) {
    return absl::InvalidArgumentError("not an http:// or https:// URL");
  }
  const std::string lower = absl::AsciiStrToLower(url);
  // Encoded separators and dots would let "/allowed/%2e%2e/secret" pass a prefix check that the
  // server at the other end then resolves elsewhere.
  for (absl::string_view encoded : {"%2f", "%2e", "%5c", "\\"}) {
    if (absl::StrContains(lower, encoded)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "encoded \"/\", \".\" or \"\\\" (", encoded, ") are not allowed in the URL"));
    }
  }
  InitCurlOnce();
  UrlHandle handle;
  if (handle.handle == nullptr) return absl::ResourceExhaustedError("no memory to parse a URL");
  const std::string text(url);
  if (CURLUcode rc = curl_url_set(handle.handle, CURLUPART_URL, text.c_str(), 0);
      rc != CURLUE_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a valid URL (", curl_url_strerror(rc), ")"));
  }
  if (!handle.Get(CURLUPART_USER).empty() || !handle.Get(CURLUPART_PASSWORD).empty()) {
    return absl::InvalidArgumentError("user names and passwords are not allowed in the URL");
  }
  ParsedUrl parsed;
  parsed.scheme = absl::AsciiStrToLower(handle.Get(CURLUPART_SCHEME));
  parsed.host = absl::AsciiStrToLower(handle.Get(CURLUPART_HOST));
  if (parsed.scheme != "http" && parsed.scheme != "https") {
    return absl::InvalidArgumentError("only http and https URLs are fetched");
  }
  if (parsed.host.empty()) return absl::InvalidArgumentError("the URL names no host");
  if (!absl::SimpleAtoi(handle.Get(CURLUPART_PORT, CURLU_DEFAULT_PORT), &parsed.port)) {
    return absl::InvalidArgumentError("the URL's port is not a number");
  }
  // curl_url_set has already resolved "." and ".." segments.
  parsed.path = handle.Get(CURLUPART_PATH);
  if (parsed.path.empty()) parsed.path = "/";
  parsed.text = handle.Get(CURLUPART_URL);
  return parsed;
}

absl::StatusOr<std::unique_ptr<UrlSource>> UrlSource::Create(UrlSourceOptions options) {
  std::vector<ParsedUrl> prefixes;
  for (const std::string& prefix : options.allowed_prefixes) {
    absl::StatusOr<ParsedUrl> parsed = ParseHttpUrl(prefix);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--allow_url_prefix=", prefix, ": ", parsed.status().message()));
    }
    if (absl::StrContains(prefix, "?") || absl::StrContains(prefix, "#")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--allow_url_prefix=", prefix, ": a prefix is scheme, host, port and path only"));
    }
    prefixes.push_back(*std::move(parsed));
  }
  if (options.max_bytes < 1 || options.max_redirects < 0 ||
      options.connect_timeout <= absl::ZeroDuration() ||
      options.total_timeout <= absl::ZeroDuration() ||
      options.call_timeout <= absl::ZeroDuration() ||
      options.stall_timeout < absl::Seconds(1)) {
    return absl::InvalidArgumentError(
        "--max_url_bytes must be at least 1, the URL timeouts positive and --url_stall_timeout "
        "at least 1s");
  }
  InitCurlOnce();
  return std::unique_ptr<UrlSource>(new UrlSource(std::move(options), std::move(prefixes)));
}

bool UrlSource::Allowed(const ParsedUrl& url) const {
  for (const ParsedUrl& prefix : prefixes_) {
    if (url.scheme != prefix.scheme || url.host != prefix.host || url.port != prefix.port) {
      continue;
    }
    if (!absl::StartsWith(url.path, prefix.path)) continue;
    // "/media" allows "/media" and "/media/x", not "/media-private/x".
    if (absl::EndsWith(prefix.path, "/") || url.path.size() == prefix.path.size() ||
        url.path[prefix.path.size()] == '/') {
      return true;
    }
  }
  return false;
}

absl::StatusOr<int> UrlSource::Fetch(absl::string_view url, absl::string_view field,
                                     const FetchControl& control) const {
  const std::string quoted = QuoteClientText(url);
  // Messages for a call that ended or ran out of time, before or during a transfer.
  const auto call_ended = [&] {
    return absl::CancelledError(absl::StrCat(
        field, ": fetching ", quoted, " stopped: the call ended (cancelled by its client, its "
        "deadline, a lost connection or a server shutdown)"));
  };
  const auto call_out_of_time = [&] {
    return absl::DeadlineExceededError(absl::StrCat(
        field, ": fetching ", quoted, " stopped: this call's URL inputs took longer than ",
        absl::FormatDuration(control.budget()), " together (--url_call_timeout); give fewer or "
        "faster inputs per call, or upload the files"));
  };
  if (control.CallEnded()) return call_ended();
  if (absl::Now() >= control.deadline()) return call_out_of_time();
  const int fd = ::memfd_create("ssimd-url-input", MFD_CLOEXEC);
  if (fd < 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat(field, ": the server cannot hold a fetched file: ", std::strerror(errno)));
  }
  const auto fail = [fd](absl::Status status) {
    ::close(fd);
    return status;
  };
  const absl::Time deadline = absl::Now() + options_.total_timeout;
  std::string current(url);
  for (int hop = 0; hop <= options_.max_redirects; ++hop) {
    absl::StatusOr<ParsedUrl> parsed = ParseHttpUrl(current);
    if (!parsed.ok()) {
      return fail(absl::Status(
          hop == 0 ? absl::StatusCode::kInvalidArgument : absl::StatusCode::kFailedPrecondition,
          hop == 0 ? absl::StrCat(field, ": ", quoted, ": ", parsed.status().message())
                   : absl::StrCat(field, ": ", quoted, " redirects to ",
                                  QuoteClientText(current), ": ", parsed.status().message())));
    }
    if (!Allowed(*parsed)) {
      return fail(absl::PermissionDeniedError(
          hop == 0 ? absl::StrCat(field, ": ", quoted,
                                  " is not under a URL prefix this server allows "
                                  "(--allow_url_prefix); ask its operator, or upload the file")
                   : absl::StrCat(field, ": ", quoted, " redirects to ",
                                  QuoteClientText(current),
                                  ", which is not under a URL prefix this server allows "
                                  "(--allow_url_prefix)")));
    }
    if (control.CallEnded()) return fail(call_ended());
    const absl::Time now = absl::Now();
    if (now >= control.deadline()) return fail(call_out_of_time());
    const absl::Duration left = deadline - now;
    if (left <= absl::ZeroDuration()) {
      return fail(absl::DeadlineExceededError(absl::StrCat(
          field, ": fetching ", quoted, " took longer than ",
          absl::FormatDuration(options_.total_timeout), " (--url_timeout)")));
    }
    // Each fetch's own limit, and never past what is left of the call's.
    const absl::Duration transfer_left = std::min(left, control.deadline() - now);
    if (::ftruncate(fd, 0) != 0 || ::lseek(fd, 0, SEEK_SET) != 0) {
      return fail(absl::InternalError(absl::StrCat(field, ": cannot reset the fetched file")));
    }
    Sink sink;
    sink.fd = fd;
    sink.max_bytes = options_.max_bytes;
    EasyHandle easy;
    if (easy.handle == nullptr) {
      return fail(absl::ResourceExhaustedError(absl::StrCat(field, ": no memory for a transfer")));
    }
    CURL* c = easy.handle;
    curl_easy_setopt(c, CURLOPT_URL, parsed->text.c_str());
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    // Redirects are followed here, one hop at a time, so that each is checked against the
    // prefixes before anything is sent to it.
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                     Milliseconds(std::min(options_.connect_timeout, transfer_left)));
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, Milliseconds(transfer_left));
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME,
                     static_cast<long>(absl::ToInt64Seconds(options_.stall_timeout)));
    curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(options_.max_bytes));
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &WriteToSink);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "ssimd");
    const TransferOutcome outcome = RunTransfer(c, control);
    if (outcome.end == TransferEnd::kCallEnded) return fail(call_ended());
    if (outcome.end == TransferEnd::kCallOutOfTime) return fail(call_out_of_time());
    const CURLcode rc = outcome.code;
    if (sink.too_large || rc == CURLE_FILESIZE_EXCEEDED) {
      return fail(absl::ResourceExhaustedError(absl::StrCat(
          field, ": ", quoted, " is larger than this server's limit of ",
          MiBText(options_.max_bytes), " (--max_url_bytes); send a smaller (compressed) file")));
    }
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      // curl's timer counts whole milliseconds: it may fire a little before the call's deadline.
      if (absl::Now() + absl::Milliseconds(5) >= control.deadline()) {
        return fail(call_out_of_time());
      }
      return fail(absl::DeadlineExceededError(absl::StrCat(
          field, ": fetching ", quoted, " stalled or took too long (--url_stall_timeout ",
          absl::FormatDuration(options_.stall_timeout), ", --url_timeout ",
          absl::FormatDuration(options_.total_timeout), "); check that the server behind it "
          "answers")));
    }
    if (sink.write_failed) {
      return fail(absl::ResourceExhaustedError(
          absl::StrCat(field, ": the server cannot hold the bytes of ", quoted)));
    }
    if (rc != CURLE_OK) {
      return fail(absl::FailedPreconditionError(absl::StrCat(
          field, ": cannot fetch ", quoted, ": ", curl_easy_strerror(rc))));
    }
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    if (IsRedirect(code)) {
      char* location = nullptr;
      curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &location);
      if (location == nullptr) {
        return fail(absl::FailedPreconditionError(absl::StrFormat(
            "%s: %s answered HTTP %d without a Location to go to", field, quoted, code)));
      }
      current = location;
      continue;
    }
    if (code == 404 || code == 410) {
      return fail(absl::NotFoundError(absl::StrFormat(
          "%s: %s answered HTTP %d: nothing is there; check the URL", field, quoted, code)));
    }
    if (code != 200) {
      return fail(absl::FailedPreconditionError(absl::StrFormat(
          "%s: %s answered HTTP %d; expected 200 with the file", field, quoted, code)));
    }
    if (::lseek(fd, 0, SEEK_SET) != 0) {
      return fail(absl::InternalError(absl::StrCat(field, ": cannot rewind the fetched file")));
    }
    return fd;
  }
  return fail(absl::FailedPreconditionError(absl::StrFormat(
      "%s: %s redirects more than %d times", field, quoted, options_.max_redirects)));
}

}  // namespace ssimd
