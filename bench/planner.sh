#!/usr/bin/env bash
# Planner quality and speed against DTensor's greedy plan (see PlannerBench.cpp).
# Prints a markdown table; exits non-zero if any case loses to the greedy plan.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/build.sh" dtensor-planner-bench >/dev/null
"${DTENSOR_BUILD_DIR:-$root/build}/bin/dtensor-planner-bench"
