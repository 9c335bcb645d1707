// Widened products: linalg.matmul / batch_matmul whose operands extend to
// the result's type (int8 -> int32, f16 / bf16 -> f32), which the runtime
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
