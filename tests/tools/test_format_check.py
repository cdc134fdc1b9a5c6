#!/usr/bin/env python3
"""tools/format-check.sh in a made-up repository (the script, the project's .clang-format, a
formatted and an unformatted file): the listed files pass while clean and fail once an
unformatted or vanished file is listed; --all and FILES check what they name; --update adds
clean files only and keeps the list's comments. Exits 77 (skipped) without clang-format.
Usage: test_format_check.py [REPOSITORY] (default: this file's)."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))

GOOD = "int main() { return 0; }\n"
BAD = "int  main( )\n{\nreturn 0 ;}\n"
HEADER = "# made-up list\n"


class FormatCheck(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="strata-format-")
        self.addCleanup(shutil.rmtree, self.d)
        os.makedirs(os.path.join(self.d, "tools"))
        os.makedirs(os.path.join(self.d, "cmake"))
        shutil.copy(os.path.join(REPO, "tools", "format-check.sh"), os.path.join(self.d, "tools"))
        shutil.copy(os.path.join(REPO, ".clang-format"), self.d)
        self.write("src/good.cpp", GOOD)
        self.write("src/also_good.hpp", "#pragma once\n" + GOOD)
        self.write("src/bad.cpp", BAD)
        self.write("notes.txt", "not C++\n")
        subprocess.run(["git", "init", "-q", self.d], check=True)
        subprocess.run(["git", "-C", self.d, "add", "."], check=True)

    def write(self, rel, text):
        os.makedirs(os.path.join(self.d, os.path.dirname(rel)), exist_ok=True)
        with open(os.path.join(self.d, rel), "w") as f:
            f.write(text)

    def listing(self, *files):
        self.write("cmake/formatted-files.txt", HEADER + "".join(f + "\n" for f in files))

    def run_check(self, *args):
        r = subprocess.run(["bash", os.path.join(self.d, "tools", "format-check.sh"), *args],
                           capture_output=True, text=True, timeout=120)
        return r.returncode, r.stdout + r.stderr

    def test_listed_clean_files_pass(self):
        self.listing("src/good.cpp", "# a comment", "src/also_good.hpp")
        rc, out = self.run_check()
        self.assertEqual(rc, 0, out)
        self.assertIn("2 files checked", out)

    def test_listed_unformatted_file_fails(self):
        self.listing("src/good.cpp", "src/bad.cpp")
        rc, out = self.run_check("--listed")
        self.assertEqual(rc, 1, out)
        self.assertIn("src/bad.cpp:1:", out)
        self.assertIn("1 not formatted", out)

    def test_listed_file_that_moved_fails(self):
        self.listing("src/good.cpp", "src/gone.cpp")
        rc, out = self.run_check()
        self.assertEqual(rc, 1, out)
        self.assertIn("src/gone.cpp does not exist", out)

    def test_all_and_named_files(self):
        self.listing()
        self.assertEqual(self.run_check("--all")[0], 1)
        self.assertEqual(self.run_check("src/good.cpp", "notes.txt")[0], 0)
        self.assertEqual(self.run_check("src/good.cpp", "src/bad.cpp")[0], 1)

    def test_update_adds_clean_files_only(self):
        self.listing("src/good.cpp")
        rc, out = self.run_check("--update")
        self.assertEqual(rc, 0, out)
        with open(os.path.join(self.d, "cmake", "formatted-files.txt")) as f:
            self.assertEqual(f.read(), HEADER + "src/also_good.hpp\nsrc/good.cpp\n")


if __name__ == "__main__":
    if not (os.environ.get("CLANG_FORMAT") or shutil.which("clang-format-14") or shutil.which("clang-format")):
        print("clang-format not found: skipped")
        sys.exit(77)
    unittest.main(verbosity=2)
