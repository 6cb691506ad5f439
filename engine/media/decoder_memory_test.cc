#include "engine/media/decoder_memory.h"

#include <memory>
#include <string>
#include <vector>

#include "engine/media/test_media.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

extern "C" {
#include <libavformat/avformat.h>
}

namespace ssimd {
namespace {

using ::testing::HasSubstr;

const AVCodec& Decoder(AVCodecID id) {
  const AVCodec* codec = avcodec_find_decoder(id);
  EXPECT_NE(codec, nullptr);
  return *codec;
}

// A ladder file decoded straight through libavcodec with the guard as get_buffer2, the way
// VideoDecoder installs it, keeping up to `keep` decoded pictures referenced at once.
struct GuardedDecode {
  int frames = 0;
  int most_alive = 0;
  int error = 0;  // the first libavcodec error, 0 when the whole file decoded
};

GuardedDecode DecodeWithGuard(const std::string& name, PictureAllocationGuard& guard,
                              size_t keep) {
  GuardedDecode out;
  const std::string path = LadderFile(name);
  AVFormatContext* format = nullptr;
  EXPECT_EQ(avformat_open_input(&format, path.c_str(), nullptr, nullptr), 0) << path;
  EXPECT_GE(avformat_find_stream_info(format, nullptr), 0);
  const int stream = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  EXPECT_GE(stream, 0);
  const AVCodecParameters* par = format->streams[stream]->codecpar;
  AVCodecContext* codec = avcodec_alloc_context3(&Decoder(par->codec_id));
  avcodec_parameters_to_context(codec, par);
  codec->opaque = &guard;
  codec->thread_count = 1;
  codec->get_buffer2 = [](AVCodecContext* c, AVFrame* frame, int flags) {
    return static_cast<PictureAllocationGuard*>(c->opaque)->GetBuffer(c, frame, flags);
  };
  EXPECT_EQ(avcodec_open2(codec, codec->codec, nullptr), 0);
  std::vector<AVFrame*> kept;
  AVPacket* packet = av_packet_alloc();
  AVFrame* frame = av_frame_alloc();
  auto drain = [&]() {
    while (true) {
      const int rc = avcodec_receive_frame(codec, frame);
      if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return 0;
      if (rc < 0) return rc;
      ++out.frames;
      out.most_alive = std::max(out.most_alive, guard.alive());
      kept.push_back(av_frame_clone(frame));
      av_frame_unref(frame);
      if (kept.size() > keep) {
        av_frame_free(&kept.front());
        kept.erase(kept.begin());
      }
    }
  };
  while (out.error == 0 && av_read_frame(format, packet) >= 0) {
    if (packet->stream_index == stream) {
      const int rc = avcodec_send_packet(codec, packet);
      if (rc < 0) out.error = rc;
      if (out.error == 0) out.error = drain();
    }
    av_packet_unref(packet);
  }
  if (out.error == 0) {
    avcodec_send_packet(codec, nullptr);
    out.error = drain();
  }
  for (AVFrame*& held : kept) av_frame_free(&held);
  av_frame_free(&frame);
  av_packet_free(&packet);
  avcodec_free_context(&codec);
  avformat_close_input(&format);
  return out;
}

TEST(DecoderMemoryTest, PaddedSizesCoverTheCodedSize) {
  // 1080 lines are coded as 1088 (H.264 macroblocks) or 1152 (64-sample HEVC blocks).
  EXPECT_EQ(PaddedPixels(1920, 1080), int64_t{(1920 + 64)} * (1088 + 64));
  EXPECT_GE(PaddedPixels(1920, 1080), int64_t{1920} * 1152);
  // Three 16-bit planes of the padded size for 4:4:4 16-bit; a format not known counts as that.
  EXPECT_EQ(PaddedPictureBytes(AV_PIX_FMT_YUV444P16LE, 1920, 1080),
            6 * PaddedPixels(1920, 1080));
  EXPECT_EQ(PaddedPictureBytes(AV_PIX_FMT_NONE, 1920, 1080),
            PaddedPictureBytes(AV_PIX_FMT_YUV444P16LE, 1920, 1080));
  // Chroma planes are padded too.
  EXPECT_GE(PaddedPictureBytes(AV_PIX_FMT_YUV420P, 1920, 1080),
            PaddedPixels(1920, 1080) * 3 / 2);
}

TEST(DecoderMemoryTest, BoundsFollowTheCodecsReferencePictures) {
  const DecoderMemory h264 =
      DecoderMemoryFor(Decoder(AV_CODEC_ID_H264), AV_PIX_FMT_YUV420P, 1920, 1080, 1);
  EXPECT_EQ(h264.pictures, 21);  // a DPB of 16, the current one, libavcodec's, the reader's
  EXPECT_EQ(h264.picture_bytes, PaddedPictureBytes(AV_PIX_FMT_YUV420P, 1920, 1080));
  EXPECT_GT(h264.bytes, h264.pictures * h264.picture_bytes);
  // Intra-only FFV1 keeps few pictures and no motion data.
  const DecoderMemory ffv1 =
      DecoderMemoryFor(Decoder(AV_CODEC_ID_FFV1), AV_PIX_FMT_YUV420P, 1920, 1080, 1);
  EXPECT_EQ(ffv1.pictures, 4);  // the current and the last one, libavcodec's, the reader's
  EXPECT_LT(ffv1.bytes, h264.bytes / 4);
  // The reader's own pictures add to the decoder's.
  EXPECT_EQ(DecoderMemoryFor(Decoder(AV_CODEC_ID_H264), AV_PIX_FMT_YUV420P, 1920, 1080, 10)
                .pictures,
            30);
}

TEST(DecoderMemoryTest, ADecoderThatAllocatesItsOwnPicturesIsCountedAtTheWidestFormat) {
  const AVCodec* own = nullptr;
  void* it = nullptr;
  while (const AVCodec* codec = av_codec_iterate(&it)) {
    if (av_codec_is_decoder(codec) && codec->type == AVMEDIA_TYPE_VIDEO &&
        !PicturesGoThroughGetBuffer(*codec)) {
      own = codec;
      break;
    }
  }
  ASSERT_NE(own, nullptr) << "every video decoder of this FFmpeg allocates through get_buffer2";
  EXPECT_EQ(DecoderMemoryFor(*own, AV_PIX_FMT_YUV420P, 640, 480, 1).picture_bytes,
            PaddedPictureBytes(AV_PIX_FMT_YUV444P16LE, 640, 480));
}

TEST(DecoderMemoryTest, LadderFilesDecodeWithinTheirBound) {
  for (const char* name : {"h264_426x240.mp4", "hevc_1280x720.mkv", "vp9_960x540.webm"}) {
    SCOPED_TRACE(name);
    PictureAllocationGuard guard;
    // Sized like VideoDecoder does: the stream's own size and format, the reader holding one.
    AVFormatContext* format = nullptr;
    const std::string path = LadderFile(name);
    ASSERT_EQ(avformat_open_input(&format, path.c_str(), nullptr, nullptr), 0) << path;
    ASSERT_GE(avformat_find_stream_info(format, nullptr), 0);
    const int stream = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
    const AVCodecParameters* par = format->streams[stream]->codecpar;
    const DecoderMemory bound =
        DecoderMemoryFor(Decoder(par->codec_id), static_cast<AVPixelFormat>(par->format),
                         par->width, par->height, 1);
    avformat_close_input(&format);
    guard.Limit(bound);
    const GuardedDecode decoded = DecodeWithGuard(name, guard, 1);
    EXPECT_EQ(decoded.error, 0) << guard.refusal();
    EXPECT_TRUE(guard.refusal().empty());
    EXPECT_GT(decoded.frames, 10);
    EXPECT_GT(decoded.most_alive, 0);  // the pictures went through the guard
    EXPECT_LE(decoded.most_alive, bound.pictures);
    EXPECT_EQ(guard.alive(), 0);  // every picture given back once the decoder is gone
  }
}

TEST(DecoderMemoryTest, RefusesAPictureLargerThanTheBound) {
  PictureAllocationGuard guard;
  // Reserved for a 160x90 stream; the file's pictures are 426x240.
  guard.Limit(DecoderMemoryFor(Decoder(AV_CODEC_ID_H264), AV_PIX_FMT_YUV420P, 160, 90, 1));
  const GuardedDecode decoded = DecodeWithGuard("h264_426x240.mp4", guard, 1);
  // The decoder fails (H.264 reports the refused allocation as invalid data); the guard says why.
  EXPECT_NE(decoded.error, 0);
  EXPECT_EQ(decoded.frames, 0);
  EXPECT_THAT(guard.refusal(), HasSubstr("grows midway to"));
  EXPECT_THAT(guard.refusal(), HasSubstr("yuv420p pictures"));
  EXPECT_THAT(guard.refusal(), HasSubstr("past the"));
  EXPECT_EQ(guard.alive(), 0);
}

TEST(DecoderMemoryTest, RefusesMorePicturesAliveThanTheBound) {
  PictureAllocationGuard guard;
  DecoderMemory bound =
      DecoderMemoryFor(Decoder(AV_CODEC_ID_H264), AV_PIX_FMT_YUV420P, 426, 240, 1);
  bound.pictures = 4;
  guard.Limit(bound);
  // Holding every decoded picture: the fifth one alive is refused.
  const GuardedDecode decoded = DecodeWithGuard("h264_426x240.mp4", guard, 1000);
  EXPECT_NE(decoded.error, 0);
  EXPECT_GT(decoded.frames, 0);
  EXPECT_LE(decoded.most_alive, 4);
  EXPECT_THAT(guard.refusal(), HasSubstr("more than 4 pictures"));
  EXPECT_EQ(guard.alive(), 0);
}

}  // namespace
}  // namespace ssimd
