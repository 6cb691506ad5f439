// The CPU psnr: libvmaf's plane sizes, the names and options of its outputs, 16-bit samples at
// any alignment, the apsnr pool, and the errors for bad planes and options.
#include "engine/cpu/psnr.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/psnr_math.h"

namespace ssimd {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// log10 at run time, as libvmaf's values are computed: GCC folds log10 of a constant with a
// correctly rounded result, which differs from glibc's in the last bit for some arguments.
double Log10(double x) {
  volatile double v = x;
  return std::log10(v);
}

// A raw frame whose every sample is `value` (little-endian words above 8 bits).
std::vector<uint8_t> FlatFrame(const Geometry& g, uint32_t value) {
  std::vector<uint8_t> frame(FrameBytes(g));
  const size_t samples = frame.size() / static_cast<size_t>(BytesPerSample(g.bit_depth));
  for (size_t i = 0; i < samples; ++i) {
    StoreSample(frame.data(), static_cast<int>(i), g.bit_depth, value);
  }
  return frame;
}

PsnrPlanes Planes(const Geometry& g, const std::vector<uint8_t>& frame) {
  auto planes = PsnrPlanesOfFrame(g, frame);
  EXPECT_TRUE(planes.ok()) << planes.status();
  return *planes;
}

TEST(PsnrPlaneSize, ChromaHalvesRoundDown) {
  const Geometry g420{5, 3, 8, ChromaFormat::k420};
  EXPECT_EQ(PsnrPlaneSize(g420, 0).width, 5);
  EXPECT_EQ(PsnrPlaneSize(g420, 1).width, 2);
  EXPECT_EQ(PsnrPlaneSize(g420, 2).height, 1);
  const Geometry g1x1{1, 1, 8, ChromaFormat::k420};
  EXPECT_EQ(PsnrPlaneSize(g1x1, 1).width, 0);
  EXPECT_EQ(PsnrPlaneSize(g1x1, 1).height, 0);
  const Geometry g422{5, 3, 10, ChromaFormat::k422};
  EXPECT_EQ(PsnrPlaneSize(g422, 1).width, 2);
  EXPECT_EQ(PsnrPlaneSize(g422, 1).height, 3);
  const Geometry g444{5, 3, 8, ChromaFormat::k444};
  EXPECT_EQ(PsnrPlaneSize(g444, 2).width, 5);
  const Geometry g400{5, 3, 8, ChromaFormat::k400};
  EXPECT_EQ(PsnrPlaneSize(g400, 1).width, 0);
}

TEST(PsnrPlanesOfFrame, ChromaIsTheTopLeftOfTheStoredPlane) {
  // 3x3 4:2:0: stored chroma is 2x2 (rounded up), libvmaf reads its 1x1 top-left sample.
  const Geometry g{3, 3, 8, ChromaFormat::k420};
  std::vector<uint8_t> frame(FrameBytes(g));
  ASSERT_EQ(frame.size(), 9u + 2u * 4u);
  for (size_t i = 0; i < frame.size(); ++i) frame[i] = static_cast<uint8_t>(i);
  const PsnrPlanes planes = Planes(g, frame);
  EXPECT_EQ(planes[1].width, 1);
  EXPECT_EQ(planes[1].stride_bytes, 2u);
  EXPECT_EQ(planes[1].Sample(0, 0), 9u);
  EXPECT_EQ(planes[2].Sample(0, 0), 13u);
  EXPECT_FALSE(PsnrPlanesOfFrame(g, absl::MakeConstSpan(frame).subspan(1)).ok());
}

TEST(PsnrScorer, IdenticalFramesGiveTheCapPerPlane) {
  for (const int bits : {8, 10, 12, 16}) {
    const Geometry g{8, 6, bits, ChromaFormat::k420};
    auto scorer = PsnrScorer::Create(g, {});
    ASSERT_TRUE(scorer.ok());
    const auto frame = FlatFrame(g, 7);
    auto scores = scorer->Score(Planes(g, frame), Planes(g, frame));
    ASSERT_TRUE(scores.ok()) << scores.status();
    EXPECT_EQ(scores->size(), 3u);
    for (const char* name : {"psnr_y", "psnr_cb", "psnr_cr"}) {
      EXPECT_EQ(scores->at(name), 6.0 * bits + 12.0) << name << " " << bits;
    }
  }
}

TEST(PsnrScorer, PerPlaneErrorsAndMse) {
  const Geometry g{4, 4, 8, ChromaFormat::k420};
  const auto ref = FlatFrame(g, 100);
  auto dist = ref;
  dist[5] = 103;        // luma: one sample 3 off of 16
  dist[16 + 2] = 98;    // cb: one sample 2 off of 4
  PsnrOptions options;
  options.enable_mse = true;
  auto scorer = PsnrScorer::Create(g, options);
  ASSERT_TRUE(scorer.ok());
  auto scores = scorer->Score(Planes(g, ref), Planes(g, dist));
  ASSERT_TRUE(scores.ok()) << scores.status();
  EXPECT_EQ(scores->size(), 6u);
  EXPECT_EQ(scores->at("mse_y"), 9.0 / 16.0);
  EXPECT_EQ(scores->at("mse_cb"), 1.0);
  EXPECT_EQ(scores->at("mse_cr"), 0.0);
  EXPECT_EQ(scores->at("psnr_y"), 10.0 * Log10(65025.0 / (9.0 / 16.0)));
  EXPECT_EQ(scores->at("psnr_cb"), 10.0 * Log10(65025.0));
  EXPECT_EQ(scores->at("psnr_cr"), 60.0);
}

TEST(PsnrScorer, LumaOnlyWithoutChroma) {
  const Geometry g400{4, 4, 8, ChromaFormat::k400};
  auto gray = PsnrScorer::Create(g400, {});
  ASSERT_TRUE(gray.ok());
  EXPECT_EQ(gray->planes(), 1);
  const auto frame = FlatFrame(g400, 1);
  auto scores = gray->Score(Planes(g400, frame), Planes(g400, frame));
  ASSERT_TRUE(scores.ok());
  EXPECT_EQ(scores->size(), 1u);
  EXPECT_EQ(scores->count("psnr_y"), 1u);

  // enable_chroma=false: chroma views are not even looked at.
  const Geometry g{4, 4, 8, ChromaFormat::k420};
  PsnrOptions options;
  options.enable_chroma = false;
  options.enable_apsnr = true;
  auto scorer = PsnrScorer::Create(g, options);
  ASSERT_TRUE(scorer.ok());
  const auto ref = FlatFrame(g, 1);
  const auto dist = FlatFrame(g, 2);
  PsnrPlanes ref_planes = Planes(g, ref);
  ref_planes[1] = LumaView{};
  scores = scorer->Score(ref_planes, Planes(g, dist));
  ASSERT_TRUE(scores.ok()) << scores.status();
  EXPECT_EQ(scores->size(), 1u);
  // libvmaf pools every plane: the unscored ones give -inf.
  const FrameScores pooled = scorer->Pooled();
  EXPECT_EQ(pooled.at("apsnr_y"), 10.0 * ((Log10(65025.0) + Log10(16.0)) -
                                          Log10(16.0)));
  EXPECT_EQ(pooled.at("apsnr_cb"), -kInf);
  EXPECT_EQ(pooled.at("apsnr_cr"), -kInf);
}

TEST(PsnrScorer, OnePixelWide420HasEmptyChromaAtTheCap) {
  const Geometry g{1, 1, 8, ChromaFormat::k420};
  PsnrOptions options;
  options.enable_mse = true;
  auto scorer = PsnrScorer::Create(g, options);
  ASSERT_TRUE(scorer.ok());
  const auto ref = FlatFrame(g, 50);
  const auto dist = FlatFrame(g, 55);
  auto scores = scorer->Score(Planes(g, ref), Planes(g, dist));
  ASSERT_TRUE(scores.ok()) << scores.status();
  EXPECT_EQ(scores->at("psnr_y"), 34.15140352195873);
  EXPECT_EQ(scores->at("psnr_cb"), 60.0);
  EXPECT_TRUE(std::isnan(scores->at("mse_cr")));
}

TEST(PsnrScorer, SixteenBitSamplesAtAnyAlignment) {
  const Geometry g{3, 2, 16, ChromaFormat::k444};
  const auto ref = FlatFrame(g, 65535);
  auto dist = FlatFrame(g, 65535);
  StoreSample(dist.data(), 4, 16, 0);  // luma sample 4: the full range off
  // The same bytes one byte into a buffer: 16-bit words at odd addresses.
  std::vector<uint8_t> shifted(dist.size() + 1);
  std::copy(dist.begin(), dist.end(), shifted.begin() + 1);
  auto scorer = PsnrScorer::Create(g, {});
  ASSERT_TRUE(scorer.ok());
  auto aligned = scorer->Score(Planes(g, ref), Planes(g, dist));
  auto odd = scorer->Score(
      Planes(g, ref),
      *PsnrPlanesOfFrame(g, absl::MakeConstSpan(shifted).subspan(1)));
  ASSERT_TRUE(aligned.ok() && odd.ok());
  EXPECT_EQ(aligned->at("psnr_y"), 10.0 * Log10(4294836225.0 / (4294836225.0 / 6.0)));
  EXPECT_EQ(odd->at("psnr_y"), aligned->at("psnr_y"));
  EXPECT_EQ(aligned->at("psnr_cb"), 108.0);
}

TEST(PsnrScorer, ReducedPeakAndMinSse) {
  const Geometry g{4, 2, 10, ChromaFormat::k420};
  PsnrOptions options;
  options.reduced_hbd_peak = true;
  options.min_sse = 0.5;
  auto scorer = PsnrScorer::Create(g, options);
  ASSERT_TRUE(scorer.ok());
  const auto frame = FlatFrame(g, 512);
  auto dist = frame;
  StoreSample(dist.data(), 0, 10, 516);
  auto scores = scorer->Score(Planes(g, frame), Planes(g, dist));
  ASSERT_TRUE(scores.ok());
  EXPECT_EQ(scores->at("psnr_y"), 10.0 * Log10(1040400.0 / 2.0));
  // Identical 2x1 chroma: the cap of an error of 0.5 over 2 pixels with peak 1020.
  EXPECT_EQ(scores->at("psnr_cb"), std::ceil(10.0 * Log10(1040400.0 / 0.25)));
}

TEST(PsnrScorer, ApsnrPoolsErrorsOverFrames) {
  const Geometry g{4, 4, 8, ChromaFormat::k444};
  PsnrOptions options;
  options.enable_apsnr = true;
  auto scorer = PsnrScorer::Create(g, options);
  ASSERT_TRUE(scorer.ok());
  const auto ref = FlatFrame(g, 10);
  auto dist = ref;
  dist[0] = 14;  // luma sse 16 in the first frame
  ASSERT_TRUE(scorer->Score(Planes(g, ref), Planes(g, dist)).ok());
  dist[1] = 11;  // luma sse 17 in the second
  ASSERT_TRUE(scorer->Score(Planes(g, ref), Planes(g, dist)).ok());
  const FrameScores pooled = scorer->Pooled();
  EXPECT_EQ(pooled.at("apsnr_y"), ApsnrScore(33, 32, 255));
  EXPECT_EQ(pooled.at("apsnr_cb"), ApsnrScore(0, 32, 255));
  EXPECT_EQ(pooled.at("apsnr_cb"), std::ceil(10.0 * Log10(65025.0 * 32 * 2)));

  auto no_pool = PsnrScorer::Create(g, {});
  ASSERT_TRUE(no_pool.ok());
  EXPECT_TRUE(no_pool->Pooled().empty());
}

TEST(PsnrScorer, RefusesBadPlanesAndOptions) {
  const Geometry g{4, 4, 8, ChromaFormat::k420};
  PsnrOptions bad;
  bad.min_sse = -1;
  EXPECT_EQ(PsnrScorer::Create(g, bad).status().code(), absl::StatusCode::kInvalidArgument);
  bad.min_sse = std::nan("");
  EXPECT_EQ(PsnrScorer::Create(g, bad).status().code(), absl::StatusCode::kInvalidArgument);

  auto scorer = PsnrScorer::Create(g, {});
  ASSERT_TRUE(scorer.ok());
  const auto frame = FlatFrame(g, 1);
  PsnrPlanes wrong = Planes(g, frame);
  wrong[2].width = 3;
  auto scores = scorer->Score(Planes(g, frame), wrong);
  EXPECT_EQ(scores.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(scores.status().message().find("distorted plane cr"), std::string::npos)
      << scores.status();
  PsnrPlanes deep = Planes(g, frame);
  deep[0].bit_depth = 10;
  EXPECT_FALSE(scorer->Score(deep, Planes(g, frame)).ok());
}

// A frame pair gives what the scorer gives for the whole frames: its luma, and its chroma from
// the chroma views where asked; it refuses to pretend it has chroma or frames to pool.
TEST(AddPsnrScores, IsTheScorersAndRefusesWhatNeedsMore) {
  const Geometry g{7, 5, 10, ChromaFormat::k420};
  auto ref = FlatFrame(g, 100);
  auto dist = FlatFrame(g, 103);
  StoreSample(dist.data(), static_cast<int>(LumaBytes(g) / 2) + 1, g.bit_depth, 90);  // a Cb sample
  PsnrOptions options;
  options.enable_mse = true;
  options.min_sse = 3.5;
  auto scorer = PsnrScorer::Create(g, options);
  ASSERT_TRUE(scorer.ok());
  const PsnrPlanes ref_planes = Planes(g, ref);
  const PsnrPlanes dist_planes = Planes(g, dist);
  auto expected = scorer->Score(ref_planes, dist_planes);
  ASSERT_TRUE(expected.ok());
  const FrameChroma chroma{{ref_planes[1], ref_planes[2]}, {dist_planes[1], dist_planes[2]}};
  FrameScores scores;
  FrameSums sums;
  ASSERT_TRUE(
      AddPsnrScores(g, options, ref_planes[0], dist_planes[0], &chroma, scores, sums).ok());
  EXPECT_EQ(scores, *expected);
  EXPECT_EQ(scores.size(), 6u);  // psnr_y/cb/cr, mse_y/cb/cr

  absl::Status no_chroma =
      AddPsnrScores(g, options, ref_planes[0], dist_planes[0], nullptr, scores, sums);
  EXPECT_EQ(no_chroma.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(no_chroma.message().find("only luma was given"), absl::string_view::npos) << no_chroma;
  // Luma only, as asked.
  options.enable_chroma = false;
  FrameScores luma;
  ASSERT_TRUE(AddPsnrScores(g, options, ref_planes[0], dist_planes[0], nullptr, luma, sums).ok());
  EXPECT_EQ(luma.size(), 2u);
  EXPECT_EQ(luma.at("psnr_y"), expected->at("psnr_y"));
  // A 4:0:0 picture has no chroma to ask for.
  options.enable_chroma = true;
  const Geometry gray{7, 5, 10, ChromaFormat::k400};
  const auto flat = FlatFrame(gray, 1);
  EXPECT_TRUE(
      AddPsnrScores(gray, options, Planes(gray, flat)[0], Planes(gray, flat)[0], nullptr, luma,
                    sums)
          .ok());
  EXPECT_TRUE(sums.empty());  // nothing to pool without enable_apsnr

  // With enable_apsnr a frame gives the sums its clip pools: the scorer's pool over one frame.
  options.enable_apsnr = true;
  auto pooling = PsnrScorer::Create(g, options);
  ASSERT_TRUE(pooling.ok());
  ASSERT_TRUE(pooling->Score(ref_planes, dist_planes).ok());
  ASSERT_TRUE(AddPsnrScores(g, options, ref_planes[0], dist_planes[0], &chroma, scores, sums).ok());
  EXPECT_EQ(sums.at("psnr_sse_cb"), 5u * 3 * 3 + 10u * 10);  // 90 once, 103 five times
  EXPECT_EQ(sums.at("psnr_pixels_cb"), 3u * 2u);
  EXPECT_EQ(sums.at("psnr_peak"), 1023u);
  EXPECT_EQ(ApsnrScores(sums, 1), pooling->Pooled());
}

// A clip's apsnr from its frames' sums added up, whichever backend summed them.
TEST(ApsnrScores, PoolsTheClipsTotals) {
  FrameSums totals = {{"psnr_sse_y", 33}, {"psnr_pixels_y", 32}, {"psnr_sse_cb", 0},
                      {"psnr_pixels_cb", 0}, {"psnr_sse_cr", 5}, {"psnr_pixels_cr", 8},
                      {"psnr_peak", 2 * 255}};
  const FrameScores apsnr = ApsnrScores(totals, 2);
  EXPECT_EQ(apsnr.at("apsnr_y"), ApsnrScore(33, 32, 255));
  EXPECT_EQ(apsnr.at("apsnr_cb"), -kInf);  // not scored, as libvmaf gives it
  EXPECT_EQ(apsnr.at("apsnr_cr"), ApsnrScore(5, 8, 255));
  EXPECT_TRUE(ApsnrScores(totals, 0).empty());
  EXPECT_TRUE(ApsnrScores({{"psnr_sse_y", 1}}, 1).empty());  // no pooling asked for
}

// Chroma views over the stored planes: sides rounded up in storage, down as libvmaf reads them.
TEST(ChromaViews, LibvmafsSizesOverTheStoredPlanes) {
  const Geometry g{7, 5, 16, ChromaFormat::k420};
  const std::vector<uint8_t> stored(2 * 4 * 3 * 2);  // two 4x3 planes of 16-bit samples
  auto views = ChromaViews(g, stored, "frame.reference_chroma");
  ASSERT_TRUE(views.ok()) << views.status();
  EXPECT_EQ((*views)[0].width, 3);
  EXPECT_EQ((*views)[0].height, 2);
  EXPECT_EQ((*views)[0].stride_bytes, 8u);
  EXPECT_EQ((*views)[1].data, stored.data() + 24);
  auto wrong = ChromaViews(g, absl::MakeConstSpan(stored).subspan(1), "frame.reference_chroma");
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.status().message().find("frame.reference_chroma: expected 48 bytes"),
            absl::string_view::npos)
      << wrong.status();
}

}  // namespace
}  // namespace ssimd
