#!/usr/bin/env bash
# Memory of emitted programs (docs/CodeGen.md, "Memory"), measured side by
# side in one run: each program compiled with --dtensor-compile, emitted as
# C++, built with dtensor-build and run as an mpirun job with --mem-report,
# once with the run-time memory plan (the default) and once without it
# (DTENSOR_RT_MEMORY_PLAN=0: the emitter's liveness and the size-keyed pool
# only). Prints rank 0's tensor bytes at the peak of the last of REPEATS
# runs, its bytes reserved (the footprint), of which the plan's arena, and
# its allocations in that run.
#
# Programs: the tensor-parallel MLP of bench/codegen.sh (2 processes) and,
# when PyTorch is installed in .venv (scripts/setup-torch.sh), the real
# models of test/torch/real_models.py (4 processes), inference and training
# steps.
#
#   bench/memory.sh [REPEATS]   (default 3)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTENSOR_BUILD_DIR:-$root/build}"
repeats="${1:-3}"
bash "$root/scripts/build.sh" >/dev/null
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
source "$root/bench/common.sh"
bench_setup

# compile NAME GLOBAL.mlir: $tmp/NAME, the built program.
compile() {
  "$build/bin/dtensor-opt" "$2" --dtensor-compile -o "$tmp/$1.local.mlir"
  "$build/bin/dtensor-translate" --dtensor-to-cpp "$tmp/$1.local.mlir" -o "$tmp/$1.cpp"
  "$dbuild" "$tmp/$1.cpp" -o "$tmp/$1" >/dev/null
}
# measure NAME RANKS FLAGS...: one table row per setting of the plan.
measure() {
  local name="$1" ranks="$2"
  shift 2
  for plan in 1 0; do
    local line
    line=$(DTENSOR_RT_MEMORY_PLAN=$plan mpirun "${mpiflags[@]}" -np "$ranks" "$tmp/$name" "$@" \
             --repeat "$repeats" --mem-report | grep -E '^ +rank 0 peak')
    read -r _ _ _ peak _ _ reserved _ _ arena _ _ allocs <<<"$line"
    echo "| $name | $ranks | $([ $plan = 1 ] && echo on || echo off) | $peak | $reserved | $arena | $allocs |"
  done
}

echo "| program | processes | memory plan | peak bytes | reserved bytes | arena bytes | allocations (last run) |"
echo "|---|---|---|---|---|---|---|"
mlp_inputs 8 256 2048
python3 "$root/bench/gen_tp_mlp.py" 2 8 256 2048 > "$tmp/mlp.mlir"
compile mlp "$tmp/mlp.mlir"
measure mlp 2 "${inputs[@]}"

py="$root/.venv/bin/python"
if [ -x "$py" ] && "$py" -c "import torch" 2>/dev/null; then
  models=(gpt2_tp resnet_dp gpt2_dp:train resnet_dp:train)
  PYTHONPATH="$build/python_packages" "$py" "$root/test/torch/real_models.py" "$tmp/models" \
    "${models[@]}" >/dev/null
  for m in "${models[@]}"; do
    m="${m/:/_}"
    compile "$m" "$tmp/models/$m.mlir"
    read -r -a flags < "$tmp/models/$m.flags"
    measure "$m" 4 "${flags[@]}"
  done
else
  echo "(PyTorch is not installed: the real models were skipped; scripts/setup-torch.sh installs it)"
fi
