"""strata.plot: pictures a geophysicist can read (matplotlib). Axes in metres and seconds,
a colour bar, one clip shared across a series of frames, titles with step and time, the
absorbing layers outlined; seismograms as variable density or wiggles with optional AGC;
the Poisson residual history.

    python -m strata.plot RUN_DIR [--out DIR]   renders a `strata wave` output directory
"""
import argparse
import glob
import json
import os
import re

import numpy as np


def _plt():
    import matplotlib
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
    if absorbing:
        w = {k: absorbing.get(k, 0) * h for k in ("xmin", "xmax", "ymin", "ymax", "zmin", "zmax")}
        a0, a1 = w[_AXES[ha] + "min"], n[ha] * h - w[_AXES[ha] + "max"]
        b0, b1 = w[_AXES[va] + "min"], n[va] * h - w[_AXES[va] + "max"]
        ax.plot([a0, a1, a1, a0, a0], [b0, b0, b1, b1, b0], "k--", lw=1,
                label="inside the absorbing layers")
        ax.legend(loc="lower right", fontsize="small")
    parts = [title or f"u, {_AXES[axis]} = {(index + 0.5) * h:g} m"]
    if step is not None:
        parts.append(f"step {step}")
    if time is not None:
        parts.append(f"t = {time:.4g} s")
    ax.set_title(", ".join(parts))
    return im


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


def offsets(receivers):
    """Distance (m) of each receiver from the first, along the line they form."""
    r = np.asarray(receivers, dtype=np.float64)
    return np.linalg.norm(r - r[0], axis=1) if len(r) else r


def seismogram(traces, times, receivers=None, mode="density", gain=None, clip=None, ax=None,
               title="seismogram", max_wiggles=60):
    """traces (samples, receivers) against time (s, downwards). mode: 'density' (variable
    density, shared colour bar) or 'wiggle' (traces, positive lobes filled). gain: an AGC
    window in seconds (None: true amplitudes). receivers (n, 3): the horizontal axis is the
    offset in metres; else the receiver number."""
    plt = _plt()
    t = np.asarray(traces, dtype=np.float64)
    times = np.asarray(times, dtype=np.float64)
    if gain:
        dt = times[1] - times[0] if len(times) > 1 else 1.0
        t = agc(t, gain / dt)
    x = offsets(receivers) if receivers is not None else np.arange(t.shape[1], dtype=np.float64)
    xlabel = "offset (m)" if receivers is not None else "receiver"
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 6))
    clip = clip if clip is not None else shared_clip([t], 0.99)
    if mode == "density":
        dx = (x[-1] - x[0]) / max(len(x) - 1, 1) if len(x) > 1 else 1.0
        im = ax.imshow(t, cmap="gray_r" if gain else "seismic", vmin=-clip, vmax=clip,
                       aspect="auto", interpolation="bilinear",
                       extent=(x[0] - dx / 2, x[-1] + dx / 2, times[-1], times[0]))
        ax.figure.colorbar(im, ax=ax, label="u (AGC)" if gain else "u")
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


def render_run(run_dir, out_dir=None, quantile=0.995, gain=None):
    """PNGs of a `strata wave` output directory into out_dir (default RUN_DIR/plots): every
    snapshot slice with one shared clip, and the seismogram as density and as wiggles.
    Returns the files written."""
    plt = _plt()
    cfg = json.load(open(os.path.join(run_dir, "config.json")))
    report = json.load(open(os.path.join(run_dir, "report.json")))
    out_dir = out_dir or os.path.join(run_dir, "plots")
    os.makedirs(out_dir, exist_ok=True)
    h, dt = cfg["grid"]["spacing"], report["dt"]
    png = cfg.get("output", {}).get("png", {})
    axis = {"x": 0, "y": 1, "z": 2}.get(png.get("axis"), png.get("axis", 1))
    written = []
    snaps = sorted(glob.glob(os.path.join(run_dir, "snapshots", "*.npy")))
    if snaps:
        frames = [np.load(s, mmap_mode="r") for s in snaps]
        n = frames[0].shape
        index = png.get("index")
        mid = (n[2] if axis == 0 else n[1] if axis == 1 else n[0]) // 2 if index is None else index
        key = [slice(None)] * 3
        key[2 - axis] = mid
        clip = shared_clip([f[tuple(key)] for f in frames], quantile)
        for s, f in zip(snaps, frames):
            step = int(re.findall(r"\d+", os.path.basename(s))[-1])
            fig, ax = plt.subplots(figsize=(7, 5.5))
            wavefield(np.asarray(f), h, axis=axis, index=mid, clip=clip, absorbing=_absorbing(cfg),
                      step=step, time=step * dt, ax=ax)
            path = os.path.join(out_dir, os.path.basename(s)[:-4] + ".png")
            fig.savefig(path, dpi=110, bbox_inches="tight")
            plt.close(fig)
            written.append(path)
    seis = os.path.join(run_dir, "seismogram.npy")
    if os.path.exists(seis):
        from .wave import load
        r = load(run_dir, report)
        for mode in ("density", "wiggle"):
            fig, ax = plt.subplots(figsize=(8, 6))
            seismogram(r.seismogram, r.times, r.receivers, mode=mode, gain=gain, ax=ax)
            path = os.path.join(out_dir, f"seismogram_{mode}.png")
            fig.savefig(path, dpi=110, bbox_inches="tight")
            plt.close(fig)
            written.append(path)
    return written


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m strata.plot", description="Render a `strata wave` output directory")
    p.add_argument("run_dir")
    p.add_argument("--out", help="where the PNGs go (default RUN_DIR/plots)")
    p.add_argument("--clip", type=float, default=0.995, help="quantile of |u| shared by every frame")
    p.add_argument("--agc", type=float, default=None, help="AGC window for the seismogram (s)")
    a = p.parse_args(argv)
    for path in render_run(a.run_dir, a.out, a.clip, a.agc):
        print(path)


if __name__ == "__main__":
    main()
