"""A NumPy reference for every stencil strata.apply knows (np.pad for the boundaries)."""
import itertools

import numpy as np

# Central-difference coefficients of d2/dx2 (order 2, 4, 6, 8), as Stencil::laplacian.
_LAPLACIAN_1D = {
    1: [-2.0, 1.0],
    2: [-5.0 / 2, 4.0 / 3, -1.0 / 12],
    3: [-49.0 / 18, 3.0 / 2, -3.0 / 20, 1.0 / 90],
    4: [-205.0 / 72, 8.0 / 5, -1.0 / 5, 8.0 / 315, -1.0 / 560],
}


def laplacian_star(radius):
    c = list(_LAPLACIAN_1D[radius])
    c[0] *= 3.0
    return c


# The trilinear finite-element +Laplacian (sym27's default): minus the paper's stiffness
# stencil 8/3, 0, -1/6, -1/12 (+Lap, as the central differences above).
FE27 = [-8.0 / 3, 0.0, 1.0 / 6, 1.0 / 12]


def weights(kind, coeffs):
    """{(dz, dy, dx): weight} for a stencil of strata's three families."""
    w = {}
    if kind == "star":
        w[(0, 0, 0)] = coeffs[0]
        for r, c in enumerate(coeffs[1:], start=1):
            for axis in range(3):
                for sign in (-1, 1):
                    d = [0, 0, 0]
                    d[axis] = sign * r
                    w[tuple(d)] = c
    elif kind == "sym27":
        for d in itertools.product((-1, 0, 1), repeat=3):
            w[d] = coeffs[sum(map(abs, d))]
    else:  # box27: K[dz+1][dy+1][dx+1]
        k = np.asarray(coeffs).reshape(3, 3, 3)
        for d in itertools.product((-1, 0, 1), repeat=3):
            w[d] = k[d[0] + 1, d[1] + 1, d[2] + 1]
    return w


def pad(a, r, bc):
    if bc.startswith("dirichlet"):
        value = float(bc.split(":")[1]) if ":" in bc else 0.0
        return np.pad(a, r, mode="constant", constant_values=value)
    return np.pad(a, r, mode={"neumann": "symmetric", "periodic": "wrap"}[bc])


def reference(a, kind, coeffs, bc):
    """The stencil in float64 and a tolerance per point (abs + |terms| * eps * count)."""
    w = weights(kind, coeffs)
    r = max(max(map(abs, d)) for d in w)
    p = pad(a.astype(np.float64), r, bc)
    nz, ny, nx = a.shape
    out = np.zeros(a.shape)
    mag = np.zeros(a.shape)
    for (dz, dy, dx), c in w.items():
        s = p[r + dz : r + dz + nz, r + dy : r + dy + ny, r + dx : r + dx + nx]
        out += c * s
        mag += abs(c * s)
    eps = np.finfo(a.dtype).eps
    return out, 1e-30 + mag * eps * 4 * len(w)


