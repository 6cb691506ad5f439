#include "engine/cpu/vmaf/motion.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/vmaf_motion_math.h"

namespace ssimd {
namespace {

// A plane of `width` x `height` samples at `bit_depth`, value(x, y) each, little-endian above 8
// bits, with `pad` spare bytes at the end of each row.
struct Plane {
  std::vector<uint8_t> bytes;
  LumaView view;
};

template <typename F>
Plane MakePlane(int width, int height, int bit_depth, F value, int pad = 0) {
  Plane p;
  const size_t sample = bit_depth > 8 ? 2 : 1;
  const size_t stride = static_cast<size_t>(width) * sample + static_cast<size_t>(pad);
  p.bytes.assign(stride * static_cast<size_t>(height), 0xee);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      StoreSample(p.bytes.data() + static_cast<size_t>(y) * stride, x, bit_depth,
                  static_cast<uint32_t>(value(x, y)));
    }
  }
  p.view = LumaView{p.bytes.data(), stride, width, height, bit_depth};
  return p;
}

Plane Flat(int width, int height, int bit_depth, int level, int pad = 0) {
  return MakePlane(
      width, height, bit_depth, [level](int, int) { return level; }, pad);
}

TEST(MotionSadSum, IdenticalPlanesGiveZero) {
  for (int bits : {8, 10, 12, 16}) {
    const Plane a = MakePlane(
        37, 23, bits, [bits](int x, int y) { return (x * 131 + y * 71 + x * y) % (1 << bits); });
    auto sum = MotionSadSum(a.view, a.view);
    ASSERT_TRUE(sum.ok()) << sum.status();
    EXPECT_EQ(*sum, 0u) << bits;
  }
}

// A uniform step of d between flat planes: the taps sum to 65536, so every vertical value is
// exactly d * 65536 >> b and every horizontal one that again, per sample; the SAD is known in
// closed form.
TEST(MotionSadSum, FlatStepIsExact) {
  const int w = 9, h = 5;
  {
    const Plane a = Flat(w, h, 8, 120), b = Flat(w, h, 8, 123);
    auto sum = MotionSadSum(a.view, b.view);
    ASSERT_TRUE(sum.ok());
    // (-3 * 65536 + 128) >> 8 = -768; (-768 * 65536 + 32768) >> 16 = -768.
    EXPECT_EQ(*sum, uint64_t{768} * w * h);
  }
  {
    const Plane a = Flat(w, h, 10, 512), b = Flat(w, h, 10, 0);
    auto sum = MotionSadSum(a.view, b.view);
    ASSERT_TRUE(sum.ok());
    // 512 * 65536 >> 10 = 32768.
    EXPECT_EQ(*sum, uint64_t{32768} * w * h);
  }
  {
    // The largest step at 16 bits needs the 64-bit vertical sum: 65535 * 65536 > 2^31.
    const Plane a = Flat(w, h, 16, 65535), b = Flat(w, h, 16, 0);
    auto sum = MotionSadSum(a.view, b.view);
    ASSERT_TRUE(sum.ok());
    // (65535 * 65536 + 32768) >> 16 = 65535, twice.
    EXPECT_EQ(*sum, uint64_t{65535} * w * h);
    // The other way round, floor(-65535 + 1/2) = -65535, twice.
    auto reverse = MotionSadSum(b.view, a.view);
    ASSERT_TRUE(reverse.ok());
    EXPECT_EQ(*reverse, uint64_t{65535} * w * h);
  }
}

// The horizontal filter in 32-bit parts against one 64-bit sum, rounded as libvmaf rounds it,
// over the extremes and a spread of values within +-65535.
TEST(MotionHorizontalAbs, EqualsTheSixtyFourBitSum) {
  auto reference = [](int64_t v0, int64_t v1, int64_t v2, int64_t v3, int64_t v4) {
    const int64_t sum = 3571 * v0 + 16004 * v1 + 26386 * v2 + 16004 * v3 + 3571 * v4;
    const int64_t value = (sum + 32768) >> 16;
    return static_cast<uint32_t>(value < 0 ? -value : value);
  };
  std::vector<int32_t> values = {-65535, -65534, -32769, -32768, -1, 0, 1, 2, 32767, 65534, 65535};
  uint32_t state = 12345;
  for (int i = 0; i < 40; ++i) {
    state = state * 1664525u + 1013904223u;
    values.push_back(static_cast<int32_t>(state % 131071u) - 65535);
  }
  int64_t checked = 0;
  for (int32_t a : values) {
    for (int32_t b : values) {
      for (int32_t c : {-65535, -40000, -1, 0, 1, 12345, 65535}) {
        ASSERT_EQ(MotionHorizontalAbs(a, b, c, b, a), reference(a, b, c, b, a)) << a << " " << b;
        ASSERT_EQ(MotionHorizontalAbs(a, c, b, a, c), reference(a, c, b, a, c)) << a << " " << b;
        ASSERT_EQ(MotionHorizontalAbs(c, a, b, c, a), reference(c, a, b, c, a)) << a << " " << b;
        checked += 3;
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

// Padded rows, and 10-bit words at odd addresses (which the CPU path copies before reading), give
// the sum of tightly packed rows.
TEST(MotionSadSum, StrideAndUnalignedWordsDoNotMatter) {
  auto value = [](int x, int y) { return (x * 37 + y * 101 + (x ^ y) * 13) % 1024; };
  const Plane tight_a = MakePlane(16, 11, 10, value);
  const Plane tight_b = MakePlane(16, 11, 10, [&](int x, int y) { return value(x + 1, y); });
  // Odd padding makes every row after the first start at an odd byte address.
  const Plane padded_a = MakePlane(16, 11, 10, value, 3);
  const Plane padded_b = MakePlane(
      16, 11, 10, [&](int x, int y) { return value(x + 1, y); }, 5);
  auto tight = MotionSadSum(tight_a.view, tight_b.view);
  auto padded = MotionSadSum(padded_a.view, padded_b.view);
  ASSERT_TRUE(tight.ok() && padded.ok());
  EXPECT_GT(*tight, 0u);
  EXPECT_EQ(*tight, *padded);
}

TEST(MotionSadSum, RefusesMismatchedOrTinyPlanes) {
  const Plane a = Flat(8, 8, 8, 1);
  const Plane wider = Flat(9, 8, 8, 1);
  const Plane deeper = Flat(8, 8, 10, 1);
  EXPECT_EQ(MotionSadSum(a.view, wider.view).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MotionSadSum(a.view, deeper.view).status().code(), absl::StatusCode::kInvalidArgument);
  const Plane narrow = Flat(2, 8, 8, 1);
  EXPECT_EQ(MotionSadSum(narrow.view, narrow.view).status().code(),
            absl::StatusCode::kInvalidArgument);
  const Plane smallest = Flat(3, 3, 8, 1);
  EXPECT_TRUE(MotionSadSum(smallest.view, smallest.view).ok());

  LumaView no_data = a.view;
  no_data.data = nullptr;
  EXPECT_EQ(MotionSadSum(no_data, a.view).status().code(), absl::StatusCode::kInvalidArgument);
  LumaView short_stride = a.view;
  short_stride.stride_bytes = 7;
  EXPECT_EQ(MotionSadSum(a.view, short_stride).status().code(), absl::StatusCode::kInvalidArgument);
  LumaView odd_depth = a.view;
  odd_depth.bit_depth = 9;
  EXPECT_EQ(MotionSadSum(odd_depth, odd_depth).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ValidateMotionOptions, AcceptsLibvmafRangesInclusive) {
  EXPECT_TRUE(ValidateMotionOptions(MotionOptions{}).ok());
  MotionOptions edges;
  edges.fps_weight = 5.0;
  edges.max_val = 0.0;
  edges.blend_factor = 0.0;
  edges.blend_offset = 1000.0;
  EXPECT_TRUE(ValidateMotionOptions(edges).ok());
}

TEST(ValidateMotionOptions, RefusesOutOfRangeAndNan) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto refused = [](MotionOptions o, const char* name) {
    const absl::Status s = ValidateMotionOptions(o);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_NE(s.message().find(name), absl::string_view::npos) << s.message();
  };
  MotionOptions o;
  o.fps_weight = 5.5;
  refused(o, "motion_fps_weight");
  o = MotionOptions{};
  o.fps_weight = -0.1;
  refused(o, "motion_fps_weight");
  o = MotionOptions{};
  o.max_val = 10000.5;
  refused(o, "motion_max_val");
  o = MotionOptions{};
  o.blend_factor = nan;
  refused(o, "motion_blend_factor");
  o = MotionOptions{};
  o.blend_offset = 1001.0;
  refused(o, "motion_blend_offset");
}

TEST(MotionSadScore, FirstFramesAndForceZeroReadNoPicture) {
  const Plane a = Flat(8, 8, 8, 10);
  MotionOptions defaults;
  EXPECT_EQ(MotionPreviousDistance(defaults), 1);
  auto first = MotionSadScore(defaults, 0, nullptr, a.view);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, 0.0);
  EXPECT_EQ(MotionSadScore(defaults, 1, nullptr, a.view).status().code(),
            absl::StatusCode::kInvalidArgument);

  MotionOptions window;
  window.five_frame_window = true;
  EXPECT_EQ(MotionPreviousDistance(window), 2);
  auto second = MotionSadScore(window, 1, nullptr, a.view);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, 0.0);
  EXPECT_FALSE(MotionSadScore(window, 2, nullptr, a.view).ok());

  MotionOptions zero;
  zero.force_zero = true;
  auto forced = MotionSadScore(zero, 7, nullptr, a.view);
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(*forced, 0.0);

  EXPECT_FALSE(MotionSadScore(defaults, -1, nullptr, a.view).ok());
  MotionOptions bad;
  bad.max_val = -1.0;
  EXPECT_FALSE(MotionSadScore(bad, 0, nullptr, a.view).ok());
}

// A flat step of 3 at 8 bits is 768 per pixel; the score is 768/256 = 3 per pixel, then weighted
// and capped.
TEST(MotionSadScore, ScalesWeightsAndCaps) {
  const Plane a = Flat(6, 4, 8, 120), b = Flat(6, 4, 8, 123);
  auto plain = MotionSadScore(MotionOptions{}, 1, &a.view, b.view);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(*plain, 3.0);
  MotionOptions weighted;
  weighted.fps_weight = 0.5;
  EXPECT_EQ(*MotionSadScore(weighted, 1, &a.view, b.view), 1.5);
  MotionOptions capped;
  capped.max_val = 2.25;
  EXPECT_EQ(*MotionSadScore(capped, 1, &a.view, b.view), 2.25);
  auto from_sum = MotionSadScoreFromSum(MotionOptions{}, uint64_t{768} * 24, 6, 4);
  ASSERT_TRUE(from_sum.ok());
  EXPECT_EQ(*from_sum, 3.0);
  EXPECT_FALSE(MotionSadScoreFromSum(MotionOptions{}, 0, 0, 4).ok());
}

}  // namespace
}  // namespace ssimd
