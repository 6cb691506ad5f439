#include "tests/reference/json.h"

#include <fstream>
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

}  // namespace ssimd::testing
