// Reductions whose adjacent outputs are adjacent in memory over one output
// loop (test/Target/Cpp/reduce-tiles.test): a host runs them in tiles of 256
// outputs with the reduction loops outside. 300 and 700 outputs: full tiles
// and a partial last one; a sum over two reduction loops (a bias gradient of
// a 3-D activation), a max with its NaN, an f64 sum and an i32 product.

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#in3 = affine_map<(b, s, h) -> (b, s, h)>
#out3 = affine_map<(b, s, h) -> (h)>
#in2 = affine_map<(r, c) -> (r, c)>
#out2 = affine_map<(r, c) -> (c)>

func.func @bias_grad(%m: !dtensor.device_mesh<@mesh>,
    %g: tensor<4x6x300xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>)
    -> tensor<300xf32, #dtensor.spec<@mesh, [R, R]>> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<300xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<300xf32>) -> tensor<300xf32>
  %r = linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["reduction", "reduction", "parallel"]}
      ins(%g : tensor<4x6x300xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%f : tensor<300xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<300xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<300xf32>, !dtensor.device_mesh<@mesh> -> tensor<300xf32, #dtensor.spec<@mesh, [R, R]>>
  return %d : tensor<300xf32, #dtensor.spec<@mesh, [R, R]>>
}

func.func @column_max(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<9x700xf32, #dtensor.spec<@mesh, [R, S(1)]>>)
    -> tensor<700xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %z = arith.constant 0xFF800000 : f32
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<700xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<700xf32>) -> tensor<700xf32>
  %r = linalg.generic {indexing_maps = [#in2, #out2], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<9x700xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%f : tensor<700xf32>) {
  ^bb0(%a: f32, %acc: f32):
    // log of a negative: NaN, which maximumf keeps.
    %l = math.log %a : f32
    %s = arith.maximumf %acc, %l : f32
    linalg.yield %s : f32
  } -> tensor<700xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<700xf32>, !dtensor.device_mesh<@mesh> -> tensor<700xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<700xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

func.func @column_sum_f64(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<33x300xf64, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<300xf64, #dtensor.spec<@mesh, [R, R]>> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<300xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<300xf64>) -> tensor<300xf64>
  %r = linalg.generic {indexing_maps = [#in2, #out2], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<33x300xf64, #dtensor.spec<@mesh, [S(0), R]>>) outs(%f : tensor<300xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  } -> tensor<300xf64>
  %d = dtensor.distribute_tensor %r, %m : tensor<300xf64>, !dtensor.device_mesh<@mesh> -> tensor<300xf64, #dtensor.spec<@mesh, [R, R]>>
  return %d : tensor<300xf64, #dtensor.spec<@mesh, [R, R]>>
}

func.func @column_product_i32(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<5x513xi32, #dtensor.spec<@mesh, [R, S(1)]>>)
    -> tensor<513xi32, #dtensor.spec<@mesh, [R, R]>> {
  %one = arith.constant 1 : i32
  %e = tensor.empty() : tensor<513xi32>
  %f = linalg.fill ins(%one : i32) outs(%e : tensor<513xi32>) -> tensor<513xi32>
  %r = linalg.generic {indexing_maps = [#in2, #out2], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<5x513xi32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%f : tensor<513xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.muli %acc, %a : i32
    linalg.yield %s : i32
  } -> tensor<513xi32>
  %d = dtensor.distribute_tensor %r, %m : tensor<513xi32>, !dtensor.device_mesh<@mesh> -> tensor<513xi32, #dtensor.spec<@mesh, [R, R]>>
  return %d : tensor<513xi32, #dtensor.spec<@mesh, [R, R]>>
}
