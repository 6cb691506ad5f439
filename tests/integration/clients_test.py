"""The ssimd-score CLI and the Python client against a real ssimd_server subprocess on 127.0.0.1.

Per-frame values must equal libvmaf's (tests/data/reference/expected_scores.json) exactly: JSON
numbers printed with %.17g (CLI) or repr (Python) read back as the same binary64.
"""

import json
import lzma
import os
import subprocess
import sys
import tempfile
import unittest

CLI = os.path.join("client", "ssimd-score")
EXAMPLE = os.path.join("python", "examples", "score_y4m.py")
SUBSET = os.path.join("tests", "data", "reference")

# Bazel runs tests from the runfiles root; modules are found relative to it.
sys.path[:0] = [os.getcwd(), os.path.join(os.getcwd(), "python")]
from ssimd_client import Client, Geometry, ScoringError, write_y4m  # noqa: E402
from ssimd_client.y4m import frame_bytes  # noqa: E402
from tests.observability import junit_main  # noqa: E402
from tests.observability.ssimd_harness import Server  # noqa: E402

EXPECTED = json.load(open(os.path.join(SUBSET, "expected_scores.json")))
PAIRS = {p["id"]: p for p in EXPECTED["pairs"]}


def expected(pair_id, config, metric):
    """libvmaf's values; the file spells non-finite ones as strings."""
    values = PAIRS[pair_id]["scores"][config][metric]
    return [float(v) if isinstance(v, str) else v for v in values]


def unpack(clip, frames, geometry):
    """The first `frames` whole frames of a reference clip (.yuv.xz)."""
    data = lzma.open(os.path.join(SUBSET, "clips", clip)).read(frames * frame_bytes(geometry))
    return data


def run_cli(*args, check=True):
    result = subprocess.run([CLI, "--no_progress", *args], capture_output=True, text=True,
                            timeout=300)
    if check and result.returncode != 0:
        raise AssertionError(f"ssimd-score failed ({result.returncode}): {result.stderr}")
    return result


class ClientsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.server = Server(f"--files_root={cls.dir}", "--metrics_address=", "--grace_period=5s")
        # testsrc2 576x324 8-bit 4:2:0 (4 frames), and summer1am 640x360 10-bit 4:2:2 (2 frames).
        cls.ts = Geometry(576, 324, 8, "420")
        for name, clip in (("ts_ref", "testsrc2_576x324_yuv420p.yuv.xz"),
                           ("ts_dis", "testsrc2_576x324_yuv420p_x264crf38.yuv.xz")):
            data = unpack(clip, 4, cls.ts)
            with open(os.path.join(cls.dir, name + ".yuv"), "wb") as f:
                f.write(data)
            size = frame_bytes(cls.ts)
            write_y4m(os.path.join(cls.dir, name + ".y4m"), cls.ts,
                      [data[i:i + size] for i in range(0, len(data), size)])
        cls.summer = Geometry(640, 360, 10, "422")
        for name, clip in (("su_ref", "summer1am_640x360_yuv422p10le.yuv.xz"),
                           ("su_dis", "summer1am_640x360_yuv422p10le_x264crf30.yuv.xz")):
            data = unpack(clip, 2, cls.summer)
            size = frame_bytes(cls.summer)
            write_y4m(os.path.join(cls.dir, name + ".y4m"), cls.summer,
                      [data[i:i + size] for i in range(0, len(data), size)])

    @classmethod
    def tearDownClass(cls):
        code = cls.server.stop()
        messages = [line.get("msg") for line in cls.server.json_lines()]
        if code != 0 or "stopped" not in messages:
            raise AssertionError(f"ssimd_server did not stop cleanly on SIGTERM (exit {code}): "
                                 f"{messages[-5:]}")

    def path(self, name):
        return os.path.join(self.dir, name)

    def test_server_logs_its_backend_and_is_serving(self):
        self.assertEqual(self.server.startup["backend"], "cpu")
        with Client(self.server.address) as client:
            self.assertEqual(client.health(), "SERVING")
            self.assertEqual(client.health("ssimd.v1.ScoringService"), "SERVING")
            self.assertTrue(client.capabilities().files_enabled)

    def test_cli_json_on_raw_yuv_equals_libvmaf(self):
        out = self.path("raw.json")
        run_cli("-r", self.path("ts_ref.yuv"), "-d", self.path("ts_dis.yuv"), "-w", "576", "-h",
                "324", "-p", "420", "-b", "8", "--feature", "float_ssim", "--feature", "ssim",
                "-n", "--json", "-o", out, "--server", self.server.address)
        report = json.load(open(out))
        pair = "testsrc2_576x324_yuv420p__x264crf38"
        self.assertEqual([f["frameNum"] for f in report["frames"]], [0, 1, 2, 3])
        for metric in ("float_ssim", "ssim"):
            self.assertEqual([f["metrics"][metric] for f in report["frames"]],
                             expected(pair, metric, metric))
            self.assertEqual(sorted(report["pooled_metrics"][metric]),
                             ["harmonic_mean", "max", "mean", "min"])
            values = expected(pair, metric, metric)
            self.assertEqual(report["pooled_metrics"][metric]["mean"], sum(values) / len(values))

    def test_cli_y4m_with_options_equals_libvmaf(self):
        out = self.path("y4m.json")
        run_cli("-r", self.path("su_ref.y4m"), "-d", self.path("su_dis.y4m"), "--feature",
                "float_ssim=enable_lcs=true", "--json", "-o", out, "--server", self.server.address)
        report = json.load(open(out))
        pair = "summer1am_640x360_yuv422p10le__x264crf30"
        for metric in ("float_ssim", "float_ssim_l", "float_ssim_c", "float_ssim_s"):
            self.assertEqual([f["metrics"][metric] for f in report["frames"]],
                             expected(pair, "float_ssim_lcs", metric), metric)

    def test_cli_writes_null_for_infinite_db(self):
        out = self.path("inf.json")
        run_cli("-r", self.path("ts_ref.yuv"), "-d", self.path("ts_ref.yuv"), "-w", "576", "-h",
                "324", "-p", "420", "-b", "8", "--feature", "float_ssim=enable_db=true", "-o", out,
                "--server", self.server.address)
        text = open(out).read()
        report = json.loads(text)
        self.assertEqual(expected("testsrc2_576x324_yuv420p__identical", "float_ssim_db",
                                  "float_ssim"), [float("inf")] * 4)
        self.assertEqual([f["metrics"]["float_ssim"] for f in report["frames"]], [None] * 4)
        self.assertNotIn("inf", text.replace("\"info\"", ""))

    def test_cli_server_files_equals_libvmaf(self):
        out = self.path("files.json")
        run_cli("-r", "ts_ref.y4m", "-d", "ts_dis.yuv", "-w", "576", "-h", "324", "-p", "420",
                "-b", "8", "--server_files", "--feature", "ssim", "--frame_cnt", "2", "-o", out,
                "--server", self.server.address)
        report = json.load(open(out))
        self.assertEqual([f["metrics"]["ssim"] for f in report["frames"]],
                         expected("testsrc2_576x324_yuv420p__x264crf38", "ssim", "ssim")[:2])

    def test_cli_reports_errors_with_their_cause(self):
        bad_depth = run_cli("-r", "a.yuv", "-d", "b.yuv", "-b", "7", check=False)
        self.assertEqual(bad_depth.returncode, 2)
        self.assertIn("-b/--bitdepth: expected 8, 10, 12 or 16", bad_depth.stderr)
        outside = run_cli("-r", "../etc/passwd", "-d", "ts_dis.y4m", "--server_files",
                          "--server", self.server.address, check=False)
        self.assertEqual(outside.returncode, 1)
        self.assertIn("INVALID_ARGUMENT", outside.stderr)
        self.assertIn("\"..\" is not allowed", outside.stderr)

    def test_cli_says_so_when_its_decoding_program_is_missing(self):
        # ssimd-score leaves local decoding (the frames transport) to ssimd-score-frames beside it.
        lonely = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cli = os.path.join(lonely, "ssimd-score")
        with open(os.path.realpath(CLI), "rb") as src, open(cli, "wb") as dst:
            dst.write(src.read())
        os.chmod(cli, 0o755)
        result = subprocess.run(
            [cli, "--no_progress", "-r", self.path("ts_ref.yuv"), "-d", self.path("ts_dis.yuv"),
             "-w", "576", "-h", "324", "-p", "420", "-b", "8", "--transport", "frames",
             "--server", self.server.address], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 1)
        self.assertIn(os.path.join(lonely, "ssimd-score-frames"), result.stderr)
        self.assertIn("install it beside ssimd-score", result.stderr)

    def test_python_example_scores_two_y4m_files(self):
        result = subprocess.run(
            [sys.executable, EXAMPLE, self.path("ts_ref.y4m"), self.path("ts_dis.y4m"),
             "--server", self.server.address, "--feature", "float_ssim", "--feature", "ssim",
             "--json"], capture_output=True, text=True, timeout=300, check=True)
        report = json.loads(result.stdout)
        pair = "testsrc2_576x324_yuv420p__x264crf38"
        for metric in ("float_ssim", "ssim"):
            self.assertEqual([f["metrics"][metric] for f in report["frames"]],
                             expected(pair, metric, metric))

    def test_python_client_pair_and_errors(self):
        data = open(self.path("ts_ref.yuv"), "rb").read()
        dist = open(self.path("ts_dis.yuv"), "rb").read()
        luma = 576 * 324
        with Client(self.server.address) as client:
            result = client.score_pair(data[:luma], dist[:luma], self.ts, features=["ssim"])
            self.assertEqual(result.scores["ssim"],
                             expected("testsrc2_576x324_yuv420p__x264crf38", "ssim", "ssim")[0])
            with self.assertRaises(ScoringError) as caught:
                client.score_clip([(data[:luma], dist[:luma])], self.ts, features=["psnr"])
            self.assertEqual(caught.exception.code.name, "INVALID_ARGUMENT")
            self.assertIn("psnr", caught.exception.details)


if __name__ == "__main__":
    junit_main.main()
