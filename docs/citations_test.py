"""Every document the sources cite exists, and nothing they cite lies outside the repository.

Comments and documents name docs/... files, bench/results/... runs, "docs/numerics.md §N" sections and "ADR NNNN"
records. Renaming or merging a document silently strands such citations; this test finds them.
It reads the source tree itself (found through this file's real path, since Bazel runs tests from
a tree of links into it), so it is tagged to run every time rather than be cached.
"""

import glob
import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))

SOURCE_SUFFIXES = (".cc", ".h", ".hip", ".bzl", ".py", ".sh", ".md", ".bazel", ".proto", ".yaml",
                   ".yml", ".json")
SOURCE_NAMES = ("BUILD", "WORKSPACE", ".bazelrc", "run")
# Files whose text is the subject of this test, not a citation.
SELF = {"docs/citations_test.py"}

# docs/... and bench/results/... paths; a path inside a longer one (engine/docs/x) is not a citation.
DOC_PATH = re.compile(r"(?<![A-Za-z0-9_./-])(?:docs|bench/results)/[A-Za-z0-9_./-]*[A-Za-z0-9_/]")
NUMERICS_CITE = re.compile(r"docs/numerics\.md\s*((?:§\d+)(?:\s*(?:-|,|and|or)\s*§\d+)*)")
SECTION = re.compile(r"§(\d+)(?![.\d])")
ADR_CITE = re.compile(r"\bADRs?\s+(\d{4}(?:\s*(?:-|,|/|and|or)\s*\d{4})*)")
ADR_NUMBER = re.compile(r"\d{4}")
# Outside-the-repository references the repository must not depend on (reading optional data in
# scripts is allowed: only these kinds of files are checked).
LEAVES_REPOSITORY = re.compile(r"\.\./shared\b|\bshared/(?:spec|reference|seeds|ladder|design)\b")
NO_OUTSIDE_REFERENCES = (".cc", ".h", ".md", ".bzl")


def source_files():
    for directory, subdirs, files in os.walk(ROOT):
        rel_dir = os.path.relpath(directory, ROOT)
        subdirs[:] = [d for d in subdirs
                      if not d.startswith(".") and not d.startswith("bazel-")
                      and not (rel_dir == "." and d in ("bundle", "bundle_bench"))]
        if rel_dir == ".":
            subdirs.append(".ci")
        for name in files:
            if name.endswith(SOURCE_SUFFIXES) or name in SOURCE_NAMES:
                rel = os.path.normpath(os.path.join(rel_dir, name))
                if rel not in SELF:
                    yield rel


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def adr_exists(number):
    return bool(glob.glob(os.path.join(ROOT, "docs", "adr", number + "-*.md")))


def doc_path_exists(path):
    if os.path.exists(os.path.join(ROOT, path)):
        return True
    # docs/adr/0011 names a record by number; docs/adr/0020-0022 a range of them.
    match = re.fullmatch(r"docs/adr/(\d{4})(?:-(\d{4}))?", path)
    if match:
        return all(adr_exists(n) for n in match.groups() if n)
    return False


class CitationsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.files = {rel: read(rel) for rel in source_files()}
        numerics = cls.files.get("docs/numerics.md", "")
        cls.sections = set(re.findall(r"^## §(\d+) ", numerics, re.MULTILINE))

    def test_found_the_source_tree(self):
        self.assertIn("docs/numerics.md", self.files, f"no docs/numerics.md under {ROOT}")
        self.assertGreater(len(self.sections), 10, "docs/numerics.md has no numbered sections")

    def test_cited_docs_paths_exist(self):
        missing = []
        for rel, text in self.files.items():
            for match in DOC_PATH.finditer(text):
                path = match.group(0).rstrip(".")
                if not doc_path_exists(path):
                    missing.append(f"{rel}: {path}")
        self.assertEqual(missing, [], "cited documents that do not exist")

    def test_cited_numerics_sections_exist(self):
        missing = []
        cited = 0
        for rel, text in self.files.items():
            for match in NUMERICS_CITE.finditer(text):
                for number in SECTION.findall(match.group(1)):
                    cited += 1
                    if number not in self.sections:
                        missing.append(f"{rel}: docs/numerics.md §{number}")
        numerics = self.files["docs/numerics.md"]
        for number in SECTION.findall(numerics):
            if number not in self.sections:
                missing.append(f"docs/numerics.md: §{number}")
        self.assertGreater(cited, 0, "no code cites docs/numerics.md")
        self.assertEqual(missing, [], "cited sections that docs/numerics.md does not have")

    def test_cited_adrs_exist(self):
        missing = []
        for rel, text in self.files.items():
            for match in ADR_CITE.finditer(text):
                for number in ADR_NUMBER.findall(match.group(1)):
                    if not adr_exists(number):
                        missing.append(f"{rel}: ADR {number}")
        self.assertEqual(missing, [], "cited ADRs that docs/adr does not have")

    def test_nothing_cites_files_outside_the_repository(self):
        outside = []
        for rel, text in self.files.items():
            if not rel.endswith(NO_OUTSIDE_REFERENCES):
                continue
            for number, line in enumerate(text.splitlines(), 1):
                if LEAVES_REPOSITORY.search(line):
                    outside.append(f"{rel}:{number}: {line.strip()}")
        self.assertEqual(outside, [], "references to files outside the repository")

    def test_checks_reject_what_they_should(self):
        self.assertFalse(doc_path_exists("docs/adr/0002-exact-gpu-arithmetic.md"))
        self.assertFalse(doc_path_exists("docs/adr/9999"))
        self.assertFalse(doc_path_exists("bench/results/1999-01-01-nowhere"))
        self.assertEqual(DOC_PATH.findall("see bench/results/<run>/ and x/docs/y"), [])
        self.assertTrue(LEAVES_REPOSITORY.search("see ../shared/spec/x.md"))
        self.assertFalse(LEAVES_REPOSITORY.search("std::shared_ptr<Foo> shared/locked"))
        self.assertEqual(SECTION.findall(NUMERICS_CITE.search(
            "docs/numerics.md §10-§12 and Higham §4.2").group(1)), ["10", "12"])


if __name__ == "__main__":
    unittest.main()
