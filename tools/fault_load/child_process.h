// A vanishing client is this same binary started as a child process that opens a call and kills
// itself with SIGKILL mid-call, so the server sees a connection drop rather than a polite cancel.
// This starts such a child and waits for it to die.
#ifndef SSIMD_TOOLS_FAULT_LOAD_CHILD_PROCESS_H_
#define SSIMD_TOOLS_FAULT_LOAD_CHILD_PROCESS_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "tools/fault_load/fault_plan.h"

namespace ssimd::fault_load {

// Starts `argv` (argv[0]: this binary) and waits at most `limit` for it to end. The outcome's
// `vanished` is true when it died of SIGKILL as planned; otherwise `child_error` says what
// happened instead.
StreamOutcome AwaitVanishingChild(const std::vector<std::string>& argv,
                                  absl::Duration limit = absl::Seconds(60));

// This process's executable, for starting children; empty if unknown.
std::string SelfExe();

}  // namespace ssimd::fault_load

#endif  // SSIMD_TOOLS_FAULT_LOAD_CHILD_PROCESS_H_
