#include "base/status_macros.h"

#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

absl::Status Fails(int* calls) {
  ++*calls;
  return absl::InvalidArgumentError("width: expected 1 to 8192");
}

absl::Status Succeeds(int* calls) {
  ++*calls;
  return absl::OkStatus();
}

absl::Status TwoSteps(int* first, int* second, bool first_fails) {
  SSIMD_RETURN_IF_ERROR(first_fails ? Fails(first) : Succeeds(first));
  SSIMD_RETURN_IF_ERROR(Fails(second));
  return absl::OkStatus();
}

absl::StatusOr<int> Value(bool fail) {
  int calls = 0;
  SSIMD_RETURN_IF_ERROR(fail ? Fails(&calls) : Succeeds(&calls));
  return calls;
}

TEST(ReturnIfError, StopsAtTheFirstErrorAndReturnsIt) {
  int first = 0, second = 0;
  const absl::Status status = TwoSteps(&first, &second, /*first_fails=*/true);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "width: expected 1 to 8192");
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 0);
}

TEST(ReturnIfError, GoesOnAfterOkAndEvaluatesOnce) {
  int first = 0, second = 0;
  EXPECT_FALSE(TwoSteps(&first, &second, /*first_fails=*/false).ok());
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 1);
}

TEST(ReturnIfError, WorksInFunctionsReturningStatusOr) {
  absl::StatusOr<int> ok = Value(false);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 1);
  EXPECT_EQ(Value(true).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ssimd
