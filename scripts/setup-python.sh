#!/usr/bin/env bash
# Makes the project's Python environment. The packages live in a virtual
# environment kept in a cache outside the clone (created once, reused by
# every clone and CI run): nanobind, numpy, pytest, plus the PyPI packages
# named as arguments (scripts/setup-torch.sh adds PyTorch). The repo's own
# .venv is a small virtual environment of this clone that sees the cache's
# packages (a .pth file) and, once built, this clone's dtensor_mlir package
# (scripts/build.sh adds build/python_packages), so clones sharing the cache
# never see each other's builds. Idempotent: prints one line when all is there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${DTENSOR_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/dtensor-mlir/venv}"
python="${DTENSOR_PYTHON:-python3}"

if [ ! -x "$cache/bin/python" ]; then
  echo "setup-python: creating $cache"
  mkdir -p "$(dirname "$cache")"
  "$python" -m venv "$cache"
fi

want=(nanobind numpy pytest "$@")
missing=()
for pkg in "${want[@]}"; do
  name="${pkg%%[<>=]*}"
  if ! "$cache/bin/python" -m pip show -q "$name" >/dev/null 2>&1; then
    missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-python: installing ${missing[*]} into $cache"
  "$cache/bin/python" -m pip install -q --disable-pip-version-check "${missing[@]}"
fi

# This clone's .venv (a link from older set-ups is replaced).
if [ -L "$root/.venv" ] || [ ! -x "$root/.venv/bin/python" ]; then
  rm -rf "$root/.venv"
  "$cache/bin/python" -m venv --without-pip "$root/.venv"
fi
purelib() { "$1" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'; }
# Older set-ups pointed the shared cache itself at one clone's build.
rm -f "$(purelib "$cache/bin/python")/dtensor_mlir.pth"
site="$(purelib "$root/.venv/bin/python")"
echo "import site; site.addsitedir('$(purelib "$cache/bin/python")')" > "$site/dtensor_cache.pth"
echo "setup-python: .venv sees $cache (${want[*]})"
