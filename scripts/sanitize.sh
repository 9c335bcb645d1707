#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer
# (clang-22), plus a short run of every libFuzzer target from its seed corpus
# (fixed seed). Builds into build-san/ (or $DTENSOR_SAN_BUILD_DIR); installs
# clang-22 and its runtimes first. Any sanitizer report fails the run.
#
#   scripts/sanitize.sh            build, lit suite, fuzz smoke runs
#   scripts/sanitize.sh --no-lit   build and fuzz smoke runs only
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTENSOR_SAN_BUILD_DIR:-$root/build-san}"
runLit=1
[ "${1:-}" = "--no-lit" ] && runLit=0

bash "$root/scripts/setup.sh"
bash "$root/scripts/setup.sh" clang-22 libclang-rt-22-dev libomp-22-dev

source "$root/scripts/ccache-env.sh"
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -gline-tables-only"
if [ ! -f "$build/build.ninja" ]; then
  echo "sanitize: configuring $build (clang-22, ASan + UBSan, fuzzers)"
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DDTENSOR_ENABLE_FUZZERS=ON -DDTENSOR_ENABLE_CUDA=OFF -DDTENSOR_USE_MIMALLOC=OFF \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DLLVM_USE_LINKER=lld "${ccache_flags[@]}" \
    > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
fi
echo "sanitize: building $build"
ninja -C "$build"

# Debian's MLIR is not instrumented; its Dialect::addType poisons memory in a
# way ASan misreads at start-up unless user poisoning is off.
export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1:abort_on_error=0"
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

status=0
if [ "$runLit" = 1 ]; then
  echo "sanitize: lit suite under ASan + UBSan"
  /usr/lib/llvm-22/bin/lit -s "$build/test" || status=$?
fi

echo "sanitize: fuzz smoke runs"
bash "$root/scripts/fuzz.sh" --smoke || status=$?
exit $status
