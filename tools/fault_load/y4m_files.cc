#include "tools/fault_load/y4m_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace ssimd::fault_load {
namespace {

std::string ColourTag(const Geometry& g) {
  std::string layout;
  switch (g.chroma) {
    case ChromaFormat::k400:
      return g.bit_depth == 8 ? "mono" : absl::StrCat("mono", g.bit_depth);
    case ChromaFormat::k420:
      layout = "420";
      break;
    case ChromaFormat::k422:
      layout = "422";
      break;
    case ChromaFormat::k444:
      layout = "444";
      break;
  }
  if (g.bit_depth == 8) return layout == "420" ? "420jpeg" : layout;
  return absl::StrCat(layout, "p", g.bit_depth);
}

absl::Status ErrnoError(const std::string& what, const std::string& path) {
  return absl::InternalError(absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

// Mid-grey chroma samples for one frame (little-endian words above 8 bits).
std::string GreyChroma(const Geometry& g) {
  const size_t bytes = FrameBytes(g) - LumaBytes(g);
  std::string out(bytes, '\0');
  const uint32_t grey = 1u << (g.bit_depth - 1);
  const int width = BytesPerSample(g.bit_depth);
  for (size_t i = 0; i + width <= bytes; i += width) {
    StoreSample(reinterpret_cast<uint8_t*>(out.data() + i), 0, g.bit_depth, grey);
  }
  return out;
}

// The geometry a C tag stands for: "420jpeg", "422p10", "mono", "mono10", ...
absl::Status ParseColourTag(absl::string_view tag, Geometry* g) {
  g->bit_depth = 8;
  absl::string_view depth;
  if (absl::ConsumePrefix(&tag, "mono")) {
    g->chroma = ChromaFormat::k400;
    depth = tag;
  } else if (tag.size() >= 3) {
    const absl::string_view layout = tag.substr(0, 3);
    g->chroma = layout == "420"   ? ChromaFormat::k420
                : layout == "422" ? ChromaFormat::k422
                : layout == "444" ? ChromaFormat::k444
                                  : ChromaFormat::k400;
    if (layout != "420" && layout != "422" && layout != "444") {
      return absl::InvalidArgumentError(absl::StrCat("colour tag C", tag, " is not one of this tool's"));
    }
    tag.remove_prefix(3);
    if (absl::ConsumePrefix(&tag, "p")) depth = tag;
  }
  if (!depth.empty() && !absl::SimpleAtoi(depth, &g->bit_depth)) {
    return absl::InvalidArgumentError(absl::StrCat("colour tag with bit depth \"", depth, "\""));
  }
  return absl::OkStatus();
}

}  // namespace

std::string Y4mHeaderLine(const Geometry& geometry) {
  return absl::StrFormat("YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C%s\n", geometry.width, geometry.height,
                         ColourTag(geometry));
}

absl::StatusOr<Y4mFileWriter> Y4mFileWriter::Create(const std::string& path,
                                                    const Geometry& geometry) {
  const std::string temporary = absl::StrCat(path, ".partial");
  std::FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) return ErrnoError("cannot create", temporary);
  const std::string header = Y4mHeaderLine(geometry);
  if (std::fwrite(header.data(), 1, header.size(), file) != header.size()) {
    std::fclose(file);
    return ErrnoError("cannot write", temporary);
  }
  return Y4mFileWriter(file, path, geometry);
}

Y4mFileWriter::Y4mFileWriter(std::FILE* file, std::string path, const Geometry& geometry)
    : file_(file), path_(std::move(path)), geometry_(geometry), chroma_(GreyChroma(geometry)) {}

Y4mFileWriter::Y4mFileWriter(Y4mFileWriter&& other) noexcept
    : file_(std::exchange(other.file_, nullptr)),
      path_(std::move(other.path_)),
      geometry_(other.geometry_),
      chroma_(std::move(other.chroma_)) {}

Y4mFileWriter::~Y4mFileWriter() {
  if (file_ != nullptr) {
    std::fclose(file_);
    ::unlink(absl::StrCat(path_, ".partial").c_str());
  }
}

absl::Status Y4mFileWriter::AddFrame(const std::string& luma) {
  if (file_ == nullptr) return absl::FailedPreconditionError("the file is finished");
  if (luma.size() != LumaBytes(geometry_)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: a luma plane of %d bytes, expected %d", path_, luma.size(), LumaBytes(geometry_)));
  }
  static constexpr char kFrame[] = "FRAME\n";
  if (std::fwrite(kFrame, 1, sizeof kFrame - 1, file_) != sizeof kFrame - 1 ||
      std::fwrite(luma.data(), 1, luma.size(), file_) != luma.size() ||
      std::fwrite(chroma_.data(), 1, chroma_.size(), file_) != chroma_.size()) {
    return ErrnoError("cannot write", path_);
  }
  return absl::OkStatus();
}

absl::Status Y4mFileWriter::Finish() {
  if (file_ == nullptr) return absl::FailedPreconditionError("the file is finished");
  const bool flushed = std::fclose(file_) == 0;
  file_ = nullptr;
  const std::string temporary = absl::StrCat(path_, ".partial");
  if (!flushed) {
    ::unlink(temporary.c_str());
    return ErrnoError("cannot write", path_);
  }
  if (std::rename(temporary.c_str(), path_.c_str()) != 0) return ErrnoError("cannot rename", path_);
  return absl::OkStatus();
}

absl::Status WriteSparseY4m(const std::string& path, const Geometry& geometry, int frames) {
  const std::string temporary = absl::StrCat(path, ".partial");
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("cannot create", temporary);
  const std::string header = Y4mHeaderLine(geometry);
  const off_t frame_bytes = static_cast<off_t>(FrameBytes(geometry));
  bool ok = ::pwrite(fd, header.data(), header.size(), 0) == static_cast<ssize_t>(header.size());
  off_t at = static_cast<off_t>(header.size());
  for (int i = 0; ok && i < frames; ++i) {
    ok = ::pwrite(fd, "FRAME\n", 6, at) == 6;
    at += 6 + frame_bytes;
  }
  // The planes are the holes between the frame lines, and after the last one.
  ok = ok && ::ftruncate(fd, at) == 0;
  ok = ::close(fd) == 0 && ok;
  if (!ok) {
    ::unlink(temporary.c_str());
    return ErrnoError("cannot write", path);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) return ErrnoError("cannot rename", path);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> ReadY4mLuma(const std::string& path, Geometry* geometry,
                                                     int max_frames) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return ErrnoError("cannot open", path);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(file, &std::fclose);
  char line[256];
  if (std::fgets(line, sizeof line, file) == nullptr || !absl::StartsWith(line, "YUV4MPEG2 ")) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a .y4m file"));
  }
  Geometry g;
  for (absl::string_view token :
       absl::StrSplit(absl::StripSuffix(line, "\n"), ' ', absl::SkipEmpty())) {
    absl::Status parsed;
    if (absl::ConsumePrefix(&token, "W")) {
      if (!absl::SimpleAtoi(token, &g.width)) parsed = absl::InvalidArgumentError("a bad width");
    } else if (absl::ConsumePrefix(&token, "H")) {
      if (!absl::SimpleAtoi(token, &g.height)) parsed = absl::InvalidArgumentError("a bad height");
    } else if (absl::ConsumePrefix(&token, "C")) {
      parsed = ParseColourTag(token, &g);
    }
    if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", parsed.message()));
  }
  if (absl::Status s = ValidateGeometry(g); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", s.message()));
  }
  const size_t luma_bytes = LumaBytes(g);
  const size_t rest = FrameBytes(g) - luma_bytes;
  std::vector<std::string> frames;
  while (static_cast<int>(frames.size()) < max_frames) {
    if (std::fgets(line, sizeof line, file) == nullptr) break;  // the end
    if (!absl::StartsWith(line, "FRAME")) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: frame %d does not start with FRAME", path, frames.size()));
    }
    std::string luma(luma_bytes, '\0');
    if (std::fread(luma.data(), 1, luma_bytes, file) != luma_bytes ||
        std::fseek(file, static_cast<long>(rest), SEEK_CUR) != 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: frame %d is cut short", path, frames.size()));
    }
    frames.push_back(std::move(luma));
  }
  *geometry = g;
  return frames;
}

absl::Status MakeDirectories(const std::string& dir) {
  for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    const std::string part = dir.substr(0, slash);
    if (!part.empty() && ::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) {
      return ErrnoError("cannot create the directory", part);
    }
    if (slash == std::string::npos) return absl::OkStatus();
  }
}

}  // namespace ssimd::fault_load
