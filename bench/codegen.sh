#!/usr/bin/env bash
# Code generation speed (docs/CodeGen.md), measured side by side in one run:
# a tensor-parallel MLP (bench/gen_tp_mlp.py: BLOCKS blocks of
# h = h + gelu(h @ W1) @ W2, hidden HIDDEN, batch BATCH, f32) compiled with
# --dtensor-compile, emitted as C++, built with dtensor-build and run as an
# mpirun job on 1, 2 and 4 processes (OMP_NUM_THREADS=1, one BLAS thread
# each); the same MLP hand-written over single-thread OpenBLAS; and the
# interpreter on the global program. Prints a markdown table of the best
# time of one step (the slowest rank's).
#
#   bench/codegen.sh [BLOCKS BATCH HIDDEN REPEATS]   (default 8 256 2048 5)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTENSOR_BUILD_DIR:-$root/build}"
blocks="${1:-8}"; batch="${2:-256}"; hidden="${3:-2048}"; repeats="${4:-5}"
bash "$root/scripts/build.sh" >/dev/null
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
source "$root/bench/common.sh"
bench_setup
mlp_inputs "$blocks" "$batch" "$hidden"

ms() { sed -nE 's/.*step time: ([0-9.]+) ms.*/\1/p'; }
declare -A step
for ranks in 1 2 4; do
  python3 "$root/bench/gen_tp_mlp.py" "$ranks" "$blocks" "$batch" "$hidden" > "$tmp/mlp$ranks.mlir"
  "$build/bin/dtensor-opt" "$tmp/mlp$ranks.mlir" --dtensor-compile -o "$tmp/local$ranks.mlir"
  "$build/bin/dtensor-translate" --dtensor-to-cpp "$tmp/local$ranks.mlir" -o "$tmp/mlp$ranks.cpp"
  "$dbuild" "$tmp/mlp$ranks.cpp" -o "$tmp/mlp$ranks"
  step[$ranks]=$(mpirun "${mpiflags[@]}" -np "$ranks" "$tmp/mlp$ranks" "${inputs[@]}" \
                   --repeat "$repeats" --comm-report | tee "$tmp/run$ranks.log" | ms)
done
base=$("$build/bin/dtensor-mlp-baseline" "$blocks" "$batch" "$hidden" "$repeats" \
       | sed -nE 's/.*: ([0-9.]+) ms per step.*/\1/p')
interp=$("$build/bin/dtensor-run" "$tmp/mlp1.mlir" "${inputs[@]}" --quiet --time 2 \
         | sed -nE 's/.*run time: ([0-9.]+) ms.*/\1/p')

echo "MLP: $blocks blocks, batch $batch, hidden $hidden, f32; best of $repeats steps"
echo
echo "| run | ms per step | vs 1 process |"
echo "|---|---|---|"
for ranks in 1 2 4; do
  echo "| emitted C++, $ranks MPI process(es) | ${step[$ranks]} | $(python3 -c "print(f'{${step[1]}/${step[$ranks]}:.2f}x')") |"
done
echo "| hand-written, OpenBLAS + loops, 1 process | $base | $(python3 -c "print(f'{${step[1]}/$base:.2f}x')") |"
echo "| interpreter (dtensor-run), 1 rank | $interp | $(python3 -c "print(f'{${step[1]}/$interp:.2f}x')") |"
echo
echo "Emitted 1 process vs hand-written: $(python3 -c "print(f'{${step[1]}/$base:.2f}x')") the time (goal: at most 1.2x)"
echo "Interpreter vs emitted 1 process: $(python3 -c "print(f'{$interp/${step[1]}:.2f}x')") the time (goal: at least 5x)"
echo "Strong scaling at 2 processes: $(python3 -c "print(f'{${step[1]}/${step[2]}:.2f}x')") (goal: at least 1.6x)"

# Element-wise work alone, one process, emitted vs interpreted: a chain of
# 16 kernels on a 1024x1024 tensor, GELU and residual adds (bound by tanhf),
# then residual adds only (bound by the kernel loops and memory).
python3 "$root/bench/write_npy.py" "$tmp/ew.npy" 1024 1024 3
echo
echo "| element-wise chain (16 kernels, 1024x1024 f32) | emitted C++, 1 process (ms) | interpreter (ms) | interpreter / emitted |"
echo "|---|---|---|---|"
for mode in gelu axpy; do
  python3 "$root/bench/gen_elementwise.py" 16 1024 1024 "$mode" > "$tmp/ew-$mode.mlir"
  "$build/bin/dtensor-opt" "$tmp/ew-$mode.mlir" --dtensor-compile -o "$tmp/ewl-$mode.mlir"
  "$build/bin/dtensor-translate" --dtensor-to-cpp "$tmp/ewl-$mode.mlir" -o "$tmp/ew-$mode.cpp"
  "$dbuild" "$tmp/ew-$mode.cpp" -o "$tmp/ew-$mode"
  ewc=$(mpirun "${mpiflags[@]}" -np 1 "$tmp/ew-$mode" --input "1=$tmp/ew.npy" --repeat "$repeats" | ms)
  ewi=$("$build/bin/dtensor-run" "$tmp/ew-$mode.mlir" --input "1=$tmp/ew.npy" --quiet --time "$repeats" \
        | sed -nE 's/.*run time: ([0-9.]+) ms.*/\1/p')
  echo "| $mode | $ewc | $ewi | $(python3 -c "print(f'{$ewi/$ewc:.2f}x')") |"
done
echo "(goal: the interpreter at least 5x the emitted program's time)"
echo
echo "Bytes per rank counted by the runtime (2 processes) and by the compiler's comm report:"
grep -E "rank 0 " "$tmp/run2.log" || true
"$build/bin/dtensor-opt" "$tmp/local2.mlir" --dtensor-comm-report -o /dev/null 2>&1 | head -3 || true
