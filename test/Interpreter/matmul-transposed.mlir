// RUN: dtensor-run %s --all-entries --print-values | FileCheck %s
// RUN: dtensor-run %s --all-entries --print-values --rank-threads=2 | FileCheck %s

// linalg.matmul / batch_matmul whose maps read A as [k, m] or B as [n, k]
// run on BLAS with its transpose flags; each result is compared here, in
// the program, with the same contraction written as a linalg.generic (the
// interpreter's loop path): the count of elements that differ must be 0.

#a = affine_map<(m, n, k) -> (m, k)>
#at = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (k, n)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>

func.func private @differ(%x: tensor<5x3xf32>, %y: tensor<5x3xf32>) -> tensor<i32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<i32>
  %i = linalg.fill ins(%z : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %n = linalg.generic {indexing_maps = [#id, #id, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%x, %y : tensor<5x3xf32>, tensor<5x3xf32>) outs(%i : tensor<i32>) {
  ^bb0(%p: f32, %q: f32, %acc: i32):
    %d = arith.subf %p, %q : f32
    %ad = math.absf %d : f32
    %aq = math.absf %q : f32
    %one = arith.constant 1.0 : f32
    %tol = arith.constant 1.0e-5 : f32
    %s = arith.addf %aq, %one : f32
    %t = arith.mulf %s, %tol : f32
    %bad = arith.cmpf ogt, %ad, %t : f32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %b = arith.select %bad, %c1, %c0 : i32
    %r = arith.addi %acc, %b : i32
    linalg.yield %r : i32
  } -> tensor<i32>
  return %n : tensor<i32>
}

func.func private @zeros() -> tensor<5x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %f : tensor<5x3xf32>
}

// CHECK-LABEL: @trans_b
// CHECK: output 0: {{.*}}
// CHECK-NEXT: {{^}}0{{$}}
func.func @trans_b(%x: tensor<5x7xf32>, %w: tensor<3x7xf32>) -> tensor<i32> {
  %z = func.call @zeros() : () -> tensor<5x3xf32>
  %m = linalg.matmul indexing_maps = [#a, #bt, #c] ins(%x, %w : tensor<5x7xf32>, tensor<3x7xf32>) outs(%z : tensor<5x3xf32>) -> tensor<5x3xf32>
  %g = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<5x7xf32>, tensor<3x7xf32>) outs(%z : tensor<5x3xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %r = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %r : f32
    linalg.yield %s : f32
  } -> tensor<5x3xf32>
  %n = func.call @differ(%m, %g) : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<i32>
  return %n : tensor<i32>
}

// CHECK-LABEL: @trans_a
// CHECK: output 0: {{.*}}
// CHECK-NEXT: {{^}}0{{$}}
func.func @trans_a(%x: tensor<7x5xf32>, %w: tensor<7x3xf32>) -> tensor<i32> {
  %z = func.call @zeros() : () -> tensor<5x3xf32>
  %m = linalg.matmul indexing_maps = [#at, #b, #c] ins(%x, %w : tensor<7x5xf32>, tensor<7x3xf32>) outs(%z : tensor<5x3xf32>) -> tensor<5x3xf32>
  %g = linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<7x5xf32>, tensor<7x3xf32>) outs(%z : tensor<5x3xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %r = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %r : f32
    linalg.yield %s : f32
  } -> tensor<5x3xf32>
  %n = func.call @differ(%m, %g) : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<i32>
  return %n : tensor<i32>
}

// CHECK-LABEL: @trans_both
// CHECK: output 0: {{.*}}
// CHECK-NEXT: {{^}}0{{$}}
func.func @trans_both(%x: tensor<7x5xf32>, %w: tensor<3x7xf32>) -> tensor<i32> {
  %z = func.call @zeros() : () -> tensor<5x3xf32>
  %m = linalg.matmul indexing_maps = [#at, #bt, #c] ins(%x, %w : tensor<7x5xf32>, tensor<3x7xf32>) outs(%z : tensor<5x3xf32>) -> tensor<5x3xf32>
  %g = linalg.generic {indexing_maps = [#at, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<7x5xf32>, tensor<3x7xf32>) outs(%z : tensor<5x3xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %r = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %r : f32
    linalg.yield %s : f32
  } -> tensor<5x3xf32>
  %n = func.call @differ(%m, %g) : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<i32>
  return %n : tensor<i32>
}

// A batch of 2 with B transposed: both batches compared.
// CHECK-LABEL: @batch_trans_b
// CHECK: output 0: {{.*}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK: output 1: {{.*}}
// CHECK-NEXT: {{^}}0{{$}}
func.func @batch_trans_b(%x: tensor<2x5x7xf32>, %w: tensor<2x3x7xf32>) -> (tensor<i32>, tensor<i32>) {
  %z0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x5x3xf32>
  %z = linalg.fill ins(%z0 : f32) outs(%e : tensor<2x5x3xf32>) -> tensor<2x5x3xf32>
  %m = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%x, %w : tensor<2x5x7xf32>, tensor<2x3x7xf32>) outs(%z : tensor<2x5x3xf32>) -> tensor<2x5x3xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x5x7xf32>, tensor<2x3x7xf32>) outs(%z : tensor<2x5x3xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %r = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %r : f32
    linalg.yield %s : f32
  } -> tensor<2x5x3xf32>
  %m0 = tensor.extract_slice %m[0, 0, 0] [1, 5, 3] [1, 1, 1] : tensor<2x5x3xf32> to tensor<1x5x3xf32>
  %g0 = tensor.extract_slice %g[0, 0, 0] [1, 5, 3] [1, 1, 1] : tensor<2x5x3xf32> to tensor<1x5x3xf32>
  %m1 = tensor.extract_slice %m[1, 0, 0] [1, 5, 3] [1, 1, 1] : tensor<2x5x3xf32> to tensor<1x5x3xf32>
  %g1 = tensor.extract_slice %g[1, 0, 0] [1, 5, 3] [1, 1, 1] : tensor<2x5x3xf32> to tensor<1x5x3xf32>
  %cm0 = tensor.collapse_shape %m0 [[0, 1], [2]] : tensor<1x5x3xf32> into tensor<5x3xf32>
  %cg0 = tensor.collapse_shape %g0 [[0, 1], [2]] : tensor<1x5x3xf32> into tensor<5x3xf32>
  %cm1 = tensor.collapse_shape %m1 [[0, 1], [2]] : tensor<1x5x3xf32> into tensor<5x3xf32>
  %cg1 = tensor.collapse_shape %g1 [[0, 1], [2]] : tensor<1x5x3xf32> into tensor<5x3xf32>
  %n0 = func.call @differ(%cm0, %cg0) : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<i32>
  %n1 = func.call @differ(%cm1, %cg1) : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<i32>
  return %n0, %n1 : tensor<i32>, tensor<i32>
}
