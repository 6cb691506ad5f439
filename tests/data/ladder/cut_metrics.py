#!/usr/bin/env python3
"""Cuts the checked-in expected_metrics.json out of the ladder test set's.

Usage: cut_metrics.py FULL_LADDER_DIR OUT_DIR

Keeps, per rendition, the metrics ssimd computes (psnr_y, psnr_cb, psnr_cr, float_ms_ssim, vmaf
and the VMAF model's integer features) with the `how`, `refused` and `features` fields unchanged.
"""
import json
import os
import sys

KEPT = ("psnr_y", "psnr_cb", "psnr_cr", "float_ms_ssim", "vmaf", "integer_adm2", "integer_adm3",
        "integer_adm_scale0", "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3",
        "integer_aim", "integer_motion2", "integer_motion3", "integer_vif_scale0",
        "integer_vif_scale1", "integer_vif_scale2", "integer_vif_scale3",
        "VMAF_integer_feature_motion_sad_score")


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
