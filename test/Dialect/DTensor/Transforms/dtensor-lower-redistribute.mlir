// RUN: dtensor-opt %s -split-input-file --dtensor-lower-redistribute -verify-diagnostics | FileCheck %s
// RUN: dtensor-opt %s -split-input-file --dtensor-lower-redistribute="devices-per-host=1" -verify-diagnostics | FileCheck %s

// Each reshard becomes the planned collectives: gathering rows is one
// all_gather; reducing partial sums into row shards one reduce_scatter;
// swapping the sharded dim one all_to_all.
dtensor.mesh @mesh shape = [2, 2]
// CHECK-LABEL: func.func @steps
// CHECK-NOT:     dtensor.reshard
// CHECK:         dtensor.all_gather %{{.*}}, %{{.*}} mesh_dims = [0] gather_dim = 0 : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
// CHECK:         dtensor.reduce_scatter %{{.*}}, %{{.*}} mesh_dims = [1] scatter_dim = 0 reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32>
// CHECK:         dtensor.all_to_all %{{.*}}, %{{.*}} mesh_dims = [0] split_dim = 1 concat_dim = 0 : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x4xf32>
func.func @steps(%m: !dtensor.device_mesh<@mesh>, %a: tensor<4x8xf32>, %b: tensor<8x8xf32>, %c: tensor<4x8xf32>)
    -> (tensor<8x8xf32>, tensor<4x8xf32>, tensor<8x4xf32>) {
  %0 = dtensor.reshard %a, %m to #dtensor.spec<@mesh, [R, R]> from tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>> : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  %1 = dtensor.reshard %b, %m to #dtensor.spec<@mesh, [R, S(0)]> from tensor<8x8xf32, #dtensor.spec<@mesh, [R, P(sum)]>> : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32>
  %2 = dtensor.reshard %c, %m to #dtensor.spec<@mesh, [S(1), R]> from tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>> : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x4xf32>
  return %0, %1, %2 : tensor<8x8xf32>, tensor<4x8xf32>, tensor<8x4xf32>
}

// -----

// Uneven shards (9 rows over 2) are padded to the largest piece around the
// collective and sliced back after: the pieces are the first 9 rows of the
// gathered slots (one slice, never one per rank).
dtensor.mesh @mesh shape = [2]
// CHECK-LABEL: func.func @uneven
// CHECK:         %[[P:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [%{{.*}}, 4] [1, 1] : tensor<?x4xf32> into tensor<5x4xf32>
// CHECK:         %[[G:.*]] = dtensor.all_gather %[[P]], %{{.*}} mesh_dims = [0] gather_dim = 0 : tensor<5x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<10x4xf32>
// CHECK:         tensor.extract_slice %[[G]][0, 0] [9, 4] [1, 1] : tensor<10x4xf32> to tensor<9x4xf32>
// CHECK-NOT:     tensor.insert_slice
func.func @uneven(%m: !dtensor.device_mesh<@mesh>, %a: tensor<?x4xf32>) -> tensor<9x4xf32> {
  %0 = dtensor.reshard %a, %m to #dtensor.spec<@mesh, [R]> from tensor<9x4xf32, #dtensor.spec<@mesh, [S(0)]>> : tensor<?x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x4xf32>
  return %0 : tensor<9x4xf32>
}

// -----

// What the planner's steps cannot do is an error at the reshard.
dtensor.mesh @mesh shape = [2]
func.func @int_partial(%m: !dtensor.device_mesh<@mesh>, %a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{cannot make a Partial(sum) of integer tensor 'tensor<4xi32, #dtensor.spec<@mesh, [R]>>' from a replicated one: that divides by the group size}}
  %0 = dtensor.reshard %a, %m to #dtensor.spec<@mesh, [P(sum)]> from tensor<4xi32, #dtensor.spec<@mesh, [R]>> : tensor<4xi32>, !dtensor.device_mesh<@mesh> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// S(d) -> P(sum) (DTensor 2.15): no collective; each rank's rows (uneven:
// 3, 2) go in place, at this rank's torch.chunk offset, into zeros of the
// whole extent.
dtensor.mesh @mesh shape = [2]
// CHECK-LABEL: func.func @shard_to_partial_sum
// CHECK-NOT:     dtensor.all_
// CHECK:         dtensor.mesh_coord %{{.*}} mesh_dims = [0]
// CHECK:         %[[Z:.*]] = tensor.splat %{{.*}} : tensor<5x4xf32>
// CHECK:         tensor.insert_slice %{{.*}} into %[[Z]][%{{.*}}, 0] [%{{.*}}, 4] [1, 1] : tensor<?x4xf32> into tensor<5x4xf32>
func.func @shard_to_partial_sum(%m: !dtensor.device_mesh<@mesh>, %x: tensor<?x4xf32>) -> tensor<5x4xf32> {
  %r = dtensor.reshard %x, %m to #dtensor.spec<@mesh, [P(sum)]> from tensor<5x4xf32, #dtensor.spec<@mesh, [S(0)]>> : tensor<?x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}
