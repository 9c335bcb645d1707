// A convolution layer sharded on width, forward and backward (PyTorch
// DTensor's tensor-parallel convolution, seed 001), on a 2x2 mesh: the batch
// on "dp", the image width on "w". Padding and kernel windows cross shard
// boundaries: each rank takes the columns it needs from its neighbours
// (dtensor.permute), never the whole tensor. Checked on every rank by
// test/examples/compile.test.
//
//   dtensor-run examples/compile/conv.mlir --all-entries --verify --pipeline dtensor-compile --report

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "w"]

// y = conv2d(pad(x, 1), w): "same" 3x3 convolution, NCHW.
func.func @forward(%m: !dtensor.device_mesh<@mesh>,
                   %x: tensor<4x3x6x10xf32, #dtensor.spec<@mesh, [S(0), S(3)]>>,
                   %w: tensor<4x3x3x3xf32, #dtensor.spec<@mesh, [R, R]>>)
    -> tensor<4x4x6x10xf32, #dtensor.spec<@mesh, [S(0), S(3)]>> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<4x3x6x10xf32, #dtensor.spec<@mesh, [S(0), S(3)]>> to tensor<4x3x8x12xf32>
  %e = tensor.empty() : tensor<4x4x6x10xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4x6x10xf32>) -> tensor<4x4x6x10xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : tensor<4x3x8x12xf32>, tensor<4x3x3x3xf32, #dtensor.spec<@mesh, [R, R]>>)
      outs(%z : tensor<4x4x6x10xf32>) -> tensor<4x4x6x10xf32>
  %yd = dtensor.distribute_tensor %y, %m : tensor<4x4x6x10xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x4x6x10xf32, #dtensor.spec<@mesh, [S(0), S(3)]>>
  return %yd : tensor<4x4x6x10xf32, #dtensor.spec<@mesh, [S(0), S(3)]>>
}

// dx = the output gradient, padded, read through the flipped kernel:
// dx[n, c, h, w] = sum_{f, kh, kw} pad(dy)[n, f, h + kh, w + kw] * w[f, c, 2 - kh, 2 - kw].
func.func @input_grad(%m: !dtensor.device_mesh<@mesh>,
                      %dy: tensor<4x4x6x10xf32, #dtensor.spec<@mesh, [S(0), S(3)]>>,
                      %w: tensor<4x3x3x3xf32, #dtensor.spec<@mesh, [R, R]>>)
    -> tensor<4x3x6x10xf32, #dtensor.spec<@mesh, [S(0), S(3)]>> {
  %zero = arith.constant 0.0 : f32
  %dyp = tensor.pad %dy low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<4x4x6x10xf32, #dtensor.spec<@mesh, [S(0), S(3)]>> to tensor<4x4x8x12xf32>
  // The kernel flipped in both spatial dims (a reversal).
  %fe = tensor.empty() : tensor<4x3x3x3xf32>
  %wf = linalg.generic {
      indexing_maps = [affine_map<(f, c, kh, kw) -> (f, c, 2 - kh, 2 - kw)>,
                       affine_map<(f, c, kh, kw) -> (f, c, kh, kw)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w : tensor<4x3x3x3xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%fe : tensor<4x3x3x3xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<4x3x3x3xf32>
  %e = tensor.empty() : tensor<4x3x6x10xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x3x6x10xf32>) -> tensor<4x3x6x10xf32>
  %dx = linalg.generic {
      indexing_maps = [affine_map<(n, c, h, w, f, kh, kw) -> (n, f, h + kh, w + kw)>,
                       affine_map<(n, c, h, w, f, kh, kw) -> (f, c, kh, kw)>,
                       affine_map<(n, c, h, w, f, kh, kw) -> (n, c, h, w)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dyp, %wf : tensor<4x4x8x12xf32>, tensor<4x3x3x3xf32>)
      outs(%z : tensor<4x3x6x10xf32>) {
  ^bb0(%g: f32, %k: f32, %acc: f32):
    %p = arith.mulf %g, %k : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x3x6x10xf32>
  %dxd = dtensor.distribute_tensor %dx, %m : tensor<4x3x6x10xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x3x6x10xf32, #dtensor.spec<@mesh, [S(0), S(3)]>>
  return %dxd : tensor<4x3x6x10xf32, #dtensor.spec<@mesh, [S(0), S(3)]>>
}

// dw = a reduction over batch and space of the padded input times the
// output gradient: each rank sums its own rows and columns (a partial sum),
// then one all_reduce makes it whole.
// dw[f, c, kh, kw] = sum_{n, h, w} pad(x)[n, c, h + kh, w + kw] * dy[n, f, h, w].
func.func @weight_grad(%m: !dtensor.device_mesh<@mesh>,
                       %x: tensor<4x3x6x10xf32, #dtensor.spec<@mesh, [S(0), S(3)]>>,
                       %dy: tensor<4x4x6x10xf32, #dtensor.spec<@mesh, [S(0), S(3)]>>)
    -> tensor<4x3x3x3xf32, #dtensor.spec<@mesh, [R, R]>> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<4x3x6x10xf32, #dtensor.spec<@mesh, [S(0), S(3)]>> to tensor<4x3x8x12xf32>
  %e = tensor.empty() : tensor<4x3x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  %dw = linalg.generic {
      indexing_maps = [affine_map<(f, c, kh, kw, n, h, w) -> (n, c, h + kh, w + kw)>,
                       affine_map<(f, c, kh, kw, n, h, w) -> (n, f, h, w)>,
                       affine_map<(f, c, kh, kw, n, h, w) -> (f, c, kh, kw)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%xp, %dy : tensor<4x3x8x12xf32>, tensor<4x4x6x10xf32, #dtensor.spec<@mesh, [S(0), S(3)]>>)
      outs(%z : tensor<4x3x3x3xf32>) {
  ^bb0(%a: f32, %g: f32, %acc: f32):
    %p = arith.mulf %a, %g : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x3x3x3xf32>
  %dwd = dtensor.distribute_tensor %dw, %m : tensor<4x3x3x3xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x3x3x3xf32, #dtensor.spec<@mesh, [R, R]>>
  return %dwd : tensor<4x3x3x3xf32, #dtensor.spec<@mesh, [R, R]>>
}
