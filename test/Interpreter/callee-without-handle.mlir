// RUN: dtensor-run %s --verify | FileCheck %s
// RUN: dtensor-opt %s --dtensor-compile | FileCheck %s --check-prefix=LOCAL
// RUN: dtensor-opt %s --dtensor-propagate=explain=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
//
// A private function without a handle of the mesh cannot communicate, so a
// distributed value it is called with is gathered at the call and it
// computes on whole tensors. Propagation gave its argument the call
// operand's spec, and the function was then rejected ("its function needs
// that mesh's handle as an argument").

// CHECK: verified @main

// LOCAL-LABEL: func.func private @total(%{{.*}}: tensor<4xf32>) -> tensor<f32>
// LOCAL-NOT: dtensor.
// LOCAL-LABEL: func.func @main
// LOCAL: %[[G:.*]] = dtensor.all_gather
// LOCAL: call @total(%[[G]])
// LOCAL: call @total(%[[G]])

// EXPLAIN: whole-function optimization skipped: @total takes a distributed value without its mesh's handle

dtensor.mesh @m shape = [2]
#id = affine_map<(d0) -> (d0)>
func.func private @total(%x: tensor<4xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%x : tensor<4xf32>) outs(%z : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}
func.func @main(%mh: !dtensor.device_mesh<@m>, %x: tensor<4xf32, #dtensor.spec<@m, [S(0)]>>) -> tensor<f32> {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32, #dtensor.spec<@m, [S(0)]>>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %r = func.call @total(%y) : (tensor<4xf32>) -> tensor<f32>
  %r2 = func.call @total(%y) : (tensor<4xf32>) -> tensor<f32>
  %s = arith.addf %r, %r2 : tensor<f32>
  return %s : tensor<f32>
}
