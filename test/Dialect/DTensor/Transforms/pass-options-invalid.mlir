// Option values that mean nothing are errors (found by probing: a negative
// or NaN memory budget was taken as no budget, devices-per-host <= 0 priced
// every link as inter-host in propagation and lowering but as the default 8
// in narrow-moves and the comm report).
// RUN: not dtensor-opt %s --dtensor-propagate=devices-per-host=0 2>&1 | FileCheck %s --check-prefix=DPH
// DPH: error: dtensor-propagate: devices-per-host must be positive, not 0
// RUN: not dtensor-opt %s --dtensor-compile=devices-per-host=-3 2>&1 | FileCheck %s --check-prefix=DPH3
// DPH3: error: dtensor-propagate: devices-per-host must be positive, not -3
// RUN: not dtensor-opt %s --dtensor-lower-redistribute=devices-per-host=0 2>&1 | FileCheck %s --check-prefix=LOWER
// LOWER: error: dtensor-lower-redistribute: devices-per-host must be positive, not 0
// RUN: not dtensor-opt %s --dtensor-narrow-moves=devices-per-host=-1 2>&1 | FileCheck %s --check-prefix=NARROW
// NARROW: error: dtensor-narrow-moves: devices-per-host must be positive, not -1
// RUN: not dtensor-opt %s "--dtensor-propagate=auto-shard=mesh memory-budget-mb=-1" 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not dtensor-opt %s "--dtensor-propagate=auto-shard=mesh memory-budget-mb=nan" 2>&1 | FileCheck %s --check-prefix=BUDGET
// BUDGET: error: dtensor-propagate: memory-budget-mb must be a finite number of MB, 0 for no budget
// RUN: not dtensor-opt %s --dtensor-propagate=memory-budget-mb=1 2>&1 | FileCheck %s --check-prefix=NOAUTO
// NOAUTO: error: dtensor-propagate: memory-budget-mb bounds the arguments auto-sharding chooses: give auto-shard=MESH with it
// RUN: not dtensor-opt %s --dtensor-propagate=whole-function-ops=-5 2>&1 | FileCheck %s --check-prefix=WFO
// WFO: error: dtensor-propagate: whole-function-ops must be 0 (off) or positive
// RUN: not dtensor-opt %s --dtensor-propagate=search-budget=-3 2>&1 | FileCheck %s --check-prefix=SEARCH
// SEARCH: error: dtensor-propagate: search-budget must be 0 (off) or positive
// RUN: not dtensor-opt %s --dtensor-bucket-collectives=bucket-bytes=-5 2>&1 | FileCheck %s --check-prefix=BUCKET
// BUCKET: error: dtensor-bucket-collectives: bucket-bytes must be 0 or positive, not -5
// Found by probing 2026-12-01: the comm report printed NaN into its JSON for
// peak-tflops=nan, clamped zero or negative rates to 1e-9 and took a
// negative devices-per-host; narrow-moves took a negative depth.
// RUN: not dtensor-opt %s --dtensor-comm-report=peak-tflops=nan 2>&1 | FileCheck %s --check-prefix=TFLOPS
// TFLOPS: error: dtensor-comm-report: peak-tflops must be a positive, finite number, not nan
// RUN: not dtensor-opt %s --dtensor-comm-report=memory-gbs=0 2>&1 | FileCheck %s --check-prefix=GBS
// GBS: error: dtensor-comm-report: memory-gbs must be a positive, finite number, not 0
// RUN: not dtensor-opt %s --dtensor-comm-report=devices-per-host=-4 2>&1 | FileCheck %s --check-prefix=REPORTDPH
// REPORTDPH: error: dtensor-comm-report: devices-per-host must be positive, not -4
// RUN: not dtensor-opt %s --dtensor-narrow-moves=depth=-1 2>&1 | FileCheck %s --check-prefix=DEPTH
// DEPTH: error: dtensor-narrow-moves: depth must be 0 or positive, not -1
// dtensor-compile forwards bucket-bytes (it had no such option).
// RUN: dtensor-opt %s "--dtensor-compile=overlap=1 bucket-bytes=64" | FileCheck %s --check-prefix=OK
// OK: func.func @f
dtensor.mesh @mesh shape = [2]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>> {
  %y = arith.negf %x : tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>
  return %y : tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>
}
