#include "engine/picture.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"

namespace ssimd {
namespace {

bool SupportedBitDepth(int bit_depth) {
  return bit_depth == 8 || bit_depth == 10 || bit_depth == 12 || bit_depth == 16;
}

int HalfUp(int n) { return static_cast<int>((static_cast<int64_t>(n) + 1) / 2); }

}  // namespace

absl::Status ValidateGeometry(const Geometry& geometry) {
  if (geometry.width < 1 || geometry.width > kMaxDimension) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "width must be between 1 and %d pixels, got %d", kMaxDimension, geometry.width));
  }
  if (geometry.height < 1 || geometry.height > kMaxDimension) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "height must be between 1 and %d pixels, got %d", kMaxDimension, geometry.height));
  }
  const int64_t pixels = static_cast<int64_t>(geometry.width) * geometry.height;
  if (pixels > kMaxPixels) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "width x height must be at most %d pixels (16384x16384), got %dx%d = %d pixels", kMaxPixels,
        geometry.width, geometry.height, pixels));
  }
  if (!SupportedBitDepth(geometry.bit_depth)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bit_depth must be 8, 10, 12 or 16, got %d", geometry.bit_depth));
  }
  switch (geometry.chroma) {
    case ChromaFormat::k400:
    case ChromaFormat::k420:
    case ChromaFormat::k422:
    case ChromaFormat::k444:
      break;
    default:
      return absl::InvalidArgumentError(absl::StrFormat(
          "chroma format must be 400, 420, 422 or 444, got enum value %d",
          static_cast<int>(geometry.chroma)));
  }
  return absl::OkStatus();
}

int BytesPerSample(int bit_depth) { return bit_depth > 8 ? 2 : 1; }

uint32_t PeakValue(int bit_depth) { return (uint32_t{1} << bit_depth) - 1u; }

size_t LumaBytes(const Geometry& geometry) {
  return static_cast<size_t>(geometry.width) * static_cast<size_t>(geometry.height) *
         static_cast<size_t>(BytesPerSample(geometry.bit_depth));
}

PlaneSize StoredChromaSize(const Geometry& geometry) {
  switch (geometry.chroma) {
    case ChromaFormat::k400:
      return {};
    case ChromaFormat::k420:
      return {HalfUp(geometry.width), HalfUp(geometry.height)};
    case ChromaFormat::k422:
      return {HalfUp(geometry.width), geometry.height};
    case ChromaFormat::k444:
      return {geometry.width, geometry.height};
  }
  return {};
}

size_t FrameBytes(const Geometry& geometry) {
  const PlaneSize chroma = StoredChromaSize(geometry);
  const int64_t chroma_samples = 2 * static_cast<int64_t>(chroma.width) * chroma.height;
  return LumaBytes(geometry) +
         static_cast<size_t>(chroma_samples) * static_cast<size_t>(BytesPerSample(geometry.bit_depth));
}

std::string ChromaFormatName(ChromaFormat format) {
  switch (format) {
    case ChromaFormat::k400:
      return "400";
    case ChromaFormat::k420:
      return "420";
    case ChromaFormat::k422:
      return "422";
    case ChromaFormat::k444:
      return "444";
  }
  return "unknown";
}

absl::Status CheckLumaBytes(const Geometry& geometry, size_t bytes, const std::string& what) {
  SSIMD_RETURN_IF_ERROR(ValidateGeometry(geometry));
  const size_t expected = LumaBytes(geometry);
  if (bytes != expected) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s has %d bytes, but a %dx%d %d-bit luma plane needs exactly %d bytes", what, bytes,
        geometry.width, geometry.height, geometry.bit_depth, expected));
  }
  return absl::OkStatus();
}

absl::StatusOr<LumaView> MakeLumaView(const Geometry& geometry, absl::Span<const uint8_t> bytes,
                                      const std::string& what) {
  SSIMD_RETURN_IF_ERROR(CheckLumaBytes(geometry, bytes.size(), what));
  LumaView view;
  view.data = bytes.data();
  view.stride_bytes = static_cast<size_t>(geometry.width) * BytesPerSample(geometry.bit_depth);
  view.width = geometry.width;
  view.height = geometry.height;
  view.bit_depth = geometry.bit_depth;
  return view;
}

absl::Status CheckLumaView(const Geometry& geometry, const LumaView& view, absl::string_view what) {
  if (view.data == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat("%s luma has no data", what));
  }
  if (view.width != geometry.width || view.height != geometry.height ||
      view.bit_depth != geometry.bit_depth) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s luma is %dx%d %d-bit but the stream's geometry is %dx%d %d-bit", what, view.width,
        view.height, view.bit_depth, geometry.width, geometry.height, geometry.bit_depth));
  }
  const size_t row_bytes = static_cast<size_t>(view.width) * BytesPerSample(view.bit_depth);
  if (view.stride_bytes < row_bytes) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s luma stride is %d bytes, less than one %d-pixel row (%d bytes)", what,
                        view.stride_bytes, view.width, row_bytes));
  }
  return absl::OkStatus();
}

absl::Status ValidateSampleRange(const LumaView& view, const std::string& what) {
  // 8- and 16-bit samples cannot exceed their peak.
  if (view.bit_depth == 8 || view.bit_depth == 16) return absl::OkStatus();
  const uint32_t peak = PeakValue(view.bit_depth);
  for (int y = 0; y < view.height; ++y) {
    const uint8_t* row = view.data + static_cast<size_t>(y) * view.stride_bytes;
    uint32_t max_in_row = 0;
    for (int x = 0; x < view.width; ++x) {
      const uint32_t v = static_cast<uint32_t>(row[2 * x]) | (static_cast<uint32_t>(row[2 * x + 1]) << 8);
      max_in_row = v > max_in_row ? v : max_in_row;
    }
    if (max_in_row <= peak) continue;
    for (int x = 0; x < view.width; ++x) {
      const uint32_t v = view.Sample(x, y);
      if (v > peak) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s sample at (x=%d, y=%d) is %d, above the %d-bit peak %d; %d-bit samples are "
            "little-endian 16-bit words in 0..%d",
            what, x, y, v, view.bit_depth, peak, view.bit_depth, peak));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace ssimd
