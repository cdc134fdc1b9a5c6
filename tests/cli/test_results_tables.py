#!/usr/bin/env python3
"""tools/results-tables.py --side-by-side: one row per kernel and precision with a column group
per results file, taking the row each GPU ran by default (and the apply:* rows), its ratio to
cudaMemcpy, its launch shape and where that came from, and the target. Made-up files, no GPU.
Usage: test_results_tables.py PATH_TO_STRATA (unused: the CLI tests' calling convention)"""
import json
import os
import subprocess
import sys
import tempfile

from clitest import check, finish

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "results-tables.py")


def row(kernel, prec, gpts, ratio, variant, default=True, choice=None, shape=(512, 512, 512)):
    extra = {"ratio_to_memcpy": ratio}
    if kernel.startswith("apply:"):
        extra["diagnostic"] = True
    else:
        extra["default"] = default
    if choice:
        extra["choice"] = choice
    return {"kernel": kernel, "precision": prec, "shape": list(shape), "gpts_per_s": gpts, "variant": variant,
            "extra": extra}


with tempfile.TemporaryDirectory() as tmp:
    a = {"commit": "aaa", "device": "GPU A", "results": [
        row("copy", "f32", 350.0, 0.93, "tma-a", choice="shipped"),
        row("7pt", "f32", 320.0, 0.85, "tma-b", choice="shipped"),
        row("7pt", "f32", 999.0, 0.99, "tma-lab", default=False),     # a variant apply does not run
        row("7pt", "f32", 111.0, 0.11, "tma-b", shape=(256, 256, 256)),  # another size
        row("apply:7pt", "f32", 300.0, 0.80, "fill_ghosts+tma-b")]}
    b = {"commit": "bbb", "device": "GPU B", "results": [
        row("copy", "f32", 500.0, 0.96, "tma-c", choice="cache"),
        row("7pt", "f64", 230.0, 0.93, "tma-d", choice="measured")]}
    pa, pb = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
    json.dump(a, open(pa, "w"))
    json.dump(b, open(pb, "w"))
    r = subprocess.run([sys.executable, SCRIPT, "--side-by-side", pa, pb], capture_output=True, text=True)
    check("runs", r.returncode == 0, r.stderr)
    lines = {tuple(c.strip() for c in l.strip("|").split("|")[:2]): l for l in r.stdout.splitlines() if l.startswith("| ")}
    header = [l for l in r.stdout.splitlines() if l.startswith("| kernel")]
    check("a column group per GPU", header and "GPU A Gpts/s" in header[0] and "GPU B Gpts/s" in header[0], r.stdout)
    check("both GPUs' copy", "| copy | f32 | 350.0 | 0.930 | tma-a (shipped) | 500.0 | 0.960 | tma-c (cache) | >= 0.95 |"
          in r.stdout, r.stdout)
    check("the default row at 512^3, not a lab variant or another size",
          "| 7pt | f32 | 320.0 | 0.850 | tma-b (shipped) |  |  |  | >= 0.92 |" in r.stdout, r.stdout)
    check("a row only one GPU has", "| 7pt | f64 |  |  |  | 230.0 | 0.930 | tma-d (measured) | >= 0.92 |" in r.stdout,
          r.stdout)
    check("the whole apply call", "| apply:7pt | f32 | 300.0 | 0.800 | fill_ghosts+tma-b |" in r.stdout, r.stdout)
    check("no row nobody has", ("star4", "f32") not in lines, r.stdout)
    check("the commits", "commit aaa" in r.stdout and "commit bbb" in r.stdout, r.stdout)
finish()
