"""A Poisson solve: -Lap(u) = f with u = sin(pi x) sin(pi y) sin(pi z) on the unit cube
(Dirichlet 0), by multigrid from NumPy; the error against the exact solution and the
residual history plotted.  python examples/python/poisson_solve.py [--small] [--out DIR]"""
import argparse
import os

import numpy as np

import strata
import strata.plot

p = argparse.ArgumentParser()
p.add_argument("--small", action="store_true")
p.add_argument("--out", default="poisson-out")
args = p.parse_args()
N = 31 if args.small else 127          # unknowns per axis; boundary planes outside
h = 1.0 / (N + 1)
x = (np.arange(N) + 1) * h             # vertex-centred Dirichlet: unknown i at (i + 1) h
Z, Y, X = np.meshgrid(x, x, x, indexing="ij")
exact = np.sin(np.pi * X) * np.sin(np.pi * Y) * np.sin(np.pi * Z)
f = 3 * np.pi ** 2 * exact

u, report = strata.poisson.solve(f, bc="dirichlet", solver="mg", rtol=1e-8, precision="f64",
                                 on_iteration=lambda it: print(f"  iteration {it['iteration']}: "
                                                               f"residual {it['rel_residual']:.3e}"))
err = np.abs(np.asarray(u) - exact).max()
print(f"{N}^3: {report.message}, {report.iterations} V-cycles, residual {report.rel_residual:.2e}, "
      f"max error vs exact {err:.2e} (h^2 = {h * h:.2e})")
assert report.converged and err < 2 * h * h

os.makedirs(args.out, exist_ok=True)
ax = strata.plot.residuals(report)
path = os.path.join(args.out, "residuals.png")
ax.figure.savefig(path, dpi=110, bbox_inches="tight")
print("wrote", path)
