#!/usr/bin/env bash
# The code-generation MLP (bench/gen_tp_mlp.py) on one GPU: the program
# compiled with --dtensor-compile, emitted with --dtensor-to-cuda, built with
# dtensor-build --target=cuda (CUDA kernels, cuBLAS, NCCL) and run as one
# process, side by side with PyTorch eager on the same inputs in the same run
# (bench/torch_mlp.py), whose output it must match. Needs a GPU and python3
# with torch and numpy.
#
#   bench/gpu_mlp.sh [--emitted FILE.cu] [BLOCKS BATCH HIDDEN REPEATS]
#                                        (default 8 1024 4096 20)
#
# --emitted takes a program already emitted for the same BLOCKS, BATCH and
# HIDDEN on a 1-device mesh (a GPU machine without MLIR: scripts/gpu-bundle.sh
# emits one); otherwise dtensor-opt and dtensor-translate of the build tree
# (DTENSOR_BUILD_DIR, default build/) make it. dtensor-build is found there
# or on PATH.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTENSOR_BUILD_DIR:-$root/build}"
emitted=""
if [ "${1:-}" = "--emitted" ]; then emitted="$2"; shift 2; fi
blocks="${1:-8}"; batch="${2:-1024}"; hidden="${3:-4096}"; repeats="${4:-20}"
source "$root/bench/common.sh"
bench_setup

if [ -z "$emitted" ]; then
  python3 "$root/bench/gen_tp_mlp.py" 1 "$blocks" "$batch" "$hidden" > "$tmp/mlp.mlir"
  "$build/bin/dtensor-opt" "$tmp/mlp.mlir" --dtensor-compile -o "$tmp/local.mlir"
  "$build/bin/dtensor-translate" --dtensor-to-cuda "$tmp/local.mlir" -o "$tmp/mlp.cu"
  emitted="$tmp/mlp.cu"
fi
"$dbuild" "$emitted" --target=cuda -o "$tmp/mlp"

mlp_inputs "$blocks" "$batch" "$hidden"

ours=$(mpirun "${mpiflags[@]}" -np 1 "$tmp/mlp" "${inputs[@]}" --repeat "$repeats" \
       --output-dir "$tmp/out" | sed -nE 's/.*step time: ([0-9.]+) ms.*/\1/p')
torch_out=$(python3 "$root/bench/torch_mlp.py" "$tmp" "$blocks" "$repeats" "$tmp/out/out0.rank0.npy")
theirs=$(echo "$torch_out" | sed -nE 's/.*pytorch step time: ([0-9.]+) ms.*/\1/p')
flops=$(python3 -c "print(f'{4 * $blocks * $batch * $hidden * $hidden / 1e9:.1f}')")

nvidia-smi --query-gpu=name --format=csv,noheader | head -1
echo "MLP: $blocks blocks, batch $batch, hidden $hidden, f32 (TF32 off), $flops GFLOP per step; best of $repeats steps"
echo
echo "| run | ms per step | TFLOP/s | vs PyTorch |"
echo "|---|---|---|---|"
echo "| emitted CUDA (dtensor-build --target=cuda), 1 process | $ours | $(python3 -c "print(f'{$flops / $ours:.1f}')") | $(python3 -c "print(f'{$ours / $theirs:.2f}x')") |"
echo "| PyTorch eager, same GPU | $theirs | $(python3 -c "print(f'{$flops / $theirs:.1f}')") | 1.00x |"
echo
echo "$torch_out" | grep "emitted vs pytorch"
