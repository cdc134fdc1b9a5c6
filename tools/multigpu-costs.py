#!/usr/bin/env python3
"""What a user waits for on a host of several GPUs, at every rank count from 1 to all of its
GPUs, in one call: the whole-process wall time and the phases each verb reports.

  start    a one-process command (a small Poisson solve) with the host's GPUs as strata
           leaves them (only the one it uses), with every GPU visible to the CUDA runtime
           (STRATA_VISIBLE_GPUS=all: what strata did before), and with CUDA_VISIBLE_DEVICES=0;
           `strata info`, which looks at every GPU; `mpirun -np 1 true` with and without
           hwloc's GPU plugins
  poisson  MG-CG, mixed precision, f64, rtol 1e-10 at 255^3, 511^3 and 1023^3 (where it fits)
           on 1, 2, 4, ... ranks: solve time, each iteration's time, and the phases from the
           process start to the first iteration (device start, communicators, allocation)
  wave     examples/wave/gpu512.json for 600 steps as a user runs it (its outputs on) on 1, 2,
           4, ... ranks, the fixed cost beside the stepping, and again with every GPU visible
  nccl_env NCCL's connection cost under its settings (cuMem, channels, connect at init, no P2P)
  nccl     which transport NCCL picked between two ranks that each see only their own GPU
  gather   (only when --parts names it) Poisson MG-CG at every size and rank count with the
           distributed hierarchy's gather threshold swept (--gather-below, --thresholds), the
           one-GPU solve of the same call beside it, and each cycle's level split
           (STRATA_POISSON_LEVELS=1) at the default threshold
  grids    (only when --parts names it) the gpu512 wave's stepping, outputs off, under every
           process grid of the host's rank count, with the step's timeline
           (STRATA_WAVE_TIMELINE=1), against one GPU

Usage: tools/multigpu-costs.py STRATA [--json OUT.json] [--skip start,poisson,wave,nccl_env,nccl]
       [--parts gather,grids] [--thresholds 32768,262144,...] [--repeat N] [--sizes 255,511,1023]
Prints one table per part; the JSON holds every run's report.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("strata")
ap.add_argument("--json", default="")
ap.add_argument("--skip", default="")
ap.add_argument("--repeat", type=int, default=2)
ap.add_argument("--sizes", default="255,511,1023")
ap.add_argument("--steps", type=int, default=600)
ap.add_argument("--parts", default="", help="the parts run only when asked: gather, grids")
ap.add_argument("--thresholds", default="32768,262144,1000000,4500000")
a = ap.parse_args()
skip = set(a.skip.split(",")) if a.skip else set()
parts = set(a.parts.split(",")) if a.parts else set()
for p in parts - {"gather", "grids"}:
    sys.exit(f"--parts: unknown part '{p}' (gather, grids)")
strata = os.path.abspath(a.strata)

gpus = len(subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.splitlines())
ranks_list = [r for r in (1, 2, 4, 8, 16) if r <= gpus]
if gpus not in ranks_list:
    ranks_list.append(gpus)
env_base = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", NCCL_NVLS_ENABLE="0")
env_base.pop("CUDA_VISIBLE_DEVICES", None)
env_base.pop("STRATA_VISIBLE_GPUS", None)
result = {"gpus": gpus,
          "gpu": subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                                capture_output=True, text=True).stdout.splitlines()[0],
          "strata": subprocess.run([strata, "--version"], capture_output=True, text=True).stdout.strip()}


def timed(cmd, env=None, timeout=580):
    """(wall seconds, CompletedProcess)"""
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env or env_base, timeout=timeout)
    return time.perf_counter() - t0, r


def launch(ranks):
    return ["mpirun", "-np", str(ranks)] if ranks > 1 else []


def median_of(runs, key):
    return statistics.median(r[key] for r in runs)


tmp = tempfile.mkdtemp(prefix="strata-costs-", dir=os.environ.get("TMPDIR", "/tmp"))

if "start" not in skip:
    small = [strata, "poisson", "--n", "31", "--solver", "mg", "--precision", "f32", "--rtol", "1e-3", "--quiet",
             "--device", "cuda", "--json"]
    modes = {"strata (its own GPU)": {}, "every GPU visible": {"STRATA_VISIBLE_GPUS": "all"},
             "CUDA_VISIBLE_DEVICES=0": {"CUDA_VISIBLE_DEVICES": "0"}}
    rows = {}
    for name, extra in modes.items():
        runs = []
        for i in range(a.repeat + 1):
            rep = os.path.join(tmp, "start.json")
            wall, r = timed(small + [rep], dict(env_base, **extra))
            if r.returncode != 0:
                sys.exit(f"failed: {r.stderr}")
            ms = json.load(open(rep))["timing_ms"]
            runs.append({"wall_s": wall, "process_start_ms": ms.get("process_start", 0),
                         "device_start_ms": ms.get("device_start", 0)})
        rows[name] = {"wall_s": median_of(runs[1:], "wall_s"), "runs": runs}
    info = [timed([strata, "info"])[0] for _ in range(a.repeat + 1)]
    rows["strata info (every GPU)"] = {"wall_s": statistics.median(info[1:]), "runs": info}
    # mpirun's own start: hwloc's GPU plugins start the driver inside it (docs/multigpu.md).
    for name, extra in (("mpirun -np 1 true", {}),
                        ("  without hwloc's GPU plugins", {"HWLOC_COMPONENTS": "-cuda,-nvml,-opencl,-rsmi,-levelzero,-gl"})):
        walls = [timed(["mpirun", "-np", "1", "true"], dict(env_base, **extra))[0] for _ in range(a.repeat + 1)]
        rows[name] = {"wall_s": statistics.median(walls[1:]), "runs": walls}
    result["start"] = rows
    print(f"\none-process start on {gpus} GPUs (poisson 31^3, median wall of {a.repeat} after a first run):")
    for name, row in rows.items():
        print(f"  {name:28s} {row['wall_s']:.3f} s")

if "poisson" not in skip:
    result["poisson"] = []
    print(f"\nPoisson MG-CG mixed f64 rtol 1e-10 (median of {a.repeat}; ms)")
    print(f"  {'size':>5} {'ranks':>5} {'solve':>8} {'iters':>5} {'first it':>8} {'later it':>8} "
          f"{'proc start':>10} {'dev start':>9} {'comms':>7} {'alloc':>7} {'setup':>7} {'wall s':>7}")
    for n in [int(s) for s in a.sizes.split(",")]:
        one = None
        for ranks in ranks_list:
            runs = []
            for i in range(a.repeat):
                rep = os.path.join(tmp, f"p{n}_{ranks}.json")
                cmd = launch(ranks) + [strata, "poisson", "--n", str(n), "--solver", "mgcg", "--mixed", "--precision",
                                       "f64", "--rtol", "1e-10", "--quiet", "--device", "cuda", "--json", rep]
                wall, r = timed(cmd)
                if r.returncode != 0:
                    runs = None
                    print(f"  {n:5d} {ranks:5d} failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
                    break
                j = json.load(open(rep))
                it = j.get("iteration_ms", [])
                runs.append({"wall_s": wall, "solve_ms": j["solve_ms"], "iterations": j["iterations"],
                             "first_iteration_ms": it[0] if it else 0,
                             "later_iteration_ms": statistics.median(it[1:]) if len(it) > 1 else 0,
                             "iteration_ms": it, "timing_ms": j["timing_ms"]})
            if not runs:
                result["poisson"].append({"n": n, "ranks": ranks, "failed": True})
                continue
            row = {"n": n, "ranks": ranks, "runs": runs}
            for k in ("wall_s", "solve_ms", "first_iteration_ms", "later_iteration_ms"):
                row[k] = median_of(runs, k)
            row["phases_ms"] = {p: statistics.median(r["timing_ms"].get(p, 0) for r in runs)
                                for p in runs[0]["timing_ms"]}
            if ranks == 1:
                one = row
            elif one:
                row["speedup"] = one["solve_ms"] / row["solve_ms"]
            result["poisson"].append(row)
            ph = row["phases_ms"]
            print(f"  {n:5d} {ranks:5d} {row['solve_ms']:8.1f} {runs[0]['iterations']:5d} "
                  f"{row['first_iteration_ms']:8.2f} {row['later_iteration_ms']:8.2f} {ph.get('process_start', 0):10.0f} "
                  f"{ph.get('device_start', 0):9.0f} {ph.get('communicators', 0):7.0f} {ph.get('allocation', 0):7.0f} "
                  f"{ph.get('setup', 0):7.0f} {row['wall_s']:7.2f}" +
                  (f"  {row['speedup']:.2f}x" if "speedup" in row else ""))

if "wave" not in skip:
    result["wave"] = []
    cfg = os.path.join(ROOT, "examples", "wave", "gpu512.json")
    print(f"\nwave gpu512.json, {a.steps} steps, outputs as configured (median of {a.repeat})")
    print(f"  {'ranks':>5} {'visible':>8} {'wall s':>7} {'stepping s':>10} {'Gpts/s':>8} {'fixed s':>7}  phases (s)")
    for ranks in ranks_list:
        for mode, extra in (("own", {}), ("all", {"STRATA_VISIBLE_GPUS": "all"})):
            runs = []
            for i in range(a.repeat):
                out = os.path.join(tmp, f"w{ranks}{mode}{i}")
                cmd = launch(ranks) + [strata, "wave", "--config", cfg, "--set", f"time.steps={a.steps}", "--out-dir",
                                       out, "--progress", "off"]
                wall, r = timed(cmd, dict(env_base, **extra))
                if r.returncode != 0:
                    sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr}")
                j = json.load(open(os.path.join(out, "report.json")))
                runs.append({"wall_s": wall, "stepping_s": j["phases_s"].get("stepping", 0),
                             "gpts_per_s": j["gpts_per_s"], "phases_s": j["phases_s"],
                             "process_grid": j.get("process_grid", ""),
                             "step_timeline_ms": j.get("step_timeline_ms")})  # STRATA_WAVE_TIMELINE=1
            row = {"ranks": ranks, "visible": mode, "runs": runs,
                   "wall_s": median_of(runs, "wall_s"), "stepping_s": median_of(runs, "stepping_s"),
                   "gpts_per_s": median_of(runs, "gpts_per_s"), "process_grid": runs[0]["process_grid"]}
            row["fixed_s"] = row["wall_s"] - row["stepping_s"]
            result["wave"].append(row)
            ph = " ".join(f"{k} {v:.2f}" for k, v in runs[0]["phases_s"].items() if v >= 0.01)
            print(f"  {ranks:5d} {mode:>8} {row['wall_s']:7.2f} {row['stepping_s']:10.3f} {row['gpts_per_s']:8.1f} "
                  f"{row['fixed_s']:7.2f}  {ph}")
            if runs[0]["step_timeline_ms"]:
                print("        step timeline, ms: " + " ".join(f"{k} {v:.3f}" for k, v in runs[0]["step_timeline_ms"].items()))

if "nccl_env" not in skip and gpus >= 2:
    # What NCCL's connections cost under its own settings: the communicators phase, the setup
    # and the first iteration of a 255^3 solve at 2 and all ranks, and a 600-step wave.
    settings = {"default": {}, "NCCL_CUMEM_ENABLE=0": {"NCCL_CUMEM_ENABLE": "0"},
                "NCCL_MAX_NCHANNELS=2": {"NCCL_MAX_NCHANNELS": "2"},
                "NCCL_MAX_NCHANNELS=4": {"NCCL_MAX_NCHANNELS": "4"},
                "NCCL_MAX_NCHANNELS=8": {"NCCL_MAX_NCHANNELS": "8"},
                "NCCL_RUNTIME_CONNECT=0": {"NCCL_RUNTIME_CONNECT": "0"},
                "NCCL_P2P_DISABLE=1": {"NCCL_P2P_DISABLE": "1"}}
    result["nccl_env"] = []
    print("\nNCCL settings: poisson 255^3 MG-CG (ms) and wave gpu512 600 steps (s)")
    print(f"  {'setting':24s} {'ranks':>5} {'comms':>7} {'setup':>7} {'first it':>8} {'solve':>7} {'wall s':>7}"
          f"   wave: {'comms':>6} {'stepping':>8} {'wall':>6}")
    cfg = os.path.join(ROOT, "examples", "wave", "gpu512.json")
    wave_args = ["wave", "--config", cfg, "--set", f"time.steps={a.steps}", "--set", "output.checkpoint_every=0",
                 "--progress", "off"]
    out = os.path.join(tmp, "envwave1")
    wwall, w = timed([strata] + wave_args + ["--out-dir", out])
    if w.returncode == 0:
        wj = json.load(open(os.path.join(out, "report.json")))
        result["nccl_env_one_gpu_wave"] = {"wall_s": wwall, "phases_s": wj["phases_s"]}
        print(f"  one GPU, the same wave: stepping {wj['phases_s'].get('stepping', 0):.3f} s, wall {wwall:.2f} s")
    for name, extra in settings.items():
        env = dict(env_base, **extra)
        for ranks in sorted({2, gpus}):
            rep = os.path.join(tmp, "env.json")
            wall, r = timed(launch(ranks) + [strata, "poisson", "--n", "255", "--solver", "mgcg", "--mixed", "--precision",
                                             "f64", "--rtol", "1e-10", "--quiet", "--device", "cuda", "--json", rep], env)
            row = {"setting": name, "ranks": ranks, "returncode": r.returncode}
            if r.returncode == 0:
                j = json.load(open(rep))
                row.update({"wall_s": wall, "timing_ms": j["timing_ms"], "iteration_ms": j.get("iteration_ms", []),
                            "solve_ms": j["solve_ms"]})
            wline = ""
            if ranks == gpus:
                out = os.path.join(tmp, "envwave_%d_%d" % (len(result["nccl_env"]), ranks))
                wwall, w = timed(launch(ranks) + [strata] + wave_args + ["--out-dir", out], env)
                if w.returncode == 0:
                    wj = json.load(open(os.path.join(out, "report.json")))
                    row["wave"] = {"wall_s": wwall, "phases_s": wj["phases_s"]}
                    wline = (f"   wave: {wj['phases_s'].get('communicators', 0):6.2f} "
                             f"{wj['phases_s'].get('stepping', 0):8.3f} {wwall:6.2f}")
                else:
                    wline = f"   wave failed ({w.returncode})"
            result["nccl_env"].append(row)
            if r.returncode != 0:
                print(f"  {name:24s} {ranks:5d} failed ({r.returncode}): {r.stderr.strip()[-200:]}")
                continue
            t = row["timing_ms"]
            it = row["iteration_ms"]
            print(f"  {name:24s} {ranks:5d} {t.get('communicators', 0):7.0f} {t.get('setup', 0):7.0f} "
                  f"{(it[0] if it else 0):8.2f} {row['solve_ms']:7.1f} {wall:7.2f}{wline}")

if "nccl" not in skip and gpus >= 2:
    cmd = launch(2) + [strata, "poisson", "--n", "63", "--solver", "mgcg", "--precision", "f64", "--rtol", "1e-8",
                       "--quiet", "--device", "cuda"]
    _, r = timed(cmd, dict(env_base, NCCL_DEBUG="INFO", NCCL_DEBUG_SUBSYS="INIT,P2P"))
    lines = [l for l in (r.stdout + r.stderr).splitlines() if re.search(r"via (P2P|SHM|NET)", l)]
    kinds = sorted(set(re.sub(r".*via ", "via ", l) for l in lines))
    result["nccl"] = {"returncode": r.returncode, "transports": kinds, "lines": lines[:20]}
    print("\nNCCL between 2 ranks, each seeing only its own GPU:", ", ".join(kinds) or "(no transport lines)",
          "" if r.returncode == 0 else f"(exit {r.returncode})")

# The sweeps below time the solve and the steps, not the launcher: mpirun without hwloc's GPU
# plugins (docs/multigpu.md), which only shortens its own start.
env_sweep = dict(env_base, HWLOC_COMPONENTS="-cuda,-nvml,-opencl,-rsmi,-levelzero,-gl")


def poisson_run(n, ranks, extra_args=(), extra_env=None):
    rep = os.path.join(tmp, f"g{n}_{ranks}.json")
    cmd = launch(ranks) + [strata, "poisson", "--n", str(n), "--solver", "mgcg", "--mixed", "--precision", "f64",
                           "--rtol", "1e-10", "--quiet", "--device", "cuda", "--json", rep] + list(extra_args)
    wall, r = timed(cmd, dict(env_sweep, **(extra_env or {})))
    if r.returncode != 0:
        return {"failed": (r.stderr.strip().splitlines() or [str(r.returncode)])[-1]}
    j = json.load(open(rep))
    it = j.get("iteration_ms", [])
    return {"wall_s": wall, "solve_ms": j["solve_ms"], "iterations": j["iterations"],
            "later_iteration_ms": statistics.median(it[1:]) if len(it) > 1 else 0,
            "first_iteration_ms": it[0] if it else 0, "level_ms": j.get("level_ms")}


if "gather" in parts:
    result["gather"] = []
    thresholds = [int(t) for t in a.thresholds.split(",")]
    print(f"\nPoisson MG-CG mixed f64 rtol 1e-10, --gather-below swept (median of {a.repeat}; solve ms, later "
          f"iteration ms, speedup over one GPU of this call)")
    for n in [int(s) for s in a.sizes.split(",")]:
        ones = [poisson_run(n, 1) for _ in range(a.repeat)]
        ones = [r for r in ones if "failed" not in r]
        if not ones:
            print(f"  {n:5d} one GPU failed")
            continue
        one = statistics.median(r["solve_ms"] for r in ones)
        print(f"  {n:5d} 1 GPU: {one:.1f} ms (later {statistics.median(r['later_iteration_ms'] for r in ones):.2f})")
        result["gather"].append({"n": n, "ranks": 1, "solve_ms": one, "runs": ones})
        for ranks in [r for r in ranks_list if r > 1]:
            line = []
            for t in thresholds:
                runs = [poisson_run(n, ranks, ["--gather-below", str(t)]) for _ in range(a.repeat)]
                ok = [r for r in runs if "failed" not in r]
                row = {"n": n, "ranks": ranks, "gather_below": t, "runs": runs}
                if ok:
                    row["solve_ms"] = statistics.median(r["solve_ms"] for r in ok)
                    row["later_iteration_ms"] = statistics.median(r["later_iteration_ms"] for r in ok)
                    row["speedup"] = one / row["solve_ms"]
                    line.append(f"{t}: {row['solve_ms']:.1f} ({row['later_iteration_ms']:.2f}) {row['speedup']:.2f}x")
                else:
                    line.append(f"{t}: failed ({runs[0]['failed']})")
                result["gather"].append(row)
            print(f"  {n:5d} {ranks} ranks: " + "; ".join(line), flush=True)
            lv = poisson_run(n, ranks, [], {"STRATA_POISSON_LEVELS": "1"})
            result["gather"].append({"n": n, "ranks": ranks, "levels": True, "run": lv})
            if lv.get("level_ms"):
                print("        levels (default threshold), ms: " +
                      " ".join(f"{x['part']} {x['ms']:.3f}" for x in lv["level_ms"]))

if "grids" in parts and gpus >= 2:
    result["grids"] = []
    cfg = os.path.join(ROOT, "examples", "wave", "gpu512.json")
    wave_args = ["wave", "--config", cfg, "--set", f"time.steps={a.steps}", "--set", "output.checkpoint_every=0",
                 "--set", "output.snapshots.every=0", "--progress", "off"]
    G = ranks_list[-1]
    grids = ["1x1x1"] + [f"{px}x{py}x{G // (px * py)}" for px in range(1, G + 1) for py in range(1, G + 1)
                         if G % (px * py) == 0]
    print(f"\nwave gpu512.json, {a.steps} steps, outputs off, every process grid of {G} ranks (median of "
          f"{a.repeat}; stepping s, speedup over one GPU; rank 0's step timeline, ms)")
    one = None
    for grid in grids:
        ranks = 1 if grid == "1x1x1" else G
        runs = []
        for i in range(a.repeat):
            out = os.path.join(tmp, f"grid{grid}_{i}")
            cmd = launch(ranks) + [strata] + wave_args + ["--out-dir", out] + (["--grid", grid] if ranks > 1 else [])
            wall, r = timed(cmd, dict(env_sweep, STRATA_WAVE_TIMELINE="1"))
            if r.returncode != 0:
                runs = None
                print(f"  {grid:>7} failed: {(r.stderr.strip().splitlines() or [str(r.returncode)])[-1]}")
                break
            j = json.load(open(os.path.join(out, "report.json")))
            runs.append({"wall_s": wall, "stepping_s": j["phases_s"].get("stepping", 0),
                         "step_timeline_ms": j.get("step_timeline_ms")})
        if not runs:
            result["grids"].append({"grid": grid, "failed": True})
            continue
        row = {"grid": grid, "ranks": ranks, "runs": runs, "stepping_s": median_of(runs, "stepping_s")}
        if ranks == 1:
            one = row["stepping_s"]
        elif one:
            row["speedup"] = one / row["stepping_s"]
        result["grids"].append(row)
        tl = runs[0]["step_timeline_ms"] or {}
        print(f"  {grid:>7} {row['stepping_s']:.4f}" + (f" {row['speedup']:.2f}x" if "speedup" in row else "") +
              "  " + " ".join(f"{k} {v:.3f}" for k, v in tl.items()), flush=True)

if a.json:
    with open(a.json, "w") as f:
        json.dump(result, f, indent=1)
