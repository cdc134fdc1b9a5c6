"""strata.bench: timings of the Python path, to compare with `strata bench` (C++).
apply() times strata.apply on Fields (the steady-state rate, GIL released inside);
overhead() times many calls on a tiny grid, where the cost is the call itself."""
import time

from . import _strata


def _time(fn, repeats, device):
    fn()  # warm-up: first-touch pages, CUDA context, caches
    _strata.synchronize()
    t0 = time.perf_counter()
    for _ in range(repeats):
        fn()
    if device == "cuda":
        _strata.synchronize()
    return (time.perf_counter() - t0) / repeats


def apply(shape=(256, 256, 256), stencil="7pt", dtype="float32", device="cpu", bc="dirichlet",
          repeats=10):
    """One stencil pass on Fields of `shape`, repeated; returns a dict with seconds per call,
    Gpoints/s and GB/s counted as one read and one write per point."""
    f = _strata.Field(shape, dtype=dtype, device=device)
    out = _strata.Field(shape, dtype=dtype, device=device)
    s = _time(lambda: _strata.apply(stencil, f, bc=bc, out=out), repeats, device)
    points = shape[0] * shape[1] * shape[2]
    return {"shape": tuple(shape), "stencil": stencil, "dtype": dtype, "device": device,
            "seconds": s, "gpts_per_s": points / s / 1e9,
            "gb_per_s": 2 * points * f.dtype.itemsize / s / 1e9}


def overhead(shape=(8, 8, 8), stencil="7pt", dtype="float32", device="cpu", repeats=20000):
    """Microseconds per strata.apply call on a tiny Field (out= given, so no allocation)."""
    r = apply(shape, stencil, dtype, device, repeats=repeats)
    return r["seconds"] * 1e6
