#!/usr/bin/env bash
# README's Python install routes, as a new user runs them: a clean clone of this checkout's
# HEAD, a fresh virtual environment per route, then `import strata` and a small apply checked
# against NumPy. CI runs it (.ci/run); it needs network access for the online route and for
# fetching the offline route's build requirements.
#   online   pip install -v .     (pip fetches the build requirements itself)
#   offline  pip install --no-build-isolation --no-index -v .   with the build requirements
#            installed first; tried once without numpy, which must stop at configure with a
#            message naming numpy (it used to fail at the last build step)
# Each build must print exactly one "strata: CUDA backend" line, and the installed module must
# agree with it. Usage: tools/pip-check.sh [online] [offline]   (default: both)
# WORK=dir keeps the clone, environments and logs there (default: a temporary directory).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
routes=${*:-online offline}
work=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/strata-pip-check.XXXXXX")}
[ -n "${WORK:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
# ccache, where installed, serves the second route the objects the first one compiled (its
# clone is another directory: paths below $work are hashed relative to it).
if command -v ccache >/dev/null; then
  export CMAKE_ARGS="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache" CCACHE_BASEDIR=$work
fi

fail() { echo "pip-check: $*" >&2; exit 1; }

# built ROUTE LOG VENV: the one CUDA line of the build, then the installed package used
# (packaging/smoke_test.py: an apply against NumPy, CUDA in the build exactly as it said).
built() {
  local route=$1 log=$2 venv=$3 lines
  lines=$(grep -c "strata: CUDA backend" "$log" || true)
  [ "$lines" = 1 ] || fail "$route: $lines 'strata: CUDA backend' lines in the build output (one expected): $log"
  echo "$route: $(grep -o "strata: CUDA backend.*" "$log")"
  local want=no
  if grep -q "strata: CUDA backend ON" "$log"; then want=yes; fi
  (cd "$work" && "$venv/bin/python" "$src/packaging/smoke_test.py" --cuda "$want") ||
    fail "$route: the installed package failed (build log: $log)"
}

for route in $routes; do
  src=$work/src-$route venv=$work/venv-$route log=$work/$route.log
  rm -rf "$src" "$venv"
  git clone -q "$root" "$src"
  python3 -m venv "$venv"
  case $route in
    online)
      (cd "$src" && "$venv/bin/pip" install -v . >"$log" 2>&1) || { tail -40 "$log" >&2; fail "online: pip install -v . failed ($log)"; }
      ;;
    offline)
      # The build requirements of pyproject.toml, all but numpy: the build must refuse early
      # (--no-deps: pip would otherwise stop before building, finding no numpy to install).
      "$venv/bin/pip" install -q "scikit-build-core>=0.11" "nanobind>=2.0"
      if (cd "$src" && "$venv/bin/pip" install --no-build-isolation --no-index --no-deps -v . >"$log" 2>&1); then
        fail "offline: the build without numpy succeeded, so its stub step no longer needs numpy: update this check and README"
      fi
      grep -q "STRATA_PYTHON=ON needs numpy" "$log" || { tail -40 "$log" >&2; fail "offline: without numpy the build did not stop at configure naming numpy ($log)"; }
      ! grep -q "Building CXX object" "$log" || fail "offline: without numpy the build compiled before refusing ($log)"
      echo "offline: without numpy the build stops at configure: $(grep -o "STRATA_PYTHON=ON needs numpy[^:]*" "$log")"
      "$venv/bin/pip" install -q "numpy>=1.22"
      (cd "$src" && "$venv/bin/pip" install --no-build-isolation --no-index -v . >"$log" 2>&1) || { tail -40 "$log" >&2; fail "offline: pip install --no-build-isolation --no-index -v . failed ($log)"; }
      ;;
    *) fail "unknown route '$route' (online, offline)" ;;
  esac
  built "$route" "$log" "$venv"
done
echo "pip-check: $routes passed"
