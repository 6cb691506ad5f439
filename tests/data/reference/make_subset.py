#!/usr/bin/env python3
"""Cuts the checked-in reference subset out of the full reference set.

Usage: make_subset.py FULL_SET_DIR OUT_DIR

Keeps the pairs below, each limited to its first N frames (frames are scored independently, so
the expected values of the kept frames are unchanged), recompresses the trimmed clips with
`xz -9e -T1`, and writes expected_scores.json with the same layout as the full set.

Where the full set has expected_metrics.json (upstream libvmaf's psnr, float_ms_ssim and vmaf),
it is cut to the same pairs and written beside it. Upstream's `vmaf` tool reads a raw frame as
planes of libvmaf's sizes back to back (chroma sides rounded down), so where that differs from
the file's layout (a 1x1 4:2:0 clip: one byte a frame) its frames are not the file's; the values
kept are those of the frames the tool read from the kept bytes. Temporal features (motion, and
vmaf, which uses it) of a frame depend on the next one, so they are dropped where a pair is cut.
"""
import json
import lzma
import os
import subprocess
import sys

# pair id -> frames kept (None: all)
PAIRS = {
    # 4:2:0 8-bit at every tiny size, float_ssim undefined below 11x11, integer ssim everywhere
    **{f"leaf_{s}_yuv420p__noise14": None for s in
       ["1x1", "2x2", "3x3", "8x8", "16x8", "17x9", "11x11", "64x64", "65x64"]},
    **{f"leaf_{s}_yuv420p__identical": None for s in
       ["1x1", "2x2", "3x3", "8x8", "16x8", "17x9", "11x11", "64x64", "65x64"]},
    "leaf_64x64_yuv420p__x264crf30": None,
    "leaf_17x9_yuv420p10le__geqnoise": None,
    "leaf_17x9_yuv420p10le__identical": None,
    # flat frames: 1x1/2x2/3x3 identical (docs/numerics.md §14), 10-bit 1-2^-24, 1080p at scale 4
    "flat0_1x1_yuv420p__identical": None,
    "flat3_1x1_yuv420p__identical": None,
    "flat2_2x2_yuv420p__identical": None,
    "flat51_3x3_yuv420p__identical": None,
    "flat512_64x36_yuv420p10le__identical": None,
    "flat120_320x180_yuv420p__flat123_320x180_yuv420p": None,
    "flat120_320x180_yuv420p__identical": None,
    "flat16_1920x1080_yuv420p__flat17_1920x1080_yuv420p": None,
    "flat16_1920x1080_yuv420p__identical": None,
    # real content: 576x324, 4:4:4, 10-bit 4:2:2, 10-bit 720p (scale 3), odd 853x481, 1080p
    "testsrc2_576x324_yuv420p__x264crf38": 4,
    "testsrc2_576x324_yuv420p__identical": 4,
    "kite_640x360_yuv444p__x264crf35": 2,
    "summer1am_640x360_yuv422p10le__x264crf30": 2,
    "colorfulcups_1280x720_yuv420p10le__x264crf38": 1,
    "grey_853x481_yuv420p__x264crf28": 2,
    "fallenleaf_1920x1080_yuv420p__x264crf30": 1,
}


def frame_bytes(pair, round_up=True):
    """Bytes of one frame: subsampled chroma sides halved rounding up, as the files store them,
    or with round_up=False rounding down, as upstream's vmaf tool reads them."""
    w, h, bd, fmt = pair["width"], pair["height"], pair["bitdepth"], pair["pix_fmt"]
    half = (lambda n: (n + 1) // 2) if round_up else (lambda n: n // 2)
    cw, ch = half(w), half(h)
    chroma = {"yuv420p": 2 * cw * ch, "yuv422p": 2 * cw * h, "yuv444p": 2 * w * h}[fmt[:7]]
    return (w * h + chroma) * (2 if bd > 8 else 1)


TEMPORAL = ("motion", "vmaf")


def cut_metrics(src, out, kept):
    """Writes OUT/expected_metrics.json: the full set's entries for the kept pairs, cut to the
    frames the vmaf tool read from the kept bytes. `kept` maps pair id -> (pair, frames kept)."""
    path = os.path.join(src, "expected_metrics.json")
    if not os.path.exists(path):
        return
    full = json.load(open(path))
    by_id = {p["id"]: p for p in full["pairs"]}
    pairs = []
    for pid, (pair, n) in kept.items():
        if pid not in by_id:
            continue
        m = json.loads(json.dumps(by_id[pid]))
        cut = n < pair["frames"]
        read = n * frame_bytes(pair) // frame_bytes(pair, round_up=False)
        metrics = {}
        for key, values in m.get("metrics", {}).items():
            if cut and any(t in key for t in TEMPORAL):
                continue
            metrics[key] = values[:read]
        m["metrics"] = metrics
        pairs.append(m)
    subset = {k: v for k, v in full.items() if k != "pairs"}
    subset["set"] = "public subset (first frames of selected pairs; see make_subset.py)"
    subset["pairs"] = pairs
    with open(os.path.join(out, "expected_metrics.json"), "w") as f:
        json.dump(subset, f, indent=1)
        f.write("\n")


def main():
    src, out = sys.argv[1], sys.argv[2]
    full = json.load(open(os.path.join(src, "expected_scores.json")))
    by_id = {p["id"]: p for p in full["pairs"]}
    os.makedirs(os.path.join(out, "clips"), exist_ok=True)
    clip_frames = {}  # clip file -> (frames kept, frame bytes)
    pairs = []
    kept = {}  # pair id -> (the full set's pair, frames kept)
    for pid, keep in PAIRS.items():
        p = json.loads(json.dumps(by_id[pid]))
        n = p["frames"] if keep is None else min(keep, p["frames"])
        kept[pid] = (by_id[pid], n)
        p["frames"] = n
        for metrics in p["scores"].values():
            for key in metrics:
                metrics[key] = metrics[key][:n]
        und = p.get("float_ssim_undefined")
        if und and "upstream_libvmaf_float_ssim" in und:
            und["upstream_libvmaf_float_ssim"] = und["upstream_libvmaf_float_ssim"][:n]
        for clip in (p["ref"], p["dist"]):
            prev = clip_frames.get(clip, (0, 0))[0]
            clip_frames[clip] = (max(prev, n), frame_bytes(p))
        pairs.append(p)
    for clip, (n, fb) in sorted(clip_frames.items()):
        raw = lzma.open(os.path.join(src, "clips", clip + ".xz")).read()
        data = raw[: n * fb]
        assert len(data) == n * fb, clip
        dst = os.path.join(out, "clips", clip + ".xz")
        subprocess.run(["xz", "-9e", "-T1", "-c"], input=data, stdout=open(dst, "wb"), check=True)
    subset = {k: v for k, v in full.items() if k != "pairs"}
    subset["set"] = "public subset (first frames of selected pairs; see make_subset.py)"
    subset.pop("stats", None)
    subset["pairs"] = pairs
    with open(os.path.join(out, "expected_scores.json"), "w") as f:
        json.dump(subset, f, indent=1)
        f.write("\n")
    cut_metrics(src, out, kept)


if __name__ == "__main__":
    main()
