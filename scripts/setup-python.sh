#!/usr/bin/env bash
# Makes the project's Python environment: a virtual environment kept in a
# cache outside the clone (created once, reused by every clone and CI run)
# and reached from the repo as .venv. It holds what the Python package needs
# to build and test (nanobind, numpy, pytest); arguments name more PyPI
# packages to install into it (scripts/setup-torch.sh adds PyTorch).
# Idempotent: when everything is present it prints one line.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${DTENSOR_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/dtensor-mlir/venv}"
python="${DTENSOR_PYTHON:-python3}"

if [ ! -x "$cache/bin/python" ]; then
  echo "setup-python: creating $cache"
  mkdir -p "$(dirname "$cache")"
  "$python" -m venv "$cache"
fi
if [ "$(readlink -f "$root/.venv" 2>/dev/null)" != "$(readlink -f "$cache")" ]; then
  rm -rf "$root/.venv"
  ln -s "$cache" "$root/.venv"
fi

want=(nanobind numpy pytest "$@")
missing=()
for pkg in "${want[@]}"; do
  name="${pkg%%[<>=]*}"
  if ! "$cache/bin/python" -m pip show -q "$name" >/dev/null 2>&1; then
    missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-python: $cache has ${want[*]}"
  exit 0
fi
echo "setup-python: installing ${missing[*]}"
"$cache/bin/python" -m pip install -q --disable-pip-version-check "${missing[@]}"
