// The files the ladder kinds ask the server to read, below its files root (in `fault_load/`), and
// the score every frame of every rendition must get, computed here by the CPU engine:
//   - .y4m ladders of the source's size (no upscale), whose pictures repeat every few frames so
//     that long ladders (the stalled reader's) cost little to check;
//   - a small ladder served over HTTP by the tool's slow URL server;
//   - encoded renditions (H.264, HEVC, VP9, AV1 where this ffmpeg encodes them, some smaller than
//     the source, so the server decodes and upscales them), made with the ffmpeg command; their
//     expected scores come from ffmpeg's own decoding and upscaling of each rendition (the bytes
//     the server must reproduce, docs/adr/0070), kept beside it as a luma-only .y4m so a machine
//     without ffmpeg can use files made elsewhere (ladder_soak.sh --prepare);
//   - decode bombs: files whose pictures are far larger than their bytes.
#ifndef SSIMD_TOOLS_FAULT_LOAD_LADDER_MEDIA_H_
#define SSIMD_TOOLS_FAULT_LOAD_LADDER_MEDIA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/features.h"
#include "engine/scorer.h"
#include "tools/fault_load/synthetic_clips.h"

namespace ssimd::fault_load {

// The folder below the files root that holds everything this tool writes.
inline constexpr char kMediaFolder[] = "fault_load";

struct LadderRendition {
  std::string name;  // the rung
  std::string path;  // relative to the files root
  // Its own features (Rendition.features); empty: the ladder's.
  std::vector<std::string> feature_args;
  // Geometry and features its results are scored with, for SameScores.
  ClipVariant shape;
};

struct LadderSet {
  std::string name;
  ClipVariant shape;  // the ladder's geometry (the source's), features and config
  std::string source_path;
  std::vector<LadderRendition> renditions;
  int frames = 0;  // in the source and in every rendition
  int cycle = 0;   // frame f of rendition r scores expected[r][f % cycle]
  std::vector<std::vector<FrameScores>> expected;
  bool encoded = false;  // renditions the server decodes with FFmpeg (and may upscale)

  const FrameScores& Expected(size_t rendition, uint64_t frame) const {
    return expected[rendition][frame % static_cast<uint64_t>(cycle)];
  }
};

struct BombFile {
  std::string path;  // relative to the files root
  std::string what;  // e.g. "y4m 20000x20000, 2 frames (sparse)"
  int width = 0;
  int height = 0;
  int64_t pixels() const { return int64_t{width} * height; }
};

struct LadderMedia {
  std::vector<LadderSet> sets;
  int long_set = -1;  // the set with the most frame results: the stalled reader's
  int url_set = -1;   // the small set that is fetched over HTTP (whole files)
  int encoded_set = -1;
  std::vector<BombFile> bombs;
  std::vector<std::string> notes;  // what was skipped and why
};

struct LadderMediaOptions {
  std::string files_root;
  std::string ffmpeg;  // empty: no ffmpeg here; encoded files only where made before
  bool encoded_renditions = true;
  bool encoded_bomb = true;
  int long_frames = 1200;  // frames of the long 8-bit ladder
  int url_frames = 16;
  // Bombs claim square pictures of these sides: one over the 16384x16384 every server refuses,
  // one over the 8192x4352 a server with --max_picture_pixels refuses by default but an older one
  // decodes (the run draws only the bombs over the limit the server reports).
  int huge_bomb_side = 20000;
  int large_bomb_side = 8192;
};

// Writes the files (the encoded ones only where missing) and computes the expected scores.
absl::StatusOr<LadderMedia> PrepareLadderMedia(const LadderMediaOptions& options, Scorer* cpu);

}  // namespace ssimd::fault_load

#endif  // SSIMD_TOOLS_FAULT_LOAD_LADDER_MEDIA_H_
