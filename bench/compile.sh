#!/usr/bin/env bash
# Compile time of sharding propagation + partitioning, side by side with
# upstream MLIR's shard dialect on the same programs (bench/gen_layers.py):
#   ours:     dtensor-opt --dtensor-propagate --dtensor-insert-redistribute --dtensor-partition --dtensor-lower-redistribute
#   upstream: mlir-opt --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition))'
# Both with -o /dev/null and --verify-each=0 (so verification, which both do
# the same way, does not dominate). Reports the two passes' time
# (--mlir-timing), the whole tool's wall time and peak memory.
# Variants (VARIANTS, default "dp tp dpw tpw"; see bench/gen_layers.py): dp
# and tp repeat one layer, dpw and tpw give every layer its own width.
# PROPAGATE_OPTIONS (e.g. "search-budget=0") is passed to our propagation.
# Usage: bench/compile.sh [LAYERS...]   (default 100 1000 10000 50000)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTENSOR_BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh" dtensor-opt >/dev/null
propagate="--dtensor-propagate"
[ -z "${PROPAGATE_OPTIONS:-}" ] || propagate="--dtensor-propagate=$PROPAGATE_OPTIONS"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 1000 10000 50000)

passes() { # sum of the pass lines of --mlir-timing
  grep -E "DTensor(Propagate|InsertRedistribute|Partition|LowerRedistribute)Pass|ShardingPropagation|Partition$" "$1" |
    awk '{s += $1} END {printf "%.4f", s}'
}

echo "| layers | variant | ours: passes (s) | upstream: passes (s) | speed-up | ours: wall (s) / peak MB | upstream: wall (s) / peak MB |"
echo "|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  for v in ${VARIANTS:-dp tp dpw tpw}; do
    python3 "$root/bench/gen_layers.py" dtensor "$v" "$n" > "$tmp/d.mlir"
    python3 "$root/bench/gen_layers.py" shard "$v" "$n" > "$tmp/s.mlir"
    : > "$tmp/ours"; : > "$tmp/upstream"
    for ((r = 0; r < ${REPEATS:-5}; r++)); do
      /usr/bin/time -f "%e %M" -o "$tmp/dt" "$build/bin/dtensor-opt" "$tmp/d.mlir" \
        "$propagate" --dtensor-insert-redistribute --dtensor-partition --dtensor-lower-redistribute -o /dev/null --verify-each=0 \
        --mlir-timing 2> "$tmp/dtiming"
      /usr/bin/time -f "%e %M" -o "$tmp/ut" /usr/lib/llvm-22/bin/mlir-opt "$tmp/s.mlir" \
        --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition))' \
        -o /dev/null --verify-each=0 --mlir-timing 2> "$tmp/utiming"
      echo "$(passes "$tmp/dtiming") $(cat "$tmp/dt")" >> "$tmp/ours"
      echo "$(passes "$tmp/utiming") $(cat "$tmp/ut")" >> "$tmp/upstream"
    done
    python3 - "$tmp/ours" "$tmp/upstream" "$n" "$v" <<'PY'
import statistics, sys
def medians(path):
    rows = [list(map(float, line.split())) for line in open(path)]
    return [statistics.median(col) for col in zip(*rows)]
(dp, dw, dm), (up, uw, um) = medians(sys.argv[1]), medians(sys.argv[2])
n, v = sys.argv[3], sys.argv[4]
print(f"| {n} | {v} | {dp:.4f} | {up:.4f} | {up/dp:.2f}x | {dw:.2f} / {dm/1024:.0f} | {uw:.2f} / {um/1024:.0f} |")
PY
  done
done
