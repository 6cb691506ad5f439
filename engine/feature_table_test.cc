#include "engine/feature_table.h"

#include <set>
#include <string>

#include "engine/features.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

// A set requesting only `feature`, with every option at the value the table says.
FeatureSet Requested(const FeatureDescription& feature) {
  FeatureSet set;
  feature.request(set);
  return set;
}

TEST(FeatureTable, NamesAreUniqueAndFindable) {
  std::set<std::string> features;
  for (const FeatureDescription& feature : FeatureTable()) {
    EXPECT_TRUE(features.insert(feature.name).second) << feature.name;
    EXPECT_EQ(FindFeature(feature.name), &feature);
    std::set<std::string> options;
    for (const OptionDescription& option : feature.options) {
      EXPECT_TRUE(options.insert(option.name).second) << feature.name << "." << option.name;
      EXPECT_LE(option.min_value, option.default_value) << option.name;
      EXPECT_LE(option.default_value, option.max_value) << option.name;
      EXPECT_NE(std::string(option.help), "") << option.name;
      if (option.type == OptionType::kBool) {
        EXPECT_EQ(option.min_value, 0) << option.name;
        EXPECT_EQ(option.max_value, 1) << option.name;
      }
    }
  }
  EXPECT_EQ(FindFeature("psnr_hvs"), nullptr);
}

// The option structs' own initialisers (used where code builds options directly) must say what
// the table says.
TEST(FeatureTable, DefaultsAreTheStructDefaults) {
  for (const FeatureDescription& feature : FeatureTable()) {
    const FeatureSet set = Requested(feature);
    EXPECT_TRUE(feature.requested(set)) << feature.name;
    for (const OptionDescription& option : feature.options) {
      EXPECT_EQ(OptionCurrentText(option, set), OptionDefaultText(option))
          << feature.name << "." << option.name;
    }
  }
}

TEST(FeatureTable, EverySetterIsReadBackByItsGetter) {
  for (const FeatureDescription& feature : FeatureTable()) {
    for (const OptionDescription& option : feature.options) {
      if (option.type == OptionType::kName) {
        FeatureSet set = Requested(feature);
        option.set_name(set, "a_name-1.0");
        EXPECT_EQ(option.get_name(set), "a_name-1.0") << feature.name << "." << option.name;
        continue;
      }
      for (int value : {option.min_value, option.max_value}) {
        FeatureSet set = Requested(feature);
        option.set(set, value);
        EXPECT_EQ(option.get(set), value) << feature.name << "." << option.name;
      }
    }
  }
}

TEST(FeatureTable, AnAliasIsTheInverseOrTheSameOfItsOption) {
  int aliases = 0;
  for (const FeatureDescription& feature : FeatureTable()) {
    for (const OptionDescription& option : feature.options) {
      if (option.alias_of == nullptr) continue;
      ++aliases;
      const OptionDescription* target = nullptr;
      for (const OptionDescription& other : feature.options) {
        if (other.name == std::string(option.alias_of)) target = &other;
      }
      ASSERT_NE(target, nullptr) << option.name << " stands for a missing option";
      EXPECT_EQ(target->alias_of, nullptr) << "aliases do not chain";
      EXPECT_THAT(option.help, HasSubstr("deprecated"));
      // Setting the alias moves its option: both name one engine field.
      FeatureSet set = Requested(feature);
      option.set(set, option.max_value);
      const double with_max = target->get(set);
      option.set(set, option.min_value);
      EXPECT_NE(target->get(set), with_max) << option.name;
    }
  }
  EXPECT_EQ(aliases, 1) << "ssim's exact is the one older name";
}

TEST(FeatureTable, NameOptionTakesWordsOnly) {
  auto parsed = ParseFeatureArgs({"vmaf=model=vmaf_4k_v0.6.1"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->vmaf->model, "vmaf_4k_v0.6.1");
  EXPECT_EQ(FormatFeatureArgs(*parsed)[0],
            "vmaf=model=vmaf_4k_v0.6.1:enable_transform=false:disable_clip=false");
  for (const std::string& bad : std::vector<std::string>{"vmaf=model=../etc/passwd", "vmaf=model=a b",
                                "vmaf=model=" + std::string(kMaxOptionNameLength + 1, 'x')}) {
    auto refused = ParseFeatureArgs({bad});
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(refused.status().message(), HasSubstr("vmaf option model must be a name"))
        << bad;
  }
}

TEST(FeatureTable, IntegerSsimDefaultIsLibvmafsSum) {
  const FeatureDescription* ssim = FindFeature("ssim");
  ASSERT_NE(ssim, nullptr);
  const FeatureSet set = Requested(*ssim);
  EXPECT_TRUE(set.ssim->exact);
}

TEST(OptionValueText, WritesWhatTheParserReads) {
  for (const FeatureDescription& feature : FeatureTable()) {
    for (const OptionDescription& option : feature.options) {
      if (option.type == OptionType::kName) continue;  // NameOption below
      for (double value : {option.min_value, option.max_value}) {
        const std::string arg = std::string(feature.name) + "=" + option.name + "=" +
                                OptionValueText(option, value);
        auto parsed = ParseFeatureArgs({arg});
        ASSERT_TRUE(parsed.ok()) << arg << ": " << parsed.status();
        EXPECT_EQ(option.get(*parsed), value) << arg;
      }
    }
  }
}

}  // namespace
}  // namespace ssimd
