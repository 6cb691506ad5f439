// GetCapabilities, ssimd-score's help and the feature parser must describe the same features and
// options. Each is checked against the others as the user sees them (capabilities messages, help
// text, parser answers), not only against the table they are written from.
#include <cfloat>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "client/cli_options.h"
#include "engine/features.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "server/feature_info.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

v1::Capabilities Advertised() {
  v1::Capabilities caps;
  AddFeatureInfo(&caps);
  return caps;
}

// The canonical form of what the parser makes of `args`, or the error text.
std::string Canonical(const std::vector<std::string>& args) {
  auto parsed = ParseFeatureArgs(args);
  if (!parsed.ok()) return std::string(parsed.status().message());
  return absl::StrJoin(FormatFeatureArgs(*parsed), " ");
}

TEST(FeatureOptionsAgree, ParserKnowsExactlyTheAdvertisedFeatures) {
  const v1::Capabilities caps = Advertised();
  ASSERT_GT(caps.features_size(), 0);
  std::vector<std::string> names;
  for (const v1::FeatureInfo& feature : caps.features()) {
    names.push_back(feature.name());
    auto parsed = ParseFeatureArgs({feature.name()});
    EXPECT_TRUE(parsed.ok()) << feature.name() << ": " << parsed.status();
  }
  auto unknown = ParseFeatureArgs({"not_a_feature"});
  EXPECT_THAT(std::string(unknown.status().message()),
              HasSubstr(absl::StrCat("(supported: ", absl::StrJoin(names, ", "), ")")));
}

TEST(FeatureOptionsAgree, AdvertisedDefaultsAndRangesAreWhatTheParserDoes) {
  const v1::Capabilities caps = Advertised();
  for (const v1::FeatureInfo& feature : caps.features()) {
    const std::string bare = Canonical({feature.name()});
    ASSERT_GT(feature.options_size(), 0) << feature.name();
    for (const v1::OptionInfo& option : feature.options()) {
      const std::string prefix = absl::StrCat(feature.name(), "=", option.name(), "=");
      // Stating the advertised default changes nothing.
      EXPECT_EQ(Canonical({prefix + option.default_value()}), bare) << prefix;
      std::vector<std::string> accepted, refused;
      if (option.type() == "bool") {
        EXPECT_EQ(option.min(), "");
        EXPECT_EQ(option.max(), "");
        accepted = {"true", "false", "1", "0"};
        refused = {"2", "yes"};
      } else if (option.type() == "double") {
        accepted = {option.min(), option.max(), "0.5", "1e3"};
        refused = {"-1", "x", "inf", "nan", "1e999", " 1", "0x10"};
      } else if (option.type() == "name") {
        EXPECT_EQ(option.min(), "");
        EXPECT_EQ(option.max(), "");
        accepted = {"vmaf_4k_v0.6.1", "A-1.b_c"};
        refused = {"a b", "../x", "x/y", "a:b", std::string(65, 'x')};
      } else {
        ASSERT_EQ(option.type(), "int") << prefix;
        const int max = std::stoi(option.max());
        accepted = {option.min(), option.max()};
        refused = {absl::StrCat(max + 1), "-1", "x"};
      }
      for (const std::string& value : accepted) {
        EXPECT_TRUE(ParseFeatureArgs({prefix + value}).ok()) << prefix << value;
      }
      for (const std::string& value : refused) {
        auto parsed = ParseFeatureArgs({prefix + value});
        EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << prefix << value;
      }
    }
  }
}

TEST(FeatureOptionsAgree, UnknownOptionMessageListsTheAdvertisedOptions) {
  const v1::Capabilities caps = Advertised();
  for (const v1::FeatureInfo& feature : caps.features()) {
    std::vector<std::string> current;
    for (const v1::OptionInfo& option : feature.options()) {
      // Older names stay accepted but are not offered.
      if (!absl::StrContains(option.description(), "deprecated")) current.push_back(option.name());
    }
    const std::string message = Canonical({feature.name() + "=no_such_option=1"});
    EXPECT_THAT(message, HasSubstr(absl::StrCat("(options: ", absl::StrJoin(current, ", "), ")")));
  }
}

TEST(FeatureOptionsAgree, HelpNamesEveryAdvertisedOptionWithItsDefaultAndRange) {
  const std::string help = CliUsage();
  const v1::Capabilities caps = Advertised();
  for (const v1::FeatureInfo& feature : caps.features()) {
    // The outputs may wrap onto indented lines.
    EXPECT_THAT(std::regex_replace(help, std::regex("\n +"), " "),
                HasSubstr(absl::StrCat(" ", feature.name(), " (outputs ",
                                       absl::StrJoin(feature.outputs(), ", "), ")")));
    for (const v1::OptionInfo& option : feature.options()) {
      // A double option without an upper bound (libvmaf's DBL_MAX) reads "MIN or more".
      const std::string range =
          option.type() == "bool"   ? "true or false"
          : option.type() == "name" ? "a name of up to 64 letters, digits, '_', '-' or '.'"
          : option.type() == "double" && std::stod(option.max()) == DBL_MAX
              ? absl::StrCat(option.min(), " or more")
              : absl::StrCat(option.min(), " to ", option.max());
      EXPECT_THAT(help, HasSubstr(absl::StrCat("    ", option.name(), ": ", range, ", default ",
                                               option.default_value(), "\n")));
      // The description's first words start the next line (it may wrap after them).
      const std::string first_words = option.description().substr(0, 30);
      EXPECT_THAT(help, HasSubstr(first_words)) << option.name();
    }
  }
}

// The user-facing promise of the hardening work: a bare `ssim` is libvmaf's number everywhere,
// and the block-order sum is opt-in under a name that says so.
TEST(FeatureOptionsAgree, IntegerSsimFastSumIsOptIn) {
  bool found = false;
  const v1::Capabilities caps = Advertised();
  for (const v1::FeatureInfo& feature : caps.features()) {
    if (feature.name() != "ssim") continue;
    for (const v1::OptionInfo& option : feature.options()) {
      if (option.name() != "fast_sum") continue;
      found = true;
      EXPECT_EQ(option.default_value(), "false");
    }
  }
  EXPECT_TRUE(found);
  EXPECT_TRUE(ParseFeatureArgs({"ssim"})->ssim->exact);
  EXPECT_THAT(CliUsage(), HasSubstr("fast_sum"));
}

}  // namespace
}  // namespace ssimd
