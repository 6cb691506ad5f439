#include "engine/vmaf/temporal_finish.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "engine/vmaf/model.h"

namespace ssimd {
namespace {

constexpr char kMotion2Feature[] = "VMAF_integer_feature_motion2_score";

// The keys motion2 and motion3 are reported under: libvmaf's, with the suffix the model's motion
// options give (as for its motion2 feature).
std::pair<std::string, std::string> MotionKeys(const VmafModel* model) {
  std::string suffix;
  if (model != nullptr) {
    for (const VmafModelFeature& feature : model->features) {
      constexpr absl::string_view kKey = "integer_motion2";
      if (feature.name == kMotion2Feature && feature.output_name.size() >= kKey.size()) {
        suffix = feature.output_name.substr(kKey.size());
      }
    }
  }
  return {"integer_motion2" + suffix, "integer_motion3" + suffix};
}

}  // namespace

TemporalFinish::TemporalFinish(const FeatureSet& features) : vmaf_(features.vmaf) {
  if (!vmaf_.has_value()) return;
  const VmafModel* model = vmaf_->resolved.get();
  absl::StatusOr<MotionSeries> series = MotionSeries::Create(
      model == nullptr ? MotionSeriesOptions{} : MotionSeriesOptionsOf(model->extractors.motion));
  if (series.ok()) {
    series_ = std::make_unique<MotionSeries>(*std::move(series));
  } else {
    error_ = series.status();
  }
}

absl::Status TemporalFinish::Add(const FrameScores& scores) {
  if (!error_.ok()) return error_;
  if (series_ == nullptr) {
    ++added_;
    final_ = added_;
    return absl::OkStatus();
  }
  const auto sad = scores.find(kMotionSadScoreName);
  if (sad == scores.end()) {
    return absl::InternalError(absl::StrFormat(
        "frame %d was scored without %s, which vmaf's motion needs", added_, kMotionSadScoreName));
  }
  if (absl::Status added = series_->Add(sad->second); !added.ok()) return added;
  ++added_;
  TakeFinishedMotion();
  return absl::OkStatus();
}

void TemporalFinish::EndOfInput() {
  if (series_ == nullptr || series_->finished()) return;
  series_->Finish();
  TakeFinishedMotion();
}

void TemporalFinish::TakeFinishedMotion() {
  for (const MotionFrame& frame : series_->TakeFinished()) {
    pending_.push_back(Motion{frame.motion2, frame.motion3});
    final_ = static_cast<uint64_t>(frame.index) + 1;
  }
}

absl::StatusOr<FrameScores> TemporalFinish::Complete(uint64_t index, FrameScores& scores) {
  FrameScores added;
  if (series_ == nullptr) return added;
  if (index != first_pending_ || pending_.empty()) {
    return absl::InternalError(absl::StrFormat(
        "frame %d was completed out of order (the next final frame is %d, %d final)", index,
        first_pending_, final_));
  }
  const Motion motion = pending_.front();
  pending_.pop_front();
  ++first_pending_;
  const auto [motion2_key, motion3_key] = MotionKeys(vmaf_->resolved.get());
  added[motion2_key] = motion.motion2;
  added[motion3_key] = motion.motion3;
  scores[motion2_key] = motion.motion2;
  scores[motion3_key] = motion.motion3;
  const VmafModel* model = vmaf_->resolved.get();
  if (model == nullptr) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "vmaf model %s was not resolved against the models this process loaded", vmaf_->model));
  }
  VmafModelOptions options;
  options.enable_transform = vmaf_->enable_transform;
  options.disable_clip = vmaf_->disable_clip;
  absl::StatusOr<double> predicted = PredictVmaf(*model, options, scores);
  if (!predicted.ok()) return predicted.status();
  added[model->name] = *predicted;
  scores[model->name] = *predicted;
  return added;
}

absl::StatusOr<FrameScores> FinishLoneFrame(const FeatureSet& features, FrameScores& scores) {
  TemporalFinish finish(features);
  if (absl::Status added = finish.Add(scores); !added.ok()) return added;
  finish.EndOfInput();
  return finish.Complete(0, scores);
}

}  // namespace ssimd
