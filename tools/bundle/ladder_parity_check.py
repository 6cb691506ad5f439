#!/usr/bin/env python3
"""Holds ssimd-score --ladder reports (libvmaf-shaped JSON, DIR/NAME.json per rendition) to
libvmaf's expected per-frame scores of the ladder test set (tests/data/ladder/expected_scores*.json),
bit for bit, over the frames each report holds (a cut source pairs fewer frames).

    ladder_parity_check.py EXPECTED.json REPORT_DIR [REPORT_DIR ...]

Prints one line per rendition and a summary per directory; exits 1 when a value differs or a
rendition is missing.
"""
import json
import os
import struct
import sys


def bits(value):
    return struct.pack("<d", value)


def check(expected_path, report_dir):
    with open(expected_path, encoding="utf-8") as f:
        expected = {r["rendition"]: r for r in json.load(f)["renditions"]}
    names = sorted(n[:-len(".json")] for n in os.listdir(report_dir) if n.endswith(".json"))
    compared = differing = 0
    for name in names:
        with open(os.path.join(report_dir, name + ".json"), encoding="utf-8") as f:
            report = json.load(f)
        want = expected.get(name)
        if want is None:
            print(f"  {name}: not in {expected_path}")
            differing += 1
            continue
        frames = report["frames"]
        diffs = []
        for frame in frames:
            i = frame["frameNum"]
            for metric in ("float_ssim", "ssim"):
                got = frame["metrics"][metric]
                if bits(got) != bits(want[metric][i]):
                    diffs.append(f"frame {i} {metric}: {got!r} vs libvmaf {want[metric][i]!r}")
        backends = report.get("ssimd", {}).get("frames_by_backend")
        state = "equal" if not diffs else f"{len(diffs)} values differ"
        print(f"  {name}: {len(frames)} frames, {state}; backends {backends}")
        for d in diffs[:3]:
            print(f"    {d}")
        compared += 1
        differing += 1 if diffs else 0
    print(f"{report_dir}: {compared} renditions compared, {differing} with differences")
    return compared > 0 and differing == 0


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    results = [check(sys.argv[1], d) for d in sys.argv[2:]]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
