#include "engine/cpu/vmaf/vif.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include "gtest/gtest.h"

namespace ssimd {
namespace {

// A plane of packed samples (bytes at 8 bits, little-endian words above) that owns its memory.
struct Plane {
  int width = 0;
  int height = 0;
  int bit_depth = 8;
  size_t stride_bytes = 0;
  std::vector<uint8_t> bytes;

  Plane(int w, int h, int depth, int padding_samples = 0)
      : width(w), height(h), bit_depth(depth) {
    const size_t sample = depth > 8 ? 2 : 1;
    stride_bytes = (static_cast<size_t>(w) + padding_samples) * sample;
    bytes.assign(stride_bytes * h, 0xA5);  // padding bytes are never read
  }
  void Set(int x, int y, uint32_t v) {
    StoreSample(bytes.data() + static_cast<size_t>(y) * stride_bytes, x, bit_depth, v);
  }
  uint32_t Get(int x, int y) const {
    return LoadSample(bytes.data() + static_cast<size_t>(y) * stride_bytes, x, bit_depth);
  }
  LumaView view() const { return LumaView{bytes.data(), stride_bytes, width, height, bit_depth}; }
};

Plane Flat(int w, int h, int depth, uint32_t value) {
  Plane p(w, h, depth);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) p.Set(x, y, value);
  }
  return p;
}

// A smooth texture with noise, 8-bit.
Plane Textured(int w, int h, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> noise(-12, 12);
  Plane p(w, h, 8);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const double base = 128 + 70 * std::sin(0.11 * x + 0.05 * y) * std::cos(0.07 * y - 0.02 * x);
      int v = static_cast<int>(base) + noise(rng);
      p.Set(x, y, static_cast<uint32_t>(v < 0 ? 0 : (v > 255 ? 255 : v)));
    }
  }
  return p;
}

// `in` blurred horizontally by a 3-tap box and with noise added: a plausible distortion.
Plane Distort(const Plane& in, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> noise(-6, 6);
  Plane p(in.width, in.height, 8);
  for (int y = 0; y < in.height; ++y) {
    for (int x = 0; x < in.width; ++x) {
      const int l = static_cast<int>(in.Get(x > 0 ? x - 1 : x, y));
      const int c = static_cast<int>(in.Get(x, y));
      const int r = static_cast<int>(in.Get(x + 1 < in.width ? x + 1 : x, y));
      const int v = (l + c + r) / 3 + noise(rng);
      p.Set(x, y, static_cast<uint32_t>(v < 0 ? 0 : (v > 255 ? 255 : v)));
    }
  }
  return p;
}

// The 8-bit plane at `depth`, each sample shifted left by depth - 8.
Plane Shifted(const Plane& in, int depth) {
  Plane p(in.width, in.height, depth);
  for (int y = 0; y < in.height; ++y) {
    for (int x = 0; x < in.width; ++x) p.Set(x, y, in.Get(x, y) << (depth - 8));
  }
  return p;
}

VifScores MustScore(const Plane& ref, const Plane& dis, const VifOptions& options = {}) {
  absl::StatusOr<VifScores> scores = ScoreIntegerVif(ref.view(), dis.view(), options);
  EXPECT_TRUE(scores.ok()) << scores.status();
  return scores.ok() ? *scores : VifScores{};
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

// libvmaf scores flat pictures exactly 1 at every scale, identical or not (the reference set's
// flat120/flat123, flat16/flat17 and flat512 pairs): no pixel reaches the noise variance, and
// each counts 1 in both numerator and denominator.
TEST(IntegerVif, FlatPicturesScoreOne) {
  for (int depth : {8, 10, 12, 16}) {
    const uint32_t peak = (1u << depth) - 1;
    const Plane a = Flat(40, 24, depth, peak / 2);
    const Plane b = Flat(40, 24, depth, peak / 3);
    for (const Plane* dis : {&a, &b}) {
      const VifScores s = MustScore(a, *dis);
      for (int k = 0; k < 4; ++k) EXPECT_EQ(s.scale[k], 1.0) << depth << "-bit scale " << k;
    }
  }
}

// Identical textured pictures: libvmaf's truncations leave the numerator at most the
// denominator, a few binary32 ulps short at most (its identical pairs give 0.9999985 .. 1).
TEST(IntegerVif, IdenticalTexturedPicturesScoreJustBelowOrAtOne) {
  const Plane ref = Textured(96, 64, 1);
  const VifScores s = MustScore(ref, ref);
  for (int k = 0; k < 4; ++k) {
    EXPECT_LE(s.scale[k], 1.0) << "scale " << k;
    EXPECT_GE(s.scale[k], 1.0 - 4e-6) << "scale " << k;
  }
}

TEST(IntegerVif, DistortionLowersEveryScale) {
  const Plane ref = Textured(96, 64, 2);
  const Plane dis = Distort(ref, 3);
  const VifScores s = MustScore(ref, dis);
  for (int k = 0; k < 4; ++k) {
    EXPECT_GT(s.scale[k], 0.0) << "scale " << k;
    EXPECT_LT(s.scale[k], 0.999) << "scale " << k;
  }
}

// The scale-0 shifts divide by 2^depth and 4^(depth-8), so a picture shifted up from 8 bits
// gives the 8-bit picture's moments exactly, and every later scale starts from the same
// samples. libvmaf's tool agrees: its 12- and 16-bit shifted testsrc2 frames
// (tests/data/vmaf/vif_cli_checks.json) score exactly as the 8-bit pair in expected_metrics.json.
TEST(IntegerVif, ShiftedDeeperPicturesScoreAsEightBit) {
  const Plane ref = Textured(72, 40, 4);
  const Plane dis = Distort(ref, 5);
  const VifScores eight = MustScore(ref, dis);
  for (int depth : {10, 12, 16}) {
    const VifScores deep = MustScore(Shifted(ref, depth), Shifted(dis, depth));
    for (int k = 0; k < 4; ++k) {
      EXPECT_TRUE(SameBits(eight.scale[k], deep.scale[k]))
          << depth << "-bit scale " << k << ": " << eight.scale[k] << " vs " << deep.scale[k];
    }
  }
}

// vif_skip_scale0 reports 0 at scale 0 and leaves the other scales as they are (libvmaf's tool
// gives the kite pair's default scales 1..3 with it; see vif_cli_checks.json).
TEST(IntegerVif, SkipScaleZero) {
  const Plane ref = Textured(64, 48, 6);
  const Plane dis = Distort(ref, 7);
  const VifScores all = MustScore(ref, dis);
  VifOptions options;
  options.skip_scale0 = true;
  const VifScores skipped = MustScore(ref, dis, options);
  EXPECT_EQ(skipped.scale[0], 0.0);
  for (int k = 1; k < 4; ++k) EXPECT_TRUE(SameBits(all.scale[k], skipped.scale[k])) << k;
}

// A distorted picture with twice the reference's contrast has a gain of about 2: the default limit
// (100) lets it raise the numerator, a limit of 1 (the `neg` models) does not.
TEST(IntegerVif, EnhancementGainLimitCapsContrastGain) {
  const Plane ref = Textured(80, 48, 8);
  Plane dis(ref.width, ref.height, 8);
  for (int y = 0; y < ref.height; ++y) {
    for (int x = 0; x < ref.width; ++x) {
      const int v = 2 * (static_cast<int>(ref.Get(x, y)) - 128) + 128;
      dis.Set(x, y, static_cast<uint32_t>(v < 0 ? 0 : (v > 255 ? 255 : v)));
    }
  }
  const VifScores free_gain = MustScore(ref, dis);
  VifOptions neg;
  neg.enhn_gain_limit = 1.0;
  const VifScores capped = MustScore(ref, dis, neg);
  for (int k = 0; k < 4; ++k) {
    EXPECT_GT(free_gain.scale[k], 1.0) << "scale " << k;
    EXPECT_LE(capped.scale[k], 1.0) << "scale " << k;
  }
}

TEST(IntegerVif, StrideBeyondTheRowIsIgnored) {
  const Plane ref = Textured(48, 32, 9);
  const Plane dis = Distort(ref, 10);
  Plane padded_ref(ref.width, ref.height, 8, 13);
  Plane padded_dis(ref.width, ref.height, 8, 13);
  for (int y = 0; y < ref.height; ++y) {
    for (int x = 0; x < ref.width; ++x) {
      padded_ref.Set(x, y, ref.Get(x, y));
      padded_dis.Set(x, y, dis.Get(x, y));
    }
  }
  const VifScores tight = MustScore(ref, dis);
  const VifScores padded = MustScore(padded_ref, padded_dis);
  for (int k = 0; k < 4; ++k) EXPECT_TRUE(SameBits(tight.scale[k], padded.scale[k])) << k;
}

TEST(IntegerVif, GainLimitOutsideLibvmafsRangeIsRefused) {
  const Plane p = Flat(16, 16, 8, 100);
  for (double bad : {0.999, 100.001, -1.0, std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity()}) {
    VifOptions options;
    options.enhn_gain_limit = bad;
    EXPECT_EQ(ScoreIntegerVif(p.view(), p.view(), options).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
    EXPECT_EQ(ValidateVifOptions(options).code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  for (double good : {1.0, 2.5, 100.0}) {
    VifOptions options;
    options.enhn_gain_limit = good;
    EXPECT_TRUE(ScoreIntegerVif(p.view(), p.view(), options).ok()) << good;
  }
}

TEST(IntegerVif, SizesBelowEightAreRefused) {
  EXPECT_EQ(IntegerVifMinSide(), 8);
  for (auto [w, h] : {std::pair{7, 8}, std::pair{8, 7}, std::pair{1, 1}, std::pair{100, 4}}) {
    const Plane p = Flat(w, h, 8, 10);
    const absl::Status status = ScoreIntegerVif(p.view(), p.view(), {}).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << w << "x" << h;
    EXPECT_NE(status.message().find("at least 8x8"), std::string::npos) << status;
  }
  const Plane smallest = Textured(8, 8, 11);
  EXPECT_TRUE(ScoreIntegerVif(smallest.view(), smallest.view(), {}).ok());
}

TEST(IntegerVif, MismatchedOrInvalidPlanesAreRefused) {
  const Plane a = Flat(16, 16, 8, 10);
  const Plane wider = Flat(18, 16, 8, 10);
  const Plane ten = Flat(16, 16, 10, 10);
  EXPECT_EQ(ScoreIntegerVif(a.view(), wider.view(), {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ScoreIntegerVif(a.view(), ten.view(), {}).status().code(),
            absl::StatusCode::kInvalidArgument);

  LumaView nine = ten.view();
  nine.bit_depth = 9;
  EXPECT_EQ(ScoreIntegerVif(nine, nine, {}).status().code(), absl::StatusCode::kInvalidArgument);

  LumaView no_data = a.view();
  no_data.data = nullptr;
  EXPECT_EQ(ScoreIntegerVif(a.view(), no_data, {}).status().code(),
            absl::StatusCode::kInvalidArgument);

  LumaView short_stride = ten.view();
  short_stride.stride_bytes = 31;  // a 16-sample 10-bit row needs 32 bytes
  EXPECT_EQ(ScoreIntegerVif(short_stride, ten.view(), {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// libvmaf fills its table with round(log2f(i) * 2048) from the platform's binary32 log2f; ours
// rounds the binary64 log2 to binary32 instead, which must give the same entries.
TEST(IntegerVif, Log2TableIsLibvmafs) {
  const std::array<uint16_t, 65536>& table = IntegerVifLog2Table();
  for (uint32_t i = 32767; i < 65536; ++i) {
    const uint16_t libvmaf =
        static_cast<uint16_t>(std::round(std::log2f(static_cast<float>(i)) * 2048));
    ASSERT_EQ(table[i], libvmaf) << i;
  }
  EXPECT_EQ(table[32768], 15 * 2048);  // log2 of a power of two is exact
  EXPECT_EQ(table[65535], 16 * 2048);  // 2048*log2(65535) = 32767.956
}

}  // namespace
}  // namespace ssimd
