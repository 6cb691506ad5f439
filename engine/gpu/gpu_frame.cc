#include "engine/gpu/gpu_frame.h"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "engine/gpu/context_gate.h"
#include "engine/gpu/device_alignment.h"
#include "engine/gpu/exact_sum.h"
#include "engine/gpu/gpu_chroma.h"
#include "engine/gpu/hip_status.h"
#include "engine/gpu/pack_on_device.h"
#include "engine/gpu/upscale_on_device.h"
#include "engine/cpu/vmaf/adm.h"
#include "engine/cpu/vmaf/motion.h"
#include "engine/cpu/vmaf/vif.h"
#include "engine/cpu/vmaf/vmaf_frame.h"
#include "engine/ms_ssim_scores.h"
#include "engine/psnr_scores.h"
#include "kernels/db.h"
#include "kernels/decimate.h"
#include "kernels/exact_sum_kernels.h"
#include "kernels/exact_sum_math.h"
#include "kernels/fault_kernel.h"
#include "kernels/float_ssim_kernels.h"
#include "kernels/float_ssim_math.h"
#include "kernels/integer_ssim_kernels.h"
#include "kernels/integer_ssim_math.h"
#include "kernels/ms_ssim_kernels.h"
#include "kernels/ms_ssim_math.h"
#include "kernels/psnr_kernels.h"
#include "kernels/ssim_constants.h"
#include "kernels/vmaf_adm_kernels.h"
#include "kernels/vmaf_motion_kernels.h"
#include "kernels/vmaf_vif_kernels.h"

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

// The five horizontally filtered planes of a plane `height` rows high, in the slot's buffer.
absl::Status ReserveFilteredPlanes(StreamSlot& slot, int valid_width, int height,
                                   const char* what, FloatSsimFilteredPlanes& planes) {
  const size_t plane = static_cast<size_t>(valid_width) * height;
  SSIMD_RETURN_IF_ERROR(slot.filtered.Reserve(5 * plane * sizeof(float), what));
  float* base = slot.filtered.as<float>();
  planes = {base, base + plane, base + 2 * plane, base + 3 * plane, base + 4 * plane};
  return absl::OkStatus();
}

absl::Status EnqueueFloatSsim(StreamSlot& slot, const Geometry& geometry, const uint8_t* ref,
                              const uint8_t* dist, FloatPlan& plan) {
  SSIMD_RETURN_IF_ERROR(ReserveFilteredPlanes(slot, plan.valid_width, plan.plane_height,
                                              "float_ssim", plan.filtered));
  SSIMD_RETURN_IF_ERROR(slot.float_partials.Reserve(FloatPartialDoubles(plan) * sizeof(double),
                                                    "float_ssim block sums"));

  const size_t stride = static_cast<size_t>(geometry.width);  // packed rows, in samples
  if (plan.scale > 1) {
    const size_t plane = static_cast<size_t>(plan.plane_width) * plan.plane_height;
    SSIMD_RETURN_IF_ERROR(slot.decimated.Reserve(2 * plane * sizeof(float), "float_ssim"));
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

// ---- float_ms_ssim (docs/numerics-ms-ssim.md) ---------------------------------------------------
//
// The device builds the five-scale pyramid (kernels/ms_ssim_kernels.h) and runs float_ssim's
// horizontal and vertical kernels on each scale, which is what libvmaf does on the CPU: each scale
// is float_ssim's window over that scale's planes. Every sample and per-pixel term is therefore
// the CPU's, bit for bit; only the per-scale means, raster-order binary64 sums on the CPU, need
// care. They come from the vertical pass's block sums where the summation-order bound shows that
// every order gives the same binary32 mean (float_ssim's method, docs/adr/0021), and otherwise
// from that scale's terms read back and summed on the host in raster order. The pow product and
// the dB conversion run on the host with the CPU's shared functions.

// One scale of the pyramid and where its work lives.
struct MsSsimScalePlan {
  int width = 0;
  int height = 0;
  int valid_width = 0;  // the Gaussian's valid region: (width - 10) x (height - 10)
  int valid_height = 0;
  int blocks = 0;             // of the vertical pass, each one partial-sum record
  size_t plane_offset = 0;    // floats into the pyramid: the reference plane, then the distorted
  size_t partial_offset = 0;  // doubles into the block sums
};

struct MsSsimPlan {
  MsSsimScalePlan scales[kMsSsimScales];
  size_t pyramid_floats = 0;
  size_t partial_doubles = 0;
};

// The vertical pass always runs with enable_lcs's four quantities (ssim, l, c, s); float_ms_ssim
// uses l, c and s, quantities 1..3. A block's record holds (sum, sum of |.|) per quantity.
constexpr int kMsSsimPartialStride = 2 * kFloatSsimQuantities;
constexpr int kMsSsimTerms = 3;  // l, c, s

MsSsimPlan PlanMsSsim(const Geometry& geometry) {
  MsSsimPlan plan;
  int width = geometry.width;
  int height = geometry.height;
  for (MsSsimScalePlan& scale : plan.scales) {
    scale.width = width;
    scale.height = height;
    scale.valid_width = width - 2 * kGaussianRadius;
    scale.valid_height = height - 2 * kGaussianRadius;
    scale.blocks = FloatSsimPartialBlocks(scale.valid_width, scale.valid_height);
    scale.plane_offset = plan.pyramid_floats;
    scale.partial_offset = plan.partial_doubles;
    plan.pyramid_floats += 2 * static_cast<size_t>(width) * height;
    plan.partial_doubles += static_cast<size_t>(scale.blocks) * kMsSsimPartialStride;
    width = MsSsimNextSide(width);
    height = MsSsimNextSide(height);
  }
  return plan;
}

// The reference plane of a scale; the distorted plane follows it.
float* MsSsimPlane(StreamSlot& slot, const MsSsimScalePlan& scale) {
  return slot.ms_ssim_pyramid.as<float>() + scale.plane_offset;
}

size_t PlaneSize(const MsSsimScalePlan& scale) {
  return static_cast<size_t>(scale.width) * scale.height;
}

// One scale's Gaussian passes: its block sums, and with `terms` every per-pixel term too
// (quantity-major, as LaunchFloatSsimVertical writes them).
absl::Status EnqueueMsSsimScale(StreamSlot& slot, const MsSsimScalePlan& scale, double* terms) {
  FloatSsimFilteredPlanes filtered;
  SSIMD_RETURN_IF_ERROR(
      ReserveFilteredPlanes(slot, scale.valid_width, scale.height, "float_ms_ssim", filtered));
  const float* ref = MsSsimPlane(slot, scale);
  SSIMD_HIP_RETURN_IF_ERROR(LaunchFloatSsimHorizontalF32(ref, ref + PlaneSize(scale), scale.width,
                                                         scale.height, filtered, slot.stream),
                            "float_ms_ssim horizontal kernel");
  SSIMD_HIP_RETURN_IF_ERROR(
      LaunchFloatSsimVertical(filtered, scale.valid_width, scale.valid_height,
                              kFloatSsimQuantities,
                              slot.ms_ssim_partials.as<double>() + scale.partial_offset, terms,
                              slot.stream),
      "float_ms_ssim vertical kernel");
  return absl::OkStatus();
}

absl::Status EnqueueMsSsim(StreamSlot& slot, const Geometry& geometry, const uint8_t* ref,
                           const uint8_t* dist, const MsSsimPlan& plan) {
  SSIMD_RETURN_IF_ERROR(
      slot.ms_ssim_pyramid.Reserve(plan.pyramid_floats * sizeof(float), "float_ms_ssim pyramid"));
  SSIMD_RETURN_IF_ERROR(slot.ms_ssim_partials.Reserve(plan.partial_doubles * sizeof(double),
                                                      "float_ms_ssim block sums"));
  const MsSsimScalePlan& full = plan.scales[0];
  float* ref0 = MsSsimPlane(slot, full);
  SSIMD_HIP_RETURN_IF_ERROR(
      LaunchMsSsimLoad(ref, dist, static_cast<size_t>(geometry.width), geometry.width,
                       geometry.height, geometry.bit_depth, ref0, ref0 + PlaneSize(full),
                       slot.stream),
      "float_ms_ssim scale 0 kernel");
  for (int k = 1; k < kMsSsimScales; ++k) {
    const MsSsimScalePlan& from = plan.scales[k - 1];
    const float* in = MsSsimPlane(slot, from);
    float* out = MsSsimPlane(slot, plan.scales[k]);
    SSIMD_HIP_RETURN_IF_ERROR(
        LaunchMsSsimDecimate(in, in + PlaneSize(from), from.width, from.height, out,
                             out + PlaneSize(plan.scales[k]), slot.stream),
        absl::StrFormat("float_ms_ssim decimation kernel to scale %d", k));
  }
  for (const MsSsimScalePlan& scale : plan.scales) {
    SSIMD_RETURN_IF_ERROR(EnqueueMsSsimScale(slot, scale, nullptr));
  }
  return absl::OkStatus();
}

// Where one frame's integer ssim work lives.
struct SsimPlan {
  int64_t pixels = 0;
  int blocks = 0;
  // The frame sum in libvmaf's serial order, on the device (kernels/exact_sum_kernels.h), rather
  // than the block-order sum: on request, and always up to kOrderedSsimMaxPixels.
  bool exact = false;
  // The exact sum on the host instead, from every term read back (test hook exact_sum_on_host).
  bool host_serial = false;
  void* exact_workspace = nullptr;
};

// Doubles of read-back the ssim result needs: the block sums, or the exact sum's outcome.
size_t SsimReadbackDoubles(const SsimPlan& plan) {
  if (plan.host_serial) return static_cast<size_t>(plan.pixels);
  if (plan.exact) return (sizeof(ExactSumOutcome) + sizeof(double) - 1) / sizeof(double);
  return static_cast<size_t>(plan.blocks) * 2;
}

absl::Status EnqueueIntegerSsim(StreamSlot& slot, const Geometry& geometry,
                                const IntegerSsimOptions& options, bool host_serial,
                                const uint8_t* ref, const uint8_t* dist, SsimPlan& plan) {
  const int width = geometry.width;
  const int height = geometry.height;
  plan.pixels = static_cast<int64_t>(width) * height;
  plan.blocks = IntegerSsimPartialBlocks(width, height);
  plan.exact = options.exact || plan.pixels <= kOrderedSsimMaxPixels;
  plan.host_serial = plan.exact && host_serial;
  const size_t pixels = static_cast<size_t>(plan.pixels);
  SSIMD_RETURN_IF_ERROR(slot.moments.Reserve(5 * pixels * sizeof(int64_t), "ssim"));
  // The block sums, then (exact sums only) the exact sum's workspace, in one buffer.
  const size_t partial_bytes =
      DeviceAligned(static_cast<size_t>(plan.blocks) * 2 * sizeof(double));
  const size_t workspace_bytes = plan.exact ? ExactSumWorkspaceBytes(plan.pixels) : 0;
  SSIMD_RETURN_IF_ERROR(slot.ssim_partials.Reserve(partial_bytes + workspace_bytes,
                                                   "ssim block sums"));
  if (plan.exact) {
    SSIMD_RETURN_IF_ERROR(slot.ssim_terms.Reserve(pixels * sizeof(double), "ssim terms"));
    plan.exact_workspace = slot.ssim_partials.as<uint8_t>() + partial_bytes;
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
                                plan.exact ? slot.ssim_terms.as<double>() : nullptr, slot.stream),
      "ssim vertical kernel");
  if (plan.exact && !plan.host_serial) {
    SSIMD_HIP_RETURN_IF_ERROR(LaunchExactSerialSum(slot.ssim_terms.as<double>(), plan.pixels,
                                                   plan.exact_workspace, slot.stream),
                              "ssim exact frame sum kernels");
  }
  return absl::OkStatus();
}

// ---- vmaf: libvmaf's integer adm, vif and motion ------------------------------------------------
//
// Their per-sample work and their sums are integers: the device computes the exact sums
// (kernels/vmaf_*_kernels.h) and the host finishes them with the CPU engine's own functions, so
// the values are the CPU's bits by construction. The three run one after the other on the slot's
// stream and share one workspace. The motion of a frame compares its reference with the frame
// before's (a third plane, FramePlans::previous_ref); a first frame's is 0, as libvmaf's.

// What the device sums into, read back whole.
struct VmafDeviceSums {
  AdmSums adm;
  VifFrameSums vif;
  unsigned long long motion_sad;  // NOLINT(runtime/int): the type atomicAdd takes
};

struct VmafPlan {
  VmafExtractorOptions options;
  bool motion = false;  // a previous reference was given and motion is not forced to 0
};

size_t VmafReadbackDoubles() {
  return (sizeof(VmafDeviceSums) + sizeof(double) - 1) / sizeof(double);
}

absl::Status EnqueueVmaf(StreamSlot& slot, const Geometry& geometry, const VmafOptions& vmaf,
                         const uint8_t* ref, const uint8_t* dist, const uint8_t* previous_ref,
                         VmafPlan& plan) {
  plan.options = vmaf.resolved->extractors;
  plan.motion = previous_ref != nullptr && !plan.options.motion.force_zero;
  const int w = geometry.width;
  const int h = geometry.height;
  const size_t workspace = std::max({VmafAdmWorkspaceBytes(w, h), VmafVifWorkspaceBytes(w, h),
                                     VmafMotionWorkspaceBytes(w, h)});
  SSIMD_RETURN_IF_ERROR(slot.vmaf_workspace.Reserve(workspace, "vmaf workspace"));
  SSIMD_RETURN_IF_ERROR(slot.vmaf_sums.Reserve(sizeof(VmafDeviceSums), "vmaf sums"));
  if (!slot.vmaf_log2_table_ready) {
    const auto& table = IntegerVifLog2Table();
    SSIMD_RETURN_IF_ERROR(slot.vmaf_log2_table.Reserve(sizeof(table), "vif log2 table"));
    SSIMD_HIP_RETURN_IF_ERROR(hipMemcpy(slot.vmaf_log2_table.as<uint16_t>(), table.data(),
                                        sizeof(table), hipMemcpyHostToDevice),
                              "uploading vif's log2 table");
    slot.vmaf_log2_table_ready = true;
  }
  VmafDeviceSums* sums = slot.vmaf_sums.as<VmafDeviceSums>();

  VmafVifLaunch vif;
  vif.reference = ref;
  vif.distorted = dist;
  vif.width = w;
  vif.height = h;
  vif.bit_depth = geometry.bit_depth;
  vif.enhn_gain_limit = plan.options.vif.enhn_gain_limit;
  vif.skip_scale0 = plan.options.vif.skip_scale0;
  vif.log2_table = slot.vmaf_log2_table.as<uint16_t>();
  vif.workspace = slot.vmaf_workspace.as<void>();
  vif.sums = &sums->vif;
  SSIMD_HIP_RETURN_IF_ERROR(LaunchVmafVif(vif, slot.stream), "vmaf's vif kernels");

  VmafAdmLaunch adm;
  adm.reference = ref;
  adm.distorted = dist;
  adm.width = w;
  adm.height = h;
  adm.bit_depth = geometry.bit_depth;
  adm.options = AdmSumOptionsOf(plan.options.adm);
  adm.workspace = slot.vmaf_workspace.as<void>();
  adm.sums = &sums->adm;
  SSIMD_HIP_RETURN_IF_ERROR(LaunchVmafAdm(adm, slot.stream), "vmaf's adm kernels");

  if (plan.motion) {
    VmafMotionLaunch motion;
    motion.previous = previous_ref;
    motion.reference = ref;
    motion.width = w;
    motion.height = h;
    motion.bit_depth = geometry.bit_depth;
    motion.workspace = slot.vmaf_workspace.as<void>();
    motion.sad_sum = &sums->motion_sad;
    SSIMD_HIP_RETURN_IF_ERROR(LaunchVmafMotion(motion, slot.stream), "vmaf's motion kernel");
  }
  return absl::OkStatus();
}

absl::Status FinishVmaf(const Geometry& geometry, const VmafOptions& vmaf, const VmafPlan& plan,
                        const double* host, FrameScores& scores) {
  static_assert(std::is_trivially_copyable_v<VmafDeviceSums>, "read back as bytes");
  VmafDeviceSums sums;
  std::memcpy(static_cast<void*>(&sums), host, sizeof(sums));
  absl::StatusOr<AdmScores> adm =
      FinishIntegerAdm(sums.adm, geometry.width, geometry.height, plan.options.adm);
  if (!adm.ok()) return adm.status();
  const VifScores vif = IntegerVifScoresFromSums(sums.vif, plan.options.vif);
  double motion = 0.0;
  if (plan.motion) {
    absl::StatusOr<double> score = MotionSadScoreFromSum(plan.options.motion, sums.motion_sad,
                                                         geometry.width, geometry.height);
    if (!score.ok()) return score.status();
    motion = *score;
  }
  AddVmafFeatureScores(*vmaf.resolved, *adm, vif, motion, scores);
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
  SSIMD_RETURN_IF_ERROR(slot.float_terms.Reserve(bytes, "float_ssim terms"));
  SSIMD_RETURN_IF_ERROR(slot.readback.Reserve(bytes, "float_ssim terms"));
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

// float_ms_ssim's per-scale means, [scale][l, c, s], and those still owed the ordered host sum.
struct MsSsimMeans {
  float value[kMsSsimScales][kMsSsimTerms] = {};
  bool pending[kMsSsimScales][kMsSsimTerms] = {};
};

// The means the block sums settle. CertainFloatSsimMean's value is f32(sum / N) widened, which is
// MsSsimScaleMean's arithmetic, so narrowing it back is exact.
void MsSsimMeansFromBlockSums(const MsSsimPlan& plan, const double* partials, bool always_ordered,
                              MsSsimMeans& means) {
  for (int k = 0; k < kMsSsimScales; ++k) {
    const MsSsimScalePlan& scale = plan.scales[k];
    const int64_t summed = static_cast<int64_t>(scale.blocks) * kFloatBlockThreads;
    for (int t = 0; t < kMsSsimTerms; ++t) {
      std::optional<double> mean;
      if (!always_ordered) {
        const SumWithMagnitude sum = AddBlockPartials(partials + scale.partial_offset,
                                                      scale.blocks, kMsSsimPartialStride,
                                                      2 * (t + 1));
        mean = CertainFloatSsimMean(sum, summed, scale.valid_width, scale.valid_height);
      }
      means.pending[k][t] = !mean.has_value();
      if (mean.has_value()) means.value[k][t] = static_cast<float>(*mean);
    }
  }
}

// The pending means, each from its scale's terms summed in raster order on the host: the scale's
// Gaussian passes run again (their filtered planes are gone) with every term written, and only
// the pending quantities come back, one at a time (n doubles: 16 MB at scale 0 of 1080p). Runs
// after float_ssim's finish, whose own ordered sum needs float_ssim's filtered planes, which this
// overwrites.
absl::Status MsSsimOrderedMeans(StreamSlot& slot, const MsSsimPlan& plan, MsSsimMeans& means) {
  for (int k = 0; k < kMsSsimScales; ++k) {
    const MsSsimScalePlan& scale = plan.scales[k];
    bool any = false;
    for (bool pending : means.pending[k]) any = any || pending;
    if (!any) continue;
    const size_t n = static_cast<size_t>(scale.valid_width) * scale.valid_height;
    SSIMD_RETURN_IF_ERROR(slot.float_terms.Reserve(kFloatSsimQuantities * n * sizeof(double),
                                                   "float_ms_ssim terms"));
    SSIMD_RETURN_IF_ERROR(slot.readback.Reserve(n * sizeof(double), "float_ms_ssim terms"));
    SSIMD_RETURN_IF_ERROR(EnqueueMsSsimScale(slot, scale, slot.float_terms.as<double>()));
    for (int t = 0; t < kMsSsimTerms; ++t) {
      if (!means.pending[k][t]) continue;
      // Quantity t + 1 of the vertical pass's ssim, l, c, s.
      SSIMD_HIP_RETURN_IF_ERROR(
          hipMemcpyAsync(slot.readback.as<double>(), slot.float_terms.as<double>() + (t + 1) * n,
                         n * sizeof(double), hipMemcpyDeviceToHost, slot.stream),
          "reading back float_ms_ssim terms");
      SSIMD_HIP_RETURN_IF_ERROR(hipStreamSynchronize(slot.stream), "float_ms_ssim terms");
      means.value[k][t] = MsSsimScaleMean(SumInOrder(slot.readback.as<double>(), n),
                                          scale.valid_width, scale.valid_height);
      means.pending[k][t] = false;
    }
  }
  return absl::OkStatus();
}

// float_ms_ssim's keys from the means, with the host finish every backend shares.
absl::Status AddMsSsimScores(const Geometry& geometry, const FloatMsSsimOptions& options,
                             const MsSsimMeans& means, FrameScores& scores) {
  float l[kMsSsimScales], c[kMsSsimScales], s[kMsSsimScales];
  for (int k = 0; k < kMsSsimScales; ++k) {
    l[k] = means.value[k][0];
    c[k] = means.value[k][1];
    s[k] = means.value[k][2];
  }
  absl::StatusOr<FloatMsSsimValues> values = CombineFloatMsSsim(l, c, s);
  if (!values.ok()) return values.status();
  AddFloatMsSsimScores(options, geometry, *values, scores);
  return absl::OkStatus();
}

float ElapsedMs(hipEvent_t from, hipEvent_t to) {
  float ms = 0;
  if (hipEventElapsedTime(&ms, from, to) != hipSuccess) return 0;
  return ms;
}

// Device-side locations of one frame's planes and work.
struct FramePlans {
  uint8_t* ref = nullptr;
  uint8_t* dist = nullptr;
  uint8_t* previous_ref = nullptr;  // the frame before's reference, where vmaf's motion reads it
  bool chroma = false;              // psnr reads the chroma planes (gpu_chroma.h)
  const LumaScalePlan* chroma_upscale = nullptr;  // the distorted chroma's plan, if upscaled
  FloatPlan float_plan;
  SsimPlan ssim_plan;
  MsSsimPlan ms_ssim_plan;
  VmafPlan vmaf_plan;
};

// Where each result lies in the read-back buffer, in doubles.
struct ReadbackLayout {
  size_t float_doubles = 0;    // float_ssim block sums, from 0
  size_t ssim_doubles = 0;     // ssim block sums or exact outcome, from float_doubles
  size_t psnr_doubles = 0;     // psnr: each plane's uint64 squared-error sum, after those
  size_t ms_ssim_doubles = 0;  // float_ms_ssim: every scale's block sums, after psnr's
  size_t vmaf_doubles = 0;     // vmaf: its VmafDeviceSums, after float_ms_ssim's
  size_t psnr_offset() const { return float_doubles + ssim_doubles; }
  size_t ms_ssim_offset() const { return psnr_offset() + psnr_doubles; }
  size_t vmaf_offset() const { return ms_ssim_offset() + ms_ssim_doubles; }
};

// Both planes packed into pinned staging, each copied to the device as soon as it is staged, or,
// for a plane decoded on this device, packed there. A distorted plane with an upscale goes, with
// the plan's filters, into the slot's upscale buffer; the scaling itself is enqueued by
// EnqueueUpscale.
absl::Status UploadPlanes(StreamSlot& slot, const Geometry& geometry, StagePlane stage,
                          const DeviceSources& on_device, const LumaScalePlan* upscale,
                          FramePlans& plans) {
  const size_t plane_bytes = LumaBytes(geometry);
  const UpscaleLayout layout = upscale != nullptr ? LayOutUpscale(*upscale, 1) : UpscaleLayout();
  const size_t distorted_staging = upscale != nullptr ? layout.filters_end : plane_bytes;
  const bool previous = on_device.has_previous_reference;
  const size_t previous_staging = previous ? plane_bytes : 0;
  SSIMD_RETURN_IF_ERROR(slot.upload.Reserve(plane_bytes + distorted_staging + previous_staging,
                                            "luma staging"));
  SSIMD_RETURN_IF_ERROR(slot.luma.Reserve((previous ? 3 : 2) * plane_bytes, "luma"));
  if (upscale != nullptr) {
    SSIMD_RETURN_IF_ERROR(slot.upscale.Reserve(layout.device_bytes, "upscale"));
  }
  uint8_t* staging = slot.upload.as<uint8_t>();
  plans.ref = slot.luma.as<uint8_t>();
  plans.dist = plans.ref + plane_bytes;
  plans.previous_ref = previous ? plans.ref + 2 * plane_bytes : nullptr;
  SSIMD_HIP_RETURN_IF_ERROR(hipEventRecord(slot.events[0], slot.stream), "recording an event");
  if (on_device.reference != nullptr) {
    SSIMD_RETURN_IF_ERROR(
        EnqueueLumaPack(slot.stream, *on_device.reference, geometry, plans.ref, "reference"));
  } else {
    SSIMD_RETURN_IF_ERROR(stage(0, staging));
    SSIMD_HIP_RETURN_IF_ERROR(
        hipMemcpyAsync(plans.ref, staging, plane_bytes, hipMemcpyHostToDevice, slot.stream),
        "uploading the reference luma");
  }
  uint8_t* distorted = staging + plane_bytes;
  uint8_t* distorted_target = upscale != nullptr ? slot.upscale.as<uint8_t>() : plans.dist;
  // Only the filters travel when the plane is already on the device.
  size_t upload_from = 0;
  if (on_device.distorted != nullptr) {
    Geometry before_upscale = geometry;
    if (upscale != nullptr) {
      before_upscale.width = upscale->src_width;
      before_upscale.height = upscale->src_height;
    }
    SSIMD_RETURN_IF_ERROR(EnqueueLumaPack(slot.stream, *on_device.distorted, before_upscale,
                                          distorted_target, "distorted"));
    upload_from = upscale != nullptr ? layout.h_first : distorted_staging;
  } else {
    SSIMD_RETURN_IF_ERROR(stage(1, distorted));
  }
  if (upscale != nullptr) StageUpscaleFilters(*upscale, layout, distorted);
  if (upload_from < distorted_staging) {
    SSIMD_HIP_RETURN_IF_ERROR(
        hipMemcpyAsync(distorted_target + upload_from, distorted + upload_from,
                       distorted_staging - upload_from, hipMemcpyHostToDevice, slot.stream),
        "uploading the distorted luma");
  }
  if (on_device.previous_reference != nullptr) {
    SSIMD_RETURN_IF_ERROR(EnqueueLumaPack(slot.stream, *on_device.previous_reference, geometry,
                                          plans.previous_ref, "previous reference"));
  } else if (previous) {
    uint8_t* previous_staged = staging + plane_bytes + distorted_staging;
    SSIMD_RETURN_IF_ERROR(stage(2, previous_staged));
    SSIMD_HIP_RETURN_IF_ERROR(hipMemcpyAsync(plans.previous_ref, previous_staged, plane_bytes,
                                             hipMemcpyHostToDevice, slot.stream),
                              "uploading the previous reference luma");
  }
  return absl::OkStatus();
}

absl::Status EnqueueKernels(StreamSlot& slot, const Geometry& geometry,
                            const FeatureSet& features, GpuTestHooks* hooks, FramePlans& plans) {
  // float_ms_ssim before float_ssim: both filter through slot.filtered, and float_ssim's ordered
  // host sum reads its own planes there after the frame, so float_ssim must write them last.
  if (features.float_ms_ssim.has_value()) {
    plans.ms_ssim_plan = PlanMsSsim(geometry);
    SSIMD_RETURN_IF_ERROR(
        EnqueueMsSsim(slot, geometry, plans.ref, plans.dist, plans.ms_ssim_plan));
  }
  if (features.float_ssim.has_value()) {
    plans.float_plan = PlanFloatSsim(geometry, *features.float_ssim);
    if (absl::Status s =
            EnqueueFloatSsim(slot, geometry, plans.ref, plans.dist, plans.float_plan);
        !s.ok()) {
      return s;
    }
  }
  if (features.ssim.has_value()) {
    const bool host_serial = hooks != nullptr && hooks->exact_sum_on_host.load();
    SSIMD_RETURN_IF_ERROR(EnqueueIntegerSsim(slot, geometry, *features.ssim, host_serial, plans.ref,
                                             plans.dist, plans.ssim_plan));
  }
  if (features.psnr.has_value()) {
    SSIMD_RETURN_IF_ERROR(slot.psnr_sse.Reserve(3 * sizeof(uint64_t), "psnr sums"));
    PsnrSseLaunch launch;
    launch.reference = plans.ref;
    launch.distorted = plans.dist;
    launch.width = geometry.width;
    launch.height = geometry.height;
    launch.bit_depth = geometry.bit_depth;
    launch.sse = slot.psnr_sse.as<unsigned long long>();  // NOLINT(runtime/int)
    SSIMD_HIP_RETURN_IF_ERROR(LaunchPsnrSse(launch, slot.stream), "summing psnr's squared errors");
    if (plans.chroma) {
      SSIMD_RETURN_IF_ERROR(EnqueueChromaSums(slot, geometry, plans.chroma_upscale,
                                              launch.sse + 1));
    }
  }
  if (features.vmaf.has_value()) {
    SSIMD_RETURN_IF_ERROR(EnqueueVmaf(slot, geometry, *features.vmaf, plans.ref, plans.dist,
                                      plans.previous_ref, plans.vmaf_plan));
  }
  SSIMD_RETURN_IF_ERROR(InjectTestFaults(hooks, slot.stream));
  SSIMD_HIP_RETURN_IF_ERROR(hipEventRecord(slot.events[2], slot.stream), "recording an event");
  return absl::OkStatus();
}

// Read-back of a few dozen bytes to a few hundred KiB: block sums, and the exact ssim sum's
// outcome; per-pixel terms only where a test hook asks for the host's serial sum.
absl::Status EnqueueReadback(StreamSlot& slot, const FeatureSet& features,
                             const FramePlans& plans, ReadbackLayout& layout) {
  layout.float_doubles =
      features.float_ssim.has_value() ? FloatPartialDoubles(plans.float_plan) : 0;
  layout.ssim_doubles = features.ssim.has_value() ? SsimReadbackDoubles(plans.ssim_plan) : 0;
  static_assert(sizeof(uint64_t) == sizeof(double), "a psnr sum takes one read-back slot");
  layout.psnr_doubles = features.psnr.has_value() ? (plans.chroma ? 3 : 1) : 0;
  layout.ms_ssim_doubles =
      features.float_ms_ssim.has_value() ? plans.ms_ssim_plan.partial_doubles : 0;
  layout.vmaf_doubles = features.vmaf.has_value() ? VmafReadbackDoubles() : 0;
  const size_t doubles = layout.vmaf_offset() + layout.vmaf_doubles;
  SSIMD_RETURN_IF_ERROR(slot.readback.Reserve(doubles * sizeof(double), "read-back"));
  double* host = slot.readback.as<double>();
  if (layout.float_doubles > 0) {
    SSIMD_HIP_RETURN_IF_ERROR(hipMemcpyAsync(host, slot.float_partials.as<double>(),
                                             layout.float_doubles * sizeof(double),
                                             hipMemcpyDeviceToHost, slot.stream),
                              "reading back float_ssim block sums");
  }
  if (layout.ssim_doubles > 0) {
    const SsimPlan& plan = plans.ssim_plan;
    const void* source =
        plan.host_serial ? static_cast<const void*>(slot.ssim_terms.as<double>())
        : plan.exact     ? static_cast<const void*>(ExactSumOutcomeIn(plan.exact_workspace))
                         : static_cast<const void*>(slot.ssim_partials.as<double>());
    SSIMD_HIP_RETURN_IF_ERROR(
        hipMemcpyAsync(host + layout.float_doubles, source, layout.ssim_doubles * sizeof(double),
                       hipMemcpyDeviceToHost, slot.stream),
        "reading back the ssim frame sum");
  }
  if (layout.psnr_doubles > 0) {
    SSIMD_HIP_RETURN_IF_ERROR(
        hipMemcpyAsync(host + layout.psnr_offset(), slot.psnr_sse.as<uint64_t>(),
                       layout.psnr_doubles * sizeof(uint64_t), hipMemcpyDeviceToHost,
                       slot.stream),
        "reading back the psnr sums");
  }
  if (layout.ms_ssim_doubles > 0) {
    SSIMD_HIP_RETURN_IF_ERROR(
        hipMemcpyAsync(host + layout.ms_ssim_offset(), slot.ms_ssim_partials.as<double>(),
                       layout.ms_ssim_doubles * sizeof(double), hipMemcpyDeviceToHost,
                       slot.stream),
        "reading back float_ms_ssim block sums");
  }
  if (layout.vmaf_doubles > 0) {
    SSIMD_HIP_RETURN_IF_ERROR(
        hipMemcpyAsync(host + layout.vmaf_offset(), slot.vmaf_sums.as<VmafDeviceSums>(),
                       sizeof(VmafDeviceSums), hipMemcpyDeviceToHost, slot.stream),
        "reading back vmaf's sums");
  }
  SSIMD_HIP_RETURN_IF_ERROR(hipEventRecord(slot.events[3], slot.stream), "recording an event");
  return absl::OkStatus();
}

// The ssim frame sum: the device's exact serial-order sum, or, where its own checks sent the
// frame back (report.ssim_exact_fallback says why), every term read back and added in order on
// the host; or the block-order sum when the exact sum was not asked for (docs/adr/0022).
absl::Status FinishIntegerSsim(StreamSlot& slot, const Geometry& geometry,
                               const IntegerSsimOptions& options, const SsimPlan& plan,
                               const double* host, ScoreResult& result, GpuFrameReport& report) {
  double sum = 0.0;
  if (plan.host_serial) {
    sum = SumInOrder(host, static_cast<size_t>(plan.pixels));
    report.ssim_ordered_sum = true;
  } else if (plan.exact) {
    ExactSumOutcome outcome;
    std::memcpy(&outcome, host, sizeof(outcome));
    report.ssim_exact_fallback = outcome.fallback;
    if (outcome.fallback == kExactSumOnDevice) {
      sum = outcome.sum;
    } else {
      std::vector<double> terms(static_cast<size_t>(plan.pixels));
      StreamDrain drain(slot.stream);
      SSIMD_HIP_RETURN_IF_ERROR(
          hipMemcpyAsync(terms.data(), slot.ssim_terms.as<double>(), terms.size() * sizeof(double),
                         hipMemcpyDeviceToHost, slot.stream),
          "reading back ssim terms for the serial host sum");
      SSIMD_HIP_RETURN_IF_ERROR(hipStreamSynchronize(slot.stream), "ssim terms");
      drain.Disarm();
      sum = SumInOrder(terms.data(), terms.size());
      report.ssim_ordered_sum = true;
    }
  } else {
    sum = AddBlockPartials(host, plan.blocks, 2, 0).sum;
  }
  const double weight = static_cast<double>(IntegerSsimWeightSum(geometry.width, geometry.height));
  const double score = sum / weight;
  result.scores["ssim"] = options.enable_db ? IntegerSsimToDb(score) : score;
  return absl::OkStatus();
}

absl::Status FinishFloatSsimScores(StreamSlot& slot, const Geometry& geometry,
                                   const FloatSsimOptions& options, const FloatPlan& plan,
                                   const double* host, GpuTestHooks* hooks, ScoreResult& result,
                                   GpuFrameReport& report) {
  double means[kFloatSsimQuantities] = {0, 0, 0, 0};
  StreamDrain fallback_drain(slot.stream);
  const bool always_ordered = hooks != nullptr && hooks->always_ordered_sum.load();
  if (absl::Status s =
          FinishFloatSsim(slot, plan, host, always_ordered, means, report.float_ordered_sum);
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
  return absl::OkStatus();
}

}  // namespace

absl::Status ScoreFrameOnSlot(StreamSlot& slot, const Geometry& geometry,
                              const FeatureSet& features, StagePlane stage,
                              const DeviceSources& on_device,
                              const LumaScalePlan* distorted_upscale, const FrameChroma* chroma,
                              GpuTestHooks* hooks, ScoreResult& result, GpuFrameReport& report) {
  const LumaScalePlan* chroma_upscale =
      distorted_upscale != nullptr ? distorted_upscale->chroma.get() : nullptr;
  if (chroma != nullptr && distorted_upscale != nullptr && chroma_upscale == nullptr) {
    return absl::InternalError(
        "a rendition's chroma came before its upscale without a plan for it");
  }
  SSIMD_HIP_RETURN_IF_ERROR(hipSetDevice(slot.device), "selecting the device");
  StreamDrain drain(slot.stream);
  // A plane on another device comes through the host (`stage` copies it).
  DeviceSources here;
  here.has_previous_reference = on_device.has_previous_reference;
  for (auto [from, to] : {std::pair{on_device.reference, &here.reference},
                          std::pair{on_device.distorted, &here.distorted},
                          std::pair{on_device.previous_reference, &here.previous_reference}}) {
    if (from == nullptr) continue;
    if (from->layout().device == slot.device) {
      *to = from;
      ++report.planes_read_on_device;
    } else {
      ++report.device_planes_through_host;
    }
  }
  FramePlans plans;
  SSIMD_RETURN_IF_ERROR(UploadPlanes(slot, geometry, stage, here, distorted_upscale, plans));
  if (chroma != nullptr) {
    plans.chroma = true;
    plans.chroma_upscale = chroma_upscale;
    absl::StatusOr<ChromaPlanesRead> read = UploadChroma(slot, geometry, *chroma, chroma_upscale);
    if (!read.ok()) return read.status();
    report.planes_read_on_device += read->on_device;
    report.device_planes_through_host += read->through_host;
  }
  SSIMD_HIP_RETURN_IF_ERROR(hipEventRecord(slot.events[1], slot.stream), "recording an event");
  if (distorted_upscale != nullptr) {
    // libswscale's scaling of the uploaded distorted plane into the frame's distorted plane.
    SSIMD_RETURN_IF_ERROR(EnqueuePlaneUpscale(slot.stream, *distorted_upscale,
                                              LayOutUpscale(*distorted_upscale, 1),
                                              slot.upscale.as<uint8_t>(), 0, plans.dist, "luma"));
  }
  SSIMD_RETURN_IF_ERROR(EnqueueKernels(slot, geometry, features, hooks, plans));
  ReadbackLayout layout;
  SSIMD_RETURN_IF_ERROR(EnqueueReadback(slot, features, plans, layout));
  SSIMD_HIP_RETURN_IF_ERROR(hipStreamSynchronize(slot.stream), "running the frame");
  drain.Disarm();

  result.timings.upload = ElapsedMs(slot.events[0], slot.events[1]) * 1e-3;
  result.timings.compute = ElapsedMs(slot.events[1], slot.events[2]) * 1e-3;
  result.timings.readback = ElapsedMs(slot.events[2], slot.events[3]) * 1e-3;

  // Host finish. Everything that reads the read-back buffer first: the ordered sums of float_ssim
  // and then float_ms_ssim reuse it (and float_ms_ssim's overwrites float_ssim's filtered planes).
  const auto finish_start = Clock::now();
  const double* host = slot.readback.as<double>();
  if (features.ssim.has_value()) {
    SSIMD_RETURN_IF_ERROR(FinishIntegerSsim(slot, geometry, *features.ssim, plans.ssim_plan,
                                            host + layout.float_doubles, result, report));
  }
  if (features.psnr.has_value()) {
    uint64_t sse = 0;
    std::memcpy(&sse, host + layout.psnr_offset(), sizeof(sse));
    AddPsnrPlaneScores(geometry, *features.psnr, 0, sse, result.scores, result.sums);
    // After the luma's, which sets every plane's sums to 0 until a plane is scored.
    for (int plane = 1; plane < static_cast<int>(layout.psnr_doubles); ++plane) {
      std::memcpy(&sse, host + layout.psnr_offset() + plane, sizeof(sse));
      AddPsnrPlaneScores(geometry, *features.psnr, plane, sse, result.scores, result.sums);
    }
  }
  if (features.vmaf.has_value()) {
    SSIMD_RETURN_IF_ERROR(FinishVmaf(geometry, *features.vmaf, plans.vmaf_plan,
                                     host + layout.vmaf_offset(), result.scores));
  }
  MsSsimMeans ms_ssim_means;
  if (features.float_ms_ssim.has_value()) {
    MsSsimMeansFromBlockSums(plans.ms_ssim_plan, host + layout.ms_ssim_offset(),
                             hooks != nullptr && hooks->always_ordered_sum.load(), ms_ssim_means);
  }
  if (features.float_ssim.has_value()) {
    SSIMD_RETURN_IF_ERROR(FinishFloatSsimScores(slot, geometry, *features.float_ssim,
                                                plans.float_plan, host, hooks, result, report));
  }
  if (features.float_ms_ssim.has_value()) {
    StreamDrain ordered_drain(slot.stream);
    for (const auto& scale : ms_ssim_means.pending) {
      for (bool pending : scale) report.ms_ssim_ordered_sum = report.ms_ssim_ordered_sum || pending;
    }
    SSIMD_RETURN_IF_ERROR(MsSsimOrderedMeans(slot, plans.ms_ssim_plan, ms_ssim_means));
    ordered_drain.Disarm();
    SSIMD_RETURN_IF_ERROR(
        AddMsSsimScores(geometry, *features.float_ms_ssim, ms_ssim_means, result.scores));
  }
  result.timings.host_finish = Seconds(Clock::now() - finish_start);
  return absl::OkStatus();
}

}  // namespace ssimd
