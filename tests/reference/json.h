// A small JSON reader for the reference score files: enough of RFC 8259 for them, numbers parsed
// with strtod (correctly rounded, so "%.17g" text gives back the exact binary64).
#ifndef SSIMD_TESTS_REFERENCE_JSON_H_
#define SSIMD_TESTS_REFERENCE_JSON_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace ssimd::testing {

struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  bool Has(const std::string& key) const { return object.count(key) != 0; }
  // The member `key`; a null value when absent.
  const Json& operator[](const std::string& key) const;
};

absl::StatusOr<Json> ParseJson(const std::string& text);
absl::StatusOr<Json> ReadJsonFile(const std::string& path);

}  // namespace ssimd::testing

#endif  // SSIMD_TESTS_REFERENCE_JSON_H_
