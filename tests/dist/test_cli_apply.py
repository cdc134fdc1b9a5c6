#!/usr/bin/env python3
"""`mpirun -np N strata apply` against the one-process run: the same bytes for every
stencil family, boundary and precision, repeated steps included (N = 1: --grid 1x1x1, the
distributed path on one rank); one message and exit 1 for bad input on any rank; nothing
written when a run fails. Usage: test_cli_apply.py STRATA MPIEXEC NP [--device D] (or STRATA_TEST_DEVICE=D; cuda: one GPU a
rank, else skipped)"""
import os, subprocess, sys, tempfile, struct

import cli_checks
import gpu_ranks

strata, mpiexec, np_ = sys.argv[1], sys.argv[2], int(sys.argv[3])
device = gpu_ranks.device(sys.argv)
if device == "cuda":
    gpu_ranks.require(strata, np_)
failures = []
# STRATA_TEST_CASES=some (CTest's dist.cli_apply_gpu): each stencil family in both precisions
# with the boundaries taken in turn, the cuts in f32, the repeated steps once per update and
# stencil, again with the boundaries in turn; 30 runs instead of 84, for on the GPUs each run
# starts CUDA and NCCL (the whole list took 163-208 s at 1 and 2 ranks on 2 x H200). The CPU
# ranks and device-check's dist stage run every combination.
CASES = os.environ.get("STRATA_TEST_CASES", "all")
if CASES not in ("all", "some"):
    sys.exit("STRATA_TEST_CASES=%s: expected all or some" % CASES)
SOME = CASES == "some"
BCS = ("dirichlet:2.5", "neumann", "periodic")


def boundaries(k):
    """Every boundary, or with SOME only the k-th in turn."""
    return BCS if not SOME else (BCS[k % len(BCS)],)


def write_npy(path, shape, dtype, values):
    fmt = {"<f4": "f", "<f8": "d"}[dtype]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d, %d), }" % ((dtype,) + shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def run(args, ranks):
    """ranks 0: one process; else under mpirun, where one rank takes --grid 1x1x1 (the
    distributed path on one rank) unless args give a grid."""
    if ranks == 1 and "--grid" not in args:
        args = args + ["--grid", "1x1x1"]
    cmd = ([mpiexec, "-np", str(ranks)] if ranks > 0 else []) + [strata, "apply", "--device", device] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def same_as_one_process(d, what, args, many_args=()):
    """One process and NP ranks on the same arguments write the same bytes."""
    one, many = os.path.join(d, "one.npy"), os.path.join(d, "many.npy")
    a = run(args + ["--out", one], 0)
    b = run(args + ["--out", many] + list(many_args), np_)
    if a.returncode or b.returncode:
        failures.append("%s: exit %d / %d: %s %s" % (what, a.returncode, b.returncode, a.stderr, b.stderr))
    elif open(one, "rb").read() != open(many, "rb").read():
        failures.append("%s: %d ranks differ from one process" % (what, np_))
    for p in (one, many):
        if os.path.exists(p):
            os.remove(p)


with tempfile.TemporaryDirectory() as d:
    shape = (23, 17, 19)  # (nz, ny, nx): no axis divisible by 2, 3 or 4
    n = shape[0] * shape[1] * shape[2]
    vals = [((i * 7919) % 1013) / 101.3 - 5.0 for i in range(n)]
    for di, dtype in enumerate(("<f4", "<f8")):
        src = os.path.join(d, "in%s.npy" % dtype[-1])
        write_npy(src, shape, dtype, vals)
        for si, stencil in enumerate((["--stencil", "7pt"], ["--stencil", "star", "--radius", "4"],
                                      ["--stencil", "sym27"],
                                      ["--stencil", "box27", "--coeffs", ",".join(str(0.1 * k - 1.3) for k in range(27))])):
            for bc in boundaries(di + si):
                same_as_one_process(d, "%s %s %s" % (dtype, " ".join(stencil[:2]), bc),
                                    ["--in", src, "--bc", bc] + stencil)

    # Every way to cut the grid along one axis: boxes as wide as the grid (their rows go
    # out in one write and in one read), and boxes narrower than it (row by row).
    for dtype in ("<f4",) if SOME else ("<f4", "<f8"):
        src = os.path.join(d, "in%s.npy" % dtype[-1])
        for grid in ("%dx1x1" % np_, "1x%dx1" % np_, "1x1x%d" % np_):
            same_as_one_process(d, "%s --grid %s" % (dtype, grid), ["--in", src, "--bc", "neumann"], ["--grid", grid])

    # Repeated steps: one pass a step over the ranks, against one process (whose GPU fuses
    # the 7-point steps three a pass: the same bits), odd and even counts, both updates.
    src = os.path.join(d, "in4.npy")
    for ui, (steps, update) in enumerate(((5, "relax:0.05"), (2, "repeat"))):
        for si, stencil in enumerate((["--stencil", "7pt"], ["--stencil", "star", "--radius", "3"])):
            for bc in boundaries(2 * ui + si):
                same_as_one_process(d, "%d steps %s %s %s" % (steps, update, bc, " ".join(stencil[:2])),
                                    ["--in", src, "--bc", bc, "--steps", str(steps), "--update", update] + stencil)

    src = os.path.join(d, "in4.npy")
    out = os.path.join(d, "out.npy")
    # A header that claims more than any host holds (a sparse file: 512 GiB of f64 that take
    # no disk): the memory check is made before the ranks start, so one message says so.
    huge = os.path.join(d, "huge.npy")
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (4096, 4096, 4096), }"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(huge, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.truncate(10 + len(header) + 8 * 4096 ** 3)
    # A float64 file narrowed to f32 whose value is beyond f32's range: the refusal names the
    # narrowing (the file holds no inf), once.
    wide = os.path.join(d, "wide.npy")
    write_npy(wide, (5, 6, 7), "<f8", [1e39 if i == 101 else 1.0 for i in range(210)])
    # Bad input: one message (not one per rank), exit 1, nothing written.
    cli_checks.bad_input(lambda args: run(args, np_),
                         ((["--in", os.path.join(d, "missing.npy"), "--out", out], "cannot open"),
                          (["--in", src, "--out", out, "--grid", "1x1x%d" % (np_ + 1)], "mpirun -np %d" % (np_ + 1)),
                          (["--in", src, "--out", out, "--grid", "bogus"], "PXxPYxPZ"),
                          (["--in", huge, "--out", out], "memory"),
                          (["--in", wide, "--out", out, "--precision", "f32"], "read as f32 from a float64 file"))
                         + (((["--in", src, "--out", out, "--steps", "3", "--fuse", "3"], "one pass"),)
                            if np_ > 1 else ()), out, failures)
    # Settings the ranks read inside collective calls are refused before the job begins, once,
    # like bad options.
    for name, value, expect in (("STRATA_GPU_TRANSPORT", "bogus", "expected auto, ipc or nccl"),
                                ("STRATA_IPC_SLOT_KB", "2", "expected kilobytes from 4"),
                                ("STRATA_IPC_SLOT_KB", "12k", "expected kilobytes from 4")):
        if np_ == 1:
            break
        r = subprocess.run([mpiexec, "-np", str(np_), strata, "apply", "--device", device, "--in", src, "--out", out],
                           capture_output=True, text=True, timeout=300, env=dict(os.environ, **{name: value}))
        if not cli_checks.said_once(r, "%s=%s: %s" % (name, value, expect)) or os.path.exists(out):
            failures.append("%s=%s: expected exit 1 and one message, got exit %d:\n%s" %
                            (name, value, r.returncode, r.stderr))
    cli_checks.no_temporaries(d, failures)

cli_checks.verdict(failures, "%d ranks, %s" % (np_, device))
