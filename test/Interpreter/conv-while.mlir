// RUN: dtensor-run %s --print-values | FileCheck %s
// A conv_2d (nhwc, hwcf) through the generic structured-op kernel, an
// scf.while loop, and i8 / i1 arithmetic.

func.func @main() -> (tensor<1x2x2x1xf32>, index, tensor<3xi8>, tensor<2xi1>) {
  // 3x3 input 1..9, 2x2 filter of ones: each output sums a 2x2 window.
  %in = arith.constant dense<[[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]]]> : tensor<1x3x3x1xf32>
  %f = arith.constant dense<1.0> : tensor<2x2x1x1xf32>
  %z = arith.constant dense<0.0> : tensor<1x2x2x1xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %f : tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) outs(%z : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  // Doubles 1 until it passes 100: 128.
  %one = arith.constant 1 : index
  %limit = arith.constant 100 : index
  %w = scf.while (%v = %one) : (index) -> index {
    %go = arith.cmpi slt, %v, %limit : index
    scf.condition(%go) %v : index
  } do {
  ^bb0(%v: index):
    %d = arith.addi %v, %v : index
    scf.yield %d : index
  }
  // i8 wraps around: 100 + 100 = -56.
  %a = arith.constant dense<[100, 1, -128]> : tensor<3xi8>
  %s = arith.addi %a, %a : tensor<3xi8>
  %t = arith.constant dense<[true, false]> : tensor<2xi1>
  %u = arith.constant dense<[true, true]> : tensor<2xi1>
  %x = arith.xori %t, %u : tensor<2xi1>
  return %c, %w, %s, %x : tensor<1x2x2x1xf32>, index, tensor<3xi8>, tensor<2xi1>
}

// CHECK:      output 0: same on every rank, 1x2x2x1 f32 sum=80
// CHECK-NEXT: {{\[\[\[\[}}12], [16]], {{\[\[}}24], [28]]]]
// CHECK-NEXT: output 1: 128
// CHECK-NEXT: output 2: same on every rank, 3 i8
// CHECK-NEXT: [-56, 2, 0]
// CHECK-NEXT: output 3: same on every rank, 2 i1
// CHECK-NEXT: [0, 1]
