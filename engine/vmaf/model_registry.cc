#include "engine/vmaf/model_registry.h"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace ssimd {
namespace {

// The model features ssimd computes (engine/cpu/vmaf), by libvmaf's name, and the key libvmaf's
// JSON gives each with its extractor's default options.
struct ComputedFeature {
  const char* name;
  const char* key;
};
constexpr ComputedFeature kComputedFeatures[] = {
    {"VMAF_integer_feature_adm2_score", "integer_adm2"},
    {"VMAF_integer_feature_adm_scale0_score", "integer_adm_scale0"},
    {"VMAF_integer_feature_adm_scale1_score", "integer_adm_scale1"},
    {"VMAF_integer_feature_adm_scale2_score", "integer_adm_scale2"},
    {"VMAF_integer_feature_adm_scale3_score", "integer_adm_scale3"},
    {"VMAF_integer_feature_adm3_score", "integer_adm3"},
    {"VMAF_integer_feature_aim_score", "integer_aim"},
    {"VMAF_integer_feature_vif_scale0_score", "integer_vif_scale0"},
    {"VMAF_integer_feature_vif_scale1_score", "integer_vif_scale1"},
    {"VMAF_integer_feature_vif_scale2_score", "integer_vif_scale2"},
    {"VMAF_integer_feature_vif_scale3_score", "integer_vif_scale3"},
    {"VMAF_integer_feature_motion2_score", "integer_motion2"},
    {"VMAF_integer_feature_motion3_score", "integer_motion3"},
};

}  // namespace

std::string VmafFeatureKey(const VmafModelFeature& feature) {
  for (const ComputedFeature& computed : kComputedFeatures) {
    if (feature.name == computed.name) return computed.key;
  }
  return "";
}

absl::StatusOr<VmafModelRegistry> VmafModelRegistry::LoadDirectory(
    const std::string& directory, std::vector<std::string>* skipped) {
  DIR* dir = opendir(directory.c_str());
  if (dir == nullptr) {
    return absl::NotFoundError(absl::StrFormat("cannot read the VMAF model directory %s: %s",
                                               directory, std::strerror(errno)));
  }
  std::vector<std::string> files;
  int entries = 0;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (++entries > kMaxVmafModelFiles) break;
    if (absl::EndsWith(name, ".json")) files.push_back(name);
  }
  closedir(dir);
  if (entries > kMaxVmafModelFiles) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "the VMAF model directory %s holds more than %d entries; point --vmaf_model_dir at a "
        "directory of model files (e.g. libvmaf's model/ folder)",
        directory, kMaxVmafModelFiles));
  }
  std::sort(files.begin(), files.end());
  VmafModelRegistry registry;
  registry.directory_ = directory;
  for (const std::string& file : files) {
    const std::string name = file.substr(0, file.size() - 5);
    absl::StatusOr<VmafModel> model = LoadVmafModelFile(absl::StrCat(directory, "/", file));
    absl::Status added = model.ok() ? registry.Add(name, *std::move(model)) : model.status();
    if (!added.ok() && skipped != nullptr) {
      skipped->push_back(absl::StrCat(file, ": ", added.message()));
    }
  }
  return registry;
}

absl::Status VmafModelRegistry::Add(const std::string& name, VmafModel model) {
  for (const VmafModelFeature& feature : model.features) {
    if (VmafFeatureKey(feature).empty()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "model %s reads feature %s, which ssimd does not compute (it computes libvmaf's "
          "integer adm, vif and motion)",
          name, feature.name));
    }
  }
  if (models_.count(name) != 0) {
    return absl::InvalidArgumentError(absl::StrFormat("a model named %s is loaded already", name));
  }
  models_.emplace(name, std::make_shared<const VmafModel>(std::move(model)));
  return absl::OkStatus();
}

std::vector<std::string> VmafModelRegistry::Names() const {
  std::vector<std::string> out;
  for (const auto& [name, model] : models_) out.push_back(name);
  return out;
}

std::shared_ptr<const VmafModel> VmafModelRegistry::Find(absl::string_view name) const {
  auto it = models_.find(name);
  return it == models_.end() ? nullptr : it->second;
}

absl::Status VmafModelRegistry::Resolve(FeatureSet& features) const {
  if (!features.vmaf.has_value()) return absl::OkStatus();
  VmafOptions& vmaf = *features.vmaf;
  vmaf.resolved = Find(vmaf.model);
  if (vmaf.resolved != nullptr) return absl::OkStatus();
  if (models_.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "vmaf: this server has no VMAF models, so it cannot serve model %s; its operator "
        "installs libvmaf's model files and starts it with --vmaf_model_dir",
        vmaf.model));
  }
  return absl::InvalidArgumentError(absl::StrFormat(
      "vmaf option model: this server has no model %s (it has %s)", vmaf.model,
      absl::StrJoin(Names(), ", ")));
}

}  // namespace ssimd
