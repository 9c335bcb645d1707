// RUN: dtensor-run %s | FileCheck %s
// Float bodies run a tile of the innermost loop at a time; rows longer than
// a tile (512) and not a multiple of it, with linalg.index, must see every
// point once: the sum of 0..1999 is 1999000.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main() -> tensor<2x1000xf32> {
  %e = tensor.empty() : tensor<2x1000xf32>
  %g = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<2x1000xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.constant 1000 : index
    %ik = arith.muli %i, %k : index
    %s = arith.addi %ik, %j : index
    %s64 = arith.index_cast %s : index to i64
    %f = arith.sitofp %s64 : i64 to f32
    linalg.yield %f : f32
  } -> tensor<2x1000xf32>
  return %g : tensor<2x1000xf32>
}
// CHECK: output 0: same on every rank, 2x1000 f32 sum=1.999e+06
