#!/usr/bin/env python3
"""Writes apsnr.json: libvmaf's aggregate apsnr_* for checked-in subset pairs, printed by upstream
libvmaf's vmaf tool with its JSON writer's aggregate values at %.17g.

usage: make_apsnr.py VMAF_TOOL > apsnr.json   (from the repository's root)
"""
import json
import lzma
import os
import re
import subprocess
import sys
import tempfile

CLIPS = "tests/data/reference/clips"
CASES = [
    ("kite_640x360_yuv444p__x264crf35", "enable_apsnr=true"),
    ("kite_640x360_yuv444p__x264crf35", "enable_apsnr=true:enable_chroma=false"),
    ("summer1am_640x360_yuv422p10le__x264crf30", "enable_apsnr=true"),
    ("summer1am_640x360_yuv422p10le__x264crf30", "enable_apsnr=true:reduced_hbd_peak=true"),
    ("leaf_64x64_yuv420p__x264crf30", "enable_apsnr=true:enable_mse=true"),
    ("leaf_64x64_yuv420p__identical", "enable_apsnr=true"),
]


def clip(name, directory):
    path = os.path.join(directory, name + ".yuv")
    with lzma.open(os.path.join(CLIPS, name + ".yuv.xz")) as src, open(path, "wb") as out:
        out.write(src.read())
    return path


def main():
    tool = sys.argv[1]
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for pair, options in CASES:
            reference, distorted = pair.split("__")
            m = re.match(r".*_(\d+)x(\d+)_yuv(\d{3})p(10le)?$", reference)
            width, height, chroma, depth = m.group(1), m.group(2), m.group(3), 10 if m.group(4) else 8
            if distorted != "identical":
                distorted = reference + "_" + distorted
            else:
                distorted = reference
            command = ["-r", reference + ".yuv", "-d", distorted + ".yuv", "-w", width, "-h", height,
                       "-p", chroma, "-b", str(depth), "--feature", "psnr=" + options, "-n", "-q",
                       "--threads", "1", "--json", "-o", "out.json"]
            out = os.path.join(tmp, "out.json")
            args = [a if not a.endswith(".yuv") else clip(a[:-4], tmp) for a in command]
            args[args.index("out.json")] = out
            subprocess.run([tool] + args, check=True, stdout=subprocess.DEVNULL)
            with open(out) as f:
                result = json.load(f)
            cases.append({
                "pair": pair,
                "options": options,
                "frames": len(result["frames"]),
                "aggregate": result["aggregate_metrics"],
                "command": "vmaf " + " ".join(command),
            })
    json.dump({
        "how": "Upstream libvmaf's vmaf tool (Netflix/vmaf f85a8536, release build, x86-64) on "
               "the checked-in subset's clips, its JSON writer's aggregate values changed from "
               "%.6f to %.17g. null is libvmaf's -inf (a plane that was not scored; its "
               "writer prints non-finite values as null). Made by make_apsnr.py.",
        "cases": cases,
    }, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
