#!/usr/bin/env python3
"""Cuts the checked-in expected_metrics.json out of the ladder test set's.

Usage: cut_metrics.py FULL_LADDER_DIR OUT_DIR

Keeps, per rendition, the metrics ssimd computes today (psnr_y, psnr_cb, psnr_cr, float_ms_ssim)
with the `how`, `refused` and `features` fields unchanged; the VMAF model's features stay in the
full set until they are scored.
"""
import json
import os
import sys

KEPT = ("psnr_y", "psnr_cb", "psnr_cr", "float_ms_ssim")


def main(full_dir, out_dir):
    with open(os.path.join(full_dir, "expected_metrics.json")) as f:
        doc = json.load(f)
    for pair in doc["pairs"]:
        pair["metrics"] = {k: v for k, v in pair["metrics"].items() if k in KEPT}
    with open(os.path.join(out_dir, "expected_metrics.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
