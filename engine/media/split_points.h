// Where a compressed video stream can be cut into segments that decode on their own: points at
// which a decoder starting afresh outputs exactly what a decoder that started at the beginning of
// the file outputs from there on, and after which nothing refers to what came before. They let
// one file's segments decode on several decoders at once (several cores, several GPU video
// engines) and be put back together in order, byte for byte the pictures of one decoder.
//
// Only points that guarantee this by the codec's definition count: an H.264 IDR access unit, an
// HEVC IDR (with or without decodable leading pictures), a VP9 key frame. Open-GOP entry points
// (HEVC CRA, H.264 recovery points, VP9 intra-only frames) are not split points: pictures after
// them may refer to pictures before them. Other codecs have none: their files decode whole.
#ifndef SSIMD_ENGINE_MEDIA_SPLIT_POINTS_H_
#define SSIMD_ENGINE_MEDIA_SPLIT_POINTS_H_

#include <cstddef>
#include <cstdint>

extern "C" {
#include <libavcodec/codec_id.h>
}

namespace ssimd {

// How NAL units are delimited in a stream's packets: the length-field size (1, 2 or 4 bytes)
// stated by avcC or hvcC extradata (MP4, Matroska), or 0 for start codes (Annex-B: MPEG-TS,
// raw streams, or no extradata).
int NalLengthSize(AVCodecID codec, const uint8_t* extradata, size_t size);

// Whether the packet (one access unit or frame, as libavformat delivers them) is a split point.
// Malformed data is never one.
bool IsSplitPoint(AVCodecID codec, const uint8_t* data, size_t size, int nal_length_size);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_MEDIA_SPLIT_POINTS_H_
