// RUN: dtensor-opt %s -split-input-file --dtensor-partition --dtensor-lower-redistribute -verify-diagnostics

dtensor.mesh @mesh shape = [2, 2]

// A redistribution needs the global shape to plan and pad.
func.func @dynamic(%m: !dtensor.device_mesh<@mesh>, %x: tensor<?x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<?x8xf32, #dtensor.spec<@mesh, [R, R]>> {
  // expected-error@+1 {{'dtensor.redistribute' op needs a static global shape to be partitioned, got 'tensor<?x8xf32, #dtensor.spec<@mesh, [S(0), R]>>'}}
  %r = dtensor.redistribute %x, %m : tensor<?x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh> -> tensor<?x8xf32, #dtensor.spec<@mesh, [R, R]>>
  return %r : tensor<?x8xf32, #dtensor.spec<@mesh, [R, R]>>
}

// -----

dtensor.mesh @mesh shape = [2]

// So does distributing to one: the shard's offset was computed from the
// dynamic size (an offset of -2^63 and an empty shard on every rank).
func.func @distribute_dynamic(%m: !dtensor.device_mesh<@mesh>, %x: tensor<?x4xf32>) -> tensor<?x4xf32, #dtensor.spec<@mesh, [S(0)]>> {
  // expected-error@+1 {{'dtensor.distribute_tensor' op needs a static global shape to be partitioned, got 'tensor<?x4xf32, #dtensor.spec<@mesh, [S(0)]>>'}}
  %y = dtensor.distribute_tensor %x, %m : tensor<?x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x4xf32, #dtensor.spec<@mesh, [S(0)]>>
  return %y : tensor<?x4xf32, #dtensor.spec<@mesh, [S(0)]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// R -> P(sum) divides, which integers cannot do exactly.
func.func @int_partial(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xi32, #dtensor.spec<@mesh, [R, R]>>) -> tensor<8xi32, #dtensor.spec<@mesh, [P(sum), R]>> {
  // expected-error@+1 {{cannot make a Partial(sum) of integer tensor 'tensor<8xi32, #dtensor.spec<@mesh, [R, R]>>' from a replicated one: that divides by the group size}}
  %r = dtensor.redistribute %x, %m : tensor<8xi32, #dtensor.spec<@mesh, [R, R]>>, !dtensor.device_mesh<@mesh> -> tensor<8xi32, #dtensor.spec<@mesh, [P(sum), R]>>
  return %r : tensor<8xi32, #dtensor.spec<@mesh, [P(sum), R]>>
}

// -----

// distribute_tensor to a Partial(sum) (DTensor 2.15) divides the value by the
// group size: inexact for integers, an error.
dtensor.mesh @pair shape = [2]
func.func @int_sum(%m: !dtensor.device_mesh<@pair>, %t: tensor<4xi32>) -> tensor<4xi32, #dtensor.spec<@pair, [P(sum)]>> {
  // expected-error@+1 {{cannot distribute integer tensor 'tensor<4xi32, #dtensor.spec<@pair, [P(sum)]>>' to a Partial(sum): its terms would be the value divided by the group size (inexact); distribute as R}}
  %d = dtensor.distribute_tensor %t, %m : tensor<4xi32>, !dtensor.device_mesh<@pair> -> tensor<4xi32, #dtensor.spec<@pair, [P(sum)]>>
  return %d : tensor<4xi32, #dtensor.spec<@pair, [P(sum)]>>
}

// -----

dtensor.mesh @mesh shape = [4]

// Hand-written global IR that skips propagation is checked too: a value
// that differs per rank in compute on a distributed tensor
// (dtensor-uniform-invalid.mlir has the cases).
func.func @per_rank_value(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>> {
  // expected-note@+1 {{the value that differs per rank comes from here}}
  %c = dtensor.mesh_coord %m mesh_dims = [0] : !dtensor.device_mesh<@mesh> -> index
  %ci = arith.index_cast %c : index to i32
  %cf = arith.sitofp %ci : i32 to f32
  %e = tensor.empty() : tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>
  // expected-error@+1 {{computes on a distributed tensor with a value that differs from rank to rank}}
  %z = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e : tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.addf %a, %cf : f32
    linalg.yield %p : f32
  } -> tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>
  return %z : tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>
}
