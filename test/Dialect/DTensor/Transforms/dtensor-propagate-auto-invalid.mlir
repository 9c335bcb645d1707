// RUN: dtensor-opt %s -split-input-file --dtensor-propagate="auto-shard=mesh memory-budget-mb=0.1" -verify-diagnostics
// RUN: not dtensor-opt %s -split-input-file --dtensor-propagate="auto-shard=nomesh" 2>&1 | FileCheck %s --check-prefix=NOMESH
// NOMESH: error: auto-shard: no dtensor.mesh named @nomesh

dtensor.mesh @mesh shape = [4]

// Even with every argument split four ways its shards take 128 KiB per
// rank, over the budget.
// expected-error@+1 {{auto-sharding @too_big: the arguments need 131072 bytes per rank with each sharded as finely as it can be, more than memory-budget-mb allows (104857 bytes)}}
func.func @too_big(%m: !dtensor.device_mesh<@mesh>, %a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %y = linalg.add ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%a : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}

// -----

dtensor.mesh @mesh shape = [4]

// expected-error@+1 {{auto-sharding @no_handle over @mesh needs the mesh's handle as an argument (!dtensor.device_mesh<@mesh>)}}
func.func @no_handle(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  return %a : tensor<8x8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// A handle of a sub-mesh is not the mesh's (the specs chosen are on the whole
// mesh): the same error, at the function (it was an error at the matmul,
// "its function needs that mesh's handle", after the specs were chosen).
// expected-error@+1 {{auto-sharding @sub_handle over @mesh needs the mesh's handle as an argument (!dtensor.device_mesh<@mesh>)}}
func.func @sub_handle(%m: !dtensor.device_mesh<@mesh[1]>, %x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %h = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %h : tensor<8x8xf32>
}

// -----

dtensor.mesh @mesh shape = [4]

// A caller passes its operands as they are.
// expected-error@+1 {{auto-sharding chooses the arguments of entry functions; @callee is called in the module}}
func.func @callee(%m: !dtensor.device_mesh<@mesh>, %a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  return %a : tensor<8x8xf32>
}
func.func @caller(%m: !dtensor.device_mesh<@mesh>, %a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = func.call @callee(%m, %a) : (!dtensor.device_mesh<@mesh>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

dtensor.mesh @mesh shape = [4]

// The whole-function optimization does not cover calls of external
// functions (nothing says what they do with a distributed operand).
func.func private @ext(tensor<8x8xf32>) -> tensor<8x8xf32>
// expected-error@+1 {{auto-sharding needs the whole-function optimization to cover @in_external: skipped: it calls ext, which is not a private function with a body}}
func.func @in_external(%m: !dtensor.device_mesh<@mesh>, %a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %s = linalg.add ins(%a, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = func.call @ext(%s) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

dtensor.mesh @mesh shape = [4]

// Arguments of dynamic shape or of index elements are not chosen (they stay
// plain, the same on every rank); this used to crash pricing their bytes.
func.func @odd_types(%m: !dtensor.device_mesh<@mesh>, %i: tensor<4xindex>, %d: tensor<?x8xf32>, %a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %y = linalg.add ins(%a, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
