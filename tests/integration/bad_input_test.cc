// Every kind of bad request gets the documented status code and a message naming the field and
// what was expected, and the server keeps serving good requests after each one.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "engine/synthetic_picture.h"
#include "tests/integration/test_server.h"

namespace ssimd::testing {
namespace {

using ::testing::HasSubstr;
using HealthStatus = grpc::health::v1::HealthCheckResponse;

const Geometry kGeometry{24, 16, 10, ChromaFormat::k420};

v1::Geometry GeometryProto(uint32_t w, uint32_t h, uint32_t depth) {
  v1::Geometry g;
  g.set_width(w);
  g.set_height(h);
  g.set_bit_depth(depth);
  g.set_pixel_format(v1::PIXEL_FORMAT_420);
  return g;
}

v1::ScoreClipRequest Config(std::function<void(v1::ClipConfig*)> edit = nullptr) {
  v1::ScoreClipRequest request;
  v1::ClipConfig* config = request.mutable_config();
  *config->mutable_geometry() = GeometryProto(24, 16, 10);
  config->mutable_features()->add_feature_args("float_ssim");
  config->mutable_features()->mutable_ssim();
  if (edit) edit(config);
  return request;
}

v1::ScoreClipRequest Frame(uint64_t index, std::string reference = "",
                           std::string distorted = "") {
  v1::ScoreClipRequest request;
  v1::FramePair* frame = request.mutable_frame();
  frame->set_index(index);
  const SyntheticPlane plane = TexturedPlane(kGeometry, static_cast<uint32_t>(index) + 1);
  frame->set_reference_luma(reference.empty() ? plane.ToString() : reference);
  frame->set_distorted_luma(distorted.empty() ? Distort(plane, 7, 8).ToString() : distorted);
  return request;
}

struct Outcome {
  grpc::Status status;
  int frames = 0;
};

// Sends the messages (one at a time, reading nothing until the end: they are small and the
// server answers an error at once), half-closes, and reads whatever comes back.
Outcome RunClip(v1::ScoringService::Stub& stub, const std::vector<v1::ScoreClipRequest>& messages) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  auto stream = stub.ScoreClip(&context);
  for (const auto& m : messages) {
    if (!stream->Write(m)) break;
  }
  stream->WritesDone();
  Outcome out;
  v1::ScoreClipResponse response;
  while (stream->Read(&response)) out.frames += response.has_frame() ? 1 : 0;
  out.status = stream->Finish();
  return out;
}

struct ClipCase {
  const char* name;
  std::vector<v1::ScoreClipRequest> messages;
  grpc::StatusCode code;
  const char* message;
};

std::string TooBright10Bit() {
  std::string plane = TexturedPlane(kGeometry, 3).ToString();
  plane[2 * 37] = static_cast<char>(0xff);  // sample 37 becomes 0x03ff | 0xff00 > 1023
  plane[2 * 37 + 1] = static_cast<char>(0x7f);
  return plane;
}

std::vector<ClipCase> ClipCases() {
  using C = grpc::StatusCode;
  return {
      {"frame before config", {Frame(0)}, C::FAILED_PRECONDITION, "frame: received before the config"},
      {"config twice", {Config(), Config()}, C::FAILED_PRECONDITION, "already has its config"},
      {"no config at all", {}, C::FAILED_PRECONDITION, "ended before its config"},
      {"empty message", {v1::ScoreClipRequest()}, C::INVALID_ARGUMENT, "neither config nor frame"},
      {"missing geometry",
       {Config([](v1::ClipConfig* c) { c->clear_geometry(); })},
       C::INVALID_ARGUMENT, "config.geometry: missing"},
      {"zero width",
       {Config([](v1::ClipConfig* c) { c->mutable_geometry()->set_width(0); })},
       C::INVALID_ARGUMENT, "config.geometry: width: expected 1 to 32768 pixels, got 0"},
      {"zero height",
       {Config([](v1::ClipConfig* c) { c->mutable_geometry()->set_height(0); })},
       C::INVALID_ARGUMENT, "config.geometry: height: expected 1 to 32768 pixels, got 0"},
      {"huge width",
       {Config([](v1::ClipConfig* c) { c->mutable_geometry()->set_width(100000); })},
       C::INVALID_ARGUMENT, "width: expected 1 to 32768 pixels, got 100000"},
      {"too many pixels",
       {Config([](v1::ClipConfig* c) { *c->mutable_geometry() = GeometryProto(30000, 30000, 8); })},
       C::INVALID_ARGUMENT, "width x height must be at most"},
      {"bit depth 7",
       {Config([](v1::ClipConfig* c) { c->mutable_geometry()->set_bit_depth(7); })},
       C::INVALID_ARGUMENT, "config.geometry: bit_depth: expected 8, 10, 12 or 16, got 7"},
      {"bit depth 17",
       {Config([](v1::ClipConfig* c) { c->mutable_geometry()->set_bit_depth(17); })},
       C::INVALID_ARGUMENT, "bit_depth: expected 8, 10, 12 or 16, got 17"},
      {"unknown pixel format",
       {Config([](v1::ClipConfig* c) {
         c->mutable_geometry()->set_pixel_format(static_cast<v1::PixelFormat>(42));
       })},
       C::INVALID_ARGUMENT, "pixel_format: expected PIXEL_FORMAT_420"},
      {"no feature",
       {Config([](v1::ClipConfig* c) { c->mutable_features()->Clear(); })},
       C::INVALID_ARGUMENT, "config.features: no feature requested"},
      {"unknown feature",
       {Config([](v1::ClipConfig* c) { c->mutable_features()->add_feature_args("psnr_hvs"); })},
       C::INVALID_ARGUMENT, "config.features.feature_args"},
      {"psnr's chroma without chroma planes",
       {Config([](v1::ClipConfig* c) { c->mutable_features()->add_feature_args("psnr"); }),
        Frame(0)},
       C::INVALID_ARGUMENT, "frame 0: frame.reference_chroma: expected 384 bytes"},
      {"float_ms_ssim on a picture too small for five scales",
       {Config([](v1::ClipConfig* c) {
         c->mutable_features()->add_feature_args("float_ms_ssim");
       })},
       C::INVALID_ARGUMENT, "float_ms_ssim needs at least 176x176 pixels"},
      {"unknown option",
       {Config([](v1::ClipConfig* c) {
         c->mutable_features()->set_feature_args(0, "float_ssim=k1=0.5");
       })},
       C::INVALID_ARGUMENT, "float_ssim has no option \"k1\""},
      {"scale out of range (typed)",
       {Config([](v1::ClipConfig* c) {
         c->mutable_features()->clear_feature_args();
         c->mutable_features()->mutable_float_ssim()->set_scale(11);
       })},
       C::INVALID_ARGUMENT, "float_ssim.scale: expected 0 (automatic) to 10, got 11"},
      {"scale out of range (argument)",
       {Config([](v1::ClipConfig* c) {
         c->mutable_features()->set_feature_args(0, "float_ssim=scale=11");
       })},
       C::INVALID_ARGUMENT, "scale must be an integer from 0 to 10"},
      {"bad boolean option",
       {Config([](v1::ClipConfig* c) {
         c->mutable_features()->set_feature_args(0, "float_ssim=enable_db=maybe");
       })},
       C::INVALID_ARGUMENT, "enable_db must be true, false, 1 or 0"},
      {"feature twice",
       {Config([](v1::ClipConfig* c) { c->mutable_features()->add_feature_args("ssim"); })},
       C::INVALID_ARGUMENT, "ssim is requested both"},
      {"unknown backend",
       {Config([](v1::ClipConfig* c) { c->set_backend(static_cast<v1::Backend>(9)); })},
       C::INVALID_ARGUMENT, "config.backend: expected BACKEND_AUTO, BACKEND_GPU or BACKEND_CPU"},
      {"gpu requested without a gpu",
       {Config([](v1::ClipConfig* c) { c->set_backend(v1::BACKEND_GPU); })},
       C::UNAVAILABLE, "backend gpu was requested but no GPU is available"},
      {"percentile out of range",
       {Config([](v1::ClipConfig* c) { c->add_percentiles(150); })},
       C::INVALID_ARGUMENT, "config.percentiles[0]: expected 0 to 100, got 150"},
      {"too many labels",
       {Config([](v1::ClipConfig* c) {
         for (int i = 0; i < 40; ++i) (*c->mutable_labels())[absl::StrCat("k", i)] = "v";
       })},
       C::INVALID_ARGUMENT, "config.labels: at most 32 entries, got 40"},
      {"first index not 0", {Config(), Frame(5)}, C::INVALID_ARGUMENT,
       "frame.index: expected 0 (frames are numbered 0, 1, 2, ... in order), got 5"},
      {"indices out of order", {Config(), Frame(0), Frame(2)}, C::INVALID_ARGUMENT,
       "frame.index: expected 1"},
      {"index repeated", {Config(), Frame(0), Frame(0)}, C::INVALID_ARGUMENT,
       "frame.index: expected 1"},
      {"reference plane too small", {Config(), Frame(0, std::string(100, 'x'))},
       C::INVALID_ARGUMENT,
       "frame.reference_luma: expected 768 bytes (a 24x16 luma plane, 2 bytes little-endian per "
       "sample, no padding), got 100"},
      {"distorted plane too large", {Config(), Frame(0, "", std::string(769, 'x'))},
       C::INVALID_ARGUMENT, "frame.distorted_luma: expected 768 bytes"},
      {"8-bit sized plane for a 10-bit clip", {Config(), Frame(0, std::string(384, 'x'))},
       C::INVALID_ARGUMENT, "frame.reference_luma: expected 768 bytes"},
      {"sample above the 10-bit peak", {Config(), Frame(0, TooBright10Bit())},
       C::INVALID_ARGUMENT, "above the 10-bit peak 1023"},
  };
}

class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = absl::StrCat(std::getenv("TEST_TMPDIR"), "/bad_input_root");
    outside_ = absl::StrCat(std::getenv("TEST_TMPDIR"), "/outside");
    ::mkdir(root_.c_str(), 0755);
    ::mkdir(outside_.c_str(), 0755);
    const std::string chroma(FrameBytes(kGeometry) - LumaBytes(kGeometry), '\0');
    std::ofstream(root_ + "/good.y4m", std::ios::binary)
        << "YUV4MPEG2 W24 H16 C420p10\nFRAME\n" << TexturedPlane(kGeometry, 1).ToString() << chroma;
    std::ofstream(root_ + "/truncated.y4m", std::ios::binary)
        << "YUV4MPEG2 W24 H16 C420p10\nFRAME\n" << TexturedPlane(kGeometry, 1).ToString().substr(0, 100);
    std::ofstream(root_ + "/bad_header.y4m", std::ios::binary) << "YUV4MPEG2 W0 H16\nFRAME\n";
    std::ofstream(root_ + "/small.y4m", std::ios::binary) << "YUV4MPEG2 W8 H8\n";
    std::ofstream(root_ + "/raw.yuv", std::ios::binary) << std::string(FrameBytes(kGeometry), '\0');
    std::ofstream(outside_ + "/secret.y4m", std::ios::binary) << "YUV4MPEG2 W24 H16 C420p10\n";
    ::unlink((root_ + "/link.y4m").c_str());  // left by an earlier test of this process
    ASSERT_EQ(::symlink((outside_ + "/secret.y4m").c_str(), (root_ + "/link.y4m").c_str()), 0);

    ServerOptions options = FastServerOptions();
    options.service.files_root = root_;
    options.service.max_message_bytes = 64 << 10;
    server_ = TestServer::Start(options);
    ASSERT_NE(server_, nullptr);
  }

  // A good request after each bad one: the server is still serving.
  void ExpectStillServing() {
    v1::ScorePairRequest request;
    *request.mutable_geometry() = GeometryProto(24, 16, 10);
    request.mutable_features()->mutable_ssim();
    request.set_reference_luma(TexturedPlane(kGeometry, 5).ToString());
    request.set_distorted_luma(TexturedPlane(kGeometry, 6).ToString());
    auto result = server_->client().ScorePair(request, absl::Seconds(20));
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->scores().size(), 1);
  }

  Outcome RunFiles(const std::string& reference, const std::string& distorted,
                   std::function<void(v1::ScoreFilesRequest*)> edit = nullptr) {
    v1::ScoreFilesRequest request;
    request.mutable_config()->mutable_features()->mutable_ssim();
    request.set_reference_path(reference);
    request.set_distorted_path(distorted);
    if (edit) edit(&request);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    auto reader = server_->stub().ScoreFiles(&context, request);
    Outcome out;
    v1::ScoreClipResponse response;
    while (reader->Read(&response)) out.frames += response.has_frame() ? 1 : 0;
    out.status = reader->Finish();
    return out;
  }

  std::string root_;
  std::string outside_;
  std::unique_ptr<TestServer> server_;
};

TEST_F(BadInputTest, ScoreClipRefusesEachKindWithTheRightCodeAndMessage) {
  int kinds = 0;
  for (const ClipCase& c : ClipCases()) {
    SCOPED_TRACE(c.name);
    const Outcome out = RunClip(server_->stub(), c.messages);
    EXPECT_EQ(out.status.error_code(), c.code) << out.status.error_message();
    EXPECT_THAT(out.status.error_message(), HasSubstr(c.message));
    // Frames before the bad message may have been answered; the bad one never is.
    int frames_sent = 0;
    for (const auto& m : c.messages) frames_sent += m.has_frame() ? 1 : 0;
    EXPECT_LE(out.frames, frames_sent > 0 ? frames_sent - 1 : 0);
    ExpectStillServing();
    ++kinds;
  }
  EXPECT_GE(kinds, 20);
}

TEST_F(BadInputTest, MessageOverTheSizeLimit) {
  // 64 KiB limit: a 128x128 16-bit pair (64 KiB of planes plus framing) cannot be sent.
  v1::ScoreClipRequest config = Config([](v1::ClipConfig* c) {
    *c->mutable_geometry() = GeometryProto(128, 128, 16);
  });
  Outcome out = RunClip(server_->stub(), {config});
  EXPECT_EQ(out.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(out.status.error_message(), HasSubstr("--max_message_bytes"));
  ExpectStillServing();

  // A message over the limit is refused by the service itself, naming the limit...
  v1::ScoreClipRequest big = Frame(0, std::string(70 << 10, 'x'));
  out = RunClip(server_->stub(), {Config(), big});
  EXPECT_EQ(out.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(out.status.error_message(),
              HasSubstr("larger than this server's --max_message_bytes=65536"));
  ExpectStillServing();

  // ...and one over twice the limit by gRPC, before it reaches the service.
  v1::ScoreClipRequest huge = Frame(0, std::string(200 << 10, 'x'));
  out = RunClip(server_->stub(), {Config(), huge});
  EXPECT_EQ(out.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(out.status.error_message(), HasSubstr("larger than max"));
  ExpectStillServing();
}

TEST_F(BadInputTest, ScorePairRefusals) {
  struct Case {
    const char* name;
    std::function<void(v1::ScorePairRequest*)> edit;
    grpc::StatusCode code;
    const char* message;
  };
  const Case cases[] = {
      {"missing geometry", [](v1::ScorePairRequest* r) { r->clear_geometry(); },
       grpc::StatusCode::INVALID_ARGUMENT, "geometry: missing"},
      {"bit depth 7", [](v1::ScorePairRequest* r) { r->mutable_geometry()->set_bit_depth(7); },
       grpc::StatusCode::INVALID_ARGUMENT, "geometry: bit_depth: expected 8, 10, 12 or 16"},
      {"no features", [](v1::ScorePairRequest* r) { r->clear_features(); },
       grpc::StatusCode::INVALID_ARGUMENT, "features: no feature requested"},
      {"short plane", [](v1::ScorePairRequest* r) { r->set_distorted_luma("abc"); },
       grpc::StatusCode::INVALID_ARGUMENT, "distorted_luma: expected 768 bytes"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    v1::ScorePairRequest request;
    *request.mutable_geometry() = GeometryProto(24, 16, 10);
    request.mutable_features()->mutable_ssim();
    request.set_reference_luma(TexturedPlane(kGeometry, 1).ToString());
    request.set_distorted_luma(TexturedPlane(kGeometry, 2).ToString());
    c.edit(&request);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    v1::ScorePairResponse response;
    grpc::Status status = server_->stub().ScorePair(&context, request, &response);
    EXPECT_EQ(status.error_code(), c.code) << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr(c.message));
    ExpectStillServing();
  }
}

TEST_F(BadInputTest, ScoreFilesRefusals) {
  struct Case {
    const char* name;
    std::string reference;
    std::string distorted;
    std::function<void(v1::ScoreFilesRequest*)> edit;
    grpc::StatusCode code;
    const char* message;
  };
  const Case cases[] = {
      {"dot-dot", "../outside/secret.y4m", "good.y4m", nullptr, grpc::StatusCode::INVALID_ARGUMENT,
       "reference_path: \"..\" is not allowed"},
      {"absolute path outside", outside_ + "/secret.y4m", "good.y4m", nullptr,
       grpc::StatusCode::INVALID_ARGUMENT, "outside the server's files root"},
      {"symlink escape", "good.y4m", "link.y4m", nullptr, grpc::StatusCode::INVALID_ARGUMENT,
       "distorted_path: \"link.y4m\" leads outside the server's files root"},
      {"missing file", "good.y4m", "absent.y4m", nullptr, grpc::StatusCode::NOT_FOUND,
       "distorted_path: no file \"absent.y4m\""},
      {"empty path", "", "good.y4m", nullptr, grpc::StatusCode::INVALID_ARGUMENT,
       "reference_path: empty"},
      {"truncated y4m", "good.y4m", "truncated.y4m", nullptr, grpc::StatusCode::INVALID_ARGUMENT,
       "frame 0 is truncated"},
      {"bad y4m header", "bad_header.y4m", "good.y4m", nullptr,
       grpc::StatusCode::INVALID_ARGUMENT, "W (width) must be a positive integer"},
      {"sizes differ", "good.y4m", "small.y4m", nullptr, grpc::StatusCode::INVALID_ARGUMENT,
       "both files must have the same luma size and bit depth"},
      {"raw file without geometry", "raw.yuv", "good.y4m", nullptr,
       grpc::StatusCode::INVALID_ARGUMENT, "config.geometry: missing; raw file raw.yuv"},
      {"raw file without pixel format", "raw.yuv", "raw.yuv",
       [](v1::ScoreFilesRequest* r) {
         v1::Geometry* g = r->mutable_config()->mutable_geometry();
         g->set_width(24);
         g->set_height(16);
         g->set_bit_depth(10);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "config.geometry.pixel_format: required for raw"},
      {"start beyond the end", "good.y4m", "good.y4m",
       [](v1::ScoreFilesRequest* r) { r->set_start_frame(3); },
       grpc::StatusCode::INVALID_ARGUMENT, "cannot skip 3 frames: the file has only 1"},
      {"bad feature", "good.y4m", "good.y4m",
       [](v1::ScoreFilesRequest* r) {
         r->mutable_config()->mutable_features()->add_feature_args("psnr_hvs");
       },
       grpc::StatusCode::INVALID_ARGUMENT, "config.features.feature_args"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Outcome out = RunFiles(c.reference, c.distorted, c.edit);
    EXPECT_EQ(out.status.error_code(), c.code) << out.status.error_message();
    EXPECT_THAT(out.status.error_message(), HasSubstr(c.message));
    if (c.reference.find("secret") == std::string::npos &&
        c.distorted.find("secret") == std::string::npos) {
      EXPECT_THAT(out.status.error_message(), ::testing::Not(HasSubstr("secret")))
          << "messages must not reveal where a link inside the root points";
    }
    ExpectStillServing();
  }
  // And a good one works.
  const Outcome good = RunFiles("good.y4m", "good.y4m");
  EXPECT_TRUE(good.status.ok()) << good.status.error_message();
  EXPECT_EQ(good.frames, 1);
  EXPECT_EQ(*server_->client().CheckHealth("", absl::Seconds(5)), HealthStatus::SERVING);
}

TEST(BadInputFilesDisabledTest, ScoreFilesWithoutARootIsFailedPrecondition) {
  auto server = TestServer::Start(FastServerOptions());
  ASSERT_NE(server, nullptr);
  v1::ScoreFilesRequest request;
  request.mutable_config()->mutable_features()->mutable_ssim();
  request.set_reference_path("a.y4m");
  request.set_distorted_path("b.y4m");
  auto report = server->client().ScoreFiles(request, nullptr, absl::Seconds(20));
  EXPECT_EQ(report.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("--files_root"));
}

}  // namespace
}  // namespace ssimd::testing
