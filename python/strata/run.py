"""strata.run: the CLI's runs from Python, through the same drivers as `strata apply`,
`strata poisson` (on .npy files) and `strata wave` (a configuration into its run directory):
the same checks, outputs, reports and results.

Under mpirun each rank of the script calls the same function with the same arguments and the
run is distributed, as `mpirun -np N strata apply ...` is::

    # mpirun -np 4 python heat.py
    import strata.run
    r = strata.run.apply("u.npy", "u100.npy", bc="neumann", steps=100, update="relax:0.1")
    if r["root"]:
        print(r["device"], r["gpts_per_step"])

A failure found before the run (a bad path, a process grid the shape refuses) raises the same
ValueError on every rank; a failure during it ends every rank, as the CLI does. MPI starts on
the first call (every GPU left visible: each rank takes the one of its place on the host) and
ends when the interpreter exits. `strata.run.job()` says where this process stands.
"""
import atexit
import json as _json
import os
import sys
import warnings
from typing import Optional, Sequence

from . import _args, _strata
from . import wave as _w

_started = False


def job() -> dict:
    """This process's place in the job: rank, size, local_rank, local_size, host, mpi."""
    global _started
    info = _strata._job()
    if not _started:
        _started = True
        atexit.register(_strata._job_finish)
    return info


def apply(in_: str, out: str, stencil: str = "7pt", coeffs: Optional[Sequence[float]] = None,
          h: float = 1.0, bc: str = "dirichlet", precision: str = "", device: str = "auto",
          grid: str = "", steps: int = 1, fuse: int = 0, update: str = "repeat",
          allow_nonfinite: bool = False, json: str = "") -> dict:
    """`strata apply` on files: the stencil applied `steps` times to the 3D .npy array `in_`,
    written to `out` (atomically, only when the run succeeds).

    stencil: '7pt', 'star1'..'star4', 'sym27', 'box27' (coeffs required); without coeffs the
    +Laplacian at spacing h. bc: 'dirichlet[:VALUE]', 'neumann', 'periodic'. precision: ''
    (the input's), 'f32', 'f64'. device: 'auto', 'cpu', 'cuda'. grid: 'PXxPYxPZ' under
    mpirun ('' chooses). update: 'repeat' (u <- A u) or 'relax:C' (u <- u + C A u). A result
    with NaN or Inf raises ValueError (nothing written) unless allow_nonfinite, which warns.
    json: a path for the CLI's JSON report. Returns a dict: device, shape, precision, steps,
    steps_per_pass, compute_ms, gpts_per_step, root (this rank speaks for the run) and
    report (the JSON report's fields).
    """
    job()
    r = _strata._run_apply(in_, out, stencil, None if coeffs is None else [float(c) for c in coeffs],
                           float(h), bc, precision, device, grid, _args.whole(steps, "strata.run.apply: steps"),
                           _args.whole(fuse, "strata.run.apply: fuse"), update,
                           bool(allow_nonfinite), json)
    r["report"] = _json.loads(r["report"])
    return r


def poisson(shape: Optional[Sequence[int]] = None, rhs: str = "manufactured", out: str = "",
            bc: str = "dirichlet", solver: str = "mg", rtol: float = -1.0, atol: float = 0.0,
            op: str = "fd7", max_iter: int = 50, smoother: str = "chebyshev", pre: int = 2,
            post: int = 2, mixed: bool = False, h: float = 0.0, precision: str = "f32",
            device: str = "auto", grid: str = "", json: str = "") -> dict:
    """`strata poisson`: solves -Lap(u) = f on a grid of `shape` (nz, ny, nx) unknowns.

    rhs: 'manufactured' (a known solution: the error is reported), 'random', or a .npy file
    (its shape when shape is None). out: a .npy path for u ('' writes none). rtol < 0: the
    default (1e-6, or the precision's rounding floor). Under mpirun the ranks share the grid
    (solvers mg, cg, mgcg; operator fd7). Returns a dict: converged, message, iterations,
    rel_residual, h, setup_ms, solve_ms, error_max and error_rel_l2 (manufactured), root,
    report (the JSON report's fields, on the rank that speaks for the run).
    """
    job()
    r = _strata._run_poisson(None if shape is None else [_args.whole(s, "strata.run.poisson: shape") for s in shape],
                             rhs, out, bc, solver, float(rtol), float(atol), op,
                             _args.whole(max_iter, "strata.run.poisson: max_iter"), smoother,
                             _args.whole(pre, "strata.run.poisson: pre"), _args.whole(post, "strata.run.poisson: post"),
                             bool(mixed), float(h), precision, device, grid, json)
    r["report"] = _json.loads(r["report"])
    return r


def wave(config, out_dir: str, overwrite: bool = False, overrides: Sequence[str] = (),
         grid: str = "", restart: str = "", on_progress=None, progress: Optional[bool] = None,
         progress_interval_s: float = 1.0, on_warning=None) -> dict:
    """`strata wave --config CONFIG --out-dir OUT_DIR`: a wave configuration (a dict, or a
    JSON file's path) run into its run directory, as the CLI writes it.

    Under mpirun the ranks share the grid (one box each; grid: 'PXxPYxPZ', '' chooses) and
    every output is the bytes one process writes; rank 0 holds the directory. restart: a
    checkpoint to continue from (the same ranks and grid as the run that wrote it).
    overrides: "key.path=VALUE" strings, as the CLI's --set. on_progress(dict) and
    on_warning(str) are called on every rank; the defaults (the CLI's progress line on a
    terminal, warnings.warn) speak on rank 0 only. Returns a dict: root, out_dir, report
    (report.json's fields, rank 0's) and result (strata.wave.Result, read back from the
    directory on rank 0; None on the other ranks).
    """
    return _wave(config, out_dir, overwrite, overrides, grid, restart, on_progress, progress,
                 progress_interval_s, on_warning, "strata.run.wave")


def _wave(config, out_dir, overwrite, overrides, grid, restart, on_progress, progress,
          progress_interval_s, on_warning, name):
    root = job()["rank"] == 0
    text, is_path = _w._config_arg(config)
    if progress is None:
        progress = sys.stderr.isatty()
    if progress and root:
        on_progress = _w._ProgressLine(on_progress, name)
    if on_warning is None:
        def on_warning(w):
            if root:
                warnings.warn(f"{name}: {w}", RuntimeWarning, stacklevel=4)
    r = _strata._run_wave(text, is_path, _args.overrides(overrides), os.fspath(out_dir), bool(overwrite), grid,
                          os.fspath(restart) if restart else "", on_progress,
                          float(progress_interval_s), on_warning)
    report = _json.loads(r["report"])
    return {"root": r["root"], "out_dir": os.fspath(out_dir), "report": report if r["root"] else {},
            "result": _w.load(os.fspath(out_dir), report) if r["root"] else None}


def gradient(config, data: str, gradient: str, shots: str = "", velocity: str = "",
             predicted: str = "", illumination: str = "", json: str = "",
             overrides: Sequence[str] = (), memory_budget: float = 0, checkpoints: int = 0,
             boundary_saving: bool = False, data_dt: float = 0) -> dict:
    """`strata gradient` on files: the misfit's gradient in m = 1/v^2 of one shot (data: its
    .npy or SEG-Y) or, with shots (a shots file), of every shot summed in the file's order
    (data: the directory `strata wave --shots` wrote); under mpirun the shots are dealt over
    the ranks and the outputs are the same bytes as one process's. Outputs .npy, or SEG-Y depth
    volumes where the path ends .sgy/.segy; velocity: .npy or a SEG-Y volume. A failure found
    before the run raises the same ValueError on every rank, with nothing written. Returns a
    dict: root, report (the CLI's JSON report, on rank 0; {} elsewhere). See docs/imaging.md.
    """
    return _imaging(False, config, data, shots, velocity, "", "", gradient, predicted, illumination,
                    json, overrides, memory_budget, checkpoints, boundary_saving, data_dt)


def migrate(config, data: str, image: str, shots: str = "", velocity: str = "",
            compensated: str = "", illumination: str = "", json: str = "",
            overrides: Sequence[str] = (), memory_budget: float = 0, checkpoints: int = 0,
            boundary_saving: bool = False, data_dt: float = 0) -> dict:
    """`strata migrate` on files: the RTM image of one shot's reflections or, with shots, the
    stack of every shot's (as strata.run.gradient; compensated: the stack's image over its
    illumination)."""
    return _imaging(True, config, data, shots, velocity, image, compensated, "", "", illumination,
                    json, overrides, memory_budget, checkpoints, boundary_saving, data_dt)


def _imaging(migrate_, config, data, shots, velocity, image, compensated, gradient_, predicted,
             illumination, json_, overrides, memory_budget, checkpoints, boundary_saving, data_dt):
    job()
    text, is_path = _w._config_arg(config)
    p = lambda x: os.fspath(x) if x else ""
    r = _strata._run_imaging(bool(migrate_), text, is_path, _args.overrides(overrides), p(data), p(shots),
                             p(velocity), p(image), p(compensated), p(gradient_), p(predicted),
                             p(illumination), p(json_), float(memory_budget), int(checkpoints),
                             bool(boundary_saving), float(data_dt))
    return {"root": r["root"], "report": _json.loads(r["report"]) if r["report"] else {}}


__all__ = ["apply", "gradient", "job", "migrate", "poisson", "wave"]
