// libvmaf's float_ms_ssim for a reference set (expected_metrics.json, from upstream's vmaf tool;
// tests/data/reference/README.md) replayed through the CPU float_ms_ssim, compared bit for bit.
//
// A pair's entry either has one float_ms_ssim per frame the tool read, or none. None means one of
// two things, and the replay tells them apart: libvmaf gives no float_ms_ssim below its size rule
// (then CheckFloatMsSsimSize must refuse the size too), or the tool could not read the clips at
// all (odd sizes: even psnr was refused with "Error reading YUV frame data.").
#ifndef SSIMD_TESTS_REFERENCE_MS_SSIM_REPLAY_H_
#define SSIMD_TESTS_REFERENCE_MS_SSIM_REPLAY_H_

#include <string>

#include "absl/status/statusor.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {

struct MsSsimReplay {
  enum class Outcome {
    kCompared,         // every value compared; see report
    kRefusedForSize,   // no values, and CheckFloatMsSsimSize refuses the size as libvmaf does
    kClipsUnreadable,  // no values: the vmaf tool read no frame of the pair
  };
  Outcome outcome = Outcome::kCompared;
  ReplayReport report;
  std::string note;  // why there is nothing to compare, where there is not
};

// Scores every frame of `pair` with the CPU float_ms_ssim and compares each value. An error when
// the entry and the size rule disagree (values for a size CheckFloatMsSsimSize refuses, or no
// values for a size it accepts on clips the tool did read), when the frame counts differ, or when
// the clips cannot be read here.
absl::StatusOr<MsSsimReplay> ReplayMsSsimPair(const ReferencePair& pair,
                                              const ExpectedMetrics& expected);

}  // namespace ssimd::testing

#endif  // SSIMD_TESTS_REFERENCE_MS_SSIM_REPLAY_H_
