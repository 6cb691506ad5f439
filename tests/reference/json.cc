#include "tests/reference/json.h"

#include <fstream>
#include <limits>
#include <sstream>

namespace ssimd::testing {

absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("cannot open " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  nlohmann::json parsed = nlohmann::json::parse(buffer.str(), /*cb=*/nullptr,
                                                /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return absl::InvalidArgumentError(path + " is not valid JSON");
  return parsed;
}

absl::StatusOr<double> ReadScoreValue(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    if (text == "inf") return std::numeric_limits<double>::infinity();
    if (text == "-inf") return -std::numeric_limits<double>::infinity();
    if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  return absl::InvalidArgumentError("a score is neither a number nor \"inf\", \"-inf\", \"nan\"");
}

}  // namespace ssimd::testing
