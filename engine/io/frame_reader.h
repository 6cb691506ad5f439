// Reads the planes of video files frame by frame: raw planar .yuv (geometry given by the caller)
// and YUV4MPEG2 .y4m (geometry from the header). Chroma is skipped unless a metric reads it
// (KeepChroma), but it always sets where each frame starts.
#ifndef SSIMD_ENGINE_IO_FRAME_READER_H_
#define SSIMD_ENGINE_IO_FRAME_READER_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/picture.h"

namespace ssimd {

enum class FileFormat { kRawYuv, kY4m };

// kY4m for names ending in ".y4m" (any case), else kRawYuv.
FileFormat FileFormatForPath(absl::string_view path);

class FrameReader {
 public:
  // Opens `path`. Raw .yuv needs `raw_geometry`; for .y4m it is optional and, when given, must
  // match the header's. NOT_FOUND / PERMISSION_DENIED from the file system, INVALID_ARGUMENT for a
  // bad header or geometry.
  static absl::StatusOr<std::unique_ptr<FrameReader>> Open(
      const std::string& path, const std::optional<Geometry>& raw_geometry);

  // Same, reading from an open descriptor, which the reader takes over (closed on destruction).
  // `name` is used in messages.
  static absl::StatusOr<std::unique_ptr<FrameReader>> FromFd(
      int fd, std::string name, FileFormat format, const std::optional<Geometry>& raw_geometry);

  ~FrameReader();
  FrameReader(const FrameReader&) = delete;
  FrameReader& operator=(const FrameReader&) = delete;

  const Geometry& geometry() const { return geometry_; }
  const std::string& name() const { return name_; }
  // The .y4m header's frame rate as written ("num:den"); empty for raw files or when absent.
  const std::string& frame_rate() const { return frame_rate_; }
  // Frames returned or skipped so far.
  uint64_t frames_read() const { return frames_read_; }
  // Frames in the file, from its size (exact for raw files; for .y4m it assumes frame headers
  // without parameters); empty when the size is unknown (a pipe).
  std::optional<uint64_t> EstimatedFrames() const;

  // From now on ReadPlanes and ReadPlanesAt give each frame's chroma planes after its luma.
  void KeepChroma() { keep_chroma_ = true; }
  bool keeps_chroma() const { return keep_chroma_; }

  // Reads the next frame's luma, tightly packed (LumaBytes(geometry()) bytes), into *planes,
  // followed by its Cb and Cr planes as stored (FrameBytes(geometry()) bytes in all) after
  // KeepChroma. false at the end of the file; INVALID_ARGUMENT naming the file and frame when the
  // file ends inside a frame or a .y4m frame header is malformed.
  absl::StatusOr<bool> ReadPlanes(std::string* planes);

  // Skips `frames` frames; INVALID_ARGUMENT when the file has fewer.
  absl::Status Skip(uint64_t frames);

  // True when every frame sits at an offset known from its index, so that frames can be read in
  // any order and from several threads at once: a regular file that is raw .yuv, or .y4m whose
  // size is its header plus whole frames that each start with a bare "FRAME" line.
  bool positional() const { return positional_; }
  // Frame `index`'s planes (counting from the file's first frame) into *planes, like ReadPlanes
  // but without moving the reader: false past the last frame, the same errors otherwise. Safe to
  // call from several threads; only for positional() readers.
  absl::StatusOr<bool> ReadPlanesAt(uint64_t index, std::string* planes) const;

 private:
  FrameReader(std::FILE* file, std::string name, FileFormat format, const Geometry& geometry);

  // Reads exactly `size` bytes unless the file ends first; returns the count read.
  size_t ReadBytes(char* dst, size_t size);
  // At the start of a .y4m frame: consumes "FRAME[ params]\n". false at a clean end of file.
  absl::StatusOr<bool> ReadFrameHeader();
  absl::Status Truncated(size_t expected, size_t got) const {
    return TruncatedAt(frames_read_, expected, got);
  }
  absl::Status TruncatedAt(uint64_t index, size_t expected, size_t got) const;
  absl::Status NotAFrameLine(uint64_t index, absl::string_view found) const;
  // Bytes from one frame's start to the next's: its "FRAME\n" line (in .y4m) and its planes.
  uint64_t FrameStride() const;
  bool CanReadPositionally() const;
  // Moves past a frame's chroma: seeks in regular files (a third of a 4:2:0 frame's bytes not
  // copied), reads elsewhere. Returns how many of `bytes` the file still held.
  size_t SkipChroma(size_t bytes);

  std::FILE* file_;
  const std::string name_;
  const FileFormat format_;
  const Geometry geometry_;
  uint64_t frames_read_ = 0;
  uint64_t header_bytes_ = 0;
  std::string frame_rate_;
  std::string chroma_scratch_;
  std::optional<uint64_t> regular_file_size_;  // set for regular files, which can be seeked
  bool positional_ = false;
  bool keep_chroma_ = false;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_IO_FRAME_READER_H_
