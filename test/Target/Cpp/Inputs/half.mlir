// f16 and bf16 programs for the emitted kernels and the runtime's half
// matmul (test/Target/Cpp/half.test): the Megatron MLP in bf16 and in f16
// (one all_reduce of a bf16 / f16 Partial sum), an element-wise chain with a
// row softmax in f16 sharded by rows, and casts between f32, f16 and bf16.

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @mlp_bf16(%m: !dtensor.device_mesh<@mesh>,
               %x: tensor<8x16xbf16, #dtensor.spec<@mesh, [S(0), R]>>,
               %w1: tensor<16x32xbf16, #dtensor.spec<@mesh, [R, S(1)]>>,
               %w2: tensor<32x16xbf16, #dtensor.spec<@mesh, [R, S(0)]>>)
    -> tensor<8x16xbf16, #dtensor.spec<@mesh, [S(0), R]>> {
  %zero = arith.constant 0.0 : bf16
  %e1 = tensor.empty() : tensor<8x32xbf16>
  %z1 = linalg.fill ins(%zero : bf16) outs(%e1 : tensor<8x32xbf16>) -> tensor<8x32xbf16>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x16xbf16, #dtensor.spec<@mesh, [S(0), R]>>, tensor<16x32xbf16, #dtensor.spec<@mesh, [R, S(1)]>>)
                     outs(%z1 : tensor<8x32xbf16>) -> tensor<8x32xbf16>
  // gelu, tanh approximation: 0.5 h (1 + tanh(0.79788 (h + 0.044715 h^3)))
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x32xbf16>) outs(%e1 : tensor<8x32xbf16>) {
  ^bb0(%v: bf16, %o: bf16):
    %c0 = arith.constant 0.5 : bf16
    %c1 = arith.constant 1.0 : bf16
    %c2 = arith.constant 0.7978846 : bf16
    %c3 = arith.constant 0.044715 : bf16
    %v2 = arith.mulf %v, %v : bf16
    %v3 = arith.mulf %v2, %v : bf16
    %a = arith.mulf %c3, %v3 : bf16
    %b = arith.addf %v, %a : bf16
    %s = arith.mulf %c2, %b : bf16
    %t = math.tanh %s : bf16
    %u = arith.addf %c1, %t : bf16
    %hv = arith.mulf %c0, %v : bf16
    %r = arith.mulf %hv, %u : bf16
    linalg.yield %r : bf16
  } -> tensor<8x32xbf16>
  %e2 = tensor.empty() : tensor<8x16xbf16>
  %z2 = linalg.fill ins(%zero : bf16) outs(%e2 : tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %y = linalg.matmul ins(%g, %w2 : tensor<8x32xbf16>, tensor<32x16xbf16, #dtensor.spec<@mesh, [R, S(0)]>>)
                     outs(%z2 : tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %yd = dtensor.distribute_tensor %y, %m : tensor<8x16xbf16>, !dtensor.device_mesh<@mesh>
      -> tensor<8x16xbf16, #dtensor.spec<@mesh, [S(0), R]>>
  return %yd : tensor<8x16xbf16, #dtensor.spec<@mesh, [S(0), R]>>
}
func.func @mlp_f16(%m: !dtensor.device_mesh<@mesh>,
               %x: tensor<8x16xf16, #dtensor.spec<@mesh, [S(0), R]>>,
               %w1: tensor<16x32xf16, #dtensor.spec<@mesh, [R, S(1)]>>,
               %w2: tensor<32x16xf16, #dtensor.spec<@mesh, [R, S(0)]>>)
    -> tensor<8x16xf16, #dtensor.spec<@mesh, [S(0), R]>> {
  %zero = arith.constant 0.0 : f16
  %e1 = tensor.empty() : tensor<8x32xf16>
  %z1 = linalg.fill ins(%zero : f16) outs(%e1 : tensor<8x32xf16>) -> tensor<8x32xf16>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf16, #dtensor.spec<@mesh, [S(0), R]>>, tensor<16x32xf16, #dtensor.spec<@mesh, [R, S(1)]>>)
                     outs(%z1 : tensor<8x32xf16>) -> tensor<8x32xf16>
  // gelu, tanh approximation: 0.5 h (1 + tanh(0.79788 (h + 0.044715 h^3)))
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x32xf16>) outs(%e1 : tensor<8x32xf16>) {
  ^bb0(%v: f16, %o: f16):
    %c0 = arith.constant 0.5 : f16
    %c1 = arith.constant 1.0 : f16
    %c2 = arith.constant 0.7978846 : f16
    %c3 = arith.constant 0.044715 : f16
    %v2 = arith.mulf %v, %v : f16
    %v3 = arith.mulf %v2, %v : f16
    %a = arith.mulf %c3, %v3 : f16
    %b = arith.addf %v, %a : f16
    %s = arith.mulf %c2, %b : f16
    %t = math.tanh %s : f16
    %u = arith.addf %c1, %t : f16
    %hv = arith.mulf %c0, %v : f16
    %r = arith.mulf %hv, %u : f16
    linalg.yield %r : f16
  } -> tensor<8x32xf16>
  %e2 = tensor.empty() : tensor<8x16xf16>
  %z2 = linalg.fill ins(%zero : f16) outs(%e2 : tensor<8x16xf16>) -> tensor<8x16xf16>
  %y = linalg.matmul ins(%g, %w2 : tensor<8x32xf16>, tensor<32x16xf16, #dtensor.spec<@mesh, [R, S(0)]>>)
                     outs(%z2 : tensor<8x16xf16>) -> tensor<8x16xf16>
  %yd = dtensor.distribute_tensor %y, %m : tensor<8x16xf16>, !dtensor.device_mesh<@mesh>
      -> tensor<8x16xf16, #dtensor.spec<@mesh, [S(0), R]>>
  return %yd : tensor<8x16xf16, #dtensor.spec<@mesh, [S(0), R]>>
}

#id1 = affine_map<(d0, d1) -> (d0, d1)>
func.func @softmax_f16(%m: !dtensor.device_mesh<@mesh>,
                       %x: tensor<8x12xf16, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<8x12xf16, #dtensor.spec<@mesh, [S(0), R]>> {
  %e = tensor.empty() : tensor<8x12xf16>
  %a = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x12xf16, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<8x12xf16>) {
  ^bb0(%v: f16, %o: f16):
    %c = arith.constant 0.25 : f16
    %s = arith.mulf %v, %c : f16
    %t = math.tanh %s : f16
    %mx = arith.maximumf %t, %s : f16
    %n = arith.negf %mx : f16
    %r = arith.subf %v, %n : f16
    linalg.yield %r : f16
  } -> tensor<8x12xf16>
  %sm = linalg.softmax dimension(1) ins(%a : tensor<8x12xf16>) outs(%e : tensor<8x12xf16>) -> tensor<8x12xf16>
  %d = dtensor.distribute_tensor %sm, %m : tensor<8x12xf16>, !dtensor.device_mesh<@mesh>
      -> tensor<8x12xf16, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<8x12xf16, #dtensor.spec<@mesh, [S(0), R]>>
}

func.func @casts(%m: !dtensor.device_mesh<@mesh>,
                 %x: tensor<4x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>)
    -> (tensor<4x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, tensor<4x6xbf16, #dtensor.spec<@mesh, [S(0), S(1)]>>) {
  %e16 = tensor.empty() : tensor<4x6xf16>
  %eb = tensor.empty() : tensor<4x6xbf16>
  %e32 = tensor.empty() : tensor<4x6xf32>
  %h = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e16 : tensor<4x6xf16>) {
  ^bb0(%v: f32, %o: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x6xf16>
  %b = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x6xf16>) outs(%eb : tensor<4x6xbf16>) {
  ^bb0(%v: f16, %o: bf16):
    %w = arith.extf %v : f16 to f32
    %t = arith.truncf %w : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x6xbf16>
  %f = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<4x6xbf16>) outs(%e32 : tensor<4x6xf32>) {
  ^bb0(%v: bf16, %o: f32):
    %w = arith.extf %v : bf16 to f32
    %i = arith.fptosi %v : bf16 to i32
    %g = arith.sitofp %i : i32 to f32
    %r = arith.addf %w, %g : f32
    linalg.yield %r : f32
  } -> tensor<4x6xf32>
  %fd = dtensor.distribute_tensor %f, %m : tensor<4x6xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<4x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %bd = dtensor.distribute_tensor %b, %m : tensor<4x6xbf16>, !dtensor.device_mesh<@mesh>
      -> tensor<4x6xbf16, #dtensor.spec<@mesh, [S(0), S(1)]>>
  return %fd, %bd : tensor<4x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, tensor<4x6xbf16, #dtensor.spec<@mesh, [S(0), S(1)]>>
}
