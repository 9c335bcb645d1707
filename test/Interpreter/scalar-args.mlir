// RUN: rm -rf %t && mkdir -p %t
// RUN: dtensor-run %s --entry make --output-dir %t --quiet
// RUN: dtensor-run %s --entry scale --print-values | FileCheck %s --check-prefix=GEN
// RUN: dtensor-run %s --entry scale --input 0=%t/out0.npy --input 1=%t/out1.npy --input 2=%t/out2.npy --print-values | FileCheck %s --check-prefix=GIVEN
// RUN: not dtensor-run %s --entry scale --input 0=%t/out3.npy 2>&1 | FileCheck %s --check-prefix=BAD
// An entry's scalar arguments (f32, index, i64) were refused ("argument 0
// has a type that cannot be given as input", whether given or not): they
// are generated as tensors are, or given as a 0-d (or one-element) .npy of
// their type (index as i64).
func.func @make() -> (tensor<f32>, tensor<i64>, tensor<1xi64>, tensor<2xf32>) {
  %s = arith.constant dense<2.0> : tensor<f32>
  %n = arith.constant dense<3> : tensor<i64>
  %k = arith.constant dense<9000000000000000001> : tensor<1xi64>
  %bad = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %s, %n, %k, %bad : tensor<f32>, tensor<i64>, tensor<1xi64>, tensor<2xf32>
}
// GEN: ran @scale on 1 rank(s)
// GEN: output 1: {{-?[0-9]+$}}
// GIVEN: output 0:
// GIVEN-NEXT: [2, 4, 6, 8]
// GIVEN: output 1: 9000000000000000004
// BAD: argument 0: '{{.*}}out3.npy' has rank 1 but the argument has 0 (a scalar is given as a 0-d tensor of its type)
func.func @scale(%s: f32, %n: index, %k: i64) -> (tensor<4xf32>, i64) {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]} outs(%e : tensor<4xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %one = arith.constant 1.0 : f32
    %g = arith.addf %f, %one : f32
    %m = arith.mulf %g, %s : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %ni = arith.index_cast %n : index to i64
  %t = arith.addi %ni, %k : i64
  return %r, %t : tensor<4xf32>, i64
}
