// Owning handles for FFmpeg's C objects, so that every exit path frees what it allocated.
#ifndef SSIMD_ENGINE_MEDIA_AV_HANDLES_H_
#define SSIMD_ENGINE_MEDIA_AV_HANDLES_H_

#include <memory>
#include <string>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
#include <libswscale/swscale.h>
}

namespace ssimd {

struct AvFrameFree {
  void operator()(AVFrame* frame) const { av_frame_free(&frame); }
};
struct AvPacketFree {
  void operator()(AVPacket* packet) const { av_packet_free(&packet); }
};
struct AvCodecContextFree {
  void operator()(AVCodecContext* codec) const { avcodec_free_context(&codec); }
};
struct SwsContextFree {
  void operator()(SwsContext* sws) const { sws_freeContext(sws); }
};

using AvFramePtr = std::unique_ptr<AVFrame, AvFrameFree>;
using AvPacketPtr = std::unique_ptr<AVPacket, AvPacketFree>;
using AvCodecContextPtr = std::unique_ptr<AVCodecContext, AvCodecContextFree>;
using SwsContextPtr = std::unique_ptr<SwsContext, SwsContextFree>;

// FFmpeg's text for an AVERROR code, e.g. "Invalid data found when processing input".
std::string AvErrorText(int code);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_AV_HANDLES_H_
