"""A stencil on CuPy: strata.apply on a CuPy array (copied into a padded device Field, the
result handed back as a CuPy array) and on a device Field seen through cupy.asarray with no
copy. Without a GPU (or CuPy) it runs the same on NumPy.
    python examples/python/stencil_cupy.py [--small] [--out DIR]"""
import argparse
import time

import numpy as np

import strata

p = argparse.ArgumentParser()
p.add_argument("--small", action="store_true", help="a CI-sized grid")
p.add_argument("--out", help="unused (every example takes it)")
args = p.parse_args()
n = 32 if args.small else 256

try:
    import cupy as xp
    device = "cuda" if strata.cuda_available() else None
except ImportError:
    device = None
if device is None:
    xp, device = np, "cpu"
print(f"arrays: {xp.__name__}, strata device: {device}")

rng = np.random.default_rng(0)
a = xp.asarray(rng.standard_normal((n, n, n)).astype(np.float32))
lap = strata.apply("star4", a, bc="periodic")        # same kind of array as a
assert type(lap) is type(a), type(lap)

# The zero-copy way: a Field on the device, written and read through an array view.
f = strata.Field((n, n, n), dtype="float32", device=device)
view = xp.asarray(f.interior)                         # shares f's memory
view[...] = a
out = strata.Field((n, n, n), dtype="float32", device=device)
t0 = time.perf_counter()
strata.apply("star4", f, bc="periodic", out=out)
strata.synchronize()
dt = time.perf_counter() - t0
err = float(xp.abs(xp.asarray(out.interior) - lap).max())
print(f"{n}^3 star4: {dt * 1e3:.2f} ms ({n ** 3 / dt / 1e9:.2f} Gpoints/s), array vs Field max diff {err:.3g}")
assert err == 0.0
