// RUN: dtensor-opt %s -split-input-file --dtensor-propagate -verify-diagnostics

// In the global view a distributed tensor is one value for all ranks.
// Computing on one with a value that differs from rank to rank (a rank
// query, a to_local shard, control flow on them) has no global meaning:
// partitioning would apply each rank's own value to its own shard only (the
// compiled programs differed from the global ones, found by probing). Each
// such op is an error, with a note at the value's origin; from_local and
// local_map are the ways to compute per rank.

dtensor.mesh @mesh shape = [4] names = ["t"]

func.func @in_body(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<8xf32> {
  // expected-note@+1 {{the value that differs per rank comes from here}}
  %c = dtensor.mesh_coord %m mesh_dims = [0] : !dtensor.device_mesh<@mesh> -> index
  %ci = arith.index_cast %c : index to i32
  %cf = arith.sitofp %ci : i32 to f32
  %e = tensor.empty() : tensor<8xf32>
  // expected-error@+1 {{computes on a distributed tensor with a value that differs from rank to rank (from 'dtensor.mesh_coord')}}
  %z = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.addf %a, %cf : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  return %z : tensor<8xf32>
}

// -----

dtensor.mesh @mesh shape = [4] names = ["t"]

// The init of a reduction over a sharded dim, filled with the coordinate.
func.func @fill_init(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4x8xf32, #dtensor.spec<@mesh, [S(1)]>>) -> tensor<4xf32> {
  // expected-note@+1 {{the value that differs per rank comes from here}}
  %c = dtensor.mesh_coord %m mesh_dims = [0] : !dtensor.device_mesh<@mesh> -> index
  %ci = arith.index_cast %c : index to i32
  %cf = arith.sitofp %ci : i32 to f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%cf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{computes on a distributed tensor with a value that differs from rank to rank}}
  %r = linalg.reduce ins(%x : tensor<4x8xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}

// -----

dtensor.mesh @mesh shape = [4] names = ["t"]

// A shard (to_local) added to the value it came from; a value computed
// from a distributed one (the matmul's plain result) counts as one.
func.func @local_shard(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x4xf32, #dtensor.spec<@mesh, [R]>>) -> tensor<8x4xf32> {
  // expected-note@+1 {{the value that differs per rank comes from here}}
  %l = dtensor.to_local %x : tensor<8x4xf32, #dtensor.spec<@mesh, [R]>> -> tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %n = linalg.negf ins(%x : tensor<8x4xf32, #dtensor.spec<@mesh, [R]>>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  // expected-error@+1 {{computes on a distributed tensor with a value that differs from rank to rank (from 'dtensor.to_local')}}
  %s = linalg.add ins(%n, %l : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

dtensor.mesh @mesh shape = [4] names = ["t"]

// Distributed compute under a branch taken on some ranks only (each side's
// ops), and a loop carrying a distributed value whose trip count differs
// per rank (the loop).
func.func @control(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>) -> (tensor<8xf32>, tensor<8xf32>) {
  // expected-note@+1 {{the value that differs per rank comes from here}}
  %c = dtensor.mesh_coord %m mesh_dims = [0] : !dtensor.device_mesh<@mesh> -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %is0 = arith.cmpi eq, %c, %c0 : index
  %e = tensor.empty() : tensor<8xf32>
  %b = scf.if %is0 -> tensor<8xf32> {
    // expected-error@+1 {{computes on a distributed tensor with a value that differs from rank to rank}}
    %n = linalg.negf ins(%x : tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    scf.yield %n : tensor<8xf32>
  } else {
    // expected-error@+1 {{computes on a distributed tensor with a value that differs from rank to rank}}
    %n = linalg.exp ins(%x : tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    scf.yield %n : tensor<8xf32>
  }
  %init = linalg.copy ins(%x : tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  // expected-error@+1 {{computes on a distributed tensor with a value that differs from rank to rank}}
  %l = scf.for %i = %c0 to %c step %c1 iter_args(%acc = %init) -> tensor<8xf32> {
    %t = linalg.exp ins(%acc : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    scf.yield %t : tensor<8xf32>
  }
  return %b, %l : tensor<8xf32>, tensor<8xf32>
}

// -----

dtensor.mesh @mesh shape = [4] names = ["t"]

// Through a call: the callee computes with the caller's per-rank value.
func.func private @scale(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>, %s: f32) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-error@+1 {{computes on a distributed tensor with a value that differs from rank to rank}}
  %z = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.mulf %a, %s : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  return %z : tensor<8xf32>
}
func.func @caller(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<8xf32> {
  // expected-note@+1 {{the value that differs per rank comes from here}}
  %c = dtensor.mesh_coord %m mesh_dims = [0] : !dtensor.device_mesh<@mesh> -> index
  %ci = arith.index_cast %c : index to i32
  %cf = arith.sitofp %ci : i32 to f32
  %r = func.call @scale(%m, %x, %cf) : (!dtensor.device_mesh<@mesh>, tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>, f32) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 2] names = ["a", "b"]

// Allowed: per-rank values into from_local and local_map; a sum of them
// over the whole mesh (the same on every rank); a per-rank value combined
// with a global value only after full_tensor (a plain tensor, no shards).
func.func @allowed(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> (tensor<8xf32>, tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8xf32>) {
  %c = dtensor.mesh_coord %m mesh_dims = [0, 1] : !dtensor.device_mesh<@mesh> -> index
  %ci = arith.index_cast %c : index to i32
  %cf = arith.sitofp %ci : i32 to f32
  %e4 = tensor.empty() : tensor<4xf32>
  %f4 = linalg.fill ins(%cf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %d = dtensor.from_local %f4, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %lm = dtensor.local_map %x, %d on %m : !dtensor.device_mesh<@mesh>
      in_specs = [#dtensor.spec<@mesh, [S(0), R]>, #dtensor.spec<@mesh, [S(0), R]>] {
  ^bb0(%lx: tensor<4xf32>, %ld: tensor<4xf32>):
    %s = arith.addf %lx, %ld : tensor<4xf32>
    dtensor.yield %s : tensor<4xf32>
  } : (tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %e1 = tensor.empty() : tensor<f32>
  %f1 = linalg.fill ins(%cf : f32) outs(%e1 : tensor<f32>) -> tensor<f32>
  %sum = dtensor.all_reduce %f1, %m mesh_dims = [0, 1] reduce = sum : tensor<f32>, !dtensor.device_mesh<@mesh> -> tensor<f32>
  %e = tensor.empty() : tensor<8xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x, %sum : tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<f32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  %g = dtensor.full_tensor %x, %m : tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
  %e8 = tensor.empty() : tensor<8xf32>
  %f8 = linalg.fill ins(%cf : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %per = linalg.add ins(%g, %f8 : tensor<8xf32>, tensor<8xf32>) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  return %scaled, %lm, %per : tensor<8xf32>, tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8xf32>
}
