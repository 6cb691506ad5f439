// ssimd-score: a libvmaf-style command line that scores videos with an ssimd server.
#include <cstdio>

#include "client/score_cli.h"
#include "process/frame_memory.h"

int main(int argc, char** argv) {
  ssimd::KeepFrameMemoryInProcess();  // each frame read reuses the last one's memory
  return ssimd::RunScoreCli(argc, argv, stdout, stderr);
}
