#!/usr/bin/env bash
# The second device call of run F (from the repository root, the folder of the two programs and
# their libraries carried): exactness again, then the trace with the finishing block's stamps.
# Lines of single blocks every 21st (1080p) or 84th (4K) block were filtered out here.
cd bundle_diag && nvidia-smi --query-gpu=name --format=csv,noheader; timeout 60 ./run.sh gpu_exact_sum_test 2>&1 | grep -E "OK \]|FAILED|launches|compared"; timeout 60 ./run.sh exact_sum_trace 10 2>&1 | grep -v "^ *[0-9]*:.*sm [0-9]*$"
