#!/usr/bin/env python3
"""An installed strata package works: it imports, applies a general 27-point stencil that
NumPy checks, was built with CUDA or not as expected, and its metadata carries the licence
(License-Expression and the LICENSE file, PEP 639). Run from outside the source tree
(so the installed package is the one imported) by tools/pip-check.sh and by cibuildwheel.
Usage: smoke_test.py [--cuda yes|no|any]   (default any)"""
import argparse
from importlib import metadata

import numpy as np

import strata

parser = argparse.ArgumentParser()
parser.add_argument("--cuda", choices=["yes", "no", "any"], default="any",
                    help="whether the build is expected to have the CUDA backend")
args = parser.parse_args()

built_with_cuda = strata.cuda_unavailable_reason() != "built without CUDA"
if args.cuda != "any" and built_with_cuda != (args.cuda == "yes"):
    raise SystemExit(f"expected a build {'with' if args.cuda == 'yes' else 'without'} CUDA; "
                     f"cuda_unavailable_reason() = {strata.cuda_unavailable_reason()!r}")

dist = metadata.distribution("strata")
if dist.metadata["License-Expression"] != "BSD-3-Clause":
    raise SystemExit(f"License-Expression is {dist.metadata['License-Expression']!r}, expected BSD-3-Clause")
licence = [f for f in dist.files or [] if f.name == "LICENSE"]
if not licence or not licence[0].read_text().startswith("BSD 3-Clause License"):
    raise SystemExit(f"the installed distribution has no BSD-3-Clause LICENSE file: {dist.files}")

# y = sum K[dz+1][dy+1][dx+1] x[z+dz, y+dy, x+dx] with periodic ghosts, random K and x.
rng = np.random.default_rng(37)
x = rng.random((6, 7, 9))
k = rng.uniform(-1.0, 1.0, (3, 3, 3))
y = strata.apply("box27", x, bc="periodic", coeffs=list(k.ravel()))
ref = sum(k[dz + 1, dy + 1, dx + 1] * np.roll(x, (-dz, -dy, -dx), axis=(0, 1, 2))
          for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1))
err = float(np.max(np.abs(y - ref)))
if not err < 1e-13:
    raise SystemExit(f"box27 against NumPy: max error {err}")
print(f"strata {strata.__version__} from {strata.__file__} (CUDA backend: {'yes' if built_with_cuda else 'no'}, "
      f"licence {dist.metadata['License-Expression']}): box27 on 6x7x9 matches NumPy (max error {err:.1e})")
