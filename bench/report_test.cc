#include "bench/report.h"

#include <limits>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace ssimd::bench {
namespace {

CellResult Cell(const std::string& section, const std::string& backend, int w, int h, int bits,
                int concurrency, double pairs_per_second) {
  CellResult c;
  c.section = section;
  c.backend = backend;
  c.width = w;
  c.height = h;
  c.bit_depth = bits;
  c.concurrency = concurrency;
  c.seconds = 10;
  c.pairs = static_cast<int64_t>(pairs_per_second * 10 + 0.5);
  SetRates(c, 2 * static_cast<size_t>(w) * h * (bits > 8 ? 2 : 1));
  return c;
}

const TargetCheck* Named(const std::vector<TargetCheck>& targets, const std::string& prefix) {
  for (const TargetCheck& t : targets) {
    if (t.name.rfind(prefix, 0) == 0) return &t;
  }
  return nullptr;
}

TEST(RatiosTest, PairsEachGpuCellWithItsCpuTwinAndKeepsTheBestGpuVariant) {
  std::vector<CellResult> cells = {
      Cell("e2e", "gpu", 1920, 1080, 8, 8, 2400), Cell("e2e", "cpu", 1920, 1080, 8, 8, 300),
      Cell("e2e", "gpu", 1920, 1080, 8, 4, 1000),  // no CPU twin: no ratio
      Cell("engine", "gpu", 3840, 2160, 8, 16, 900), Cell("engine", "gpu", 3840, 2160, 8, 16, 1200),
      Cell("engine", "cpu", 3840, 2160, 8, 16, 100)};
  const std::vector<Ratio> ratios = GpuCpuRatios(cells);
  ASSERT_EQ(ratios.size(), 2u);
  EXPECT_EQ(ratios[0].section, "e2e");
  EXPECT_DOUBLE_EQ(ratios[0].ratio, 8);
  EXPECT_EQ(ratios[1].section, "engine");
  EXPECT_DOUBLE_EQ(ratios[1].ratio, 12);
}

TEST(TargetsTest, ReportsMetMissedAndUnmeasured) {
  CellResult unary = Cell("unary", "gpu", 1920, 1080, 8, 1, 400);
  unary.latency_p50_ms = 2.5;
  CellResult engine = Cell("engine", "gpu", 3840, 2160, 8, 16, 1000);  // 16.6 GB/s
  std::vector<CellResult> cells = {Cell("e2e", "gpu", 1920, 1080, 8, 8, 2100),
                                   Cell("e2e", "cpu", 1920, 1080, 8, 8, 700), unary, engine};
  const std::vector<TargetCheck> targets = CheckTargets(cells, 27.5);

  const TargetCheck* hd = Named(targets, "e2e GPU, 8 streams, 1920x1080");
  ASSERT_NE(hd, nullptr);
  EXPECT_TRUE(hd->met);
  const TargetCheck* uhd = Named(targets, "e2e GPU, 8 streams, 3840x2160");
  ASSERT_NE(uhd, nullptr);
  EXPECT_FALSE(uhd->measured_at_all);
  const TargetCheck* mem = Named(targets, "engine from memory");
  ASSERT_NE(mem, nullptr);
  EXPECT_TRUE(mem->measured_at_all);
  EXPECT_FALSE(mem->met);
  EXPECT_NEAR(mem->measured, 1000.0 * 2 * 3840 * 2160 / 1e9, 1e-9);
  const TargetCheck* latency = Named(targets, "unary");
  ASSERT_NE(latency, nullptr);
  EXPECT_TRUE(latency->met);
  const TargetCheck* ratio = Named(targets, "e2e GPU/CPU, 8 streams, 1920x1080");
  ASSERT_NE(ratio, nullptr);
  EXPECT_FALSE(ratio->met);  // 3x
  EXPECT_DOUBLE_EQ(ratio->measured, 3);
}

TEST(TargetsTest, FailedCellsDoNotCount) {
  CellResult broken = Cell("e2e", "gpu", 1920, 1080, 8, 8, 5000);
  broken.error = "stream 0: UNAVAILABLE";
  const std::vector<TargetCheck> targets = CheckTargets({broken}, 27.5);
  const TargetCheck* hd = Named(targets, "e2e GPU, 8 streams, 1920x1080");
  ASSERT_NE(hd, nullptr);
  EXPECT_FALSE(hd->measured_at_all);
  EXPECT_FALSE(hd->met);
}

TEST(JsonTest, EveryFieldParsesBackWithNullForNonFiniteNumbers) {
  CellResult c = Cell("e2e", "cpu", 64, 64, 8, 1, 10);
  c.latency_p99_ms = std::numeric_limits<double>::infinity();
  c.error = "said \"no\"\n";
  const nlohmann::json json =
      nlohmann::json::parse(ToJson({{"command", "ssimd-bench --quick"}}, {c}, {}, {}));
  EXPECT_EQ(json["run"]["command"], "ssimd-bench --quick");
  ASSERT_EQ(json["cells"].size(), 1u);
  EXPECT_TRUE(json["cells"][0]["latency_p99_ms"].is_null());
  EXPECT_EQ(json["cells"][0]["error"], c.error);
  EXPECT_EQ(json["cells"][0]["pairs_per_second"].get<double>(), 10);
  EXPECT_EQ(json["cells"][0]["width"], 64);
  EXPECT_EQ(json["cells"][0]["skipped"], false);
  EXPECT_TRUE(json["gpu_cpu_ratios"].empty());
}

TEST(TableTest, ShowsFailedCellsWithTheirReason) {
  CellResult ok = Cell("e2e", "cpu", 1920, 1080, 10, 4, 123.4);
  CellResult skipped = Cell("e2e", "gpu", 1920, 1080, 10, 4, 0);
  skipped.skipped = true;
  skipped.error = "no usable GPU";
  const std::string table = ToTable({}, {ok, skipped}, {}, CheckTargets({ok, skipped}, 27.5));
  EXPECT_NE(table.find("123.4"), std::string::npos) << table;
  EXPECT_NE(table.find("skipped: no usable GPU"), std::string::npos) << table;
  EXPECT_NE(table.find("not measured in this run"), std::string::npos) << table;
}

}  // namespace
}  // namespace ssimd::bench
