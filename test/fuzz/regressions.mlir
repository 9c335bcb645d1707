// RUN: not dtensor-opt %s -split-input-file 2>&1 | FileCheck %s
// Inputs the fuzzers (fuzz/, scripts/fuzz.sh) found crashing a tool, each
// now a clean error. `not` fails on a crash, so each chunk must end in a
// diagnostic.

// A spec-encoded tensor type whose element type is missing, in a structured
// op's type list: the encoding was verified with a null element type.
// CHECK: error: expected non-function type
dtensor.mesh @mesh shape = [2]
func.func @f(%x: tensor<2x2xf32>, %w: tensor<2x4xf32>, %z: tensor<2x4xf32>) {
  %h = linalg.matmul ins(%x, %w : tensor<2x2xf32>, tensor<2x4xf32>) outs(%z : tensor<2x4x, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<2x4xf32>
  return
}
