// A pre-norm transformer layer (LayerNorm, attention with q/k/v projections
// and 4 heads, LayerNorm, GELU MLP; d = 16, batch 2 x 6 tokens) as
// dtensor_mlir.torch imports it from the nn.Module `Block` in
// test/torch/test_dtensor_models.py, parallelized with PyTorch's plan:
// ColwiseParallel q, k, v, f1 and RowwiseParallel o, f2 on a mesh of 4
// (locations are lines of that file). @forward is one layer; @two_layers
// calls a copy of it twice. DTensor makes 2 all_reduces per layer (one
// after each row-wise projection); see test/examples/compile.test.
dtensor.mesh @mesh shape = [4]

func.func @forward(%mesh: !dtensor.device_mesh<@mesh>, %arg0: tensor<16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg3: tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg4: tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg5: tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg6: tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg7: tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg8: tensor<16x16xf32, #dtensor.spec<@mesh, [S(1)]>>, %arg9: tensor<16xf32, #dtensor.spec<@mesh, [R]>>, %arg10: tensor<16xf32>, %arg11: tensor<16xf32>, %arg12: tensor<64x16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg13: tensor<64xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg14: tensor<16x64xf32, #dtensor.spec<@mesh, [S(1)]>>, %arg15: tensor<16xf32, #dtensor.spec<@mesh, [R]>>, %arg16: tensor<2x6x16xf32>) -> (tensor<2x6x16xf32>) {
  %c1 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":138:1)
  %e2 = tensor.empty() : tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<2x6xf32>) -> tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %g4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%arg16 : tensor<2x6x16xf32>) outs(%f3 : tensor<2x6xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.addf %a0, %o : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %r5 = tensor.expand_shape %g4 [[0], [1, 2]] output_shape [2, 6, 1] : tensor<2x6xf32> into tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %e6 = tensor.empty() : tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %g7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r5 : tensor<2x6x1xf32>) outs(%e6 : tensor<2x6x1xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 0.0625 : f32
      %s2 = arith.mulf %a0, %s1 : f32
      linalg.yield %s2 : f32
    } -> tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %r8 = tensor.collapse_shape %g7 [[0], [1, 2]] : tensor<2x6x1xf32> into tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %e9 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %g10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%arg16, %r8 : tensor<2x6x16xf32>, tensor<2x6xf32>) outs(%e9 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.subf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %e11 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %g12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g10 : tensor<2x6x16xf32>) outs(%e11 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.mulf %a0, %a0 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %c13 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":138:1)
  %e14 = tensor.empty() : tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %f15 = linalg.fill ins(%c13 : f32) outs(%e14 : tensor<2x6xf32>) -> tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %g16 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g12 : tensor<2x6x16xf32>) outs(%f15 : tensor<2x6xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.addf %a0, %o : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %r17 = tensor.expand_shape %g16 [[0], [1, 2]] output_shape [2, 6, 1] : tensor<2x6xf32> into tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %e18 = tensor.empty() : tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %g19 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r17 : tensor<2x6x1xf32>) outs(%e18 : tensor<2x6x1xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 0.0625 : f32
      %s2 = arith.mulf %a0, %s1 : f32
      linalg.yield %s2 : f32
    } -> tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %e20 = tensor.empty() : tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %g21 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g19 : tensor<2x6x1xf32>) outs(%e20 : tensor<2x6x1xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 1.0e-05 : f32
      %s2 = arith.addf %a0, %s1 : f32
      %s3 = math.rsqrt %s2 : f32
      linalg.yield %s3 : f32
    } -> tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %r22 = tensor.collapse_shape %g21 [[0], [1, 2]] : tensor<2x6x1xf32> into tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %e23 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %g24 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g10, %r22 : tensor<2x6x16xf32>, tensor<2x6xf32>) outs(%e23 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.mulf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %e25 = tensor.empty() : tensor<1x1x16xf32> loc("test_dtensor_models.py":138:1)
  %g26 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%arg0 : tensor<16xf32>) outs(%e25 : tensor<1x1x16xf32>) {
    ^bb0(%a0: f32, %o: f32):
      linalg.yield %a0 : f32
    } -> tensor<1x1x16xf32> loc("test_dtensor_models.py":138:1)
  %r27 = tensor.collapse_shape %g26 [[0, 1, 2]] : tensor<1x1x16xf32> into tensor<16xf32> loc("test_dtensor_models.py":138:1)
  %e28 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %g29 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g24, %r27 : tensor<2x6x16xf32>, tensor<16xf32>) outs(%e28 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.mulf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %e30 = tensor.empty() : tensor<1x1x16xf32> loc("test_dtensor_models.py":138:1)
  %g31 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%arg1 : tensor<16xf32>) outs(%e30 : tensor<1x1x16xf32>) {
    ^bb0(%a0: f32, %o: f32):
      linalg.yield %a0 : f32
    } -> tensor<1x1x16xf32> loc("test_dtensor_models.py":138:1)
  %r32 = tensor.collapse_shape %g31 [[0, 1, 2]] : tensor<1x1x16xf32> into tensor<16xf32> loc("test_dtensor_models.py":138:1)
  %e33 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %g34 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g29, %r32 : tensor<2x6x16xf32>, tensor<16xf32>) outs(%e33 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %r35 = tensor.collapse_shape %g34 [[0, 1], [2]] : tensor<2x6x16xf32> into tensor<12x16xf32> loc("test_dtensor_models.py":140:1)
  %e36 = tensor.empty() : tensor<16x16xf32> loc("test_dtensor_models.py":140:1)
  %t37 = linalg.transpose ins(%arg2 : tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e36 : tensor<16x16xf32>) permutation = [1, 0] loc("test_dtensor_models.py":140:1)
  %c38 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":140:1)
  %e39 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":140:1)
  %f40 = linalg.fill ins(%c38 : f32) outs(%e39 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":140:1)
  %mm41 = linalg.matmul ins(%r35, %t37 : tensor<12x16xf32>, tensor<16x16xf32>) outs(%f40 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":140:1)
  %e42 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":140:1)
  %g43 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm41, %arg3 : tensor<12x16xf32>, tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e42 : tensor<12x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<12x16xf32> loc("test_dtensor_models.py":140:1)
  %r44 = tensor.expand_shape %g43 [[0, 1], [2]] output_shape [2, 6, 16] : tensor<12x16xf32> into tensor<2x6x16xf32> loc("test_dtensor_models.py":140:1)
  %r45 = tensor.expand_shape %r44 [[0], [1], [2, 3]] output_shape [2, 6, 4, 4] : tensor<2x6x16xf32> into tensor<2x6x4x4xf32> loc("test_dtensor_models.py":140:1)
  %e46 = tensor.empty() : tensor<2x4x6x4xf32> loc("test_dtensor_models.py":140:1)
  %t47 = linalg.transpose ins(%r45 : tensor<2x6x4x4xf32>) outs(%e46 : tensor<2x4x6x4xf32>) permutation = [0, 2, 1, 3] loc("test_dtensor_models.py":140:1)
  %r48 = tensor.collapse_shape %g34 [[0, 1], [2]] : tensor<2x6x16xf32> into tensor<12x16xf32> loc("test_dtensor_models.py":141:1)
  %e49 = tensor.empty() : tensor<16x16xf32> loc("test_dtensor_models.py":141:1)
  %t50 = linalg.transpose ins(%arg4 : tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e49 : tensor<16x16xf32>) permutation = [1, 0] loc("test_dtensor_models.py":141:1)
  %c51 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":141:1)
  %e52 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":141:1)
  %f53 = linalg.fill ins(%c51 : f32) outs(%e52 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":141:1)
  %mm54 = linalg.matmul ins(%r48, %t50 : tensor<12x16xf32>, tensor<16x16xf32>) outs(%f53 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":141:1)
  %e55 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":141:1)
  %g56 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm54, %arg5 : tensor<12x16xf32>, tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e55 : tensor<12x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<12x16xf32> loc("test_dtensor_models.py":141:1)
  %r57 = tensor.expand_shape %g56 [[0, 1], [2]] output_shape [2, 6, 16] : tensor<12x16xf32> into tensor<2x6x16xf32> loc("test_dtensor_models.py":141:1)
  %r58 = tensor.expand_shape %r57 [[0], [1], [2, 3]] output_shape [2, 6, 4, 4] : tensor<2x6x16xf32> into tensor<2x6x4x4xf32> loc("test_dtensor_models.py":141:1)
  %e59 = tensor.empty() : tensor<2x4x6x4xf32> loc("test_dtensor_models.py":141:1)
  %t60 = linalg.transpose ins(%r58 : tensor<2x6x4x4xf32>) outs(%e59 : tensor<2x4x6x4xf32>) permutation = [0, 2, 1, 3] loc("test_dtensor_models.py":141:1)
  %r61 = tensor.collapse_shape %g34 [[0, 1], [2]] : tensor<2x6x16xf32> into tensor<12x16xf32> loc("test_dtensor_models.py":142:1)
  %e62 = tensor.empty() : tensor<16x16xf32> loc("test_dtensor_models.py":142:1)
  %t63 = linalg.transpose ins(%arg6 : tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e62 : tensor<16x16xf32>) permutation = [1, 0] loc("test_dtensor_models.py":142:1)
  %c64 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":142:1)
  %e65 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":142:1)
  %f66 = linalg.fill ins(%c64 : f32) outs(%e65 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":142:1)
  %mm67 = linalg.matmul ins(%r61, %t63 : tensor<12x16xf32>, tensor<16x16xf32>) outs(%f66 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":142:1)
  %e68 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":142:1)
  %g69 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm67, %arg7 : tensor<12x16xf32>, tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e68 : tensor<12x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<12x16xf32> loc("test_dtensor_models.py":142:1)
  %r70 = tensor.expand_shape %g69 [[0, 1], [2]] output_shape [2, 6, 16] : tensor<12x16xf32> into tensor<2x6x16xf32> loc("test_dtensor_models.py":142:1)
  %r71 = tensor.expand_shape %r70 [[0], [1], [2, 3]] output_shape [2, 6, 4, 4] : tensor<2x6x16xf32> into tensor<2x6x4x4xf32> loc("test_dtensor_models.py":142:1)
  %e72 = tensor.empty() : tensor<2x4x6x4xf32> loc("test_dtensor_models.py":142:1)
  %t73 = linalg.transpose ins(%r71 : tensor<2x6x4x4xf32>) outs(%e72 : tensor<2x4x6x4xf32>) permutation = [0, 2, 1, 3] loc("test_dtensor_models.py":142:1)
  %e74 = tensor.empty() : tensor<2x4x4x6xf32> loc("test_dtensor_models.py":143:1)
  %t75 = linalg.transpose ins(%t60 : tensor<2x4x6x4xf32>) outs(%e74 : tensor<2x4x4x6xf32>) permutation = [0, 1, 3, 2] loc("test_dtensor_models.py":143:1)
  %c76 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":143:1)
  %e77 = tensor.empty() : tensor<2x4x6x6xf32> loc("test_dtensor_models.py":143:1)
  %f78 = linalg.fill ins(%c76 : f32) outs(%e77 : tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32> loc("test_dtensor_models.py":143:1)
  %g79 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%t47, %t75 : tensor<2x4x6x4xf32>, tensor<2x4x4x6xf32>) outs(%f78 : tensor<2x4x6x6xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.mulf %a0, %a1 : f32
      %s2 = arith.addf %o, %s1 : f32
      linalg.yield %s2 : f32
    } -> tensor<2x4x6x6xf32> loc("test_dtensor_models.py":143:1)
  %e80 = tensor.empty() : tensor<2x4x6x6xf32> loc("test_dtensor_models.py":143:1)
  %g81 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g79 : tensor<2x4x6x6xf32>) outs(%e80 : tensor<2x4x6x6xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 2.0 : f32
      %s2 = arith.divf %a0, %s1 : f32
      linalg.yield %s2 : f32
    } -> tensor<2x4x6x6xf32> loc("test_dtensor_models.py":143:1)
  %e82 = tensor.empty() : tensor<2x4x6x6xf32> loc("test_dtensor_models.py":143:1)
  %sm83 = linalg.softmax dimension(3) ins(%g81 : tensor<2x4x6x6xf32>) outs(%e82 : tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32> loc("test_dtensor_models.py":143:1)
  %c84 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":144:1)
  %e85 = tensor.empty() : tensor<2x4x6x4xf32> loc("test_dtensor_models.py":144:1)
  %f86 = linalg.fill ins(%c84 : f32) outs(%e85 : tensor<2x4x6x4xf32>) -> tensor<2x4x6x4xf32> loc("test_dtensor_models.py":144:1)
  %g87 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%sm83, %t73 : tensor<2x4x6x6xf32>, tensor<2x4x6x4xf32>) outs(%f86 : tensor<2x4x6x4xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.mulf %a0, %a1 : f32
      %s2 = arith.addf %o, %s1 : f32
      linalg.yield %s2 : f32
    } -> tensor<2x4x6x4xf32> loc("test_dtensor_models.py":144:1)
  %e88 = tensor.empty() : tensor<2x6x4x4xf32> loc("test_dtensor_models.py":144:1)
  %t89 = linalg.transpose ins(%g87 : tensor<2x4x6x4xf32>) outs(%e88 : tensor<2x6x4x4xf32>) permutation = [0, 2, 1, 3] loc("test_dtensor_models.py":144:1)
  %r90 = tensor.collapse_shape %t89 [[0], [1], [2, 3]] : tensor<2x6x4x4xf32> into tensor<2x6x16xf32> loc("test_dtensor_models.py":144:1)
  %r91 = tensor.collapse_shape %r90 [[0, 1], [2]] : tensor<2x6x16xf32> into tensor<12x16xf32> loc("test_dtensor_models.py":145:1)
  %e92 = tensor.empty() : tensor<16x16xf32> loc("test_dtensor_models.py":145:1)
  %t93 = linalg.transpose ins(%arg8 : tensor<16x16xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%e92 : tensor<16x16xf32>) permutation = [1, 0] loc("test_dtensor_models.py":145:1)
  %c94 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":145:1)
  %e95 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":145:1)
  %f96 = linalg.fill ins(%c94 : f32) outs(%e95 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":145:1)
  %mm97 = linalg.matmul ins(%r91, %t93 : tensor<12x16xf32>, tensor<16x16xf32>) outs(%f96 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":145:1)
  %e98 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":145:1)
  %g99 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm97, %arg9 : tensor<12x16xf32>, tensor<16xf32, #dtensor.spec<@mesh, [R]>>) outs(%e98 : tensor<12x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<12x16xf32> loc("test_dtensor_models.py":145:1)
  %r100 = tensor.expand_shape %g99 [[0, 1], [2]] output_shape [2, 6, 16] : tensor<12x16xf32> into tensor<2x6x16xf32> loc("test_dtensor_models.py":145:1)
  %e101 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":145:1)
  %g102 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%arg16, %r100 : tensor<2x6x16xf32>, tensor<2x6x16xf32>) outs(%e101 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":145:1)
  %c103 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":146:1)
  %e104 = tensor.empty() : tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %f105 = linalg.fill ins(%c103 : f32) outs(%e104 : tensor<2x6xf32>) -> tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %g106 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g102 : tensor<2x6x16xf32>) outs(%f105 : tensor<2x6xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.addf %a0, %o : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %r107 = tensor.expand_shape %g106 [[0], [1, 2]] output_shape [2, 6, 1] : tensor<2x6xf32> into tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %e108 = tensor.empty() : tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %g109 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r107 : tensor<2x6x1xf32>) outs(%e108 : tensor<2x6x1xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 0.0625 : f32
      %s2 = arith.mulf %a0, %s1 : f32
      linalg.yield %s2 : f32
    } -> tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %r110 = tensor.collapse_shape %g109 [[0], [1, 2]] : tensor<2x6x1xf32> into tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %e111 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %g112 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g102, %r110 : tensor<2x6x16xf32>, tensor<2x6xf32>) outs(%e111 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.subf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %e113 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %g114 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g112 : tensor<2x6x16xf32>) outs(%e113 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.mulf %a0, %a0 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %c115 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":146:1)
  %e116 = tensor.empty() : tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %f117 = linalg.fill ins(%c115 : f32) outs(%e116 : tensor<2x6xf32>) -> tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %g118 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g114 : tensor<2x6x16xf32>) outs(%f117 : tensor<2x6xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.addf %a0, %o : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %r119 = tensor.expand_shape %g118 [[0], [1, 2]] output_shape [2, 6, 1] : tensor<2x6xf32> into tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %e120 = tensor.empty() : tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %g121 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r119 : tensor<2x6x1xf32>) outs(%e120 : tensor<2x6x1xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 0.0625 : f32
      %s2 = arith.mulf %a0, %s1 : f32
      linalg.yield %s2 : f32
    } -> tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %e122 = tensor.empty() : tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %g123 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g121 : tensor<2x6x1xf32>) outs(%e122 : tensor<2x6x1xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 1.0e-05 : f32
      %s2 = arith.addf %a0, %s1 : f32
      %s3 = math.rsqrt %s2 : f32
      linalg.yield %s3 : f32
    } -> tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %r124 = tensor.collapse_shape %g123 [[0], [1, 2]] : tensor<2x6x1xf32> into tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %e125 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %g126 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g112, %r124 : tensor<2x6x16xf32>, tensor<2x6xf32>) outs(%e125 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.mulf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %e127 = tensor.empty() : tensor<1x1x16xf32> loc("test_dtensor_models.py":146:1)
  %g128 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%arg10 : tensor<16xf32>) outs(%e127 : tensor<1x1x16xf32>) {
    ^bb0(%a0: f32, %o: f32):
      linalg.yield %a0 : f32
    } -> tensor<1x1x16xf32> loc("test_dtensor_models.py":146:1)
  %r129 = tensor.collapse_shape %g128 [[0, 1, 2]] : tensor<1x1x16xf32> into tensor<16xf32> loc("test_dtensor_models.py":146:1)
  %e130 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %g131 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g126, %r129 : tensor<2x6x16xf32>, tensor<16xf32>) outs(%e130 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.mulf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %e132 = tensor.empty() : tensor<1x1x16xf32> loc("test_dtensor_models.py":146:1)
  %g133 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%arg11 : tensor<16xf32>) outs(%e132 : tensor<1x1x16xf32>) {
    ^bb0(%a0: f32, %o: f32):
      linalg.yield %a0 : f32
    } -> tensor<1x1x16xf32> loc("test_dtensor_models.py":146:1)
  %r134 = tensor.collapse_shape %g133 [[0, 1, 2]] : tensor<1x1x16xf32> into tensor<16xf32> loc("test_dtensor_models.py":146:1)
  %e135 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %g136 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g131, %r134 : tensor<2x6x16xf32>, tensor<16xf32>) outs(%e135 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %r137 = tensor.collapse_shape %g136 [[0, 1], [2]] : tensor<2x6x16xf32> into tensor<12x16xf32> loc("test_dtensor_models.py":146:1)
  %e138 = tensor.empty() : tensor<16x64xf32> loc("test_dtensor_models.py":146:1)
  %t139 = linalg.transpose ins(%arg12 : tensor<64x16xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e138 : tensor<16x64xf32>) permutation = [1, 0] loc("test_dtensor_models.py":146:1)
  %c140 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":146:1)
  %e141 = tensor.empty() : tensor<12x64xf32> loc("test_dtensor_models.py":146:1)
  %f142 = linalg.fill ins(%c140 : f32) outs(%e141 : tensor<12x64xf32>) -> tensor<12x64xf32> loc("test_dtensor_models.py":146:1)
  %mm143 = linalg.matmul ins(%r137, %t139 : tensor<12x16xf32>, tensor<16x64xf32>) outs(%f142 : tensor<12x64xf32>) -> tensor<12x64xf32> loc("test_dtensor_models.py":146:1)
  %e144 = tensor.empty() : tensor<12x64xf32> loc("test_dtensor_models.py":146:1)
  %g145 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm143, %arg13 : tensor<12x64xf32>, tensor<64xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e144 : tensor<12x64xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<12x64xf32> loc("test_dtensor_models.py":146:1)
  %r146 = tensor.expand_shape %g145 [[0, 1], [2]] output_shape [2, 6, 64] : tensor<12x64xf32> into tensor<2x6x64xf32> loc("test_dtensor_models.py":146:1)
  %e147 = tensor.empty() : tensor<2x6x64xf32> loc("test_dtensor_models.py":146:1)
  %g148 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r146 : tensor<2x6x64xf32>) outs(%e147 : tensor<2x6x64xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 0.5 : f32
      %s2 = arith.constant 1.0 : f32
      %s3 = arith.constant 0.7071067811865475 : f32
      %s4 = arith.mulf %a0, %s3 : f32
      %s5 = math.erf %s4 : f32
      %s6 = arith.mulf %s1, %a0 : f32
      %s7 = arith.addf %s2, %s5 : f32
      %s8 = arith.mulf %s6, %s7 : f32
      linalg.yield %s8 : f32
    } -> tensor<2x6x64xf32> loc("test_dtensor_models.py":146:1)
  %r149 = tensor.collapse_shape %g148 [[0, 1], [2]] : tensor<2x6x64xf32> into tensor<12x64xf32> loc("test_dtensor_models.py":146:1)
  %e150 = tensor.empty() : tensor<64x16xf32> loc("test_dtensor_models.py":146:1)
  %t151 = linalg.transpose ins(%arg14 : tensor<16x64xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%e150 : tensor<64x16xf32>) permutation = [1, 0] loc("test_dtensor_models.py":146:1)
  %c152 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":146:1)
  %e153 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":146:1)
  %f154 = linalg.fill ins(%c152 : f32) outs(%e153 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":146:1)
  %mm155 = linalg.matmul ins(%r149, %t151 : tensor<12x64xf32>, tensor<64x16xf32>) outs(%f154 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":146:1)
  %e156 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":146:1)
  %g157 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm155, %arg15 : tensor<12x16xf32>, tensor<16xf32, #dtensor.spec<@mesh, [R]>>) outs(%e156 : tensor<12x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<12x16xf32> loc("test_dtensor_models.py":146:1)
  %r158 = tensor.expand_shape %g157 [[0, 1], [2]] output_shape [2, 6, 16] : tensor<12x16xf32> into tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %e159 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %g160 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g102, %r158 : tensor<2x6x16xf32>, tensor<2x6x16xf32>) outs(%e159 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  return %g160 : tensor<2x6x16xf32>
}

func.func private @layer(%mesh: !dtensor.device_mesh<@mesh>, %arg0: tensor<16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg3: tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg4: tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg5: tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg6: tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg7: tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg8: tensor<16x16xf32, #dtensor.spec<@mesh, [S(1)]>>, %arg9: tensor<16xf32, #dtensor.spec<@mesh, [R]>>, %arg10: tensor<16xf32>, %arg11: tensor<16xf32>, %arg12: tensor<64x16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg13: tensor<64xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg14: tensor<16x64xf32, #dtensor.spec<@mesh, [S(1)]>>, %arg15: tensor<16xf32, #dtensor.spec<@mesh, [R]>>, %arg16: tensor<2x6x16xf32>) -> (tensor<2x6x16xf32>) {
  %c1 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":138:1)
  %e2 = tensor.empty() : tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<2x6xf32>) -> tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %g4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%arg16 : tensor<2x6x16xf32>) outs(%f3 : tensor<2x6xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.addf %a0, %o : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %r5 = tensor.expand_shape %g4 [[0], [1, 2]] output_shape [2, 6, 1] : tensor<2x6xf32> into tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %e6 = tensor.empty() : tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %g7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r5 : tensor<2x6x1xf32>) outs(%e6 : tensor<2x6x1xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 0.0625 : f32
      %s2 = arith.mulf %a0, %s1 : f32
      linalg.yield %s2 : f32
    } -> tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %r8 = tensor.collapse_shape %g7 [[0], [1, 2]] : tensor<2x6x1xf32> into tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %e9 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %g10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%arg16, %r8 : tensor<2x6x16xf32>, tensor<2x6xf32>) outs(%e9 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.subf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %e11 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %g12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g10 : tensor<2x6x16xf32>) outs(%e11 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.mulf %a0, %a0 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %c13 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":138:1)
  %e14 = tensor.empty() : tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %f15 = linalg.fill ins(%c13 : f32) outs(%e14 : tensor<2x6xf32>) -> tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %g16 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g12 : tensor<2x6x16xf32>) outs(%f15 : tensor<2x6xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.addf %a0, %o : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %r17 = tensor.expand_shape %g16 [[0], [1, 2]] output_shape [2, 6, 1] : tensor<2x6xf32> into tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %e18 = tensor.empty() : tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %g19 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r17 : tensor<2x6x1xf32>) outs(%e18 : tensor<2x6x1xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 0.0625 : f32
      %s2 = arith.mulf %a0, %s1 : f32
      linalg.yield %s2 : f32
    } -> tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %e20 = tensor.empty() : tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %g21 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g19 : tensor<2x6x1xf32>) outs(%e20 : tensor<2x6x1xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 1.0e-05 : f32
      %s2 = arith.addf %a0, %s1 : f32
      %s3 = math.rsqrt %s2 : f32
      linalg.yield %s3 : f32
    } -> tensor<2x6x1xf32> loc("test_dtensor_models.py":138:1)
  %r22 = tensor.collapse_shape %g21 [[0], [1, 2]] : tensor<2x6x1xf32> into tensor<2x6xf32> loc("test_dtensor_models.py":138:1)
  %e23 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %g24 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g10, %r22 : tensor<2x6x16xf32>, tensor<2x6xf32>) outs(%e23 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.mulf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %e25 = tensor.empty() : tensor<1x1x16xf32> loc("test_dtensor_models.py":138:1)
  %g26 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%arg0 : tensor<16xf32>) outs(%e25 : tensor<1x1x16xf32>) {
    ^bb0(%a0: f32, %o: f32):
      linalg.yield %a0 : f32
    } -> tensor<1x1x16xf32> loc("test_dtensor_models.py":138:1)
  %r27 = tensor.collapse_shape %g26 [[0, 1, 2]] : tensor<1x1x16xf32> into tensor<16xf32> loc("test_dtensor_models.py":138:1)
  %e28 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %g29 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g24, %r27 : tensor<2x6x16xf32>, tensor<16xf32>) outs(%e28 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.mulf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %e30 = tensor.empty() : tensor<1x1x16xf32> loc("test_dtensor_models.py":138:1)
  %g31 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%arg1 : tensor<16xf32>) outs(%e30 : tensor<1x1x16xf32>) {
    ^bb0(%a0: f32, %o: f32):
      linalg.yield %a0 : f32
    } -> tensor<1x1x16xf32> loc("test_dtensor_models.py":138:1)
  %r32 = tensor.collapse_shape %g31 [[0, 1, 2]] : tensor<1x1x16xf32> into tensor<16xf32> loc("test_dtensor_models.py":138:1)
  %e33 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %g34 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g29, %r32 : tensor<2x6x16xf32>, tensor<16xf32>) outs(%e33 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":138:1)
  %r35 = tensor.collapse_shape %g34 [[0, 1], [2]] : tensor<2x6x16xf32> into tensor<12x16xf32> loc("test_dtensor_models.py":140:1)
  %e36 = tensor.empty() : tensor<16x16xf32> loc("test_dtensor_models.py":140:1)
  %t37 = linalg.transpose ins(%arg2 : tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e36 : tensor<16x16xf32>) permutation = [1, 0] loc("test_dtensor_models.py":140:1)
  %c38 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":140:1)
  %e39 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":140:1)
  %f40 = linalg.fill ins(%c38 : f32) outs(%e39 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":140:1)
  %mm41 = linalg.matmul ins(%r35, %t37 : tensor<12x16xf32>, tensor<16x16xf32>) outs(%f40 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":140:1)
  %e42 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":140:1)
  %g43 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm41, %arg3 : tensor<12x16xf32>, tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e42 : tensor<12x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<12x16xf32> loc("test_dtensor_models.py":140:1)
  %r44 = tensor.expand_shape %g43 [[0, 1], [2]] output_shape [2, 6, 16] : tensor<12x16xf32> into tensor<2x6x16xf32> loc("test_dtensor_models.py":140:1)
  %r45 = tensor.expand_shape %r44 [[0], [1], [2, 3]] output_shape [2, 6, 4, 4] : tensor<2x6x16xf32> into tensor<2x6x4x4xf32> loc("test_dtensor_models.py":140:1)
  %e46 = tensor.empty() : tensor<2x4x6x4xf32> loc("test_dtensor_models.py":140:1)
  %t47 = linalg.transpose ins(%r45 : tensor<2x6x4x4xf32>) outs(%e46 : tensor<2x4x6x4xf32>) permutation = [0, 2, 1, 3] loc("test_dtensor_models.py":140:1)
  %r48 = tensor.collapse_shape %g34 [[0, 1], [2]] : tensor<2x6x16xf32> into tensor<12x16xf32> loc("test_dtensor_models.py":141:1)
  %e49 = tensor.empty() : tensor<16x16xf32> loc("test_dtensor_models.py":141:1)
  %t50 = linalg.transpose ins(%arg4 : tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e49 : tensor<16x16xf32>) permutation = [1, 0] loc("test_dtensor_models.py":141:1)
  %c51 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":141:1)
  %e52 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":141:1)
  %f53 = linalg.fill ins(%c51 : f32) outs(%e52 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":141:1)
  %mm54 = linalg.matmul ins(%r48, %t50 : tensor<12x16xf32>, tensor<16x16xf32>) outs(%f53 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":141:1)
  %e55 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":141:1)
  %g56 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm54, %arg5 : tensor<12x16xf32>, tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e55 : tensor<12x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<12x16xf32> loc("test_dtensor_models.py":141:1)
  %r57 = tensor.expand_shape %g56 [[0, 1], [2]] output_shape [2, 6, 16] : tensor<12x16xf32> into tensor<2x6x16xf32> loc("test_dtensor_models.py":141:1)
  %r58 = tensor.expand_shape %r57 [[0], [1], [2, 3]] output_shape [2, 6, 4, 4] : tensor<2x6x16xf32> into tensor<2x6x4x4xf32> loc("test_dtensor_models.py":141:1)
  %e59 = tensor.empty() : tensor<2x4x6x4xf32> loc("test_dtensor_models.py":141:1)
  %t60 = linalg.transpose ins(%r58 : tensor<2x6x4x4xf32>) outs(%e59 : tensor<2x4x6x4xf32>) permutation = [0, 2, 1, 3] loc("test_dtensor_models.py":141:1)
  %r61 = tensor.collapse_shape %g34 [[0, 1], [2]] : tensor<2x6x16xf32> into tensor<12x16xf32> loc("test_dtensor_models.py":142:1)
  %e62 = tensor.empty() : tensor<16x16xf32> loc("test_dtensor_models.py":142:1)
  %t63 = linalg.transpose ins(%arg6 : tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e62 : tensor<16x16xf32>) permutation = [1, 0] loc("test_dtensor_models.py":142:1)
  %c64 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":142:1)
  %e65 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":142:1)
  %f66 = linalg.fill ins(%c64 : f32) outs(%e65 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":142:1)
  %mm67 = linalg.matmul ins(%r61, %t63 : tensor<12x16xf32>, tensor<16x16xf32>) outs(%f66 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":142:1)
  %e68 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":142:1)
  %g69 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm67, %arg7 : tensor<12x16xf32>, tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e68 : tensor<12x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<12x16xf32> loc("test_dtensor_models.py":142:1)
  %r70 = tensor.expand_shape %g69 [[0, 1], [2]] output_shape [2, 6, 16] : tensor<12x16xf32> into tensor<2x6x16xf32> loc("test_dtensor_models.py":142:1)
  %r71 = tensor.expand_shape %r70 [[0], [1], [2, 3]] output_shape [2, 6, 4, 4] : tensor<2x6x16xf32> into tensor<2x6x4x4xf32> loc("test_dtensor_models.py":142:1)
  %e72 = tensor.empty() : tensor<2x4x6x4xf32> loc("test_dtensor_models.py":142:1)
  %t73 = linalg.transpose ins(%r71 : tensor<2x6x4x4xf32>) outs(%e72 : tensor<2x4x6x4xf32>) permutation = [0, 2, 1, 3] loc("test_dtensor_models.py":142:1)
  %e74 = tensor.empty() : tensor<2x4x4x6xf32> loc("test_dtensor_models.py":143:1)
  %t75 = linalg.transpose ins(%t60 : tensor<2x4x6x4xf32>) outs(%e74 : tensor<2x4x4x6xf32>) permutation = [0, 1, 3, 2] loc("test_dtensor_models.py":143:1)
  %c76 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":143:1)
  %e77 = tensor.empty() : tensor<2x4x6x6xf32> loc("test_dtensor_models.py":143:1)
  %f78 = linalg.fill ins(%c76 : f32) outs(%e77 : tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32> loc("test_dtensor_models.py":143:1)
  %g79 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%t47, %t75 : tensor<2x4x6x4xf32>, tensor<2x4x4x6xf32>) outs(%f78 : tensor<2x4x6x6xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.mulf %a0, %a1 : f32
      %s2 = arith.addf %o, %s1 : f32
      linalg.yield %s2 : f32
    } -> tensor<2x4x6x6xf32> loc("test_dtensor_models.py":143:1)
  %e80 = tensor.empty() : tensor<2x4x6x6xf32> loc("test_dtensor_models.py":143:1)
  %g81 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g79 : tensor<2x4x6x6xf32>) outs(%e80 : tensor<2x4x6x6xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 2.0 : f32
      %s2 = arith.divf %a0, %s1 : f32
      linalg.yield %s2 : f32
    } -> tensor<2x4x6x6xf32> loc("test_dtensor_models.py":143:1)
  %e82 = tensor.empty() : tensor<2x4x6x6xf32> loc("test_dtensor_models.py":143:1)
  %sm83 = linalg.softmax dimension(3) ins(%g81 : tensor<2x4x6x6xf32>) outs(%e82 : tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32> loc("test_dtensor_models.py":143:1)
  %c84 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":144:1)
  %e85 = tensor.empty() : tensor<2x4x6x4xf32> loc("test_dtensor_models.py":144:1)
  %f86 = linalg.fill ins(%c84 : f32) outs(%e85 : tensor<2x4x6x4xf32>) -> tensor<2x4x6x4xf32> loc("test_dtensor_models.py":144:1)
  %g87 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%sm83, %t73 : tensor<2x4x6x6xf32>, tensor<2x4x6x4xf32>) outs(%f86 : tensor<2x4x6x4xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.mulf %a0, %a1 : f32
      %s2 = arith.addf %o, %s1 : f32
      linalg.yield %s2 : f32
    } -> tensor<2x4x6x4xf32> loc("test_dtensor_models.py":144:1)
  %e88 = tensor.empty() : tensor<2x6x4x4xf32> loc("test_dtensor_models.py":144:1)
  %t89 = linalg.transpose ins(%g87 : tensor<2x4x6x4xf32>) outs(%e88 : tensor<2x6x4x4xf32>) permutation = [0, 2, 1, 3] loc("test_dtensor_models.py":144:1)
  %r90 = tensor.collapse_shape %t89 [[0], [1], [2, 3]] : tensor<2x6x4x4xf32> into tensor<2x6x16xf32> loc("test_dtensor_models.py":144:1)
  %r91 = tensor.collapse_shape %r90 [[0, 1], [2]] : tensor<2x6x16xf32> into tensor<12x16xf32> loc("test_dtensor_models.py":145:1)
  %e92 = tensor.empty() : tensor<16x16xf32> loc("test_dtensor_models.py":145:1)
  %t93 = linalg.transpose ins(%arg8 : tensor<16x16xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%e92 : tensor<16x16xf32>) permutation = [1, 0] loc("test_dtensor_models.py":145:1)
  %c94 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":145:1)
  %e95 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":145:1)
  %f96 = linalg.fill ins(%c94 : f32) outs(%e95 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":145:1)
  %mm97 = linalg.matmul ins(%r91, %t93 : tensor<12x16xf32>, tensor<16x16xf32>) outs(%f96 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":145:1)
  %e98 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":145:1)
  %g99 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm97, %arg9 : tensor<12x16xf32>, tensor<16xf32, #dtensor.spec<@mesh, [R]>>) outs(%e98 : tensor<12x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<12x16xf32> loc("test_dtensor_models.py":145:1)
  %r100 = tensor.expand_shape %g99 [[0, 1], [2]] output_shape [2, 6, 16] : tensor<12x16xf32> into tensor<2x6x16xf32> loc("test_dtensor_models.py":145:1)
  %e101 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":145:1)
  %g102 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%arg16, %r100 : tensor<2x6x16xf32>, tensor<2x6x16xf32>) outs(%e101 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":145:1)
  %c103 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":146:1)
  %e104 = tensor.empty() : tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %f105 = linalg.fill ins(%c103 : f32) outs(%e104 : tensor<2x6xf32>) -> tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %g106 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g102 : tensor<2x6x16xf32>) outs(%f105 : tensor<2x6xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.addf %a0, %o : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %r107 = tensor.expand_shape %g106 [[0], [1, 2]] output_shape [2, 6, 1] : tensor<2x6xf32> into tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %e108 = tensor.empty() : tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %g109 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r107 : tensor<2x6x1xf32>) outs(%e108 : tensor<2x6x1xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 0.0625 : f32
      %s2 = arith.mulf %a0, %s1 : f32
      linalg.yield %s2 : f32
    } -> tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %r110 = tensor.collapse_shape %g109 [[0], [1, 2]] : tensor<2x6x1xf32> into tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %e111 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %g112 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g102, %r110 : tensor<2x6x16xf32>, tensor<2x6xf32>) outs(%e111 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.subf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %e113 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %g114 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g112 : tensor<2x6x16xf32>) outs(%e113 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.mulf %a0, %a0 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %c115 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":146:1)
  %e116 = tensor.empty() : tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %f117 = linalg.fill ins(%c115 : f32) outs(%e116 : tensor<2x6xf32>) -> tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %g118 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g114 : tensor<2x6x16xf32>) outs(%f117 : tensor<2x6xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.addf %a0, %o : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %r119 = tensor.expand_shape %g118 [[0], [1, 2]] output_shape [2, 6, 1] : tensor<2x6xf32> into tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %e120 = tensor.empty() : tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %g121 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r119 : tensor<2x6x1xf32>) outs(%e120 : tensor<2x6x1xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 0.0625 : f32
      %s2 = arith.mulf %a0, %s1 : f32
      linalg.yield %s2 : f32
    } -> tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %e122 = tensor.empty() : tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %g123 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g121 : tensor<2x6x1xf32>) outs(%e122 : tensor<2x6x1xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 1.0e-05 : f32
      %s2 = arith.addf %a0, %s1 : f32
      %s3 = math.rsqrt %s2 : f32
      linalg.yield %s3 : f32
    } -> tensor<2x6x1xf32> loc("test_dtensor_models.py":146:1)
  %r124 = tensor.collapse_shape %g123 [[0], [1, 2]] : tensor<2x6x1xf32> into tensor<2x6xf32> loc("test_dtensor_models.py":146:1)
  %e125 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %g126 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g112, %r124 : tensor<2x6x16xf32>, tensor<2x6xf32>) outs(%e125 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.mulf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %e127 = tensor.empty() : tensor<1x1x16xf32> loc("test_dtensor_models.py":146:1)
  %g128 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%arg10 : tensor<16xf32>) outs(%e127 : tensor<1x1x16xf32>) {
    ^bb0(%a0: f32, %o: f32):
      linalg.yield %a0 : f32
    } -> tensor<1x1x16xf32> loc("test_dtensor_models.py":146:1)
  %r129 = tensor.collapse_shape %g128 [[0, 1, 2]] : tensor<1x1x16xf32> into tensor<16xf32> loc("test_dtensor_models.py":146:1)
  %e130 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %g131 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g126, %r129 : tensor<2x6x16xf32>, tensor<16xf32>) outs(%e130 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.mulf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %e132 = tensor.empty() : tensor<1x1x16xf32> loc("test_dtensor_models.py":146:1)
  %g133 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%arg11 : tensor<16xf32>) outs(%e132 : tensor<1x1x16xf32>) {
    ^bb0(%a0: f32, %o: f32):
      linalg.yield %a0 : f32
    } -> tensor<1x1x16xf32> loc("test_dtensor_models.py":146:1)
  %r134 = tensor.collapse_shape %g133 [[0, 1, 2]] : tensor<1x1x16xf32> into tensor<16xf32> loc("test_dtensor_models.py":146:1)
  %e135 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %g136 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g131, %r134 : tensor<2x6x16xf32>, tensor<16xf32>) outs(%e135 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %r137 = tensor.collapse_shape %g136 [[0, 1], [2]] : tensor<2x6x16xf32> into tensor<12x16xf32> loc("test_dtensor_models.py":146:1)
  %e138 = tensor.empty() : tensor<16x64xf32> loc("test_dtensor_models.py":146:1)
  %t139 = linalg.transpose ins(%arg12 : tensor<64x16xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e138 : tensor<16x64xf32>) permutation = [1, 0] loc("test_dtensor_models.py":146:1)
  %c140 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":146:1)
  %e141 = tensor.empty() : tensor<12x64xf32> loc("test_dtensor_models.py":146:1)
  %f142 = linalg.fill ins(%c140 : f32) outs(%e141 : tensor<12x64xf32>) -> tensor<12x64xf32> loc("test_dtensor_models.py":146:1)
  %mm143 = linalg.matmul ins(%r137, %t139 : tensor<12x16xf32>, tensor<16x64xf32>) outs(%f142 : tensor<12x64xf32>) -> tensor<12x64xf32> loc("test_dtensor_models.py":146:1)
  %e144 = tensor.empty() : tensor<12x64xf32> loc("test_dtensor_models.py":146:1)
  %g145 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm143, %arg13 : tensor<12x64xf32>, tensor<64xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e144 : tensor<12x64xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<12x64xf32> loc("test_dtensor_models.py":146:1)
  %r146 = tensor.expand_shape %g145 [[0, 1], [2]] output_shape [2, 6, 64] : tensor<12x64xf32> into tensor<2x6x64xf32> loc("test_dtensor_models.py":146:1)
  %e147 = tensor.empty() : tensor<2x6x64xf32> loc("test_dtensor_models.py":146:1)
  %g148 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r146 : tensor<2x6x64xf32>) outs(%e147 : tensor<2x6x64xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s1 = arith.constant 0.5 : f32
      %s2 = arith.constant 1.0 : f32
      %s3 = arith.constant 0.7071067811865475 : f32
      %s4 = arith.mulf %a0, %s3 : f32
      %s5 = math.erf %s4 : f32
      %s6 = arith.mulf %s1, %a0 : f32
      %s7 = arith.addf %s2, %s5 : f32
      %s8 = arith.mulf %s6, %s7 : f32
      linalg.yield %s8 : f32
    } -> tensor<2x6x64xf32> loc("test_dtensor_models.py":146:1)
  %r149 = tensor.collapse_shape %g148 [[0, 1], [2]] : tensor<2x6x64xf32> into tensor<12x64xf32> loc("test_dtensor_models.py":146:1)
  %e150 = tensor.empty() : tensor<64x16xf32> loc("test_dtensor_models.py":146:1)
  %t151 = linalg.transpose ins(%arg14 : tensor<16x64xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%e150 : tensor<64x16xf32>) permutation = [1, 0] loc("test_dtensor_models.py":146:1)
  %c152 = arith.constant 0.0 : f32 loc("test_dtensor_models.py":146:1)
  %e153 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":146:1)
  %f154 = linalg.fill ins(%c152 : f32) outs(%e153 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":146:1)
  %mm155 = linalg.matmul ins(%r149, %t151 : tensor<12x64xf32>, tensor<64x16xf32>) outs(%f154 : tensor<12x16xf32>) -> tensor<12x16xf32> loc("test_dtensor_models.py":146:1)
  %e156 = tensor.empty() : tensor<12x16xf32> loc("test_dtensor_models.py":146:1)
  %g157 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm155, %arg15 : tensor<12x16xf32>, tensor<16xf32, #dtensor.spec<@mesh, [R]>>) outs(%e156 : tensor<12x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<12x16xf32> loc("test_dtensor_models.py":146:1)
  %r158 = tensor.expand_shape %g157 [[0, 1], [2]] output_shape [2, 6, 16] : tensor<12x16xf32> into tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %e159 = tensor.empty() : tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  %g160 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g102, %r158 : tensor<2x6x16xf32>, tensor<2x6x16xf32>) outs(%e159 : tensor<2x6x16xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      linalg.yield %s1 : f32
    } -> tensor<2x6x16xf32> loc("test_dtensor_models.py":146:1)
  return %g160 : tensor<2x6x16xf32>
}

func.func @two_layers(%mesh: !dtensor.device_mesh<@mesh>, %arg0: tensor<16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg3: tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg4: tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg5: tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg6: tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg7: tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg8: tensor<16x16xf32, #dtensor.spec<@mesh, [S(1)]>>, %arg9: tensor<16xf32, #dtensor.spec<@mesh, [R]>>, %arg10: tensor<16xf32>, %arg11: tensor<16xf32>, %arg12: tensor<64x16xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg13: tensor<64xf32, #dtensor.spec<@mesh, [S(0)]>>, %arg14: tensor<16x64xf32, #dtensor.spec<@mesh, [S(1)]>>, %arg15: tensor<16xf32, #dtensor.spec<@mesh, [R]>>, %arg16: tensor<2x6x16xf32>) -> (tensor<2x6x16xf32>) {
  %y = func.call @layer(%mesh, %arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13, %arg14, %arg15, %arg16) : (!dtensor.device_mesh<@mesh>, tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<16x16xf32, #dtensor.spec<@mesh, [S(1)]>>, tensor<16xf32, #dtensor.spec<@mesh, [R]>>, tensor<16xf32>, tensor<16xf32>, tensor<64x16xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<64xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<16x64xf32, #dtensor.spec<@mesh, [S(1)]>>, tensor<16xf32, #dtensor.spec<@mesh, [R]>>, tensor<2x6x16xf32>) -> tensor<2x6x16xf32>
  %z = func.call @layer(%mesh, %arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13, %arg14, %arg15, %y) : (!dtensor.device_mesh<@mesh>, tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<16x16xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<16xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<16x16xf32, #dtensor.spec<@mesh, [S(1)]>>, tensor<16xf32, #dtensor.spec<@mesh, [R]>>, tensor<16xf32>, tensor<16xf32>, tensor<64x16xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<64xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<16x64xf32, #dtensor.spec<@mesh, [S(1)]>>, tensor<16xf32, #dtensor.spec<@mesh, [R]>>, tensor<2x6x16xf32>) -> tensor<2x6x16xf32>
  return %z : tensor<2x6x16xf32>
}
