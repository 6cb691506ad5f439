// Reads the reference score files with nlohmann/json, whose parser rounds numbers correctly (through
// strtod), so "%.17g" text gives back the exact binary64 that libvmaf printed.
#ifndef SSIMD_TESTS_REFERENCE_JSON_H_
#define SSIMD_TESTS_REFERENCE_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace ssimd::testing {

// The JSON document in the file at `path`; an error names the file when it cannot be read or is
// not JSON.
absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path);

// A score as the reference files write it: a number, or "inf", "-inf" or "nan" for the values
// JSON has no number for.
absl::StatusOr<double> ReadScoreValue(const nlohmann::json& value);

}  // namespace ssimd::testing

#endif  // SSIMD_TESTS_REFERENCE_JSON_H_
