# Shared set-up of the code-generation benchmarks (sourced by codegen.sh,
# gpu_mlp.sh and gpu_reduce.sh after they set `root` and `build`).
#
# bench_setup: a temporary directory `tmp` removed on exit, Open MPI's flags
# `mpiflags` (as root too), and `dbuild`, the build tree's dtensor-build or
# the one on PATH (a GPU machine set up by scripts/gpu-check.sh).
bench_setup() {
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  mpiflags=(--oversubscribe)
  [ "$(id -u)" = 0 ] && mpiflags+=(--allow-run-as-root)
  dbuild="$build/bin/dtensor-build"
  [ -x "$dbuild" ] || dbuild="$(command -v dtensor-build)"
}

# mlp_inputs BLOCKS BATCH HIDDEN: the MLP's global inputs in $tmp (the
# activations and every block's two weights, bench/write_npy.py) and the
# matching `--input` flags in the array `inputs`.
mlp_inputs() {
  local blocks="$1" batch="$2" hidden="$3" b
  inputs=(--input "1=$tmp/x.npy")
  python3 "$root/bench/write_npy.py" "$tmp/x.npy" "$batch" "$hidden" 0
  for ((b = 0; b < blocks; ++b)); do
    python3 "$root/bench/write_npy.py" "$tmp/w1_$b.npy" "$hidden" "$hidden" $((2 * b + 1))
    python3 "$root/bench/write_npy.py" "$tmp/w2_$b.npy" "$hidden" "$hidden" $((2 * b + 2))
    inputs+=(--input "$((2 + 2 * b))=$tmp/w1_$b.npy" --input "$((3 + 2 * b))=$tmp/w2_$b.npy")
  done
}
