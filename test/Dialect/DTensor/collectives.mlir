// RUN: dtensor-opt %s | dtensor-opt | FileCheck %s
// RUN: dtensor-opt %s --mlir-print-op-generic | dtensor-opt | FileCheck %s
// RUN: dtensor-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: dtensor-opt %s --cse --canonicalize | FileCheck %s --check-prefix=EFFECTS

// Round trip of the local-view collectives, the future type and the group
// queries, in the custom form and through the generic form: synchronous and
// asynchronous results, every reduction, sub-mesh and flattened handles, and
// mesh_dims in non-ascending order. The EFFECTS run checks that collectives
// are neither dropped nor merged while queries are.

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
dtensor.mesh @cube shape = [2, 3, 2] names = ["pp", "dp", "tp"]
dtensor.mesh @ring shape = [8]

//===----------------------------------------------------------------------===//
// all_gather
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @all_gather
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[X:[a-z0-9_]+]]: tensor<2x8xf32>, %[[D:[a-z0-9_]+]]: tensor<?x8xf32>)
func.func @all_gather(%m: !dtensor.device_mesh<@mesh>, %x: tensor<2x8xf32>,
                      %d: tensor<?x8xf32>) {
  // CHECK: %{{.+}} = dtensor.all_gather %[[X]], %[[M]] mesh_dims = [1] gather_dim = 0 : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>{{$}}
  %0 = dtensor.all_gather %x, %m mesh_dims = [1] gather_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  // Mesh dim 0 of size 2 along tensor dim 1.
  // CHECK-NEXT: %{{.+}} = dtensor.all_gather %[[X]], %[[M]] mesh_dims = [0] gather_dim = 1 : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x16xf32>{{$}}
  %1 = dtensor.all_gather %x, %m mesh_dims = [0] gather_dim = 1
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x16xf32>
  // Both mesh dims, mesh dim 0 fastest: a group of 8.
  // CHECK-NEXT: %{{.+}} = dtensor.all_gather %[[X]], %[[M]] mesh_dims = [1, 0] gather_dim = 0 : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32>{{$}}
  %2 = dtensor.all_gather %x, %m mesh_dims = [1, 0] gather_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32>
  // Dynamic on either side.
  // CHECK-NEXT: %{{.+}} = dtensor.all_gather %[[D]], %[[M]] mesh_dims = [1] gather_dim = 0 : tensor<?x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x8xf32>{{$}}
  %3 = dtensor.all_gather %d, %m mesh_dims = [1] gather_dim = 0
      : tensor<?x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x8xf32>
  // CHECK-NEXT: %{{.+}} = dtensor.all_gather %[[X]], %[[M]] mesh_dims = [1] gather_dim = 0 : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x?xf32>{{$}}
  %4 = dtensor.all_gather %x, %m mesh_dims = [1] gather_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x?xf32>
  // Asynchronous start.
  // CHECK-NEXT: %{{.+}} = dtensor.all_gather %[[X]], %[[M]] mesh_dims = [1] gather_dim = 0 : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x8xf32>>{{$}}
  %5 = dtensor.all_gather %x, %m mesh_dims = [1] gather_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x8xf32>>
  // CHECK-NEXT: %{{.+}} = dtensor.all_gather %[[X]], %[[M]] mesh_dims = [0] gather_dim = 0 {note = "kept"} : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32>{{$}}
  %6 = dtensor.all_gather %x, %m mesh_dims = [0] gather_dim = 0 {note = "kept"}
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Views: sub-meshes and flattened handles
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @views
// CHECK-SAME: (%[[TP:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh[1]>, %[[F:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh[(0, 1)]>, %[[V:[a-z0-9_]+]]: !dtensor.device_mesh<@cube[0, 2]>, %[[R:[a-z0-9_]+]]: !dtensor.device_mesh<@ring>, %[[X:[a-z0-9_]+]]: tensor<2x8xf32>)
func.func @views(%tp: !dtensor.device_mesh<@mesh[1]>,
                 %f: !dtensor.device_mesh<@mesh[(0, 1)]>,
                 %v: !dtensor.device_mesh<@cube[0, 2]>,
                 %r: !dtensor.device_mesh<@ring>, %x: tensor<2x8xf32>) {
  // CHECK: %{{.+}} = dtensor.all_gather %[[X]], %[[TP]] mesh_dims = [1] gather_dim = 0 : tensor<2x8xf32>, !dtensor.device_mesh<@mesh[1]> -> tensor<8x8xf32>{{$}}
  %0 = dtensor.all_gather %x, %tp mesh_dims = [1] gather_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh[1]> -> tensor<8x8xf32>
  // A flattened group in its own order and in the other one.
  // CHECK-NEXT: %{{.+}} = dtensor.all_gather %[[X]], %[[F]] mesh_dims = [0, 1] gather_dim = 0 : tensor<2x8xf32>, !dtensor.device_mesh<@mesh[(0, 1)]> -> tensor<16x8xf32>{{$}}
  %1 = dtensor.all_gather %x, %f mesh_dims = [0, 1] gather_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh[(0, 1)]> -> tensor<16x8xf32>
  // CHECK-NEXT: %{{.+}} = dtensor.all_reduce %[[X]], %[[F]] mesh_dims = [1, 0] reduce = sum : tensor<2x8xf32>, !dtensor.device_mesh<@mesh[(0, 1)]> -> tensor<2x8xf32>{{$}}
  %2 = dtensor.all_reduce %x, %f mesh_dims = [1, 0] reduce = sum
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh[(0, 1)]> -> tensor<2x8xf32>
  // A sub-mesh of two dims: either or both, in any order. @cube is 2x3x2.
  // CHECK-NEXT: %{{.+}} = dtensor.all_gather %[[X]], %[[V]] mesh_dims = [2] gather_dim = 1 : tensor<2x8xf32>, !dtensor.device_mesh<@cube[0, 2]> -> tensor<2x16xf32>{{$}}
  %3 = dtensor.all_gather %x, %v mesh_dims = [2] gather_dim = 1
      : tensor<2x8xf32>, !dtensor.device_mesh<@cube[0, 2]> -> tensor<2x16xf32>
  // CHECK-NEXT: %{{.+}} = dtensor.reduce_scatter %[[X]], %[[V]] mesh_dims = [2, 0] scatter_dim = 1 reduce = max : tensor<2x8xf32>, !dtensor.device_mesh<@cube[0, 2]> -> tensor<2x2xf32>{{$}}
  %4 = dtensor.reduce_scatter %x, %v mesh_dims = [2, 0] scatter_dim = 1 reduce = max
      : tensor<2x8xf32>, !dtensor.device_mesh<@cube[0, 2]> -> tensor<2x2xf32>
  // CHECK-NEXT: %{{.+}} = dtensor.all_gather %[[X]], %[[R]] mesh_dims = [0] gather_dim = 0 : tensor<2x8xf32>, !dtensor.device_mesh<@ring> -> tensor<16x8xf32>{{$}}
  %5 = dtensor.all_gather %x, %r mesh_dims = [0] gather_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@ring> -> tensor<16x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// all_reduce / reduce_scatter
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[X:[a-z0-9_]+]]: tensor<8x8xf32>, %[[I:[a-z0-9_]+]]: tensor<?x4xi32>)
func.func @all_reduce(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>,
                      %i: tensor<?x4xi32>) {
  // CHECK: %{{.+}} = dtensor.all_reduce %[[X]], %[[M]] mesh_dims = [0, 1] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>{{$}}
  %0 = dtensor.all_reduce %x, %m mesh_dims = [0, 1] reduce = sum
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  // CHECK-NEXT: %{{.+}} = dtensor.all_reduce %[[X]], %[[M]] mesh_dims = [1] reduce = avg : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>{{$}}
  %1 = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = avg
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  // CHECK-NEXT: %{{.+}} = dtensor.all_reduce %[[X]], %[[M]] mesh_dims = [0] reduce = max : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>{{$}}
  %2 = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = max
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  // CHECK-NEXT: %{{.+}} = dtensor.all_reduce %[[I]], %[[M]] mesh_dims = [1, 0] reduce = min : tensor<?x4xi32>, !dtensor.device_mesh<@mesh> -> tensor<?x4xi32>{{$}}
  %3 = dtensor.all_reduce %i, %m mesh_dims = [1, 0] reduce = min
      : tensor<?x4xi32>, !dtensor.device_mesh<@mesh> -> tensor<?x4xi32>
  // CHECK-NEXT: %{{.+}} = dtensor.all_reduce %[[X]], %[[M]] mesh_dims = [1] reduce = product : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x8xf32>>{{$}}
  %4 = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = product
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x8xf32>>
  return
}

// CHECK-LABEL: func.func @reduce_scatter
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[X:[a-z0-9_]+]]: tensor<8x8xf32>, %[[D:[a-z0-9_]+]]: tensor<8x?xf32>)
func.func @reduce_scatter(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>,
                          %d: tensor<8x?xf32>) {
  // CHECK: %{{.+}} = dtensor.reduce_scatter %[[X]], %[[M]] mesh_dims = [1] scatter_dim = 0 reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x8xf32>{{$}}
  %0 = dtensor.reduce_scatter %x, %m mesh_dims = [1] scatter_dim = 0 reduce = sum
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x8xf32>
  // CHECK-NEXT: %{{.+}} = dtensor.reduce_scatter %[[X]], %[[M]] mesh_dims = [1, 0] scatter_dim = 1 reduce = avg : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x1xf32>>{{$}}
  %1 = dtensor.reduce_scatter %x, %m mesh_dims = [1, 0] scatter_dim = 1 reduce = avg
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x1xf32>>
  // A dynamic dim is not checked for divisibility.
  // CHECK-NEXT: %{{.+}} = dtensor.reduce_scatter %[[D]], %[[M]] mesh_dims = [1] scatter_dim = 1 reduce = sum : tensor<8x?xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x?xf32>{{$}}
  %2 = dtensor.reduce_scatter %d, %m mesh_dims = [1] scatter_dim = 1 reduce = sum
      : tensor<8x?xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x?xf32>
  // CHECK-NEXT: %{{.+}} = dtensor.reduce_scatter %[[X]], %[[M]] mesh_dims = [0] scatter_dim = 0 reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x8xf32>{{$}}
  %3 = dtensor.reduce_scatter %x, %m mesh_dims = [0] scatter_dim = 0 reduce = sum
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// all_to_all / broadcast / permute
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @all_to_all
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[X:[a-z0-9_]+]]: tensor<4x8xf32>)
func.func @all_to_all(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4x8xf32>) {
  // CHECK: %{{.+}} = dtensor.all_to_all %[[X]], %[[M]] mesh_dims = [0] split_dim = 1 concat_dim = 0 : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x4xf32>{{$}}
  %0 = dtensor.all_to_all %x, %m mesh_dims = [0] split_dim = 1 concat_dim = 0
      : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x4xf32>
  // CHECK-NEXT: %{{.+}} = dtensor.all_to_all %[[X]], %[[M]] mesh_dims = [1] split_dim = 0 concat_dim = 1 : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<1x32xf32>>{{$}}
  %1 = dtensor.all_to_all %x, %m mesh_dims = [1] split_dim = 0 concat_dim = 1
      : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<1x32xf32>>
  // Split and concatenate along one dim: the shape is unchanged.
  // CHECK-NEXT: %{{.+}} = dtensor.all_to_all %[[X]], %[[M]] mesh_dims = [1, 0] split_dim = 1 concat_dim = 1 : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32>{{$}}
  %2 = dtensor.all_to_all %x, %m mesh_dims = [1, 0] split_dim = 1 concat_dim = 1
      : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32>
  return
}

// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[TP:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh[1]>, %[[X:[a-z0-9_]+]]: tensor<8x8xf32>)
func.func @broadcast(%m: !dtensor.device_mesh<@mesh>,
                     %tp: !dtensor.device_mesh<@mesh[1]>, %x: tensor<8x8xf32>) {
  // CHECK: %{{.+}} = dtensor.broadcast %[[X]], %[[M]] mesh_dims = [0] root = 0 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>{{$}}
  %0 = dtensor.broadcast %x, %m mesh_dims = [0] root = 0
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  // CHECK-NEXT: %{{.+}} = dtensor.broadcast %[[X]], %[[TP]] mesh_dims = [1] root = 3 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh[1]> -> !dtensor.future<tensor<8x8xf32>>{{$}}
  %1 = dtensor.broadcast %x, %tp mesh_dims = [1] root = 3
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh[1]> -> !dtensor.future<tensor<8x8xf32>>
  // CHECK-NEXT: %{{.+}} = dtensor.broadcast %[[X]], %[[M]] mesh_dims = [1, 0] root = 7 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>{{$}}
  %2 = dtensor.broadcast %x, %m mesh_dims = [1, 0] root = 7
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// CHECK-LABEL: func.func @permute
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[R:[a-z0-9_]+]]: !dtensor.device_mesh<@ring>, %[[X:[a-z0-9_]+]]: tensor<8x1xf32>)
func.func @permute(%m: !dtensor.device_mesh<@mesh>, %r: !dtensor.device_mesh<@ring>,
                   %x: tensor<8x1xf32>) {
  // Halo to the right neighbour; group rank 0 receives zeros.
  // CHECK: %{{.+}} = dtensor.permute %[[X]], %[[M]] mesh_dims = [1] source_target_pairs = [0, 1, 1, 2, 2, 3] : tensor<8x1xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x1xf32>{{$}}
  %0 = dtensor.permute %x, %m mesh_dims = [1] source_target_pairs = [0, 1, 1, 2, 2, 3]
      : tensor<8x1xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x1xf32>
  // A full ring, asynchronously.
  // CHECK-NEXT: %{{.+}} = dtensor.permute %[[X]], %[[R]] mesh_dims = [0] source_target_pairs = [0, 7, 1, 0, 2, 1, 3, 2, 4, 3, 5, 4, 6, 5, 7, 6] : tensor<8x1xf32>, !dtensor.device_mesh<@ring> -> !dtensor.future<tensor<8x1xf32>>{{$}}
  %1 = dtensor.permute %x, %r mesh_dims = [0]
      source_target_pairs = [0, 7, 1, 0, 2, 1, 3, 2, 4, 3, 5, 4, 6, 5, 7, 6]
      : tensor<8x1xf32>, !dtensor.device_mesh<@ring> -> !dtensor.future<tensor<8x1xf32>>
  // No pairs: every rank receives zeros.
  // CHECK-NEXT: %{{.+}} = dtensor.permute %[[X]], %[[M]] mesh_dims = [1, 0] source_target_pairs = [] : tensor<8x1xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x1xf32>{{$}}
  %2 = dtensor.permute %x, %m mesh_dims = [1, 0] source_target_pairs = []
      : tensor<8x1xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x1xf32>
  return
}

//===----------------------------------------------------------------------===//
// Futures and wait
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @wait
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[X:[a-z0-9_]+]]: tensor<8x8xf32>, %[[G:[a-z0-9_]+]]: !dtensor.future<tensor<?x8xbf16>>)
// CHECK-SAME: -> (tensor<8x8xf32>, tensor<?x8xbf16>)
func.func @wait(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>,
                %g: !dtensor.future<tensor<?x8xbf16>>)
    -> (tensor<8x8xf32>, tensor<?x8xbf16>) {
  // CHECK: %[[F:.+]] = dtensor.all_reduce %[[X]], %[[M]] mesh_dims = [1] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x8xf32>>{{$}}
  %f = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x8xf32>>
  // CHECK-NEXT: %[[R:.+]] = dtensor.wait %[[F]] : !dtensor.future<tensor<8x8xf32>>{{$}}
  %r = dtensor.wait %f : !dtensor.future<tensor<8x8xf32>>
  // CHECK-NEXT: %[[S:.+]] = dtensor.wait %[[G]] : !dtensor.future<tensor<?x8xbf16>>{{$}}
  %s = dtensor.wait %g : !dtensor.future<tensor<?x8xbf16>>
  // CHECK-NEXT: return %[[R]], %[[S]] : tensor<8x8xf32>, tensor<?x8xbf16>
  return %r, %s : tensor<8x8xf32>, tensor<?x8xbf16>
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @queries
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[F:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh[(0, 1)]>, %[[V:[a-z0-9_]+]]: !dtensor.device_mesh<@cube[0, 2]>)
func.func @queries(%m: !dtensor.device_mesh<@mesh>,
                   %f: !dtensor.device_mesh<@mesh[(0, 1)]>,
                   %v: !dtensor.device_mesh<@cube[0, 2]>)
    -> (index, index, index, index, index, index, index) {
  // CHECK: %[[C0:.+]] = dtensor.mesh_coord %[[M]] mesh_dims = [0, 1] : !dtensor.device_mesh<@mesh> -> index{{$}}
  %c0 = dtensor.mesh_coord %m mesh_dims = [0, 1] : !dtensor.device_mesh<@mesh> -> index
  // CHECK-NEXT: %[[C1:.+]] = dtensor.mesh_coord %[[F]] mesh_dims = [1, 0] : !dtensor.device_mesh<@mesh[(0, 1)]> -> index{{$}}
  %c1 = dtensor.mesh_coord %f mesh_dims = [1, 0] : !dtensor.device_mesh<@mesh[(0, 1)]> -> index
  // CHECK-NEXT: %[[C2:.+]] = dtensor.mesh_coord %[[V]] mesh_dims = [2] : !dtensor.device_mesh<@cube[0, 2]> -> index{{$}}
  %c2 = dtensor.mesh_coord %v mesh_dims = [2] : !dtensor.device_mesh<@cube[0, 2]> -> index
  // CHECK-NEXT: %[[S0:.+]] = dtensor.shard_size %[[M]] mesh_dims = [0, 1] size = 9 : !dtensor.device_mesh<@mesh> -> index{{$}}
  %s0 = dtensor.shard_size %m mesh_dims = [0, 1] size = 9 : !dtensor.device_mesh<@mesh> -> index
  // CHECK-NEXT: %[[S1:.+]] = dtensor.shard_size %[[V]] mesh_dims = [2, 0] size = 0 : !dtensor.device_mesh<@cube[0, 2]> -> index{{$}}
  %s1 = dtensor.shard_size %v mesh_dims = [2, 0] size = 0 : !dtensor.device_mesh<@cube[0, 2]> -> index
  // CHECK-NEXT: %[[O0:.+]] = dtensor.shard_offset %[[M]] mesh_dims = [1, 0] size = 13 : !dtensor.device_mesh<@mesh> -> index{{$}}
  %o0 = dtensor.shard_offset %m mesh_dims = [1, 0] size = 13 : !dtensor.device_mesh<@mesh> -> index
  // CHECK-NEXT: %[[O1:.+]] = dtensor.shard_offset %[[F]] mesh_dims = [0, 1] size = 5 : !dtensor.device_mesh<@mesh[(0, 1)]> -> index{{$}}
  %o1 = dtensor.shard_offset %f mesh_dims = [0, 1] size = 5 : !dtensor.device_mesh<@mesh[(0, 1)]> -> index
  // CHECK-NEXT: return %[[C0]], %[[C1]], %[[C2]], %[[S0]], %[[S1]], %[[O0]], %[[O1]]
  return %c0, %c1, %c2, %s0, %s1, %o0, %o1 : index, index, index, index, index, index, index
}

//===----------------------------------------------------------------------===//
// The generic form
//===----------------------------------------------------------------------===//

// A reduction is a dialect attribute; a wait's result type is the future's.
// GENERIC: "dtensor.all_reduce"(%{{.+}}, %{{.+}}) <{mesh_dims = array<i64: 0, 1>, reduce = #dtensor<reduction sum>}> : (tensor<8x8xf32>, !dtensor.device_mesh<@mesh>) -> tensor<8x8xf32>
// GENERIC: "dtensor.reduce_scatter"(%{{.+}}, %{{.+}}) <{mesh_dims = array<i64: 1, 0>, reduce = #dtensor<reduction avg>, scatter_dim = 1 : i64}> : (tensor<8x8xf32>, !dtensor.device_mesh<@mesh>) -> !dtensor.future<tensor<8x1xf32>>
// GENERIC: "dtensor.wait"(%{{.+}}) : (!dtensor.future<tensor<8x8xf32>>) -> tensor<8x8xf32>
// GENERIC: "dtensor.shard_size"(%{{.+}}) <{mesh_dims = array<i64: 0, 1>, size = 9 : i64}> : (!dtensor.device_mesh<@mesh>) -> index

//===----------------------------------------------------------------------===//
// Effects
//===----------------------------------------------------------------------===//

// Collectives talk to other ranks: an unused one stays, and two equal ones
// stay two. Queries are pure: unused ones go, equal ones are merged.
// EFFECTS-LABEL: func.func @effects
// EFFECTS-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[X:[a-z0-9_]+]]: tensor<8x8xf32>)
// EFFECTS-NEXT: %[[A:.+]] = dtensor.all_reduce %[[X]], %[[M]] mesh_dims = [1] reduce = sum
// EFFECTS-NEXT: %[[B:.+]] = dtensor.all_reduce %[[X]], %[[M]] mesh_dims = [1] reduce = sum
// EFFECTS-NEXT: %{{.+}} = dtensor.all_gather %[[X]], %[[M]] mesh_dims = [0] gather_dim = 0
// EFFECTS-NEXT: %[[F:.+]] = dtensor.broadcast %[[X]], %[[M]] mesh_dims = [0] root = 1
// EFFECTS-NEXT: %{{.+}} = dtensor.wait %[[F]]
// EFFECTS-NEXT: %[[S:.+]] = dtensor.shard_size %[[M]] mesh_dims = [1] size = 9
// EFFECTS-NEXT: return %[[A]], %[[B]], %[[S]], %[[S]]
func.func @effects(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>, index, index) {
  %a = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  %b = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  %unused = dtensor.all_gather %x, %m mesh_dims = [0] gather_dim = 0
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32>
  %f = dtensor.broadcast %x, %m mesh_dims = [0] root = 1
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x8xf32>>
  %w = dtensor.wait %f : !dtensor.future<tensor<8x8xf32>>
  %c = dtensor.mesh_coord %m mesh_dims = [0] : !dtensor.device_mesh<@mesh> -> index
  %s0 = dtensor.shard_size %m mesh_dims = [1] size = 9 : !dtensor.device_mesh<@mesh> -> index
  %s1 = dtensor.shard_size %m mesh_dims = [1] size = 9 : !dtensor.device_mesh<@mesh> -> index
  return %a, %b, %s0, %s1 : tensor<8x8xf32>, tensor<8x8xf32>, index, index
}
