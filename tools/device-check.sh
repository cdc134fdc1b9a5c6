#!/usr/bin/env bash
# One call on the GPU machine: build (or reuse a carried build), run every test, benchmark,
# and keep the figures. Writes bench/results/<gpu>.json and copies logs and JSON to $OUT.
# Usage: tools/device-check.sh [stage ...]
#   stages: build test bench variants sanitize profile   (default: build test bench)
#   STRATA_BUILD=dir   build directory (default build/device; reused if its strata runs)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/build/device-out}
BUILD=${STRATA_BUILD:-build/device}
LOGS="$OUT/logs"
mkdir -p "$LOGS"
stages=${*:-build test bench}
status=0
say() { echo "== $*" | tee -a "$OUT/summary.txt"; }
has() { [[ " $stages " == *" $1 "* ]]; }
run() {  # run NAME CMD... : logs to $OUT/NAME.log, records pass/fail in the summary
  local name=$1; shift
  local t0=$SECONDS
  timeout "${STEP_TIMEOUT:-420}" "$@" >"$LOGS/$name.log" 2>&1
  local rc=$?
  say "$name: rc=$rc ($((SECONDS - t0)) s)"
  tail -n 25 "$LOGS/$name.log"
  [ $rc -eq 0 ] || status=1
  return $rc
}

nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version --format=csv | tee "$LOGS/gpu.txt"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9-')

if has build; then
  if [ -x "$BUILD/strata" ] && "$BUILD/strata" --version >/dev/null 2>&1; then
    say "build: reusing $BUILD ($("$BUILD/strata" --version))"
  else
    run configure cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DSTRATA_STENCIL_LAB=ON -DSTRATA_PTXAS_VERBOSE=ON
    run build cmake --build "$BUILD" -j "$(nproc)" || exit 1
    grep -E "registers|spill" "$LOGS/build.log" | sort | uniq -c | sort -rn | head -5
  fi
fi
S="$BUILD/strata"
"$S" info | tee -a "$OUT/summary.txt"

if has test; then
  for t in "$BUILD"/tests/strata_test_*; do
    run "$(basename "$t")" "$t" --gtest_brief=1
  done
  run cli_contract python3 tests/cli/test_cli.py "$S"
  run cli_numpy python3 tests/cli/test_apply_numpy.py "$S"
fi

if has bench; then
  mkdir -p bench/results
  run bench_default "$S" bench --kernel all --sweep --json "bench/results/$gpu.json"
  cp "bench/results/$gpu.json" "$OUT/"
fi

if has variants; then
  run bench_variants "$S" bench --variants all --size 512 --json "bench/results/$gpu-variants.json"
  cp "bench/results/$gpu-variants.json" "$OUT/"
fi

if has sanitize; then
  export STRATA_TEST_QUICK=1
  for tool in memcheck racecheck initcheck synccheck; do
    run "sanitize_$tool" compute-sanitizer --tool "$tool" --error-exitcode 3 \
      "$BUILD/tests/strata_test_cuda" --gtest_brief=1 \
      --gtest_filter='StencilCuda.EveryStencil*:StencilCuda.DifferentGhost*:ReduceCuda/*.FieldsOfOdd*:ReduceCuda/*.FindsTheFirst*:ReduceCuda/*.Empty*:VectorOpsCuda/*.FieldOps*:VectorOpsCuda/*.Aliased*:PoissonCuda.GraphReplay*:PoissonCuda.FusedResidualRestriction*:WaveCuda.RestartIsBitIdentical:WaveCuda.CpmlLayersAcrossTiles*'
  done
fi

if has profile; then
  # Hardware counters of each default kernel at 512^3 (one timed launch each).
  for p in f32 f64; do
    run "ncu_$p" ncu --clock-control none --kernel-name regex:stencil_25d \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
      --section WarpStateStats --section LaunchStats \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct \
      "$S" bench --size 512 --precision "$p" --reps 1 --warmup 0 --kernel copy,copy_halo,7pt,star4,sym27,box27
  done
fi
say "device-check finished with status $status"
# The device tool brings back at most 8 files: logs travel as one archive.
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$LOGS"
exit $status
