// RUN: dtensor-opt %s --dtensor-schedule-async --split-input-file | FileCheck %s
// RUN: dtensor-opt %s --dtensor-schedule-async --split-input-file | dtensor-opt --split-input-file | FileCheck %s --check-prefix=ROUNDTRIP

// Collectives start as early as their operands allow and are waited just
// before their first use; the pure ops computing an operand rise with
// them; starts keep the program's issue order.

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]

// A gradient all_reduce overlaps the independent compute after it.
// CHECK-LABEL: func.func @overlap
// CHECK-NEXT:    %[[F:.+]] = dtensor.all_reduce %arg1, %arg0 mesh_dims = [0] reduce = avg : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8xf32>>
// CHECK-NEXT:    tensor.empty
// CHECK-NEXT:    %[[B:.+]] = linalg.exp
// CHECK-NEXT:    %[[W:.+]] = dtensor.wait %[[F]] : !dtensor.future<tensor<8xf32>>
// CHECK-NEXT:    linalg.add ins(%[[W]], %[[B]]
// ROUNDTRIP-LABEL: func.func @overlap
// ROUNDTRIP: dtensor.wait
func.func @overlap(%m: !dtensor.device_mesh<@mesh>, %g: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %b = linalg.exp ins(%y : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %a = dtensor.all_reduce %g, %m mesh_dims = [0] reduce = avg : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
  %c = linalg.add ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]

// Used at once, with nothing to overlap: stays synchronous.
// CHECK-LABEL: func.func @adjacent
// CHECK:         dtensor.all_reduce {{.*}} -> tensor<8xf32>
// CHECK-NOT:     dtensor.wait
func.func @adjacent(%m: !dtensor.device_mesh<@mesh>, %g: tensor<8xf32>) -> tensor<8xf32> {
  %a = dtensor.all_reduce %g, %m mesh_dims = [1] reduce = sum : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %c = linalg.exp ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]

// Two independent halo sends: the second's slice rises, and both are in
// flight together, in their program order; the waits sit at the uses.
// CHECK-LABEL: func.func @two_in_flight
// CHECK:         %[[S1:.+]] = tensor.extract_slice %arg1[0, 0]
// CHECK-NEXT:    %[[P1:.+]] = dtensor.permute %[[S1]], %arg0 mesh_dims = [1] source_target_pairs = [0, 1, 1, 2, 2, 3] {{.*}}-> !dtensor.future
// CHECK-NEXT:    %[[S2:.+]] = tensor.extract_slice %arg1[0, 7]
// CHECK-NEXT:    %[[P2:.+]] = dtensor.permute %[[S2]], %arg0 mesh_dims = [1] source_target_pairs = [1, 0, 2, 1, 3, 2] {{.*}}-> !dtensor.future
// CHECK:         %[[W1:.+]] = dtensor.wait %[[P1]]
// CHECK-NEXT:    %[[N:.+]] = linalg.negf ins(%[[W1]]
// CHECK-NEXT:    %[[W2:.+]] = dtensor.wait %[[P2]]
// CHECK-NEXT:    tensor.concat dim(1) %[[N]], %arg1, %[[W2]]
func.func @two_in_flight(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4x8xf32>) -> tensor<4x10xf32> {
  %l = tensor.extract_slice %x[0, 0] [4, 1] [1, 1] : tensor<4x8xf32> to tensor<4x1xf32>
  %p1 = dtensor.permute %l, %m mesh_dims = [1] source_target_pairs = [0, 1, 1, 2, 2, 3] : tensor<4x1xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x1xf32>
  %n = linalg.negf ins(%p1 : tensor<4x1xf32>) outs(%e : tensor<4x1xf32>) -> tensor<4x1xf32>
  %r = tensor.extract_slice %x[0, 7] [4, 1] [1, 1] : tensor<4x8xf32> to tensor<4x1xf32>
  %p2 = dtensor.permute %r, %m mesh_dims = [1] source_target_pairs = [1, 0, 2, 1, 3, 2] : tensor<4x1xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x1xf32>
  %c = tensor.concat dim(1) %n, %x, %p2 : (tensor<4x1xf32>, tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x10xf32>
  return %c : tensor<4x10xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]

func.func private @helper(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %a = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
  return %a : tensor<8xf32>
}

// A start does not rise above a call (whose callee communicates), nor above
// an earlier collective, even one already asynchronous.
// CHECK-LABEL: func.func @barriers
// CHECK:         call @helper
// CHECK-NEXT:    %[[A:.+]] = dtensor.all_gather %arg2{{.*}}-> !dtensor.future
// CHECK:         dtensor.all_reduce %arg1, %arg0 mesh_dims = [0] {{.*}}-> !dtensor.future
// CHECK-NEXT:    %[[B:.+]] = dtensor.all_reduce %arg2, %arg0 mesh_dims = [0] {{.*}}-> !dtensor.future
func.func @barriers(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32>, %y: tensor<2xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<2xf32>, tensor<8xf32>) {
  %h = func.call @helper(%m, %x) : (!dtensor.device_mesh<@mesh>, tensor<8xf32>) -> tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %n = linalg.exp ins(%h : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %g = dtensor.all_gather %y, %m mesh_dims = [1] gather_dim = 0 : tensor<2xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
  %n2 = linalg.exp ins(%n : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %f = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = sum : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8xf32>>
  %n3 = linalg.exp ins(%n2 : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %b = dtensor.all_reduce %y, %m mesh_dims = [0] reduce = sum : tensor<2xf32>, !dtensor.device_mesh<@mesh> -> tensor<2xf32>
  %n4 = linalg.exp ins(%n3 : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %w = dtensor.wait %f : !dtensor.future<tensor<8xf32>>
  %s = linalg.add ins(%g, %w : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %n4, %s, %b, %h : tensor<8xf32>, tensor<8xf32>, tensor<2xf32>, tensor<8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]

// Inside a loop body, per iteration; a result nobody reads is waited
// before the terminator.
// CHECK-LABEL: func.func @in_loop
// CHECK:         scf.for
// CHECK-NEXT:      %[[F:.+]] = dtensor.all_reduce %[[ACC:.+]], %arg0 {{.*}}-> !dtensor.future
// CHECK-NEXT:      %[[U:.+]] = dtensor.all_gather {{.*}}-> !dtensor.future
// CHECK-NEXT:      tensor.empty
// CHECK-NEXT:      linalg.exp
// CHECK-NEXT:      %[[W:.+]] = dtensor.wait %[[F]]
// CHECK-NEXT:      dtensor.wait %[[U]]
// CHECK-NEXT:      scf.yield %[[W]]
func.func @in_loop(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32>, %z: tensor<2xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<8xf32>) {
    %e = tensor.empty() : tensor<8xf32>
    %a = dtensor.all_reduce %acc, %m mesh_dims = [0] reduce = max : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
    %u = dtensor.all_gather %z, %m mesh_dims = [1] gather_dim = 0 : tensor<2xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
    %t = linalg.exp ins(%acc : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    scf.yield %a : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]

// A check (from_local's shape assertion) is a barrier: a collective after it
// starts after it, so a rank holding a wrong shard stops at the check rather
// than entering the collective with it.
// CHECK-LABEL: func.func @after_check
// CHECK:         cf.assert
// CHECK-NEXT:    %[[F:.+]] = dtensor.all_gather %arg1, %arg0 mesh_dims = [1] gather_dim = 0 : tensor<?x4xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<?x4xf32>>
// CHECK:         math.exp
// CHECK:         dtensor.wait %[[F]]
func.func @after_check(%m: !dtensor.device_mesh<@mesh>, %l: tensor<?x4xf32>, %n: index, %x: tensor<64xf32>) -> (tensor<?x4xf32>, tensor<64xf32>) {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %l, %c0 : tensor<?x4xf32>
  %ok = arith.cmpi eq, %d, %n : index
  cf.assert %ok, "from_local: wrong size"
  %g = dtensor.all_gather %l, %m mesh_dims = [1] gather_dim = 0 : tensor<?x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x4xf32>
  %e = math.exp %x : tensor<64xf32>
  return %g, %e : tensor<?x4xf32>, tensor<64xf32>
}
