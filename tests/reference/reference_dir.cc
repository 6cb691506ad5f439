#include "tests/reference/reference_dir.h"

#include <climits>
#include <cstdlib>
#include <fstream>

namespace ssimd::testing {
namespace {

bool HasScores(const std::string& dir) {
  return !dir.empty() && std::ifstream(dir + "/expected_scores.json").good();
}

}  // namespace

std::string RunfilePath(const std::string& workspace_path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return workspace_path;
  return std::string(srcdir) + "/" + workspace + "/" + workspace_path;
}

std::string FindReferenceDirectory(const std::string& marker, const std::string& relative) {
  if (const char* env = std::getenv("SSIMD_REFERENCE_DIR"); env != nullptr && *env != '\0') {
    return HasScores(env) ? std::string(env) : std::string();
  }
  // Runfiles are symlinks into the source tree: the marker's real path reveals the workspace root.
  char resolved[PATH_MAX];
  if (realpath(RunfilePath(marker).c_str(), resolved) == nullptr) return "";
  std::string root(resolved);
  if (root.size() <= marker.size() ||
      root.compare(root.size() - marker.size(), marker.size(), marker) != 0) {
    return "";
  }
  root.resize(root.size() - marker.size());
  const std::string dir = root + relative;
  return HasScores(dir) ? dir : "";
}

}  // namespace ssimd::testing
