#include "engine/input_picture.h"

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "engine/fake_device_plane.h"
#include "engine/luma_scale_host.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

constexpr Geometry kSmall{20, 18, 8, ChromaFormat::k420};

std::string Ramp(size_t bytes) {
  std::string luma(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) luma[i] = static_cast<char>((i * 37) % 251);
  return luma;
}

std::shared_ptr<const LumaScalePlan> Upscale() {
  absl::StatusOr<LumaScalePlan> plan =
      PlanLumaScale(20, 18, 48, 40, 8, ScalerChoice{ScalerKind::kBicubic, false},
                    VerticalRounding::kPackedWords);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? std::make_shared<const LumaScalePlan>(*plan) : nullptr;
}

TEST(InputPictureTest, StartsEmpty) {
  Picture picture;
  EXPECT_TRUE(picture.empty());
  EXPECT_FALSE(picture.on_device());
  EXPECT_FALSE(picture.needs_upscale());
  EXPECT_TRUE(picture.host_luma().empty());
  EXPECT_EQ(picture.LumaPieces().size(), 0u);
}

TEST(InputPictureTest, HostPictureIsReadWhereItLies) {
  const std::string luma = Ramp(LumaBytes(kSmall));
  Picture picture = Picture::OnHost(luma, kSmall);
  EXPECT_FALSE(picture.empty());
  EXPECT_FALSE(picture.on_device());
  EXPECT_EQ(picture.device(), std::nullopt);
  EXPECT_EQ(picture.device_luma(), nullptr);
  EXPECT_EQ(picture.bit_depth(), 8);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(picture.host_luma().data()),
                        picture.host_luma().size()),
            luma);
  const PlanePieces pieces = picture.LumaPieces();
  EXPECT_EQ(pieces.device(), nullptr);
  EXPECT_EQ(pieces.size(), luma.size());
  EXPECT_EQ(picture.scored_geometry().width, kSmall.width);
  EXPECT_TRUE(picture.BringToHost().ok());  // nothing to do
  EXPECT_TRUE(picture.UpscaleOnHost().ok());
  EXPECT_EQ(picture.host_luma().size(), luma.size());
}

TEST(InputPictureTest, DevicePictureIsHandedOnAsItsPlaneWithoutACopy) {
  const std::string luma = Ramp(LumaBytes(kSmall));
  auto plane = std::make_shared<FakeDevicePlane>(luma, kSmall.width, kSmall.height, 8);
  Picture picture = Picture::OnDevice(plane, kSmall);
  EXPECT_TRUE(picture.on_device());
  EXPECT_EQ(picture.device(), -1);
  EXPECT_EQ(picture.device_luma(), plane.get());
  EXPECT_TRUE(picture.host_luma().empty());
  const PlanePieces pieces = picture.LumaPieces();
  EXPECT_EQ(pieces.device(), plane.get());
  EXPECT_EQ(pieces.size(), luma.size());
  EXPECT_EQ(plane->copies, 0);
}

TEST(InputPictureTest, BringToHostCopiesADevicePictureOnce) {
  const std::string luma = Ramp(LumaBytes(kSmall));
  auto plane = std::make_shared<FakeDevicePlane>(luma, kSmall.width, kSmall.height, 8);
  Picture picture = Picture::OnDevice(plane, kSmall);
  ASSERT_TRUE(picture.BringToHost().ok());
  EXPECT_FALSE(picture.on_device());
  EXPECT_EQ(plane->copies, 1);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(picture.host_luma().data()),
                        picture.host_luma().size()),
            luma);
  EXPECT_EQ(plane.use_count(), 1);  // the picture no longer holds the device's memory
}

TEST(InputPictureTest, BringToHostPassesACopyErrorOnAndStaysOnTheDevice) {
  auto plane = std::make_shared<FakeDevicePlane>(Ramp(LumaBytes(kSmall)), kSmall.width,
                                                 kSmall.height, 8,
                                                 absl::UnavailableError("device lost"));
  Picture picture = Picture::OnDevice(plane, kSmall);
  absl::Status status = picture.BringToHost();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(picture.on_device());
}

TEST(InputPictureTest, PendingUpscaleTravelsWithThePictureAndSaysTheScoredSize) {
  std::shared_ptr<const LumaScalePlan> plan = Upscale();
  ASSERT_NE(plan, nullptr);
  Picture picture = Picture::OnHost(Ramp(LumaBytes(kSmall)), kSmall, plan);
  EXPECT_TRUE(picture.needs_upscale());
  EXPECT_EQ(picture.upscale(), plan.get());
  EXPECT_EQ(picture.geometry().width, 20);
  EXPECT_EQ(picture.scored_geometry().width, 48);
  EXPECT_EQ(picture.scored_geometry().height, 40);
  EXPECT_EQ(picture.scored_geometry().chroma, kSmall.chroma);
}

TEST(InputPictureTest, UpscaleOnHostGivesTheHostModelsBytes) {
  std::shared_ptr<const LumaScalePlan> plan = Upscale();
  ASSERT_NE(plan, nullptr);
  const std::string small = Ramp(LumaBytes(kSmall));
  std::string expected(48 * 40, '\0');
  ScaleLumaOnHost(*plan, reinterpret_cast<const uint8_t*>(small.data()), 20,
                  reinterpret_cast<uint8_t*>(expected.data()), 48);
  Picture picture = Picture::OnHost(small, kSmall, plan);
  ASSERT_TRUE(picture.UpscaleOnHost().ok());
  EXPECT_FALSE(picture.needs_upscale());
  EXPECT_EQ(picture.geometry().width, 48);
  EXPECT_EQ(picture.geometry().height, 40);
  EXPECT_EQ(picture.TakeBuffer(), expected);
}

TEST(InputPictureTest, UpscaleOnHostRefusesADevicePictureAndBytesThatDoNotFit) {
  std::shared_ptr<const LumaScalePlan> plan = Upscale();
  ASSERT_NE(plan, nullptr);
  auto plane = std::make_shared<FakeDevicePlane>(Ramp(LumaBytes(kSmall)), 20, 18, 8);
  Picture on_device = Picture::OnDevice(plane, kSmall, plan);
  EXPECT_EQ(on_device.UpscaleOnHost().code(), absl::StatusCode::kFailedPrecondition);
  Picture short_one = Picture::OnHost(std::string(10, 'x'), kSmall, plan);
  EXPECT_EQ(short_one.UpscaleOnHost().code(), absl::StatusCode::kInternal);
}

TEST(InputPictureTest, BuffersAreReusedAcrossPictures) {
  Picture picture;
  std::string recycled(LumaBytes(kSmall), 'x');
  const char* storage = recycled.data();
  picture.AdoptBuffer(std::move(recycled));
  EXPECT_TRUE(picture.empty());  // a buffer is not a picture
  std::string* luma = picture.ResetOnHost(kSmall);
  EXPECT_EQ(luma->data(), storage);
  // A device picture keeps the buffer aside, and gives it back for recycling.
  picture.ResetOnDevice(
      std::make_shared<FakeDevicePlane>(Ramp(LumaBytes(kSmall)), 20, 18, 8), kSmall);
  std::string taken = picture.TakeBuffer();
  EXPECT_EQ(taken.data(), storage);
  EXPECT_TRUE(picture.empty());
  EXPECT_EQ(picture.device_luma(), nullptr);
}

std::string AsString(absl::Span<const uint8_t> bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// Odd sides: the chroma planes are rounded up (11x9 each), as a raw .yuv file stores them.
constexpr Geometry kOdd10{21, 17, 10, ChromaFormat::k420};

TEST(InputPictureTest, HostPictureWithChromaSplitsItsBufferAtTheLuma) {
  const std::string frame = Ramp(FrameBytes(kOdd10));
  const size_t luma_bytes = LumaBytes(kOdd10);
  Picture picture;
  *picture.ResetOnHostPlanes(kOdd10, true) = frame;
  EXPECT_TRUE(picture.has_chroma());
  EXPECT_FALSE(picture.on_device());
  EXPECT_EQ(AsString(picture.host_luma()), frame.substr(0, luma_bytes));
  EXPECT_EQ(AsString(picture.host_chroma()), frame.substr(luma_bytes));
  EXPECT_EQ(picture.host_chroma().size(), 2u * 11 * 9 * 2);
  // The scorer reads the luma alone.
  EXPECT_EQ(picture.LumaPieces().size(), luma_bytes);
  EXPECT_TRUE(picture.BringToHost().ok());  // nothing to do
  EXPECT_EQ(picture.TakeBuffer(), frame);
  EXPECT_FALSE(picture.has_chroma());
  EXPECT_TRUE(picture.host_chroma().empty());
}

TEST(InputPictureTest, DevicePictureWithChromaHoldsOnlyItsChromaOnTheHost) {
  const std::string frame = Ramp(FrameBytes(kOdd10));
  const std::string luma = frame.substr(0, LumaBytes(kOdd10));
  const std::string chroma = frame.substr(luma.size());
  auto plane = std::make_shared<FakeDevicePlane>(luma, kOdd10.width, kOdd10.height, 10);
  Picture picture;
  *picture.ResetOnDeviceWithHostChroma(plane, kOdd10) = chroma;
  EXPECT_TRUE(picture.on_device());
  EXPECT_TRUE(picture.has_chroma());
  EXPECT_TRUE(picture.host_luma().empty());
  EXPECT_EQ(AsString(picture.host_chroma()), chroma);
  EXPECT_EQ(picture.LumaPieces().device(), plane.get());
  EXPECT_EQ(plane->copies, 0);
}

// A reader of host bytes (VideoInput::ReadPlanes) takes the raw .yuv layout: luma first.
TEST(InputPictureTest, BringToHostPutsADevicePicturesLumaBeforeItsChroma) {
  const std::string frame = Ramp(FrameBytes(kOdd10));
  const std::string luma = frame.substr(0, LumaBytes(kOdd10));
  auto plane = std::make_shared<FakeDevicePlane>(luma, kOdd10.width, kOdd10.height, 10);
  Picture picture;
  *picture.ResetOnDeviceWithHostChroma(plane, kOdd10) = frame.substr(luma.size());
  ASSERT_TRUE(picture.BringToHost().ok());
  EXPECT_FALSE(picture.on_device());
  EXPECT_TRUE(picture.has_chroma());
  EXPECT_EQ(plane->copies, 1);
  EXPECT_EQ(AsString(picture.host_luma()), luma);
  EXPECT_EQ(AsString(picture.host_chroma()), frame.substr(luma.size()));
  EXPECT_EQ(picture.TakeBuffer(), frame);
}

TEST(InputPictureTest, AFailedCopyLeavesADevicePictureWithItsChroma) {
  const std::string frame = Ramp(FrameBytes(kOdd10));
  const std::string luma = frame.substr(0, LumaBytes(kOdd10));
  auto plane = std::make_shared<FakeDevicePlane>(luma, kOdd10.width, kOdd10.height, 10,
                                                 absl::UnavailableError("copy failed"));
  Picture picture;
  *picture.ResetOnDeviceWithHostChroma(plane, kOdd10) = frame.substr(luma.size());
  EXPECT_EQ(picture.BringToHost().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(picture.on_device());
  EXPECT_EQ(AsString(picture.host_chroma()), frame.substr(luma.size()));
}

// NVDEC's semi-planar pictures keep their chroma beside the luma on the device; a reader of host
// bytes gets both in the raw .yuv layout, the chroma planes as the plane's host copy gives them.
TEST(InputPictureTest, ChromaOnTheDeviceComesToTheHostAfterTheLuma) {
  const std::string frame = Ramp(FrameBytes(kOdd10));
  const std::string luma = frame.substr(0, LumaBytes(kOdd10));
  const PlaneSize stored = StoredChromaSize(kOdd10);
  auto luma_plane = std::make_shared<FakeDevicePlane>(luma, kOdd10.width, kOdd10.height, 10);
  auto chroma_plane =
      std::make_shared<FakeDevicePlane>(frame.substr(luma.size()), stored.width, stored.height, 10);
  chroma_plane->set_interleaved_planes(2);
  EXPECT_EQ(chroma_plane->packed_bytes(), frame.size() - luma.size());
  Picture picture;
  picture.ResetOnDeviceWithChroma(luma_plane, chroma_plane, kOdd10);
  EXPECT_TRUE(picture.on_device());
  EXPECT_TRUE(picture.has_chroma());
  EXPECT_TRUE(picture.host_chroma().empty());
  EXPECT_EQ(picture.device_chroma(), chroma_plane.get());
  ASSERT_TRUE(picture.BringToHost().ok());
  EXPECT_EQ(luma_plane->copies, 1);
  EXPECT_EQ(chroma_plane->copies, 1);
  EXPECT_EQ(picture.device_chroma(), nullptr);
  EXPECT_EQ(AsString(picture.host_chroma()), frame.substr(luma.size()));
  EXPECT_EQ(picture.TakeBuffer(), frame);
}

TEST(InputPictureTest, AFailedChromaCopyLeavesBothPlanesOnTheDevice) {
  const std::string frame = Ramp(FrameBytes(kOdd10));
  const std::string luma = frame.substr(0, LumaBytes(kOdd10));
  const PlaneSize stored = StoredChromaSize(kOdd10);
  auto luma_plane = std::make_shared<FakeDevicePlane>(luma, kOdd10.width, kOdd10.height, 10);
  auto chroma_plane = std::make_shared<FakeDevicePlane>(
      frame.substr(luma.size()), stored.width, stored.height, 10,
      absl::UnavailableError("copy failed"));
  chroma_plane->set_interleaved_planes(2);
  Picture picture;
  picture.ResetOnDeviceWithChroma(luma_plane, chroma_plane, kOdd10);
  EXPECT_EQ(picture.BringToHost().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(picture.on_device());
  EXPECT_EQ(picture.device_chroma(), chroma_plane.get());
  // Reset without chroma, the picture forgets the device chroma.
  picture.ResetOnDevice(luma_plane, kOdd10);
  EXPECT_FALSE(picture.has_chroma());
  EXPECT_EQ(picture.device_chroma(), nullptr);
}

TEST(InputPictureTest, MonochromePicturesHaveNoChromaToCarry) {
  const Geometry mono{20, 18, 8, ChromaFormat::k400};
  const std::string luma = Ramp(LumaBytes(mono));
  Picture picture;
  *picture.ResetOnHostPlanes(mono, true) = luma;
  EXPECT_FALSE(picture.has_chroma());
  EXPECT_EQ(AsString(picture.host_luma()), luma);
  EXPECT_TRUE(picture.host_chroma().empty());
  auto plane = std::make_shared<FakeDevicePlane>(luma, mono.width, mono.height, 8);
  picture.ResetOnDeviceWithHostChroma(plane, mono);
  EXPECT_FALSE(picture.has_chroma());
  ASSERT_TRUE(picture.BringToHost().ok());
  EXPECT_EQ(picture.TakeBuffer(), luma);
}

// Buffers are recycled between pictures with and without chroma (LumaBufferPool): a picture
// reset without chroma reads its whole buffer as luma again.
TEST(InputPictureTest, ResettingWithoutChromaForgetsTheChroma) {
  Picture picture;
  *picture.ResetOnHostPlanes(kSmall, true) = Ramp(FrameBytes(kSmall));
  ASSERT_TRUE(picture.has_chroma());
  const std::string luma = Ramp(LumaBytes(kSmall));
  *picture.ResetOnHost(kSmall) = luma;
  EXPECT_FALSE(picture.has_chroma());
  EXPECT_TRUE(picture.host_chroma().empty());
  EXPECT_EQ(AsString(picture.host_luma()), luma);

  picture.ResetOnDeviceWithHostChroma(
      std::make_shared<FakeDevicePlane>(luma, kSmall.width, kSmall.height, 8), kSmall);
  ASSERT_TRUE(picture.has_chroma());
  picture.ResetOnDevice(
      std::make_shared<FakeDevicePlane>(luma, kSmall.width, kSmall.height, 8), kSmall);
  EXPECT_FALSE(picture.has_chroma());
  ASSERT_TRUE(picture.BringToHost().ok());
  EXPECT_EQ(picture.TakeBuffer(), luma);
}

// A device picture with its chroma on the host and an upscale pending (an NVDEC rendition whose
// chroma psnr reads): a reader of host bytes gets the luma and chroma scaled by the plan and its
// chroma plan, in the raw .yuv layout at the scored size.
TEST(InputPictureTest, ADevicePictureWithChromaIsUpscaledWholeOnTheHost) {
  std::shared_ptr<const LumaScalePlan> luma_plan = Upscale();
  ASSERT_NE(luma_plan, nullptr);
  absl::StatusOr<LumaScalePlan> chroma_plan =
      PlanChromaScale(*luma_plan, ChromaFormat::k444, ScalerChoice{ScalerKind::kBicubic, false});
  ASSERT_TRUE(chroma_plan.ok()) << chroma_plan.status();
  LumaScalePlan with_chroma = *luma_plan;
  with_chroma.chroma = std::make_shared<const LumaScalePlan>(*chroma_plan);
  const auto plan = std::make_shared<const LumaScalePlan>(with_chroma);
  const Geometry small{20, 18, 8, ChromaFormat::k444};
  const std::string frame = Ramp(FrameBytes(small));
  const std::string luma = frame.substr(0, LumaBytes(small));
  auto plane = std::make_shared<FakeDevicePlane>(luma, small.width, small.height, 8);
  Picture picture;
  *picture.ResetOnDeviceWithHostChroma(plane, small, plan) = frame.substr(luma.size());
  EXPECT_TRUE(picture.needs_upscale());
  EXPECT_EQ(picture.host_chroma().size(), frame.size() - luma.size());
  ASSERT_TRUE(picture.BringToHost().ok());
  ASSERT_TRUE(picture.UpscaleOnHost().ok());
  EXPECT_FALSE(picture.needs_upscale());
  EXPECT_EQ(picture.geometry().width, 48);
  std::string expected;
  ASSERT_TRUE(ScalePackedPictureOnHost(
                  *plan, small, true,
                  absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(frame.data()),
                                      frame.size()),
                  expected)
                  .ok());
  EXPECT_EQ(expected.size(), 3u * 48 * 40);
  EXPECT_EQ(picture.TakeBuffer(), expected);
}

}  // namespace
}  // namespace ssimd
