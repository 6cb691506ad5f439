// The GPU backend: a pool of stream slots over every usable device, each frame on one leased slot.
#include "engine/gpu/gpu_scorer.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "engine/gpu/context_gate.h"
#include "engine/gpu/device_arch.h"
#include "engine/gpu/gpu_frame.h"
#include "engine/gpu/gpu_test_hooks.h"
#include "engine/gpu/hip_status.h"
#include "engine/gpu/slot_pool.h"
#include "engine/gpu/staging.h"
#include "engine/gpu/stream_slot.h"
#include "kernels/exact_sum_math.h"
#include "kernels/hip_portability.h"

namespace ssimd {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kPlaneNames[3] = {"reference", "distorted", "previous reference"};

// State shared by every pool entry that lists the same physical device.
struct PhysicalDevice {
  GpuDeviceInfo info;
  std::atomic<int64_t> memory_bytes{0};
};

// One pool entry: a device (or a repeat of one) with its own slots and counters.
struct PoolEntry {
  PhysicalDevice* device = nullptr;
  std::vector<std::unique_ptr<StreamSlot>> slots;
  std::atomic<int64_t> frames_scored{0};
  std::atomic<int64_t> float_ordered_sums{0};
  std::atomic<int64_t> ssim_ordered_sums{0};
  std::atomic<int64_t> ms_ssim_ordered_sums{0};
  std::atomic<int64_t> ssim_exact_serial_budget{0};
  std::atomic<int64_t> ssim_exact_check_failed{0};
  std::atomic<int64_t> planes_read_on_device{0};
  std::atomic<int64_t> device_planes_through_host{0};
};

absl::StatusOr<GpuDeviceInfo> QueryDevice(int index) {
  hipDeviceProp_t props;
  SSIMD_HIP_RETURN_IF_ERROR(hipGetDeviceProperties(&props, index),
                            absl::StrFormat("reading the properties of GPU %d", index));
  GpuDeviceInfo info;
  info.index = index;
  info.name = props.name;
  info.total_memory_bytes = static_cast<int64_t>(props.totalGlobalMem);
#if defined(SSIMD_GPU_NVIDIA)
  info.arch = absl::StrFormat("sm_%d%d", props.major, props.minor);
#else
  info.arch = props.gcnArchName;
#endif
  info.has_code = HasCodeFor(info.arch, CompiledGpuCodeTargets());
  return info;
}

// Why no device is used when none has code in this build, naming each device's architecture and
// what the build holds, so an operator sees which build the node needs.
std::string NoCodeReason(const std::vector<GpuDeviceInfo>& devices) {
  std::vector<std::string> described;
  for (const GpuDeviceInfo& d : devices) {
    described.push_back(absl::StrFormat("GPU %d (%s) is %s", d.index, d.name, d.arch));
  }
  return absl::StrFormat(
      "no GPU this build has code for: %s; the binary holds code for %s (docs/operations.md, "
      "supported GPUs)",
      absl::StrJoin(described, ", "), CompiledGpuCodeTargets());
}

class HipGpuScorer final : public GpuScorer {
 public:
  HipGpuScorer(std::vector<std::unique_ptr<PhysicalDevice>> devices,
               std::vector<std::unique_ptr<PoolEntry>> entries,
               std::vector<GpuDeviceInfo> devices_without_code, std::shared_ptr<GpuTestHooks> hooks,
               bool vmaf_on_device)
      : vmaf_on_device_(vmaf_on_device),
        devices_(std::move(devices)),
        entries_(std::move(entries)),
        devices_without_code_(std::move(devices_without_code)),
        pool_(SlotCounts(entries_)),
        hooks_(std::move(hooks)) {}

  std::string_view name() const override { return "gpu"; }

  absl::Status CheckContext(const Geometry& geometry, const FeatureSet& features) const override {
    if (features.vmaf.has_value() && !vmaf_on_device_) {
      return absl::FailedPreconditionError(
          "vmaf on the GPU is off (the server runs with --gpu_vmaf=false): its frames run on the "
          "CPU");
    }
    return CheckGpuContext(geometry, features);
  }

  absl::StatusOr<ScoreResult> Score(const Geometry& geometry, const FeatureSet& features,
                                    const FramePair& pair) override {
    const auto start = Clock::now();
    SSIMD_RETURN_IF_ERROR(CheckContext(geometry, features));
    // Sample ranges are checked on the way into pinned staging (staging.cc), not here.
    SSIMD_RETURN_IF_ERROR(CheckLumaView(geometry, pair.reference, "reference"));
    SSIMD_RETURN_IF_ERROR(CheckLumaView(geometry, pair.distorted, "distorted"));
    const LumaView* previous = PreviousToRead(features, pair.previous_reference);
    if (previous != nullptr) {
      SSIMD_RETURN_IF_ERROR(CheckLumaView(geometry, *previous, "previous reference"));
    }
    SSIMD_RETURN_IF_ERROR(CheckChromaGiven(geometry, features, pair.chroma));
    DeviceSources sources;
    sources.has_previous_reference = previous != nullptr;
    return ScoreStaged(geometry, features, start, nullptr, pair.chroma, sources,
                       [&](int index, uint8_t* staging) {
      const LumaView& plane = index == 0 ? pair.reference : index == 1 ? pair.distorted : *previous;
      return StageLumaPlane(plane, staging, kPlaneNames[index]);
    });
  }

  // The planes go from their pieces straight into pinned staging: one copy.
  absl::StatusOr<ScoreResult> ScorePieces(const Geometry& geometry, const FeatureSet& features,
                                          const PiecewiseFramePair& pair) override {
    const auto start = Clock::now();
    SSIMD_RETURN_IF_ERROR(CheckContext(geometry, features));
    // A distorted plane with an upscale arrives at the plan's source size.
    Geometry distorted_geometry = geometry;
    if (pair.distorted_upscale != nullptr) {
      absl::StatusOr<Geometry> input = PlanInputGeometry(*pair.distorted_upscale, geometry);
      if (!input.ok()) return input.status();
      distorted_geometry = *input;
    }
    // Sizes are checked before a slot is leased, so a bad frame holds none.
    SSIMD_RETURN_IF_ERROR(CheckLumaBytes(geometry, pair.reference->size(), "reference luma"));
    SSIMD_RETURN_IF_ERROR(
        CheckLumaBytes(distorted_geometry, pair.distorted->size(),
                       pair.distorted_upscale != nullptr ? "distorted luma before its upscale"
                                                         : "distorted luma"));
    const PlanePieces* previous = PreviousToRead(features, pair.previous_reference);
    if (previous != nullptr) {
      SSIMD_RETURN_IF_ERROR(
          CheckLumaBytes(geometry, previous->size(), "previous reference luma"));
    }
    SSIMD_RETURN_IF_ERROR(CheckChromaGiven(geometry, features, pair.chroma));
    DeviceSources sources{pair.reference->device(), pair.distorted->device()};
    sources.has_previous_reference = previous != nullptr;
    if (previous != nullptr) sources.previous_reference = previous->device();
    return ScoreStaged(geometry, features, start, pair.distorted_upscale, pair.chroma, sources,
                       [&](int index, uint8_t* staging) {
                         if (index == 2) {
                           return StageLumaPieces(geometry, *previous, staging, kPlaneNames[2]);
                         }
                         return index == 0 ? StageLumaPieces(geometry, *pair.reference, staging,
                                                             kPlaneNames[0])
                                           : StageLumaPieces(distorted_geometry, *pair.distorted,
                                                             staging, kPlaneNames[1]);
                       });
  }

  bool Healthy() const override { return pool_.AnyUsable(); }

  std::vector<GpuDeviceInfo> Devices() const override {
    std::vector<GpuDeviceInfo> out;
    for (size_t e = 0; e < entries_.size(); ++e) {
      GpuDeviceInfo info = entries_[e]->device->info;
      info.index = static_cast<int>(e);
      out.push_back(std::move(info));
    }
    // Numbered after the pool entries, so indices stay unique and match Stats() where it has one.
    for (GpuDeviceInfo info : devices_without_code_) {
      info.index = static_cast<int>(out.size());
      out.push_back(std::move(info));
    }
    return out;
  }

  std::vector<GpuDeviceStats> Stats() const override {
    std::vector<GpuDeviceStats> out;
    for (size_t e = 0; e < entries_.size(); ++e) {
      const PoolEntry& entry = *entries_[e];
      GpuDeviceStats stats;
      stats.index = static_cast<int>(e);
      stats.frames_scored = entry.frames_scored.load();
      stats.slots_in_use = pool_.SlotsInUse(static_cast<int>(e));
      stats.slots_total = pool_.SlotsTotal(static_cast<int>(e));
      stats.memory_in_use_bytes = entry.device->memory_bytes.load();
      stats.lost = pool_.IsLost(static_cast<int>(e));
      stats.float_ssim_ordered_sums = entry.float_ordered_sums.load();
      stats.float_ms_ssim_ordered_sums = entry.ms_ssim_ordered_sums.load();
      stats.ssim_ordered_sums = entry.ssim_ordered_sums.load();
      stats.ssim_exact_fallbacks_serial_budget = entry.ssim_exact_serial_budget.load();
      stats.ssim_exact_fallbacks_check_failed = entry.ssim_exact_check_failed.load();
      stats.planes_read_on_device = entry.planes_read_on_device.load();
      stats.device_planes_through_host = entry.device_planes_through_host.load();
      out.push_back(stats);
    }
    return out;
  }

 private:
  // The previous reference where the features read it (vmaf's motion), else null.
  template <typename Plane>
  static const Plane* PreviousToRead(const FeatureSet& features, const Plane* previous) {
    return FeaturesReadPreviousReference(features) ? previous : nullptr;
  }

  static std::vector<int> SlotCounts(const std::vector<std::unique_ptr<PoolEntry>>& entries) {
    std::vector<int> counts;
    for (const auto& entry : entries) counts.push_back(static_cast<int>(entry->slots.size()));
    return counts;
  }

  // A frame whose features read chroma must bring it; checked before a slot is leased.
  static absl::Status CheckChromaGiven(const Geometry& geometry, const FeatureSet& features,
                                       const FrameChroma* chroma) {
    if (chroma != nullptr || !FeaturesReadChroma(features, geometry.chroma)) {
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(
        "psnr with enable_chroma needs the frame's chroma planes; only luma was given");
  }

  // Leases a slot and scores the frame whose planes `stage` copies into the slot's staging; the
  // chroma planes, where psnr reads them, are summed on the device too (gpu_chroma.h).
  absl::StatusOr<ScoreResult> ScoreStaged(const Geometry& geometry, const FeatureSet& features,
                                          Clock::time_point start,
                                          const LumaScalePlan* distorted_upscale,
                                          const FrameChroma* chroma,
                                          const DeviceSources& on_device, StagePlane stage) {
    if (!FeaturesReadChroma(features, geometry.chroma)) chroma = nullptr;
    absl::StatusOr<SlotPool::Lease> lease = pool_.Acquire();
    if (!lease.ok()) return lease.status();
    PoolEntry& entry = *entries_[lease->entry()];
    StreamSlot& slot = *entry.slots[lease->slot()];

    ScoreResult result;
    result.backend = absl::StrFormat("gpu:%d", lease->entry());
    result.timings.queue_wait = lease->wait_seconds();
    GpuFrameReport report;
    const absl::Status status =
        ScoreFrameOnSlot(slot, geometry, features, stage, on_device, distorted_upscale, chroma,
                         hooks_.get(), result, report);
    if (!status.ok()) {
      if (status.code() == absl::StatusCode::kInvalidArgument) return status;
      return DeviceFailure(*lease, status);
    }
    entry.frames_scored.fetch_add(1);
    entry.planes_read_on_device.fetch_add(report.planes_read_on_device);
    entry.device_planes_through_host.fetch_add(report.device_planes_through_host);
    if (report.float_ordered_sum) entry.float_ordered_sums.fetch_add(1);
    if (report.ms_ssim_ordered_sum) entry.ms_ssim_ordered_sums.fetch_add(1);
    if (report.ssim_ordered_sum) entry.ssim_ordered_sums.fetch_add(1);
    if (report.ssim_exact_fallback == kExactSumSerialBudget) {
      entry.ssim_exact_serial_budget.fetch_add(1);
    } else if (report.ssim_exact_fallback == kExactSumCheckFailed) {
      entry.ssim_exact_check_failed.fetch_add(1);
    }
    result.timings.total = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
  }

  // A frame failed on the device. If the device's context is gone, every entry on that device
  // leaves the pool (health turns false once none is left); either way the caller gets
  // UNAVAILABLE or INTERNAL and may retry on the CPU.
  absl::Status DeviceFailure(const SlotPool::Lease& lease, const absl::Status& status) {
    PoolEntry& entry = *entries_[lease.entry()];
    (void)hipSetDevice(entry.device->info.index);
    if (!CurrentDeviceLost()) return status;
    const std::string reason = absl::StrFormat("GPU %d (%s) was lost: %s", entry.device->info.index,
                                               entry.device->info.name, status.message());
    for (size_t e = 0; e < entries_.size(); ++e) {
      if (entries_[e]->device == entry.device) pool_.MarkLost(static_cast<int>(e), reason);
    }
    return absl::UnavailableError(reason);
  }

  const bool vmaf_on_device_;
  std::vector<std::unique_ptr<PhysicalDevice>> devices_;
  std::vector<std::unique_ptr<PoolEntry>> entries_;
  std::vector<GpuDeviceInfo> devices_without_code_;
  SlotPool pool_;
  std::shared_ptr<GpuTestHooks> hooks_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<GpuScorer>> MakeGpuScorerWithHooks(
    const GpuOptions& options, std::shared_ptr<GpuTestHooks> hooks) {
  if (options.streams_per_device < 1 || options.pool_repeat < 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "GPU options need streams_per_device >= 1 and pool_repeat >= 1 (got %d and %d)",
        options.streams_per_device, options.pool_repeat));
  }
  int count = 0;
  const hipError_t error = hipGetDeviceCount(&count);
  if (error != hipSuccess || count == 0) {
    return absl::UnavailableError(absl::StrFormat(
        "no usable GPU: %s",
        error != hipSuccess
            ? absl::StrFormat("%s (%s)", hipGetErrorName(error), hipGetErrorString(error))
            : std::string("the runtime found no device")));
  }
  std::vector<int> indices = options.device_indices;
  if (indices.empty()) {
    for (int i = 0; i < count; ++i) indices.push_back(i);
  }
  std::vector<std::unique_ptr<PhysicalDevice>> devices;
  std::vector<GpuDeviceInfo> devices_without_code;
  for (int index : indices) {
    if (index < 0 || index >= count) {
      return absl::InvalidArgumentError(
          absl::StrFormat("GPU index %d does not exist: this machine has %d GPU(s), indices 0..%d",
                          index, count, count - 1));
    }
    absl::StatusOr<GpuDeviceInfo> info = QueryDevice(index);
    if (!info.ok()) return absl::UnavailableError(info.status().message());
    if (!info->has_code) {
      devices_without_code.push_back(*std::move(info));
      continue;
    }
    auto device = std::make_unique<PhysicalDevice>();
    device->info = *std::move(info);
    devices.push_back(std::move(device));
  }
  if (devices.empty()) return absl::UnavailableError(NoCodeReason(devices_without_code));
  std::vector<std::unique_ptr<PoolEntry>> entries;
  for (int r = 0; r < options.pool_repeat; ++r) {
    for (const auto& device : devices) {
      auto entry = std::make_unique<PoolEntry>();
      entry->device = device.get();
      for (int s = 0; s < options.streams_per_device; ++s) {
        absl::StatusOr<std::unique_ptr<StreamSlot>> slot =
            StreamSlot::Create(device->info.index, &device->memory_bytes);
        if (!slot.ok()) return absl::UnavailableError(slot.status().message());
        entry->slots.push_back(*std::move(slot));
      }
      entries.push_back(std::move(entry));
    }
  }
  return std::unique_ptr<GpuScorer>(new HipGpuScorer(
      std::move(devices), std::move(entries), std::move(devices_without_code), std::move(hooks),
      options.vmaf_on_device));
}

absl::StatusOr<std::unique_ptr<GpuScorer>> MakeGpuScorer(const GpuOptions& options) {
  return MakeGpuScorerWithHooks(options, nullptr);
}

}  // namespace ssimd
