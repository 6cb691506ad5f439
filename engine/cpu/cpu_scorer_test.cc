// The CPU scorer through the backend interface: libvmaf's tiny and identical frames, its
// undefined-size rules, option handling and input validation. Expected values come from the
// libvmaf runs described in docs/numerics.md (§8, §9, §14), not from this code.
#include "engine/cpu/cpu_scorer.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/synthetic_picture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

constexpr double kInf = std::numeric_limits<double>::infinity();

FeatureSet Features(const std::vector<std::string>& args) {
  auto parsed = ParseFeatureArgs(args);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return *parsed;
}

FrameScores ScorePair(Scorer& scorer, const SyntheticPlane& ref, const SyntheticPlane& dist,
                      const FeatureSet& features) {
  auto result = scorer.Score(ref.geometry(), features, FramePair{ref.view(), dist.view()});
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? result->scores : FrameScores{};
}

bool IsNegativeZero(double v) { return v == 0.0 && std::signbit(v); }
bool IsPositiveZero(double v) { return v == 0.0 && !std::signbit(v); }

class CpuScorerTest : public ::testing::Test {
 protected:
  std::unique_ptr<Scorer> scorer_ = MakeCpuScorer({.threads = 2});
};

// docs/numerics.md §14: of the 256 flat 8-bit values, 59, 119, 14 and 3 miss 1 on identical 1x1,
// 2x2, 3x3 and 4x4 frames (25, 49, 6 and 0 of them above 1).
TEST_F(CpuScorerTest, IntegerSsimFlatIdenticalTinyFramesMissOneAsLibvmaf) {
  const int expected_miss[] = {59, 119, 14, 3};
  const int expected_above[] = {25, 49, 6, 0};
  const FeatureSet features = Features({"ssim"});
  for (int side = 1; side <= 4; ++side) {
    int miss = 0, above = 0;
    for (uint32_t v = 0; v < 256; ++v) {
      const SyntheticPlane p = FlatPlane(side, side, 8, v);
      const double s = ScorePair(*scorer_, p, p, features)["ssim"];
      miss += s != 1.0;
      above += s > 1.0;
    }
    EXPECT_EQ(miss, expected_miss[side - 1]) << side << "x" << side;
    EXPECT_EQ(above, expected_above[side - 1]) << side << "x" << side;
  }
}

TEST_F(CpuScorerTest, IntegerSsimSeedValuesAndDb) {
  struct Case {
    int side;
    uint32_t value;
    double score;
    double db;
  };
  const Case cases[] = {
      {1, 0, 1.0 - std::ldexp(1.0, -52), 156.53559774527022},
      {2, 2, 1.0 - std::ldexp(1.0, -53), -10.0 * std::log10(std::ldexp(1.0, -53))},
      {3, 51, 1.0 - std::ldexp(1.0, -53), -10.0 * std::log10(std::ldexp(1.0, -53))},
      {1, 3, 1.0 + std::ldexp(1.0, -52), kInf},  // at or above 1: +inf
      {4, 7, 1.0, kInf},
  };
  for (const Case& c : cases) {
    const SyntheticPlane p = FlatPlane(c.side, c.side, 8, c.value);
    EXPECT_EQ(ScorePair(*scorer_, p, p, Features({"ssim"}))["ssim"], c.score)
        << c.side << "x" << c.side << " Y=" << c.value;
    EXPECT_EQ(ScorePair(*scorer_, p, p, Features({"ssim=enable_db=true"}))["ssim"], c.db)
        << c.side << "x" << c.side << " Y=" << c.value;
  }
  EXPECT_NEAR(-10.0 * std::log10(std::ldexp(1.0, -53)), 159.5459, 1e-4);
}

// Spec section 5: identical flat frames give 1 for 184 of the 256 8-bit levels, just below 1 for
// 60 and 1 + 2^-23 for 12; at 10 bit 767 / 207 / 50. Only the level matters, not the size.
TEST_F(CpuScorerTest, FloatSsimFlatIdenticalFramesAsLibvmaf) {
  for (int bd : {8, 10}) {
    int one = 0, below = 0, above = 0;
    for (uint32_t v = 0; v < (1u << bd); ++v) {
      const SyntheticPlane p = FlatPlane(16, 13, bd, v);
      const double s = ScorePair(*scorer_, p, p, Features({"float_ssim"}))["float_ssim"];
      one += s == 1.0;
      below += s < 1.0;
      above += s > 1.0;
      if (s > 1.0) {
        EXPECT_EQ(s, 1.0 + std::ldexp(1.0, -23)) << v;
      }
    }
    EXPECT_EQ(one, bd == 8 ? 184 : 767) << bd;
    EXPECT_EQ(below, bd == 8 ? 60 : 207) << bd;
    EXPECT_EQ(above, bd == 8 ? 12 : 50) << bd;
  }
}

// Flat 10-bit Y=512 identical frames: 1 - 2^-24 and 72.2471989593555 dB (reference set).
TEST_F(CpuScorerTest, FloatSsimFlatTenBitJustBelowOneInDb) {
  const SyntheticPlane p = FlatPlane(64, 36, 10, 512);
  EXPECT_EQ(ScorePair(*scorer_, p, p, Features({"float_ssim"}))["float_ssim"],
            1.0 - std::ldexp(1.0, -24));
  EXPECT_NEAR(ScorePair(*scorer_, p, p, Features({"float_ssim=enable_db=true"}))["float_ssim"],
              72.2471989593555, 1e-12);
}

// Spec 1.10: with no valid 11x11 position the sums stay 0 and the mean is 0 / (w'h'): NaN when a
// side is exactly 10, -0 when exactly one side is shorter, +0 when both are (upstream libvmaf).
TEST_F(CpuScorerTest, FloatSsimSmallerThanTheWindowFollowsUpstream) {
  struct Case {
    int w, h;
    int kind;  // 0 NaN, 1 -0, 2 +0
  };
  const Case cases[] = {{10, 10, 0}, {10, 40, 0}, {40, 10, 0}, {10, 3, 0}, {5, 40, 1},
                        {40, 9, 1},  {1, 1, 2},   {3, 3, 2},   {9, 5, 2},  {8, 8, 2}};
  for (const Case& c : cases) {
    const SyntheticPlane ref = NoisyPlane(c.w, c.h, 8, 1);
    const SyntheticPlane dist = NoisyPlane(c.w, c.h, 8, 2);
    const FrameScores s = ScorePair(*scorer_, ref, dist, Features({"float_ssim=enable_lcs=true"}));
    for (const char* key : {"float_ssim", "float_ssim_l", "float_ssim_c", "float_ssim_s"}) {
      const double v = s.at(key);
      const bool expected = c.kind == 0   ? std::isnan(v)
                            : c.kind == 1 ? IsNegativeZero(v)
                                          : IsPositiveZero(v);
      EXPECT_TRUE(expected) << c.w << "x" << c.h << " " << key << " " << v;
    }
    // dB: NaN gives max_db (+inf without clip_db); +-0 gives -0 dB.
    const double db = ScorePair(*scorer_, ref, dist, Features({"float_ssim=enable_db=1"}))["float_ssim"];
    const double clipped =
        ScorePair(*scorer_, ref, dist, Features({"float_ssim=enable_db=1:clip_db=1"}))["float_ssim"];
    if (c.kind == 0) {
      EXPECT_EQ(db, kInf);
      EXPECT_EQ(clipped, std::ceil(10.0 * std::log10(255.0 * 255.0 * 2.0 * c.w * c.h)));
    } else {
      EXPECT_TRUE(IsNegativeZero(db)) << db;
      EXPECT_TRUE(IsNegativeZero(clipped)) << clipped;
    }
  }
  // libvmaf's value (docs/numerics.md §9): 10x10 8-bit with clip_db gives 72.
  const SyntheticPlane p = NoisyPlane(10, 10, 8, 3);
  EXPECT_EQ(ScorePair(*scorer_, p, p, Features({"float_ssim=enable_db=1:clip_db=1"}))["float_ssim"],
            72.0);
}

// A forced scale can shrink a picture below the window: 100x100 at scale 10 is 10x10 (NaN);
// a 5x5 picture at scale 10 decimates to 1x1 (+0), reading mirrored samples only.
TEST_F(CpuScorerTest, FloatSsimForcedScaleBelowTheWindow) {
  const SyntheticPlane a = NoisyPlane(100, 100, 8, 4);
  const SyntheticPlane b = NoisyPlane(100, 100, 8, 5);
  EXPECT_TRUE(std::isnan(ScorePair(*scorer_, a, b, Features({"float_ssim=scale=10"}))["float_ssim"]));
  EXPECT_FALSE(std::isnan(ScorePair(*scorer_, a, b, Features({"float_ssim=scale=9"}))["float_ssim"]));
  const SyntheticPlane c = NoisyPlane(5, 5, 8, 6);
  EXPECT_TRUE(IsPositiveZero(ScorePair(*scorer_, c, c, Features({"float_ssim=scale=10"}))["float_ssim"]));
  // 101x30 at scale 2: 51x15 after decimation (odd sides gain one), w' = 41, h' = 5.
  const SyntheticPlane d = NoisyPlane(101, 30, 8, 7);
  const double v = ScorePair(*scorer_, d, d, Features({"float_ssim=scale=2"}))["float_ssim"];
  EXPECT_GT(v, 0.99);
}

TEST_F(CpuScorerTest, FloatSsimDbAppliesToFloatSsimOnly) {
  const SyntheticPlane ref = TexturedPlane(96, 80, 8, 8);
  const SyntheticPlane dist = Distort(ref, 9, 6);
  const FrameScores linear = ScorePair(*scorer_, ref, dist, Features({"float_ssim=enable_lcs=1"}));
  const FrameScores db =
      ScorePair(*scorer_, ref, dist, Features({"float_ssim=enable_lcs=1:enable_db=1"}));
  EXPECT_EQ(db.at("float_ssim"), -10.0 * std::log10(1.0 - linear.at("float_ssim")));
  for (const char* key : {"float_ssim_l", "float_ssim_c", "float_ssim_s"}) {
    EXPECT_EQ(db.at(key), linear.at(key)) << key;
  }
  // Scores are binary32 values widened.
  for (const auto& [key, value] : linear) {
    EXPECT_EQ(static_cast<double>(static_cast<float>(value)), value) << key;
  }
  EXPECT_EQ(linear.size(), 4u);
  EXPECT_EQ(ScorePair(*scorer_, ref, dist, Features({"float_ssim"})).size(), 1u);
}

TEST_F(CpuScorerTest, IdenticalFramesInDb) {
  const SyntheticPlane p = TexturedPlane(64, 64, 8, 10);
  EXPECT_EQ(ScorePair(*scorer_, p, p, Features({"float_ssim"}))["float_ssim"], 1.0);
  EXPECT_EQ(ScorePair(*scorer_, p, p, Features({"float_ssim=enable_db=1"}))["float_ssim"], kInf);
  // clip_db: ceil(10 log10(255^2 / (0.5 / 4096))) = 88 (docs/numerics.md §8).
  EXPECT_EQ(ScorePair(*scorer_, p, p, Features({"float_ssim=enable_db=1:clip_db=1"}))["float_ssim"],
            88.0);
  EXPECT_EQ(ScorePair(*scorer_, p, p, Features({"ssim=enable_db=1"}))["ssim"], kInf);
}

TEST_F(CpuScorerTest, BothFeaturesInOneCall) {
  const SyntheticPlane ref = TexturedPlane(70, 50, 10, 11);
  const SyntheticPlane dist = Distort(ref, 12, 20);
  auto result = scorer_->Score(ref.geometry(), Features({"float_ssim", "ssim"}),
                               FramePair{ref.view(), dist.view()});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->backend, "cpu");
  EXPECT_TRUE(result->fallback_reason.empty());
  EXPECT_EQ(result->scores.size(), 2u);
  EXPECT_GT(result->scores.at("float_ssim"), 0.5);
  EXPECT_LT(result->scores.at("float_ssim"), 1.0);
  EXPECT_GT(result->scores.at("ssim"), 0.5);
  EXPECT_LT(result->scores.at("ssim"), 1.0);
  EXPECT_GE(result->timings.total, result->timings.compute);
  EXPECT_EQ(scorer_->name(), "cpu");
  EXPECT_TRUE(scorer_->Healthy());
}

TEST_F(CpuScorerTest, RefusesInvalidInput) {
  const SyntheticPlane ref = NoisyPlane(32, 32, 10, 13);
  const SyntheticPlane dist = NoisyPlane(32, 32, 10, 14);
  const FeatureSet features = Features({"float_ssim"});

  Geometry other = ref.geometry();
  other.width = 33;
  auto mismatch = scorer_->Score(other, features, FramePair{ref.view(), dist.view()});
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(mismatch.status().message(), HasSubstr("reference luma is 32x32 10-bit"));

  SyntheticPlane hot = dist;
  hot.Set(5, 7, 1024);
  auto above_peak = scorer_->Score(ref.geometry(), features, FramePair{ref.view(), hot.view()});
  EXPECT_EQ(above_peak.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(above_peak.status().message(), HasSubstr("distorted luma sample at (x=5, y=7)"));

  FeatureSet none;
  EXPECT_EQ(scorer_->Score(ref.geometry(), none, FramePair{ref.view(), dist.view()}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(scorer_->CheckContext(ref.geometry(), none).code(), absl::StatusCode::kInvalidArgument);

  FramePair empty{ref.view(), dist.view()};
  empty.distorted.data = nullptr;
  EXPECT_THAT(scorer_->Score(ref.geometry(), features, empty).status().message(),
              HasSubstr("distorted luma has no data"));

  Geometry bad = ref.geometry();
  bad.bit_depth = 9;
  EXPECT_EQ(scorer_->CheckContext(bad, features).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(scorer_->CheckContext(ref.geometry(), features).ok());
}

TEST_F(CpuScorerTest, AcceptsPaddedRows) {
  // The same picture with 3 bytes of padding a row scores the same.
  const SyntheticPlane ref = TexturedPlane(40, 30, 8, 15);
  const SyntheticPlane dist = Distort(ref, 16, 9);
  std::vector<uint8_t> padded(static_cast<size_t>(43) * 30, 0xee);
  for (int y = 0; y < 30; ++y) {
    for (int x = 0; x < 40; ++x) padded[y * 43 + x] = dist.bytes[y * 40 + x];
  }
  LumaView view = dist.view();
  view.data = padded.data();
  view.stride_bytes = 43;
  const FeatureSet features = Features({"float_ssim=scale=2:enable_lcs=1", "ssim"});
  auto packed = scorer_->Score(ref.geometry(), features, FramePair{ref.view(), dist.view()});
  auto strided = scorer_->Score(ref.geometry(), features, FramePair{ref.view(), view});
  ASSERT_TRUE(packed.ok() && strided.ok());
  EXPECT_EQ(packed->scores, strided->scores);
}

TEST_F(CpuScorerTest, AcceptsWordsAtAnyAddress) {
  // 10-bit samples one byte off alignment, with an odd stride, score as the packed ones.
  const SyntheticPlane ref = TexturedPlane(40, 30, 10, 17);
  const SyntheticPlane dist = Distort(ref, 18, 40);
  const size_t stride = 40 * 2 + 3;
  std::vector<uint8_t> shifted(1 + stride * 30, 0);
  for (int y = 0; y < 30; ++y) {
    std::memcpy(&shifted[1 + y * stride], &dist.bytes[y * 80], 80);
  }
  LumaView view = dist.view();
  view.data = shifted.data() + 1;
  view.stride_bytes = stride;
  const FeatureSet features = Features({"float_ssim=scale=2", "ssim"});
  auto packed = scorer_->Score(ref.geometry(), features, FramePair{ref.view(), dist.view()});
  auto unaligned = scorer_->Score(ref.geometry(), features, FramePair{ref.view(), view});
  ASSERT_TRUE(packed.ok() && unaligned.ok());
  EXPECT_EQ(packed->scores, unaligned->scores);
}

}  // namespace
}  // namespace ssimd
