// The client's last-resort transport for encoded files: decode them here, fit the distorted video
// to the reference exactly as the server would (same size and pixel format through the same
// libswscale settings, same refusals), and send luma planes. Raw .yuv (geometry from the flags)
// and .y4m files are read as they are, with their chroma planes too where a feature reads chroma
// (psnr's enable_chroma); encoded files decoded here give luma only.
#ifndef SSIMD_CLIENT_LOCAL_VIDEO_H_
#define SSIMD_CLIENT_LOCAL_VIDEO_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "engine/media/picture_scaler.h"
#include "engine/media/video_input.h"
#include "engine/picture.h"

namespace ssimd {

// Opens one local file. `raw_geometry` is required for raw .yuv files, checked against a .y4m
// header and not used for encoded files (they state their own).
absl::StatusOr<std::unique_ptr<VideoInput>> OpenLocalVideo(
    const std::string& path, const std::optional<Geometry>& raw_geometry);

// A raw .yuv or .y4m file read whole, frame by frame: luma as the engine's readers return it and
// the chroma planes after it, which those readers skip (only psnr's chroma scores need them).
// Read() gives luma like any input; ReadFrame() gives the chroma as well.
class WholeFrameInput final : public VideoInput {
 public:
  // `raw_geometry` is required for raw .yuv files and checked against a .y4m header, with the
  // engine's rules and messages. NOT_FOUND when the file cannot be opened.
  static absl::StatusOr<std::unique_ptr<WholeFrameInput>> Open(
      const std::string& path, const std::optional<Geometry>& raw_geometry);
  ~WholeFrameInput() override;
  WholeFrameInput(const WholeFrameInput&) = delete;
  WholeFrameInput& operator=(const WholeFrameInput&) = delete;

  // The next frame: its luma (LumaBytes) into *luma and its Cb and Cr planes (StoredChromaSize
  // each, Cb first, as the file stores them) into *chroma, empty for 4:0:0. False after the last
  // frame; INVALID_ARGUMENT naming the file and frame when the file ends inside a frame or a .y4m
  // frame line is malformed.
  absl::StatusOr<bool> ReadFrame(std::string* luma, std::string* chroma);

  const Geometry& geometry() const override { return geometry_; }
  FrameRate frame_rate() const override { return frame_rate_; }
  const std::string& name() const override { return name_; }
  absl::StatusOr<bool> Read(Picture* out) override;
  uint64_t frames_read() const override { return frames_read_; }
  std::optional<uint64_t> EstimatedFrames() const override;

 private:
  WholeFrameInput(std::FILE* file, std::string name, bool y4m, const Geometry& geometry,
                  FrameRate frame_rate, uint64_t header_bytes);
  size_t ReadBytes(std::string* out, size_t size);
  absl::Status Truncated(size_t got) const;

  std::FILE* const file_;
  const std::string name_;
  const bool y4m_;
  const Geometry geometry_;
  const FrameRate frame_rate_;
  const uint64_t header_bytes_;
  uint64_t frames_read_ = 0;
  std::string chroma_scratch_;  // Read()'s chroma, read past
};

struct LocalPair {
  std::unique_ptr<VideoInput> reference;
  std::unique_ptr<VideoInput> distorted;
  // Where the frames carry chroma (OpenLocalPair's `chroma` on a picture that has it): the two
  // inputs above as the whole-frame readers they are; null otherwise.
  WholeFrameInput* reference_frames = nullptr;
  WholeFrameInput* distorted_frames = nullptr;

  bool with_chroma() const { return reference_frames != nullptr; }
};

// Both files, the distorted one brought to the reference's size with `scaler` when it is encoded.
// With `chroma` (the features read chroma where a picture has it, FeaturesReadChroma), a reference
// that has chroma is read with it, and so is the distorted file: both must then be raw .yuv or
// .y4m files of the same chroma layout. An encoded file is refused (INVALID_ARGUMENT naming its
// flag and --feature psnr=enable_chroma=false) rather than scored without its chroma, since only
// luma comes out of the pictures decoded here.
absl::StatusOr<LocalPair> OpenLocalPair(const std::string& reference,
                                        const std::string& distorted,
                                        const std::optional<Geometry>& raw_geometry,
                                        const ScalerChoice& scaler, bool chroma = false);

}  // namespace ssimd

#endif  // SSIMD_CLIENT_LOCAL_VIDEO_H_
