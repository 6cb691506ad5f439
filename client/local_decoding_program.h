// ssimd-score without FFmpeg hands a run that needs local decoding (the frames transport) to
// ssimd-score-frames, installed beside it: the same command line, with the transport settled.
#ifndef SSIMD_CLIENT_LOCAL_DECODING_PROGRAM_H_
#define SSIMD_CLIENT_LOCAL_DECODING_PROGRAM_H_

#include <cstdio>
#include <string>

namespace ssimd {

// The program beside `self` (this program's path) that decodes local files.
std::string LocalDecodingProgram(const std::string& self);

// Replaces this process with LocalDecodingProgram's, given argv[1...] after
// "--transport=frames" (later flags still win, as on any command line). Returns only when that
// fails, with the exit status after saying why on `err`.
int RunLocalDecodingProgram(int argc, char** argv, std::FILE* err);

}  // namespace ssimd

#endif  // SSIMD_CLIENT_LOCAL_DECODING_PROGRAM_H_
