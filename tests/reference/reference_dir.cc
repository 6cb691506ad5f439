#include "tests/reference/reference_dir.h"

#include <cstdlib>
#include <fstream>

namespace ssimd::testing {

std::string RunfilePath(const std::string& workspace_path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return workspace_path;
  return std::string(srcdir) + "/" + workspace + "/" + workspace_path;
}

std::string FullReferenceDirectory() {
  const char* env = std::getenv("SSIMD_REFERENCE_DIR");
  if (env == nullptr || *env == '\0') return "";
  const std::string dir(env);
  return std::ifstream(dir + "/expected_scores.json").good() ? dir : "";
}

}  // namespace ssimd::testing
