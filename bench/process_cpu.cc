#include "bench/process_cpu.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace ssimd::bench {

double ProcessCpuSeconds(pid_t pid) {
  const std::string path =
      pid == 0 ? std::string("/proc/self/stat") : "/proc/" + std::to_string(pid) + "/stat";
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return -1;
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are
  // fixed: state is field 3, utime field 14, stime field 15.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  long long utime = -1;
  long long stime = -1;
  for (int number = 3; number <= 15 && (fields >> field); ++number) {
    if (number == 14) utime = std::stoll(field);
    if (number == 15) stime = std::stoll(field);
  }
  if (utime < 0 || stime < 0) return -1;
  return static_cast<double>(utime + stime) / sysconf(_SC_CLK_TCK);
}

}  // namespace ssimd::bench
