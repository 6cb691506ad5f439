#!/usr/bin/env bash
# ssimd-score starts without FFmpeg's libraries (docs/adr/0089); ssimd-score-frames has them.
set -euo pipefail
libs() { ldd "$1" | awk '{print $1}'; }
if libs client/ssimd-score | grep -E '^lib(avcodec|avformat|swscale)\.so'; then
  echo "ssimd-score loads FFmpeg's libraries; local decoding belongs in ssimd-score-frames" >&2
  exit 1
fi
libs client/ssimd-score-frames | grep -q '^libavcodec\.so' ||
  { echo "ssimd-score-frames should decode local files with FFmpeg" >&2; exit 1; }
echo "ssimd-score: $(libs client/ssimd-score | wc -l) libraries, no FFmpeg;" \
  "ssimd-score-frames: $(libs client/ssimd-score-frames | wc -l)"
