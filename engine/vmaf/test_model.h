// A small VMAF model over the features of libvmaf's vmaf_v0.6.1 (adm2, motion2, vif_scale0..3),
// for tests that exercise vmaf's path where libvmaf's own model files are absent (they are not
// part of this repository). Its numbers are made up: it predicts something that moves with every
// feature, not a quality score.
#ifndef SSIMD_ENGINE_VMAF_TEST_MODEL_H_
#define SSIMD_ENGINE_VMAF_TEST_MODEL_H_

#include <memory>
#include <string>

#include "engine/vmaf/model.h"

namespace ssimd {

// The model's JSON, in libvmaf's format.
std::string SixFeatureTestModelJson();

// The model parsed, named "vmaf" as libvmaf names a model by default.
std::shared_ptr<const VmafModel> SixFeatureTestModel();

}  // namespace ssimd

#endif  // SSIMD_ENGINE_VMAF_TEST_MODEL_H_
