// A Megatron-style MLP on a 2x2 mesh ("dp" x "tp"): the user distributes
// the input (batch over dp) and the weights (W1 by columns, W2 by rows over
// tp), as parallelize_module would; everything in between is left to
// propagation. The compiled program does exactly one all_reduce (over tp).
//
//   dtensor-opt examples/compile/megatron_mlp.mlir --dtensor-compile
//   dtensor-run examples/compile/megatron_mlp.mlir --verify --pipeline dtensor-compile --report

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @mlp(%m: !dtensor.device_mesh<@mesh>,
               %x: tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>,
               %w1: tensor<16x32xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
               %w2: tensor<32x16xf32, #dtensor.spec<@mesh, [R, S(0)]>>)
    -> tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<16x32xf32, #dtensor.spec<@mesh, [R, S(1)]>>)
                     outs(%z1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  // gelu, tanh approximation: 0.5 h (1 + tanh(0.79788 (h + 0.044715 h^3)))
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x32xf32>) outs(%e1 : tensor<8x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c0 = arith.constant 0.5 : f32
    %c1 = arith.constant 1.0 : f32
    %c2 = arith.constant 0.7978846 : f32
    %c3 = arith.constant 0.044715 : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %a = arith.mulf %c3, %v3 : f32
    %b = arith.addf %v, %a : f32
    %s = arith.mulf %c2, %b : f32
    %t = math.tanh %s : f32
    %u = arith.addf %c1, %t : f32
    %hv = arith.mulf %c0, %v : f32
    %r = arith.mulf %hv, %u : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%g, %w2 : tensor<8x32xf32>, tensor<32x16xf32, #dtensor.spec<@mesh, [R, S(0)]>>)
                     outs(%z2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %yd = dtensor.distribute_tensor %y, %m : tensor<8x16xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %yd : tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>
}
