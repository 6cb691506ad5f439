#include "server/capabilities.h"

#include <map>

#include "engine/picture.h"
#include "server/request_parsing.h"

namespace ssimd {
namespace {

void AddOption(v1::FeatureInfo* feature, const char* name, const char* type,
               const char* default_value, const char* min, const char* max,
               const char* description) {
  v1::OptionInfo* option = feature->add_options();
  option->set_name(name);
  option->set_type(type);
  option->set_default_value(default_value);
  option->set_min(min);
  option->set_max(max);
  option->set_description(description);
}

void AddFeatures(v1::Capabilities* out) {
  v1::FeatureInfo* float_ssim = out->add_features();
  float_ssim->set_name("float_ssim");
  AddOption(float_ssim, "scale", "int", "0", "0", "10",
            "0 = automatic decimation (max(1, round(min(w,h)/256))); 1 = none; 2..10 = forced");
  AddOption(float_ssim, "enable_db", "bool", "false", "", "", "report -10*log10(1 - ssim) dB");
  AddOption(float_ssim, "clip_db", "bool", "false", "", "",
            "with enable_db: cap at ceil(10*log10(peak^2 / (0.5/(w*h))))");
  AddOption(float_ssim, "enable_lcs", "bool", "false", "", "",
            "also report float_ssim_l, float_ssim_c, float_ssim_s");
  for (const char* name : {"float_ssim", "float_ssim_l", "float_ssim_c", "float_ssim_s"}) {
    float_ssim->add_outputs(name);
  }

  v1::FeatureInfo* ssim = out->add_features();
  ssim->set_name("ssim");
  AddOption(ssim, "enable_db", "bool", "false", "", "",
            "report -10*log10(1 - ssim) dB (+inf when ssim >= 1)");
  AddOption(ssim, "exact", "bool", "false", "", "",
            "GPU: sum per-pixel terms in raster order at every size (bit-identical, slower)");
  ssim->add_outputs("ssim");
}

}  // namespace

void FillCapabilities(const ServiceContext& ctx, v1::Capabilities* out) {
  out->set_version(kSsimdVersion);
  out->set_default_backend(ctx.options.backend_policy == BackendPreference::kCpu
                               ? "cpu"
                               : ctx.dispatcher->DefaultBackend());
  out->set_gpu_unavailable_reason(ctx.gpu_unavailable_reason);
  out->set_files_enabled(ctx.files != nullptr);
  if (ctx.gpu != nullptr) {
    std::map<int, GpuDeviceStats> stats;
    for (const GpuDeviceStats& s : ctx.gpu->Stats()) stats[s.index] = s;
    for (const GpuDeviceInfo& info : ctx.gpu->Devices()) {
      v1::Device* device = out->add_devices();
      device->set_index(static_cast<uint32_t>(info.index));
      device->set_name(info.name);
      device->set_arch(info.arch);
      device->set_total_memory_bytes(info.total_memory_bytes);
      auto it = stats.find(info.index);
      device->set_slots_total(it == stats.end() ? 0 : static_cast<uint32_t>(it->second.slots_total));
      device->set_healthy(it == stats.end() || !it->second.lost);
    }
  }
  AddFeatures(out);
  v1::Limits* limits = out->mutable_limits();
  limits->set_max_dimension(static_cast<uint32_t>(kMaxDimension));
  limits->set_max_pixels(static_cast<uint64_t>(kMaxPixels));
  limits->set_max_message_bytes(static_cast<uint64_t>(ctx.options.max_message_bytes));
  limits->set_max_concurrent_streams(static_cast<uint32_t>(ctx.options.max_concurrent_streams));
  limits->set_max_frames_in_flight_per_stream(
      static_cast<uint32_t>(ctx.options.max_frames_in_flight));
  for (uint32_t depth : {8u, 10u, 12u, 16u}) limits->add_bit_depths(depth);
  for (ChromaFormat chroma :
       {ChromaFormat::k420, ChromaFormat::k422, ChromaFormat::k444, ChromaFormat::k400}) {
    limits->add_pixel_formats(PixelFormatToProto(chroma));
  }
}

}  // namespace ssimd
