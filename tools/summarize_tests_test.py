"""summarize_tests.py counts gtest cases per target, sums the shards of a sharded target, and
falls back to Bazel's own status where a target left no test cases."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summarize_tests  # noqa: E402

CASES = """<testsuites><testsuite name="S">
{}
</testsuite></testsuites>"""


def write(path, *cases):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(CASES.format("\n".join(cases)))


PASS = '<testcase name="a" status="run" result="completed"/>'
FAIL = '<testcase name="b" status="run"><failure message="x"/></testcase>'
SKIP = '<testcase name="c" status="run" result="skipped"><skipped/></testcase>'


class SummarizeTestsTest(unittest.TestCase):
    def summarize(self, statuses):
        with tempfile.TemporaryDirectory() as logs:
            self.populate(logs)
            status_file = os.path.join(logs, "status.txt")
            with open(status_file, "w", encoding="utf-8") as f:
                for target, status in statuses.items():
                    f.write(f"{target}  {status} in 1.0s\n")
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                rc = summarize_tests.main_with(logs, status_file)
            return out.getvalue().strip(), rc

    def populate(self, logs):
        write(os.path.join(logs, "pkg", "whole", "test.xml"), PASS, PASS, SKIP)
        for shard in (1, 2, 3):
            write(os.path.join(logs, "pkg", "sharded", f"shard_{shard}_of_3", "test.xml"), PASS, SKIP)
        write(os.path.join(logs, "pkg", "broken", "test.xml"), PASS, FAIL)

    def test_counts_cases_and_sums_shards(self):
        line, rc = self.summarize({"//pkg:whole": "PASSED", "//pkg:sharded": "PASSED"})
        self.assertEqual(line, "5 passed, 0 failed, 4 skipped")
        self.assertEqual(rc, 0)

    def test_a_failed_case_fails_the_run(self):
        line, rc = self.summarize({"//pkg:whole": "PASSED", "//pkg:broken": "FAILED"})
        self.assertEqual(line, "3 passed, 1 failed, 1 skipped")
        self.assertEqual(rc, 1)

    def test_a_target_without_cases_counts_by_its_status(self):
        line, rc = self.summarize({"//pkg:shell_ok": "PASSED", "//pkg:crashed": "TIMEOUT"})
        self.assertEqual(line, "1 passed, 1 failed, 0 skipped")
        self.assertEqual(rc, 1)

    def test_a_failed_target_whose_cases_all_passed_still_fails(self):
        line, _ = self.summarize({"//pkg:whole": "FAILED"})
        self.assertEqual(line, "2 passed, 1 failed, 1 skipped")

    def test_a_target_bazel_skipped_counts_as_skipped_whatever_its_old_results(self):
        line, rc = self.summarize({"//pkg:whole": "SKIPPED", "//pkg:sharded": "PASSED"})
        self.assertEqual(line, "3 passed, 0 failed, 4 skipped")
        self.assertEqual(rc, 0)


if __name__ == "__main__":
    unittest.main()
