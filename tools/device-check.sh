#!/usr/bin/env bash
# The GPU machine as a user meets it: a clean copy of the tree built with that machine's own
# packages, README's two commands run there, then the end-to-end timings and the benchmark.
# Logs and JSON go to $OUT (the device tool brings back at most 8 files: logs as one archive).
# Usage: tools/device-check.sh [stage ...]
#   clone     copy the tracked and untracked-not-ignored files to build/clean (only files
#             whose content changed are rewritten, so a warm machine rebuilds incrementally)
#   demo      README command 1 in the copy: tools/demo.sh (builds build/clean/build/release)
#   test      README command 2 in the copy: tools/test.sh (every test; wall time reported)
#   e2e       whole-process wall time of the user commands in tools/e2e.py, against targets
#   bench     strata bench --kernel all --sweep -> bench/results/<gpu>.json
#   tune      strata tune into a fresh cache (every candidate launch shape of every family,
#             each checked bit for bit, then timed) -> bench/results/<gpu>-tuning.json (the
#             table, and the row for src/cuda/tuning/shipped_shapes.cpp), then strata bench
#             --kernel ${TUNED_KERNELS:-all} with that cache -> bench/results/<gpu>-tuned.json
#   lab       strata-lab: its tests, then every experiment at the seeds' sizes with its --json
#             and --plot picture in $OUT/lab, all reports together in bench/results/<gpu>-lab.json
#   variants  a -DSTRATA_STENCIL_VARIANTS=ON build (the tile variants of src/cuda/tuning/variants/)
#             and strata bench --variants all
#   dist      one rank per GPU (mpirun -np <GPUs>): the distributed tests (Poisson's too),
#             `strata apply` on the GPUs against one process, strata bench --kernel dist, and
#             the Poisson MG-CG at 511^3 on one GPU and on all (reports in the logs archive)
#   wave      one rank per GPU: `strata wave` on the GPUs against one process (byte for byte),
#             then tools/wave_scaling.py (strong, weak, a grid too big for one GPU)
#   costs     what a user waits for at 1, 2, 4... ranks (tools/multigpu-costs.py): a one-process
#             command's start with one or every GPU visible, Poisson MG-CG per phase and per
#             iteration, the 600-step gpu512 wave's wall time -> bench/results/<gpu>-xG-costs.json
#   python    the Python package in the copy's build (-DSTRATA_PYTHON=ON, the machine's own
#             nanobind): pytest with the CuPy/PyTorch GPU tests, the examples at full size,
#             tools/python-bench.py (512^3 rate beside `strata bench`, 8^3 call overhead,
#             apply on a CuPy array beside torch.compile), then `pip install
#             --no-build-isolation .` into a scratch target and its import (PIP=0: skip)
#   imaging   item 5 of issue 40: strata bench --kernel imaging at 512^3 x 2000 steps, f32 (one
#             shot forward alone, then its gradient each way and its compensated migration;
#             ~70 s) -> bench/results/<gpu>-imaging-<commit>.json
#   sanitize  compute-sanitizer on the GPU test subset      profile  Nsight Compute counters
#   (default: clone demo test e2e bench)
#   STRATA_BUILD=dir  use a carried build in dir instead of the clean copy's (only when asked)
#   STRATA_COMMIT=id  the commit the copy is of (default: git HEAD, plus -dirty)
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$PWD/build/device-out}
LOGS="$OUT/logs"
CLEAN=$ROOT/build/clean
mkdir -p "$LOGS"
stages=${*:-clone demo test e2e bench}
status=0
say() { echo "== $*" | tee -a "$OUT/summary.txt"; }
has() { [[ " $stages " == *" $1 "* ]]; }
run() {  # run NAME CMD... : logs to $LOGS/NAME.log, records pass/fail and wall time in the summary
  local name=$1; shift
  local t0=$SECONDS
  timeout "${STEP_TIMEOUT:-560}" "$@" >"$LOGS/$name.log" 2>&1
  local rc=$?
  say "$name: rc=$rc ($((SECONDS - t0)) s)"
  tail -n "${TAIL:-15}" "$LOGS/$name.log"
  [ $rc -eq 0 ] || status=1
  return $rc
}
finish() {
  say "device-check finished with status $status"
  cp "$OUT/summary.txt" "$LOGS/" 2>/dev/null
  tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$LOGS"
  exit $status
}

nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version --format=csv | tee "$LOGS/gpu.txt"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9-')
echo "cores $(nproc); $(cmake --version | head -1); $(g++ --version | head -1); CLI11 $(sed -n 's/^#define CLI11_VERSION "\(.*\)"/\1/p' /usr/include/CLI/Version.hpp 2>/dev/null)" | tee -a "$OUT/summary.txt"

if has clone; then
  mkdir -p "$CLEAN"
  if [ -d .git ]; then
    git ls-files -z -co --exclude-standard >"$OUT/files.lst"
  else
    find . -path ./build -prune -o -type f -print0 >"$OUT/files.lst"
  fi
  changed=0
  while IFS= read -r -d '' f; do
    [ -f "$f" ] || continue
    if ! cmp -s "$f" "$CLEAN/$f" 2>/dev/null; then
      mkdir -p "$CLEAN/$(dirname "$f")" && cp -p "$f" "$CLEAN/$f" && changed=$((changed + 1))
    fi
  done <"$OUT/files.lst"
  rm -f "$OUT/files.lst"
  # The build records the commit: give the copy this tree's HEAD.
  # The commit the binaries report: STRATA_COMMIT (the device tool's copy of .git can be
  # older than the tree it sends), else this checkout's HEAD.
  if [ -n "${STRATA_COMMIT:-}" ]; then
    echo "$STRATA_COMMIT" >"$CLEAN/.strata-commit"
  elif [ -d .git ]; then
    dirty=$(git status --porcelain --untracked-files=no | grep -q . && echo -dirty)
    echo "$(git rev-parse --short=12 HEAD)$dirty" >"$CLEAN/.strata-commit"
  fi
  say "clone: $changed files copied or updated in build/clean"
fi

if [ -n "${STRATA_BUILD:-}" ]; then
  BUILD=$(cd "$STRATA_BUILD" && pwd)
  say "using the carried build $BUILD (STRATA_BUILD)"
else
  BUILD=$CLEAN/build/release
fi
S=$BUILD/strata

if has demo; then
  (cd "$CLEAN" && run demo tools/demo.sh) || status=1
fi
if has test; then
  (cd "$CLEAN" && TAIL=25 run test tools/test.sh) || status=1
  grep -E "^ *[0-9]+/[0-9]+ Test" "$LOGS/test.log" | sort -t'.' -k2 | awk '{print $(NF-1), $0}' | sort -rn | head -8
fi
[ -x "$S" ] || { say "no strata binary at $S"; status=1; finish; }
"$S" info | tee -a "$OUT/summary.txt"

if has e2e; then
  TAIL=40 run e2e python3 tools/e2e.py "$S" "$OUT/e2e.json"
fi

if has python; then
  PYB=$CLEAN/build/release
  (cd "$CLEAN" && run python_build bash -c "cmake -S . -B '$PYB' -DSTRATA_PYTHON=ON >/dev/null && cmake --build '$PYB' --target _strata strata_stub") || status=1
  export PYTHONPATH=$PYB/python MPLBACKEND=Agg
  run python_pytest python3 -m pytest -v -p no:cacheprovider "$CLEAN/python/tests"
  for ex in "$CLEAN"/examples/python/*.py; do
    run "python_example_$(basename "$ex" .py)" python3 "$ex" --out "$OUT/examples/$(basename "$ex" .py)"
  done
  TAIL=30 run python_bench python3 "$CLEAN/tools/python-bench.py" "$S" --json "$OUT/python-bench.json"
  if [ "${PIP:-1}" != 0 ]; then
    rm -rf "$CLEAN/build/pip-target"
    (cd "$CLEAN" && STEP_TIMEOUT=${PIP_TIMEOUT:-1200} run python_pip python3 -m pip install --no-build-isolation \
      --no-deps --target build/pip-target .) && \
      run python_pip_import env PYTHONPATH="$CLEAN/build/pip-target" python3 -c \
        "import strata; print(strata.cuda_available(), strata.apply('7pt', strata.Field((8, 8, 8), device='cuda')))"
  fi
  unset PYTHONPATH
fi

if has bench; then
  mkdir -p bench/results
  run bench_default "$S" bench --kernel all --sweep --json "bench/results/$gpu.json"
  cp "bench/results/$gpu.json" "$OUT/"
fi

if has tune; then
  # A fresh cache of this run's own (kept in the logs archive), so nothing measured before counts.
  mkdir -p bench/results
  export STRATA_TUNE_CACHE="$LOGS/tuning-cache.json"
  rm -f "$STRATA_TUNE_CACHE"
  TAIL=80 run tune "$S" tune --json "bench/results/$gpu-tuning.json"
  "$S" info | grep -E "launch shapes|tuning" | tee -a "$OUT/summary.txt"
  TAIL=60 run bench_tuned "$S" bench --kernel "${TUNED_KERNELS:-all}" --json "bench/results/$gpu-tuned.json"
  cp "bench/results/$gpu-tuning.json" "bench/results/$gpu-tuned.json" "$OUT/" 2>/dev/null
  unset STRATA_TUNE_CACHE
fi

if has dist; then
  G=$(nvidia-smi -L | wc -l)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
  grep -E "MPI|NCCL" "$BUILD/CMakeCache.txt" | grep -E "^STRATA_|^MPIEXEC_EXECUTABLE" | tee -a "$OUT/summary.txt"
  run dist_tests mpirun -np "$G" "$BUILD/tests/strata_test_dist" --gtest_brief=1
  run dist_cli python3 "$CLEAN/tests/dist/test_cli_apply.py" "$S" mpirun "$G" --device cuda
  mkdir -p bench/results
  TAIL=30 run dist_bench mpirun -np "$G" "$S" bench --kernel dist --device cuda --size "${DIST_SIZE:-512}" \
    --reps 10 --json "bench/results/$gpu-x$G-dist.json"
  cp "bench/results/$gpu-x$G-dist.json" "$OUT/" 2>/dev/null
  run dist_poisson_tests mpirun -np "$G" "$BUILD/tests/strata_test_dist_poisson" --gtest_brief=1
  P="poisson --n 511 --solver mgcg --mixed --precision f64 --rtol 1e-10 --quiet"
  for r in 1 2; do
    run "poisson_one_$r" "$S" $P --json "$LOGS/poisson-one-$r.json"
    run "poisson_np${G}_$r" mpirun -np "$G" "$S" $P --json "$LOGS/poisson-np$G-$r.json"
  done
fi

if has wave; then
  G=$(nvidia-smi -L | wc -l)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
  run wave_dist python3 "$CLEAN/tests/dist/test_wave_dist.py" "$S" mpirun "$G" --device cuda
  mkdir -p bench/results
  TAIL=30 run wave_scaling python3 tools/wave_scaling.py "$S" --gpus "$G" --json "bench/results/$gpu-x$G-wave.json" \
    ${WAVE_SCALING_ARGS:-}
  cp "bench/results/$gpu-x$G-wave.json" "$OUT/" 2>/dev/null
fi

if has costs; then
  G=$(nvidia-smi -L | wc -l)
  mkdir -p bench/results
  TAIL=60 run costs python3 tools/multigpu-costs.py "$S" --json "bench/results/$gpu-x$G-costs.json" ${COSTS_ARGS:-}
  cp "bench/results/$gpu-x$G-costs.json" "$OUT/" 2>/dev/null
fi

if has imaging; then
  mkdir -p bench/results
  commit=$(cat "$CLEAN/.strata-commit" 2>/dev/null | cut -c1-7)
  TAIL=12 run imaging "$S" bench --kernel imaging --size "${IMAGING_SIZE:-512}" --steps "${IMAGING_STEPS:-2000}" \
    --precision f32 --reps "${IMAGING_REPS:-1}" --json "bench/results/$gpu-imaging-${commit:-tree}.json"
  cp "bench/results/$gpu-imaging-${commit:-tree}.json" "$OUT/" 2>/dev/null
fi

if has lab; then
  mkdir -p bench/results "$OUT/lab"
  run lab_tests "$BUILD/tests/strata_test_lab" --gtest_brief=1
  [ -x "$BUILD/strata-lab" ] || { say "no strata-lab at $BUILD/strata-lab (the test stage builds it)"; status=1; }
  for e in $("$BUILD/strata-lab" list | sed -n 's/^  \([a-z0-9_-]*\):.*/\1/p'); do
    TAIL=60 run "lab_$e" "$BUILD/strata-lab" "$e" --json "$OUT/lab/$e.json" --plot "$OUT/lab/$e.png"
  done
  python3 -c 'import json, sys; json.dump({"reports": [json.load(open(f)) for f in sys.argv[2:]]}, open(sys.argv[1], "w"), indent=1)' \
    "bench/results/$gpu-lab.json" "$OUT"/lab/*.json && cp "bench/results/$gpu-lab.json" "$OUT/"
fi

if has variants; then
  VAR=$CLEAN/build/variants
  run configure_variants cmake -S "$CLEAN" -B "$VAR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DSTRATA_STENCIL_VARIANTS=ON -DSTRATA_PTXAS_VERBOSE=ON -DSTRATA_BUILD_TESTS=OFF
  run build_variants cmake --build "$VAR" -j "$(nproc)" --target strata_cli
  grep -E "registers|spill" "$LOGS/build_variants.log" | sort | uniq -c | sort -rn | head -5
  run bench_variants "$VAR/strata" bench --variants all --size 512 --json "bench/results/$gpu-variants.json"
  cp "bench/results/$gpu-variants.json" "$OUT/"
fi

if has sanitize; then
  export STRATA_TEST_QUICK=1
  for tool in memcheck racecheck initcheck synccheck; do
    run "sanitize_$tool" compute-sanitizer --tool "$tool" --error-exitcode 3 \
      "$BUILD/tests/strata_test_cuda" --gtest_brief=1 \
      --gtest_filter="${SANITIZE_FILTER:-WaveCuda.CorrelatingShapes*:StencilCuda.EveryStencil*:StencilCuda.DifferentGhost*:StencilCuda.GhostSides*:StencilCuda.DirichletZero*:ReduceCuda/*.FieldsOfOdd*:ReduceCuda/*.FindsTheFirst*:ReduceCuda/*.Empty*:VectorOpsCuda/*.FieldOps*:VectorOpsCuda/*.Aliased*:PoissonCuda.GraphReplay*:PoissonCuda.LevelTimes*:PoissonCuda.FusedResidualRestriction*:WaveCuda.RestartIsBitIdentical:WaveCuda.CpmlLayersAcrossTiles*:WaveCuda.CpmlShellLayouts*:CopyPitchedCuda.*:WaveAdjointCuda.AgreesWithTheCpuAdjoint:WaveAdjointCuda.LayersOfManyLines*:WaveAdjointCuda.ImagingConditionOnTheDevice*:WaveAdjointCuda.BoundarySavingOnTheGpu*:WaveAdjointCuda.FusedImaging*:WaveAdjointCuda.CheckpointingFusedImaging*:WaveAdjointCuda.ReversedStepWithoutTheLayers*:WaveAdjointCuda.BoundarySavingLeavesTheLayers*}"
  done
fi

if has profile; then
  # Hardware counters of each default kernel at 512^3 (one timed launch each).
  for p in f32 f64; do
    run "ncu_$p" ncu --clock-control none --kernel-name regex:"${PROFILE_KERNELS:-stencil_25d}" \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
      --section WarpStateStats --section LaunchStats \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct \
      "$S" bench --size 512 --precision "$p" --reps 1 --warmup 0 --kernel "${PROFILE_BENCH:-copy,copy_halo,7pt,star4,sym27,box27}"
  done
fi
finish
