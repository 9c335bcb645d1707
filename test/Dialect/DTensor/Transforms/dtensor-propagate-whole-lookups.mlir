// RUN: dtensor-opt %s --dtensor-propagate="explain=true search-budget=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: dtensor-opt %s --dtensor-propagate="whole-function-ops=0 search-budget=0" | FileCheck %s --check-prefix=PLAN
// RUN: dtensor-opt %s --dtensor-compile --dtensor-comm-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: dtensor-opt %s --dtensor-compile | FileCheck %s
// RUN: dtensor-run %s --all-entries --verify --pipeline dtensor-compile --quiet | FileCheck %s --check-prefix=RAN

// Lookups of plain token ids in a distributed table (found by comparing
// with DTensor's plans for parallelize_module). The lookup reads nothing
// distributed as an operand; it is decided on its table's view. On its own
// it reads the table whole (gathered), as before: reading each rank's own
// part leaves its result sharded or Partial, which its users pay for later
// (PLAN). The whole-function model prices each of its choices' table reads
// against those later uses (EXPLAIN) and finds DTensor's plans (REPORT).

dtensor.mesh @mesh shape = [4]

// Embedding ColwiseParallel (the table's hidden dim sharded) then a head
// RowwiseParallel (its weight sharded on the hidden dim), returned
// replicated. Each rank reads its own columns and the head's Partial sum
// is all-reduced once (DTensor: 1 all_reduce), instead of gathering the
// table and the head's weight (2 all_gathers, 16.8 us by our model).
func.func @colwise_emb_rowwise_head(%mesh: !dtensor.device_mesh<@mesh>, %table: tensor<32x16xf32, #dtensor.spec<@mesh, [S(1)]>>, %w: tensor<32x16xf32, #dtensor.spec<@mesh, [S(1)]>>, %ids: tensor<2x8xi64>) -> tensor<2x8x32xf32> {
  %e = tensor.empty() : tensor<2x8x16xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<2x8xi64>) outs(%e : tensor<2x8x16xf32>) {
  ^bb0(%id: i64, %o: f32):
    %n = arith.constant 32 : i64
    %in = arith.remui %id, %n : i64
    %row = arith.index_cast %in : i64 to index
    %col = linalg.index 2 : index
    %v = tensor.extract %table[%row, %col] : tensor<32x16xf32, #dtensor.spec<@mesh, [S(1)]>>
    linalg.yield %v : f32
  } -> tensor<2x8x16xf32>
  %et = tensor.empty() : tensor<16x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x16xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%et : tensor<16x32xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %eo = tensor.empty() : tensor<2x8x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wt : tensor<2x8x16xf32>, tensor<16x32xf32>) outs(%acc : tensor<2x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x32xf32>
  return %y : tensor<2x8x32xf32>
}

// A vocabulary-parallel table (rows sharded, RowwiseParallel on
// nn.Embedding) looked up, then squared: the masked lookup (each rank
// its own rows, the rest 0: a Partial sum) all-reduces the 1,024 looked-up
// bytes where gathering the table moves 4,096.
func.func @vocab_parallel(%mesh: !dtensor.device_mesh<@mesh>, %table: tensor<64x16xf32, #dtensor.spec<@mesh, [S(0)]>>, %ids: tensor<2x8xi64>) -> tensor<2x8x16xf32> {
  %e = tensor.empty() : tensor<2x8x16xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<2x8xi64>) outs(%e : tensor<2x8x16xf32>) {
  ^bb0(%id: i64, %o: f32):
    %n = arith.constant 64 : i64
    %in = arith.remui %id, %n : i64
    %row = arith.index_cast %in : i64 to index
    %col = linalg.index 2 : index
    %v = tensor.extract %table[%row, %col] : tensor<64x16xf32, #dtensor.spec<@mesh, [S(0)]>>
    linalg.yield %v : f32
  } -> tensor<2x8x16xf32>
  %e2 = tensor.empty() : tensor<2x8x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x8x16xf32>) outs(%e2 : tensor<2x8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

// EXPLAIN: @colwise_emb_rowwise_head: whole-function optimization ({{.*}}): modeled 1.02{{.*}} us, 2048 bytes/rank; the plan 1.68{{.*}} us, 4096 bytes/rank: kept the solution

// PLAN-LABEL: func.func @colwise_emb_rowwise_head
// PLAN: tensor.extract
// PLAN: dtensor.result_specs = [#dtensor.spec<@mesh, [R]>]
// PLAN-LABEL: func.func @vocab_parallel
// PLAN: tensor.extract
// PLAN: dtensor.result_specs = [#dtensor.spec<@mesh, [R]>]

// REPORT: func @colwise_emb_rowwise_head: 1 collective, 2048 bytes/rank
// REPORT-NEXT: all_reduce 1 2048 bytes
// REPORT: func @vocab_parallel: 1 collective, 1024 bytes/rank
// REPORT-NEXT: all_reduce 1 1024 bytes

// CHECK-LABEL: func.func @colwise_emb_rowwise_head
// CHECK-NOT: dtensor.all_gather
// CHECK: tensor.extract %{{.*}} : tensor<32x4xf32>
// CHECK-NOT: dtensor.all_gather
// CHECK: dtensor.all_reduce
// CHECK-LABEL: func.func @vocab_parallel
// CHECK-NOT: dtensor.all_gather
// CHECK: tensor.extract %{{.*}} : tensor<16x16xf32>
// CHECK: dtensor.all_reduce

// RAN: verified 2 of 2 function(s)
