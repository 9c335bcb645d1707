// RUN: dtensor-run %s --all-entries --verify --pipeline dtensor-compile --report | FileCheck %s
// RUN: dtensor-opt %s --dtensor-compile | FileCheck %s --check-prefix=IR
// RUN: dtensor-run %s --entry ids_over_tp --verify --pipeline 'dtensor-compile{narrow=0}' --report | FileCheck %s --check-prefix=WIDE

// A vocab-parallel embedding (the table's rows, the vocabulary, sharded over
// tp; ids split over dp): each rank looks up the ids its rows hold, zeros
// elsewhere, and tp sums them (DTensor's MaskPartial), one all_reduce of the
// 2x8 result instead of gathering the 64x8 table. Checked on every rank.
// When the ids are sharded over tp themselves, each tp rank looks up other
// ids, so the masked form needs the ids whole over tp first: propagation
// prices the table's move with the lookup, and gathers the ids (32 bytes)
// instead of the table (2,048), with or without dtensor-narrow-moves.

// CHECK:      verified @vocab: 1 output(s)
// CHECK-NEXT: communication: 1 collective, 64 bytes/rank
// CHECK-NEXT:   all_reduce         1         64 bytes  mesh dims ["tp"]
// CHECK:      verified @ids_over_tp: 1 output(s)
// CHECK-NEXT: communication: 2 collectives, 96 bytes/rank
// CHECK-NEXT:   all_gather         1         32 bytes  mesh dims ["tp"]
// CHECK-NEXT:   all_reduce         1         64 bytes  mesh dims ["tp"]
// WIDE:      verified @ids_over_tp: 1 output(s)
// WIDE-NEXT: communication: 2 collectives, 96 bytes/rank
// WIDE-NEXT:   all_gather         1         32 bytes  mesh dims ["tp"]
// WIDE-NEXT:   all_reduce         1         64 bytes  mesh dims ["tp"]
// CHECK:      verified @small_table: 1 output(s)
// CHECK-NEXT: communication: 1 collective, 64 bytes/rank
// CHECK-NEXT:   all_gather         1         64 bytes  mesh dims ["tp"]
// CHECK:      verified @scaled: 1 output(s)
// CHECK-NEXT: communication: 1 collective, 64 bytes/rank
// CHECK-NEXT:   all_reduce         1         64 bytes  mesh dims ["tp"]
// CHECK:      verified @uneven: 1 output(s)
// CHECK-NEXT: communication: 1 collective, 64 bytes/rank
// CHECK-NEXT:   all_reduce         1         64 bytes  mesh dims ["tp"]
// CHECK:      verified @empty_shard: 1 output(s)
// CHECK-NEXT: communication: 2 collectives, 768 bytes/rank
// CHECK-NEXT:   all_gather         1        512 bytes  mesh dims ["tp"]
// CHECK-NEXT:   all_reduce         1        256 bytes  mesh dims ["dp"]

// IR-LABEL: func.func @vocab
// IR:         %[[C:.+]] = dtensor.mesh_coord %arg0 mesh_dims = [1]
// IR:         linalg.generic
// IR:           arith.cmpi sge
// IR:           arith.cmpi slt
// IR:           tensor.extract %arg1[
// IR:           arith.select
// IR:         dtensor.all_reduce %{{.*}}, %arg0 mesh_dims = [1] reduce = sum
// IR-NOT:     dtensor.all_gather
// IR-LABEL: func.func @ids_over_tp
// IR:         dtensor.all_gather %arg2
// IR:         dtensor.all_reduce
// IR-NOT:     dtensor.all_gather %arg1
// IR-LABEL: func.func @small_table
// IR-LABEL: func.func @scaled
// IR:         linalg.generic
// IR:           tensor.extract %arg1[
// IR:           arith.mulf
// IR:           arith.addf
// IR:           %[[Y:.+]] = arith.addf
// IR:           arith.select %{{.*}}, %[[Y]], %{{.*}} : f32
// IR:         dtensor.all_reduce

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#ids = affine_map<(i, j) -> (i)>
#out = affine_map<(i, j) -> (i, j)>

func.func @vocab(%m: !dtensor.device_mesh<@mesh>,
                 %table: tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                 %ids: tensor<4xi64, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %c64 = arith.constant 64 : i64
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    // (id mod 64 + 64) mod 64: a row of the table whatever the generated id.
    %m0 = arith.remsi %id, %c64 : i64
    %m1 = arith.addi %m0, %c64 : i64
    %m2 = arith.remsi %m1, %c64 : i64
    %row = arith.index_cast %m2 : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<4x8xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

func.func @ids_over_tp(%m: !dtensor.device_mesh<@mesh>,
                       %table: tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                       %ids: tensor<4xi64, #dtensor.spec<@mesh, [R, S(0)]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %c64 = arith.constant 64 : i64
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %m0 = arith.remsi %id, %c64 : i64
    %m1 = arith.addi %m0, %c64 : i64
    %m2 = arith.remsi %m1, %c64 : i64
    %row = arith.index_cast %m2 : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<4x8xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// A table smaller than twice the result: gathering it is cheaper.
func.func @small_table(%m: !dtensor.device_mesh<@mesh>,
                       %table: tensor<4x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                       %ids: tensor<4xi64, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<4x4xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %c4 = arith.constant 4 : i64
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%id: i64, %o: f32):
    %m0 = arith.remsi %id, %c4 : i64
    %m1 = arith.addi %m0, %c4 : i64
    %m2 = arith.remsi %m1, %c4 : i64
    %row = arith.index_cast %m2 : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<4x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>
    linalg.yield %v : f32
  } -> tensor<4x4xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<4x4xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<4x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// A scaled embedding plus a position row, computed in the lookup's body (as
// an importer's fused embedding * sqrt(d) + positions is): still one
// all_reduce of the result, the select taking what the body yields, so the
// +1 and the positions of ranks without the row do not count.
func.func @scaled(%m: !dtensor.device_mesh<@mesh>,
                  %table: tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                  %pos: tensor<8xf32, #dtensor.spec<@mesh, [R, R]>>,
                  %ids: tensor<4xi64, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %c64 = arith.constant 64 : i64
  %scale = arith.constant 2.828427 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %m0 = arith.remsi %id, %c64 : i64
    %m1 = arith.addi %m0, %c64 : i64
    %m2 = arith.remsi %m1, %c64 : i64
    %row = arith.index_cast %m2 : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
    %s = arith.mulf %v, %scale : f32
    %p = tensor.extract %pos[%col] : tensor<8xf32, #dtensor.spec<@mesh, [R, R]>>
    %a = arith.addf %s, %p : f32
    %b = arith.addf %a, %one : f32
    linalg.yield %b : f32
  } -> tensor<4x8xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<4x8xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// Uneven tables: 63 rows over tp (32 and 31), gathered as padded pieces and
// sliced; the masked lookup reads the rank's padded piece. Then 3 rows over
// dp x tp (1, 1, 1 and an empty shard): the tp gather stays, the dp gather
// is masked, and the rank with no rows reads its (zero) padding, masked.
func.func @uneven(%m: !dtensor.device_mesh<@mesh>,
                 %table: tensor<63x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                 %ids: tensor<4xi64, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %c64 = arith.constant 63 : i64
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    // (id mod 64 + 64) mod 64: a row of the table whatever the generated id.
    %m0 = arith.remsi %id, %c64 : i64
    %m1 = arith.addi %m0, %c64 : i64
    %m2 = arith.remsi %m1, %c64 : i64
    %row = arith.index_cast %m2 : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<63x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<4x8xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}


func.func @empty_shard(%m: !dtensor.device_mesh<@mesh>,
                       %table: tensor<3x64xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>,
                       %ids: tensor<1xi64, #dtensor.spec<@mesh, [R, R]>>)
    -> tensor<1x64xf32, #dtensor.spec<@mesh, [R, R]>> {
  %c3 = arith.constant 3 : i64
  %e = tensor.empty() : tensor<1x64xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<1xi64, #dtensor.spec<@mesh, [R, R]>>) outs(%e : tensor<1x64xf32>) {
  ^bb0(%id: i64, %o: f32):
    %m0 = arith.remsi %id, %c3 : i64
    %m1 = arith.addi %m0, %c3 : i64
    %m2 = arith.remsi %m1, %c3 : i64
    %row = arith.index_cast %m2 : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<3x64xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>
    linalg.yield %v : f32
  } -> tensor<1x64xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<1x64xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<1x64xf32, #dtensor.spec<@mesh, [R, R]>>
  return %d : tensor<1x64xf32, #dtensor.spec<@mesh, [R, R]>>
}

// The looked-up rows wanted split by columns over tp (the table's own mesh
// dim): propagation masks the lookup (the table stays sharded by rows, the
// result is P(sum) over tp) and the sum is scattered by columns, one
// reduce_scatter of the 2x8 result, where lining the table up with the
// columns moved it whole (an all_to_all of 1,024 bytes per rank). Then the
// same on an uneven table (63 rows: 32 and 31), and on a table whose rows
// are split over both mesh dims, masked over both (a P(sum) over dp x tp,
// reduced to the replicated result).
// CHECK:      verified @cols: 1 output(s)
// CHECK-NEXT: communication: 1 collective, 64 bytes/rank
// CHECK-NEXT:   reduce_scatter     1         64 bytes  mesh dims ["tp"]
// CHECK:      verified @cols_uneven: 1 output(s)
// CHECK-NEXT: communication: 1 collective, 64 bytes/rank
// CHECK-NEXT:   reduce_scatter     1         64 bytes  mesh dims ["tp"]
// CHECK:      verified @both_dims: 1 output(s)
// CHECK-NEXT: communication: 1 collective, 128 bytes/rank
// CHECK-NEXT:   all_reduce         1        128 bytes  mesh dims ["dp", "tp"]
// CHECK: verified 9 of 9 function(s)

// IR-LABEL: func.func @cols
// IR-NOT:     dtensor.all_to_all
// IR:         linalg.generic
// IR:           arith.cmpi sge
// IR:           arith.cmpi slt
// IR:           tensor.extract %arg1[
// IR:           arith.select
// IR:         dtensor.reduce_scatter %{{.*}}, %arg0 mesh_dims = [1] scatter_dim = 1 reduce = sum
func.func @cols(%m: !dtensor.device_mesh<@mesh>,
                %table: tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                %ids: tensor<4xi64, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> {
  %c64 = arith.constant 64 : i64
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %m0 = arith.remsi %id, %c64 : i64
    %m1 = arith.addi %m0, %c64 : i64
    %m2 = arith.remsi %m1, %c64 : i64
    %row = arith.index_cast %m2 : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<4x8xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  return %d : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
}

func.func @cols_uneven(%m: !dtensor.device_mesh<@mesh>,
                       %table: tensor<63x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                       %ids: tensor<4xi64, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> {
  %c63 = arith.constant 63 : i64
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %m0 = arith.remsi %id, %c63 : i64
    %m1 = arith.addi %m0, %c63 : i64
    %m2 = arith.remsi %m1, %c63 : i64
    %row = arith.index_cast %m2 : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<63x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<4x8xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  return %d : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
}

func.func @both_dims(%m: !dtensor.device_mesh<@mesh>,
                     %table: tensor<64x8xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>,
                     %ids: tensor<4xi64, #dtensor.spec<@mesh, [R, R]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [R, R]>> {
  %c64 = arith.constant 64 : i64
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64, #dtensor.spec<@mesh, [R, R]>>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %m0 = arith.remsi %id, %c64 : i64
    %m1 = arith.addi %m0, %c64 : i64
    %m2 = arith.remsi %m1, %c64 : i64
    %row = arith.index_cast %m2 : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<64x8xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<4x8xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<4x8xf32, #dtensor.spec<@mesh, [R, R]>>
  return %d : tensor<4x8xf32, #dtensor.spec<@mesh, [R, R]>>
}
