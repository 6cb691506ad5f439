#include "engine/vmaf/test_model.h"

#include <cstdlib>
#include <iostream>

namespace ssimd {

std::string SixFeatureTestModelJson() {
  // Three support vectors over the six rescaled features; the output rescale maps the SVR's
  // range onto roughly 0..100 for pictures of ordinary quality.
  return R"({
  "param_dict": {"C": 4.0, "nu": 0.9, "gamma": 0.04},
  "model_dict": {
    "model_type": "LIBSVMNUSVR",
    "norm_type": "linear_rescale",
    "feature_names": ["VMAF_integer_feature_adm2_score", "VMAF_integer_feature_motion2_score",
                      "VMAF_integer_feature_vif_scale0_score",
                      "VMAF_integer_feature_vif_scale1_score",
                      "VMAF_integer_feature_vif_scale2_score",
                      "VMAF_integer_feature_vif_scale3_score"],
    "slopes": [0.01, 2.5, 0.05, 1.5, 1.25, 1.125, 1.0625],
    "intercepts": [-0.1, -1.5, 0.0, -0.5, -0.25, -0.125, -0.0625],
    "score_clip": [0.0, 100.0],
    "model": "svm_type nu_svr\nkernel_type rbf\ngamma 0.04\nnr_class 2\ntotal_sv 3\nrho -0.75\nSV\n1.5 1:0.8 2:0.1 3:0.3 4:0.7 5:0.8 6:0.9 \n-0.5 1:0.2 2:0.6 3:0.1 4:0.2 5:0.3 6:0.4 \n0.75 1:1.0 2:0.0 3:0.5 4:0.9 5:0.95 6:1.0 \n"
  }
})";
}

std::shared_ptr<const VmafModel> SixFeatureTestModel() {
  absl::StatusOr<VmafModel> model = ParseVmafModel(SixFeatureTestModelJson(), "vmaf");
  if (!model.ok()) {
    std::cerr << "the six-feature test model does not parse: " << model.status() << "\n";
    std::abort();
  }
  return std::make_shared<const VmafModel>(*std::move(model));
}

}  // namespace ssimd
