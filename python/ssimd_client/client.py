"""The ssimd client: connection, health, capabilities, pairs, clips, files, ladders, uploads."""

import collections
import concurrent.futures
import os
from typing import (Any, Callable, Dict, Generic, Iterable, Iterator, List, Mapping, NoReturn,
                    Optional, Sequence, Tuple, TypeVar, Union)

from ssimd_client.errors import ScoringError, SsimdError  # first: says what to install

import grpc
from ssimd.v1 import ssimd_pb2
from ssimd.v1 import ssimd_pb2_grpc
from ssimd_client.channel import channel_options, channel_target
from ssimd_client.model import (ClipEvent, ClipResult, FramePlanes, Geometry, LadderEvent,
                                LadderResult, features_read_chroma)

__all__ = ["Client", "ClipResult", "DEFAULT_MAX_MESSAGE_BYTES", "Geometry", "LadderResult",
           "ResultStream", "ScoringError", "SsimdError"]

# Fits an 8K 16-bit luma pair, as the server's default limit does.
DEFAULT_MAX_MESSAGE_BYTES = 160 << 20

_PIXEL_FORMATS = {
    "420": ssimd_pb2.PIXEL_FORMAT_420,
    "422": ssimd_pb2.PIXEL_FORMAT_422,
    "444": ssimd_pb2.PIXEL_FORMAT_444,
    "400": ssimd_pb2.PIXEL_FORMAT_400,
}
_BACKENDS = {"auto": ssimd_pb2.BACKEND_AUTO, "gpu": ssimd_pb2.BACKEND_GPU,
             "cpu": ssimd_pb2.BACKEND_CPU}
_HEALTH = {0: "UNKNOWN", 1: "SERVING", 2: "NOT_SERVING", 3: "SERVICE_UNKNOWN"}
_SCALERS = {name: ssimd_pb2.Scaler.Value("SCALER_" + name.upper())
            for name in ("bicubic", "bilinear", "lanczos", "spline", "neighbor")}

Features = Union[str, Sequence[str]]
# One picture of a pair sent by the client: its luma plane alone, or FramePlanes (luma, chroma).
Picture = Union[bytes, FramePlanes, Tuple[bytes, bytes]]
PathLike = Union[str, "os.PathLike[str]"]
RenditionInput = Union[Tuple[str, str], ssimd_pb2.Rendition]
T = TypeVar("T")


def _raise(error: "grpc.RpcError") -> NoReturn:
    raise SsimdError.from_rpc_error(error) from None


def _features(features: Features) -> ssimd_pb2.Features:
    """Feature arguments in libvmaf's syntax; a single string is one feature, not letters."""
    if isinstance(features, str):
        features = [features]
    return ssimd_pb2.Features(feature_args=list(features))


def _geometry(geometry: Geometry) -> ssimd_pb2.Geometry:
    if geometry.pixel_format not in _PIXEL_FORMATS:
        raise ValueError(f"pixel_format must be one of {sorted(_PIXEL_FORMATS)}, "
                         f"got {geometry.pixel_format!r}")
    return ssimd_pb2.Geometry(width=geometry.width, height=geometry.height,
                              bit_depth=geometry.bit_depth,
                              pixel_format=_PIXEL_FORMATS[geometry.pixel_format])


def _planes(picture: Picture) -> Tuple[bytes, bytes]:
    """(luma, chroma) of a picture given as its luma alone (no chroma) or as (luma, chroma)."""
    if isinstance(picture, (bytes, bytearray, memoryview)):
        return picture, b""
    luma, chroma = picture
    return luma, chroma


def _frame_pair(index: int, reference: Picture, distorted: Picture,
                chroma: bool) -> ssimd_pb2.FramePair:
    """The FramePair of one frame; its chroma planes only with `chroma` (a feature reads them),
    so that other clips cost no more than their lumas."""
    reference_luma, reference_chroma = _planes(reference)
    distorted_luma, distorted_chroma = _planes(distorted)
    frame = ssimd_pb2.FramePair(index=index, reference_luma=reference_luma,
                                distorted_luma=distorted_luma)
    if chroma:
        frame.reference_chroma = reference_chroma
        frame.distorted_chroma = distorted_chroma
    return frame


def _pair_request(reference: Picture, distorted: Picture, geometry: Geometry, features: Features,
                  backend: str) -> ssimd_pb2.ScorePairRequest:
    """The ScorePairRequest of one pair, with chroma planes as _frame_pair sends them."""
    frame = _frame_pair(0, reference, distorted,
                        features_read_chroma(features, geometry.pixel_format))
    return ssimd_pb2.ScorePairRequest(
        geometry=_geometry(geometry), features=_features(features), backend=_backend(backend),
        reference_luma=frame.reference_luma, distorted_luma=frame.distorted_luma,
        reference_chroma=frame.reference_chroma, distorted_chroma=frame.distorted_chroma)


def _backend(name: str) -> "ssimd_pb2.Backend":
    if name not in _BACKENDS:
        raise ValueError(f"backend must be one of {sorted(_BACKENDS)}, got {name!r}")
    return _BACKENDS[name]


def _upscale(scaler: str, accurate_rounding: bool) -> ssimd_pb2.UpscaleOptions:
    """libswscale's flags=<scaler>[+accurate_rnd], as ffmpeg's scale filter takes them."""
    if scaler not in _SCALERS:
        raise ValueError(f"scaler: expected one of {', '.join(_SCALERS)}, got {scaler!r}")
    return ssimd_pb2.UpscaleOptions(scaler=_SCALERS[scaler], accurate_rounding=accurate_rounding)


def _rendition(rung: RenditionInput) -> ssimd_pb2.Rendition:
    if isinstance(rung, ssimd_pb2.Rendition):
        return rung
    name, path = rung
    return ssimd_pb2.Rendition(name=name, path=path)


class ResultStream(Generic[T]):
    """The results of one streaming call, in the order the server sends them.

    Iterate it (once) to receive them as they arrive; a failed call raises SsimdError from the
    iteration. cancel() ends the call early (a later next() raises SsimdError CANCELLED); used
    as a context manager, the call is cancelled on leaving the block unless it has ended.
    """

    def __init__(self, call: Any, unwrap: Callable[[Any], T]) -> None:
        self._call = call
        self._unwrap = unwrap
        self._ended = False

    def __iter__(self) -> "ResultStream[T]":
        return self

    def __next__(self) -> T:
        try:
            response = next(self._call)
        except StopIteration:
            self._ended = True
            raise
        except grpc.RpcError as error:
            self._ended = True
            raise SsimdError.from_rpc_error(error) from None
        return self._unwrap(response)

    def cancel(self) -> None:
        """Cancels the call; the server stops its work for it."""
        self._call.cancel()

    def __enter__(self) -> "ResultStream[T]":
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._ended:
            self.cancel()


def _clip_event(response: ssimd_pb2.ScoreClipResponse) -> ClipEvent:
    event: ClipEvent = getattr(response, response.WhichOneof("message"))
    return event


def _ladder_event(response: ssimd_pb2.ScoreLadderResponse) -> LadderEvent:
    event: LadderEvent = getattr(response, response.WhichOneof("message"))
    return event


class Client:
    """A connection to one ssimd server, or to several that share its calls.

        with Client("127.0.0.1:50051") as client:
            print(client.score_pair(ref_luma, dist_luma, Geometry(1920, 1080)).scores)

    `target` is host:port, a comma list of IP:PORT, or dns:///NAME:PORT; a list or a DNS name
    spreads calls round-robin over the servers whose health says SERVING. Calls that get no
    answer from a server (UNAVAILABLE) are retried, except ScoreClip and UploadFile, whose
    requests are a stream. `credentials` (grpc.ssl_channel_credentials(...)) makes it TLS.
    Every call raises SsimdError when it fails, and ValueError for arguments that are wrong
    before anything is sent. A Client may be shared by threads. Close it (or leave the with
    block) to release the connection.
    """

    def __init__(self, target: str = "127.0.0.1:50051",
                 credentials: Optional["grpc.ChannelCredentials"] = None,
                 max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
        # ValueError when a comma list is malformed (channel.py).
        target = channel_target(target)
        options = channel_options(target, max_message_bytes)
        if credentials is None:
            self._channel = grpc.insecure_channel(target, options=options)
        else:
            self._channel = grpc.secure_channel(target, credentials, options=options)
        stub_class: Any = ssimd_pb2_grpc.ScoringServiceStub  # generated without types
        self._stub: Any = stub_class(self._channel)
        # The standard health messages are one string and one enum; plain bytes avoid needing
        # the grpc_health package, which Debian does not ship.
        self._health_check = self._channel.unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=lambda service: _encode_string_field(1, service),
            response_deserializer=_decode_enum_field_1)

    def close(self) -> None:
        """Closes the connection; calls still running end with CANCELLED."""
        self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the server ---------------------------------------------------------------------

    def health(self, service: str = "", timeout: Optional[float] = 5.0) -> str:
        """The server's health: "SERVING", "NOT_SERVING" (e.g. while it drains), "UNKNOWN" or
        "SERVICE_UNKNOWN", for `service` ("" = the whole server, or
        "ssimd.v1.ScoringService")."""
        try:
            status: int = self._health_check(service, timeout=timeout)
        except grpc.RpcError as e:
            _raise(e)
        return _HEALTH.get(status, "UNKNOWN")

    def capabilities(self, timeout: Optional[float] = 10.0) -> ssimd_pb2.Capabilities:
        """GetCapabilities: version, devices, features and their options, limits, decoders."""
        try:
            answer: ssimd_pb2.Capabilities = self._stub.GetCapabilities(
                ssimd_pb2.GetCapabilitiesRequest(), timeout=timeout)
        except grpc.RpcError as e:
            _raise(e)
        return answer

    # --- pictures sent by the client ----------------------------------------------------

    def score_pair(self, reference_luma: bytes, distorted_luma: bytes, geometry: Geometry,
                   features: Features = ("float_ssim",), backend: str = "auto",
                   timeout: Optional[float] = 60.0, *, reference_chroma: bytes = b"",
                   distorted_chroma: bytes = b"") -> ssimd_pb2.FrameResult:
        """Scores one picture pair (ScorePair) and returns its FrameResult.

        The lumas are tightly packed planes of `geometry` (width * height bytes at 8 bits, two
        bytes a sample, little-endian, above). `features` are libvmaf's arguments, e.g.
        ["float_ssim", "ssim=enable_db=true"]. `backend`: "auto", "gpu" or "cpu". The scores
        are in .scores by metric name.

        Features that read chroma (psnr, whose enable_chroma is true by default, on pictures
        that are not 4:0:0: features_read_chroma) need each picture's chroma planes too: Cb
        then Cr as a planar .yuv frame stores them after its luma (FramePlanes;
        y4m.split_frame splits a whole frame). They are sent only for such features.
        """
        request = _pair_request((reference_luma, reference_chroma),
                                (distorted_luma, distorted_chroma), geometry, features, backend)
        try:
            answer: ssimd_pb2.ScorePairResponse = self._stub.ScorePair(request, timeout=timeout)
        except grpc.RpcError as e:
            _raise(e)
        return answer.result

    def iter_clip(self, frame_pairs: Iterable[Tuple[Picture, Picture]], geometry: Geometry,
                  features: Features = ("float_ssim",), backend: str = "auto",
                  title_id: str = "", rung: str = "", labels: Optional[Mapping[str, str]] = None,
                  percentiles: Sequence[float] = (),
                  timeout: Optional[float] = 3600.0) -> "ResultStream[ClipEvent]":
        """Streams (reference, distorted) pairs through ScoreClip; yields each frame's
        FrameResult as the server finishes it, in order, then the ClipSummary.

        Each picture is its luma plane (bytes) or FramePlanes (luma, chroma), as the readers'
        frames() and planes() yield them. Features that read chroma (psnr with enable_chroma,
        its default, on pictures that are not 4:0:0: features_read_chroma) need FramePlanes,
        e.g. zip(ref.planes(), dist.planes()); for other features only the lumas are sent.

        `frame_pairs` is read (on a gRPC thread) only as fast as the server takes frames, so a
        generator reading a file keeps few frames in memory. `title_id`, `rung` and `labels`
        tag the clip in the server's logs and metrics; `percentiles` (0 to 100) are added to
        the summary's pooled scores.
        """
        config = ssimd_pb2.ClipConfig(
            geometry=_geometry(geometry), features=_features(features),
            backend=_backend(backend), title_id=title_id, rung=rung, labels=labels or {},
            percentiles=list(percentiles))

        chroma = features_read_chroma(features, geometry.pixel_format)

        def requests() -> Iterator[ssimd_pb2.ScoreClipRequest]:
            yield ssimd_pb2.ScoreClipRequest(config=config)
            for index, (reference, distorted) in enumerate(frame_pairs):
                yield ssimd_pb2.ScoreClipRequest(
                    frame=_frame_pair(index, reference, distorted, chroma))

        return ResultStream(self._stub.ScoreClip(requests(), timeout=timeout), _clip_event)

    def score_clip(self, frame_pairs: Iterable[Tuple[Picture, Picture]], geometry: Geometry,
                   features: Features = ("float_ssim",), backend: str = "auto",
                   title_id: str = "", rung: str = "", labels: Optional[Mapping[str, str]] = None,
                   percentiles: Sequence[float] = (), timeout: Optional[float] = 3600.0,
                   on_frame: Optional[Callable[[ssimd_pb2.FrameResult], None]] = None
                   ) -> ClipResult:
        """iter_clip, collected: returns a ClipResult (the FrameResults in order and the
        ClipSummary). `on_frame` is called with each FrameResult as it arrives."""
        return _collect(self.iter_clip(frame_pairs, geometry, features, backend, title_id, rung,
                                       labels, percentiles, timeout), on_frame)

    # --- files read by the server -------------------------------------------------------

    def iter_files(self, reference_path: str, distorted_path: str,
                   geometry: Optional[Geometry] = None, features: Features = ("float_ssim",),
                   backend: str = "auto", start_frame: int = 0, frame_count: int = 0,
                   title_id: str = "", timeout: Optional[float] = 3600.0,
                   scaler: str = "bicubic", accurate_rounding: bool = False, *,
                   reference_start_frame: int = 0, distorted_start_frame: int = 0,
                   require_equal_length: bool = False) -> "ResultStream[ClipEvent]":
        """ScoreFiles: the server reads both inputs; yields each frame's FrameResult in order,
        then the ClipSummary.

        Inputs are paths below the server's --files_root, ids that upload() returned, or URLs
        under its --allow_url_prefix: .yuv (give `geometry`), .y4m, or anything FFmpeg decodes.
        A distorted video of another size is brought to the reference's with libswscale's
        `scaler` ("bicubic", "bilinear", "lanczos", "spline", "neighbor"), `accurate_rounding`
        adding its accurate_rnd flag. `start_frame` skips frames of both files, the
        *_start_frame ones of one file; `frame_count` (0 = all) limits the frames scored.
        """
        config = ssimd_pb2.ClipConfig(features=_features(features), backend=_backend(backend),
                                      title_id=title_id)
        if geometry is not None:
            config.geometry.CopyFrom(_geometry(geometry))
        request = ssimd_pb2.ScoreFilesRequest(
            config=config, reference_path=reference_path, distorted_path=distorted_path,
            start_frame=start_frame, frame_count=frame_count,
            upscale=_upscale(scaler, accurate_rounding),
            reference_start_frame=reference_start_frame,
            distorted_start_frame=distorted_start_frame,
            require_equal_length=require_equal_length)
        return ResultStream(self._stub.ScoreFiles(request, timeout=timeout), _clip_event)

    def score_files(self, reference_path: str, distorted_path: str,
                    geometry: Optional[Geometry] = None, features: Features = ("float_ssim",),
                    backend: str = "auto", start_frame: int = 0, frame_count: int = 0,
                    title_id: str = "", timeout: Optional[float] = 3600.0,
                    on_frame: Optional[Callable[[ssimd_pb2.FrameResult], None]] = None,
                    scaler: str = "bicubic", accurate_rounding: bool = False, *,
                    reference_start_frame: int = 0, distorted_start_frame: int = 0,
                    require_equal_length: bool = False) -> ClipResult:
        """iter_files, collected into a ClipResult; `on_frame` sees each FrameResult."""
        return _collect(self.iter_files(
            reference_path, distorted_path, geometry, features, backend, start_frame,
            frame_count, title_id, timeout, scaler, accurate_rounding,
            reference_start_frame=reference_start_frame,
            distorted_start_frame=distorted_start_frame,
            require_equal_length=require_equal_length), on_frame)

    def iter_ladder(self, source_path: str, renditions: Iterable[RenditionInput],
                    features: Features = ("float_ssim",), backend: str = "auto",
                    frame_count: int = 0, title_id: str = "",
                    timeout: Optional[float] = 3600.0, scaler: str = "bicubic",
                    accurate_rounding: bool = False, *, source_start_frame: int = 0,
                    require_equal_length: bool = False) -> "ResultStream[LadderEvent]":
        """ScoreLadder: one source and 1 to 32 renditions, read by the server as iter_files
        reads its inputs; each rendition is upscaled to the source's size with `scaler`.

        `renditions` are (name, path) pairs or ssimd.v1 Rendition messages (for per-rendition
        features, labels or start frames). Yields RenditionFrame (.rendition, .result)
        messages as frames are scored (renditions interleave, each in order), a
        RenditionSummary as each rendition ends, and the LadderSummary last.
        """
        config = ssimd_pb2.ClipConfig(features=_features(features), backend=_backend(backend),
                                      title_id=title_id)
        request = ssimd_pb2.ScoreLadderRequest(
            config=config, source_path=source_path, source_start_frame=source_start_frame,
            frame_count=frame_count, upscale=_upscale(scaler, accurate_rounding),
            renditions=[_rendition(r) for r in renditions],
            require_equal_length=require_equal_length)
        return ResultStream(self._stub.ScoreLadder(request, timeout=timeout), _ladder_event)

    def score_ladder(self, source_path: str, renditions: Sequence[RenditionInput],
                     features: Features = ("float_ssim",), backend: str = "auto",
                     frame_count: int = 0, title_id: str = "",
                     timeout: Optional[float] = 3600.0, spread: bool = False,
                     scaler: str = "bicubic", accurate_rounding: bool = False, *,
                     source_start_frame: int = 0,
                     require_equal_length: bool = False) -> LadderResult:
        """iter_ladder, collected into a LadderResult (frames, summaries and RenditionSummary
        messages by rendition name, and the LadderSummary).

        With spread=True every rendition goes in a call of its own, all at once, so that a
        client of several servers (a comma list or dns:/// target) spreads the ladder over them;
        the results are merged into the same LadderResult as one call gives (the LadderSummary
        is then made here: renditions, the most source frames, the longest call).
        """
        def one(rungs: Sequence[RenditionInput]) -> LadderResult:
            return _collect_ladder(self.iter_ladder(
                source_path, rungs, features, backend, frame_count, title_id, timeout, scaler,
                accurate_rounding, source_start_frame=source_start_frame,
                require_equal_length=require_equal_length))

        renditions = list(renditions)
        if not spread:
            return one(renditions)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(renditions))) as pool:
            parts = list(pool.map(lambda rung: one([rung]), renditions))
        frames: Dict[str, List[ssimd_pb2.FrameResult]] = {}
        summaries: Dict[str, ssimd_pb2.ClipSummary] = {}
        infos: Dict[str, ssimd_pb2.RenditionSummary] = {}
        for part in parts:
            frames.update(part.frames)
            summaries.update(part.summaries)
            infos.update(part.renditions)
        ladder = ssimd_pb2.LadderSummary(
            renditions=len(renditions),
            source_frames=max((p.ladder.source_frames for p in parts if p.ladder), default=0),
            elapsed_seconds=max((p.ladder.elapsed_seconds for p in parts if p.ladder),
                                default=0.0))
        return LadderResult(frames, summaries, ladder, infos)

    # --- uploads ------------------------------------------------------------------------

    def upload(self, path: PathLike, timeout: Optional[float] = 3600.0,
               chunk_bytes: int = 1 << 20) -> str:
        """UploadFile: sends the local file `path` to the server's upload spool and returns the
        id ("upload:...") to give score_files, score_ladder and their iter_ forms as a path.
        The server keeps it for a while (its --upload_ttl). SsimdError FAILED_PRECONDITION
        when the server takes no uploads (no --upload_dir)."""
        path = os.fspath(path)

        def chunks() -> Iterator[ssimd_pb2.UploadChunk]:
            with open(path, "rb") as f:
                name = os.path.basename(path)
                while True:
                    data = f.read(chunk_bytes)
                    yield ssimd_pb2.UploadChunk(file_name=name, data=data)
                    name = ""
                    if len(data) < chunk_bytes:
                        return

        if not os.path.isfile(path):
            raise FileNotFoundError(path)
        try:
            receipt: ssimd_pb2.UploadReceipt = self._stub.UploadFile(chunks(), timeout=timeout)
        except grpc.RpcError as e:
            _raise(e)
        return receipt.input


def _collect(events: "ResultStream[ClipEvent]",
             on_frame: Optional[Callable[[ssimd_pb2.FrameResult], None]]) -> ClipResult:
    frames: List[ssimd_pb2.FrameResult] = []
    summary = None
    for event in events:
        if isinstance(event, ssimd_pb2.FrameResult):
            frames.append(event)
            if on_frame is not None:
                on_frame(event)
        else:
            summary = event
    return ClipResult(frames, summary)


def _collect_ladder(events: "ResultStream[LadderEvent]") -> LadderResult:
    frames: Dict[str, List[ssimd_pb2.FrameResult]] = collections.defaultdict(list)
    summaries: Dict[str, ssimd_pb2.ClipSummary] = {}
    infos: Dict[str, ssimd_pb2.RenditionSummary] = {}
    ladder = None
    for event in events:
        if isinstance(event, ssimd_pb2.RenditionFrame):
            frames[event.rendition].append(event.result)
        elif isinstance(event, ssimd_pb2.RenditionSummary):
            summaries[event.rendition] = event.summary
            infos[event.rendition] = event
        else:
            ladder = event
    return LadderResult(dict(frames), summaries, ladder, infos)


def _encode_string_field(number: int, text: str) -> bytes:
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


def _decode_enum_field_1(data: bytes) -> int:
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
