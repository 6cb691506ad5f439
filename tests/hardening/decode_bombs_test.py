"""Decode bombs against a real ssimd_server: small files whose pictures are huge, of every codec
the server decodes (H.264, HEVC, VP9, AV1, FFV1 4:4:4 16-bit) and a raw .y4m header, named by
path, uploaded and fetched from a URL, alone and as the source of a ladder.

Each is refused with RESOURCE_EXHAUSTED naming its picture size and the limit before anything
is decoded, the server stays up, and its peak resident memory stays within its decoded-memory
budget above its idle footprint. Two calls that each fit the budget but not together: the
second waits for the first, then runs, or is refused once --decoded_memory_wait is over. The
bombs are made with Debian's ffmpeg command. Run with Debian's python3 (python3-grpcio).
"""

import functools
import http.server
import os
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

CONFIG = ssimd_pb2.ClipConfig(features=ssimd_pb2.Features(float_ssim=ssimd_pb2.FloatSsimOptions()))
MiB = 1 << 20
# The limit of the test server: bombs just over it encode in a fraction of a second each.
LIMIT_W, LIMIT_H = 640, 360
LIMIT = LIMIT_W * LIMIT_H
BOMB_W, BOMB_H = 1280, 720
# The server's default (engine/picture.h): one bomb is sized just over it.
DEFAULT_LIMIT = 8192 * 4352
WAIT_S = 3
RENDITIONS = 8


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", *args], check=True,
                   capture_output=True, timeout=60)


def encoders():
    listed = subprocess.run(["ffmpeg", "-hide_banner", "-encoders"], capture_output=True,
                            text=True, check=True).stdout
    return {line.split()[1] for line in listed.splitlines()[1:] if len(line.split()) > 1}


def encode(path, size, frames, codec_args, pix_fmt="yuv420p"):
    ffmpeg("-f", "lavfi", "-i", f"testsrc2=s={size}:r=25", "-frames:v", str(frames),
           "-pix_fmt", pix_fmt, *codec_args, path)


# Whichever AV1 encoder this ffmpeg has, at its fastest.
AV1_ENCODERS = [("libsvtav1", ["-c:v", "libsvtav1", "-preset", "12"]),
                ("libaom-av1", ["-c:v", "libaom-av1", "-cpu-used", "8", "-usage", "realtime"]),
                ("librav1e", ["-c:v", "librav1e", "-speed", "10"])]


def small_y4m(path, frames=3):
    with open(path, "wb") as out:
        out.write(b"YUV4MPEG2 W64 H32 F25:1 Ip C420jpeg\n")
        out.write((b"FRAME\n" + bytes([100]) * (64 * 32 * 3 // 2)) * frames)


def vm_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/{pid}/status")


class QuietFiles(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve_directory(root):
    handler = functools.partial(QuietFiles, directory=root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def call_files(stub, reference, distorted, timeout=60, frame_count=0):
    """(code, details) of a ScoreFiles call read to its end."""
    request = ssimd_pb2.ScoreFilesRequest(reference_path=reference, distorted_path=distorted,
                                          config=CONFIG, frame_count=frame_count)
    try:
        for _ in stub.ScoreFiles(request, timeout=timeout):
            pass
        return grpc.StatusCode.OK, ""
    except grpc.RpcError as error:
        return error.code(), error.details()


def call_ladder(stub, source, renditions, timeout=60):
    request = ssimd_pb2.ScoreLadderRequest(source_path=source, config=CONFIG)
    for i, path in enumerate(renditions):
        request.renditions.add(name=f"r{i}", path=path)
    try:
        for _ in stub.ScoreLadder(request, timeout=timeout):
            pass
        return grpc.StatusCode.OK, ""
    except grpc.RpcError as error:
        return error.code(), error.details()


class BombServer:
    """A server over `root` with uploads and URLs of `root` turned on, and its idle footprint."""

    def __init__(self, root, web, *flags):
        self.root = root
        self.web = web
        self.server = h.Server("--backend=cpu", f"--files_root={root}",
                               f"--upload_dir={h.tmpdir()}",
                               f"--allow_url_prefix=http://127.0.0.1:{web.server_address[1]}/",
                               "--max_concurrent_streams=8", *flags)
        self.channel = grpc.insecure_channel(self.server.address)
        self.stub = ssimd_pb2_grpc.ScoringServiceStub(self.channel)
        # Idle: after one small call has set up what every call shares.
        code, details = call_files(self.stub, "small.y4m", "small.y4m")
        assert code == grpc.StatusCode.OK, details
        self.idle_kib = vm_kib(self.server.process.pid, "VmRSS")

    def url(self, name):
        return f"http://127.0.0.1:{self.web.server_address[1]}/{name}"

    def upload(self, name):
        with open(os.path.join(self.root, name), "rb") as data:
            body = data.read()
        receipt = self.stub.UploadFile(iter([ssimd_pb2.UploadChunk(file_name=name, data=body)]),
                                       timeout=30)
        return receipt.input

    def ways(self, name):
        """The same file by path, upload and URL."""
        return {"path": name, "upload": self.upload(name), "url": self.url(name)}

    def metric(self, name, **labels):
        return h.total(h.parse_exposition(self.server.scrape()), name, **labels)

    def peak_growth_mib(self):
        return (vm_kib(self.server.process.pid, "VmHWM") - self.idle_kib) / 1024

    def assert_alive(self, test):
        test.assertIsNone(self.server.process.poll(), "the server died:\n" + self.server.log_text())
        code, details = call_files(self.stub, "small.y4m", "small.y4m")
        test.assertEqual(code, grpc.StatusCode.OK, details)

    def stop(self):
        self.channel.close()
        self.server.stop()


class DecodeBombsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = h.tmpdir()
        started = time.monotonic()
        small_y4m(os.path.join(cls.root, "small.y4m"))
        bomb_size = f"{BOMB_W}x{BOMB_H}"
        cls.bombs = {  # name -> the ffmpeg arguments that encode it
            "h264.mp4": ["-c:v", "libx264", "-preset", "ultrafast"],
            "hevc.mp4": ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
                         "log-level=none"],
            "vp9.webm": ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"],
        }
        have = encoders()
        cls.av1_skipped = None
        for encoder, args in AV1_ENCODERS:
            if encoder in have:
                cls.bombs["av1.mkv"] = args
                break
        else:
            cls.av1_skipped = "this ffmpeg has no AV1 encoder (libsvtav1, libaom-av1, librav1e)"
            print("AV1 bomb skipped:", cls.av1_skipped, flush=True)
        for name, args in cls.bombs.items():
            encode(os.path.join(cls.root, name), bomb_size, 2, args)
        encode(os.path.join(cls.root, "ffv1.mkv"), bomb_size, 1, ["-c:v", "ffv1"],
               pix_fmt="yuv444p16le")
        cls.bombs["ffv1.mkv"] = None
        # A header that claims 16000x16000 pictures of 16-bit 4:4:4, and one frame's start.
        with open(os.path.join(cls.root, "huge.y4m"), "wb") as out:
            out.write(b"YUV4MPEG2 W16000 H16000 F25:1 Ip C444p16\nFRAME\n" + bytes(MiB))
        # Just over the default limit, for the server that keeps it.
        encode(os.path.join(cls.root, "over_default.mp4"), "8448x4352", 1,
               ["-c:v", "libx264", "-preset", "ultrafast"])
        # Within the limits: a long pair for the calls that hold memory, and a ladder's rendition.
        encode(os.path.join(cls.root, "long.mp4"), "320x180", 1500,
               ["-c:v", "libx264", "-preset", "ultrafast"])
        encode(os.path.join(cls.root, "within.mp4"), f"{LIMIT_W}x{LIMIT_H}", 2,
               ["-c:v", "libx264", "-preset", "ultrafast"])
        print(f"bombs made in {time.monotonic() - started:.1f}s", flush=True)
        cls.web = serve_directory(cls.root)

    @classmethod
    def tearDownClass(cls):
        cls.web.shutdown()
        cls.web.server_close()

    def assert_refused_for_size(self, code, details, width, height, limit, what):
        self.assertEqual(code, grpc.StatusCode.RESOURCE_EXHAUSTED, f"{what}: {details}")
        self.assertIn(f"{width}x{height} = {width * height} pixels a picture", details, what)
        self.assertIn(f"limit of {limit} pixels a picture (--max_picture_pixels)", details, what)

    def test_bombs_of_every_codec_are_refused_by_path_upload_and_url(self):
        server = BombServer(self.root, self.web, f"--max_picture_pixels={LIMIT}",
                            "--decoded_memory_budget=256M")
        try:
            bombs = [name for name in self.bombs] + ["huge.y4m"]
            for name in bombs:
                width, height = (16000, 16000) if name == "huge.y4m" else (BOMB_W, BOMB_H)
                for way, input_name in server.ways(name).items():
                    what = f"{name} by {way}"
                    code, details = call_files(server.stub, input_name, input_name)
                    self.assert_refused_for_size(code, details, width, height, LIMIT, what)
                    self.assertTrue(details.startswith("reference_path: "), details)
                    server.assert_alive(self)
            refused = server.metric("ssimd_decoded_memory_refusals_total", reason="picture_pixels")
            self.assertEqual(refused, 3 * len(bombs))
            growth = server.peak_growth_mib()
            print(f"limited server: idle {server.idle_kib / 1024:.0f} MiB, peak +{growth:.0f} MiB "
                  f"over {3 * len(bombs)} bombs", flush=True)
            self.assertLess(growth, 256, "peak resident memory passed the budget above idle")
        finally:
            server.stop()

    def test_a_ladder_whose_source_is_a_bomb_is_refused_by_path_upload_and_url(self):
        server = BombServer(self.root, self.web, f"--max_picture_pixels={LIMIT}",
                            "--decoded_memory_budget=256M")
        try:
            for source in ("hevc.mp4", "ffv1.mkv"):
                sources = server.ways(source)
                renditions = server.ways("within.mp4")
                for way in ("path", "upload", "url"):
                    code, details = call_ladder(server.stub, sources[way],
                                                [renditions[way]] * RENDITIONS)
                    self.assert_refused_for_size(code, details, BOMB_W, BOMB_H, LIMIT,
                                                 f"ladder of {source} by {way}")
                    self.assertTrue(details.startswith("source_path: "), details)
                    server.assert_alive(self)
            self.assertLess(server.peak_growth_mib(), 256)
        finally:
            server.stop()

    def test_with_the_default_limit_bombs_are_refused_and_memory_stays_flat(self):
        server = BombServer(self.root, self.web)
        try:
            for name, (width, height) in {"huge.y4m": (16000, 16000),
                                          "over_default.mp4": (8448, 4352)}.items():
                for way, input_name in server.ways(name).items():
                    code, details = call_files(server.stub, input_name, input_name)
                    self.assert_refused_for_size(code, details, width, height, DEFAULT_LIMIT,
                                                 f"{name} by {way}")
                    server.assert_alive(self)
            budget = server.metric("ssimd_decoded_memory_budget_bytes")
            self.assertGreater(budget, 0)
            self.assertLessEqual(budget, 4 << 30)
            growth = server.peak_growth_mib()
            print(f"default server: budget {budget / MiB:.0f} MiB, idle "
                  f"{server.idle_kib / 1024:.0f} MiB, peak +{growth:.0f} MiB", flush=True)
            self.assertLess(growth, budget / MiB)
            # Refused before a picture was decoded: far below one 8K picture's decoder.
            self.assertLess(growth, 128)
        finally:
            server.stop()

    def test_a_call_over_the_whole_budget_is_refused_at_once(self):
        server = BombServer(self.root, self.web, f"--max_picture_pixels={LIMIT}",
                            "--decoded_memory_budget=64M", "--decoded_memory_wait=30s")
        try:
            started = time.monotonic()
            code, details = call_ladder(server.stub, "within.mp4", ["within.mp4"] * 32)
            self.assertLess(time.monotonic() - started, 10, "it waited for what can never fit")
            self.assertEqual(code, grpc.StatusCode.RESOURCE_EXHAUSTED, details)
            self.assertIn("with the call's other inputs", details)
            self.assertIn("budget of 64.0 MiB", details)
            self.assertIn("--decoded_memory_budget", details)
            self.assertIn("640x360", details)
            self.assertEqual(server.metric("ssimd_decoded_memory_refusals_total",
                                           reason="over_budget"), 1)
            server.assert_alive(self)
        finally:
            server.stop()

    def hold(self, server):
        """A ScoreFiles call whose client reads nothing, so that it keeps its inputs open; returns
        (channel, call) once its inputs reserved their memory. Calls held before must have given
        theirs back first: a cancelled call releases its memory after the cancel returns."""
        deadline = time.monotonic() + 10
        while server.metric("ssimd_decoded_memory_reserved_bytes") != 0:
            self.assertLess(time.monotonic(), deadline, "an earlier call kept its memory")
            time.sleep(0.05)
        before = 0
        # No BDP probe: the window stays small, so the server's writes stop once it is full.
        quiet = grpc.insecure_channel(server.server.address,
                                      options=[("grpc.http2.bdp_probe", 0)])
        stub = ssimd_pb2_grpc.ScoringServiceStub(quiet)
        call = stub.ScoreFiles(ssimd_pb2.ScoreFilesRequest(
            reference_path="long.mp4", distorted_path="long.mp4", config=CONFIG), timeout=60)
        deadline = time.monotonic() + 10
        while server.metric("ssimd_decoded_memory_reserved_bytes") <= before:
            self.assertLess(time.monotonic(), deadline, "the held call reserved nothing")
            time.sleep(0.05)
        time.sleep(0.5)  # its second input reserves right after the first
        return quiet, call

    def test_two_calls_that_fit_only_one_at_a_time_wait_or_are_refused(self):
        # Sized from what one such call reserves: room for one, not for one and a half.
        probe = BombServer(self.root, self.web, f"--max_picture_pixels={LIMIT}")
        try:
            quiet, call = self.hold(probe)
            one_call = probe.metric("ssimd_decoded_memory_reserved_bytes")
            call.cancel()
            quiet.close()
        finally:
            probe.stop()
        budget = max(64 * MiB, int(one_call * 1.25))
        self.assertGreater(one_call * 1.5, budget, "the budget would fit both calls")
        server = BombServer(self.root, self.web, f"--max_picture_pixels={LIMIT}",
                            f"--decoded_memory_budget={budget}",
                            f"--decoded_memory_wait={WAIT_S}s", "--stream_idle_timeout=30s")
        try:
            # The second waits, and runs once the first gives its memory back.
            quiet, call = self.hold(server)
            waits = server.metric("ssimd_decoded_memory_waits_total")
            outcome = []
            second = threading.Thread(target=lambda: outcome.append(
                call_files(server.stub, "long.mp4", "long.mp4", frame_count=10)))
            second.start()
            deadline = time.monotonic() + WAIT_S
            while server.metric("ssimd_decoded_memory_waits_total") == waits:
                self.assertLess(time.monotonic(), deadline, "the second call did not wait")
                time.sleep(0.05)
            call.cancel()
            quiet.close()
            second.join(30)
            self.assertEqual(outcome, [(grpc.StatusCode.OK, "")])

            # Held past the wait: the second is refused, naming the wait and the budget.
            quiet, call = self.hold(server)
            started = time.monotonic()
            code, details = call_files(server.stub, "long.mp4", "long.mp4", frame_count=10)
            waited = time.monotonic() - started
            call.cancel()
            quiet.close()
            self.assertEqual(code, grpc.StatusCode.RESOURCE_EXHAUSTED, details)
            self.assertGreaterEqual(waited, WAIT_S - 0.5)
            self.assertIn(f"{WAIT_S}s (--decoded_memory_wait)", details)
            self.assertIn("--decoded_memory_budget", details)
            self.assertIn("320x180", details)
            self.assertEqual(server.metric("ssimd_decoded_memory_refusals_total",
                                           reason="wait_timeout"), 1)
            server.assert_alive(self)
            growth = server.peak_growth_mib()
            print(f"budget {budget / MiB:.0f} MiB (one call reserves {one_call / MiB:.0f} MiB): "
                  f"peak +{growth:.0f} MiB over idle", flush=True)
            self.assertLess(growth, budget / MiB)
        finally:
            server.stop()


if __name__ == "__main__":
    junit_main.main()
