#include "server/server_flags.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/flags/flag.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

ABSL_DECLARE_FLAG(int64_t, max_picture_pixels);
ABSL_DECLARE_FLAG(std::string, decoded_memory_budget);
ABSL_DECLARE_FLAG(absl::Duration, decoded_memory_wait);

namespace ssimd {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;

TEST(ParseByteSizeTest, TakesBytesAndBinarySuffixes) {
  EXPECT_EQ(*ParseByteSize("1073741824"), kGiB);
  EXPECT_EQ(*ParseByteSize("512M"), 512 * kMiB);
  EXPECT_EQ(*ParseByteSize("4G"), 4 * kGiB);
  EXPECT_EQ(*ParseByteSize("4g"), 4 * kGiB);
  EXPECT_EQ(*ParseByteSize("4GiB"), 4 * kGiB);
  EXPECT_EQ(*ParseByteSize("4Gi"), 4 * kGiB);
  EXPECT_EQ(*ParseByteSize("1.5G"), 3 * kGiB / 2);
  EXPECT_EQ(*ParseByteSize("64K"), 64 * 1024);
  EXPECT_EQ(*ParseByteSize(" 2T "), int64_t{2} << 40);
}

TEST(ParseByteSizeTest, RefusesWhatIsNotAPositiveSize) {
  for (const char* bad : {"", "G", "0", "-1G", "4X", "four", "1.5", "1e30G", "nanG"}) {
    SCOPED_TRACE(bad);
    absl::StatusOr<int64_t> parsed = ParseByteSize(bad);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(parsed.status().message(), HasSubstr("e.g. 4G, 512M"));
  }
}

TEST(DefaultDecodedMemoryBudgetTest, HalfOfTheSmallerLimitCappedAt4G) {
  EXPECT_EQ(DefaultDecodedMemoryBudget(std::nullopt, 64 * kGiB), 4 * kGiB);
  EXPECT_EQ(DefaultDecodedMemoryBudget(std::nullopt, 6 * kGiB), 3 * kGiB);
  EXPECT_EQ(DefaultDecodedMemoryBudget(2 * kGiB, 64 * kGiB), kGiB);  // the pod's limit
  EXPECT_EQ(DefaultDecodedMemoryBudget(64 * kGiB, 2 * kGiB), kGiB);  // a limit above the RAM
  EXPECT_EQ(DefaultDecodedMemoryBudget(std::nullopt, 0), 4 * kGiB);  // nothing known
  EXPECT_EQ(DefaultDecodedMemoryBudget(64 * kMiB, 0), kMinDecodedMemoryBudget);
}

class CgroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::path(::testing::TempDir()) / "cgroup";
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "memory");
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(root_ / name) << text;
  }
  std::filesystem::path root_;
};

TEST_F(CgroupTest, ReadsTheV2LimitAndItsMax) {
  Write("memory.max", "2147483648\n");
  EXPECT_EQ(CgroupMemoryLimit(root_.string()), 2 * kGiB);
  Write("memory.max", "max\n");
  EXPECT_EQ(CgroupMemoryLimit(root_.string()), std::nullopt);
}

TEST_F(CgroupTest, FallsBackToV1AndItsUnlimitedValue) {
  Write("memory/memory.limit_in_bytes", "1073741824\n");
  EXPECT_EQ(CgroupMemoryLimit(root_.string()), kGiB);
  Write("memory/memory.limit_in_bytes", "9223372036854771712\n");
  EXPECT_EQ(CgroupMemoryLimit(root_.string()), std::nullopt);
  EXPECT_EQ(CgroupMemoryLimit((root_ / "absent").string()), std::nullopt);
}

class DecodedMemoryFlagsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    absl::SetFlag(&FLAGS_max_picture_pixels, kDefaultMaxPicturePixels);
    absl::SetFlag(&FLAGS_decoded_memory_budget, "");
    absl::SetFlag(&FLAGS_decoded_memory_wait, absl::Seconds(30));
  }
};

TEST_F(DecodedMemoryFlagsTest, DefaultsAndExplicitValuesReachTheServiceAndMetrics) {
  absl::StatusOr<ServerFlags> defaults = ServerFlagsFromCommandLine();
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(defaults->server.service.max_picture_pixels, int64_t{8192} * 4352);
  EXPECT_EQ(defaults->server.service.decoded_memory_budget_bytes,
            DefaultDecodedMemoryBudget(CgroupMemoryLimit(), PhysicalMemoryBytes()));
  EXPECT_LE(defaults->server.service.decoded_memory_budget_bytes, 4 * kGiB);
  EXPECT_EQ(defaults->server.service.decoded_memory_wait, absl::Seconds(30));

  absl::SetFlag(&FLAGS_max_picture_pixels, 1920 * 1080);
  absl::SetFlag(&FLAGS_decoded_memory_budget, "512M");
  absl::SetFlag(&FLAGS_decoded_memory_wait, absl::Seconds(2));
  absl::StatusOr<ServerFlags> set = ServerFlagsFromCommandLine();
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->server.service.max_picture_pixels, 1920 * 1080);
  EXPECT_EQ(set->server.service.decoded_memory_budget_bytes, 512 * kMiB);
  EXPECT_EQ(set->metrics.decoded_memory_budget_bytes, 512 * kMiB);
  EXPECT_EQ(set->server.service.decoded_memory_wait, absl::Seconds(2));
}

TEST_F(DecodedMemoryFlagsTest, BadValuesNameTheFlag) {
  absl::SetFlag(&FLAGS_max_picture_pixels, 0);
  EXPECT_THAT(ServerFlagsFromCommandLine().status().message(),
              HasSubstr("--max_picture_pixels: expected 1 to"));
  absl::SetFlag(&FLAGS_max_picture_pixels, kDefaultMaxPicturePixels);
  absl::SetFlag(&FLAGS_decoded_memory_budget, "lots");
  EXPECT_THAT(ServerFlagsFromCommandLine().status().message(),
              HasSubstr("--decoded_memory_budget: expected a positive size"));
  absl::SetFlag(&FLAGS_decoded_memory_budget, "1M");
  EXPECT_THAT(ServerFlagsFromCommandLine().status().message(),
              HasSubstr("--decoded_memory_budget: expected at least 64M"));
  absl::SetFlag(&FLAGS_decoded_memory_budget, "");
  absl::SetFlag(&FLAGS_decoded_memory_wait, absl::Seconds(-1));
  EXPECT_THAT(ServerFlagsFromCommandLine().status().message(),
              HasSubstr("--decoded_memory_wait: must not be negative"));
}

}  // namespace
}  // namespace ssimd
