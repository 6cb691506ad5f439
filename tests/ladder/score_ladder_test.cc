// ScoreLadder end to end: libvmaf's scores bit for bit for a whole ladder in one call (the source
// decoded once), per-rendition and ladder summaries, unmatched frames, and refusals that name the
// rendition. The parity cases need the rebuilt sources; the others use a rendition as the source.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "engine/vmaf/model_registry.h"
#include "engine/vmaf/test_model.h"
#include "server/service_options.h"
#include "tests/integration/test_server.h"
#include "tests/ladder/ladder_files.h"
#include "tests/ladder/libvmaf_expectations.h"
#include "tests/reference/vmaf_replay.h"

namespace ssimd::testing {
namespace {

using ::testing::HasSubstr;

struct LadderOutcome {
  grpc::Status status;
  std::map<std::string, std::vector<v1::FrameResult>> frames;
  std::map<std::string, v1::ClipSummary> summaries;
  std::map<std::string, v1::RenditionSummary> renditions;
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
      out.renditions[message.rendition_summary().rendition()] = message.rendition_summary();
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

// What a rendition's summary must say about its file, from the file itself: its size on disk,
// and its codec and luma size as its name states them ("hevc10_960x540.mkv"). Every ladder file
// holds 24 frames at 24/1 (tests/data/ladder/README.md) and its container states a duration of
// 1 s (as ffprobe shows), so the bitrate is the size in bits over 24/24 s whichever duration the
// server took.
void ExpectFileFacts(const v1::RenditionSummary& summary, const std::string& file) {
  SCOPED_TRACE(file);
  const uint64_t size = std::filesystem::file_size("tests/data/ladder/" + file);
  EXPECT_EQ(summary.size_bytes(), size);
  const double seconds = 24.0 / 24.0;
  EXPECT_EQ(summary.bitrate_bits_per_second(), size * 8 / seconds);
  const std::string codec = file.substr(0, file.find('_'));
  EXPECT_EQ(summary.codec(), codec == "hevc10" ? "hevc" : codec);
  const std::string size_text = file.substr(file.find('_') + 1, file.find('.') - file.find('_') - 1);
  EXPECT_EQ(absl::StrCat(summary.width(), "x", summary.height()), size_text);
}

// The value of the one exposition line that starts with `series` (name and labels), or NaN.
double ExposedValue(const std::string& exposition, const std::string& series) {
  for (absl::string_view line : absl::StrSplit(exposition, '\n')) {
    if (!absl::StartsWith(line, series + " ")) continue;
    double value = 0;
    if (absl::SimpleAtod(line.substr(series.size() + 1), &value)) return value;
  }
  ADD_FAILURE() << "no series " << series;
  return std::nan("");
}

class ScoreLadderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = absl::StrCat(std::getenv("TEST_TMPDIR"), "/ladder_root");
    ASSERT_TRUE(FillFilesRoot(root_, /*with_sources=*/MissingSourcesReason().empty()).ok());
    server_ = StartServer(ScorerUpscale::kAuto);
    ASSERT_NE(server_, nullptr);
  }

  std::unique_ptr<TestServer> StartServer(ScorerUpscale upscale) {
    return StartServerWith([upscale](ServiceOptions& o) { o.scorer_upscale = upscale; });
  }

  // A CPU server over the files root, with the settings `adjust` makes.
  std::unique_ptr<TestServer> StartServerWith(
      const std::function<void(ServiceOptions&)>& adjust) {
    ServerOptions options = FastServerOptions();
    options.service.files_root = root_;
    options.service.backend_policy = BackendPreference::kCpu;
    // vmaf_v0.6.1: libvmaf's where $SSIMD_VMAF_MODEL_DIR has it, else a test model in its place.
    auto models = std::make_shared<VmafModelRegistry>();
    std::shared_ptr<const VmafModel> model = ReferenceVmafModel();
    EXPECT_TRUE(models->Add("vmaf_v0.6.1", model != nullptr ? *model : *SixFeatureTestModel()).ok());
    options.service.vmaf_models = models;
    adjust(options.service);
    return TestServer::Start(options);
  }

  // The whole ladder in two calls: the 8-bit renditions against `source8`, the 10-bit ones
  // against src10.y4m. Upscaled with accurate_rnd against expected_scores_accurate_rnd.json; or,
  // with `upstream_metrics`, with plain bicubic, also asking for psnr (with chroma, upscaled by
  // libswscale) and, for four renditions, float_ms_ssim, against expected_scores.json and
  // expected_metrics.json.
  void ExpectLibvmafScores(const std::string& source8, bool upstream_metrics = false) {
    auto expected = ReadExpectedScores(upstream_metrics ? "expected_scores.json"
                                                        : "expected_scores_accurate_rnd.json");
    ASSERT_TRUE(expected.ok()) << expected.status();
    if (upstream_metrics) {
      ASSERT_TRUE(ReadExpectedMetrics(*expected).ok());
    }
    for (int depth : {8, 10}) {
      v1::ScoreLadderRequest request = LadderRequest(depth == 8 ? source8 : "src10.y4m");
      request.mutable_upscale()->set_accurate_rounding(!upstream_metrics);
      if (upstream_metrics) {
        request.mutable_config()->mutable_features()->add_feature_args("psnr");
      }
      std::vector<const ExpectedRendition*> rungs;
      for (ExpectedRendition& e : *expected) {
        if (e.bit_depth != depth) continue;
        AddRendition(&request, e.rendition, e.distorted);
        rungs.push_back(&e);
        // float_ms_ssim, the slowest metric on the CPU, for one rendition of each kind (at the
        // source's size, the smallest, VP9, 10-bit upscaled) through the rendition's own
        // features, which replace the ladder's.
        const bool ms_ssim = e.rendition == "h264_1920x1080" || e.rendition == "h264_426x240" ||
                             e.rendition == "vp9_960x540" || e.rendition == "hevc10_960x540";
        // vmaf, about as slow, for the 10-bit upscaled rendition.
        const bool vmaf = e.rendition == "hevc10_960x540";
        if (upstream_metrics && ms_ssim) {
          v1::Features* own = request.mutable_renditions()->rbegin()->mutable_features();
          for (const char* feature :
               {"float_ssim", "ssim", "psnr", "float_ms_ssim"}) {
            own->add_feature_args(feature);
          }
          if (vmaf) own->add_feature_args("vmaf");
        } else {
          e.float_ms_ssim.clear();  // not asked, not expected
        }
        if (!upstream_metrics || !vmaf) e.vmaf.clear();
        // With a test model in libvmaf's place, its features are compared, not its prediction.
        if (ReferenceVmafModel() == nullptr) e.vmaf.erase("vmaf");
      }
      LadderOutcome out = RunLadder(*server_, request);
      ASSERT_TRUE(out.status.ok()) << out.status.error_message();
      EXPECT_EQ(out.ladder.renditions(), rungs.size());
      EXPECT_EQ(out.ladder.source_frames(), 24u);
      EXPECT_EQ(out.order.back(), "l");
      for (const ExpectedRendition* e : rungs) {
        SCOPED_TRACE(e->rendition);
        const std::vector<v1::FrameResult>& frames = out.frames[e->rendition];
        const v1::ClipSummary& summary = out.summaries[e->rendition];
        ExpectLibvmafFrames(frames, summary, *e);
        EXPECT_EQ(summary.frames(), 24u);
        ExpectFileFacts(out.renditions[e->rendition], e->distorted);
        if (expected_upscale_.has_value()) {
          const bool scaled = !absl::StrContains(e->distorted, "1920x1080");
          EXPECT_EQ(out.renditions[e->rendition].upscale(), scaled ? *expected_upscale_ : "");
          EXPECT_EQ(out.renditions[e->rendition].upscale_fallback_reason(), "");
        }
      }
    }
  }

  std::string root_;
  std::unique_ptr<TestServer> server_;
  // What every scaled rendition's summary must say about its upscale, when set.
  std::optional<std::string> expected_upscale_;
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

// Why the plain bicubic upscale of this machine cannot reproduce the upstream expected values
// (made on an x86-64 CPU with AVX2), or why the sources are missing; empty when it can.
std::string PlainBicubicSkipReason() {
  std::string missing = MissingSourcesReason();
  if (!missing.empty()) return missing;
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx2")) {
    return "this CPU has no AVX2: libswscale's plain bicubic gives other bytes here than on the "
           "machine that made the expected values";
  }
  return "";
#else
  return "the expected values hold x86-64 AVX2 upscales";
#endif
}

// Four metrics in one pass (float_ssim, ssim, psnr, float_ms_ssim) after the plain bicubic upscale,
// which expected_scores.json and expected_metrics.json were made with.
TEST_F(ScoreLadderTest, WholeLadderMatchesLibvmafWithFourMetrics) {
  const std::string skip = PlainBicubicSkipReason();
  if (!skip.empty()) GTEST_SKIP() << skip;
  ExpectLibvmafScores("src.y4m", /*upstream_metrics=*/true);
}

// The same with the upscale on the scorer, chroma included (here the CPU, through the plans' host
// model; a GPU applies the same arithmetic): psnr_cb and psnr_cr still upstream's bit for bit.
TEST_F(ScoreLadderTest, WholeLadderMatchesLibvmafWithFourMetricsUpscaledOnTheScorer) {
  const std::string skip = PlainBicubicSkipReason();
  if (!skip.empty()) GTEST_SKIP() << skip;
  server_ = StartServer(ScorerUpscale::kAlways);
  ASSERT_NE(server_, nullptr);
  expected_upscale_ = "scorer";
  ExpectLibvmafScores("src.y4m", /*upstream_metrics=*/true);
}

// The upscale handed to the scoring backend with libswscale's filters (here the CPU, through the
// plans' host model; a GPU applies the same arithmetic): still libvmaf's scores bit for bit.
TEST_F(ScoreLadderTest, WholeLadderMatchesLibvmafWithTheUpscaleOnTheScorer) {
  const std::string missing = MissingSourcesReason();
  if (!missing.empty()) GTEST_SKIP() << missing;
  server_ = StartServer(ScorerUpscale::kAlways);
  ASSERT_NE(server_, nullptr);
  expected_upscale_ = "scorer";
  ExpectLibvmafScores("src.y4m");
}

// Without the sources, with plain bicubic (this machine's libswscale bytes): every frame scores
// the same whether libswscale upscaled it on reading or the scorer did with a plan.
TEST_F(ScoreLadderTest, UpscaleOnTheScorerGivesLibswscalesScores) {
  v1::ScoreLadderRequest request = LadderRequest("h264_1920x1080.mp4");
  const std::vector<std::string> scaled = {"h264_426x240.mp4", "h264_640x360.mp4",
                                           "vp9_960x540.webm", "hevc_1280x720.mkv"};
  for (const std::string& file : scaled) AddRendition(&request, file, file);
  const LadderOutcome on_reading = RunLadder(*server_, request);  // auto on a CPU: libswscale
  ASSERT_TRUE(on_reading.status.ok()) << on_reading.status.error_message();
  std::unique_ptr<TestServer> always = StartServer(ScorerUpscale::kAlways);
  ASSERT_NE(always, nullptr);
  const LadderOutcome on_scorer = RunLadder(*always, request);
  ASSERT_TRUE(on_scorer.status.ok()) << on_scorer.status.error_message();
  for (const std::string& file : scaled) {
    SCOPED_TRACE(file);
    EXPECT_EQ(on_reading.renditions.at(file).upscale(), "libswscale");
    EXPECT_EQ(on_scorer.renditions.at(file).upscale(), "scorer");
    const auto& a = on_reading.frames.at(file);
    const auto& b = on_scorer.frames.at(file);
    ASSERT_EQ(a.size(), 24u);
    ASSERT_EQ(b.size(), a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].scores_size(), b[i].scores_size());
      for (const auto& [name, value] : a[i].scores()) {
        EXPECT_EQ(std::memcmp(&value, &b[i].scores().at(name), sizeof(double)), 0)
            << name << " of frame " << i << ": " << value << " vs " << b[i].scores().at(name);
      }
    }
  }
  const std::string exposition = always->metrics().Serialize();
  EXPECT_EQ(ExposedValue(exposition, "ssimd_upscales_total{where=\"scorer\"}"), 4);
  EXPECT_EQ(ExposedValue(server_->metrics().Serialize(),
                         "ssimd_upscales_total{where=\"libswscale\"}"),
            4);
}

// A scaler no plan covers stays with libswscale, and the summary says why.
TEST_F(ScoreLadderTest, AnUpscaleNoPlanCoversStaysWithLibswscaleAndSaysWhy) {
  server_ = StartServer(ScorerUpscale::kAlways);
  ASSERT_NE(server_, nullptr);
  v1::ScoreLadderRequest request = LadderRequest("h264_1920x1080.mp4");
  request.mutable_upscale()->set_scaler(v1::SCALER_NEIGHBOR);
  AddRendition(&request, "360p", "h264_640x360.mp4");
  const LadderOutcome out = RunLadder(*server_, request);
  ASSERT_TRUE(out.status.ok()) << out.status.error_message();
  EXPECT_EQ(out.renditions.at("360p").upscale(), "libswscale");
  EXPECT_THAT(out.renditions.at("360p").upscale_fallback_reason(), HasSubstr("neighbor"));
  EXPECT_EQ(ExposedValue(server_->metrics().Serialize(),
                         "ssimd_upscale_fallbacks_total{reason=\"scaler\"}"),
            1);
}

// psnr's chroma is upscaled by the scorer too (the plan's chroma plan): every score of a rendition
// read with its chroma, psnr_cb and psnr_cr included, equals the one libswscale's upscale on
// reading gives, bit for bit; no fallback is counted. A rendition at the source's size and one
// whose own features leave chroma out score as before.
TEST_F(ScoreLadderTest, ChromaIsUpscaledOnTheScorerWithLibswscalesBytes) {
  v1::ScoreLadderRequest request = LadderRequest("h264_1920x1080.mp4");
  request.mutable_config()->mutable_features()->add_feature_args("psnr");
  AddRendition(&request, "same", "h264_1920x1080.mp4");
  AddRendition(&request, "360p", "h264_640x360.mp4");
  AddRendition(&request, "360p_luma", "h264_640x360.mp4");
  request.mutable_renditions(2)->mutable_features()->add_feature_args("psnr=enable_chroma=false");
  const LadderOutcome on_reading = RunLadder(*server_, request);  // auto on a CPU: libswscale
  ASSERT_TRUE(on_reading.status.ok()) << on_reading.status.error_message();
  server_ = StartServer(ScorerUpscale::kAlways);
  ASSERT_NE(server_, nullptr);
  const LadderOutcome out = RunLadder(*server_, request);
  ASSERT_TRUE(out.status.ok()) << out.status.error_message();
  EXPECT_EQ(on_reading.renditions.at("360p").upscale(), "libswscale");
  EXPECT_EQ(out.renditions.at("360p").upscale(), "scorer");
  EXPECT_EQ(out.renditions.at("360p").upscale_fallback_reason(), "");
  EXPECT_EQ(out.renditions.at("360p_luma").upscale(), "scorer");
  EXPECT_EQ(server_->metrics().Serialize().find("ssimd_upscale_fallbacks_total{"),
            std::string::npos);
  for (const std::string rung : {"same", "360p", "360p_luma"}) {
    ASSERT_EQ(out.frames.at(rung).size(), 24u) << rung;
    ASSERT_EQ(on_reading.frames.at(rung).size(), 24u) << rung;
  }
  for (size_t i = 0; i < 24; ++i) {
    const auto& same = out.frames.at("same")[i].scores();
    EXPECT_EQ(same.at("psnr_cb"), 60.0) << "frame " << i;  // identical 8-bit frames: the cap
    EXPECT_EQ(same.at("psnr_cr"), 60.0) << "frame " << i;
    const auto& with = out.frames.at("360p")[i].scores();
    const auto& without = out.frames.at("360p_luma")[i].scores();
    const auto& libswscale = on_reading.frames.at("360p")[i].scores();
    ASSERT_TRUE(with.contains("psnr_cb") && with.contains("psnr_cr")) << "frame " << i;
    EXPECT_FALSE(without.contains("psnr_cb")) << "frame " << i;
    EXPECT_EQ(with.at("psnr_y"), without.at("psnr_y")) << "frame " << i;
    ASSERT_EQ(with.size(), libswscale.size()) << "frame " << i;
    for (const auto& [name, value] : libswscale) {
      EXPECT_EQ(std::memcmp(&value, &with.at(name), sizeof(double)), 0)
          << name << " of frame " << i << ": " << value << " vs " << with.at(name);
    }
  }
}

// Hardware decoding asked for where no device can be opened (this machine, CI): every file is
// decoded on the CPU, each rendition's summary says so and why, the fallbacks are counted, and
// GetCapabilities names the engine that could not be used. The scores are the CPU path's.
TEST_F(ScoreLadderTest, HardwareDecodingWithoutADeviceFallsBackAndSaysWhy) {
  std::unique_ptr<TestServer> hw =
      StartServerWith([](ServiceOptions& o) { o.hw_decode_api = "cuda"; });
  ASSERT_NE(hw, nullptr);
  grpc::ClientContext context;
  v1::Capabilities capabilities;
  ASSERT_TRUE(hw->stub().GetCapabilities(&context, {}, &capabilities).ok());
  const v1::DecodeEngine& engine = capabilities.decode_engine();
  EXPECT_EQ(engine.api(), "cuda");
  if (!engine.unavailable_reason().empty()) {
    EXPECT_THAT(engine.unavailable_reason(), HasSubstr("cannot open cuda device"));
  } else {
    GTEST_SKIP() << "this machine has a CUDA device: the GPU tests cover it";
  }
  v1::ScoreLadderRequest request = LadderRequest("h264_1920x1080.mp4");
  AddRendition(&request, "360p", "h264_640x360.mp4");
  AddRendition(&request, "540p", "vp9_960x540.webm");
  const LadderOutcome on_cpu = RunLadder(*server_, request);
  const LadderOutcome asked = RunLadder(*hw, request);
  ASSERT_TRUE(asked.status.ok()) << asked.status.error_message();
  for (const char* name : {"360p", "540p"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(asked.renditions.at(name).decode_backend(), "cpu");
    EXPECT_EQ(asked.renditions.at(name).decode_fallback_reason(), "no_device");
    EXPECT_EQ(on_cpu.renditions.at(name).decode_backend(), "cpu");
    EXPECT_EQ(on_cpu.renditions.at(name).decode_fallback_reason(), "");
    EXPECT_EQ(asked.summaries.at(name).pooled().at("ssim").mean(),
              on_cpu.summaries.at(name).pooled().at("ssim").mean());
  }
  const std::string exposition = hw->metrics().Serialize();
  // The source and the two renditions.
  EXPECT_EQ(ExposedValue(exposition, "ssimd_decode_fallbacks_total{reason=\"no_device\"}"), 3);
  // The source and both renditions, 24 frames each, all on the CPU.
  EXPECT_EQ(ExposedValue(exposition, "ssimd_decoded_frames_total{backend=\"cpu\"}"), 72);
}

// Several decoders per file (segments between IDR pictures, decoded at once and put back in
// order) score every frame as one decoder does. The files are re-encoded here with a group of
// pictures every few frames, so that they really are split.
TEST_F(ScoreLadderTest, SeveralDecodersPerFileScoreEveryFrameTheSame) {
  if (std::system("ffmpeg -version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no ffmpeg command";
  for (const auto& [from, to, group] :
       std::vector<std::tuple<std::string, std::string, int>>{
           {"h264_1920x1080.mp4", "short_groups_source.mp4", 5},
           {"h264_640x360.mp4", "short_groups_360p.mp4", 4},
           {"hevc_1280x720.mkv", "short_groups_720p.mkv", 6}}) {
    const std::string codec = absl::EndsWith(to, ".mkv") ? "libx265" : "libx264";
    const std::string command = absl::StrCat(
        "ffmpeg -nostdin -loglevel error -y -i '", root_, "/", from, "' -c:v ", codec, " -g ",
        group, codec == "libx265" ? " -x265-params open-gop=0:log-level=error" : "",
        " -pix_fmt yuv420p '", root_, "/", to, "'");
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  std::unique_ptr<TestServer> split =
      StartServerWith([](ServiceOptions& o) { o.decoders_per_file = 3; });
  ASSERT_NE(split, nullptr);
  v1::ScoreLadderRequest request = LadderRequest("short_groups_source.mp4");
  AddRendition(&request, "360p", "short_groups_360p.mp4");
  AddRendition(&request, "720p", "short_groups_720p.mkv");
  const LadderOutcome one = RunLadder(*server_, request);
  const LadderOutcome three = RunLadder(*split, request);
  ASSERT_TRUE(one.status.ok()) << one.status.error_message();
  ASSERT_TRUE(three.status.ok()) << three.status.error_message();
  for (const char* name : {"360p", "720p"}) {
    SCOPED_TRACE(name);
    const std::vector<v1::FrameResult>& a = one.frames.at(name);
    const std::vector<v1::FrameResult>& b = three.frames.at(name);
    ASSERT_EQ(a.size(), 24u);
    ASSERT_EQ(b.size(), a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].index(), b[i].index());
      EXPECT_EQ(a[i].scores().at("ssim"), b[i].scores().at("ssim")) << "frame " << i;
      EXPECT_EQ(a[i].scores().at("float_ssim"), b[i].scores().at("float_ssim")) << "frame " << i;
    }
    EXPECT_EQ(three.renditions.at(name).decode_backend(), "cpu");
  }
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
  EXPECT_THAT(strict.status.error_message(), HasSubstr("rendition \"360p\" has 24 frames"));
}

// Each rendition's summary states its file (size, codec, own size, bitrate), and the server's
// ladder gauges carry the same numbers under the request's title.
TEST_F(ScoreLadderTest, RenditionSummariesStateTheFilesAndFeedTheLadderGauges) {
  v1::ScoreLadderRequest request = LadderRequest("h264_1920x1080.mp4");
  const std::map<std::string, std::string> files = {{"240p", "h264_426x240.mp4"},
                                                     {"540p", "vp9_960x540.webm"},
                                                     {"720p", "hevc_1280x720.mkv"}};
  for (const auto& [name, file] : files) AddRendition(&request, name, file);
  LadderOutcome out = RunLadder(*server_, request);
  ASSERT_TRUE(out.status.ok()) << out.status.error_message();
  const std::string exposition = server_->metrics().Serialize();
  for (const auto& [name, file] : files) {
    SCOPED_TRACE(name);
    const v1::RenditionSummary& summary = out.renditions[name];
    ExpectFileFacts(summary, file);
    const std::string rung = absl::StrCat("rendition=\"", name, "\",title=\"autumn\"");
    EXPECT_EQ(ExposedValue(exposition,
                           absl::StrCat("ssimd_rendition_bytes_per_second{", rung, "}")) * 8,
              summary.bitrate_bits_per_second());
    EXPECT_EQ(ExposedValue(exposition, absl::StrCat("ssimd_rendition_size_bytes{", rung, "}")),
              static_cast<double>(summary.size_bytes()));
    for (const char* feature : {"float_ssim", "ssim"}) {
      const v1::PooledScore& pooled = summary.summary().pooled().at(feature);
      const std::string labels = absl::StrCat("feature=\"", feature, "\",pool=\"");
      EXPECT_EQ(ExposedValue(exposition, absl::StrCat("ssimd_rendition_score{", labels, "mean\",",
                                                      rung, "}")),
                pooled.mean());
      EXPECT_EQ(ExposedValue(exposition, absl::StrCat("ssimd_rendition_score{", labels,
                                                      "harmonic_mean\",", rung, "}")),
                pooled.harmonic_mean());
    }
  }
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
  EXPECT_THAT(out.status.error_message(), HasSubstr("rendition \"bad\": damaged.mp4: frame "));
  EXPECT_GT(out.frames["bad"].size(), 0u);
  EXPECT_LT(out.frames["bad"].size(), 24u);
  EXPECT_TRUE(out.summaries.empty());
}

}  // namespace
}  // namespace ssimd::testing
