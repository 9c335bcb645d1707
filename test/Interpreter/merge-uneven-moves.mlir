// RUN: dtensor-run %s --verify --pipeline dtensor-compile --report | FileCheck %s
// RUN: dtensor-run %s --verify --pipeline "dtensor-compile{whole-function-ops=0}" --report | FileCheck %s
// One P(sum),S(1) argument of uneven width read whole by two ops: two
// all_reduce + pad + all_gather chains. The all_reduces merged, the pads
// merged only in the CSE after, and the all_gathers (then equal) stayed two:
// dtensor-optimize-collectives now merges and CSEs until nothing merges.
// CHECK: verified @two_users: 2 output(s)
// CHECK: communication: 2 collectives, 144 bytes/rank
dtensor.mesh @mesh shape = [2, 2] names = ["d0", "d1"]

func.func @two_users(%m: !dtensor.device_mesh<@mesh>, %a: tensor<6x3xf32, #dtensor.spec<@mesh, [P(sum), S(1)]>>) -> (tensor<6x3xf32>, tensor<6x3xf32>) {
  %e = tensor.empty() : tensor<6x3xf32>
  %r1 = dtensor.redistribute %a, %m : tensor<6x3xf32, #dtensor.spec<@mesh, [P(sum), S(1)]>>, !dtensor.device_mesh<@mesh> -> tensor<6x3xf32, #dtensor.spec<@mesh, [R, R]>>
  %r2 = dtensor.redistribute %a, %m : tensor<6x3xf32, #dtensor.spec<@mesh, [P(sum), S(1)]>>, !dtensor.device_mesh<@mesh> -> tensor<6x3xf32, #dtensor.spec<@mesh, [R, R]>>
  %f1 = dtensor.full_tensor %r1, %m : tensor<6x3xf32, #dtensor.spec<@mesh, [R, R]>>, !dtensor.device_mesh<@mesh> -> tensor<6x3xf32>
  %f2 = dtensor.full_tensor %r2, %m : tensor<6x3xf32, #dtensor.spec<@mesh, [R, R]>>, !dtensor.device_mesh<@mesh> -> tensor<6x3xf32>
  %n = linalg.negf ins(%f2 : tensor<6x3xf32>) outs(%e : tensor<6x3xf32>) -> tensor<6x3xf32>
  return %f1, %n : tensor<6x3xf32>, tensor<6x3xf32>
}
