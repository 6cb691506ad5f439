"""What a hostile client tries against a real ssimd_server, and what it must get instead.

Each case is one finding of the hardening review: compressed-message bombs, idle connections that
starve the metrics port, streams that never send, labels that overwrite the server's log fields,
huge client strings echoed back, unparseable requests, statuses recorded differently from
what the client saw, and uploads that never end or never finish. Run with Debian's python3 (python3-grpcio).
"""

import json
import os
import socket
import sys
import threading
import time
import unittest
import urllib.request

sys.path[:0] = [os.getcwd(), os.path.join(os.getcwd(), "python")]
import grpc  # noqa: E402
from ssimd.v1 import ssimd_pb2, ssimd_pb2_grpc  # noqa: E402
from tests.observability import junit_main  # noqa: E402
from tests.observability import ssimd_harness as h  # noqa: E402

MiB = 1 << 20
GEOMETRY = ssimd_pb2.Geometry(width=64, height=32, bit_depth=8,
                              pixel_format=ssimd_pb2.PIXEL_FORMAT_420)
FLOAT_SSIM = ssimd_pb2.Features(float_ssim=ssimd_pb2.FloatSsimOptions())


def config(**fields):
    fields.setdefault("geometry", GEOMETRY)
    fields.setdefault("features", FLOAT_SSIM)
    return ssimd_pb2.ScoreClipRequest(config=ssimd_pb2.ClipConfig(**fields))


def frame(index, size=64 * 32, value=100):
    plane = bytes([value]) * size
    return ssimd_pb2.ScoreClipRequest(
        frame=ssimd_pb2.FramePair(index=index, reference_luma=plane, distorted_luma=plane))


def run_clip(stub, messages, timeout=30):
    """(status code, details, frame results) of one ScoreClip stream."""
    results = []
    try:
        for response in stub.ScoreClip(iter(messages), timeout=timeout):
            if response.HasField("frame"):
                results.append(response.frame)
        return grpc.StatusCode.OK, "", results
    except grpc.RpcError as error:
        return error.code(), error.details(), results


def run_at_once(call, count, within_s=15):
    """Runs `count` calls of `call(out)` on threads of their own; each appends its outcome to
    `out`. Returns the outcomes, failing when they did not all end within `within_s` seconds."""
    outcomes = [[] for _ in range(count)]
    threads = [threading.Thread(target=call, args=(o,)) for o in outcomes]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    elapsed = time.monotonic() - started
    if elapsed >= within_s or any(len(o) != 1 for o in outcomes):
        raise AssertionError(f"{count} calls took {elapsed:.1f} s; outcomes {outcomes}")
    return [o[0] for o in outcomes]


def peak_rss_bytes(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM")


def rpc_count(server, method, code):
    return h.total(h.parse_exposition(server.scrape()), "ssimd_rpcs_total", method=method,
                   code=code)


def finished_lines(server):
    return [line for line in server.json_lines() if line.get("msg") == "stream finished"]


class OneServerTest(unittest.TestCase):
    """A test case around one ssimd_server that setUpClass starts with start_server."""

    @classmethod
    def start_server(cls, *flags):
        cls.server = h.Server(*flags)
        cls.channel = grpc.insecure_channel(cls.server.address)
        cls.stub = ssimd_pb2_grpc.ScoringServiceStub(cls.channel)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        cls.server.stop()


class HostileClientTest(OneServerTest):
    MAX_MESSAGE = 4 * MiB

    @classmethod
    def setUpClass(cls):
        cls.root = h.tmpdir()
        with open(os.path.join(cls.root, "two.y4m"), "wb") as y4m:
            y4m.write(b"YUV4MPEG2 W64 H32 F25:1 Ip C420jpeg\n")
            for _ in range(2):
                y4m.write(b"FRAME\n" + bytes([128]) * (64 * 32 * 3 // 2))
        cls.start_server("--backend=cpu", f"--max_message_bytes={cls.MAX_MESSAGE}",
                         "--max_concurrent_streams=3", "--stream_idle_timeout=2s",
                         f"--files_root={cls.root}")

    def assert_still_serving(self):
        code, details, results = run_clip(self.stub, [config(), frame(0)])
        self.assertEqual(code, grpc.StatusCode.OK, details)
        self.assertEqual(len(results), 1)

    def test_compressed_bomb_is_refused_without_inflating_it(self):
        idle_peak = peak_rss_bytes(self.server.process.pid)
        bomb = frame(0, size=256 * MiB, value=0)  # about 256 KB on the wire once gzipped
        channel = grpc.insecure_channel(self.server.address, compression=grpc.Compression.Gzip,
                                        options=[("grpc.max_send_message_length", -1)])
        try:
            code, details, _ = run_clip(ssimd_pb2_grpc.ScoringServiceStub(channel),
                                        [config(), bomb], timeout=60)
        finally:
            channel.close()
        self.assertEqual(code, grpc.StatusCode.UNIMPLEMENTED, details)
        self.assertIn("gzip", details)
        peak = peak_rss_bytes(self.server.process.pid)
        self.assertLess(peak, idle_peak + 2 * self.MAX_MESSAGE,
                        f"peak RSS grew by {(peak - idle_peak) / MiB:.1f} MiB")
        self.assert_still_serving()

    def test_idle_and_slow_connections_do_not_starve_the_metrics_port(self):
        idle = [socket.create_connection(("127.0.0.1", self.server.metrics_port))
                for _ in range(50)]
        slow = socket.create_connection(("127.0.0.1", self.server.metrics_port))
        slow.sendall(b"GET /metr")  # a request that never completes
        try:
            for _ in range(3):
                started = time.monotonic()
                url = f"http://127.0.0.1:{self.server.metrics_port}/metrics"
                with urllib.request.urlopen(url, timeout=5) as response:
                    self.assertIn(b"ssimd_rpcs_total", response.read())
                self.assertLess(time.monotonic() - started, 5)
        finally:
            for s in idle + [slow]:
                s.close()

    def test_streams_that_never_send_frames_are_ended_and_free_their_slots(self):
        def idle_stream(out):
            def messages():
                yield config()
                time.sleep(20)  # never sends a frame; the server must not wait for it
            out.append(run_clip(self.stub, messages(), timeout=30))

        outcomes = run_at_once(idle_stream, 3)  # as many as --max_concurrent_streams
        for code, details, results in outcomes:
            self.assertEqual(code, grpc.StatusCode.DEADLINE_EXCEEDED, details)
            self.assertIn("waiting for frame 0", details)
            self.assertIn("--stream_idle_timeout=2s", details)
            self.assertEqual(results, [])
        self.assert_still_serving()  # the slots are free again

    def test_labels_never_replace_the_servers_log_fields(self):
        labels = {"status": "OK", "frames": "999", "error": "none", "backend": "gpu",
                  "geometry": "1x1"}
        code, _, _ = run_clip(self.stub, [config(labels=labels, title_id="label-title"),
                                          frame(0, size=5)])
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        time.sleep(0.2)
        line = [l for l in finished_lines(self.server) if l.get("title") == "label-title"][-1]
        self.assertEqual(line["status"], "INVALID_ARGUMENT")
        self.assertEqual(line["frames"], "0")
        self.assertIn("frame 0", line["error"])
        for key, value in labels.items():
            self.assertEqual(line[f"label_{key}"], value)

    def test_huge_client_strings_are_quoted_short(self):
        cases = [
            config(features=ssimd_pb2.Features(feature_args=["x" * 20000])),
            config(features=ssimd_pb2.Features(feature_args=["float_ssim=scale=" + "9" * 100000])),
        ]
        for message in cases:
            code, details, _ = run_clip(self.stub, [message])
            self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT, details[:200])
            self.assertLess(len(details), 1024)
            self.assertIn("bytes)", details)
        request = ssimd_pb2.ScoreFilesRequest(reference_path="r" * 9000, distorted_path="d.y4m",
                                              config=config().config)
        try:
            list(self.stub.ScoreFiles(request, timeout=10))
            self.fail("a missing file was scored")
        except grpc.RpcError as error:
            self.assertIn(error.code(), (grpc.StatusCode.NOT_FOUND,
                                         grpc.StatusCode.INVALID_ARGUMENT), error.details()[:200])
            self.assertIn("(9000 bytes)", error.details())
            self.assertLess(len(error.details()), 1024)

    def test_unparseable_requests_are_invalid_argument_and_counted(self):
        identity = dict(request_serializer=lambda raw: raw, response_deserializer=lambda raw: raw)
        garbage = b"\xff\xff\xff\xff"
        for method, call in [
                ("GetCapabilities", self.channel.unary_unary(
                    "/ssimd.v1.ScoringService/GetCapabilities", **identity)),
                ("ScoreFiles", lambda req, timeout: list(self.channel.unary_stream(
                    "/ssimd.v1.ScoringService/ScoreFiles", **identity)(req, timeout=timeout))),
                ("ScoreLadder", lambda req, timeout: list(self.channel.unary_stream(
                    "/ssimd.v1.ScoringService/ScoreLadder", **identity)(req, timeout=timeout)))]:
            before = rpc_count(self.server, method, "INVALID_ARGUMENT")
            with self.assertRaises(grpc.RpcError) as raised:
                call(garbage, timeout=10)
            self.assertEqual(raised.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
            self.assertIn("not a valid ssimd.v1.", raised.exception.details())
            self.assertEqual(rpc_count(self.server, method, "INVALID_ARGUMENT"), before + 1)

    def test_the_server_records_the_status_the_client_received(self):
        # A config just over the limit.
        before = rpc_count(self.server, "ScoreClip", "RESOURCE_EXHAUSTED")
        code, details, _ = run_clip(
            self.stub, [config(labels={"pad": "x" * 200}, title_id="t" * (self.MAX_MESSAGE + 10))])
        self.assertEqual(code, grpc.StatusCode.RESOURCE_EXHAUSTED, details)
        # A frame just over the limit.
        code, details, _ = run_clip(self.stub,
                                    [config(), frame(0, size=self.MAX_MESSAGE // 2 + 1024)])
        self.assertEqual(code, grpc.StatusCode.RESOURCE_EXHAUSTED, details)
        self.assertIn("--max_message_bytes", details)
        self.assertEqual(rpc_count(self.server, "ScoreClip", "RESOURCE_EXHAUSTED"), before + 2)
        # A ScorePair over the limit is counted too.
        before = rpc_count(self.server, "ScorePair", "RESOURCE_EXHAUSTED")
        plane = bytes(self.MAX_MESSAGE // 2 + 1024)
        with self.assertRaises(grpc.RpcError) as raised:
            self.stub.ScorePair(ssimd_pb2.ScorePairRequest(
                geometry=GEOMETRY, features=FLOAT_SSIM, reference_luma=plane,
                distorted_luma=plane), timeout=10)
        self.assertEqual(raised.exception.code(), grpc.StatusCode.RESOURCE_EXHAUSTED)
        self.assertEqual(rpc_count(self.server, "ScorePair", "RESOURCE_EXHAUSTED"), before + 1)
        # An expired deadline is DEADLINE_EXCEEDED on both sides.
        before = rpc_count(self.server, "ScoreClip", "DEADLINE_EXCEEDED")

        def slow():
            yield config(title_id="deadline-title")
            time.sleep(3)
        code, _, _ = run_clip(self.stub, slow(), timeout=0.5)
        self.assertEqual(code, grpc.StatusCode.DEADLINE_EXCEEDED)
        give_up = time.monotonic() + 5
        while (rpc_count(self.server, "ScoreClip", "DEADLINE_EXCEEDED") == before
               and time.monotonic() < give_up):
            time.sleep(0.05)
        self.assertEqual(rpc_count(self.server, "ScoreClip", "DEADLINE_EXCEEDED"), before + 1)
        line = [l for l in finished_lines(self.server) if l.get("title") == "deadline-title"][-1]
        self.assertEqual(line["status"], "DEADLINE_EXCEEDED")
        self.assertIn("deadline", line["error"])

    def test_messages_quote_values_as_given(self):
        code, details, _ = run_clip(self.stub, [config(percentiles=[100.0001])])
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("got 100.0001", details)
        for field in ("start_frame", "distorted_start_frame"):
            request = ssimd_pb2.ScoreFilesRequest(reference_path="two.y4m",
                                                  distorted_path="two.y4m",
                                                  config=ssimd_pb2.ClipConfig(features=FLOAT_SSIM))
            setattr(request, field, 5)
            with self.assertRaises(grpc.RpcError) as raised:
                list(self.stub.ScoreFiles(request, timeout=10))
            self.assertEqual(raised.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
            self.assertTrue(raised.exception.details().startswith(field + ": "),
                            raised.exception.details())
            self.assertEqual(raised.exception.details().count("two.y4m"), 1,
                             raised.exception.details())
        code, details, _ = run_clip(
            self.stub, [config(features=ssimd_pb2.Features(feature_args=["="]))])
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn('feature argument "=" names no feature', details)
        self.assertNotIn("  ", details)


def run_upload(stub, chunks, timeout=30):
    """(status code, details, receipt) of one UploadFile call."""
    try:
        return grpc.StatusCode.OK, "", stub.UploadFile(iter(chunks), timeout=timeout)
    except grpc.RpcError as error:
        return error.code(), error.details(), None


class HostileUploadTest(OneServerTest):
    """UploadFile writes client bytes to the server's disk: limits hold on what is written, and
    whatever ends an upload early removes its partial file."""

    MAX_UPLOAD = 4 * MiB

    @classmethod
    def setUpClass(cls):
        cls.spool = h.tmpdir()
        cls.start_server("--backend=cpu", f"--upload_dir={cls.spool}",
                         f"--max_upload_bytes={cls.MAX_UPLOAD}", "--stream_idle_timeout=2s",
                         "--max_concurrent_streams=2")

    def spool_files(self):
        return [name for name in os.listdir(self.spool) if name.startswith("ssimd-upload-")]

    def test_an_endless_upload_ends_at_the_limit_and_keeps_nothing(self):
        sent = []

        def endless():
            yield ssimd_pb2.UploadChunk(file_name="endless.mp4", data=bytes(MiB))
            while len(sent) < 1000:  # 1 GiB: far past the limit, were it not enforced
                sent.append(1)
                yield ssimd_pb2.UploadChunk(data=bytes(MiB))

        before = rpc_count(self.server, "UploadFile", "RESOURCE_EXHAUSTED")
        code, details, _ = run_upload(self.stub, endless(), timeout=60)
        self.assertEqual(code, grpc.StatusCode.RESOURCE_EXHAUSTED, details)
        self.assertIn("--max_upload_bytes", details)
        self.assertLess(len(sent), 100, "the server went on reading past its limit")
        self.assertEqual(self.spool_files(), [])
        self.assertEqual(rpc_count(self.server, "UploadFile", "RESOURCE_EXHAUSTED"), before + 1)

    def test_idle_uploads_are_ended_free_their_slots_and_keep_nothing(self):
        def idle(out):
            def chunks():
                yield ssimd_pb2.UploadChunk(file_name="idle.mp4", data=bytes(1000))
                time.sleep(20)  # never sends the rest; the server must not wait for it
            out.append(run_upload(self.stub, chunks(), timeout=30))

        outcomes = run_at_once(idle, 2)  # as many as --max_concurrent_streams
        for code, details, _ in outcomes:
            self.assertEqual(code, grpc.StatusCode.DEADLINE_EXCEEDED, details)
            self.assertIn("--stream_idle_timeout=2s", details)
        self.assertEqual(self.spool_files(), [])
        # The slots are free again: an upload that completes gets its receipt.
        code, details, receipt = run_upload(
            self.stub, [ssimd_pb2.UploadChunk(file_name="small.y4m", data=b"x" * 10)])
        self.assertEqual(code, grpc.StatusCode.OK, details)
        self.assertTrue(receipt.input.startswith("upload:") and receipt.input.endswith(".y4m"))
        self.assertEqual(receipt.size_bytes, 10)


class GracePeriodTest(unittest.TestCase):
    def test_streams_cut_at_the_end_of_the_grace_period_say_so(self):
        server = h.Server("--backend=cpu", "--grace_period=1s", "--stream_idle_timeout=0")
        channel = grpc.insecure_channel(server.address)
        outcome = []

        def waiting():
            yield config(title_id="grace-title")
            time.sleep(8)
        thread = threading.Thread(target=lambda: outcome.append(
            run_clip(ssimd_pb2_grpc.ScoringServiceStub(channel), waiting(), timeout=20)))
        thread.start()
        time.sleep(0.5)
        server.process.send_signal(h.signal.SIGTERM)
        thread.join(20)
        server.stop()
        channel.close()
        code, details, _ = outcome[0]
        self.assertEqual(code, grpc.StatusCode.UNAVAILABLE, details)
        self.assertIn("grace period", details)
        line = [l for l in finished_lines(server) if l.get("title") == "grace-title"][-1]
        self.assertEqual(line["status"], "UNAVAILABLE")
        self.assertIn("grace period", line["error"])


if __name__ == "__main__":
    junit_main.main()
