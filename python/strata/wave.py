"""strata.wave: acoustic wave runs from a configuration (a dict or a JSON file, the keys of
`strata wave --print-config`). run() steps in memory and returns arrays; with out_dir it
is `strata wave` itself and writes the run directory (python -m strata.plot renders it).
Stepping releases the GIL; Ctrl-C raises KeyboardInterrupt. In memory nothing is kept; in
a run directory the files already written are whole and no results are written after it.
strata.wave.gradient, migrate and born are strata.imaging's (the FWI gradient, the RTM image,
the Born operator on the same configuration)."""
import json
import os
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from . import _args, _strata


@dataclass
class Result:
    """seismogram: (samples, receivers) of u; receivers: (receivers, 3) x, y, z in metres;
    times: the sample times (s); wavefield: u at the last step as a float64 Field (when
    asked for, in memory); report: report.json's content (run directory only)."""
    seismogram: np.ndarray
    receivers: np.ndarray
    times: np.ndarray
    dt: float
    spacing: float
    device: str
    warnings: list = field(default_factory=list)
    wavefield: Optional[Any] = None
    report: Optional[dict] = None
    out_dir: Optional[str] = None


def _config_arg(config):
    if isinstance(config, dict):
        return json.dumps(config), False
    if isinstance(config, (str, os.PathLike)):
        return os.fspath(config), True
    raise TypeError(f"strata.wave: config must be a dict or a path, got {type(config).__name__}")


class _ProgressLine:
    """The CLI's progress line on sys.stderr: rewritten in place on a terminal, one plain line
    per call elsewhere; then the caller's own on_progress, if any."""

    def __init__(self, then, label="strata.wave.run"):
        self.then, self.terminal, self.label = then, sys.stderr.isatty(), label

    def __call__(self, p):
        line = self.label + ": " + p["text"]
        if self.terminal:
            sys.stderr.write("\r" + line + "   " + ("\n" if p["final"] else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()
        if self.then is not None:
            self.then(p)


def run(config: Union[dict, str, os.PathLike], on_progress: Optional[Callable[[dict], None]] = None,
        wavefield: bool = False, out_dir: Optional[str] = None, overwrite: bool = False,
        overrides: Sequence[str] = (), progress_interval_s: float = 1.0,
        on_warning: Optional[Callable[[str], None]] = None, progress: Optional[bool] = None) -> Result:
    """Runs a wave configuration. on_progress(dict) gets step, last_step, elapsed_s,
    gpts_per_s, eta_s, final about every progress_interval_s; an exception raised in it
    stops the run. progress: the CLI's progress line (step, %, Gpts/s, elapsed, ETA) on
    sys.stderr, updated in place: None (the default) shows it when stderr is a terminal and
    stays quiet otherwise (a notebook, a batch log, a pipe), True always (a plain line per
    progress_interval_s where stderr is no terminal), False never. The run's warnings go to
    on_warning(str), or by default to warnings.warn (RuntimeWarning).
    overrides: "key.path=VALUE" strings, as the CLI's --set.
    out_dir: write the run directory there (as `strata wave`), then read its results back.
    With out_dir the run is strata.run.wave's: under mpirun the ranks share the grid and
    rank 0 gets the Result (the other ranks None)."""
    if out_dir is not None:
        if wavefield:
            raise ValueError("strata.wave.run: wavefield=True is for in-memory runs; with out_dir "
                             "use snapshots (output.snapshot_every) instead")
        from . import run as _run
        return _run._wave(config, out_dir, overwrite, overrides, "", "", on_progress, progress,
                          progress_interval_s, on_warning, "strata.wave.run")["result"]
    text, is_path = _config_arg(config)
    overrides = _args.overrides(overrides)
    if progress is None:
        progress = sys.stderr.isatty()
    if progress:
        on_progress = _ProgressLine(on_progress)
    if on_warning is None:
        def on_warning(w):
            warnings.warn(f"strata.wave.run: {w}", RuntimeWarning, stacklevel=3)
    r = _strata._wave_simulate(text, is_path, overrides, on_progress, float(progress_interval_s), wavefield)
    for w in r["warnings"]:
        on_warning(w)
    n = r["seismogram"].shape[0]
    return Result(seismogram=r["seismogram"], receivers=r["receivers"],
                  times=np.arange(n) * r["sample_interval"], dt=r["dt"], spacing=r["spacing"],
                  device=r["device"], warnings=list(r["warnings"]), wavefield=r.get("wavefield"))


def load(out_dir: str, report: Optional[dict] = None) -> Result:
    """The results of a `strata wave` run directory: seismogram.npy, receivers.npy,
    config.json and report.json."""
    cfg = json.load(open(os.path.join(out_dir, "config.json")))
    if report is None:
        report = json.load(open(os.path.join(out_dir, "report.json")))
    seis = np.load(os.path.join(out_dir, "seismogram.npy"))
    recs = np.load(os.path.join(out_dir, "receivers.npy"))
    every = cfg["receivers"]["every"] if "receivers" in cfg and "every" in cfg["receivers"] else 1
    dt = report["dt"]
    return Result(seismogram=seis, receivers=recs, times=np.arange(seis.shape[0]) * dt * every,
                  dt=dt, spacing=cfg["grid"]["spacing"], device=report.get("device", ""),
                  warnings=report.get("warnings", []), report=report, out_dir=os.fspath(out_dir))


def __getattr__(name):
    # strata.wave.gradient / migrate / born, the names a wave user looks for, are
    # strata.imaging's functions themselves, imported on first use (strata.imaging imports
    # this module).
    if name in ("gradient", "migrate", "born"):
        from . import imaging
        return getattr(imaging, name)
    raise AttributeError(f"module 'strata.wave' has no attribute {name!r}")
