// RUN: dtensor-run %s --print-values | FileCheck %s
// arith.maximumf and minimumf order -0 below +0 (IEEE 754 maximum and
// minimum, as MLIR defines them), in a linalg body and on whole tensors:
// maximumf(-0, +0) and maximumf(+0, -0) are +0, minimumf of them -0. (The
// interpreter used std::max, which returns its first operand for equal
// values, so maximumf(-0, +0) was -0; the emitted C++ was right.) maxnumf and
// minnumf return the other operand for a NaN.

#id = affine_map<(d0) -> (d0)>
// CHECK:      output 0: same on every rank, 4 f32
// CHECK-NEXT: [0, 0, -0, -0]
// CHECK:      output 1: same on every rank, 2 f32
// CHECK-NEXT: [0, 0]
// CHECK:      output 2: same on every rank, 2 f32
// CHECK-NEXT: [-0, -0]
// CHECK:      output 3: same on every rank, 2 f32
// CHECK-NEXT: [1, 1]
func.func @main() -> (tensor<4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = arith.constant dense<[-0.0, 0.0]> : tensor<2xf32>
  %b = arith.constant dense<[0.0, -0.0]> : tensor<2xf32>
  %e = tensor.empty() : tensor<4xf32>
  %ab = arith.constant dense<[-0.0, 0.0, -0.0, 0.0]> : tensor<4xf32>
  %ba = arith.constant dense<[0.0, -0.0, 0.0, -0.0]> : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%ab, %ba : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %i = linalg.index 0 : index
    %two = arith.constant 2 : index
    %lo = arith.cmpi ult, %i, %two : index
    %mx = arith.maximumf %x, %y : f32
    %mn = arith.minimumf %x, %y : f32
    %r = arith.select %lo, %mx, %mn : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %mx = arith.maximumf %a, %b : tensor<2xf32>
  %mn = arith.minimumf %a, %b : tensor<2xf32>
  %one = arith.constant dense<1.0> : tensor<2xf32>
  %nan = arith.constant dense<0x7FC00000> : tensor<2xf32>
  %num = arith.maxnumf %nan, %one : tensor<2xf32>
  return %g, %mx, %mn, %num : tensor<4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
