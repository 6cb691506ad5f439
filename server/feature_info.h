// The features part of GetCapabilities, written from the one option table (engine/feature_table.h).
#ifndef SSIMD_SERVER_FEATURE_INFO_H_
#define SSIMD_SERVER_FEATURE_INFO_H_

#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd {

// Appends one FeatureInfo per feature, with every option (older names included, their
// description saying so) and the metric names it can produce.
void AddFeatureInfo(v1::Capabilities* out);

}  // namespace ssimd

#endif  // SSIMD_SERVER_FEATURE_INFO_H_
