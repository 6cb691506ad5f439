"""Starts ssimd_server on loopback with free ports, drives it, scrapes it, and reads its JSON logs.

Paths are relative to the runfiles root, Bazel's working directory for tests.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

SERVER = os.path.join("server", "ssimd_server")
TRAFFIC = os.path.join("tests", "observability", "traffic")
METRICS_DUMP = os.path.join("tests", "observability", "metrics_dump")

# gRPC core writes its own lines to stderr in its own format (E1202 18:31:59.01 ... file:line]).
GRPC_CORE_LINE = re.compile(r"^[EWID]\d{4} ")


def tmpdir():
    return tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))


def free_port():
    """A TCP port free on 127.0.0.1 now (for programs that cannot bind port 0 and report it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """ssimd_server on 127.0.0.1 with ports chosen by the kernel, read back from its start-up log."""

    def __init__(self, *flags, start_timeout=30.0):
        self.dir = tmpdir()
        self.log_path = os.path.join(self.dir, "server.log")
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [SERVER, "--address=127.0.0.1:0", "--metrics_address=127.0.0.1:0",
             "--log_format=json", *flags],
            stdout=self._log, stderr=subprocess.STDOUT)
        self.startup = self._wait_for_startup(start_timeout)
        self.grpc_port = int(self.startup["grpc_port"])
        self.metrics_port = int(self.startup["metrics_port"])
        self.address = f"127.0.0.1:{self.grpc_port}"

    def _wait_for_startup(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.json_lines():
                if line.get("msg") == "ssimd started":
                    return line
            if self.process.poll() is not None:
                raise RuntimeError(f"ssimd_server exited ({self.process.returncode}):\n"
                                   + self.log_text())
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("ssimd_server did not log 'ssimd started' in time:\n" + self.log_text())

    def log_text(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def raw_lines(self):
        return [line for line in self.log_text().splitlines() if line.strip()]

    def json_lines(self):
        """Every log line that is a JSON object (gRPC core's own lines are skipped)."""
        out = []
        for line in self.raw_lines():
            if line.startswith("{"):
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    pass  # a line still being written
        return out

    def scrape(self):
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.read().decode("utf-8")

    def stop(self, timeout=30.0):
        """SIGTERM (graceful drain), then SIGKILL after `timeout`; returns the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        return self.process.returncode


LADDER_DIR = os.path.join("tests", "data", "ladder")


def ladder_files_root(names):
    """A new files root holding these files of tests/data/ladder (hard links where the file
    system allows, else copies: a server's root refuses symbolic links that lead out)."""
    root = tmpdir()
    for name in names:
        source, target = os.path.join(LADDER_DIR, name), os.path.join(root, name)
        try:
            os.link(os.path.realpath(source), target)
        except OSError:
            shutil.copyfile(source, target)
    return root


def score_ladder(address, title, source, renditions, timeout=300):
    """Scores one ladder through ScoreLadder (the traffic tool); renditions is {name: file}.
    Returns {rendition: summary} as the tool printed the RenditionSummary messages."""
    out = run_traffic(address, timeout=timeout, titles=0, ladder_source=source,
                      ladder_title=title,
                      ladder_renditions=",".join(f"{k}={v}" for k, v in renditions.items()))
    summaries = [json.loads(line[len("ladder "):]) for line in out.splitlines()
                 if line.startswith("ladder ")]
    return {s["rendition"]: s for s in summaries}


def traffic_command(address, **flags):
    return [TRAFFIC, f"--address={address}"] + [f"--{k}={v}" for k, v in flags.items()]


def run_traffic(address, timeout=60, **flags):
    """Runs one traffic round (or --duration of them) and raises on any unexpected answer."""
    result = subprocess.run(traffic_command(address, **flags), capture_output=True, text=True,
                            timeout=timeout, check=False)
    if result.returncode != 0:
        raise AssertionError(f"traffic failed ({result.returncode}): {result.stderr}")
    return result.stdout


_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_exposition(text):
    """[(name, {label: value}, value)] for every sample of a text exposition."""
    samples = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = _SAMPLE.match(line)
        if not match:
            raise ValueError(f"not a sample line: {line!r}")
        labels = dict(_LABEL.findall(match.group(2) or ""))
        samples.append((match.group(1), labels, float(match.group(3))))
    return samples


def select(samples, name, **labels):
    return [s for s in samples
            if s[0] == name and all(s[1].get(k) == v for k, v in labels.items())]


def total(samples, name, **labels):
    return sum(s[2] for s in select(samples, name, **labels))
