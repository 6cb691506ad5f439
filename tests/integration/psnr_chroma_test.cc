// psnr with its chroma through the service: ScoreClip frames and ScorePair requests that carry
// chroma planes give libvmaf's psnr_y, psnr_cb and psnr_cr (upstream's values for the checked-in
// reference subset, tests/data/reference/expected_metrics.json) bit for bit; a frame without the
// chroma a feature reads, or with chroma of the wrong size, is INVALID_ARGUMENT naming the field;
// ScoreFiles reads the files' chroma where psnr asks for it, with the same values.
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/double_bits.h"
#include "engine/picture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/pixel_format.h"
#include "tests/integration/raw_frames.h"
#include "tests/integration/test_server.h"
#include "tests/reference/full_metrics_set.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr const char* kPsnrMetrics[] = {"psnr_y", "psnr_cb", "psnr_cr"};

v1::ClipConfig PsnrConfig(const Geometry& g, const char* feature) {
  v1::ClipConfig config;
  *config.mutable_geometry() = GeometryToProto(g);
  config.mutable_features()->add_feature_args(feature);
  config.set_backend(v1::BACKEND_AUTO);
  return config;
}

struct ClipOutcome {
  grpc::Status status;
  std::vector<v1::FrameResult> frames;
};

ClipOutcome RunClip(TestServer& server, const v1::ClipConfig& config,
                    const std::vector<v1::FramePair>& frames) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  auto stream = server.stub().ScoreClip(&context);
  v1::ScoreClipRequest request;
  *request.mutable_config() = config;
  bool open = stream->Write(request);
  for (const v1::FramePair& frame : frames) {
    if (!open) break;
    *request.mutable_frame() = frame;
    open = stream->Write(request);
  }
  stream->WritesDone();
  ClipOutcome out;
  v1::ScoreClipResponse response;
  while (stream->Read(&response)) {
    if (response.has_frame()) out.frames.push_back(response.frame());
  }
  out.status = stream->Finish();
  return out;
}

class PsnrChromaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = TestServer::Start(FastServerOptions());
    ASSERT_NE(server_, nullptr);
  }
  std::unique_ptr<TestServer> server_;
};

// Scores one pair's frames with psnr (luma and chroma), as a test's call does; returns the
// frames' results.
using ScorePsnr = std::function<absl::StatusOr<std::vector<v1::FrameResult>>(
    const ReferencePair& pair, const std::vector<RawFrame>& reference,
    const std::vector<RawFrame>& distorted)>;

// Every pair of the subset whose sizes the files and upstream's tool lay out alike (even sides:
// see psnr_replay.h) and whose psnr libvmaf gave, scored by `score`: libvmaf's values bit for bit.
void ExpectLibvmafPsnrOfTheSubset(const ScorePsnr& score) {
  const absl::StatusOr<MetricsSet> subset = LoadMetricsSubset();
  ASSERT_TRUE(subset.ok()) << subset.status();
  int64_t compared = 0;
  int pairs = 0;
  for (const ReferencePair& pair : subset->set.pairs) {
    const Geometry& g = pair.geometry;
    const ExpectedMetrics& expected = subset->expected.at(pair.id);
    if (expected.psnr_refused() || g.width % 2 != 0 || g.height % 2 != 0) {
      continue;
    }
    SCOPED_TRACE(pair.id);
    const absl::StatusOr<std::vector<RawFrame>> ref = ReadRawFrames(pair.reference_clip, g);
    const absl::StatusOr<std::vector<RawFrame>> dist = ReadRawFrames(pair.distorted_clip, g);
    ASSERT_TRUE(ref.ok() && dist.ok()) << ref.status() << " " << dist.status();
    const absl::StatusOr<std::vector<v1::FrameResult>> frames = score(pair, *ref, *dist);
    ASSERT_TRUE(frames.ok()) << frames.status();
    ASSERT_EQ(frames->size(), std::min(ref->size(), dist->size()));
    for (const char* metric : kPsnrMetrics) {
      const std::vector<double>& want = expected.metrics.at(metric);
      ASSERT_EQ(want.size(), frames->size()) << metric;
      for (size_t i = 0; i < want.size(); ++i) {
        const double got = (*frames)[i].scores().at(metric);
        EXPECT_TRUE(SameBits(got, want[i]))
            << metric << " frame " << i << ": " << got << " vs libvmaf " << want[i];
        ++compared;
      }
    }
    ++pairs;
  }
  EXPECT_GE(pairs, 8);
  std::cout << compared << " psnr values from " << pairs << " pairs compared\n";
}

TEST_F(PsnrChromaTest, ScoreClipWithChromaGivesLibvmafsPsnr) {
  ExpectLibvmafPsnrOfTheSubset([&](const ReferencePair& pair, const std::vector<RawFrame>& ref,
                                   const std::vector<RawFrame>& dist)
                                   -> absl::StatusOr<std::vector<v1::FrameResult>> {
    std::vector<v1::FramePair> frames;
    for (size_t i = 0; i < std::min(ref.size(), dist.size()); ++i) {
      v1::FramePair frame;
      frame.set_index(i);
      frame.set_reference_luma(ref[i].luma);
      frame.set_distorted_luma(dist[i].luma);
      frame.set_reference_chroma(ref[i].chroma);
      frame.set_distorted_chroma(dist[i].chroma);
      frames.push_back(frame);
    }
    ClipOutcome out = RunClip(*server_, PsnrConfig(pair.geometry, "psnr"), frames);
    if (!out.status.ok()) return absl::InternalError(out.status.error_message());
    return out.frames;
  });
}

// A files root for ScoreFiles tests, under the test's temporary directory.
std::string FilesRoot(const std::string& name) {
  const std::string root = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  EXPECT_EQ(::mkdir(root.c_str(), 0755), 0);
  return root;
}

// A server reading files under `root`.
std::unique_ptr<TestServer> FilesServer(const std::string& root) {
  ServerOptions options = FastServerOptions();
  options.service.files_root = root;
  return TestServer::Start(options);
}

// ScoreFiles reads each frame's chroma from the files where psnr asks for it: libvmaf's values.
TEST(PsnrChromaFilesTest, ScoreFilesWithChromaGivesLibvmafsPsnr) {
  const std::string root = FilesRoot("psnr_files");
  std::unique_ptr<TestServer> server = FilesServer(root);
  ASSERT_NE(server, nullptr);
  ExpectLibvmafPsnrOfTheSubset([&](const ReferencePair& pair, const std::vector<RawFrame>& ref,
                                   const std::vector<RawFrame>& dist)
                                   -> absl::StatusOr<std::vector<v1::FrameResult>> {
    for (const auto& [name, frames] : {std::pair("ref.yuv", &ref), std::pair("dist.yuv", &dist)}) {
      std::ofstream file(absl::StrCat(root, "/", name), std::ios::binary | std::ios::trunc);
      for (const RawFrame& frame : *frames) file << frame.luma << frame.chroma;
    }
    v1::ScoreFilesRequest request;
    *request.mutable_config() = PsnrConfig(pair.geometry, "psnr");
    request.set_reference_path("ref.yuv");
    request.set_distorted_path("dist.yuv");
    absl::StatusOr<ClipReport> report = server->client().ScoreFiles(request, nullptr,
                                                                     absl::Seconds(60));
    if (!report.ok()) return report.status();
    return report->frames;
  });
}

// The chroma planes of two files are compared only where they have one layout: a .y4m file of
// another is refused up front, naming it (with enable_chroma=false its luma is scored).
TEST(PsnrChromaFilesTest, ChromaOfAnotherLayoutIsRefused) {
  const std::string root = FilesRoot("psnr_layouts");
  const Geometry g420{16, 16, 8, ChromaFormat::k420};
  const Geometry g444{16, 16, 8, ChromaFormat::k444};
  for (const auto& [name, g, tag] : {std::tuple("a.y4m", g420, "C420jpeg"),
                                     std::tuple("b.y4m", g444, "C444")}) {
    std::ofstream(absl::StrCat(root, "/", name), std::ios::binary)
        << "YUV4MPEG2 W16 H16 F25:1 Ip A1:1 " << tag << "\nFRAME\n"
        << std::string(FrameBytes(g), '\x10');
  }
  std::unique_ptr<TestServer> server = FilesServer(root);
  ASSERT_NE(server, nullptr);
  v1::ScoreFilesRequest request;
  request.mutable_config()->mutable_features()->add_feature_args("psnr");
  request.set_reference_path("a.y4m");
  request.set_distorted_path("b.y4m");
  auto refused = server->client().ScoreFiles(request, nullptr, absl::Seconds(30));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()),
              AllOf(HasSubstr("distorted_path: b.y4m is 444, but reference_path (a.y4m) is 420"),
                    HasSubstr("enable_chroma=false")));
  request.mutable_config()->mutable_features()->set_feature_args(0, "psnr=enable_chroma=false");
  auto luma = server->client().ScoreFiles(request, nullptr, absl::Seconds(30));
  ASSERT_TRUE(luma.ok()) << luma.status();
  ASSERT_EQ(luma->frames.size(), 1u);
  EXPECT_EQ(luma->frames[0].scores().at("psnr_y"), 60.0);  // identical 8-bit frames: the cap
}

TEST_F(PsnrChromaTest, ScorePairWithChromaAndTheRefusals) {
  const Geometry g{64, 36, 10, ChromaFormat::k422};
  const size_t luma = LumaBytes(g);
  const size_t chroma = FrameBytes(g) - luma;
  v1::ScorePairRequest request;
  *request.mutable_geometry() = GeometryToProto(g);
  request.mutable_features()->add_feature_args("psnr=enable_mse=true");
  request.set_reference_luma(std::string(luma, '\x01'));
  request.set_distorted_luma(std::string(luma, '\x01'));
  request.set_reference_chroma(std::string(chroma, '\x02'));
  std::string distorted_chroma(chroma, '\x02');
  distorted_chroma[0] = '\x05';  // one Cb sample 3 off: 9 over 32x36 samples
  request.set_distorted_chroma(distorted_chroma);
  auto scored = server_->client().ScorePair(request, absl::Seconds(30));
  ASSERT_TRUE(scored.ok()) << scored.status();
  EXPECT_EQ(scored->scores().at("mse_cb"), 9.0 / (32 * 36));
  EXPECT_EQ(scored->scores().at("mse_cr"), 0.0);
  EXPECT_EQ(scored->scores().at("psnr_y"), 72.0);  // identical 10-bit luma: the cap

  v1::ScorePairRequest missing = request;
  missing.clear_distorted_chroma();
  auto refused = server_->client().ScorePair(missing, absl::Seconds(30));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("distorted_chroma: expected 4608 bytes"));

  // A frame of a ScoreClip stream without its chroma: refused, naming the field and the frame.
  v1::FramePair frame;
  frame.set_reference_luma(request.reference_luma());
  frame.set_distorted_luma(request.distorted_luma());
  frame.set_reference_chroma(std::string(chroma - 1, '\x02'));
  frame.set_distorted_chroma(distorted_chroma);
  const ClipOutcome clip = RunClip(*server_, PsnrConfig(g, "psnr"), {frame});
  EXPECT_EQ(clip.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(clip.status.error_message(), HasSubstr("frame 0: frame.reference_chroma"));

  // Chroma is not read (nor needed) where no feature asks for it.
  frame.clear_reference_chroma();
  const ClipOutcome luma_only = RunClip(*server_, PsnrConfig(g, "psnr=enable_chroma=false"), {frame});
  ASSERT_TRUE(luma_only.status.ok()) << luma_only.status.error_message();
  ASSERT_EQ(luma_only.frames.size(), 1u);
  EXPECT_EQ(luma_only.frames[0].scores().count("psnr_cb"), 0u);
}

}  // namespace
}  // namespace ssimd::testing
