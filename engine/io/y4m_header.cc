#include "engine/io/y4m_header.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace ssimd {
namespace {

constexpr absl::string_view kMagic = "YUV4MPEG2";

struct Colorspace {
  absl::string_view tag;
  ChromaFormat chroma;
  int bit_depth;
};

// ffmpeg's and mjpegtools' spellings. Depths libvmaf cannot score (9, 14) are left out on purpose,
// so they are refused with the list of accepted tags.
constexpr Colorspace kColorspaces[] = {
    {"420", ChromaFormat::k420, 8},       {"420jpeg", ChromaFormat::k420, 8},
    {"420mpeg2", ChromaFormat::k420, 8},  {"420paldv", ChromaFormat::k420, 8},
    {"420p10", ChromaFormat::k420, 10},   {"420p12", ChromaFormat::k420, 12},
    {"420p16", ChromaFormat::k420, 16},   {"422", ChromaFormat::k422, 8},
    {"422p10", ChromaFormat::k422, 10},   {"422p12", ChromaFormat::k422, 12},
    {"422p16", ChromaFormat::k422, 16},   {"444", ChromaFormat::k444, 8},
    {"444p10", ChromaFormat::k444, 10},   {"444p12", ChromaFormat::k444, 12},
    {"444p16", ChromaFormat::k444, 16},   {"mono", ChromaFormat::k400, 8},
    {"mono10", ChromaFormat::k400, 10},   {"mono12", ChromaFormat::k400, 12},
    {"mono16", ChromaFormat::k400, 16},
};

absl::StatusOr<int> ParseDimension(absl::string_view tag, absl::string_view value) {
  int n = 0;
  if (!absl::SimpleAtoi(value, &n) || n < 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "y4m header: %s must be a positive integer, got \"%s\"", tag, value));
  }
  return n;
}

}  // namespace

absl::StatusOr<Y4mHeader> ParseY4mHeader(absl::string_view line) {
  std::vector<absl::string_view> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
  if (fields.empty() || fields[0] != kMagic) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "not a y4m file: the first line must start with \"%s\", got \"%s\"", kMagic,
        line.substr(0, 32)));
  }
  Y4mHeader header;
  bool have_width = false;
  bool have_height = false;
  for (size_t i = 1; i < fields.size(); ++i) {
    const char tag = fields[i][0];
    const absl::string_view value = fields[i].substr(1);
    switch (tag) {
      case 'W': {
        auto width = ParseDimension("W (width)", value);
        if (!width.ok()) return width.status();
        header.geometry.width = *width;
        have_width = true;
        break;
      }
      case 'H': {
        auto height = ParseDimension("H (height)", value);
        if (!height.ok()) return height.status();
        header.geometry.height = *height;
        have_height = true;
        break;
      }
      case 'F':
        header.frame_rate = std::string(value);
        break;
      case 'C': {
        const Colorspace* found = nullptr;
        for (const Colorspace& c : kColorspaces) {
          if (c.tag == value) found = &c;
        }
        if (found == nullptr) {
          return absl::InvalidArgumentError(absl::StrFormat(
              "y4m header: colorspace C%s is not supported; expected C420, C422, C444 or Cmono, "
              "optionally with p10, p12 or p16 (e.g. C420p10)",
              value));
        }
        header.geometry.chroma = found->chroma;
        header.geometry.bit_depth = found->bit_depth;
        break;
      }
      default:
        break;  // interlacing, aspect ratio and extensions do not change the samples
    }
  }
  if (!have_width || !have_height) {
    return absl::InvalidArgumentError(
        "y4m header: W (width) and H (height) are required, e.g. \"YUV4MPEG2 W1920 H1080\"");
  }
  absl::Status valid = ValidateGeometry(header.geometry);
  if (!valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("y4m header: ", valid.message()));
  }
  return header;
}

}  // namespace ssimd
