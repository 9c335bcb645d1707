#!/usr/bin/env bash
# Reductions on one GPU (docs/CodeGen.md): the program of bench/gen_reduce.py
# (a ROWSxCOLS f32 input reduced to 1 output, to COLS outputs and to ROWS
# outputs), emitted as CUDA, built with dtensor-build --target=cuda and run
# as one process; each entry's best time of REPEATS runs and its largest
# relative error against numpy in float64. Several emitted versions of the
# same program (LABEL=FILE.cu, e.g. before and after an emitter change) run
# side by side in one run; without any, the build tree emits one.
#
#   bench/gpu_reduce.sh [ROWS COLS REPEATS] [LABEL=FILE.cu ...]   (default 8192 8192 20)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTENSOR_BUILD_DIR:-$root/build}"
rows="${1:-8192}"; cols="${2:-8192}"; repeats="${3:-20}"
shift $(( $# < 3 ? $# : 3 ))
source "$root/bench/common.sh"
bench_setup
variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then
  python3 "$root/bench/gen_reduce.py" "$rows" "$cols" > "$tmp/r.mlir"
  "$build/bin/dtensor-opt" "$tmp/r.mlir" --dtensor-compile -o "$tmp/l.mlir"
  "$build/bin/dtensor-translate" --dtensor-to-cuda "$tmp/l.mlir" -o "$tmp/this.cu"
  variants=("this=$tmp/this.cu")
fi
python3 -c "
import numpy as np
rng = np.random.default_rng(0)
np.save('$tmp/x.npy', rng.uniform(-1, 1, ($rows, $cols)).astype(np.float32))"

nvidia-smi --query-gpu=name --format=csv,noheader | head -1
echo "f32 input ${rows}x${cols}; sum of squares into 1, $cols and $rows outputs; best of $repeats"
echo
echo "| version | entry | outputs | ms | GB/s | max relative error |"
echo "|---|---|---|---|---|---|"
for v in "${variants[@]}"; do
  label="${v%%=*}"; file="${v#*=}"
  "$dbuild" "$file" --target=cuda -o "$tmp/$label"
  for entry in total columns rows; do
    case $entry in total) n=1 ;; columns) n=$cols ;; rows) n=$rows ;; esac
    ms=$(mpirun "${mpiflags[@]}" -np 1 "$tmp/$label" --entry "$entry" --input "1=$tmp/x.npy" \
           --repeat "$repeats" --output-dir "$tmp/out-$label-$entry" |
         sed -nE 's/.*step time: ([0-9.]+) ms.*/\1/p')
    err=$(python3 -c "
import numpy as np
x = np.load('$tmp/x.npy').astype(np.float64)
ref = {'total': (x * x).sum(), 'columns': (x * x).sum(0), 'rows': (x * x).sum(1)}['$entry']
got = np.load('$tmp/out-$label-$entry/out0.rank0.npy').astype(np.float64)
print(f'{np.max(np.abs(got - ref) / np.abs(ref)):.1e}')")
    gbs=$(python3 -c "print(f'{$rows * $cols * 4 / ($ms * 1e6):.0f}')")
    echo "| $label | @$entry | $n | $ms | $gbs | $err |"
  done
done
