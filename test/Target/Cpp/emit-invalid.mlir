// RUN: dtensor-translate --dtensor-to-cpp --split-input-file --verify-diagnostics %s

// What the C++ emitter does not translate is an error at the op.

dtensor.mesh @mesh shape = [2]
// expected-error @+1 {{has a global-view (spec-typed) value: run --dtensor-compile (or --dtensor-partition) before emitting C++}}
func.func @global_view(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<4xf32, #dtensor.spec<@mesh, [R]>> {
  %r = dtensor.redistribute %x, %m : tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [R]>>
  return %r : tensor<4xf32, #dtensor.spec<@mesh, [R]>>
}

// -----

// expected-error @+1 {{uses element type 'f8E4M3FN', which the C++ emitter does not support yet (f32, f64, f16, bf16, i1, i8, i16, i32, i64, index)}}
func.func @fp8(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  %e = tensor.empty() : tensor<4xf8E4M3FN>
  return %e : tensor<4xf8E4M3FN>
}

// -----

// expected-error @+1 {{is external; the C++ emitter needs every function's body}}
func.func private @ext(tensor<4xf32>) -> tensor<4xf32>

// -----

func.func @scalar_entry(%x: f32) -> f32 {
  // expected-error @-1 {{entry argument 0 has type 'f32'; the generated driver reads tensor and mesh arguments only}}
  return %x : f32
}

// -----

dtensor.mesh @a shape = [2]
// expected-error @+1 {{has 4 ranks and another mesh has 2}}
dtensor.mesh @b shape = [4]
func.func @two_meshes(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

dtensor.mesh @mesh shape = [2]
func.func @unlowered(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{is a global-view op: run --dtensor-compile}}
  %d = dtensor.distribute_tensor %x, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [R]>>
  %l = dtensor.to_local %d : tensor<4xf32, #dtensor.spec<@mesh, [R]>> -> tensor<4xf32>
  return %l : tensor<4xf32>
}

// -----

// A collective under control flow that differs by rank would hang the job.
dtensor.mesh @mesh shape = [2]
func.func @divergent(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{the rank-dependent value comes from here}}
  %i = dtensor.mesh_coord %m mesh_dims = [0] : !dtensor.device_mesh<@mesh> -> index
  %first = arith.cmpi eq, %i, %c0 : index
  // expected-error @+1 {{makes collectives under control flow that can differ between ranks}}
  %r = scf.if %first -> tensor<4xf32> {
    %s = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = sum : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// The same through a call, with a loop bound read from a sharded argument
// (each rank holds a different element); a plain tensor would be the same on
// every rank.
dtensor.mesh @mesh shape = [2]
func.func private @reduce(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %s = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = sum : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32>
  return %s : tensor<4xf32>
}
// expected-note @+1 {{the rank-dependent value comes from here}}
func.func @data_bound(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32>,
                      %n: tensor<1xi64> {dtensor.global = tensor<2xi64, #dtensor.spec<@mesh, [S(0)]>>}) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = tensor.extract %n[%c0] : tensor<1xi64>
  %ub = arith.index_cast %k : i64 to index
  // expected-error @+1 {{makes collectives under control flow that can differ between ranks}}
  %r = scf.for %i = %c0 to %ub step %c1 iter_args(%acc = %x) -> tensor<4xf32> {
    %s = func.call @reduce(%m, %acc) : (!dtensor.device_mesh<@mesh>, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

dtensor.mesh @mesh shape = [2]
func.func @mesh_through_if(%m: !dtensor.device_mesh<@mesh>, %c: i1) -> index {
  // expected-error @+1 {{carries a mesh handle through control flow or a call result, which the C++ emitter does not support}}
  %h = scf.if %c -> !dtensor.device_mesh<@mesh> {
    scf.yield %m : !dtensor.device_mesh<@mesh>
  } else {
    scf.yield %m : !dtensor.device_mesh<@mesh>
  }
  %i = dtensor.mesh_coord %h mesh_dims = [0] : !dtensor.device_mesh<@mesh> -> index
  return %i : index
}

// -----

// A callee's rank-dependent result reaches its caller's branch (the call's
// result was rank-dependent only through its operands: the job hung).
dtensor.mesh @mesh shape = [2]
func.func private @coord(%m: !dtensor.device_mesh<@mesh>) -> index {
  // expected-note @+1 {{the rank-dependent value comes from here}}
  %c = dtensor.mesh_coord %m mesh_dims = [0] : !dtensor.device_mesh<@mesh> -> index
  return %c : index
}
func.func @callee_coord(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c = func.call @coord(%m) : (!dtensor.device_mesh<@mesh>) -> index
  %b = arith.cmpi eq, %c, %c0 : index
  // expected-error @+1 {{makes collectives under control flow that can differ between ranks}}
  %r = scf.if %b -> tensor<4xf32> {
    %y = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = sum : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A rank-dependent value carried round a loop through four iteration
// arguments (two passes of the analysis saw two).
dtensor.mesh @mesh shape = [2]
func.func @rotation(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-note @+1 {{the rank-dependent value comes from here}}
  %coord = dtensor.mesh_coord %m mesh_dims = [0] : !dtensor.device_mesh<@mesh> -> index
  %r:5 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %c0, %b = %c0, %c = %c0, %d = %coord, %t = %x) -> (index, index, index, index, tensor<4xf32>) {
    %p = arith.cmpi eq, %a, %c1 : index
    // expected-error @+1 {{makes collectives under control flow that can differ between ranks}}
    %u = scf.if %p -> tensor<4xf32> {
      %y = dtensor.all_reduce %t, %m mesh_dims = [0] reduce = sum : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32>
      scf.yield %y : tensor<4xf32>
    } else {
      scf.yield %t : tensor<4xf32>
    }
    scf.yield %b, %c, %d, %a, %u : index, index, index, index, tensor<4xf32>
  }
  return %r#4 : tensor<4xf32>
}

// -----

// An all_reduce over one dim of a 2x2 mesh differs between the groups of
// the other dim; over the whole mesh it would not (see uniform-control.test).
dtensor.mesh @mesh shape = [2, 2]
func.func @part_of_mesh(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32>,
                        %s: tensor<1xf32> {dtensor.global = tensor<2xf32, #dtensor.spec<@mesh, [S(0), R]>>}) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  // expected-note @+1 {{the rank-dependent value comes from here}}
  %t = dtensor.all_reduce %s, %m mesh_dims = [1] reduce = sum : tensor<1xf32>, !dtensor.device_mesh<@mesh> -> tensor<1xf32>
  %v = tensor.extract %t[%c0] : tensor<1xf32>
  %b = arith.cmpf ogt, %v, %z : f32
  // expected-error @+1 {{makes collectives under control flow that can differ between ranks}}
  %r = scf.if %b -> tensor<4xf32> {
    %y = dtensor.all_reduce %x, %m mesh_dims = [0, 1] reduce = sum : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// An unsigned loop comparison would run as a signed one: an error, not a
// different loop.
func.func @unsigned_loop(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{compares its bounds unsigned, which the C++ emitter does not support}}
  %s = scf.for unsigned %i = %c0 to %n step %c1 iter_args(%a = %c0) -> index {
    %b = arith.addi %a, %c1 : index
    scf.yield %b : index
  }
  return %s : index
}
