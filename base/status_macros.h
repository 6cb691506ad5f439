// Status propagation shared by every package: one spelling of "stop here if this failed".
#ifndef SSIMD_BASE_STATUS_MACROS_H_
#define SSIMD_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"

// Evaluates `expr` (an absl::Status) once; when it is not OK, returns it from the enclosing
// function, which may return absl::Status or any absl::StatusOr<T>.
#define SSIMD_RETURN_IF_ERROR(expr)                                              \
  do {                                                                           \
    if (::absl::Status ssimd_status_macro_ = (expr); !ssimd_status_macro_.ok()) { \
      return ssimd_status_macro_;                                                \
    }                                                                            \
  } while (false)

#endif  // SSIMD_BASE_STATUS_MACROS_H_
