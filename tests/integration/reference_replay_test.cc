// libvmaf's reference clips streamed through ScoreClip on a real server: every frame's every
// value equals libvmaf's binary64 output bit for bit, under every option set of the checked-in
// subset (tests/data/reference, frames of the full reference set).
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/integration/test_server.h"
#include "tests/reference/reference_dir.h"
#include "tests/reference/reference_set.h"

namespace ssimd::testing {
namespace {

v1::Geometry ToProto(const Geometry& g) {
  v1::Geometry out;
  out.set_width(g.width);
  out.set_height(g.height);
  out.set_bit_depth(g.bit_depth);
  out.set_pixel_format(g.chroma == ChromaFormat::k444   ? v1::PIXEL_FORMAT_444
                       : g.chroma == ChromaFormat::k422 ? v1::PIXEL_FORMAT_422
                                                        : v1::PIXEL_FORMAT_420);
  return out;
}

std::vector<std::string> Planes(const std::vector<std::vector<uint8_t>>& frames) {
  std::vector<std::string> out;
  for (const auto& f : frames) out.emplace_back(f.begin(), f.end());
  return out;
}

TEST(ReferenceReplayTest, EveryValueThroughScoreClipEqualsLibvmaf) {
  auto set = LoadReferenceSet(RunfilePath("tests/data/reference"));
  ASSERT_TRUE(set.ok()) << set.status();
  ServerOptions options = FastServerOptions();
  options.service.max_frames_in_flight = 4;
  auto server = TestServer::Start(options);
  ASSERT_NE(server, nullptr);

  int64_t compared = 0;
  int streams = 0;
  for (const ReferencePair& pair : set->pairs) {
    SCOPED_TRACE(pair.id);
    auto ref = ReadClipLuma(pair.reference_clip, pair.geometry, pair.frames);
    ASSERT_TRUE(ref.ok()) << ref.status();
    auto dis = ReadClipLuma(pair.distorted_clip, pair.geometry, pair.frames);
    ASSERT_TRUE(dis.ok()) << dis.status();
    const std::vector<std::string> reference = Planes(*ref);
    const std::vector<std::string> distorted = Planes(*dis);

    // One stream per option set; the automatic float_ssim stream also carries the integer ssim,
    // so that streams with two features are covered too.
    std::map<std::string, std::vector<std::string>> streams_to_run;
    for (const auto& [config, unused] : pair.scores) {
      if (config == "ssim" && pair.scores.count("float_ssim") > 0) continue;
      std::vector<std::string> args = {set->feature_args.at(config)};
      if (config == "float_ssim" && pair.scores.count("ssim") > 0) args.push_back("ssim");
      streams_to_run[config] = args;
    }
    for (const auto& [config, args] : streams_to_run) {
      SCOPED_TRACE(config);
      v1::ClipConfig clip;
      *clip.mutable_geometry() = ToProto(pair.geometry);
      for (const std::string& a : args) clip.mutable_features()->add_feature_args(a);
      clip.set_title_id(pair.id);
      size_t next = 0;
      auto source = [&](std::string* r, std::string* d) -> absl::StatusOr<bool> {
        if (next == reference.size()) return false;
        *r = reference[next];
        *d = distorted[next];
        ++next;
        return true;
      };
      auto report = server->client().ScoreClip(clip, source, nullptr, absl::Minutes(5));
      ASSERT_TRUE(report.ok()) << report.status();
      ++streams;
      ASSERT_EQ(report->frames.size(), static_cast<size_t>(pair.frames));
      std::vector<std::string> configs = {config};
      if (args.size() > 1) configs.push_back("ssim");
      for (const std::string& c : configs) {
        for (const auto& [metric, values] : pair.scores.at(c)) {
          for (int i = 0; i < pair.frames; ++i) {
            const auto& scores = report->frames[i].scores();
            ASSERT_TRUE(scores.contains(metric)) << metric;
            EXPECT_TRUE(SameBits(values[i], scores.at(metric)))
                << c << " " << metric << " frame " << i << ": libvmaf " << values[i]
                << ", ssimd " << scores.at(metric);
            ++compared;
          }
        }
      }
    }
  }
  std::cout << set->pairs.size() << " pairs, " << streams << " streams, " << compared
            << " values compared\n";
  EXPECT_GT(compared, 1000);
}

}  // namespace
}  // namespace ssimd::testing
