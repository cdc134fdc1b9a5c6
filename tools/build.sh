#!/usr/bin/env bash
# Configures and builds strata (Release; the CUDA backend when nvcc is found), installing the
# Debian build dependencies first if they are missing and this user may install them.
# Usage: tools/build.sh [preset]   (release | debug | cpu; default release)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
# STRATA_CLI11_COMPAT (CLI11 include directories, ';'-separated, from tools/fetch-cli11.sh):
# also build the CLI against each and run the CLI tests with it (see apps/strata).
extra=()
[ -z "${STRATA_CLI11_COMPAT:-}" ] || extra+=("-DSTRATA_CLI11_COMPAT=$STRATA_CLI11_COMPAT")
# STRATA_PYTHON=ON: also build the Python package in the tree (<build>/python/strata) and
# register its pytest suite and examples with CTest (python/CMakeLists.txt).
[ -z "${STRATA_PYTHON:-}" ] || extra+=("-DSTRATA_PYTHON=$STRATA_PYTHON")

missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
command -v g++ >/dev/null || missing+=(g++)
command -v python3 >/dev/null || missing+=(python3)
if ! cmake --preset "$preset" ${extra[@]+"${extra[@]}"} >/tmp/strata-configure.log 2>&1; then
  # Configure failed: most likely a library package is missing.
  missing+=(libgtest-dev libcli11-dev nlohmann-json3-dev libomp-dev zlib1g-dev)
fi
if ((${#missing[@]})); then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "installing build dependencies: ${missing[*]}" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "missing build dependencies: ${missing[*]} (install them, e.g. with apt-get)" >&2
    cat /tmp/strata-configure.log >&2 || true
    exit 1
  fi
  cmake --preset "$preset" ${extra[@]+"${extra[@]}"} >/tmp/strata-configure.log 2>&1 || { cat /tmp/strata-configure.log >&2; exit 1; }
fi
grep -E "strata: CUDA backend" /tmp/strata-configure.log >&2 || true
cmake --build --preset "$preset"
