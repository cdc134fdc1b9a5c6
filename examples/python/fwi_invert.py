"""Full-waveform inversion of a small model with strata.imaging.gradient and SciPy's L-BFGS-B.

The true model is a layered background (1500 m/s over 2000 m/s) with a slow lens (-200 m/s)
in the upper layer, between two wells: shots down the left one, receivers down the right one
(a cross-well survey: waves through the lens). The inversion starts from the background
alone and updates m = 1/v^2 between the wells, inside the absorbing layers, the misfit and
its gradient summed over the shots; one time step for every model tried (the stable step of
the fastest velocity the bounds allow). The grid is a thin slab periodic in y (every shot a
line source: a 2D experiment on the 3D engine), and the model is one x-z section, the same at
every y. Pictures: the true, starting and inverted models (x and depth in metres, velocity in
m/s) and the misfit against the gradient evaluation. Checked at the end: the misfit falls at
least twentyfold and the lens's velocity error at least halves.
    python examples/python/fwi_invert.py [--small] [--out DIR] [--iterations N]"""
import argparse
import os
import time

import numpy as np
from scipy.optimize import minimize

import strata

p = argparse.ArgumentParser()
p.add_argument("--small", action="store_true", help="the CI size: a smaller grid, fewer shots")
p.add_argument("--out", default="fwi-invert")
p.add_argument("--iterations", type=int, default=0, help="L-BFGS iterations (default 20 small, 40)")
args = p.parse_args()
nx, nz, shots, seconds_recorded = (56, 36, 4, 0.5) if args.small else (100, 60, 8, 0.8)
iterations = args.iterations or (20 if args.small else 40)
ny, h, pml = 4, 10.0, 8
os.makedirs(args.out, exist_ok=True)

x = np.arange(nx) * h
z = np.arange(nz) * h
X, Z = np.meshgrid(x, z)  # (nz, nx)
background = np.where(Z < 0.6 * nz * h, 1500.0, 2000.0)
lens = -200.0 * np.exp(-((X - 0.5 * nx * h) ** 2 + (Z - 0.4 * nz * h) ** 2) / (2 * (0.07 * nx * h) ** 2))
true = background + lens

xw_s, xw_r = (pml + 2) * h, (nx - pml - 3) * h  # the two wells: sources left, receivers right
ztop, zbot = (pml + 2) * h, (nz - pml - 3) * h
ym = 0.5 * ny * h  # mid-slab (the slab is periodic in y)
config = {
    "grid": {"shape": [nx, ny, nz], "spacing": h},
    "time": {"steps": 1},
    "scheme": {"order": 8, "precision": "f64"},
    "sources": [{"position": [xw_s, ym, ztop], "frequency": 10.0}],
    "receivers": {"every": 1, "lines": [{"start": [xw_r, ym, ztop], "end": [xw_r, ym, zbot],
                                         "count": nz - 2 * pml - 4}]},
    "boundary": {"ymin": "periodic", "ymax": "periodic", "pml": {"width": pml}},
}
vmin, vmax = 1300.0, 2500.0  # the bounds of the inversion


def slab(section):  # one x-z section at every y: (nz, ny, nx)
    return np.ascontiguousarray(np.broadcast_to(section[:, None, :], (nz, ny, nx)))


# One time step for every model the inversion may try: strata chooses dt from the fastest
# velocity of the model, so without this a model faster than the last would be sampled at
# another dt and its misfit would jump. The stable step of vmax everywhere:
dt = strata.imaging.dt(config, velocity=slab(np.full((nz, nx), vmax)))
steps = int(np.ceil(seconds_recorded / dt))
config["time"] = {"steps": steps, "dt": dt}
zs = np.linspace(ztop, zbot, shots)  # the shots down the left well


def shot_config(i):
    c = dict(config)
    c["sources"] = [{**config["sources"][0], "position": [xw_s, ym, float(zs[i])]}]
    return c


# The data of the true model, one shot at a time (the gradient run's predicted data).
t0 = time.perf_counter()
observed = [strata.imaging.gradient(shot_config(i), velocity=slab(true))["predicted"] for i in range(shots)]

# Updated: the unknowns.
free = np.zeros((nz, nx), bool)  # between the wells, inside the absorbing layers
free[pml:nz - pml, pml + 5:nx - pml - 5] = True
m0 = 1.0 / background**2
scale = m0[free]  # unknowns are m / m0 where free: O(1) for L-BFGS
history = []


def misfit_and_gradient(q):
    m = m0.copy()
    m[free] = q * scale
    v = slab(1.0 / np.sqrt(m))
    J, G = 0.0, np.zeros((nz, nx))
    for i in range(shots):
        r = strata.imaging.gradient(shot_config(i), observed[i], velocity=v, illumination=False)
        J += r["misfit"]
        G += r["gradient"].sum(axis=1)  # the section's m is every y's
    history.append(J)
    return J, G[free] * scale


J0 = misfit_and_gradient(np.ones(free.sum()))[0]
history.clear()
def f(q):  # misfit and gradient over the starting misfit
    J, g = misfit_and_gradient(q)
    return J / J0, g / J0


bounds = [(1.0 / vmax**2 / s, 1.0 / vmin**2 / s) for s in scale]
res = minimize(f, np.ones(free.sum()), jac=True, method="L-BFGS-B", bounds=bounds,
               options={"maxiter": iterations})
m = m0.copy()
m[free] = res.x * scale
inverted = 1.0 / np.sqrt(m)
seconds = time.perf_counter() - t0

region = free & (np.abs(lens) > 25.0)  # where the lens is
err0 = np.sqrt(np.mean((background - true)[region] ** 2))
err1 = np.sqrt(np.mean((inverted - true)[region] ** 2))
print(f"{shots} shots, {nx} x {ny} x {nz} points, {steps} steps; {res.nit} L-BFGS iterations, "
      f"{len(history)} gradients, {seconds:.1f} s")
print(f"misfit {history[0]:.4e} -> {min(history):.4e} ({min(history) / history[0]:.2e} of the start)")
print(f"velocity error in the lens (rms): {err0:.1f} m/s at the start, {err1:.1f} m/s inverted")
np.save(os.path.join(args.out, "inverted.npy"), inverted)

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no pictures")
else:
    fig, axes = plt.subplots(1, 4, figsize=(17, 3.6), gridspec_kw={"width_ratios": [1, 1, 1, 0.8]})
    extent = [0, (nx - 1) * h, (nz - 1) * h, 0]
    for ax, (title, model) in zip(axes, [("true", true), ("start (background)", background),
                                         (f"inverted ({res.nit} iterations)", inverted)]):
        im = ax.imshow(model, extent=extent, cmap="viridis", vmin=1200, vmax=2100, aspect="equal")
        ax.plot([xw_s] * shots, zs, "r*", ms=7, label="sources")
        ax.plot([xw_r, xw_r], [ztop, zbot], "-", color="orange", lw=2, label="receivers")
        ax.set(title=title, xlabel="x (m)", ylabel="depth (m)")
        fig.colorbar(im, ax=ax, label="velocity (m/s)", shrink=0.8)
    axes[0].legend(loc="lower left", fontsize=7)
    axes[3].semilogy(np.arange(len(history)), np.array(history) / history[0], "o-", ms=3)
    axes[3].set(title="misfit", xlabel="gradient evaluation", ylabel="misfit / starting misfit")
    axes[3].grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    path = os.path.join(args.out, "fwi.png")
    fig.savefig(path, dpi=110)
    print("wrote", path)

# What the example shows, checked: the misfit falls and the lens is found.
assert min(history) < 0.05 * history[0], "the misfit did not fall twentyfold"
assert err1 < 0.5 * err0, "the inverted lens is not closer to the truth than the background"
