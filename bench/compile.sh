#!/usr/bin/env bash
# Compile time of sharding propagation + partitioning, side by side with
# upstream MLIR's shard dialect on the same programs (bench/gen_layers.py):
#   ours:     dtensor-opt --dtensor-propagate --dtensor-insert-redistribute --dtensor-partition --dtensor-lower-redistribute
#   upstream: mlir-opt --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition))'
# Both with -o /dev/null and --verify-each=0 (so verification, which both do
# the same way, does not dominate). Reports the two passes' time
# (--mlir-timing), the whole tool's wall time and peak memory.
# Usage: bench/compile.sh [LAYERS...]   (default 100 1000 10000 50000)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTENSOR_BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh" dtensor-opt >/dev/null
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 1000 10000 50000)

passes() { # sum of the pass lines of --mlir-timing
  grep -E "DTensor(Propagate|InsertRedistribute|Partition|LowerRedistribute)Pass|ShardingPropagation|Partition$" "$1" |
    awk '{s += $1} END {printf "%.3f", s}'
}

echo "| layers | variant | ours: passes (s) | upstream: passes (s) | speed-up | ours: wall (s) / peak MB | upstream: wall (s) / peak MB |"
echo "|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  for v in dp tp; do
    python3 "$root/bench/gen_layers.py" dtensor "$v" "$n" > "$tmp/d.mlir"
    python3 "$root/bench/gen_layers.py" shard "$v" "$n" > "$tmp/s.mlir"
    /usr/bin/time -f "%e %M" -o "$tmp/dt" "$build/bin/dtensor-opt" "$tmp/d.mlir" \
      --dtensor-propagate --dtensor-insert-redistribute --dtensor-partition --dtensor-lower-redistribute -o /dev/null --verify-each=0 \
      --mlir-timing 2> "$tmp/dtiming"
    /usr/bin/time -f "%e %M" -o "$tmp/ut" /usr/lib/llvm-22/bin/mlir-opt "$tmp/s.mlir" \
      --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition))' \
      -o /dev/null --verify-each=0 --mlir-timing 2> "$tmp/utiming"
    dp=$(passes "$tmp/dtiming"); up=$(passes "$tmp/utiming")
    read -r dw dm < "$tmp/dt"; read -r uw um < "$tmp/ut"
    python3 -c "
print(f'| $n | $v | {$dp:.3f} | {$up:.3f} | {$up/$dp:.2f}x | $dw / {$dm/1024:.0f} | $uw / {$um/1024:.0f} |')"
  done
done
