// A status with context put in front of its message ("renditions[2].path: ..."), keeping its code
// and its payloads: absl::Status(code, message) would drop the payloads, such as the kind of a
// decoder error that the server counts.
#ifndef SSIMD_BASE_PREFIXED_STATUS_H_
#define SSIMD_BASE_PREFIXED_STATUS_H_

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace ssimd {

inline absl::Status PrefixedStatus(const absl::Status& status, absl::string_view prefix) {
  if (status.ok()) return status;
  absl::Status out(status.code(), absl::StrCat(prefix, status.message()));
  status.ForEachPayload(
      [&out](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
  return out;
}

}  // namespace ssimd

#endif  // SSIMD_BASE_PREFIXED_STATUS_H_
