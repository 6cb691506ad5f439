#include "engine/vmaf/model_registry.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "engine/vmaf/test_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

FeatureSet AskingFor(const std::string& model) {
  FeatureSet features;
  features.vmaf = VmafOptions{};
  features.vmaf->model = model;
  return features;
}

TEST(VmafModelRegistry, LoadsTheModelsOfADirectoryByFileName) {
  const std::string dir = TempDir() + "/models_ok";
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  Write(dir + "/six.json", SixFeatureTestModelJson());
  Write(dir + "/broken.json", "{ not json");
  Write(dir + "/notes.txt", "not a model");
  std::vector<std::string> skipped;
  absl::StatusOr<VmafModelRegistry> registry = VmafModelRegistry::LoadDirectory(dir, &skipped);
  ASSERT_TRUE(registry.ok()) << registry.status();
  EXPECT_THAT(registry->Names(), ElementsAre("six"));
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_THAT(skipped[0], HasSubstr("broken.json"));

  FeatureSet features = AskingFor("six");
  ASSERT_TRUE(registry->Resolve(features).ok());
  EXPECT_EQ(features.vmaf->resolved, registry->Find("six"));
}

TEST(VmafModelRegistry, NamesWhatItHasWhenAModelIsMissing) {
  VmafModelRegistry registry;
  FeatureSet features = AskingFor("vmaf_v0.6.1");
  absl::Status none = registry.Resolve(features);
  EXPECT_EQ(none.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(none.message(), HasSubstr("--vmaf_model_dir"));

  ASSERT_TRUE(registry.Add("six", *SixFeatureTestModel()).ok());
  absl::Status missing = registry.Resolve(features);
  EXPECT_EQ(missing.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.message(), HasSubstr("no model vmaf_v0.6.1 (it has six)"));
  EXPECT_THAT(registry.Add("six", *SixFeatureTestModel()).message(), HasSubstr("already"));
}

TEST(VmafModelRegistry, RefusesModelsOfFeaturesItDoesNotCompute) {
  VmafModel model = *SixFeatureTestModel();
  model.features[1].name = "VMAF_feature_motion2_score";  // the float motion
  VmafModelRegistry registry;
  EXPECT_THAT(registry.Add("float", model).message(),
              HasSubstr("reads feature VMAF_feature_motion2_score, which ssimd does not compute"));
}

TEST(VmafModelRegistry, AMissingDirectoryIsNotFound) {
  EXPECT_EQ(VmafModelRegistry::LoadDirectory("/nonexistent/models", nullptr).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace ssimd
