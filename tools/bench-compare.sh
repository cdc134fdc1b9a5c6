#!/usr/bin/env bash
# Before and after in one GPU session: builds two source trees (Release, sm_90, no tests) side
# by side, then runs the same `strata bench` on each, alternating for ROUNDS rounds so that
# clock and thermal drift fall on both alike, and compares every row's ratio to copy, or its
# median time where a row has no ratio (solvers), as the median over rounds. Used to show
# that a change moved no benchmark figure (or by how much).
# Usage: tools/bench-compare.sh OLD_SRC NEW_SRC OUT_DIR [bench args...]
#   ROUNDS (default 2), JOBS (default nproc/2 per build, both builds at once)
set -uo pipefail
old=$(cd "$1" && pwd); new=$(cd "$2" && pwd); out=$3; shift 3
mkdir -p "$out"
rounds=${ROUNDS:-2}
jobs=${JOBS:-$(( $(nproc) / 2 ))}
build() {  # build SRC DIR LOG
  { cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DSTRATA_BUILD_TESTS=OFF && cmake --build "$2" -j "$jobs" --target strata_cli; } >"$3" 2>&1
}
t0=$SECONDS
build "$old" "$out/build-old" "$out/build-old.log" & p1=$!
build "$new" "$out/build-new" "$out/build-new.log" & p2=$!
wait $p1 || { echo "old build failed"; tail -20 "$out/build-old.log"; exit 1; }
wait $p2 || { echo "new build failed"; tail -20 "$out/build-new.log"; exit 1; }
echo "both built in $((SECONDS - t0)) s"
for r in $(seq 1 "$rounds"); do
  for side in old new; do
    t0=$SECONDS
    "$out/build-$side/strata" bench "$@" --json "$out/$side-$r.json" >"$out/$side-$r.log" 2>&1 ||
      { echo "bench $side round $r failed"; tail -20 "$out/$side-$r.log"; exit 1; }
    echo "round $r $side: $((SECONDS - t0)) s"
  done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def rows(side):
    table = {}
    for r in range(1, rounds + 1):
        for row in json.load(open(f"{out}/{side}-{r}.json"))["results"]:
            key = (row["kernel"], row.get("variant", ""), row["precision"], "x".join(map(str, row.get("shape", []))))
            v = row.get("ratio_to_copy")
            if not v and row.get("median_ms"): v, key = 1.0 / row["median_ms"], key + ("1/ms",)
            if v: table.setdefault(key, []).append(v)
    return {k: statistics.median(v) for k, v in table.items()}
old, new = rows("old"), rows("new")
worst = 0.0
print(f"{'kernel':20} {'variant':24} {'prec':5} {'shape':14} {'':5} {'old':>8} {'new':>8} {'change':>8}")
for k in sorted(set(old) & set(new), key=str):
    d = new[k] / old[k] - 1
    worst = max(worst, abs(d))
    print(f"{k[0]:20} {k[1][:24]:24} {k[2]:5} {k[3][:14]:14} {'1/ms' if len(k) > 4 else '':5}"
          f" {old[k]:8.4f} {new[k]:8.4f} {100*d:+7.2f}%")
only = sorted(set(old) ^ set(new), key=str)
if only: print("rows in only one side:", only)
print(f"largest change (ratio to copy, or 1/time for rows marked 1/ms): {100*worst:.2f}%")
json.dump({"old": {str(k): v for k, v in old.items()}, "new": {str(k): v for k, v in new.items()}},
          open(f"{out}/compare.json", "w"), indent=1)
PY
