#include "client/json_report.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "json/json_text.h"

namespace ssimd {
namespace {

// The version string libvmaf puts first; parsers check for the key, not its value.
constexpr char kReportVersion[] = "ssimd-0.1.0";

std::string Number(double value, const NumberFormat& format) {
  char buffer[64];
  if (format.kind == NumberFormat::Kind::kFixed6) {
    std::snprintf(buffer, sizeof(buffer), "%.6f", value);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.*g", format.digits, value);
  }
  return buffer;
}

}  // namespace

absl::StatusOr<NumberFormat> ParsePrecision(absl::string_view text) {
  NumberFormat out;
  if (text == "max" || text == "full") return out;
  if (text == "legacy") {
    out.kind = NumberFormat::Kind::kFixed6;
    return out;
  }
  int digits = 0;
  if (absl::SimpleAtoi(text, &digits) && digits >= 1 && digits <= 17) {
    out.digits = digits;
    return out;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--precision: expected max, full, legacy or a digit count from 1 to 17, got \"", text, "\""));
}

std::string JsonNumber(double value, const NumberFormat& format) {
  if (!std::isfinite(value)) return "null";
  return Number(value, format);
}

std::string FormatJsonReport(const ClipReport& report, const ReportInfo& info,
                             const NumberFormat& format) {
  std::string out = absl::StrCat("{\n  \"version\": \"", kReportVersion, "\",\n");
  absl::StrAppend(&out, "  \"fps\": ", JsonNumber(info.fps, NumberFormat{NumberFormat::Kind::kSignificant, 6}),
                  ",\n  \"frames\": [");
  for (size_t i = 0; i < report.frames.size(); ++i) {
    const v1::FrameResult& frame = report.frames[i];
    absl::StrAppend(&out, i == 0 ? "\n" : ",\n", "    {\n      \"frameNum\": ", frame.index(),
                    ",\n      \"metrics\": {");
    bool first = true;
    for (const std::string& metric : info.metrics) {
      auto it = frame.scores().find(metric);
      if (it == frame.scores().end()) continue;
      absl::StrAppend(&out, first ? "\n" : ",\n", "        ", JsonQuoted(metric), ": ",
                      JsonNumber(it->second, format));
      first = false;
    }
    absl::StrAppend(&out, "\n      }\n    }");
  }
  absl::StrAppend(&out, "\n  ],\n  \"pooled_metrics\": {");
  bool first_metric = true;
  for (const std::string& metric : info.metrics) {
    auto it = report.summary.pooled().find(metric);
    if (it == report.summary.pooled().end()) continue;
    const v1::PooledScore& p = it->second;
    absl::StrAppend(&out, first_metric ? "\n" : ",\n", "    ", JsonQuoted(metric), ": {\n",
                    "      \"min\": ", JsonNumber(p.min(), format), ",\n",
                    "      \"max\": ", JsonNumber(p.max(), format), ",\n",
                    "      \"mean\": ", JsonNumber(p.mean(), format), ",\n",
                    "      \"harmonic_mean\": ", JsonNumber(p.harmonic_mean(), format),
                    "\n    }");
    first_metric = false;
  }
  // libvmaf's order: luma, then Cb, then Cr; any other aggregate after them.
  std::vector<std::string> aggregate_names = {"apsnr_y", "apsnr_cb", "apsnr_cr"};
  for (const auto& [name, value] : report.summary.aggregate()) {
    if (name.rfind("apsnr_", 0) != 0) aggregate_names.push_back(name);
  }
  absl::StrAppend(&out, "\n  },\n  \"aggregate_metrics\": {");
  bool first_aggregate = true;
  for (const std::string& name : aggregate_names) {
    auto it = report.summary.aggregate().find(name);
    if (it == report.summary.aggregate().end()) continue;
    absl::StrAppend(&out, first_aggregate ? "\n" : ",\n", "    ", JsonQuoted(name), ": ",
                    JsonNumber(it->second, format));
    first_aggregate = false;
  }
  absl::StrAppend(&out, "\n  },\n  \"ssimd\": {\n",
                  "    \"server\": ", JsonQuoted(info.server), ",\n",
                  "    \"frames_by_backend\": {");
  bool first_backend = true;
  for (const auto& [backend, count] : report.summary.frames_by_backend()) {
    absl::StrAppend(&out, first_backend ? "" : ", ", JsonQuoted(backend), ": ", count);
    first_backend = false;
  }
  absl::StrAppend(&out, "},\n    \"fallback_frames\": ", report.summary.fallback_frames(), ",\n");
  // Percentiles stay out of pooled_metrics, whose four keys are libvmaf's.
  absl::StrAppend(&out, "    \"percentiles\": {");
  first_metric = true;
  for (const std::string& metric : info.metrics) {
    auto it = report.summary.pooled().find(metric);
    if (it == report.summary.pooled().end()) continue;
    absl::StrAppend(&out, first_metric ? "\n" : ",\n", "      ", JsonQuoted(metric), ": {");
    bool first_p = true;
    for (const v1::Percentile& q : it->second.percentiles()) {
      absl::StrAppend(&out, first_p ? "" : ", ", "\"", Number(q.percentile(), NumberFormat{}),
                      "\": ", JsonNumber(q.value(), format));
      first_p = false;
    }
    absl::StrAppend(&out, "}");
    first_metric = false;
  }
  absl::StrAppend(&out, first_metric ? "},\n" : "\n    },\n");
  // The first reason of each kind, so a reader learns why without scanning every frame.
  std::string reasons;
  std::vector<std::string> seen;
  for (const v1::FrameResult& frame : report.frames) {
    if (frame.fallback_reason().empty()) continue;
    bool known = false;
    for (const std::string& s : seen) known = known || s == frame.fallback_reason();
    if (known || seen.size() >= 8) continue;
    seen.push_back(frame.fallback_reason());
    absl::StrAppend(&reasons, reasons.empty() ? "" : ", ", JsonQuoted(frame.fallback_reason()));
  }
  absl::StrAppend(&out, "    \"fallback_reasons\": [", reasons, "]\n  }\n}\n");
  return out;
}

std::string FormatTextReport(const ClipReport& report, const ReportInfo& info,
                             const NumberFormat& format) {
  std::string out = absl::StrFormat("%-14s", "frame");
  for (const std::string& metric : info.metrics) absl::StrAppendFormat(&out, " %22s", metric);
  absl::StrAppend(&out, "  backend\n");
  for (const v1::FrameResult& frame : report.frames) {
    absl::StrAppendFormat(&out, "%-14d", frame.index());
    for (const std::string& metric : info.metrics) {
      auto it = frame.scores().find(metric);
      absl::StrAppendFormat(&out, " %22s",
                            it == frame.scores().end() ? "-" : JsonNumber(it->second, format));
    }
    absl::StrAppend(&out, "  ", frame.backend(),
                    frame.fallback_reason().empty() ? "" : " (fallback)", "\n");
  }
  for (const char* stat : {"min", "max", "mean", "harmonic_mean"}) {
    absl::StrAppendFormat(&out, "%-14s", stat);
    for (const std::string& metric : info.metrics) {
      auto it = report.summary.pooled().find(metric);
      if (it == report.summary.pooled().end()) {
        absl::StrAppendFormat(&out, " %22s", "-");
        continue;
      }
      const v1::PooledScore& p = it->second;
      const std::string name = stat;
      const double value = name == "min"    ? p.min()
                           : name == "max"  ? p.max()
                           : name == "mean" ? p.mean()
                                            : p.harmonic_mean();
      absl::StrAppendFormat(&out, " %22s", JsonNumber(value, format));
    }
    absl::StrAppend(&out, "\n");
  }
  if (report.summary.fallback_frames() > 0) {
    absl::StrAppend(&out, report.summary.fallback_frames(), " frame(s) fell back to the CPU\n");
  }
  return out;
}

}  // namespace ssimd
