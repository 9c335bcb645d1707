// A module of two functions: @main calls @layer twice. Each function is
// propagated on its own, with the specs of its signature at the boundary.
//
//   dtensor-run examples/compile/calls.mlir --entry main --verify --pipeline dtensor-compile --report

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]
func.func private @layer(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, %w: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.matmul ins(%x, %w : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = math.tanh %h : tensor<4x8xf32>
  %d = dtensor.distribute_tensor %t, %m : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}
func.func @main(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, %w: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %a = call @layer(%m, %x, %w) : (!dtensor.device_mesh<@mesh>, tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %b = call @layer(%m, %a, %w) : (!dtensor.device_mesh<@mesh>, tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %b : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}
