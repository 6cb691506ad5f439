// Replays libvmaf's integer vif (integer_vif_scale0..3 of expected_metrics.json) through the CPU
// vif: every value of the checked-in subset, and of the full set where $SSIMD_REFERENCE_DIR names
// it, equals libvmaf's binary64 bit for bit. Pairs without vif values are ones libvmaf refused as
// a whole (its other features fail on the tiny sizes) or whose files its tool could not read.
//
// A second test replays tests/data/vmaf/vif_cli_checks.json: values upstream's vmaf tool printed
// for options and bit depths the reference sets do not cover (vif_enhn_gain_limit=1.0,
// vif_skip_scale0, 12- and 16-bit pictures made from 8-bit clips, and the 8..15-sample sides where
// scale 3 is one sample wide). The file says how they were made.
#include <array>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "engine/cpu/vmaf/vif.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/reference/full_metrics_set.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {
namespace {

const std::array<std::string, 4> kVifMetrics = {"integer_vif_scale0", "integer_vif_scale1",
                                                "integer_vif_scale2", "integer_vif_scale3"};

bool HasVifValues(const ExpectedMetrics& expected) {
  return expected.metrics.count(kVifMetrics[0]) != 0;
}

// Scores every frame the vmaf tool read and compares the four scales with the entry's values.
absl::StatusOr<ReplayReport> ReplayVifPair(const ReferencePair& pair,
                                           const ExpectedMetrics& expected) {
  absl::StatusOr<ToolPair> clips = ReadPairAsVmafTool(pair);
  if (!clips.ok()) return clips.status();
  const size_t frames = clips->frames();
  for (const std::string& metric : kVifMetrics) {
    const auto it = expected.metrics.find(metric);
    if (it == expected.metrics.end() || it->second.size() != frames) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "pair %s: %d values of %s for the %d frames the vmaf tool reads", pair.id,
          it == expected.metrics.end() ? 0 : it->second.size(), metric, frames));
    }
  }
  ReplayReport report;
  for (size_t f = 0; f < frames; ++f) {
    absl::StatusOr<VifScores> scores = ScoreIntegerVif(
        clips->reference.frames[f][0], clips->distorted().frames[f][0], VifOptions{});
    if (!scores.ok()) return scores.status();
    for (int s = 0; s < 4; ++s) {
      const double want = expected.metrics.at(kVifMetrics[s])[f];
      ++report.compared;
      if (!SameBits(want, scores->scale[s])) {
        report.mismatches.push_back(
            {"vif", kVifMetrics[s], static_cast<int>(f), want, scores->scale[s]});
      }
    }
  }
  return report;
}

TEST(VmafVifReferenceSubset, EveryValueBitIdentical) {
  const absl::StatusOr<MetricsSet> subset = LoadMetricsSubset();
  ASSERT_TRUE(subset.ok()) << subset.status();
  int replayed = 0;
  int without = 0;
  int64_t compared = 0;
  for (const ReferencePair& pair : subset->set.pairs) {
    const ExpectedMetrics& expected = subset->expected.at(pair.id);
    if (!HasVifValues(expected)) {
      // libvmaf refused the model's features for this pair: nothing to compare.
      EXPECT_FALSE(expected.refused.empty()) << pair.id << " has no vif values";
      ++without;
      continue;
    }
    auto report = ReplayVifPair(pair, expected);
    ASSERT_TRUE(report.ok()) << pair.id << ": " << report.status();
    EXPECT_GT(report->compared, 0) << pair.id;
    for (const Mismatch& m : report->mismatches) ADD_FAILURE() << pair.id << ": " << m.ToString();
    compared += report->compared;
    ++replayed;
  }
  // The subset has vif for 8- and 10-bit pairs from 64x36 to 1080p, flat and identical ones.
  EXPECT_GE(replayed, 14);
  std::cout << replayed << " pairs replayed, " << without << " without vif values, " << compared
            << " integer_vif_scale values compared\n";
}

class VmafVifFullReferenceSet : public ::testing::TestWithParam<std::string> {};

TEST_P(VmafVifFullReferenceSet, EveryValueBitIdentical) {
  const MetricsSet* loaded = LoadedFullMetricsSet();
  if (loaded == nullptr) GTEST_SKIP() << FullMetricsSetAbsent("VmafVifReferenceSubset");
  const absl::StatusOr<FullMetricsPair> found = FindFullMetricsPair(*loaded, GetParam());
  ASSERT_TRUE(found.ok()) << found.status();
  const ReferencePair& pair = *found->pair;
  if (!HasVifValues(*found->expected)) {
    EXPECT_FALSE(found->expected->refused.empty()) << pair.id << " has no vif values";
    std::cout << pair.id << ": no vif values from libvmaf (refused)\n";
    return;
  }
  auto report = ReplayVifPair(pair, *found->expected);
  ASSERT_TRUE(report.ok()) << pair.id << ": " << report.status();
  EXPECT_GT(report->compared, 0);
  for (const Mismatch& m : report->mismatches) ADD_FAILURE() << pair.id << ": " << m.ToString();
  std::cout << pair.id << ": " << report->compared << " integer_vif_scale values compared, "
            << report->mismatches.size() << " differ\n";
}

INSTANTIATE_TEST_SUITE_P(Pairs, VmafVifFullReferenceSet, ::testing::ValuesIn(FullMetricsPairIds()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// A luma plane rewritten at another bit depth (or cropped), owning its samples.
struct OwnedLuma {
  std::vector<uint8_t> bytes;
  LumaView view;
};

// The transforms vif_cli_checks.json names: "shift" (x << (depth-8)), "replicate" (the 8 bits
// repeated down to the new depth, e.g. x*257 at 16 bits), applied to an 8-bit plane after a crop.
OwnedLuma Transform(const LumaView& in, const std::string& how, int depth, int crop_w,
                    int crop_h) {
  OwnedLuma out;
  const int w = crop_w > 0 ? crop_w : in.width;
  const int h = crop_h > 0 ? crop_h : in.height;
  const int bytes = depth > 8 ? 2 : 1;
  out.bytes.resize(static_cast<size_t>(w) * h * bytes);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      uint32_t v = in.Sample(x, y);
      if (how == "shift") {
        v <<= depth - in.bit_depth;
      } else if (how == "replicate") {
        uint32_t r = 0;
        for (int filled = 0; filled < depth; filled += in.bit_depth) {
          const int room = depth - filled;
          r |= room >= in.bit_depth ? v << (room - in.bit_depth) : v >> (in.bit_depth - room);
        }
        v = r;
      }
      StoreSample(out.bytes.data() + static_cast<size_t>(y) * w * bytes, x, depth, v);
    }
  }
  out.view = LumaView{out.bytes.data(), static_cast<size_t>(w) * bytes, w, h, depth};
  return out;
}

TEST(VmafVifCliChecks, EveryValueBitIdentical) {
  const std::string path = RunfilePath("tests/data/vmaf/vif_cli_checks.json");
  std::ifstream file(path);
  ASSERT_TRUE(file.good()) << "cannot read " << path;
  const nlohmann::json checks = nlohmann::json::parse(file);
  const std::string dir = RunfilePath("tests/data/reference");
  auto set = LoadReferenceSet(dir);
  ASSERT_TRUE(set.ok()) << set.status();
  std::map<std::string, const ReferencePair*> pairs;
  for (const ReferencePair& p : set->pairs) pairs[p.id] = &p;

  int64_t compared = 0;
  int cases = 0;
  for (const nlohmann::json& c : checks.at("cases")) {
    const std::string id = c.at("pair").get<std::string>();
    SCOPED_TRACE(c.at("name").get<std::string>());
    ASSERT_EQ(pairs.count(id), 1u) << id << " is not in the subset";
    absl::StatusOr<ToolPair> clips = ReadPairAsVmafTool(*pairs[id]);
    ASSERT_TRUE(clips.ok()) << clips.status();
    VifOptions options;
    options.enhn_gain_limit = c.value("vif_enhn_gain_limit", 100.0);
    options.skip_scale0 = c.value("vif_skip_scale0", false);
    const std::string how = c.value("samples", std::string("as_is"));
    const int depth = c.value("bit_depth", pairs[id]->geometry.bit_depth);
    const int crop_w = c.value("crop_width", 0);
    const int crop_h = c.value("crop_height", 0);
    const nlohmann::json& frames = c.at("frames");
    ASSERT_LE(frames.size(), clips->frames());
    for (size_t f = 0; f < frames.size(); ++f) {
      const OwnedLuma ref = Transform(clips->reference.frames[f][0], how, depth, crop_w, crop_h);
      const OwnedLuma dis = Transform(clips->distorted().frames[f][0], how, depth, crop_w, crop_h);
      absl::StatusOr<VifScores> scores = ScoreIntegerVif(ref.view, dis.view, options);
      ASSERT_TRUE(scores.ok()) << scores.status();
      for (int s = 0; s < 4; ++s) {
        const double want = frames[f].at(s).get<double>();
        ++compared;
        EXPECT_TRUE(SameBits(want, scores->scale[s]))
            << "frame " << f << " scale " << s << ": libvmaf " << absl::StrFormat("%.17g", want)
            << ", here " << absl::StrFormat("%.17g", scores->scale[s]);
      }
    }
    ++cases;
  }
  EXPECT_GE(cases, 4);
  std::cout << cases << " tool checks, " << compared << " integer_vif_scale values compared\n";
}

}  // namespace
}  // namespace ssimd::testing
