# Sourced by scripts/build.sh and scripts/sanitize.sh: compiles go through
# ccache, whose cache lives outside the clone (beside the cached .venv), so a
# fresh clone (every CI run) recompiles only what changed since the last
# build on this machine. Paths are taken relative to the clone
# (CCACHE_BASEDIR, CCACHE_NOHASHDIR), so clones in other folders share it.
# DTENSOR_CCACHE=0 builds without it.
if [ "${DTENSOR_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1; then
  export CCACHE_DIR="${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dtensor-mlir/ccache}"
  export CCACHE_BASEDIR="$root"
  export CCACHE_NOHASHDIR=true
  export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-8G}"
  ccache_flags=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
else
  ccache_flags=()
fi
