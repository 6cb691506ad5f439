// ScoreFiles on the ladder test set gives libvmaf's float_ssim and ssim bit for bit (and upstream's
// psnr_y, psnr_cb, psnr_cr and float_ms_ssim after the plain bicubic upscale), for every
// rendition (decoded, upscaled to 1920x1080 as ffmpeg's scale filter does) against either source
// file (.y4m or lossless FFV1 in Matroska), on the CPU.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/integration/test_server.h"
#include "tests/ladder/ladder_files.h"
#include "tests/ladder/libvmaf_expectations.h"

namespace ssimd::testing {
namespace {

constexpr absl::Duration kTimeout = absl::Minutes(5);

class ScoreFilesParityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string missing = MissingSourcesReason();
    if (!missing.empty()) GTEST_SKIP() << missing;
    root_ = absl::StrCat(std::getenv("TEST_TMPDIR"), "/ladder_root");
    ASSERT_TRUE(FillFilesRoot(root_).ok());
    ServerOptions options = FastServerOptions();
    options.service.files_root = root_;
    options.service.backend_policy = BackendPreference::kCpu;
    server_ = TestServer::Start(options);
    ASSERT_NE(server_, nullptr);
  }

  // Scores every rendition of `expected_file` against `source8` (8-bit renditions) or src10.y4m;
  // with `upstream_metrics`, psnr with its chroma against expected_metrics.json, and
  // float_ms_ssim for two renditions (8-bit at the source's size, 10-bit upscaled): it is the
  // slowest metric on the CPU, and ScoreLadder's four-metric test checks it for every rendition.
  void ExpectLibvmafScores(const std::string& expected_file, bool accurate_rounding,
                           const std::string& source8, bool eight_bit_only,
                           bool upstream_metrics = false) {
    auto expected = ReadExpectedScores(expected_file);
    ASSERT_TRUE(expected.ok()) << expected.status();
    if (upstream_metrics) {
      ASSERT_TRUE(ReadExpectedMetrics(*expected).ok());
    }
    int renditions = 0;
    for (ExpectedRendition e : *expected) {
      if (eight_bit_only && e.bit_depth != 8) continue;
      const bool ms_ssim = e.rendition == "h264_1920x1080" || e.rendition == "hevc10_960x540";
      if (!ms_ssim) e.float_ms_ssim.clear();  // not asked, not expected
      e.vmaf.clear();  // ScoreLadder's test asks for vmaf; ScoreFiles shares its pipeline
      SCOPED_TRACE(e.rendition);
      v1::ScoreFilesRequest request;
      request.mutable_config()->mutable_features()->add_feature_args("float_ssim");
      request.mutable_config()->mutable_features()->add_feature_args("ssim");
      if (upstream_metrics) {
        request.mutable_config()->mutable_features()->add_feature_args("psnr");
        if (ms_ssim) {
          request.mutable_config()->mutable_features()->add_feature_args("float_ms_ssim");
        }
      }
      request.mutable_config()->set_rung(e.rendition);
      request.set_reference_path(e.bit_depth == 8 ? source8 : e.reference);
      request.set_distorted_path(e.distorted);
      request.mutable_upscale()->set_accurate_rounding(accurate_rounding);
      auto report = server_->client().ScoreFiles(request, nullptr, kTimeout);
      ASSERT_TRUE(report.ok()) << report.status();
      ExpectLibvmafFrames(report->frames, report->summary, e);
      ++renditions;
    }
    EXPECT_GE(renditions, 7);
  }

  std::string root_;
  std::unique_ptr<TestServer> server_;
};

TEST_F(ScoreFilesParityTest, AccurateRoundingFromY4mSources) {
  ExpectLibvmafScores("expected_scores_accurate_rnd.json", true, "src.y4m", false);
}

TEST_F(ScoreFilesParityTest, AccurateRoundingFromTheFfv1Source) {
  ExpectLibvmafScores("expected_scores_accurate_rnd.json", true, "src_ffv1.mkv", true);
}

// expected_scores.json was made with plain bicubic on an x86-64 CPU with AVX2, whose libswscale
// code path rounds differently from the others.
TEST_F(ScoreFilesParityTest, PlainBicubicOnAnAvx2Machine) {
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx2")) {
    GTEST_SKIP() << "this CPU has no AVX2: libswscale's plain bicubic gives other bytes here "
                    "than on the machine that made expected_scores.json";
  }
  ExpectLibvmafScores("expected_scores.json", false, "src.y4m", false,
                      /*upstream_metrics=*/true);
#else
  GTEST_SKIP() << "expected_scores.json holds x86-64 AVX2 upscales";
#endif
}

}  // namespace
}  // namespace ssimd::testing
