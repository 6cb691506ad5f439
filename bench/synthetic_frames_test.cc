#include "bench/synthetic_frames.h"

#include <set>

#include "engine/cpu/cpu_scorer.h"
#include "gtest/gtest.h"

namespace ssimd::bench {
namespace {

TEST(SyntheticFramesTest, SameInputsGiveSameBytesOnAnyThreadCount) {
  const FrameSet a = MakeFrameSet(Geometry{97, 61, 10, ChromaFormat::k420}, 3, 5, 1);
  const FrameSet b = MakeFrameSet(Geometry{97, 61, 10, ChromaFormat::k420}, 3, 5, 3);
  EXPECT_EQ(a.reference, b.reference);
  EXPECT_EQ(a.distorted, b.distorted);
  EXPECT_NE(a.reference[0], a.reference[1]) << "frames should move";
}

TEST(SyntheticFramesTest, PlanesArePackedAndWithinTheBitDepth) {
  const Geometry g = Geometry{130, 66, 10, ChromaFormat::k420};
  const FrameSet set = MakeFrameSet(g, 2, 1, 2);
  ASSERT_EQ(set.size(), 2);
  EXPECT_EQ(set.PairBytes(), 2u * 130 * 66 * 2);
  for (const std::string* plane : {&set.reference[0], &set.distorted[1]}) {
    ASSERT_EQ(plane->size(), LumaBytes(g));
  }
  for (int i = 0; i < set.size(); ++i) {
    const FramePair pair = set.Pair(i);
    EXPECT_TRUE(ValidateSampleRange(pair.reference, "reference").ok());
    EXPECT_TRUE(ValidateSampleRange(pair.distorted, "distorted").ok());
  }
}

TEST(SyntheticFramesTest, PicturesAreTexturedAndTheDistortionIsModerate) {
  const Geometry g = Geometry{320, 180, 8, ChromaFormat::k420};
  const FrameSet set = MakeFrameSet(g, 1, 7, 1);
  const FramePair pair = set.Pair(0);
  std::set<uint32_t> levels;
  int changed = 0;
  for (int y = 0; y < g.height; ++y) {
    for (int x = 0; x < g.width; ++x) {
      levels.insert(pair.reference.Sample(x, y));
      changed += pair.reference.Sample(x, y) != pair.distorted.Sample(x, y);
    }
  }
  EXPECT_GT(levels.size(), 100u) << "a flat or nearly flat picture would flatter every stage";
  EXPECT_GT(changed, g.width * g.height / 4);

  FeatureSet features;
  features.float_ssim = FloatSsimOptions{};
  auto scored = MakeCpuScorer()->Score(g, features, pair);
  ASSERT_TRUE(scored.ok()) << scored.status();
  const double ssim = scored->scores.at("float_ssim");
  EXPECT_GT(ssim, 0.5);
  EXPECT_LT(ssim, 0.999);
}

}  // namespace
}  // namespace ssimd::bench
