"""The exception every failed ssimd call raises."""

from typing import Any

try:
    import google.protobuf  # noqa: F401
    import grpc
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError(
        "ssimd_client needs the grpcio and protobuf packages: on Debian `apt-get install "
        "python3-grpcio python3-protobuf` (a virtual environment must then be made by Debian's "
        "/usr/bin/python3 with --system-site-packages); elsewhere `pip install grpcio protobuf`"
    ) from error


class SsimdError(Exception):
    """A call the server (or gRPC on the way) ended with a status other than OK.

    Attributes:
        code: the grpc.StatusCode, e.g. grpc.StatusCode.INVALID_ARGUMENT for a request the
            server refused (its details name the field and the value it expects), NOT_FOUND for
            an unknown upload id, UNAVAILABLE when no server could be reached,
            DEADLINE_EXCEEDED when the call's timeout passed, CANCELLED after cancel().
        details: the server's message (str; may be empty).
    """

    code: "grpc.StatusCode"
    details: str

    def __init__(self, code: "grpc.StatusCode", details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details

    def __reduce__(self) -> Any:
        return (type(self), (self.code, self.details))

    @classmethod
    def from_rpc_error(cls, error: "grpc.RpcError") -> "SsimdError":
        """The SsimdError of a failed gRPC call (a grpc.RpcError that is also a grpc.Call)."""
        code = getattr(error, "code", None)
        details = getattr(error, "details", None)
        return cls(code() if callable(code) else grpc.StatusCode.UNKNOWN,
                   (details() if callable(details) else None) or "")


# The name this exception had first; both name the same class.
ScoringError = SsimdError
