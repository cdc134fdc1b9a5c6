#!/usr/bin/env python3
"""README's "Using the CLI" examples run as printed: every line of its sh block, in order, in
one scratch directory (with the repository's examples/ beside it), with this build's strata
first on PATH; each must exit 0. Not run, and listed as such: mpirun lines (tests/dist runs
the distributed verbs), `strata bench` and `strata demo` (minutes; their own tests run them),
grids of 500^3 or more (GPU sizes), on a machine without a GPU a line that strata refuses
because it needs one, and in a build without the CPU's FFT (KissFFT, optional) a line that
strata refuses for want of it. Exits 77 (skipped) when nothing ran. Usage: test_readme.py PATH_TO_STRATA"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

from clitest import STRATA, check, failures

root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
    readme = f.read()
block = re.search(r"^## Using the CLI\n.*?^```sh\n(.*?)^```", readme, re.M | re.S)
check("README has a Using the CLI section with an sh block", block is not None)
lines = re.sub(r"\\\n\s*", "", block.group(1)).splitlines() if block else []

if subprocess.run(["python3", "-c", "import numpy"], capture_output=True).returncode != 0:
    print("skipped: the README makes its input arrays with numpy, which python3 lacks")
    sys.exit(77)
info = subprocess.run([STRATA, "info"], capture_output=True, text=True, timeout=60)
gpu_visible = "no GPU" not in info.stdout
needs_gpu = re.compile(r"no GPU can be used|needs a GPU|built without CUDA|runs on the GPU|--device cuda")
needs_cpu_fft = "the fft solver cannot solve on the CPU: built without the CPU's FFT"
env = dict(os.environ, PATH=os.path.dirname(STRATA) + os.pathsep + os.environ["PATH"])
ran, not_run = 0, []
with tempfile.TemporaryDirectory() as tmp:
    os.symlink(os.path.join(root, "examples"), os.path.join(tmp, "examples"))
    for line in lines:
        words = shlex.split(line, comments=True)
        if not words:
            continue
        command = shlex.join(words) if ">" not in words else line.split(" #")[0].strip()
        sizes = [int(n) for n in re.findall(r"--(?:n|size) (\d+)", command)]
        if words[0] == "mpirun" or words[:2] in (["strata", "bench"], ["strata", "demo"]) or \
                any(n >= 500 for n in sizes):
            not_run.append(command)
            continue
        r = subprocess.run(["bash", "-c", command], cwd=tmp, env=env, capture_output=True,
                           text=True, timeout=600)
        if r.returncode != 0 and not gpu_visible and needs_gpu.search(r.stderr):
            not_run.append(f"{command}   (needs a GPU: {r.stderr.strip().splitlines()[-1]})")
            continue
        if r.returncode != 0 and not gpu_visible and needs_cpu_fft in r.stderr:
            not_run.append(f"{command}   (needs the CPU's FFT: {r.stderr.strip().splitlines()[-1]})")
            continue
        ran += 1
        check(f"README: {command}", r.returncode == 0, f"exit {r.returncode}\n{r.stdout[-2000:]}{r.stderr[-2000:]}")

print(f"{ran} README example(s) ran; not run here ({len(not_run)}):")
for command in not_run:
    print(f"  {command}")
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
sys.exit(0 if ran else 77)
