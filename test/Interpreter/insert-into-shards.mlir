// RUN: dtensor-run %s --verify --pipeline dtensor-compile | FileCheck %s
// RUN: dtensor-opt %s --dtensor-propagate --dtensor-insert-redistribute | FileCheck %s --check-prefix=IR
//
// An op without a sharding rule (tensor.insert) computes on the global
// value; where the user typed its result with a spec, the result is the
// global value and a distribute_tensor (a local slice, no communication)
// makes the spec. insert-redistribute gave the insert its global operand
// and left the distributed result type: invalid IR ("result type matches
// type of dest").

dtensor.mesh @mesh shape = [2, 3]

// CHECK: verified @insert_sharded: 1 output(s) of the compiled program match the original on 6 rank(s)
// IR-LABEL: func.func @insert_sharded
// IR: %[[FULL:.*]] = dtensor.full_tensor %{{.*}}, %{{.*}} : tensor<7x5xf32, #dtensor.spec<@mesh, [S(1), S(0)]>>
// IR: %[[INS:.*]] = tensor.insert %{{.*}} into %[[FULL]][%{{.*}}, %{{.*}}] : tensor<7x5xf32>
// IR: dtensor.distribute_tensor %[[INS]], %{{.*}} : tensor<7x5xf32>, !dtensor.device_mesh<@mesh> -> tensor<7x5xf32, #dtensor.spec<@mesh, [S(1), S(0)]>>
func.func @insert_sharded(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<7x5xf32, #dtensor.spec<@mesh, [S(1), S(0)]>>)
    -> tensor<7x5xf32, #dtensor.spec<@mesh, [S(1), S(0)]>> {
  %c6 = arith.constant 6 : index
  %c4 = arith.constant 4 : index
  %v = arith.constant 42.0 : f32
  %y = tensor.insert %v into %x[%c6, %c4] : tensor<7x5xf32, #dtensor.spec<@mesh, [S(1), S(0)]>>
  return %y : tensor<7x5xf32, #dtensor.spec<@mesh, [S(1), S(0)]>>
}
