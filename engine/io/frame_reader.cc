#include "engine/io/frame_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/io/y4m_header.h"

namespace ssimd {
namespace {

// The header line is short in practice (about 50 bytes); a cap keeps a file that is not a y4m
// at all from being read whole in search of a newline.
constexpr size_t kMaxY4mLine = 4096;
// A frame's line without parameters.
constexpr absl::string_view kY4mFrameLine = "FRAME\n";

absl::Status ErrnoStatus(int err, const std::string& what) {
  const std::string message = absl::StrCat(what, ": ", std::strerror(err));
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    default:
      return absl::UnavailableError(message);
  }
}

// Reads one line (without its '\n') of at most kMaxY4mLine bytes. false at a clean end of file.
absl::StatusOr<bool> ReadLine(std::FILE* file, const std::string& name, std::string* line) {
  line->clear();
  for (;;) {
    const int c = std::fgetc(file);
    if (c == EOF) {
      if (line->empty()) return false;
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: the file ends inside a y4m header line (\"%s\")", name, *line));
    }
    if (c == '\n') return true;
    if (line->size() >= kMaxY4mLine) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: a y4m header line is longer than %d bytes; is this a y4m file?", name,
          kMaxY4mLine));
    }
    line->push_back(static_cast<char>(c));
  }
}

std::string GeometryText(const Geometry& g) {
  return absl::StrFormat("%dx%d %d-bit %s", g.width, g.height, g.bit_depth,
                         ChromaFormatName(g.chroma));
}

}  // namespace

FileFormat FileFormatForPath(absl::string_view path) {
  return absl::EndsWithIgnoreCase(path, ".y4m") ? FileFormat::kY4m : FileFormat::kRawYuv;
}

absl::StatusOr<std::unique_ptr<FrameReader>> FrameReader::Open(
    const std::string& path, const std::optional<Geometry>& raw_geometry) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("cannot open ", path));
  return FromFd(fd, path, FileFormatForPath(path), raw_geometry);
}

absl::StatusOr<std::unique_ptr<FrameReader>> FrameReader::FromFd(
    int fd, std::string name, FileFormat format, const std::optional<Geometry>& raw_geometry) {
  std::FILE* file = ::fdopen(fd, "rb");
  if (file == nullptr) {
    const int err = errno;
    ::close(fd);
    return ErrnoStatus(err, absl::StrCat("cannot read ", name));
  }
  // Frames are large and read whole: a bigger buffer saves system calls for the small ones.
  std::setvbuf(file, nullptr, _IOFBF, 1 << 20);
  Geometry geometry;
  uint64_t header_bytes = 0;
  std::string frame_rate;
  if (format == FileFormat::kRawYuv) {
    if (!raw_geometry.has_value()) {
      std::fclose(file);
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: a raw .yuv file needs its width, height, bit depth and pixel format", name));
    }
    geometry = *raw_geometry;
  } else {
    std::string line;
    auto got = ReadLine(file, name, &line);
    if (got.ok() && !*got) {
      got = absl::InvalidArgumentError(absl::StrCat(name, ": the file is empty"));
    }
    absl::StatusOr<Y4mHeader> header =
        got.ok() ? ParseY4mHeader(line) : absl::StatusOr<Y4mHeader>(got.status());
    if (!header.ok()) {
      std::fclose(file);
      return absl::Status(header.status().code(),
                          absl::StrCat(name, ": ", header.status().message()));
    }
    geometry = header->geometry;
    frame_rate = header->frame_rate;
    header_bytes = line.size() + 1;
    if (raw_geometry.has_value() &&
        (raw_geometry->width != geometry.width || raw_geometry->height != geometry.height ||
         raw_geometry->bit_depth != geometry.bit_depth)) {
      std::fclose(file);
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: the y4m header says %s but %s was given; leave the geometry out for .y4m files",
          name, GeometryText(geometry), GeometryText(*raw_geometry)));
    }
  }
  absl::Status valid = ValidateGeometry(geometry);
  if (!valid.ok()) {
    std::fclose(file);
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", valid.message()));
  }
  std::unique_ptr<FrameReader> reader(new FrameReader(file, std::move(name), format, geometry));
  struct stat st;
  if (::fstat(::fileno(file), &st) == 0 && S_ISREG(st.st_mode)) {
    reader->regular_file_size_ = static_cast<uint64_t>(st.st_size);
  }
  reader->header_bytes_ = header_bytes;
  reader->frame_rate_ = std::move(frame_rate);
  reader->positional_ = reader->CanReadPositionally();
  return reader;
}

bool FrameReader::CanReadPositionally() const {
  if (!regular_file_size_.has_value()) return false;
  if (format_ == FileFormat::kRawYuv) return true;
  // A frame line with parameters shifts every later frame; a file of bare lines has exactly this
  // size, and its first line says whether the others are likely bare too (each is checked as it
  // is read).
  const uint64_t size = *regular_file_size_;
  if (size < header_bytes_ || (size - header_bytes_) % FrameStride() != 0) return false;
  if (size == header_bytes_) return true;
  char line[kY4mFrameLine.size()];
  return ::pread(::fileno(file_), line, sizeof(line), static_cast<off_t>(header_bytes_)) ==
             static_cast<ssize_t>(sizeof(line)) &&
         absl::string_view(line, sizeof(line)) == kY4mFrameLine;
}

uint64_t FrameReader::FrameStride() const {
  return (format_ == FileFormat::kY4m ? kY4mFrameLine.size() : 0) + FrameBytes(geometry_);
}

absl::StatusOr<bool> FrameReader::ReadPlanesAt(uint64_t index, std::string* planes) const {
  const uint64_t size = *regular_file_size_;
  const uint64_t start = header_bytes_ + index * FrameStride();
  if (start >= size) return false;
  const int fd = ::fileno(file_);
  uint64_t at = start;
  if (format_ == FileFormat::kY4m) {
    char line[kY4mFrameLine.size()];
    const ssize_t got = ::pread(fd, line, sizeof(line), static_cast<off_t>(at));
    if (got != static_cast<ssize_t>(sizeof(line)) ||
        absl::string_view(line, sizeof(line)) != kY4mFrameLine) {
      return NotAFrameLine(index, absl::string_view(line, got > 0 ? got : 0));
    }
    at += sizeof(line);
  }
  const size_t frame_bytes = FrameBytes(geometry_);
  const size_t wanted = keep_chroma_ ? frame_bytes : LumaBytes(geometry_);
  planes->resize(wanted);
  const uint64_t in_file = std::min<uint64_t>(size - at, frame_bytes);
  if (in_file < frame_bytes) return TruncatedAt(index, frame_bytes, in_file);
  size_t done = 0;
  while (done < wanted) {
    const ssize_t n = ::pread(fd, planes->data() + done, wanted - done,
                              static_cast<off_t>(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return ErrnoStatus(errno, absl::StrFormat("%s: cannot read frame %d", name_, index));
    }
    // The file shrank since it was opened.
    if (n == 0) return TruncatedAt(index, frame_bytes, done);
    done += static_cast<size_t>(n);
  }
  return true;
}

std::optional<uint64_t> FrameReader::EstimatedFrames() const {
  struct stat st;
  if (::fstat(::fileno(file_), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < header_bytes_) return 0;
  return (size - header_bytes_) / FrameStride();
}

FrameReader::FrameReader(std::FILE* file, std::string name, FileFormat format,
                         const Geometry& geometry)
    : file_(file), name_(std::move(name)), format_(format), geometry_(geometry) {}

FrameReader::~FrameReader() { std::fclose(file_); }

size_t FrameReader::ReadBytes(char* dst, size_t size) {
  size_t done = 0;
  while (done < size) {
    const size_t n = std::fread(dst + done, 1, size - done, file_);
    if (n == 0) break;
    done += n;
  }
  return done;
}

size_t FrameReader::SkipChroma(size_t bytes) {
  if (regular_file_size_.has_value()) {
    const off_t at = ::ftello(file_);
    if (at >= 0) {
      const uint64_t left =
          *regular_file_size_ > static_cast<uint64_t>(at) ? *regular_file_size_ - at : 0;
      const size_t skipped = static_cast<size_t>(std::min<uint64_t>(left, bytes));
      if (::fseeko(file_, static_cast<off_t>(skipped), SEEK_CUR) == 0) return skipped;
    }
  }
  chroma_scratch_.resize(bytes);
  return ReadBytes(chroma_scratch_.data(), bytes);
}

absl::Status FrameReader::TruncatedAt(uint64_t index, size_t expected, size_t got) const {
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: frame %d is truncated: the file ends after %d of its %d bytes (%s)", name_, index, got,
      expected, GeometryText(geometry_)));
}

absl::Status FrameReader::NotAFrameLine(uint64_t index, absl::string_view found) const {
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: frame %d does not start with a y4m FRAME line (found \"%s\"); the file is damaged or "
      "its header does not describe its frames",
      name_, index, absl::CHexEscape(found.substr(0, 32))));
}

absl::StatusOr<bool> FrameReader::ReadFrameHeader() {
  std::string line;
  auto got = ReadLine(file_, name_, &line);
  if (!got.ok() || !*got) return got;
  if (line != "FRAME" && !absl::StartsWith(line, "FRAME ")) {
    return NotAFrameLine(frames_read_, line);
  }
  return true;
}

absl::StatusOr<bool> FrameReader::ReadPlanes(std::string* planes) {
  if (format_ == FileFormat::kY4m) {
    auto header = ReadFrameHeader();
    if (!header.ok() || !*header) return header;
  }
  const size_t luma_bytes = LumaBytes(geometry_);
  const size_t chroma_bytes = FrameBytes(geometry_) - luma_bytes;
  const size_t wanted = keep_chroma_ ? luma_bytes + chroma_bytes : luma_bytes;
  planes->resize(wanted);
  const size_t got = ReadBytes(planes->data(), wanted);
  if (got == 0 && format_ == FileFormat::kRawYuv) return false;
  if (got < wanted) return Truncated(luma_bytes + chroma_bytes, got);
  if (keep_chroma_) {
    ++frames_read_;
    return true;
  }
  const size_t got_chroma = SkipChroma(chroma_bytes);
  if (got_chroma < chroma_bytes) return Truncated(luma_bytes + chroma_bytes, luma_bytes + got_chroma);
  ++frames_read_;
  return true;
}

absl::Status FrameReader::Skip(uint64_t frames) {
  std::string scratch;
  for (uint64_t i = 0; i < frames; ++i) {
    auto got = ReadPlanes(&scratch);
    if (!got.ok()) return got.status();
    if (!*got) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: cannot skip %d frames: the file has only %d", name_, frames, frames_read_));
    }
  }
  return absl::OkStatus();
}

}  // namespace ssimd
