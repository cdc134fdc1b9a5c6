"""strata: stencils, reductions and solvers on padded 3D grids, zero-copy with NumPy,
CuPy and PyTorch.

>>> import numpy as np, strata
>>> f = strata.Field((16, 16, 16), dtype="float32")
>>> f.interior[...] = np.random.rand(16, 16, 16)   # writes into the Field's memory
>>> lap = strata.apply("7pt", f, bc="neumann")       # a new Field
>>> strata.norm2(lap)

Arrays are indexed [z][y][x] (x fastest), as in the strata CLI's .npy files; a Field is an
array to NumPy (np.asarray(f), copy-free on the host), CuPy and PyTorch (DLPack, and
__cuda_array_interface__ on the GPU). The default stencils compute +Lap(u) (+2 on x**2);
strata.poisson.solve solves -Lap(u) = f.
Submodules: strata.poisson (solve), strata.wave (run, load), strata.run (the CLI's apply and
poisson on .npy files, distributed under mpirun), strata.plot (pictures with
matplotlib, imported only when one is drawn), strata.bench (timings), strata.imaging (the
FWI gradient, reverse-time migration and the Born operator on the wave engine).
"""
from ._strata import (Field, apply, cpu_fft_available, cpu_fft_unavailable_reason, cuda_available,
                      cuda_unavailable_reason, dot, max_abs, norm2, release_scratch, steps, sum,
                      synchronize)
from . import bench, imaging, poisson, run, wave

__all__ = ["Field", "apply", "cpu_fft_available", "cpu_fft_unavailable_reason", "cuda_available",
           "cuda_unavailable_reason", "dot", "max_abs", "norm2", "release_scratch", "steps", "sum",
           "synchronize", "bench", "imaging", "plot", "poisson", "run", "wave"]
__version__ = "0.1.0"


def __getattr__(name):
    # strata.plot on first use: `python -m strata.plot` then runs a module not yet imported
    # (runpy warns otherwise), and matplotlib is imported only when a picture is drawn.
    if name == "plot":
        import importlib
        return importlib.import_module(".plot", __name__)
    raise AttributeError(f"module 'strata' has no attribute {name!r}")
