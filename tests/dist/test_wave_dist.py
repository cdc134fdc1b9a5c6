#!/usr/bin/env python3
"""`strata wave` over NP ranks (one model, the grid split into boxes) against one process:
the seismogram, the receivers, every snapshot (.npy, .vti, .png), the seismogram picture
and config.json are the same bytes, for the default process grid, every slab grid and (at 4
ranks) the grids split along two axes, with
absorbing layers, a free surface, rigid and periodic faces (periodic axes split across
ranks wrap), f32 and f64, and a box that starts among the columns beside the x layer that
one process updates in the shell's kernels. A run continued from the ranks' checkpoints ends with the same
bytes as the uninterrupted run; a restart on another process grid, a grid that cuts an
absorbing layer and a bad configuration are each refused with one message, nothing written.
Usage: test_wave_dist.py PATH_TO_STRATA MPIEXEC NP [--device cuda] (or STRATA_TEST_DEVICE=cuda: one GPU a
rank, else skipped)"""
import array
import filecmp
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from clitest import STRATA, check, finish  # noqa: E402

import gpu_ranks  # noqa: E402

MPIEXEC, NP = sys.argv[2], int(sys.argv[3])
DEVICE = gpu_ranks.device(sys.argv)
if DEVICE == "cuda":
    gpu_ranks.require(STRATA, NP)

BASE = {
    "grid": {"shape": [30, 26, 44], "spacing": 5.0},
    "model": {"type": "layered", "layers": [{"top": 0, "velocity": 1500}, {"top": 90, "velocity": 2100}]},
    "time": {"steps": 30},
    "scheme": {"order": 8, "precision": "f32"},
    "sources": [{"position": [70.0, 62.0, 100.0], "frequency": 25.0},
                {"position": [20.0, 30.0, 210.0], "frequency": 18.0, "amplitude": -2.0}],
    "receivers": {"every": 2, "points": [[12.5, 12.5, 2.5], [72.5, 65.0, 107.5], [140.0, 120.0, 212.5]],
                  "lines": [{"start": [10.0, 60.0, 110.0], "end": [140.0, 60.0, 110.0], "count": 9},
                            {"start": [75.0, 5.0, 5.0], "end": [75.0, 5.0, 215.0], "count": 17}],
                  "planes": [{"axis": "y", "position": 64.0, "stride": 3}]},
    "boundary": {"pml": {"width": 6}},
    "output": {"snapshots": {"every": 10}, "checkpoint_every": 15},
    "device": DEVICE,
}
# Beyond 4 ranks the model grows with them (8 NP x 8 NP x 12 NP), so that every grid the test
# runs keeps each box as thick as the stencil's reach and each 6-point layer whole in its end
# box (30 x 26 x 44 holds 4 slabs along any axis, not 6 or 8).
if NP > 4:
    BASE["grid"]["shape"] = [8 * NP, 8 * NP, 12 * NP]
# Periodic x (split across ranks along x: the wrap goes rank to rank), rigid y, free z.
PERIODIC = json.loads(json.dumps(BASE))
PERIODIC["boundary"] = {"xmin": "periodic", "xmax": "periodic", "ymin": "rigid", "ymax": "rigid",
                        "zmin": "free", "zmax": "pml", "pml": {"width": 6}}
PERIODIC["scheme"]["precision"] = "f64"
# A box that starts among the columns the interior's x start is rounded past (the x layer is
# 6 points, the 32-byte sector 8 f32s): one process updates x 6 and 7 in the absorbing
# shell's kernels, the rank whose box starts there in the interior's, and the bits must be
# the same. With a rigid x end, the grid's x length puts the first cut (by modelled work, the
# layer whole in its box) at 6 or 7 for NP boxes along x: 26 -> 0,6,26; 46 -> 0,7,26,46;
# 65 -> 0,6,26,45,65.
COLUMNS_NX = {2: 26, 3: 46, 4: 65}.get(NP)
COLUMNS = json.loads(json.dumps(BASE))
if COLUMNS_NX:
    COLUMNS["grid"]["shape"] = [COLUMNS_NX, 20, 24]
    COLUMNS["boundary"] = {"xmax": "rigid", "pml": {"width": 6}}
    COLUMNS["sources"] = [{"position": [35.0, 45.0, 55.0], "frequency": 25.0}]
    COLUMNS["receivers"] = {"every": 2, "points": [[32.5, 40.0, 50.0]], "planes": [],
                            "lines": [{"start": [5.0, 45.0, 55.0], "end": [(COLUMNS_NX - 2) * 5.0, 45.0, 55.0],
                                       "count": 6}]}


def launch(np_, *args):
    launcher = [MPIEXEC, "-n", str(np_)] if MPIEXEC and np_ > 0 else []
    return subprocess.run([*launcher, STRATA, "wave", "--progress", "off", *args], capture_output=True, text=True,
                          timeout=300)


def outputs(d):
    """Every file a run writes that must not depend on the rank count."""
    names = ["seismogram.npy", "receivers.npy", "seismogram.png"]
    names += [os.path.join("snapshots", f) for f in sorted(os.listdir(os.path.join(d, "snapshots")))]
    return names


def where_they_differ(ref, got, files):
    """For a failure's message: where the differing .npy arrays differ (count, largest
    difference, and the box of differing points as x, y, z ranges for a snapshot), so that
    a log alone says which rank's box or which face is wrong."""
    try:
        import numpy as np
    except ImportError:
        return ""
    lines = []
    for f in files:
        if not f.endswith(".npy") or not os.path.exists(os.path.join(got, f)):
            continue
        a, b = np.load(os.path.join(ref, f)), np.load(os.path.join(got, f))
        if a.shape != b.shape:
            lines.append(f"{f}: shape {b.shape} against {a.shape}")
            continue
        d = a != b
        if not d.any():
            continue
        line = f"{f}: {int(d.sum())} of {d.size} values differ, largest by {float(np.abs(a - b).max()):.3e}"
        if a.ndim == 3:  # a snapshot, [z][y][x]
            idx = np.argwhere(d)
            lo, hi = idx.min(axis=0), idx.max(axis=0)
            line += f", in x {lo[2]}..{hi[2]}, y {lo[1]}..{hi[1]}, z {lo[0]}..{hi[0]}"
        lines.append(line)
    return "".join("\n    " + line for line in lines)


def same_outputs(label, ref, got):
    files = outputs(ref)
    check(f"{label}: every snapshot written", outputs(got) == files, f"{outputs(got)} vs {files}")
    differ = [f for f in files if not os.path.exists(os.path.join(got, f)) or
              not filecmp.cmp(os.path.join(ref, f), os.path.join(got, f), shallow=False)]
    check(f"{label}: {len(files)} files byte-identical to one process", not differ,
          f"differ: {differ}{where_they_differ(ref, got, differ)}")
    configs = []
    for d in (ref, got):
        with open(os.path.join(d, "config.json")) as f:
            c = json.load(f)
        del c["output"]["dir"]
        configs.append(c)
    check(f"{label}: config.json the same but for output.dir", configs[0] == configs[1])


def slab_grids(n):
    return list(dict.fromkeys([f"{n}x1x1", f"1x{n}x1", f"1x1x{n}"]))


def mixed_grids(n):
    """Grids split along two axes or three (their faces travel in one round, without edges or
    corners): at 4 ranks every one, at another even count above 2 the two with a pair along x or
    y, at 8 also 2x2x2."""
    if n == 4:
        return ["2x2x1", "1x2x2", "2x1x2"]
    grids = [f"1x2x{n // 2}", f"2x1x{n // 2}"] if n > 2 and n % 2 == 0 else []
    return grids + (["2x2x2"] if n == 8 else [])


with tempfile.TemporaryDirectory() as tmp:
    cases = [("base", BASE, [""] + slab_grids(NP) + mixed_grids(NP)),
             ("periodic", PERIODIC, ["", f"{NP}x1x1"] + mixed_grids(NP)[:1])]
    if COLUMNS_NX:
        cases.append(("columns", COLUMNS, [f"{NP}x1x1"]))
    for name, cfg_dict, grids in cases:
        cfg = os.path.join(tmp, name + ".json")
        with open(cfg, "w") as f:
            json.dump(cfg_dict, f)
        ref = os.path.join(tmp, name + "_ref")
        r = launch(0, "--config", cfg, "--out-dir", ref)
        check(f"{name}: one process exits 0", r.returncode == 0, r.stderr)
        for g in grids:
            label = f"{name}, {NP} ranks, grid {g or 'default'}"
            out = os.path.join(tmp, f"{name}_{g or 'auto'}")
            r = launch(NP, "--config", cfg, "--out-dir", out, *(["--grid", g] if g else []))
            check(f"{label}: exits 0", r.returncode == 0, r.stderr)
            if r.returncode != 0:
                continue
            same_outputs(label, ref, out)
            with open(os.path.join(out, "report.json")) as f:
                rep = json.load(f)
            if NP > 1:
                check(f"{label}: report names the ranks", rep.get("ranks") == NP and rep.get("process_grid"), str(rep))
                ck = [f"checkpoint.strata"] + [f"checkpoint.strata.rank{k}" for k in range(1, NP)]
                check(f"{label}: one checkpoint per rank", all(os.path.exists(os.path.join(out, c)) for c in ck),
                      str(os.listdir(out)))
                # How the halos travelled: on GPUs of one host (CTest's) CUDA IPC; on CPU ranks
                # nothing to say.
                want = "CUDA IPC" if DEVICE == "cuda" else None
                got = rep.get("gpu_exchange")
                check(f"{label}: report's gpu_exchange", (want in got) if want and got else got == want, str(got))
                # The fixed cost per phase: MPI's start, the GPU's context (on GPUs), the model,
                # the fields and the ranks' links, in that order.
                names = list(rep.get("phases_s", {}))
                want = ["mpi_start", "process_start"] + (["device_start"] if DEVICE == "cuda" else []) + \
                    ["model", "fields", "communicators"]
                check(f"{label}: report's phases from MPI's start to the links", names[:len(want)] == want, str(names))

    # STRATA_WAVE_TIMELINE=1 on GPUs: every rank's step timeline in the report.
    if DEVICE == "cuda" and NP > 1:
        out = os.path.join(tmp, "timeline")
        os.environ["STRATA_WAVE_TIMELINE"] = "1"
        r = launch(NP, "--config", os.path.join(tmp, "base.json"), "--out-dir", out)
        del os.environ["STRATA_WAVE_TIMELINE"]
        check("timeline run exits 0", r.returncode == 0, r.stderr)
        if r.returncode == 0:
            with open(os.path.join(out, "report.json")) as f:
                by_rank = json.load(f).get("step_timeline_ms_by_rank", [])
            check("timeline: one per rank, each with its step's end", len(by_rank) == NP and
                  all(t.get("step_done", 0) > 0 for t in by_rank), str(by_rank))

    # Every receiver in the top box (z slabs): the other ranks record nothing, yet make the
    # same exchanges (a GPU rank that skipped the last one left the others waiting forever).
    cfg = os.path.join(tmp, "base.json")
    top = ["--set", "receivers.lines=[]", "--set", "receivers.planes=[]",
           "--set", "receivers.points=[[12.5, 12.5, 2.5], [72.5, 60.0, 7.5]]"]
    ref = os.path.join(tmp, "top_ref")
    r = launch(0, "--config", cfg, "--out-dir", ref, *top)
    check("receivers in one box: one process exits 0", r.returncode == 0, r.stderr)
    out = os.path.join(tmp, "top")
    r = launch(NP, "--config", cfg, "--out-dir", out, "--grid", f"1x1x{NP}", *top)
    check(f"receivers in one box: {NP} ranks exit 0", r.returncode == 0, r.stderr)
    if r.returncode == 0:
        same_outputs(f"receivers in one box, {NP} ranks", ref, out)

    # A run stopped at step 15 and continued from its ranks' checkpoints ends as the whole run.
    cfg = os.path.join(tmp, "base.json")
    part = os.path.join(tmp, "restart")
    r = launch(NP, "--config", cfg, "--out-dir", part, "--steps", "15")
    check("first half exits 0", r.returncode == 0, r.stderr)
    if NP > 1:
        # Checkpoints of two steps (a job stopped between its ranks' renames): refused, once.
        import shutil
        mixed = os.path.join(tmp, "mixed")
        os.makedirs(mixed)
        shutil.copy(os.path.join(tmp, "base_auto", "checkpoint.strata"), mixed)  # step 30
        for k in range(1, NP):
            shutil.copy(os.path.join(part, f"checkpoint.strata.rank{k}"), mixed)  # step 15
        before = sorted(os.listdir(mixed))
        r = launch(NP, "--config", cfg, "--out-dir", mixed, "--restart")
        check("checkpoints of two steps refused", r.returncode != 0 and "of different steps" in r.stderr, r.stderr)
        check("  ... said once", r.stderr.count("of different steps") == 1, r.stderr)
        check("  ... nothing changed", sorted(os.listdir(mixed)) == before, str(os.listdir(mixed)))
    r = launch(NP, "--config", cfg, "--out-dir", part, "--restart")
    check("continued run exits 0", r.returncode == 0, r.stderr)
    for f in ["seismogram.npy", "snapshots/u_000030.npy", "snapshots/u_000020.vti"]:
        check(f"continued run: {f} byte-identical to the whole run",
              os.path.exists(os.path.join(part, f)) and
              filecmp.cmp(os.path.join(tmp, "base_ref", f), os.path.join(part, f), shallow=False))

    if NP > 1:
        # Another process grid cannot continue these checkpoints: one message, nothing changed.
        other = "1x1x1" if NP == 1 else (f"{NP}x1x1" if os.path.exists(part) else "")
        before = sorted(os.listdir(part))
        r = launch(NP, "--config", cfg, "--out-dir", part, "--restart", "--steps", "40", "--grid", other)
        check("restart on another process grid refused", r.returncode != 0, r.stderr)
        check("  ... said once", r.stderr.count("same ranks and process grid") == 1, r.stderr)
        check("  ... nothing changed", sorted(os.listdir(part)) == before, str(os.listdir(part)))

    if NP > 2:
        # z = 4 NP + 1 points over NP boxes at least 4 (the radius) thick: no split holds the
        # 6-point absorbing layer whole (it needs 6 + 4 (NP - 1) points).
        thin = json.loads(json.dumps(BASE))
        thin["grid"]["shape"] = [30, 26, 4 * NP + 1]
        thin["boundary"]["pml"]["width"] = 6
        cfg_thin = os.path.join(tmp, "thin.json")
        with open(cfg_thin, "w") as f:
            json.dump(thin, f)
        out = os.path.join(tmp, "thin")
        r = launch(NP, "--config", cfg_thin, "--out-dir", out, "--grid", f"1x1x{NP}", "--set",
                   "sources=[]", "--set", "receivers.planes=[]", "--set", "receivers.lines=[]",
                   "--set", "receivers.points=[[72.5, 65.0, 20.0]]")
        check("a grid cutting a layer is refused", r.returncode != 0 and "would be cut between ranks" in r.stderr,
              r.stderr)
        check("  ... said once", r.stderr.count("would be cut") == 1, r.stderr)
        check("  ... nothing written", not os.path.exists(out))

    # A .npy velocity model (each rank reads its own box; rank 0 checks every value): the same
    # bytes as one process, from a float64 file into an f32 run and a float32 file into f64.
    nx, ny, nz = BASE["grid"]["shape"]

    def write_model(path, dtype, bad_at=None):
        """(nz, ny, nx) velocities in m/s, 1500-2600 varying along every axis; NaN at bad_at (x, y, z)."""
        code, size = {"<f4": ("f", 4), "<f8": ("d", 8)}[dtype]
        head = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d, %d), }" % (dtype, nz, ny, nx)
        head += " " * (63 - (10 + len(head)) % 64) + "\n"
        vals = array.array(code, (1500.0 + 12.5 * z + 7.0 * ((3 * x + 5 * y) % 11) + 0.37 * x
                                  for z in range(nz) for y in range(ny) for x in range(nx)))
        if bad_at:
            vals[(bad_at[2] * ny + bad_at[1]) * nx + bad_at[0]] = float("nan")
        with open(path, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode() + vals.tobytes())

    for dtype, precision in (("<f8", "f32"), ("<f4", "f64")):
        model = os.path.join(tmp, f"model{dtype[-1]}.npy")
        write_model(model, dtype)
        npy_cfg = json.loads(json.dumps(BASE))
        npy_cfg["model"] = {"type": "npy", "file": model}
        npy_cfg["scheme"]["precision"] = precision
        cfg_npy = os.path.join(tmp, f"npy{dtype[-1]}.json")
        with open(cfg_npy, "w") as f:
            json.dump(npy_cfg, f)
        ref = os.path.join(tmp, f"npy{dtype[-1]}_ref")
        r = launch(0, "--config", cfg_npy, "--out-dir", ref)
        check(f".npy model {dtype} ({precision}): one process exits 0", r.returncode == 0, r.stderr)
        for g in ["", f"{NP}x1x1"]:
            out = os.path.join(tmp, f"npy{dtype[-1]}_{g or 'auto'}")
            r = launch(NP, "--config", cfg_npy, "--out-dir", out, *(["--grid", g] if g else []))
            check(f".npy model {dtype} ({precision}), {NP} ranks, grid {g or 'default'}: exits 0", r.returncode == 0,
                  r.stderr)
            if r.returncode == 0:
                same_outputs(f".npy model {dtype}, {NP} ranks, grid {g or 'default'}", ref, out)
                if NP > 1:
                    with open(os.path.join(ref, "report.json")) as f1, open(os.path.join(out, "report.json")) as f2:
                        a, b = json.load(f1), json.load(f2)
                    keys = ("dt", "v_min", "v_max", "digest")  # the digest: a checkpoint's physics
                    check("  ... the same dt, v_min, v_max and physics digest as one process",
                          all(a.get(k) == b.get(k) for k in keys), str({k: (a.get(k), b.get(k)) for k in keys}))
    # A NaN in the last rank's box: one process's message, said once, nothing written.
    bad_model = os.path.join(tmp, "bad_model.npy")
    write_model(bad_model, "<f4", bad_at=(nx - 2, ny // 2, nz - 3))
    one = launch(0, "--config", cfg_npy, "--out-dir", os.path.join(tmp, "bad_model_one"), "--set",
                 f"model.file={json.dumps(bad_model)}")
    out = os.path.join(tmp, "bad_model")
    r = launch(NP, "--config", cfg_npy, "--out-dir", out, "--set", f"model.file={json.dumps(bad_model)}")
    want = f"grid point (x, y, z) = ({nx - 2}, {ny // 2}, {nz - 3})"
    check("a NaN in the model refused as one process refuses it", r.returncode != 0 and want in r.stderr and
          want in one.stderr, r.stderr + one.stderr)
    check("  ... said once", r.stderr.count("velocity model: v = nan") == 1, r.stderr)
    check("  ... nothing written", not os.path.exists(out))
    # A model of another shape (every rank's own check) and one cut short (rank 0's scan): one
    # message each, nothing written.
    import shutil
    short_model = os.path.join(tmp, "short_model.npy")
    shutil.copy(os.path.join(tmp, "model4.npy"), short_model)
    with open(short_model, "r+b") as f:
        f.truncate(os.path.getsize(short_model) - 4 * nx * ny)
    for label, model, words in (("a model of another shape", "model4.npy", "has shape"),
                                ("a model cut short", short_model, "truncated")):
        out = os.path.join(tmp, "bad_model_" + words.replace(" ", "_"))
        sets = ["--set", f"model.file={json.dumps(os.path.join(tmp, model))}"]
        if words == "has shape":
            sets += ["--set", f"grid.shape=[{nx}, {ny}, {nz + 1}]"]
        r = launch(NP, "--config", cfg_npy, "--out-dir", out, *sets)
        check(f"{label} refused", r.returncode != 0 and words in r.stderr, r.stderr)
        check("  ... said once", r.stderr.count(words) == 1, r.stderr)
        check("  ... nothing written", not os.path.exists(out))

    # A bad configuration: one message from one rank, nothing written.
    out = os.path.join(tmp, "bad")
    r = launch(NP, "--config", cfg, "--out-dir", out, "--set", "sources.0.position=[70, 62, 900]")
    check("bad source refused", r.returncode != 0, r.stderr)
    check("  ... said once", r.stderr.count("is outside the grid") == 1, r.stderr)
    check("  ... nothing written", not os.path.exists(out))

    # A process grid of more boxes than ranks (on one rank too): one message that says how
    # to launch it, nothing written.
    out = os.path.join(tmp, "too_many_boxes")
    r = launch(NP, "--config", cfg, "--out-dir", out, "--grid", f"1x1x{NP + 1}")
    check("a grid of more boxes than ranks refused", r.returncode != 0 and f"mpirun -np {NP + 1}" in r.stderr, r.stderr)
    check("  ... said once", r.stderr.count(f"mpirun -np {NP + 1}") == 1, r.stderr)
    check("  ... nothing written", not os.path.exists(out))

finish()
