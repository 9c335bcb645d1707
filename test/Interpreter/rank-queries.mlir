// RUN: dtensor-run %s --print-values | FileCheck %s
// The rank queries on every rank: 9 rows over mesh dims [0, 1] of a 2x2
// mesh are 3, 2 | 2, 2 rows at offsets 0, 3 | 5, 7; over [1, 0] the two
// middle ranks swap; 1 row over [0, 1] leaves three ranks empty (offset =
// the full size, as DTensor reports).

dtensor.mesh @mesh shape = [2, 2]

func.func @main(%m: !dtensor.device_mesh<@mesh>) -> (index, index, index, index, index) {
  %s = dtensor.shard_size %m mesh_dims = [0, 1] size = 9 : !dtensor.device_mesh<@mesh> -> index
  %o = dtensor.shard_offset %m mesh_dims = [0, 1] size = 9 : !dtensor.device_mesh<@mesh> -> index
  %o2 = dtensor.shard_offset %m mesh_dims = [1, 0] size = 9 : !dtensor.device_mesh<@mesh> -> index
  %e = dtensor.shard_offset %m mesh_dims = [0, 1] size = 1 : !dtensor.device_mesh<@mesh> -> index
  %c = dtensor.mesh_coord %m mesh_dims = [1, 0] : !dtensor.device_mesh<@mesh> -> index
  return %s, %o, %o2, %e, %c : index, index, index, index, index
}

// CHECK:      output 0: rank 0 3, rank 1 2, rank 2 2, rank 3 2
// CHECK-NEXT: output 1: rank 0 0, rank 1 3, rank 2 5, rank 3 7
// CHECK-NEXT: output 2: rank 0 0, rank 1 5, rank 2 3, rank 3 7
// CHECK-NEXT: output 3: rank 0 0, rank 1 1, rank 2 1, rank 3 1
// CHECK-NEXT: output 4: rank 0 0, rank 1 2, rank 2 1, rank 3 3
