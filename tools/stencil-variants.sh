#!/usr/bin/env bash
# The stencils' tile variants on the GPU machine (needs a -DSTRATA_STENCIL_VARIANTS=ON build):
# every tile variant at 512^3 (src/cuda/tuning/variants/), the TMA L2-promotion and z-split
# knobs, and Nsight Compute counters of the default kernels. Logs and JSON go to $OUT (logs as
# one archive).
# Usage: STRATA_BUILD=dir tools/stencil-variants.sh [kernels]   (default copy,copy_halo,7pt)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/build/variants-out}
S=${STRATA_BUILD:-build/device}/strata
K=${1:-copy,copy_halo,7pt}
mkdir -p "$OUT/logs"
L=$OUT/logs
"$S" bench --variants all --size 512 --json "$OUT/variants.json" >"$L/variants.log" 2>&1
echo "variants rc=$?"
for promo in none 64 256; do
  STRATA_TMA_L2_PROMOTION=$promo "$S" bench --kernel "$K" --size 512 --json "$OUT/promo-$promo.json" \
    >"$L/promo-$promo.log" 2>&1; echo "promotion $promo rc=$?"
done
for z in 1 2 8 16; do
  "$S" bench --kernel "$K" --size 512 --zchunks $z >"$L/zchunks-$z.log" 2>&1; echo "zchunks $z rc=$?"
done
metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
for p in f32 f64; do
  ncu --clock-control none --kernel-name regex:'stencil_25d|copy_rows' --metrics "$metrics" \
    --section WarpStateStats "$S" bench --kernel "$K" --size 512 --precision $p --reps 1 --warmup 0 \
    >"$L/ncu-$p.log" 2>&1
  echo "ncu $p rc=$?"
done
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
