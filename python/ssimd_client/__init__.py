"""A small Python client for ssimd, the SSIM scoring service.

    from ssimd_client import Client, Y4mReader

    with Client("127.0.0.1:50051") as client:
        ref, dist = Y4mReader("ref.y4m"), Y4mReader("dist.y4m")
        result = client.score_clip(zip(ref.frames(), dist.frames()), ref.geometry,
                                   features=["float_ssim", "ssim"], title_id="title-1")
        print(result.summary.pooled["float_ssim"].mean)

Works with Debian's python3-grpcio and python3-protobuf; the generated modules live in
python/ssimd/v1 (regenerate them with python/generate_stubs.sh).
"""

from ssimd_client.client import Client, ClipResult, Geometry, LadderResult, ScoringError
from ssimd_client.y4m import RawYuvReader, Y4mReader, write_y4m

__all__ = ["Client", "ClipResult", "Geometry", "LadderResult", "RawYuvReader", "ScoringError",
           "Y4mReader", "write_y4m"]
