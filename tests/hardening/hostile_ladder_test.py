"""ScoreLadder against a client that leaves early: cancels, deadlines and dropped connections at
every point of a ladder (before the first result, mid-ladder, while the last rounds drain), and a
client that stops reading. The server must end each such call, free its slot, and keep serving
other calls, whose results stay exact and in order. Run with Debian's python3 (python3-grpcio).
"""

import os
import random
import signal
import subprocess
import sys
import threading
import time
import unittest

sys.path[:0] = [os.getcwd(), os.path.join(os.getcwd(), "python")]
import grpc  # noqa: E402
from ssimd.v1 import ssimd_pb2, ssimd_pb2_grpc  # noqa: E402
from tests.observability import junit_main  # noqa: E402
from tests.observability import ssimd_harness as h  # noqa: E402

WIDTH, HEIGHT = 64, 32
FRAMES = 600
IDLE_TIMEOUT_S = 2


def write_y4m(path, frames, seed):
    """A 4:2:0 .y4m whose luma changes every frame (so that every score differs)."""
    rng = random.Random(seed)
    base = bytes(rng.randrange(256) for _ in range(WIDTH * HEIGHT))
    chroma = bytes([128]) * (WIDTH * HEIGHT // 2)
    with open(path, "wb") as y4m:
        y4m.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F25:1 Ip C420jpeg\n".encode())
        for index in range(frames):
            shift = index % 251
            luma = bytes((v + shift + (rng.randrange(9) if seed else 0)) % 256 for v in base)
            y4m.write(b"FRAME\n" + luma + chroma)


def ladder_request(renditions=("r1",), source="source.y4m"):
    request = ssimd_pb2.ScoreLadderRequest(source_path=source)
    request.config.features.feature_args.append("float_ssim")
    request.config.title_id = "hostile"
    for name in renditions:
        request.renditions.add(name=name, path=f"{name}.y4m")
    return request


def full_ladder(stub, request, timeout=60):
    """Every message of a ladder that is read to its end: (frames by rendition, kinds)."""
    frames, kinds = {}, []
    for message in stub.ScoreLadder(request, timeout=timeout):
        kind = message.WhichOneof("message")
        kinds.append(kind)
        if kind == "frame":
            result = message.frame.result  # timings differ from call to call; scores may not
            frames.setdefault(message.frame.rendition, []).append(
                (result.index, dict(result.scores)))
    return frames, kinds


# Where a client leaves, in results read: before the first, mid-ladder, and while the last rounds
# drain (the ladder has FRAMES frame results before its summaries).
POINTS = {"before_first": 0, "mid_ladder": FRAMES // 2, "last_rounds": FRAMES - 2}

# A child that starts a ladder, reads some results and dies without closing anything, so that
# the server sees its connection drop.
VANISH = """
import os, signal, sys
sys.path[:0] = [os.getcwd(), os.path.join(os.getcwd(), "python")]
import grpc
from ssimd.v1 import ssimd_pb2, ssimd_pb2_grpc
address, after, request = sys.argv[1], int(sys.argv[2]), sys.stdin.buffer.read()
stub = ssimd_pb2_grpc.ScoringServiceStub(grpc.insecure_channel(address))
call = stub.ScoreLadder(ssimd_pb2.ScoreLadderRequest.FromString(request), timeout=60)
read = 0
while read < after:
    next(call)
    read += 1
print("read", read, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


class HostileLadderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = h.tmpdir()
        write_y4m(os.path.join(cls.root, "source.y4m"), FRAMES, seed=0)
        for seed, name in enumerate(("r1", "r2"), start=1):
            write_y4m(os.path.join(cls.root, f"{name}.y4m"), FRAMES, seed=seed)

    def setUp(self):
        # A server per case: one that dies fails only the case that killed it.
        self.server = h.Server("--backend=cpu", f"--files_root={self.root}",
                               "--max_concurrent_streams=4",
                               f"--stream_idle_timeout={IDLE_TIMEOUT_S}s")
        self.channel = grpc.insecure_channel(self.server.address)
        self.stub = ssimd_pb2_grpc.ScoringServiceStub(self.channel)
        self.expected, _ = full_ladder(self.stub, ladder_request(("r1", "r2")))

    def tearDown(self):
        self.channel.close()
        self.server.stop()

    def active_streams(self):
        return h.total(h.parse_exposition(self.server.scrape()), "ssimd_active_streams")

    def assert_recovered(self, within_s=10):
        """The server is alive, every slot came back, and a whole ladder scores as before."""
        deadline = time.monotonic() + within_s
        while self.active_streams() > 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertIsNone(self.server.process.poll(), "the server died:\n" + self.server.log_text())
        self.assertEqual(self.active_streams(), 0, "a ladder still holds its slot")
        frames, kinds = full_ladder(self.stub, ladder_request(("r1", "r2")))
        self.assertEqual(frames, self.expected)
        self.assertEqual(kinds[-3:], ["rendition_summary", "rendition_summary", "ladder_summary"])

    def with_a_healthy_ladder_beside(self, hostile):
        """Runs `hostile()` while another client scores a whole ladder, which must come out
        exact and in order."""
        outcome = []

        def healthy():
            try:
                outcome.append(full_ladder(self.stub, ladder_request(("r1", "r2")))[0])
            except grpc.RpcError as error:
                outcome.append(error)

        thread = threading.Thread(target=healthy)
        thread.start()
        try:
            hostile()
        finally:
            thread.join(60)
        self.assertEqual(len(outcome), 1, "the healthy ladder did not end")
        self.assertEqual(outcome[0], self.expected, "the healthy ladder beside it was harmed")

    def test_a_cancel_at_any_point_leaves_the_server_serving(self):
        for point, after in POINTS.items():
            with self.subTest(point=point):
                def cancel():
                    call = self.stub.ScoreLadder(ladder_request(("r1", "r2")), timeout=60)
                    for _ in range(after * 2):  # two renditions: two results a source frame
                        next(call)
                    call.cancel()
                    with self.assertRaises(grpc.RpcError) as raised:
                        list(call)
                    self.assertEqual(raised.exception.code(), grpc.StatusCode.CANCELLED)
                self.with_a_healthy_ladder_beside(cancel)
                self.assert_recovered()

    def test_a_deadline_at_any_point_leaves_the_server_serving(self):
        for point, after in POINTS.items():
            with self.subTest(point=point):
                def expire():
                    call = self.stub.ScoreLadder(ladder_request(("r1", "r2")), timeout=3)
                    for _ in range(after * 2):
                        next(call)
                    time.sleep(3.5)  # the deadline passes while the server writes
                    with self.assertRaises(grpc.RpcError) as raised:
                        list(call)
                    self.assertEqual(raised.exception.code(), grpc.StatusCode.DEADLINE_EXCEEDED)
                self.with_a_healthy_ladder_beside(expire)
                self.assert_recovered()

    def test_a_dropped_connection_at_any_point_leaves_the_server_serving(self):
        request = ladder_request(("r1", "r2")).SerializeToString()
        for point, after in POINTS.items():
            with self.subTest(point=point):
                def vanish():
                    child = subprocess.run(
                        [sys.executable, "-c", VANISH, self.server.address, str(after * 2)],
                        input=request, capture_output=True, timeout=60, check=False)
                    self.assertEqual(child.returncode, -signal.SIGKILL, child.stderr.decode())
                self.with_a_healthy_ladder_beside(vanish)
                self.assert_recovered()

    def test_a_client_that_stops_reading_is_ended_by_the_idle_timeout(self):
        # No BDP probe: the window stays small, so the server's writes block once it is full.
        quiet = grpc.insecure_channel(self.server.address, options=[("grpc.http2.bdp_probe", 0)])
        try:
            stub = ssimd_pb2_grpc.ScoringServiceStub(quiet)
            calls = [stub.ScoreLadder(ladder_request(("r1", "r2")), timeout=60) for _ in range(3)]
            time.sleep(0.5)
            self.assertGreaterEqual(self.active_streams(), 1)
            deadline = time.monotonic() + IDLE_TIMEOUT_S + 8
            while self.active_streams() > 0 and time.monotonic() < deadline:
                time.sleep(0.2)
            self.assertEqual(self.active_streams(), 0,
                             "a ladder whose client stopped reading still holds its slot")
            for call in calls:
                call.cancel()
        finally:
            quiet.close()
        idle = [line for line in self.server.json_lines()
                if line.get("msg") == "ladder finished" and "idle" in line.get("error", "")]
        self.assertEqual(len(idle), 3, "each idle ladder's end is logged with its reason")
        self.assertIn("--stream_idle_timeout", idle[0]["error"])
        self.assert_recovered()


if __name__ == "__main__":
    junit_main.main()
