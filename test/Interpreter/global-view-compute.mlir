// RUN: dtensor-run %s --print-values | FileCheck %s
// In the global view, compute ops see distributed operands as their logical
// tensors and results typed with a spec become distributed values: this is
// the reference the compiled SPMD program is checked against.

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

// A Megatron-style MLP written on global values: column-parallel weight,
// then row-parallel weight (partial sums), reduced by a redistribute.
func.func @main(%m: !dtensor.device_mesh<@mesh>) -> (tensor<2x2xf32, #dtensor.spec<@mesh, [R, R]>>, tensor<2x2xf32>) {
  %xl = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %x = dtensor.distribute_tensor %xl, %m : tensor<2x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x2xf32, #dtensor.spec<@mesh, [R, R]>>
  %w1l = arith.constant dense<[[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]]> : tensor<2x4xf32>
  %w1 = dtensor.distribute_tensor %w1l, %m : tensor<2x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  %e = tensor.empty() : tensor<2x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>) -> tensor<2x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  %h = linalg.matmul ins(%x, %w1 : tensor<2x2xf32, #dtensor.spec<@mesh, [R, R]>>, tensor<2x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z : tensor<2x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>) -> tensor<2x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  %w2l = arith.constant dense<[[1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]> : tensor<4x2xf32>
  %w2 = dtensor.distribute_tensor %w2l, %m : tensor<4x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x2xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  %e2 = tensor.empty() : tensor<2x2xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x2xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) -> tensor<2x2xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
  %y = linalg.matmul ins(%h, %w2 : tensor<2x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<4x2xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z2 : tensor<2x2xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) -> tensor<2x2xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
  %r = dtensor.redistribute %y, %m : tensor<2x2xf32, #dtensor.spec<@mesh, [R, P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<2x2xf32, #dtensor.spec<@mesh, [R, R]>>
  // The same value computed on plain tensors.
  %ep = tensor.empty() : tensor<2x4xf32>
  %zp = linalg.fill ins(%zero : f32) outs(%ep : tensor<2x4xf32>) -> tensor<2x4xf32>
  %hp = linalg.matmul ins(%xl, %w1l : tensor<2x2xf32>, tensor<2x4xf32>) outs(%zp : tensor<2x4xf32>) -> tensor<2x4xf32>
  %ep2 = tensor.empty() : tensor<2x2xf32>
  %zp2 = linalg.fill ins(%zero : f32) outs(%ep2 : tensor<2x2xf32>) -> tensor<2x2xf32>
  %yp = linalg.matmul ins(%hp, %w2l : tensor<2x4xf32>, tensor<4x2xf32>) outs(%zp2 : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r, %yp : tensor<2x2xf32, #dtensor.spec<@mesh, [R, R]>>, tensor<2x2xf32>
}

// x @ w1 = [[1, 2, 1, 2], [3, 4, 3, 4]]; @ w2 (all ones) = [[6, 6], [14, 14]].
// CHECK:      ran @main on 4 rank(s)
// CHECK-NEXT: output 0: distributed [R, R], global 2x2 f32 sum=40
// CHECK-NEXT: {{\[\[}}6, 6], [14, 14]]
// CHECK-NEXT: output 1: same on every rank, 2x2 f32 sum=40
// CHECK-NEXT: {{\[\[}}6, 6], [14, 14]]
