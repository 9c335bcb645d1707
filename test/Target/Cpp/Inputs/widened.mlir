// Widened products: linalg.matmul / batch_matmul (and linalg.generic
// contractions) whose operands extend to the result's type (int8 -> int32, f16 / bf16 -> f32), which the runtime
// computes as cuBLAS's int8 and mixed-precision GEMMs on a GPU and as a loop
// on a host (test/Target/Cpp/widened-matmul.test).
dtensor.mesh @mesh shape = [2] names = ["tp"]
// int8 x int8 -> int32, rows sharded (5 rows on 2 ranks: uneven)
func.func @int8(%m: !dtensor.device_mesh<@mesh>, %a: tensor<5x12xi8, #dtensor.spec<@mesh, [S(0)]>>, %b: tensor<12x8xi8, #dtensor.spec<@mesh, [R]>>) -> tensor<5x8xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<5x8xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<5x8xi32>) -> tensor<5x8xi32>
  %r = linalg.matmul ins(%a, %b : tensor<5x12xi8, #dtensor.spec<@mesh, [S(0)]>>, tensor<12x8xi8, #dtensor.spec<@mesh, [R]>>) outs(%f : tensor<5x8xi32>) -> tensor<5x8xi32>
  return %r : tensor<5x8xi32>
}
// K sharded: each rank's int32 partial sum, all-reduced
func.func @int8_partial(%m: !dtensor.device_mesh<@mesh>, %a: tensor<4x6xi8, #dtensor.spec<@mesh, [S(1)]>>, %b: tensor<6x3xi8, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<4x3xi32> {
  %z = arith.constant 7 : i32
  %e = tensor.empty() : tensor<4x3xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<4x3xi32>) -> tensor<4x3xi32>
  %r = linalg.matmul ins(%a, %b : tensor<4x6xi8, #dtensor.spec<@mesh, [S(1)]>>, tensor<6x3xi8, #dtensor.spec<@mesh, [S(0)]>>) outs(%f : tensor<4x3xi32>) -> tensor<4x3xi32>
  return %r : tensor<4x3xi32>
}
// f16 x f16 -> f32 (mixed precision), columns sharded
func.func @half(%m: !dtensor.device_mesh<@mesh>, %a: tensor<6x16xf16, #dtensor.spec<@mesh, [R]>>, %b: tensor<16x10xf16, #dtensor.spec<@mesh, [S(1)]>>) -> tensor<6x10xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x10xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<6x10xf32>) -> tensor<6x10xf32>
  %r = linalg.matmul ins(%a, %b : tensor<6x16xf16, #dtensor.spec<@mesh, [R]>>, tensor<16x10xf16, #dtensor.spec<@mesh, [S(1)]>>) outs(%f : tensor<6x10xf32>) -> tensor<6x10xf32>
  return %r : tensor<6x10xf32>
}
// bf16 -> f32 batch_matmul, batch sharded
func.func @bf16_batch(%m: !dtensor.device_mesh<@mesh>, %a: tensor<4x3x8xbf16, #dtensor.spec<@mesh, [S(0)]>>, %b: tensor<4x8x5xbf16, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<4x3x5xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x3x5xf32>) -> tensor<4x3x5xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x3x8xbf16, #dtensor.spec<@mesh, [S(0)]>>, tensor<4x8x5xbf16, #dtensor.spec<@mesh, [S(0)]>>) outs(%f : tensor<4x3x5xf32>) -> tensor<4x3x5xf32>
  return %r : tensor<4x3x5xf32>
}
// an unsigned cast: not a product the runtime computes, a kernel
func.func @unsigned(%m: !dtensor.device_mesh<@mesh>, %a: tensor<4x6xi8, #dtensor.spec<@mesh, [S(0)]>>, %b: tensor<6x3xi8, #dtensor.spec<@mesh, [R]>>) -> tensor<4x3xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4x3xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<4x3xi32>) -> tensor<4x3xi32>
  %r = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<4x6xi8, #dtensor.spec<@mesh, [S(0)]>>, tensor<6x3xi8, #dtensor.spec<@mesh, [R]>>) outs(%f : tensor<4x3xi32>) -> tensor<4x3xi32>
  return %r : tensor<4x3xi32>
}
// The same products written as linalg.generic (extsi / extf in the body):
// a plain 2-D matmul, int8 -> int32, rows sharded unevenly
func.func @generic_int8(%m: !dtensor.device_mesh<@mesh>, %a: tensor<5x12xi8, #dtensor.spec<@mesh, [S(0)]>>, %b: tensor<12x8xi8, #dtensor.spec<@mesh, [R]>>) -> tensor<5x8xi32> {
  %z = arith.constant 3 : i32
  %e = tensor.empty() : tensor<5x8xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<5x8xi32>) -> tensor<5x8xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<5x12xi8, #dtensor.spec<@mesh, [S(0)]>>, tensor<12x8xi8, #dtensor.spec<@mesh, [R]>>) outs(%f : tensor<5x8xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<5x8xi32>
  return %r : tensor<5x8xi32>
}
// x @ w over x's leading dims (F.linear on 3-D x), f16 -> f32, K sharded
// (a Partial all-reduced)
func.func @generic_half_linear(%m: !dtensor.device_mesh<@mesh>, %x: tensor<2x3x16xf16, #dtensor.spec<@mesh, [S(2)]>>, %w: tensor<16x10xf16, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<2x3x10xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x10xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x10xf32>) -> tensor<2x3x10xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<2x3x16xf16, #dtensor.spec<@mesh, [S(2)]>>, tensor<16x10xf16, #dtensor.spec<@mesh, [S(0)]>>) outs(%f : tensor<2x3x10xf32>) {
  ^bb0(%p: f16, %q: f16, %acc: f32):
    %pe = arith.extf %p : f16 to f32
    %qe = arith.extf %q : f16 to f32
    %t = arith.mulf %pe, %qe : f32
    %s = arith.addf %acc, %t : f32
    linalg.yield %s : f32
  } -> tensor<2x3x10xf32>
  return %r : tensor<2x3x10xf32>
}
// an einsum's scores, bqhd,bkhd->bhqk in bf16 -> f32, heads sharded: read
// through transposes into a batch_matmul
func.func @generic_bf16_scores(%m: !dtensor.device_mesh<@mesh>, %q: tensor<2x3x2x8xbf16, #dtensor.spec<@mesh, [S(2)]>>, %k: tensor<2x5x2x8xbf16, #dtensor.spec<@mesh, [S(2)]>>) -> tensor<2x2x3x5xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2x3x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x2x3x5xf32>) -> tensor<2x2x3x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, i, h, d)>, affine_map<(b, h, i, j, d) -> (b, j, h, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x3x2x8xbf16, #dtensor.spec<@mesh, [S(2)]>>, tensor<2x5x2x8xbf16, #dtensor.spec<@mesh, [S(2)]>>) outs(%f : tensor<2x2x3x5xf32>) {
  ^bb0(%p: bf16, %u: bf16, %acc: f32):
    %pe = arith.extf %p : bf16 to f32
    %ue = arith.extf %u : bf16 to f32
    %t = arith.mulf %pe, %ue : f32
    %s = arith.addf %acc, %t : f32
    linalg.yield %s : f32
  } -> tensor<2x2x3x5xf32>
  return %r : tensor<2x2x3x5xf32>
}
// zero-extended operands (extui): not a product the runtime computes, a
// kernel
func.func @generic_unsigned(%m: !dtensor.device_mesh<@mesh>, %a: tensor<4x6xi8, #dtensor.spec<@mesh, [S(0)]>>, %b: tensor<6x3xi8, #dtensor.spec<@mesh, [R]>>) -> tensor<4x3xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4x3xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<4x3xi32>) -> tensor<4x3xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4x6xi8, #dtensor.spec<@mesh, [S(0)]>>, tensor<6x3xi8, #dtensor.spec<@mesh, [R]>>) outs(%f : tensor<4x3xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extui %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<4x3xi32>
  return %r : tensor<4x3xi32>
}
