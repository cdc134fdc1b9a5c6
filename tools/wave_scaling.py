#!/usr/bin/env python3
"""The distributed wave solver on the GPUs of one host, as a user runs it (`strata wave`,
one rank per GPU under mpirun), against one GPU:
  strong  examples/wave/gpu512.json (512^3, CPML on five faces, free surface), outputs off
  strong1024  the same model at 1024^3 (5 m spacing)
  weak    the same physics at 512^3 per GPU: 512x512x512 on one GPU, 512x512x(512 G) on G
  big     a grid too large for one GPU (default 2400^3 f32, constant velocity, CPML on every
          face): a few hundred steps, the first arrivals of a receiver line against the
          times r / v + the wavelet's delay of a constant-velocity model
The rates are the runs' own report.json (stepping time, the whole grid's points); each
figure is the median of --repeat runs. The seismograms of one GPU and of G GPUs are compared
byte for byte. Writes JSON (bench/results/<gpu>-x<G>-wave.json by default).
Usage: wave_scaling.py STRATA [--gpus G] [--steps N] [--big N] [--big-steps N] [--repeat R]
       [--json PATH] [--skip strong,strong1024,weak,big]"""
import argparse
import filecmp
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("strata")
ap.add_argument("--gpus", type=int, default=2)
ap.add_argument("--steps", type=int, default=600)
ap.add_argument("--big", type=int, default=2400)
ap.add_argument("--big-steps", type=int, default=300)
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--json", default="")
ap.add_argument("--skip", default="")
a = ap.parse_args()
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "wave", "gpu512.json")
QUIET = ["--progress", "off", "--set", "output.snapshots.every=0", "--set", "output.checkpoint_every=0"]


def wave(ranks, out, *args):
    launcher = ["mpirun", "-np", str(ranks)] if ranks > 1 else []
    cmd = [*launcher, a.strata, "wave", "--out-dir", out, *QUIET, *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=580)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    with open(os.path.join(out, "report.json")) as f:
        return json.load(f)


def median_runs(tmp, tag, ranks, *args):
    reps = []
    for i in range(a.repeat):
        out = os.path.join(tmp, f"{tag}_{i}")
        reps.append(wave(ranks, out, *args))
    rates = [r["gpts_per_s"] for r in reps]
    return {"gpts_per_s": statistics.median(rates), "runs_gpts_per_s": rates, "wall_s": statistics.median(r["wall_s"] for r in reps),
            "compute_s": statistics.median(r["compute_s"] for r in reps), "process_grid": reps[0].get("process_grid", ""),
            "ratio_to_copy": reps[0].get("ratio_to_copy"), "out": os.path.join(tmp, f"{tag}_0")}


def same_seismogram(d1, d2):
    return filecmp.cmp(os.path.join(d1, "seismogram.npy"), os.path.join(d2, "seismogram.npy"), shallow=False)


G = a.gpus
result = {"gpus": G, "gpu": subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                                           capture_output=True, text=True).stdout.splitlines()[0],
          "strata": subprocess.run([a.strata, "--version"], capture_output=True, text=True).stdout.strip()}
skip = set(a.skip.split(",")) if a.skip else set()
with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR", "/tmp")) as tmp:
    steps = ["--config", EXAMPLE, "--steps", str(a.steps)]
    if "strong" not in skip:
        one = median_runs(tmp, "strong1", 1, *steps)
        many = median_runs(tmp, "strongG", G, *steps)
        result["strong"] = {"case": "examples/wave/gpu512.json, outputs off", "steps": a.steps, "one_gpu": one,
                            "gpus": many, "speedup": many["gpts_per_s"] / one["gpts_per_s"], "target": 1.85,
                            "seismogram_identical": same_seismogram(one["out"], many["out"])}
        print(f"strong 512^3: 1 GPU {one['gpts_per_s']:.1f} Gpts/s, {G} GPUs {many['gpts_per_s']:.1f} Gpts/s "
              f"(grid {many['process_grid']}): {result['strong']['speedup']:.3f}x; seismograms identical: "
              f"{result['strong']['seismogram_identical']}", flush=True)
    if "strong1024" not in skip:
        big_steps = ["--config", EXAMPLE, "--steps", str(a.steps), "--set", "grid.shape=[1024,1024,1024]",
                     "--set", "grid.spacing=5.0"]
        one = median_runs(tmp, "strong1024_1", 1, *big_steps)
        many = median_runs(tmp, "strong1024_G", G, *big_steps)
        result["strong1024"] = {"case": "examples/wave/gpu512.json's model at 1024^3 (5 m spacing), outputs off",
                                "steps": a.steps, "one_gpu": one, "gpus": many,
                                "speedup": many["gpts_per_s"] / one["gpts_per_s"], "target": 3.85 if G == 4 else None,
                                "seismogram_identical": same_seismogram(one["out"], many["out"])}
        print(f"strong 1024^3: 1 GPU {one['gpts_per_s']:.1f} Gpts/s, {G} GPUs {many['gpts_per_s']:.1f} Gpts/s "
              f"(grid {many['process_grid']}): {result['strong1024']['speedup']:.3f}x; seismograms identical: "
              f"{result['strong1024']['seismogram_identical']}", flush=True)
    if "weak" not in skip:
        one = result["strong"]["one_gpu"] if "strong" in result else median_runs(tmp, "weak1", 1, *steps)
        many = median_runs(tmp, "weakG", G, *steps, "--set", f"grid.shape=[512,512,{512 * G}]")
        result["weak"] = {"case": f"gpu512.json physics, 512^3 per GPU (512x512x{512 * G} on {G})", "steps": a.steps,
                          "one_gpu": one, "gpus": many,
                          "per_gpu_ratio": many["gpts_per_s"] / G / one["gpts_per_s"], "target": 0.97}
        print(f"weak 512^3/GPU: 1 GPU {one['gpts_per_s']:.1f} Gpts/s, {G} GPUs {many['gpts_per_s']:.1f} Gpts/s: "
              f"{result['weak']['per_gpu_ratio']:.3f} of the one-GPU rate per GPU", flush=True)
    if "big" not in skip:
        n, h, v, f0 = a.big, 10.0, 2000.0, 10.0
        c = n * h / 2
        offsets = [100.0 * k for k in range(1, 11)]
        cfg = {"grid": {"shape": [n, n, n], "spacing": h}, "model": {"type": "constant", "velocity": v},
               "time": {"steps": a.big_steps}, "scheme": {"order": 8, "precision": "f32"},
               "sources": [{"position": [c, c, c], "frequency": f0}],
               "receivers": {"every": 1, "points": [[c + d, c, c] for d in offsets]},
               "boundary": {"zmin": "pml", "pml": {"width": 20}},
               "output": {"snapshots": {"every": 0}, "checkpoint_every": 0}, "device": "cuda"}
        path = os.path.join(tmp, "big.json")
        with open(path, "w") as fh:
            json.dump(cfg, fh)
        out = os.path.join(tmp, "big")
        rep = wave(G, out, "--config", path)
        tr = np.load(os.path.join(out, "seismogram.npy")).astype(np.float64)
        dt, delay = rep["dt"], 1.5 / f0
        t = np.arange(tr.shape[0]) * dt
        arrivals = []
        for k, d in enumerate(offsets):
            want = delay + d / v  # the Ricker peak travels at v; in 3D u ~ s(t - r/v) / r
            if want + 0.5 / f0 > t[-1]:  # the peak (and the wavelet's half-width) after the last step
                arrivals.append({"offset_m": d, "expected_s": want, "picked_s": None, "note": "arrives after the run"})
                continue
            i = int(np.argmax(np.abs(tr[:, k])))
            # the peak to a fraction of a step: a parabola through the three samples around it
            if 0 < i < len(t) - 1:
                y0, y1, y2 = np.abs(tr[i - 1:i + 2, k])
                den = y0 - 2 * y1 + y2
                frac = 0.5 * (y0 - y2) / den if den != 0 else 0.0
            else:
                frac = 0.0
            got = (i + frac) * dt
            arrivals.append({"offset_m": d, "expected_s": want, "picked_s": got, "error_s": got - want,
                             "error_steps": (got - want) / dt, "peak": float(np.abs(tr[i, k]))})
        state_gb = 3 * n ** 3 * 4 / 1e9
        result["big"] = {"shape": [n, n, n], "steps": a.big_steps, "state_gb_u_uprev_c2": state_gb,
                         "process_grid": rep.get("process_grid"), "wall_s": rep["wall_s"], "compute_s": rep["compute_s"],
                         "gpts_per_s": rep["gpts_per_s"], "phases_s": rep["phases_s"], "dt": dt,
                         "arrivals": arrivals,
                         "max_abs_error_steps": max(abs(x["error_steps"]) for x in arrivals if x["picked_s"] is not None)}
        print(f"big {n}^3 f32 ({state_gb:.0f} GB of u, u_prev, c2) on {G} GPUs, grid {rep.get('process_grid')}: "
              f"{a.big_steps} steps in {rep['compute_s']:.2f} s ({rep['gpts_per_s']:.1f} Gpts/s), wall {rep['wall_s']:.1f} s",
              flush=True)
        for x in arrivals:
            if x["picked_s"] is None:
                print(f"  offset {x['offset_m']:6.0f} m: r/v + delay {x['expected_s']:.5f} s, after the last step")
                continue
            print(f"  offset {x['offset_m']:6.0f} m: peak at {x['picked_s']:.5f} s, r/v + delay {x['expected_s']:.5f} s "
                  f"({x['error_steps']:+.2f} steps)")

gpu = "".join(ch for ch in result["gpu"].lower().replace(" ", "-") if ch.isalnum() or ch == "-")
path = a.json or os.path.join(ROOT, "bench", "results", f"{gpu}-x{G}-wave.json")
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "w") as fh:
    json.dump(result, fh, indent=2)
print("wrote", path)
