// RUN: dtensor-run %s --print-values | FileCheck %s
// f16 and bf16 round to their own precision after every operation:
// 1/3 is 0.333251953125 in f16 and 0.333984375 in bf16.

#id = affine_map<(d0) -> (d0)>
func.func @main() -> (tensor<2xf16>, tensor<2xbf16>, tensor<2xbf16>, tensor<2xf16>) {
  %one = arith.constant dense<1.0> : tensor<2xf16>
  %three = arith.constant dense<3.0> : tensor<2xf16>
  %h = arith.divf %one, %three : tensor<2xf16>
  %oneb = arith.constant dense<1.0> : tensor<2xbf16>
  %threeb = arith.constant dense<3.0> : tensor<2xbf16>
  %b = arith.divf %oneb, %threeb : tensor<2xbf16>
  // A linalg body on bf16: x * 3 rounds back to 1.0 (0.333984375 * 3 = 1.001953125 -> 1.0)
  %e = tensor.empty() : tensor<2xbf16>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%b, %threeb : tensor<2xbf16>, tensor<2xbf16>) outs(%e : tensor<2xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %m = arith.mulf %x, %y : bf16
    linalg.yield %m : bf16
  } -> tensor<2xbf16>
  // f16 overflows to inf past 65504.
  %big = arith.constant dense<60000.0> : tensor<2xf16>
  %inf = arith.addf %big, %big : tensor<2xf16>
  return %h, %b, %g, %inf : tensor<2xf16>, tensor<2xbf16>, tensor<2xbf16>, tensor<2xf16>
}

// CHECK:      output 0: same on every rank, 2 f16
// CHECK-NEXT: [0.333252, 0.333252]
// CHECK:      output 1: same on every rank, 2 bf16
// CHECK-NEXT: [0.333984, 0.333984]
// CHECK:      output 2: same on every rank, 2 bf16
// CHECK-NEXT: [1, 1]
// CHECK:      output 3: same on every rank, 2 f16
// CHECK-NEXT: [inf, inf]
