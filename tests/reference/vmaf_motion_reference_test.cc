// Replays libvmaf's integer motion through the CPU motion and the host's motion series:
// VMAF_integer_feature_motion_sad_score, integer_motion2 and integer_motion3 of every frame equal
// libvmaf's binary64 bit for bit. Each frame's SAD is computed on its own from the reference
// pictures it compares (frame i-1, or i-2 with motion_five_frame_window, and frame i), as a
// parallel scorer would, and the series runs afterwards in frame order.
//
// Sources: the checked-in subset's expected_metrics.json (default options), the full set's where
// $SSIMD_REFERENCE_DIR names it, and tests/data/vmaf/motion_options.json (non-default options,
// upstream's vmaf tool on the subset's clips; the file records each command).
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "engine/cpu/vmaf/motion.h"
#include "engine/picture.h"
#include "engine/vmaf/motion_series.h"
#include "gtest/gtest.h"
#include "tests/reference/full_metrics_set.h"
#include "tests/reference/json.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {
namespace {

constexpr char kSad[] = "VMAF_integer_feature_motion_sad_score";
constexpr char kMotion2[] = "integer_motion2";
constexpr char kMotion3[] = "integer_motion3";

struct MotionValues {
  std::vector<double> sad;
  std::vector<double> motion2;
  std::vector<double> motion3;
};

// Every frame's three values for a clip's reference frames, as libvmaf's motion gives them.
absl::StatusOr<MotionValues> ComputeMotion(const ToolFrames& reference,
                                           const MotionOptions& options) {
  MotionValues out;
  const int64_t frames = static_cast<int64_t>(reference.frames.size());
  const int64_t distance = MotionPreviousDistance(options);
  for (int64_t i = 0; i < frames; ++i) {
    const LumaView* previous = i >= distance ? &reference.frames[i - distance][0] : nullptr;
    absl::StatusOr<double> sad = MotionSadScore(options, i, previous, reference.frames[i][0]);
    if (!sad.ok()) return sad.status();
    out.sad.push_back(*sad);
  }
  absl::StatusOr<MotionSeries> series = MotionSeries::Create(MotionSeriesOptionsOf(options));
  if (!series.ok()) return series.status();
  auto collect = [&]() -> absl::Status {
    for (const MotionFrame& f : series->TakeFinished()) {
      if (f.index != static_cast<int64_t>(out.motion2.size())) {
        return absl::InternalError(absl::StrFormat("the series emitted frame %d after %d frames",
                                                   f.index, out.motion2.size()));
      }
      out.motion2.push_back(f.motion2);
      out.motion3.push_back(f.motion3);
    }
    return absl::OkStatus();
  };
  for (double sad : out.sad) {
    if (absl::Status s = series->Add(sad); !s.ok()) return s;
    if (absl::Status s = collect(); !s.ok()) return s;
  }
  series->Finish();
  if (absl::Status s = collect(); !s.ok()) return s;
  return out;
}

// Compares one metric's values; a length mismatch is one failure.
void Compare(const std::string& what, const std::string& metric,
             const std::vector<double>& expected, const std::vector<double>& actual,
             int64_t& compared) {
  ASSERT_EQ(expected.size(), actual.size()) << what << " " << metric;
  for (size_t f = 0; f < expected.size(); ++f) {
    ++compared;
    EXPECT_TRUE(SameBits(expected[f], actual[f]))
        << what << " " << metric << " frame " << f << ": expected "
        << absl::StrFormat("%.17g", expected[f]) << ", got " << absl::StrFormat("%.17g", actual[f]);
  }
}

// Replays one pair of expected_metrics.json with the default options; false where it has no
// motion values (libvmaf refused the pair, or its temporal values were dropped).
bool ReplayPair(const ReferencePair& pair, const ExpectedMetrics& expected, int64_t& compared) {
  const auto sad = expected.metrics.find(kSad);
  if (sad == expected.metrics.end()) return false;
  absl::StatusOr<ToolPair> clips = ReadPairAsVmafTool(pair);
  EXPECT_TRUE(clips.ok()) << pair.id << ": " << clips.status();
  if (!clips.ok()) return false;
  // The tool stops at the shorter clip.
  const size_t frames = clips->frames();
  ToolFrames reference = std::move(clips->reference);
  reference.frames.resize(frames);
  absl::StatusOr<MotionValues> got = ComputeMotion(reference, MotionOptions{});
  EXPECT_TRUE(got.ok()) << pair.id << ": " << got.status();
  if (!got.ok()) return false;
  Compare(pair.id, kSad, sad->second, got->sad, compared);
  Compare(pair.id, kMotion2, expected.metrics.at(kMotion2), got->motion2, compared);
  Compare(pair.id, kMotion3, expected.metrics.at(kMotion3), got->motion3, compared);
  return true;
}

TEST(VmafMotionReferenceSubset, EveryValueBitIdentical) {
  const absl::StatusOr<MetricsSet> subset = LoadMetricsSubset();
  ASSERT_TRUE(subset.ok()) << subset.status();
  int replayed = 0;
  int64_t compared = 0;
  for (const ReferencePair& pair : subset->set.pairs) {
    const ExpectedMetrics& expected = subset->expected.at(pair.id);
    if (ReplayPair(pair, expected, compared)) ++replayed;
  }
  // The subset keeps motion of the 64x64 crops (6 frames) and the flat 8- and 10-bit pairs.
  EXPECT_GE(replayed, 8);
  std::cout << replayed << " pairs replayed, " << compared << " motion values compared\n";
}

class VmafMotionFullReferenceSet : public ::testing::TestWithParam<std::string> {};

TEST_P(VmafMotionFullReferenceSet, EveryValueBitIdentical) {
  const MetricsSet* loaded = LoadedFullMetricsSet();
  if (loaded == nullptr) GTEST_SKIP() << FullMetricsSetAbsent("vmaf_motion_reference_test");
  const absl::StatusOr<FullMetricsPair> found = FindFullMetricsPair(*loaded, GetParam());
  ASSERT_TRUE(found.ok()) << found.status();
  int64_t compared = 0;
  if (!ReplayPair(*found->pair, *found->expected, compared)) {
    GTEST_SKIP() << found->pair->id << ": libvmaf gave no motion values";
  }
  EXPECT_GT(compared, 0);
  std::cout << found->pair->id << ": " << compared << " motion values compared\n";
}

INSTANTIATE_TEST_SUITE_P(Pairs, VmafMotionFullReferenceSet,
                         ::testing::ValuesIn(FullMetricsPairIds()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

absl::StatusOr<MotionOptions> OptionsOf(const nlohmann::json& run) {
  MotionOptions options;
  for (const auto& [name, value] : run.at("options").items()) {
    if (name == "motion_force_zero") {
      options.force_zero = value.get<bool>();
    } else if (name == "motion_five_frame_window") {
      options.five_frame_window = value.get<bool>();
    } else if (name == "motion_moving_average") {
      options.moving_average = value.get<bool>();
    } else if (name == "motion_fps_weight") {
      options.fps_weight = value.get<double>();
    } else if (name == "motion_max_val") {
      options.max_val = value.get<double>();
    } else if (name == "motion_blend_factor") {
      options.blend_factor = value.get<double>();
    } else if (name == "motion_blend_offset") {
      options.blend_offset = value.get<double>();
    } else {
      return absl::InvalidArgumentError("unknown motion option " + name);
    }
  }
  return options;
}

absl::StatusOr<std::vector<double>> ValuesOf(const nlohmann::json& list) {
  std::vector<double> out;
  for (const nlohmann::json& v : list) {
    absl::StatusOr<double> d = ReadScoreValue(v);
    if (!d.ok()) return d.status();
    out.push_back(*d);
  }
  return out;
}

TEST(VmafMotionOptions, EveryValueBitIdentical) {
  auto doc = ReadJsonFile(RunfilePath("tests/data/vmaf/motion_options.json"));
  ASSERT_TRUE(doc.ok()) << doc.status();
  const std::map<std::string, ChromaFormat> chroma = {
      {"420", ChromaFormat::k420}, {"422", ChromaFormat::k422}, {"444", ChromaFormat::k444}};
  std::map<std::string, ToolFrames> clips;
  int runs = 0;
  int64_t compared = 0;
  for (const nlohmann::json& run : doc->at("runs")) {
    const std::string what = run.at("command").get<std::string>();
    const std::string clip = run.at("clip").get<std::string>();
    Geometry g;
    g.width = run.at("width").get<int>();
    g.height = run.at("height").get<int>();
    g.bit_depth = run.at("bitdepth").get<int>();
    g.chroma = chroma.at(run.at("chroma").get<std::string>());
    if (clips.count(clip) == 0) {
      auto frames = ReadClipAsVmafTool(RunfilePath("tests/data/reference/clips/" + clip), g);
      ASSERT_TRUE(frames.ok()) << clip << ": " << frames.status();
      clips.emplace(clip, std::move(*frames));
    }
    auto options = OptionsOf(run);
    ASSERT_TRUE(options.ok()) << what << ": " << options.status();
    auto got = ComputeMotion(clips.at(clip), *options);
    ASSERT_TRUE(got.ok()) << what << ": " << got.status();
    const std::pair<const char*, const std::vector<double>*> metrics[] = {
        {"sad", &got->sad}, {"motion2", &got->motion2}, {"motion3", &got->motion3}};
    for (const auto& [metric, actual] : metrics) {
      auto want = ValuesOf(run.at(metric));
      ASSERT_TRUE(want.ok()) << what << ": " << want.status();
      Compare(what, metric, *want, *actual, compared);
    }
    ++runs;
  }
  EXPECT_GE(runs, 12);
  std::cout << runs << " option runs replayed, " << compared << " motion values compared\n";
}

}  // namespace
}  // namespace ssimd::testing
