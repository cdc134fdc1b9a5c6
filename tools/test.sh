#!/usr/bin/env bash
# The whole test suite from a fresh clone: build, then every CTest test. GPU tests run when a
# GPU is visible and are reported as skipped otherwise.
# Where GPUs are visible, CTest is given them (build/release/ctest-gpus.json, a resource spec
# file) and each GPU test takes one slot of one GPU (STRATA_TEST_GPU_SLOTS per GPU, default 8),
# seeing that GPU alone: a multi-GPU host shares the GPU tests over all of its GPUs instead of
# running every one on GPU 0. The distributed tests keep one rank per GPU as mpirun gives it.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/build.sh release
python3 -c "import numpy" 2>/dev/null || python3 -m pip install -q numpy 2>/dev/null || \
  echo "numpy unavailable: the NumPy cross-check will be skipped" >&2

# The GPUs this process may use, as CUDA counts them: CUDA_VISIBLE_DEVICES's entries where it
# is set, else nvidia-smi's list (0 without either).
visible_gpus() {
  if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
    local n=0 e
    IFS=',' read -ra entries <<<"$CUDA_VISIBLE_DEVICES"
    for e in "${entries[@]}"; do [ -n "${e// /}" ] && n=$((n + 1)); done
    echo "$n"
  elif command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true
  else
    echo 0
  fi
}

spec=()
gpus=$(visible_gpus)
slots=${STRATA_TEST_GPU_SLOTS:-8}
if [[ ! "$slots" =~ ^[1-9][0-9]*$ ]]; then
  echo "tools/test.sh: STRATA_TEST_GPU_SLOTS='$slots' must be a positive whole number" >&2
  exit 2
fi
if [ "${gpus:-0}" -gt 0 ]; then
  file=$PWD/build/release/ctest-gpus.json  # absolute: ctest reads it from the build folder
  {
    echo '{"version": {"major": 1, "minor": 0}, "local": [{"gpus": ['
    for ((i = 0; i < gpus; i++)); do
      echo "  {\"id\": \"$i\", \"slots\": $slots}$([ $i -lt $((gpus - 1)) ] && echo ,)"
    done
    echo ']}]}'
  } >"$file"
  spec=(--resource-spec-file "$file")
  echo "tools/test.sh: $gpus GPU(s) visible: GPU tests shared over them ($slots at a time each)"
fi
ctest --preset release -j "$(nproc)" "${spec[@]}" "$@"
