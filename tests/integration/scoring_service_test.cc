// The scoring service end to end, in process over TCP on 127.0.0.1: every score equals the CPU
// engine's bit for bit, results come in frame order, backpressure bounds the work per stream, and
// caps, deadlines, fallbacks, health and shutdown behave as documented.
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "base/double_bits.h"
#include "engine/cpu/cpu_scorer.h"
#include "engine/dispatcher.h"
#include "engine/features.h"
#include "engine/pooling.h"
#include "engine/synthetic_picture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/pixel_format.h"
#include "tests/integration/test_server.h"

namespace ssimd::testing {
namespace {

using ::testing::HasSubstr;
using HealthStatus = grpc::health::v1::HealthCheckResponse;

constexpr absl::Duration kTimeout = absl::Seconds(30);

// Frames of a synthetic clip: reference i and its distorted copy.
struct Clip {
  Geometry geometry;
  std::vector<std::string> reference;
  std::vector<std::string> distorted;
};

Clip MakeClip(const Geometry& g, int frames, uint32_t seed = 1) {
  Clip clip{g, {}, {}};
  for (int i = 0; i < frames; ++i) {
    const SyntheticPlane reference = TexturedPlane(g, seed + i);
    clip.reference.push_back(reference.ToString());
    clip.distorted.push_back(
        Distort(reference, 1000 + seed + i, static_cast<int>(PeakValue(g.bit_depth) / 16))
            .ToString());
  }
  return clip;
}

// Frame i carries i in its first sample so that test scorers can tell frames apart.
void MarkFrames(Clip* clip) {
  for (size_t i = 0; i < clip->reference.size(); ++i) clip->reference[i][0] = static_cast<char>(i);
}

FramePairSource SourceOf(const Clip& clip) {
  auto next = std::make_shared<size_t>(0);
  return [&clip, next](std::string* r, std::string* d) -> absl::StatusOr<bool> {
    if (*next >= clip.reference.size()) return false;
    *r = clip.reference[*next];
    *d = clip.distorted[*next];
    ++*next;
    return true;
  };
}

FrameScores CpuScores(const Geometry& g, const FeatureSet& features, const std::string& ref,
                      const std::string& dis) {
  auto cpu = MakeCpuScorer();
  auto bytes = [](const std::string& s) {
    return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  auto r = MakeLumaView(g, bytes(ref), "ref");
  auto d = MakeLumaView(g, bytes(dis), "dis");
  auto result = cpu->Score(g, features, FramePair{*r, *d});
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? result->scores : FrameScores();
}

void ExpectSameScores(const FrameScores& expected,
                      const google::protobuf::Map<std::string, double>& actual, int frame) {
  ASSERT_EQ(expected.size(), static_cast<size_t>(actual.size())) << "frame " << frame;
  for (const auto& [metric, value] : expected) {
    ASSERT_TRUE(actual.contains(metric)) << metric;
    EXPECT_TRUE(SameBits(value, actual.at(metric)))
        << "frame " << frame << " " << metric << ": expected " << value << ", got "
        << actual.at(metric);
  }
}

v1::ClipConfig ConfigFor(const Geometry& g, std::vector<std::string> features) {
  v1::ClipConfig config;
  *config.mutable_geometry() = GeometryToProto(g);
  for (const std::string& f : features) config.mutable_features()->add_feature_args(f);
  return config;
}

// A server whose CPU scorer holds every frame until the test opens `*gate`.
std::unique_ptr<TestServer> StartGated(const ServerOptions& options, InstrumentedScorer** gate) {
  auto scorer = std::make_unique<InstrumentedScorer>(MakeCpuScorer(), /*gate_open=*/false);
  *gate = scorer.get();
  return TestServer::Start(options, std::move(scorer));
}

// Scores `clip` for "ssim" on a thread of its own, so that the test can act while frames are held.
class BackgroundScore {
 public:
  BackgroundScore(TestServer& server, const Clip& clip)
      : thread_([this, &server, &clip] {
          report_ = server.client().ScoreClip(ConfigFor(clip.geometry, {"ssim"}), SourceOf(clip),
                                              nullptr, kTimeout);
        }) {}
  ~BackgroundScore() {
    if (thread_.joinable()) thread_.join();
  }
  // Waits for the call to end.
  const absl::StatusOr<ClipReport>& Join() {
    thread_.join();
    return report_;
  }

 private:
  absl::StatusOr<ClipReport> report_;
  std::thread thread_;
};

TEST(ScoringServiceTest, HealthIsServing) {
  auto server = TestServer::Start(FastServerOptions());
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(*server->client().CheckHealth("", kTimeout), HealthStatus::SERVING);
  EXPECT_EQ(*server->client().CheckHealth("ssimd.v1.ScoringService", kTimeout),
            HealthStatus::SERVING);
  EXPECT_EQ(server->client().CheckHealth("no.such.Service", kTimeout).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(ScoringServiceTest, AnAddressInUseIsReportedNotIgnored) {
  auto first = TestServer::Start(FastServerOptions());
  ASSERT_NE(first, nullptr);
  ServerOptions options = FastServerOptions();
  options.address = first->address();
  Backends backends;
  backends.dispatcher = std::make_unique<Dispatcher>(MakeCpuScorer(), nullptr, "no GPU");
  ServiceMetrics metrics;
  auto second = ServerRunner::Start(options, std::move(backends), &metrics);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(second.status().message()), HasSubstr("--address"));
}

TEST(ScoringServiceTest, CapabilitiesDescribeLimitsAndFeatures) {
  ServerOptions options = FastServerOptions();
  options.service.max_concurrent_streams = 7;
  options.service.max_frames_in_flight = 3;
  auto server = TestServer::Start(options);
  ASSERT_NE(server, nullptr);
  auto caps = server->client().GetCapabilities(kTimeout);
  ASSERT_TRUE(caps.ok()) << caps.status();
  EXPECT_EQ(caps->default_backend(), "cpu");
  EXPECT_THAT(caps->gpu_unavailable_reason(), HasSubstr("no GPU"));
  EXPECT_EQ(caps->devices_size(), 0);
  EXPECT_FALSE(caps->files_enabled());
  EXPECT_EQ(caps->limits().max_concurrent_streams(), 7u);
  EXPECT_EQ(caps->limits().max_frames_in_flight_per_stream(), 3u);
  EXPECT_GE(caps->limits().max_message_bytes(), uint64_t{2} * 8192 * 4320 * 2);
  ASSERT_EQ(caps->features_size(), 5);
  EXPECT_EQ(caps->features(0).name(), "float_ssim");
  EXPECT_EQ(caps->features(0).options(0).name(), "scale");
  EXPECT_EQ(caps->features(0).options(0).max(), "10");
  EXPECT_EQ(caps->features(1).name(), "ssim");
  EXPECT_EQ(caps->features(2).name(), "psnr");
  const v1::OptionInfo& min_sse = caps->features(2).options(4);
  EXPECT_EQ(min_sse.name(), "min_sse");
  EXPECT_EQ(min_sse.type(), "double");
  EXPECT_EQ(min_sse.min(), "0");
  EXPECT_EQ(min_sse.max(), "1.7976931348623157e+308");
  EXPECT_EQ(caps->features(3).name(), "float_ms_ssim");
  EXPECT_EQ(caps->features(4).name(), "vmaf");
  const v1::OptionInfo& model = caps->features(4).options(0);
  EXPECT_EQ(model.name(), "model");
  EXPECT_EQ(model.type(), "name");
  EXPECT_EQ(model.default_value(), "vmaf_v0.6.1");
  EXPECT_EQ(caps->vmaf_models_size(), 0) << "this server loaded no models";
}

TEST(ScoringServiceTest, ScorePairEqualsCpuEngineAtEveryBitDepth) {
  auto server = TestServer::Start(FastServerOptions());
  ASSERT_NE(server, nullptr);
  for (int depth : {8, 10, 12, 16}) {
    const Geometry g{40, 24, depth, ChromaFormat::k420};
    const SyntheticPlane reference = TexturedPlane(g, depth);
    const std::string ref = reference.ToString();
    const std::string dis =
        Distort(reference, depth + 1, static_cast<int>(PeakValue(depth) / 16)).ToString();
    v1::ScorePairRequest request;
    *request.mutable_geometry() = GeometryToProto(g);
    request.mutable_features()->mutable_float_ssim()->set_enable_lcs(true);
    request.mutable_features()->mutable_ssim()->set_enable_db(true);
    request.set_reference_luma(ref);
    request.set_distorted_luma(dis);
    auto result = server->client().ScorePair(request, kTimeout);
    ASSERT_TRUE(result.ok()) << depth << ": " << result.status();
    auto features = ParseFeatureArgs({"float_ssim=enable_lcs=true", "ssim=enable_db=true"});
    ExpectSameScores(CpuScores(g, *features, ref, dis), result->scores(), 0);
    EXPECT_EQ(result->backend(), "cpu");
    EXPECT_EQ(result->scores().size(), 5);
  }
}

TEST(ScoringServiceTest, ScoreClipEqualsCpuEngineFrameByFrameWithPooledSummary) {
  auto server = TestServer::Start(FastServerOptions());
  ASSERT_NE(server, nullptr);
  const Geometry g{48, 40, 10, ChromaFormat::k420};
  const Clip clip = MakeClip(g, 10);
  v1::ClipConfig config = ConfigFor(g, {"float_ssim=enable_lcs=true", "ssim"});
  config.set_title_id("title-42");
  config.set_rung("240p");
  config.add_percentiles(0);
  config.add_percentiles(50);
  int callbacks = 0;
  auto report = server->client().ScoreClip(
      config, SourceOf(clip), [&](const v1::FrameResult&) { ++callbacks; }, kTimeout);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->frames.size(), clip.reference.size());
  EXPECT_EQ(callbacks, 10);
  auto features = ParseFeatureArgs({"float_ssim=enable_lcs=true", "ssim"});
  std::map<std::string, std::vector<double>> series;
  for (size_t i = 0; i < clip.reference.size(); ++i) {
    EXPECT_EQ(report->frames[i].index(), i);
    const FrameScores expected = CpuScores(g, *features, clip.reference[i], clip.distorted[i]);
    ExpectSameScores(expected, report->frames[i].scores(), static_cast<int>(i));
    for (const auto& [metric, value] : expected) series[metric].push_back(value);
  }
  EXPECT_EQ(report->summary.frames(), 10u);
  EXPECT_EQ(report->summary.frames_by_backend().at("cpu"), 10u);
  ASSERT_EQ(report->summary.pooled().size(), 5);
  for (const auto& [metric, values] : series) {
    const auto pooled = *PoolScores(values);
    const v1::PooledScore& got = report->summary.pooled().at(metric);
    EXPECT_TRUE(SameBits(got.mean(), pooled.mean)) << metric;
    EXPECT_TRUE(SameBits(got.min(), pooled.min)) << metric;
    EXPECT_TRUE(SameBits(got.max(), pooled.max)) << metric;
    EXPECT_TRUE(SameBits(got.harmonic_mean(), pooled.harmonic_mean)) << metric;
    ASSERT_EQ(got.percentiles_size(), 2);
    EXPECT_TRUE(SameBits(got.percentiles(0).value(), pooled.min));
    EXPECT_TRUE(SameBits(got.percentiles(1).value(), *Percentile(values, 50)));
  }
  EXPECT_THAT(server->metrics().Serialize(), HasSubstr("ScoreClip"));
}

TEST(ScoringServiceTest, ResultsStayInFrameOrderWhenLaterFramesFinishFirst) {
  ServerOptions options = FastServerOptions();
  options.workers = 4;
  options.service.max_frames_in_flight = 4;
  auto scorer = std::make_unique<InstrumentedScorer>(MakeCpuScorer());
  // Frame i waits (8 - i % 8) * 4 ms: within each group of four, later frames finish first.
  scorer->set_delay([](uint32_t first) { return absl::Milliseconds(4 * (8 - first % 8)); });
  InstrumentedScorer* instrumented = scorer.get();
  auto server = TestServer::Start(options, std::move(scorer));
  ASSERT_NE(server, nullptr);
  const Geometry g{32, 24, 8, ChromaFormat::k420};
  Clip clip = MakeClip(g, 16);
  MarkFrames(&clip);
  auto report = server->client().ScoreClip(ConfigFor(g, {"float_ssim", "ssim"}), SourceOf(clip),
                                           nullptr, kTimeout);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->frames.size(), 16u);
  auto features = ParseFeatureArgs({"float_ssim", "ssim"});
  for (size_t i = 0; i < 16; ++i) {
    ASSERT_EQ(report->frames[i].index(), i);
    ExpectSameScores(CpuScores(g, *features, clip.reference[i], clip.distorted[i]),
                     report->frames[i].scores(), static_cast<int>(i));
  }
  EXPECT_GT(instrumented->max_active(), 1) << "frames of one stream should overlap";
}

TEST(ScoringServiceTest, BackpressureBoundsFramesInFlight) {
  ServerOptions options = FastServerOptions();
  options.workers = 8;
  options.service.max_frames_in_flight = 3;
  InstrumentedScorer* gate = nullptr;
  auto server = StartGated(options, &gate);
  ASSERT_NE(server, nullptr);
  const Geometry g{24, 16, 8, ChromaFormat::k420};
  const Clip clip = MakeClip(g, 30);
  BackgroundScore call(*server, clip);
  gate->WaitForActive(3);
  // The client has 27 more frames ready; with eight idle workers, only the limit holds them back.
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_EQ(gate->calls(), 3);
  EXPECT_EQ(gate->max_active(), 3);
  gate->OpenGate();
  const absl::StatusOr<ClipReport>& report = call.Join();
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->frames.size(), 30u);
  EXPECT_LE(gate->max_active(), 3);
}

TEST(ScoringServiceTest, StreamCapRefusesWithResourceExhaustedAndFreesOnFinish) {
  ServerOptions options = FastServerOptions();
  options.service.max_concurrent_streams = 1;
  InstrumentedScorer* gate = nullptr;
  auto server = StartGated(options, &gate);
  ASSERT_NE(server, nullptr);
  const Geometry g{24, 16, 8, ChromaFormat::k420};
  const Clip clip = MakeClip(g, 3);
  BackgroundScore first_call(*server, clip);
  gate->WaitForActive(1);
  auto second =
      server->client().ScoreClip(ConfigFor(g, {"ssim"}), SourceOf(clip), nullptr, kTimeout);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(second.status().message()), HasSubstr("--max_concurrent_streams"));
  gate->OpenGate();
  const absl::StatusOr<ClipReport>& first = first_call.Join();
  ASSERT_TRUE(first.ok()) << first.status();
  auto third =
      server->client().ScoreClip(ConfigFor(g, {"ssim"}), SourceOf(clip), nullptr, kTimeout);
  EXPECT_TRUE(third.ok()) << third.status();
}

TEST(ScoringServiceTest, DeadlineCancelsTheStreamAndStopsItsWork) {
  ServerOptions options = FastServerOptions();
  options.workers = 4;
  options.service.max_frames_in_flight = 2;
  InstrumentedScorer* gate = nullptr;
  auto server = StartGated(options, &gate);
  ASSERT_NE(server, nullptr);
  const Geometry g{24, 16, 8, ChromaFormat::k420};
  const Clip clip = MakeClip(g, 20);
  auto report = server->client().ScoreClip(ConfigFor(g, {"ssim"}), SourceOf(clip), nullptr,
                                           absl::Milliseconds(300));
  EXPECT_EQ(report.status().code(), absl::StatusCode::kDeadlineExceeded);
  // The stream's slot comes back although its two frames are still held by the scorer.
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (server->runner().context().active_streams.load() != 0 && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(server->runner().context().active_streams.load(), 0);
  gate->OpenGate();
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_EQ(gate->calls(), 2) << "no frame of a cancelled stream should be scored after it ends";
}

TEST(ScoringServiceTest, CapabilitiesSayWhichDevicesTheBinaryHasCodeFor) {
  auto gpu = std::make_unique<FakeGpuScorer>(/*max_width=*/1024);
  GpuDeviceInfo rdna4;
  rdna4.name = "AMD Radeon RX 9070";
  rdna4.arch = "gfx1201";
  rdna4.total_memory_bytes = int64_t{16} << 30;
  gpu->add_device_without_code(rdna4);
  auto server = TestServer::Start(FastServerOptions(), nullptr, std::move(gpu));
  ASSERT_NE(server, nullptr);
  auto caps = server->client().GetCapabilities(kTimeout);
  ASSERT_TRUE(caps.ok()) << caps.status();
  ASSERT_EQ(caps->devices_size(), 2);
  EXPECT_EQ(caps->devices(0).arch(), "sm_90");
  EXPECT_TRUE(caps->devices(0).has_code());
  EXPECT_TRUE(caps->devices(0).healthy());
  EXPECT_EQ(caps->devices(1).index(), 1u);
  EXPECT_EQ(caps->devices(1).arch(), "gfx1201");
  EXPECT_FALSE(caps->devices(1).has_code());
  EXPECT_FALSE(caps->devices(1).healthy()) << "a device without code is never used";
  EXPECT_EQ(caps->devices(1).slots_total(), 0u);
}

TEST(ScoringServiceTest, FallbackReasonIsReportedPerFrameAndInTheSummary) {
  auto server = TestServer::Start(FastServerOptions(), nullptr,
                                  std::make_unique<FakeGpuScorer>(/*max_width=*/32));
  ASSERT_NE(server, nullptr);
  auto caps = server->client().GetCapabilities(kTimeout);
  ASSERT_TRUE(caps.ok());
  EXPECT_EQ(caps->default_backend(), "gpu");
  ASSERT_EQ(caps->devices_size(), 1);
  EXPECT_EQ(caps->devices(0).slots_total(), 4u);

  const Geometry small{32, 16, 8, ChromaFormat::k420};
  auto on_gpu = server->client().ScoreClip(ConfigFor(small, {"ssim"}), SourceOf(MakeClip(small, 2)),
                                           nullptr, kTimeout);
  ASSERT_TRUE(on_gpu.ok()) << on_gpu.status();
  EXPECT_EQ(on_gpu->frames[0].backend(), "gpu:0");
  EXPECT_EQ(on_gpu->frames[0].fallback_reason(), "");
  EXPECT_EQ(on_gpu->summary.fallback_frames(), 0u);

  const Geometry wide{48, 16, 8, ChromaFormat::k420};
  const Clip clip = MakeClip(wide, 3);
  auto fell_back =
      server->client().ScoreClip(ConfigFor(wide, {"ssim"}), SourceOf(clip), nullptr, kTimeout);
  ASSERT_TRUE(fell_back.ok()) << fell_back.status();
  EXPECT_EQ(fell_back->frames[0].backend(), "cpu");
  EXPECT_THAT(fell_back->frames[0].fallback_reason(), HasSubstr("up to 32 pixels wide"));
  EXPECT_EQ(fell_back->summary.fallback_frames(), 3u);
  EXPECT_EQ(fell_back->summary.frames_by_backend().at("cpu"), 3u);

  v1::ClipConfig gpu_only = ConfigFor(wide, {"ssim"});
  gpu_only.set_backend(v1::BACKEND_GPU);
  auto refused = server->client().ScoreClip(gpu_only, SourceOf(clip), nullptr, kTimeout);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("backend gpu cannot serve"));
}

TEST(ScoringServiceTest, GpuOnlyPolicyIsNotServingWhileTheGpuIsLost) {
  ServerOptions options = FastServerOptions();
  options.service.backend_policy = BackendPreference::kGpu;
  auto gpu = std::make_unique<FakeGpuScorer>(1024);
  FakeGpuScorer* device = gpu.get();
  auto server = TestServer::Start(options, nullptr, std::move(gpu));
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(*server->client().CheckHealth("", kTimeout), HealthStatus::SERVING);
  device->set_lost(true);
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (*server->client().CheckHealth("", kTimeout) != HealthStatus::NOT_SERVING &&
         absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(*server->client().CheckHealth("ssimd.v1.ScoringService", kTimeout),
            HealthStatus::NOT_SERVING);
  // Requests that would need the GPU are refused with a reason.
  const Geometry g{24, 16, 8, ChromaFormat::k420};
  auto report = server->client().ScoreClip(ConfigFor(g, {"ssim"}), SourceOf(MakeClip(g, 1)),
                                           nullptr, kTimeout);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kUnavailable);
  device->set_lost(false);
  while (*server->client().CheckHealth("", kTimeout) != HealthStatus::SERVING &&
         absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(*server->client().CheckHealth("", kTimeout), HealthStatus::SERVING);
}

TEST(ScoringServiceTest, ScoreFilesReadsY4mAndRawYuvInsideTheRoot) {
  const std::string root = absl::StrCat(std::getenv("TEST_TMPDIR"), "/files_root");
  ASSERT_EQ(::mkdir(root.c_str(), 0755), 0);
  const Geometry g{20, 14, 10, ChromaFormat::k422};
  const Clip clip = MakeClip(g, 5);
  const std::string chroma(FrameBytes(g) - LumaBytes(g), '\x02');
  {
    std::ofstream ref_y4m(root + "/ref.y4m", std::ios::binary);
    std::ofstream dis_yuv(root + "/dis.yuv", std::ios::binary);
    ref_y4m << "YUV4MPEG2 W20 H14 F25:1 Ip A1:1 C422p10\n";
    for (int i = 0; i < 5; ++i) {
      ref_y4m << "FRAME\n" << clip.reference[i] << chroma;
      dis_yuv << clip.distorted[i] << chroma;
    }
  }
  ServerOptions options = FastServerOptions();
  options.service.files_root = root;
  auto server = TestServer::Start(options);
  ASSERT_NE(server, nullptr);
  v1::ScoreFilesRequest request;
  *request.mutable_config() = ConfigFor(g, {"float_ssim=enable_db=true", "ssim"});
  request.mutable_config()->mutable_geometry()->set_pixel_format(v1::PIXEL_FORMAT_422);
  request.set_reference_path("ref.y4m");
  request.set_distorted_path(root + "/dis.yuv");
  request.set_start_frame(1);
  request.set_frame_count(3);
  auto report = server->client().ScoreFiles(request, nullptr, kTimeout);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->frames.size(), 3u);
  auto features = ParseFeatureArgs({"float_ssim=enable_db=true", "ssim"});
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(report->frames[i].index(), static_cast<uint64_t>(i));
    ExpectSameScores(CpuScores(g, *features, clip.reference[i + 1], clip.distorted[i + 1]),
                     report->frames[i].scores(), i);
  }
  EXPECT_EQ(report->summary.frames(), 3u);
  // Without a frame count the shorter file sets the length.
  request.set_frame_count(0);
  request.set_start_frame(0);
  auto whole = server->client().ScoreFiles(request, nullptr, kTimeout);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(whole->frames.size(), 5u);
}

TEST(ScoringServiceTest, GracefulShutdownLetsRunningStreamsFinish) {
  ServerOptions options = FastServerOptions();
  InstrumentedScorer* gate = nullptr;
  auto server = StartGated(options, &gate);
  ASSERT_NE(server, nullptr);
  const Geometry g{24, 16, 8, ChromaFormat::k420};
  const Clip clip = MakeClip(g, 6);
  BackgroundScore call(*server, clip);
  gate->WaitForActive(1);
  absl::Notification stopped;
  std::thread stopper([&] {
    server->runner().Shutdown(absl::Seconds(20));
    stopped.Notify();
  });
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_FALSE(stopped.HasBeenNotified());
  EXPECT_FALSE(server->runner().serving());
  // New calls are refused while the old stream drains.
  EXPECT_FALSE(server->client().GetCapabilities(absl::Seconds(2)).ok());
  gate->OpenGate();
  const absl::StatusOr<ClipReport>& report = call.Join();
  stopper.join();
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->frames.size(), 6u);
}

TEST(ScoringServiceTest, ShutdownCancelsStreamsThatOutlastTheGracePeriod) {
  InstrumentedScorer* gate = nullptr;
  auto server = StartGated(FastServerOptions(), &gate);
  ASSERT_NE(server, nullptr);
  const Geometry g{24, 16, 8, ChromaFormat::k420};
  const Clip clip = MakeClip(g, 6);
  BackgroundScore call(*server, clip);
  gate->WaitForActive(1);
  const absl::Time start = absl::Now();
  std::thread stopper([&] { server->runner().Shutdown(absl::Milliseconds(200)); });
  const absl::StatusOr<ClipReport>& report = call.Join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_FALSE(report.ok());
  EXPECT_THAT(report.status().code(),
              ::testing::AnyOf(absl::StatusCode::kCancelled, absl::StatusCode::kUnavailable));
  gate->OpenGate();  // the frame held by the scorer ends; the worker pool then drains
  stopper.join();
}

}  // namespace
}  // namespace ssimd::testing
