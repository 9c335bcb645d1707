// RUN: dtensor-opt %s -split-input-file -verify-diagnostics

// One chunk per verifier error of the dtensor dialect, with chunks between
// them that must verify cleanly.

//===----------------------------------------------------------------------===//
// dtensor.mesh
//===----------------------------------------------------------------------===//

// expected-error@+1 {{'dtensor.mesh' op mesh dim 1 has size 0; every mesh dim size must be positive}}
dtensor.mesh @mesh shape = [2, 0]

// -----

// expected-error@+1 {{'dtensor.mesh' op mesh dim 0 has size -2; every mesh dim size must be positive}}
dtensor.mesh @mesh shape = [-2, 4]

// -----

// More ranks than any machine: rejected before any per-rank table is built.
// expected-error@+1 {{'dtensor.mesh' op mesh has more than 16777216 ranks, the most supported}}
dtensor.mesh @mesh shape = [4294967296, 4294967296]

// -----

// expected-error@+1 {{'dtensor.mesh' op a mesh needs at least one dim}}
dtensor.mesh @mesh shape = []

// -----

// expected-error@+1 {{'dtensor.mesh' op has 1 dim name(s) for 2 dim(s); give one name per dim}}
dtensor.mesh @mesh shape = [2, 4] names = ["dp"]

// -----

// expected-error@+1 {{'dtensor.mesh' op has 3 dim name(s) for 2 dim(s); give one name per dim}}
dtensor.mesh @mesh shape = [2, 4] names = ["pp", "dp", "tp"]

// -----

// expected-error@+1 {{'dtensor.mesh' op has dim name "dp" twice; dim names must be unique}}
dtensor.mesh @mesh shape = [2, 4, 2] names = ["dp", "tp", "dp"]

// -----

// expected-error@+1 {{'dtensor.mesh' op has an empty dim name}}
dtensor.mesh @mesh shape = [2, 4] names = ["dp", ""]

// -----

// Valid meshes: size-1 dims, names or none.
dtensor.mesh @a shape = [1]
dtensor.mesh @b shape = [1, 8] names = ["x", "y"]
dtensor.mesh @c shape = [2, 3, 2] names = ["pp", "dp", "tp"]

//===----------------------------------------------------------------------===//
// dtensor.submesh
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>) {
  // expected-error@+1 {{'dtensor.submesh' op mesh @mesh has no dim named "pp"}}
  %0 = dtensor.submesh %m ["pp"] : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[0]>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>) {
  // expected-error@+1 {{'dtensor.submesh' op mesh @mesh has no dim named "dp" (it declares no names; add `names = [...]`)}}
  %0 = dtensor.submesh %m ["dp"] : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[0]>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>) {
  // expected-error@+1 {{'dtensor.submesh' op dim names must be unique and in mesh order; "dp" comes too late}}
  %0 = dtensor.submesh %m ["tp", "dp"] : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>) {
  // expected-error@+1 {{'dtensor.submesh' op dim names must be unique and in mesh order; "tp" comes too late}}
  %0 = dtensor.submesh %m ["tp", "tp"] : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[1]>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh[1]>) {
  // expected-error@+1 {{'dtensor.submesh' op dim "dp" is not a dim of the operand's view}}
  %0 = dtensor.submesh %m ["dp"] : !dtensor.device_mesh<@mesh[1]> -> !dtensor.device_mesh<@mesh[0]>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>) {
  // expected-error@+1 {{'dtensor.submesh' op result type should be '!dtensor.device_mesh<@mesh[1]>'}}
  %0 = dtensor.submesh %m ["tp"] : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[0]>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>) {
  // Naming every dim gives the whole mesh, not a view of all its dims.
  // expected-error@+1 {{'dtensor.submesh' op result type should be '!dtensor.device_mesh<@mesh>'}}
  %0 = dtensor.submesh %m ["dp", "tp"] : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[(0, 1)]>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh[(0, 1)]>) {
  // expected-error@+1 {{'dtensor.submesh' op cannot take a sub-mesh of a flattened view}}
  %0 = dtensor.submesh %m ["tp"] : !dtensor.device_mesh<@mesh[(0, 1)]> -> !dtensor.device_mesh<@mesh[1]>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>) {
  // expected-error@+1 {{'dtensor.submesh' op needs at least one dim name}}
  %0 = dtensor.submesh %m [] : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh>
  return
}

// -----

func.func @f(%m: !dtensor.device_mesh<@nomesh>) {
  // expected-error@+1 {{'dtensor.submesh' op mesh @nomesh is not declared; add `dtensor.mesh @nomesh shape = [...]` to the module}}
  %0 = dtensor.submesh %m ["tp"] : !dtensor.device_mesh<@nomesh> -> !dtensor.device_mesh<@nomesh[1]>
  return
}

// -----

// Valid sub-meshes, of the mesh and of a view.
dtensor.mesh @cube shape = [2, 3, 2] names = ["pp", "dp", "tp"]
func.func @f(%c: !dtensor.device_mesh<@cube>) {
  %0 = dtensor.submesh %c ["pp", "tp"] : !dtensor.device_mesh<@cube> -> !dtensor.device_mesh<@cube[0, 2]>
  %1 = dtensor.submesh %0 ["tp"] : !dtensor.device_mesh<@cube[0, 2]> -> !dtensor.device_mesh<@cube[2]>
  %2 = dtensor.submesh %c ["pp", "dp", "tp"] : !dtensor.device_mesh<@cube> -> !dtensor.device_mesh<@cube>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.flatten
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh>) {
  // expected-error@+1 {{'dtensor.flatten' op result type should be '!dtensor.device_mesh<@mesh[(0, 1)]>'}}
  %0 = dtensor.flatten %m : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh>
  return
}

// -----

dtensor.mesh @cube shape = [2, 3, 2]
func.func @f(%m: !dtensor.device_mesh<@cube[0, 2]>) {
  // expected-error@+1 {{'dtensor.flatten' op result type should be '!dtensor.device_mesh<@cube[(0, 2)]>'}}
  %0 = dtensor.flatten %m : !dtensor.device_mesh<@cube[0, 2]> -> !dtensor.device_mesh<@cube[(0, 1, 2)]>
  return
}

// -----

// Valid: flattening a flattened view changes nothing.
dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>) {
  %0 = dtensor.flatten %m : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[(0, 1)]>
  %1 = dtensor.flatten %0 : !dtensor.device_mesh<@mesh[(0, 1)]> -> !dtensor.device_mesh<@mesh[(0, 1)]>
  return
}

//===----------------------------------------------------------------------===//
// Mesh views (in !dtensor.device_mesh and #dtensor.spec)
//===----------------------------------------------------------------------===//

// -----

// The verifier's "a flattened mesh view needs the dims it flattens" cannot be
// reached from text: the parser rejects an empty flattened view first.
// expected-error@+1 {{expected integer value}}
func.func private @f(!dtensor.device_mesh<@mesh[()]>)

// -----

// expected-error@+1 {{mesh dims of a view must be unique and in mesh order (ascending), got [1, 0]}}
func.func private @f(!dtensor.device_mesh<@mesh[1, 0]>)

// -----

// expected-error@+1 {{mesh dims of a view must be unique and in mesh order (ascending), got [0, 2, 2]}}
func.func private @f(!dtensor.device_mesh<@mesh[(0, 2, 2)]>)

// -----

// expected-error@+1 {{mesh dims of a view must be unique and in mesh order (ascending), got [1, 0]}}
func.func private @f(tensor<4xf32, #dtensor.spec<@mesh[(1, 0)], [R]>>)

// -----

// expected-error@+1 {{mesh dim -1 is negative}}
func.func private @f(!dtensor.device_mesh<@mesh[-1]>)

// -----

// expected-error@+1 {{mesh dim -1 is negative}}
func.func private @f(tensor<4xf32, #dtensor.spec<@mesh[-1, 0], [R, R]>>)

// -----

// expected-error@+1 {{expected a mesh symbol such as @mesh}}
func.func private @f(!dtensor.device_mesh<"mesh">)

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh[2]>) {
  // expected-error@+1 {{'dtensor.flatten' op mesh dim 2 does not exist: mesh @mesh has 2 dim(s)}}
  %0 = dtensor.flatten %m : !dtensor.device_mesh<@mesh[2]> -> !dtensor.device_mesh<@mesh[(2)]>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh[0, 2]>) {
  // expected-error@+1 {{'dtensor.submesh' op mesh dim 2 does not exist: mesh @mesh has 2 dim(s)}}
  %0 = dtensor.submesh %m ["dp"] : !dtensor.device_mesh<@mesh[0, 2]> -> !dtensor.device_mesh<@mesh[0]>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@mesh[2], [S(0)]>>) {
  // expected-error@+1 {{'dtensor.to_local' op mesh dim 2 does not exist: mesh @mesh has 2 dim(s)}}
  %0 = dtensor.to_local %x : tensor<16x8xf32, #dtensor.spec<@mesh[2], [S(0)]>> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
func.func @f(%m: !dtensor.device_mesh<@mesh[0, 1]>) {
  // expected-error@+1 {{'dtensor.flatten' op a view of every dim of @mesh in order is the mesh itself: write @mesh without dims}}
  %0 = dtensor.flatten %m : !dtensor.device_mesh<@mesh[0, 1]> -> !dtensor.device_mesh<@mesh[(0, 1)]>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@mesh[0, 1], [S(0), R]>>) {
  // expected-error@+1 {{'dtensor.to_local' op a view of every dim of @mesh in order is the mesh itself: write @mesh without dims}}
  %0 = dtensor.to_local %x : tensor<16x8xf32, #dtensor.spec<@mesh[0, 1], [S(0), R]>> -> tensor<8x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// #dtensor.spec: parsing and the checks that need no mesh
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{expected a placement: S(d), R or P(op), got 'X'}}
func.func private @f(tensor<4xf32, #dtensor.spec<@mesh, [X]>>)

// -----

// expected-error@+1 {{expected a placement: S(d), R or P(op), got 'Sh'}}
func.func private @f(tensor<4x4xf32, #dtensor.spec<@mesh, [S(0), Sh(1)]>>)

// -----

// expected-error@+1 {{unknown Partial reduction 'mean' (expected sum, avg, max, min or product)}}
func.func private @f(tensor<4xf32, #dtensor.spec<@mesh, [P(mean)]>>)

// -----

// expected-error@+1 {{unknown Partial reduction 'add' (expected sum, avg, max, min or product)}}
func.func private @f(tensor<4xf32, #dtensor.spec<@mesh, [Partial(add)]>>)

// -----

// expected-error@+1 {{a shard order position must be >= 0}}
func.func private @f(tensor<4xf32, #dtensor.spec<@mesh, [S(0)[-1]]>>)

// -----

// expected-error@+1 {{a spec needs one placement per mesh dim, got none}}
func.func private @f(tensor<4xf32, #dtensor.spec<@mesh, []>>)

// -----

// expected-error@+1 {{placements [P(sum), P(avg), R] mixes Partial kinds P(sum) and P(avg); a spec may hold one Partial reduction only}}
func.func private @f(tensor<4x4xf32, #dtensor.spec<@cube, [P(sum), P(avg), R]>>)

// -----

// expected-error@+1 {{placements [P(max), S(0), P(min)] mixes Partial kinds P(max) and P(min)}}
func.func private @f(tensor<4x4xf32, #dtensor.spec<@cube, [Partial(max), S(0), Partial(min)]>>)

// -----

// expected-error@+1 {{placements [S(0)[0], S(0), R] shard order of tensor dim 0 is given for some but not all of the mesh dims sharding it; write a position [k] on every S(0) or on none}}
func.func private @f(tensor<4x4xf32, #dtensor.spec<@cube, [S(0)[0], S(0), R]>>)

// -----

// expected-error@+1 {{placements [S(0)[0], S(0)[0], R] shard order of tensor dim 0 is not a permutation: 2 mesh dim(s) shard it, so their positions must be 0..1, each once}}
func.func private @f(tensor<4x4xf32, #dtensor.spec<@cube, [S(0)[0], S(0)[0], R]>>)

// -----

// expected-error@+1 {{placements [S(1)[2], S(1)[0], R] shard order of tensor dim 1 is not a permutation: 2 mesh dim(s) shard it, so their positions must be 0..1, each once}}
func.func private @f(tensor<4x4xf32, #dtensor.spec<@cube, [S(1)[2], S(1)[0], R]>>)

// -----

// A shard dim out of range for the tensor's rank, reported by the encoding
// verification of the tensor type.
// expected-error@+1 {{placements [S(2), R]: shard dim 2 of mesh dim 0 is out of range for a rank-2 tensor (valid: -2..1)}}
func.func private @f(tensor<4x4xf32, #dtensor.spec<@mesh, [S(2), R]>>)

// -----

// expected-error@+1 {{placements [R, S(-3)]: shard dim -3 of mesh dim 1 is out of range for a rank-2 tensor (valid: -2..1)}}
func.func private @f(tensor<4x4xf32, #dtensor.spec<@mesh, [R, S(-3)]>>)

// -----

// expected-error@+1 {{placements [S(0)]: shard dim 0 of mesh dim 0 is out of range for a rank-0 tensor (valid: none, a rank-0 tensor cannot be sharded)}}
func.func private @f(tensor<f32, #dtensor.spec<@mesh, [S(0)]>>)

// -----

// Shard orders are checked again once negative dims are normalized for the
// rank: S(-1) and S(1) are one tensor dim of a rank-2 tensor.
// expected-error@+1 {{placements [S(-1)[1], S(-1)[0], S(1)] shard order of tensor dim 1 is given for some but not all of the mesh dims sharding it}}
func.func private @f(tensor<16x8xf32, #dtensor.spec<@cube, [S(-1)[1], S(-1)[0], S(1)]>>)

// -----

// The order check runs on normalized dims and before default orders are
// dropped: S(-1) and S(1) of a rank-2 tensor are one dim, one of them ordered.
// expected-error@+1 {{placements [S(-1)[0], S(1)] shard order of tensor dim 1 is given for some but not all of the mesh dims sharding it}}
func.func private @f(tensor<4x4xf32, #dtensor.spec<@mesh, [S(-1)[0], S(1)]>>)

// -----

// expected-error@+1 {{placements [S(-1)[0], S(-1)] shard order of tensor dim 1 is given for some but not all of the mesh dims sharding it}}
func.func private @f(tensor<4x4xf32, #dtensor.spec<@mesh, [S(-1)[0], S(-1)]>>)

// -----

// Valid: the same orders on a rank-3 tensor, where S(-1) is S(2).
func.func private @f(tensor<16x8x4xf32, #dtensor.spec<@cube, [S(-1)[1], S(-1)[0], S(1)]>>)

//===----------------------------------------------------------------------===//
// #dtensor.spec: the checks that need the mesh (run by the ops using a spec)
//===----------------------------------------------------------------------===//

// -----

func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@nomesh, [S(0), R]>>) {
  // expected-error@+1 {{'dtensor.to_local' op mesh @nomesh is not declared; add `dtensor.mesh @nomesh shape = [...]` to the module}}
  %0 = dtensor.to_local %x : tensor<16x8xf32, #dtensor.spec<@nomesh, [S(0), R]>> -> tensor<8x8xf32>
  return
}

// -----

// A symbol that is not a dtensor.mesh does not declare a mesh.
func.func private @mesh()
func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0)]>>) {
  // expected-error@+1 {{'dtensor.to_local' op mesh @mesh is not declared}}
  %0 = dtensor.to_local %x : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0)]>> -> tensor<?x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0)]>>) {
  // expected-error@+1 {{'dtensor.to_local' op spec #dtensor.spec<@mesh, [S(0)]> on mesh shape 2x4: placements [S(0)] has 1 placement(s) but the mesh has 2 dim(s); give exactly one placement per mesh dim}}
  %0 = dtensor.to_local %x : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0)]>> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@mesh[1], [S(0), R]>>) {
  // expected-error@+1 {{'dtensor.to_local' op spec #dtensor.spec<@mesh[1], [S(0), R]> on mesh shape 4: placements [S(0), R] has 2 placement(s) but the mesh has 1 dim(s)}}
  %0 = dtensor.to_local %x : tensor<16x8xf32, #dtensor.spec<@mesh[1], [S(0), R]>> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@mesh[(0, 1)], [S(0), R]>>) {
  // expected-error@+1 {{'dtensor.to_local' op spec #dtensor.spec<@mesh[(0, 1)], [S(0), R]> on mesh shape 8: placements [S(0), R] has 2 placement(s) but the mesh has 1 dim(s)}}
  %0 = dtensor.to_local %x : tensor<16x8xf32, #dtensor.spec<@mesh[(0, 1)], [S(0), R]>> -> tensor<8x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.distribute_tensor
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{'dtensor.distribute_tensor' op cannot distribute to #dtensor.spec<@mesh, [R, P(product)]>: on mesh dim 1: cannot redistribute R to P(product): no local op turns a replicated value into product terms; keep it R}}
  %0 = dtensor.distribute_tensor %t, %m : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, P(product)]>>
  return
}


// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{'dtensor.distribute_tensor' op result type 'tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>' must have the shape and element type of the source 'tensor<16x8xf32>'}}
  %0 = dtensor.distribute_tensor %t, %m : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{'dtensor.distribute_tensor' op result type 'tensor<16x8xf16, #dtensor.spec<@mesh, [S(0), R]>>' must have the shape and element type of the source 'tensor<16x8xf32>'}}
  %0 = dtensor.distribute_tensor %t, %m : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf16, #dtensor.spec<@mesh, [S(0), R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{'dtensor.distribute_tensor' op src_rank 2 is the source's rank within each mesh dim's group, but mesh dim 0 has only 2 rank(s)}}
  %0 = dtensor.distribute_tensor %t, %m src_rank = 2 : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  return
}

// -----

dtensor.mesh @mesh shape = [4, 2]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{'dtensor.distribute_tensor' op src_rank 3 is the source's rank within each mesh dim's group, but mesh dim 1 has only 2 rank(s)}}
  %0 = dtensor.distribute_tensor %t, %m src_rank = 3 : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{'dtensor.distribute_tensor' op attribute 'src_rank' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = dtensor.distribute_tensor %t, %m src_rank = -1 : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{'dtensor.distribute_tensor' op spec #dtensor.spec<@mesh[1], [S(0)]> is on another mesh view than the mesh operand '!dtensor.device_mesh<@mesh>'; pass the handle of the spec's mesh}}
  %0 = dtensor.distribute_tensor %t, %m : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh[1], [S(0)]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
dtensor.mesh @other shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@other>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{'dtensor.distribute_tensor' op spec #dtensor.spec<@mesh, [S(0), R]> is on another mesh view than the mesh operand '!dtensor.device_mesh<@other>'}}
  %0 = dtensor.distribute_tensor %t, %m : tensor<16x8xf32>, !dtensor.device_mesh<@other> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{'dtensor.distribute_tensor' op spec #dtensor.spec<@mesh, [S(0)]> on mesh shape 2x4: placements [S(0)] has 1 placement(s) but the mesh has 2 dim(s)}}
  %0 = dtensor.distribute_tensor %t, %m : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0)]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %t: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) {
  // expected-error@+1 {{'dtensor.distribute_tensor' op operand #0 must be ranked tensor without encoding, but got 'tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>'}}
  %0 = dtensor.distribute_tensor %t, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{'dtensor.distribute_tensor' op result #0 must be ranked tensor with a #dtensor.spec encoding, but got 'tensor<16x8xf32>'}}
  %0 = dtensor.distribute_tensor %t, %m : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32>
  return
}

// -----

// On a view, the message names the real mesh dim behind the view's dim.
dtensor.mesh @mesh shape = [2, 4]
func.func @f(%tp: !dtensor.device_mesh<@mesh[1]>, %t: tensor<8xf32>) {
  // expected-error@+1 {{'dtensor.distribute_tensor' op src_rank 4 is the source's rank within each mesh dim's group, but mesh dim 1 has only 4 rank(s)}}
  %0 = dtensor.distribute_tensor %t, %tp src_rank = 4 : tensor<8xf32>, !dtensor.device_mesh<@mesh[1]> -> tensor<8xf32, #dtensor.spec<@mesh[1], [S(0)]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%f: !dtensor.device_mesh<@mesh[(0, 1)]>, %t: tensor<8xf32>) {
  // expected-error@+1 {{'dtensor.distribute_tensor' op src_rank 8 is the source's rank within each mesh dim's group, but the flattened view @mesh[(0, 1)] has only 8 rank(s)}}
  %0 = dtensor.distribute_tensor %t, %f src_rank = 8 : tensor<8xf32>, !dtensor.device_mesh<@mesh[(0, 1)]> -> tensor<8xf32, #dtensor.spec<@mesh[(0, 1)], [S(0)]>>
  return
}

// -----

// Valid: src_rank below every mesh dim's size, on the mesh and on a view;
// uneven and dynamic shapes.
dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %tp: !dtensor.device_mesh<@mesh[1]>, %t: tensor<9x?xf32>) {
  %0 = dtensor.distribute_tensor %t, %m src_rank = 1 : tensor<9x?xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x?xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %1 = dtensor.distribute_tensor %t, %tp src_rank = 3 : tensor<9x?xf32>, !dtensor.device_mesh<@mesh[1]> -> tensor<9x?xf32, #dtensor.spec<@mesh[1], [S(0)]>>
  %2 = dtensor.distribute_tensor %t, %m : tensor<9x?xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x?xf32, #dtensor.spec<@mesh, [R, R]>>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.from_local
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %l: tensor<4x2xf32>) {
  // expected-error@+1 {{'dtensor.from_local' op local type 'tensor<4x2xf32>' cannot be a shard of 'tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>': dim 0 has size 8 on every rank, not 4}}
  %0 = dtensor.from_local %l, %m : tensor<4x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  return
}

// -----

// 9 rows on 2 ranks are 5 and 4.
dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %l: tensor<5x2xf32>) {
  // expected-error@+1 {{'dtensor.from_local' op local type 'tensor<5x2xf32>' cannot be a shard of 'tensor<9x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>': dim 0 is sharded unevenly (shard sizes 4, 5), so it must be dynamic ('?') locally}}
  %0 = dtensor.from_local %l, %m : tensor<5x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  return
}

// -----

// Nested: 9 rows as [S(0), S(0)] on 2x2 are 3, 2, 2, 2 (not flat 3, 3, 3, 0).
dtensor.mesh @mesh shape = [2, 2]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %l: tensor<3x4xf32>) {
  // expected-error@+1 {{'dtensor.from_local' op local type 'tensor<3x4xf32>' cannot be a shard of 'tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>': dim 0 is sharded unevenly (shard sizes 2, 3), so it must be dynamic ('?') locally}}
  %0 = dtensor.from_local %l, %m : tensor<3x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>
  return
}

// -----

// Nested with the other order: mesh dim 1 splits first, so rank (0, 1) holds 2.
dtensor.mesh @mesh shape = [2, 2]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %l: tensor<3x4xf32>) {
  // expected-error@+1 {{'dtensor.from_local' op local type 'tensor<3x4xf32>' cannot be a shard of 'tensor<9x4xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>': dim 0 is sharded unevenly (shard sizes 2, 3), so it must be dynamic ('?') locally}}
  %0 = dtensor.from_local %l, %m : tensor<3x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x4xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %l: tensor<8xf32>) {
  // expected-error@+1 {{'dtensor.from_local' op local type 'tensor<8xf32>' has rank 1 but 'tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>' has rank 2}}
  %0 = dtensor.from_local %l, %m : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %l: tensor<8x8xf16>) {
  // expected-error@+1 {{'dtensor.from_local' op local type 'tensor<8x8xf16>' has another element type than 'tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>'}}
  %0 = dtensor.from_local %l, %m : tensor<8x8xf16>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %l: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.from_local' op local type 'tensor<8x8xf32>' cannot be a shard of 'tensor<?x8xf32, #dtensor.spec<@mesh, [S(0), R]>>': dim 0 is dynamic globally, so it must be dynamic ('?') locally}}
  %0 = dtensor.from_local %l, %m : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %l: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.from_local' op spec #dtensor.spec<@mesh[0], [S(0)]> is on another mesh view than the mesh operand '!dtensor.device_mesh<@mesh>'; pass the handle of the spec's mesh}}
  %0 = dtensor.from_local %l, %m : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh[0], [S(0)]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %l: tensor<8x8xf32>) {
  // expected-error@+1 {{'dtensor.from_local' op spec #dtensor.spec<@mesh, [S(0), R, R]> on mesh shape 2x4: placements [S(0), R, R] has 3 placement(s) but the mesh has 2 dim(s)}}
  %0 = dtensor.from_local %l, %m run_check : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R, R]>>
  return
}

// -----

// Valid: uneven local dims written as '?', static where every rank agrees.
dtensor.mesh @mesh shape = [2, 4]
dtensor.mesh @square shape = [2, 2]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %s: !dtensor.device_mesh<@square>,
             %a: tensor<?x2xf32>, %b: tensor<?x?xf32>, %c: tensor<2x4xf32>, %d: tensor<?x4xf32>) {
  %0 = dtensor.from_local %a, %m : tensor<?x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %1 = dtensor.from_local %b, %m run_check : tensor<?x?xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %2 = dtensor.from_local %c, %s : tensor<2x4xf32>, !dtensor.device_mesh<@square> -> tensor<8x4xf32, #dtensor.spec<@square, [S(0), S(0)]>>
  %3 = dtensor.from_local %d, %s : tensor<?x4xf32>, !dtensor.device_mesh<@square> -> tensor<9x4xf32, #dtensor.spec<@square, [S(0), S(0)]>>
  %4 = dtensor.from_local %a, %m : tensor<?x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.to_local
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) {
  // expected-error@+1 {{'dtensor.to_local' op local type 'tensor<8x8xf32>' cannot be a shard of 'tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>': dim 1 has size 2 on every rank, not 8}}
  %0 = dtensor.to_local %x : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> -> tensor<8x8xf32>
  return
}

// -----

// A Partial value's local term has the global shape.
dtensor.mesh @mesh shape = [2, 4]
func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@mesh, [P(sum), R]>>) {
  // expected-error@+1 {{'dtensor.to_local' op local type 'tensor<8x8xf32>' cannot be a shard of 'tensor<16x8xf32, #dtensor.spec<@mesh, [P(sum), R]>>': dim 0 has size 16 on every rank, not 8}}
  %0 = dtensor.to_local %x : tensor<16x8xf32, #dtensor.spec<@mesh, [P(sum), R]>> -> tensor<8x8xf32>
  return
}

// -----

// 6 cols on 4 ranks are 2, 2, 2, 0.
dtensor.mesh @mesh shape = [2, 4]
func.func @f(%x: tensor<16x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) {
  // expected-error@+1 {{'dtensor.to_local' op local type 'tensor<8x2xf32>' cannot be a shard of 'tensor<16x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>': dim 1 is sharded unevenly (shard sizes 0, 2), so it must be dynamic ('?') locally}}
  %0 = dtensor.to_local %x : tensor<16x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> -> tensor<8x2xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) {
  // expected-error@+1 {{'dtensor.to_local' op local type 'tensor<8x2x1xf32>' has rank 3 but 'tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>' has rank 2}}
  %0 = dtensor.to_local %x : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> -> tensor<8x2x1xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) {
  // expected-error@+1 {{'dtensor.to_local' op local type 'tensor<8x2xi32>' has another element type than 'tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>'}}
  %0 = dtensor.to_local %x : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> -> tensor<8x2xi32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%x: tensor<16x?xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) {
  // expected-error@+1 {{'dtensor.to_local' op local type 'tensor<8x2xf32>' cannot be a shard of 'tensor<16x?xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>': dim 1 is dynamic globally, so it must be dynamic ('?') locally}}
  %0 = dtensor.to_local %x : tensor<16x?xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> -> tensor<8x2xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) {
  // expected-error@+1 {{'dtensor.to_local' op result #0 must be ranked tensor without encoding, but got 'tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>'}}
  %0 = dtensor.to_local %x : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>> -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return
}

// -----

// Valid: static where even, '?' where uneven or dynamic, global shape for
// Partial and Replicate, nested orders, flattened views.
dtensor.mesh @mesh shape = [2, 4]
func.func @f(%a: tensor<9x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>,
             %b: tensor<16x8xf32, #dtensor.spec<@mesh, [P(avg), R]>>,
             %c: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>,
             %d: tensor<?x8xf32, #dtensor.spec<@mesh[(0, 1)], [S(1)]>>,
             %e: tensor<16x8xf32, #dtensor.spec<@mesh, [S(-1), S(-2)]>>) {
  %0 = dtensor.to_local %a : tensor<9x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> -> tensor<?x?xf32>
  %1 = dtensor.to_local %b : tensor<16x8xf32, #dtensor.spec<@mesh, [P(avg), R]>> -> tensor<16x8xf32>
  %2 = dtensor.to_local %c : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>> -> tensor<2x8xf32>
  %3 = dtensor.to_local %d : tensor<?x8xf32, #dtensor.spec<@mesh[(0, 1)], [S(1)]>> -> tensor<?x1xf32>
  %4 = dtensor.to_local %e : tensor<16x8xf32, #dtensor.spec<@mesh, [S(-1), S(-2)]>> -> tensor<4x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.redistribute
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) {
  // expected-error@+1 {{'dtensor.redistribute' op on mesh dim 0: cannot redistribute S(0) to P(max): a shard can only become a Partial(sum) (its shard in place, zeros elsewhere); go through Replicate (R) first for P(max)}}
  %0 = dtensor.redistribute %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [P(max), R]>>
  return
}

// -----

// Shard dims are normalized before the check: S(-1) is S(1).
dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(-1), R]>>) {
  // expected-error@+1 {{'dtensor.redistribute' op on mesh dim 0: cannot redistribute S(1) to P(avg): a shard can only become a Partial(sum)}}
  %0 = dtensor.redistribute %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(-1), R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [P(avg), R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<16x8xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) {
  // expected-error@+1 {{'dtensor.redistribute' op on mesh dim 1: cannot redistribute P(sum) to P(max): one Partial reduction cannot become another; reduce to R first}}
  %0 = dtensor.redistribute %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [R, P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, P(max)]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>) {
  // expected-error@+1 {{'dtensor.redistribute' op on mesh dim 1: cannot redistribute R to P(product): no local op turns a replicated value into product terms; keep it R}}
  %0 = dtensor.redistribute %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, P(product)]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) {
  // expected-error@+1 {{'dtensor.redistribute' op changes the tensor ('tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>' -> 'tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>'); redistribute keeps the shape and element type}}
  %0 = dtensor.redistribute %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh> -> tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) {
  // expected-error@+1 {{'dtensor.redistribute' op changes the tensor ('tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>' -> 'tensor<16x8xf64, #dtensor.spec<@mesh, [S(0), R]>>')}}
  %0 = dtensor.redistribute %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf64, #dtensor.spec<@mesh, [S(0), R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) {
  // expected-error@+1 {{'dtensor.redistribute' op source and result specs have 2 and 1 placements on one mesh}}
  %0 = dtensor.redistribute %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<16x8xf32, #dtensor.spec<@mesh[1], [S(0)]>>) {
  // expected-error@+1 {{'dtensor.redistribute' op spec #dtensor.spec<@mesh[1], [S(0)]> is on another mesh view than the mesh operand '!dtensor.device_mesh<@mesh>'; pass the handle of the spec's mesh}}
  %0 = dtensor.redistribute %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh[1], [S(0)]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>) {
  // expected-error@+1 {{'dtensor.redistribute' op spec #dtensor.spec<@mesh[(0, 1)], [S(0)]> is on another mesh view than the mesh operand '!dtensor.device_mesh<@mesh>'}}
  %0 = dtensor.redistribute %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh[(0, 1)], [S(0)]>>
  return
}

// -----

// Both specs are checked against the mesh.
dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh[1, 2]>, %x: tensor<16x8xf32, #dtensor.spec<@mesh[1, 2], [R, R]>>) {
  // expected-error@+1 {{'dtensor.redistribute' op mesh dim 2 does not exist: mesh @mesh has 2 dim(s)}}
  %0 = dtensor.redistribute %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh[1, 2], [R, R]>>, !dtensor.device_mesh<@mesh[1, 2]> -> tensor<16x8xf32, #dtensor.spec<@mesh[1, 2], [S(0), R]>>
  return
}

// -----

// Valid: R -> P(sum), R -> P(avg|max|min), P(avg) -> R, P -> S, S(0) -> S(1),
// S -> R, and a Partial kept as is.
dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>) {
  %0 = dtensor.redistribute %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [P(sum), R]>>
  %1 = dtensor.redistribute %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [P(avg), P(avg)]>>
  %2 = dtensor.redistribute %1, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [P(avg), P(avg)]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, P(avg)]>>
  %3 = dtensor.redistribute %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [P(max), P(max)]>>
  %4 = dtensor.redistribute %3, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [P(max), P(max)]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %5 = dtensor.redistribute %4, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(1), S(0)]>>
  %6 = dtensor.redistribute %5, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(1), S(0)]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>
  %7 = dtensor.redistribute %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, P(min)]>>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.full_tensor
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>) {
  // expected-error@+1 {{'dtensor.full_tensor' op result type 'tensor<8x8xf32>' must be the global tensor of 'tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>'}}
  %0 = dtensor.full_tensor %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>) {
  // expected-error@+1 {{'dtensor.full_tensor' op result type 'tensor<16x8xbf16>' must be the global tensor of 'tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>'}}
  %0 = dtensor.full_tensor %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xbf16>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh[0]>, %x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>) {
  // expected-error@+1 {{'dtensor.full_tensor' op spec #dtensor.spec<@mesh, [S(0), P(sum)]> is on another mesh view than the mesh operand '!dtensor.device_mesh<@mesh[0]>'; pass the handle of the spec's mesh}}
  %0 = dtensor.full_tensor %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>, !dtensor.device_mesh<@mesh[0]> -> tensor<16x8xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum), R]>>) {
  // expected-error@+1 {{'dtensor.full_tensor' op spec #dtensor.spec<@mesh, [S(0), P(sum), R]> on mesh shape 2x4: placements [S(0), P(sum), R] has 3 placement(s) but the mesh has 2 dim(s)}}
  %0 = dtensor.full_tensor %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum), R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32>
  return
}

// -----

// Valid: any spec, any view, dynamic dims.
dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %tp: !dtensor.device_mesh<@mesh[1]>,
             %x: tensor<9x?xf32, #dtensor.spec<@mesh, [S(0), P(product)]>>,
             %y: tensor<9x?xf32, #dtensor.spec<@mesh[1], [S(-1)]>>) {
  %0 = dtensor.full_tensor %x, %m : tensor<9x?xf32, #dtensor.spec<@mesh, [S(0), P(product)]>>, !dtensor.device_mesh<@mesh> -> tensor<9x?xf32>
  %1 = dtensor.full_tensor %y, %tp : tensor<9x?xf32, #dtensor.spec<@mesh[1], [S(-1)]>>, !dtensor.device_mesh<@mesh[1]> -> tensor<9x?xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @hint_shape(%m: !dtensor.device_mesh<@mesh>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{changes the tensor ('tensor<16x8xf32>' -> 'tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>'); a hint keeps the shape and element type}}
  %a = dtensor.hint %t, %m : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @hint_illegal(%m: !dtensor.device_mesh<@mesh>, %t: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) {
  // expected-error@+1 {{on mesh dim 0:}}
  %a = dtensor.hint %t, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [P(max), R]>>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @reshard_local(%m: !dtensor.device_mesh<@mesh>, %l: tensor<4x8xf32>) {
  // expected-error@+1 {{local type 'tensor<4x8xf32>'}}
  %a = dtensor.reshard %l, %m to #dtensor.spec<@mesh, [R, S(1)]> from tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>> : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x2xf32>
  return
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @reshard_illegal(%m: !dtensor.device_mesh<@mesh>, %l: tensor<8x8xf32>) {
  // expected-error@+1 {{on mesh dim 0:}}
  %a = dtensor.reshard %l, %m to #dtensor.spec<@mesh, [P(max), R]> from tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>> : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32>
  return
}

// -----

// Sizes that do not fit in int64 (issue 10), reported by the encoding
// verification of the tensor type: the element count...
// expected-error@+1 {{a tensor of shape 4611686018427387904x4 has more elements than fit in a signed 64-bit integer (at most 9223372036854775807), which sizes and offsets are computed in; use smaller dims}}
func.func private @f(tensor<4611686018427387904x4xf32, #dtensor.spec<@mesh, [S(0)]>>)

// -----

// ... and the byte size, counting static dims only.
// expected-error@+1 {{a tensor of 2305843009213693952 'f32' elements holds more bytes than fit in a signed 64-bit integer (at most 9223372036854775807), which communication is counted in; use smaller dims}}
func.func private @f(tensor<?x2305843009213693952xf32, #dtensor.spec<@mesh, [S(0)]>>)

// -----

// expected-error@+1 {{a tensor of 2305843009213693951 'complex<f32>' elements holds more bytes than fit in a signed 64-bit integer}}
func.func private @f(tensor<2305843009213693951xcomplex<f32>, #dtensor.spec<@mesh, [S(0)]>>)

// -----

// The largest that fits: 2^61 f32 elements less one.
func.func private @f(tensor<2305843009213693951xf32, #dtensor.spec<@mesh, [S(0)]>>)
