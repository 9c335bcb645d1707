// RUN: dtensor-run %s --print-values | FileCheck %s
// reduction along the innermost loop must not use columns
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @main() -> tensor<2xf32> {
  %a = arith.constant dense<1.0> : tensor<2x1000xf32>
  %z = arith.constant dense<0.0> : tensor<2xf32>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<2x1000xf32>) outs(%z : tensor<2xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}
// CHECK: [1000, 1000]
