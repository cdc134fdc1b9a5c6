#!/usr/bin/env python3
"""`strata poisson` contract: bad input exits non-zero with a message and writes nothing; a
small solve writes --out and --json with what the report claims; the defaults converge in
either precision; --atol is an absolute tolerance; exit 0 and "converged" are decided on
the recomputed residual; an unreachable tolerance exits 3 with the reason, and a double
run is never told to use double; the fft solver runs on the CPU (KissFFT), a direct solve
with multigrid's discretisation error, or, in a build without the CPU's FFT, is refused
naming the package to install. Standard library only.
Usage: test_poisson_cli.py PATH_TO_STRATA"""
import json
import os
import struct
import tempfile


from clitest import check, finish, has_cpu_fft, run_strata


def run(*args):
    return run_strata("poisson", "--device", "cpu", *args)


with tempfile.TemporaryDirectory() as tmp:
    out, js = os.path.join(tmp, "u.npy"), os.path.join(tmp, "r.json")

    def refused(name, args, needle):
        for p in (out, js):
            if os.path.exists(p):
                os.remove(p)
        r = run(*args, "--out", out, "--json", js)
        check(name + " exits non-zero", r.returncode not in (0, 3), f"rc={r.returncode}")
        check(name + " says why", needle.lower() in r.stderr.lower(), repr(r.stderr[-300:]))
        check(name + " writes nothing", not os.path.exists(out) and not os.path.exists(js))

    refused("no grid", [], "--n")
    refused("unknown solver", ["--n", "8", "--solver", "sor"], "unknown solver")
    refused("unknown operator", ["--n", "8", "--operator", "fd9"], "unknown operator")
    refused("bad bc", ["--n", "8", "--bc", "robin"], "unknown boundary")
    refused("mixed needs mgcg f64", ["--n", "8", "--mixed"], "--mixed")
    refused("fft on a dirichlet grid", ["--n", "8", "--solver", "fft"], "periodic 7-point")
    refused("fft with fe27", ["--n", "8", "--bc", "periodic", "--solver", "fft", "--operator", "fe27"],
            "periodic 7-point")
    refused("zero smoothing", ["--n", "8", "--pre", "0", "--post", "0"], "smoothing")
    refused("rtol 0 without atol", ["--n", "8", "--rtol", "0"], "rtol")
    refused("negative rtol", ["--n", "8", "--rtol", "-1e-6"], "--rtol")
    refused("rtol not a number", ["--n", "8", "--rtol", "tight"], "--rtol")
    refused("negative atol", ["--n", "8", "--atol", "-1"], "--atol")
    refused("missing rhs file", ["--n", "8", "--rhs", os.path.join(tmp, "none.npy")], "none.npy")
    refused("both --n and --shape", ["--n", "8", "--shape", "8,8,8"], "either")

    # An --rhs of the wrong shape is refused before any work.
    f = os.path.join(tmp, "f.npy")
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 5, 6), }"
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    with open(f, "wb") as fh:
        fh.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        fh.write(struct.pack("<120d", *[0.5] * 120))
    refused("rhs of another shape", ["--n", "8", "--rhs", f], "is 6x5x4")

    # An --rhs that is not finite as the run holds it is refused before the solve, naming the
    # first bad point (not "diverged at iteration 1"); one whose norm overflows a double is
    # refused before the first iteration (it once "met the tolerance" at once: inf <= rtol inf).
    def npy8(path, values):  # (8, 8, 8) float64
        header = "{'descr': '<f8', 'fortran_order': False, 'shape': (8, 8, 8), }"
        header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
        with open(path, "wb") as fh:
            fh.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
            fh.write(struct.pack("<512d", *values))
    g = os.path.join(tmp, "g.npy")
    at = (3 * 8 + 2) * 8 + 5  # (x, y, z) = (5, 2, 3)
    for bad, word, precision in ((float("nan"), "nan", "f64"), (float("inf"), "inf", "f32"), (1e300, "inf", "f32")):
        npy8(g, [0.25 + 0.001 * i for i in range(512)][:at] + [bad] + [0.5] * (511 - at))
        for solver in ("mg", "cg"):
            refused(f"rhs holding {bad} in {precision} ({solver})",
                    ["--n", "8", "--rhs", g, "--precision", precision, "--solver", solver],
                    f"1 non-finite value of 512 (0.195%), the first {word} at (x, y, z) = (5, 2, 3) as {precision}" +
                    (" (a float64 value beyond f32's range" if precision == "f32" else ": every value must be"))
    npy8(g, [1e300 * (1 + 0.001 * i) for i in range(512)])
    for solver in ("mg", "mgcg", "jacobi"):
        refused(f"rhs whose norm overflows ({solver})", ["--n", "8", "--rhs", g, "--precision", "f64", "--solver", solver],
                "the right-hand side's norm, is not a finite number (inf)")
    refused("boundary values whose residual overflows", ["--n", "16", "--bc", "dirichlet:1e200", "--precision", "f64"],
            "the starting residual's norm is not a finite number")

    r = run("--n", "15", "--precision", "f64", "--rtol", "1e-9", "--out", out, "--json", js, "--quiet")
    check("a small solve succeeds", r.returncode == 0, r.stderr)
    rep = json.load(open(js))
    check("the report says converged", rep["converged"] and rep["rel_residual"] <= 1e-9, str(rep)[:300])
    check("the report has the discretisation error", 0 < rep["error_rel_l2"] < 1e-2, str(rep.get("error_rel_l2")))
    check("the solution file is written", os.path.getsize(out) > 15 ** 3 * 8)

    # A Neumann right-hand side must have zero mean: a constant one (all of it in the null
    # space) is refused instead of "converging" to u = 0; one with a mean is solved for f -
    # mean(f) with a warning; a zero-mean one solves quietly.
    if os.path.exists(out):
        os.remove(out)
    r = run("--shape", "6,5,4", "--rhs", f, "--bc", "neumann", "--precision", "f64", "--quiet", "--out", out)
    check("a constant Neumann --rhs is refused", r.returncode == 1 and "f is constant (mean 0.5)" in r.stderr
          and not os.path.exists(out), r.stderr)
    def write_rhs(values):
        with open(f, "wb") as fh:
            fh.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
            fh.write(struct.pack("<120d", *values))
    write_rhs([(-1) ** i * 0.5 + 0.25 for i in range(120)])
    r = run("--shape", "6,5,4", "--rhs", f, "--bc", "neumann", "--precision", "f64", "--quiet", "--json", js)
    check("a Neumann --rhs with a mean is solved with a warning", r.returncode == 0 and
          "strata poisson: warning: f has mean 0.25" in r.stderr, r.stderr)
    check("the report keeps the warning", os.path.exists(js) and json.load(open(js))["warnings"], "")
    write_rhs([(-1) ** i * 0.5 for i in range(120)])
    r = run("--shape", "6,5,4", "--rhs", f, "--bc", "neumann", "--precision", "f64", "--quiet")
    check("an --rhs file of the grid's shape solves", r.returncode == 0 and "warning" not in r.stderr, r.stderr)

    r = run("--n", "15", "--precision", "f32", "--rtol", "1e-12", "--max-iter", "30", "--quiet")
    check("an unreachable tolerance exits 3", r.returncode == 3, f"rc={r.returncode}")
    check("and says why", "fp32" in r.stdout, r.stdout[-300:])

    # STRATA_POISSON_LEVELS=1: each part of a V-cycle timed, level by level, in the order the
    # cycle runs them; the same solve (iterations, residual) as without it; nothing without it.
    for solver in ("mg", "mgcg"):
        reports = {}
        for env in ("1", None):
            if env:
                os.environ["STRATA_POISSON_LEVELS"] = env
            r = run("--n", "31", "--solver", solver, "--json", js, "--quiet")
            os.environ.pop("STRATA_POISSON_LEVELS", None)
            reports[env] = json.load(open(js)) if r.returncode == 0 else {}
            check(f"{solver} with STRATA_POISSON_LEVELS={env}: exits 0", r.returncode == 0, r.stderr[-300:])
        timed, plain = reports["1"], reports[None]
        parts = [p.get("part") for p in timed.get("level_ms", [])]
        k = len(timed.get("levels", [])) - 1
        want = [f"down {l}" for l in range(k)] + [f"coarse {k}"] + [f"up {l}" for l in reversed(range(k))]
        check(f"{solver}: level_ms names every level's parts in the cycle's order", k > 0 and parts == want, str(parts))
        check(f"{solver}: level times are times within the solve",
              all(p["ms"] >= 0 for p in timed.get("level_ms", []))
              and sum(p["ms"] for p in timed.get("level_ms", [])) <= timed.get("solve_ms", 0), str(timed.get("level_ms")))
        check(f"{solver}: the same solve with the level times", timed.get("iterations") == plain.get("iterations")
              and timed.get("rel_residual") == plain.get("rel_residual"), str((timed.get("iterations"), plain.get("iterations"))))
        check(f"{solver}: no level_ms without STRATA_POISSON_LEVELS", "level_ms" not in plain, str(plain.keys()))
    for p in (out, js):
        if os.path.exists(p):
            os.remove(p)
    os.environ["STRATA_POISSON_LEVELS"] = "on"
    r = run("--n", "15", "--out", out, "--json", js)
    os.environ.pop("STRATA_POISSON_LEVELS", None)
    check("STRATA_POISSON_LEVELS=on is refused, saying what it takes, nothing written",
          r.returncode == 1 and "STRATA_POISSON_LEVELS='on' is not 0 or 1" in r.stderr
          and not os.path.exists(out) and not os.path.exists(js), f"rc={r.returncode} {r.stderr[-300:]}")

    # The defaults converge in f32 (at the rounding floor where 1e-6 is below it) and say so.
    for solver in ("mg", "fmg", "mgcg"):
        r = run("--n", "31", "--solver", solver, "--json", js, "--quiet")
        rep = json.load(open(js)) if r.returncode in (0, 3) else {}
        check(f"f32 defaults ({solver}) exit 0", r.returncode == 0, r.stdout[-400:])
        check(f"f32 defaults ({solver}) report the default rtol", rep.get("rtol_default") is True, str(rep)[:300])
        check(f"f32 defaults ({solver}) claim only what the residual shows",
              rep.get("converged") and (rep["rel_residual"] <= rep["rtol"] or rep["at_floor"]), str(rep)[:300])

    # --atol: PETSc's absolute tolerance, in the report.
    r = run("--n", "15", "--precision", "f64", "--rtol", "0", "--atol", "1e-2", "--json", js, "--quiet")
    rep = json.load(open(js)) if r.returncode in (0, 3) else {}
    check("--atol alone converges", r.returncode == 0 and rep.get("converged"), r.stdout[-300:])
    check("the report has atol", rep.get("atol") == 1e-2 and rep.get("rtol") == 0, str(rep)[:300])

    # Exit code and "converged" follow the recomputed residual: with |u| ~ 1000 in f64 the
    # iteration's residual reaches 1e-12 but the solution's does not (issue 11).
    r = run("--shape", "24,20,16", "--rhs", "random", "--bc", "dirichlet:1000", "--solver", "mg",
            "--precision", "f64", "--rtol", "1e-12", "--json", js, "--quiet")
    rep = json.load(open(js)) if r.returncode in (0, 3) else {}
    check("a recomputed residual above rtol exits 3", r.returncode == 3, f"rc={r.returncode} " + r.stdout[-300:])
    check("and the report says not converged", rep.get("converged") is False and rep["rel_residual"] > 1e-12,
          str(rep)[:300])
    check("an f64 run is not told to use f64", "--precision f64" not in r.stdout, r.stdout[-400:])

    # The fft solver on the CPU: a direct solve of the periodic problem in both precisions,
    # writing its solution, with the discretisation error of a multigrid solve to 1e-10.
    # Without the CPU's FFT: refused, naming the package, never told to use cuda.
    if not has_cpu_fft():
        print("skip the fft solves on the CPU: built without the CPU's FFT")
        refused("fft without the CPU's FFT", ["--shape", "24,16,20", "--bc", "periodic", "--solver", "fft"],
                "libkissfft-dev")
        check("fft without the CPU's FFT is never told to use cuda",
              "cuda" not in run("--n", "8", "--bc", "periodic", "--solver", "fft").stderr.lower())
        finish()
    errors = {}
    for solver, prec, rtol in (("mg", "f64", "1e-10"), ("fft", "f64", "1e-10"), ("fft", "f32", "auto")):
        for p in (out, js):
            if os.path.exists(p):
                os.remove(p)
        r = run("--shape", "24,16,20", "--bc", "periodic", "--solver", solver, "--precision", prec,
                "--rtol", rtol, "--out", out, "--json", js, "--quiet")
        rep = json.load(open(js)) if os.path.exists(js) else {}
        what = f"{solver} {prec} periodic on the cpu"
        check(what + " exits 0", r.returncode == 0, r.stdout[-300:] + r.stderr[-300:])
        check(what + " writes its solution", os.path.exists(out) and os.path.getsize(out) > 24 * 16 * 20 * 4)
        check(what + " is never told to use cuda", "cuda" not in (r.stdout + r.stderr).lower(), r.stderr)
        if solver == "fft":
            check(what + " is a direct solve", rep.get("direct") is True and rep.get("converged") is True, str(rep)[:300])
        errors[(solver, prec)] = rep.get("error_rel_l2", float("nan"))
    mg = errors[("mg", "f64")]
    check("fft f64 has multigrid's discretisation error", abs(errors[("fft", "f64")] - mg) <= 1e-6 * mg, errors)
    check("fft f32 has it too, to f32 rounding", abs(errors[("fft", "f32")] - mg) <= 1e-3 * mg, errors)

finish()
