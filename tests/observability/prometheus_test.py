"""A real Prometheus scrapes a real ssimd while clips are scored; then every query of the Grafana
dashboard and of the alerting rules is evaluated through Prometheus's HTTP API.

Each query must parse and evaluate; the throughput, latency, error, per-title and ladder ones must
return numbers. Before the traffic, one ladder of tests/data/ladder is scored through ScoreLadder,
and the ladder view must show exactly its renditions, with their files' bitrates and the pooled
scores the server sent in the RenditionSummary. Skips (does not fail) when the prometheus binary
is not installed.
"""

import json
import math
import os
import re
import shutil
import subprocess
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

import yaml

from tests.observability import junit_main
from tests.observability import ssimd_harness as h

DASHBOARD = os.path.join("deploy", "grafana", "ssimd-dashboard.json")
ALERTS = os.path.join("deploy", "prometheus", "ssimd-alerts.yml")

LADDER_DIR = h.LADDER_DIR
LADDER_TITLE = "autumn"
# The 8-bit renditions, scored against the 1080p one as the source (the real sources are not in
# the repository). Every file holds 24 frames at 24/1 and its container states 1 s.
LADDER_SOURCE = "h264_1920x1080.mp4"
LADDER = {
    "h264_1280x720": "h264_1280x720.mp4",
    "h264_960x540": "h264_960x540.mp4",
    "h264_640x360": "h264_640x360.mp4",
    "h264_426x240": "h264_426x240.mp4",
    "hevc_1280x720": "hevc_1280x720.mkv",
    "vp9_960x540": "vp9_960x540.webm",
}
LADDER_SECONDS = 24 / 24

# What Grafana would put in place of the dashboard's variables ("All" for the selections); $floor
# is set once the ladder's scores are known, so that some renditions lie below it.
# Scrapes come every second here, so a 15 s window holds plenty of samples.
VARIABLES = {"$__rate_interval": "15s", "$job": ".+", "$feature": ".*", "$title": LADDER_TITLE,
             "$ladder_feature": "float_ssim"}

# Panels whose queries must return numbers after the traffic (title prefixes).
MUST_HAVE_DATA = (
    "Throughput",
    "Frames per second by backend",
    "Frame latency",
    "Stage latency",
    "RPCs by method",
    "RPC errors",
    "Active streams",
    "Per-title quality",
    "Frame score percentiles",
    "Ladder",
)
SCRAPES_BEFORE_QUERYING = 8


def by_rendition(answer):
    return {r["metric"]["rendition"]: float(r["value"][1]) for r in answer["data"]["result"]}


def substitute(expr):
    for name, value in VARIABLES.items():
        expr = expr.replace(name, value)
    if "$" in re.sub(r"\{\{.*?\}\}|\$labels|\$value", "", expr):
        raise AssertionError(f"unknown dashboard variable in {expr!r}")
    return expr


def dashboard_queries():
    """[(panel title, expr)] for every target, plus the template variables' label queries."""
    with open(DASHBOARD, encoding="utf-8") as f:
        dashboard = json.load(f)
    queries = [(p["title"], t["expr"]) for p in dashboard["panels"] for t in p.get("targets", [])]
    variables = [(f"variable {v['name']}", v["definition"])
                 for v in dashboard["templating"]["list"] if v["type"] == "query"]
    return queries, variables


def alert_queries():
    with open(ALERTS, encoding="utf-8") as f:
        groups = yaml.safe_load(f)["groups"]
    return [(r["alert"], r["expr"]) for g in groups for r in g["rules"]]


class Prometheus:
    """prometheus on 127.0.0.1 with a throwaway data directory."""

    def __init__(self, metrics_port):
        self.dir = h.tmpdir()
        config = {
            "global": {"scrape_interval": "1s", "scrape_timeout": "1s",
                       "evaluation_interval": "1s"},
            "rule_files": [os.path.abspath(ALERTS)],
            "scrape_configs": [{
                "job_name": "ssimd",
                "static_configs": [{
                    "targets": [f"127.0.0.1:{metrics_port}"],
                    # What the PodMonitor adds in a cluster.
                    "labels": {"namespace": "test", "pod": "ssimd-0", "expects_gpu": "true"},
                }],
            }],
        }
        config_path = os.path.join(self.dir, "prometheus.yml")
        with open(config_path, "w", encoding="utf-8") as f:
            yaml.safe_dump(config, f)
        self.log_path = os.path.join(self.dir, "prometheus.log")
        # Prometheus cannot report a port it picked, so pick one and retry if it was taken.
        for _ in range(3):
            self.port = h.free_port()
            self._log = open(self.log_path, "wb")
            self.process = subprocess.Popen(
                ["prometheus", f"--config.file={config_path}",
                 f"--storage.tsdb.path={os.path.join(self.dir, 'data')}",
                 f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
                stdout=self._log, stderr=subprocess.STDOUT)
            if self._wait_ready(30):
                return
            self.stop()
        raise RuntimeError("prometheus did not become ready:\n" + self.log_text())

    def log_text(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def _wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=2):
                    return True
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        return False

    def api(self, path, **params):
        """The decoded JSON answer; Prometheus answers 400 with a JSON error for a bad query."""
        url = f"http://127.0.0.1:{self.port}/api/v1/{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params, doseq=True)
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                return json.load(response)
        except urllib.error.HTTPError as e:
            return json.load(e)

    def query(self, expr):
        return self.api("query", query=expr)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


def numbers(answer):
    """The finite values of a query answer (vector or scalar)."""
    data = answer["data"]
    if data["resultType"] == "vector":
        values = [float(r["value"][1]) for r in data["result"]]
    elif data["resultType"] == "scalar":
        values = [float(data["result"][1])]
    else:
        values = []
    return [v for v in values if math.isfinite(v)]


@unittest.skipUnless(shutil.which("prometheus"),
                     "prometheus is not installed (Debian package prometheus)")
class DashboardAndAlertQueriesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        files_root = h.ladder_files_root([LADDER_SOURCE, *LADDER.values()])
        cls.server = h.Server("--max_titles=50", f"--files_root={files_root}")
        cls.traffic = None
        cls.prometheus = None
        try:
            cls.ladder = h.score_ladder(cls.server.address, LADDER_TITLE, LADDER_SOURCE, LADDER)
            # Half the renditions (rounded down) lie below the floor.
            means = sorted(s["pooled"]["float_ssim"]["mean"] for s in cls.ladder.values())
            VARIABLES["$floor"] = repr(means[len(means) // 2])
            # Clips keep coming while Prometheus scrapes, so rates and quantiles have data.
            cls.traffic = subprocess.Popen(
                h.traffic_command(cls.server.address, titles=4, frames=4, duration="120s"),
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            cls.prometheus = Prometheus(cls.server.metrics_port)
            cls._wait_for_scrapes()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def _wait_for_scrapes(cls):
        deadline = time.monotonic() + 40
        expr = f'count_over_time(ssimd_frames_scored_total{{job="ssimd"}}[1m])'
        while time.monotonic() < deadline:
            answer = cls.prometheus.query(expr)
            values = numbers(answer) if answer.get("status") == "success" else []
            if values and max(values) >= SCRAPES_BEFORE_QUERYING:
                return
            if cls.traffic.poll() is not None:
                raise RuntimeError("traffic stopped early: " + cls.traffic.stderr.read().decode())
            time.sleep(0.5)
        raise RuntimeError("Prometheus did not collect enough scrapes of ssimd:\n"
                           + cls.prometheus.log_text())

    @classmethod
    def tearDownClass(cls):
        if cls.traffic is not None and cls.traffic.poll() is None:
            cls.traffic.terminate()
            cls.traffic.wait(10)
        if cls.prometheus is not None:
            cls.prometheus.stop()
        cls.server.stop()

    def test_target_is_up(self):
        answer = self.prometheus.query('up{job="ssimd"}')
        self.assertEqual(numbers(answer), [1.0], answer)

    def test_every_dashboard_query_evaluates(self):
        queries, _ = dashboard_queries()
        self.assertGreater(len(queries), 10)
        for title, expr in queries:
            with self.subTest(panel=title, expr=expr):
                answer = self.prometheus.query(substitute(expr))
                self.assertEqual(answer.get("status"), "success", answer)
                if title.startswith(MUST_HAVE_DATA):
                    self.assertTrue(numbers(answer), f"no data: {answer}")

    def test_dashboard_variables_find_values(self):
        _, variables = dashboard_queries()
        for name, definition in variables:
            with self.subTest(variable=name):
                match = re.fullmatch(r"label_values\((\w+),\s*(\w+)\)", definition)
                self.assertIsNotNone(match, definition)
                answer = self.prometheus.api(f"label/{match.group(2)}/values",
                                             **{"match[]": match.group(1)})
                self.assertEqual(answer.get("status"), "success", answer)
                self.assertTrue(answer["data"], f"{definition} found no values")

    def test_per_title_table_lists_the_titles(self):
        answer = self.prometheus.query('min by (title, feature) (ssimd_title_score{job="ssimd"})')
        titles = {r["metric"]["title"] for r in answer["data"]["result"]}
        self.assertEqual(titles, {f"title-{i}" for i in range(4)})

    def panel_queries(self, title):
        queries, _ = dashboard_queries()
        return [substitute(expr) for panel, expr in queries if panel == title]

    def test_ladder_summaries_state_the_files(self):
        self.assertEqual(set(self.ladder), set(LADDER))
        for rendition, summary in self.ladder.items():
            with self.subTest(rendition=rendition):
                size = os.path.getsize(os.path.join(LADDER_DIR, LADDER[rendition]))
                self.assertEqual(summary["size_bytes"], size)
                self.assertEqual(summary["bitrate_bits_per_second"], size * 8 / LADDER_SECONDS)
                self.assertEqual(summary["frames"], 24)

    def test_ladder_chart_has_one_point_per_rendition(self):
        bitrate_query, score_query = self.panel_queries("Ladder: quality against bitrate")
        bitrates = by_rendition(self.prometheus.query(bitrate_query))
        scores = by_rendition(self.prometheus.query(score_query))
        self.assertEqual(set(bitrates), set(LADDER))
        self.assertEqual(set(scores), set(LADDER))
        for rendition, file in LADDER.items():
            with self.subTest(rendition=rendition):
                size = os.path.getsize(os.path.join(LADDER_DIR, file))
                self.assertEqual(bitrates[rendition], size * 8 / LADDER_SECONDS)
                # Exactly the pooled score of the summary: no rounding on the way.
                self.assertEqual(scores[rendition],
                                 self.ladder[rendition]["pooled"]["float_ssim"]["mean"])

    def test_ladder_table_lists_the_renditions_below_the_floor(self):
        floor = float(VARIABLES["$floor"])
        expected = {r for r, s in self.ladder.items() if s["pooled"]["float_ssim"]["mean"] < floor}
        self.assertTrue(expected)
        mean, p5, bitrate, info = self.panel_queries("Ladder: renditions below the floor")
        self.assertEqual(set(by_rendition(self.prometheus.query(mean))), expected)
        p5s = by_rendition(self.prometheus.query(p5))
        self.assertEqual(p5s, {r: self.ladder[r]["pooled"]["float_ssim"]["p5"] for r in expected})
        self.assertEqual(set(by_rendition(self.prometheus.query(bitrate))), expected)
        codecs = {r["metric"]["rendition"]: r["metric"]["codec"]
                  for r in self.prometheus.query(info)["data"]["result"]}
        self.assertEqual(codecs, {r: self.ladder[r]["codec"] for r in expected})

    def test_title_picker_offers_the_ladder(self):
        answer = self.prometheus.api("label/title/values",
                                     **{"match[]": "ssimd_rendition_bytes_per_second"})
        self.assertEqual(answer["data"], [LADDER_TITLE])

    def test_every_alert_query_evaluates(self):
        for alert, expr in alert_queries():
            with self.subTest(alert=alert):
                answer = self.prometheus.query(expr)
                self.assertEqual(answer.get("status"), "success", answer)

    def test_alert_rules_load_and_evaluate_without_errors(self):
        expected = {alert for alert, _ in alert_queries()}
        deadline = time.monotonic() + 10
        while True:
            answer = self.prometheus.api("rules")
            rules = [r for g in answer["data"]["groups"] for r in g["rules"]]
            # Rules not evaluated yet carry Go's zero time, 0001-01-01.
            evaluated = [r for r in rules
                         if not r.get("lastEvaluation", "0001").startswith("0001")]
            if len(evaluated) == len(expected) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        self.assertEqual({r["name"] for r in rules}, expected)
        for rule in rules:
            self.assertEqual(rule["health"], "ok", rule)

    def test_alerts_see_what_this_server_is(self):
        # The traffic sends one invalid request per round: a client error, not a server error.
        self.assertEqual(numbers(self.prometheus.query(dict(alert_queries())["SsimdHighErrorRate"])),
                         [])
        if self.server.startup["devices"] != "0":
            return
        # Without a GPU, every frame falls back and the pod that expects a GPU has none: the
        # fallback and no-device alerts must see it.
        queries = dict(alert_queries())
        fallback = self.prometheus.query(queries["SsimdHighFallbackRate"])
        # All frames fell back; the two counters are bumped one after the other, so a scrape that
        # lands between them can put the ratio a hair below 1.
        self.assertEqual(len(numbers(fallback)), 1, fallback)
        self.assertAlmostEqual(numbers(fallback)[0], 1.0, delta=0.01, msg=fallback)
        self.assertEqual(fallback["data"]["result"][0]["metric"]["reason"], "gpu_unavailable")
        self.assertTrue(numbers(self.prometheus.query(queries["SsimdNoDevice"])))


if __name__ == "__main__":
    junit_main.main()
