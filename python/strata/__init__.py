"""strata: stencils, reductions and solvers on padded 3D grids, with NumPy views.

>>> import numpy as np, strata
>>> f = strata.Field((16, 16, 16), dtype="float32")
>>> f.interior[...] = np.random.rand(16, 16, 16)   # writes into the Field's memory
>>> lap = strata.apply("7pt", f, bc="neumann")       # a new Field
>>> strata.norm2(lap)

Arrays are indexed [z][y][x] (x fastest), as in the strata CLI's .npy files.
"""
from ._strata import Field, apply, dot, max_abs, norm2, sum

__all__ = ["Field", "apply", "dot", "max_abs", "norm2", "sum"]
__version__ = "0.1.0"
