// RUN: dtensor-opt %s --dtensor-compile | FileCheck %s
// A mesh of a million ranks: per-rank facts are computed from the rank's
// coordinate, never materialized one op (or one loop iteration of the
// compiler) per rank. Uneven redistributions pad to the largest shard around
// one collective and cut the result with a fixed number of slices (issue 10:
// this took 35 s and 2.9 GB with one slice pair per rank).

dtensor.mesh @m shape = [1000000]
// CHECK-LABEL: func.func @f(
// CHECK:         tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [%{{.*}}, 4] [1, 1] : tensor<?x4xf32> into tensor<2x4xf32>
// CHECK-NEXT:    %[[G:.*]] = dtensor.all_gather %{{.*}} : tensor<2x4xf32>, !dtensor.device_mesh<@m> -> tensor<2000000x4xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.extract_slice %[[G]][0, 0] [1000001, 4] [1, 1]
// CHECK-NEXT:    return %[[R]]
func.func @f(%mesh: !dtensor.device_mesh<@m>, %x: tensor<1000001x4xf32, #dtensor.spec<@m, [S(0)]>>) -> tensor<1000001x4xf32, #dtensor.spec<@m, [R]>> {
  %r = dtensor.redistribute %x, %mesh : tensor<1000001x4xf32, #dtensor.spec<@m, [S(0)]>>, !dtensor.device_mesh<@m> -> tensor<1000001x4xf32, #dtensor.spec<@m, [R]>>
  return %r : tensor<1000001x4xf32, #dtensor.spec<@m, [R]>>
}
// CHECK-LABEL: func.func @g(
// CHECK:         tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [1000001, 4] [1, 1] : tensor<1000001x4xf32> into tensor<2000000x4xf32>
// CHECK-NEXT:    dtensor.reduce_scatter
// CHECK-COUNT-1: tensor.extract_slice
// CHECK-NOT:     tensor.extract_slice
// CHECK:         return
func.func @g(%mesh: !dtensor.device_mesh<@m>, %x: tensor<1000001x4xf32, #dtensor.spec<@m, [P(sum)]>>) -> tensor<1000001x4xf32, #dtensor.spec<@m, [S(0)]>> {
  %r = dtensor.redistribute %x, %mesh : tensor<1000001x4xf32, #dtensor.spec<@m, [P(sum)]>>, !dtensor.device_mesh<@m> -> tensor<1000001x4xf32, #dtensor.spec<@m, [S(0)]>>
  return %r : tensor<1000001x4xf32, #dtensor.spec<@m, [S(0)]>>
}
// CHECK-LABEL: func.func @h(
// CHECK-COUNT-2: tensor.insert_slice
// CHECK-NOT:     tensor.insert_slice
// CHECK:         dtensor.all_to_all
// CHECK-COUNT-2: tensor.extract_slice
// CHECK-NOT:     tensor.{{insert|extract}}_slice
// CHECK:         return
func.func @h(%mesh: !dtensor.device_mesh<@m>, %x: tensor<1000001x1000003xf32, #dtensor.spec<@m, [S(0)]>>) -> tensor<1000001x1000003xf32, #dtensor.spec<@m, [S(1)]>> {
  %r = dtensor.redistribute %x, %mesh : tensor<1000001x1000003xf32, #dtensor.spec<@m, [S(0)]>>, !dtensor.device_mesh<@m> -> tensor<1000001x1000003xf32, #dtensor.spec<@m, [S(1)]>>
  return %r : tensor<1000001x1000003xf32, #dtensor.spec<@m, [S(1)]>>
}
