#include "server/capabilities.h"

#include <map>

#include "engine/picture.h"
#include "proto/pixel_format.h"
#include "server/feature_info.h"
#include "server/request_parsing.h"

namespace ssimd {

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
      device->set_healthy(info.has_code && (it == stats.end() || !it->second.lost));
      device->set_has_code(info.has_code);
    }
  }
  if (!ctx.options.hw_decode_api.empty()) {
    v1::DecodeEngine* engine = out->mutable_decode_engine();
    engine->set_api(ctx.options.hw_decode_api);
    engine->set_unavailable_reason(ctx.hw_decode_unavailable_reason);
    if (ctx.hw_decode != nullptr) {
      for (const std::string& codec : ctx.hw_decode->Codecs()) engine->add_codecs(codec);
      engine->set_max_sessions(static_cast<uint32_t>(ctx.hw_decode->max_sessions()));
      engine->set_sessions_in_use(static_cast<uint32_t>(ctx.hw_decode->sessions_in_use()));
      engine->set_frames_decoded(static_cast<uint64_t>(ctx.hw_decode->frames_decoded()));
      engine->set_device(ctx.options.hw_decode_device);
      if (absl::StatusOr<double> busy = ctx.hw_decode->EngineUtilization(); busy.ok()) {
        engine->set_engine_utilization(*busy);
      } else {
        engine->set_engine_utilization_unavailable_reason(std::string(busy.status().message()));
      }
      FillDecodeProfiles(ctx.hw_decode->caps(), engine);
    }
  }
  AddFeatureInfo(out);
  for (const std::string& model : ctx.options.vmaf_models->Names()) out->add_vmaf_models(model);
  v1::Limits* limits = out->mutable_limits();
  limits->set_max_dimension(static_cast<uint32_t>(kMaxDimension));
  // The largest picture a file input may have (--max_picture_pixels); ScoreClip's frames, which
  // come whole in messages, are bounded by max_message_bytes as well.
  limits->set_max_pixels(static_cast<uint64_t>(ctx.options.max_picture_pixels));
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

void FillDecodeProfiles(const DecodeCaps& caps, v1::DecodeEngine* out) {
  out->set_profiles_unknown_reason(caps.unknown_reason);
  out->set_engines(static_cast<uint32_t>(caps.engines()));
  for (const DecodeProfileCaps& p : caps.profiles) {
    v1::DecodeProfile* profile = out->add_profiles();
    profile->set_codec(p.codec);
    profile->set_chroma(ChromaText(p.chroma));
    profile->set_bit_depth(static_cast<uint32_t>(p.bit_depth));
    profile->set_max_width(static_cast<uint32_t>(p.max_width));
    profile->set_max_height(static_cast<uint32_t>(p.max_height));
    profile->set_min_width(static_cast<uint32_t>(p.min_width));
    profile->set_min_height(static_cast<uint32_t>(p.min_height));
    profile->set_max_macroblocks(static_cast<uint64_t>(p.max_macroblocks));
    profile->set_engines(static_cast<uint32_t>(p.engines));
  }
}

}  // namespace ssimd
