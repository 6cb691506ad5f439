"""Inputs a hostile client names, against a real ssimd_server: slow URLs it gives up on, and text
it makes the server echo.

A call's URL inputs stop when the call ends (cancel, deadline, lost connection): the server
requests nothing more and lets go of the stream slot at once; the fetches of one call together
stop at --url_call_timeout. Paths and rendition names come back in status messages quoted,
escaped and short. Everything runs on loopback. Run with Debian's python3 (python3-grpcio).
"""

import http.server
import os
import sys
import threading
import time
import unittest
import urllib.parse

sys.path[:0] = [os.getcwd(), os.path.join(os.getcwd(), "python")]
import grpc  # noqa: E402
from ssimd.v1 import ssimd_pb2, ssimd_pb2_grpc  # noqa: E402
from tests.observability import junit_main  # noqa: E402
from tests.observability import ssimd_harness as h  # noqa: E402

FLOAT_SSIM = ssimd_pb2.Features(float_ssim=ssimd_pb2.FloatSsimOptions())
CONFIG = ssimd_pb2.ClipConfig(features=FLOAT_SSIM)
# How long each slow URL takes to answer, and when the client gives up on the call.
SLOW_S = 2.0
GIVE_UP_S = 1.0
# What the server is started with: shorter than any test's ladder of slow URLs.
CALL_TIMEOUT_S = 3
QUOTED_BYTES = 48


def y4m(frames, value=128):
    header = b"YUV4MPEG2 W64 H32 F25:1 Ip C420jpeg\n"
    return header + (b"FRAME\n" + bytes([value]) * (64 * 32 * 3 // 2)) * frames


class SlowMedia:
    """An HTTP server on 127.0.0.1 whose /slow/TAG/SECONDS/NAME answers after SECONDS with a
    small .y4m, and which records when each request arrived, by TAG."""

    def __init__(self):
        self.lock = threading.Lock()
        self.requests = {}  # tag -> [monotonic arrival time]
        media = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                parts = urllib.parse.urlsplit(self.path).path.strip("/").split("/")
                if len(parts) != 4 or parts[0] != "slow":
                    self.send_error(404)
                    return
                with media.lock:
                    media.requests.setdefault(parts[1], []).append(time.monotonic())
                time.sleep(float(parts[2]))
                body = y4m(2)
                try:
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the server gave up on this fetch, as it should

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def prefix(self):
        return f"http://127.0.0.1:{self.port}/slow/"

    def url(self, tag, seconds, name):
        return f"{self.prefix()}{tag}/{seconds}/{name}"

    def arrivals(self, tag):
        with self.lock:
            return list(self.requests.get(tag, []))

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def active_streams(server):
    return h.total(h.parse_exposition(server.scrape()), "ssimd_active_streams")


def wait_for(predicate, within_s):
    """Seconds until `predicate()` held, polling; None when it did not within `within_s`."""
    started = time.monotonic()
    while time.monotonic() - started < within_s:
        if predicate():
            return time.monotonic() - started
        time.sleep(0.05)
    return None


def drain(responses, out):
    """Reads a call to its end on this thread; appends (code, details)."""
    try:
        for _ in responses:
            pass
        out.append((grpc.StatusCode.OK, ""))
    except grpc.RpcError as error:
        out.append((error.code(), error.details()))


def assert_quoted_short(test, details, quoted_start, total_bytes):
    """`details` shows the client's text quoted from `quoted_start`, cut with its length, and
    holds no raw control byte."""
    test.assertIn(quoted_start, details)
    test.assertIn(f"... ({total_bytes} bytes)", details)
    test.assertNotIn("\n", details)
    test.assertNotIn("\x1b", details)
    test.assertNotIn("A" * (QUOTED_BYTES + 1), details)
    test.assertLess(len(details), 400, details)


class OneServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.media = SlowMedia()
        cls.root = h.tmpdir()
        with open(os.path.join(cls.root, "three.y4m"), "wb") as f:
            f.write(y4m(3))
        with open(os.path.join(cls.root, "two.y4m"), "wb") as f:
            f.write(y4m(2))
        # Not media at all, under a long name: the decoder's message names it.
        with open(os.path.join(cls.root, "B" * 200 + ".mp4"), "wb") as f:
            f.write(b"not a video" * 10)
        # A link that leads out of the root, to a file with a hostile name.
        cls.outside = h.tmpdir()
        cls.hostile_name = "x\n\x1b[31m" + "A" * 200
        with open(os.path.join(cls.outside, cls.hostile_name), "wb") as f:
            f.write(y4m(1))
        os.symlink(cls.outside, os.path.join(cls.root, "up"))
        cls.server = h.Server("--backend=cpu", f"--files_root={cls.root}",
                              f"--allow_url_prefix={cls.media.prefix()}",
                              f"--url_call_timeout={CALL_TIMEOUT_S}s", "--url_timeout=1m",
                              "--url_stall_timeout=1m", "--max_concurrent_streams=4")
        cls.channel = grpc.insecure_channel(cls.server.address)
        cls.stub = ssimd_pb2_grpc.ScoringServiceStub(cls.channel)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        cls.server.stop()
        cls.media.stop()


class SlowUrlInputsTest(OneServerTest):
    def ladder(self, tag, seconds, renditions=5):
        return ssimd_pb2.ScoreLadderRequest(
            config=CONFIG, source_path=self.media.url(tag, seconds, "src.y4m"),
            renditions=[ssimd_pb2.Rendition(name=f"r{i}",
                                            path=self.media.url(tag, seconds, f"r{i}.y4m"))
                        for i in range(renditions)])

    def assert_stops_with_its_call(self, tag, start_call):
        """`start_call()` starts a call whose inputs are slow URLs of `tag` and returns
        (a function that ends it from the client's side, the thread reading it, its outcome).
        After the end: the slot is free within a second and no URL is requested any more."""
        self.assertEqual(active_streams(self.server), 0)
        end_call, reader, outcome = start_call()
        self.assertIsNotNone(wait_for(lambda: active_streams(self.server) == 1, 5))
        time.sleep(GIVE_UP_S)
        ended_at = time.monotonic()
        end_call()
        freed = wait_for(lambda: active_streams(self.server) == 0, 5)
        self.assertIsNotNone(freed, "the call still holds its stream slot")
        self.assertLess(freed, 1.0, f"the slot was held {freed:.2f} s after the call ended")
        # Any fetch the server would still make comes within SLOW_S of the last one.
        time.sleep(SLOW_S + 0.5)
        late = [t - ended_at for t in self.media.arrivals(tag) if t >= ended_at]
        self.assertEqual(late, [], "URLs requested after the call ended")
        self.assertEqual(len(self.media.arrivals(tag)), 1)  # the first input only
        reader.join(10)
        self.assertEqual(len(outcome), 1)
        self.assertIn(outcome[0][0], (grpc.StatusCode.CANCELLED,
                                      grpc.StatusCode.DEADLINE_EXCEEDED,
                                      grpc.StatusCode.UNAVAILABLE), outcome)

    def test_a_cancelled_ladder_fetches_nothing_more_and_frees_its_slot(self):
        def start():
            call = self.stub.ScoreLadder(self.ladder("cancel", SLOW_S), timeout=60)
            outcome = []
            reader = threading.Thread(target=drain, args=(call, outcome))
            reader.start()
            return call.cancel, reader, outcome
        self.assert_stops_with_its_call("cancel", start)

    def test_a_ladder_past_its_deadline_fetches_nothing_more_and_frees_its_slot(self):
        def start():
            call = self.stub.ScoreLadder(self.ladder("deadline", SLOW_S), timeout=GIVE_UP_S)
            outcome = []
            reader = threading.Thread(target=drain, args=(call, outcome))
            reader.start()
            return lambda: None, reader, outcome  # the deadline ends it by itself
        self.assert_stops_with_its_call("deadline", start)

    def test_a_ladder_whose_client_went_away_fetches_nothing_more_and_frees_its_slot(self):
        def start():
            channel = grpc.insecure_channel(self.server.address)
            call = ssimd_pb2_grpc.ScoringServiceStub(channel).ScoreLadder(
                self.ladder("gone", SLOW_S), timeout=60)
            outcome = []
            reader = threading.Thread(target=drain, args=(call, outcome))
            reader.start()
            return channel.close, reader, outcome
        self.assert_stops_with_its_call("gone", start)

    def test_cancelled_score_files_fetches_nothing_more_and_frees_its_slot(self):
        def start():
            request = ssimd_pb2.ScoreFilesRequest(
                reference_path=self.media.url("files", SLOW_S, "ref.y4m"),
                distorted_path=self.media.url("files", SLOW_S, "dis.y4m"), config=CONFIG)
            call = self.stub.ScoreFiles(request, timeout=60)
            outcome = []
            reader = threading.Thread(target=drain, args=(call, outcome))
            reader.start()
            return call.cancel, reader, outcome
        self.assert_stops_with_its_call("files", start)

    def test_a_calls_fetches_together_stop_at_the_call_timeout(self):
        # Six inputs of 1.2 s each would take 7.2 s; the call may fetch for CALL_TIMEOUT_S.
        seconds = 1.2
        started = time.monotonic()
        outcome = []
        drain(self.stub.ScoreLadder(self.ladder("budget", seconds), timeout=60), outcome)
        took = time.monotonic() - started
        code, details = outcome[0]
        self.assertEqual(code, grpc.StatusCode.DEADLINE_EXCEEDED, details)
        self.assertIn("--url_call_timeout", details)
        self.assertIn(f"{CALL_TIMEOUT_S}s", details)
        self.assertGreater(took, CALL_TIMEOUT_S - 0.3)
        self.assertLess(took, CALL_TIMEOUT_S + 1.5)
        self.assertIsNotNone(wait_for(lambda: active_streams(self.server) == 0, 2))
        arrivals = self.media.arrivals("budget")
        self.assertEqual(len(arrivals), int(CALL_TIMEOUT_S // seconds) + 1, arrivals)
        time.sleep(seconds + 0.3)
        self.assertEqual(len(self.media.arrivals("budget")), len(arrivals))


class HostileTextTest(OneServerTest):
    def files_error(self, reference, distorted):
        request = ssimd_pb2.ScoreFilesRequest(reference_path=reference, distorted_path=distorted,
                                              config=CONFIG)
        with self.assertRaises(grpc.RpcError) as raised:
            list(self.stub.ScoreFiles(request, timeout=30))
        return raised.exception.code(), raised.exception.details()

    def ladder_error(self, renditions, require_equal_length=False):
        request = ssimd_pb2.ScoreLadderRequest(
            config=CONFIG, source_path="three.y4m", require_equal_length=require_equal_length,
            renditions=[ssimd_pb2.Rendition(name=n, path=p) for n, p in renditions])
        with self.assertRaises(grpc.RpcError) as raised:
            list(self.stub.ScoreLadder(request, timeout=30))
        return raised.exception.code(), raised.exception.details()

    def test_a_path_outside_the_root_comes_back_quoted_and_short(self):
        hostile = "/etc/x\n\x1b[31m" + "A" * 1200
        code, details = self.files_error("two.y4m", hostile)
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT, details[:200])
        self.assertIn("is outside the server's files root", details)
        assert_quoted_short(self, details, 'distorted_path: "/etc/x\\x0a\\x1b[31mAAA',
                            len(hostile))

    def test_a_path_that_leads_outside_comes_back_quoted_and_short(self):
        path = "up/" + self.hostile_name
        code, details = self.files_error(path, "two.y4m")
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT, details[:200])
        self.assertIn("leads outside the server's files root", details)
        assert_quoted_short(self, details, 'reference_path: "up/x\\x0a\\x1b[31mAAA', len(path))

    def test_a_long_file_name_comes_back_short_from_the_decoder(self):
        code, details = self.files_error("two.y4m", "B" * 200 + ".mp4")
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT, details[:200])
        self.assertIn("distorted_path: ", details)
        self.assertIn("....mp4", details)  # cut, its extension kept
        self.assertNotIn("B" * QUOTED_BYTES, details)
        self.assertLess(len(details), 400, details)

    def test_a_duplicate_rendition_name_comes_back_quoted_and_short(self):
        name = "N" * 3000
        code, details = self.ladder_error([(name, "two.y4m"), (name, "three.y4m")])
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT, details[:200])
        self.assertIn("is used twice", details)
        self.assertIn('renditions[1].name: "' + "N" * QUOTED_BYTES + '"... (3000 bytes)',
                      details)
        self.assertLess(len(details), 400, details)

    def test_an_unequal_rendition_is_named_quoted_and_short(self):
        name = "R\n\x1b[31m" + "R" * 3000
        code, details = self.ladder_error([(name, "two.y4m")], require_equal_length=True)
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT, details[:200])
        self.assertIn("require_equal_length", details)
        self.assertIn('rendition "R\\x0a\\x1b[31mRRR', details)
        self.assertIn(f"... ({len(name)} bytes) has 2 frames where the source has 3", details)
        self.assertNotIn("\n", details)
        self.assertNotIn("\x1b", details)
        self.assertLess(len(details), 400, details)

    def test_a_label_key_comes_back_quoted(self):
        key = "k\n\x1b[31m" + "K" * 100
        request = ssimd_pb2.ScoreFilesRequest(
            reference_path="two.y4m", distorted_path="two.y4m",
            config=ssimd_pb2.ClipConfig(features=FLOAT_SSIM, labels={key: "v" * 300}))
        with self.assertRaises(grpc.RpcError) as raised:
            list(self.stub.ScoreFiles(request, timeout=30))
        details = raised.exception.details()
        self.assertEqual(raised.exception.code(), grpc.StatusCode.INVALID_ARGUMENT, details)
        self.assertIn('config.labels["k\\x0a\\x1b[31mKKK', details)
        self.assertNotIn("\n", details)
        self.assertNotIn("\x1b", details)


if __name__ == "__main__":
    junit_main.main()
