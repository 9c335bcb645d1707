// RUN: dtensor-run %s --verify --pipeline dtensor-compile --report | FileCheck %s
// RUN: dtensor-run %s --verify --pipeline "dtensor-compile{whole-function-ops=0}" --report | FileCheck %s
// An op without a sharding rule (tensor.cast) reads its operand whole:
// insert-redistribute gathers it. Neither the analysis nor the whole-function
// model priced that gather, so the model sharded the loop (a tie-break for
// sharded compute) and gathered at the cast: 2 collectives where replicated
// values need none.
// CHECK: verified @w: 1 output(s)
// CHECK: communication: 0 collectives
dtensor.mesh @mesh shape = [2, 2] names = ["d0", "d1"]

func.func @w(%m: !dtensor.device_mesh<@mesh>, %x: tensor<3x4xf32, #dtensor.spec<@mesh, [R, R]>>, %a3: tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>>) -> tensor<3x4xf32, #dtensor.spec<@mesh, [R, R]>> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %e0 = tensor.empty() : tensor<3x4xf32>
  %x0 = linalg.negf ins(%x : tensor<3x4xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%e0 : tensor<3x4xf32>) -> tensor<3x4xf32>
  %wy = scf.for %j = %c0 to %c3 step %c1 iter_args(%acc32 = %x0) -> (tensor<3x4xf32>) {
    %e34 = tensor.empty() : tensor<3x4xf32>
    %z35 = linalg.fill ins(%zero : f32) outs(%e34 : tensor<3x4xf32>) -> tensor<3x4xf32>
    %v33 = linalg.matmul ins(%acc32, %a3 : tensor<3x4xf32>, tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%z35 : tensor<3x4xf32>) -> tensor<3x4xf32>
    %e37 = tensor.empty() : tensor<3xf32>
    %z38 = linalg.fill ins(%zero : f32) outs(%e37 : tensor<3xf32>) -> tensor<3xf32>
    %s39 = linalg.reduce ins(%v33 : tensor<3x4xf32>) outs(%z38 : tensor<3xf32>) dimensions = [1]
    (%xx: f32, %acc: f32) {
      %r = arith.addf %xx, %acc : f32
      linalg.yield %r : f32
    }
    %e40 = tensor.empty() : tensor<3x4xf32>
    %v36 = linalg.broadcast ins(%s39 : tensor<3xf32>) outs(%e40 : tensor<3x4xf32>) dimensions = [1]
    scf.yield %v36 : tensor<3x4xf32>
  }
  %y = tensor.cast %wy : tensor<3x4xf32> to tensor<3x4xf32>
  %d = dtensor.distribute_tensor %y, %m : tensor<3x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<3x4xf32, #dtensor.spec<@mesh, [R, R]>>
  return %d : tensor<3x4xf32, #dtensor.spec<@mesh, [R, R]>>
}
