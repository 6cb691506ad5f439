#include "engine/media/read_ahead_input.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

// `frames` frames of 64 bytes, each filled with its index; frame `bad` (if any) fails.
class NumberedInput : public VideoInput {
 public:
  NumberedInput(int frames, int bad = -1) : frames_(frames), bad_(bad) {}
  const Geometry& geometry() const override { return geometry_; }
  FrameRate frame_rate() const override { return {25, 1}; }
  const std::string& name() const override { return name_; }
  uint64_t frames_read() const override { return read_; }
  ReadTimes last_read_times() const override { return {double(read_), std::nullopt}; }
  absl::StatusOr<bool> ReadLuma(std::string* luma) override {
    if (read_ == bad_) return absl::InvalidArgumentError("numbered: frame is corrupt");
    if (read_ == frames_) return false;
    luma->assign(64, static_cast<char>(read_));
    ++read_;
    return true;
  }
  // Read by the test while the reading thread writes it.
  std::atomic<int> read_{0};

 protected:
  int frames() const { return frames_; }
  int bad() const { return bad_; }

 private:
  const int frames_;
  const int bad_;
  const std::string name_ = "numbered";
  const Geometry geometry_{8, 8, 8, ChromaFormat::k400};
};

TEST(ReadAheadInputTest, ReturnsEveryFrameInOrderThenTheEndAgainAndAgain) {
  auto inner = std::make_unique<NumberedInput>(40);
  ReadAheadInput input(std::move(inner), 3, nullptr);
  std::string luma;
  for (int i = 0; i < 40; ++i) {
    absl::StatusOr<bool> got = input.ReadLuma(&luma);
    ASSERT_TRUE(got.ok() && *got) << i;
    ASSERT_EQ(luma, std::string(64, static_cast<char>(i)));
    EXPECT_EQ(input.frames_read(), static_cast<uint64_t>(i + 1));
    // The times are those of the frame returned, not of whatever the thread read since.
    EXPECT_EQ(input.last_read_times().decode_seconds, double(i + 1));
  }
  for (int again = 0; again < 3; ++again) {
    absl::StatusOr<bool> got = input.ReadLuma(&luma);
    ASSERT_TRUE(got.ok());
    EXPECT_FALSE(*got);
  }
  EXPECT_EQ(input.frames_read(), 40u);
}

TEST(ReadAheadInputTest, DeliversTheFramesBeforeAnErrorThenTheError) {
  ReadAheadInput input(std::make_unique<NumberedInput>(40, 5), 4, nullptr);
  std::string luma;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(*input.ReadLuma(&luma)) << i;
  for (int again = 0; again < 2; ++again) {
    absl::StatusOr<bool> got = input.ReadLuma(&luma);
    ASSERT_FALSE(got.ok());
    EXPECT_THAT(got.status().message(), HasSubstr("frame is corrupt"));
  }
}

TEST(ReadAheadInputTest, ReadsNoFurtherAheadThanItsDepth) {
  auto owned = std::make_unique<NumberedInput>(1000);
  NumberedInput* inner = owned.get();
  constexpr int kDepth = 3;
  ReadAheadInput input(std::move(owned), kDepth, nullptr);
  std::string luma;
  ASSERT_TRUE(*input.ReadLuma(&luma));
  // The thread fills the queue and then waits; give it time to (wrongly) go on.
  for (int spin = 0; spin < 200 && inner->read_ < 1 + kDepth; ++spin) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // One returned, kDepth waiting.
  EXPECT_EQ(inner->read_, 1 + kDepth);
}

TEST(ReadAheadInputTest, StopsWhenDestroyedWithFramesUnread) {
  // The thread waits for room when the input goes away; a destructor that did not wake it would
  // hang the test until its timeout.
  ReadAheadInput input(std::make_unique<NumberedInput>(1000000), 2, nullptr);
  std::string luma;
  ASSERT_TRUE(*input.ReadLuma(&luma));
  ASSERT_TRUE(*input.ReadLuma(&luma));
}

TEST(ReadAheadInputTest, ReadsIntoBuffersTheCallerGaveBack) {
  auto buffers = std::make_shared<LumaBufferPool>(8);
  ReadAheadInput input(std::make_unique<NumberedInput>(10), 2, buffers);
  std::string luma;
  ASSERT_TRUE(*input.ReadLuma(&luma));
  const char* first = luma.data();
  // The caller hands the first frame's buffer back with its next call; the thread reads a later
  // frame into it.
  bool reused = false;
  for (int i = 1; i < 10; ++i) {
    ASSERT_TRUE(*input.ReadLuma(&luma));
    ASSERT_EQ(luma, std::string(64, static_cast<char>(i)));
    reused = reused || luma.data() == first;
  }
  EXPECT_TRUE(reused);
}

// Frames that can be read in any order, from several threads: frame i is 64 bytes of i, frame
// `bad` fails, and reads take a little while so that the readers overlap.
class PositionalInput : public NumberedInput {
 public:
  using NumberedInput::NumberedInput;
  bool positional() const override { return true; }
  absl::StatusOr<bool> ReadLumaAt(uint64_t index, std::string* luma) const override {
    std::this_thread::sleep_for(std::chrono::microseconds(50 * (index % 3)));
    ++reads_;
    if (static_cast<int>(index) == bad()) return absl::InvalidArgumentError("positional: corrupt");
    if (static_cast<int>(index) >= frames()) return false;
    luma->assign(64, static_cast<char>(index));
    return true;
  }
  mutable std::atomic<int> reads_{0};
};

TEST(ReadAheadInputTest, SeveralReadersOfAPositionalInputReturnItsFramesInOrder) {
  auto owned = std::make_unique<PositionalInput>(300);
  PositionalInput* inner = owned.get();
  // Two frames skipped before the input was wrapped: it starts at frame 2.
  std::string luma;
  ASSERT_TRUE(*inner->ReadLuma(&luma));
  ASSERT_TRUE(*inner->ReadLuma(&luma));
  ReadAheadInput input(std::move(owned), 8, std::make_shared<LumaBufferPool>(16), 4);
  EXPECT_EQ(input.frames_read(), 2u);
  for (int i = 2; i < 300; ++i) {
    absl::StatusOr<bool> got = input.ReadLuma(&luma);
    ASSERT_TRUE(got.ok() && *got) << i;
    ASSERT_EQ(luma, std::string(64, static_cast<char>(i))) << i;
  }
  EXPECT_FALSE(*input.ReadLuma(&luma));
  EXPECT_EQ(input.frames_read(), 300u);
  EXPECT_EQ(inner->read_, 2);  // the in-order reads were only the skipped frames
  EXPECT_GE(inner->reads_, 299);
}

TEST(ReadAheadInputTest, SeveralReadersStopAtTheFirstErrorInOrder) {
  ReadAheadInput input(std::make_unique<PositionalInput>(300, 37), 8, nullptr, 4);
  std::string luma;
  for (int i = 0; i < 37; ++i) ASSERT_TRUE(*input.ReadLuma(&luma)) << i;
  absl::StatusOr<bool> got = input.ReadLuma(&luma);
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(got.status().message(), HasSubstr("positional: corrupt"));
  EXPECT_EQ(input.frames_read(), 37u);
}

TEST(ReadAheadInputTest, PassesTheInnerInputsDescriptionThrough) {
  ReadAheadInput input(std::make_unique<NumberedInput>(1), 2, nullptr);
  EXPECT_EQ(input.name(), "numbered");
  EXPECT_EQ(input.geometry().width, 8);
  EXPECT_EQ(input.frame_rate().num, 25);
}

TEST(ReadAheadDepthTest, HoldsAboutThirtyTwoMebibytesWithinTwoAndSixteenFrames) {
  EXPECT_EQ(ReadAheadDepth(Geometry{1920, 1080, 8, ChromaFormat::k420}), 16u);
  EXPECT_EQ(ReadAheadDepth(Geometry{3840, 2160, 8, ChromaFormat::k420}), 4u);
  EXPECT_EQ(ReadAheadDepth(Geometry{3840, 2160, 10, ChromaFormat::k420}), 2u);
  EXPECT_EQ(ReadAheadDepth(Geometry{8192, 8192, 16, ChromaFormat::k420}), 2u);
  EXPECT_EQ(ReadAheadDepth(Geometry{64, 64, 8, ChromaFormat::k420}), 16u);
}

TEST(LumaBufferPoolTest, KeepsAtMostItsLimitAndNothingEmpty) {
  LumaBufferPool pool(2);
  pool.Give(std::string());
  EXPECT_EQ(pool.kept(), 0u);
  for (int i = 0; i < 5; ++i) pool.Give(std::string(100, 'x'));
  EXPECT_EQ(pool.kept(), 2u);
  EXPECT_EQ(pool.Take().size(), 100u);
  EXPECT_EQ(pool.Take().size(), 100u);
  EXPECT_TRUE(pool.Take().empty());
}

}  // namespace
}  // namespace ssimd
