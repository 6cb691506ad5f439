// Behaviours of the CPU integer adm that need no reference files: what identical, flat and
// distorted pictures give, the bit depths, and which options and pictures are refused.
// tests/reference/vmaf_adm_reference_test holds the values to libvmaf's bit for bit.
#include "engine/cpu/vmaf/adm.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "engine/picture.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

// A picture with texture at every scale: a few sine gratings, at `bits` bits.
std::vector<uint8_t> Textured(int width, int height, int bits, int shift = 0) {
  std::vector<uint8_t> out(static_cast<size_t>(width) * height * BytesPerSample(bits));
  const double peak = (1 << bits) - 1;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const double v = 0.5 + 0.2 * std::sin((x + shift) * 0.31) * std::cos(y * 0.17) +
                       0.15 * std::sin((x + 2 * y) * 0.05) + 0.1 * std::sin(y * 0.9);
      StoreSample(out.data() + static_cast<size_t>(y) * width * BytesPerSample(bits), x, bits,
                  static_cast<uint32_t>(std::lround(v * peak)));
    }
  }
  return out;
}

std::vector<uint8_t> Flat(int width, int height, int bits, uint32_t value) {
  std::vector<uint8_t> out(static_cast<size_t>(width) * height * BytesPerSample(bits));
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      StoreSample(out.data() + static_cast<size_t>(y) * width * BytesPerSample(bits), x, bits,
                  value);
    }
  }
  return out;
}

LumaView View(const std::vector<uint8_t>& data, int width, int height, int bits) {
  return LumaView{data.data(), static_cast<size_t>(width) * BytesPerSample(bits), width, height,
                  bits};
}

TEST(IntegerAdm, IdenticalPicturesScoreOneWithoutAim) {
  for (int bits : {8, 10, 12, 16}) {
    const std::vector<uint8_t> pic = Textured(96, 64, bits);
    const absl::StatusOr<AdmScores> s =
        ScoreIntegerAdm(View(pic, 96, 64, bits), View(pic, 96, 64, bits));
    ASSERT_TRUE(s.ok()) << s.status();
    // Nothing is additive, so AIM's sum is exactly 0; the fixed-point roundings leave adm2 a
    // hair from 1 (libvmaf gives 1.0000023 for its identical test clips).
    EXPECT_EQ(s->aim, 0.0) << bits;
    EXPECT_NEAR(s->adm2, 1.0, 1e-4) << bits;
    for (double scale : s->scale) EXPECT_NEAR(scale, 1.0, 1e-4) << bits;
    EXPECT_NEAR(s->adm3, 1.0, 1e-4) << bits;
  }
}

TEST(IntegerAdm, FlatPicturesScoreExactlyOne) {
  // Only the noise floor is left in numerator and denominator alike.
  const std::vector<uint8_t> ref = Flat(64, 48, 8, 120);
  const std::vector<uint8_t> dis = Flat(64, 48, 8, 123);
  const absl::StatusOr<AdmScores> s = ScoreIntegerAdm(View(ref, 64, 48, 8), View(dis, 64, 48, 8));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->adm2, 1.0);
  for (double scale : s->scale) EXPECT_EQ(scale, 1.0);
  EXPECT_EQ(s->adm3, 1.0);
  EXPECT_EQ(s->aim, 0.0);
}

TEST(IntegerAdm, FlatReferenceWithoutNoiseFloorHasNoDenominator) {
  // libvmaf reports adm2 1 and 0/0 per scale; its aim is left unset, 0 here.
  AdmOptions options;
  options.adm_noise_weight = 0.0;
  const std::vector<uint8_t> ref = Flat(64, 64, 8, 100);
  const std::vector<uint8_t> dis = Textured(64, 64, 8);
  const absl::StatusOr<AdmScores> s =
      ScoreIntegerAdm(View(ref, 64, 64, 8), View(dis, 64, 64, 8), options);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->adm2, 1.0);
  for (double scale : s->scale) EXPECT_TRUE(std::isnan(scale));
  EXPECT_EQ(s->aim, 0.0);
  EXPECT_EQ(s->adm3, 1.0);
}

TEST(IntegerAdm, DistortionLowersAdmAndRaisesAim) {
  const std::vector<uint8_t> ref = Textured(128, 72, 8);
  const std::vector<uint8_t> dis = Textured(128, 72, 8, 2);
  const absl::StatusOr<AdmScores> s =
      ScoreIntegerAdm(View(ref, 128, 72, 8), View(dis, 128, 72, 8));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_LT(s->adm2, 0.99);
  EXPECT_GT(s->aim, 0.0);
}

TEST(IntegerAdm, DeeperSamplesOfTheSamePictureScoreTheSame) {
  // The first wavelet pass scales by 2^-bits, so an 8-bit picture shifted up to 10, 12 or 16 bits
  // gives the same bands and the same values.
  const std::vector<uint8_t> ref8 = Textured(80, 48, 8);
  const std::vector<uint8_t> dis8 = Textured(80, 48, 8, 3);
  const absl::StatusOr<AdmScores> base =
      ScoreIntegerAdm(View(ref8, 80, 48, 8), View(dis8, 80, 48, 8));
  ASSERT_TRUE(base.ok()) << base.status();
  for (int bits : {10, 12, 16}) {
    std::vector<uint8_t> ref(80 * 48 * 2), dis(80 * 48 * 2);
    for (int i = 0; i < 80 * 48; ++i) {
      StoreSample(ref.data(), i, bits, uint32_t{ref8[i]} << (bits - 8));
      StoreSample(dis.data(), i, bits, uint32_t{dis8[i]} << (bits - 8));
    }
    const absl::StatusOr<AdmScores> s =
        ScoreIntegerAdm(View(ref, 80, 48, bits), View(dis, 80, 48, bits));
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(s->adm2, base->adm2) << bits;
    EXPECT_EQ(s->aim, base->aim) << bits;
    for (int k = 0; k < 4; ++k) EXPECT_EQ(s->scale[k], base->scale[k]) << bits;
  }
}

TEST(IntegerAdm, SkippedPartsReportZero) {
  const std::vector<uint8_t> ref = Textured(96, 64, 8);
  const std::vector<uint8_t> dis = Textured(96, 64, 8, 1);
  AdmOptions options;
  options.adm_skip_aim = true;
  options.adm_skip_scale0 = true;
  const absl::StatusOr<AdmScores> s =
      ScoreIntegerAdm(View(ref, 96, 64, 8), View(dis, 96, 64, 8), options);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->aim, 0.0);
  EXPECT_EQ(s->scale[0], 0.0);
  EXPECT_GT(s->scale[1], 0.0);
  // adm3 = max(adm2 * dlm + (1 - aim) * (1 - dlm), min_val) with aim 0.
  EXPECT_EQ(s->adm3, s->adm2 * 0.5 + 0.5);
}

TEST(IntegerAdm, MinValFloorsAdm3) {
  const std::vector<uint8_t> ref = Textured(96, 64, 8);
  const std::vector<uint8_t> dis = Textured(96, 64, 8, 4);
  AdmOptions options;
  options.adm_min_val = 1.0;
  const absl::StatusOr<AdmScores> s =
      ScoreIntegerAdm(View(ref, 96, 64, 8), View(dis, 96, 64, 8), options);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->adm3, 1.0);
}

TEST(IntegerAdm, RefusesOptionsOutsideLibvmafsRanges) {
  struct Case {
    const char* name;
    void (*set)(AdmOptions&);
  };
  const Case cases[] = {
      {"adm_enhn_gain_limit", [](AdmOptions& o) { o.adm_enhn_gain_limit = 0.99; }},
      {"adm_enhn_gain_limit", [](AdmOptions& o) { o.adm_enhn_gain_limit = 100.5; }},
      {"adm_enhn_gain_limit", [](AdmOptions& o) { o.adm_enhn_gain_limit = std::nan(""); }},
      {"adm_norm_view_dist", [](AdmOptions& o) { o.adm_norm_view_dist = 24.5; }},
      {"adm_ref_display_height", [](AdmOptions& o) { o.adm_ref_display_height = 4321; }},
      {"adm_csf_mode", [](AdmOptions& o) { o.adm_csf_mode = 4; }},
      {"adm_csf_mode", [](AdmOptions& o) { o.adm_csf_mode = -1; }},
      {"adm_csf_scale", [](AdmOptions& o) { o.adm_csf_scale = 50.5; }},
      {"adm_csf_diag_scale", [](AdmOptions& o) { o.adm_csf_diag_scale = -0.1; }},
      {"adm_noise_weight", [](AdmOptions& o) { o.adm_noise_weight = 1500.5; }},
      {"adm_dlm_weight", [](AdmOptions& o) { o.adm_dlm_weight = 1.1; }},
      {"adm_min_val", [](AdmOptions& o) { o.adm_min_val = -0.1; }},
      // Ranges each accept these, but libvmaf's extractor refuses the viewing set-up.
      {"adm_norm_view_dist * adm_ref_display_height",
       [](AdmOptions& o) { o.adm_norm_view_dist = 2.5; }},
      {"adm_norm_view_dist * adm_ref_display_height",
       [](AdmOptions& o) { o.adm_ref_display_height = 720; }},
      // The blends have tables for a few set-ups only.
      {"adm_csf_mode 2", [](AdmOptions& o) {
         o.adm_csf_mode = 2;
         o.adm_norm_view_dist = 4.0;
       }},
      {"adm_csf_mode 3", [](AdmOptions& o) {
         o.adm_csf_mode = 3;
         o.adm_ref_display_height = 1440;
       }},
  };
  const std::vector<uint8_t> pic = Textured(64, 64, 8);
  for (const Case& c : cases) {
    AdmOptions options;
    c.set(options);
    const absl::Status s = ValidateAdmOptions(options);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_NE(s.message().find(c.name), std::string::npos) << s.message();
    EXPECT_EQ(ScoreIntegerAdm(View(pic, 64, 64, 8), View(pic, 64, 64, 8), options).status().code(),
              absl::StatusCode::kInvalidArgument)
        << c.name;
  }
}

TEST(IntegerAdm, AcceptsLibvmafsBoundsAndTabledSetups) {
  const std::vector<uint8_t> pic = Textured(64, 64, 8);
  std::vector<AdmOptions> accepted(6);
  accepted[0].adm_enhn_gain_limit = 1.0;
  accepted[0].adm_noise_weight = 1500.0;
  accepted[1].adm_norm_view_dist = 24.0;
  accepted[1].adm_ref_display_height = 4320;
  accepted[2].adm_norm_view_dist = 0.75;  // 0.75 * 4320 = 3240, the smallest accepted
  accepted[2].adm_ref_display_height = 4320;
  accepted[3].adm_csf_mode = 2;
  accepted[3].adm_norm_view_dist = 1.5;
  accepted[3].adm_ref_display_height = 2160;
  accepted[4].adm_csf_mode = 3;
  accepted[4].adm_norm_view_dist = 5.0;
  accepted[4].adm_ref_display_height = 720;
  accepted[5].adm_csf_mode = 1;
  accepted[5].adm_csf_scale = 0.0;
  accepted[5].adm_csf_diag_scale = 50.0;
  for (const AdmOptions& options : accepted) {
    EXPECT_TRUE(ValidateAdmOptions(options).ok()) << ValidateAdmOptions(options);
    EXPECT_TRUE(ScoreIntegerAdm(View(pic, 64, 64, 8), View(pic, 64, 64, 8), options).ok());
  }
}

TEST(IntegerAdm, RefusesPicturesLibvmafCannotScore) {
  const std::vector<uint8_t> big = Textured(64, 64, 8);
  const std::vector<uint8_t> wide = Textured(64, 64, 16);
  const LumaView ok = View(big, 64, 64, 8);
  auto code = [](const LumaView& r, const LumaView& d) {
    return ScoreIntegerAdm(r, d).status().code();
  };
  const absl::StatusCode invalid = absl::StatusCode::kInvalidArgument;
  // Below 33 samples a side libvmaf reads outside its buffers; 33 is fine.
  EXPECT_EQ(code(View(big, 32, 33, 8), View(big, 32, 33, 8)), invalid);
  EXPECT_EQ(code(View(big, 33, 32, 8), View(big, 33, 32, 8)), invalid);
  EXPECT_TRUE(ScoreIntegerAdm(View(big, 33, 33, 8), View(big, 33, 33, 8)).ok());
  // Mismatched sizes and bit depths.
  EXPECT_EQ(code(ok, View(big, 48, 64, 8)), invalid);
  EXPECT_EQ(code(ok, View(big, 64, 48, 8)), invalid);
  EXPECT_EQ(code(ok, View(wide, 64, 64, 16)), invalid);
  // Bit depths libvmaf does not take.
  EXPECT_EQ(code(View(wide, 64, 64, 9), View(wide, 64, 64, 9)), invalid);
  // No data, or rows shorter than the width.
  LumaView empty = ok;
  empty.data = nullptr;
  EXPECT_EQ(code(empty, ok), invalid);
  LumaView narrow = ok;
  narrow.stride_bytes = 63;
  EXPECT_EQ(code(ok, narrow), invalid);
}

}  // namespace
}  // namespace ssimd
