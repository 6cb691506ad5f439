// Fuzzes the YUV4MPEG2 (.y4m) reader: the stream header parser and FrameReader with
// FileFormat::kY4m.
//
// Input: the whole .y4m file. Besides "no crash", the reader is checked against a small
// independent model of the format (header line, then per frame a "FRAME[ params]" line and the
// frame's planes): the same frames come out with the same luma bytes (and chroma bytes, for
// inputs of odd size, read with KeepChroma), malformed or truncated frames are INVALID_ARGUMENT,
// a geometry given with the file must match its header, and the frame count estimate is exact
// for files whose frame lines carry no parameters.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "engine/io/frame_reader.h"
#include "engine/io/y4m_header.h"
#include "engine/picture.h"
#include "fuzz/fuzz_support.h"

namespace ssimd {
namespace {

// The reader's longest accepted line (header or FRAME line), newline excluded.
constexpr size_t kMaxLine = 4096;
// Frames read per input: enough for every path, few enough to keep executions fast.
constexpr int kMaxFrames = 16;

// The model's view of one line starting at `pos`: its end, or nothing when the reader must refuse
// it (no newline, or too long). `at_eof` says the file ended exactly at `pos`.
struct Line {
  bool at_eof = false;
  bool ok = false;
  absl::string_view text;
  size_t next = 0;  // the position after the newline
};

Line NextLine(absl::string_view file, size_t pos) {
  Line line;
  if (pos >= file.size()) {
    line.at_eof = true;
    return line;
  }
  const size_t newline = file.find('\n', pos);
  if (newline == absl::string_view::npos || newline - pos > kMaxLine) return line;
  line.ok = true;
  line.text = file.substr(pos, newline - pos);
  line.next = newline + 1;
  return line;
}

bool IsFrameLine(absl::string_view text) {
  return text == "FRAME" || (text.size() > 5 && text.substr(0, 6) == "FRAME ");
}

bool SameGeometry(const Geometry& a, const Geometry& b) {
  return a.width == b.width && a.height == b.height && a.bit_depth == b.bit_depth &&
         a.chroma == b.chroma;
}

void Run(const uint8_t* data, size_t size) {
  const absl::string_view file(reinterpret_cast<const char*>(data), size);

  // The header parser on its own, on the first line (or the whole input without a newline).
  const size_t first_newline = file.find('\n');
  absl::StatusOr<Y4mHeader> header = ParseY4mHeader(file.substr(0, first_newline));
  if (header.ok()) {
    FUZZ_CHECK(ValidateGeometry(header->geometry).ok(), "an accepted header has a bad geometry");
  } else {
    FUZZ_CHECK(header.status().code() == absl::StatusCode::kInvalidArgument,
               "header refused with code %d", static_cast<int>(header.status().code()));
  }

  const Line header_line = NextLine(file, 0);
  const bool model_opens = header_line.ok && header.ok();
  const int fd = fuzz::MemoryFile(data, size);
  if (fd < 0) return;
  auto opened = FrameReader::FromFd(fd, "fuzz.y4m", FileFormat::kY4m, std::nullopt);
  FUZZ_CHECK(opened.ok() == model_opens, "the reader %s a file the model %s: %s",
             opened.ok() ? "opened" : "refused", model_opens ? "opens" : "refuses",
             opened.status().ToString().c_str());
  if (!opened.ok()) {
    FUZZ_CHECK(opened.status().code() == absl::StatusCode::kInvalidArgument,
               "open refused with code %d", static_cast<int>(opened.status().code()));
    return;
  }
  FrameReader& reader = **opened;
  const Geometry geometry = reader.geometry();
  FUZZ_CHECK(SameGeometry(geometry, header->geometry),
             "the reader's geometry differs from the header's");

  // A geometry given with the file must agree with the header.
  {
    Geometry other = geometry;
    other.width = geometry.width == 1 ? 2 : geometry.width - 1;
    const int fd2 = fuzz::MemoryFile(data, size);
    if (fd2 < 0) return;
    auto refused = FrameReader::FromFd(fd2, "fuzz.y4m", FileFormat::kY4m, other);
    FUZZ_CHECK(!refused.ok() && refused.status().code() == absl::StatusCode::kInvalidArgument,
               "a geometry that contradicts the header was accepted");
    const int fd3 = fuzz::MemoryFile(data, size);
    if (fd3 < 0) return;
    auto same = FrameReader::FromFd(fd3, "fuzz.y4m", FileFormat::kY4m, geometry);
    FUZZ_CHECK(same.ok(), "the header's own geometry was refused: %s",
               same.status().ToString().c_str());
  }

  // A frame larger than the whole input can only be truncated; reading it would just allocate.
  const size_t frame_bytes = FrameBytes(geometry);
  const size_t luma_bytes = LumaBytes(geometry);
  if (frame_bytes > size) return;

  // Half the inputs are read with their chroma: the same frames, more bytes of each.
  const bool keep_chroma = (size & 1) != 0;
  if (keep_chroma) reader.KeepChroma();
  const size_t wanted_bytes = keep_chroma ? frame_bytes : luma_bytes;
  size_t pos = header_line.next;
  bool plain_frame_lines = true;
  std::string planes;
  for (int frame = 0; frame < kMaxFrames; ++frame) {
    absl::StatusOr<bool> got = reader.ReadPlanes(&planes);
    const Line line = NextLine(file, pos);
    if (line.at_eof) {
      FUZZ_CHECK(got.ok() && !*got, "no clean end of file after frame %d", frame);
      const std::optional<uint64_t> estimate = reader.EstimatedFrames();
      if (plain_frame_lines) {
        FUZZ_CHECK(estimate.has_value() && *estimate == static_cast<uint64_t>(frame),
                   "EstimatedFrames is %lld for %d frames",
                   estimate.has_value() ? static_cast<long long>(*estimate) : -1LL, frame);
      }
      return;
    }
    const bool model_reads =
        line.ok && IsFrameLine(line.text) && file.size() - line.next >= frame_bytes;
    FUZZ_CHECK(got.ok() == model_reads, "frame %d: the reader %s, the model %s: %s", frame,
               got.ok() ? "read it" : "refused it", model_reads ? "reads it" : "refuses it",
               got.status().ToString().c_str());
    if (!got.ok()) {
      FUZZ_CHECK(got.status().code() == absl::StatusCode::kInvalidArgument,
                 "frame %d refused with code %d", frame, static_cast<int>(got.status().code()));
      return;
    }
    FUZZ_CHECK(*got, "frame %d: end of file reported inside the file", frame);
    FUZZ_CHECK(planes.size() == wanted_bytes &&
                   std::memcmp(planes.data(), file.data() + line.next, wanted_bytes) == 0,
               "frame %d's planes are not the file's bytes after its FRAME line", frame);
    FUZZ_CHECK(reader.frames_read() == static_cast<uint64_t>(frame) + 1,
               "frames_read does not count frames");
    plain_frame_lines = plain_frame_lines && line.text == "FRAME";
    pos = line.next + frame_bytes;
  }
}

}  // namespace
}  // namespace ssimd

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ssimd::Run(data, size);
  return 0;
}
