// RUN: dtensor-run %s --print-values | FileCheck %s
// Every linalg op runs through one kernel (compiled body, maps as strides);
// f32/f64 matmul goes to OpenBLAS. Values checked exactly.

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main() -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2x2xf64>, index, tensor<2x3xf32>) {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %z = tensor.empty() : tensor<2x2xf32>
  %c0 = arith.constant 0.0 : f32
  %f = linalg.fill ins(%c0 : f32) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = linalg.matmul ins(%a, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x2xf32>) outs(%z : tensor<2x2xf32>) permutation = [1, 0]
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<2x2xf32>) outs(%z : tensor<2x2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %s = arith.mulf %x, %x : f32
    %r = arith.addf %s, %fi : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  %e1 = tensor.empty() : tensor<2xf32>
  %f1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %red = linalg.reduce ins(%a : tensor<2x2xf32>) outs(%f1 : tensor<2xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %ad = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %zd = arith.constant dense<0.0> : tensor<2x2xf64>
  %md = linalg.matmul ins(%ad, %ad : tensor<2x2xf64>, tensor<2x2xf64>) outs(%zd : tensor<2x2xf64>) -> tensor<2x2xf64>
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %sum = scf.for %iv = %lb to %ub step %st iter_args(%acc = %lb) -> (index) {
    %n = arith.addi %acc, %iv : index
    scf.yield %n : index
  }
  %v = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %e23 = tensor.empty() : tensor<2x3xf32>
  %bc = linalg.broadcast ins(%v : tensor<3xf32>) outs(%e23 : tensor<2x3xf32>) dimensions = [0]
  return %m, %t, %g, %red, %md, %sum, %bc : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2x2xf64>, index, tensor<2x3xf32>
}

// CHECK:      ran @main on 1 rank(s)
// CHECK-NEXT: output 0: same on every rank, 2x2 f32 sum=134
// CHECK-NEXT: {{\[\[}}19, 22], [43, 50]]
// CHECK-NEXT: output 1: same on every rank, 2x2 f32 sum=10
// CHECK-NEXT: {{\[\[}}1, 3], [2, 4]]
// CHECK-NEXT: output 2: same on every rank, 2x2 f32 sum=32
// CHECK-NEXT: {{\[\[}}1, 5], [9, 17]]
// CHECK-NEXT: output 3: same on every rank, 2 f32 sum=10
// CHECK-NEXT: [3, 7]
// CHECK-NEXT: output 4: same on every rank, 2x2 f64 sum=54
// CHECK-NEXT: {{\[\[}}7, 10], [15, 22]]
// CHECK-NEXT: output 5: 6
// CHECK-NEXT: output 6: same on every rank, 2x3 f32 sum=12
// CHECK-NEXT: {{\[\[}}1, 2, 3], [1, 2, 3]]
