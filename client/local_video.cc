#include "client/local_video.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "engine/io/frame_reader.h"
#include "engine/media/video_decoder.h"

namespace ssimd {

namespace {

// As the engine's .y4m reader: header lines are short, and the cap keeps a file that is not a y4m
// at all from being read whole in search of a newline.
constexpr size_t kMaxY4mLine = 4096;

absl::Status CannotOpen(const std::string& path, int error) {
  return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(error)));
}

// One line of `file` without its '\n', at most kMaxY4mLine + 1 bytes (one more than a valid line
// may hold, so that whoever parses it can tell a line that is too long). Sets *ended when the
// file ended before a '\n'.
std::string ReadLine(std::FILE* file, bool* ended) {
  std::string line;
  *ended = false;
  while (line.size() <= kMaxY4mLine) {
    const int c = std::fgetc(file);
    if (c == EOF) {
      *ended = true;
      break;
    }
    if (c == '\n') break;
    line.push_back(static_cast<char>(c));
  }
  return line;
}

// The geometry and frame rate of a raw .yuv file (`header` empty) or of a .y4m file whose header
// line is `header` (with its '\n' where the file had one), settled by the engine's FrameReader
// (which the server's readers use too), so that the same files are accepted with the same
// messages. The FrameReader reads the header from a pipe, since the file's own descriptor stays
// here to be read whole; no frame is read through it.
absl::StatusOr<std::unique_ptr<FrameReader>> SettleHeader(const std::string& name, bool y4m,
                                                           const std::string& header,
                                                           const std::optional<Geometry>& raw) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    const int error = errno;
    return absl::InternalError(absl::StrCat(name, ": cannot make a pipe: ", std::strerror(error)));
  }
  // At most kMaxY4mLine + 2 bytes: far below any pipe's buffer, so the write cannot block.
  const ssize_t wrote = header.empty() ? 0 : ::write(fds[1], header.data(), header.size());
  const int error = errno;
  ::close(fds[1]);
  if (wrote != static_cast<ssize_t>(header.size())) {
    ::close(fds[0]);
    return absl::InternalError(
        absl::StrCat(name, ": cannot pass the y4m header on: ", std::strerror(error)));
  }
  return FrameReader::FromFd(fds[0], name, y4m ? FileFormat::kY4m : FileFormat::kRawYuv, raw);
}

// "num:den" from a .y4m header; unknown when absent or malformed.
FrameRate ParseRate(absl::string_view text) {
  std::pair<std::string, std::string> parts = absl::StrSplit(text, ':');
  FrameRate rate;
  if (!absl::SimpleAtoi(parts.first, &rate.num) || !absl::SimpleAtoi(parts.second, &rate.den)) {
    return FrameRate();
  }
  return rate;
}

// An encoded file comes as its DecodedInput too, for fitting it to its reference.
absl::StatusOr<OpenedInput> OpenLocal(const std::string& path,
                                      const std::optional<Geometry>& raw_geometry) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return CannotOpen(path, errno);
  }
  const InputKind kind = InputKindForPath(path);
  if (kind != InputKind::kEncoded) {
    absl::StatusOr<std::unique_ptr<VideoInput>> raw = OpenRawInput(fd, path, kind, raw_geometry);
    if (!raw.ok()) return raw.status();
    return OpenedInput::Raw(*std::move(raw));
  }
  absl::StatusOr<std::unique_ptr<DecodedInput>> decoded =
      DecodedInput::Open(fd, path, DecodeLimits());
  if (!decoded.ok()) return decoded.status();
  return OpenedInput::Decoded(*std::move(decoded));
}

// Why a file decoded here cannot be scored with chroma: its pictures give luma only.
absl::Status NoChromaFromDecoding(absl::string_view flag, const std::string& path) {
  return absl::InvalidArgumentError(absl::StrCat(
      flag, " ", path, ": psnr reads the chroma planes (enable_chroma, libvmaf's default), which "
      "the frames transport sends from raw .yuv and .y4m files only, not from files decoded "
      "here; add --feature psnr=enable_chroma=false to score psnr_y alone, or give raw .yuv or "
      ".y4m files"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<WholeFrameInput>> WholeFrameInput::Open(
    const std::string& path, const std::optional<Geometry>& raw_geometry) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return CannotOpen(path, errno);
  std::FILE* file = ::fdopen(fd, "rb");
  if (file == nullptr) {
    const int error = errno;
    ::close(fd);
    return absl::UnavailableError(absl::StrCat("cannot read ", path, ": ", std::strerror(error)));
  }
  // Frames are large and read whole: a bigger buffer saves system calls for the small ones.
  std::setvbuf(file, nullptr, _IOFBF, 1 << 20);
  const bool y4m = InputKindForPath(path) == InputKind::kY4m;
  std::string header;
  if (y4m) {
    bool ended = false;
    header = ReadLine(file, &ended);
    if (!ended) header.push_back('\n');
  }
  absl::StatusOr<std::unique_ptr<FrameReader>> settled =
      SettleHeader(path, y4m, header, raw_geometry);
  if (!settled.ok()) {
    std::fclose(file);
    return settled.status();
  }
  const Geometry geometry = (*settled)->geometry();
  // The limit the engine's readers apply to what a raw file or a y4m header declares.
  if (absl::Status s = CheckPictureSize(DecodeLimits(), path,
                                        y4m ? "the y4m header declares pictures of"
                                            : "config.geometry gives the raw file pictures of",
                                        geometry.width, geometry.height);
      !s.ok()) {
    std::fclose(file);
    return s;
  }
  return std::unique_ptr<WholeFrameInput>(new WholeFrameInput(
      file, path, y4m, geometry, ParseRate((*settled)->frame_rate()), header.size()));
}

WholeFrameInput::WholeFrameInput(std::FILE* file, std::string name, bool y4m,
                                 const Geometry& geometry, FrameRate frame_rate,
                                 uint64_t header_bytes)
    : file_(file),
      name_(std::move(name)),
      y4m_(y4m),
      geometry_(geometry),
      frame_rate_(frame_rate),
      header_bytes_(header_bytes) {}

WholeFrameInput::~WholeFrameInput() { std::fclose(file_); }

size_t WholeFrameInput::ReadBytes(std::string* out, size_t size) {
  out->resize(size);
  size_t done = 0;
  while (done < size) {
    const size_t n = std::fread(out->data() + done, 1, size - done, file_);
    if (n == 0) break;
    done += n;
  }
  return done;
}

absl::Status WholeFrameInput::Truncated(size_t got) const {
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: frame %d is truncated: the file ends after %d of its %d bytes (%s %s)", name_,
      frames_read_, got, FrameBytes(geometry_), GeometryText(geometry_),
      ChromaFormatName(geometry_.chroma)));
}

absl::StatusOr<bool> WholeFrameInput::ReadFrame(std::string* luma, std::string* chroma) {
  if (y4m_) {
    bool ended = false;
    const std::string line = ReadLine(file_, &ended);
    if (ended && line.empty()) return false;
    if (ended || line.size() > kMaxY4mLine ||
        (line != "FRAME" && !absl::StartsWith(line, "FRAME "))) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: frame %d does not start with a y4m FRAME line (found \"%s\"); the file is "
          "damaged or its header does not describe its frames",
          name_, frames_read_, absl::CHexEscape(absl::string_view(line).substr(0, 32))));
    }
  }
  const size_t luma_bytes = LumaBytes(geometry_);
  const size_t chroma_bytes = FrameBytes(geometry_) - luma_bytes;
  const size_t got = ReadBytes(luma, luma_bytes);
  if (got == 0 && !y4m_) return false;
  if (got < luma_bytes) return Truncated(got);
  const size_t got_chroma = ReadBytes(chroma, chroma_bytes);
  if (got_chroma < chroma_bytes) return Truncated(luma_bytes + got_chroma);
  ++frames_read_;
  return true;
}

absl::StatusOr<bool> WholeFrameInput::Read(Picture* out) {
  return ReadFrame(out->ResetOnHost(geometry_), &chroma_scratch_);
}

std::optional<uint64_t> WholeFrameInput::EstimatedFrames() const {
  struct stat st;
  if (::fstat(::fileno(file_), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < header_bytes_) return 0;
  // As the engine counts them: frame lines without parameters.
  const uint64_t stride = (y4m_ ? sizeof("FRAME\n") - 1 : 0) + FrameBytes(geometry_);
  return (size - header_bytes_) / stride;
}

absl::StatusOr<std::unique_ptr<VideoInput>> OpenLocalVideo(
    const std::string& path, const std::optional<Geometry>& raw_geometry) {
  absl::StatusOr<OpenedInput> opened = OpenLocal(path, raw_geometry);
  if (!opened.ok()) return opened.status();
  return std::move(opened->input);
}

absl::StatusOr<LocalPair> OpenLocalPair(const std::string& reference,
                                        const std::string& distorted,
                                        const std::optional<Geometry>& raw_geometry,
                                        const ScalerChoice& scaler, bool chroma) {
  LocalPair pair;
  if (chroma && InputKindForPath(reference) != InputKind::kEncoded) {
    absl::StatusOr<std::unique_ptr<WholeFrameInput>> ref =
        WholeFrameInput::Open(reference, raw_geometry);
    if (!ref.ok()) return ref.status();
    // A 4:0:0 picture has no chroma to read: psnr scores its luma alone.
    if ((*ref)->geometry().chroma != ChromaFormat::k400) pair.reference_frames = ref->get();
    pair.reference = *std::move(ref);
  } else {
    absl::StatusOr<std::unique_ptr<VideoInput>> ref = OpenLocalVideo(reference, raw_geometry);
    if (!ref.ok()) return ref.status();
    if (chroma && (*ref)->geometry().chroma != ChromaFormat::k400) {
      return NoChromaFromDecoding("-r", reference);
    }
    pair.reference = *std::move(ref);
  }
  if (pair.with_chroma()) {
    if (InputKindForPath(distorted) == InputKind::kEncoded) {
      return NoChromaFromDecoding("-d", distorted);
    }
    absl::StatusOr<std::unique_ptr<WholeFrameInput>> dis =
        WholeFrameInput::Open(distorted, raw_geometry);
    if (!dis.ok()) return dis.status();
    const Geometry& ref_geometry = pair.reference->geometry();
    if ((*dis)->geometry().chroma != ref_geometry.chroma) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "-d %s: its chroma is %s, but -r's is %s; psnr compares chroma planes (enable_chroma), "
          "so both files must have the same layout (or add --feature psnr=enable_chroma=false)",
          distorted, ChromaFormatName((*dis)->geometry().chroma),
          ChromaFormatName(ref_geometry.chroma)));
    }
    pair.distorted_frames = dis->get();
    OpenedInput opened = OpenedInput::Raw(*std::move(dis));
    SSIMD_RETURN_IF_ERROR(FitToReference(*pair.reference, "-r", opened, "-d", scaler));
    pair.distorted = std::move(opened.input);
    return pair;
  }
  absl::StatusOr<OpenedInput> dis = OpenLocal(distorted, raw_geometry);
  if (!dis.ok()) return dis.status();
  SSIMD_RETURN_IF_ERROR(FitToReference(*pair.reference, "-r", *dis, "-d", scaler));
  pair.distorted = std::move(dis->input);
  return pair;
}

}  // namespace ssimd
