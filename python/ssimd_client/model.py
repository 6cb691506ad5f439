"""The values the client takes and returns.

Results are the messages of ssimd.v1 (proto/ssimd/v1/ssimd.proto documents every field), typed
for checkers by the generated ssimd/v1/ssimd_pb2.pyi; this module names the ones a caller meets.
"""

from typing import Dict, List, NamedTuple, Optional, Sequence, Union

from ssimd.v1 import ssimd_pb2

# One scored frame pair: index, scores by metric name ("float_ssim", "ssim", "float_ssim_db",
# ...), the backend that scored it and, on a fallback to the CPU, why.
FrameResult = ssimd_pb2.FrameResult
# Pooled scores of a clip by metric (mean, min, max, harmonic mean, percentiles), frames by
# backend, unmatched frames of a longer file, elapsed time.
ClipSummary = ssimd_pb2.ClipSummary
PooledScore = ssimd_pb2.PooledScore
# One frame of one rendition of a ladder: .rendition (its name) and .result (a FrameResult).
RenditionFrame = ssimd_pb2.RenditionFrame
# The end of one rendition: .summary (a ClipSummary) and what the server learnt of the file
# (codec, size, bitrate, where it was decoded and upscaled).
RenditionSummary = ssimd_pb2.RenditionSummary
# The end of a ladder: renditions, source frames scored, elapsed time.
LadderSummary = ssimd_pb2.LadderSummary
Capabilities = ssimd_pb2.Capabilities
Rendition = ssimd_pb2.Rendition

# What iter_clip and iter_files yield: every frame's FrameResult in order, then one ClipSummary.
ClipEvent = Union[ssimd_pb2.FrameResult, ssimd_pb2.ClipSummary]
# What iter_ladder yields: RenditionFrames (renditions interleave; each rendition's frames are
# in order), a RenditionSummary when a rendition ends, and the LadderSummary last.
LadderEvent = Union[ssimd_pb2.RenditionFrame, ssimd_pb2.RenditionSummary, ssimd_pb2.LadderSummary]


class Geometry(NamedTuple):
    """The shape of the pictures of a clip: luma width and height in pixels, bits per sample
    (8, 10, 12 or 16) and the chroma layout of the file they come from ("420", "422", "444" or
    "400"). The layout sets the size of a raw frame and of the chroma planes, which are sent
    only where a feature reads them (features_read_chroma)."""

    width: int
    height: int
    bit_depth: int = 8
    pixel_format: str = "420"


class ClipResult(NamedTuple):
    """All of a ScoreClip or ScoreFiles call: the frames in order and the summary (None only if
    the server ended the stream without one)."""

    frames: List[ssimd_pb2.FrameResult]
    summary: Optional[ssimd_pb2.ClipSummary]


class LadderResult(NamedTuple):
    """All of a ScoreLadder call, by rendition name: `frames` (FrameResults in order),
    `summaries` (each rendition's ClipSummary) and `renditions` (its RenditionSummary, with the
    codec, size, bitrate and where it was decoded and upscaled); `ladder` is the LadderSummary."""

    frames: Dict[str, List[ssimd_pb2.FrameResult]]
    summaries: Dict[str, ssimd_pb2.ClipSummary]
    ladder: Optional[ssimd_pb2.LadderSummary]
    renditions: Dict[str, ssimd_pb2.RenditionSummary] = {}


class FramePlanes(NamedTuple):
    """One picture as the client sends it: its luma plane and both chroma planes, Cb then Cr,
    tightly packed at the size a planar .yuv frame stores them after its luma (subsampled sides
    halved rounding up; two bytes a sample, little-endian, above 8 bits); b"" for 4:0:0."""

    luma: bytes
    chroma: bytes = b""


def features_read_chroma(features: Union[str, Sequence[str]], pixel_format: str) -> bool:
    """Whether scoring pictures of `pixel_format` with `features` (libvmaf's arguments) needs
    their chroma planes: psnr, unless its options set enable_chroma to false (libvmaf's default
    is true), on pictures that have chroma. The server's rule (FeaturesReadChroma) is the same."""
    if pixel_format == "400":
        return False
    for feature in [features] if isinstance(features, str) else features:
        name, _, options = feature.partition("=")
        if name != "psnr":
            continue
        enable_chroma = True
        for option in options.split(":") if options else []:
            key, _, value = option.partition("=")
            if key == "enable_chroma":
                enable_chroma = value not in ("false", "0")
        return enable_chroma
    return False
