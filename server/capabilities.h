// The GetCapabilities answer: devices, features with their options, and limits.
#ifndef SSIMD_SERVER_CAPABILITIES_H_
#define SSIMD_SERVER_CAPABILITIES_H_

#include "engine/media/decode_caps.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "server/service_context.h"

namespace ssimd {

// ssimd's version as GetCapabilities and the start-up log report it.
inline constexpr char kSsimdVersion[] = "0.1.0";

void FillCapabilities(const ServiceContext& ctx, v1::Capabilities* out);

// The engines' decode table as GetCapabilities lists it: profiles, engine count, and why the
// table is unknown when it is.
void FillDecodeProfiles(const DecodeCaps& caps, v1::DecodeEngine* out);

}  // namespace ssimd

#endif  // SSIMD_SERVER_CAPABILITIES_H_
