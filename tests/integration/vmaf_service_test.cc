// vmaf through the service: ScoreClip streams give libvmaf's integer features, motion and (with
// libvmaf's own model, where $SSIMD_VMAF_MODEL_DIR holds it) vmaf for the checked-in reference
// subset bit for bit, in frame order, also when the stream may hold a single frame in flight;
// ScorePair scores a lone frame; models the server lacks, a server without models and pictures
// below vmaf's filters are INVALID_ARGUMENT saying what to do. Where libvmaf's model is absent a
// test model stands in under its name, and each frame's vmaf must be that model's prediction
// from the frame's own features.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/picture.h"
#include "engine/vmaf/model.h"
#include "engine/vmaf/model_registry.h"
#include "engine/vmaf/test_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/pixel_format.h"
#include "tests/integration/test_server.h"
#include "tests/reference/full_metrics_set.h"
#include "tests/reference/psnr_replay.h"
#include "tests/reference/reference_set.h"
#include "tests/reference/vmaf_replay.h"

namespace ssimd::testing {
namespace {

using ::testing::HasSubstr;

// vmaf_v0.6.1: libvmaf's where the test can read it, else the test model under that name.
struct ServedModel {
  std::shared_ptr<const VmafModel> model;
  bool libvmafs = false;
};

ServedModel ModelToServe() {
  ServedModel out;
  out.model = ReferenceVmafModel();
  out.libvmafs = out.model != nullptr;
  if (!out.libvmafs) out.model = SixFeatureTestModel();
  return out;
}

ServerOptions WithModel(const ServedModel& served, int max_frames_in_flight = 4) {
  ServerOptions options = FastServerOptions();
  auto registry = std::make_shared<VmafModelRegistry>();
  EXPECT_TRUE(registry->Add("vmaf_v0.6.1", *served.model).ok());
  options.service.vmaf_models = registry;
  options.service.max_frames_in_flight = max_frames_in_flight;
  return options;
}

struct ClipOutcome {
  grpc::Status status;
  std::vector<v1::FrameResult> frames;
  v1::ClipSummary summary;
};

ClipOutcome RunClip(TestServer& server, const Geometry& g, const std::string& feature,
                    const ToolPair& clips, size_t frames) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
  auto stream = server.stub().ScoreClip(&context);
  v1::ScoreClipRequest request;
  *request.mutable_config()->mutable_geometry() = GeometryToProto(g);
  request.mutable_config()->mutable_features()->add_feature_args(feature);
  bool open = stream->Write(request);
  for (size_t i = 0; i < frames && open; ++i) {
    const LumaView& ref = clips.reference.frames[i][0];
    const LumaView& dist = clips.distorted().frames[i][0];
    v1::FramePair* frame = request.mutable_frame();
    frame->set_index(i);
    frame->set_reference_luma(std::string(reinterpret_cast<const char*>(ref.data), LumaBytes(g)));
    frame->set_distorted_luma(std::string(reinterpret_cast<const char*>(dist.data), LumaBytes(g)));
    open = stream->Write(request);
  }
  stream->WritesDone();
  ClipOutcome out;
  v1::ScoreClipResponse response;
  while (stream->Read(&response)) {
    if (response.has_frame()) out.frames.push_back(response.frame());
    if (response.has_summary()) out.summary = response.summary();
  }
  out.status = stream->Finish();
  return out;
}

// The model's prediction from a frame's reported features (libvmaf's keys).
double PredictedFrom(const VmafModel& model, const v1::FrameResult& frame) {
  std::map<std::string, double> scores(frame.scores().begin(), frame.scores().end());
  absl::StatusOr<double> predicted = PredictVmaf(model, VmafModelOptions{}, scores);
  EXPECT_TRUE(predicted.ok()) << predicted.status();
  return predicted.value_or(-1);
}

TEST(VmafServiceTest, ScoreClipGivesLibvmafsValuesInFrameOrder) {
  const ServedModel served = ModelToServe();
  const absl::StatusOr<MetricsSet> subset = LoadMetricsSubset();
  ASSERT_TRUE(subset.ok()) << subset.status();
  int64_t compared = 0;
  int pairs = 0;
  // One frame in flight at most: results still come, each once its successor is scored.
  for (int in_flight : {4, 1}) {
    auto server = TestServer::Start(WithModel(served, in_flight));
    ASSERT_NE(server, nullptr);
    for (const ReferencePair& pair : subset->set.pairs) {
      const ExpectedMetrics& expected = subset->expected.at(pair.id);
      if (expected.metrics.count("integer_motion2") == 0) {
        continue;  // no vmaf from libvmaf (refused, or a clip cut short)
      }
      SCOPED_TRACE(absl::StrCat(pair.id, ", in flight ", in_flight));
      absl::StatusOr<ToolPair> clips = ReadPairAsVmafTool(pair);
      ASSERT_TRUE(clips.ok()) << clips.status();
      const ClipOutcome out = RunClip(*server, pair.geometry, "vmaf", *clips, clips->frames());
      ASSERT_TRUE(out.status.ok()) << out.status.error_message();
      ASSERT_EQ(out.frames.size(), clips->frames());
      for (size_t i = 0; i < out.frames.size(); ++i) {
        const v1::FrameResult& frame = out.frames[i];
        EXPECT_EQ(frame.index(), i);
        EXPECT_EQ(frame.backend(), "cpu");
        for (const auto& [metric, values] : expected.metrics) {
          const bool vmaf_value = metric == "vmaf" || absl::StartsWith(metric, std::string("integer_")) ||
                                  metric == kMotionSadScoreName;
          if (!vmaf_value || (metric == "vmaf" && !served.libvmafs)) continue;
          ASSERT_TRUE(frame.scores().count(metric)) << metric;
          EXPECT_TRUE(SameBits(values[i], frame.scores().at(metric)))
              << metric << " frame " << i << ": " << frame.scores().at(metric) << " vs libvmaf "
              << values[i];
          ++compared;
        }
        if (!served.libvmafs) {
          EXPECT_EQ(frame.scores().at("vmaf"), PredictedFrom(*served.model, frame));
        }
      }
      EXPECT_TRUE(out.summary.pooled().count("vmaf")) << "the summary pools vmaf";
      ++pairs;
    }
  }
  EXPECT_GE(pairs, 12);
  if (!served.libvmafs) std::cout << VmafModelAbsent() << "\n";
  std::cout << compared << " values from " << pairs << " clip runs compared\n";
}

TEST(VmafServiceTest, ScorePairIsAClipOfOneFrame) {
  const ServedModel served = ModelToServe();
  auto server = TestServer::Start(WithModel(served));
  ASSERT_NE(server, nullptr);
  const absl::StatusOr<MetricsSet> subset = LoadMetricsSubset();
  ASSERT_TRUE(subset.ok()) << subset.status();
  const ReferencePair* pair = nullptr;
  for (const ReferencePair& p : subset->set.pairs) {
    if (p.id == "leaf_64x64_yuv420p__x264crf30") pair = &p;
  }
  ASSERT_NE(pair, nullptr);
  absl::StatusOr<ToolPair> clips = ReadPairAsVmafTool(*pair);
  ASSERT_TRUE(clips.ok()) << clips.status();
  const Geometry& g = pair->geometry;
  v1::ScorePairRequest request;
  *request.mutable_geometry() = GeometryToProto(g);
  request.mutable_features()->add_feature_args("vmaf=model=vmaf_v0.6.1");
  request.set_reference_luma(std::string(
      reinterpret_cast<const char*>(clips->reference.frames[0][0].data), LumaBytes(g)));
  request.set_distorted_luma(std::string(
      reinterpret_cast<const char*>(clips->distorted().frames[0][0].data), LumaBytes(g)));
  auto scored = server->client().ScorePair(request, absl::Seconds(30));
  ASSERT_TRUE(scored.ok()) << scored.status();
  // Frame 0 of a clip has no motion either: its features and vmaf are the clip's frame 0's.
  const ExpectedMetrics& want = subset->expected.at(pair->id);
  for (const char* metric : {"integer_adm2", "integer_vif_scale0", "integer_vif_scale3",
                             "integer_motion2", "vmaf"}) {
    if (std::string(metric) == "vmaf" && !served.libvmafs) continue;
    EXPECT_TRUE(SameBits(want.metrics.at(metric)[0], scored->scores().at(metric))) << metric;
  }
  EXPECT_EQ(scored->scores().at("integer_motion2"), 0.0);
}

TEST(VmafServiceTest, RefusalsSayWhatToDo) {
  const ServedModel served = ModelToServe();
  auto with_model = TestServer::Start(WithModel(served));
  ASSERT_NE(with_model, nullptr);
  auto without = TestServer::Start(FastServerOptions());
  ASSERT_NE(without, nullptr);

  auto capabilities = with_model->client().GetCapabilities(absl::Seconds(10));
  ASSERT_TRUE(capabilities.ok()) << capabilities.status();
  ASSERT_EQ(capabilities->vmaf_models_size(), 1);
  EXPECT_EQ(capabilities->vmaf_models(0), "vmaf_v0.6.1");

  const Geometry g{64, 64, 8, ChromaFormat::k420};
  v1::ScorePairRequest request;
  *request.mutable_geometry() = GeometryToProto(g);
  request.set_reference_luma(std::string(LumaBytes(g), '\x40'));
  request.set_distorted_luma(std::string(LumaBytes(g), '\x41'));
  request.mutable_features()->add_feature_args("vmaf");
  auto no_models = without->client().ScorePair(request, absl::Seconds(30));
  EXPECT_EQ(no_models.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(no_models.status().message()), HasSubstr("--vmaf_model_dir"));

  request.mutable_features()->set_feature_args(0, "vmaf=model=vmaf_4k_v0.6.1");
  auto unknown = with_model->client().ScorePair(request, absl::Seconds(30));
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(unknown.status().message()),
              HasSubstr("no model vmaf_4k_v0.6.1 (it has vmaf_v0.6.1)"));

  const Geometry tiny{32, 32, 8, ChromaFormat::k420};
  *request.mutable_geometry() = GeometryToProto(tiny);
  request.set_reference_luma(std::string(LumaBytes(tiny), '\x40'));
  request.set_distorted_luma(std::string(LumaBytes(tiny), '\x41'));
  request.mutable_features()->set_feature_args(0, "vmaf");
  auto small = with_model->client().ScorePair(request, absl::Seconds(30));
  EXPECT_EQ(small.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(small.status().message()), HasSubstr("at least 33x33"));
}

}  // namespace
}  // namespace ssimd::testing
