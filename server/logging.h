// The service's logs, through spdlog on stderr: human-readable text by default, or one JSON object
// per line for log collectors. Lines about a stream carry its id and labels (the title) as fields,
// so one clip's story can be pulled out of a busy server's log with a single filter.
#ifndef SSIMD_SERVER_LOGGING_H_
#define SSIMD_SERVER_LOGGING_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "engine/gpu/gpu_scorer.h"
#include "spdlog/common.h"

namespace ssimd {

enum class LogFormat { kText, kJson };

struct LoggingOptions {
  LogFormat format = LogFormat::kText;
  std::string level = "info";  // trace, debug, info, warn, error, critical or off
};

// "text" or "json"; INVALID_ARGUMENT otherwise.
absl::StatusOr<LogFormat> ParseLogFormat(std::string_view name);

// Installs the process-wide logger writing to stderr. INVALID_ARGUMENT names a bad level. Safe to
// call again (e.g. after flags are parsed); lines logged before use spdlog's default format.
absl::Status ConfigureLogging(const LoggingOptions& options);
// The same, writing to `sink` instead of stderr (tests capture lines this way).
absl::Status ConfigureLogging(const LoggingOptions& options, spdlog::sink_ptr sink);

// Key/value pairs attached to one line. Text: `message key=value ...` (values quoted where they
// hold spaces or quotes). JSON: top-level keys next to "time", "level" and "msg"; a key that would
// clash with those three, or is not [a-z0-9_]+, is renamed so the line stays unambiguous.
using LogFields = std::vector<std::pair<std::string, std::string>>;

void LogEvent(spdlog::level::level_enum level, std::string_view message,
              const LogFields& fields = {});

// The start-up line: the backend kAuto uses ("gpu" or "cpu"), each device found, why the GPU is
// not used when the backend is "cpu", and any extra fields (addresses, versions).
void LogStartup(std::string_view backend, const std::vector<GpuDeviceInfo>& devices,
                std::string_view cpu_reason, const LogFields& extra = {});

// Logging for one stream: every line carries `stream`, the stream's own fields (method, peer,
// title, rung) and the client's free labels. Thread-safe, since a stream's frames finish on several
// threads.
class StreamLog {
 public:
  // Client labels are logged as `label_<key>`, after every field of the server's own: a label named
  // `status` or `error` can never stand in for the server's (keys are otherwise deduplicated
  // first-wins).
  StreamLog(std::string stream_id, LogFields fields, LogFields client_labels = {});

  void Info(std::string_view message, const LogFields& extra = {}) const;
  void Warn(std::string_view message, const LogFields& extra = {}) const;
  void Error(std::string_view message, const LogFields& extra = {}) const;

  // A frame fell back to the CPU. The first fallback of each reason category (see
  // FallbackReasonLabel) in this stream is logged at warn with the full reason; later ones are only
  // counted, so a clip of 10,000 frames gives one line, not 10,000. Returns true when it logged.
  bool Fallback(std::string_view feature, std::string_view reason);

  // Fallback frames so far, by reason category.
  std::map<std::string, int64_t> FallbackCounts() const;

  // The closing line: the status and, when any frame fell back, the counts by category.
  void Finished(std::string_view status, const LogFields& extra = {}) const;

 private:
  void Log(spdlog::level::level_enum level, std::string_view message,
           const LogFields& extra) const;

  const std::string stream_id_;
  const LogFields fields_;
  const LogFields client_labels_;
  mutable absl::Mutex mu_;
  std::map<std::string, int64_t> fallbacks_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_LOGGING_H_
