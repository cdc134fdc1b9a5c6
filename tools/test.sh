#!/usr/bin/env bash
# The whole test suite from a fresh clone: build, then every CTest test. GPU tests run when a
# GPU is visible and are reported as skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/build.sh release
python3 -c "import numpy" 2>/dev/null || python3 -m pip install -q numpy 2>/dev/null || \
  echo "numpy unavailable: the NumPy cross-check will be skipped" >&2
ctest --preset release -j "$(nproc)" "$@"
