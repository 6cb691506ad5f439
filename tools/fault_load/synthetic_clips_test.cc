#include "tools/fault_load/synthetic_clips.h"

#include <cmath>
#include <limits>
#include <set>

#include "engine/cpu/cpu_scorer.h"
#include "engine/gpu/exact_sum.h"
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

TEST(SyntheticClipsTest, PairZeroIsThePictureItselfAndTheOthersDiffer) {
  auto variants = MakeClipVariants(false, nullptr);
  ASSERT_TRUE(variants.ok()) << variants.status();
  for (const ClipVariant& v : *variants) {
    ASSERT_GE(v.pairs.size(), 2u) << v.name;
    EXPECT_EQ(v.pairs[0].distorted, v.pairs[0].reference) << v.name;
    for (size_t p = 1; p < v.pairs.size(); ++p) {
      EXPECT_EQ(v.pairs[p].reference.size(), LumaBytes(v.geometry)) << v.name;
      EXPECT_NE(v.pairs[p].distorted, v.pairs[p].reference) << v.name << " pair " << p;
      EXPECT_NE(v.pairs[p].reference, v.pairs[p - 1].reference) << v.name << " pair " << p;
    }
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
  auto variant = MakeClipVariant(2, false, nullptr);
  ASSERT_TRUE(variant.ok());
  FrameScores expected = {{"float_ssim", 0.5}, {"ssim", nan}};
  v1::FrameResult got;
  got.set_backend("gpu:0");
  (*got.mutable_scores())["float_ssim"] = 0.5;
  (*got.mutable_scores())["ssim"] = nan;
  std::string why;
  EXPECT_TRUE(SameScores(*variant, expected, got, &why)) << why;
  (*got.mutable_scores())["float_ssim"] = std::nextafter(0.5, 1.0);
  EXPECT_FALSE(SameScores(*variant, expected, got, &why));
  EXPECT_NE(why.find("float_ssim"), std::string::npos);
  (*got.mutable_scores())["float_ssim"] = 0.5;
  (*got.mutable_scores())["extra"] = 1;
  EXPECT_FALSE(SameScores(*variant, expected, got, &why));
}

// Integer ssim from the GPU's block sums may differ within the stated bound, and only there.
TEST(SyntheticClipsTest, GpuBlockSumsMayDifferWithinTheirBoundOnly) {
  ClipVariant variant;
  variant.geometry = Geometry{1920, 1080, 8, ChromaFormat::k420};
  variant.features.ssim = IntegerSsimOptions{};
  variant.features.ssim->exact = false;  // asked for with fast_sum=true
  const double bound = IntegerSsimBlockSumBound(1920, 1080);
  ASSERT_GT(bound, 0);
  const FrameScores expected = {{"ssim", 0.9}};
  v1::FrameResult got;
  got.set_backend("gpu:0");
  (*got.mutable_scores())["ssim"] = 0.9 + bound / 2;
  std::string why;
  EXPECT_TRUE(SameScores(variant, expected, got, &why)) << why;
  (*got.mutable_scores())["ssim"] = 0.9 + 2 * bound;
  EXPECT_FALSE(SameScores(variant, expected, got, &why));
  (*got.mutable_scores())["ssim"] = 0.9 + bound / 2;
  got.set_backend("cpu");  // the CPU is exact
  EXPECT_FALSE(SameScores(variant, expected, got, &why));
  got.set_backend("gpu:0");
  variant.features.ssim->exact = true;  // so is the GPU without fast_sum
  EXPECT_FALSE(SameScores(variant, expected, got, &why));
  variant.features.ssim->exact = false;
  variant.geometry = Geometry{64, 64, 8, ChromaFormat::k420};  // and up to 4096 pixels
  EXPECT_FALSE(SameScores(variant, expected, got, &why));
  // In dB the bound is carried through the conversion: 10 dB is 0.9 linear.
  variant.geometry = Geometry{1920, 1080, 8, ChromaFormat::k420};
  variant.features.ssim->enable_db = true;
  const FrameScores expected_db = {{"ssim", 10.0}};
  (*got.mutable_scores())["ssim"] = -10 * std::log10(1 - (0.9 + bound / 2));
  EXPECT_TRUE(SameScores(variant, expected_db, got, &why)) << why;
  (*got.mutable_scores())["ssim"] = -10 * std::log10(1 - (0.9 + 4 * bound));
  EXPECT_FALSE(SameScores(variant, expected_db, got, &why));
}

}  // namespace
}  // namespace ssimd::fault_load
