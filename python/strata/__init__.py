"""strata: stencils, reductions and solvers on padded 3D grids, zero-copy with NumPy,
CuPy and PyTorch.

>>> import numpy as np, strata
>>> f = strata.Field((16, 16, 16), dtype="float32")
>>> f.interior[...] = np.random.rand(16, 16, 16)   # writes into the Field's memory
>>> lap = strata.apply("7pt", f, bc="neumann")       # a new Field
>>> strata.norm2(lap)

Arrays are indexed [z][y][x] (x fastest), as in the strata CLI's .npy files.
Submodules: strata.poisson (solve), strata.wave (run, simulate), strata.plot (matplotlib),
strata.bench (timings).
"""
from ._strata import (Field, apply, cpu_fft_available, cpu_fft_unavailable_reason, cuda_available,
                      cuda_unavailable_reason, dot, max_abs, norm2, release_scratch, steps, sum,
                      synchronize)
from . import bench, poisson, wave

__all__ = ["Field", "apply", "cpu_fft_available", "cpu_fft_unavailable_reason", "cuda_available",
           "cuda_unavailable_reason", "dot", "max_abs", "norm2", "release_scratch", "steps", "sum",
           "synchronize", "bench", "poisson", "wave"]
__version__ = "0.1.0"
