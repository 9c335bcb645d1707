// RUN: dtensor-run %s --print-values | FileCheck %s
// The tensor ops of the interpreter, with exact values.

func.func @main() -> (tensor<3x4xf32>, tensor<4x2xf32>, tensor<6xf32>, tensor<2x1x2xf32>, tensor<3x2xf32>, f32, tensor<2x2xi32>, tensor<2xi32>, index, tensor<2x2xf32>) {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %pad = arith.constant -1.0 : f32
  %p = tensor.pad %a low[1, 0] high[0, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %pad : f32
  } : tensor<2x2xf32> to tensor<3x4xf32>
  %c = tensor.concat dim(0) %a, %a : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %flat = tensor.collapse_shape %c [[0, 1]] : tensor<4x2xf32> into tensor<8xf32>
  %six = tensor.extract_slice %flat[1] [6] [1] : tensor<8xf32> to tensor<6xf32>
  %e = tensor.expand_shape %a [[0, 1], [2]] output_shape [2, 1, 2] : tensor<2x2xf32> into tensor<2x1x2xf32>
  %shape = arith.constant dense<[3, 2]> : tensor<2xi64>
  %r = tensor.reshape %six(%shape) : (tensor<6xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %x = tensor.extract %a[%c1, %c0] : tensor<2x2xf32>
  %i = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %seven = arith.constant 7 : i32
  %ins = tensor.insert %seven into %i[%c0, %c1] : tensor<2x2xi32>
  %fe = tensor.from_elements %seven, %seven : tensor<2xi32>
  %d = tensor.dim %c, %c0 : tensor<4x2xf32>
  %sum = arith.addf %a, %a : tensor<2x2xf32>
  return %p, %c, %six, %e, %r, %x, %ins, %fe, %d, %sum : tensor<3x4xf32>, tensor<4x2xf32>, tensor<6xf32>, tensor<2x1x2xf32>, tensor<3x2xf32>, f32, tensor<2x2xi32>, tensor<2xi32>, index, tensor<2x2xf32>
}

// CHECK:      output 0: same on every rank, 3x4 f32
// CHECK-NEXT: {{\[\[}}-1, -1, -1, -1], [1, 2, -1, -1], [3, 4, -1, -1]]
// CHECK:      output 1: same on every rank, 4x2 f32
// CHECK-NEXT: {{\[\[}}1, 2], [3, 4], [1, 2], [3, 4]]
// CHECK:      output 2: same on every rank, 6 f32
// CHECK-NEXT: [2, 3, 4, 1, 2, 3]
// CHECK:      output 3: same on every rank, 2x1x2 f32
// CHECK-NEXT: {{\[\[\[}}1, 2]], {{\[\[}}3, 4]]]
// CHECK:      output 4: same on every rank, 3x2 f32
// CHECK-NEXT: {{\[\[}}2, 3], [4, 1], [2, 3]]
// CHECK-NEXT: output 5: 3
// CHECK-NEXT: output 6: same on every rank, 2x2 i32
// CHECK-NEXT: {{\[\[}}1, 7], [3, 4]]
// CHECK-NEXT: output 7: same on every rank, 2 i32
// CHECK-NEXT: [7, 7]
// CHECK-NEXT: output 8: 4
// CHECK-NEXT: output 9: same on every rank, 2x2 f32
// CHECK-NEXT: {{\[\[}}2, 4], [6, 8]]
