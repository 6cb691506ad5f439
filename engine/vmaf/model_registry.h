// The VMAF models a process serves, by name: libvmaf's model files (vmaf_v0.6.1.json, ...) read
// once from a directory at start-up. libvmaf's models are its own data, not part of this
// repository: deployments install them (deploy/ fetches the release's files by checksum) and
// point --vmaf_model_dir at them (docs/adr/0087).
#ifndef SSIMD_ENGINE_VMAF_MODEL_REGISTRY_H_
#define SSIMD_ENGINE_VMAF_MODEL_REGISTRY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/features.h"
#include "engine/vmaf/model.h"

namespace ssimd {

// Models with more files than this in their directory are refused: the directory is read whole at
// start-up, and a wrong --vmaf_model_dir (a media folder, say) should fail fast.
inline constexpr int kMaxVmafModelFiles = 256;

class VmafModelRegistry {
 public:
  // No models: every vmaf request is refused, saying how to give some.
  VmafModelRegistry() = default;

  // Reads every `<name>.json` directly in `directory` as the model `<name>`. A file that is not
  // a model this code can serve (a model collection, features it does not compute) is skipped and
  // named in `skipped` with the reason. NOT_FOUND when the directory cannot be read,
  // INVALID_ARGUMENT when it holds more than kMaxVmafModelFiles files.
  static absl::StatusOr<VmafModelRegistry> LoadDirectory(const std::string& directory,
                                                         std::vector<std::string>* skipped);

  // Adds `model` under `name` (tests, and models parsed elsewhere). INVALID_ARGUMENT when ssimd
  // does not compute one of its features, or the name is taken.
  absl::Status Add(const std::string& name, VmafModel model);

  // Model names, sorted.
  std::vector<std::string> Names() const;
  std::shared_ptr<const VmafModel> Find(absl::string_view name) const;

  // Sets features.vmaf->resolved from its model name. INVALID_ARGUMENT naming the models this
  // process has, or saying that it has none and how to give it some.
  absl::Status Resolve(FeatureSet& features) const;

  // Where the models came from, for messages ("" when none were loaded from a directory).
  const std::string& directory() const { return directory_; }

 private:
  std::string directory_;
  std::map<std::string, std::shared_ptr<const VmafModel>, std::less<>> models_;
};

// The per-frame key ssimd reports a model feature under (libvmaf's JSON key with the extractor's
// default options, e.g. "integer_adm2" for VMAF_integer_feature_adm2_score), or "" for a feature
// ssimd does not compute.
std::string VmafFeatureKey(const VmafModelFeature& feature);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_VMAF_MODEL_REGISTRY_H_
