"""Checks that chroma planes go out exactly where a feature reads them: the rule
(features_read_chroma), the readers' planes() and the messages the client builds. No server."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ssimd.v1 import ssimd_pb2  # noqa: E402
from ssimd_client import (Client, FramePlanes, Geometry, RawYuvReader, Y4mReader,  # noqa: E402
                          features_read_chroma, split_frame, write_y4m)
from ssimd_client.client import _pair_request  # noqa: E402
from ssimd_client.y4m import frame_bytes, luma_bytes  # noqa: E402


def frame(geometry, seed):
    """A whole planar frame of `geometry` whose bytes differ from those of another seed."""
    return bytes((i * 7 + seed * 31) % 256 for i in range(frame_bytes(geometry)))


class FeaturesReadChromaTest(unittest.TestCase):
    def test_psnr_reads_chroma_unless_told_not_to(self):
        for features in ("psnr", ["float_ssim", "psnr"], ["psnr=enable_mse=true"],
                         ["psnr=enable_chroma=true"], ["psnr=enable_chroma=1:enable_mse=1"]):
            for pixel_format in ("420", "422", "444"):
                self.assertTrue(features_read_chroma(features, pixel_format), features)
        for features in ("float_ssim", ["ssim", "float_ms_ssim"], ["psnr=enable_chroma=false"],
                         ["psnr=enable_mse=true:enable_chroma=0"], "psnr_hvs", []):
            self.assertFalse(features_read_chroma(features, "420"), features)

    def test_grey_pictures_have_no_chroma_to_read(self):
        self.assertFalse(features_read_chroma(["psnr"], "400"))


class ReaderPlanesTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def check(self, reader, frames):
        geometry = reader.geometry
        planes = list(reader.planes())
        self.assertEqual(len(planes), len(frames))
        luma = luma_bytes(geometry)
        for got, whole in zip(planes, frames):
            self.assertIsInstance(got, FramePlanes)
            self.assertEqual(got.luma, whole[:luma])
            self.assertEqual(got.chroma, whole[luma:])
        self.assertEqual(list(reader.frames()), [f[:luma] for f in frames])

    def test_y4m_and_raw_frames_split_into_luma_and_chroma(self):
        # Odd sides: chroma planes of ceil(w/2) x ceil(h/2), as a .yuv file stores them.
        for geometry in (Geometry(5, 3, 8, "420"), Geometry(5, 3, 16, "420"),
                         Geometry(4, 2, 10, "422"), Geometry(3, 3, 12, "444"),
                         Geometry(4, 4, 8, "400")):
            frames = [frame(geometry, 1), frame(geometry, 2)]
            y4m = os.path.join(self.dir.name, "clip.y4m")
            write_y4m(y4m, geometry, frames)
            reader = Y4mReader(y4m)
            self.assertEqual(reader.geometry, geometry)
            self.check(reader, frames)
            raw = os.path.join(self.dir.name, "clip.yuv")
            with open(raw, "wb") as f:
                f.write(b"".join(frames))
            self.check(RawYuvReader(raw, geometry), frames)

    def test_chroma_sizes_are_the_stored_ones(self):
        sample = {8: 1, 16: 2}
        for depth in (8, 16):
            planes = split_frame(frame(Geometry(5, 3, depth, "420"), 0),
                                 Geometry(5, 3, depth, "420"))
            self.assertEqual(len(planes.luma), 5 * 3 * sample[depth])
            self.assertEqual(len(planes.chroma), 2 * 3 * 2 * sample[depth])
        with self.assertRaises(ValueError):
            split_frame(b"x" * 10, Geometry(5, 3))


class FakeStub:
    """Keeps the requests a call would have sent and answers with an empty result."""

    def __init__(self):
        self.requests = []

    def ScorePair(self, request, timeout=None):
        self.requests.append(request)
        return ssimd_pb2.ScorePairResponse()

    def ScoreClip(self, requests, timeout=None):
        self.requests.extend(requests)
        summary = ssimd_pb2.ScoreClipResponse(summary=ssimd_pb2.ClipSummary())
        return FakeCall([summary])


class FakeCall:
    def __init__(self, responses):
        self._responses = iter(responses)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._responses)

    def cancel(self):
        pass


class MessagesTest(unittest.TestCase):
    def setUp(self):
        self.client = Client("127.0.0.1:1")  # never connects: the stub is replaced
        self.stub = FakeStub()
        self.client._stub = self.stub

    def tearDown(self):
        self.client.close()

    def pairs(self, geometry, count):
        return [(split_frame(frame(geometry, 2 * i), geometry),
                 split_frame(frame(geometry, 2 * i + 1), geometry)) for i in range(count)]

    def test_clip_frames_carry_chroma_only_for_features_that_read_it(self):
        for geometry in (Geometry(6, 4, 8, "420"), Geometry(6, 4, 16, "444")):
            pairs = self.pairs(geometry, 3)
            for features, chroma in ((["psnr"], True), (["float_ssim", "psnr"], True),
                                     (["psnr=enable_chroma=false"], False),
                                     (["float_ssim"], False)):
                self.stub.requests.clear()
                self.client.score_clip(pairs, geometry, features=features)
                frames = [r.frame for r in self.stub.requests if r.HasField("frame")]
                self.assertEqual(len(frames), 3)
                for index, (got, (reference, distorted)) in enumerate(zip(frames, pairs)):
                    self.assertEqual(got.index, index)
                    self.assertEqual(got.reference_luma, reference.luma)
                    self.assertEqual(got.distorted_luma, distorted.luma)
                    self.assertEqual(got.reference_chroma, reference.chroma if chroma else b"")
                    self.assertEqual(got.distorted_chroma, distorted.chroma if chroma else b"")
                    if not chroma:  # no extra bytes on the wire
                        self.assertEqual(
                            got.SerializeToString(),
                            ssimd_pb2.FramePair(index=index, reference_luma=reference.luma,
                                                distorted_luma=distorted.luma)
                            .SerializeToString())

    def test_lumas_alone_are_still_taken(self):
        geometry = Geometry(6, 4)
        pairs = [(p[0].luma, p[1].luma) for p in self.pairs(geometry, 2)]
        self.client.score_clip(pairs, geometry, features="float_ssim")
        frames = [r.frame for r in self.stub.requests if r.HasField("frame")]
        self.assertEqual([f.reference_luma for f in frames], [p[0] for p in pairs])
        self.assertEqual([f.reference_chroma for f in frames], [b"", b""])

    def test_pairs_carry_chroma_only_for_features_that_read_it(self):
        geometry = Geometry(6, 4, 10, "420")
        ((reference, distorted),) = self.pairs(geometry, 1)
        for features, chroma in (("psnr", True), ("float_ssim", False)):
            self.stub.requests.clear()
            self.client.score_pair(reference.luma, distorted.luma, geometry, features=features,
                                   reference_chroma=reference.chroma,
                                   distorted_chroma=distorted.chroma)
            (request,) = self.stub.requests
            self.assertEqual(request.reference_luma, reference.luma)
            self.assertEqual(request.reference_chroma, reference.chroma if chroma else b"")
            self.assertEqual(request.distorted_chroma, distorted.chroma if chroma else b"")
        # Grey pictures have none to send, whatever is passed.
        grey = _pair_request(reference, distorted, Geometry(6, 4, 10, "400"), "psnr", "auto")
        self.assertEqual(grey.reference_chroma, b"")
        # The old positional form still works.
        self.stub.requests.clear()
        self.client.score_pair(reference.luma, distorted.luma, geometry, ["float_ssim"], "cpu",
                               10.0)
        self.assertEqual(self.stub.requests[0].backend, ssimd_pb2.BACKEND_CPU)


if __name__ == "__main__":
    unittest.main()
