"""The Kubernetes flags and ports against the real server binary: every ConfigMap flag exists, the
container ports are the server's defaults, and a server started from the ConfigMap's flag file
answers both probes (grpc.health.v1 for "" and for the scoring service)."""

import os
import re
import subprocess
import unittest

import yaml

from tests.observability import junit_main
from tests.observability import ssimd_harness as h

K8S = os.path.join("deploy", "kubernetes")


def load(name):
    with open(os.path.join(K8S, name), encoding="utf-8") as f:
        return yaml.safe_load(f)


def server_flag_defaults():
    """{flag: default text} from `ssimd_server --helpfull` (absl prints `--name (help); default: x;`)."""
    result = subprocess.run([h.SERVER, "--helpfull"], capture_output=True, text=True, timeout=30,
                            check=False)
    text = result.stdout + result.stderr
    defaults = {}
    for match in re.finditer(r"^\s+--(\w+) \(.*?\);\s+default: (.*?);$", text, re.M | re.S):
        defaults[match.group(1)] = match.group(2).strip('"')
    if "address" not in defaults:
        raise AssertionError("could not read the server's flags from --helpfull:\n" + text)
    return defaults


class DeployFlagsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.defaults = server_flag_defaults()
        cls.flag_lines = [line.strip() for line in
                          load("configmap.yaml")["data"]["ssimd.flags"].splitlines()
                          if line.strip() and not line.strip().startswith("#")]
        container = load("deployment.yaml")["spec"]["template"]["spec"]["containers"][0]
        cls.container = container
        cls.ports = {p["name"]: p["containerPort"] for p in container["ports"]}

    def test_every_configmap_flag_is_a_server_flag(self):
        for line in self.flag_lines:
            name = re.fullmatch(r"--(\w+)=.*", line).group(1)
            self.assertIn(name, self.defaults, f"ssimd_server has no flag --{name}")

    def test_container_ports_are_the_server_defaults(self):
        self.assertEqual(int(self.defaults["address"].rsplit(":", 1)[1]), self.ports["grpc"])
        self.assertEqual(int(self.defaults["metrics_address"].rsplit(":", 1)[1]),
                         self.ports["metrics"])

    def test_server_started_from_the_flag_file_passes_both_probes(self):
        # The same file, listening on loopback only: this test must not open ports to the network.
        lines = [line for line in self.flag_lines
                 if not line.startswith(("--address=", "--metrics_address="))]
        path = os.path.join(h.tmpdir(), "ssimd.flags")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        server = h.Server(f"--flagfile={path}")
        try:
            liveness = self.container["livenessProbe"]["grpc"].get("service", "")
            readiness = self.container["readinessProbe"]["grpc"].get("service", "")
            for service in (liveness, readiness):
                with self.subTest(service=service):
                    h.run_traffic(server.address, timeout=30, health_only="true",
                                  health_service=service, ready_timeout="10s")
            self.assertTrue(server.scrape().startswith("#"))
        finally:
            self.assertEqual(server.stop(), 0, server.log_text())


if __name__ == "__main__":
    junit_main.main()
