"""Scaling out: three ssimd_server processes behind one client target of three addresses.

Checks what a fleet relies on: a balanced client spreads its calls over every replica; a replica
killed in the middle of a clip loses nothing (the client goes on from the first frame without a
result on another replica, and the final report equals one server's); and every result equals the
single-server result for the same input.
"""

import json
import lzma
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

CLI = os.path.join("client", "ssimd-score")
CLIPS = os.path.join("tests", "data", "reference", "clips")
LADDER = os.path.join("tests", "data", "ladder")
# The 1080p rendition stands in for the ladder's source (the lossless sources are not in the
# repository); three lower rungs are upscaled to it and scored.
LADDER_SOURCE = "h264_1920x1080.mp4"
LADDER_RUNGS = [("h264_426x240", "h264_426x240.mp4"), ("h264_640x360", "h264_640x360.mp4"),
                ("h264_960x540", "h264_960x540.mp4")]
LADDER_FRAMES = 3

sys.path[:0] = [os.getcwd(), os.path.join(os.getcwd(), "python")]
from ssimd_client import Client, Geometry  # noqa: E402
from tests.observability.ssimd_harness import Server, parse_exposition, total  # noqa: E402

# A long clip whose frames differ: one 1080p reference/distorted pair, its luma rolled by a
# different number of rows in every frame (so a frame scored twice or out of place shows).
LONG = Geometry(1920, 1080, 8, "420")
LONG_FRAMES = 48
SHORT = Geometry(640, 360, 8, "444")


class Replica(Server):
    """One CPU ssimd_server of the fleet, quick to notice a peer's health and to drain."""

    def __init__(self, files_root):
        super().__init__(f"--files_root={files_root}", "--backend=cpu", "--workers=1",
                         "--grace_period=5s", "--health_poll_interval=100ms")

    def metric(self, name, **labels):
        """The sum of every sample of `name` whose labels include `labels`."""
        return total(parse_exposition(self.scrape()), name, **labels)

    def frames_scored(self):
        # Counted once per feature: only growth is compared.
        return self.metric("ssimd_frames_scored_total")

    def kill(self):
        self.process.kill()
        self.process.wait(timeout=30)


def roll_rows(plane, width, rows):
    cut = (rows * width) % len(plane)
    return plane[cut:] + plane[:cut]


def write_long_clip(path, clip):
    frame = lzma.open(os.path.join(CLIPS, clip)).read()
    luma = LONG.width * LONG.height
    with open(path, "wb") as out:
        for i in range(LONG_FRAMES):
            out.write(roll_rows(frame[:luma], LONG.width, 37 * i))
            out.write(frame[luma:])


def short_pairs():
    """Two 640x360 4:4:4 frame pairs, as luma planes."""
    size = SHORT.width * SHORT.height
    ref = lzma.open(os.path.join(CLIPS, "kite_640x360_yuv444p.yuv.xz")).read()
    dis = lzma.open(os.path.join(CLIPS, "kite_640x360_yuv444p_x264crf35.yuv.xz")).read()
    return [(ref[i * 3 * size:i * 3 * size + size], dis[i * 3 * size:i * 3 * size + size])
            for i in range(2)]


def scores(frames):
    return [(f.index, dict(f.scores)) for f in frames]


class ScaleOutTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        # Copies: the server refuses files reached through symbolic links, which runfiles are.
        files = os.path.join(self.dir, "files")
        os.mkdir(files)
        for name in [LADDER_SOURCE] + [path for _, path in LADDER_RUNGS]:
            shutil.copyfile(os.path.join(LADDER, name), os.path.join(files, name))
        self.replicas = [Replica(files) for _ in range(3)]
        self.target = ",".join(r.address for r in self.replicas)

    def tearDown(self):
        for replica in self.replicas:
            replica.stop()

    def connect_every_replica(self, client):
        """Round-robin picks among the replicas whose health says SERVING, so the first calls
        may meet only the replicas connected so far: tiny pairs go out until every replica has
        answered one, which also shows unary calls spread."""
        tiny = Geometry(8, 8, 8, "400")
        for _ in range(100):
            if all(r.metric("ssimd_rpcs_total", method="ScorePair") > 0 for r in self.replicas):
                break
            client.score_pair(bytes(64), bytes(64), tiny, features=["ssim"])
        self.assertTrue(all(r.metric("ssimd_rpcs_total", method="ScorePair") > 0
                            for r in self.replicas), "a replica never got a ScorePair")

    def test_ladder_spread_over_replicas_equals_the_ladder_on_one(self):
        with Client(self.replicas[0].address) as alone:
            expected = alone.score_ladder(LADDER_SOURCE, LADDER_RUNGS, frame_count=LADDER_FRAMES)
        self.assertEqual(sorted(expected.frames), sorted(n for n, _ in LADDER_RUNGS))
        with Client(self.target) as client:
            self.connect_every_replica(client)
            before = [r.frames_scored() for r in self.replicas]
            spread = client.score_ladder(LADDER_SOURCE, LADDER_RUNGS, frame_count=LADDER_FRAMES,
                                         spread=True)
        grown = [r.frames_scored() - b for r, b in zip(self.replicas, before)]
        self.assertTrue(all(g > 0 for g in grown), f"frames scored per replica: {grown}")
        for name, _ in LADDER_RUNGS:
            self.assertEqual(scores(spread.frames[name]), scores(expected.frames[name]), name)
            self.assertEqual(len(spread.frames[name]), LADDER_FRAMES, name)
            self.assertEqual(spread.summaries[name].pooled, expected.summaries[name].pooled, name)
        self.assertEqual(spread.ladder.renditions, expected.ladder.renditions)
        self.assertEqual(spread.ladder.source_frames, expected.ladder.source_frames)

    def test_cli_ladder_spread_equals_the_ladder_on_one(self):
        args = [CLI, "--no_progress", "--ladder_source", LADDER_SOURCE, "--frame_cnt",
                str(LADDER_FRAMES), "--feature", "float_ssim", "--json"]
        for name, path in LADDER_RUNGS:
            args += ["--rendition", f"{name}={path}"]
        alone = subprocess.run(args + ["--server", self.replicas[0].address],
                               capture_output=True, text=True, timeout=300, check=True)
        expected = json.loads(alone.stdout)
        with Client(self.target) as client:
            self.connect_every_replica(client)
        before = [r.frames_scored() for r in self.replicas]
        spread = subprocess.run(args + ["--server", self.target, "--spread"],
                                capture_output=True, text=True, timeout=300, check=True)
        report = json.loads(spread.stdout)
        grown = [r.frames_scored() - b for r, b in zip(self.replicas, before)]
        # A new client process: its first calls may find only some replicas connected.
        self.assertGreaterEqual(sum(g > 0 for g in grown), 2, f"frames per replica: {grown}")
        self.assertEqual(sorted(report["renditions"]), sorted(n for n, _ in LADDER_RUNGS))
        for name, _ in LADDER_RUNGS:
            got, want = report["renditions"][name], expected["renditions"][name]
            self.assertEqual(len(got["frames"]), LADDER_FRAMES, name)
            self.assertEqual(got["frames"], want["frames"], name)
            self.assertEqual(got["pooled_metrics"], want["pooled_metrics"], name)
        self.assertEqual(report["ladder"], expected["ladder"])

    def test_calls_spread_over_every_replica_with_equal_results(self):
        pairs = short_pairs()
        features = ("float_ssim", "ssim")
        with Client(self.replicas[0].address) as alone:
            expected = scores(alone.score_clip(pairs, SHORT, features=features).frames)
        with Client(self.target) as client:
            self.connect_every_replica(client)
            before = [r.frames_scored() for r in self.replicas]
            results = [None] * 9
            errors = []

            def score(i):
                try:
                    results[i] = client.score_clip(pairs, SHORT, features=features)
                except Exception as e:  # noqa: BLE001 - reported below
                    errors.append(e)

            threads = [threading.Thread(target=score, args=(i,)) for i in range(len(results))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        self.assertEqual(errors, [])
        grown = [r.frames_scored() - b for r, b in zip(self.replicas, before)]
        self.assertTrue(all(g > 0 for g in grown), f"frames scored per replica: {grown}")
        for result in results:
            self.assertEqual(scores(result.frames), expected)

    def test_unary_calls_go_on_when_replicas_stop(self):
        pair = short_pairs()[0]
        with Client(self.replicas[0].address) as alone:
            expected = dict(alone.score_pair(*pair, SHORT, features=["ssim"]).scores)
        with Client(self.target) as client:
            self.connect_every_replica(client)
            self.replicas[1].kill()           # dies: its connection breaks
            self.replicas[2].process.send_signal(signal.SIGTERM)  # drains: NOT_SERVING, refuses
            for _ in range(12):
                self.assertEqual(dict(client.score_pair(*pair, SHORT, features=["ssim"]).scores),
                                 expected)
        self.replicas[2].process.wait(timeout=30)

    def test_killed_replica_loses_no_frame(self):
        ref, dis = os.path.join(self.dir, "ref.yuv"), os.path.join(self.dir, "dis.yuv")
        write_long_clip(ref, "fallenleaf_1920x1080_yuv420p.yuv.xz")
        write_long_clip(dis, "fallenleaf_1920x1080_yuv420p_x264crf30.yuv.xz")
        args = [CLI, "--no_progress", "-r", ref, "-d", dis, "-w", "1920", "-h", "1080", "-p",
                "420", "-b", "8", "--feature", "float_ssim", "--json"]
        alone = subprocess.run(args + ["--server", self.replicas[0].address],
                               capture_output=True, text=True, timeout=300, check=True)
        expected = json.loads(alone.stdout)

        before = [r.frames_scored() for r in self.replicas]
        run = subprocess.Popen(args + ["--server", self.target], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        # Kill the replica serving the clip once it has scored a quarter of the frames.
        victim = None
        deadline = time.monotonic() + 120
        while victim is None and time.monotonic() < deadline and run.poll() is None:
            for replica, start in zip(self.replicas, before):
                if replica.frames_scored() - start >= LONG_FRAMES // 4:
                    victim = replica
                    break
            time.sleep(0.01)
        self.assertIsNotNone(victim, "no replica took the clip")
        victim.kill()
        out, err = run.communicate(timeout=300)
        self.assertEqual(run.returncode, 0, err)
        resumed = re.search(r"going on from frame (\d+)", err)
        self.assertIsNotNone(resumed, f"the clip was not cut: {err}")
        self.assertTrue(0 < int(resumed.group(1)) < LONG_FRAMES, err)

        report = json.loads(out)
        self.assertEqual([f["frameNum"] for f in report["frames"]], list(range(LONG_FRAMES)))
        self.assertEqual(report["frames"], expected["frames"])
        self.assertEqual(report["pooled_metrics"], expected["pooled_metrics"])
        survivors = [r for r in self.replicas if r is not victim]
        self.assertGreater(sum(r.frames_scored() for r in survivors) -
                           sum(b for r, b in zip(self.replicas, before) if r is not victim), 0)


if __name__ == "__main__":
    unittest.main()
