// The .y4m files of the ladder kinds: written here for the server to read through its files root
// (a header line, then "FRAME\n" and the planes of each frame; the load's metrics score luma, so
// chroma is mid-grey), and read back here where the expected scores need their pictures.
#ifndef SSIMD_TOOLS_FAULT_LOAD_Y4M_FILES_H_
#define SSIMD_TOOLS_FAULT_LOAD_Y4M_FILES_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/picture.h"

namespace ssimd::fault_load {

// "YUV4MPEG2 W64 H36 F25:1 Ip A1:1 C420jpeg\n": 25 frames/s, the C tag of the geometry's chroma
// layout and bit depth.
std::string Y4mHeaderLine(const Geometry& geometry);

// One file written under a temporary name and renamed into place by Finish, so that a reader never
// sees half a file (the server may still be reading the previous run's copy).
class Y4mFileWriter {
 public:
  static absl::StatusOr<Y4mFileWriter> Create(const std::string& path, const Geometry& geometry);
  Y4mFileWriter(Y4mFileWriter&& other) noexcept;
  Y4mFileWriter& operator=(Y4mFileWriter&&) = delete;
  ~Y4mFileWriter();

  // `luma`: LumaBytes(geometry) bytes, tightly packed.
  absl::Status AddFrame(const std::string& luma);
  absl::Status Finish();

 private:
  Y4mFileWriter(std::FILE* file, std::string path, const Geometry& geometry);

  std::FILE* file_;
  std::string path_;
  Geometry geometry_;
  std::string chroma_;  // one frame's chroma planes
};

// A decode bomb that costs no disk: a .y4m whose header claims `geometry` and that holds `frames`
// whole frames, each a hole in a sparse file (zeros when read). A server that believes the header
// allocates LumaBytes(geometry) per picture.
absl::Status WriteSparseY4m(const std::string& path, const Geometry& geometry, int frames);

// The luma planes of every frame of a .y4m file as this tool writes them (bare "FRAME" lines, the
// colour tags Y4mHeaderLine writes, and ffmpeg's C420jpeg/C420mpeg2/Cmono); `*geometry` gets the
// header's. At most `max_frames` frames.
absl::StatusOr<std::vector<std::string>> ReadY4mLuma(const std::string& path, Geometry* geometry,
                                                     int max_frames);

// Creates `dir` and its parents.
absl::Status MakeDirectories(const std::string& dir);

}  // namespace ssimd::fault_load

#endif  // SSIMD_TOOLS_FAULT_LOAD_Y4M_FILES_H_
