// psnr's enable_apsnr through the service: a clip's summary gives libvmaf's aggregate apsnr_y,
// apsnr_cb and apsnr_cr bit for bit (upstream's vmaf tool on checked-in subset pairs,
// tests/data/psnr/apsnr.json), from ScoreClip with chroma and from ScoreFiles (luma only, where
// libvmaf's unscored chroma gives -inf); a client pooling the frames itself (a resumed clip)
// gets the same values from the frames' sums; ScorePair, which has no summary, refuses it.
#include <sys/stat.h>

#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/double_bits.h"
#include "client/clip_resume.h"
#include "client/ssimd_client.h"
#include "engine/picture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proto/pixel_format.h"
#include "tests/integration/raw_frames.h"
#include "tests/integration/test_server.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {
namespace {

using ::testing::HasSubstr;

struct ApsnrCase {
  const ReferencePair* pair = nullptr;
  std::string options;
  int frames = 0;
  nlohmann::json aggregate;  // libvmaf's; null where it gave -inf
};

class ApsnrTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto set = LoadReferenceSet(RunfilePath("tests/data/reference"));
    ASSERT_TRUE(set.ok()) << set.status();
    set_ = *std::move(set);
    std::ifstream in(RunfilePath("tests/data/psnr/apsnr.json"));
    const nlohmann::json expected = nlohmann::json::parse(in);
    for (const nlohmann::json& c : expected.at("cases")) {
      ApsnrCase one;
      for (const ReferencePair& p : set_.pairs) {
        if (p.id == c.at("pair").get<std::string>()) one.pair = &p;
      }
      ASSERT_NE(one.pair, nullptr) << c.at("pair") << " is not in the subset";
      one.options = c.at("options").get<std::string>();
      one.frames = c.at("frames").get<int>();
      one.aggregate = c.at("aggregate");
      cases_.push_back(one);
    }
    ASSERT_GE(cases_.size(), 6u);
  }

  // Compares a summary's aggregate with libvmaf's, value by value; returns how many.
  static int Compare(const v1::ClipSummary& summary, const ApsnrCase& c) {
    int compared = 0;
    EXPECT_EQ(summary.aggregate().size(), c.aggregate.size());
    for (const auto& [name, want] : c.aggregate.items()) {
      const auto got = summary.aggregate().find(name);
      if (got == summary.aggregate().end()) {
        ADD_FAILURE() << name << " missing";
        continue;
      }
      if (want.is_null()) {
        EXPECT_TRUE(std::isinf(got->second) && got->second < 0) << name << ": " << got->second;
      } else {
        EXPECT_TRUE(SameBits(got->second, want.get<double>()))
            << name << ": " << got->second << " vs libvmaf " << want.get<double>();
      }
      ++compared;
    }
    return compared;
  }

  ReferenceSet set_;
  std::vector<ApsnrCase> cases_;
};

// The pair's frames with their chroma, as ScoreClip takes them.
std::vector<OutgoingPlanes> FramesWithChroma(const ReferencePair& pair) {
  const absl::StatusOr<std::vector<RawFrame>> ref =
      ReadRawFrames(pair.reference_clip, pair.geometry);
  const absl::StatusOr<std::vector<RawFrame>> dist =
      ReadRawFrames(pair.distorted_clip, pair.geometry);
  EXPECT_TRUE(ref.ok() && dist.ok()) << ref.status() << " " << dist.status();
  std::vector<OutgoingPlanes> frames;
  if (!ref.ok() || !dist.ok()) return frames;
  for (size_t i = 0; i < std::min(ref->size(), dist->size()); ++i) {
    frames.push_back({(*ref)[i].luma, (*dist)[i].luma, (*ref)[i].chroma, (*dist)[i].chroma});
  }
  return frames;
}

TEST_F(ApsnrTest, ScoreClipSummariesGiveLibvmafsApsnr) {
  auto server = TestServer::Start(FastServerOptions());
  ASSERT_NE(server, nullptr);
  int compared = 0;
  for (const ApsnrCase& c : cases_) {
    SCOPED_TRACE(c.pair->id + " psnr=" + c.options);
    v1::ClipConfig config;
    *config.mutable_geometry() = GeometryToProto(c.pair->geometry);
    config.mutable_features()->add_feature_args("psnr=" + c.options);
    const std::vector<OutgoingPlanes> frames = FramesWithChroma(*c.pair);
    ASSERT_EQ(static_cast<int>(frames.size()), c.frames);
    size_t next = 0;
    const FramePlanesSource source = [&](OutgoingPlanes* planes) -> absl::StatusOr<bool> {
      if (next == frames.size()) return false;
      *planes = frames[next++];
      return true;
    };
    absl::StatusOr<ClipReport> report =
        server->client().ScoreClip(config, source, nullptr, absl::Seconds(60));
    ASSERT_TRUE(report.ok()) << report.status();
    compared += Compare(report->summary, c);
    // The frames' sums, pooled by the client as a resumed clip is, give the same values.
    compared += Compare(SummarizeFrames(report->frames, {}), c);
  }
  std::cout << compared << " apsnr values compared\n";
}

TEST_F(ApsnrTest, ScoreFilesLumaOnlyGivesLibvmafsApsnr) {
  const std::string root = absl::StrCat(std::getenv("TEST_TMPDIR"), "/apsnr_files");
  ASSERT_EQ(::mkdir(root.c_str(), 0755), 0);
  ServerOptions options = FastServerOptions();
  options.service.files_root = root;
  auto server = TestServer::Start(options);
  ASSERT_NE(server, nullptr);
  int compared = 0;
  for (const ApsnrCase& c : cases_) {
    if (c.options.find("enable_chroma=false") == std::string::npos) continue;
    SCOPED_TRACE(c.pair->id);
    for (const auto& [clip, name] : {std::pair{c.pair->reference_clip, "r.yuv"},
                                     std::pair{c.pair->distorted_clip, "d.yuv"}}) {
      absl::StatusOr<std::vector<uint8_t>> bytes = ReadXzFile(clip);
      ASSERT_TRUE(bytes.ok()) << bytes.status();
      std::ofstream(absl::StrCat(root, "/", name), std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    }
    v1::ScoreFilesRequest request;
    *request.mutable_config()->mutable_geometry() = GeometryToProto(c.pair->geometry);
    request.mutable_config()->mutable_features()->add_feature_args("psnr=" + c.options);
    request.set_reference_path("r.yuv");
    request.set_distorted_path("d.yuv");
    absl::StatusOr<ClipReport> report =
        server->client().ScoreFiles(request, nullptr, absl::Seconds(60));
    ASSERT_TRUE(report.ok()) << report.status();
    ASSERT_EQ(static_cast<int>(report->frames.size()), c.frames);
    compared += Compare(report->summary, c);
  }
  EXPECT_GT(compared, 0);
}

TEST(ApsnrPairTest, ScorePairRefusesPoolingItHasNoSummaryFor) {
  auto server = TestServer::Start(FastServerOptions());
  ASSERT_NE(server, nullptr);
  const Geometry g{16, 16, 8, ChromaFormat::k420};
  v1::ScorePairRequest request;
  *request.mutable_geometry() = GeometryToProto(g);
  request.mutable_features()->add_feature_args("psnr=enable_chroma=false:enable_apsnr=true");
  request.set_reference_luma(std::string(LumaBytes(g), '\x10'));
  request.set_distorted_luma(std::string(LumaBytes(g), '\x11'));
  auto refused = server->client().ScorePair(request, absl::Seconds(30));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("features: psnr option enable_apsnr pools a clip's frames"));
}

}  // namespace
}  // namespace ssimd::testing
