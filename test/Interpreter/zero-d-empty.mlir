// RUN: dtensor-run %s --print-values | FileCheck %s
// 0-d tensors through linalg (no loops at all), and empty tensors through
// every op that copies (their buffers have no elements to point at).

#scalar = affine_map<() -> ()>
func.func @main() -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<i32>, tensor<f64>, tensor<0x4xf32>, tensor<2x0xf32>, tensor<2x4xf32>, tensor<0x3xf32>) {
  %a = arith.constant dense<2.5> : tensor<f32>
  %e = tensor.empty() : tensor<f32>
  // The segfault: 0 loops made the odometer start at loop 2^32 - 1.
  %plus1 = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []} ins(%a : tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%x: f32, %y: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.addf %x, %one : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seven = arith.constant 7.0 : f32
  %fill = linalg.fill ins(%seven : f32) outs(%e : tensor<f32>) -> tensor<f32>
  // A reduction into a 0-d tensor, float and integer.
  %v = arith.constant dense<[1.0, 2.0, 3.0, 4.5]> : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%v : tensor<4xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%in: f32, %out: f32) {
      %t = arith.addf %in, %out : f32
      linalg.yield %t : f32
    }
  %iv = arith.constant dense<[3, -5, 9]> : tensor<3xi32>
  %ie = arith.constant dense<1> : tensor<i32>
  %imax = linalg.reduce ins(%iv : tensor<3xi32>) outs(%ie : tensor<i32>) dimensions = [0]
    (%in: i32, %out: i32) {
      %t = arith.maxsi %in, %out : i32
      linalg.yield %t : i32
    }
  // 0-d in, 0-d out, f64, through the per-element (non-tile) path.
  %d = arith.constant dense<-1.25> : tensor<f64>
  %de = tensor.empty() : tensor<f64>
  %neg = linalg.negf ins(%d : tensor<f64>) outs(%de : tensor<f64>) -> tensor<f64>

  // Empty tensors: a linalg op over them, fills, copies into and out of
  // them, and a concat with an empty part.
  %z = tensor.empty() : tensor<0x4xf32>
  %zf = linalg.fill ins(%seven : f32) outs(%z : tensor<0x4xf32>) -> tensor<0x4xf32>
  %zz = tensor.empty() : tensor<0x4xf32>
  %zneg = linalg.negf ins(%zf : tensor<0x4xf32>) outs(%zz : tensor<0x4xf32>) -> tensor<0x4xf32>
  %two = arith.constant dense<1.0> : tensor<2x4xf32>
  %w = tensor.extract_slice %two[0, 1] [2, 0] [1, 1] : tensor<2x4xf32> to tensor<2x0xf32>
  %w2 = tensor.insert_slice %zneg into %two[1, 0] [0, 4] [1, 1] : tensor<0x4xf32> into tensor<2x4xf32>
  %cat = tensor.concat dim(0) %zneg, %w2 : (tensor<0x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %m = arith.constant dense<2.0> : tensor<0x5xf32>
  %n = arith.constant dense<2.0> : tensor<5x3xf32>
  %mn = tensor.empty() : tensor<0x3xf32>
  %mm = linalg.matmul ins(%m, %n : tensor<0x5xf32>, tensor<5x3xf32>) outs(%mn : tensor<0x3xf32>) -> tensor<0x3xf32>
  return %plus1, %fill, %sum, %imax, %neg, %zneg, %w, %cat, %mm : tensor<f32>, tensor<f32>, tensor<f32>, tensor<i32>, tensor<f64>, tensor<0x4xf32>, tensor<2x0xf32>, tensor<2x4xf32>, tensor<0x3xf32>
}

// CHECK:      output 0: same on every rank, scalar f32 sum=3.5
// CHECK-NEXT: 3.5
// CHECK-NEXT: output 1: same on every rank, scalar f32 sum=7
// CHECK-NEXT: 7
// CHECK-NEXT: output 2: same on every rank, scalar f32 sum=10.5
// CHECK-NEXT: 10.5
// CHECK-NEXT: output 3: same on every rank, scalar i32 sum=9
// CHECK-NEXT: 9
// CHECK-NEXT: output 4: same on every rank, scalar f64 sum=1.25
// CHECK-NEXT: 1.25
// CHECK-NEXT: output 5: same on every rank, 0x4 f32 sum=0
// CHECK-NEXT: []
// CHECK-NEXT: output 6: same on every rank, 2x0 f32 sum=0
// CHECK-NEXT: []
// CHECK-NEXT: output 7: same on every rank, 2x4 f32 sum=8
// CHECK-NEXT: {{\[\[}}1, 1, 1, 1], [1, 1, 1, 1]]
// CHECK-NEXT: output 8: same on every rank, 0x3 f32 sum=0
// CHECK-NEXT: []
