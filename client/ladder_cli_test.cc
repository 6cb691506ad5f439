#include "client/ladder_cli.h"

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace ssimd {
namespace {

CliOptions TwoRungs() {
  CliOptions o;
  o.ladder = true;
  o.reference = "src.y4m";
  o.renditions = {{"540p", "local/a.mp4"}, {"360p \"x\"", "local/b.webm"}};
  o.frame_skip_ref = 2;
  o.frame_skip_dist = 1;
  o.frame_cnt = 10;
  o.scaler = ScalerChoice{ScalerKind::kLanczos, true};
  return o;
}

LadderReport ReportOf(const CliOptions& o) {
  LadderReport report;
  double score = 0.9;
  for (const auto& [name, path] : o.renditions) {
    ClipReport clip;
    v1::FrameResult frame;
    frame.set_index(0);
    (*frame.mutable_scores())["float_ssim"] = score;
    clip.frames.push_back(frame);
    clip.summary.set_frames(1);
    clip.summary.set_unmatched_reference_frames(3);
    v1::PooledScore& pooled = (*clip.summary.mutable_pooled())["float_ssim"];
    pooled.set_mean(score);
    pooled.set_harmonic_mean(score);
    report.renditions[name] = clip;
    score += 0.05;
  }
  report.ladder.set_renditions(2);
  report.ladder.set_source_frames(4);
  return report;
}

TEST(LadderCliTest, RequestNamesTheFilesAsTheServerKnowsThem) {
  const CliOptions o = TwoRungs();
  v1::ClipConfig config;
  config.set_title_id("t");
  const v1::ScoreLadderRequest request =
      LadderRequest(o, config, {"upload:s.y4m", "upload:a.mp4", "upload:b.webm"});
  EXPECT_EQ(request.source_path(), "upload:s.y4m");
  EXPECT_EQ(request.source_start_frame(), 2u);
  EXPECT_EQ(request.frame_count(), 10u);
  EXPECT_EQ(request.config().title_id(), "t");
  EXPECT_EQ(request.upscale().scaler(), v1::SCALER_LANCZOS);
  EXPECT_TRUE(request.upscale().accurate_rounding());
  ASSERT_EQ(request.renditions_size(), 2);
  EXPECT_EQ(request.renditions(0).name(), "540p");
  EXPECT_EQ(request.renditions(0).path(), "upload:a.mp4");
  EXPECT_EQ(request.renditions(1).path(), "upload:b.webm");
  EXPECT_EQ(request.renditions(1).start_frame(), 1u);
}

TEST(LadderCliTest, CombinedJsonParsesAndKeepsEveryRendition) {
  const CliOptions o = TwoRungs();
  ReportInfo info;
  info.metrics = {"float_ssim"};
  const nlohmann::json json = nlohmann::json::parse(FormatLadderJson(ReportOf(o), info, {}));
  EXPECT_EQ(json["ladder"]["renditions"], 2);
  EXPECT_EQ(json["ladder"]["source_frames"], 4);
  EXPECT_EQ(json["renditions"]["540p"]["pooled_metrics"]["float_ssim"]["mean"], 0.9);
  // A name with quotes stays one key, escaped.
  EXPECT_EQ(json["renditions"]["360p \"x\""]["frames"][0]["metrics"]["float_ssim"], 0.9 + 0.05);
}

TEST(LadderCliTest, TableHasAHeaderAndOneLinePerRendition) {
  const std::string table = FormatLadderTable(ReportOf(TwoRungs()), {"float_ssim"},
                                              NumberFormat{NumberFormat::Kind::kSignificant, 6});
  const std::vector<std::string> lines = absl::StrSplit(table, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u) << table;
  EXPECT_NE(lines[0].find("unmatch-src"), std::string::npos);
  EXPECT_EQ(lines[1].rfind("360p", 0), 0u) << lines[1];
  EXPECT_NE(lines[2].find("540p"), std::string::npos);
  EXPECT_NE(lines[2].find("0.9 / 0.9"), std::string::npos) << lines[2];
}

TEST(LadderCliTest, ReportFilesStayInTheDirectory) {
  EXPECT_EQ(RenditionReportFile("out", "540p", true), "out/540p.json");
  EXPECT_EQ(RenditionReportFile("out", "../../etc/x", false), "out/_.._.._etc_x.txt");
  EXPECT_EQ(RenditionReportFile("out", "", true), "out/_.json");
  EXPECT_EQ(RenditionReportFile("out", "a b/c", true), "out/a_b_c.json");
}

}  // namespace
}  // namespace ssimd
