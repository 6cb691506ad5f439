"""Planes from .y4m (YUV4MPEG2) and raw planar .yuv files, frame by frame: luma (frames()), or
luma and chroma (planes()) for features that read chroma (psnr)."""

import os
from typing import Dict, Iterable, Iterator, Optional, Tuple, Union

from ssimd_client.model import FramePlanes, Geometry

PathLike = Union[str, "os.PathLike[str]"]

# Colorspace tags to (pixel format, bit depth); a missing tag means 4:2:0 at 8 bits.
_COLORSPACES: Dict[str, Tuple[str, int]] = {"mono": ("400", 8)}
for _layout in ("420", "422", "444"):
    _COLORSPACES[_layout] = (_layout, 8)
    for _depth in (10, 12, 16):
        _COLORSPACES[f"{_layout}p{_depth}"] = (_layout, _depth)
for _variant in ("420jpeg", "420mpeg2", "420paldv"):
    _COLORSPACES[_variant] = ("420", 8)
for _depth in (10, 12, 16):
    _COLORSPACES[f"mono{_depth}"] = ("400", _depth)


def frame_bytes(geometry: Geometry) -> int:
    """Bytes of one whole planar frame: luma plus chroma (ceil halves where subsampled)."""
    sample = 1 if geometry.bit_depth == 8 else 2
    w, h = geometry.width, geometry.height
    cw, ch = (w + 1) // 2, (h + 1) // 2
    chroma = {"420": 2 * cw * ch, "422": 2 * cw * h, "444": 2 * w * h, "400": 0}
    return (w * h + chroma[geometry.pixel_format]) * sample


def luma_bytes(geometry: Geometry) -> int:
    """Bytes of one luma plane, as the server takes it."""
    return geometry.width * geometry.height * (1 if geometry.bit_depth == 8 else 2)


def split_frame(frame: bytes, geometry: Geometry) -> FramePlanes:
    """A whole planar frame (as a raw .yuv stores it) as its luma and its chroma planes."""
    if len(frame) != frame_bytes(geometry):
        raise ValueError(f"a frame of {geometry} has {frame_bytes(geometry)} bytes, "
                         f"got {len(frame)}")
    luma = luma_bytes(geometry)
    return FramePlanes(frame[:luma], frame[luma:])


class _FrameReader:
    """What both readers give from their whole frames (_whole_frames) and geometry."""

    geometry: Geometry

    def frames(self) -> Iterator[bytes]:
        """Yields each frame's luma plane (bytes, tightly packed)."""
        luma = luma_bytes(self.geometry)
        for frame in self._whole_frames():
            yield frame[:luma]

    def planes(self) -> Iterator[FramePlanes]:
        """Yields each frame's FramePlanes: its luma and its chroma planes (Cb then Cr)."""
        for frame in self._whole_frames():
            yield split_frame(frame, self.geometry)

    def _whole_frames(self) -> Iterator[bytes]:
        raise NotImplementedError


class Y4mReader(_FrameReader):
    """Reads a .y4m file: its geometry from the header, then each frame's luma plane."""

    def __init__(self, path: PathLike) -> None:
        self.path = os.fspath(path)
        with open(self.path, "rb") as f:
            line = f.readline(4096)
        if not line.startswith(b"YUV4MPEG2") or not line.endswith(b"\n"):
            raise ValueError(f"{path}: not a y4m file (the first line must start with YUV4MPEG2)")
        self._header_len = len(line)
        width: Optional[int] = None
        height: Optional[int] = None
        pixel_format, bit_depth = "420", 8
        for field in line.decode("ascii", "replace").split()[1:]:
            tag, value = field[0], field[1:]
            if tag == "W":
                width = int(value)
            elif tag == "H":
                height = int(value)
            elif tag == "C":
                if value not in _COLORSPACES:
                    raise ValueError(f"{path}: colorspace C{value} is not supported")
                pixel_format, bit_depth = _COLORSPACES[value]
        if not width or not height:
            raise ValueError(f"{path}: the y4m header needs W and H")
        self.geometry = Geometry(width, height, bit_depth, pixel_format)

    def _whole_frames(self) -> Iterator[bytes]:
        size = frame_bytes(self.geometry)
        with open(self.path, "rb") as f:
            f.seek(self._header_len)
            index = 0
            while True:
                header = f.readline(4096)
                if not header:
                    return
                if not header.startswith(b"FRAME"):
                    raise ValueError(f"{self.path}: frame {index} does not start with FRAME")
                data = f.read(size)
                if len(data) != size:
                    raise ValueError(f"{self.path}: frame {index} is truncated "
                                     f"({len(data)} of {size} bytes)")
                yield data
                index += 1


class RawYuvReader(_FrameReader):
    """Reads a raw planar .yuv file of a known geometry, frame by frame."""

    def __init__(self, path: PathLike, geometry: Geometry) -> None:
        self.path = os.fspath(path)
        self.geometry = geometry

    def _whole_frames(self) -> Iterator[bytes]:
        size = frame_bytes(self.geometry)
        with open(self.path, "rb") as f:
            index = 0
            while True:
                data = f.read(size)
                if not data:
                    return
                if len(data) != size:
                    raise ValueError(f"{self.path}: frame {index} is truncated "
                                     f"({len(data)} of {size} bytes)")
                yield data
                index += 1


def write_y4m(path: PathLike, geometry: Geometry, frames: Iterable[bytes],
              frame_rate: str = "25:1") -> int:
    """Writes whole planar frames (luma and chroma, as in a raw .yuv) to a .y4m file."""
    tag = {"420": "420", "422": "422", "444": "444", "400": "mono"}[geometry.pixel_format]
    if geometry.bit_depth > 8:
        tag += f"p{geometry.bit_depth}" if tag != "mono" else str(geometry.bit_depth)
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{geometry.width} H{geometry.height} F{frame_rate} Ip A1:1 "
                f"C{tag}\n".encode("ascii"))
        for frame in frames:
            f.write(b"FRAME\n")
            f.write(frame)
    return os.path.getsize(path)  # the file's size in bytes
