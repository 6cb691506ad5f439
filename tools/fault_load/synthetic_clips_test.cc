#include "tools/fault_load/synthetic_clips.h"

#include <cmath>
#include <limits>
#include <set>

#include "engine/cpu/cpu_scorer.h"
#include "gtest/gtest.h"

namespace ssimd::fault_load {
namespace {

TEST(SyntheticClipsTest, EveryPairOfAVariantScoresDifferently) {
  // Misordered results are caught only if each pair of a variant has its own scores.
  std::unique_ptr<Scorer> cpu = MakeCpuScorer({.threads = 1});
  auto variants = MakeClipVariants(false, cpu.get());
  ASSERT_TRUE(variants.ok()) << variants.status();
  ASSERT_GE(variants->size(), 5u);
  for (const ClipVariant& v : *variants) {
    ASSERT_EQ(v.expected.size(), v.pairs.size()) << v.name;
    if (v.geometry.width * v.geometry.height < 4) continue;  // a 1x1 picture has few scores
    std::set<std::string> distinct;
    for (const FrameScores& scores : v.expected) {
      std::string key;
      for (const auto& [metric, value] : scores) key += metric + "=" + std::to_string(value) + ";";
      distinct.insert(key);
    }
    EXPECT_EQ(distinct.size(), v.pairs.size()) << v.name;
  }
}

TEST(SyntheticClipsTest, PlanesAreDeterministicAndWithinTheBitDepth) {
  Geometry g;
  g.width = 7;
  g.height = 5;
  g.bit_depth = 10;
  const std::string a = SyntheticPlane(g, 3, 2);
  EXPECT_EQ(a, SyntheticPlane(g, 3, 2));
  EXPECT_NE(a, SyntheticPlane(g, 3, 1));
  ASSERT_EQ(a.size(), LumaBytes(g));
  for (size_t i = 0; i < a.size(); i += 2) {
    const unsigned v = static_cast<unsigned char>(a[i]) | (static_cast<unsigned char>(a[i + 1]) << 8);
    EXPECT_LE(v, 1023u);
  }
}

TEST(SyntheticClipsTest, OneVariantMatchesTheSet) {
  auto all = MakeClipVariants(false, nullptr);
  ASSERT_TRUE(all.ok());
  auto one = MakeClipVariant(2, false, nullptr);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->name, (*all)[2].name);
  EXPECT_EQ(one->pairs[1].distorted, (*all)[2].pairs[1].distorted);
  EXPECT_FALSE(MakeClipVariant(ClipVariantCount(false), false, nullptr).ok());
}

TEST(SyntheticClipsTest, SameScoresComparesBits) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  FrameScores expected = {{"float_ssim", 0.5}, {"ssim", nan}};
  google::protobuf::Map<std::string, double> got;
  got["float_ssim"] = 0.5;
  got["ssim"] = nan;
  std::string why;
  EXPECT_TRUE(SameScores(expected, got, &why)) << why;
  got["float_ssim"] = std::nextafter(0.5, 1.0);
  EXPECT_FALSE(SameScores(expected, got, &why));
  EXPECT_NE(why.find("float_ssim"), std::string::npos);
  got["float_ssim"] = 0.5;
  got["extra"] = 1;
  EXPECT_FALSE(SameScores(expected, got, &why));
}

}  // namespace
}  // namespace ssimd::fault_load
