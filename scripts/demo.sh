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

bash "$root/scripts/build.sh" >/dev/null

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
