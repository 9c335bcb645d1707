// RUN: dtensor-opt %s --dtensor-optimize-collectives --split-input-file | FileCheck %s
// RUN: dtensor-opt %s --dtensor-optimize-collectives=hoist=false --split-input-file | FileCheck %s --check-prefix=NOHOIST
// RUN: dtensor-opt %s --dtensor-optimize-collectives=dedupe=false --split-input-file | FileCheck %s --check-prefix=NODEDUPE

// Collectives are hoisted out of loops that run, with the pure ops around
// them, and merged with an equal dominating one; nothing else moves.

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]

// CHECK-LABEL: func.func @hoist_from_loop
// CHECK:         %[[P:.+]] = tensor.pad
// CHECK:         %[[G:.+]] = dtensor.all_gather %[[P]]
// CHECK:         %[[S:.+]] = tensor.extract_slice %[[G]]
// CHECK:         scf.for
// CHECK-NOT:       dtensor.all_gather
// CHECK:           linalg.add ins(%{{.*}}, %[[S]]
// NOHOIST-LABEL: func.func @hoist_from_loop
// NOHOIST:         scf.for
// NOHOIST:           dtensor.all_gather
func.func @hoist_from_loop(%m: !dtensor.device_mesh<@mesh>, %w: tensor<2x8xf32>, %h0: tensor<7x8xf32>) -> tensor<7x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %f0 = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c10 step %c1 iter_args(%h = %h0) -> (tensor<7x8xf32>) {
    %p = tensor.pad %w low[0, 0] high[0, 0] {
    ^bb0(%a: index, %b: index):
      tensor.yield %f0 : f32
    } : tensor<2x8xf32> to tensor<2x8xf32>
    %g = dtensor.all_gather %p, %m mesh_dims = [1] gather_dim = 0
        : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
    %s = tensor.extract_slice %g[0, 0] [7, 8] [1, 1] : tensor<8x8xf32> to tensor<7x8xf32>
    %e = tensor.empty() : tensor<7x8xf32>
    %n = linalg.add ins(%h, %s : tensor<7x8xf32>, tensor<7x8xf32>) outs(%e : tensor<7x8xf32>) -> tensor<7x8xf32>
    scf.yield %n : tensor<7x8xf32>
  }
  return %r : tensor<7x8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]

// A loop that may not run, one whose operand changes, and an asynchronous
// start keep their collectives.
// CHECK-LABEL: func.func @stay
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[N:.*]] step
// CHECK-NEXT:      dtensor.all_reduce
// CHECK:         scf.for
// CHECK-NEXT:      dtensor.all_reduce %{{.*}} reduce = sum
// CHECK:         scf.for
// CHECK-NEXT:      dtensor.all_reduce {{.*}} -> !dtensor.future
// CHECK-NEXT:      dtensor.wait
func.func @stay(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32>, %n: index) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<8xf32>) {
    %r = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
    scf.yield %r : tensor<8xf32>
  }
  %b = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<8xf32>) {
    %r = dtensor.all_reduce %acc, %m mesh_dims = [1] reduce = sum : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
    scf.yield %r : tensor<8xf32>
  }
  %c = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<8xf32>) {
    %f = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8xf32>>
    %r = dtensor.wait %f : !dtensor.future<tensor<8xf32>>
    scf.yield %r : tensor<8xf32>
  }
  return %a, %b, %c : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]

// Equal collectives merge when one dominates the other; other groups,
// reductions, or branches that do not dominate each other do not.
// CHECK-LABEL: func.func @dedupe
// CHECK-COUNT-1: dtensor.all_reduce %arg1, %arg0 mesh_dims = [1] reduce = max
// CHECK:         dtensor.all_reduce %arg1, %arg0 mesh_dims = [0] reduce = max
// CHECK:         dtensor.all_reduce %arg1, %arg0 mesh_dims = [1] reduce = sum
// CHECK:         scf.if
// CHECK:           dtensor.all_gather
// CHECK:         } else {
// CHECK:           dtensor.all_gather
// CHECK:         return %[[A:.+]], %[[A]],
// NODEDUPE-LABEL: func.func @dedupe
// NODEDUPE-COUNT-2: dtensor.all_reduce %arg1, %arg0 mesh_dims = [1] reduce = max
func.func @dedupe(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32>, %y: tensor<2xf32>, %p: i1)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %a = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = max : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
  %b = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = max : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
  %c = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = max : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
  %d = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
  %e = scf.if %p -> tensor<8xf32> {
    %g = dtensor.all_gather %y, %m mesh_dims = [1] gather_dim = 0 : tensor<2xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
    scf.yield %g : tensor<8xf32>
  } else {
    %g = dtensor.all_gather %y, %m mesh_dims = [1] gather_dim = 0 : tensor<2xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
    scf.yield %g : tensor<8xf32>
  }
  return %a, %b, %c, %d, %e : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
