// libvmaf's per-frame `vmaf` predicted again from libvmaf's own feature values: every frame of the
// checked-in subset (and of the full set at $SSIMD_REFERENCE_DIR) through vmaf_v0.6.1, and a few
// pairs through vmaf_v0.6.1neg, vmaf_4k_v0.6.1 and vmaf_v0.6.1 under the tool's model options
// (tests/data/vmaf/model_*.json, which say how they were made). Every prediction must equal
// libvmaf's binary64 bit for bit.
//
// The model files are libvmaf's data and not part of this repository: the tests read them from
// $SSIMD_VMAF_MODEL_DIR (libvmaf's model/ directory) and skip without it.
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "engine/vmaf/model.h"
#include "gtest/gtest.h"
#include "tests/reference/json.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {
namespace {

std::string ModelDirectory() {
  const char* dir = std::getenv("SSIMD_VMAF_MODEL_DIR");
  return dir == nullptr ? "" : dir;
}

constexpr char kNoModels[] =
    "libvmaf's model files are not given: pass --test_env=SSIMD_VMAF_MODEL_DIR=<libvmaf's model/ "
    "directory> (they are libvmaf's data, not kept in this repository)";

// The scores vmaf_v0.6.1 reads, as expected_metrics.json names them.
const std::vector<std::string>& V061Features() {
  static const std::vector<std::string>* names = new std::vector<std::string>{
      "integer_adm2",       "integer_motion2",    "integer_vif_scale0",
      "integer_vif_scale1", "integer_vif_scale2", "integer_vif_scale3"};
  return *names;
}

struct Tally {
  int pairs = 0;
  int64_t compared = 0;
  int64_t mismatched = 0;
};

// Predicts every frame of every pair that has `vmaf` and compares it with libvmaf's.
void ReplayV061(const VmafModel& model, const std::map<std::string, ExpectedMetrics>& expected,
                Tally& tally) {
  const VmafModelOptions defaults;
  for (const auto& [id, entry] : expected) {
    const auto vmaf = entry.metrics.find("vmaf");
    if (vmaf == entry.metrics.end()) continue;  // refused, or cut where it is temporal
    const size_t frames = vmaf->second.size();
    std::vector<const std::vector<double>*> features;
    for (const std::string& name : V061Features()) {
      const auto found = entry.metrics.find(name);
      ASSERT_NE(found, entry.metrics.end()) << id << " has vmaf but no " << name;
      ASSERT_EQ(found->second.size(), frames) << id << ": " << name;
      features.push_back(&found->second);
    }
    ++tally.pairs;
    for (size_t frame = 0; frame < frames; ++frame) {
      std::map<std::string, double> scores;
      for (size_t f = 0; f < features.size(); ++f)
        scores[V061Features()[f]] = (*features[f])[frame];
      absl::StatusOr<double> predicted = PredictVmaf(model, defaults, scores);
      ASSERT_TRUE(predicted.ok()) << id << " frame " << frame << ": " << predicted.status();
      ++tally.compared;
      if (!SameBits(vmaf->second[frame], *predicted)) {
        ++tally.mismatched;
        ADD_FAILURE() << id << " frame " << frame << ": vmaf " << std::hexfloat
                      << vmaf->second[frame] << " expected, " << *predicted << " predicted"
                      << std::defaultfloat;
      }
    }
  }
}

TEST(VmafModelReference, SubsetVmafBitIdentical) {
  const std::string models = ModelDirectory();
  if (models.empty()) GTEST_SKIP() << kNoModels;
  absl::StatusOr<VmafModel> model = LoadVmafModelFile(models + "/vmaf_v0.6.1.json");
  ASSERT_TRUE(model.ok()) << model.status();
  auto expected = LoadExpectedMetrics(RunfilePath("tests/data/reference"));
  ASSERT_TRUE(expected.ok()) << expected.status();
  Tally tally;
  ReplayV061(*model, *expected, tally);
  // The subset keeps vmaf for the 64x64 pairs, the flat pairs and the flat 10-bit pair.
  EXPECT_GE(tally.pairs, 5);
  std::cout << tally.pairs << " subset pairs, " << tally.compared << " vmaf values compared, "
            << tally.mismatched << " differ\n";
}

TEST(VmafModelReference, FullSetVmafBitIdentical) {
  const std::string models = ModelDirectory();
  if (models.empty()) GTEST_SKIP() << kNoModels;
  const std::string full = FullReferenceDirectory();
  if (full.empty()) {
    GTEST_SKIP() << "full reference set not given: pass --test_env=SSIMD_REFERENCE_DIR=<directory>;"
                    " the subset is tested by SubsetVmafBitIdentical";
  }
  absl::StatusOr<VmafModel> model = LoadVmafModelFile(models + "/vmaf_v0.6.1.json");
  ASSERT_TRUE(model.ok()) << model.status();
  auto expected = LoadExpectedMetrics(full);
  ASSERT_TRUE(expected.ok()) << expected.status();
  Tally tally;
  ReplayV061(*model, *expected, tally);
  EXPECT_GE(tally.pairs, 20);
  std::cout << tally.pairs << " full-set pairs, " << tally.compared << " vmaf values compared, "
            << tally.mismatched << " differ\n";
}

// One of tests/data/vmaf/model_*.json: the tool's "-m" arguments (paths relative to the model
// directory) and per frame the features it printed and each model's score.
void ReplayModelFile(const std::string& file, const std::string& models) {
  auto doc = ReadJsonFile(RunfilePath("tests/data/vmaf/" + file));
  ASSERT_TRUE(doc.ok()) << doc.status();
  ASSERT_TRUE(doc->contains("models") && doc->contains("frames")) << file;
  struct Loaded {
    VmafModel model;
    VmafModelOptions options;
  };
  std::vector<Loaded> loaded;
  for (const nlohmann::json& spec : (*doc)["models"]) {
    absl::StatusOr<VmafModelOptions> options = ParseVmafModelOptions(spec.get<std::string>());
    ASSERT_TRUE(options.ok()) << file << ": " << options.status();
    absl::StatusOr<VmafModel> model = LoadVmafModelFile(models + "/" + options->path);
    ASSERT_TRUE(model.ok()) << model.status();
    ASSERT_TRUE(ApplyVmafModelOptions(*options, *model).ok()) << spec;
    loaded.push_back({*std::move(model), *std::move(options)});
  }
  std::map<std::string, int64_t> compared;
  int64_t mismatched = 0;
  for (const nlohmann::json& frame : (*doc)["frames"]) {
    const std::string where =
        frame["pair"].get<std::string>() + " frame " + std::to_string(frame["frame"].get<int>());
    std::map<std::string, double> scores;
    for (const auto& [name, value] : frame["features"].items()) scores[name] = value.get<double>();
    for (const Loaded& l : loaded) {
      // Each feature is looked up under the name the tool printed for these options.
      absl::StatusOr<double> predicted = PredictVmaf(l.model, l.options, scores);
      ASSERT_TRUE(predicted.ok()) << file << " " << where << ": " << predicted.status();
      const double expected = frame["scores"][l.model.name].get<double>();
      ++compared[l.model.name];
      if (!SameBits(expected, *predicted)) {
        ++mismatched;
        ADD_FAILURE() << file << " " << where << ": " << l.model.name << " " << std::hexfloat
                      << expected << " expected, " << *predicted << " predicted"
                      << std::defaultfloat;
      }
    }
  }
  for (const auto& [name, count] : compared) {
    EXPECT_GT(count, 0) << name;
    std::cout << file << ": " << name << ": " << count << " values compared\n";
  }
  EXPECT_EQ(compared.size(), loaded.size());
  EXPECT_EQ(mismatched, 0);
}

TEST(VmafModelReference, NegAnd4kModelsBitIdentical) {
  const std::string models = ModelDirectory();
  if (models.empty()) GTEST_SKIP() << kNoModels;
  ReplayModelFile("model_neg_4k.json", models);
}

TEST(VmafModelReference, ToolModelOptionsBitIdentical) {
  const std::string models = ModelDirectory();
  if (models.empty()) GTEST_SKIP() << kNoModels;
  ReplayModelFile("model_v0.6.1_options.json", models);
}

}  // namespace
}  // namespace ssimd::testing
