from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

BACKEND_AUTO: Backend
BACKEND_CPU: Backend
BACKEND_GPU: Backend
DESCRIPTOR: _descriptor.FileDescriptor
PIXEL_FORMAT_400: PixelFormat
PIXEL_FORMAT_420: PixelFormat
PIXEL_FORMAT_422: PixelFormat
PIXEL_FORMAT_444: PixelFormat
PIXEL_FORMAT_UNSPECIFIED: PixelFormat
SCALER_BICUBIC: Scaler
SCALER_BILINEAR: Scaler
SCALER_LANCZOS: Scaler
SCALER_NEIGHBOR: Scaler
SCALER_SPLINE: Scaler

class Capabilities(_message.Message):
    __slots__ = ["decode_engine", "default_backend", "devices", "features", "files_enabled", "gpu_unavailable_reason", "limits", "version", "vmaf_models"]
    DECODE_ENGINE_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_BACKEND_FIELD_NUMBER: _ClassVar[int]
    DEVICES_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    FILES_ENABLED_FIELD_NUMBER: _ClassVar[int]
    GPU_UNAVAILABLE_REASON_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VMAF_MODELS_FIELD_NUMBER: _ClassVar[int]
    decode_engine: DecodeEngine
    default_backend: str
    devices: _containers.RepeatedCompositeFieldContainer[Device]
    features: _containers.RepeatedCompositeFieldContainer[FeatureInfo]
    files_enabled: bool
    gpu_unavailable_reason: str
    limits: Limits
    version: str
    vmaf_models: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, version: _Optional[str] = ..., default_backend: _Optional[str] = ..., gpu_unavailable_reason: _Optional[str] = ..., devices: _Optional[_Iterable[_Union[Device, _Mapping]]] = ..., features: _Optional[_Iterable[_Union[FeatureInfo, _Mapping]]] = ..., limits: _Optional[_Union[Limits, _Mapping]] = ..., files_enabled: bool = ..., decode_engine: _Optional[_Union[DecodeEngine, _Mapping]] = ..., vmaf_models: _Optional[_Iterable[str]] = ...) -> None: ...

class ClipConfig(_message.Message):
    __slots__ = ["backend", "features", "geometry", "labels", "percentiles", "rung", "title_id"]
    class LabelsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    GEOMETRY_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    PERCENTILES_FIELD_NUMBER: _ClassVar[int]
    RUNG_FIELD_NUMBER: _ClassVar[int]
    TITLE_ID_FIELD_NUMBER: _ClassVar[int]
    backend: Backend
    features: Features
    geometry: Geometry
    labels: _containers.ScalarMap[str, str]
    percentiles: _containers.RepeatedScalarFieldContainer[float]
    rung: str
    title_id: str
    def __init__(self, geometry: _Optional[_Union[Geometry, _Mapping]] = ..., features: _Optional[_Union[Features, _Mapping]] = ..., backend: _Optional[_Union[Backend, str]] = ..., title_id: _Optional[str] = ..., rung: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., percentiles: _Optional[_Iterable[float]] = ...) -> None: ...

class ClipSummary(_message.Message):
    __slots__ = ["aggregate", "elapsed_seconds", "fallback_frames", "frames", "frames_by_backend", "pooled", "unmatched_distorted_frames", "unmatched_reference_frames"]
    class AggregateEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    class FramesByBackendEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class PooledEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: PooledScore
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[PooledScore, _Mapping]] = ...) -> None: ...
    AGGREGATE_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_SECONDS_FIELD_NUMBER: _ClassVar[int]
    FALLBACK_FRAMES_FIELD_NUMBER: _ClassVar[int]
    FRAMES_BY_BACKEND_FIELD_NUMBER: _ClassVar[int]
    FRAMES_FIELD_NUMBER: _ClassVar[int]
    POOLED_FIELD_NUMBER: _ClassVar[int]
    UNMATCHED_DISTORTED_FRAMES_FIELD_NUMBER: _ClassVar[int]
    UNMATCHED_REFERENCE_FRAMES_FIELD_NUMBER: _ClassVar[int]
    aggregate: _containers.ScalarMap[str, float]
    elapsed_seconds: float
    fallback_frames: int
    frames: int
    frames_by_backend: _containers.ScalarMap[str, int]
    pooled: _containers.MessageMap[str, PooledScore]
    unmatched_distorted_frames: int
    unmatched_reference_frames: int
    def __init__(self, frames: _Optional[int] = ..., pooled: _Optional[_Mapping[str, PooledScore]] = ..., frames_by_backend: _Optional[_Mapping[str, int]] = ..., fallback_frames: _Optional[int] = ..., elapsed_seconds: _Optional[float] = ..., unmatched_reference_frames: _Optional[int] = ..., unmatched_distorted_frames: _Optional[int] = ..., aggregate: _Optional[_Mapping[str, float]] = ...) -> None: ...

class DecodeEngine(_message.Message):
    __slots__ = ["api", "codecs", "device", "engine_utilization", "engine_utilization_unavailable_reason", "engines", "frames_decoded", "max_sessions", "profiles", "profiles_unknown_reason", "sessions_in_use", "unavailable_reason"]
    API_FIELD_NUMBER: _ClassVar[int]
    CODECS_FIELD_NUMBER: _ClassVar[int]
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    ENGINES_FIELD_NUMBER: _ClassVar[int]
    ENGINE_UTILIZATION_FIELD_NUMBER: _ClassVar[int]
    ENGINE_UTILIZATION_UNAVAILABLE_REASON_FIELD_NUMBER: _ClassVar[int]
    FRAMES_DECODED_FIELD_NUMBER: _ClassVar[int]
    MAX_SESSIONS_FIELD_NUMBER: _ClassVar[int]
    PROFILES_FIELD_NUMBER: _ClassVar[int]
    PROFILES_UNKNOWN_REASON_FIELD_NUMBER: _ClassVar[int]
    SESSIONS_IN_USE_FIELD_NUMBER: _ClassVar[int]
    UNAVAILABLE_REASON_FIELD_NUMBER: _ClassVar[int]
    api: str
    codecs: _containers.RepeatedScalarFieldContainer[str]
    device: str
    engine_utilization: float
    engine_utilization_unavailable_reason: str
    engines: int
    frames_decoded: int
    max_sessions: int
    profiles: _containers.RepeatedCompositeFieldContainer[DecodeProfile]
    profiles_unknown_reason: str
    sessions_in_use: int
    unavailable_reason: str
    def __init__(self, api: _Optional[str] = ..., unavailable_reason: _Optional[str] = ..., codecs: _Optional[_Iterable[str]] = ..., max_sessions: _Optional[int] = ..., sessions_in_use: _Optional[int] = ..., frames_decoded: _Optional[int] = ..., profiles: _Optional[_Iterable[_Union[DecodeProfile, _Mapping]]] = ..., profiles_unknown_reason: _Optional[str] = ..., engines: _Optional[int] = ..., device: _Optional[str] = ..., engine_utilization: _Optional[float] = ..., engine_utilization_unavailable_reason: _Optional[str] = ...) -> None: ...

class DecodeProfile(_message.Message):
    __slots__ = ["bit_depth", "chroma", "codec", "engines", "max_height", "max_macroblocks", "max_width", "min_height", "min_width"]
    BIT_DEPTH_FIELD_NUMBER: _ClassVar[int]
    CHROMA_FIELD_NUMBER: _ClassVar[int]
    CODEC_FIELD_NUMBER: _ClassVar[int]
    ENGINES_FIELD_NUMBER: _ClassVar[int]
    MAX_HEIGHT_FIELD_NUMBER: _ClassVar[int]
    MAX_MACROBLOCKS_FIELD_NUMBER: _ClassVar[int]
    MAX_WIDTH_FIELD_NUMBER: _ClassVar[int]
    MIN_HEIGHT_FIELD_NUMBER: _ClassVar[int]
    MIN_WIDTH_FIELD_NUMBER: _ClassVar[int]
    bit_depth: int
    chroma: str
    codec: str
    engines: int
    max_height: int
    max_macroblocks: int
    max_width: int
    min_height: int
    min_width: int
    def __init__(self, codec: _Optional[str] = ..., chroma: _Optional[str] = ..., bit_depth: _Optional[int] = ..., max_width: _Optional[int] = ..., max_height: _Optional[int] = ..., min_width: _Optional[int] = ..., min_height: _Optional[int] = ..., max_macroblocks: _Optional[int] = ..., engines: _Optional[int] = ...) -> None: ...

class Device(_message.Message):
    __slots__ = ["arch", "has_code", "healthy", "index", "name", "slots_total", "total_memory_bytes"]
    ARCH_FIELD_NUMBER: _ClassVar[int]
    HAS_CODE_FIELD_NUMBER: _ClassVar[int]
    HEALTHY_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SLOTS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    TOTAL_MEMORY_BYTES_FIELD_NUMBER: _ClassVar[int]
    arch: str
    has_code: bool
    healthy: bool
    index: int
    name: str
    slots_total: int
    total_memory_bytes: int
    def __init__(self, index: _Optional[int] = ..., name: _Optional[str] = ..., arch: _Optional[str] = ..., total_memory_bytes: _Optional[int] = ..., slots_total: _Optional[int] = ..., healthy: bool = ..., has_code: bool = ...) -> None: ...

class FeatureInfo(_message.Message):
    __slots__ = ["name", "options", "outputs"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    OUTPUTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    options: _containers.RepeatedCompositeFieldContainer[OptionInfo]
    outputs: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., options: _Optional[_Iterable[_Union[OptionInfo, _Mapping]]] = ..., outputs: _Optional[_Iterable[str]] = ...) -> None: ...

class Features(_message.Message):
    __slots__ = ["feature_args", "float_ssim", "ssim"]
    FEATURE_ARGS_FIELD_NUMBER: _ClassVar[int]
    FLOAT_SSIM_FIELD_NUMBER: _ClassVar[int]
    SSIM_FIELD_NUMBER: _ClassVar[int]
    feature_args: _containers.RepeatedScalarFieldContainer[str]
    float_ssim: FloatSsimOptions
    ssim: IntegerSsimOptions
    def __init__(self, float_ssim: _Optional[_Union[FloatSsimOptions, _Mapping]] = ..., ssim: _Optional[_Union[IntegerSsimOptions, _Mapping]] = ..., feature_args: _Optional[_Iterable[str]] = ...) -> None: ...

class FloatSsimOptions(_message.Message):
    __slots__ = ["clip_db", "enable_db", "enable_lcs", "scale"]
    CLIP_DB_FIELD_NUMBER: _ClassVar[int]
    ENABLE_DB_FIELD_NUMBER: _ClassVar[int]
    ENABLE_LCS_FIELD_NUMBER: _ClassVar[int]
    SCALE_FIELD_NUMBER: _ClassVar[int]
    clip_db: bool
    enable_db: bool
    enable_lcs: bool
    scale: int
    def __init__(self, scale: _Optional[int] = ..., enable_db: bool = ..., clip_db: bool = ..., enable_lcs: bool = ...) -> None: ...

class FramePair(_message.Message):
    __slots__ = ["distorted_chroma", "distorted_luma", "index", "reference_chroma", "reference_luma"]
    DISTORTED_CHROMA_FIELD_NUMBER: _ClassVar[int]
    DISTORTED_LUMA_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_CHROMA_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_LUMA_FIELD_NUMBER: _ClassVar[int]
    distorted_chroma: bytes
    distorted_luma: bytes
    index: int
    reference_chroma: bytes
    reference_luma: bytes
    def __init__(self, index: _Optional[int] = ..., reference_luma: _Optional[bytes] = ..., distorted_luma: _Optional[bytes] = ..., reference_chroma: _Optional[bytes] = ..., distorted_chroma: _Optional[bytes] = ...) -> None: ...

class FrameResult(_message.Message):
    __slots__ = ["backend", "fallback_reason", "index", "scores", "sums", "timings"]
    class ScoresEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    class SumsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    FALLBACK_REASON_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    SUMS_FIELD_NUMBER: _ClassVar[int]
    TIMINGS_FIELD_NUMBER: _ClassVar[int]
    backend: str
    fallback_reason: str
    index: int
    scores: _containers.ScalarMap[str, float]
    sums: _containers.ScalarMap[str, int]
    timings: StageTimings
    def __init__(self, index: _Optional[int] = ..., scores: _Optional[_Mapping[str, float]] = ..., backend: _Optional[str] = ..., fallback_reason: _Optional[str] = ..., timings: _Optional[_Union[StageTimings, _Mapping]] = ..., sums: _Optional[_Mapping[str, int]] = ...) -> None: ...

class Geometry(_message.Message):
    __slots__ = ["bit_depth", "height", "pixel_format", "width"]
    BIT_DEPTH_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    PIXEL_FORMAT_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    bit_depth: int
    height: int
    pixel_format: PixelFormat
    width: int
    def __init__(self, width: _Optional[int] = ..., height: _Optional[int] = ..., bit_depth: _Optional[int] = ..., pixel_format: _Optional[_Union[PixelFormat, str]] = ...) -> None: ...

class GetCapabilitiesRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class IntegerSsimOptions(_message.Message):
    __slots__ = ["enable_db", "exact", "fast_sum"]
    ENABLE_DB_FIELD_NUMBER: _ClassVar[int]
    EXACT_FIELD_NUMBER: _ClassVar[int]
    FAST_SUM_FIELD_NUMBER: _ClassVar[int]
    enable_db: bool
    exact: bool
    fast_sum: bool
    def __init__(self, enable_db: bool = ..., exact: bool = ..., fast_sum: bool = ...) -> None: ...

class LadderSummary(_message.Message):
    __slots__ = ["elapsed_seconds", "renditions", "source_frames"]
    ELAPSED_SECONDS_FIELD_NUMBER: _ClassVar[int]
    RENDITIONS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FRAMES_FIELD_NUMBER: _ClassVar[int]
    elapsed_seconds: float
    renditions: int
    source_frames: int
    def __init__(self, renditions: _Optional[int] = ..., source_frames: _Optional[int] = ..., elapsed_seconds: _Optional[float] = ...) -> None: ...

class Limits(_message.Message):
    __slots__ = ["bit_depths", "max_concurrent_streams", "max_dimension", "max_frames_in_flight_per_stream", "max_message_bytes", "max_pixels", "pixel_formats"]
    BIT_DEPTHS_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENT_STREAMS_FIELD_NUMBER: _ClassVar[int]
    MAX_DIMENSION_FIELD_NUMBER: _ClassVar[int]
    MAX_FRAMES_IN_FLIGHT_PER_STREAM_FIELD_NUMBER: _ClassVar[int]
    MAX_MESSAGE_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_PIXELS_FIELD_NUMBER: _ClassVar[int]
    PIXEL_FORMATS_FIELD_NUMBER: _ClassVar[int]
    bit_depths: _containers.RepeatedScalarFieldContainer[int]
    max_concurrent_streams: int
    max_dimension: int
    max_frames_in_flight_per_stream: int
    max_message_bytes: int
    max_pixels: int
    pixel_formats: _containers.RepeatedScalarFieldContainer[PixelFormat]
    def __init__(self, max_dimension: _Optional[int] = ..., max_pixels: _Optional[int] = ..., max_message_bytes: _Optional[int] = ..., max_concurrent_streams: _Optional[int] = ..., max_frames_in_flight_per_stream: _Optional[int] = ..., bit_depths: _Optional[_Iterable[int]] = ..., pixel_formats: _Optional[_Iterable[_Union[PixelFormat, str]]] = ...) -> None: ...

class OptionInfo(_message.Message):
    __slots__ = ["default_value", "description", "max", "min", "name", "type"]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    MIN_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    default_value: str
    description: str
    max: str
    min: str
    name: str
    type: str
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ..., default_value: _Optional[str] = ..., min: _Optional[str] = ..., max: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class Percentile(_message.Message):
    __slots__ = ["percentile", "value"]
    PERCENTILE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    percentile: float
    value: float
    def __init__(self, percentile: _Optional[float] = ..., value: _Optional[float] = ...) -> None: ...

class PooledScore(_message.Message):
    __slots__ = ["harmonic_mean", "max", "mean", "min", "percentiles"]
    HARMONIC_MEAN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    MEAN_FIELD_NUMBER: _ClassVar[int]
    MIN_FIELD_NUMBER: _ClassVar[int]
    PERCENTILES_FIELD_NUMBER: _ClassVar[int]
    harmonic_mean: float
    max: float
    mean: float
    min: float
    percentiles: _containers.RepeatedCompositeFieldContainer[Percentile]
    def __init__(self, mean: _Optional[float] = ..., min: _Optional[float] = ..., max: _Optional[float] = ..., harmonic_mean: _Optional[float] = ..., percentiles: _Optional[_Iterable[_Union[Percentile, _Mapping]]] = ...) -> None: ...

class Rendition(_message.Message):
    __slots__ = ["features", "labels", "name", "path", "start_frame"]
    class LabelsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    START_FRAME_FIELD_NUMBER: _ClassVar[int]
    features: Features
    labels: _containers.ScalarMap[str, str]
    name: str
    path: str
    start_frame: int
    def __init__(self, name: _Optional[str] = ..., path: _Optional[str] = ..., features: _Optional[_Union[Features, _Mapping]] = ..., labels: _Optional[_Mapping[str, str]] = ..., start_frame: _Optional[int] = ...) -> None: ...

class RenditionFrame(_message.Message):
    __slots__ = ["rendition", "result"]
    RENDITION_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    rendition: str
    result: FrameResult
    def __init__(self, rendition: _Optional[str] = ..., result: _Optional[_Union[FrameResult, _Mapping]] = ...) -> None: ...

class RenditionSummary(_message.Message):
    __slots__ = ["bitrate_bits_per_second", "codec", "decode_backend", "decode_fallback_detail", "decode_fallback_reason", "height", "rendition", "size_bytes", "summary", "upscale", "upscale_fallback_reason", "width"]
    BITRATE_BITS_PER_SECOND_FIELD_NUMBER: _ClassVar[int]
    CODEC_FIELD_NUMBER: _ClassVar[int]
    DECODE_BACKEND_FIELD_NUMBER: _ClassVar[int]
    DECODE_FALLBACK_DETAIL_FIELD_NUMBER: _ClassVar[int]
    DECODE_FALLBACK_REASON_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    RENDITION_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    UPSCALE_FALLBACK_REASON_FIELD_NUMBER: _ClassVar[int]
    UPSCALE_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    bitrate_bits_per_second: float
    codec: str
    decode_backend: str
    decode_fallback_detail: str
    decode_fallback_reason: str
    height: int
    rendition: str
    size_bytes: int
    summary: ClipSummary
    upscale: str
    upscale_fallback_reason: str
    width: int
    def __init__(self, rendition: _Optional[str] = ..., summary: _Optional[_Union[ClipSummary, _Mapping]] = ..., bitrate_bits_per_second: _Optional[float] = ..., size_bytes: _Optional[int] = ..., codec: _Optional[str] = ..., width: _Optional[int] = ..., height: _Optional[int] = ..., upscale: _Optional[str] = ..., upscale_fallback_reason: _Optional[str] = ..., decode_backend: _Optional[str] = ..., decode_fallback_reason: _Optional[str] = ..., decode_fallback_detail: _Optional[str] = ...) -> None: ...

class ScoreClipRequest(_message.Message):
    __slots__ = ["config", "frame"]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    FRAME_FIELD_NUMBER: _ClassVar[int]
    config: ClipConfig
    frame: FramePair
    def __init__(self, config: _Optional[_Union[ClipConfig, _Mapping]] = ..., frame: _Optional[_Union[FramePair, _Mapping]] = ...) -> None: ...

class ScoreClipResponse(_message.Message):
    __slots__ = ["frame", "summary"]
    FRAME_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    frame: FrameResult
    summary: ClipSummary
    def __init__(self, frame: _Optional[_Union[FrameResult, _Mapping]] = ..., summary: _Optional[_Union[ClipSummary, _Mapping]] = ...) -> None: ...

class ScoreFilesRequest(_message.Message):
    __slots__ = ["config", "distorted_path", "distorted_start_frame", "frame_count", "reference_path", "reference_start_frame", "require_equal_length", "start_frame", "upscale"]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    DISTORTED_PATH_FIELD_NUMBER: _ClassVar[int]
    DISTORTED_START_FRAME_FIELD_NUMBER: _ClassVar[int]
    FRAME_COUNT_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_PATH_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_START_FRAME_FIELD_NUMBER: _ClassVar[int]
    REQUIRE_EQUAL_LENGTH_FIELD_NUMBER: _ClassVar[int]
    START_FRAME_FIELD_NUMBER: _ClassVar[int]
    UPSCALE_FIELD_NUMBER: _ClassVar[int]
    config: ClipConfig
    distorted_path: str
    distorted_start_frame: int
    frame_count: int
    reference_path: str
    reference_start_frame: int
    require_equal_length: bool
    start_frame: int
    upscale: UpscaleOptions
    def __init__(self, config: _Optional[_Union[ClipConfig, _Mapping]] = ..., reference_path: _Optional[str] = ..., distorted_path: _Optional[str] = ..., start_frame: _Optional[int] = ..., frame_count: _Optional[int] = ..., upscale: _Optional[_Union[UpscaleOptions, _Mapping]] = ..., reference_start_frame: _Optional[int] = ..., distorted_start_frame: _Optional[int] = ..., require_equal_length: bool = ...) -> None: ...

class ScoreLadderRequest(_message.Message):
    __slots__ = ["config", "frame_count", "renditions", "require_equal_length", "source_path", "source_start_frame", "upscale"]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    FRAME_COUNT_FIELD_NUMBER: _ClassVar[int]
    RENDITIONS_FIELD_NUMBER: _ClassVar[int]
    REQUIRE_EQUAL_LENGTH_FIELD_NUMBER: _ClassVar[int]
    SOURCE_PATH_FIELD_NUMBER: _ClassVar[int]
    SOURCE_START_FRAME_FIELD_NUMBER: _ClassVar[int]
    UPSCALE_FIELD_NUMBER: _ClassVar[int]
    config: ClipConfig
    frame_count: int
    renditions: _containers.RepeatedCompositeFieldContainer[Rendition]
    require_equal_length: bool
    source_path: str
    source_start_frame: int
    upscale: UpscaleOptions
    def __init__(self, config: _Optional[_Union[ClipConfig, _Mapping]] = ..., source_path: _Optional[str] = ..., source_start_frame: _Optional[int] = ..., renditions: _Optional[_Iterable[_Union[Rendition, _Mapping]]] = ..., upscale: _Optional[_Union[UpscaleOptions, _Mapping]] = ..., frame_count: _Optional[int] = ..., require_equal_length: bool = ...) -> None: ...

class ScoreLadderResponse(_message.Message):
    __slots__ = ["frame", "ladder_summary", "rendition_summary"]
    FRAME_FIELD_NUMBER: _ClassVar[int]
    LADDER_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    RENDITION_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    frame: RenditionFrame
    ladder_summary: LadderSummary
    rendition_summary: RenditionSummary
    def __init__(self, frame: _Optional[_Union[RenditionFrame, _Mapping]] = ..., rendition_summary: _Optional[_Union[RenditionSummary, _Mapping]] = ..., ladder_summary: _Optional[_Union[LadderSummary, _Mapping]] = ...) -> None: ...

class ScorePairRequest(_message.Message):
    __slots__ = ["backend", "distorted_chroma", "distorted_luma", "features", "geometry", "reference_chroma", "reference_luma"]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    DISTORTED_CHROMA_FIELD_NUMBER: _ClassVar[int]
    DISTORTED_LUMA_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    GEOMETRY_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_CHROMA_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_LUMA_FIELD_NUMBER: _ClassVar[int]
    backend: Backend
    distorted_chroma: bytes
    distorted_luma: bytes
    features: Features
    geometry: Geometry
    reference_chroma: bytes
    reference_luma: bytes
    def __init__(self, geometry: _Optional[_Union[Geometry, _Mapping]] = ..., features: _Optional[_Union[Features, _Mapping]] = ..., backend: _Optional[_Union[Backend, str]] = ..., reference_luma: _Optional[bytes] = ..., distorted_luma: _Optional[bytes] = ..., reference_chroma: _Optional[bytes] = ..., distorted_chroma: _Optional[bytes] = ...) -> None: ...

class ScorePairResponse(_message.Message):
    __slots__ = ["result"]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: FrameResult
    def __init__(self, result: _Optional[_Union[FrameResult, _Mapping]] = ...) -> None: ...

class StageTimings(_message.Message):
    __slots__ = ["compute", "host_finish", "queue_wait", "readback", "total", "upload"]
    COMPUTE_FIELD_NUMBER: _ClassVar[int]
    HOST_FINISH_FIELD_NUMBER: _ClassVar[int]
    QUEUE_WAIT_FIELD_NUMBER: _ClassVar[int]
    READBACK_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    UPLOAD_FIELD_NUMBER: _ClassVar[int]
    compute: float
    host_finish: float
    queue_wait: float
    readback: float
    total: float
    upload: float
    def __init__(self, queue_wait: _Optional[float] = ..., upload: _Optional[float] = ..., compute: _Optional[float] = ..., readback: _Optional[float] = ..., host_finish: _Optional[float] = ..., total: _Optional[float] = ...) -> None: ...

class UploadChunk(_message.Message):
    __slots__ = ["data", "file_name"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    file_name: str
    def __init__(self, file_name: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class UploadReceipt(_message.Message):
    __slots__ = ["expires_in_seconds", "input", "size_bytes"]
    EXPIRES_IN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    expires_in_seconds: int
    input: str
    size_bytes: int
    def __init__(self, input: _Optional[str] = ..., size_bytes: _Optional[int] = ..., expires_in_seconds: _Optional[int] = ...) -> None: ...

class UpscaleOptions(_message.Message):
    __slots__ = ["accurate_rounding", "scaler"]
    ACCURATE_ROUNDING_FIELD_NUMBER: _ClassVar[int]
    SCALER_FIELD_NUMBER: _ClassVar[int]
    accurate_rounding: bool
    scaler: Scaler
    def __init__(self, scaler: _Optional[_Union[Scaler, str]] = ..., accurate_rounding: bool = ...) -> None: ...

class PixelFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Backend(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Scaler(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
