#!/usr/bin/env bash
# Interpreter speed, measured side by side in one run (single-thread OpenBLAS):
#  (a) a chain of matmul + tanh layers, unsharded vs tensor-parallel on 8
#      simulated ranks (goal: the 8-rank run costs at most 1.3x);
#  (b) matmul GFLOP/s in the interpreter vs OpenBLAS called directly (goal:
#      at least 0.5x);
#  (c) element-wise linalg.generic throughput, next to a plain C++ loop;
#  (d) simulated ranks on threads: 8-rank tensor-parallel MLPs (4 blocks,
#      batch 256) with --rank-threads 1 and with the machine's threads
#      (goal: >= 1.7x on this 2-core machine; `partitioned` blocks after the
#      first are the same on every rank and run once, as tiles on threads;
#      `tp` ranks hold different weight shards, so every rank computes).
# Prints markdown tables. BENCH_REPS (default 5) runs per figure, best kept.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTENSOR_BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh" dtensor-run dtensor-blas-baseline >/dev/null
export OPENBLAS_NUM_THREADS=1
run="$build/bin/dtensor-run"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
ms() { "$run" "$1" --quiet --time "$2" "${@:3}" | sed -E 's/.*run time: ([0-9.]+) ms.*/\1/'; }
reps="${BENCH_REPS:-5}"

echo "| (a) layers x batch x dim | unsharded (ms) | 8 ranks, tensor parallel (ms) | ratio |"
echo "|---|---|---|---|"
for cfg in "4 256 1024" "8 128 512" "4 512 2048"; do
  set -- $cfg
  python3 "$root/bench/gen_mlp.py" unsharded "$1" "$2" "$3" 8 > "$tmp/u.mlir"
  python3 "$root/bench/gen_mlp.py" partitioned "$1" "$2" "$3" 8 > "$tmp/p.mlir"
  u=$(ms "$tmp/u.mlir" 5); p=$(ms "$tmp/p.mlir" 5)
  echo "| $1 x $2 x $3 | $u | $p | $(python3 -c "print(f'{$p/$u:.2f}x')") |"
done

echo
echo "| (b) matmul N | interpreter (ms) | GFLOP/s | OpenBLAS direct (ms) | GFLOP/s | ratio |"
echo "|---|---|---|---|---|---|"
for n in 512 1024 2048; do
  python3 "$root/bench/gen_mlp.py" matmul "$n" > "$tmp/m.mlir"
  i=$(ms "$tmp/m.mlir" 5)
  d=$("$build/bin/dtensor-blas-baseline" gemm "$n" 5 | sed -E 's/.*: ([0-9.]+) ms.*/\1/')
  python3 -c "
n=$n; i=$i; d=$d
gi=2*n**3/i/1e6; gd=2*n**3/d/1e6
print(f'| {n} | {i:.2f} | {gi:.1f} | {d:.2f} | {gd:.1f} | {gi/gd:.2f}x |')"
done

echo
echo "| (c) element-wise z = x*y + x, N | interpreter (ms) | M elements/s | C++ loop (ms) | M elements/s |"
echo "|---|---|---|---|---|"
for n in 1048576 16777216; do
  python3 "$root/bench/gen_mlp.py" elementwise "$n" > "$tmp/e.mlir"
  i=$(ms "$tmp/e.mlir" 3)
  d=$("$build/bin/dtensor-blas-baseline" elementwise "$n" 3 | sed -E 's/.*: ([0-9.]+) ms.*/\1/')
  python3 -c "
n=$n; i=$i; d=$d
print(f'| {n} | {i:.1f} | {n/i/1e3:.0f} | {d:.1f} | {n/d/1e3:.0f} |')"
done

echo
threads=$(nproc)
echo "| (d) 8 ranks, 4 blocks x 256 x hidden | 1 thread (ms) | $threads threads (ms) | speed-up |"
echo "|---|---|---|---|"
for kind in partitioned tp; do
  for h in 1024 2048; do
    python3 "$root/bench/gen_mlp.py" "$kind" 4 256 "$h" 8 > "$tmp/t.mlir"
    one=$(ms "$tmp/t.mlir" "$reps" --rank-threads 1)
    all=$(ms "$tmp/t.mlir" "$reps" --rank-threads "$threads")
    echo "| $kind, hidden $h | $one | $all | $(python3 -c "print(f'{$one/$all:.2f}x')") |"
  done
done
