#!/usr/bin/env bash
# Adds PyTorch (from PyPI, used on the CPU) to the project's cached .venv,
# for the PyTorch suites (test/torch) and dtensor_mlir.torch, and Hugging
# Face transformers for the suite of its models (test_hf_models.py). Several
# GB the first time; later runs find them and print one line.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exec bash "$root/scripts/setup-python.sh" "torch==${DTENSOR_TORCH_VERSION:-2.15.0}" \
  "transformers==${DTENSOR_TRANSFORMERS_VERSION:-5.24.0}"
