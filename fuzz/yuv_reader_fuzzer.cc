// Fuzzes the raw planar .yuv reader (FrameReader with FileFormat::kRawYuv).
//
// Input: 4 parameter bytes, then the file's contents.
//   byte 0: width - 1 (mod 64)      byte 1: height - 1 (mod 64)
//   byte 2: bits 0-1 bit depth (8, 10, 12, 16), bits 2-3 chroma (400, 420, 422, 444)
//   byte 3: frames to skip first (mod 4)
// A raw file has no header, so the reader's answers can be checked exactly against the bytes:
// the frame count estimate, which frames come out, each frame's luma bytes (at the right offset),
// where a truncated frame is reported, and the sample range check on the planes.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "absl/types/span.h"
#include "engine/io/frame_reader.h"
#include "engine/picture.h"
#include "fuzz/fuzz_support.h"

namespace ssimd {
namespace {

constexpr int kDepths[] = {8, 10, 12, 16};
constexpr ChromaFormat kChromas[] = {ChromaFormat::k400, ChromaFormat::k420, ChromaFormat::k422,
                                     ChromaFormat::k444};

// The sample range check, written independently: any little-endian word above the peak.
bool AllSamplesInRange(const std::string& luma, int bit_depth) {
  if (bit_depth == 8 || bit_depth == 16) return true;
  const uint32_t peak = (uint32_t{1} << bit_depth) - 1;
  for (size_t i = 0; i + 1 < luma.size(); i += 2) {
    const uint32_t v = static_cast<uint8_t>(luma[i]) | (static_cast<uint8_t>(luma[i + 1]) << 8);
    if (v > peak) return false;
  }
  return true;
}

void Run(const uint8_t* data, size_t size) {
  fuzz::ByteCursor cursor(data, size);
  Geometry geometry;
  geometry.width = 1 + cursor.Byte() % 64;
  geometry.height = 1 + cursor.Byte() % 64;
  const uint8_t format = cursor.Byte();
  geometry.bit_depth = kDepths[format & 3];
  geometry.chroma = kChromas[(format >> 2) & 3];
  const uint64_t skip = cursor.Byte() % 4;
  const uint8_t* file = cursor.rest();
  const size_t file_size = cursor.rest_size();

  // Without a geometry a raw file cannot be read at all.
  {
    const int fd = fuzz::MemoryFile(file, file_size);
    if (fd < 0) return;
    auto refused = FrameReader::FromFd(fd, "fuzz.yuv", FileFormat::kRawYuv, std::nullopt);
    FUZZ_CHECK(!refused.ok() && refused.status().code() == absl::StatusCode::kInvalidArgument,
               "a raw file without geometry was not refused with INVALID_ARGUMENT");
  }

  const int fd = fuzz::MemoryFile(file, file_size);
  if (fd < 0) return;
  auto opened = FrameReader::FromFd(fd, "fuzz.yuv", FileFormat::kRawYuv, geometry);
  FUZZ_CHECK(opened.ok(), "a valid geometry was refused: %s", opened.status().ToString().c_str());
  FrameReader& reader = **opened;

  const size_t frame_bytes = FrameBytes(geometry);
  const size_t luma_bytes = LumaBytes(geometry);
  FUZZ_CHECK(luma_bytes <= frame_bytes, "luma is larger than the whole frame");
  const uint64_t whole_frames = file_size / frame_bytes;
  const bool ragged = file_size % frame_bytes != 0;
  const std::optional<uint64_t> estimate = reader.EstimatedFrames();
  FUZZ_CHECK(estimate.has_value() && *estimate == whole_frames,
             "EstimatedFrames is %lld for %lld whole frames",
             estimate.has_value() ? static_cast<long long>(*estimate) : -1LL,
             static_cast<long long>(whole_frames));

  absl::Status skipped = reader.Skip(skip);
  if (skip > whole_frames) {
    FUZZ_CHECK(!skipped.ok() && skipped.code() == absl::StatusCode::kInvalidArgument,
               "skipping %lld of %lld frames did not fail", static_cast<long long>(skip),
               static_cast<long long>(whole_frames));
    return;
  }
  FUZZ_CHECK(skipped.ok(), "skipping %lld of %lld frames failed: %s",
             static_cast<long long>(skip), static_cast<long long>(whole_frames),
             skipped.ToString().c_str());
  FUZZ_CHECK(reader.frames_read() == skip, "frames_read is not the frames skipped");

  std::string luma;
  for (uint64_t frame = skip;; ++frame) {
    absl::StatusOr<bool> got = reader.ReadPlanes(&luma);
    if (frame < whole_frames) {
      FUZZ_CHECK(got.ok() && *got, "whole frame %lld was not read",
                 static_cast<long long>(frame));
      FUZZ_CHECK(luma.size() == luma_bytes, "frame %lld has %zu luma bytes, expected %zu",
                 static_cast<long long>(frame), luma.size(), luma_bytes);
      FUZZ_CHECK(std::memcmp(luma.data(), file + frame * frame_bytes, luma_bytes) == 0,
                 "frame %lld's luma is not the file's bytes at its offset",
                 static_cast<long long>(frame));
      FUZZ_CHECK(reader.frames_read() == frame + 1, "frames_read does not count frames");
      auto view = MakeLumaView(geometry,
                               absl::Span<const uint8_t>(
                                   reinterpret_cast<const uint8_t*>(luma.data()), luma.size()),
                               "luma");
      FUZZ_CHECK(view.ok(), "a luma plane from the reader does not fit its geometry");
      FUZZ_CHECK(ValidateSampleRange(*view, "luma").ok() ==
                     AllSamplesInRange(luma, geometry.bit_depth),
                 "ValidateSampleRange disagrees with the samples");
      continue;
    }
    if (ragged) {
      FUZZ_CHECK(!got.ok() && got.status().code() == absl::StatusCode::kInvalidArgument,
                 "a truncated last frame was not reported");
    } else {
      FUZZ_CHECK(got.ok() && !*got, "no clean end of file after the last whole frame");
    }
    break;
  }
}

}  // namespace
}  // namespace ssimd

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ssimd::Run(data, size);
  return 0;
}
