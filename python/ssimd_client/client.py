"""The ssimd client: connection, health, capabilities, single pairs, and clip streams."""

import collections
import concurrent.futures
import os
import sys

import grpc

# The generated modules sit in python/ssimd/v1, beside this package.
_PYTHON_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _PYTHON_ROOT not in sys.path:
    sys.path.insert(0, _PYTHON_ROOT)

from ssimd.v1 import ssimd_pb2  # noqa: E402
from ssimd.v1 import ssimd_pb2_grpc  # noqa: E402
from ssimd_client.channel import channel_options, channel_target  # noqa: E402

Geometry = collections.namedtuple("Geometry", "width height bit_depth pixel_format")
Geometry.__new__.__defaults__ = (8, "420")

ClipResult = collections.namedtuple("ClipResult", "frames summary")
# ScoreLadder's results: frames and summary by rendition name, and the LadderSummary.
LadderResult = collections.namedtuple("LadderResult", "frames summaries ladder")

_PIXEL_FORMATS = {
    "420": ssimd_pb2.PIXEL_FORMAT_420,
    "422": ssimd_pb2.PIXEL_FORMAT_422,
    "444": ssimd_pb2.PIXEL_FORMAT_444,
    "400": ssimd_pb2.PIXEL_FORMAT_400,
}
_BACKENDS = {"auto": ssimd_pb2.BACKEND_AUTO, "gpu": ssimd_pb2.BACKEND_GPU,
             "cpu": ssimd_pb2.BACKEND_CPU}
_HEALTH = {0: "UNKNOWN", 1: "SERVING", 2: "NOT_SERVING", 3: "SERVICE_UNKNOWN"}

# Fits an 8K 16-bit luma pair, as the server's default limit does.
DEFAULT_MAX_MESSAGE_BYTES = 160 << 20


class ScoringError(Exception):
    """A failed call: `code` is the grpc.StatusCode, `details` the server's message."""

    def __init__(self, code, details):
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


def _raise(error):
    raise ScoringError(error.code(), error.details()) from None


def _geometry(geometry):
    if geometry.pixel_format not in _PIXEL_FORMATS:
        raise ValueError(f"pixel_format must be one of {sorted(_PIXEL_FORMATS)}, "
                         f"got {geometry.pixel_format!r}")
    return ssimd_pb2.Geometry(width=geometry.width, height=geometry.height,
                              bit_depth=geometry.bit_depth,
                              pixel_format=_PIXEL_FORMATS[geometry.pixel_format])


def _backend(name):
    if name not in _BACKENDS:
        raise ValueError(f"backend must be one of {sorted(_BACKENDS)}, got {name!r}")
    return _BACKENDS[name]


class Client:
    """A connection to an ssimd server. Use as a context manager, or call close()."""

    def __init__(self, target="127.0.0.1:50051", credentials=None,
                 max_message_bytes=DEFAULT_MAX_MESSAGE_BYTES):
        # A comma list of IP:PORT or a dns:/// name spreads calls over many servers
        # (channel.py); ValueError when the list is malformed.
        target = channel_target(target)
        options = channel_options(target, max_message_bytes)
        if credentials is None:
            self._channel = grpc.insecure_channel(target, options=options)
        else:
            self._channel = grpc.secure_channel(target, credentials, options=options)
        self._stub = ssimd_pb2_grpc.ScoringServiceStub(self._channel)
        # The standard health messages are one string and one enum; plain bytes avoid needing
        # the grpc_health package, which Debian does not ship.
        self._health_check = self._channel.unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=lambda service: _encode_string_field(1, service),
            response_deserializer=_decode_enum_field_1)

    def close(self):
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def health(self, service="", timeout=5.0):
        """'SERVING', 'NOT_SERVING', ... for `service` ('' = the whole server)."""
        try:
            return _HEALTH.get(self._health_check(service, timeout=timeout), "UNKNOWN")
        except grpc.RpcError as e:
            _raise(e)

    def capabilities(self, timeout=10.0):
        try:
            return self._stub.GetCapabilities(ssimd_pb2.GetCapabilitiesRequest(), timeout=timeout)
        except grpc.RpcError as e:
            _raise(e)

    def score_pair(self, reference_luma, distorted_luma, geometry, features=("float_ssim",),
                   backend="auto", timeout=60.0):
        """Scores one pair; returns the FrameResult (scores by metric name, backend, ...)."""
        request = ssimd_pb2.ScorePairRequest(
            geometry=_geometry(geometry), features=ssimd_pb2.Features(feature_args=features),
            backend=_backend(backend), reference_luma=reference_luma,
            distorted_luma=distorted_luma)
        try:
            return self._stub.ScorePair(request, timeout=timeout).result
        except grpc.RpcError as e:
            _raise(e)

    def score_clip(self, frame_pairs, geometry, features=("float_ssim",), backend="auto",
                   title_id="", rung="", labels=None, percentiles=(), timeout=3600.0,
                   on_frame=None):
        """Streams (reference_luma, distorted_luma) pairs through ScoreClip.

        Frames are read from `frame_pairs` only as fast as the server takes them. Returns a
        ClipResult of the per-frame FrameResults (in order) and the ClipSummary. `on_frame` is
        called with each FrameResult as it arrives.
        """
        config = ssimd_pb2.ClipConfig(
            geometry=_geometry(geometry), features=ssimd_pb2.Features(feature_args=features),
            backend=_backend(backend), title_id=title_id, rung=rung, labels=labels or {},
            percentiles=percentiles)

        def requests():
            yield ssimd_pb2.ScoreClipRequest(config=config)
            for index, (reference, distorted) in enumerate(frame_pairs):
                yield ssimd_pb2.ScoreClipRequest(frame=ssimd_pb2.FramePair(
                    index=index, reference_luma=reference, distorted_luma=distorted))

        return self._collect(self._stub.ScoreClip(requests(), timeout=timeout), on_frame)

    def score_files(self, reference_path, distorted_path, geometry=None, features=("float_ssim",),
                    backend="auto", start_frame=0, frame_count=0, title_id="", timeout=3600.0,
                    on_frame=None, scaler="bicubic", accurate_rounding=False):
        """ScoreFiles: the server reads both inputs: paths below its --files_root, ids that
        upload() returned, or URLs under its --allow_url_prefix. A distorted video of another
        size is brought to the reference's with `scaler` (see _upscale)."""
        config = ssimd_pb2.ClipConfig(features=ssimd_pb2.Features(feature_args=features),
                                      backend=_backend(backend), title_id=title_id)
        if geometry is not None:
            config.geometry.CopyFrom(_geometry(geometry))
        request = ssimd_pb2.ScoreFilesRequest(config=config, reference_path=reference_path,
                                              distorted_path=distorted_path,
                                              start_frame=start_frame, frame_count=frame_count,
                                              upscale=_upscale(scaler, accurate_rounding))
        return self._collect(self._stub.ScoreFiles(request, timeout=timeout), on_frame)

    def upload(self, path, timeout=3600.0, chunk_bytes=1 << 20):
        """UploadFile: sends the local file `path` to the server's upload spool and returns the
        id ("upload:...") to give score_files or score_ladder as a path. ScoringError
        FAILED_PRECONDITION when the server takes no uploads (no --upload_dir)."""
        def chunks():
            with open(path, "rb") as f:
                name = os.path.basename(path)
                while True:
                    data = f.read(chunk_bytes)
                    yield ssimd_pb2.UploadChunk(file_name=name, data=data)
                    name = ""
                    if len(data) < chunk_bytes:
                        return

        try:
            return self._stub.UploadFile(chunks(), timeout=timeout).input
        except grpc.RpcError as e:
            _raise(e)

    def score_ladder(self, source_path, renditions, features=("float_ssim",), backend="auto",
                     frame_count=0, title_id="", timeout=3600.0, spread=False,
                     scaler="bicubic", accurate_rounding=False):
        """ScoreLadder: the server decodes `source_path` and each (name, path) of `renditions`
        (inputs as score_files takes them), upscales them with `scaler` and scores them.

        With spread=True every rendition goes in a call of its own, all at once, so that a client
        of several servers (a comma list or dns:/// target) spreads the ladder over them; the
        results are merged into the same LadderResult as one call gives.
        """
        config = ssimd_pb2.ClipConfig(features=ssimd_pb2.Features(feature_args=features),
                                      backend=_backend(backend), title_id=title_id)

        def request(rungs):
            return ssimd_pb2.ScoreLadderRequest(
                config=config, source_path=source_path, frame_count=frame_count,
                upscale=_upscale(scaler, accurate_rounding),
                renditions=[ssimd_pb2.Rendition(name=n, path=p) for n, p in rungs])

        if not spread:
            return self._collect_ladder(self._stub.ScoreLadder(request(renditions),
                                                               timeout=timeout))
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(renditions))) as pool:
            parts = list(pool.map(
                lambda rung: self._collect_ladder(self._stub.ScoreLadder(request([rung]),
                                                                         timeout=timeout)),
                renditions))
        frames, summaries = {}, {}
        for part in parts:
            frames.update(part.frames)
            summaries.update(part.summaries)
        ladder = ssimd_pb2.LadderSummary(
            renditions=len(renditions),
            source_frames=max((p.ladder.source_frames for p in parts), default=0),
            elapsed_seconds=max((p.ladder.elapsed_seconds for p in parts), default=0.0))
        return LadderResult(frames, summaries, ladder)

    @staticmethod
    def _collect_ladder(responses):
        frames, summaries, ladder = collections.defaultdict(list), {}, None
        try:
            for response in responses:
                if response.HasField("frame"):
                    frames[response.frame.rendition].append(response.frame.result)
                elif response.HasField("rendition_summary"):
                    summary = response.rendition_summary
                    summaries[summary.rendition] = summary.summary
                elif response.HasField("ladder_summary"):
                    ladder = response.ladder_summary
        except grpc.RpcError as e:
            _raise(e)
        return LadderResult(dict(frames), summaries, ladder)

    @staticmethod
    def _collect(responses, on_frame):
        frames, summary = [], None
        try:
            for response in responses:
                if response.HasField("frame"):
                    frames.append(response.frame)
                    if on_frame is not None:
                        on_frame(response.frame)
                elif response.HasField("summary"):
                    summary = response.summary
        except grpc.RpcError as e:
            _raise(e)
        return ClipResult(frames, summary)


_SCALERS = {name: ssimd_pb2.Scaler.Value("SCALER_" + name.upper())
            for name in ("bicubic", "bilinear", "lanczos", "spline", "neighbor")}


def _upscale(scaler, accurate_rounding):
    """libswscale's flags=<scaler>[+accurate_rnd], as ffmpeg's scale filter takes them."""
    if scaler not in _SCALERS:
        raise ValueError(f"scaler: expected one of {', '.join(_SCALERS)}, got {scaler!r}")
    return ssimd_pb2.UpscaleOptions(scaler=_SCALERS[scaler], accurate_rounding=accurate_rounding)


def _encode_string_field(number, text):
    data = text.encode("utf-8")
    if not data:
        return b""
    out = bytearray([number << 3 | 2])
    n = len(data)
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            break
    return bytes(out) + data


def _decode_enum_field_1(data):
    """The value of varint field 1 (HealthCheckResponse.status); 0 when absent."""
    i = 0
    while i < len(data):
        key = data[i]
        i += 1
        value = shift = 0
        while True:
            byte = data[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        if key == (1 << 3 | 0):
            return value
    return 0
