#!/usr/bin/env bash
# The main job: build dtensor-mlir (installing what it needs), then
#  1. print, for every distributed value of the 2x4-mesh example, each rank's
#     local shape and global offset (dtensor-opt --dtensor-print-layout);
#  2. explain one redistribution plan (dtensor-plan redistribute);
#  3. compile a redistribution program into the local view and run it on 8
#     simulated ranks, checking every rank against the global program and
#     printing the collectives that ran (dtensor-run --verify --report);
#  4. compile a Megatron MLP with --dtensor-compile (propagation, partitioning)
#     and check it the same way: one all_reduce;
#  5. emit that compiled MLP as C++ (dtensor-translate --dtensor-to-cpp),
#     build it against the runtime (dtensor-build) and run it as a 4-process
#     MPI job, checking every rank against the interpreter
#     (dtensor-run --target=mpi).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTENSOR_BUILD_DIR:-$root/build}"

echo "== building (installs what is missing, then about 5 minutes on 2 cores the first time)"
# Progress every 10 build steps instead of minutes of silence.
bash "$root/scripts/build.sh" 2>&1 |
  awk '/^\[[0-9]+\/[0-9]+\]/ { if (n++ % 10 == 0) print "  build step " $1; next } { print "  " $0 }'
echo

example="${1:-$root/examples/layouts_2x4.mlir}"
echo "== dtensor-opt $(basename "$example") --dtensor-normalize-specs --dtensor-verify --dtensor-print-layout"
"$build/bin/dtensor-opt" "$example" \
  --dtensor-normalize-specs --dtensor-verify --dtensor-print-layout -o /dev/null 2>&1
echo
echo "== dtensor-plan layout --mesh 2x4 --shape 9x4 --placements '[S(0)[1], S(0)[0]]'"
"$build/bin/dtensor-plan" layout --mesh 2x4 --shape 9x4 --placements '[S(0)[1], S(0)[0]]'
echo
echo "== dtensor-plan redistribute --mesh 2x4 --shape 13x32 --from '[S(0), S(1)]' --to '[S(1), S(0)]'"
"$build/bin/dtensor-plan" redistribute --mesh 2x4 --shape 13x32 --from '[S(0), S(1)]' --to '[S(1), S(0)]'
echo
echo "== dtensor-run redistribute_2x4.mlir --verify --report"
"$build/bin/dtensor-run" "$root/examples/redistribute_2x4.mlir" --verify --report
echo
echo "== dtensor-run compile/megatron_mlp.mlir --verify --pipeline dtensor-compile --report"
"$build/bin/dtensor-run" "$root/examples/compile/megatron_mlp.mlir" --verify \
  --pipeline dtensor-compile --report
echo
echo "== dtensor-translate --dtensor-to-cpp, dtensor-build, mpirun -np 4: the Megatron MLP for real"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$build/bin/dtensor-opt" "$root/examples/compile/megatron_mlp.mlir" --dtensor-compile -o "$tmp/local.mlir"
"$build/bin/dtensor-translate" --dtensor-to-cpp "$tmp/local.mlir" -o "$tmp/mlp.cpp"
"$build/bin/dtensor-build" "$tmp/mlp.cpp" -o "$tmp/mlp"
echo "built $(wc -l < "$tmp/mlp.cpp") lines of C++ into $tmp/mlp; running it on 4 MPI processes:"
"$build/bin/dtensor-run" "$root/examples/compile/megatron_mlp.mlir" --verify \
  --pipeline dtensor-compile --target=mpi | grep "on target mpi"
if grep -q "^DTENSOR_RT_NVCC=" "$build/lib/dtensor-rt.env" 2>/dev/null; then
  echo
  echo "== dtensor-translate --dtensor-to-cuda, dtensor-build (nvcc): the same program for GPUs"
  "$build/bin/dtensor-translate" --dtensor-to-cuda "$tmp/local.mlir" -o "$tmp/mlp.cu"
  "$build/bin/dtensor-build" "$tmp/mlp.cu" -o "$tmp/mlp-cuda"
  echo "built $tmp/mlp-cuda (CUDA kernels for sm_80/sm_90, cuBLAS, NCCL); it runs where GPUs are:"
  echo "  mpirun -np 4 $tmp/mlp-cuda ...   or   dtensor-run ... --verify --target=cuda"
fi
echo
echo "== from Python (.venv/bin/python, dtensor_mlir): layouts, a plan, compile and verify"
"$root/.venv/bin/python" - "$root/examples/compile/megatron_mlp.mlir" <<'PY'
import sys
import numpy as np
import dtensor_mlir as dm
mesh = dm.DeviceMesh((2, 4), ("dp", "tp"))
print("local shapes:", [s.local_shape for s in dm.layout(mesh, (9, 4), [dm.Shard(0), dm.Shard(0)])])
plan = dm.plan_redistribute(mesh, (64, 64), [dm.Shard(0), dm.Replicate()], [dm.Replicate(), dm.Shard(1)])
print("plan:", [(s.kind, s.before, s.after) for s in plan.steps])
prog = dm.Module.parse(open(sys.argv[1]).read(), "megatron_mlp.mlir")
r = dm.run(prog, compiled=prog.compile("dtensor-compile"), inputs={1: np.ones((8, 16), np.float32)})
print("verified:", r.verified, "collectives:", r.report()["total"])
PY
if "$root/.venv/bin/python" -c "import torch" 2>/dev/null; then
  echo
  echo "== from PyTorch (docs/PyTorch.md): an nn.Module and its placements to an MPI executable"
  "$root/.venv/bin/python" "$root/examples/pytorch/megatron_mlp.py" "$tmp/torch" 2>/dev/null
  "$build/bin/dtensor-translate" --dtensor-to-cpp "$tmp/torch/mlp.local.mlir" -o "$tmp/torch/mlp.cpp"
  "$build/bin/dtensor-build" "$tmp/torch/mlp.cpp" -o "$tmp/torch/mlp"
  # shellcheck disable=SC2046
  mpirun $( [ "$(id -u)" = 0 ] && echo --allow-run-as-root ) --oversubscribe -np 4 \
    "$tmp/torch/mlp" $(cat "$tmp/torch/flags.txt") --output-dir "$tmp/torch/out" >/dev/null
  "$root/.venv/bin/python" -c "
import numpy as np, sys
d = sys.argv[1]; w = np.load(d + '/want.npy')
print('every MPI rank equals PyTorch:', all(abs(np.load(f'{d}/out/out0.rank{r}.npy') - w).max() < 1e-5 for r in range(4)))" "$tmp/torch"
else
  echo
  echo "(PyTorch is not in .venv: scripts/setup-torch.sh adds it, then this demo also runs"
  echo " examples/pytorch/megatron_mlp.py end to end)"
fi
