#include "tools/fault_load/ladder_media.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "engine/synthetic_picture.h"
#include "tools/fault_load/ffmpeg_command.h"
#include "tools/fault_load/y4m_files.h"

namespace ssimd::fault_load {
namespace {

// Pictures of a .y4m ladder repeat after this many frames: a result delivered for the wrong frame
// still shows, and a ladder of thousands of frames needs only this many scores.
constexpr int kRawCycle = 6;
constexpr int kEncodedFrames = 12;  // a few MB with their decoded sidecars, to travel
constexpr absl::Duration kFfmpegTimeout = absl::Seconds(120);

struct RungSpec {
  std::string name;
  int noise_per_mille;                     // of the bit depth's range
  std::vector<std::string> feature_args;   // empty: the ladder's
};

struct RawSetSpec {
  std::string name;
  Geometry geometry;
  int frames;
  std::vector<std::string> feature_args;
  std::vector<RungSpec> rungs;
};

struct EncodedSpec {
  std::string rung;
  std::string file;
  EncodeSpec encode;
};

absl::Span<const uint8_t> Bytes(const std::string& s) {
  return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

std::string Join(const std::string& a, const std::string& b) { return absl::StrCat(a, "/", b); }

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

absl::StatusOr<ClipVariant> Shape(const std::string& name, const Geometry& geometry,
                                  const std::vector<std::string>& feature_args) {
  ClipVariant v;
  v.name = name;
  v.geometry = geometry;
  auto features = ParseFeatureArgs(feature_args);
  if (!features.ok()) return features.status();
  v.features = *features;
  for (const std::string& arg : feature_args) v.config.mutable_features()->add_feature_args(arg);
  v.config.set_backend(v1::BACKEND_AUTO);
  v.config.set_title_id(absl::StrCat("fault-load-ladder-", name));
  return v;
}

absl::StatusOr<FrameScores> ScoreOnCpu(Scorer* cpu, const ClipVariant& shape,
                                       const std::string& reference, const std::string& distorted) {
  auto ref = MakeLumaView(shape.geometry, Bytes(reference), "reference");
  if (!ref.ok()) return ref.status();
  auto dis = MakeLumaView(shape.geometry, Bytes(distorted), "distorted");
  if (!dis.ok()) return dis.status();
  auto scored = cpu->Score(shape.geometry, shape.features, FramePair{*ref, *dis});
  if (!scored.ok()) {
    return absl::Status(scored.status().code(), absl::StrCat(shape.name, ": expected scores: ",
                                                             scored.status().message()));
  }
  return scored->scores;
}

absl::Status WriteFrames(const std::string& path, const Geometry& geometry,
                         const std::vector<std::string>& pictures, int frames) {
  auto writer = Y4mFileWriter::Create(path, geometry);
  if (!writer.ok()) return writer.status();
  for (int f = 0; f < frames; ++f) {
    if (absl::Status s = writer->AddFrame(pictures[f % pictures.size()]); !s.ok()) return s;
  }
  return writer->Finish();
}

absl::StatusOr<LadderSet> MakeRawSet(const RawSetSpec& spec, const std::string& root,
                                     Scorer* cpu) {
  LadderSet set;
  set.name = spec.name;
  set.frames = spec.frames;
  set.cycle = kRawCycle;
  auto shape = Shape(spec.name, spec.geometry, spec.feature_args);
  if (!shape.ok()) return shape.status();
  set.shape = *std::move(shape);
  const std::string folder = Join(kMediaFolder, spec.name);
  if (absl::Status s = MakeDirectories(Join(root, folder)); !s.ok()) return s;
  set.source_path = Join(folder, "source.y4m");

  const uint32_t seed = static_cast<uint32_t>(spec.geometry.width * 7919 +
                                              spec.geometry.height * 104729 +
                                              spec.geometry.bit_depth);
  std::vector<SyntheticPlane> sources;
  std::vector<std::string> source_bytes;
  for (int k = 0; k < kRawCycle; ++k) {
    sources.push_back(TexturedPlane(spec.geometry, seed, k));
    source_bytes.push_back(sources.back().ToString());
  }
  if (absl::Status s =
          WriteFrames(Join(root, set.source_path), spec.geometry, source_bytes, spec.frames);
      !s.ok()) {
    return s;
  }
  for (size_t r = 0; r < spec.rungs.size(); ++r) {
    const RungSpec& rung = spec.rungs[r];
    LadderRendition rendition;
    rendition.name = rung.name;
    rendition.path = Join(folder, rung.name + ".y4m");
    rendition.feature_args = rung.feature_args;
    if (rung.feature_args.empty()) {
      rendition.shape = set.shape;
    } else {
      auto own = Shape(absl::StrCat(spec.name, "/", rung.name), spec.geometry, rung.feature_args);
      if (!own.ok()) return own.status();
      rendition.shape = *std::move(own);
    }
    const int amplitude =
        static_cast<int>(PeakValue(spec.geometry.bit_depth)) * rung.noise_per_mille / 1000;
    std::vector<std::string> pictures;
    std::vector<FrameScores> expected;
    for (int k = 0; k < kRawCycle; ++k) {
      pictures.push_back(
          Distort(sources[k], seed + 1000u * static_cast<uint32_t>(r + 1) + k, amplitude)
              .ToString());
      auto scores = ScoreOnCpu(cpu, rendition.shape, source_bytes[k], pictures.back());
      if (!scores.ok()) return scores.status();
      expected.push_back(*std::move(scores));
    }
    if (absl::Status s = WriteFrames(Join(root, rendition.path), spec.geometry, pictures,
                                     spec.frames);
        !s.ok()) {
      return s;
    }
    set.renditions.push_back(std::move(rendition));
    set.expected.push_back(std::move(expected));
  }
  return set;
}

std::vector<EncodedSpec> EncodedSpecs() {
  const std::vector<std::string> x264 = {"-c:v", "libx264", "-preset", "ultrafast", "-crf", "30"};
  return {
      {"h264_320x180", "h264_320x180.mp4", {"mp4", 320, 180, x264}},
      {"h264_256x144", "h264_256x144.mp4", {"mp4", 256, 144, x264}},
      {"hevc_256x144", "hevc_256x144.mkv",
       {"matroska", 256, 144,
        {"-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error"}}},
      {"vp9_256x144", "vp9_256x144.webm",
       {"webm", 256, 144,
        {"-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "300k"}}},
      {"av1_256x144", "av1_256x144.mkv",
       {"matroska", 256, 144, {"-c:v", "libsvtav1", "-preset", "12"}}},
  };
}

// Encodes `source` (a .y4m of the ladder's size) into `spec`'s rendition.
absl::Status Encode(const std::string& ffmpeg, const std::string& source, const EncodedSpec& spec,
                    const std::string& out, const Geometry& source_geometry) {
  const std::string partial = out + ".partial";
  const std::vector<std::string> argv = EncodeArgv(
      ffmpeg, source, source_geometry.width, source_geometry.height, spec.encode, partial);
  if (absl::Status s = RunCommand(argv, kFfmpegTimeout, out + ".log"); !s.ok()) {
    ::unlink(partial.c_str());
    return s;
  }
  ::unlink((out + ".log").c_str());
  if (std::rename(partial.c_str(), out.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("cannot rename ", partial));
  }
  return absl::OkStatus();
}

// ffmpeg's decoding of `rendition` at the source's size and pixel format, the way the server must
// decode and upscale it, kept as a luma-only .y4m.
absl::Status WriteDecodedLuma(const std::string& ffmpeg, const std::string& rendition,
                              const EncodedSpec& spec, const Geometry& source_geometry,
                              const std::string& sidecar) {
  const std::string raw = sidecar + ".yuv";
  const std::vector<std::string> argv =
      DecodeToSourceSizeArgv(ffmpeg, rendition, spec.encode.width, spec.encode.height,
                             source_geometry.width, source_geometry.height, raw);
  absl::Status ran = RunCommand(argv, kFfmpegTimeout, sidecar + ".log");
  if (!ran.ok()) {
    ::unlink(raw.c_str());
    return ran;
  }
  ::unlink((sidecar + ".log").c_str());
  Geometry luma_only = source_geometry;
  luma_only.chroma = ChromaFormat::k400;
  auto writer = Y4mFileWriter::Create(sidecar, luma_only);
  if (!writer.ok()) return writer.status();
  std::ifstream in(raw, std::ios::binary);
  std::string frame(FrameBytes(source_geometry), '\0');
  while (in.read(frame.data(), static_cast<std::streamsize>(frame.size()))) {
    if (absl::Status s = writer->AddFrame(frame.substr(0, LumaBytes(source_geometry))); !s.ok()) {
      return s;
    }
  }
  ::unlink(raw.c_str());
  return writer->Finish();
}

// The encoded ladder: made where missing and ffmpeg is here, else skipped with a note.
absl::StatusOr<bool> AddEncodedSet(const LadderMediaOptions& options, Scorer* cpu,
                                   LadderMedia* media) {
  const std::string folder = Join(kMediaFolder, "encoded");
  const std::string dir = Join(options.files_root, folder);
  if (absl::Status s = MakeDirectories(dir); !s.ok()) return s;
  LadderSet set;
  set.name = "encoded";
  set.encoded = true;
  const Geometry geometry{320, 180, 8, ChromaFormat::k420};
  auto shape = Shape(set.name, geometry, {"float_ssim", "ssim"});
  if (!shape.ok()) return shape.status();
  set.shape = *std::move(shape);
  set.source_path = Join(folder, "source.y4m");
  const std::string source = Join(options.files_root, set.source_path);
  if (!Exists(source)) {
    if (options.ffmpeg.empty()) {
      media->notes.push_back(
          "encoded renditions skipped: no ffmpeg here and none prepared (ladder_soak.sh "
          "--prepare makes them)");
      return false;
    }
    std::vector<std::string> pictures;
    for (int f = 0; f < kEncodedFrames; ++f) {
      pictures.push_back(TexturedPlane(geometry, 4242u, f).ToString());
    }
    if (absl::Status s = WriteFrames(source, geometry, pictures, kEncodedFrames); !s.ok()) {
      return s;
    }
  }
  Geometry read_geometry;
  auto source_luma = ReadY4mLuma(source, &read_geometry, 10000);
  if (!source_luma.ok()) return source_luma.status();
  for (const EncodedSpec& spec : EncodedSpecs()) {
    const std::string file = Join(dir, spec.file);
    const std::string sidecar = file + ".luma.y4m";
    if (!Exists(file) || !Exists(sidecar)) {
      if (options.ffmpeg.empty()) {
        media->notes.push_back(absl::StrCat(spec.rung, " skipped: not prepared, no ffmpeg here"));
        continue;
      }
      absl::Status made = Encode(options.ffmpeg, source, spec, file, geometry);
      if (made.ok()) made = WriteDecodedLuma(options.ffmpeg, file, spec, geometry, sidecar);
      if (!made.ok()) {
        media->notes.push_back(absl::StrCat(spec.rung, " skipped: ", made.message()));
        continue;
      }
    }
    Geometry decoded_geometry;
    auto decoded = ReadY4mLuma(sidecar, &decoded_geometry, 10000);
    if (!decoded.ok() || decoded->size() != source_luma->size() ||
        decoded_geometry.width != geometry.width || decoded_geometry.height != geometry.height) {
      media->notes.push_back(absl::StrCat(
          spec.rung, " skipped: its decoded pictures (", sidecar, ") ",
          decoded.ok() ? absl::StrFormat("are %d frames of %dx%d, the source %d of %dx%d",
                                         decoded->size(), decoded_geometry.width,
                                         decoded_geometry.height, source_luma->size(),
                                         geometry.width, geometry.height)
                       : std::string(decoded.status().message())));
      continue;
    }
    LadderRendition rendition;
    rendition.name = spec.rung;
    rendition.path = Join(folder, spec.file);
    rendition.shape = set.shape;
    std::vector<FrameScores> expected;
    for (size_t f = 0; f < decoded->size(); ++f) {
      auto scores = ScoreOnCpu(cpu, set.shape, (*source_luma)[f], (*decoded)[f]);
      if (!scores.ok()) return scores.status();
      expected.push_back(*std::move(scores));
    }
    set.renditions.push_back(std::move(rendition));
    set.expected.push_back(std::move(expected));
  }
  if (set.renditions.empty()) {
    media->notes.push_back("encoded renditions skipped: none could be made or read");
    return false;
  }
  set.frames = static_cast<int>(source_luma->size());
  set.cycle = set.frames;
  media->encoded_set = static_cast<int>(media->sets.size());
  media->sets.push_back(std::move(set));
  return true;
}

// A .y4m that claims `side` x `side` pictures: a sparse file, nothing on disk.
absl::Status AddY4mBomb(const std::string& root, const std::string& folder, int side,
                        LadderMedia* media) {
  const Geometry claimed{side, side, 8, ChromaFormat::k420};
  const std::string name = absl::StrFormat("y4m_%dx%d.y4m", side, side);
  if (absl::Status s = WriteSparseY4m(Join(Join(root, folder), name), claimed, 2); !s.ok()) {
    return s;
  }
  media->bombs.push_back({Join(folder, name),
                          absl::StrFormat("y4m %dx%d, 2 frames (sparse)", side, side), side, side});
  return absl::OkStatus();
}

// One black H.264 picture of `side` x `side`: a few hundred KB that decode to 1.5 x side^2 bytes.
// FFmpeg refuses to make pictures over about 2^28 pixels, so this bomb can only be as large as the
// smaller limit.
absl::Status AddH264Bomb(const LadderMediaOptions& options, const std::string& folder, int side,
                         LadderMedia* media) {
  const std::string name = absl::StrFormat("h264_%dx%d.mkv", side, side);
  const std::string path = Join(Join(options.files_root, folder), name);
  if (!Exists(path)) {
    if (options.ffmpeg.empty()) {
      media->notes.push_back("encoded decode bomb skipped: no ffmpeg here and none prepared");
      return absl::OkStatus();
    }
    const std::string partial = path + ".partial";
    absl::Status made = RunCommand(
        {options.ffmpeg, "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
         absl::StrFormat("color=black:s=%dx%d:r=25", side, side), "-frames:v", "1", "-pix_fmt",
         "yuv420p", "-c:v", "libx264", "-preset", "ultrafast", "-f", "matroska", partial},
        kFfmpegTimeout, path + ".log");
    if (made.ok() && std::rename(partial.c_str(), path.c_str()) != 0) {
      made = absl::InternalError(absl::StrCat("cannot rename ", partial));
    }
    ::unlink(partial.c_str());
    if (!made.ok()) {
      media->notes.push_back(absl::StrCat("encoded decode bomb skipped: ", made.message()));
      return absl::OkStatus();
    }
    ::unlink((path + ".log").c_str());
  }
  media->bombs.push_back(
      {Join(folder, name), absl::StrFormat("h264 %dx%d, 1 frame", side, side), side, side});
  return absl::OkStatus();
}

absl::Status AddBombs(const LadderMediaOptions& options, LadderMedia* media) {
  const std::string folder = Join(kMediaFolder, "bomb");
  if (absl::Status s = MakeDirectories(Join(options.files_root, folder)); !s.ok()) return s;
  if (absl::Status s = AddY4mBomb(options.files_root, folder, options.huge_bomb_side, media);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = AddY4mBomb(options.files_root, folder, options.large_bomb_side, media);
      !s.ok()) {
    return s;
  }
  if (!options.encoded_bomb) return absl::OkStatus();
  return AddH264Bomb(options, folder, options.large_bomb_side, media);
}

}  // namespace

absl::StatusOr<LadderMedia> PrepareLadderMedia(const LadderMediaOptions& options, Scorer* cpu) {
  LadderMedia media;
  const std::vector<RawSetSpec> raw = {
      // The long ladder: thousands of small results, more than a client's flow-control window.
      {"y4m8",
       {64, 36, 8, ChromaFormat::k420},
       std::max(kRawCycle, options.long_frames),
       {"float_ssim=enable_lcs=true", "ssim"},
       {{"r1", 20, {}}, {"r2", 50, {}}, {"r3", 90, {"float_ssim=enable_db=true:clip_db=true"}}}},
      {"y4m10",
       {96, 54, 10, ChromaFormat::k422},
       300,
       {"float_ssim=scale=2:enable_db=true", "ssim=enable_db=true"},
       {{"r1", 30, {}}, {"r2", 70, {}}}},
      // Fetched whole over slow HTTP: small files.
      {"url",
       {64, 36, 8, ChromaFormat::k420},
       std::max(kRawCycle, options.url_frames),
       {"float_ssim", "ssim"},
       {{"u1", 20, {}}, {"u2", 60, {}}}},
  };
  for (const RawSetSpec& spec : raw) {
    auto set = MakeRawSet(spec, options.files_root, cpu);
    if (!set.ok()) return set.status();
    if (spec.name == "y4m8") media.long_set = static_cast<int>(media.sets.size());
    if (spec.name == "url") media.url_set = static_cast<int>(media.sets.size());
    media.sets.push_back(*std::move(set));
  }
  if (options.encoded_renditions) {
    auto added = AddEncodedSet(options, cpu, &media);
    if (!added.ok()) return added.status();
  }
  if (absl::Status s = AddBombs(options, &media); !s.ok()) return s;
  return media;
}

}  // namespace ssimd::fault_load
