// RUN: dtensor-run %s --all-entries --verify --pipeline dtensor-compile | FileCheck %s
// RUN: dtensor-run %s --all-entries --verify --pipeline 'dtensor-compile{whole-function-ops=0}' | FileCheck %s
// RUN: dtensor-opt %s --dtensor-compile | FileCheck %s --check-prefix=IR
//
// A reduction is a Partial sum (product, max, min) only when the term its
// accumulator is combined with reads no accumulator: `acc + acc * x` is a
// product recurrence, and an output whose yield reads another output's
// accumulator (`p + o`) is no per-output sum. Both were compiled to a
// Partial sum over the sharded dim and reduced by an all_reduce: wrong
// numbers (found by probing). Their reduction dims are gathered instead.
// CHECK: verified 4 of 4 function(s)

dtensor.mesh @mesh shape = [2] names = ["a"]
#m2 = affine_map<(d0, d1) -> (d0, d1)>
#m1 = affine_map<(d0, d1) -> (d0)>

// IR-LABEL: func.func @acc_dep
// IR: dtensor.all_gather
// IR-NOT: dtensor.all_reduce
// IR: return
func.func @acc_dep(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<1x4xf32, #dtensor.spec<@mesh, [S(1)]>>) -> tensor<1xf32> {
  %c1 = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1xf32>
  %z = linalg.fill ins(%c1 : f32) outs(%e : tensor<1xf32>) -> tensor<1xf32>
  %r = linalg.generic {indexing_maps = [#m2, #m1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<1x4xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%z : tensor<1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %o, %a : f32
    %t = arith.addf %o, %s : f32
    linalg.yield %t : f32
  } -> tensor<1xf32>
  return %r : tensor<1xf32>
}

func.func @reduce_acc_dep(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<4x2xf32, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<2xf32> {
  %c1 = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %z = linalg.fill ins(%c1 : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.reduce ins(%x : tensor<4x2xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%z : tensor<2xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.mulf %acc, %in : f32
      %t = arith.addf %acc, %s : f32
      linalg.yield %t : f32
    }
  return %r : tensor<2xf32>
}

func.func @two_out(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<1x4xf32, #dtensor.spec<@mesh, [S(1)]>>) -> (tensor<1xf32>, tensor<1xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<1xf32>) -> tensor<1xf32>
  %r:2 = linalg.generic {indexing_maps = [#m2, #m1, #m1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<1x4xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%z, %z : tensor<1xf32>, tensor<1xf32>) {
  ^bb0(%a: f32, %o: f32, %p: f32):
    %t = arith.addf %a, %o : f32
    %u = arith.addf %o, %p : f32
    linalg.yield %t, %u : f32, f32
  } -> (tensor<1xf32>, tensor<1xf32>)
  return %r#0, %r#1 : tensor<1xf32>, tensor<1xf32>
}

// Still a Partial sum: the term reads only inputs (x * x + acc).
// IR-LABEL: func.func @sum_of_squares
// IR: dtensor.all_reduce
func.func @sum_of_squares(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<1x4xf32, #dtensor.spec<@mesh, [S(1)]>>) -> tensor<1xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<1xf32>) -> tensor<1xf32>
  %r = linalg.generic {indexing_maps = [#m2, #m1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<1x4xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%z : tensor<1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    %t = arith.addf %s, %o : f32
    linalg.yield %t : f32
  } -> tensor<1xf32>
  return %r : tensor<1xf32>
}
