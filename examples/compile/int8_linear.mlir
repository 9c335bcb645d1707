// The int8 linear layers of the quantized-tensor tutorial (seed 002): an
// int8 weight with one f32 scale per output row, dequantized as
// int8 * scale, in a 1024 -> 2048 -> 1024 projection pair at batch 128.
// The up projection's weight is sharded by output rows (column-wise in the
// tutorial's words), the down projection's by input columns (row-wise); a
// scale is sharded with its weight's dim 0 and replicated otherwise.
//
//   @tensor_parallel  the tutorial's plan: no weight moves; one all_reduce of
//                     the activations
//   @fsdp             the weights are stored sharded and gathered whole for
//                     use (FSDP's unshard), the batch split over the ranks:
//                     dtensor-narrow-moves gathers the int8 data and scales
//                     and dequantizes after the gather (0.25x the bytes)
//   @fsdp_bf16        the same with bf16 weights cast to f32: gathered as
//                     bf16 (0.5x)
//
//   dtensor-run examples/compile/int8_linear.mlir --all-entries --verify \
//       --pipeline dtensor-compile --report
//   (--pipeline 'dtensor-compile{narrow=0}' moves the f32 weights instead)

dtensor.mesh @g shape = [4] names = ["ranks"]

#w = affine_map<(o, i) -> (o, i)>
#s = affine_map<(o, i) -> (o, 0)>
#x = affine_map<(b, o, i) -> (b, i)>
#wt = affine_map<(b, o, i) -> (o, i)>
#y = affine_map<(b, o, i) -> (b, o)>

// Every linear layer computes y = x @ W^T, W stored [out, in] as nn.Linear
// does.

func.func @tensor_parallel(%m: !dtensor.device_mesh<@g>,
    %x: tensor<128x1024xf32, #dtensor.spec<@g, [R]>>,
    %wup: tensor<2048x1024xi8, #dtensor.spec<@g, [S(0)]>>,
    %sup: tensor<2048x1xf32, #dtensor.spec<@g, [S(0)]>>,
    %wdn: tensor<1024x2048xi8, #dtensor.spec<@g, [S(1)]>>,
    %sdn: tensor<1024x1xf32, #dtensor.spec<@g, [R]>>)
    -> tensor<128x1024xf32, #dtensor.spec<@g, [R]>> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2048x1024xf32>
  %fup = linalg.generic {indexing_maps = [#w, #s, #w], iterator_types = ["parallel", "parallel"]}
      ins(%wup, %sup : tensor<2048x1024xi8, #dtensor.spec<@g, [S(0)]>>, tensor<2048x1xf32, #dtensor.spec<@g, [S(0)]>>)
      outs(%e1 : tensor<2048x1024xf32>) {
  ^bb0(%q: i8, %sc: f32, %o: f32):
    %f = arith.sitofp %q : i8 to f32
    %r = arith.mulf %f, %sc : f32
    linalg.yield %r : f32
  } -> tensor<2048x1024xf32>
  %e2 = tensor.empty() : tensor<128x2048xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<128x2048xf32>) -> tensor<128x2048xf32>
  %h = linalg.matmul indexing_maps = [#x, #wt, #y]
      ins(%x, %fup : tensor<128x1024xf32, #dtensor.spec<@g, [R]>>, tensor<2048x1024xf32>)
      outs(%z2 : tensor<128x2048xf32>) -> tensor<128x2048xf32>
  %e3 = tensor.empty() : tensor<1024x2048xf32>
  %fdn = linalg.generic {indexing_maps = [#w, #s, #w], iterator_types = ["parallel", "parallel"]}
      ins(%wdn, %sdn : tensor<1024x2048xi8, #dtensor.spec<@g, [S(1)]>>, tensor<1024x1xf32, #dtensor.spec<@g, [R]>>)
      outs(%e3 : tensor<1024x2048xf32>) {
  ^bb0(%q: i8, %sc: f32, %o: f32):
    %f = arith.sitofp %q : i8 to f32
    %r = arith.mulf %f, %sc : f32
    linalg.yield %r : f32
  } -> tensor<1024x2048xf32>
  %e4 = tensor.empty() : tensor<128x1024xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %y = linalg.matmul indexing_maps = [#x, #wt, #y]
      ins(%h, %fdn : tensor<128x2048xf32>, tensor<1024x2048xf32>)
      outs(%z4 : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %yd = dtensor.distribute_tensor %y, %m : tensor<128x1024xf32>, !dtensor.device_mesh<@g>
      -> tensor<128x1024xf32, #dtensor.spec<@g, [R]>>
  return %yd : tensor<128x1024xf32, #dtensor.spec<@g, [R]>>
}

func.func @fsdp(%m: !dtensor.device_mesh<@g>,
    %x: tensor<128x1024xf32, #dtensor.spec<@g, [S(0)]>>,
    %wup: tensor<2048x1024xi8, #dtensor.spec<@g, [S(0)]>>,
    %sup: tensor<2048x1xf32, #dtensor.spec<@g, [S(0)]>>,
    %wdn: tensor<1024x2048xi8, #dtensor.spec<@g, [S(1)]>>,
    %sdn: tensor<1024x1xf32, #dtensor.spec<@g, [R]>>)
    -> tensor<128x1024xf32, #dtensor.spec<@g, [S(0)]>> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2048x1024xf32, #dtensor.spec<@g, [S(0)]>>
  %fup = linalg.generic {indexing_maps = [#w, #s, #w], iterator_types = ["parallel", "parallel"]}
      ins(%wup, %sup : tensor<2048x1024xi8, #dtensor.spec<@g, [S(0)]>>, tensor<2048x1xf32, #dtensor.spec<@g, [S(0)]>>)
      outs(%e1 : tensor<2048x1024xf32, #dtensor.spec<@g, [S(0)]>>) {
  ^bb0(%q: i8, %sc: f32, %o: f32):
    %f = arith.sitofp %q : i8 to f32
    %r = arith.mulf %f, %sc : f32
    linalg.yield %r : f32
  } -> tensor<2048x1024xf32, #dtensor.spec<@g, [S(0)]>>
  %fupr = dtensor.redistribute %fup, %m : tensor<2048x1024xf32, #dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g>
      -> tensor<2048x1024xf32, #dtensor.spec<@g, [R]>>
  %e3 = tensor.empty() : tensor<1024x2048xf32, #dtensor.spec<@g, [S(1)]>>
  %fdn = linalg.generic {indexing_maps = [#w, #s, #w], iterator_types = ["parallel", "parallel"]}
      ins(%wdn, %sdn : tensor<1024x2048xi8, #dtensor.spec<@g, [S(1)]>>, tensor<1024x1xf32, #dtensor.spec<@g, [R]>>)
      outs(%e3 : tensor<1024x2048xf32, #dtensor.spec<@g, [S(1)]>>) {
  ^bb0(%q: i8, %sc: f32, %o: f32):
    %f = arith.sitofp %q : i8 to f32
    %r = arith.mulf %f, %sc : f32
    linalg.yield %r : f32
  } -> tensor<1024x2048xf32, #dtensor.spec<@g, [S(1)]>>
  %fdnr = dtensor.redistribute %fdn, %m : tensor<1024x2048xf32, #dtensor.spec<@g, [S(1)]>>, !dtensor.device_mesh<@g>
      -> tensor<1024x2048xf32, #dtensor.spec<@g, [R]>>
  %e2 = tensor.empty() : tensor<128x2048xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<128x2048xf32>) -> tensor<128x2048xf32>
  %h = linalg.matmul indexing_maps = [#x, #wt, #y]
      ins(%x, %fupr : tensor<128x1024xf32, #dtensor.spec<@g, [S(0)]>>, tensor<2048x1024xf32, #dtensor.spec<@g, [R]>>)
      outs(%z2 : tensor<128x2048xf32>) -> tensor<128x2048xf32>
  %e4 = tensor.empty() : tensor<128x1024xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %y = linalg.matmul indexing_maps = [#x, #wt, #y]
      ins(%h, %fdnr : tensor<128x2048xf32>, tensor<1024x2048xf32, #dtensor.spec<@g, [R]>>)
      outs(%z4 : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %yd = dtensor.distribute_tensor %y, %m : tensor<128x1024xf32>, !dtensor.device_mesh<@g>
      -> tensor<128x1024xf32, #dtensor.spec<@g, [S(0)]>>
  return %yd : tensor<128x1024xf32, #dtensor.spec<@g, [S(0)]>>
}

func.func @fsdp_bf16(%m: !dtensor.device_mesh<@g>,
    %x: tensor<128x1024xf32, #dtensor.spec<@g, [S(0)]>>,
    %wup: tensor<2048x1024xbf16, #dtensor.spec<@g, [S(0)]>>,
    %wdn: tensor<1024x2048xbf16, #dtensor.spec<@g, [S(1)]>>)
    -> tensor<128x1024xf32, #dtensor.spec<@g, [S(0)]>> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2048x1024xf32, #dtensor.spec<@g, [S(0)]>>
  %fup = linalg.generic {indexing_maps = [#w, #w], iterator_types = ["parallel", "parallel"]}
      ins(%wup : tensor<2048x1024xbf16, #dtensor.spec<@g, [S(0)]>>) outs(%e1 : tensor<2048x1024xf32, #dtensor.spec<@g, [S(0)]>>) {
  ^bb0(%v: bf16, %o: f32):
    %f = arith.extf %v : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<2048x1024xf32, #dtensor.spec<@g, [S(0)]>>
  %fupr = dtensor.redistribute %fup, %m : tensor<2048x1024xf32, #dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g>
      -> tensor<2048x1024xf32, #dtensor.spec<@g, [R]>>
  %e3 = tensor.empty() : tensor<1024x2048xf32, #dtensor.spec<@g, [S(1)]>>
  %fdn = linalg.generic {indexing_maps = [#w, #w], iterator_types = ["parallel", "parallel"]}
      ins(%wdn : tensor<1024x2048xbf16, #dtensor.spec<@g, [S(1)]>>) outs(%e3 : tensor<1024x2048xf32, #dtensor.spec<@g, [S(1)]>>) {
  ^bb0(%v: bf16, %o: f32):
    %f = arith.extf %v : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<1024x2048xf32, #dtensor.spec<@g, [S(1)]>>
  %fdnr = dtensor.redistribute %fdn, %m : tensor<1024x2048xf32, #dtensor.spec<@g, [S(1)]>>, !dtensor.device_mesh<@g>
      -> tensor<1024x2048xf32, #dtensor.spec<@g, [R]>>
  %e2 = tensor.empty() : tensor<128x2048xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<128x2048xf32>) -> tensor<128x2048xf32>
  %h = linalg.matmul indexing_maps = [#x, #wt, #y]
      ins(%x, %fupr : tensor<128x1024xf32, #dtensor.spec<@g, [S(0)]>>, tensor<2048x1024xf32, #dtensor.spec<@g, [R]>>)
      outs(%z2 : tensor<128x2048xf32>) -> tensor<128x2048xf32>
  %e4 = tensor.empty() : tensor<128x1024xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %y = linalg.matmul indexing_maps = [#x, #wt, #y]
      ins(%h, %fdnr : tensor<128x2048xf32>, tensor<1024x2048xf32, #dtensor.spec<@g, [R]>>)
      outs(%z4 : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %yd = dtensor.distribute_tensor %y, %m : tensor<128x1024xf32>, !dtensor.device_mesh<@g>
      -> tensor<128x1024xf32, #dtensor.spec<@g, [S(0)]>>
  return %yd : tensor<128x1024xf32, #dtensor.spec<@g, [S(0)]>>
}
