// The one check every ladder test makes: a rendition's frames equal libvmaf's per-frame scores.
#ifndef SSIMD_TESTS_LADDER_LIBVMAF_EXPECTATIONS_H_
#define SSIMD_TESTS_LADDER_LIBVMAF_EXPECTATIONS_H_

#include <vector>

#include "proto/ssimd/v1/ssimd.pb.h"
#include "tests/ladder/ladder_files.h"

namespace ssimd::testing {

// Expects `frames` to be numbered in order and to hold exactly libvmaf's float_ssim and ssim of
// `expected`, bit for bit, and its psnr_*, float_ms_ssim and vmaf values where `expected` has
// them; and `summary` to have paired every frame of both files.
void ExpectLibvmafFrames(const std::vector<v1::FrameResult>& frames,
                         const v1::ClipSummary& summary, const ExpectedRendition& expected);

}  // namespace ssimd::testing

#endif  // SSIMD_TESTS_LADDER_LIBVMAF_EXPECTATIONS_H_
