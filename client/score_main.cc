// ssimd-score: a libvmaf-style command line that scores videos with an ssimd server.
#include <cstdio>

#include "client/score_cli.h"

int main(int argc, char** argv) { return ssimd::RunScoreCli(argc, argv, stdout, stderr); }
