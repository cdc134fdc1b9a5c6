#!/usr/bin/env bash
# Configures and builds strata (Release), installing the Debian build dependencies first if
# they are missing and this user may install them. The CUDA backend is built where a GPU is
# visible, for its architecture, else the CPU backend only (cmake/StrataCuda.cmake decides
# and says so in one line).
# Usage: tools/build.sh [preset [target ...]]   (release | debug | cpu; default release;
#        the targets default to all: the library, CLI, lab and tests)
# Environment: STRATA_CUDA=ON|OFF|AUTO (ON: compile the CUDA backend without a GPU, as CI
# does), STRATA_PYTHON=ON (also the Python package), STRATA_CLI11_COMPAT (see below).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
targets=("${@:2}")
extra=()
[ -z "${STRATA_CUDA:-}" ] || extra+=("-DSTRATA_CUDA=$STRATA_CUDA")
# STRATA_CLI11_COMPAT (CLI11 include directories, ';'-separated, from tools/fetch-cli11.sh):
# also build the CLI against each and run the CLI tests with it (see apps/strata).
[ -z "${STRATA_CLI11_COMPAT:-}" ] || extra+=("-DSTRATA_CLI11_COMPAT=$STRATA_CLI11_COMPAT")
# STRATA_PYTHON=ON: also build the Python package in the tree (<build>/python/strata) and
# register its pytest suite and examples with CTest (python/CMakeLists.txt).
[ -z "${STRATA_PYTHON:-}" ] || extra+=("-DSTRATA_PYTHON=$STRATA_PYTHON")

can_install=0
command -v apt-get >/dev/null && [ "$(id -u)" = 0 ] && can_install=1
missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v g++ >/dev/null || missing+=(g++)
command -v python3 >/dev/null || missing+=(python3)
# The presets build with Ninja; without it (and no way to install it) CMake's default
# generator builds the same tree, only with less output.
if ! command -v ninja >/dev/null; then
  if ((can_install)); then missing+=(ninja-build); fi
fi
log=$(mktemp "${TMPDIR:-/tmp}/strata-configure.XXXXXX")
trap 'rm -f "$log"' EXIT
configure() {
  local gen=()
  command -v ninja >/dev/null || gen=(-G "Unix Makefiles")
  cmake --preset "$preset" ${gen[@]+"${gen[@]}"} ${extra[@]+"${extra[@]}"} >"$log" 2>&1
}
if ((${#missing[@]} == 0)) && ! configure; then
  # Configure failed: most likely a library package is missing.
  missing+=(libgtest-dev libcli11-dev nlohmann-json3-dev libomp-dev zlib1g-dev)
fi
if ((${#missing[@]})); then
  if ((can_install)); then
    echo "installing build dependencies: ${missing[*]}" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "missing build dependencies: ${missing[*]} (install them, e.g. with apt-get)" >&2
    cat "$log" >&2
    exit 1
  fi
  configure || { cat "$log" >&2; exit 1; }
fi
grep -E "strata: CUDA backend" "$log" >&2 || true
cmake --build --preset "$preset" --parallel "$(nproc)" ${targets[@]+--target "${targets[@]}"}
