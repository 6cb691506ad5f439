// psnr's chroma through the GPU backend's own code (gpu_chroma.cc, pack_on_device.cc,
// upscale_on_device.cc and the pack, psnr and upscale kernels), run on the host by the HIP
// emulation (kernels/hip_host_emulation.h): the staging, the upload offsets, the packing of
// interleaved device chroma, the upscale's launch and the pitched sums must give the CPU's squared
// errors, exactly. Device runs (gpu_scorer_test, gpu_decoded_planes_test) check the same on real
// hardware.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "engine/device_plane.h"
#include "engine/gpu/gpu_chroma.h"
#include "engine/gpu/stream_slot.h"
#include "engine/gpu/upscale_layout.h"
#include "engine/gpu/upscale_on_device.h"
#include "engine/luma_scale_host.h"
#include "engine/luma_scale_plan.h"
#include "engine/psnr_scores.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

std::vector<uint8_t> Planes(const PlaneSize& size, int bit_depth, uint32_t seed) {
  std::vector<uint8_t> bytes(2 * static_cast<size_t>(size.width) * size.height *
                             BytesPerSample(bit_depth));
  uint32_t state = seed * 2654435761u + 1;
  for (size_t i = 0; i < bytes.size(); ++i) {
    state = state * 1664525u + 1013904223u;
    bytes[i] = static_cast<uint8_t>(state >> 24);
    if (bit_depth > 8 && i % 2 == 1) bytes[i] &= 0x03;
  }
  return bytes;
}

// The distorted chroma (whole planes before their upscale, or at libvmaf's sizes) scaled on the
// host where the plan says so, and each plane's squared errors against the reference: the CPU
// backend's sums.
std::vector<uint64_t> HostSums(const Geometry& g, const FrameChroma& chroma,
                               const LumaScalePlan* upscale) {
  std::vector<uint64_t> sums;
  const PlaneSize stored = StoredChromaSize(g);
  const int sample = BytesPerSample(g.bit_depth);
  std::vector<uint8_t> scaled(2 * static_cast<size_t>(stored.width) * stored.height * sample);
  if (upscale != nullptr) {
    for (int p = 0; p < 2; ++p) {
      ScaleLumaOnHost(*upscale, chroma.distorted[p].data, chroma.distorted[p].stride_bytes,
                      scaled.data() + p * scaled.size() / 2,
                      static_cast<size_t>(stored.width) * sample);
    }
  }
  absl::StatusOr<std::array<LumaView, 2>> views =
      ChromaViews(g, absl::MakeConstSpan(scaled), "scaled");
  EXPECT_TRUE(views.ok()) << views.status();
  for (int p = 0; p < 2; ++p) {
    sums.push_back(ViewSquaredError(chroma.reference[p],
                                    upscale != nullptr ? (*views)[p] : chroma.distorted[p]));
  }
  return sums;
}

// libswscale's bicubic from `small` to `big`, luma and chroma plans.
absl::StatusOr<LumaScalePlan> PlanWithChroma(const Geometry& small, const Geometry& big,
                                             VerticalRounding rounding) {
  const ScalerChoice bicubic{ScalerKind::kBicubic, false};
  absl::StatusOr<LumaScalePlan> plan = PlanLumaScale(
      small.width, small.height, big.width, big.height, big.bit_depth, bicubic, rounding);
  if (!plan.ok()) return plan.status();
  absl::StatusOr<LumaScalePlan> chroma = PlanChromaScale(*plan, big.chroma, bicubic);
  if (!chroma.ok()) return chroma.status();
  plan->chroma = std::make_shared<const LumaScalePlan>(*chroma);
  return plan;
}

std::vector<uint64_t> EmulatedSums(const Geometry& g, const FrameChroma& chroma,
                                   const LumaScalePlan* upscale) {
  std::atomic<int64_t> device_bytes{0};
  absl::StatusOr<std::unique_ptr<StreamSlot>> slot = StreamSlot::Create(0, &device_bytes);
  EXPECT_TRUE(slot.ok()) << slot.status();
  if (!slot.ok()) return {};
  EXPECT_TRUE((*slot)->psnr_sse.Reserve(2 * sizeof(uint64_t), "sums").ok());
  auto* sse = (*slot)->psnr_sse.as<unsigned long long>();  // NOLINT(runtime/int)
  absl::StatusOr<ChromaPlanesRead> uploaded = UploadChroma(**slot, g, chroma, upscale);
  EXPECT_TRUE(uploaded.ok()) << uploaded.status();
  if (uploaded.ok()) {
    EXPECT_EQ(uploaded->on_device, (chroma.reference_on_device != nullptr) +
                                       (chroma.distorted_on_device != nullptr));
    EXPECT_EQ(uploaded->through_host, 0);
  }
  absl::Status summed = EnqueueChromaSums(**slot, g, upscale, sse);
  EXPECT_TRUE(summed.ok()) << summed;
  return {sse[0], sse[1]};
}

// A semi-planar picture's chroma as a video engine leaves it on the device (the emulation's device
// memory is the host's): Cb and Cr interleaved in rows `pitch` bytes apart, 16-bit samples stored
// `shift` bits high, made from packed Cb then Cr planes, which CopyToHost gives back.
class InterleavedChroma final : public DevicePlane {
 public:
  InterleavedChroma(const std::vector<uint8_t>& packed, const PlaneSize& size, int bit_depth,
                    int shift)
      : packed_(packed) {
    const size_t sample = BytesPerSample(bit_depth);
    layout_.device = 0;
    layout_.pitch_bytes = 2 * size.width * sample + 64;
    layout_.width = size.width;
    layout_.height = size.height;
    layout_.bit_depth = bit_depth;
    layout_.sample_shift = shift;
    layout_.interleaved_planes = 2;
    stored_.assign(layout_.pitch_bytes * size.height, 0xee);
    const size_t plane = static_cast<size_t>(size.width) * size.height;
    for (int y = 0; y < size.height; ++y) {
      uint8_t* row = stored_.data() + y * layout_.pitch_bytes;
      for (int x = 0; x < size.width; ++x) {
        for (int p = 0; p < 2; ++p) {
          const uint32_t value =
              LoadSample(packed.data() + p * plane * sample, y * size.width + x, bit_depth);
          StoreSample(row, 2 * x + p, bit_depth, value << shift);
        }
      }
    }
    layout_.data = stored_.data();
  }
  const DevicePlaneLayout& layout() const override { return layout_; }
  absl::Status CopyToHost(uint8_t* out) const override {
    std::copy(packed_.begin(), packed_.end(), out);
    return absl::OkStatus();
  }

 private:
  const std::vector<uint8_t> packed_;
  std::vector<uint8_t> stored_;
  DevicePlaneLayout layout_;
};

// Chroma staged from the host, or read where NVDEC left it (each side's interleaved plane packed
// on the device, cut to libvmaf's sizes, 10- and 12-bit samples shifted down), either side or
// both, with and without the rendition's upscale: the CPU's squared errors, exactly.
TEST(GpuChromaEmulatedTest, StagedOrOnTheDeviceChromaGivesTheCpusSquaredErrors) {
  struct Case {
    int src_width, src_height, dst_width, dst_height, bit_depth, shift;
    VerticalRounding rounding;
  };
  const Case cases[] = {
      {86, 48, 214, 120, 8, 0, VerticalRounding::kPackedWords},
      {85, 49, 193, 109, 8, 0, VerticalRounding::kWide},  // odd sides: psnr reads part of a plane
      {96, 54, 192, 108, 10, 6, VerticalRounding::kWide},
      {97, 55, 193, 109, 12, 4, VerticalRounding::kWide},
  };
  int k = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrFormat("%dx%d -> %dx%d, %d-bit", c.src_width, c.src_height,
                                 c.dst_width, c.dst_height, c.bit_depth));
    const Geometry g{c.dst_width, c.dst_height, c.bit_depth, ChromaFormat::k420};
    const Geometry small{c.src_width, c.src_height, c.bit_depth, ChromaFormat::k420};
    absl::StatusOr<LumaScalePlan> planned = PlanWithChroma(small, g, c.rounding);
    ASSERT_TRUE(planned.ok()) << planned.status();
    const LumaScalePlan& plan = *planned;
    const std::vector<uint8_t> ref = Planes(StoredChromaSize(g), c.bit_depth, 50 + k);
    const std::vector<uint8_t> same_size = Planes(StoredChromaSize(g), c.bit_depth, 60 + k);
    const std::vector<uint8_t> small_planes = Planes(StoredChromaSize(small), c.bit_depth, 70 + k);
    ++k;
    const InterleavedChroma ref_on_device(ref, StoredChromaSize(g), c.bit_depth, c.shift);
    const InterleavedChroma same_on_device(same_size, StoredChromaSize(g), c.bit_depth, c.shift);
    const InterleavedChroma small_on_device(small_planes, StoredChromaSize(small), c.bit_depth,
                                            c.shift);
    FeatureSet features;
    features.psnr = PsnrOptions{};
    const LumaScalePlan* upscales[] = {nullptr, &plan};
    for (const LumaScalePlan* upscale : upscales) {
      const std::vector<uint8_t>& dist = upscale != nullptr ? small_planes : same_size;
      const InterleavedChroma& dist_on_device =
          upscale != nullptr ? small_on_device : same_on_device;
      absl::StatusOr<std::optional<FrameChroma>> staged =
          PairChromaToScore(g, features, absl::MakeConstSpan(ref), absl::MakeConstSpan(dist),
                            "ref", "dist", upscale);
      ASSERT_TRUE(staged.ok() && staged->has_value()) << staged.status();
      const LumaScalePlan* chroma_upscale = upscale != nullptr ? upscale->chroma.get() : nullptr;
      const std::vector<uint64_t> expected = HostSums(g, **staged, chroma_upscale);
      EXPECT_GT(expected[1], 0u);
      const ChromaOnDevice sides[] = {{nullptr, nullptr},
                                      {&ref_on_device, &dist_on_device},
                                      {&ref_on_device, nullptr},
                                      {nullptr, &dist_on_device}};
      for (const ChromaOnDevice& on_device : sides) {
        const absl::Span<const uint8_t> none;
        absl::StatusOr<std::optional<FrameChroma>> chroma = PairChromaToScore(
            g, features, on_device.reference != nullptr ? none : absl::MakeConstSpan(ref),
            on_device.distorted != nullptr ? none : absl::MakeConstSpan(dist), "ref", "dist",
            upscale, on_device);
        ASSERT_TRUE(chroma.ok() && chroma->has_value()) << chroma.status();
        EXPECT_EQ(EmulatedSums(g, **chroma, chroma_upscale), expected)
            << (on_device.reference != nullptr) << (on_device.distorted != nullptr)
            << (upscale != nullptr);
      }
    }
  }
}

// The luma's upscale through the same block layout and launch (the GPU frame stages the plane and
// the filters as here): libswscale's bytes as the host model gives them, 8 and 10 bit.
TEST(GpuChromaEmulatedTest, PlaneUpscaleGivesTheHostModelsBytes) {
  for (int bit_depth : {8, 10}) {
    SCOPED_TRACE(bit_depth);
    absl::StatusOr<LumaScalePlan> plan =
        PlanLumaScale(85, 49, 193, 109, bit_depth, ScalerChoice{ScalerKind::kLanczos, false},
                      bit_depth == 8 ? VerticalRounding::kPackedWords : VerticalRounding::kWide);
    ASSERT_TRUE(plan.ok()) << plan.status();
    const std::vector<uint8_t> small = Planes(PlaneSize{85, 49}, bit_depth, 40 + bit_depth);
    const size_t sample = BytesPerSample(bit_depth);
    std::vector<uint8_t> expected(193 * 109 * sample);
    ScaleLumaOnHost(*plan, small.data(), 85 * sample, expected.data(), 193 * sample);

    const UpscaleLayout layout = LayOutUpscale(*plan, 1);
    std::vector<uint8_t> staged(layout.filters_end);
    std::copy(small.begin(), small.begin() + layout.plane, staged.begin());
    StageUpscaleFilters(*plan, layout, staged.data());
    void* block = nullptr;
    void* scaled = nullptr;
    ASSERT_EQ(hipMalloc(&block, layout.device_bytes), hipSuccess);
    ASSERT_EQ(hipMalloc(&scaled, expected.size()), hipSuccess);
    ASSERT_EQ(hipMemcpy(block, staged.data(), staged.size(), hipMemcpyHostToDevice), hipSuccess);
    hipStream_t stream = nullptr;
    ASSERT_EQ(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), hipSuccess);
    ASSERT_TRUE(EnqueuePlaneUpscale(stream, *plan, layout, static_cast<uint8_t*>(block), 0,
                                    scaled, "luma")
                    .ok());
    std::vector<uint8_t> mine(expected.size());
    ASSERT_EQ(hipMemcpy(mine.data(), scaled, mine.size(), hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_TRUE(mine == expected);
    (void)hipStreamDestroy(stream);
    (void)hipFree(block);
    (void)hipFree(scaled);
  }
}

}  // namespace
}  // namespace ssimd
