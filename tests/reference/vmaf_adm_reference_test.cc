// Replays libvmaf's integer adm through the CPU adm: integer_adm2, integer_adm_scale0..3,
// integer_adm3 and integer_aim of every frame equal libvmaf's binary64 bit for bit.
//
// Sources: the checked-in subset's expected_metrics.json (default options), the full set's where
// $SSIMD_REFERENCE_DIR names it, and tests/data/vmaf/adm_options.json (non-default options and
// bit depths, upstream's vmaf tool; the file records each command). Pairs without adm values are
// ones libvmaf refused as a whole (its features fail on the tiny sizes, which adm refuses too) or
// whose files its tool could not read.
#include <array>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "engine/cpu/vmaf/adm.h"
#include "engine/picture.h"
#include "gtest/gtest.h"
#include "tests/reference/full_metrics_set.h"
#include "tests/reference/json.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {
namespace {

// libvmaf's keys, in the order AdmValues lists them.
const std::array<std::string, 7> kKeys = {"integer_adm2",       "integer_adm_scale0",
                                          "integer_adm_scale1", "integer_adm_scale2",
                                          "integer_adm_scale3", "integer_adm3",
                                          "integer_aim"};

std::array<double, 7> AdmValues(const AdmScores& s) {
  return {s.adm2, s.scale[0], s.scale[1], s.scale[2], s.scale[3], s.adm3, s.aim};
}

// Scores every frame of `clips` and compares each key `expected` holds; counts the values.
void CompareFrames(const std::string& what, const ToolPair& clips, const AdmOptions& options,
                   const std::map<std::string, std::vector<double>>& expected,
                   int64_t& compared) {
  for (const std::string& key : kKeys) {
    const auto values = expected.find(key);
    ASSERT_NE(values, expected.end()) << what << " has no " << key;
    ASSERT_EQ(values->second.size(), clips.frames()) << what << " " << key;
  }
  for (size_t f = 0; f < clips.frames(); ++f) {
    absl::StatusOr<AdmScores> got =
        ScoreIntegerAdm(clips.reference.frames[f][0], clips.distorted().frames[f][0], options);
    ASSERT_TRUE(got.ok()) << what << " frame " << f << ": " << got.status();
    const std::array<double, 7> values = AdmValues(*got);
    for (size_t k = 0; k < kKeys.size(); ++k) {
      const double want = expected.at(kKeys[k])[f];
      ++compared;
      EXPECT_TRUE(SameBits(want, values[k]))
          << what << " " << kKeys[k] << " frame " << f << ": expected "
          << absl::StrFormat("%.17g", want) << ", got " << absl::StrFormat("%.17g", values[k]);
    }
  }
}

// Replays one pair of expected_metrics.json with the default options; false where it has no adm
// values.
bool ReplayPair(const ReferencePair& pair, const ExpectedMetrics& expected, int64_t& compared) {
  if (expected.metrics.count("integer_adm2") == 0) return false;
  absl::StatusOr<ToolPair> clips = ReadPairAsVmafTool(pair);
  EXPECT_TRUE(clips.ok()) << pair.id << ": " << clips.status();
  if (!clips.ok()) return false;
  CompareFrames(pair.id, *clips, AdmOptions{}, expected.metrics, compared);
  return true;
}

TEST(VmafAdmReferenceSubset, EveryValueBitIdentical) {
  const absl::StatusOr<MetricsSet> subset = LoadMetricsSubset();
  ASSERT_TRUE(subset.ok()) << subset.status();
  int replayed = 0;
  int64_t compared = 0;
  for (const ReferencePair& pair : subset->set.pairs) {
    const ExpectedMetrics& expected = subset->expected.at(pair.id);
    if (ReplayPair(pair, expected, compared)) {
      ++replayed;
    } else if (pair.geometry.width < kAdmMinSide || pair.geometry.height < kAdmMinSide) {
      // libvmaf gave no values for this tiny size; adm refuses it outright.
      const std::vector<uint8_t> plane(
          static_cast<size_t>(pair.geometry.width) * pair.geometry.height *
              BytesPerSample(pair.geometry.bit_depth),
          0);
      const LumaView view{plane.data(),
                          static_cast<size_t>(pair.geometry.width) *
                              BytesPerSample(pair.geometry.bit_depth),
                          pair.geometry.width, pair.geometry.height, pair.geometry.bit_depth};
      EXPECT_EQ(ScoreIntegerAdm(view, view).status().code(), absl::StatusCode::kInvalidArgument)
          << pair.id;
    }
  }
  // The subset keeps adm of the 64x64 crops, the flat 8- and 10-bit pairs, 4:4:4, 10-bit 4:2:2
  // and 4:2:0, and 1080p.
  EXPECT_GE(replayed, 14);
  std::cout << replayed << " pairs replayed, " << compared << " adm values compared\n";
}

class VmafAdmFullReferenceSet : public ::testing::TestWithParam<std::string> {};

TEST_P(VmafAdmFullReferenceSet, EveryValueBitIdentical) {
  const MetricsSet* loaded = LoadedFullMetricsSet();
  if (loaded == nullptr) GTEST_SKIP() << FullMetricsSetAbsent("vmaf_adm_reference_test");
  const absl::StatusOr<FullMetricsPair> found = FindFullMetricsPair(*loaded, GetParam());
  ASSERT_TRUE(found.ok()) << found.status();
  int64_t compared = 0;
  if (!ReplayPair(*found->pair, *found->expected, compared)) {
    GTEST_SKIP() << found->pair->id << ": libvmaf gave no adm values";
  }
  EXPECT_GT(compared, 0);
  std::cout << found->pair->id << ": " << compared << " adm values compared\n";
}

INSTANTIATE_TEST_SUITE_P(Pairs, VmafAdmFullReferenceSet, ::testing::ValuesIn(FullMetricsPairIds()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

absl::StatusOr<AdmOptions> OptionsOf(const nlohmann::json& run) {
  AdmOptions options;
  for (const auto& [name, value] : run.at("options").items()) {
    if (name == "adm_enhn_gain_limit") {
      options.adm_enhn_gain_limit = value.get<double>();
    } else if (name == "adm_norm_view_dist") {
      options.adm_norm_view_dist = value.get<double>();
    } else if (name == "adm_ref_display_height") {
      options.adm_ref_display_height = value.get<int>();
    } else if (name == "adm_csf_mode") {
      options.adm_csf_mode = value.get<int>();
    } else if (name == "adm_csf_scale") {
      options.adm_csf_scale = value.get<double>();
    } else if (name == "adm_csf_diag_scale") {
      options.adm_csf_diag_scale = value.get<double>();
    } else if (name == "adm_noise_weight") {
      options.adm_noise_weight = value.get<double>();
    } else if (name == "adm_dlm_weight") {
      options.adm_dlm_weight = value.get<double>();
    } else if (name == "adm_min_val") {
      options.adm_min_val = value.get<double>();
    } else if (name == "adm_skip_aim") {
      options.adm_skip_aim = value.get<bool>();
    } else if (name == "adm_skip_scale0") {
      options.adm_skip_scale0 = value.get<bool>();
    } else {
      return absl::InvalidArgumentError("unknown adm option " + name);
    }
  }
  return options;
}

// The tool prints NaN and infinities as null; those compare as "not finite".
bool Matches(const nlohmann::json& want, double got) {
  if (want.is_null()) return !std::isfinite(got);
  absl::StatusOr<double> value = ReadScoreValue(want);
  return value.ok() && SameBits(*value, got);
}

// The run's luma planes made deeper as its "deepened" note says: 10-bit s becomes
// (s << 2) | ((x + 2y) & 3) at 12 bits and (s << 6) | ((5x + 3y) & 63) at 16.
std::vector<uint8_t> Deepen(const LumaView& plane, int bits) {
  std::vector<uint8_t> out(static_cast<size_t>(plane.width) * plane.height * 2);
  for (int y = 0; y < plane.height; ++y) {
    uint8_t* row = out.data() + static_cast<size_t>(y) * plane.width * 2;
    for (int x = 0; x < plane.width; ++x) {
      const uint32_t low = bits == 12 ? (x + 2 * y) & 3 : (5 * x + 3 * y) & 63;
      StoreSample(row, x, 16, (plane.Sample(x, y) << (bits - 10)) | low);
    }
  }
  return out;
}

// The luma planes of a synthetic run, as its "synthetic" note says: x starts at `seed`, and each
// sample in raster order, frame after frame, takes (x >> 15) & (2^bits - 1) of the next x of
// x -> (1103515245 x + 12345) mod 2^31.
std::vector<std::vector<uint8_t>> LcgPlanes(uint32_t seed, int width, int height, int bits,
                                            size_t frames) {
  std::vector<std::vector<uint8_t>> planes;
  uint64_t x = seed;
  for (size_t f = 0; f < frames; ++f) {
    std::vector<uint8_t> plane(static_cast<size_t>(width) * height * BytesPerSample(bits));
    for (int y = 0; y < height; ++y) {
      uint8_t* row = plane.data() + static_cast<size_t>(y) * width * BytesPerSample(bits);
      for (int i = 0; i < width; ++i) {
        x = (1103515245 * x + 12345) % 2147483648u;
        StoreSample(row, i, bits, static_cast<uint32_t>(x >> 15) & ((1u << bits) - 1));
      }
    }
    planes.push_back(std::move(plane));
  }
  return planes;
}

TEST(VmafAdmOptions, EveryValueBitIdentical) {
  auto doc = ReadJsonFile(RunfilePath("tests/data/vmaf/adm_options.json"));
  ASSERT_TRUE(doc.ok()) << doc.status();
  const std::map<std::string, ChromaFormat> chroma = {{"420", ChromaFormat::k420},
                                                      {"422", ChromaFormat::k422},
                                                      {"444", ChromaFormat::k444}};
  const std::array<std::string, 7> names = {"adm2",   "scale0", "scale1", "scale2",
                                            "scale3", "adm3",   "aim"};
  int runs = 0;
  int64_t compared = 0;
  for (const nlohmann::json& run : doc->at("runs")) {
    const std::string what = run.at("command").get<std::string>();
    absl::StatusOr<AdmOptions> options = OptionsOf(run);
    ASSERT_TRUE(options.ok()) << what << ": " << options.status();
    const int bits = run.at("bitdepth").get<int>();
    const int width = run.at("width").get<int>();
    const int height = run.at("height").get<int>();
    const bool deepened = run.contains("deepened");
    ToolPair clips;
    std::vector<std::vector<uint8_t>> synthetic_planes;
    if (run.contains("synthetic")) {
      // Luma only: adm reads nothing else.
      const size_t frames = run.at("adm2").size();
      synthetic_planes.reserve(2 * frames);  // the views point into these
      for (uint32_t seed : {1u, 2u}) {
        ToolFrames& side = seed == 1 ? clips.reference : clips.distorted_clip.emplace();
        const std::vector<std::vector<uint8_t>> planes =
            LcgPlanes(seed, width, height, bits, frames);
        for (const std::vector<uint8_t>& plane : planes) {
          synthetic_planes.push_back(plane);
          PsnrPlanes p{};
          p[0] = LumaView{synthetic_planes.back().data(),
                          static_cast<size_t>(width) * BytesPerSample(bits), width, height, bits};
          side.frames.push_back(p);
        }
      }
    } else {
      ReferencePair pair;
      pair.id = what;
      pair.reference_clip = RunfilePath("tests/data/reference/clips/" +
                                        run.at("reference").get<std::string>());
      pair.distorted_clip = RunfilePath("tests/data/reference/clips/" +
                                        run.at("distorted").get<std::string>());
      pair.geometry.width = width;
      pair.geometry.height = height;
      pair.geometry.bit_depth = deepened ? 10 : bits;
      pair.geometry.chroma = chroma.at(run.at("chroma").get<std::string>());
      absl::StatusOr<ToolPair> read = ReadPairAsVmafTool(pair);
      ASSERT_TRUE(read.ok()) << what << ": " << read.status();
      clips = std::move(*read);
    }
    for (const std::string& name : names) {
      ASSERT_EQ(run.at(name).size(), clips.frames()) << what << " " << name;
    }
    for (size_t f = 0; f < clips.frames(); ++f) {
      LumaView reference = clips.reference.frames[f][0];
      LumaView distorted = clips.distorted().frames[f][0];
      std::vector<uint8_t> deep_reference, deep_distorted;
      if (deepened) {
        deep_reference = Deepen(reference, bits);
        deep_distorted = Deepen(distorted, bits);
        reference = LumaView{deep_reference.data(), static_cast<size_t>(reference.width) * 2,
                             reference.width, reference.height, bits};
        distorted = LumaView{deep_distorted.data(), static_cast<size_t>(distorted.width) * 2,
                             distorted.width, distorted.height, bits};
      }
      absl::StatusOr<AdmScores> got = ScoreIntegerAdm(reference, distorted, *options);
      ASSERT_TRUE(got.ok()) << what << " frame " << f << ": " << got.status();
      const std::array<double, 7> values = AdmValues(*got);
      for (size_t k = 0; k < names.size(); ++k) {
        const nlohmann::json& want = run.at(names[k])[f];
        ++compared;
        EXPECT_TRUE(Matches(want, values[k]))
            << what << " " << names[k] << " frame " << f << ": expected " << want.dump()
            << ", got " << absl::StrFormat("%.17g", values[k]);
      }
    }
    ++runs;
  }
  EXPECT_GE(runs, 23);
  std::cout << runs << " runs replayed, " << compared << " adm values compared\n";
}

}  // namespace
}  // namespace ssimd::testing
