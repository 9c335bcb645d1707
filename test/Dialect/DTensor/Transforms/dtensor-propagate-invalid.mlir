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

