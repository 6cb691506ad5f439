"""Checks the deployment files: YAML lint, the Kubernetes fields that matter, rules and dashboard.

Runs from Bazel's runfiles tree (the working directory is the workspace root there).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml

from tests.observability import junit_main

DEPLOY = "deploy"
K8S = os.path.join(DEPLOY, "kubernetes")
ALERTS = os.path.join(DEPLOY, "prometheus", "ssimd-alerts.yml")
DASHBOARD = os.path.join(DEPLOY, "grafana", "ssimd-dashboard.json")
GPU_RESOURCE = "amd.com/gpu"
VIDEO_GID = 44  # video on Debian and Ubuntu; owns /dev/dri/card* and, on some nodes, /dev/kfd
HEALTH_SERVICE = "ssimd.v1.ScoringService"


def load_manifests():
    """{kind: [documents]} for every manifest under deploy/kubernetes."""
    by_kind = {}
    for name in sorted(os.listdir(K8S)):
        if not name.endswith(".yaml") or name == "kustomization.yaml":
            continue
        with open(os.path.join(K8S, name), encoding="utf-8") as f:
            for doc in yaml.safe_load_all(f):
                if doc:
                    by_kind.setdefault(doc["kind"], []).append(doc)
    return by_kind


def one(by_kind, kind):
    docs = by_kind.get(kind, [])
    if len(docs) != 1:
        raise AssertionError(f"expected exactly one {kind} in {K8S}, found {len(docs)}")
    return docs[0]


def flag_file_flags(configmap):
    """The --name=value lines of the flags ConfigMap as {name: value}."""
    flags = {}
    for line in configmap["data"]["ssimd.flags"].splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(r"--([a-z0-9_]+)=(.*)", line)
        if not match:
            raise AssertionError(f"ConfigMap flag line {line!r} is not --name=value")
        flags[match.group(1)] = match.group(2)
    return flags


def port_of(address):
    return int(address.rsplit(":", 1)[1])


def quantity(value):
    """Kubernetes quantities used here (plain numbers, m, Ki/Mi/Gi) as floats."""
    text = str(value)
    units = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    for suffix, scale in units.items():
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * scale
    return float(text)


class KubernetesManifestTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.by_kind = load_manifests()
        cls.deployment = one(cls.by_kind, "Deployment")
        cls.pod = cls.deployment["spec"]["template"]["spec"]
        containers = cls.pod["containers"]
        assert len(containers) == 1, "the pod runs one container, ssimd"
        cls.container = containers[0]
        cls.ports = {p["name"]: p["containerPort"] for p in cls.container["ports"]}
        cls.flags = flag_file_flags(one(cls.by_kind, "ConfigMap"))

    def test_yamllint_passes(self):
        if not shutil.which("yamllint"):
            self.skipTest("yamllint is not installed (Debian package yamllint)")
        result = subprocess.run(
            ["yamllint", "--strict", "-c", os.path.join(DEPLOY, ".yamllint.yml"), K8S,
             os.path.join(DEPLOY, "prometheus")],
            capture_output=True, text=True, check=False)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_requests_one_amd_gpu(self):
        resources = self.container["resources"]
        self.assertEqual(int(resources["limits"][GPU_RESOURCE]), 1)
        # Extended resources cannot be overcommitted: a request, if given, equals the limit.
        self.assertEqual(resources["requests"].get(GPU_RESOURCE, resources["limits"][GPU_RESOURCE]),
                         resources["limits"][GPU_RESOURCE])

    def test_cpu_and_memory_have_requests_within_limits(self):
        resources = self.container["resources"]
        for name in ("cpu", "memory"):
            request = quantity(resources["requests"][name])
            limit = quantity(resources["limits"][name])
            self.assertGreater(request, 0, name)
            self.assertLessEqual(request, limit, name)

    def test_probes_use_grpc_health_on_the_grpc_port(self):
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            with self.subTest(probe=probe):
                spec = self.container[probe]
                self.assertIn("grpc", spec, f"{probe} must be a gRPC probe (grpc.health.v1)")
                self.assertEqual(spec["grpc"]["port"], self.ports["grpc"])
        # Liveness asks about the process (""), readiness about the scoring service itself, which
        # the server reports NOT_SERVING while it drains or cannot serve.
        self.assertEqual(self.container["livenessProbe"]["grpc"].get("service", ""), "")
        self.assertEqual(self.container["readinessProbe"]["grpc"]["service"], HEALTH_SERVICE)

    def test_runs_unprivileged_with_the_rocm_device_groups(self):
        pod_security = self.pod["securityContext"]
        self.assertTrue(pod_security["runAsNonRoot"])
        self.assertGreater(pod_security["runAsUser"], 0)
        self.assertGreater(pod_security["runAsGroup"], 0)
        groups = pod_security["supplementalGroups"]
        self.assertIn(VIDEO_GID, groups, "ROCm needs the video group")
        self.assertGreaterEqual(len(set(groups) - {VIDEO_GID}), 1, "ROCm needs the render group")
        self.assertEqual(pod_security["seccompProfile"]["type"], "RuntimeDefault")
        security = self.container["securityContext"]
        self.assertIs(security["allowPrivilegeEscalation"], False)
        self.assertIs(security.get("privileged", False), False)
        self.assertIs(security["readOnlyRootFilesystem"], True)
        self.assertEqual(security["capabilities"]["drop"], ["ALL"])

    def test_ports_match_the_flags(self):
        self.assertEqual(port_of(self.flags["address"]), self.ports["grpc"])
        self.assertEqual(port_of(self.flags["metrics_address"]), self.ports["metrics"])
        service = one(self.by_kind, "Service")
        for port in service["spec"]["ports"]:
            self.assertIn(port["targetPort"], self.ports, port["name"])
            self.assertEqual(port["port"], self.ports[port["targetPort"]], port["name"])
        monitor = one(self.by_kind, "PodMonitor")
        for endpoint in monitor["spec"]["podMetricsEndpoints"]:
            self.assertEqual(endpoint["port"], "metrics")
            self.assertEqual(endpoint.get("path", "/metrics"), "/metrics")
        with open(os.path.join(DEPLOY, "container", "Dockerfile"), encoding="utf-8") as f:
            exposed = re.search(r"^EXPOSE\s+(.+)$", f.read(), re.M).group(1).split()
        self.assertEqual(sorted(int(p) for p in exposed), sorted(self.ports.values()))

    def test_termination_grace_outlasts_the_drain(self):
        match = re.fullmatch(r"(\d+)s", self.flags["grace_period"])
        self.assertIsNotNone(match, "--grace_period in whole seconds, e.g. 90s")
        self.assertGreater(self.pod["terminationGracePeriodSeconds"], int(match.group(1)),
                           "Kubernetes would kill the pod before open streams finish draining")

    def test_flags_come_from_the_mounted_configmap(self):
        flagfile = [a for a in self.container["args"] if a.startswith("--flagfile=")]
        self.assertEqual(len(flagfile), 1)
        path = flagfile[0].split("=", 1)[1]
        mounts = {m["name"]: m["mountPath"] for m in self.container["volumeMounts"]}
        volumes = {v["name"]: v for v in self.pod["volumes"]}
        configmap = one(self.by_kind, "ConfigMap")
        matched = [name for name, mount in mounts.items()
                   if path == os.path.join(mount, "ssimd.flags")
                   and volumes[name].get("configMap", {}).get("name") ==
                   configmap["metadata"]["name"]]
        self.assertEqual(len(matched), 1, f"{path} is not the ConfigMap's ssimd.flags")

    def test_selectors_find_the_pods(self):
        pod_labels = self.deployment["spec"]["template"]["metadata"]["labels"]
        selectors = {
            "Deployment": self.deployment["spec"]["selector"]["matchLabels"],
            "Service": one(self.by_kind, "Service")["spec"]["selector"],
            "PodMonitor": one(self.by_kind, "PodMonitor")["spec"]["selector"]["matchLabels"],
            "PodDisruptionBudget":
                one(self.by_kind, "PodDisruptionBudget")["spec"]["selector"]["matchLabels"],
        }
        for kind, selector in selectors.items():
            for key, value in selector.items():
                self.assertEqual(pod_labels.get(key), value, f"{kind} selector {key}")

    def test_expects_gpu_label_reaches_the_no_device_alert(self):
        pod_labels = self.deployment["spec"]["template"]["metadata"]["labels"]
        self.assertEqual(pod_labels["ssimd.io/expects-gpu"], "true")
        relabel = one(self.by_kind, "PodMonitor")["spec"]["podMetricsEndpoints"][0]["relabelings"]
        source = "__meta_kubernetes_pod_label_" + re.sub(r"[^a-zA-Z0-9_]", "_",
                                                         "ssimd.io/expects-gpu")
        self.assertIn({"sourceLabels": [source], "targetLabel": "expects_gpu"}, relabel)
        with open(ALERTS, encoding="utf-8") as f:
            self.assertIn('expects_gpu="true"', f.read())

    def test_kustomization_lists_every_manifest(self):
        with open(os.path.join(K8S, "kustomization.yaml"), encoding="utf-8") as f:
            resources = set(yaml.safe_load(f)["resources"])
        manifests = {n for n in os.listdir(K8S) if n.endswith(".yaml")} - {"kustomization.yaml"}
        self.assertEqual(resources, manifests)

    def test_autoscaler_scales_the_deployment_on_a_metric_the_adapter_serves(self):
        hpa = one(self.by_kind, "HorizontalPodAutoscaler")
        target = hpa["spec"]["scaleTargetRef"]
        self.assertEqual((target["kind"], target["name"]),
                         ("Deployment", self.deployment["metadata"]["name"]))
        self.assertNotIn("replicas", self.deployment["spec"], "the autoscaler owns the count")
        self.assertGreaterEqual(hpa["spec"]["minReplicas"], 2, "a drain needs a second pod")
        with open(os.path.join(DEPLOY, "prometheus", "prometheus-adapter-rules.yml"),
                  encoding="utf-8") as f:
            served = {rule["name"]["as"] for rule in yaml.safe_load(f)["rules"]["custom"]}
        for metric in hpa["spec"]["metrics"]:
            self.assertEqual(metric["type"], "Pods")
            self.assertIn(metric["pods"]["metric"]["name"], served)
        budget = one(self.by_kind, "PodDisruptionBudget")["spec"]
        self.assertLess(budget["maxUnavailable"], hpa["spec"]["minReplicas"])


class AlertRulesTest(unittest.TestCase):
    def test_promtool_check_rules(self):
        if not shutil.which("promtool"):
            self.skipTest("promtool is not installed (Debian package prometheus)")
        result = subprocess.run(["promtool", "check", "rules", ALERTS], capture_output=True,
                                text=True, check=False)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_prometheusrule_carries_the_same_groups(self):
        with open(ALERTS, encoding="utf-8") as f:
            groups = yaml.safe_load(f)["groups"]
        rule = one(load_manifests(), "PrometheusRule")
        self.assertEqual(rule["spec"]["groups"], groups,
                         "run deploy/kubernetes/sync_prometheusrule.sh")

    def test_covers_fallbacks_errors_and_missing_devices(self):
        with open(ALERTS, encoding="utf-8") as f:
            rules = [r for g in yaml.safe_load(f)["groups"] for r in g["rules"]]
        exprs = " ".join(r["expr"] for r in rules)
        for metric in ("ssimd_fallbacks_total", "ssimd_rpcs_total", "ssimd_devices"):
            self.assertIn(metric, exprs)
        for rule in rules:
            self.assertIn(rule["labels"]["severity"], ("warning", "critical"), rule["alert"])
            self.assertTrue(rule["annotations"]["summary"], rule["alert"])


class DashboardTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(DASHBOARD, encoding="utf-8") as f:
            cls.dashboard = json.load(f)

    def test_is_what_the_generator_writes(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "dashboard.json")
            subprocess.run([sys.executable, os.path.join(DEPLOY, "grafana", "make_dashboard.py"),
                            out], check=True)
            with open(out, encoding="utf-8") as f:
                self.assertEqual(json.load(f), self.dashboard,
                                 "run python3 deploy/grafana/make_dashboard.py")

    def test_panels_are_well_formed(self):
        ids = [p["id"] for p in self.dashboard["panels"]]
        self.assertEqual(len(ids), len(set(ids)))
        for panel in self.dashboard["panels"]:
            pos = panel["gridPos"]
            self.assertLessEqual(pos["x"] + pos["w"], 24, panel["title"])
            if panel["type"] == "row":
                continue
            self.assertTrue(panel["targets"], panel["title"])
            refs = [t["refId"] for t in panel["targets"]]
            self.assertEqual(len(refs), len(set(refs)), panel["title"])
            for t in panel["targets"]:
                self.assertTrue(t["expr"].strip(), panel["title"])

    def test_has_the_panels_operators_need(self):
        exprs = {p["title"]: " ".join(t["expr"] for t in p.get("targets", []))
                 for p in self.dashboard["panels"]}
        joined = " ".join(exprs.values())
        self.assertIn("rate(ssimd_frames_scored_total", joined)
        self.assertIn("ssimd_frame_stage_seconds_bucket", joined)
        self.assertIn("ssimd_fallbacks_total", joined)
        self.assertIn('code!="OK"', joined)
        tables = [p for p in self.dashboard["panels"] if p["type"] == "table"]
        self.assertTrue(any("ssimd_title_score" in t["targets"][0]["expr"] for t in tables))
        for q in ("0.5", "0.95", "0.99"):
            self.assertTrue(any(f"histogram_quantile({q}," in e and "stage" in e
                                for e in exprs.values()), q)
        # The ladder view: quality against bitrate per rendition, and the rungs below a floor.
        xy = [p for p in self.dashboard["panels"] if p["type"] == "xychart"]
        self.assertEqual(len(xy), 1)
        xy_exprs = " ".join(t["expr"] for t in xy[0]["targets"])
        self.assertIn("ssimd_rendition_bytes_per_second", xy_exprs)
        self.assertIn("ssimd_rendition_score", xy_exprs)
        self.assertTrue(any("< $floor" in t["targets"][0]["expr"] for t in tables))
        variables = {v["name"] for v in self.dashboard["templating"]["list"]}
        self.assertTrue({"title", "floor", "ladder_feature"} <= variables, variables)


if __name__ == "__main__":
    junit_main.main()
