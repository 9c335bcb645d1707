// RUN: dtensor-run %s --all-entries --verify --pipeline dtensor-compile --report | FileCheck %s
// RUN: dtensor-opt %s --dtensor-compile | FileCheck %s --check-prefix=IR

// A table read by tensor.extract in a linalg body at a loop's own index
// (`linalg.index k`), where that loop is sharded, needs only the rows of
// this rank's iterations: dtensor-insert-redistribute keeps the table
// sharded as the loop is, and partitioning reads it at the loop's local
// index. Uneven shards, 2-D meshes; the other dims as the lookup needs them.

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#id = affine_map<(i, j) -> (i, j)>

// Rows and columns both line up: no communication.
// CHECK:      verified @both_dims: 1 output(s)
// CHECK-NEXT: communication: 0 collectives, 0 bytes/rank
// IR-LABEL: func.func @both_dims
// IR-NOT:     dtensor.all_gather
// IR:         tensor.extract %arg1[%{{.*}}, %{{.*}}] : tensor<?x?xf32>
func.func @both_dims(%m: !dtensor.device_mesh<@mesh>,
    %t: tensor<5x7xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>,
    %x: tensor<5x7xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>)
    -> tensor<5x7xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> {
  %e = tensor.empty() : tensor<5x7xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<5x7xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<5x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = tensor.extract %t[%i, %j] : tensor<5x7xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
    %s = arith.mulf %a, %v : f32
    linalg.yield %s : f32
  } -> tensor<5x7xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<5x7xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<5x7xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  return %d : tensor<5x7xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
}

// A row per iteration, a column chosen by data (a label's logit): the rows
// stay split over dp, the columns are looked up where they are (masked, one
// all_reduce of the 3-element result over tp), not the 6x8 table gathered.
// CHECK:      verified @row_and_label: 1 output(s)
// CHECK-NEXT: communication: 1 collective, 12 bytes/rank
// CHECK-NEXT:   all_reduce         1         12 bytes  mesh dims ["tp"]
func.func @row_and_label(%m: !dtensor.device_mesh<@mesh>,
    %t: tensor<6x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>,
    %labels: tensor<6xi64, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<6xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %c8 = arith.constant 8 : i64
  %e = tensor.empty() : tensor<6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%labels : tensor<6xi64, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<6xf32>) {
  ^bb0(%l: i64, %o: f32):
    %m0 = arith.remsi %l, %c8 : i64
    %m1 = arith.addi %m0, %c8 : i64
    %m2 = arith.remsi %m1, %c8 : i64
    %col = arith.index_cast %m2 : i64 to index
    %i = linalg.index 0 : index
    %v = tensor.extract %t[%i, %col] : tensor<6x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
    linalg.yield %v : f32
  } -> tensor<6xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<6xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<6xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<6xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// The loop runs over dp, the table's rows are split over tp: the table
// moves to rows over dp (gathered over tp, each dp rank keeping its rows)
// and is read at the local index.
// CHECK:      verified @misaligned: 1 output(s)
// CHECK-NEXT: communication: 1 collective, 168 bytes/rank
// CHECK-NEXT:   all_gather         1        168 bytes  mesh dims ["tp"]
func.func @misaligned(%m: !dtensor.device_mesh<@mesh>,
    %t: tensor<5x7xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
    %x: tensor<5x7xf32, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<5x7xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %e = tensor.empty() : tensor<5x7xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<5x7xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<5x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = tensor.extract %t[%i, %j] : tensor<5x7xf32, #dtensor.spec<@mesh, [R, S(0)]>>
    %s = arith.addf %a, %v : f32
    linalg.yield %s : f32
  } -> tensor<5x7xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<5x7xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<5x7xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<5x7xf32, #dtensor.spec<@mesh, [S(0), R]>>
}
