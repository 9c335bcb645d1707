#!/usr/bin/env bash
# The main job: build dtensor-mlir (installing what it needs), then compile the
# 2x4-mesh example with dtensor-opt and print, for every distributed value,
# each rank's local shape and global offset.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTENSOR_BUILD_DIR:-$root/build}"

bash "$root/scripts/build.sh" dtensor-opt dtensor-plan >/dev/null

example="${1:-$root/examples/layouts_2x4.mlir}"
echo "== dtensor-opt $(basename "$example") --dtensor-normalize-specs --dtensor-verify --dtensor-print-layout"
"$build/bin/dtensor-opt" "$example" \
  --dtensor-normalize-specs --dtensor-verify --dtensor-print-layout -o /dev/null 2>&1
echo
echo "== dtensor-plan layout --mesh 2x4 --shape 9x4 --placements '[S(0)[1], S(0)[0]]'"
"$build/bin/dtensor-plan" layout --mesh 2x4 --shape 9x4 --placements '[S(0)[1], S(0)[0]]'
