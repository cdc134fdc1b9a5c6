#!/usr/bin/env python3
"""`mpirun -np N strata poisson --out` against the one-process run: the solutions agree to
1e-9 relative at rtol 1e-10 (f64) within one iteration, for mg, mgcg and mixed-precision
mgcg on every boundary kind; options the distributed path does not run, and bad grids, give
one message and exit 1 on every rank with nothing written. With NP 1 the distributed solver
runs on one rank (--grid 1x1x1) against the one-process solver.
Usage: test_cli_poisson.py STRATA MPIEXEC NP"""
import json, math, os, struct, subprocess, sys, tempfile

import cli_checks

strata, mpiexec, np_ = sys.argv[1], sys.argv[2], int(sys.argv[3])
failures = []
# On one rank a --grid is what asks for the distributed solver.
distributed = ["--grid", "1x1x1"] if np_ == 1 else []


def read_f8(path):
    with open(path, "rb") as f:
        data = f.read()
    (hlen,) = struct.unpack("<H", data[8:10])
    header = data[10:10 + hlen].decode()
    assert "'<f8'" in header, header
    body = data[10 + hlen:]
    return struct.unpack("<%dd" % (len(body) // 8), body)


def write_f8(path, values, n=16):  # (n, n, n) float64, C order
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d, %d), }" % (n, n, n)
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%dd" % len(values), *values))


def run(args, ranks):
    cmd = ([mpiexec, "-np", str(ranks)] if ranks > 1 else []) + [strata, "poisson", "--device", "cpu"] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


with tempfile.TemporaryDirectory() as d:
    base = ["--shape", "19,17,23", "--precision", "f64", "--rtol", "1e-10", "--rhs", "random", "--quiet"]
    cases = [["--solver", "mg"], ["--solver", "mgcg"], ["--solver", "mgcg", "--mixed"],
             ["--solver", "mgcg", "--gather-below", "1"]]
    for bc in ("dirichlet:0.5", "neumann", "periodic"):
        for case in cases:
            one, many = os.path.join(d, "one.npy"), os.path.join(d, "many.npy")
            rep1, repn = os.path.join(d, "one.json"), os.path.join(d, "many.json")
            a = run(base + case + ["--bc", bc, "--out", one, "--json", rep1], 1)
            b = run(base + case + distributed + ["--bc", bc, "--out", many, "--json", repn], np_)
            what = "%s %s" % (bc, " ".join(case))
            if a.returncode or b.returncode:
                failures.append("%s: exit %d / %d: %s %s" % (what, a.returncode, b.returncode, a.stderr, b.stderr))
                continue
            if b.stdout.count("strata poisson:") != 1:
                failures.append("%s: %d ranks printed the report %d times" % (what, np_, b.stdout.count("strata poisson:")))
            u1, un = read_f8(one), read_f8(many)
            diff = math.sqrt(sum((x - y) ** 2 for x, y in zip(u1, un)))
            ref = math.sqrt(sum(x * x for x in u1))
            it1, itn = json.load(open(rep1))["iterations"], json.load(open(repn))["iterations"]
            if len(u1) != len(un) or not diff <= 1e-9 * ref:
                failures.append("%s: relative difference %.3g between %d ranks and one process" % (what, diff / ref, np_))
            if abs(it1 - itn) > 1:
                failures.append("%s: %d iterations on %d ranks, %d on one process" % (what, itn, np_, it1))

    # STRATA_POISSON_LEVELS=1 over the ranks: each part of the distributed cycle timed, in the
    # cycle's order (the gathered levels as the coarsest part), and the same solution's bits.
    plain, timed = os.path.join(d, "plain.npy"), os.path.join(d, "timed.npy")
    rep = os.path.join(d, "timed.json")
    args = base + ["--solver", "mgcg", "--bc", "dirichlet:0.5", "--gather-below", "200"] + distributed
    a = run(args + ["--out", plain], np_)
    os.environ["STRATA_POISSON_LEVELS"] = "1"
    b = run(args + ["--out", timed, "--json", rep], np_)
    os.environ["STRATA_POISSON_LEVELS"] = "yes"  # not 0 or 1: refused before any work
    bad_out = os.path.join(d, "bad.npy")
    c = run(args + ["--out", bad_out], np_)
    del os.environ["STRATA_POISSON_LEVELS"]
    if a.returncode or b.returncode:
        failures.append("level times: exit %d / %d: %s %s" % (a.returncode, b.returncode, a.stderr, b.stderr))
    else:
        j = json.load(open(rep))
        parts = [p["part"] for p in j.get("level_ms", [])]
        k = len(parts) // 2
        want = ["down %d" % l for l in range(k)] + ["coarse %d" % k] + ["up %d" % l for l in reversed(range(k))]
        if k < 1 or parts != want or any(p["ms"] < 0 for p in j["level_ms"]) or \
                sum(p["ms"] for p in j["level_ms"]) > j["solve_ms"]:
            failures.append("level times on %d ranks: %s (solve %s ms)" % (np_, j.get("level_ms"), j.get("solve_ms")))
        if read_f8(plain) != read_f8(timed):
            failures.append("level times on %d ranks changed the solution" % np_)
    if not cli_checks.said_once(c, "STRATA_POISSON_LEVELS='yes' is not 0 or 1") or os.path.exists(bad_out):
        failures.append("STRATA_POISSON_LEVELS=yes: expected exit 1, one message, nothing written; got exit %d:\n%s"
                        % (c.returncode, c.stderr))

    out = os.path.join(d, "out.npy")
    # Right-hand sides the solve cannot take, found from the job's sums: said once, by rank 0,
    # every rank exiting 1 (not each rank's message and MPI_ABORT's).
    nan_rhs, huge_rhs, flat_rhs = (os.path.join(d, name) for name in ("nan.npy", "huge.npy", "flat.npy"))
    write_f8(nan_rhs, [0.5] * 4000 + [float("nan")] + [0.5] * 95)
    write_f8(huge_rhs, [1e300] * 4096)
    write_f8(flat_rhs, [1.0] * 4096)
    cli_checks.bad_input(lambda args: run(["--n", "16", "--out", out] + distributed + args, np_),
                         ((["--rhs", nan_rhs], "1 non-finite value of 4096"),
                          (["--rhs", huge_rhs, "--precision", "f64"], "the right-hand side's norm, is not a finite number"),
                          (["--rhs", flat_rhs, "--bc", "neumann"], "f is constant")), out, failures)
    cli_checks.bad_input(lambda args: run(["--n", "16", "--out", out] + (args if "--grid" in args else distributed + args), np_),
                         ((["--solver", "fmg"], "one process only"),
                          (["--operator", "fe27"], "--operator fd7"),
                          (["--solver", "fft", "--bc", "periodic"], "one process only"),
                          (["--grid", "1x1x%d" % (np_ + 1)], "process grid"),
                          (["--grid", "bogus"], "PXxPYxPZ"),
                          # Checks the solver makes are made before the job starts.
                          (["--rtol", "0"], "--rtol 0 needs a positive --atol"),
                          (["--pre", "0", "--post", "0"], "smoothing steps")), out, failures)
    # The ranks write their parts of --out in parallel: a pipe is refused before any work.
    fifo = os.path.join(d, "pipe.npy")
    os.mkfifo(fifo)
    r = run(["--n", "16", "--out", fifo] + distributed, np_)
    if r.returncode != 1 or r.stderr.count("strata: error") != 1 or "give a file path" not in r.stderr:
        failures.append("--out a pipe: expected exit 1 and one message, got exit %d:\n%s" % (r.returncode, r.stderr))
    os.remove(fifo)
    cli_checks.no_temporaries(d, failures)

cli_checks.verdict(failures, "%d ranks" % np_)
