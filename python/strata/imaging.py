"""strata.imaging: seismic imaging on the wave engine (issue 40, in progress; docs/imaging.md).

A wave configuration (a dict or a JSON path, the keys of `strata wave --print-config`) names
the grid, the model, the sources (their Ricker wavelets), the receivers (receivers.every = 1),
the boundaries and the steps, as for strata.wave.run. Its model is the background (gradient,
Born) or migration (migrate) model, unless `velocity` gives one as a (nz, ny, nx) array in
m/s. Data are (steps + 1, receivers) arrays, the rows of `strata wave`'s seismogram.npy (row 0
at step 0). Everything is exact for the discrete scheme: the gradient is that of the computed
misfit (the Taylor test), migrate and gradient use the exact adjoint, and born is the run's
derivative, whose adjoint is the gradient's correlation. One process; the CPU or the GPU.

    r = strata.imaging.gradient(cfg, observed)          # misfit, gradient (dJ/dm, m = 1/v^2)
    im = strata.imaging.migrate(cfg, reflections)       # image, compensated
    dd = strata.imaging.born(cfg, dm)["predicted"]      # the data's first-order change

The adjoint needs the forward states backward in time: it keeps as many as `memory_budget`
bytes hold (default half the memory free where they are kept: the host's, or on the GPU the
device's own; or `checkpoints` of them) and recomputes
the others on a binomial (revolve) schedule; each result says how many were kept
(checkpoints, checkpoint_bytes) and what it cost (forward_steps, recomputation). With
boundary_saving=True it keeps instead each step's wavefield on the ring at the absorbing
layers' inner edge and runs the forward field backward in time: two forward runs, a ring a
step of memory, the same gradient to rounding in the interior and zero inside the absorbing
layers (on a GPU its rings stay in the GPU's memory).
"""
import json
import os
from typing import Optional, Sequence

import numpy as np

from . import _args, _strata
from .wave import _config_arg


def _array(a, what, ndim, axes):
    if a is None:
        return None
    if np.iscomplexobj(a):  # its imaginary part would be dropped without a word
        raise TypeError(f"strata.imaging: {what} must be real, got complex values")
    a = np.ascontiguousarray(a, dtype=np.float64)
    if a.ndim != ndim:
        raise ValueError(f"strata.imaging: {what} must be a {axes} array, got shape {a.shape}")
    if a.size == 0:  # not the default it would otherwise be taken for (None says that)
        raise ValueError(f"strata.imaging: {what} is empty (shape {a.shape}): give a {axes} array, or None")
    return a


def _budget(memory_budget):
    b = _args.finite(memory_budget, "strata.imaging: memory_budget (bytes)")
    if b < 0:
        raise ValueError(f"strata.imaging: memory_budget must be >= 0 bytes (0: half of what is free), "
                         f"got {memory_budget!r}")
    return b


def _whole(n, what):
    return _args.whole(n, "strata.imaging: " + what)


def _grid(a, what):
    return _array(a, what, 3, "(nz, ny, nx)")


def _rows(a, what):
    return _array(a, what, 2, "(steps + 1, receivers)")


def _shots_arg(shots):
    """A shots file's path, or its list (of {"name", "position"} or {"name", "sources"} dicts)."""
    if isinstance(shots, (str, os.PathLike)):
        return os.fspath(shots), True
    if isinstance(shots, (list, tuple)):
        return json.dumps(list(shots)), False
    raise TypeError(f"strata.imaging: shots must be a shots file's path or a list of shots, got {type(shots).__name__}")


def _shot_rows(data, what, count):
    """One (steps + 1, receivers) array per shot (None: zeros for every shot)."""
    if data is None:
        return [np.empty(0)] * count
    if isinstance(data, np.ndarray) and data.ndim == 3:
        data = list(data)
    data = list(data)
    if len(data) != count:
        raise ValueError(f"strata.imaging: {count} shots but {len(data)} {what} arrays: give one per shot, "
                         "in the shots' order")
    return [np.empty(0) if d is None else _rows(d, what) for d in data]


def _shots(fn, config, data, what, velocity, overrides, memory_budget, checkpoints, data_dt, boundary_saving,
           shots, illumination=True):
    text, is_path = _config_arg(config)
    shots_text, shots_is_path = _shots_arg(shots)
    v = _grid(velocity, "velocity")
    overrides = _args.overrides(overrides)
    names = _strata._imaging_shot_names(text, is_path, overrides, v, shots_text, shots_is_path)
    return fn(text, is_path, overrides, v, _shot_rows(data, what, len(names)), _budget(memory_budget),
              _whole(checkpoints, "checkpoints"), float(data_dt), bool(boundary_saving), shots_text, shots_is_path,
              bool(illumination))


def gradient(config, observed=None, velocity=None, overrides: Sequence[str] = (), memory_budget: float = 0,
             checkpoints: int = 0, data_dt: float = 0, boundary_saving: bool = False, shots=None,
             illumination: bool = True) -> dict:
    """The least-squares misfit J = 1/2 |predicted - observed|^2 of the configuration's shot
    and its gradient dJ/dm with respect to the squared slowness m = 1/v^2 at every point.
    observed: (steps + 1, receivers), None for zeros. Returns a dict: misfit, gradient
    (nz, ny, nx), predicted (steps + 1, receivers), illumination, device, dt, checkpoints,
    checkpoint_bytes, forward_steps, recomputation, and where the time went (s):
    forward_seconds (of forward_timed_steps steps), adjoint_seconds (with boundary saving's
    fused correlation, the whole backward sweep: each reversed step beside the adjoint's),
    checkpoint_seconds, setup_seconds (before the first step), finish_seconds (after the last),
    seconds, cost_in_forward_runs (seconds over the timed forward steps' time for one run of
    the shot); fused_imaging: the correlation ran inside a step
    (on a GPU: the reversed forward step with boundary saving, the adjoint's with checkpoints). data_dt: the observed data's sample
    interval (s), refused unless it is the run's dt to half a microsecond (0: not checked).
    Without time.dt in the configuration strata chooses dt from the model's fastest velocity:
    set time.dt where models differ (an inversion's trials), or the data would be compared
    at another sampling.

    shots: several shots of one model, a shots file's path or its list ({"name", "position"}:
    the configuration's one source moved; or {"name", "sources": [...]}), as `strata wave
    --shots` takes; observed is then one array per shot (or None). The runs go one after the
    other in this process; misfit, gradient and illumination are summed in the shots' order
    (the bits of `strata gradient --shots` and of strata.run.gradient), predicted is a list of
    each shot's, shots their names and shot_misfits each one's misfit.

    illumination=False skips the source side's illumination (a pass over the wavefield at every
    forward step, and a grid of doubles): the result's illumination is then None and everything
    else the same bits. An inversion loop, which reads only misfit and gradient, can set it."""
    if shots is not None:
        return _shots(_strata._imaging_gradient_shots, config, observed, "observed", velocity, overrides,
                      memory_budget, checkpoints, data_dt, boundary_saving, shots, illumination)
    text, is_path = _config_arg(config)
    return _strata._imaging_gradient(text, is_path, _args.overrides(overrides), _grid(velocity, "velocity"),
                                     _rows(observed, "observed"), _budget(memory_budget), _whole(checkpoints, "checkpoints"),
                                     float(data_dt), bool(boundary_saving), bool(illumination))


def migrate(config, data, velocity=None, overrides: Sequence[str] = (), memory_budget: float = 0,
            checkpoints: int = 0, data_dt: float = 0, boundary_saving: bool = False, shots=None,
            illumination: bool = True) -> dict:
    """Reverse-time migration of one shot's reflections (data: (steps + 1, receivers), the
    recorded data with the direct wave removed) through the migration model. Returns a dict:
    image (nz, ny, nx: the zero-lag correlation of the back-propagated data with the source
    side's second time difference; a velocity step shows as a lobe of each sign around it, the
    reflector where d image / dz peaks), compensated (divided by the illumination), and the
    cost fields as for gradient; data_dt as for gradient. shots: as for gradient (data one
    array per shot): the images and illuminations summed in the shots' order, compensated the
    stack's image over its illumination. illumination=False skips the illumination (a pass over
    the wavefield at every forward step): illumination and compensated are then None, the
    image the same bits."""
    if shots is not None:
        return _shots(_strata._imaging_migrate_shots, config, data, "data", velocity, overrides, memory_budget,
                      checkpoints, data_dt, boundary_saving, shots, illumination)
    text, is_path = _config_arg(config)
    return _strata._imaging_migrate(text, is_path, _args.overrides(overrides), _grid(velocity, "velocity"),
                                    _rows(data, "data"), _budget(memory_budget), _whole(checkpoints, "checkpoints"),
                                    float(data_dt), bool(boundary_saving), bool(illumination))


def born(config, dm, velocity=None, overrides: Sequence[str] = (), shots=None) -> dict:
    """The Born (linearised) data of a change dm (nz, ny, nx; s^2/m^2) of m = 1/v^2 about the
    model: result["predicted"], (steps + 1, receivers). shots: as for gradient; predicted is
    then a list of each shot's data, in the shots' order, and shots their names."""
    text, is_path = _config_arg(config)
    d = _grid(dm, "dm")
    if d is None:
        raise ValueError("strata.imaging.born: dm is required")
    v = _grid(velocity, "velocity")
    if shots is not None:
        shots_text, shots_is_path = _shots_arg(shots)
        overrides = _args.overrides(overrides)
        names = _strata._imaging_shot_names(text, is_path, overrides, v, shots_text, shots_is_path)
        rows = _strata._imaging_born_shots(text, is_path, overrides, v, d, shots_text, shots_is_path)
        return {"predicted": rows, "shots": names}
    return _strata._imaging_born(text, is_path, _args.overrides(overrides), v, d)


def dt(config, velocity=None, overrides: Sequence[str] = ()) -> float:
    """The time step (s) a run of this configuration takes through this model: time.dt where
    the configuration gives it, else the stable step of the model's fastest velocity. Runs
    through different models (an inversion's trials) step alike only with time.dt set: set it
    to dt(config, velocity=<the fastest model they may meet>). Checks as a run does; runs
    nothing."""
    text, is_path = _config_arg(config)
    return _strata._imaging_dt(text, is_path, _args.overrides(overrides), _grid(velocity, "velocity"))


__all__ = ["born", "dt", "gradient", "migrate"]
