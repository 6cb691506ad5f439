"""Client of ssimd, the gRPC service that scores video quality with SSIM.

    from ssimd_client import Client, SsimdError, Y4mReader

    with Client("127.0.0.1:50051") as client:
        ref, dist = Y4mReader("ref.y4m"), Y4mReader("dist.y4m")
        result = client.score_clip(zip(ref.planes(), dist.planes()), ref.geometry,
                                   features=["float_ssim", "psnr"], title_id="title-1")
        print(result.summary.pooled["float_ssim"].mean)

planes() yields each frame's luma and chroma (FramePlanes); the chroma goes out only where a
feature reads it (psnr, whose enable_chroma is on by default: features_read_chroma), so it costs
nothing otherwise. frames() yields lumas alone, enough for the SSIM features.

Client's calls, one per RPC of proto/ssimd/v1/ssimd.proto:

- score_pair: one picture pair; its FrameResult.
- iter_clip / score_clip: frame pairs streamed from the client (ScoreClip).
- iter_files / score_files: two files the server reads (ScoreFiles).
- iter_ladder / score_ladder: a source and its renditions (ScoreLadder).
- upload: a local file into the server's spool, for the two above.
- health, capabilities.

The iter_ forms are iterators of the results as the server sends them (FrameResult messages
then a ClipSummary; for ladders RenditionFrame, RenditionSummary and LadderSummary messages);
the score_ forms collect them into a ClipResult or LadderResult. A failed call raises SsimdError,
whose .code is the grpc.StatusCode and .details the server's message.

Results are the generated messages of ssimd.v1 (the ssimd.v1 package installed beside this one;
ssimd/v1/ssimd_pb2.pyi types them). Runs on grpcio and protobuf, e.g. Debian 12's python3-grpcio
and python3-protobuf.
"""

from ssimd_client.errors import ScoringError, SsimdError  # first: says what to install
from ssimd_client.client import DEFAULT_MAX_MESSAGE_BYTES, Client, ResultStream
from ssimd_client.model import (Capabilities, ClipEvent, ClipResult, ClipSummary, FramePlanes,
                                FrameResult, Geometry, LadderEvent, LadderResult, LadderSummary,
                                PooledScore, Rendition, RenditionFrame, RenditionSummary,
                                features_read_chroma)
from ssimd_client.y4m import RawYuvReader, Y4mReader, split_frame, write_y4m

__version__ = "0.1.0"

__all__ = ["Capabilities", "Client", "ClipEvent", "ClipResult", "ClipSummary",
           "DEFAULT_MAX_MESSAGE_BYTES", "FramePlanes", "FrameResult", "Geometry", "LadderEvent",
           "LadderResult", "LadderSummary", "PooledScore", "RawYuvReader", "Rendition",
           "RenditionFrame", "RenditionSummary", "ResultStream", "ScoringError", "SsimdError",
           "Y4mReader", "__version__", "features_read_chroma", "split_frame", "write_y4m"]
