// The ssimd-score program (see cli_options.h for its flags), callable in-process by tests.
#ifndef SSIMD_CLIENT_SCORE_CLI_H_
#define SSIMD_CLIENT_SCORE_CLI_H_

#include <cstdio>

namespace ssimd {

// Returns the exit code: 0 success, 1 a failed run (the server's status is printed), 2 bad usage.
// Reports go to `out` unless -o names a file; errors and progress go to `err`.
int RunScoreCli(int argc, char** argv, std::FILE* out, std::FILE* err);

}  // namespace ssimd

#endif  // SSIMD_CLIENT_SCORE_CLI_H_
