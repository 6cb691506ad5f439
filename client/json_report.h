// Writes a clip's scores the way libvmaf's `vmaf` CLI does, so that tools parsing its JSON keep
// working: frames[].frameNum, frames[].metrics, pooled_metrics.{min,max,mean,harmonic_mean},
// non-finite values as null. ssimd's own details (backends, fallbacks) sit under a separate
// top-level "ssimd" key that such tools ignore.
#ifndef SSIMD_CLIENT_JSON_REPORT_H_
#define SSIMD_CLIENT_JSON_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "client/ssimd_client.h"

namespace ssimd {

// How numbers are printed, as libvmaf's --precision: "max" (or "full") is %.17g, which
// round-trips every double; N (1..17) is %.Ng; "legacy" is %.6f.
struct NumberFormat {
  enum class Kind { kSignificant, kFixed6 };
  Kind kind = Kind::kSignificant;
  int digits = 17;
};

absl::StatusOr<NumberFormat> ParsePrecision(absl::string_view text);

// A double as JSON: the format above for finite values, `null` for NaN and infinities.
std::string JsonNumber(double value, const NumberFormat& format);

struct ReportInfo {
  std::vector<std::string> metrics;  // metric keys in output order
  double fps = 0;                    // frames per second, wall clock, as libvmaf reports it
  std::string server;                // the target that scored the clip
};

std::string FormatJsonReport(const ClipReport& report, const ReportInfo& info,
                             const NumberFormat& format);

// A plain-text table: one line per frame, then the pooled values.
std::string FormatTextReport(const ClipReport& report, const ReportInfo& info,
                             const NumberFormat& format);

}  // namespace ssimd

#endif  // SSIMD_CLIENT_JSON_REPORT_H_
