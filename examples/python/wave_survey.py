"""A wave survey: a Ricker source under a free surface over a two-layer model, a line of
receivers; the run directory written as `strata wave` does, then pictures of it (the model
with the source and receivers, slices with one shared clip, the seismogram against the
offset from the source as density and wiggles with AGC), and an in-memory
run returning the seismogram and the final wavefield.
    python examples/python/wave_survey.py [--small] [--out DIR]"""
import argparse
import os

import numpy as np

import strata
import strata.plot

p = argparse.ArgumentParser()
p.add_argument("--small", action="store_true")
p.add_argument("--out", default="wave-survey")
args = p.parse_args()
n, steps = (48, 240) if args.small else (160, 900)
h = 10.0
L = n * h
config = {
    "grid": {"shape": [n, n, n], "spacing": h},
    "model": {"type": "layered", "layers": [{"top": 0, "velocity": 1500},
                                            {"top": 0.55 * L, "velocity": 2500}]},
    "time": {"steps": steps},
    "sources": [{"position": [L / 2, L / 2, 4 * h], "frequency": 15 if args.small else 12}],
    "receivers": {"lines": [{"start": [h, L / 2, 2 * h], "end": [L - h, L / 2, 2 * h],
                             "count": n - 2}]},
    "boundary": {"pml": {"width": 10 if args.small else 20}},
    "output": {"snapshots": {"every": steps // 4, "vti": False, "png": False},
               "seismogram_png": False},
}
run_dir = os.path.join(args.out, "run")
r = strata.wave.run(config, out_dir=run_dir, overwrite=True)  # progress on stderr in a terminal
print(f"run directory {run_dir}: {r.seismogram.shape[1]} receivers x {r.seismogram.shape[0]} samples, "
      f"dt {r.dt:.3g} s, {r.report['gpts_per_s']:.3f} Gpoints/s")
for path in strata.plot.render_run(run_dir, os.path.join(args.out, "plots"), gain=0.1):
    print("wrote", path)

m = strata.wave.run(config, wavefield=True)
same = np.array_equal(m.seismogram, r.seismogram)
print(f"in memory: seismogram {m.seismogram.shape}, identical to the run directory's: {same}; "
      f"final |u| max {strata.max_abs(m.wavefield):.3g}")
assert same
