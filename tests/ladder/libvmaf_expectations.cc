#include "tests/ladder/libvmaf_expectations.h"

#include <utility>

#include "base/double_bits.h"
#include "gtest/gtest.h"

namespace ssimd::testing {

void ExpectLibvmafFrames(const std::vector<v1::FrameResult>& frames,
                         const v1::ClipSummary& summary, const ExpectedRendition& expected) {
  ASSERT_EQ(frames.size(), expected.float_ssim.size());
  ASSERT_EQ(frames.size(), expected.ssim.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(frames[i].index(), i);
    const auto& scores = frames[i].scores();
    ASSERT_TRUE(scores.contains("float_ssim") && scores.contains("ssim")) << "frame " << i;
    EXPECT_TRUE(SameBits(scores.at("float_ssim"), expected.float_ssim[i]))
        << "frame " << i << ": float_ssim " << scores.at("float_ssim") << " vs libvmaf "
        << expected.float_ssim[i];
    EXPECT_TRUE(SameBits(scores.at("ssim"), expected.ssim[i]))
        << "frame " << i << ": ssim " << scores.at("ssim") << " vs libvmaf " << expected.ssim[i];
    const std::pair<const char*, const std::vector<double>*> upstream[] = {
        {"psnr_y", &expected.psnr_y},
        {"psnr_cb", &expected.psnr_cb},
        {"psnr_cr", &expected.psnr_cr},
        {"float_ms_ssim", &expected.float_ms_ssim}};
    std::vector<std::pair<const char*, const std::vector<double>*>> checked(std::begin(upstream),
                                                                           std::end(upstream));
    for (const auto& [name, values] : expected.vmaf) checked.emplace_back(name.c_str(), &values);
    for (const auto& [name, values] : checked) {
      if (values->empty()) continue;
      ASSERT_EQ(values->size(), frames.size()) << name;
      ASSERT_TRUE(scores.contains(name)) << "frame " << i << ": no " << name;
      EXPECT_TRUE(SameBits(scores.at(name), (*values)[i]))
          << "frame " << i << ": " << name << " " << scores.at(name) << " vs libvmaf "
          << (*values)[i];
    }
  }
  EXPECT_EQ(summary.unmatched_reference_frames(), 0u);
  EXPECT_EQ(summary.unmatched_distorted_frames(), 0u);
}

}  // namespace ssimd::testing
