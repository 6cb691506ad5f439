#include "engine/gpu/gpu_frame.h"

#include <chrono>
#include <cstdint>
#include <optional>

#include "absl/strings/str_format.h"
#include "engine/gpu/context_gate.h"
#include "engine/gpu/exact_sum.h"
#include "engine/gpu/hip_status.h"
#include "kernels/db.h"
#include "kernels/decimate.h"
#include "kernels/fault_kernel.h"
#include "kernels/float_ssim_kernels.h"
#include "kernels/float_ssim_math.h"
#include "kernels/integer_ssim_kernels.h"
#include "kernels/integer_ssim_math.h"
#include "kernels/ssim_constants.h"

namespace ssimd {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kFloatBlockThreads = kFloatSsimBlockX * kFloatSsimBlockY;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Drains the slot's stream when a frame leaves early, so that nothing still in flight reads or
// writes the slot's buffers once the next frame leases the slot.
class StreamDrain {
 public:
  explicit StreamDrain(hipStream_t stream) : stream_(stream) {}
  ~StreamDrain() {
    if (armed_) (void)hipStreamSynchronize(stream_);
  }
  void Disarm() { armed_ = false; }

 private:
  hipStream_t stream_;
  bool armed_ = true;
};

// Where one frame's float_ssim work lives.
struct FloatPlan {
  int scale = 1;
  int plane_width = 0;  // the plane the Gaussian passes filter (decimated when scale > 1)
  int plane_height = 0;
  int valid_width = 0;
  int valid_height = 0;
  int quantities = 1;
  int blocks = 0;
  FloatSsimFilteredPlanes filtered;
};

FloatPlan PlanFloatSsim(const Geometry& geometry, const FloatSsimOptions& options) {
  FloatPlan plan;
  plan.scale = GpuFloatSsimScale(geometry, options);
  plan.plane_width = DecimatedSize(geometry.width, plan.scale);
  plan.plane_height = DecimatedSize(geometry.height, plan.scale);
  plan.valid_width = plan.plane_width - 2 * kGaussianRadius;
  plan.valid_height = plan.plane_height - 2 * kGaussianRadius;
  plan.quantities = options.enable_lcs ? kFloatSsimQuantities : 1;
  plan.blocks = FloatSsimPartialBlocks(plan.valid_width, plan.valid_height);
  return plan;
}

size_t FloatPartialDoubles(const FloatPlan& plan) {
  return static_cast<size_t>(plan.blocks) * 2 * plan.quantities;
}

absl::Status EnqueueFloatSsim(StreamSlot& slot, const Geometry& geometry, const uint8_t* ref,
                              const uint8_t* dist, FloatPlan& plan) {
  const size_t filtered_plane = static_cast<size_t>(plan.valid_width) * plan.plane_height;
  if (absl::Status s = slot.filtered.Reserve(5 * filtered_plane * sizeof(float), "float_ssim");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = slot.float_partials.Reserve(FloatPartialDoubles(plan) * sizeof(double),
                                                   "float_ssim block sums");
      !s.ok()) {
    return s;
  }
  float* base = slot.filtered.as<float>();
  plan.filtered = {base, base + filtered_plane, base + 2 * filtered_plane,
                   base + 3 * filtered_plane, base + 4 * filtered_plane};

  const size_t stride = static_cast<size_t>(geometry.width);  // packed rows, in samples
  if (plan.scale > 1) {
    const size_t plane = static_cast<size_t>(plan.plane_width) * plan.plane_height;
    if (absl::Status s = slot.decimated.Reserve(2 * plane * sizeof(float), "float_ssim"); !s.ok()) {
      return s;
    }
    float* ref_small = slot.decimated.as<float>();
    float* dist_small = ref_small + plane;
    SSIMD_HIP_RETURN_IF_ERROR(
        LaunchFloatSsimDecimate(ref, dist, stride, geometry.width, geometry.height,
                                geometry.bit_depth, plan.scale, DecimationTapWeight(plan.scale),
                                ref_small, dist_small, plan.plane_width, plan.plane_height,
                                slot.stream),
        "float_ssim decimation kernel");
    SSIMD_HIP_RETURN_IF_ERROR(
        LaunchFloatSsimHorizontalF32(ref_small, dist_small, plan.plane_width, plan.plane_height,
                                     plan.filtered, slot.stream),
        "float_ssim horizontal kernel");
  } else {
    SSIMD_HIP_RETURN_IF_ERROR(
        LaunchFloatSsimHorizontalRaw(ref, dist, stride, geometry.width, geometry.height,
                                     geometry.bit_depth, plan.filtered, slot.stream),
        "float_ssim horizontal kernel");
  }
  SSIMD_HIP_RETURN_IF_ERROR(
      LaunchFloatSsimVertical(plan.filtered, plan.valid_width, plan.valid_height, plan.quantities,
                              slot.float_partials.as<double>(), nullptr, slot.stream),
      "float_ssim vertical kernel");
  return absl::OkStatus();
}

// Where one frame's integer ssim work lives.
struct SsimPlan {
  int64_t pixels = 0;
  int blocks = 0;
  bool ordered = false;  // per-pixel terms come back for the host's index-order sum
};

absl::Status EnqueueIntegerSsim(StreamSlot& slot, const Geometry& geometry,
                                const IntegerSsimOptions& options, const uint8_t* ref,
                                const uint8_t* dist, SsimPlan& plan) {
  const int width = geometry.width;
  const int height = geometry.height;
  plan.pixels = static_cast<int64_t>(width) * height;
  plan.blocks = IntegerSsimPartialBlocks(width, height);
  plan.ordered = options.exact || plan.pixels <= kOrderedSsimMaxPixels;
  const size_t pixels = static_cast<size_t>(plan.pixels);
  if (absl::Status s = slot.moments.Reserve(5 * pixels * sizeof(int64_t), "ssim"); !s.ok()) {
    return s;
  }
  if (absl::Status s = slot.ssim_partials.Reserve(
          static_cast<size_t>(plan.blocks) * 2 * sizeof(double), "ssim block sums");
      !s.ok()) {
    return s;
  }
  if (plan.ordered) {
    if (absl::Status s = slot.ssim_terms.Reserve(pixels * sizeof(double), "ssim terms"); !s.ok()) {
      return s;
    }
  }
  int64_t* base = slot.moments.as<int64_t>();
  const IntegerRowMomentPlanes planes = {base, base + pixels, base + 2 * pixels, base + 3 * pixels,
                                         base + 4 * pixels};
  SSIMD_HIP_RETURN_IF_ERROR(
      LaunchIntegerSsimHorizontal(ref, dist, static_cast<size_t>(width), width, height,
                                  geometry.bit_depth, planes, slot.stream),
      "ssim horizontal kernel");
  SSIMD_HIP_RETURN_IF_ERROR(
      LaunchIntegerSsimVertical(planes, width, height, IntegerSsimPeakSquared(geometry.bit_depth),
                                slot.ssim_partials.as<double>(),
                                plan.ordered ? slot.ssim_terms.as<double>() : nullptr, slot.stream),
      "ssim vertical kernel");
  return absl::OkStatus();
}

// Test faults, injected after the frame's kernels are queued.
absl::Status InjectTestFaults(GpuTestHooks* hooks, hipStream_t stream) {
  if (hooks == nullptr) return absl::OkStatus();
  if (hooks->recoverable_errors.load() > 0 && hooks->recoverable_errors.fetch_sub(1) > 0) {
    // An invalid device number: a real runtime error that leaves the device usable.
    SSIMD_HIP_RETURN_IF_ERROR(hipSetDevice(-1), "injected test error");
  }
  if (hooks->device_faults.load() > 0 && hooks->device_faults.fetch_sub(1) > 0) {
    SSIMD_HIP_RETURN_IF_ERROR(LaunchDeviceFault(stream), "injected device fault");
  }
  return absl::OkStatus();
}

// The float_ssim means from the block sums when they are certain to equal the CPU's, else from
// every per-pixel term summed in raster order on the host (docs/adr/0021).
absl::Status FinishFloatSsim(StreamSlot& slot, const FloatPlan& plan, const double* partials,
                             bool always_ordered, double (&means)[kFloatSsimQuantities],
                             bool& ordered) {
  ordered = always_ordered;
  const int64_t summed = static_cast<int64_t>(plan.blocks) * kFloatBlockThreads;
  for (int q = 0; q < plan.quantities && !ordered; ++q) {
    const SumWithMagnitude sum =
        AddBlockPartials(partials, plan.blocks, 2 * plan.quantities, 2 * q);
    const std::optional<double> mean =
        CertainFloatSsimMean(sum, summed, plan.valid_width, plan.valid_height);
    if (mean.has_value()) {
      means[q] = *mean;
    } else {
      ordered = true;
    }
  }
  if (!ordered) return absl::OkStatus();

  const size_t n = static_cast<size_t>(plan.valid_width) * plan.valid_height;
  const size_t bytes = n * plan.quantities * sizeof(double);
  if (absl::Status s = slot.float_terms.Reserve(bytes, "float_ssim terms"); !s.ok()) return s;
  if (absl::Status s = slot.readback.Reserve(bytes, "float_ssim terms"); !s.ok()) return s;
  SSIMD_HIP_RETURN_IF_ERROR(
      LaunchFloatSsimVertical(plan.filtered, plan.valid_width, plan.valid_height, plan.quantities,
                              slot.float_partials.as<double>(), slot.float_terms.as<double>(),
                              slot.stream),
      "float_ssim vertical kernel (per-pixel terms)");
  SSIMD_HIP_RETURN_IF_ERROR(
      hipMemcpyAsync(slot.readback.as<double>(), slot.float_terms.as<double>(), bytes,
                     hipMemcpyDeviceToHost, slot.stream),
      "reading back float_ssim terms");
  SSIMD_HIP_RETURN_IF_ERROR(hipStreamSynchronize(slot.stream), "float_ssim terms");
  const double* terms = slot.readback.as<double>();
  for (int q = 0; q < plan.quantities; ++q) {
    means[q] = FloatSsimMean(SumInOrder(terms + q * n, n), plan.valid_width, plan.valid_height);
  }
  return absl::OkStatus();
}

float ElapsedMs(hipEvent_t from, hipEvent_t to) {
  float ms = 0;
  if (hipEventElapsedTime(&ms, from, to) != hipSuccess) return 0;
  return ms;
}

}  // namespace

absl::Status ScoreFrameOnSlot(StreamSlot& slot, const Geometry& geometry,
                              const FeatureSet& features, StagePlane stage, GpuTestHooks* hooks,
                              ScoreResult& result, GpuFrameReport& report) {
  SSIMD_HIP_RETURN_IF_ERROR(hipSetDevice(slot.device), "selecting the device");
  StreamDrain drain(slot.stream);

  // Upload: both planes packed into pinned staging, each copied as soon as it is staged.
  const size_t plane_bytes = LumaBytes(geometry);
  if (absl::Status s = slot.upload.Reserve(2 * plane_bytes, "luma staging"); !s.ok()) return s;
  if (absl::Status s = slot.luma.Reserve(2 * plane_bytes, "luma"); !s.ok()) return s;
  uint8_t* staging = slot.upload.as<uint8_t>();
  uint8_t* ref = slot.luma.as<uint8_t>();
  uint8_t* dist = ref + plane_bytes;
  SSIMD_HIP_RETURN_IF_ERROR(hipEventRecord(slot.events[0], slot.stream), "recording an event");
  if (absl::Status s = stage(0, staging); !s.ok()) return s;
  SSIMD_HIP_RETURN_IF_ERROR(
      hipMemcpyAsync(ref, staging, plane_bytes, hipMemcpyHostToDevice, slot.stream),
      "uploading the reference luma");
  if (absl::Status s = stage(1, staging + plane_bytes); !s.ok()) return s;
  SSIMD_HIP_RETURN_IF_ERROR(
      hipMemcpyAsync(dist, staging + plane_bytes, plane_bytes, hipMemcpyHostToDevice, slot.stream),
      "uploading the distorted luma");
  SSIMD_HIP_RETURN_IF_ERROR(hipEventRecord(slot.events[1], slot.stream), "recording an event");

  // Kernels.
  FloatPlan float_plan;
  SsimPlan ssim_plan;
  if (features.float_ssim.has_value()) {
    float_plan = PlanFloatSsim(geometry, *features.float_ssim);
    if (absl::Status s = EnqueueFloatSsim(slot, geometry, ref, dist, float_plan); !s.ok()) {
      return s;
    }
  }
  if (features.ssim.has_value()) {
    if (absl::Status s = EnqueueIntegerSsim(slot, geometry, *features.ssim, ref, dist, ssim_plan);
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = InjectTestFaults(hooks, slot.stream); !s.ok()) return s;
  SSIMD_HIP_RETURN_IF_ERROR(hipEventRecord(slot.events[2], slot.stream), "recording an event");

  // Read-back: block sums, and per-pixel ssim terms where the host sums them in order.
  const size_t float_doubles =
      features.float_ssim.has_value() ? FloatPartialDoubles(float_plan) : 0;
  const size_t ssim_doubles =
      features.ssim.has_value() ? static_cast<size_t>(ssim_plan.blocks) * 2 : 0;
  const size_t term_doubles = ssim_plan.ordered ? static_cast<size_t>(ssim_plan.pixels) : 0;
  const size_t readback_doubles = float_doubles + ssim_doubles + term_doubles;
  if (absl::Status s = slot.readback.Reserve(readback_doubles * sizeof(double), "read-back");
      !s.ok()) {
    return s;
  }
  double* host = slot.readback.as<double>();
  if (float_doubles > 0) {
    SSIMD_HIP_RETURN_IF_ERROR(
        hipMemcpyAsync(host, slot.float_partials.as<double>(), float_doubles * sizeof(double),
                       hipMemcpyDeviceToHost, slot.stream),
        "reading back float_ssim block sums");
  }
  if (ssim_doubles > 0) {
    SSIMD_HIP_RETURN_IF_ERROR(
        hipMemcpyAsync(host + float_doubles, slot.ssim_partials.as<double>(),
                       ssim_doubles * sizeof(double), hipMemcpyDeviceToHost, slot.stream),
        "reading back ssim block sums");
  }
  if (term_doubles > 0) {
    SSIMD_HIP_RETURN_IF_ERROR(
        hipMemcpyAsync(host + float_doubles + ssim_doubles, slot.ssim_terms.as<double>(),
                       term_doubles * sizeof(double), hipMemcpyDeviceToHost, slot.stream),
        "reading back ssim terms");
  }
  SSIMD_HIP_RETURN_IF_ERROR(hipEventRecord(slot.events[3], slot.stream), "recording an event");
  SSIMD_HIP_RETURN_IF_ERROR(hipStreamSynchronize(slot.stream), "running the frame");
  drain.Disarm();

  result.timings.upload = ElapsedMs(slot.events[0], slot.events[1]) * 1e-3;
  result.timings.compute = ElapsedMs(slot.events[1], slot.events[2]) * 1e-3;
  result.timings.readback = ElapsedMs(slot.events[2], slot.events[3]) * 1e-3;

  // Host finish. ssim first: the float_ssim fallback below reuses the read-back buffer.
  const auto finish_start = Clock::now();
  if (features.ssim.has_value()) {
    const double sum = ssim_plan.ordered
                           ? SumInOrder(host + float_doubles + ssim_doubles, term_doubles)
                           : AddBlockPartials(host + float_doubles, ssim_plan.blocks, 2, 0).sum;
    const double weight =
        static_cast<double>(IntegerSsimWeightSum(geometry.width, geometry.height));
    const double score = sum / weight;
    report.ssim_ordered_sum = ssim_plan.ordered;
    result.scores["ssim"] = features.ssim->enable_db ? IntegerSsimToDb(score) : score;
  }
  if (features.float_ssim.has_value()) {
    const FloatSsimOptions& options = *features.float_ssim;
    double means[kFloatSsimQuantities] = {0, 0, 0, 0};
    StreamDrain fallback_drain(slot.stream);
    const bool always_ordered = hooks != nullptr && hooks->always_ordered_sum.load();
    if (absl::Status s = FinishFloatSsim(slot, float_plan, host, always_ordered, means,
                                         report.float_ordered_sum);
        !s.ok()) {
      return s;
    }
    fallback_drain.Disarm();
    result.scores["float_ssim"] =
        options.enable_db
            ? FloatSsimToDb(means[0], FloatSsimMaxDb(options.clip_db, geometry.bit_depth,
                                                     geometry.width, geometry.height))
            : means[0];
    if (options.enable_lcs) {
      result.scores["float_ssim_l"] = means[1];
      result.scores["float_ssim_c"] = means[2];
      result.scores["float_ssim_s"] = means[3];
    }
  }
  result.timings.host_finish = Seconds(Clock::now() - finish_start);
  return absl::OkStatus();
}

}  // namespace ssimd
