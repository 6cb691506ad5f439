#!/usr/bin/env bash
# Fixed shares against claimed segments, alternating, on the development machine (2 cores, CPU
# decoding). old: af8fac7's decode_split_bench; new: this folder's commit's. Both built with
# `bazel build -c opt //bench:decode_split_bench`. FILE: the 1080p H.264 rendition with 48-picture
# groups described in ../2026-12-05f-nvdec-decoder-streams/COMMAND.md (576 pictures).
set -euo pipefail
old=${1:?old decode_split_bench}; new=${2:?new decode_split_bench}; file=${3:?FILE}
out=$(dirname "$0")
for round in 1 2; do
  "$old" --file="$file" --decoders=2,3,4 --rounds=3 > "$out/old_$round.txt"
  "$new" --file="$file" --decoders=2,3,4 --rounds=3 > "$out/new_$round.txt"
done
