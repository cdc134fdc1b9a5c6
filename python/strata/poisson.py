"""strata.poisson.solve: -Lap(u) = f on a box with the library's solvers (docs/poisson.md
for the discretisation). Long solves release the GIL; Ctrl-C stops them with
KeyboardInterrupt and returns nothing."""
import warnings
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Tuple

from . import _args, _strata

SOLVERS = ("jacobi", "mg", "fmg", "cg", "mgcg", "fft")


@dataclass
class Report:
    """What a solve did. residuals[i]: ||f - A u|| / ||f|| after iteration i (0: the start)."""
    converged: bool
    message: str
    iterations: int
    rel_residual: float
    residuals: List[float] = field(default_factory=list)
    convergence_factor: float = 0.0
    rtol: float = 0.0
    atol: float = 0.0
    direct: bool = False
    restarts: int = 0
    at_floor: bool = False
    setup_ms: float = 0.0
    solve_ms: float = 0.0
    iterations_per_s: float = 0.0
    gb_per_s: float = 0.0
    levels: List[Tuple[int, int, int]] = field(default_factory=list)
    rhs_mean: float = 0.0
    warnings: List[str] = field(default_factory=list)


def _as_precision(f, precision):
    """f converted to `precision` ('f32'/'f64'), or f itself when it already is."""
    want = {"f32": "float32", "float32": "float32", "f64": "float64", "float64": "float64"}.get(precision)
    if want is None:
        raise ValueError(f"strata.poisson.solve: precision {precision!r} is unknown: allowed 'f32', 'f64'")
    if str(f.dtype).replace("torch.", "") == want:
        return f
    if isinstance(f, _strata.Field):
        raise ValueError(f"strata.poisson.solve: f is a {f.dtype} Field but precision={precision!r}: "
                         "pass a Field of that dtype")
    if hasattr(f, "astype"):  # NumPy, CuPy
        return f.astype(want)
    import torch  # a tensor: the only other kind strata takes with a dtype to convert
    return f.to(getattr(torch, want)).contiguous()


def solve(f, bc: str = "dirichlet", solver: str = "mg", rtol: float = -1.0, atol: float = 0.0,
          precision: Optional[str] = None, op: str = "fd7", max_iter: int = 100,
          smoother: str = "chebyshev", mixed: bool = False, h: float = 0.0,
          on_iteration: Optional[Callable[[dict], None]] = None):
    """Solves -Lap(u) = f and returns (u, Report).

    f: a strata.Field (u is a new Field of its dtype and device) or a C-contiguous 3D
    NumPy/CuPy/PyTorch array (copied in; u is returned as the same kind of array).
    bc: 'dirichlet[:VALUE]' (vertex-centred), 'neumann', 'periodic'. On Neumann and periodic
    grids a solution exists only when f has zero mean: the solve runs on f - mean(f), with a
    RuntimeWarning (and Report.warnings, Report.rhs_mean) when the mean removed is above the
    tolerance; a constant f raises ValueError.
    solver: jacobi, mg, fmg, cg, mgcg, fft (the periodic fd7 problem only, a direct solve:
    KissFFT on the CPU where built with it (strata.cpu_fft_available()), cuFFT on the GPU).
    rtol < 0: 1e-6 or the precision's floor.
    precision: 'f32' or 'f64' to convert an array first (None: its own dtype).
    h: spacing (0: the box's x extent is 1). on_iteration(dict) is called after each
    iteration with iteration, rel_residual and factor; raising from it stops the solve.
    """
    if precision is not None:
        f = _as_precision(f, precision)
    u, r = _strata._poisson_solve(f, bc, solver, float(rtol), float(atol), op,
                                  _args.whole(max_iter, "strata.poisson: max_iter"), smoother,
                                  bool(mixed), float(h),
                                  on_iteration)
    report = Report(**r)
    for w in report.warnings:
        warnings.warn(f"strata.poisson.solve: {w}", RuntimeWarning, stacklevel=2)
    return u, report
