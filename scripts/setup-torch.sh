#!/usr/bin/env bash
# Adds PyTorch (from PyPI, used on the CPU) to the project's cached .venv,
# for the PyTorch suites (test/torch) and dtensor_mlir.torch. Several GB the
# first time; later runs find it and print one line.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exec bash "$root/scripts/setup-python.sh" "torch==${DTENSOR_TORCH_VERSION:-2.15.0}"
