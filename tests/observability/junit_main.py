"""Runs a test module's unittest cases and records each in Bazel's JUnit XML (XML_OUTPUT_FILE).

Bazel only knows pass or fail for a py_test; the XML lets tools/summarize_tests.py count each case
and report the skipped ones (e.g. promtool not installed) as skipped rather than passed.
"""

import os
import sys
import time
import unittest
import xml.etree.ElementTree as ET


class _Recorder(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cases = []  # (name, seconds, kind, message)
        self._started = 0.0

    def startTest(self, test):
        self._started = time.monotonic()
        super().startTest(test)

    def _record(self, test, kind, message=""):
        self.cases.append((test.id(), time.monotonic() - self._started, kind, message))

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, "passed")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record(test, "failure", self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._record(test, "error", self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record(test, "skipped", reason)


def _write_xml(path, cases):
    suite = ET.Element("testsuite", name=os.environ.get("TEST_TARGET", "tests"),
                       tests=str(len(cases)))
    for name, seconds, kind, message in cases:
        case = ET.SubElement(suite, "testcase", name=name, time=f"{seconds:.3f}")
        if kind != "passed":
            ET.SubElement(case, kind, message=message[:2000]).text = message
    root = ET.Element("testsuites")
    root.append(suite)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def main():
    """Runs every TestCase of __main__; exit status 1 when any case failed."""
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules["__main__"])
    runner = unittest.TextTestRunner(resultclass=_Recorder, verbosity=2, stream=sys.stderr)
    result = runner.run(suite)
    if os.environ.get("XML_OUTPUT_FILE"):
        _write_xml(os.environ["XML_OUTPUT_FILE"], result.cases)
    sys.exit(0 if result.wasSuccessful() else 1)
