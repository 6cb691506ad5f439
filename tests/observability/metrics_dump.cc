// Prints the exposition of a ServiceMetrics that has seen every kind of event, so the whole
// metric surface can be linted (promtool check metrics) without a running server.
#include <cstdint>
#include <iostream>

#include "server/metrics.h"

int main() {
  ssimd::ServiceMetrics metrics(ssimd::MetricsOptions{2});
  ssimd::FeatureSet features;
  features.float_ssim = ssimd::FloatSsimOptions{};
  features.float_ssim->enable_db = true;
  features.float_ssim->enable_lcs = true;
  features.ssim = ssimd::IntegerSsimOptions{};

  ssimd::ScoreResult gpu;
  gpu.backend = "gpu:0";
  gpu.scores = {{"float_ssim", 21.5}, {"float_ssim_l", 0.99}, {"float_ssim_c", 0.98},
                {"float_ssim_s", 0.97}, {"ssim", 0.95}};
  gpu.timings = {0.0001, 0.0004, 0.0002, 0.0003, 0.00005, 0.00105};
  metrics.RecordFrame(features, gpu);

  ssimd::ScoreResult cpu = gpu;
  cpu.backend = "cpu";
  cpu.fallback_reason = "gpu refused: 16-bit input";
  cpu.timings = {0.001, 0, 0.02, 0, 0.0001, 0.0211};
  metrics.RecordFrame(features, cpu);

  metrics.RecordRpc("ScoreClip", "OK");
  metrics.RecordRpc("ScorePair", "INVALID_ARGUMENT");
  metrics.StreamStarted();
  metrics.FramesInFlightChanged(2);
  for (const char* title : {"a", "b", "c"}) {
    metrics.RecordTitleScore(title, "float_ssim", 21.5);
    metrics.RecordTitleScore(title, "ssim", 0.95);
  }
  ssimd::RenditionRecord rendition;
  rendition.title = "a";
  rendition.rendition = "h264_640x360";
  rendition.codec = "h264";
  rendition.width = 640;
  rendition.height = 360;
  rendition.bitrate_bits_per_second = 182552;
  rendition.size_bytes = 22819;
  rendition.pooled["float_ssim"] = {0.97, 0.969, 0.95};
  metrics.RecordRendition(rendition);
  ssimd::DeviceStats device;
  device.frames_scored = 1;
  device.slots_in_use = 1;
  device.slots_total = 4;
  device.memory_in_use_bytes = int64_t{1} << 28;
  device.float_ssim_ordered_sums = 1;
  device.float_ms_ssim_ordered_sums = 1;
  device.ssim_ordered_sums = 1;
  metrics.UpdateDevices({device});
  std::cout << metrics.Serialize();
  return 0;
}
