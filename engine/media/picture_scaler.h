// Brings decoded pictures to the source's size and pixel format with libswscale, configured the
// way FFmpeg 5.1's scale filter configures it for
//   ffmpeg -i RENDITION -vf scale=W:H:flags=<flags> -pix_fmt <source's format>
// so that the scaled pictures are byte-identical to that command's output on the same machine
// (and so score as libvmaf scores that output). docs/adr/0070 lists what is mirrored and why.
#ifndef SSIMD_ENGINE_MEDIA_PICTURE_SCALER_H_
#define SSIMD_ENGINE_MEDIA_PICTURE_SCALER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "engine/media/av_handles.h"
#include "engine/scaler_choice.h"

namespace ssimd {

class PictureScaler {
 public:
  PictureScaler(int width, int height, AVPixelFormat format, const ScalerChoice& choice);
  PictureScaler(const PictureScaler&) = delete;
  PictureScaler& operator=(const PictureScaler&) = delete;

  // Whether a picture of this size and format is already the target (Convert returns it as is).
  bool Unchanged(int width, int height, AVPixelFormat format) const {
    return width == width_ && height == height_ && format == format_;
  }
  // `in` at the target size and format, or a scaled copy (valid until the next call). Like the
  // scale filter, a picture already at the target size and format passes through untouched.
  absl::StatusOr<const AVFrame*> Convert(const AVFrame& in);

 private:
  absl::Status Configure(const AVFrame& in);

  const int width_;
  const int height_;
  const AVPixelFormat format_;
  const ScalerChoice choice_;
  SwsContextPtr sws_;
  // What sws_ was made for; a change rebuilds it, as the scale filter does.
  int in_width_ = 0;
  int in_height_ = 0;
  int in_format_ = AV_PIX_FMT_NONE;
  int in_range_ = AVCOL_RANGE_UNSPECIFIED;
  AvFramePtr out_;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_PICTURE_SCALER_H_
