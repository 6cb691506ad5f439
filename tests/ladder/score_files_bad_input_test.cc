// ScoreFiles with encoded files that are wrong in the ways real ones are: corrupt midway, cut
// short, audio only, not media at all, another bit depth or frame rate, other lengths. Every case
// is a gRPC error a user can act on (or a summary that says what was left out), never a crash or
// a wrong score, and the server keeps serving.
#include <cstring>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/test_server.h"
#include "tests/ladder/ladder_files.h"

namespace ssimd::testing {
namespace {

using ::testing::HasSubstr;

std::string ReadRendition(const std::string& name) {
  std::ifstream in("tests/data/ladder/" + name, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class ScoreFilesBadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = absl::StrCat(std::getenv("TEST_TMPDIR"), "/bad_root");
    ASSERT_TRUE(FillFilesRoot(root_, /*with_sources=*/false).ok());
    ServerOptions options = FastServerOptions();
    options.service.files_root = root_;
    options.service.backend_policy = BackendPreference::kCpu;
    server_ = TestServer::Start(options);
    ASSERT_NE(server_, nullptr);
  }

  void Write(const std::string& name, const std::string& bytes) {
    std::ofstream(root_ + "/" + name, std::ios::binary) << bytes;
  }

  struct Outcome {
    absl::Status status;
    int frames = 0;
    v1::ClipSummary summary;
  };

  Outcome Run(const std::string& reference, const std::string& distorted,
              const std::function<void(v1::ScoreFilesRequest*)>& edit = nullptr) {
    v1::ScoreFilesRequest request;
    request.mutable_config()->mutable_features()->add_feature_args("ssim");
    request.set_reference_path(reference);
    request.set_distorted_path(distorted);
    if (edit) edit(&request);
    Outcome out;
    auto report = server_->client().ScoreFiles(
        request, [&out](const v1::FrameResult&) { ++out.frames; }, absl::Minutes(2));
    out.status = report.status();
    if (report.ok()) out.summary = report->summary;
    return out;
  }

  // The sum of the server's `name` samples that have `label` ("key=\"value\""; "" for all).
  double Metric(const std::string& name, const std::string& label) {
    double total = 0;
    for (absl::string_view line : absl::StrSplit(server_->metrics().Serialize(), '\n')) {
      if (!absl::StartsWith(line, name + "{") || !absl::StrContains(line, label)) continue;
      double value = 0;
      EXPECT_TRUE(absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &value)) << line;
      total += value;
    }
    return total;
  }

  double DecodeErrors(const std::string& kind) {
    return Metric("ssimd_decode_errors_total", kind.empty() ? "" : "kind=\"" + kind + "\"");
  }

  std::string root_;
  std::unique_ptr<TestServer> server_;
};

TEST_F(ScoreFilesBadInputTest, CorruptRenditionNamesTheFileAndFrameAfterEarlierResults) {
  std::string bytes = ReadRendition("h264_640x360.mp4");
  std::memset(bytes.data() + bytes.size() * 7 / 10, 0xff, 3000);
  Write("damaged.mp4", bytes);
  Outcome out = Run("h264_1920x1080.mp4", "damaged.mp4");
  EXPECT_EQ(out.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status.message(), HasSubstr(absl::StrCat("damaged.mp4: frame ", out.frames)));
  EXPECT_GT(out.frames, 0);
  EXPECT_EQ(DecodeErrors("corrupt_stream"), 1);
}

TEST_F(ScoreFilesBadInputTest, RefusalsSayWhatIsWrong) {
  const std::string mp4 = ReadRendition("h264_640x360.mp4");
  Write("cut.mp4", mp4.substr(0, mp4.size() / 2));
  Write("noise.mkv", std::string(5000, 'n'));
  // The same H.264 stream under a codec tag no decoder knows.
  std::string unknown = ReadRendition("h264_426x240.mp4");
  for (size_t at = unknown.find("avc1"); at != std::string::npos; at = unknown.find("avc1", at)) {
    unknown.replace(at, 4, "zzz1");
  }
  Write("unknown_codec.mp4", unknown);
  Write("rate25.y4m", "YUV4MPEG2 W1920 H1080 F25:1 Ip A1:1 C420jpeg\n");
  // A WAV of 0.1 s of silence: a valid media file without video.
  std::string wav = std::string("RIFF") + std::string("\x44\x03\x00\x00", 4) + "WAVEfmt " +
                    std::string("\x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x40\x1f\x00"
                                "\x00\x01\x00\x08\x00",
                                20) +
                    "data" + std::string("\x20\x03\x00\x00", 4) + std::string(800, '\x80');
  Write("audio.wav", wav);
  struct Case {
    const char* name;
    std::string reference;
    std::string distorted;
    const char* message;
    const char* kind;  // of ssimd_decode_errors_total; "" for refusals that are not decoding's
  };
  const Case cases[] = {
      // mp4 keeps its index at the end: cut in half, FFmpeg cannot tell it is an mp4 at all.
      {"truncated mp4", "h264_1920x1080.mp4", "cut.mp4", "distorted_path: cut.mp4", "not_media"},
      {"not media", "noise.mkv", "h264_640x360.mp4", "reference_path: noise.mkv: not a media file",
       "not_media"},
      {"unsupported codec", "h264_1920x1080.mp4", "unknown_codec.mp4",
       "distorted_path: unknown_codec.mp4: the video codec none is not supported",
       "unsupported_codec"},
      {"audio only", "h264_1920x1080.mp4", "audio.wav", "audio.wav: the file has no video stream",
       "no_video_stream"},
      {"bit depths differ", "h264_1920x1080.mp4", "hevc10_960x540.mkv", "is 10-bit but", ""},
      {"frame rates differ", "rate25.y4m", "h264_640x360.mp4",
       "runs at 24/1 frames per second but reference_path (rate25.y4m) at 25/1", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const double errors_before = DecodeErrors("");
    const double kind_before = DecodeErrors(c.kind);
    Outcome out = Run(c.reference, c.distorted);
    EXPECT_EQ(out.status.code(), absl::StatusCode::kInvalidArgument) << out.status;
    EXPECT_THAT(out.status.message(), HasSubstr(c.message));
    EXPECT_EQ(out.frames, 0);
    // Counted once, by its kind; mismatched files are the request's fault, not a decoder's.
    EXPECT_EQ(DecodeErrors(""), errors_before + (*c.kind != '\0' ? 1 : 0));
    if (*c.kind != '\0') {
      EXPECT_EQ(DecodeErrors(c.kind), kind_before + 1);
    }
  }
  // Still serving; both files' frames are decoded, the rendition's upscaled too.
  const double decoded_before = Metric("ssimd_frame_stage_seconds_count", "stage=\"decode\"");
  const double scaled_before = Metric("ssimd_frame_stage_seconds_count", "stage=\"scale\"");
  Outcome good = Run("h264_1920x1080.mp4", "h264_426x240.mp4",
                     [](v1::ScoreFilesRequest* r) { r->set_frame_count(2); });
  EXPECT_TRUE(good.status.ok()) << good.status;
  EXPECT_EQ(good.frames, 2);
  EXPECT_EQ(Metric("ssimd_frame_stage_seconds_count", "stage=\"decode\""), decoded_before + 4);
  EXPECT_EQ(Metric("ssimd_frame_stage_seconds_count", "stage=\"scale\""), scaled_before + 2);
}

TEST_F(ScoreFilesBadInputTest, DifferentLengthsScoreTheCommonFramesOrFail) {
  Outcome out = Run("h264_1920x1080.mp4", "vp9_960x540.webm", [](v1::ScoreFilesRequest* r) {
    r->set_distorted_start_frame(5);
    r->mutable_upscale()->set_scaler(v1::SCALER_LANCZOS);
  });
  ASSERT_TRUE(out.status.ok()) << out.status;
  EXPECT_EQ(out.frames, 19);
  EXPECT_EQ(out.summary.frames(), 19u);
  EXPECT_EQ(out.summary.unmatched_reference_frames(), 5u);
  EXPECT_EQ(out.summary.unmatched_distorted_frames(), 0u);

  Outcome strict = Run("h264_1920x1080.mp4", "vp9_960x540.webm", [](v1::ScoreFilesRequest* r) {
    r->set_reference_start_frame(3);
    r->set_require_equal_length(true);
  });
  EXPECT_EQ(strict.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(strict.status.message(), HasSubstr("h264_1920x1080.mp4 has 21 frames, "
                                                 "vp9_960x540.webm has 24"));
}

}  // namespace
}  // namespace ssimd::testing
