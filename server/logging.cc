#include "server/logging.h"

#include <atomic>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "json/json_text.h"
#include "server/metric_labels.h"
#include "google/protobuf/stubs/logging.h"
#include "server/utf8.h"
#include "spdlog/logger.h"
#include "spdlog/pattern_formatter.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace ssimd {
namespace {

// A field value longer than this is cut: a log line is not the place for a whole payload.
constexpr size_t kMaxValueBytes = 1024;

// In JSON mode LogEvent hands the formatter "<kFieldsMark>,\"k\":\"v\"...<kMessageMark>message".
// Escaped JSON never holds raw control characters, so the first kMessageMark ends the fields.
constexpr char kFieldsMark = '\x1e';
constexpr char kMessageMark = '\x1f';

std::atomic<LogFormat> g_format{LogFormat::kText};

void AppendJsonString(std::string_view text, std::string& out) {
  out.append(JsonQuoted(ValidUtf8(text, kMaxValueBytes * 4)));
}

// Keys are [a-z0-9_]+ and never one of the line's own keys, so collectors can index them.
std::string FieldKey(std::string_view key) {
  std::string out;
  for (char c : key.substr(0, 64)) {
    const unsigned char u = static_cast<unsigned char>(c);
    out.push_back(absl::ascii_isalnum(u) ? absl::ascii_tolower(u) : '_');
  }
  if (out.empty()) out = "field";
  if (out == "time" || out == "level" || out == "msg") out = "field_" + out;
  return out;
}

bool NeedsQuotes(std::string_view value) {
  if (value.empty()) return true;
  for (char c : value) {
    if (c == ' ' || c == '"' || c == '=' || static_cast<unsigned char>(c) < 0x20) return true;
  }
  return false;
}

void AppendTextField(const std::string& key, std::string_view raw, std::string& out) {
  const std::string value = ValidUtf8(raw, kMaxValueBytes);
  absl::StrAppend(&out, " ", key, "=");
  if (!NeedsQuotes(value)) {
    out.append(value);
    return;
  }
  AppendJsonString(value, out);  // JSON's quoting is as readable as any, and unambiguous
}

class JsonFormatter : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    std::string_view payload(msg.payload.data(), msg.payload.size());
    std::string_view fields;
    if (!payload.empty() && payload.front() == kFieldsMark) {
      const size_t end = payload.find(kMessageMark);
      if (end != std::string_view::npos) {
        fields = payload.substr(1, end - 1);
        payload.remove_prefix(end + 1);
      }
    }
    std::string line = "{\"time\":\"";
    line += absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", absl::FromChrono(msg.time),
                             absl::UTCTimeZone());
    const auto level = spdlog::level::to_string_view(msg.level);
    absl::StrAppend(&line, "\",\"level\":\"", absl::string_view(level.data(), level.size()),
                    "\",\"msg\":");
    AppendJsonString(payload, line);
    line.append(fields);
    line.append("}\n");
    dest.append(line.data(), line.data() + line.size());
  }

  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

}  // namespace

absl::StatusOr<LogFormat> ParseLogFormat(std::string_view name) {
  if (name == "text") return LogFormat::kText;
  if (name == "json") return LogFormat::kJson;
  return absl::InvalidArgumentError(
      absl::StrCat("log format must be \"text\" or \"json\", got \"", std::string(name), "\""));
}

absl::Status ConfigureLogging(const LoggingOptions& options) {
  return ConfigureLogging(options, std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
}

namespace {

// protobuf logs to stderr by itself, e.g. an ERROR line for every request whose string field is not
// UTF-8. Those requests are refused and logged as such, so protobuf's own lines go to the service's
// log at debug level (fatal ones still abort, after a critical line).
void LogFromProtobuf(google::protobuf::LogLevel level, const char* file, int line,
                     const std::string& message) {
  LogEvent(level == google::protobuf::LOGLEVEL_FATAL ? spdlog::level::critical
                                                     : spdlog::level::debug,
           "protobuf", {{"detail", message}, {"at", absl::StrCat(file, ":", line)}});
}

}  // namespace

absl::Status ConfigureLogging(const LoggingOptions& options, spdlog::sink_ptr sink) {
  const spdlog::level::level_enum level = spdlog::level::from_str(options.level);
  // from_str answers "off" for anything it does not know; only a literal "off" means off.
  if (level == spdlog::level::off && options.level != "off") {
    return absl::InvalidArgumentError(absl::StrCat(
        "log level must be one of trace, debug, info, warn, error, critical, off; got \"",
        options.level, "\""));
  }
  if (options.format == LogFormat::kJson) {
    sink->set_formatter(std::make_unique<JsonFormatter>());
  } else {
    // UTC with microseconds, as in JSON mode, so lines from both modes sort together.
    sink->set_formatter(std::make_unique<spdlog::pattern_formatter>(
        "%Y-%m-%dT%H:%M:%S.%fZ %^%l%$ %v", spdlog::pattern_time_type::utc));
  }
  auto logger = std::make_shared<spdlog::logger>("ssimd", std::move(sink));
  logger->set_level(level);
  logger->flush_on(spdlog::level::warn);
  g_format.store(options.format);
  spdlog::set_default_logger(std::move(logger));
  google::protobuf::SetLogHandler(&LogFromProtobuf);
  return absl::OkStatus();
}

void LogEvent(spdlog::level::level_enum level, std::string_view message,
              const LogFields& fields) {
  auto logger = spdlog::default_logger();
  if (!logger->should_log(level)) return;
  // A key given twice keeps its first value: a JSON object with repeated keys means different
  // things to different parsers, and StreamLog puts the stream's own fields first.
  std::vector<std::pair<std::string, std::string_view>> unique;
  unique.reserve(fields.size());
  for (const auto& [key, value] : fields) {
    std::string k = FieldKey(key);
    bool seen = false;
    for (const auto& kept : unique) seen = seen || kept.first == k;
    if (!seen) unique.emplace_back(std::move(k), value);
  }
  std::string payload;
  if (g_format.load() == LogFormat::kJson) {
    payload.push_back(kFieldsMark);
    for (const auto& [key, value] : unique) {
      absl::StrAppend(&payload, ",\"", key, "\":");
      AppendJsonString(ValidUtf8(value, kMaxValueBytes), payload);
    }
    payload.push_back(kMessageMark);
    payload.append(message);
  } else {
    payload.assign(message);
    for (const auto& [key, value] : unique) AppendTextField(key, value, payload);
  }
  logger->log(level, "{}", payload);
}

void LogStartup(std::string_view backend, const std::vector<GpuDeviceInfo>& devices,
                std::string_view cpu_reason, const LogFields& extra) {
  LogFields fields = {{"backend", std::string(backend)},
                      {"devices", std::to_string(devices.size())}};
  std::vector<std::string> described;
  for (const GpuDeviceInfo& device : devices) {
    // A device the binary holds no code for is listed, and said to be unused.
    described.push_back(absl::StrCat(device.index, ":", device.name, " (", device.arch, ", ",
                                     device.total_memory_bytes >> 20, " MiB",
                                     device.has_code ? "" : ", no code for it in this build: unused",
                                     ")"));
  }
  if (!described.empty()) fields.emplace_back("device_list", absl::StrJoin(described, "; "));
  if (!cpu_reason.empty()) fields.emplace_back("cpu_reason", std::string(cpu_reason));
  fields.insert(fields.end(), extra.begin(), extra.end());
  LogEvent(spdlog::level::info, "ssimd started", fields);
}

namespace {

LogFields PrefixClientLabels(LogFields labels) {
  for (auto& [key, value] : labels) key.insert(0, "label_");
  return labels;
}

}  // namespace

StreamLog::StreamLog(std::string stream_id, LogFields fields, LogFields client_labels)
    : stream_id_(std::move(stream_id)),
      fields_(std::move(fields)),
      client_labels_(PrefixClientLabels(std::move(client_labels))) {}

void StreamLog::Log(spdlog::level::level_enum level, std::string_view message,
                    const LogFields& extra) const {
  LogFields fields;
  fields.reserve(1 + fields_.size() + extra.size() + client_labels_.size());
  fields.emplace_back("stream", stream_id_);
  fields.insert(fields.end(), fields_.begin(), fields_.end());
  fields.insert(fields.end(), extra.begin(), extra.end());
  fields.insert(fields.end(), client_labels_.begin(), client_labels_.end());
  LogEvent(level, message, fields);
}

void StreamLog::Info(std::string_view message, const LogFields& extra) const {
  Log(spdlog::level::info, message, extra);
}

void StreamLog::Warn(std::string_view message, const LogFields& extra) const {
  Log(spdlog::level::warn, message, extra);
}

void StreamLog::Error(std::string_view message, const LogFields& extra) const {
  Log(spdlog::level::err, message, extra);
}

bool StreamLog::Fallback(std::string_view feature, std::string_view reason) {
  const std::string category = FallbackReasonLabel(reason);
  {
    absl::MutexLock lock(&mu_);
    if (fallbacks_[category]++ > 0) return false;
  }
  Warn("frames fall back to the CPU",
       {{"feature", std::string(feature)}, {"reason", category}, {"detail", std::string(reason)}});
  return true;
}

std::map<std::string, int64_t> StreamLog::FallbackCounts() const {
  absl::MutexLock lock(&mu_);
  return fallbacks_;
}

void StreamLog::Finished(std::string_view status, const LogFields& extra) const {
  LogFields fields = {{"status", std::string(status)}};
  for (const auto& [category, count] : FallbackCounts()) {
    fields.emplace_back("fallback_frames_" + category, std::to_string(count));
  }
  fields.insert(fields.end(), extra.begin(), extra.end());
  Log(status == "OK" ? spdlog::level::info : spdlog::level::warn, "stream finished", fields);
}

}  // namespace ssimd
