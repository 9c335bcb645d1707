#!/usr/bin/env bash
# Installs every system package dtensor-mlir needs to build and test.
# Idempotent: when everything is present it prints one line and exits.
# Arguments name extra packages to install with the same rules.
set -euo pipefail

PKGS=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  cmake ninja-build lld g++ libgtest-dev libopenblas-dev python3
  libzstd-dev zlib1g-dev libedit-dev libcurl4-openssl-dev libxml2-dev libffi-dev
  libopenmpi-dev openmpi-bin python3-venv python3-dev
  coinor-libcbc-dev pkg-config libmimalloc-dev ccache
)
# Extra packages a script needs (scripts/sanitize.sh: clang-22 and its runtimes).
PKGS+=("$@")

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PKGS[@]} system packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
