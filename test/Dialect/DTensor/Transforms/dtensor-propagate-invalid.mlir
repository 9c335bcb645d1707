// RUN: dtensor-opt %s -split-input-file --dtensor-propagate -verify-diagnostics

dtensor.mesh @mesh shape = [2, 2]

// Redistributes need the mesh handle: the function must take it.
func.func @no_handle(%x: tensor<4x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  // expected-error@+1 {{computes on values distributed over @mesh; its function needs that mesh's handle as an argument}}
  %y = linalg.matmul ins(%x, %x : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<4x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 2]
dtensor.mesh @other shape = [4]

func.func @two_meshes(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4x4xf32, #dtensor.spec<@mesh, [S(0), R]>>, %y: tensor<4x4xf32, #dtensor.spec<@other, [R]>>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  // expected-error@+1 {{has distributed operands on different meshes or views}}
  %r = linalg.matmul ins(%x, %y : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<4x4xf32, #dtensor.spec<@other, [R]>>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}


// -----

dtensor.mesh @mesh shape = [4]

// Recursion with a distributed operand: the callee's argument would need
// the spec it is being analysed with.
func.func private @rec_operand(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-error@+1 {{'func.call' op calls @rec_operand recursively with distributed operands, which dtensor-propagate does not support}}
  %r = func.call @rec_operand(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func @calls_rec_operand(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32, #dtensor.spec<@mesh, [S(1)]>>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @rec_operand(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

dtensor.mesh @mesh shape = [4]

// Recursion with plain operands whose callee returns a distributed value:
// the recursive call's results would keep the plain type (this used to
// leave a call whose result type did not match its callee's).
func.func private @rec_result(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %z = tensor.empty() : tensor<8x16xf32>
  // expected-error@+1 {{'func.call' op calls @rec_result recursively, which returns a distributed value (#dtensor.spec<@mesh, [S(1)]>); dtensor-propagate does not support recursion through distributed values}}
  %r = func.call @rec_result(%m, %z) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %t : tensor<8x16xf32>
}
func.func @calls_rec_result(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32, #dtensor.spec<@mesh, [S(1)]>>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @rec_result(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// A result typed as an integer Partial sum comes only from Partial terms; a
// square of them is no sum of terms, and a replicated integer cannot be
// split into terms (the error said only "no sharding rule").
func.func @integer_partial_result(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<4x4xi32, #dtensor.spec<@mesh, [P(sum), R]>>) -> tensor<4x4xi32, #dtensor.spec<@mesh, [P(sum), R]>> {
  // expected-error@+2 {{has no sharding rule for its distributed operands}}
  // expected-note@+1 {{its result is typed #dtensor.spec<@mesh, [P(sum), R]>, an integer Partial: it can come only from Partial terms}}
  %r = arith.muli %x, %x : tensor<4x4xi32, #dtensor.spec<@mesh, [P(sum), R]>>
  return %r : tensor<4x4xi32, #dtensor.spec<@mesh, [P(sum), R]>>
}
