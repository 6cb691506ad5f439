#include "base/prefixed_status.h"

#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(PrefixedStatusTest, KeepsCodeAndPayloads) {
  absl::Status status = absl::ResourceExhaustedError("too big");
  status.SetPayload("type.example/kind", absl::Cord("over_limits"));
  const absl::Status prefixed = PrefixedStatus(status, "renditions[2].path: ");
  EXPECT_EQ(prefixed.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(prefixed.message(), "renditions[2].path: too big");
  EXPECT_EQ(prefixed.GetPayload("type.example/kind"), absl::Cord("over_limits"));
}

TEST(PrefixedStatusTest, OkStaysOk) { EXPECT_TRUE(PrefixedStatus(absl::OkStatus(), "x: ").ok()); }

}  // namespace
}  // namespace ssimd
