#!/usr/bin/env bash
# Reductions on a host (docs/CodeGen.md, "Reductions on a host"): the
# program of bench/gen_reduce.py (a ROWSxCOLS f32 input's sum of squares into
# 1 output, COLS outputs and ROWS outputs) and a row softmax of the same
# input, emitted as C++, built with dtensor-build and run as one MPI process
# (OMP_NUM_THREADS=1); each entry's best time of REPEATS runs. Rows are
# timed twice: in tiles of outputs (the default) and one output at a time
# (DTENSOR_RT_REDUCTION_PARTS=1, the runtime's path before tiles). Several
# emitted versions of the same program (LABEL=FILE.cpp, e.g. before and after
# an emitter change; all built against this tree's runtime) run side by side;
# without any, the build tree emits one.
#
#   bench/host_reduce.sh [ROWS COLS REPEATS] [LABEL=FILE.cpp ...]   (default 4096 4096 20)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTENSOR_BUILD_DIR:-$root/build}"
rows="${1:-4096}"; cols="${2:-4096}"; repeats="${3:-20}"
shift $(( $# < 3 ? $# : 3 ))
source "$root/bench/common.sh"
bench_setup
export OMP_NUM_THREADS=1
variants=("$@")
python3 "$root/bench/gen_reduce.py" "$rows" "$cols" > "$tmp/r.mlir"
t="tensor<${rows}x${cols}xf32"
cat >> "$tmp/r.mlir" <<MLIR
func.func @softmax(%m: !dtensor.device_mesh<@one>, %x: $t, #dtensor.spec<@one, [R]>>) -> $t, #dtensor.spec<@one, [R]>> {
  %e = tensor.empty() : $t>
  %s = linalg.softmax dimension(1) ins(%x : $t, #dtensor.spec<@one, [R]>>) outs(%e : $t>) -> $t>
  %d = dtensor.distribute_tensor %s, %m : $t>, !dtensor.device_mesh<@one> -> $t, #dtensor.spec<@one, [R]>>
  return %d : $t, #dtensor.spec<@one, [R]>>
}
MLIR
if [ ${#variants[@]} -eq 0 ]; then
  "$build/bin/dtensor-opt" "$tmp/r.mlir" --dtensor-compile -o "$tmp/l.mlir"
  "$build/bin/dtensor-translate" --dtensor-to-cpp "$tmp/l.mlir" -o "$tmp/this.cpp"
  variants=("this=$tmp/this.cpp")
fi
python3 "$root/bench/write_npy.py" "$tmp/x.npy" "$rows" "$cols" 3

echo "f32 input ${rows}x${cols}, one process, one thread; best of $repeats (ms)"
echo
echo "| version | runtime path | @total (1 output) | @columns ($cols) | @rows ($rows) | @softmax |"
echo "|---|---|---|---|---|---|"
for v in "${variants[@]}"; do
  label="${v%%=*}"; file="${v#*=}"
  "$dbuild" "$file" -o "$tmp/$label"
  for path in tiles one-output; do
    env=()
    [ "$path" = one-output ] && env=(-x DTENSOR_RT_REDUCTION_PARTS=1)
    line="| $label | $path |"
    for entry in total columns rows softmax; do
      ms=$(mpirun "${mpiflags[@]}" -np 1 "${env[@]}" -x OMP_NUM_THREADS "$tmp/$label" --entry "$entry" \
             --input "1=$tmp/x.npy" --repeat "$repeats" | sed -nE 's/.*step time: ([0-9.]+) ms.*/\1/p')
      line="$line $ms |"
    done
    echo "$line"
  done
done
