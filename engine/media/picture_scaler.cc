#include "engine/media/picture_scaler.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/media/pixel_formats.h"

extern "C" {
#include <libavutil/opt.h>
}

namespace ssimd {
namespace {

// The scale filter places 4:2:0 chroma the MPEG-2 way (vertically centred between luma rows,
// position 128 in 1/256 units), but only for 8-bit yuv420p; every other format keeps libswscale's
// default. Chroma only: luma does not depend on it.
constexpr int kMpeg2ChromaPosition = 128;

}  // namespace

PictureScaler::PictureScaler(int width, int height, AVPixelFormat format,
                             const ScalerChoice& choice)
    : width_(width), height_(height), format_(format), choice_(choice) {}

absl::Status PictureScaler::Configure(const AVFrame& in) {
  sws_.reset(sws_alloc_context());
  out_.reset(av_frame_alloc());
  if (sws_ == nullptr || out_ == nullptr) {
    return absl::ResourceExhaustedError("out of memory for the scaler");
  }
  SwsContext* s = sws_.get();
  const std::string flags = SwsFlagsText(choice_);
  bool ok = av_opt_set(s, "sws_flags", flags.c_str(), 0) >= 0;
  ok = ok && av_opt_set_int(s, "srcw", in.width, 0) >= 0;
  ok = ok && av_opt_set_int(s, "srch", in.height, 0) >= 0;
  ok = ok && av_opt_set_int(s, "src_format", in.format, 0) >= 0;
  ok = ok && av_opt_set_int(s, "dstw", width_, 0) >= 0;
  ok = ok && av_opt_set_int(s, "dsth", height_, 0) >= 0;
  ok = ok && av_opt_set_int(s, "dst_format", format_, 0) >= 0;
  // The filter passes the frame's range when the frame states one; the output range is left at
  // libswscale's default (limited, unless the format is a full-range one).
  if (in.color_range != AVCOL_RANGE_UNSPECIFIED) {
    ok = ok && av_opt_set_int(s, "src_range", in.color_range == AVCOL_RANGE_JPEG, 0) >= 0;
  }
  if (in.format == AV_PIX_FMT_YUV420P) {
    ok = ok && av_opt_set_int(s, "src_v_chr_pos", kMpeg2ChromaPosition, 0) >= 0;
  }
  if (format_ == AV_PIX_FMT_YUV420P) {
    ok = ok && av_opt_set_int(s, "dst_v_chr_pos", kMpeg2ChromaPosition, 0) >= 0;
  }
  if (!ok) return absl::InternalError("libswscale refused an option the scale filter sets");
  const int rc = sws_init_context(s, nullptr, nullptr);
  if (rc < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cannot scale %dx%d %s to %dx%d %s with %s (%s)", in.width, in.height,
        PixelFormatName(static_cast<AVPixelFormat>(in.format)), width_, height_,
        PixelFormatName(format_), flags, AvErrorText(rc)));
  }
  out_->width = width_;
  out_->height = height_;
  out_->format = format_;
  if (av_frame_get_buffer(out_.get(), 0) < 0) {
    return absl::ResourceExhaustedError("out of memory for a scaled picture");
  }
  in_width_ = in.width;
  in_height_ = in.height;
  in_format_ = in.format;
  in_range_ = in.color_range;
  return absl::OkStatus();
}

absl::StatusOr<const AVFrame*> PictureScaler::Convert(const AVFrame& in) {
  if (Unchanged(in.width, in.height, static_cast<AVPixelFormat>(in.format))) return &in;
  if (sws_ == nullptr || in.width != in_width_ || in.height != in_height_ ||
      in.format != in_format_ || in.color_range != in_range_) {
    absl::Status configured = Configure(in);
    if (!configured.ok()) {
      sws_.reset();
      return configured;
    }
  }
  const int rc = sws_scale(sws_.get(), in.data, in.linesize, 0, in.height, out_->data,
                           out_->linesize);
  if (rc < 0) {
    return absl::InternalError(absl::StrCat("libswscale failed: ", AvErrorText(rc)));
  }
  return out_.get();
}

}  // namespace ssimd
