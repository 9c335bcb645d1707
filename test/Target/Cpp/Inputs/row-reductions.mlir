// Reductions whose outputs each read adjacent terms (row sums, a softmax's
// maxima), and reductions over several output loops
// (test/Target/Cpp/reduce-tiles.test): a host runs them in tiles of
// outputs, 8 rows side by side (Inner) or up to 256 outputs (Outer), each
// output's indices unflattened once per tile. 37 rows over a 2x2 mesh: full
// tiles and a partial last one on every rank; maxnumf and minnumf over NaN
// terms (log of a negative, which they skip) and signed zeros; an f64 sum
// over two output loops of each layout; an i64 product.

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#in2 = affine_map<(r, c) -> (r, c)>
#row2 = affine_map<(r, c) -> (r)>
#in3 = affine_map<(b, s, h) -> (b, s, h)>
#bs3 = affine_map<(b, s, h) -> (b, s)>
#bh3 = affine_map<(b, s, h) -> (b, h)>

func.func @row_sum(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<37x29xf32, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<37xf32, #dtensor.spec<@mesh, [R, R]>> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<37xf32>) -> tensor<37xf32>
  %r = linalg.generic {indexing_maps = [#in2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<37x29xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%f : tensor<37xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<37xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<37xf32>, !dtensor.device_mesh<@mesh> -> tensor<37xf32, #dtensor.spec<@mesh, [R, R]>>
  return %d : tensor<37xf32, #dtensor.spec<@mesh, [R, R]>>
}

func.func @row_maxnum(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<37x29xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>)
    -> (tensor<37xf32, #dtensor.spec<@mesh, [R, R]>>, tensor<37xf32, #dtensor.spec<@mesh, [R, R]>>) {
  %lo = arith.constant 0xFF800000 : f32
  %hi = arith.constant 0x7F800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37xf32>
  %f = linalg.fill ins(%lo : f32) outs(%e : tensor<37xf32>) -> tensor<37xf32>
  %g = linalg.fill ins(%hi : f32) outs(%e : tensor<37xf32>) -> tensor<37xf32>
  // Terms: log |a| where a > 0, NaN where a < 0, and a signed zero where
  // a is an integer's negative or positive zero times a.
  %r = linalg.generic {indexing_maps = [#in2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<37x29xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%f : tensor<37xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %l = math.log %a : f32
    %s = arith.maxnumf %acc, %l : f32
    linalg.yield %s : f32
  } -> tensor<37xf32>
  %q = linalg.generic {indexing_maps = [#in2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<37x29xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%g : tensor<37xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %l = math.log %a : f32
    %z0 = arith.mulf %a, %zero : f32
    %t = arith.minnumf %l, %z0 : f32
    %s = arith.minnumf %acc, %t : f32
    linalg.yield %s : f32
  } -> tensor<37xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<37xf32>, !dtensor.device_mesh<@mesh> -> tensor<37xf32, #dtensor.spec<@mesh, [R, R]>>
  %d2 = dtensor.distribute_tensor %q, %m : tensor<37xf32>, !dtensor.device_mesh<@mesh> -> tensor<37xf32, #dtensor.spec<@mesh, [R, R]>>
  return %d, %d2 : tensor<37xf32, #dtensor.spec<@mesh, [R, R]>>, tensor<37xf32, #dtensor.spec<@mesh, [R, R]>>
}

func.func @two_output_loops_f64(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<5x7x300xf64, #dtensor.spec<@mesh, [S(0), R]>>)
    -> (tensor<5x7xf64, #dtensor.spec<@mesh, [R, R]>>, tensor<5x300xf64, #dtensor.spec<@mesh, [R, R]>>) {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<5x7xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<5x7xf64>) -> tensor<5x7xf64>
  %e2 = tensor.empty() : tensor<5x300xf64>
  %f2 = linalg.fill ins(%z : f64) outs(%e2 : tensor<5x300xf64>) -> tensor<5x300xf64>
  // Over h (Inner, two output loops) and over s (Outer, two output loops).
  %r = linalg.generic {indexing_maps = [#in3, #bs3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<5x7x300xf64, #dtensor.spec<@mesh, [S(0), R]>>) outs(%f : tensor<5x7xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  } -> tensor<5x7xf64>
  %q = linalg.generic {indexing_maps = [#in3, #bh3], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<5x7x300xf64, #dtensor.spec<@mesh, [S(0), R]>>) outs(%f2 : tensor<5x300xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  } -> tensor<5x300xf64>
  %d = dtensor.distribute_tensor %r, %m : tensor<5x7xf64>, !dtensor.device_mesh<@mesh> -> tensor<5x7xf64, #dtensor.spec<@mesh, [R, R]>>
  %d2 = dtensor.distribute_tensor %q, %m : tensor<5x300xf64>, !dtensor.device_mesh<@mesh> -> tensor<5x300xf64, #dtensor.spec<@mesh, [R, R]>>
  return %d, %d2 : tensor<5x7xf64, #dtensor.spec<@mesh, [R, R]>>, tensor<5x300xf64, #dtensor.spec<@mesh, [R, R]>>
}

func.func @row_product_i64(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<19x6xi64, #dtensor.spec<@mesh, [S(0), S(1)]>>)
    -> tensor<19xi64, #dtensor.spec<@mesh, [R, R]>> {
  %one = arith.constant 1 : i64
  %e = tensor.empty() : tensor<19xi64>
  %f = linalg.fill ins(%one : i64) outs(%e : tensor<19xi64>) -> tensor<19xi64>
  %r = linalg.generic {indexing_maps = [#in2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<19x6xi64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%f : tensor<19xi64>) {
  ^bb0(%a: i64, %acc: i64):
    %s = arith.muli %acc, %a : i64
    linalg.yield %s : i64
  } -> tensor<19xi64>
  %d = dtensor.distribute_tensor %r, %m : tensor<19xi64>, !dtensor.device_mesh<@mesh> -> tensor<19xi64, #dtensor.spec<@mesh, [R, R]>>
  return %d : tensor<19xi64, #dtensor.spec<@mesh, [R, R]>>
}
