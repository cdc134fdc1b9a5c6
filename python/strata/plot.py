"""strata.plot: pictures a geophysicist can read (matplotlib). Axes in metres and seconds,
a colour bar naming its quantity, one clip shared across a series of frames, titles with
step and time, the absorbing layers outlined; seismograms as variable density or wiggles
against the offset from the source, with optional AGC; the velocity model with its sources
and receivers; the Poisson residual history. matplotlib is imported when a picture is drawn,
not by `import strata`.

    python -m strata.plot RUN_DIR [--out DIR]   renders a `strata wave` run directory into
                                                RUN_DIR/plots (a `strata wave --overwrite`
                                                into RUN_DIR removes it with the run)
"""
import argparse
import json
import os
import re
import secrets
import sys
import warnings

import numpy as np

from . import _args, _strata


def _plt():
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError("strata.plot draws with matplotlib, which is not installed here: "
                          "pip install matplotlib") from e
    if not os.environ.get("DISPLAY") and matplotlib.get_backend().lower() not in ("agg", "pdf", "svg"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _host(a):
    """A NumPy array of a Field, a NumPy array or a CuPy/PyTorch array (copied to the host)."""
    if hasattr(a, "interior"):
        a = a.interior
    if hasattr(a, "get"):            # CuPy
        a = a.get()
    elif hasattr(a, "detach"):       # PyTorch
        a = a.detach().cpu().numpy()
    elif hasattr(a, "__cuda_array_interface__") and not isinstance(a, np.ndarray):
        import cupy
        a = cupy.asarray(a).get()
    return np.asarray(a)


def shared_clip(frames, quantile=0.995):
    """One colour limit for a whole series: the quantile of |u| over every frame together,
    so amplitudes compare across frames (a per-frame clip hides the decay)."""
    values = np.concatenate([np.abs(_host(f)).ravel() for f in frames])
    c = float(np.quantile(values, quantile)) if values.size else 1.0
    return c if c > 0 else 1.0


_AXES = "xyz"


def wavefield(u, spacing, axis=1, index=None, clip=None, absorbing=None, step=None, time=None,
              ax=None, cmap="seismic", title=None):
    """A slice of u[z][y][x] normal to `axis` (0 x, 1 y, 2 z) at grid `index` (default: the
    middle), with axes in metres (cell-centred: point i at (i + 1/2) h), depth downwards,
    a colour bar, and `absorbing` = {face: width in points} (e.g. {"xmin": 16, ...}) drawn
    as the dashed outline of the region inside the absorbing layers. Returns the AxesImage."""
    plt = _plt()
    u = _host(u)
    nz, ny, nx = u.shape
    n = (nx, ny, nz)
    index = n[axis] // 2 if index is None else index
    if axis == 0:
        img, (ha, va) = u[:, :, index], (1, 2)
    elif axis == 1:
        img, (ha, va) = u[:, index, :], (0, 2)
    else:
        img, (ha, va) = u[index, :, :], (0, 1)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 5.5))
    clip = clip if clip is not None else shared_clip([img])
    h = spacing
    extent = (0, n[ha] * h, n[va] * h, 0)  # depth (or y) grows downwards
    im = ax.imshow(img, cmap=cmap, vmin=-clip, vmax=clip, extent=extent, aspect="equal",
                   interpolation="nearest")
    ax.set_xlabel(f"{_AXES[ha]} (m)")
    ax.set_ylabel(("depth " if va == 2 else "") + f"{_AXES[va]} (m)")
    ax.figure.colorbar(im, ax=ax, label="u (pressure, arbitrary units)", shrink=0.85)
    if _outline(ax, absorbing, h, (n[ha], n[va]), ha, va):
        ax.legend(loc="lower right", fontsize="small")
    parts = [title or f"u at {_AXES[axis]} = {(index + 0.5) * h:g} m"]
    if step is not None:
        parts.append(f"step {step}")
    if time is not None:
        parts.append(f"t = {time:.4g} s")
    ax.set_title(", ".join(parts))
    return im


def _outline(ax, absorbing, h, size, ha, va):
    """The inner edge of the absorbing layers ({face: width in points}) on a plane whose
    axes are ha across and va down, size (points across, points down), dashed. Returns
    whether one was drawn."""
    w = {k: (absorbing or {}).get(k, 0) * h for k in ("xmin", "xmax", "ymin", "ymax", "zmin", "zmax")}
    a0, a1 = w[_AXES[ha] + "min"], size[0] * h - w[_AXES[ha] + "max"]
    b0, b1 = w[_AXES[va] + "min"], size[1] * h - w[_AXES[va] + "max"]
    if not any(w[_AXES[a] + e] for a in (ha, va) for e in ("min", "max")):
        return False
    ax.plot([a0, a1, a1, a0, a0], [b0, b0, b1, b1, b0], "k--", lw=1, label="inner edge of the absorbing layers")
    return True


def agc(traces, window):
    """Automatic gain control: each sample divided by the RMS of its trace over a centred
    window of `window` samples (traces: (samples, receivers))."""
    t = np.asarray(traces, dtype=np.float64)
    window = max(1, int(window))
    kernel = np.ones(window) / window
    power = np.apply_along_axis(lambda c: np.convolve(c * c, kernel, mode="same"), 0, t)
    rms = np.sqrt(power)
    floor = 1e-12 * max(float(rms.max()), 1e-300)
    return t / np.maximum(rms, floor)


def receiver_axis(receivers, sources=None):
    """The seismogram's horizontal axis, as strata wave's seismogram.png draws it: for
    receivers in a line (in order along it) each one's signed offset in metres along the
    line, measured from the first source (from the first receiver without one); otherwise
    the receiver's column number. sources: positions (n, 3) or the configuration's
    "sources" list. Returns (values, label)."""
    r = np.asarray(receivers, dtype=np.float64).reshape(-1, 3)
    src = [s["position"] if isinstance(s, dict) else s for s in (sources if sources is not None else [])]
    values, label, _ = _strata._wave_receiver_axis(r.tolist(), np.asarray(src, dtype=np.float64).reshape(-1, 3).tolist())
    return np.asarray(values), label


def _edges(x):
    """Cell edges around increasing centres x (midpoints; half a gap beyond each end)."""
    x = np.asarray(x, dtype=np.float64)
    if len(x) < 2:
        return np.array([x[0] - 0.5, x[0] + 0.5]) if len(x) else np.array([0.0, 1.0])
    mid = 0.5 * (x[1:] + x[:-1])
    return np.concatenate([[x[0] - (mid[0] - x[0])], mid, [x[-1] + (x[-1] - mid[-1])]])


def seismogram(traces, times, receivers=None, mode="density", gain=None, clip=None, ax=None,
               title="seismogram", max_wiggles=60, sources=None):
    """traces (samples, receivers) against time (s, downwards). mode: 'density' (variable
    density, with a colour bar) or 'wiggle' (traces, positive lobes filled). gain: an AGC
    window in seconds (None: true amplitudes). receivers (n, 3) and sources: the horizontal
    axis is the offset from the source in metres (receiver_axis); without receivers, the
    receiver number."""
    plt = _plt()
    t = np.asarray(traces, dtype=np.float64)
    times = np.asarray(times, dtype=np.float64)
    if gain:
        dt = times[1] - times[0] if len(times) > 1 else 1.0
        t = agc(t, gain / dt)
    if receivers is not None:
        x, xlabel = receiver_axis(receivers, sources)
    else:
        x, xlabel = np.arange(t.shape[1], dtype=np.float64), "receiver (seismogram column)"
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 6))
    clip = clip if clip is not None else shared_clip([t], 0.99)
    if mode == "density":
        xe, te = _edges(x), _edges(times)
        style = dict(cmap="gray_r" if gain else "seismic", vmin=-clip, vmax=clip)
        if np.allclose(np.diff(xe), xe[1] - xe[0]):
            im = ax.imshow(t, aspect="auto", interpolation="bilinear",
                           extent=(xe[0], xe[-1], te[-1], te[0]), **style)
        else:  # receivers unevenly spaced: each column its own width
            im = ax.pcolormesh(xe, te, t, **style)
            ax.set_ylim(te[-1], te[0])
        ax.figure.colorbar(im, ax=ax, label="u (AGC)" if gain else "u (pressure, arbitrary units)")
    elif mode == "wiggle":
        step = max(1, int(np.ceil(t.shape[1] / max_wiggles)))
        cols = range(0, t.shape[1], step)
        spacing = (x[step] - x[0]) if len(x) > step else 1.0
        scale = spacing / clip * 0.8
        for c in cols:
            w = np.clip(t[:, c], -clip, clip) * scale
            ax.plot(x[c] + w, times, "k", lw=0.6)
            ax.fill_betweenx(times, x[c], x[c] + w, where=w > 0, color="k", lw=0)
        ax.set_ylim(times[-1], times[0])
    else:
        raise ValueError(f"strata.plot.seismogram: mode {mode!r} is unknown: allowed 'density', 'wiggle'")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("time (s)")
    ax.set_title(title + (f" (AGC {gain:g} s)" if gain else ""))
    return ax


def model(config, axis=None, index=None, ax=None, overrides=()):
    """The velocity model (m/s) of a wave configuration on a plane normal to `axis` (0 x,
    1 y, 2 z; default output.png.axis) at grid `index` (default output.png.index, else the
    middle), as strata wave's model.png: axes in metres (depth downwards), a colour bar in
    m/s, the sources (stars) and receivers (triangles) projected onto the plane, the inner
    edge of the absorbing layers dashed. config: a dict, a JSON file or a run directory (its
    config.json). Returns the AxesImage."""
    plt = _plt()
    if isinstance(config, (str, os.PathLike)) and os.path.isdir(config):
        config = os.path.join(config, "config.json")
    if isinstance(config, dict):
        text, is_path = json.dumps(config), False
    else:
        text, is_path = os.fspath(config), True
    d = _strata._wave_model_slice(text, is_path, _args.overrides(overrides), -1 if axis is None else int(axis),
                                  None if index is None else int(index))
    v, h, axis, index = d["velocity"], d["spacing"], d["axis"], d["index"]
    ha, va = (1, 2) if axis == 0 else (0, 2) if axis == 1 else (0, 1)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 5.5))
    lo, hi = float(v.min()), float(v.max())
    if hi <= lo:  # a constant model: a range about its value
        lo, hi = lo - max(1.0, 0.05 * hi), hi + max(1.0, 0.05 * hi)
    rows, cols = v.shape
    im = ax.imshow(v, cmap="viridis", vmin=lo, vmax=hi, extent=(0, cols * h, rows * h, 0),
                   aspect="equal", interpolation="nearest")
    ax.figure.colorbar(im, ax=ax, label="velocity (m/s)", shrink=0.85)
    ax.set_xlabel(f"{_AXES[ha]} (m)")
    ax.set_ylabel(("depth " if va == 2 else "") + f"{_AXES[va]} (m)")
    _outline(ax, d["absorbing"], h, (cols, rows), ha, va)
    if len(d["receivers"]):
        r = d["receivers"]
        ax.scatter(r[:, ha], r[:, va], marker="v", s=30, c="white", edgecolors="black", linewidths=0.8,
                   label="receivers" if len(r) > 1 else "receiver", zorder=3)
    if len(d["sources"]):
        s = d["sources"]
        ax.scatter(s[:, ha], s[:, va], marker="*", s=160, c="tab:red", edgecolors="black", linewidths=0.8,
                   label="sources" if len(s) > 1 else "source", zorder=4)
    ax.set_xlim(0, cols * h)
    ax.set_ylim(rows * h, 0)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="lower right", fontsize="small")
    ax.set_title(f"velocity model, {_AXES[axis]} = {(index + 0.5) * h:g} m")
    return im


def residuals(report, ax=None, label=None):
    """The residual history ||f - A u|| / ||f|| per iteration (log scale) of a
    strata.poisson Report (or a list), with its tolerance when known."""
    plt = _plt()
    r = list(getattr(report, "residuals", report))
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    ax.semilogy(range(len(r)), r, "o-", label=label or "relative residual")
    rtol = getattr(report, "rtol", 0)
    if rtol:
        ax.axhline(rtol, color="gray", ls="--", label=f"rtol {rtol:g}")
    ax.set_xlabel("iteration")
    ax.set_ylabel("||f - A u|| / ||f||")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    msg = getattr(report, "message", "")
    ax.set_title("Poisson residual" + (f": {msg}" if msg else ""))
    return ax


def _absorbing(cfg):
    b = cfg.get("boundary", {})
    width = b.get("pml", {}).get("width", 0)
    return {face: width for face in ("xmin", "xmax", "ymin", "ymax", "zmin", "zmax")
            if b.get(face) == "pml"}


def read_vti(path):
    """u[z][y][x] of a .vti snapshot as strata writes it (one raw appended array, a UInt64
    byte count before it), memory-mapped."""
    with open(path, "rb") as f:
        head = f.read(4096)
    at = head.find(b'<AppendedData encoding="raw">')
    start = head.find(b"_", at) + 1 if at >= 0 else 0
    ext = re.search(rb'WholeExtent="0 (\d+) 0 (\d+) 0 (\d+)"', head)
    kind = re.search(rb'<DataArray type="(Float32|Float64)"', head)
    if at < 0 or start == 0 or not ext or not kind or b'header_type="UInt64"' not in head:
        raise ValueError(f"{path}: not a .vti snapshot as strata writes it (raw appended Float32/Float64 "
                         "data with a UInt64 header)")
    nx, ny, nz = (int(v) + 1 for v in ext.groups())
    dtype = np.float32 if kind.group(1) == b"Float32" else np.float64
    return np.memmap(path, dtype=dtype, mode="r", offset=start + 8, shape=(nz, ny, nx))


def _save(fig, path, dpi=110):
    """fig as a PNG at path, written whole or not at all: into a hidden temporary
    .NAME.tmp.XXXXXX beside it (as strata's own files, so a run directory's rules know a
    stale one), then renamed over it."""
    folder, name = os.path.split(os.path.abspath(path))
    while True:
        tmp = os.path.join(folder, f".{name}.tmp.{secrets.token_hex(3)}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format="png", dpi=dpi, bbox_inches="tight")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _snapshots(run_dir):
    """{step: path} of the snapshots that hold the wavefield (.npy, else .vti), and the
    steps that have only a picture."""
    folder = os.path.join(run_dir, "snapshots")
    found, pictures = {}, set()
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        m = re.fullmatch(r"u_(\d+)\.(npy|vti|png)", name)
        if not m:
            continue
        step, kind = int(m.group(1)), m.group(2)
        if kind == "png":
            pictures.add(step)
        elif kind == "npy" or step not in found:
            found[step] = os.path.join(folder, name)
    return found, sorted(pictures - set(found))


# The names render_run writes (model.png, u_STEP.png, seismogram_density.png,
# seismogram_wiggle.png) are those a run directory's rules know in plots/ (run_files in
# src/drivers/wave/run_directory.cpp), so that `strata wave --overwrite` removes them with the run.
def render_run(run_dir, out_dir=None, quantile=0.995, gain=None, on_note=None):
    """PNGs of a `strata wave` run directory into out_dir (default RUN_DIR/plots): the model
    with its sources and receivers, every snapshot's slice with one shared clip (from the
    .npy snapshots, else the .vti), and the seismogram as density and as wiggles against
    the offset from the source. What cannot be drawn, and how to get it, is told to
    on_note(text) (default: warnings.warn). Returns the files written."""
    note = on_note or (lambda text: warnings.warn(text, stacklevel=3))
    cfg_path, report_path = os.path.join(run_dir, "config.json"), os.path.join(run_dir, "report.json")
    if not (os.path.isfile(cfg_path) and os.path.isfile(report_path)):
        if os.path.isfile(os.path.join(run_dir, "manifest.json")):
            raise ValueError(f"{run_dir} holds the shots of `strata wave --shots`: render one shot's "
                             f"directory, e.g. python -m strata.plot {os.path.join(run_dir, 'NAME')}")
        raise ValueError(f"{run_dir} is not the directory of a finished `strata wave` run: it has no "
                         "config.json and report.json (a run writes them last)")
    plt = _plt()
    cfg = json.load(open(cfg_path))
    report = json.load(open(report_path))
    out_dir = out_dir or os.path.join(run_dir, "plots")
    os.makedirs(out_dir, exist_ok=True)
    h, dt = cfg["grid"]["spacing"], report["dt"]
    png = cfg.get("output", {}).get("png", {})
    axis = {"x": 0, "y": 1, "z": 2}.get(png.get("axis"), png.get("axis", 1))
    written = []

    def save(fig, name):
        path = os.path.join(out_dir, name)
        _save(fig, path)
        plt.close(fig)
        written.append(path)

    fig, ax = plt.subplots(figsize=(7, 5.5))
    try:
        model(cfg_path, ax=ax)
        save(fig, "model.png")
    except ValueError as e:  # e.g. a model.file given relative to where the run was started
        plt.close(fig)
        note(f"model.png not drawn: {e}")

    snaps, pictures_only = _snapshots(run_dir)
    if snaps:
        steps = sorted(snaps)
        frames = [np.load(snaps[s], mmap_mode="r") if snaps[s].endswith(".npy") else read_vti(snaps[s])
                  for s in steps]
        n = frames[0].shape
        index = png.get("index")
        mid = (n[2] if axis == 0 else n[1] if axis == 1 else n[0]) // 2 if index is None else index
        key = [slice(None)] * 3
        key[2 - axis] = mid
        clip = shared_clip([f[tuple(key)] for f in frames], quantile)
        for step, f in zip(steps, frames):
            fig, ax = plt.subplots(figsize=(7, 5.5))
            wavefield(np.asarray(f), h, axis=axis, index=mid, clip=clip, absorbing=_absorbing(cfg),
                      step=step, time=step * dt, ax=ax)
            save(fig, os.path.basename(snaps[step])[:-4] + ".png")
    if pictures_only:
        note(f"{run_dir}/snapshots holds {len(pictures_only)} snapshot(s) as pictures only "
             "(output.snapshots.npy and .vti were false), from which the wavefield cannot be drawn "
             "again: run again with --set output.snapshots.npy=true to have them drawn here")
    elif not snaps:
        note(f"{run_dir} has no snapshots (output.snapshots.every was 0), so no wavefield is drawn: "
             "run with e.g. --set output.snapshots.every=100 to have them")

    if os.path.exists(os.path.join(run_dir, "seismogram.npy")):
        from .wave import load
        r = load(run_dir, report)
        src = cfg.get("sources", [])
        title = "seismogram" + (f", source at ({', '.join(f'{c:g}' for c in src[0]['position'])}) m"
                                if len(src) == 1 else "")
        for mode in ("density", "wiggle"):
            fig, ax = plt.subplots(figsize=(8, 6))
            seismogram(r.seismogram, r.times, r.receivers, mode=mode, gain=gain, ax=ax, sources=src,
                       title=title)
            save(fig, f"seismogram_{mode}.png")
    else:
        note(f"{run_dir} has no seismogram.npy (the run had no receivers): no seismogram is drawn")
    return written


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m strata.plot",
        description="Render a `strata wave` run directory: model.png, u_STEP.png per snapshot (from the "
                    ".npy or .vti snapshots), seismogram_density.png and seismogram_wiggle.png. By default "
                    "into RUN_DIR/plots, which `strata wave --overwrite` removes with the run's files.")
    p.add_argument("run_dir")
    p.add_argument("--out", help="where the PNGs go (default RUN_DIR/plots)")
    p.add_argument("--clip", type=float, default=0.995, help="quantile of |u| shared by every frame")
    p.add_argument("--agc", type=float, default=None, help="AGC window for the seismogram (s)")
    a = p.parse_args(argv)
    try:
        paths = render_run(a.run_dir, a.out, a.clip, a.agc,
                           on_note=lambda text: print(f"python -m strata.plot: note: {text}", file=sys.stderr))
    except (ValueError, ImportError, OSError) as e:
        print(f"python -m strata.plot: {e}", file=sys.stderr)
        return 1
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
