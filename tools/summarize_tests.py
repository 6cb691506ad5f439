#!/usr/bin/env python3
"""Counts test cases from Bazel's test.xml files and prints `N passed, N failed, N skipped`.

Bazel and gtest summaries are per target; CI needs one line counted from the real results. Each
gtest case counts once. A test target whose XML is missing or has no test cases (it crashed or
timed out before gtest wrote one) counts as one failure, unless Bazel reported it as passed, in
which case it counts as one pass (e.g. a shell test).
"""
import os
import sys
import xml.etree.ElementTree as ET


def count_target(xml_path):
    passed = failed = skipped = 0
    root = ET.parse(xml_path).getroot()
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None or case.get("result") == "skipped" \
                or case.get("status") == "notrun":
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def target_xml_files(target_dir):
    """test.xml of a target, or of each of its shards (shard_K_of_N/test.xml)."""
    whole = os.path.join(target_dir, "test.xml")
    if os.path.exists(whole):
        return [whole]
    if not os.path.isdir(target_dir):
        return []
    shards = sorted(d for d in os.listdir(target_dir) if d.startswith("shard_"))
    return [os.path.join(target_dir, d, "test.xml") for d in shards
            if os.path.exists(os.path.join(target_dir, d, "test.xml"))]


def main():
    return main_with(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)


def main_with(testlogs, status_file):
    # Targets Bazel reported, with their status (PASSED / FAILED / TIMEOUT / NO STATUS ...).
    bazel_status = {}
    if status_file and os.path.exists(status_file):
        for line in open(status_file, encoding="utf-8", errors="replace"):
            parts = line.split()
            if len(parts) >= 2 and parts[0].startswith("//"):
                words = [w for w in parts[1:] if not w.startswith("(")]
                if words and words[0].isupper():
                    bazel_status[parts[0]] = words[0]
    totals = [0, 0, 0]
    for target, status in sorted(bazel_status.items()):
        pkg, _, name = target[2:].partition(":")
        counts = (0, 0, 0)
        if status == "SKIPPED":
            # Incompatible with this configuration (a ROCm-only test in the default build): not
            # run. A test.xml left by a run in another configuration must not count.
            totals[2] += 1
            continue
        for xml_path in target_xml_files(os.path.join(testlogs, pkg, name)):
            try:
                counts = tuple(a + b for a, b in zip(counts, count_target(xml_path)))
            except ET.ParseError:
                pass
        if sum(counts) == 0:
            counts = (1, 0, 0) if status == "PASSED" else (0, 1, 0)
        elif status != "PASSED" and counts[1] == 0:
            # The binary failed outside any test case (crash at exit, leak report, timeout).
            counts = (counts[0], 1, counts[2])
        for i in range(3):
            totals[i] += counts[i]
        if counts[1]:
            print(f"FAILED: {target} ({status})", file=sys.stderr)
    print(f"{totals[0]} passed, {totals[1]} failed, {totals[2]} skipped")
    return 1 if totals[1] or not bazel_status else 0


if __name__ == "__main__":
    sys.exit(main())
