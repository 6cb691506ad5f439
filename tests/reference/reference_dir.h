// Finds the reference set for tests: $SSIMD_REFERENCE_DIR if set, else `relative` resolved against
// the source tree (found through a runfile's real path, since tests run from the runfiles tree).
#ifndef SSIMD_TESTS_REFERENCE_REFERENCE_DIR_H_
#define SSIMD_TESTS_REFERENCE_REFERENCE_DIR_H_

#include <string>

namespace ssimd::testing {

// `marker` is a runfile path inside the workspace (e.g. "tests/reference/reference_dir.h") listed
// in the test's data; `relative` is a directory relative to the workspace root (e.g.
// "../shared/reference"). Returns "" when no directory holding expected_scores.json is found.
std::string FindReferenceDirectory(const std::string& marker, const std::string& relative);

// The runfiles path of a workspace file.
std::string RunfilePath(const std::string& workspace_path);

}  // namespace ssimd::testing

#endif  // SSIMD_TESTS_REFERENCE_REFERENCE_DIR_H_
