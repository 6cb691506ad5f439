#include "engine/media/read_ahead_input.h"

#include <fcntl.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/fake_device_plane.h"
#include "engine/luma_scale_host.h"
#include "engine/luma_scale_plan.h"
#include "gmock/gmock.h"
#include "engine/synthetic_picture.h"
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
  absl::StatusOr<bool> Read(Picture* out) override {
    if (read_ == bad_) return absl::InvalidArgumentError("numbered: frame is corrupt");
    if (read_ == frames_) return false;
    out->ResetOnHost(geometry_)->assign(64, static_cast<char>(read_));
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
    absl::StatusOr<bool> got = input.ReadPlanes(&luma);
    ASSERT_TRUE(got.ok() && *got) << i;
    ASSERT_EQ(luma, std::string(64, static_cast<char>(i)));
    EXPECT_EQ(input.frames_read(), static_cast<uint64_t>(i + 1));
    // The times are those of the frame returned, not of whatever the thread read since.
    EXPECT_EQ(input.last_read_times().decode_seconds, double(i + 1));
  }
  for (int again = 0; again < 3; ++again) {
    absl::StatusOr<bool> got = input.ReadPlanes(&luma);
    ASSERT_TRUE(got.ok());
    EXPECT_FALSE(*got);
  }
  EXPECT_EQ(input.frames_read(), 40u);
}

TEST(ReadAheadInputTest, DeliversTheFramesBeforeAnErrorThenTheError) {
  ReadAheadInput input(std::make_unique<NumberedInput>(40, 5), 4, nullptr);
  std::string luma;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(*input.ReadPlanes(&luma)) << i;
  for (int again = 0; again < 2; ++again) {
    absl::StatusOr<bool> got = input.ReadPlanes(&luma);
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
  ASSERT_TRUE(*input.ReadPlanes(&luma));
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
  ASSERT_TRUE(*input.ReadPlanes(&luma));
  ASSERT_TRUE(*input.ReadPlanes(&luma));
}

TEST(ReadAheadInputTest, ReadsIntoBuffersTheCallerGaveBack) {
  auto buffers = std::make_shared<LumaBufferPool>(8);
  ReadAheadInput input(std::make_unique<NumberedInput>(10), 2, buffers);
  std::string luma;
  ASSERT_TRUE(*input.ReadPlanes(&luma));
  const char* first = luma.data();
  // The caller hands the first frame's buffer back with its next call; the thread reads a later
  // frame into it.
  bool reused = false;
  for (int i = 1; i < 10; ++i) {
    ASSERT_TRUE(*input.ReadPlanes(&luma));
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
  absl::StatusOr<bool> ReadPlanesAt(uint64_t index, std::string* luma) const override {
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
  ASSERT_TRUE(*inner->ReadPlanes(&luma));
  ASSERT_TRUE(*inner->ReadPlanes(&luma));
  ReadAheadInput input(std::move(owned), 8, std::make_shared<LumaBufferPool>(16), 4);
  EXPECT_EQ(input.frames_read(), 2u);
  for (int i = 2; i < 300; ++i) {
    absl::StatusOr<bool> got = input.ReadPlanes(&luma);
    ASSERT_TRUE(got.ok() && *got) << i;
    ASSERT_EQ(luma, std::string(64, static_cast<char>(i))) << i;
  }
  EXPECT_FALSE(*input.ReadPlanes(&luma));
  EXPECT_EQ(input.frames_read(), 300u);
  EXPECT_EQ(inner->read_, 2);  // the in-order reads were only the skipped frames
  EXPECT_GE(inner->reads_, 299);
}

TEST(ReadAheadInputTest, SeveralReadersStopAtTheFirstErrorInOrder) {
  ReadAheadInput input(std::make_unique<PositionalInput>(300, 37), 8, nullptr, 4);
  std::string luma;
  for (int i = 0; i < 37; ++i) ASSERT_TRUE(*input.ReadPlanes(&luma)) << i;
  absl::StatusOr<bool> got = input.ReadPlanes(&luma);
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

// Pictures in a GPU's memory with the scorer's upscale pending, as a decoder keeping its pictures
// on the device hands them over: frame i's small picture is filled with i.
class DeviceInput : public VideoInput {
 public:
  DeviceInput(int frames, std::shared_ptr<const LumaScalePlan> plan)
      : frames_(frames), plan_(std::move(plan)) {}
  const Geometry& geometry() const override { return scored_; }
  FrameRate frame_rate() const override { return {25, 1}; }
  const std::string& name() const override { return name_; }
  uint64_t frames_read() const override { return read_; }
  absl::StatusOr<bool> Read(Picture* out) override {
    if (read_ == frames_) return false;
    const Geometry small{plan_->src_width, plan_->src_height, 8, ChromaFormat::k420};
    out->ResetOnDevice(std::make_shared<FakeDevicePlane>(
                           std::string(LumaBytes(small), static_cast<char>(read_)),
                           small.width, small.height, 8),
                       small, plan_);
    ++read_;
    return true;
  }

 private:
  const int frames_;
  const std::shared_ptr<const LumaScalePlan> plan_;
  const std::string name_ = "device";
  const Geometry scored_{48, 40, 8, ChromaFormat::k420};
  int read_ = 0;
};

std::shared_ptr<const LumaScalePlan> Upscale() {
  absl::StatusOr<LumaScalePlan> plan =
      PlanLumaScale(20, 18, 48, 40, 8, ScalerChoice{ScalerKind::kBicubic, false},
                    VerticalRounding::kPackedWords);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? std::make_shared<const LumaScalePlan>(*plan) : nullptr;
}

TEST(ReadAheadInputTest, PassesDevicePicturesAndTheirPendingUpscaleOnAsTheyAre) {
  std::shared_ptr<const LumaScalePlan> plan = Upscale();
  ASSERT_NE(plan, nullptr);
  ReadAheadInput input(std::make_unique<DeviceInput>(5, plan), 2,
                       std::make_shared<LumaBufferPool>(4));
  Picture picture;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(*input.Read(&picture)) << i;
    ASSERT_TRUE(picture.on_device());
    EXPECT_EQ(picture.upscale(), plan.get());
    EXPECT_EQ(picture.geometry().width, 20);
    EXPECT_EQ(picture.scored_geometry().width, 48);
    std::string host(LumaBytes(picture.geometry()), '\0');
    ASSERT_TRUE(picture.device_luma()->CopyToHost(reinterpret_cast<uint8_t*>(host.data())).ok());
    EXPECT_EQ(host, std::string(host.size(), static_cast<char>(i)));
  }
  EXPECT_FALSE(*input.Read(&picture));
}

TEST(ReadAheadInputTest, ReadLumaBringsDevicePicturesToTheHostAtTheScoredSize) {
  std::shared_ptr<const LumaScalePlan> plan = Upscale();
  ASSERT_NE(plan, nullptr);
  ReadAheadInput input(std::make_unique<DeviceInput>(2, plan), 2, nullptr);
  const std::string small(20 * 18, '\1');
  std::string expected(48 * 40, '\0');
  ScaleLumaOnHost(*plan, reinterpret_cast<const uint8_t*>(small.data()), 20,
                  reinterpret_cast<uint8_t*>(expected.data()), 48);
  std::string luma;
  ASSERT_TRUE(*input.ReadPlanes(&luma));
  ASSERT_TRUE(*input.ReadPlanes(&luma));
  EXPECT_EQ(luma, expected);
  EXPECT_FALSE(*input.ReadPlanes(&luma));
}

// `frames` frames of `g`, each plane of each frame its own run of bytes (MarkedFrame).
std::vector<std::string> PlanarFrames(const Geometry& g, int frames) {
  std::vector<std::string> out;
  for (int f = 0; f < frames; ++f) out.push_back(MarkedFrame(g, f));
  return out;
}

std::unique_ptr<VideoInput> OpenFile(const std::string& name, const std::string& bytes,
                                     InputKind kind, const std::optional<Geometry>& geometry) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  auto input = OpenRawInput(::open(path.c_str(), O_RDONLY), name, kind, geometry);
  EXPECT_TRUE(input.ok()) << input.status();
  return input.ok() ? *std::move(input) : nullptr;
}

// The readers of a positional input read by index, past the inner input's own Read: each must
// still give the picture its chroma.
TEST(ReadAheadInputTest, SeveralReadersOfARawFileKeepingChromaReturnWholeFrames) {
  const Geometry g{21, 17, 8, ChromaFormat::k420};
  const std::vector<std::string> frames = PlanarFrames(g, 60);
  std::string file;
  for (const std::string& frame : frames) file += frame;
  std::unique_ptr<VideoInput> raw = OpenFile("chroma.yuv", file, InputKind::kRawYuv, g);
  ASSERT_NE(raw, nullptr);
  ASSERT_TRUE(raw->positional());
  ReadAheadInput input(std::move(raw), 8, std::make_shared<LumaBufferPool>(16), 4);
  EXPECT_FALSE(input.keeps_chroma());
  input.KeepChroma();
  EXPECT_TRUE(input.keeps_chroma());
  const size_t luma = LumaBytes(g);
  Picture picture;
  for (size_t i = 0; i < frames.size(); ++i) {
    ASSERT_TRUE(*input.Read(&picture)) << i;
    ASSERT_TRUE(picture.has_chroma()) << i;
    const std::string bytes(reinterpret_cast<const char*>(picture.host_luma().data()),
                            picture.host_luma().size());
    const std::string chroma(reinterpret_cast<const char*>(picture.host_chroma().data()),
                             picture.host_chroma().size());
    ASSERT_EQ(bytes, frames[i].substr(0, luma)) << i;
    ASSERT_EQ(chroma, frames[i].substr(luma)) << i;
  }
  EXPECT_FALSE(*input.Read(&picture));
}

TEST(ReadAheadInputTest, AnInputReadInOrderKeepsItsChromaBehindTheReadAhead) {
  const Geometry g{4, 2, 10, ChromaFormat::k422};
  const std::vector<std::string> frames = PlanarFrames(g, 3);
  // A frame parameter makes the file one to read in order.
  std::unique_ptr<VideoInput> y4m = OpenFile(
      "chroma.y4m",
      "YUV4MPEG2 W4 H2 F25:1 C422p10\nFRAME Ixyz\n" + frames[0] + "FRAME\n" + frames[1] +
          "FRAME\n" + frames[2],
      InputKind::kY4m, std::nullopt);
  ASSERT_NE(y4m, nullptr);
  ASSERT_FALSE(y4m->positional());
  ReadAheadInput input(std::move(y4m), 2, nullptr);
  input.KeepChroma();
  std::string planes;
  for (size_t i = 0; i < frames.size(); ++i) {
    ASSERT_TRUE(*input.ReadPlanes(&planes)) << i;
    EXPECT_EQ(planes, frames[i]) << i;
  }
  EXPECT_FALSE(*input.ReadPlanes(&planes));
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
