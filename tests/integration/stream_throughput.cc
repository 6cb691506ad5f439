// Measures what the service itself costs per frame: ScoreClip over TCP on 127.0.0.1 with a scorer
// that does no arithmetic, so the numbers are transport, copies and pipeline bookkeeping only.
//   stream_throughput [--width=1920 --height=1080 --bit_depth=8 --frames=200 --streams=1]
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/time/clock.h"
#include "process/frame_memory.h"
#include "engine/synthetic_picture.h"
#include "tests/integration/test_server.h"

ABSL_FLAG(int, width, 1920, "luma width");
ABSL_FLAG(int, height, 1080, "luma height");
ABSL_FLAG(int, bit_depth, 8, "8, 10, 12 or 16");
ABSL_FLAG(int, frames, 200, "frames per stream");
ABSL_FLAG(int, streams, 1, "concurrent streams");
ABSL_FLAG(int, in_flight, 4, "frames in flight per stream");
ABSL_FLAG(bool, keep_frame_memory, true, "KeepFrameMemoryInProcess() first, as ssimd_server does");

namespace ssimd::testing {
namespace {

class NullScorer : public Scorer {
 public:
  std::string_view name() const override { return "cpu"; }
  absl::Status CheckContext(const Geometry&, const FeatureSet&) const override {
    return absl::OkStatus();
  }
  absl::StatusOr<ScoreResult> Score(const Geometry&, const FeatureSet&,
                                    const FramePair& pair) override {
    ScoreResult result;
    result.scores["ssim"] = pair.reference.Sample(0, 0);
    result.backend = "cpu";
    return result;
  }
  // Planes as received: not even gathered, so only the service's own costs are measured.
  absl::StatusOr<ScoreResult> ScorePieces(const Geometry&, const FeatureSet&,
                                          const PiecewiseFramePair& pair) override {
    ScoreResult result;
    result.scores["ssim"] = pair.reference->pieces().empty() ? 0 : pair.reference->pieces()[0][0];
    result.backend = "cpu";
    return result;
  }
};

int Run() {
  const Geometry g{absl::GetFlag(FLAGS_width), absl::GetFlag(FLAGS_height),
                   absl::GetFlag(FLAGS_bit_depth), ChromaFormat::k420};
  ServerOptions options = FastServerOptions();
  options.service.max_frames_in_flight = absl::GetFlag(FLAGS_in_flight);
  auto server = TestServer::Start(options, std::make_unique<NullScorer>());
  if (server == nullptr) return 1;
  const SyntheticPlane reference = TexturedPlane(g, 1);
  const std::string ref = reference.ToString();
  const std::string dis =
      Distort(reference, 2, static_cast<int>(PeakValue(g.bit_depth) / 16)).ToString();
  const int frames = absl::GetFlag(FLAGS_frames);
  const int streams = absl::GetFlag(FLAGS_streams);
  v1::ClipConfig config;
  config.mutable_geometry()->set_width(g.width);
  config.mutable_geometry()->set_height(g.height);
  config.mutable_geometry()->set_bit_depth(g.bit_depth);
  config.mutable_features()->mutable_ssim();
  const absl::Time start = absl::Now();
  std::vector<std::thread> threads;
  for (int s = 0; s < streams; ++s) {
    threads.emplace_back([&] {
      int sent = 0;
      auto report = server->client().ScoreClip(
          config,
          [&](std::string* r, std::string* d) -> absl::StatusOr<bool> {
            if (sent++ == frames) return false;
            *r = ref;
            *d = dis;
            return true;
          },
          nullptr, absl::Minutes(10));
      if (!report.ok()) std::fprintf(stderr, "%s\n", report.status().ToString().c_str());
    });
  }
  for (auto& t : threads) t.join();
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  const double total = static_cast<double>(frames) * streams;
  std::printf("%dx%d %d-bit, %d stream(s) x %d frames: %.1f frames/s, %.0f MB/s of luma pairs\n",
              g.width, g.height, g.bit_depth, streams, frames, total / seconds,
              total * 2 * LumaBytes(g) / seconds / 1e6);
  return 0;
}

}  // namespace
}  // namespace ssimd::testing

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_keep_frame_memory)) ssimd::KeepFrameMemoryInProcess();
  return ssimd::testing::Run();
}
