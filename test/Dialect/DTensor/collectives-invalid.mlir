// RUN: dtensor-opt %s -split-input-file -verify-diagnostics

// One chunk per verifier error of the local-view collectives, the future
// type and the group queries, with chunks between them that must verify
// cleanly. The mesh is 2x4: groups over mesh dim 0 have 2 ranks, over mesh
// dim 1 have 4, over both have 8.

//===----------------------------------------------------------------------===//
// mesh_dims (every collective and query)
//===----------------------------------------------------------------------===//

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_reduce' op needs at least one mesh dim in mesh_dims: list the mesh dims whose ranks form the group}}
  %0 = dtensor.all_reduce %x, %m mesh_dims = [] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_reduce' op mesh_dims has the negative dim -1; mesh dims are indices (>= 0) of the dims of mesh @mesh}}
  %0 = dtensor.all_reduce %x, %m mesh_dims = [-1] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_reduce' op mesh_dims lists mesh dim 1 twice; list each mesh dim once}}
  %0 = dtensor.all_reduce %x, %m mesh_dims = [1, 0, 1] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_reduce' op mesh dim 2 in mesh_dims does not exist: mesh @mesh has 2 dim(s); use dims in [0, 2)}}
  %0 = dtensor.all_reduce %x, %m mesh_dims = [2] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh[(0, 1)]>, %x: tensor<8x8xf32>) {
  // A flattened group is one group: it cannot be narrowed to one of its dims.
  // expected-error@+1 {{'dtensor.all_reduce' op mesh_dims [1] must be the dims of the flattened view '!dtensor.device_mesh<@mesh[(0, 1)]>' (in any order), since a flattened group cannot be split; use a permutation of [0, 1], or a handle of the whole mesh}}
  %0 = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh[(0, 1)]> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh[1]>, %x: tensor<8x8xf32>) {
  // A sub-mesh handle only reaches the groups of its own dims.
  // expected-error@+1 {{'dtensor.all_reduce' op mesh dim 0 in mesh_dims is not a dim of the view '!dtensor.device_mesh<@mesh[1]>'; use dims of [1] or a handle whose view has mesh dim 0}}
  %0 = dtensor.all_reduce %x, %m mesh_dims = [1, 0] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh[1]> -> tensor<8x8xf32>
  return
}

// -----

func.func @f(%m: !dtensor.device_mesh<@nomesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_reduce' op mesh @nomesh is not declared; add `dtensor.mesh @nomesh shape = [...]` to the module}}
  %0 = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@nomesh> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh[(0, 2)]>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_reduce' op mesh dim 2 does not exist: mesh @mesh has 2 dim(s)}}
  %0 = dtensor.all_reduce %x, %m mesh_dims = [0, 2] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh[(0, 2)]> -> tensor<8x8xf32>
  return
}

// -----

// mesh_dims in any order, on the whole mesh, a flattened view (as a set)
// and a sub-mesh (any subset of its dims).
dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
dtensor.mesh @cube shape = [2, 3, 2] names = ["pp", "dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %f: !dtensor.device_mesh<@mesh[(0, 1)]>, %v: !dtensor.device_mesh<@cube[0, 2]>, %x: tensor<8x8xf32>) {
  %0 = dtensor.all_reduce %x, %m mesh_dims = [1, 0] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  %1 = dtensor.all_reduce %x, %f mesh_dims = [1, 0] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh[(0, 1)]> -> tensor<8x8xf32>
  %2 = dtensor.all_reduce %x, %f mesh_dims = [0, 1] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh[(0, 1)]> -> tensor<8x8xf32>
  %3 = dtensor.all_reduce %x, %v mesh_dims = [2, 0] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@cube[0, 2]> -> tensor<8x8xf32>
  %4 = dtensor.all_reduce %x, %v mesh_dims = [0] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@cube[0, 2]> -> tensor<8x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Operand and result types
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_reduce' op result element type 'f16' differs from the input's 'f32'; collectives do not convert, so cast before or after}}
  %0 = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf16>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_gather' op result rank 3 differs from the input's rank 2; collectives keep the rank, so give the result rank 2}}
  %0 = dtensor.all_gather %x, %m mesh_dims = [0] gather_dim = 0 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8x1xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // The shape rules apply to the future's value type.
  // expected-error@+1 {{'dtensor.all_reduce' op result dim 0 has size 4 but the input's has 8; all_reduce does not change that dim, so make them equal (or '?')}}
  %0 = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<4x8xf32>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) {
  // Collectives work on local buffers; a global-view tensor goes through dtensor.redistribute.
  // expected-error@+1 {{'dtensor.all_reduce' op operand #0 must be ranked tensor without encoding, but got 'tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>'}}
  %0 = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = sum : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_reduce' op result #0 must be ranked tensor without encoding, or a future of one, but got '!dtensor.future<tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>>'}}
  %0 = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // Reductions are DTensor's: sum, avg, max, min, product.
  // expected-error@+2 {{failed to parse DTensor_ReductionAttr parameter 'value' which is to be a `::mlir::dtensor::Reduction`}}
  // expected-error@+1 {{expected ::mlir::dtensor::Reduction to be one of: sum, avg, max, min, product}}
  %0 = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = mean : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<?x8xf32>, %y: tensor<8x8xf32>) {
  // A '?' on either side matches any size.
  %0 = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = avg : tensor<?x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  %1 = dtensor.all_reduce %y, %m mesh_dims = [1] reduce = max : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<?x?xf32>>
  %2 = dtensor.all_gather %x, %m mesh_dims = [1] gather_dim = 1 : tensor<?x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.all_gather
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_gather' op gather_dim -1 is out of range for the rank-2 input; use a dim in [0, 2)}}
  %0 = dtensor.all_gather %x, %m mesh_dims = [0] gather_dim = -1 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x16xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_gather' op gather_dim 0 of the result should have size 32 (8 from each of the 4 rank(s) of the group), not 16}}
  %0 = dtensor.all_gather %x, %m mesh_dims = [1] gather_dim = 0 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_gather' op result dim 1 has size 4 but the input's has 8; all_gather does not change that dim, so make them equal (or '?')}}
  %0 = dtensor.all_gather %x, %m mesh_dims = [0] gather_dim = 0 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x4xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // Two mesh dims: a group of 8.
  // expected-error@+1 {{'dtensor.all_gather' op gather_dim 1 of the result should have size 64 (8 from each of the 8 rank(s) of the group), not 32}}
  %0 = dtensor.all_gather %x, %m mesh_dims = [1, 0] gather_dim = 1 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x32xf32>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  %0 = dtensor.all_gather %x, %m mesh_dims = [1, 0] gather_dim = 1 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x64xf32>>
  %1 = dtensor.all_gather %x, %m mesh_dims = [0] gather_dim = 0 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.reduce_scatter
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.reduce_scatter' op scatter_dim 2 is out of range for the rank-2 input; use a dim in [0, 2)}}
  %0 = dtensor.reduce_scatter %x, %m mesh_dims = [1] scatter_dim = 2 reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<6x8xf32>) {
  // expected-error@+1 {{'dtensor.reduce_scatter' op scatter_dim 0 of the input has size 6, which the group of 4 rank(s) cannot split evenly; pad it to a multiple of 4 first}}
  %0 = dtensor.reduce_scatter %x, %m mesh_dims = [1] scatter_dim = 0 reduce = sum : tensor<6x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.reduce_scatter' op scatter_dim 0 of the result should have size 2 (8 split over the 4 rank(s) of the group), not 4}}
  %0 = dtensor.reduce_scatter %x, %m mesh_dims = [1] scatter_dim = 0 reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<4x8xf32>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.reduce_scatter' op result dim 1 has size 4 but the input's has 8; reduce_scatter does not change that dim, so make them equal (or '?')}}
  %0 = dtensor.reduce_scatter %x, %m mesh_dims = [1] scatter_dim = 0 reduce = sum : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x4xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>, %d: tensor<6x?xf32>) {
  // Divisibility is checked on static sizes only.
  %0 = dtensor.reduce_scatter %x, %m mesh_dims = [0, 1] scatter_dim = 1 reduce = product : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x1xf32>
  %1 = dtensor.reduce_scatter %d, %m mesh_dims = [1] scatter_dim = 1 reduce = min : tensor<6x?xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<6x?xf32>>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.all_to_all
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_to_all' op split_dim -2 is out of range for the rank-2 input; use a dim in [0, 2)}}
  %0 = dtensor.all_to_all %x, %m mesh_dims = [1] split_dim = -2 concat_dim = 1 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x32xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_to_all' op concat_dim 2 is out of range for the rank-2 input; use a dim in [0, 2)}}
  %0 = dtensor.all_to_all %x, %m mesh_dims = [1] split_dim = 0 concat_dim = 2 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x32xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<6x8xf32>) {
  // Splitting and concatenating along one dim still splits it evenly.
  // expected-error@+1 {{'dtensor.all_to_all' op split_dim 0 of the input has size 6, which the group of 4 rank(s) cannot split evenly; pad it to a multiple of 4 first}}
  %0 = dtensor.all_to_all %x, %m mesh_dims = [1] split_dim = 0 concat_dim = 0 : tensor<6x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<6x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_to_all' op split_dim 0 of the result should have size 2 (8 split over the 4 rank(s) of the group), not 4}}
  %0 = dtensor.all_to_all %x, %m mesh_dims = [1] split_dim = 0 concat_dim = 1 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x32xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.all_to_all' op concat_dim 1 of the result should have size 32 (8 from each of the 4 rank(s) of the group), not 8}}
  %0 = dtensor.all_to_all %x, %m mesh_dims = [1] split_dim = 0 concat_dim = 1 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // split_dim == concat_dim keeps the shape.
  // expected-error@+1 {{'dtensor.all_to_all' op result dim 0 has size 2 but the input's has 8; all_to_all does not change that dim, so make them equal (or '?')}}
  %0 = dtensor.all_to_all %x, %m mesh_dims = [1] split_dim = 0 concat_dim = 0 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8x3xf32>) {
  %0 = dtensor.all_to_all %x, %m mesh_dims = [1] split_dim = 1 concat_dim = 2 : tensor<8x8x3xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x2x12xf32>
  %1 = dtensor.all_to_all %x, %m mesh_dims = [0, 1] split_dim = 0 concat_dim = 0 : tensor<8x8x3xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x8x3xf32>>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.broadcast
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.broadcast' op root -1 is negative; root is the sender's index in the group, from 0}}
  %0 = dtensor.broadcast %x, %m mesh_dims = [0] root = -1 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.broadcast' op root 2 is not a rank of the group of 2 rank(s); use a group rank in [0, 2)}}
  %0 = dtensor.broadcast %x, %m mesh_dims = [0] root = 2 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.broadcast' op result dim 1 has size 9 but the input's has 8; broadcast does not change that dim, so make them equal (or '?')}}
  %0 = dtensor.broadcast %x, %m mesh_dims = [0] root = 0 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x9xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  %0 = dtensor.broadcast %x, %m mesh_dims = [1] root = 3 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  %1 = dtensor.broadcast %x, %m mesh_dims = [0, 1] root = 7 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x8xf32>>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.permute
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.permute' op source_target_pairs has 3 entries; list (source, target) pairs, an even number of entries}}
  %0 = dtensor.permute %x, %m mesh_dims = [1] source_target_pairs = [0, 1, 2] : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.permute' op source_target_pairs has the negative rank -1; group ranks count from 0}}
  %0 = dtensor.permute %x, %m mesh_dims = [1] source_target_pairs = [0, -1] : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.permute' op group rank 0 is a source twice in source_target_pairs; each rank sends at most once}}
  %0 = dtensor.permute %x, %m mesh_dims = [1] source_target_pairs = [0, 1, 0, 2] : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.permute' op group rank 1 is a target twice in source_target_pairs; each rank receives at most once}}
  %0 = dtensor.permute %x, %m mesh_dims = [1] source_target_pairs = [0, 1, 2, 1] : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.permute' op source_target_pairs has group rank 4, but the group has 4 rank(s); use group ranks in [0, 4)}}
  %0 = dtensor.permute %x, %m mesh_dims = [1] source_target_pairs = [3, 4] : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.permute' op result dim 0 has size 4 but the input's has 8; permute does not change that dim, so make them equal (or '?')}}
  %0 = dtensor.permute %x, %m mesh_dims = [1] source_target_pairs = [0, 1] : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  // A rank may send and receive; a swap and a self-send are legal.
  %0 = dtensor.permute %x, %m mesh_dims = [1] source_target_pairs = [0, 1, 1, 0, 2, 2] : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  %1 = dtensor.permute %x, %m mesh_dims = [0, 1] source_target_pairs = [7, 0] : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x8xf32>>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.wait and !dtensor.future
//===----------------------------------------------------------------------===//

// -----

func.func @f(%f: !dtensor.future<tensor<8x8xf32>>) {
  // expected-error@+1 {{'dtensor.wait' op failed to verify that result is the future's value type}}
  %0 = "dtensor.wait"(%f) : (!dtensor.future<tensor<8x8xf32>>) -> tensor<4x8xf32>
  return
}

// -----

// expected-error@+2 {{a future holds a ranked tensor, as in !dtensor.future<tensor<8x8xf32>>; got 'i32'}}
// expected-error@+1 {{failed to parse DTensor_FutureType parameter 'valueType' which is to be a `::mlir::RankedTensorType`}}
func.func private @g(!dtensor.future<i32>)

// -----

// expected-error@+2 {{a future holds a ranked tensor, as in !dtensor.future<tensor<8x8xf32>>; got 'tensor<*xf32>'}}
// expected-error@+1 {{failed to parse DTensor_FutureType parameter 'valueType' which is to be a `::mlir::RankedTensorType`}}
func.func private @g(!dtensor.future<tensor<*xf32>>)

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>) {
  %f = dtensor.all_gather %x, %m mesh_dims = [1] gather_dim = 0 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<32x8xf32>>
  %g = dtensor.wait %f : !dtensor.future<tensor<32x8xf32>>
  %h = "dtensor.wait"(%f) : (!dtensor.future<tensor<32x8xf32>>) -> tensor<32x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.mesh_coord / shard_size / shard_offset
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>) {
  // expected-error@+1 {{'dtensor.mesh_coord' op needs at least one mesh dim in mesh_dims: list the mesh dims whose ranks form the group}}
  %0 = dtensor.mesh_coord %m mesh_dims = [] : !dtensor.device_mesh<@mesh> -> index
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>) {
  // expected-error@+1 {{'dtensor.mesh_coord' op mesh_dims lists mesh dim 0 twice; list each mesh dim once}}
  %0 = dtensor.mesh_coord %m mesh_dims = [0, 0] : !dtensor.device_mesh<@mesh> -> index
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>) {
  // expected-error@+1 {{'dtensor.shard_size' op size -1 is negative; give the dim's global size}}
  %0 = dtensor.shard_size %m mesh_dims = [0] size = -1 : !dtensor.device_mesh<@mesh> -> index
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>) {
  // expected-error@+1 {{'dtensor.shard_offset' op size -3 is negative; give the dim's global size}}
  %0 = dtensor.shard_offset %m mesh_dims = [0] size = -3 : !dtensor.device_mesh<@mesh> -> index
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh[0]>) {
  // expected-error@+1 {{'dtensor.shard_offset' op mesh dim 1 in mesh_dims is not a dim of the view '!dtensor.device_mesh<@mesh[0]>'; use dims of [0] or a handle whose view has mesh dim 1}}
  %0 = dtensor.shard_offset %m mesh_dims = [1] size = 4 : !dtensor.device_mesh<@mesh[0]> -> index
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>) {
  // expected-error@+1 {{'dtensor.shard_size' op mesh dim 3 in mesh_dims does not exist: mesh @mesh has 2 dim(s); use dims in [0, 2)}}
  %0 = dtensor.shard_size %m mesh_dims = [0, 3] size = 4 : !dtensor.device_mesh<@mesh> -> index
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh[(0, 1)]>) {
  // expected-error@+1 {{'dtensor.mesh_coord' op mesh_dims [0] must be the dims of the flattened view '!dtensor.device_mesh<@mesh[(0, 1)]>' (in any order), since a flattened group cannot be split; use a permutation of [0, 1], or a handle of the whole mesh}}
  %0 = dtensor.mesh_coord %m mesh_dims = [0] : !dtensor.device_mesh<@mesh[(0, 1)]> -> index
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %f: !dtensor.device_mesh<@mesh[(0, 1)]>) {
  %0 = dtensor.mesh_coord %m mesh_dims = [1, 0] : !dtensor.device_mesh<@mesh> -> index
  %1 = dtensor.mesh_coord %f mesh_dims = [1, 0] : !dtensor.device_mesh<@mesh[(0, 1)]> -> index
  %2 = dtensor.shard_size %m mesh_dims = [0, 1] size = 0 : !dtensor.device_mesh<@mesh> -> index
  %3 = dtensor.shard_offset %f mesh_dims = [0, 1] size = 9 : !dtensor.device_mesh<@mesh[(0, 1)]> -> index
  return
}

//===----------------------------------------------------------------------===//
// Sizes that do not fit in int64 (issue 10): errors, never wrapped around
//===----------------------------------------------------------------------===//

// -----

// 2^62 elements from each of 4 ranks wrapped around to 0, so this result
// type was accepted.
dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4611686018427387904xi8>) {
  // expected-error@+1 {{'dtensor.all_gather' op gather_dim 0 of the result would have 4611686018427387904 elements from each of the 4 rank(s) of the group, more than fit in a signed 64-bit integer (at most 9223372036854775807); use a smaller input}}
  %0 = dtensor.all_gather %x, %m mesh_dims = [1] gather_dim = 0 : tensor<4611686018427387904xi8>, !dtensor.device_mesh<@mesh> -> tensor<0xi8>
  return
}

// -----

// The same with i32: the input's bytes do not fit already.
dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4611686018427387904xi32>) {
  // expected-error@+1 {{'dtensor.all_gather' op a tensor of 4611686018427387904 'i32' elements holds more bytes than fit in a signed 64-bit integer (at most 9223372036854775807), which communication is counted in; use smaller dims}}
  %0 = dtensor.all_gather %x, %m mesh_dims = [1] gather_dim = 0 : tensor<4611686018427387904xi32>, !dtensor.device_mesh<@mesh> -> tensor<0xi32>
  return
}

// -----

// With a dynamic split dim the input fits, but its concatenated dim does not.
dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<?x4611686018427387904xi8>) {
  // expected-error@+1 {{'dtensor.all_to_all' op concat_dim 1 of the result would have 4611686018427387904 elements from each of the 4 rank(s) of the group, more than fit in a signed 64-bit integer (at most 9223372036854775807); use a smaller input}}
  %0 = dtensor.all_to_all %x, %m mesh_dims = [1] split_dim = 0 concat_dim = 1 : tensor<?x4611686018427387904xi8>, !dtensor.device_mesh<@mesh> -> tensor<?x0xi8>
  return
}

// -----

// The largest gather that fits verifies.
dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<1152921504606846976xi8>) {
  %0 = dtensor.all_gather %x, %m mesh_dims = [1] gather_dim = 0 : tensor<1152921504606846976xi8>, !dtensor.device_mesh<@mesh> -> tensor<4611686018427387904xi8>
  return
}
