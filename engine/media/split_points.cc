#include "engine/media/split_points.h"

namespace ssimd {
namespace {

constexpr int kH264Idr = 5;
constexpr int kHevcIdrWithLeading = 19;  // IDR_W_RADL
constexpr int kHevcIdrNoLeading = 20;    // IDR_N_LP

// Calls `visit` with the first byte of each NAL unit's header until it returns true (found) or
// the units run out; false when none matched or the framing is broken.
template <typename Visit>
bool AnyNalUnit(const uint8_t* data, size_t size, int length_size, Visit visit) {
  size_t at = 0;
  if (length_size > 0) {
    while (at + static_cast<size_t>(length_size) <= size) {
      size_t length = 0;
      for (int i = 0; i < length_size; ++i) length = (length << 8) | data[at + i];
      at += static_cast<size_t>(length_size);
      if (length == 0 || length > size - at) return false;
      if (visit(data + at, length)) return true;
      at += length;
    }
    return false;
  }
  // Annex-B: units follow 00 00 01 (a leading 00 of a four-byte start code is trailing zero).
  while (at + 3 <= size) {
    if (data[at] == 0 && data[at + 1] == 0 && data[at + 2] == 1) {
      const size_t begin = at + 3;
      size_t end = begin;
      while (end + 3 <= size && !(data[end] == 0 && data[end + 1] == 0 && data[end + 2] <= 1)) {
        ++end;
      }
      if (end + 3 > size) end = size;
      if (end > begin && visit(data + begin, end - begin)) return true;
      at = end;
    } else {
      ++at;
    }
  }
  return false;
}

// The access unit's first slice decides: H.264 VCL units are types 1 to 5, of which 5 is IDR.
// (libavcodec's H.264 decoder does not act on an IDR's no_output_of_prior_pics_flag: pictures
// waiting for output are output either way, as a decoder starting at the IDR outputs them.)
bool H264Idr(const uint8_t* data, size_t size, int length_size) {
  int first_slice = -1;
  AnyNalUnit(data, size, length_size, [&](const uint8_t* nal, size_t) {
    if ((nal[0] & 0x80) != 0) return true;  // forbidden bit: stop, not a split point
    const int type = nal[0] & 0x1f;
    if (type >= 1 && type <= 5) {
      first_slice = type;
      return true;
    }
    return false;
  });
  return first_slice == kH264Idr;
}

// HEVC VCL units are types 0 to 31; IDR_W_RADL and IDR_N_LP start a closed group. An IDR whose
// slice sets no_output_of_prior_pics_flag (the bit after first_slice_segment_in_pic_flag) makes
// a decoder that has pictures waiting drop them, which a decoder starting there would not have:
// not a split point.
bool HevcIdr(const uint8_t* data, size_t size, int length_size) {
  int first_slice = -1;
  bool drops_prior_pictures = true;
  AnyNalUnit(data, size, length_size, [&](const uint8_t* nal, size_t length) {
    if (length < 2 || (nal[0] & 0x80) != 0) return true;
    const int type = (nal[0] >> 1) & 0x3f;
    if (type <= 31) {
      first_slice = type;
      drops_prior_pictures = length < 3 || (nal[2] & 0x40) != 0;
      return true;
    }
    return false;
  });
  return (first_slice == kHevcIdrWithLeading || first_slice == kHevcIdrNoLeading) &&
         !drops_prior_pictures;
}

// A VP9 packet's first frame header: frame_marker (2 bits, 0b10), profile (2 bits, and a reserved
// zero bit in profile 3), show_existing_frame, then frame_type (0: key frame). A key frame
// refreshes every reference slot, so nothing after it refers to earlier frames. (A superframe's
// first frame is the one decoded first; its index lies at the packet's end.)
bool Vp9KeyFrame(const uint8_t* data, size_t size) {
  if (size < 1) return false;
  const uint8_t b = data[0];
  if ((b >> 6) != 2) return false;
  const int profile = ((b >> 5) & 1) | (((b >> 4) & 1) << 1);
  int bit = 3;  // the next bit, counting from the byte's most significant as 7
  if (profile == 3) --bit;  // the reserved zero
  const bool show_existing = ((b >> bit) & 1) != 0;
  if (show_existing) return false;
  --bit;
  return ((b >> bit) & 1) == 0;
}

}  // namespace

int NalLengthSize(AVCodecID codec, const uint8_t* extradata, size_t size) {
  if (extradata == nullptr) return 0;
  // avcC: configurationVersion 1, then profile, compatibility, level, and 6 bits of ones with
  // lengthSizeMinusOne.
  if (codec == AV_CODEC_ID_H264 && size >= 7 && extradata[0] == 1) {
    return (extradata[4] & 3) + 1;
  }
  // hvcC: configurationVersion 1; lengthSizeMinusOne in the low bits of byte 21.
  if (codec == AV_CODEC_ID_HEVC && size >= 23 && extradata[0] == 1) {
    return (extradata[21] & 3) + 1;
  }
  return 0;
}

bool IsSplitPoint(AVCodecID codec, const uint8_t* data, size_t size, int nal_length_size) {
  if (data == nullptr || size == 0) return false;
  if (nal_length_size == 3 || nal_length_size < 0 || nal_length_size > 4) return false;
  switch (codec) {
    case AV_CODEC_ID_H264: return H264Idr(data, size, nal_length_size);
    case AV_CODEC_ID_HEVC: return HevcIdr(data, size, nal_length_size);
    case AV_CODEC_ID_VP9: return Vp9KeyFrame(data, size);
    default: return false;
  }
}

}  // namespace ssimd
