#!/usr/bin/env bash
# The modeled step time per rank (dtensor-comm-report, docs/Compile.md
# "Modeled step time") of every example program, compiled without and with
# overlap=1 (dtensor-schedule-async, dtensor-bucket-collectives): a markdown
# table of step, compute, communication and hidden time per function.
# Options after the files go to the report (e.g. "peak-tflops=25").
# Usage: bench/step_model.sh [FILE.mlir...]   (default examples/compile/*.mlir)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DTENSOR_BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh" dtensor-opt >/dev/null
opt="$build/bin/dtensor-opt"
files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$root"/examples/compile/*.mlir)
report="${STEP_MODEL_OPTIONS:+ $STEP_MODEL_OPTIONS}"

# report FILE OVERLAP: "function step compute comm hidden collectives" lines.
report() {
  "$opt" "$1" --dtensor-compile="overlap=$2" \
      --dtensor-comm-report="json=true$report" -o /dev/null 2>&1 >/dev/null |
    python3 -c '
import json, sys
for f in json.load(sys.stdin)["functions"]:
    m = f.get("modeled")
    if m:
        print(f["name"], m["step_us"], m["compute_us"], m["comm_us"], m["hidden_us"], f["total"]["count"])
'
}

echo "| program | collectives | compute us | communication us | step us | step us, overlap=1 (hidden) |"
echo "|---|---|---|---|---|---|"
for f in "${files[@]}"; do
  name="$(basename "$f" .mlir)"
  paste -d' ' <(report "$f" 0) <(report "$f" 1) |
    while read -r fn step compute comm hidden count _ step1 _ _ hidden1 count1; do
      printf '| %s @%s | %s / %s | %.1f | %.1f | %.1f | %.1f (%.1f) |\n' \
        "$name" "$fn" "$count" "$count1" "$compute" "$comm" "$step" "$step1" "$hidden1"
    done
done
