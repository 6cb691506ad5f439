"""The installed ssimd-client package against a real ssimd_server on 127.0.0.1.

Run by installed_package_test.sh with the python of a fresh virtual environment into which
python/ was pip-installed; SSIMD_PACKAGE_SRC is the installed copy of python/ (its examples and
README, without its packages). Scores must equal libvmaf's (tests/data/reference) exactly.
"""

import importlib.metadata
import json
import lzma
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import grpc
import ssimd_client
from ssimd_client import (Client, ClipResult, ClipSummary, FrameResult, Geometry, LadderResult,
                          LadderSummary, RenditionFrame, RenditionSummary, ResultStream,
                          ScoringError, SsimdError, Y4mReader, write_y4m)

SERVER = os.path.join("server", "ssimd_server")
SUBSET = os.path.join("tests", "data", "reference")
SOURCE = os.environ["SSIMD_PACKAGE_SRC"]
PAIR = "testsrc2_576x324_yuv420p__x264crf38"
GEOMETRY = Geometry(576, 324, 8, "420")
FRAMES = 4

with open(os.path.join(SUBSET, "expected_scores.json"), encoding="utf-8") as _f:
    EXPECTED = {p["id"]: p for p in json.load(_f)["pairs"]}
# Upstream libvmaf's psnr of the same pair (expected_metrics.json).
with open(os.path.join(SUBSET, "expected_metrics.json"), encoding="utf-8") as _f:
    UPSTREAM = {p["id"]: p["metrics"] for p in json.load(_f)["pairs"]}


def expected(metric):
    """libvmaf's per-frame values of PAIR for `metric` (config of the same name)."""
    return [float(v) for v in EXPECTED[PAIR]["scores"][metric][metric]]


def run_python(args, check=False, **kwargs):
    """subprocess.run of the venv's python with `args`; a run still going after 120 s is made to
    dump every thread's stack (faulthandler on SIGABRT) into the failure, so a hang says where."""
    with subprocess.Popen([sys.executable, "-X", "faulthandler", *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, **kwargs) as process:
        try:
            stdout, stderr = process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGABRT)
            stdout, stderr = process.communicate()
            raise AssertionError(f"{args} hung for 120 s; its threads:\n{stderr}") from None
    result = subprocess.CompletedProcess(args, process.returncode, stdout, stderr)
    if check:
        result.check_returncode()
    return result


def frame_size(geometry):
    w, h = geometry.width, geometry.height
    return w * h + 2 * ((w + 1) // 2) * ((h + 1) // 2)


class Server:
    """ssimd_server on a port the kernel picks, read back from its start-up log."""

    def __init__(self, *flags):
        self.dir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.log_path = os.path.join(self.dir, "server.log")
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [SERVER, "--address=127.0.0.1:0", "--metrics_address=", "--log_format=json",
             "--grace_period=5s", *flags], stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for line in self.log().splitlines():
                if line.startswith("{") and '"ssimd started"' in line:
                    self.address = f"127.0.0.1:{json.loads(line)['grpc_port']}"
                    return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("ssimd_server did not start:\n" + self.log())

    def log(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


class InstalledPackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.root = os.path.join(cls.tmp, "root")
        os.mkdir(cls.root)
        size = frame_size(GEOMETRY)
        for name, clip in (("ref", "testsrc2_576x324_yuv420p.yuv.xz"),
                           ("dist", "testsrc2_576x324_yuv420p_x264crf38.yuv.xz")):
            with lzma.open(os.path.join(SUBSET, "clips", clip)) as f:
                data = f.read(FRAMES * size)
            frames = [data[i * size:(i + 1) * size] for i in range(FRAMES)]
            write_y4m(os.path.join(cls.root, name + ".y4m"), GEOMETRY, frames)
        cls.ref = os.path.join(cls.root, "ref.y4m")
        cls.dist = os.path.join(cls.root, "dist.y4m")
        spool = os.path.join(cls.tmp, "spool")
        os.mkdir(spool)
        cls.server = Server(f"--files_root={cls.root}", f"--upload_dir={spool}")
        cls.client = Client(cls.server.address)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.server.stop()

    def lumas(self, path):
        return list(Y4mReader(path).frames())

    def test_the_package_is_the_installed_one(self):
        site = os.path.realpath(sys.prefix)
        for module in (ssimd_client, sys.modules["ssimd.v1.ssimd_pb2"]):
            self.assertTrue(os.path.realpath(module.__file__).startswith(site + os.sep),
                            f"{module.__name__} comes from {module.__file__}, not {site}")
        self.assertEqual(importlib.metadata.version("ssimd-client"), ssimd_client.__version__)
        installed = {str(f) for f in importlib.metadata.files("ssimd-client")}
        for name in ("ssimd_client/py.typed", "ssimd/py.typed", "ssimd/v1/ssimd_pb2.pyi",
                     "ssimd_client/client.py", "ssimd/v1/ssimd_pb2_grpc.py"):
            self.assertIn(name, installed)
        self.assertFalse([f for f in installed if f.endswith("_test.py")])

    def test_example_scores_equal_libvmaf(self):
        # The example alone in a folder: it can only use the installed package.
        folder = tempfile.mkdtemp(dir=self.tmp)
        example = shutil.copy(os.path.join(SOURCE, "examples", "score_y4m.py"), folder)
        server = ["--server", self.server.address]
        result = run_python([example, self.ref, self.dist, *server, "--feature", "float_ssim",
                             "--feature", "ssim", "--json"])
        self.assertEqual(result.returncode, 0, result.stderr)
        report = json.loads(result.stdout)
        for metric in ("float_ssim", "ssim"):
            self.assertEqual([f["metrics"][metric] for f in report["frames"]], expected(metric))
        lines = run_python([example, self.ref, self.dist, *server, "--feature", "ssim"],
                           check=True)
        self.assertEqual(len([x for x in lines.stdout.splitlines() if x.startswith("frame ")]),
                         FRAMES)
        # psnr reads chroma: the example sends the y4m files' chroma planes with each frame.
        psnr = run_python([example, self.ref, self.dist, *server, "--feature", "psnr", "--json"])
        self.assertEqual(psnr.returncode, 0, psnr.stderr)
        frames = json.loads(psnr.stdout)["frames"]
        for metric in ("psnr_y", "psnr_cb", "psnr_cr"):
            self.assertEqual([f["metrics"][metric] for f in frames], UPSTREAM[PAIR][metric])
        refused = run_python([example, self.ref, self.dist, *server, "--feature", "psnr_hvs"])
        self.assertEqual(refused.returncode, 1)
        self.assertIn("INVALID_ARGUMENT", refused.stderr)

    def test_readme_snippet_runs(self):
        with open(os.path.join(SOURCE, "README.md"), encoding="utf-8") as f:
            snippets = re.findall(r"```python\n(.*?)```", f.read(), re.S)
        self.assertTrue(snippets, "README.md has no python snippet")
        folder = tempfile.mkdtemp(dir=self.tmp)
        for name in ("ref.y4m", "dist.y4m"):
            shutil.copy(os.path.join(self.root, name), folder)
        code = snippets[0].replace("127.0.0.1:50051", self.server.address)
        result = run_python(["-c", code], cwd=folder)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(float(lines[0]), self.client.score_files(
            "ref.y4m", "dist.y4m").summary.pooled["float_ssim"].mean)
        self.assertEqual([float(x.split()[1]) for x in lines[1:1 + FRAMES]], expected("ssim"))
        self.assertTrue(lines[1 + FRAMES].startswith("mean "), lines)
        self.assertTrue(lines[-1].startswith("StatusCode.INVALID_ARGUMENT "), lines)
        self.assertIn("psnr", lines[-1])

    def test_pair(self):
        ref, dist = self.lumas(self.ref), self.lumas(self.dist)
        same = self.client.score_pair(ref[0], ref[0], GEOMETRY, features=["float_ssim", "ssim"])
        self.assertIsInstance(same, FrameResult)
        self.assertEqual(dict(same.scores), {"float_ssim": 1.0, "ssim": 1.0})
        scored = self.client.score_pair(ref[1], dist[1], GEOMETRY, features="ssim")
        self.assertEqual(scored.scores["ssim"], expected("ssim")[1])

    def test_clip_iterates_frames_then_the_summary(self):
        pairs = zip(self.lumas(self.ref), self.lumas(self.dist))
        with self.client.iter_clip(pairs, GEOMETRY, features=["float_ssim"],
                                   percentiles=[50]) as stream:
            self.assertIsInstance(stream, ResultStream)
            events = list(stream)
        self.assertEqual([type(e) for e in events], [FrameResult] * FRAMES + [ClipSummary])
        self.assertEqual([e.index for e in events[:-1]], list(range(FRAMES)))
        self.assertEqual([e.scores["float_ssim"] for e in events[:-1]], expected("float_ssim"))
        self.assertEqual(events[-1].frames, FRAMES)
        collected = self.client.score_clip(zip(self.lumas(self.ref), self.lumas(self.dist)),
                                           GEOMETRY, features=["float_ssim"])
        self.assertIsInstance(collected, ClipResult)
        self.assertEqual(collected.summary.pooled["float_ssim"].mean,
                         events[-1].pooled["float_ssim"].mean)

    def test_files_by_path_and_by_upload(self):
        by_path = self.client.score_files("ref.y4m", "dist.y4m", features=["float_ssim", "ssim"])
        seen = []
        by_upload = self.client.score_files(self.client.upload(self.ref),
                                            self.client.upload(self.dist),
                                            features=("float_ssim", "ssim"), on_frame=seen.append)
        for result in (by_path, by_upload):
            for metric in ("float_ssim", "ssim"):
                self.assertEqual([f.scores[metric] for f in result.frames], expected(metric))
            self.assertEqual(result.summary.frames, FRAMES)
        self.assertEqual(seen, by_upload.frames)
        events = list(self.client.iter_files("ref.y4m", "ref.y4m", features=["ssim"],
                                             start_frame=1, frame_count=2))
        self.assertEqual([e.scores["ssim"] for e in events[:-1]], [1.0, 1.0])
        self.assertIsInstance(events[-1], ClipSummary)

    def test_ladder_iterates_typed_results(self):
        rungs = [("same", "ref.y4m"), ("x264", "dist.y4m")]
        events = list(self.client.iter_ladder("ref.y4m", rungs, features=["ssim"]))
        self.assertIsInstance(events[-1], LadderSummary)
        self.assertEqual(events[-1].renditions, 2)
        self.assertEqual(events[-1].source_frames, FRAMES)
        frames = {}
        for event in events[:-1]:
            if isinstance(event, RenditionFrame):
                self.assertNotIn(event.rendition, {s.rendition for s in events
                                                   if isinstance(s, RenditionSummary)
                                                   and events.index(s) < events.index(event)})
                frames.setdefault(event.rendition, []).append(event.result.scores["ssim"])
            else:
                self.assertIsInstance(event, RenditionSummary)
                self.assertEqual(event.codec, "rawvideo")
        self.assertEqual(frames, {"same": [1.0] * FRAMES, "x264": expected("ssim")})
        result = self.client.score_ladder("ref.y4m", rungs, features=["ssim"])
        self.assertIsInstance(result, LadderResult)
        self.assertEqual({k: [f.scores["ssim"] for f in v] for k, v in result.frames.items()},
                         frames)
        self.assertEqual(result.summaries["x264"].frames, FRAMES)
        self.assertEqual(result.renditions["x264"].width, GEOMETRY.width)

    def test_errors_carry_the_grpc_code(self):
        ref = self.lumas(self.ref)[0]
        with self.assertRaises(SsimdError) as unknown_feature:
            self.client.score_pair(ref, ref, GEOMETRY, features=["psnr_hvs"])
        self.assertIs(unknown_feature.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("psnr_hvs", unknown_feature.exception.details)
        self.assertIsInstance(unknown_feature.exception, ScoringError)
        with self.assertRaises(SsimdError) as outside:
            list(self.client.iter_files("../ref.y4m", "dist.y4m"))
        self.assertIs(outside.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        with self.assertRaises(SsimdError) as missing:
            self.client.score_ladder("ref.y4m", [("a", "upload:" + "0" * 32 + ".y4m")])
        self.assertIs(missing.exception.code, grpc.StatusCode.NOT_FOUND)
        with self.assertRaises(ValueError):
            self.client.score_files("ref.y4m", "dist.y4m", scaler="nearest")
        with Client("127.0.0.1:1") as nobody:
            with self.assertRaises(SsimdError) as unreachable:
                nobody.capabilities(timeout=2)
        self.assertIn(unreachable.exception.code, (grpc.StatusCode.UNAVAILABLE,
                                                   grpc.StatusCode.DEADLINE_EXCEEDED))

    def test_cancel_ends_a_stream(self):
        def endless():
            frame = self.lumas(self.ref)[0]
            while True:
                yield frame, frame

        stream = self.client.iter_clip(endless(), GEOMETRY, features=["ssim"])
        self.assertEqual(next(stream).scores["ssim"], 1.0)
        stream.cancel()
        with self.assertRaises(SsimdError) as cancelled:
            for _ in stream:
                pass
        self.assertIs(cancelled.exception.code, grpc.StatusCode.CANCELLED)
        self.assertEqual(self.client.health(), "SERVING")
        self.assertTrue(self.client.capabilities().version)


if __name__ == "__main__":
    unittest.main(verbosity=2)
