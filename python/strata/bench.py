"""strata.bench: run() runs `strata bench`'s families (C++ kernels, the CLI's rows); apply() and
overhead() time the Python path itself, to compare with them.
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
          repeats=10, nonfinite="ignore"):
    """One stencil pass on Fields of `shape` ((nz, ny, nx), as strata.Field), repeated; returns
    a dict with seconds per call, Gpoints/s and GB/s counted as one read and one write per
    point. nonfinite: as strata.apply's;
    "ignore" (the default here) times the pass as strata::apply in C++ does it, without the
    check of the result that strata.apply makes by default (one more read of it)."""
    f = _strata.Field(shape, dtype=dtype, device=device)
    out = _strata.Field(shape, dtype=dtype, device=device)
    s = _time(lambda: _strata.apply(stencil, f, bc=bc, out=out, nonfinite=nonfinite), repeats,
              device)
    points = shape[0] * shape[1] * shape[2]
    return {"shape": tuple(shape), "stencil": stencil, "dtype": dtype, "device": device,
            "seconds": s, "gpts_per_s": points / s / 1e9,
            "gb_per_s": 2 * points * f.dtype.itemsize / s / 1e9}


def overhead(shape=(8, 8, 8), stencil="7pt", dtype="float32", device="cpu", repeats=20000):
    """Microseconds per strata.apply call on a tiny Field (out= given, so no allocation)."""
    r = apply(shape, stencil, dtype, device, repeats=repeats)
    return r["seconds"] * 1e6


def run(kernel="stencils", size=None, shape=None, precision="all", device="cpu", reps=20, warmup=3):
    """The benchmark families of `strata bench` (the same kernels, checks and timing as the
    CLI): kernel is a comma-separated list of families (stencils, reduce, wave, steps,
    poisson) or their kernels (7pt, sum, ...), or "all"; size an edge N (or a list of them)
    and shape an (nx, ny, nz) (or a list), default the family's own; precision "f32", "f64"
    or "all".
    Returns a list of dicts, one per timed row (kernel, variant, device, precision, shape,
    median_ms, gpts_per_s, gb_per_s, ratio_to_copy, ...), as `strata bench --json` writes.
    Every family runs on either device; one that "all" leaves out (dist, which times several
    ranks) is named in a warning."""
    import json
    import warnings

    sizes = [] if size is None else ([size] if isinstance(size, int) else list(size))
    shapes = [] if shape is None else ([tuple(shape)] if isinstance(shape[0], int) else [tuple(s) for s in shape])
    shapes = [(n, n, n) for n in sizes] + shapes
    precisions = ["f32", "f64"] if precision == "all" else [precision]
    out = json.loads(_strata._bench_run(kernel, device, precisions, shapes, reps, warmup))
    for why in out["skipped"]:
        warnings.warn(f"strata.bench.run: {why}", stacklevel=2)
    return out["results"]
