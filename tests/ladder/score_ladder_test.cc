// ScoreLadder end to end: libvmaf's scores bit for bit for a whole ladder in one call (the source
// decoded once), per-rendition and ladder summaries, unmatched frames, and refusals that name the
// rendition. The parity cases need the rebuilt sources; the others use a rendition as the source.
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/test_server.h"
#include "tests/ladder/ladder_files.h"

namespace ssimd::testing {
namespace {

using ::testing::HasSubstr;

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(a)) == 0; }

struct LadderOutcome {
  grpc::Status status;
  std::map<std::string, std::vector<v1::FrameResult>> frames;
  std::map<std::string, v1::ClipSummary> summaries;
  std::vector<std::string> order;  // message kinds in arrival order: f, r, l
  v1::LadderSummary ladder;
};

LadderOutcome RunLadder(TestServer& server, const v1::ScoreLadderRequest& request) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::minutes(5));
  auto reader = server.stub().ScoreLadder(&context, request);
  LadderOutcome out;
  v1::ScoreLadderResponse message;
  while (reader->Read(&message)) {
    if (message.has_frame()) {
      out.frames[message.frame().rendition()].push_back(message.frame().result());
      out.order.push_back("f");
    } else if (message.has_rendition_summary()) {
      out.summaries[message.rendition_summary().rendition()] =
          message.rendition_summary().summary();
      out.order.push_back("r");
    } else {
      out.ladder = message.ladder_summary();
      out.order.push_back("l");
    }
  }
  out.status = reader->Finish();
  return out;
}

v1::ScoreLadderRequest LadderRequest(const std::string& source) {
  v1::ScoreLadderRequest request;
  request.mutable_config()->mutable_features()->add_feature_args("float_ssim");
  request.mutable_config()->mutable_features()->add_feature_args("ssim");
  request.mutable_config()->set_title_id("autumn");
  request.set_source_path(source);
  return request;
}

void AddRendition(v1::ScoreLadderRequest* request, const std::string& name,
                  const std::string& path) {
  v1::Rendition* r = request->add_renditions();
  r->set_name(name);
  r->set_path(path);
}

class ScoreLadderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = absl::StrCat(std::getenv("TEST_TMPDIR"), "/ladder_root");
    ASSERT_TRUE(FillFilesRoot(root_, /*with_sources=*/MissingSourcesReason().empty()).ok());
    ServerOptions options = FastServerOptions();
    options.service.files_root = root_;
    options.service.backend_policy = BackendPreference::kCpu;
    server_ = TestServer::Start(options);
    ASSERT_NE(server_, nullptr);
  }

  // The whole ladder of `expected_file` (accurate_rnd) in two calls: the 8-bit renditions against
  // `source8`, the 10-bit ones against src10.y4m.
  void ExpectLibvmafScores(const std::string& source8) {
    auto expected = ReadExpectedScores("expected_scores_accurate_rnd.json");
    ASSERT_TRUE(expected.ok()) << expected.status();
    for (int depth : {8, 10}) {
      v1::ScoreLadderRequest request = LadderRequest(depth == 8 ? source8 : "src10.y4m");
      request.mutable_upscale()->set_accurate_rounding(true);
      std::vector<const ExpectedRendition*> rungs;
      for (const ExpectedRendition& e : *expected) {
        if (e.bit_depth != depth) continue;
        AddRendition(&request, e.rendition, e.distorted);
        rungs.push_back(&e);
      }
      LadderOutcome out = RunLadder(*server_, request);
      ASSERT_TRUE(out.status.ok()) << out.status.error_message();
      EXPECT_EQ(out.ladder.renditions(), rungs.size());
      EXPECT_EQ(out.ladder.source_frames(), 24u);
      EXPECT_EQ(out.order.back(), "l");
      for (const ExpectedRendition* e : rungs) {
        SCOPED_TRACE(e->rendition);
        const std::vector<v1::FrameResult>& frames = out.frames[e->rendition];
        ASSERT_EQ(frames.size(), e->float_ssim.size());
        for (size_t i = 0; i < frames.size(); ++i) {
          EXPECT_EQ(frames[i].index(), i);
          EXPECT_TRUE(SameBits(frames[i].scores().at("float_ssim"), e->float_ssim[i]))
              << "frame " << i;
          EXPECT_TRUE(SameBits(frames[i].scores().at("ssim"), e->ssim[i])) << "frame " << i;
        }
        const v1::ClipSummary& summary = out.summaries[e->rendition];
        EXPECT_EQ(summary.frames(), 24u);
        EXPECT_EQ(summary.unmatched_reference_frames(), 0u);
        EXPECT_EQ(summary.unmatched_distorted_frames(), 0u);
      }
    }
  }

  std::string root_;
  std::unique_ptr<TestServer> server_;
};

TEST_F(ScoreLadderTest, WholeLadderMatchesLibvmafFromTheY4mSources) {
  const std::string missing = MissingSourcesReason();
  if (!missing.empty()) GTEST_SKIP() << missing;
  ExpectLibvmafScores("src.y4m");
}

TEST_F(ScoreLadderTest, WholeLadderMatchesLibvmafFromTheFfv1Source) {
  const std::string missing = MissingSourcesReason();
  if (!missing.empty()) GTEST_SKIP() << missing;
  ExpectLibvmafScores("src_ffv1.mkv");
}

// Without the sources: the 1080p rendition stands in as the source.
TEST_F(ScoreLadderTest, SummariesFollowTheFramesAndCountUnmatchedFrames) {
  v1::ScoreLadderRequest request = LadderRequest("h264_1920x1080.mp4");
  AddRendition(&request, "360p", "h264_640x360.mp4");
  AddRendition(&request, "540p", "vp9_960x540.webm");
  request.set_source_start_frame(20);  // 4 source frames left against 24 per rendition
  LadderOutcome out = RunLadder(*server_, request);
  ASSERT_TRUE(out.status.ok()) << out.status.error_message();
  EXPECT_EQ(out.frames["360p"].size(), 4u);
  EXPECT_EQ(out.frames["540p"].size(), 4u);
  EXPECT_EQ(out.summaries["360p"].unmatched_distorted_frames(), 20u);
  EXPECT_EQ(out.summaries["540p"].unmatched_reference_frames(), 0u);
  EXPECT_EQ(out.ladder.source_frames(), 4u);
  // Every frame result comes before the rendition summaries, and the ladder summary is last.
  ASSERT_EQ(out.order.size(), 8u + 2 + 1);
  EXPECT_EQ(std::count(out.order.begin(), out.order.begin() + 8, "f"), 8);
  EXPECT_EQ(out.order.back(), "l");

  request.set_require_equal_length(true);
  LadderOutcome strict = RunLadder(*server_, request);
  EXPECT_EQ(strict.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(strict.status.error_message(), HasSubstr("rendition 360p has 24 frames"));
}

TEST_F(ScoreLadderTest, RefusalsNameTheRendition) {
  {
    v1::ScoreLadderRequest request = LadderRequest("h264_1920x1080.mp4");
    AddRendition(&request, "a", "h264_640x360.mp4");
    AddRendition(&request, "a", "h264_426x240.mp4");
    LadderOutcome out = RunLadder(*server_, request);
    EXPECT_EQ(out.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(out.status.error_message(), HasSubstr("renditions[1].name: \"a\" is used twice"));
  }
  {
    v1::ScoreLadderRequest request = LadderRequest("h264_1920x1080.mp4");
    AddRendition(&request, "ten", "hevc10_960x540.mkv");
    LadderOutcome out = RunLadder(*server_, request);
    EXPECT_EQ(out.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(out.status.error_message(), HasSubstr("renditions[0].path"));
    EXPECT_THAT(out.status.error_message(), HasSubstr("10-bit"));
  }
  {
    v1::ScoreLadderRequest request = LadderRequest("h264_1920x1080.mp4");
    LadderOutcome out = RunLadder(*server_, request);
    EXPECT_EQ(out.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(out.status.error_message(), HasSubstr("expected 1 to 32 renditions"));
  }
  {
    v1::ScoreLadderRequest request = LadderRequest("h264_1920x1080.mp4");
    AddRendition(&request, "out", "../secret.mp4");
    LadderOutcome out = RunLadder(*server_, request);
    EXPECT_EQ(out.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(out.status.error_message(), HasSubstr("renditions[0].path"));
  }
}

TEST_F(ScoreLadderTest, CorruptRenditionFailsAfterDeliveringEarlierFrames) {
  std::ifstream in("tests/data/ladder/h264_640x360.mp4", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::memset(bytes.data() + bytes.size() * 7 / 10, 0xff, 3000);
  std::ofstream(root_ + "/damaged.mp4", std::ios::binary) << bytes;
  v1::ScoreLadderRequest request = LadderRequest("h264_1920x1080.mp4");
  AddRendition(&request, "good", "h264_426x240.mp4");
  AddRendition(&request, "bad", "damaged.mp4");
  LadderOutcome out = RunLadder(*server_, request);
  EXPECT_EQ(out.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(out.status.error_message(), HasSubstr("rendition bad: damaged.mp4: frame "));
  EXPECT_GT(out.frames["bad"].size(), 0u);
  EXPECT_LT(out.frames["bad"].size(), 24u);
  EXPECT_TRUE(out.summaries.empty());
}

}  // namespace
}  // namespace ssimd::testing
