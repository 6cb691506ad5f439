#include "bench/host_copy.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "bench/stats.h"

namespace ssimd::bench {

double HostCopyGbPerSecond(size_t bytes, int repeats, bool fresh_destination) {
  std::vector<char> source(bytes);
  for (size_t i = 0; i < bytes; ++i) source[i] = static_cast<char>(i * 131 + (i >> 12));
  std::unique_ptr<char[]> reused(new char[bytes]);
  std::memset(reused.get(), 1, bytes);  // touch every page once
  std::vector<double> rates;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    if (fresh_destination) {
      std::unique_ptr<char[]> destination(new char[bytes]);
      std::memcpy(destination.get(), source.data(), bytes);
      // Keep the copy observable so that it is not optimised away.
      if (destination[bytes / 2] != source[bytes / 2]) return 0;
    } else {
      std::memcpy(reused.get(), source.data(), bytes);
      if (reused[bytes / 3] != source[bytes / 3]) return 0;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates.push_back(static_cast<double>(bytes) / seconds / 1e9);
  }
  return Percentile(rates, 50);
}

}  // namespace ssimd::bench
