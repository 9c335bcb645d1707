// RUN: dtensor-opt %s | dtensor-opt | FileCheck %s
// RUN: dtensor-opt %s --mlir-print-op-generic | dtensor-opt | FileCheck %s

// Round trip of the #dtensor.spec attribute and the !dtensor.device_mesh
// type: every spelling prints in its one canonical form. Function arguments
// carry the types; declarations print them without argument names, so each
// CHECK line asserts the whole printed signature.

dtensor.mesh @ring shape = [8]
dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
dtensor.mesh @cube shape = [2, 3, 2] names = ["pp", "dp", "tp"]

//===----------------------------------------------------------------------===//
// Placements: short spellings
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func private @short(tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [S(1), S(0)]>>){{$}}
func.func private @short(tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
                         tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
                         tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>,
                         tensor<16x8xf32, #dtensor.spec<@mesh, [S(1), S(0)]>>)

// Every Partial reduction.
// CHECK-LABEL: func.func private @partials(tensor<8xf32, #dtensor.spec<@ring, [P(sum)]>>, tensor<8xf32, #dtensor.spec<@ring, [P(avg)]>>, tensor<8xf32, #dtensor.spec<@ring, [P(max)]>>, tensor<8xf32, #dtensor.spec<@ring, [P(min)]>>, tensor<8xf32, #dtensor.spec<@ring, [P(product)]>>){{$}}
func.func private @partials(tensor<8xf32, #dtensor.spec<@ring, [P(sum)]>>,
                            tensor<8xf32, #dtensor.spec<@ring, [P(avg)]>>,
                            tensor<8xf32, #dtensor.spec<@ring, [P(max)]>>,
                            tensor<8xf32, #dtensor.spec<@ring, [P(min)]>>,
                            tensor<8xf32, #dtensor.spec<@ring, [P(product)]>>)

// One Partial kind on several mesh dims, and Partial next to Shard.
// CHECK-LABEL: func.func private @partial_mixed(tensor<16x8xf32, #dtensor.spec<@mesh, [P(max), P(max)]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(avg)]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [P(min), R]>>){{$}}
func.func private @partial_mixed(tensor<16x8xf32, #dtensor.spec<@mesh, [P(max), P(max)]>>,
                                 tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(avg)]>>,
                                 tensor<16x8xf32, #dtensor.spec<@mesh, [P(min), R]>>)

//===----------------------------------------------------------------------===//
// Placements: DTensor's spellings print short
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func private @long(tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [P(sum), S(1)]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [P(max), R]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [R, P(avg)]>>){{$}}
func.func private @long(tensor<16x8xf32, #dtensor.spec<@mesh, [Shard(0), Replicate()]>>,
                        tensor<16x8xf32, #dtensor.spec<@mesh, [Partial(), Shard(1)]>>,
                        tensor<16x8xf32, #dtensor.spec<@mesh, [Partial(max), Replicate()]>>,
                        tensor<16x8xf32, #dtensor.spec<@mesh, [Replicate(), Partial(avg)]>>)

// Without parentheses: `Replicate` is R, `P` and `Partial` are P(sum); `prod`
// is product.
// CHECK-LABEL: func.func private @bare(tensor<16x8xf32, #dtensor.spec<@mesh, [R, P(sum)]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [P(sum), R]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [P(product), R]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>){{$}}
func.func private @bare(tensor<16x8xf32, #dtensor.spec<@mesh, [Replicate, P]>>,
                        tensor<16x8xf32, #dtensor.spec<@mesh, [Partial, R]>>,
                        tensor<16x8xf32, #dtensor.spec<@mesh, [P(prod), Replicate]>>,
                        tensor<16x8xf32, #dtensor.spec<@mesh, [Shard(0), P()]>>)

//===----------------------------------------------------------------------===//
// Shard orders
//===----------------------------------------------------------------------===//

// A non-default order is kept; the default order, written out, is dropped, so
// both spellings of the default are one type.
// CHECK-LABEL: func.func private @orders(tensor<16x8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [S(1), R]>>){{$}}
func.func private @orders(tensor<16x8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>,
                          tensor<16x8xf32, #dtensor.spec<@mesh, [S(0)[0], S(0)[1]]>>,
                          tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>,
                          tensor<16x8xf32, #dtensor.spec<@mesh, [S(1)[0], R]>>)

// Orders on a 3-D mesh: per tensor dim, kept unless default.
// CHECK-LABEL: func.func private @orders_3d(tensor<4x6x8xf32, #dtensor.spec<@cube, [S(1)[2], S(1)[0], S(1)[1]]>>, tensor<4x6x8xf32, #dtensor.spec<@cube, [S(1), S(1), S(1)]>>, tensor<4x6x8xf32, #dtensor.spec<@cube, [S(2), S(0)[1], S(0)[0]]>>, tensor<4x6x8xf32, #dtensor.spec<@cube, [S(0), S(1), S(0)]>>, tensor<4x6x8xf32, #dtensor.spec<@cube, [S(0)[1], S(2), S(0)[0]]>>){{$}}
func.func private @orders_3d(tensor<4x6x8xf32, #dtensor.spec<@cube, [S(1)[2], S(1)[0], S(1)[1]]>>,
                             tensor<4x6x8xf32, #dtensor.spec<@cube, [S(1)[0], S(1)[1], S(1)[2]]>>,
                             tensor<4x6x8xf32, #dtensor.spec<@cube, [S(2), S(0)[1], S(0)[0]]>>,
                             tensor<4x6x8xf32, #dtensor.spec<@cube, [S(0)[0], S(1)[0], S(0)[1]]>>,
                             tensor<4x6x8xf32, #dtensor.spec<@cube, [S(0)[1], Shard(2), Shard(0)[0]]>>)

//===----------------------------------------------------------------------===//
// Negative shard dims are kept as written
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func private @negative(tensor<16x8xf32, #dtensor.spec<@mesh, [S(-1), R]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [S(-2), S(-1)]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [S(-1), S(1)]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [S(-2)[1], S(-2)[0]]>>, tensor<8xf32, #dtensor.spec<@ring, [S(-1)]>>){{$}}
func.func private @negative(tensor<16x8xf32, #dtensor.spec<@mesh, [S(-1), R]>>,
                            tensor<16x8xf32, #dtensor.spec<@mesh, [Shard(-2), S(-1)]>>,
                            tensor<16x8xf32, #dtensor.spec<@mesh, [S(-1), S(1)]>>,
                            tensor<16x8xf32, #dtensor.spec<@mesh, [S(-2)[1], S(-2)[0]]>>,
                            tensor<8xf32, #dtensor.spec<@ring, [S(-1)]>>)

//===----------------------------------------------------------------------===//
// Mesh views in specs
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func private @views(tensor<16x8xf32, #dtensor.spec<@mesh[1], [S(0)]>>, tensor<16x8xf32, #dtensor.spec<@mesh[0], [P(sum)]>>, tensor<16x8xf32, #dtensor.spec<@mesh[(0, 1)], [S(1)]>>, tensor<4x6x8xf32, #dtensor.spec<@cube[0, 2], [S(0), S(2)]>>, tensor<4x6x8xf32, #dtensor.spec<@cube[(1, 2)], [R]>>, tensor<4x6x8xf32, #dtensor.spec<@cube[(0, 1, 2)], [S(-1)]>>, tensor<8xf32, #dtensor.spec<@ring[(0)], [S(0)]>>){{$}}
func.func private @views(tensor<16x8xf32, #dtensor.spec<@mesh[1], [S(0)]>>,
                         tensor<16x8xf32, #dtensor.spec<@mesh[0], [Partial()]>>,
                         tensor<16x8xf32, #dtensor.spec<@mesh[ ( 0 ,1 ) ], [S(1)]>>,
                         tensor<4x6x8xf32, #dtensor.spec<@cube[0, 2], [S(0), S(2)]>>,
                         tensor<4x6x8xf32, #dtensor.spec<@cube[(1, 2)], [R]>>,
                         tensor<4x6x8xf32, #dtensor.spec<@cube[(0, 1, 2)], [S(-1)]>>,
                         tensor<8xf32, #dtensor.spec<@ring[(0)], [S(0)]>>)

// Specs on a 3-D mesh.
// CHECK-LABEL: func.func private @on_cube(tensor<4x6x8xf32, #dtensor.spec<@cube, [S(0), R, P(avg)]>>, tensor<4x6x8xf32, #dtensor.spec<@cube, [R, S(2), S(1)]>>, tensor<4x6x8xf32, #dtensor.spec<@cube, [P(min), P(min), S(-3)]>>, tensor<4x6x8xi32, #dtensor.spec<@cube, [R, R, R]>>){{$}}
func.func private @on_cube(tensor<4x6x8xf32, #dtensor.spec<@cube, [S(0), R, P(avg)]>>,
                        tensor<4x6x8xf32, #dtensor.spec<@cube, [R, S(2), S(1)]>>,
                        tensor<4x6x8xf32, #dtensor.spec<@cube, [P(min), P(min), S(-3)]>>,
                        tensor<4x6x8xi32, #dtensor.spec<@cube, [R, R, R]>>)

// Dynamic and rank-0 global shapes.
// CHECK-LABEL: func.func private @shapes(tensor<?x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, tensor<?x?xbf16, #dtensor.spec<@mesh, [S(1), S(0)]>>, tensor<f32, #dtensor.spec<@mesh, [R, P(sum)]>>){{$}}
func.func private @shapes(tensor<?x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>,
                          tensor<?x?xbf16, #dtensor.spec<@mesh, [S(1), S(0)]>>,
                          tensor<f32, #dtensor.spec<@mesh, [R, P(sum)]>>)

//===----------------------------------------------------------------------===//
// !dtensor.device_mesh
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func private @handles(!dtensor.device_mesh<@mesh>, !dtensor.device_mesh<@mesh[1]>, !dtensor.device_mesh<@mesh[0]>, !dtensor.device_mesh<@cube[0, 2]>, !dtensor.device_mesh<@mesh[(0, 1)]>, !dtensor.device_mesh<@cube[(1, 2)]>, !dtensor.device_mesh<@cube[(0, 1, 2)]>, !dtensor.device_mesh<@ring[(0)]>){{$}}
func.func private @handles(!dtensor.device_mesh<@mesh>,
                           !dtensor.device_mesh<@mesh[1]>,
                           !dtensor.device_mesh<@mesh[ 0 ]>,
                           !dtensor.device_mesh<@cube[0,2]>,
                           !dtensor.device_mesh<@mesh[(0, 1)]>,
                           !dtensor.device_mesh<@cube[(1, 2)]>,
                           !dtensor.device_mesh<@cube[(0, 1, 2)]>,
                           !dtensor.device_mesh<@ring[(0)]>)

//===----------------------------------------------------------------------===//
// Types carried through a function body
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @body
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@cube[0, 2]>, %[[X:[a-z0-9_]+]]: tensor<4x6x8xf32, #dtensor.spec<@cube[0, 2], [S(0)[1], S(0)[0]]>>)
// CHECK-SAME: -> (!dtensor.device_mesh<@cube[0, 2]>, tensor<4x6x8xf32, #dtensor.spec<@cube[0, 2], [S(0)[1], S(0)[0]]>>)
// CHECK-NEXT: return %[[M]], %[[X]] : !dtensor.device_mesh<@cube[0, 2]>, tensor<4x6x8xf32, #dtensor.spec<@cube[0, 2], [S(0)[1], S(0)[0]]>>
func.func @body(%m: !dtensor.device_mesh<@cube[0, 2]>,
                %x: tensor<4x6x8xf32, #dtensor.spec<@cube[0, 2], [Shard(0)[1], Shard(0)[0]]>>)
    -> (!dtensor.device_mesh<@cube[0, 2]>, tensor<4x6x8xf32, #dtensor.spec<@cube[0, 2], [S(0)[1], S(0)[0]]>>) {
  return %m, %x : !dtensor.device_mesh<@cube[0, 2]>, tensor<4x6x8xf32, #dtensor.spec<@cube[0, 2], [S(0)[1], S(0)[0]]>>
}

// A spec is also an attribute of its own, outside any tensor type.
// CHECK-LABEL: func.func private @standalone()
// CHECK-SAME: attributes {dtensor.in = #dtensor.spec<@mesh, [S(0), P(max)]>, dtensor.out = #dtensor.spec<@mesh[(0, 1)], [R]>}{{$}}
func.func private @standalone() attributes {
  dtensor.in = #dtensor.spec<@mesh, [Shard(0), Partial(max)]>,
  dtensor.out = #dtensor.spec<@mesh[(0, 1)], [Replicate()]>
}
