// Fuzzes the split-point parser (engine/media/split_points.h), which reads the NAL and frame
// headers of every packet of a file decoded in segments: the first byte picks the codec and the
// NAL length size, the rest is the packet; also read as avcC/hvcC extradata. No crash, no read
// past the packet; a split point needs a slice (or frame header) in the bytes.
#include <cstddef>
#include <cstdint>

#include "engine/media/split_points.h"
#include "fuzz/fuzz_support.h"

namespace ssimd {
namespace {

void Run(const uint8_t* data, size_t size) {
  if (size < 1) return;
  static constexpr AVCodecID kCodecs[] = {AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_VP9,
                                          AV_CODEC_ID_AV1};
  static constexpr int kLengthSizes[] = {0, 1, 2, 4};
  const AVCodecID codec = kCodecs[data[0] & 3];
  const int length_size = kLengthSizes[(data[0] >> 2) & 3];
  const uint8_t* packet = data + 1;
  const size_t packet_size = size - 1;
  const bool split = IsSplitPoint(codec, packet, packet_size, length_size);
  FUZZ_CHECK(!split || codec != AV_CODEC_ID_AV1, "AV1 has no split points");
  FUZZ_CHECK(!split || packet_size >= 1, "a split point in an empty packet");
  const int from_extradata = NalLengthSize(codec, packet, packet_size);
  FUZZ_CHECK(from_extradata == 0 || (from_extradata >= 1 && from_extradata <= 4),
             "NAL length size %d", from_extradata);
}

}  // namespace
}  // namespace ssimd

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ssimd::Run(data, size);
  return 0;
}
