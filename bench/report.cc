#include "bench/report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "json/json_text.h"

namespace ssimd::bench {
namespace {

bool Ran(const CellResult& c) { return !c.skipped && c.error.empty() && c.pairs > 0; }

const CellResult* Find(const std::vector<CellResult>& cells, const std::string& section,
                       const std::string& backend, int width, int height, int bit_depth,
                       int concurrency) {
  for (const CellResult& c : cells) {
    if (c.section == section && c.backend == backend && c.width == width && c.height == height &&
        c.bit_depth == bit_depth && c.concurrency == concurrency && Ran(c)) {
      return &c;
    }
  }
  return nullptr;
}

// Six significant digits: a benchmark's timings do not carry more.
nlohmann::ordered_json Number(double v) { return JsonRounded(v, 6); }

nlohmann::ordered_json CellJson(const CellResult& c) {
  return {{"section", c.section},
          {"backend", c.backend},
          {"width", c.width},
          {"height", c.height},
          {"bit_depth", c.bit_depth},
          {"concurrency", c.concurrency},
          {"gpu_slots", c.gpu_slots},
          {"features", c.features},
          {"pairs", c.pairs},
          {"seconds", Number(c.seconds)},
          {"pairs_per_second", Number(c.pairs_per_second)},
          {"gb_per_second", Number(c.gb_per_second)},
          {"latency_p50_ms", Number(c.latency_p50_ms)},
          {"latency_p99_ms", Number(c.latency_p99_ms)},
          {"upload_ms", Number(c.upload_ms)},
          {"compute_ms", Number(c.compute_ms)},
          {"readback_ms", Number(c.readback_ms)},
          {"queue_wait_ms", Number(c.queue_wait_ms)},
          {"client_cores", Number(c.client_cores)},
          {"server_cores", Number(c.server_cores)},
          {"scores_checked", c.check.checked},
          {"scores_mismatched", c.check.mismatched},
          {"max_abs_score_diff", Number(c.check.max_abs_diff)},
          {"first_mismatch", c.check.first_mismatch},
          {"skipped", c.skipped},
          {"error", c.error}};
}

std::string CheckLabel(const CellResult& c) {
  if (c.check.checked == 0) return "-";
  if (c.check.mismatched == 0) return absl::StrCat("exact ", c.check.checked);
  return absl::StrFormat("%d/%d DIFFER", c.check.mismatched, c.check.checked);
}

}  // namespace

std::vector<Ratio> GpuCpuRatios(const std::vector<CellResult>& cells) {
  std::vector<Ratio> out;
  for (const CellResult& gpu : cells) {
    if (gpu.backend != "gpu" || !Ran(gpu) || gpu.section == "device") continue;
    const CellResult* cpu = Find(cells, gpu.section, "cpu", gpu.width, gpu.height, gpu.bit_depth,
                                 gpu.concurrency);
    if (cpu == nullptr || cpu->pairs_per_second <= 0) continue;
    // One ratio per CPU cell: where several GPU variants exist (slot counts), take the best.
    auto same = std::find_if(out.begin(), out.end(), [&](const Ratio& r) {
      return r.section == gpu.section && r.geometry == GeometryLabel(gpu) &&
             r.concurrency == gpu.concurrency;
    });
    if (same != out.end() && same->gpu_pairs_per_second >= gpu.pairs_per_second) continue;
    Ratio r;
    r.section = gpu.section;
    r.geometry = GeometryLabel(gpu);
    r.concurrency = gpu.concurrency;
    r.gpu_pairs_per_second = gpu.pairs_per_second;
    r.cpu_pairs_per_second = cpu->pairs_per_second;
    r.ratio = gpu.pairs_per_second / cpu->pairs_per_second;
    if (same != out.end()) {
      *same = r;
    } else {
      out.push_back(r);
    }
  }
  return out;
}

std::vector<TargetCheck> CheckTargets(const std::vector<CellResult>& cells,
                                      double engine_gb_target) {
  std::vector<TargetCheck> out;
  const auto at_least = [&](std::string name, const CellResult* c, double goal, double value,
                            const char* unit) {
    TargetCheck t;
    t.name = std::move(name);
    t.target = absl::StrFormat(">= %g %s", goal, unit);
    t.unit = unit;
    t.measured_at_all = c != nullptr;
    t.measured = c != nullptr ? value : 0;
    t.met = c != nullptr && value >= goal;
    out.push_back(t);
  };
  for (const auto& [w, h, goal] : {std::tuple{1920, 1080, 2000.0}, std::tuple{3840, 2160, 400.0}}) {
    const CellResult* c = Find(cells, "e2e", "gpu", w, h, 8, 8);
    at_least(absl::StrFormat("e2e GPU, 8 streams, %dx%d 8-bit", w, h), c, goal,
             c ? c->pairs_per_second : 0, "pairs/s");
  }
  const CellResult* best = nullptr;
  for (const CellResult& c : cells) {
    if (c.section == "engine" && c.backend == "gpu" && Ran(c) &&
        (best == nullptr || c.gb_per_second > best->gb_per_second)) {
      best = &c;
    }
  }
  at_least(best ? absl::StrFormat("engine from memory, GPU, best cell (%s, %d threads, %d slots)",
                                  GeometryLabel(*best), best->concurrency, best->gpu_slots)
                : std::string("engine from memory, GPU"),
           best, engine_gb_target, best ? best->gb_per_second : 0, "GB/s");
  {
    const CellResult* c = Find(cells, "unary", "gpu", 1920, 1080, 8, 1);
    TargetCheck t;
    t.name = "unary ScorePair GPU 1920x1080 8-bit, p50 latency";
    t.target = "<= 3 ms";
    t.unit = "ms";
    t.measured_at_all = c != nullptr;
    t.measured = c ? c->latency_p50_ms : 0;
    t.met = c != nullptr && c->latency_p50_ms <= 3.0;
    out.push_back(t);
  }
  const std::vector<Ratio> ratios = GpuCpuRatios(cells);
  bool any_ratio = false;
  for (const Ratio& r : ratios) {
    if (r.section != "e2e" || r.concurrency != 8) continue;
    any_ratio = true;
    TargetCheck t;
    t.name = absl::StrCat("e2e GPU/CPU, 8 streams, ", r.geometry);
    t.target = ">= 5 x";
    t.unit = "x";
    t.measured_at_all = true;
    t.measured = r.ratio;
    t.met = r.ratio >= 5.0;
    out.push_back(t);
  }
  if (!any_ratio) {
    TargetCheck t;
    t.name = "e2e GPU/CPU, 8 streams";
    t.target = ">= 5 x";
    t.unit = "x";
    out.push_back(t);
  }
  return out;
}

std::string ToJson(const RunInfo& info, const std::vector<CellResult>& cells,
                   const std::vector<Ratio>& ratios, const std::vector<TargetCheck>& targets) {
  nlohmann::ordered_json run = nlohmann::ordered_json::object();
  for (const auto& [key, value] : info) run[key] = value;
  nlohmann::ordered_json cell_list = nlohmann::ordered_json::array();
  for (const CellResult& c : cells) cell_list.push_back(CellJson(c));
  nlohmann::ordered_json ratio_list = nlohmann::ordered_json::array();
  for (const Ratio& r : ratios) {
    ratio_list.push_back({{"section", r.section},
                          {"geometry", r.geometry},
                          {"concurrency", r.concurrency},
                          {"gpu_pairs_per_second", Number(r.gpu_pairs_per_second)},
                          {"cpu_pairs_per_second", Number(r.cpu_pairs_per_second)},
                          {"ratio", Number(r.ratio)}});
  }
  nlohmann::ordered_json target_list = nlohmann::ordered_json::array();
  for (const TargetCheck& t : targets) {
    target_list.push_back({{"name", t.name},
                           {"target", t.target},
                           {"measured", t.measured_at_all ? Number(t.measured) : nullptr},
                           {"unit", t.unit},
                           {"met", t.met}});
  }
  const nlohmann::ordered_json document = {{"run", run},
                                           {"cells", cell_list},
                                           {"gpu_cpu_ratios", ratio_list},
                                           {"targets", target_list}};
  return JsonText(document, 2) + "\n";
}

std::string ToTable(const RunInfo& info, const std::vector<CellResult>& cells,
                    const std::vector<Ratio>& ratios, const std::vector<TargetCheck>& targets) {
  std::string out;
  for (const auto& [key, value] : info) absl::StrAppend(&out, key, ": ", value, "\n");
  const char* header =
      "%-7s %-4s %-17s %5s %5s | %9s %7s | %8s %8s | %8s %8s %8s %8s | %6s %6s | %s\n";
  // One block per section, in the order the sections run, whatever order the cells came in.
  std::vector<const CellResult*> ordered;
  for (const char* section : {"device", "engine", "e2e", "unary"}) {
    for (const CellResult& c : cells) {
      if (c.section == section) ordered.push_back(&c);
    }
  }
  std::string last_section;
  for (const CellResult* cell : ordered) {
    const CellResult& c = *cell;
    if (c.section != last_section) {
      last_section = c.section;
      absl::StrAppend(&out, "\n",
                      absl::StrFormat(header, "section", "be", "geometry", "conc", "slots",
                                      "pairs/s", "GB/s", "p50 ms", "p99 ms", "upld ms", "kern ms",
                                      "rdbk ms", "queue ms", "cli cr", "srv cr", "scores"));
    }
    if (!Ran(c)) {
      absl::StrAppend(&out, absl::StrFormat("%-7s %-4s %-17s %5d %5d | %s: %s\n", c.section,
                                            c.backend, GeometryLabel(c), c.concurrency,
                                            c.gpu_slots, c.skipped ? "skipped" : "FAILED",
                                            c.error.empty() ? "no pairs completed" : c.error));
      continue;
    }
    absl::StrAppend(
        &out, absl::StrFormat("%-7s %-4s %-17s %5d %5d | %9.1f %7.2f | %8.2f %8.2f | %8.3f %8.3f "
                              "%8.3f %8.3f | %6.1f %6.1f | %s\n",
                              c.section, c.backend, GeometryLabel(c), c.concurrency, c.gpu_slots,
                              c.pairs_per_second, c.gb_per_second, c.latency_p50_ms,
                              c.latency_p99_ms, c.upload_ms, c.compute_ms, c.readback_ms,
                              c.queue_wait_ms, c.client_cores, c.server_cores, CheckLabel(c)));
  }
  if (!ratios.empty()) {
    absl::StrAppend(&out, "\nGPU/CPU throughput ratios\n");
    for (const Ratio& r : ratios) {
      absl::StrAppend(&out, absl::StrFormat("  %-7s %-17s conc %2d: %9.1f / %9.1f pairs/s = %6.2fx\n",
                                            r.section, r.geometry, r.concurrency,
                                            r.gpu_pairs_per_second, r.cpu_pairs_per_second,
                                            r.ratio));
    }
  }
  absl::StrAppend(&out, "\nTargets\n");
  for (const TargetCheck& t : targets) {
    absl::StrAppend(&out, absl::StrFormat("  %-4s %-62s %-16s %s\n",
                                          !t.measured_at_all ? "n/a" : t.met ? "MET" : "MISS",
                                          t.name, t.target,
                                          t.measured_at_all
                                              ? absl::StrFormat("measured %.2f %s", t.measured, t.unit)
                                              : std::string("not measured in this run")));
  }
  return out;
}

}  // namespace ssimd::bench
