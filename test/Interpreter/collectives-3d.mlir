// RUN: dtensor-run %s --print-values --reconcile 2 --report | FileCheck %s
// Collectives on a 2x2x2 mesh, with each rank's value its rank id: groups are
// ordered row-major over mesh_dims as listed, so [2, 0] makes mesh dim 0 the
// fastest-varying. Rank r has coordinate (r / 4, (r / 2) % 2, r % 2).

dtensor.mesh @cube shape = [2, 2, 2]

func.func @main(%m: !dtensor.device_mesh<@cube>) -> (tensor<4xi32>, tensor<4xi32>, tensor<1xi32>, tensor<2xi32>, tensor<1xi32>) {
  %rank = dtensor.mesh_coord %m mesh_dims = [0, 1, 2] : !dtensor.device_mesh<@cube> -> index
  %r = arith.index_cast %rank : index to i32
  %x = tensor.splat %r : tensor<1xi32>
  // Group of rank 0 over [0, 2]: ranks 0, 1, 4, 5 (dim 0 major).
  %g02 = dtensor.all_gather %x, %m mesh_dims = [0, 2] gather_dim = 0 : tensor<1xi32>, !dtensor.device_mesh<@cube> -> tensor<4xi32>
  // Over [2, 0]: ranks 0, 4, 1, 5 (dim 2 major).
  %g20 = dtensor.all_gather %x, %m mesh_dims = [2, 0] gather_dim = 0 : tensor<1xi32>, !dtensor.device_mesh<@cube> -> tensor<4xi32>
  // Sum over the whole cube: 0 + ... + 7 = 28.
  %s = dtensor.all_reduce %x, %m mesh_dims = [0, 1, 2] reduce = sum : tensor<1xi32>, !dtensor.device_mesh<@cube> -> tensor<1xi32>
  // reduce_scatter over dim 1 of [r, 10 r]: the pair (r, r + 2) sums and splits.
  %ten = arith.constant 10 : i32
  %r10 = arith.muli %r, %ten : i32
  %pair = tensor.from_elements %r, %r10 : tensor<2xi32>
  %rs = dtensor.reduce_scatter %pair, %m mesh_dims = [1] scatter_dim = 0 reduce = sum : tensor<2xi32>, !dtensor.device_mesh<@cube> -> tensor<1xi32>
  %pairs = dtensor.all_gather %rs, %m mesh_dims = [1] gather_dim = 0 : tensor<1xi32>, !dtensor.device_mesh<@cube> -> tensor<2xi32>
  // Shift right along dim 2 (0 -> 1); rank with coordinate 0 receives zeros.
  %p = dtensor.permute %x, %m mesh_dims = [2] source_target_pairs = [0, 1] : tensor<1xi32>, !dtensor.device_mesh<@cube> -> tensor<1xi32>
  return %g02, %g20, %s, %pairs, %p : tensor<4xi32>, tensor<4xi32>, tensor<1xi32>, tensor<2xi32>, tensor<1xi32>
}

// CHECK:      output 0: per rank
// CHECK-NEXT:   rank 0: 4 i32
// CHECK-NEXT:     [0, 1, 4, 5]
// CHECK:        rank 2: 4 i32
// CHECK-NEXT:     [2, 3, 6, 7]
// CHECK:      output 1: per rank
// CHECK-NEXT:   rank 0: 4 i32
// CHECK-NEXT:     [0, 4, 1, 5]
// CHECK:      output 2: reconciled
// CHECK-NEXT: [28]
// CHECK:      output 3: per rank
// CHECK-NEXT:   rank 0: 2 i32
// CHECK-NEXT:     [2, 20]
// CHECK:        rank 1: 2 i32
// CHECK-NEXT:     [4, 40]
// CHECK:      output 4: per rank
// CHECK-NEXT:   rank 0: 1 i32
// CHECK-NEXT:     [0]
// CHECK-NEXT:   rank 1: 1 i32
// CHECK-NEXT:     [0]
// CHECK-NEXT:   rank 2: 1 i32
// CHECK-NEXT:     [0]
// CHECK-NEXT:   rank 3: 1 i32
// CHECK-NEXT:     [2]
// CHECK:      communication: 6 collectives
// CHECK-NEXT:   all_gather         3
// CHECK-SAME:   mesh dims [0, 2], [2, 0], [1]
