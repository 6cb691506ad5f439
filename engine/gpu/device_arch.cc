#include "engine/gpu/device_arch.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "bazel/gpu_code_targets.h"

namespace ssimd {
namespace {

// The two-digit compute capability of "sm_90" / "compute_90" after `prefix`, or -1.
int ComputeCapability(std::string_view name_in, std::string_view prefix) {
  // Debian's Abseil has its own string_view type, not std::string_view.
  absl::string_view name(name_in.data(), name_in.size());
  int value = -1;
  if (!absl::ConsumePrefix(&name, absl::string_view(prefix.data(), prefix.size())) ||
      name.size() < 2 || !absl::SimpleAtoi(name, &value)) {
    return -1;
  }
  return value;
}

}  // namespace

std::string_view CompiledGpuCodeTargets() { return SSIMD_GPU_CODE_TARGETS; }

std::string_view ProcessorOf(std::string_view arch) {
  return arch.substr(0, arch.find(':'));
}

bool HasCodeFor(std::string_view arch, std::string_view targets) {
  const std::string_view processor = ProcessorOf(arch);
  if (processor.empty()) return false;
  const int device_sm = ComputeCapability(processor, "sm_");
  for (absl::string_view piece :
       absl::StrSplit(absl::string_view(targets.data(), targets.size()), ',', absl::SkipEmpty())) {
    const std::string_view target(piece.data(), piece.size());
    if (ProcessorOf(target) == processor) return true;
    if (device_sm < 0) continue;
    if (const int cubin = ComputeCapability(target, "sm_");
        cubin >= 0 && cubin / 10 == device_sm / 10 && cubin <= device_sm) {
      return true;
    }
    if (const int ptx = ComputeCapability(target, "compute_"); ptx >= 0 && ptx <= device_sm) {
      return true;
    }
  }
  return false;
}

}  // namespace ssimd
