#!/usr/bin/env python3
"""Scores a distorted .y4m file against its reference with an ssimd server.

    python3 python/examples/score_y4m.py ref.y4m dist.y4m --server 127.0.0.1:50051 \
        --feature float_ssim --feature ssim [--json]

Prints one line per frame and the pooled scores, or libvmaf-shaped JSON with --json.
"""

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from ssimd_client import Client, ScoringError, Y4mReader  # noqa: E402


def number(value):
    return value if math.isfinite(value) else None  # libvmaf writes non-finite values as null


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference")
    parser.add_argument("distorted")
    parser.add_argument("--server", default="127.0.0.1:50051")
    parser.add_argument("--feature", action="append",
                        help="libvmaf syntax, e.g. float_ssim=enable_db=true (repeatable)")
    parser.add_argument("--backend", default="auto", choices=["auto", "gpu", "cpu"])
    parser.add_argument("--title", default="")
    parser.add_argument("--json", action="store_true", help="print libvmaf-shaped JSON")
    args = parser.parse_args()
    features = args.feature or ["float_ssim"]

    reference, distorted = Y4mReader(args.reference), Y4mReader(args.distorted)
    if reference.geometry[:3] != distorted.geometry[:3]:
        sys.exit(f"{args.distorted} is {distorted.geometry}, but {args.reference} is "
                 f"{reference.geometry}")
    try:
        with Client(args.server) as client:
            result = client.score_clip(zip(reference.frames(), distorted.frames()),
                                       reference.geometry, features=features,
                                       backend=args.backend, title_id=args.title)
    except ScoringError as e:
        sys.exit(f"score_y4m: {e}")

    if args.json:
        report = {
            "frames": [{"frameNum": f.index,
                        "metrics": {k: number(v) for k, v in sorted(f.scores.items())}}
                       for f in result.frames],
            "pooled_metrics": {k: {"min": number(p.min), "max": number(p.max),
                                   "mean": number(p.mean),
                                   "harmonic_mean": number(p.harmonic_mean)}
                               for k, p in sorted(result.summary.pooled.items())},
        }
        json.dump(report, sys.stdout, indent=2)
        print()
        return
    for f in result.frames:
        scores = "  ".join(f"{k}={v!r}" for k, v in sorted(f.scores.items()))
        print(f"frame {f.index}: {scores}  [{f.backend}]")
    for k, p in sorted(result.summary.pooled.items()):
        print(f"{k}: mean={p.mean!r} min={p.min!r} max={p.max!r} "
              f"harmonic_mean={p.harmonic_mean!r}")


if __name__ == "__main__":
    main()
