// Locates the reference sets for tests: the checked-in subset (a runfile) and the optional full
// set, which is external data named by $SSIMD_REFERENCE_DIR (tools/test.sh sets it when the data
// is present on the machine; tests/data/reference/README.md describes it).
#ifndef SSIMD_TESTS_REFERENCE_REFERENCE_DIR_H_
#define SSIMD_TESTS_REFERENCE_REFERENCE_DIR_H_

#include <string>

namespace ssimd::testing {

// The directory $SSIMD_REFERENCE_DIR names, when it holds expected_scores.json; "" otherwise.
std::string FullReferenceDirectory();

// The runfiles path of a workspace file.
std::string RunfilePath(const std::string& workspace_path);

}  // namespace ssimd::testing

#endif  // SSIMD_TESTS_REFERENCE_REFERENCE_DIR_H_
