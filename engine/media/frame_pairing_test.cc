#include "engine/media/frame_pairing.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

// `frames` frames of 1 byte each, whose value is the frame's index plus `first`.
class CountingInput : public VideoInput {
 public:
  CountingInput(std::string name, int frames, int first = 0)
      : name_(std::move(name)), frames_(frames), first_(first) {}
  const Geometry& geometry() const override { return geometry_; }
  FrameRate frame_rate() const override { return {}; }
  const std::string& name() const override { return name_; }
  uint64_t frames_read() const override { return read_; }
  absl::StatusOr<bool> Read(Picture* out) override {
    if (read_ == static_cast<uint64_t>(frames_)) return false;
    *out->ResetOnHost(geometry_) = std::string(1, static_cast<char>(first_ + read_++));
    return true;
  }

 private:
  const std::string name_;
  const int frames_;
  const int first_;
  uint64_t read_ = 0;
  Geometry geometry_{1, 1, 8, ChromaFormat::k400};
};

// Every pair as "r,d" byte values.
std::vector<std::string> Pairs(FramePairer& pairer, absl::Status* status) {
  std::vector<std::string> out;
  std::string r, d;
  while (true) {
    absl::StatusOr<bool> got = pairer.Next(&r, &d);
    if (!got.ok()) {
      *status = got.status();
      return out;
    }
    if (!*got) return out;
    out.push_back(std::to_string(r[0]) + "," + std::to_string(d[0]));
  }
}

TEST(FramePairingTest, PairsInOrderAfterPerSideOffsets) {
  CountingInput reference("ref", 5);
  CountingInput distorted("dis", 6, 10);
  ASSERT_TRUE(distorted.Skip(2).ok());
  FramePairer pairer(&reference, &distorted, {});
  absl::Status status;
  EXPECT_THAT(Pairs(pairer, &status), ::testing::ElementsAre("0,12", "1,13", "2,14", "3,15"));
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(pairer.unmatched().reference, 1u);
  EXPECT_EQ(pairer.unmatched().distorted, 0u);
}

TEST(FramePairingTest, CountsTheLongerDistortedFilesRest) {
  CountingInput reference("ref", 3);
  CountingInput distorted("dis", 7);
  FramePairer pairer(&reference, &distorted, {});
  absl::Status status;
  EXPECT_EQ(Pairs(pairer, &status).size(), 3u);
  EXPECT_EQ(pairer.unmatched().reference, 0u);
  EXPECT_EQ(pairer.unmatched().distorted, 4u);
}

TEST(FramePairingTest, FrameCountLimitsPairsAndUnmatched) {
  CountingInput reference("ref", 10);
  CountingInput distorted("dis", 4);
  FramePairer pairer(&reference, &distorted, {.frame_count = 6});
  absl::Status status;
  EXPECT_EQ(Pairs(pairer, &status).size(), 4u);
  EXPECT_EQ(pairer.unmatched().reference, 2u);

  CountingInput long_reference("ref", 10);
  CountingInput long_distorted("dis", 10);
  FramePairer limited(&long_reference, &long_distorted, {.frame_count = 6});
  EXPECT_EQ(Pairs(limited, &status).size(), 6u);
  EXPECT_EQ(limited.unmatched().reference, 0u);
  EXPECT_EQ(limited.unmatched().distorted, 0u);
}

TEST(FramePairingTest, RequireEqualLengthRefusesDifferentLengths) {
  CountingInput reference("ref.mkv", 5);
  CountingInput distorted("dis.mp4", 3);
  FramePairer pairer(&reference, &distorted, {.require_equal_length = true});
  absl::Status status;
  EXPECT_EQ(Pairs(pairer, &status).size(), 3u);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("ref.mkv has 5 frames, dis.mp4 has 3"));

  CountingInput same_reference("ref", 4);
  CountingInput same_distorted("dis", 4);
  FramePairer equal(&same_reference, &same_distorted, {.require_equal_length = true});
  absl::Status ok;
  EXPECT_EQ(Pairs(equal, &ok).size(), 4u);
  EXPECT_TRUE(ok.ok()) << ok;
}

TEST(FramePairingTest, SkippingPastTheEndNamesTheFile) {
  CountingInput input("short.mkv", 2);
  absl::Status status = input.Skip(3);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("short.mkv: cannot skip 3 frames"));
}

}  // namespace
}  // namespace ssimd
