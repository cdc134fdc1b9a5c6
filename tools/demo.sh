#!/usr/bin/env bash
# The main job from a fresh clone: build the CLI, then `strata demo` (checks every stencil and
# benchmarks it on the GPU if there is one, else on the CPU). The CUDA backend is built only
# where a GPU is visible (tools/build.sh). Extra args go to the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/build.sh release strata_cli
exec build/release/strata demo "$@"
