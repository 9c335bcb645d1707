#!/usr/bin/env bash
# Builds dtensor-mlir (installing what it needs) and runs every test: the lit
# regression tests and the GoogleTest unit tests, in one lit run; then the
# same suite built with AddressSanitizer + UndefinedBehaviorSanitizer
# (clang-22, build-san/) and a short fixed-seed run of every libFuzzer target
# (scripts/sanitize.sh). DTENSOR_SKIP_SANITIZE=1 skips the second part.
# The PyTorch suites need torch (several GB from PyPI, once, into the cached
# .venv; scripts/setup-torch.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTENSOR_BUILD_DIR:-$root/build}"

bash "$root/scripts/build.sh"
# PyTorch for the differential suites against real DTensor (test/torch),
# into the cached .venv; DTENSOR_SKIP_TORCH=1 leaves it out (those tests are
# then unsupported, the rest runs without it).
if [ "${DTENSOR_SKIP_TORCH:-0}" != 1 ]; then
  bash "$root/scripts/setup-torch.sh"
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
/usr/lib/llvm-22/bin/lit -sv "$build/test" 2>&1 | tee "$log" || status=$?

passed=$(awk -F: '/^ *Passed *:/ {v = $2; sub(/^ */, "", v); sub(/[^0-9].*/, "", v); n += v} END {print n + 0}' "$log")
failed=$(awk -F: '/^ *(Failed|Unresolved|Timed Out) *:/ {v = $2; sub(/^ */, "", v); sub(/[^0-9].*/, "", v); n += v} END {print n + 0}' "$log")
echo "tests: ${passed:-0} passed, ${failed:-0} failed"
if [ "$status" -ne 0 ] || [ "${passed:-0}" -eq 0 ]; then
  exit 1
fi

if [ "${DTENSOR_SKIP_SANITIZE:-0}" != 1 ]; then
  bash "$root/scripts/sanitize.sh"
  echo "sanitizers and fuzz smoke runs: clean"
fi
