// RUN: dtensor-opt %s --dtensor-normalize-specs | FileCheck %s

dtensor.mesh @mesh shape = [2, 4]

// Every type is rewritten: arguments, results, function types, op types.
// CHECK-LABEL: func.func @negative
// CHECK-SAME:    (%[[M:.*]]: !dtensor.device_mesh<@mesh>, %[[X:.*]]: tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>)
// CHECK-SAME:    -> tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
// CHECK:         %[[R:.*]] = dtensor.redistribute %[[X]], %[[M]] : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
// CHECK:         return %[[R]] : tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
// CHECK-NOT:     S(-
func.func @negative(%m: !dtensor.device_mesh<@mesh>,
                    %x: tensor<4x8xf32, #dtensor.spec<@mesh, [S(-2), S(-1)]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(-2)]>> {
  %r = dtensor.redistribute %x, %m
      : tensor<4x8xf32, #dtensor.spec<@mesh, [S(-2), S(-1)]>>, !dtensor.device_mesh<@mesh>
      -> tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(-2)]>>
  return %r : tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(-2)]>>
}

// Shard orders survive; S(-1) and S(1) meet in one order.
// CHECK-LABEL: func.func @ordered
// CHECK-SAME:    tensor<9x4xf32, #dtensor.spec<@mesh, [S(1)[1], S(1)[0]]>>
func.func @ordered(%x: tensor<9x4xf32, #dtensor.spec<@mesh, [S(-1)[1], S(1)[0]]>>) {
  return
}

// Already normalized types are untouched; plain tensors too.
// CHECK-LABEL: func.func @unchanged
// CHECK-SAME:    tensor<4xf32, #dtensor.spec<@mesh, [S(0), P(avg)]>>
// CHECK-SAME:    tensor<4xf32>
func.func @unchanged(%x: tensor<4xf32, #dtensor.spec<@mesh, [S(0), P(avg)]>>,
                     %y: tensor<4xf32>) {
  return
}
