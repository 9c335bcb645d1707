#!/usr/bin/env bash
# Configures (once) and builds dtensor-mlir into build/ (or $DTENSOR_BUILD_DIR).
# Installs the system packages first, so a fresh machine needs nothing else.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTENSOR_BUILD_DIR:-$root/build}"

bash "$root/scripts/setup.sh"
# The Python package builds against the project's .venv (nanobind, numpy).
bash "$root/scripts/setup-python.sh"
python="$root/.venv/bin/python"
source "$root/scripts/ccache-env.sh"

if [ ! -f "$build/build.ninja" ] ||
   ! grep -q "^DTENSOR_ENABLE_PYTHON:BOOL=ON" "$build/CMakeCache.txt"; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DDTENSOR_ENABLE_PYTHON=ON -DPython_EXECUTABLE="$python" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DLLVM_USE_LINKER=lld "${ccache_flags[@]}" \
    > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
fi
ninja -C "$build" "$@"

# `.venv/bin/python -c "import dtensor_mlir"` finds this clone's package.
site="$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
echo "$build/python_packages" > "$site/dtensor_mlir.pth"
