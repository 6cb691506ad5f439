#!/usr/bin/env python3
"""Scores a distorted .y4m file against its reference with an ssimd server.

    python3 python/examples/score_y4m.py ref.y4m dist.y4m --server 127.0.0.1:50051 \
        --feature float_ssim --feature ssim [--json]

Prints one line per frame as the server scores it and the pooled scores, or libvmaf-shaped JSON
with --json. Frames go out with their chroma planes where a feature reads them (--feature psnr,
whose enable_chroma is on by default), with their lumas alone otherwise. Uses the installed
ssimd_client (pip install --no-deps ./python), else the one in this checkout.
"""

import argparse
import json
import math
import os
import sys

try:
    from ssimd_client import Client, ClipSummary, SsimdError, Y4mReader, features_read_chroma
except ImportError as error:
    if getattr(error, "name", None) != "ssimd_client":
        raise  # installed, but grpc or protobuf is missing: the message says what to install
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from ssimd_client import Client, ClipSummary, SsimdError, Y4mReader, features_read_chroma


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
    # Chroma planes are compared only where a feature reads them; lumas always are.
    compared = 4 if features_read_chroma(features, reference.geometry.pixel_format) else 3
    if reference.geometry[:compared] != distorted.geometry[:compared]:
        sys.exit(f"{args.distorted} is {distorted.geometry}, but {args.reference} is "
                 f"{reference.geometry}")
    frames, summary = [], None
    try:
        with Client(args.server) as client:
            # Results arrive while frames are still being sent: FrameResults, then the summary.
            for event in client.iter_clip(zip(reference.planes(), distorted.planes()),
                                          reference.geometry, features=features,
                                          backend=args.backend, title_id=args.title):
                if isinstance(event, ClipSummary):
                    summary = event
                    continue
                frames.append(event)
                if not args.json:
                    scores = "  ".join(f"{k}={v!r}" for k, v in sorted(event.scores.items()))
                    print(f"frame {event.index}: {scores}  [{event.backend}]", flush=True)
    except SsimdError as e:
        sys.exit(f"score_y4m: {e.code.name}: {e.details}")
    if summary is None:
        sys.exit("score_y4m: the server sent no summary")

    if args.json:
        report = {
            "frames": [{"frameNum": f.index,
                        "metrics": {k: number(v) for k, v in sorted(f.scores.items())}}
                       for f in frames],
            "pooled_metrics": {k: {"min": number(p.min), "max": number(p.max),
                                   "mean": number(p.mean),
                                   "harmonic_mean": number(p.harmonic_mean)}
                               for k, p in sorted(summary.pooled.items())},
        }
        json.dump(report, sys.stdout, indent=2)
        print()
        return
    for k, p in sorted(summary.pooled.items()):
        print(f"{k}: mean={p.mean!r} min={p.min!r} max={p.max!r} "
              f"harmonic_mean={p.harmonic_mean!r}")


if __name__ == "__main__":
    main()
