// RUN: dtensor-run %s --all-entries --verify --quiet | FileCheck %s
// Annotated global programs with compute ops, partitioned by
// --dtensor-partition --dtensor-lower-redistribute and checked on every rank against the global program.

// CHECK: verified 6 of 6 function(s)

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#id = affine_map<(d0, d1) -> (d0, d1)>

// Megatron MLP: column-parallel, gelu (tanh form), row-parallel, reduced once.
func.func @mlp(%m: !dtensor.device_mesh<@mesh>,
               %x: tensor<6x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
               %w1: tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
               %w2: tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>)
    -> tensor<6x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<6x16xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<6x16xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) -> tensor<6x16xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %h = linalg.matmul ins(%x, %w1 : tensor<6x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z1 : tensor<6x16xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) -> tensor<6x16xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<6x16xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e1 : tensor<6x16xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    %r = arith.mulf %v, %t : f32
    linalg.yield %r : f32
  } -> tensor<6x16xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %e2 = tensor.empty() : tensor<6x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<6x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>) -> tensor<6x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>
  %y = linalg.matmul ins(%g, %w2 : tensor<6x16xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z2 : tensor<6x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>) -> tensor<6x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>
  %r = dtensor.redistribute %y, %m : tensor<6x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<6x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<6x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// Uneven rows (7 over dp: 4 | 3) through element-wise ops and a matmul.
func.func @uneven(%m: !dtensor.device_mesh<@mesh>,
                  %x: tensor<7x4xf32, #dtensor.spec<@mesh, [S(0), R]>>,
                  %w: tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>>)
    -> tensor<7x4xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %a = arith.addf %x, %x : tensor<7x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %e = tensor.empty() : tensor<7x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<7x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<7x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %y = linalg.matmul ins(%a, %w : tensor<7x4xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%z : tensor<7x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<7x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %t = math.tanh %y : tensor<7x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %t : tensor<7x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// An index-dependent body on uneven shards: every element gets its global
// row index added, so each rank needs its rows' global offsets.
func.func @with_index(%m: !dtensor.device_mesh<@mesh>,
                      %x: tensor<9x3xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>)
    -> tensor<9x3xf32, #dtensor.spec<@mesh, [S(0), S(0)]>> {
  %e = tensor.empty() : tensor<9x3xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<9x3xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>) outs(%e : tensor<9x3xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.constant 10 : index
    %ik = arith.muli %i, %k : index
    %s = arith.addi %ik, %j : index
    %s64 = arith.index_cast %s : index to i64
    %f = arith.sitofp %s64 : i64 to f32
    %r = arith.addf %v, %f : f32
    linalg.yield %r : f32
  } -> tensor<9x3xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>
  return %g : tensor<9x3xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>
}

// A row sum over a sharded dim stays Partial across an add and is reduced
// once, straight into row shards (reduce_scatter).
func.func @partial_chain(%m: !dtensor.device_mesh<@mesh>,
                         %x: tensor<8x6xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
                         %y: tensor<8x6xf32, #dtensor.spec<@mesh, [R, S(1)]>>)
    -> tensor<8xf32, #dtensor.spec<@mesh, [R, S(0)]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) -> tensor<8xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
  %a = linalg.reduce ins(%x : tensor<8x6xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z : tensor<8xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %b = linalg.reduce ins(%y : tensor<8x6xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z : tensor<8xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %c = arith.addf %a, %b : tensor<8xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
  %r = dtensor.redistribute %c, %m : tensor<8xf32, #dtensor.spec<@mesh, [R, P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  return %r : tensor<8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
}

// dp x tp: batch-sharded MLP; forward collectives only over tp.
func.func @dp_tp(%m: !dtensor.device_mesh<@mesh>,
                 %x: tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
                 %w1: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
                 %w2: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %h = linalg.matmul ins(%x, %w1 : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z1 : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %e2 = tensor.empty() : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>) -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>
  %y = linalg.matmul ins(%h, %w2 : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z2 : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>) -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>
  %r = dtensor.redistribute %y, %m : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// The collectives each function compiles to (static report).
// RUN: dtensor-opt %s --dtensor-partition --dtensor-lower-redistribute --canonicalize --dtensor-comm-report=model=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// REPORT:      func @mlp: 1 collective, 96 bytes/rank
// REPORT-NEXT:   all_reduce      1  96 bytes  mesh @mesh dims ["tp"]
// REPORT-NEXT: func @uneven: no collectives
// REPORT-NEXT: func @with_index: no collectives
// REPORT-NEXT: func @partial_chain: 1 collective, 32 bytes/rank
// REPORT-NEXT:   reduce_scatter  1  32 bytes  mesh @mesh dims ["tp"]
// REPORT-NEXT: func @dp_tp: 1 collective, 64 bytes/rank
// REPORT-NEXT:   all_reduce      1  64 bytes  mesh @mesh dims ["tp"]

// An insert_slice into a destination made by a redistribute: the
// destination is a local value by the time the slice is rebuilt, and the
// whole-dim test must use the global type.
func.func @insert_into_redistributed(%m: !dtensor.device_mesh<@mesh>,
    %d: tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>,
    %y: tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %dd = dtensor.redistribute %d, %m : tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %i = tensor.insert_slice %y into %dd[0, 2] [8, 4] [1, 1] : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>> into tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %i : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}
