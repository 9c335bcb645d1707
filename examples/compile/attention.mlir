// An attention block with heads sharded over "tp" (2x2 mesh, "dp" x "tp"):
// Q, K, V projections column-parallel (one weight slice per head), softmax
// per head, output projection row-parallel. Only the input, the weights and
// the result carry specs; propagation shards every per-head value by head,
// and the compiled program does exactly one all_reduce.
//
//   dtensor-run examples/compile/attention.mlir --verify --pipeline dtensor-compile --report

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

// q[h, s, e] = sum_d x[s, d] * w[h, d, e]
#proj_x = affine_map<(h, s, e, d) -> (s, d)>
#proj_w = affine_map<(h, s, e, d) -> (h, d, e)>
#proj_o = affine_map<(h, s, e, d) -> (h, s, e)>
// scores[h, s, t] = sum_e q[h, s, e] * k[h, t, e]
#qk_q = affine_map<(h, s, t, e) -> (h, s, e)>
#qk_k = affine_map<(h, s, t, e) -> (h, t, e)>
#qk_o = affine_map<(h, s, t, e) -> (h, s, t)>
// row reductions over t
#row_in = affine_map<(h, s, t) -> (h, s, t)>
#row_out = affine_map<(h, s, t) -> (h, s)>
// ctx[h, s, e] = sum_t p[h, s, t] * v[h, t, e]
#pv_p = affine_map<(h, s, e, t) -> (h, s, t)>
#pv_v = affine_map<(h, s, e, t) -> (h, t, e)>
#pv_o = affine_map<(h, s, e, t) -> (h, s, e)>
// y[s, d] = sum_{h, e} ctx[h, s, e] * wo[h, e, d]
#o_c = affine_map<(s, d, h, e) -> (h, s, e)>
#o_w = affine_map<(s, d, h, e) -> (h, e, d)>
#o_y = affine_map<(s, d, h, e) -> (s, d)>

func.func @attention(%m: !dtensor.device_mesh<@mesh>,
                     %x: tensor<6x8xf32, #dtensor.spec<@mesh, [R, R]>>,
                     %wq: tensor<4x8x2xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                     %wk: tensor<4x8x2xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                     %wv: tensor<4x8x2xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                     %wo: tensor<4x2x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>)
    -> tensor<6x8xf32, #dtensor.spec<@mesh, [R, R]>> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -3.0e38 : f32
  %eh = tensor.empty() : tensor<4x6x2xf32>
  %zh = linalg.fill ins(%zero : f32) outs(%eh : tensor<4x6x2xf32>) -> tensor<4x6x2xf32>
  %q = linalg.generic {indexing_maps = [#proj_x, #proj_w, #proj_o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wq : tensor<6x8xf32, #dtensor.spec<@mesh, [R, R]>>, tensor<4x8x2xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%zh : tensor<4x6x2xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x6x2xf32>
  %k = linalg.generic {indexing_maps = [#proj_x, #proj_w, #proj_o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wk : tensor<6x8xf32, #dtensor.spec<@mesh, [R, R]>>, tensor<4x8x2xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%zh : tensor<4x6x2xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x6x2xf32>
  %v = linalg.generic {indexing_maps = [#proj_x, #proj_w, #proj_o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wv : tensor<6x8xf32, #dtensor.spec<@mesh, [R, R]>>, tensor<4x8x2xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%zh : tensor<4x6x2xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x6x2xf32>
  %es = tensor.empty() : tensor<4x6x6xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<4x6x6xf32>) -> tensor<4x6x6xf32>
  %scores = linalg.generic {indexing_maps = [#qk_q, #qk_k, #qk_o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<4x6x2xf32>, tensor<4x6x2xf32>) outs(%zs : tensor<4x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x6x6xf32>
  // softmax over t, per head and row
  %er = tensor.empty() : tensor<4x6xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%er : tensor<4x6xf32>) -> tensor<4x6xf32>
  %max = linalg.generic {indexing_maps = [#row_in, #row_out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%scores : tensor<4x6x6xf32>) outs(%mi : tensor<4x6xf32>) {
  ^bb0(%a: f32, %c: f32):
    %r = arith.maximumf %c, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x6xf32>
  %ex = linalg.generic {indexing_maps = [#row_in, #row_out, #row_in], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%scores, %max : tensor<4x6x6xf32>, tensor<4x6xf32>) outs(%es : tensor<4x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<4x6x6xf32>
  %zr = linalg.fill ins(%zero : f32) outs(%er : tensor<4x6xf32>) -> tensor<4x6xf32>
  %sum = linalg.generic {indexing_maps = [#row_in, #row_out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<4x6x6xf32>) outs(%zr : tensor<4x6xf32>) {
  ^bb0(%a: f32, %c: f32):
    %r = arith.addf %c, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x6xf32>
  %prob = linalg.generic {indexing_maps = [#row_in, #row_out, #row_in], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<4x6x6xf32>, tensor<4x6xf32>) outs(%es : tensor<4x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x6x6xf32>
  %ctx = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%prob, %v : tensor<4x6x6xf32>, tensor<4x6x2xf32>) outs(%zh : tensor<4x6x2xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x6x2xf32>
  %ey = tensor.empty() : tensor<6x8xf32>
  %zy = linalg.fill ins(%zero : f32) outs(%ey : tensor<6x8xf32>) -> tensor<6x8xf32>
  %y = linalg.generic {indexing_maps = [#o_c, #o_w, #o_y], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%ctx, %wo : tensor<4x6x2xf32>, tensor<4x2x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%zy : tensor<6x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<6x8xf32>
  %yd = dtensor.distribute_tensor %y, %m : tensor<6x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<6x8xf32, #dtensor.spec<@mesh, [R, R]>>
  return %yd : tensor<6x8xf32, #dtensor.spec<@mesh, [R, R]>>
}
