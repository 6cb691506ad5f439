#include "tools/fault_load/process_watch.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace ssimd::fault_load {
namespace {

bool ReadProcFile(int pid, const char* name, std::string* out) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/", name));
  if (!in) return false;
  std::stringstream text;
  text << in.rdbuf();
  *out = text.str();
  return true;
}

// The KiB of the line "<key>:   1234 kB" of /proc/<pid>/status.
absl::StatusOr<int64_t> ParseStatusKb(absl::string_view status_text, absl::string_view key) {
  for (absl::string_view line : absl::StrSplit(status_text, '\n')) {
    if (!absl::ConsumePrefix(&line, key) || !absl::ConsumePrefix(&line, ":")) continue;
    line = absl::StripAsciiWhitespace(line);
    absl::ConsumeSuffix(&line, "kB");
    line = absl::StripAsciiWhitespace(line);
    int64_t kb = 0;
    if (absl::SimpleAtoi(line, &kb)) return kb;
    break;
  }
  return absl::InvalidArgumentError(absl::StrCat("no ", key, " line in /proc/<pid>/status"));
}

absl::StatusOr<int64_t> ReadStatusKb(int pid, absl::string_view key) {
  std::string text;
  if (!ReadProcFile(pid, "status", &text)) {
    return absl::NotFoundError(absl::StrCat("process ", pid, " is gone"));
  }
  return ParseStatusKb(text, key);
}

}  // namespace

absl::StatusOr<int64_t> ParseVmRssKb(absl::string_view status_text) {
  return ParseStatusKb(status_text, "VmRSS");
}

absl::StatusOr<int64_t> ReadVmRssKb(int pid) { return ReadStatusKb(pid, "VmRSS"); }

absl::StatusOr<int64_t> ParseVmHwmKb(absl::string_view status_text) {
  return ParseStatusKb(status_text, "VmHWM");
}

absl::StatusOr<int64_t> ReadVmHwmKb(int pid) { return ReadStatusKb(pid, "VmHWM"); }

bool ProcessAlive(int pid) {
  std::string text;
  if (!ReadProcFile(pid, "status", &text)) return false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::ConsumePrefix(&line, "State:")) {
      line = absl::StripLeadingAsciiWhitespace(line);
      return !line.empty() && line[0] != 'Z' && line[0] != 'X';
    }
  }
  return true;
}

absl::StatusOr<int64_t> ParseNvidiaSmiUsedMib(absl::string_view text, int pid) {
  int64_t total = 0;
  bool found = false;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipWhitespace())) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, ',');
    if (fields.size() != 2) continue;
    int line_pid = 0;
    int64_t mib = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(fields[0]), &line_pid) ||
        !absl::SimpleAtoi(absl::StripAsciiWhitespace(fields[1]), &mib) || line_pid != pid) {
      continue;
    }
    total += mib;
    found = true;
  }
  if (!found) return absl::NotFoundError(absl::StrCat("process ", pid, " holds no device memory"));
  return total;
}

absl::StatusOr<int64_t> ReadGpuMemoryMib(int pid) {
  std::FILE* pipe = popen(
      "nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null",
      "r");
  if (pipe == nullptr) return absl::UnavailableError("cannot run nvidia-smi");
  std::string text;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, n);
  if (pclose(pipe) != 0) return absl::UnavailableError("nvidia-smi failed (no NVIDIA GPU?)");
  return ParseNvidiaSmiUsedMib(text, pid);
}

RssGrowth ComputeRssGrowth(const std::vector<RssSample>& samples, double warmup_seconds) {
  std::vector<int64_t> after;
  for (const RssSample& s : samples) {
    if (s.seconds >= warmup_seconds) after.push_back(s.kb);
  }
  RssGrowth g;
  const size_t step = std::max<size_t>(1, (samples.size() + 119) / 120);
  for (size_t i = 0; i < samples.size(); i += step) g.series.push_back(samples[i].kb);
  g.samples = static_cast<int>(after.size());
  if (after.size() < 4) return g;
  const size_t window = std::max<size_t>(1, after.size() / 4);
  auto median = [](std::vector<int64_t>::const_iterator begin,
                   std::vector<int64_t>::const_iterator end) {
    std::vector<int64_t> part(begin, end);
    std::nth_element(part.begin(), part.begin() + part.size() / 2, part.end());
    return static_cast<double>(part[part.size() / 2]);
  };
  const double baseline = median(after.cbegin(), after.cbegin() + window);
  const double final = median(after.cend() - window, after.cend());
  g.measured = baseline > 0;
  g.baseline_kb = static_cast<int64_t>(baseline);
  g.final_kb = static_cast<int64_t>(final);
  g.peak_kb = *std::max_element(after.begin(), after.end());
  g.growth_pct = baseline > 0 ? (final - baseline) / baseline * 100.0 : 0;
  return g;
}

}  // namespace ssimd::fault_load
