// RUN: dtensor-opt %s --dtensor-partition --dtensor-lower-redistribute --canonicalize --cse | FileCheck %s
// RUN: dtensor-opt %s --dtensor-partition --dtensor-lower-redistribute | FileCheck %s --check-prefix=RAW
// RUN: dtensor-opt %s --dtensor-partition --dtensor-lower-redistribute --dtensor-comm-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// The report of the lowered program counts what the planner planned
// (dtensor-plan redistribute --mesh 2x2 --shape 9x4 --from '[S(0), S(0)]'
// --to '[R, S(0)]': 2 all_gathers, 96 + 160 bytes; 7x5 P(sum) -> S(0): 160).
// REPORT: func @swap: 2 collectives, 256 bytes/rank
// REPORT: func @uneven_gather: 2 collectives, 256 bytes/rank
// REPORT: func @uneven_reduce_scatter: 1 collective, 160 bytes/rank
// REPORT: func @to_partial: no collectives

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]
dtensor.mesh @cube shape = [2, 2, 2]

// The issue's example: DTensor's plan, one all_gather and one all_to_all,
// then this rank's chunk. Types become local shard types.
// CHECK-LABEL: func.func @swap
// CHECK-SAME:    (%[[M:.*]]: !dtensor.device_mesh<@mesh>, %[[L:.*]]: tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK:         %[[G:.*]] = dtensor.all_gather %[[L]], %[[M]] mesh_dims = [0] gather_dim = 0 : tensor<4x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x4xf32>
// CHECK:         %[[A:.*]] = dtensor.all_to_all %[[G]], %[[M]] mesh_dims = [1] split_dim = 0 concat_dim = 1 : tensor<8x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32>
// CHECK:         %[[C:.*]] = dtensor.mesh_coord %[[M]] mesh_dims = [0]
// CHECK:         %[[MUL:.*]] = arith.muli %[[C]], %{{.*}}
// CHECK:         %[[OFF:.*]] = arith.minsi %[[MUL]], %{{.*}}
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[A]][0, %[[OFF]]] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
// CHECK:         return %[[S]] : tensor<4x4xf32>
// CHECK-NOT:     dtensor.spec
func.func @swap(%m: !dtensor.device_mesh<@mesh>, %l: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %d = dtensor.from_local %l, %m : tensor<4x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %r = dtensor.redistribute %d, %m : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(1), S(0)]>>
  %o = dtensor.to_local %r : tensor<8x8xf32, #dtensor.spec<@mesh, [S(1), S(0)]>> -> tensor<4x4xf32>
  return %o : tensor<4x4xf32>
}

// Even nested shards gather in one collective over the flattened group.
// CHECK-LABEL: func.func @merged_gather
// CHECK-SAME:    tensor<2x4xf32> {dtensor.global = tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>}) -> tensor<8x4xf32>
// CHECK:         dtensor.all_gather %{{.*}}, %{{.*}} mesh_dims = [0, 1] gather_dim = 0 : tensor<2x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x4xf32>
// CHECK-NOT:     dtensor.all_gather
func.func @merged_gather(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>) -> tensor<8x4xf32> {
  %f = dtensor.full_tensor %x, %m : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>, !dtensor.device_mesh<@mesh> -> tensor<8x4xf32>
  return %f : tensor<8x4xf32>
}

// A non-default order gathers in its own order.
// CHECK-LABEL: func.func @ordered_gather
// CHECK:         dtensor.all_gather %{{.*}}, %{{.*}} mesh_dims = [1, 0] gather_dim = 0
func.func @ordered_gather(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x4xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>) -> tensor<8x4xf32> {
  %f = dtensor.full_tensor %x, %m : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>, !dtensor.device_mesh<@mesh> -> tensor<8x4xf32>
  return %f : tensor<8x4xf32>
}

// Uneven: 9 rows as [S(0), S(0)] are 3,2 | 2,2 (parent 5 | 4). Each shard is
// padded to the largest piece (3) and gathered; on a rank whose parent is 4
// the pieces are 2 long, so the slots are viewed as 2x3, cut to their chunk
// size, joined and cut to the parent's length; then the same over "dp" (5 | 4
// padded to 5), where full chunks fill their slots: one slice. The ops do
// not grow with the number of ranks.
// CHECK-LABEL: func.func @uneven_gather
// CHECK-SAME:    tensor<?x4xf32> {dtensor.global = tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>})
// CHECK-SAME:    -> (tensor<?x4xf32> {dtensor.global = tensor<9x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>})
// CHECK:         %[[PAD:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [%{{.*}}, 4] [1, 1] : tensor<?x4xf32> into tensor<3x4xf32>
// CHECK:         %[[G1:.*]] = dtensor.all_gather %[[PAD]], %{{.*}} mesh_dims = [1] gather_dim = 0 : tensor<3x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<6x4xf32>
// CHECK:         %[[FULL:.*]] = arith.ceildivsi %[[PARENT:.*]], %c2 : index
// CHECK:         %[[GRID:.*]] = tensor.expand_shape %[[G1]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
// CHECK:         %[[CUT:.*]] = tensor.extract_slice %[[GRID]][0, 0, 0] [2, %[[FULL]], 4] [1, 1, 1] : tensor<2x3x4xf32> to tensor<2x?x4xf32>
// CHECK:         %[[JOIN:.*]] = tensor.collapse_shape %[[CUT]] {{\[\[}}0, 1], [2]] : tensor<2x?x4xf32> into tensor<?x4xf32>
// CHECK:         tensor.extract_slice %[[JOIN]][0, 0] [%[[PARENT]], 4] [1, 1]
// CHECK:         %[[G2:.*]] = dtensor.all_gather %{{.*}}, %{{.*}} mesh_dims = [0] gather_dim = 0 : tensor<5x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<10x4xf32>
// CHECK:         tensor.extract_slice %[[G2]][0, 0] [9, 4]
// CHECK-NOT:     dtensor.all_gather
func.func @uneven_gather(%m: !dtensor.device_mesh<@mesh>, %x: tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>) -> tensor<9x4xf32, #dtensor.spec<@mesh, [R, S(0)]>> {
  %r = dtensor.redistribute %x, %m : tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>, !dtensor.device_mesh<@mesh> -> tensor<9x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  return %r : tensor<9x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>
}

// Partial sums to uneven rows (7 over 2: 4 | 3): chunks placed at multiples
// of 4 (here the whole 7 rows at 0: full chunks fill their slots), one
// reduce_scatter, this rank's real rows kept.
// CHECK-LABEL: func.func @uneven_reduce_scatter
// CHECK-SAME:    tensor<7x5xf32> {dtensor.global = tensor<7x5xf32, #dtensor.spec<@mesh, [P(sum), R]>>})
// CHECK-SAME:    -> (tensor<?x5xf32> {dtensor.global = tensor<7x5xf32, #dtensor.spec<@mesh, [S(0), R]>>})
// CHECK:         tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [7, 5] [1, 1] : tensor<7x5xf32> into tensor<8x5xf32>
// CHECK:         %[[RS:.*]] = dtensor.reduce_scatter %{{.*}}, %{{.*}} mesh_dims = [0] scatter_dim = 0 reduce = sum : tensor<8x5xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x5xf32>
// CHECK:         tensor.extract_slice %[[RS]][0, 0] [%{{.*}}, 5] [1, 1] : tensor<4x5xf32> to tensor<?x5xf32>
func.func @uneven_reduce_scatter(%m: !dtensor.device_mesh<@mesh>, %x: tensor<7x5xf32, #dtensor.spec<@mesh, [P(sum), R]>>) -> tensor<7x5xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %r = dtensor.redistribute %x, %m : tensor<7x5xf32, #dtensor.spec<@mesh, [P(sum), R]>>, !dtensor.device_mesh<@mesh> -> tensor<7x5xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<7x5xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// Partial sums over both mesh dims to even rows: one reduce_scatter over the
// flattened group; to replicated: one all_reduce; max stays max.
// CHECK-LABEL: func.func @merged_partials
// CHECK:         dtensor.reduce_scatter %{{.*}}, %{{.*}} mesh_dims = [0, 1] scatter_dim = 0 reduce = sum : tensor<8x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x4xf32>
// CHECK:         dtensor.all_reduce %{{.*}}, %{{.*}} mesh_dims = [0, 1] reduce = max : tensor<8x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x4xf32>
func.func @merged_partials(%m: !dtensor.device_mesh<@mesh>,
                           %x: tensor<8x4xf32, #dtensor.spec<@mesh, [P(sum), P(sum)]>>,
                           %y: tensor<8x4xf32, #dtensor.spec<@mesh, [P(max), P(max)]>>)
    -> (tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>, tensor<8x4xf32>) {
  %r = dtensor.redistribute %x, %m : tensor<8x4xf32, #dtensor.spec<@mesh, [P(sum), P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>
  %f = dtensor.full_tensor %y, %m : tensor<8x4xf32, #dtensor.spec<@mesh, [P(max), P(max)]>>, !dtensor.device_mesh<@mesh> -> tensor<8x4xf32>
  return %r, %f : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>, tensor<8x4xf32>
}

// Uneven all_to_all: rows 5 (3 | 2) to columns 3 (2 | 1).
// CHECK-LABEL: func.func @uneven_all_to_all
// CHECK-SAME:    tensor<?x3xf32> {{{.*}}}) -> (tensor<5x?xf32> {{{.*}}})
// CHECK:         dtensor.all_to_all %{{.*}}, %{{.*}} mesh_dims = [0] split_dim = 1 concat_dim = 0 : tensor<3x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<6x2xf32>
func.func @uneven_all_to_all(%m: !dtensor.device_mesh<@mesh>, %x: tensor<5x3xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<5x3xf32, #dtensor.spec<@mesh, [S(1), R]>> {
  %r = dtensor.redistribute %x, %m : tensor<5x3xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh> -> tensor<5x3xf32, #dtensor.spec<@mesh, [S(1), R]>>
  return %r : tensor<5x3xf32, #dtensor.spec<@mesh, [S(1), R]>>
}

// R -> P(sum) divides by the group size; R -> P(max) changes nothing.
// CHECK-LABEL: func.func @to_partial
// CHECK:         %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<8x8xf32>
// CHECK:         %[[D:.*]] = arith.divf %{{.*}}, %[[TWO]] : tensor<8x8xf32>
// CHECK:         return %[[D]], %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>
func.func @to_partial(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>)
    -> (tensor<8x8xf32, #dtensor.spec<@mesh, [P(sum), R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, P(max)]>>) {
  %s = dtensor.redistribute %x, %m : tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [P(sum), R]>>
  %x2 = dtensor.redistribute %x, %m : tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, P(max)]>>
  return %s, %x2 : tensor<8x8xf32, #dtensor.spec<@mesh, [P(sum), R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, P(max)]>>
}

// distribute_tensor from group rank 1 on both dims (rank 3): one broadcast,
// then this rank's rows; from_local with run_check broadcasts replicated
// dims from group rank 0.
// CHECK-LABEL: func.func @distribute
// CHECK:         %[[B:.*]] = dtensor.broadcast %{{.*}}, %{{.*}} mesh_dims = [0, 1] root = 3 : tensor<9x4xf32>
// CHECK:         tensor.extract_slice %[[B]][%{{.*}}, 0] [%{{.*}}, 4] [1, 1] : tensor<9x4xf32> to tensor<?x4xf32>
// CHECK:         dtensor.broadcast %{{.*}}, %{{.*}} mesh_dims = [1] root = 0 : tensor<?x4xf32>
func.func @distribute(%m: !dtensor.device_mesh<@mesh>, %t: tensor<9x4xf32>, %l: tensor<?x4xf32>)
    -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %d = dtensor.distribute_tensor %t, %m src_rank = 1 : tensor<9x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %a = dtensor.to_local %d : tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>> -> tensor<?x4xf32>
  %w = dtensor.from_local %l, %m run_check : tensor<?x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %b = dtensor.to_local %w : tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>> -> tensor<?x4xf32>
  return %a, %b : tensor<?x4xf32>, tensor<?x4xf32>
}

// Without a source rank, each rank keeps its own chunk: no collective.
// CHECK-LABEL: func.func @distribute_local
// CHECK-NOT:     dtensor.broadcast
// CHECK:         tensor.extract_slice
func.func @distribute_local(%m: !dtensor.device_mesh<@mesh>, %t: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %d = dtensor.distribute_tensor %t, %m : tensor<8x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %a = dtensor.to_local %d : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>> -> tensor<4x4xf32>
  return %a : tensor<4x4xf32>
}

// Calls and sub-mesh views: the callee's signature is converted too, and a
// collective on the "tp" view uses mesh dim 1 of @mesh.
// CHECK-LABEL: func.func @callee
// CHECK-SAME:    (%{{.*}}: !dtensor.device_mesh<@mesh[1]>, %{{.*}}: tensor<4x8xf32> {dtensor.global = tensor<8x8xf32, #dtensor.spec<@mesh[1], [S(0)]>>}) -> tensor<8x8xf32>
// CHECK:         dtensor.all_gather %{{.*}}, %{{.*}} mesh_dims = [1] gather_dim = 0 : tensor<4x8xf32>, !dtensor.device_mesh<@mesh[1]> -> tensor<8x8xf32>
// CHECK-LABEL: func.func @caller
// CHECK:         call @callee(%{{.*}}, %{{.*}}) : (!dtensor.device_mesh<@mesh[1]>, tensor<4x8xf32>) -> tensor<8x8xf32>
func.func @callee(%tp: !dtensor.device_mesh<@mesh[1]>, %x: tensor<8x8xf32, #dtensor.spec<@mesh[1], [S(0)]>>) -> tensor<8x8xf32> {
  %f = dtensor.full_tensor %x, %tp : tensor<8x8xf32, #dtensor.spec<@mesh[1], [S(0)]>>, !dtensor.device_mesh<@mesh[1]> -> tensor<8x8xf32>
  return %f : tensor<8x8xf32>
}
func.func @caller(%tp: !dtensor.device_mesh<@mesh[1]>, %x: tensor<8x8xf32, #dtensor.spec<@mesh[1], [S(0)]>>) -> tensor<8x8xf32> {
  %r = call @callee(%tp, %x) : (!dtensor.device_mesh<@mesh[1]>, tensor<8x8xf32, #dtensor.spec<@mesh[1], [S(0)]>>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// A 3-D mesh: the planner's merged all_reduce over two Partial dims.
// CHECK-LABEL: func.func @on_cube
// CHECK:         dtensor.all_reduce %{{.*}}, %{{.*}} mesh_dims = [1, 2] reduce = avg : tensor<4x8xf32>, !dtensor.device_mesh<@cube> -> tensor<4x8xf32>
func.func @on_cube(%c: !dtensor.device_mesh<@cube>, %x: tensor<8x8xf32, #dtensor.spec<@cube, [S(0), P(avg), P(avg)]>>) -> tensor<8x8xf32, #dtensor.spec<@cube, [S(0), R, R]>> {
  %r = dtensor.redistribute %x, %c : tensor<8x8xf32, #dtensor.spec<@cube, [S(0), P(avg), P(avg)]>>, !dtensor.device_mesh<@cube> -> tensor<8x8xf32, #dtensor.spec<@cube, [S(0), R, R]>>
  return %r : tensor<8x8xf32, #dtensor.spec<@cube, [S(0), R, R]>>
}

// Without cleanups the pass leaves no global-view type behind (the
// signatures' dtensor.global attributes name them, as `= tensor<...>`).
// RAW-NOT: {{[^=] tensor<[^>]*#dtensor.spec}}

// A 3-tap stencil (a window loop k reads `i + k`) with its loop sharded on
// "tp": 14 outputs are 7 | 7 and the 16 inputs 8 | 8, so rank 0 needs one
// element from rank 1 and rank 1 one from rank 0. Each rank builds a window
// of 9 from its shard and one dtensor.permute per shift, and the local loop
// reads it at the global index's form (`d0 + d1`).
// CHECK-LABEL: func.func @halo_stencil
// CHECK-SAME:    (%[[M:.*]]: !dtensor.device_mesh<@mesh>, %[[A:[^:]*]]: tensor<8xf32> {{{.*}}}, %[[W:[^:]*]]: tensor<3xf32> {{{.*}}})
// CHECK:         %[[OWN:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}] [%{{.*}}] [1] : tensor<?xf32> into tensor<9xf32>
// CHECK:         %[[LEFT:.*]] = dtensor.permute %{{.*}}, %[[M]] mesh_dims = [1] source_target_pairs = [0, 1] : tensor<1xf32>, !dtensor.device_mesh<@mesh> -> tensor<1xf32>
// CHECK:         %[[RIGHT:.*]] = dtensor.permute %{{.*}}, %[[M]] mesh_dims = [1] source_target_pairs = [1, 0] : tensor<1xf32>, !dtensor.device_mesh<@mesh> -> tensor<1xf32>
// CHECK:         %[[WIN:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}] [%{{.*}}] [1] : tensor<?xf32> into tensor<9xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[$WINDOW:.*]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "reduction"]} ins(%[[WIN]], %[[W]] : tensor<9xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<7xf32>)
// CHECK-NOT:     dtensor.all_gather
// CHECK:         return
// REPORT-LABEL:  func @halo_stencil: 2 collectives, 8 bytes/rank
// REPORT-NEXT:   permute 2 8 bytes mesh @mesh dims ["tp"]
func.func @halo_stencil(%m: !dtensor.device_mesh<@mesh>, %a: tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                        %w: tensor<3xf32, #dtensor.spec<@mesh, [R, R]>>) -> tensor<14xf32, #dtensor.spec<@mesh, [R, S(0)]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<14xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<14xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> tensor<14xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i + k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a, %w : tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>, tensor<3xf32, #dtensor.spec<@mesh, [R, R]>>)
      outs(%z : tensor<14xf32, #dtensor.spec<@mesh, [R, S(0)]>>) {
  ^bb0(%x: f32, %k: f32, %y: f32):
    %v = arith.mulf %x, %k : f32
    %s = arith.addf %v, %y : f32
    linalg.yield %s : f32
  } -> tensor<14xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  return %r : tensor<14xf32, #dtensor.spec<@mesh, [R, S(0)]>>
}

// A masked lookup: the table's rows are split over tp and read at a computed
// index, the result is P(sum) over tp from whole ids. Each rank reads the
// rows it holds (the index less its shard's offset, clamped to its first row
// where it falls outside) and yields zero where it does not hold them; no
// collective.
// CHECK-LABEL: func.func @masked_lookup
// CHECK-SAME:    (%[[M:.*]]: !dtensor.device_mesh<@mesh>, %[[T:[^:]*]]: tensor<4x4xf32> {{{.*}}}, %[[I:[^:]*]]: tensor<6xi64> {{{.*}}})
// CHECK:         %[[C:.*]] = dtensor.mesh_coord %[[M]] mesh_dims = [1]
// CHECK:         linalg.generic
// CHECK:           %[[L:.*]] = arith.subi
// CHECK:           %[[GE:.*]] = arith.cmpi sge, %[[L]]
// CHECK:           %[[LT:.*]] = arith.cmpi slt, %[[L]]
// CHECK:           %[[IN:.*]] = arith.andi %[[GE]], %[[LT]]
// CHECK:           %[[ROW:.*]] = arith.select %[[IN]], %[[L]]
// CHECK:           %[[V:.*]] = tensor.extract %[[T]][%[[ROW]], %{{.*}}] : tensor<4x4xf32>
// CHECK:           %[[Y:.*]] = arith.select %[[IN]], %[[V]]
// CHECK:           linalg.yield %[[Y]]
// CHECK:         } -> tensor<6x4xf32>
// CHECK-NOT:     dtensor.all_gather
// CHECK:         return
func.func @masked_lookup(%m: !dtensor.device_mesh<@mesh>, %table: tensor<8x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                         %ids: tensor<6xi64, #dtensor.spec<@mesh, [R, R]>>) -> tensor<6x4xf32, #dtensor.spec<@mesh, [R, P(sum)]>> {
  %e = tensor.empty() : tensor<6x4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<6xi64, #dtensor.spec<@mesh, [R, R]>>) outs(%e : tensor<6x4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) {
  ^bb0(%id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<8x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>
    linalg.yield %v : f32
  } -> tensor<6x4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
  return %r : tensor<6x4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
}

// A pad read only through the window of its reader is fetched from the
// pad's source: the window holds the padding where the source ends, so the
// pad and the stencil make one exchange (one element from each neighbour)
// and the pad is gone. A pad with another user is partitioned on its own.
// CHECK-LABEL: func.func @pad_fused
// CHECK-NOT:     tensor.pad
// CHECK:         dtensor.permute %{{.*}} source_target_pairs = [0, 1] : tensor<1xf32>
// CHECK:         dtensor.permute %{{.*}} source_target_pairs = [1, 0] : tensor<1xf32>
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<10xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK:         return
// REPORT-LABEL:  func @pad_fused: 2 collectives, 8 bytes/rank
// CHECK-LABEL: func.func @pad_shared
// CHECK:         linalg.generic
// CHECK:         return %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<9xf32>
func.func @pad_fused(%m: !dtensor.device_mesh<@mesh>, %a: tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                     %w: tensor<3xf32, #dtensor.spec<@mesh, [R, R]>>) -> tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>> to tensor<18xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  %e = tensor.empty() : tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i + k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%p, %w : tensor<18xf32, #dtensor.spec<@mesh, [R, S(0)]>>, tensor<3xf32, #dtensor.spec<@mesh, [R, R]>>)
      outs(%z : tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>) {
  ^bb0(%x: f32, %k: f32, %y: f32):
    %v = arith.mulf %x, %k : f32
    %s = arith.addf %v, %y : f32
    linalg.yield %s : f32
  } -> tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  return %r : tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>
}

func.func @pad_shared(%m: !dtensor.device_mesh<@mesh>, %a: tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                      %w: tensor<3xf32, #dtensor.spec<@mesh, [R, R]>>)
    -> (tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>, tensor<18xf32, #dtensor.spec<@mesh, [R, S(0)]>>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>> to tensor<18xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  %e = tensor.empty() : tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i + k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%p, %w : tensor<18xf32, #dtensor.spec<@mesh, [R, S(0)]>>, tensor<3xf32, #dtensor.spec<@mesh, [R, R]>>)
      outs(%z : tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>) {
  ^bb0(%x: f32, %k: f32, %y: f32):
    %v = arith.mulf %x, %k : f32
    %s = arith.addf %v, %y : f32
    linalg.yield %s : f32
  } -> tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  return %r, %p : tensor<16xf32, #dtensor.spec<@mesh, [R, S(0)]>>, tensor<18xf32, #dtensor.spec<@mesh, [R, S(0)]>>
}

// An integer product's fill of 1 (or 0) is each rank's share exactly, as a
// float's is: every rank fills it (it was rejected as an n-th root).
dtensor.mesh @mesh2x2 shape = [2, 2]
// CHECK-LABEL: func.func @product_fill_int_one(
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: linalg.fill ins(%[[ONE]] : i64) outs({{.*}} : tensor<4xi64>) -> tensor<4xi64>
func.func @product_fill_int_one(%m: !dtensor.device_mesh<@mesh2x2>) -> tensor<4xi64, #dtensor.spec<@mesh2x2, [R, P(product)]>> {
  %one = arith.constant 1 : i64
  %e = tensor.empty() : tensor<4xi64, #dtensor.spec<@mesh2x2, [R, P(product)]>>
  %f = linalg.fill ins(%one : i64) outs(%e : tensor<4xi64, #dtensor.spec<@mesh2x2, [R, P(product)]>>) -> tensor<4xi64, #dtensor.spec<@mesh2x2, [R, P(product)]>>
  return %f : tensor<4xi64, #dtensor.spec<@mesh2x2, [R, P(product)]>>
}

// A compute op whose operands shard a loop in one non-default order (mesh
// dim 1, then 0: DTensor's _StridedShard) is partitioned in it: each rank
// computes the piece it holds, no reordering (this was an error, "default
// order only"). The index of its sharded loop is offset by the rank's piece
// in that order.
// CHECK-LABEL: func.func @other_order
// CHECK-SAME:    (%{{.*}}: !dtensor.device_mesh<@mesh>, %{{.*}}: tensor<4xf32> {dtensor.global = tensor<16xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>}
// CHECK:         %[[OUTER:.*]] = dtensor.mesh_coord %{{.*}} mesh_dims = [1]
// CHECK:         %[[INNER:.*]] = dtensor.mesh_coord %{{.*}} mesh_dims = [0]
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:           linalg.index 0
// CHECK-NOT:     dtensor.all_gather
#other_order_id = affine_map<(d0) -> (d0)>
func.func @other_order(%m: !dtensor.device_mesh<@mesh>, %a: tensor<16xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>, %o: tensor<16xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>) -> tensor<16xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>> {
  %r = linalg.generic {indexing_maps = [#other_order_id, #other_order_id], iterator_types = ["parallel"]} ins(%a : tensor<16xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>) outs(%o : tensor<16xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>) {
  ^bb0(%x: f32, %y: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %s = arith.addf %x, %f : f32
    linalg.yield %s : f32
  } -> tensor<16xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>
  return %r : tensor<16xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>
}
