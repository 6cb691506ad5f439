// Hardware decoding without and with a device. Everywhere: the engines' picture layouts are
// brought back to the software decoder's bytes (checked against libswscale's own conversions),
// and a device that cannot be opened says why. Where a device opens (the GPU machine), every
// picture of every ladder rendition decoded by its engine must equal the CPU's decode byte for
// byte, and a stream its engine refuses must still decode, on the CPU, with the reason; a file
// decoded in segments on several sessions must give the CPU's pictures too.
#include <fcntl.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/device_plane.h"
#include "engine/media/av_handles.h"
#include "engine/media/decode_caps.h"
#include "engine/media/device_picture.h"
#include "engine/media/frame_planes.h"
#include "engine/media/hw_decode_device.h"
#include "engine/media/hw_frame_download.h"
#include "engine/media/segmented_decoding.h"
#include "engine/media/test_media.h"
#include "engine/media/video_decoder.h"
#include "engine/picture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

extern "C" {
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

namespace ssimd {
namespace {

using ::testing::HasSubstr;

AvFramePtr RandomPicture(AVPixelFormat format, int width, int height, uint32_t seed) {
  AvFramePtr frame(av_frame_alloc());
  frame->width = width;
  frame->height = height;
  frame->format = format;
  EXPECT_GE(av_frame_get_buffer(frame.get(), 0), 0);
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
  const int depth = d->comp[0].depth;
  std::mt19937 random(seed);
  for (int plane = 0; plane < 3; ++plane) {
    const int w = plane == 0 ? width : AV_CEIL_RSHIFT(width, d->log2_chroma_w);
    const int h = plane == 0 ? height : AV_CEIL_RSHIFT(height, d->log2_chroma_h);
    for (int y = 0; y < h; ++y) {
      uint8_t* row = frame->data[plane] + static_cast<size_t>(y) * frame->linesize[plane];
      for (int x = 0; x < w; ++x) {
        StoreSample(row, x, depth, random() & ((1u << depth) - 1));
      }
    }
  }
  return frame;
}

// libswscale's conversion of `in` to `format` at the same size (no scaling: a rearrangement).
AvFramePtr Converted(const AVFrame& in, AVPixelFormat format) {
  AvFramePtr out(av_frame_alloc());
  out->width = in.width;
  out->height = in.height;
  out->format = format;
  EXPECT_GE(av_frame_get_buffer(out.get(), 0), 0);
  SwsContextPtr sws(sws_getContext(in.width, in.height, static_cast<AVPixelFormat>(in.format),
                                   in.width, in.height, format, SWS_POINT | SWS_ACCURATE_RND |
                                   SWS_BITEXACT, nullptr, nullptr, nullptr));
  EXPECT_NE(sws, nullptr);
  sws_scale(sws.get(), in.data, in.linesize, 0, in.height, out->data, out->linesize);
  return out;
}

// The engine's layout of `original` built sample by sample: luma and chroma shifted up by
// `shift` bits, chroma interleaved (U, V) where the engine's format is semi-planar.
AvFramePtr EngineLayout(const AVFrame& original, AVPixelFormat engine, int shift) {
  AvFramePtr out(av_frame_alloc());
  out->width = original.width;
  out->height = original.height;
  out->format = engine;
  EXPECT_GE(av_frame_get_buffer(out.get(), 0), 0);
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(original.format));
  const int depth = d->comp[0].depth;
  const bool interleaved = av_pix_fmt_desc_get(engine)->nb_components == 3 &&
                           av_pix_fmt_desc_get(engine)->comp[1].plane == 1 &&
                           av_pix_fmt_desc_get(engine)->comp[2].plane == 1;
  auto get = [&](int plane, int x, int y) {
    return LoadSample(original.data[plane] + static_cast<size_t>(y) * original.linesize[plane], x,
                     depth);
  };
  auto put = [&](int plane, int index, int y, uint32_t v) {
    StoreSample(out->data[plane] + static_cast<size_t>(y) * out->linesize[plane], index, depth,
              v << shift);
  };
  for (int y = 0; y < original.height; ++y) {
    for (int x = 0; x < original.width; ++x) put(0, x, y, get(0, x, y));
  }
  const int cw = AV_CEIL_RSHIFT(original.width, d->log2_chroma_w);
  const int ch = AV_CEIL_RSHIFT(original.height, d->log2_chroma_h);
  for (int y = 0; y < ch; ++y) {
    for (int x = 0; x < cw; ++x) {
      if (interleaved) {
        put(1, 2 * x, y, get(1, x, y));
        put(1, 2 * x + 1, y, get(2, x, y));
      } else {
        put(1, x, y, get(1, x, y));
        put(2, x, y, get(2, x, y));
      }
    }
  }
  return out;
}

TEST(HwFrameDownloadTest, EngineLayoutsComeBackAsTheSoftwareDecodersBytes) {
  struct Case {
    AVPixelFormat software;
    AVPixelFormat engine;
    int shift;
  };
  for (const Case& c : {Case{AV_PIX_FMT_YUV420P, AV_PIX_FMT_NV12, 0},
                        Case{AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_P010LE, 6},
                        Case{AV_PIX_FMT_YUV420P12LE, AV_PIX_FMT_P016LE, 4},
                        Case{AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUV444P, 0},
                        Case{AV_PIX_FMT_YUV444P10LE, AV_PIX_FMT_YUV444P16LE, 6},
                        Case{AV_PIX_FMT_YUV444P12LE, AV_PIX_FMT_YUV444P16LE, 4}}) {
    SCOPED_TRACE(av_get_pix_fmt_name(c.software));
    EXPECT_TRUE(HardwareOutputConvertible(c.software));
    EXPECT_EQ(HardwareSampleShift(c.software, c.engine).value_or(-1), c.shift);
    // Semi-planar layouts keep Cb and Cr in one plane, which a device picture hands out whole.
    const bool semi_planar = c.engine == AV_PIX_FMT_NV12 || c.engine == AV_PIX_FMT_P010LE ||
                             c.engine == AV_PIX_FMT_P016LE;
    EXPECT_EQ(HardwareChromaInterleaved(c.software, c.engine).value_or(!semi_planar),
              semi_planar);
    for (auto [w, h] : {std::pair{64, 36}, std::pair{427, 241}}) {
      AvFramePtr original = RandomPicture(c.software, w, h, static_cast<uint32_t>(w * h));
      AvFramePtr engine = EngineLayout(*original, c.engine, c.shift);
      // The hand-built layout is the format as FFmpeg defines it: libswscale's own conversion
      // agrees where it has an exact one (semi-planar, even sizes).
      if (c.engine == AV_PIX_FMT_NV12 || c.engine == AV_PIX_FMT_P010LE) {
        if (w % 2 == 0 && h % 2 == 0) {
          EXPECT_EQ(PackedPicture(*Converted(*original, c.engine)), PackedPicture(*engine));
        }
      }
      AvFramePtr back(av_frame_alloc());
      absl::Status converted = ConvertHardwareOutput(*engine, c.software, back.get());
      ASSERT_TRUE(converted.ok()) << converted;
      EXPECT_EQ(back->format, c.software);
      EXPECT_TRUE(PackedPicture(*back) == PackedPicture(*original)) << w << "x" << h;
      // The chroma alone, as a picture kept on the device brings it to the host.
      std::string chroma, want;
      ASSERT_TRUE(ConvertHardwareChroma(*engine, c.software, &chroma).ok());
      CopyChroma(*original, &want);
      EXPECT_TRUE(chroma == want) << w << "x" << h;
    }
  }
  EXPECT_FALSE(HardwareOutputConvertible(AV_PIX_FMT_YUV422P));
  EXPECT_FALSE(HardwareOutputConvertible(AV_PIX_FMT_GRAY8));
  AvFramePtr nv12 = Converted(*RandomPicture(AV_PIX_FMT_YUV420P, 32, 32, 1), AV_PIX_FMT_NV12);
  AvFramePtr out(av_frame_alloc());
  EXPECT_EQ(ConvertHardwareOutput(*nv12, AV_PIX_FMT_YUV420P10LE, out.get()).code(),
            absl::StatusCode::kInternal);
  EXPECT_EQ(HardwareChromaInterleaved(AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_NV12).status().code(),
            absl::StatusCode::kInternal);
}

TEST(HwDecodeDeviceTest, BadSettingsAreRefused) {
  EXPECT_EQ(HwDecodeDevice::Open({"nvenc", "", 4}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HwDecodeDevice::Open({"cuda", "", 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeFallbackLabel(DecodeFallback::kSessionsBusy), "sessions_busy");
}

// Every picture of `other` against the CPU decoder's, in order, to both ends: 24 of them (the
// test files' length). `same(cpu_picture, other_picture, index)` compares one pair.
template <typename Source, typename Compare>
void ExpectSamePicturesBy(VideoDecoder& cpu, Source& other, Compare same) {
  int pictures = 0;
  while (true) {
    absl::StatusOr<const AVFrame*> a = cpu.Next();
    absl::StatusOr<const AVFrame*> b = other.Next();
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    ASSERT_EQ(*a == nullptr, *b == nullptr) << "picture " << pictures;
    if (*a == nullptr) break;
    same(**a, **b, pictures);
    if (::testing::Test::HasFatalFailure()) return;
    ++pictures;
  }
  EXPECT_EQ(pictures, 24);
}

// The same with every plane compared, byte for byte.
template <typename Source>
void ExpectSamePictures(VideoDecoder& cpu, Source& other) {
  ExpectSamePicturesBy(cpu, other, [](const AVFrame& a, const AVFrame& b, int index) {
    ASSERT_EQ(PackedPicture(a), PackedPicture(b)) << "picture " << index;
  });
}

// Decodes `file` with and without the engine and compares every picture.
void ExpectSamePicturesAsTheCpu(const std::shared_ptr<HwDecodeDevice>& device,
                                const std::string& file) {
  SCOPED_TRACE(file);
  const std::string path = LadderFile(file);
  auto cpu = VideoDecoder::OpenFd(::open(path.c_str(), O_RDONLY), path, DecodeLimits());
  auto gpu = VideoDecoder::OpenFd(::open(path.c_str(), O_RDONLY), path, DecodeLimits(), device);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  ExpectSamePictures(**cpu, **gpu);
  if (::testing::Test::HasFatalFailure()) return;
  std::cout << file << ": decoded by " << (*gpu)->decode_backend() << ", fallback "
            << DecodeFallbackLabel((*gpu)->decode_fallback()) << "\n";
  EXPECT_EQ((*gpu)->decode_backend() == "cpu",
            (*gpu)->decode_fallback() != DecodeFallback::kNone);
}

// The driver's table, printed for the run's record, must hold what the ladder's files need.
void ExpectDecodeTableListsTheLadder(const HwDecodeDevice& device) {
  const DecodeCaps& caps = device.caps();
  ASSERT_TRUE(caps.known()) << caps.unknown_reason;
  std::cout << device.backend_name() << " decode table (" << caps.engines() << " engines):\n";
  for (const DecodeProfileCaps& p : caps.profiles) {
    std::cout << "  " << p.codec << " " << ChromaText(p.chroma) << " " << p.bit_depth << "-bit "
              << p.min_width << "x" << p.min_height << " to " << p.max_width << "x"
              << p.max_height << ", " << p.max_macroblocks << " macroblocks, " << p.engines
              << " engines\n";
  }
  for (const StreamShape& stream : {StreamShape{"h264", 420, 8, 1920, 1088},
                                    StreamShape{"hevc", 420, 10, 1920, 1088},
                                    StreamShape{"vp9", 420, 8, 960, 544}}) {
    EXPECT_EQ(EngineLimitsRefusal(caps, device.backend_name(), stream), "") << stream.codec;
  }
}

// A table that stops short of 1080p sends the 1080p rendition to the CPU before the engine is
// tried, saying which limit, with the same pictures; the smaller one stays on the engine.
// (SetCapsForTesting between decoders: none is open on the device meanwhile.)
void ExpectStreamsOutsideTheTableDecodeOnTheCpu(const std::shared_ptr<HwDecodeDevice>& device) {
  DecodeCaps tight;
  DecodeProfileCaps h264;
  h264.codec = "h264";
  h264.max_width = 1280;
  h264.max_height = 720;
  tight.Merge(h264);
  const DecodeCaps probed = device->caps();
  device->SetCapsForTesting(tight);
  for (const char* file : {"h264_1920x1080.mp4", "h264_640x360.mp4"}) {
    SCOPED_TRACE(file);
    const std::string path = LadderFile(file);
    auto gpu = VideoDecoder::OpenFd(::open(path.c_str(), O_RDONLY), path, DecodeLimits(), device);
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    absl::StatusOr<const AVFrame*> first = (*gpu)->Next();
    ASSERT_TRUE(first.ok()) << first.status();
    if (std::string(file) == "h264_1920x1080.mp4") {
      EXPECT_EQ((*gpu)->decode_fallback(), DecodeFallback::kEngineLimits);
      EXPECT_EQ((*gpu)->decode_backend(), "cpu");
      EXPECT_THAT((*gpu)->decode_fallback_detail(),
                  HasSubstr("decodes h264 4:2:0 8-bit up to 1280x720; the stream is 1920x10"));
      EXPECT_EQ(device->sessions_in_use(), 0) << "a refused stream gives its session back";
    } else {
      EXPECT_EQ((*gpu)->decode_fallback(), DecodeFallback::kNone);
      EXPECT_EQ((*gpu)->decode_backend(), device->backend_name());
    }
  }
  ExpectSamePicturesAsTheCpu(device, "h264_1920x1080.mp4");
  device->SetCapsForTesting(probed);
}

// One file in segments on several decoder sessions of the engine (docs/adr/0082): every picture
// equals one CPU decoder's, the file is really split, and every session comes back; also with
// one of the three decoders on the CPU beside the engine's two (the file then reports "cpu").
void ExpectSegmentsOnTheEngineAsTheCpuDecodes(const std::shared_ptr<HwDecodeDevice>& device) {
  for (const char* file : {"h264_640x360_g6.mp4", "hevc10_960x540_g6.mkv"}) {
    for (int cpu_decoders : {0, 1}) {
      SCOPED_TRACE(absl::StrCat(file, ", decoders on the CPU: ", cpu_decoders));
      const std::string path = absl::StrCat("tests/data/segments/", file);
      auto cpu = VideoDecoder::OpenFd(::open(path.c_str(), O_RDONLY), path, DecodeLimits());
      ASSERT_TRUE(cpu.ok()) << cpu.status();
      auto first =
          VideoDecoder::OpenFd(::open(path.c_str(), O_RDONLY), path, DecodeLimits(), device);
      ASSERT_TRUE(first.ok()) << first.status();
      std::unique_ptr<VideoDecoder> decoder = *std::move(first);
      SegmentedDecodingOptions options;
      options.decoders = 3;
      options.min_segment_packets = 1;
      options.cpu_decoders = cpu_decoders;
      auto segmented = SegmentedDecoding::Start(decoder, DecodeLimits(), options);
      ASSERT_TRUE(segmented.ok()) << segmented.status();
      ExpectSamePictures(**cpu, **segmented);
      if (::testing::Test::HasFatalFailure()) return;
      EXPECT_EQ((*segmented)->segments(), 4u);
      std::cout << file << " in segments, " << cpu_decoders
                << " decoder(s) on the CPU: decoded by " << (*segmented)->decode_backend()
                << ", fallback "
                << DecodeFallbackLabel((*segmented)->decode_fallback()) << "\n";
      EXPECT_EQ((*segmented)->decode_backend(),
                cpu_decoders == 0 ? device->backend_name() : std::string("cpu"));
      segmented->reset();
      EXPECT_EQ(device->sessions_in_use(), 0);
    }
  }
}

// Pictures left in device memory (docs/adr/0083): complete when handed on, laid out as the
// plane says (pitch, samples high), and their luma copied back equals the CPU decoder's; also
// when several decoders hold pictures ahead in a segmented decode.
void ExpectPicturesKeptOnTheDeviceAsTheCpuDecodes(const std::shared_ptr<HwDecodeDevice>& device) {
  absl::StatusOr<int> picture_device = device->PictureDevice();
  if (device->api() == "vaapi") {
    EXPECT_EQ(picture_device.status().code(), absl::StatusCode::kFailedPrecondition);
    return;
  }
  ASSERT_TRUE(picture_device.ok()) << picture_device.status();
  for (const char* file : {"h264_1920x1080.mp4", "hevc10_1920x1080.mkv", "vp9_960x540.webm",
                           "segments/h264_640x360_g6.mp4"}) {
    SCOPED_TRACE(file);
    const bool segmented = absl::StartsWith(file, "segments/");
    const std::string path =
        segmented ? absl::StrCat("tests/data/", file) : LadderFile(file);
    auto cpu = VideoDecoder::OpenFd(::open(path.c_str(), O_RDONLY), path, DecodeLimits());
    auto gpu = VideoDecoder::OpenFd(::open(path.c_str(), O_RDONLY), path, DecodeLimits(), device);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    VideoDecoder* format_source = gpu->get();
    std::unique_ptr<VideoDecoder> first = *std::move(gpu);
    std::unique_ptr<SegmentedDecoding> pieces;
    if (segmented) {
      SegmentedDecodingOptions options;
      options.decoders = 3;
      options.min_segment_packets = 1;
      auto started = SegmentedDecoding::Start(first, DecodeLimits(), options);
      ASSERT_TRUE(started.ok()) << started.status();
      pieces = *std::move(started);
      pieces->KeepPicturesOnDevice();
    } else {
      first->KeepPicturesOnDevice();
    }
    // Planes are held past the next picture, as a read-ahead does.
    std::vector<std::shared_ptr<const DevicePlane>> held;
    const auto kept_as_the_cpu_decodes = [&](const AVFrame& want, const AVFrame& got, int index) {
      ASSERT_TRUE(IsDeviceFrame(got)) << "picture " << index;
      const AVPixelFormat software = format_source->PictureFormat(got);
      EXPECT_EQ(software, want.format);
      auto plane = MakeDevicePictureLuma(got, software, *picture_device);
      ASSERT_TRUE(plane.ok()) << plane.status();
      const DevicePlaneLayout& layout = (*plane)->layout();
      EXPECT_EQ(layout.device, *picture_device);
      EXPECT_GE(layout.pitch_bytes,
                static_cast<size_t>(layout.width) * (layout.bit_depth > 8 ? 2 : 1));
      EXPECT_EQ(layout.sample_shift, layout.bit_depth == 10 ? 6 : 0);
      std::string want_luma;
      CopyLuma(want, &want_luma);
      std::string got_luma((*plane)->packed_bytes(), '\0');
      ASSERT_TRUE((*plane)->CopyToHost(reinterpret_cast<uint8_t*>(got_luma.data())).ok());
      ASSERT_EQ(got_luma, want_luma) << "picture " << index;
      held.push_back(*std::move(plane));
      if (held.size() > 8) held.erase(held.begin());
    };
    if (pieces != nullptr) {
      ExpectSamePicturesBy(**cpu, *pieces, kept_as_the_cpu_decodes);
    } else {
      ExpectSamePicturesBy(**cpu, *first, kept_as_the_cpu_decodes);
    }
    if (::testing::Test::HasFatalFailure()) return;
    std::cout << file << ": every picture kept on GPU " << *picture_device
              << " equal to the CPU's\n";
  }
  EXPECT_EQ(device->sessions_in_use(), 0);
}

TEST(HwDecodeDeviceTest, EngineDecodesEveryRenditionAsTheCpuDoes) {
  int opened = 0;
  for (const char* api : {"cuda", "vaapi"}) {
    absl::StatusOr<std::shared_ptr<HwDecodeDevice>> device = HwDecodeDevice::Open({api, "", 4});
    if (!device.ok()) {
      EXPECT_EQ(device.status().code(), absl::StatusCode::kUnavailable) << device.status();
      EXPECT_THAT(std::string(device.status().message()), HasSubstr(api));
      std::cout << "no " << api << " device here: " << device.status().message() << "\n";
      continue;
    }
    ++opened;
    EXPECT_FALSE((*device)->Codecs().empty());
    ExpectDecodeTableListsTheLadder(**device);
    for (const char* file :
         {"h264_1920x1080.mp4", "h264_640x360.mp4", "hevc_1280x720.mkv", "vp9_960x540.webm",
          "hevc10_1920x1080.mkv", "hevc10_960x540.mkv"}) {
      ExpectSamePicturesAsTheCpu(*device, file);
    }
    EXPECT_EQ((*device)->sessions_in_use(), 0);
    // NVML reads NVDEC's utilization (the run's record); VA-API has no such query.
    const absl::StatusOr<double> busy = (*device)->EngineUtilization();
    if (std::string(api) == "cuda") {
      ASSERT_TRUE(busy.ok()) << busy.status();
      EXPECT_GE(*busy, 0.0);
      EXPECT_LE(*busy, 1.0);
      std::cout << "decoder utilization after the renditions: " << *busy << "\n";
    } else {
      EXPECT_EQ(busy.status().code(), absl::StatusCode::kUnavailable);
    }
    ExpectStreamsOutsideTheTableDecodeOnTheCpu(*device);
    ExpectSegmentsOnTheEngineAsTheCpuDecodes(*device);
    ExpectPicturesKeptOnTheDeviceAsTheCpuDecodes(*device);
  }
  if (opened == 0) GTEST_SKIP() << "no hardware decoding device here (cuda or vaapi)";
}

}  // namespace
}  // namespace ssimd
