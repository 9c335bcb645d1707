// RUN: dtensor-run %s --all-entries --verify --pipeline dtensor-compile --report | FileCheck %s
// RUN: not dtensor-run %s --entry out_of_range 2>&1 | FileCheck %s --check-prefix=OOB
// A table read by tensor.extract at computed indices inside a linalg body
// (an embedding lookup). Sharded on its rows, it stays so: each rank reads
// the rows it holds, zero elsewhere, and the P(sum) result is scattered to
// the rows wanted (a masked lookup). A body that would divide by the
// looked-up value, or convert it to an integer, cannot be masked: the table is gathered once before the
// op, never inside the body. The interpreter runs tensor.extract in bodies
// and reports reads out of bounds.

// CHECK: verified @lookup:
// CHECK-NEXT: communication: 1 collective, 96 bytes/rank
// CHECK-NEXT: reduce_scatter 1 96 bytes mesh dims [0]
// CHECK: verified @truncates:
// CHECK-NEXT: communication: 1 collective, 128 bytes/rank
// CHECK-NEXT: all_gather 1 128 bytes mesh dims [0]
// CHECK: verified 2 of 2 function(s)

// OOB: error: 'linalg.generic' op reads a tensor out of bounds with tensor.extract in its body

dtensor.mesh @mesh shape = [2]

func.func @lookup(%m: !dtensor.device_mesh<@mesh>, %table: tensor<8x4xf32, #dtensor.spec<@mesh, [S(0)]>>,
                  %ids: tensor<6xi64, #dtensor.spec<@mesh, [R]>>) -> tensor<6x4xf32, #dtensor.spec<@mesh, [S(0)]>> {
  %c8 = arith.constant 8 : i64
  %e = tensor.empty() : tensor<6x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<6xi64, #dtensor.spec<@mesh, [R]>>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%id: i64, %o: f32):
    // (id mod 8 + 8) mod 8: a row of the table whatever the generated id.
    %m0 = arith.remsi %id, %c8 : i64
    %m1 = arith.addi %m0, %c8 : i64
    %m2 = arith.remsi %m1, %c8 : i64
    %row = arith.index_cast %m2 : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0)]>>
    linalg.yield %v : f32
  } -> tensor<6x4xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<6x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<6x4xf32, #dtensor.spec<@mesh, [S(0)]>>
  return %d : tensor<6x4xf32, #dtensor.spec<@mesh, [S(0)]>>
}

func.func @truncates(%m: !dtensor.device_mesh<@mesh>, %table: tensor<8x4xf32, #dtensor.spec<@mesh, [S(0)]>>,
                     %ids: tensor<6xi64, #dtensor.spec<@mesh, [R]>>) -> tensor<6x4xf32, #dtensor.spec<@mesh, [S(0)]>> {
  %c8 = arith.constant 8 : i64
  %e = tensor.empty() : tensor<6x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<6xi64, #dtensor.spec<@mesh, [R]>>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%id: i64, %o: f32):
    %m0 = arith.remsi %id, %c8 : i64
    %m1 = arith.addi %m0, %c8 : i64
    %m2 = arith.remsi %m1, %c8 : i64
    %row = arith.index_cast %m2 : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0)]>>
    %ten = arith.constant 10.0 : f32
    %s = arith.mulf %v, %ten : f32
    %n = arith.fptosi %s : f32 to i32
    %f = arith.sitofp %n : i32 to f32
    linalg.yield %f : f32
  } -> tensor<6x4xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<6x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<6x4xf32, #dtensor.spec<@mesh, [S(0)]>>
  return %d : tensor<6x4xf32, #dtensor.spec<@mesh, [S(0)]>>
}

func.func private @out_of_range(%table: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<2x4xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %c7 = arith.constant 7 : index
    %row = arith.addi %i, %c7 : index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<8x4xf32>
    linalg.yield %v : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
