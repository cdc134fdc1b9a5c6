#!/usr/bin/env bash
# The main job from a fresh clone: build, then `strata demo` (checks every stencil and
# benchmarks it on the GPU if there is one, else on the CPU). Extra args go to the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/build.sh release
exec build/release/strata demo "$@"
