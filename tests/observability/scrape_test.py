"""Scrapes a real ssimd_server after real traffic: promtool lint, counts, the title and ladder caps,
the logs."""

import re
import shutil
import subprocess
import unittest

from tests.observability import junit_main
from tests.observability import ssimd_harness as h

TITLE_CAP = 3
TITLES = 7  # more than the cap
FRAMES = 3


def promtool_check_metrics(text):
    result = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                            text=True, check=False)
    return result.returncode, result.stdout + result.stderr


class PromtoolLint:
    """Mixed into a test case whose setUpClass leaves a scraped exposition in `text`."""

    def test_promtool_reports_no_problem(self):
        if not shutil.which("promtool"):
            self.skipTest("promtool is not installed (Debian package prometheus)")
        code, output = promtool_check_metrics(self.text)
        self.assertEqual(code, 0, output)
        self.assertEqual(output.strip(), "", "promtool lint findings")


class ScrapeAfterTrafficTest(PromtoolLint, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = h.Server(f"--max_titles={TITLE_CAP}")
        try:
            h.run_traffic(cls.server.address, titles=TITLES, frames=FRAMES)
            cls.text = cls.server.scrape()
        finally:
            cls.exit_code = cls.server.stop()
        cls.samples = h.parse_exposition(cls.text)

    def test_counts_match_the_traffic(self):
        s = self.samples
        # One valid ScorePair frame besides the clips; the invalid pair is refused before scoring.
        self.assertEqual(h.total(s, "ssimd_frames_scored_total"), TITLES * FRAMES + 1)
        self.assertEqual(h.total(s, "ssimd_rpcs_total", method="ScoreClip", code="OK"), TITLES)
        self.assertEqual(h.total(s, "ssimd_rpcs_total", method="ScorePair", code="OK"), 1)
        self.assertEqual(h.total(s, "ssimd_rpcs_total", method="ScorePair",
                                 code="INVALID_ARGUMENT"), 1)
        self.assertEqual(h.total(s, "ssimd_frame_seconds_count"), TITLES * FRAMES + 1)
        stages = {x[1]["stage"] for x in h.select(s, "ssimd_frame_stage_seconds_count")}
        self.assertTrue({"queue_wait", "compute"} <= stages, stages)
        for score in ("float_ssim", "ssim"):
            self.assertEqual(h.total(s, "ssimd_frame_score_count", feature=score),
                             TITLES * FRAMES + 1)
        # Everything finished: nothing is left open.
        self.assertEqual(h.total(s, "ssimd_active_streams"), 0)
        self.assertEqual(h.total(s, "ssimd_frames_in_flight"), 0)

    def test_fallbacks_match_the_backend(self):
        s = self.samples
        backends = {x[1]["backend"] for x in h.select(s, "ssimd_frames_scored_total")}
        cpu_frames = h.total(s, "ssimd_frames_scored_total", backend="cpu")
        if h.total(s, "ssimd_devices") == 0:
            # Without a device every auto frame falls back, for want of a GPU.
            self.assertEqual(backends, {"cpu"})
            self.assertEqual(h.total(s, "ssimd_fallbacks_total", reason="gpu_unavailable"),
                             cpu_frames)
        reasons = {x[1]["reason"] for x in h.select(s, "ssimd_fallbacks_total")}
        self.assertTrue(reasons <= {"gpu_unavailable", "context_refused", "device_error",
                                    "other"}, reasons)

    def test_title_gauges_stay_at_the_cap(self):
        s = self.samples
        titles = {x[1]["title"] for x in h.select(s, "ssimd_title_score")}
        self.assertEqual(len(titles), TITLE_CAP)
        # The most recently scored titles are the ones kept.
        self.assertEqual(titles, {f"title-{i}" for i in range(TITLES - TITLE_CAP, TITLES)})
        self.assertEqual(h.total(s, "ssimd_titles_tracked"), TITLE_CAP)
        self.assertEqual(h.total(s, "ssimd_title_evictions_total"), TITLES - TITLE_CAP)
        for sample in h.select(s, "ssimd_title_score"):
            self.assertIn(sample[1]["feature"], ("float_ssim", "ssim"))
            self.assertGreater(sample[2], 0.9)  # lightly noised copies score high

    def test_logs_are_json_lines_with_stream_fields(self):
        self.assertEqual(self.exit_code, 0)
        for line in self.server.raw_lines():
            if not h.GRPC_CORE_LINE.match(line):
                self.assertTrue(line.startswith("{") and line.endswith("}"), line)
        lines = self.server.json_lines()
        for line in lines:
            self.assertTrue({"time", "level", "msg"} <= set(line), line)
            self.assertRegex(line["time"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
        startup = [l for l in lines if l["msg"] == "ssimd started"]
        self.assertEqual(len(startup), 1)
        self.assertIn(startup[0]["backend"], ("cpu", "gpu"))
        self.assertRegex(startup[0]["devices"], r"^\d+$")

        streams = {}
        for line in lines:
            if line.get("method") == "ScoreClip" and "stream" in line:
                streams.setdefault(line["stream"], []).append(line)
        self.assertEqual(len(streams), TITLES)
        for stream, stream_lines in streams.items():
            titles = {l.get("title") for l in stream_lines}
            self.assertEqual(len(titles), 1, f"stream {stream}: {titles}")
            self.assertRegex(titles.pop(), r"^title-\d+$")
            finished = [l for l in stream_lines if l["msg"] == "stream finished"]
            self.assertEqual(len(finished), 1, stream)
            self.assertEqual(finished[0]["status"], "OK")
            fallbacks = [l for l in stream_lines if l["msg"] == "frames fall back to the CPU"]
            reasons = [l["reason"] for l in fallbacks]
            self.assertEqual(len(reasons), len(set(reasons)),
                             f"stream {stream}: a fallback reason logged twice")
            for line in fallbacks:
                self.assertTrue(line["detail"], line)
                self.assertEqual(line["level"], "warning")


class LadderCardinalityTest(PromtoolLint, unittest.TestCase):
    """Ladders of more titles, and with more renditions, than the caps: bounded series, counted
    evictions, and the most recently scored kept."""

    TITLE_CAP = 2
    RENDITION_CAP = 2
    LADDER_TITLES = 3
    RENDITIONS = {"240p": "h264_426x240.mp4", "360p": "h264_640x360.mp4",
                  "540p": "vp9_960x540.webm"}

    @classmethod
    def setUpClass(cls):
        source = "h264_1920x1080.mp4"
        root = h.ladder_files_root([source, *cls.RENDITIONS.values()])
        cls.server = h.Server(f"--max_titles={cls.TITLE_CAP}",
                              f"--max_renditions_per_title={cls.RENDITION_CAP}",
                              f"--files_root={root}")
        try:
            for t in range(cls.LADDER_TITLES):
                summaries = h.score_ladder(cls.server.address, f"ladder-{t}", source,
                                           cls.RENDITIONS)
                if set(summaries) != set(cls.RENDITIONS):
                    raise AssertionError(f"ladder-{t}: summaries for {sorted(summaries)}")
            cls.text = cls.server.scrape()
        finally:
            cls.server.stop()
        cls.samples = h.parse_exposition(cls.text)
        cls.log = cls.server.json_lines()

    def test_ladder_time_shows_as_decode_and_scale_stages(self):
        frames = 24  # in every file
        # Each ladder decodes its source once and each rendition once; only renditions upscale.
        self.assertEqual(h.total(self.samples, "ssimd_frame_stage_seconds_count", stage="decode",
                                 backend="cpu"),
                         self.LADDER_TITLES * frames * (1 + len(self.RENDITIONS)))
        self.assertEqual(h.total(self.samples, "ssimd_frame_stage_seconds_count", stage="scale",
                                 backend="cpu"),
                         self.LADDER_TITLES * frames * len(self.RENDITIONS))
        self.assertGreater(h.total(self.samples, "ssimd_frame_stage_seconds_sum", stage="decode"),
                           0)

    def test_every_rendition_logs_one_line_with_its_name(self):
        lines = [l for l in self.log if l.get("msg") == "rendition scored"]
        self.assertEqual(sorted((l["title"], l["rendition"]) for l in lines),
                         sorted((f"ladder-{t}", r) for t in range(self.LADDER_TITLES)
                                for r in self.RENDITIONS))
        for line in lines:
            self.assertEqual(line["frames"], "24", line)
            self.assertIn(line["codec"], ("h264", "vp9"), line)
            self.assertRegex(line["size"], r"^\d+x\d+$")
            self.assertGreater(float(line["decode_seconds"]), 0, line)
            self.assertGreater(float(line["scale_seconds"]), 0, line)
            self.assertGreater(float(line["mean_float_ssim"]), 0.5, line)

    def test_ladder_series_stay_at_the_caps(self):
        s = self.samples
        kept = {(x[1]["title"], x[1]["rendition"])
                for x in h.select(s, "ssimd_rendition_bytes_per_second")}
        # The last titles, and in each the renditions the ladder sent last (request order).
        self.assertEqual(kept, {(f"ladder-{t}", r) for t in (1, 2) for r in ("360p", "540p")})
        rungs = self.TITLE_CAP * self.RENDITION_CAP
        self.assertEqual(len(h.select(s, "ssimd_rendition_info")), rungs)
        self.assertEqual(len(h.select(s, "ssimd_rendition_size_bytes")), rungs)
        # float_ssim and ssim, each as mean, harmonic_mean and p5.
        self.assertEqual(len(h.select(s, "ssimd_rendition_score")), rungs * 6)
        self.assertEqual(h.total(s, "ssimd_ladder_titles_tracked"), self.TITLE_CAP)
        self.assertEqual(h.total(s, "ssimd_ladder_renditions_tracked"), rungs)
        self.assertEqual(h.total(s, "ssimd_ladder_evictions_total", reason="title_cap"),
                         self.LADDER_TITLES - self.TITLE_CAP)
        self.assertEqual(h.total(s, "ssimd_ladder_evictions_total", reason="rendition_cap"),
                         self.LADDER_TITLES * (len(self.RENDITIONS) - self.RENDITION_CAP))


class MetricSurfaceLintTest(unittest.TestCase):
    """Every family, including the GPU-only ones a CPU machine never shows, passes promtool."""

    def test_promtool_accepts_every_family(self):
        if not shutil.which("promtool"):
            self.skipTest("promtool is not installed (Debian package prometheus)")
        text = subprocess.run([h.METRICS_DUMP], capture_output=True, text=True, check=True,
                              timeout=30).stdout
        families = set(re.findall(r"^# TYPE (ssimd_\w+) ", text, re.M))
        self.assertIn("ssimd_device_slots_in_use", families)
        self.assertIn("ssimd_frame_score_decibels", families)
        self.assertIn("ssimd_device_ordered_sums_total", families)
        self.assertIn("ssimd_rendition_score", families)
        self.assertIn("ssimd_rendition_info", families)
        code, output = promtool_check_metrics(text)
        self.assertEqual(code, 0, output)
        self.assertEqual(output.strip(), "", "promtool lint findings")


if __name__ == "__main__":
    junit_main.main()
