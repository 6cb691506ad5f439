"""ssimd-score and the Python client on encoded renditions, against a real ssimd_server.

Each transport (the server reads a path below its files root, the client uploads the files, or
the client decodes and sends frames) must give libvmaf's per-frame values bit for bit
(tests/data/ladder/expected_scores*.json, and upstream's psnr with its chroma from
expected_metrics.json), with no geometry flags: sizes come from the files.
Needs the ladder sources that tools/ladder_sources.sh rebuilds; without them every case skips.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path[:0] = [os.getcwd(), os.path.join(os.getcwd(), "python")]
from ssimd_client import Client, ScoringError  # noqa: E402
from tests.observability import junit_main  # noqa: E402
from tests.observability.ssimd_harness import Server  # noqa: E402

CLI = os.path.join("client", "ssimd-score")
LADDER = os.path.join("tests", "data", "ladder")
SOURCES = os.environ.get("SSIMD_LADDER_SOURCES") or "/var/cache/ssimd/ladder-sources"
# A few rungs of different codecs, containers and sizes keep the test short.
RUNGS = ("h264_960x540", "hevc_1280x720", "vp9_960x540")


def expected(file_name):
    with open(os.path.join(LADDER, file_name)) as f:
        return {r["rendition"]: r for r in json.load(f)["renditions"]}


EXPECTED = expected("expected_scores.json")
EXPECTED_ACCURATE = expected("expected_scores_accurate_rnd.json")
# Upstream libvmaf's psnr (chroma included) after the plain bicubic upscale of an AVX2 machine.
with open(os.path.join(LADDER, "expected_metrics.json")) as _f:
    UPSTREAM = {p["id"]: p["metrics"] for p in json.load(_f)["pairs"]}


def has_avx2():
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and " avx2" in line for line in f)
    except OSError:
        return False


def run_cli(*args):
    result = subprocess.run([CLI, "--no_progress", *args], capture_output=True, text=True,
                            timeout=600)
    if result.returncode != 0:
        raise AssertionError(f"ssimd-score {' '.join(args)} failed ({result.returncode}): "
                             f"{result.stderr}")
    return result


@unittest.skipUnless(os.path.exists(os.path.join(SOURCES, "src.y4m")),
                     f"no ladder sources in {SOURCES}: run tools/ladder_sources.sh")
class ClientsEncodedTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        # The client's own copies (uploaded or decoded here)...
        cls.local = os.path.join(cls.tmp, "local")
        # ...and the server's files root, holding the same files.
        cls.root = os.path.join(cls.tmp, "root")
        spool = os.path.join(cls.tmp, "spool")
        for directory in (cls.local, cls.root, spool):
            os.makedirs(directory)
        for rung in RUNGS:
            name = EXPECTED[rung]["distorted"]
            for directory in (cls.local, cls.root):
                shutil.copy(os.path.join(LADDER, name), directory)
        for directory in (cls.local, cls.root):
            shutil.copy(os.path.join(SOURCES, "src.y4m"), directory)
        cls.server = Server(f"--files_root={cls.root}", f"--upload_dir={spool}",
                            "--backend=cpu")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def local_file(self, rung):
        return os.path.join(self.local, EXPECTED[rung]["distorted"])

    def assert_libvmaf(self, frames_by_metric, rung, table):
        want = table[rung]
        for metric in ("float_ssim", "ssim"):
            self.assertEqual(frames_by_metric[metric], want[metric], f"{rung} {metric}")

    def cli_score(self, rung, *flags):
        out = os.path.join(self.tmp, f"{rung}{'_'.join(flags)}.json".replace("-", ""))
        run_cli("-r", os.path.join(self.local, "src.y4m"), "-d", self.local_file(rung),
                "--feature", "float_ssim", "--feature", "ssim", "--json", "-o", out,
                "--server", self.server.address, *flags)
        with open(out) as f:
            report = json.load(f)
        return {m: [frame["metrics"][m] for frame in report["frames"]]
                for m in ("float_ssim", "ssim")}

    def test_cli_default_transport_uploads_and_scales_bicubic(self):
        before = len(os.listdir(os.path.join(self.tmp, "spool")))
        self.assert_libvmaf(self.cli_score("h264_960x540"), "h264_960x540", EXPECTED)
        self.assertGreater(len(os.listdir(os.path.join(self.tmp, "spool"))), before,
                           "the default transport for encoded files should be an upload")

    def test_cli_every_transport_gives_libvmaf_values(self):
        for transport in ("server_files", "upload", "frames"):
            for rung in RUNGS:
                with self.subTest(transport=transport, rung=rung):
                    if transport == "server_files":
                        # Paths as the server sees them, below its root.
                        out = os.path.join(self.tmp, f"sf_{rung}.json")
                        run_cli("-r", "src.y4m", "-d", EXPECTED[rung]["distorted"],
                                "--transport", "server_files", "--accurate_rnd",
                                "--feature", "float_ssim", "--feature", "ssim", "--json",
                                "-o", out, "--server", self.server.address)
                        with open(out) as f:
                            frames = json.load(f)["frames"]
                        got = {m: [x["metrics"][m] for x in frames]
                               for m in ("float_ssim", "ssim")}
                    else:
                        got = self.cli_score(rung, "--transport", transport, "--accurate_rnd")
                    self.assert_libvmaf(got, rung, EXPECTED_ACCURATE)

    @unittest.skipUnless(has_avx2(), "the expected psnr holds an AVX2 machine's plain bicubic")
    def test_cli_every_transport_gives_upstreams_psnr_with_chroma(self):
        # The chroma comes from the files wherever they are decoded: by the server (server_files,
        # upload) or by the CLI itself (frames), the rendition's upscaled by libswscale.
        rung = "h264_960x540"
        for transport in ("server_files", "upload", "frames"):
            with self.subTest(transport=transport):
                out = os.path.join(self.tmp, f"psnr_{transport}.json")
                if transport == "server_files":
                    files = ["-r", "src.y4m", "-d", EXPECTED[rung]["distorted"]]
                else:
                    files = ["-r", os.path.join(self.local, "src.y4m"), "-d", self.local_file(rung)]
                run_cli(*files, "--transport", transport, "--feature", "psnr", "--json", "-o",
                        out, "--server", self.server.address)
                with open(out) as f:
                    frames = json.load(f)["frames"]
                for metric in ("psnr_y", "psnr_cb", "psnr_cr"):
                    self.assertEqual([x["metrics"][metric] for x in frames],
                                     UPSTREAM[rung][metric], f"{transport} {metric}")

    def test_cli_ladder_writes_one_report_per_rendition_and_a_table(self):
        out_dir = os.path.join(self.tmp, "ladder_reports")
        args = ["--ladder", "-r", os.path.join(self.local, "src.y4m")]
        for rung in RUNGS:
            args += ["-d", f"{rung}={self.local_file(rung)}"]
        result = run_cli(*args, "--feature", "float_ssim", "--feature", "ssim", "--json",
                         "-o", out_dir, "--server", self.server.address)
        table = result.stdout.splitlines()
        self.assertIn("rendition", table[0])
        self.assertEqual(sorted(line.split()[0] for line in table[1:] if line.strip()),
                         sorted(RUNGS))
        for rung in RUNGS:
            with open(os.path.join(out_dir, rung + ".json")) as f:
                frames = json.load(f)["frames"]
            self.assert_libvmaf({m: [x["metrics"][m] for x in frames]
                                 for m in ("float_ssim", "ssim")}, rung, EXPECTED)

    def test_python_client_uploads_and_scores_files_and_ladders(self):
        with Client(self.server.address) as client:
            source = client.upload(os.path.join(self.local, "src.y4m"))
            self.assertTrue(source.startswith("upload:"), source)
            renditions = [(rung, client.upload(self.local_file(rung))) for rung in RUNGS]
            result = client.score_files(source, renditions[0][1],
                                        features=("float_ssim", "ssim"), accurate_rounding=True)
            self.assert_libvmaf({m: [f.scores[m] for f in result.frames]
                                 for m in ("float_ssim", "ssim")}, RUNGS[0], EXPECTED_ACCURATE)
            ladder = client.score_ladder(source, renditions, features=("float_ssim", "ssim"))
            for rung in RUNGS:
                self.assert_libvmaf({m: [f.scores[m] for f in ladder.frames[rung]]
                                     for m in ("float_ssim", "ssim")}, rung, EXPECTED)
            with self.assertRaises(ScoringError) as unknown:
                client.score_files(source, "upload:" + "0" * 32 + ".mp4")
            self.assertEqual(unknown.exception.code.name, "NOT_FOUND")
            with self.assertRaises(ValueError):
                client.score_files(source, renditions[0][1], scaler="nearest")


if __name__ == "__main__":
    junit_main.main()
