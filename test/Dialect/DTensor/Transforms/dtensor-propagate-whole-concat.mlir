// RUN: dtensor-opt %s --dtensor-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: dtensor-opt %s --dtensor-compile --dtensor-comm-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: dtensor-run %s --all-entries --verify --pipeline dtensor-compile --quiet | FileCheck %s --check-prefix=RAN

// torch.stack of six element-wise results of a row-sharded input, returned
// replicated (found by probing: one all_gather per stacked operand, 6 where
// DTensor makes 1). The whole-function model enumerates each op's operand
// states per mesh dim only through what its rule reads of them (factorView:
// Partials, windowed shards), so a concat of many operands, each S(0) or R,
// is one combination, not 2^6 (which exceeded the model's limit and left
// the function to the plan). The model gathers the input once and computes
// the rest replicated: one all_gather of 320 bytes per rank.

dtensor.mesh @mesh shape = [4] names = ["tp"]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @stack6(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x10xf32, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<6x8x10xf32> {
  %e = tensor.empty() : tensor<8x10xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x10xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e : tensor<8x10xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  } -> tensor<8x10xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x10xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e : tensor<8x10xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<8x10xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x10xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e : tensor<8x10xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.absf %v : f32
    linalg.yield %r : f32
  } -> tensor<8x10xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x10xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e : tensor<8x10xf32>) {
  ^bb0(%v: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %r = arith.mulf %v, %two : f32
    linalg.yield %r : f32
  } -> tensor<8x10xf32>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x10xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e : tensor<8x10xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.sin %v : f32
    linalg.yield %r : f32
  } -> tensor<8x10xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x10xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e : tensor<8x10xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.cos %v : f32
    linalg.yield %r : f32
  } -> tensor<8x10xf32>
  %cat = tensor.concat dim(0) %a, %b, %c, %d, %f, %g : (tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>) -> tensor<48x10xf32>
  %s = tensor.expand_shape %cat [[0, 1], [2]] output_shape [6, 8, 10] : tensor<48x10xf32> into tensor<6x8x10xf32>
  return %s : tensor<6x8x10xf32>
}

// EXPLAIN: dtensor-propagate: @stack6: whole-function optimization ({{[0-9]+}} ops, {{[0-9]+}} strategies, proven optimal in {{[0-9.]+}} s): modeled {{.*}} us, 320 bytes/rank; the plan {{.*}} us, 1920 bytes/rank{{.*}}: kept the solution
// REPORT: func @stack6: 1 collective, 320 bytes/rank
// REPORT-NEXT: all_gather 1 320 bytes
// RAN: verified 1 of 1 function(s)
