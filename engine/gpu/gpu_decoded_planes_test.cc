// Pictures NVDEC decoded, scored where they lie (docs/adr/0083): the GPU backend packs a plane
// from the decoder's surface (pitch, 10-bit samples stored high) or upscales it from there, and
// every score must equal the score of the same pictures decoded on the CPU and uploaded. Needs a
// CUDA decoding device and a GPU; skips, saying so, elsewhere.
#include <fcntl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/features.h"
#include "engine/gpu/gpu_scorer.h"
#include "engine/input_picture.h"
#include "engine/media/hw_decode_device.h"
#include "engine/media/test_media.h"
#include "engine/media/video_input.h"
#include "engine/plane_pieces.h"
#include "engine/psnr_scores.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

struct Case {
  const char* reference;
  const char* distorted;
  int distorted_skip;  // pairs a reference picture with a later distorted one
};

std::unique_ptr<DecodedInput> Open(const char* file,
                                   const std::shared_ptr<HwDecodeDevice>& device) {
  const std::string path = LadderFile(file);
  auto input = DecodedInput::Open(::open(path.c_str(), O_RDONLY), path, DecodeLimits(), device);
  EXPECT_TRUE(input.ok()) << input.status();
  return input.ok() ? *std::move(input) : nullptr;
}

// One side of the comparison: both files decoded on the engine with pictures kept on the
// device, or both on the CPU; the distorted one fitted to the reference with the scorer's upscale.
struct Pair {
  std::unique_ptr<DecodedInput> reference;
  std::unique_ptr<DecodedInput> distorted;
};

Pair OpenPair(const Case& c, const std::shared_ptr<HwDecodeDevice>& device,
              bool with_chroma = false) {
  Pair pair{Open(c.reference, device), Open(c.distorted, device)};
  if (pair.reference == nullptr || pair.distorted == nullptr) return Pair();
  if (with_chroma) {
    pair.reference->KeepChroma();
    pair.distorted->KeepChroma();
  }
  EXPECT_TRUE(FitToReference(*pair.reference, "reference", *pair.distorted, "distorted",
                             ScalerChoice())
                  .ok());
  pair.distorted->UpscaleOnScorer();  // none where the sizes are equal
  if (device != nullptr) {
    pair.reference->KeepPicturesOnDevice();
    pair.distorted->KeepPicturesOnDevice();
  }
  EXPECT_TRUE(pair.distorted->Skip(c.distorted_skip).ok());
  return pair;
}

// Every frame of `c`, decoded on the engine with pictures kept on the device and on the CPU,
// scored both ways with `features` by `gpu`: every score must be equal. With `with_chroma`, both
// sides keep their chroma and the features' chroma is scored too. Counts the frames.
void CompareFrames(const Case& c, const std::shared_ptr<HwDecodeDevice>& device, GpuScorer& gpu,
                   const FeatureSet& features, bool with_chroma, int* frames) {
  Pair kept = OpenPair(c, device, with_chroma);
  Pair cpu = OpenPair(c, nullptr, with_chroma);
  ASSERT_NE(kept.reference, nullptr);
  ASSERT_NE(cpu.reference, nullptr);
  const Geometry geometry = kept.reference->geometry();
  for (*frames = 0;; ++*frames) {
    SCOPED_TRACE(absl::StrCat("frame ", *frames));
    Picture kept_ref, kept_dis, cpu_ref, cpu_dis;
    auto a = kept.reference->Read(&kept_ref);
    auto b = kept.distorted->Read(&kept_dis);
    auto c_ref = cpu.reference->Read(&cpu_ref);
    auto c_dis = cpu.distorted->Read(&cpu_dis);
    ASSERT_TRUE(a.ok() && b.ok() && c_ref.ok() && c_dis.ok());
    if (!*a || !*b) return;
    ASSERT_TRUE(kept_ref.on_device());
    ASSERT_TRUE(kept_dis.on_device());
    ASSERT_FALSE(cpu_ref.on_device());
    ASSERT_EQ(kept_dis.needs_upscale(), cpu_dis.needs_upscale());
    std::optional<FrameChroma> kept_chroma, cpu_chroma;
    if (with_chroma) {
      ASSERT_NE(kept_ref.device_chroma(), nullptr);
      ASSERT_NE(kept_dis.device_chroma(), nullptr);
      ASSERT_FALSE(cpu_ref.host_chroma().empty());
      auto on_device = PairChromaToScore(
          geometry, features, {}, {}, "reference", "distorted", kept_dis.upscale(),
          ChromaOnDevice{kept_ref.device_chroma(), kept_dis.device_chroma()});
      auto on_host = PairChromaToScore(geometry, features, cpu_ref.host_chroma(),
                                       cpu_dis.host_chroma(), "reference", "distorted",
                                       cpu_dis.upscale());
      ASSERT_TRUE(on_device.ok() && on_device->has_value()) << on_device.status();
      ASSERT_TRUE(on_host.ok() && on_host->has_value()) << on_host.status();
      kept_chroma = **on_device;
      cpu_chroma = **on_host;
    }
    const PlanePieces kr = kept_ref.LumaPieces(), kd = kept_dis.LumaPieces();
    const PlanePieces cr = cpu_ref.LumaPieces(), cd = cpu_dis.LumaPieces();
    auto on_device = gpu.ScorePieces(
        geometry, features,
        {&kr, &kd, kept_dis.upscale(), kept_chroma.has_value() ? &*kept_chroma : nullptr});
    auto uploaded = gpu.ScorePieces(
        geometry, features,
        {&cr, &cd, cpu_dis.upscale(), cpu_chroma.has_value() ? &*cpu_chroma : nullptr});
    ASSERT_TRUE(on_device.ok()) << on_device.status();
    ASSERT_TRUE(uploaded.ok()) << uploaded.status();
    ASSERT_EQ(on_device->scores, uploaded->scores);
    if (with_chroma) {
      ASSERT_EQ(on_device->scores.count("psnr_cr"), 1u);
    }
  }
}

TEST(GpuDecodedPlanesTest, PlanesReadWhereTheEngineLeftThemScoreAsUploadedCpuPictures) {
  absl::StatusOr<std::shared_ptr<HwDecodeDevice>> device = HwDecodeDevice::Open({"cuda", "", 8});
  if (!device.ok()) GTEST_SKIP() << "no NVDEC device here: " << device.status().message();
  absl::StatusOr<std::unique_ptr<GpuScorer>> gpu = MakeGpuScorer();
  if (!gpu.ok()) GTEST_SKIP() << "no GPU scorer here: " << gpu.status().message();
  ASSERT_TRUE((*device)->PictureDevice().ok()) << (*device)->PictureDevice().status();
  absl::StatusOr<FeatureSet> features = ParseFeatureArgs({"float_ssim", "ssim"});
  ASSERT_TRUE(features.ok()) << features.status();

  const Case cases[] = {
      {"h264_1920x1080.mp4", "h264_1920x1080.mp4", 1},  // packed from the surface
      {"h264_1920x1080.mp4", "hevc_1280x720.mkv", 0},   // upscaled on the device
      {"hevc10_1920x1080.mkv", "hevc10_960x540.mkv", 0},  // 10-bit, samples stored high
      {"h264_1920x1080.mp4", "vp9_960x540.webm", 0},
  };
  int64_t planes_on_device = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat(c.reference, " against ", c.distorted));
    int frames = 0;
    CompareFrames(c, *device, **gpu, *features, false, &frames);
    EXPECT_GT(frames, 0);
    planes_on_device += 2 * frames;
    std::cout << c.reference << " against " << c.distorted << ": " << frames
              << " frames, every score equal from device planes and from uploads\n";
  }
  int64_t counted = 0;
  for (const GpuDeviceStats& stats : (*gpu)->Stats()) counted += stats.planes_read_on_device;
  EXPECT_EQ(counted, planes_on_device);
}

// psnr's chroma read where the engine left it: each picture's interleaved Cb and Cr plane packed
// on the device (and a rendition's upscaled there), every score equal to the CPU-decoded
// pictures' uploaded chroma.
TEST(GpuDecodedPlanesTest, ChromaReadWhereTheEngineLeftItScoresAsUploadedCpuChroma) {
  absl::StatusOr<std::shared_ptr<HwDecodeDevice>> device = HwDecodeDevice::Open({"cuda", "", 8});
  if (!device.ok()) GTEST_SKIP() << "no NVDEC device here: " << device.status().message();
  absl::StatusOr<std::unique_ptr<GpuScorer>> gpu = MakeGpuScorer();
  if (!gpu.ok()) GTEST_SKIP() << "no GPU scorer here: " << gpu.status().message();
  absl::StatusOr<FeatureSet> features = ParseFeatureArgs({"psnr=enable_mse=true", "float_ssim"});
  ASSERT_TRUE(features.ok()) << features.status();

  const Case cases[] = {
      {"h264_1920x1080.mp4", "h264_1920x1080.mp4", 1},
      {"h264_1920x1080.mp4", "h264_426x240.mp4", 0},    // odd chroma upscale from 213x120
      {"hevc10_1920x1080.mkv", "hevc10_960x540.mkv", 0},  // 10-bit, samples stored high
  };
  int64_t planes_on_device = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat(c.reference, " against ", c.distorted));
    int frames = 0;
    CompareFrames(c, *device, **gpu, *features, true, &frames);
    EXPECT_GT(frames, 0);
    planes_on_device += 4 * frames;  // both sides' luma and interleaved chroma
    std::cout << c.reference << " against " << c.distorted << ": " << frames
              << " frames, psnr's chroma equal from device planes and from uploads\n";
  }
  int64_t counted = 0;
  for (const GpuDeviceStats& stats : (*gpu)->Stats()) counted += stats.planes_read_on_device;
  EXPECT_EQ(counted, planes_on_device);
}

}  // namespace
}  // namespace ssimd
