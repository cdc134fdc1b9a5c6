#!/usr/bin/env python3
"""The licence and the package metadata agree everywhere a user or a tool reads them:
LICENSE, pyproject.toml (an SPDX expression pip and PyPI accept, its licence file, the build
requirements), CMake's project and STRATA_LICENSE, python/strata's __version__, CITATION.cff
(valid CFF 1.2.0) and CHANGELOG.md. Usage: test_metadata.py SOURCE_DIR.
Exits 77 (skipped) after the other checks pass when a checker is not installed: tomllib or
tomli (pyproject.toml), packaging >= 24.2 (SPDX), cffconvert (the CFF schema)."""
import os
import re
import shutil
import subprocess
import sys

src = sys.argv[1]
failures = []
missing = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def read(name):
    with open(os.path.join(src, name), encoding="utf-8") as f:
        return f.read()


licence = read("LICENSE")
check(licence.startswith("BSD 3-Clause License\n"), "LICENSE is the BSD 3-Clause licence")
check("Copyright (c) 2026, the strata developers" in licence, "LICENSE names the copyright holder")
check("3. Neither the name of the copyright holder nor the names of its" in licence,
      "LICENSE has the third clause (not the 2-clause text)")

cmake = read("CMakeLists.txt")
cmake_version = re.search(r"project\(strata VERSION (\S+)", cmake).group(1)
cmake_licence = re.search(r'set\(STRATA_LICENSE "([^"]+)"\)', cmake)
check(cmake_licence is not None and cmake_licence.group(1) == "BSD-3-Clause",
      "CMakeLists.txt sets STRATA_LICENSE to BSD-3-Clause (the installed strataConfig says it)")
init = read("python/strata/__init__.py")
py_version = re.search(r'^__version__ = "([^"]+)"', init, re.M).group(1)
check(py_version == cmake_version, f"strata.__version__ {py_version} is CMake's {cmake_version}")

try:
    import tomllib
except ImportError:
    try:
        import tomli as tomllib
    except ImportError:
        tomllib = None
if tomllib is None:
    missing.append("tomllib/tomli: pyproject.toml not read")
else:
    with open(os.path.join(src, "pyproject.toml"), "rb") as f:
        pyproject = tomllib.load(f)
    project = pyproject["project"]
    check(project["version"] == cmake_version, f"pyproject version {project['version']} is CMake's {cmake_version}")
    check(project.get("license") == "BSD-3-Clause", "pyproject license is the SPDX expression BSD-3-Clause")
    files = project.get("license-files", [])
    check(files == ["LICENSE"] and all(os.path.isfile(os.path.join(src, f)) for f in files),
          "pyproject license-files names LICENSE, which exists")
    check(not any(c.startswith("License ::") for c in project.get("classifiers", [])),
          "no License classifier beside the SPDX expression (PEP 639 forbids both)")
    requires = " ".join(pyproject["build-system"]["requires"])
    for need in ("scikit-build-core>=0.11", "nanobind", "numpy"):
        # >= 0.11: the first scikit-build-core that writes a PEP 639 licence; numpy: the stubs
        check(need in requires, f"build-system.requires names {need}")
    try:
        from packaging.licenses import canonicalize_license_expression
    except ImportError:
        missing.append("packaging >= 24.2: the SPDX expression not parsed")
    else:
        check(canonicalize_license_expression(project["license"]) == "BSD-3-Clause",
              "packaging parses the licence as the SPDX identifier BSD-3-Clause")

citation = read("CITATION.cff")
check(re.search(r"^cff-version: 1\.2\.0$", citation, re.M) is not None, "CITATION.cff is CFF 1.2.0")
check(re.search(r"^license: BSD-3-Clause$", citation, re.M) is not None, "CITATION.cff license is BSD-3-Clause")
cff_version = re.search(r"^version: (\S+)$", citation, re.M)
check(cff_version is not None and cff_version.group(1) == cmake_version,
      f"CITATION.cff version is CMake's {cmake_version}")
cffconvert = shutil.which("cffconvert")
if cffconvert is None:
    missing.append("cffconvert: CITATION.cff not validated against the CFF schema")
else:
    r = subprocess.run([cffconvert, "--validate", "-i", os.path.join(src, "CITATION.cff")],
                       capture_output=True, text=True)
    check(r.returncode == 0, "cffconvert --validate accepts CITATION.cff" + ("" if r.returncode == 0 else ":\n" + r.stdout + r.stderr))

changelog = read("CHANGELOG.md")
check(re.search(r"^## \[Unreleased\]$", changelog, re.M) is not None, "CHANGELOG.md has an Unreleased section")
check(re.search(r"^## \[" + re.escape(cmake_version) + r"\] - \d{4}-\d\d-\d\d$", changelog, re.M) is not None,
      f"CHANGELOG.md has a dated section for {cmake_version}")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
if missing:
    print("skipped, not installed: " + "; ".join(missing))
    sys.exit(77)
