// What ScoreLadder says about each rendition besides its scores: the file's codec, size, own luma
// size and average bitrate (RenditionSummary), and the same as a RenditionRecord for the title's
// ladder gauges.
#ifndef SSIMD_SERVER_RENDITION_REPORT_H_
#define SSIMD_SERVER_RENDITION_REPORT_H_

#include <string>

#include "engine/media/video_input.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "server/ladder_gauges.h"

namespace ssimd {

// Fills summary's codec, size_bytes, width, height and bitrate_bits_per_second from `input`.
// `read_to_end`: every frame of the file has been read (so frames_read() is the file's length);
// otherwise only a raw file's size-based estimate stands in for it.
void DescribeRendition(const VideoInput& input, bool read_to_end, v1::RenditionSummary* summary);

// The bitrate as the proto defines it: size_bytes * 8 over the container's duration, else over
// frames / frame rate; 0 when neither duration is known.
double AverageBitrate(const MediaInfo& media, std::optional<uint64_t> frames, FrameRate rate);

// The summary as the metrics take it, under the ladder's title.
RenditionRecord ToRenditionRecord(const std::string& title, const v1::RenditionSummary& summary);

}  // namespace ssimd

#endif  // SSIMD_SERVER_RENDITION_REPORT_H_
