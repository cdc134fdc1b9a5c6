#!/usr/bin/env python3
"""Options and outputs are checked before any work, by one parser per kind: every numeric
option is a finite number in its range (never a silent fallback to a default), every list
has no empty item, and every output path (--out, --json) is checked before a verb computes
anything, so a failing run writes nothing and fails at once. Messages name the option and
what is allowed, never an internal. Standard library only. Usage: test_options.py STRATA"""
import json
import os
import struct
import tempfile
import time

from clitest import check, finish, run_strata


def npy_header(path, shape, descr="<f4"):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, "".join(f"{s}, " for s in shape))
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        n = 1
        for s in shape:
            n *= s
        f.truncate(f.tell() + n * int(descr[-1]))  # sparse: costs no disk


def refused(name, args, needle, written=(), quick=None):
    t0 = time.time()
    r = run_strata(*args)
    secs = time.time() - t0
    check(name + " exits non-zero", r.returncode not in (0, 3), f"rc={r.returncode}")
    check(name + " says why", needle in r.stderr, repr(r.stderr[-400:]))
    check(name + " names no internal", "internal" not in r.stderr and "unexpected error" not in r.stderr, r.stderr)
    for path in written:
        check(name + " writes nothing", not os.path.exists(path), path)
    if quick is not None:
        check(name + " fails before the work", secs < quick and quick_marker not in r.stdout, f"{secs:.1f} s")
    return r


quick_marker = "GB/s"  # a benchmark table or a solve report would hold it

with tempfile.TemporaryDirectory() as tmp:
    out, js = os.path.join(tmp, "u.npy"), os.path.join(tmp, "r.json")
    plain = os.path.join(tmp, "plain")
    with open(plain, "w") as f:
        f.write("a file, not a directory")
    blocked = os.path.join(plain, "nodir", "r.json")  # its missing directory cannot be created
    cpu = ["--device", "cpu"]

    # Outputs are checked before the work: no u.npy from a run whose --json cannot be written.
    refused("poisson --json under a file", ["poisson", *cpu, "--n", "15", "--out", out, "--json", blocked],
            "cannot write '" + blocked + "'", [out], quick=30)
    refused("bench --json under a file", ["bench", *cpu, "--size", "16", "--json", blocked], "not a directory",
            quick=30)
    refused("demo --json under a file", ["demo", *cpu, "--json", blocked], "not a directory", quick=30)
    check("demo refused before its checks", "checks" not in run_strata("demo", *cpu, "--json", blocked).stdout)
    # A missing directory is created (every verb, as strata wave's): the same checks pass.
    nested = os.path.join(tmp, "made", "here", "r.json")
    r = run_strata("poisson", *cpu, "--n", "7", "--json", nested)
    check("poisson --json creates its missing directories", r.returncode == 0 and os.path.exists(nested), r.stderr)
    good = os.path.join(tmp, "in.npy")
    with open(good, "wb") as f:
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4, 5), }"
        header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack("<60f", *[1.0] * 60))
    refused("apply --out into a directory", ["apply", *cpu, "--in", good, "--out", tmp], "is a directory")

    # Numbers: the option, the range and the text; no fallback, no "out of memory".
    refused("poisson --rtol -1 on a large grid", ["poisson", *cpu, "--n", "2048", "--rtol", "-1"],
            "--rtol: must be auto or a number in [0, 1), got '-1'")
    for value in ["-1", "nan", "0", "1e200", "inf"]:
        refused("poisson --spacing " + value, ["poisson", *cpu, "--n", "15", "--spacing", value, "--out", out],
                "--spacing: must be a number in [1e-15, 1e+15], got '" + value + "'", [out])
    refused("poisson --max-iter 0", ["poisson", *cpu, "--n", "15", "--max-iter", "0"], "--max-iter: must be a whole")
    # A whole number written otherwise is the integer it is (CLI11 alone said "Could not convert").
    r = run_strata("poisson", *cpu, "--n", "1e1", "--json", js, "--quiet")
    check("poisson --n 1e1 is --n 10", r.returncode == 0 and json.load(open(js))["shape"] == [10, 10, 10], r.stderr)
    r = run_strata("apply", *cpu, "--in", good, "--out", out, "--steps", "2.0")
    check("apply --steps 2.0 runs 2 steps", r.returncode == 0 and "2 steps" in r.stdout, r.stderr + r.stdout)
    os.path.exists(out) and os.remove(out)
    # A literal that is not zero but rounds to 0 in a double is said so, not taken as 0.
    for value in ["1e-400", "0x1p-2000"]:
        refused("poisson --rtol " + value, ["poisson", *cpu, "--n", "15", "--rtol", value, "--out", out],
                "--rtol: must be auto or a number in [0, 1), got '" + value + "', which a double rounds to 0", [out])
    refused("poisson --pre 1.5", ["poisson", *cpu, "--n", "15", "--pre", "1.5"], "--pre: must be a whole number")
    refused("poisson grid beyond memory", ["poisson", *cpu, "--n", "16384"], "of host memory but")
    refused("apply --radius 0", ["apply", *cpu, "--in", good, "--out", out, "--stencil", "star", "--radius", "0"],
            "--radius: must be a whole number in [1, 4], got '0'", [out])
    refused("apply --coeffs ''", ["apply", *cpu, "--in", good, "--out", out, "--coeffs", ""], "--coeffs: empty list",
            [out])
    refused("apply --coeffs -6,1,", ["apply", *cpu, "--in", good, "--out", out, "--coeffs", "-6,1,"],
            "is an empty item in '-6,1,'", [out])
    refused("apply --coeffs 1,,2", ["apply", *cpu, "--in", good, "--out", out, "--stencil", "star", "--radius", "2",
                                    "--coeffs", "1,,2"], "empty item", [out])
    refused("bench --reps 1.5", ["bench", *cpu, "--reps", "1.5"], "--reps: must be a whole number")
    refused("bench --size 0", ["bench", *cpu, "--size", "0"], "--size: must be a whole number in [1, ")
    refused("wave --steps -1", ["wave", "--config", good, "--steps", "-1"], "--steps: must be a whole number")
    refused("wave --progress-every 0", ["wave", "--config", good, "--progress-every", "0"], "--progress-every")

    # An --rhs axis beyond int is named as it is, not wrapped to a negative number.
    big = os.path.join(tmp, "big.npy")
    npy_header(big, (2 ** 31, 1, 1))
    r = refused("--rhs with an axis of 2^31", ["poisson", *cpu, "--rhs", big], "2147483648")
    check("--rhs with an axis of 2^31 shows no negative size", "-2147483648" not in r.stderr, r.stderr)
    os.remove(big)

finish()
