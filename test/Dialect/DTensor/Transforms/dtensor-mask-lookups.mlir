// RUN: dtensor-opt %s --dtensor-mask-lookups --split-input-file | FileCheck %s

// A table gathered for a lookup is looked up where it is sharded and the
// group sums the masked results, when the result is the same across the
// group and it pays; every other case keeps its gather.

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#ids = affine_map<(i, j) -> (i)>
#out = affine_map<(i, j) -> (i, j)>

// CHECK-LABEL: func.func @masked
// CHECK-NOT:     dtensor.all_gather
// CHECK:         %[[C:.+]] = dtensor.mesh_coord %arg0 mesh_dims = [1]
// CHECK:         %[[O:.+]] = arith.muli %[[C]], %c32
// CHECK:         %[[G:.+]] = linalg.generic
// CHECK:           %[[L:.+]] = arith.subi %{{.*}}, %[[O]] : index
// CHECK:           %[[IN:.+]] = arith.andi
// CHECK:           %[[S:.+]] = arith.select %[[IN]], %[[L]], %c0
// CHECK:           %[[V:.+]] = tensor.extract %arg1[%[[S]], %{{.*}}] : tensor<32x8xf32>
// CHECK:           arith.select %[[IN]], %[[V]], %cst
// CHECK:         %[[R:.+]] = dtensor.all_reduce %[[G]], %arg0 mesh_dims = [1] reduce = sum
// CHECK:         return %[[R]]
func.func @masked(%m: !dtensor.device_mesh<@mesh>,
                  %t: tensor<32x8xf32> {dtensor.global = tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>},
                  %ids: tensor<2xindex> {dtensor.global = tensor<4xindex, #dtensor.spec<@mesh, [S(0), R]>>})
    -> (tensor<2x8xf32> {dtensor.global = tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>}) {
  %g = dtensor.all_gather %t, %m mesh_dims = [1] gather_dim = 0 : tensor<32x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<64x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<2xindex>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%i: index, %o: f32):
    %j = linalg.index 1 : index
    %v = tensor.extract %g[%i, %j] : tensor<64x8xf32>
    linalg.yield %v : f32
  } -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#ids = affine_map<(i, j) -> (i)>
#out = affine_map<(i, j) -> (i, j)>

// Ids sharded over the gather's group: each rank looks other ids up.
// CHECK-LABEL: func.func @ids_differ
// CHECK:         dtensor.all_gather
// CHECK-NOT:     dtensor.all_reduce
func.func @ids_differ(%m: !dtensor.device_mesh<@mesh>,
                      %t: tensor<32x8xf32> {dtensor.global = tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>},
                      %ids: tensor<2xindex> {dtensor.global = tensor<4xindex, #dtensor.spec<@mesh, [R, S(0)]>>})
    -> tensor<2x8xf32> {
  %g = dtensor.all_gather %t, %m mesh_dims = [1] gather_dim = 0 : tensor<32x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<64x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<2xindex>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%i: index, %o: f32):
    %j = linalg.index 1 : index
    %v = tensor.extract %g[%i, %j] : tensor<64x8xf32>
    linalg.yield %v : f32
  } -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#ids = affine_map<(i, j) -> (i)>
#out = affine_map<(i, j) -> (i, j)>

// A function without a contract (local code: its arguments may differ per
// rank), a lookup in a loop around which the table was gathered once, a body
// that divides by the value (a rank without the row would divide by its own
// first row's value, maybe zero), one that converts it to an integer
// (undefined out of range in the emitted C++) and one that reads another
// table at the value: all keep the gather.
// CHECK-LABEL: func.func @no_contract
// CHECK:         dtensor.all_gather
// CHECK-NOT:     dtensor.all_reduce
// CHECK-LABEL: func.func @in_loop
// CHECK:         dtensor.all_gather
// CHECK-NOT:     dtensor.all_reduce
// CHECK-LABEL: func.func @divides
// CHECK:         dtensor.all_gather
// CHECK-NOT:     dtensor.all_reduce
// CHECK-LABEL: func.func @converts
// CHECK:         dtensor.all_gather
// CHECK-NOT:     dtensor.all_reduce
// CHECK-LABEL: func.func @reads_at_value
// CHECK:         dtensor.all_gather
// CHECK-NOT:     dtensor.all_reduce
func.func @no_contract(%m: !dtensor.device_mesh<@mesh>, %t: tensor<32x8xf32>, %ids: tensor<2xindex>) -> tensor<2x8xf32> {
  %g = dtensor.all_gather %t, %m mesh_dims = [1] gather_dim = 0 : tensor<32x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<64x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<2xindex>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%i: index, %o: f32):
    %j = linalg.index 1 : index
    %v = tensor.extract %g[%i, %j] : tensor<64x8xf32>
    linalg.yield %v : f32
  } -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

func.func @in_loop(%m: !dtensor.device_mesh<@mesh>,
                   %t: tensor<32x8xf32> {dtensor.global = tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>},
                   %ids: tensor<2xindex> {dtensor.global = tensor<4xindex, #dtensor.spec<@mesh, [S(0), R]>>})
    -> tensor<2x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %g = dtensor.all_gather %t, %m mesh_dims = [1] gather_dim = 0 : tensor<32x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<64x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %e) -> (tensor<2x8xf32>) {
    %l = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
        ins(%ids : tensor<2xindex>) outs(%e : tensor<2x8xf32>) {
    ^bb0(%i: index, %o: f32):
      %j = linalg.index 1 : index
      %v = tensor.extract %g[%i, %j] : tensor<64x8xf32>
      linalg.yield %v : f32
    } -> tensor<2x8xf32>
    scf.yield %l : tensor<2x8xf32>
  }
  return %r : tensor<2x8xf32>
}

func.func @divides(%m: !dtensor.device_mesh<@mesh>,
                   %t: tensor<32x8xi32> {dtensor.global = tensor<64x8xi32, #dtensor.spec<@mesh, [R, S(0)]>>},
                   %ids: tensor<2xindex> {dtensor.global = tensor<4xindex, #dtensor.spec<@mesh, [S(0), R]>>})
    -> tensor<2x8xi32> {
  %c7 = arith.constant 7 : i32
  %g = dtensor.all_gather %t, %m mesh_dims = [1] gather_dim = 0 : tensor<32x8xi32>, !dtensor.device_mesh<@mesh> -> tensor<64x8xi32>
  %e = tensor.empty() : tensor<2x8xi32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<2xindex>) outs(%e : tensor<2x8xi32>) {
  ^bb0(%i: index, %o: i32):
    %j = linalg.index 1 : index
    %v = tensor.extract %g[%i, %j] : tensor<64x8xi32>
    %x = arith.divsi %c7, %v : i32
    linalg.yield %x : i32
  } -> tensor<2x8xi32>
  return %r : tensor<2x8xi32>
}

func.func @converts(%m: !dtensor.device_mesh<@mesh>,
                    %t: tensor<32x8xf32> {dtensor.global = tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>},
                    %ids: tensor<2xindex> {dtensor.global = tensor<4xindex, #dtensor.spec<@mesh, [S(0), R]>>})
    -> tensor<2x8xi32> {
  %g = dtensor.all_gather %t, %m mesh_dims = [1] gather_dim = 0 : tensor<32x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<64x8xf32>
  %e = tensor.empty() : tensor<2x8xi32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<2xindex>) outs(%e : tensor<2x8xi32>) {
  ^bb0(%i: index, %o: i32):
    %j = linalg.index 1 : index
    %v = tensor.extract %g[%i, %j] : tensor<64x8xf32>
    %x = arith.fptosi %v : f32 to i32
    linalg.yield %x : i32
  } -> tensor<2x8xi32>
  return %r : tensor<2x8xi32>
}

func.func @reads_at_value(%m: !dtensor.device_mesh<@mesh>,
                          %t: tensor<32x8xindex> {dtensor.global = tensor<64x8xindex, #dtensor.spec<@mesh, [R, S(0)]>>},
                          %u: tensor<100xf32> {dtensor.global = tensor<100xf32, #dtensor.spec<@mesh, [R, R]>>},
                          %ids: tensor<2xindex> {dtensor.global = tensor<4xindex, #dtensor.spec<@mesh, [S(0), R]>>})
    -> tensor<2x8xf32> {
  %g = dtensor.all_gather %t, %m mesh_dims = [1] gather_dim = 0 : tensor<32x8xindex>, !dtensor.device_mesh<@mesh> -> tensor<64x8xindex>
  %e = tensor.empty() : tensor<2x8xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<2xindex>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%i: index, %o: f32):
    %j = linalg.index 1 : index
    %v = tensor.extract %g[%i, %j] : tensor<64x8xindex>
    %x = tensor.extract %u[%v] : tensor<100xf32>
    linalg.yield %x : f32
  } -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#ids = affine_map<(i, j) -> (i)>
#out = affine_map<(i, j) -> (i, j)>

// A body that computes on the looked-up value (a scaled exponential, plus a
// row of another, replicated table): the select takes what it yields, so
// exp(0) of a rank without the row does not count.
// CHECK-LABEL: func.func @computes
// CHECK-NOT:     dtensor.all_gather
// CHECK:         %[[G:.+]] = linalg.generic
// CHECK:           %[[IN:.+]] = arith.andi
// CHECK:           %[[V:.+]] = tensor.extract %arg1[%{{.*}}, %{{.*}}] : tensor<32x8xf32>
// CHECK:           %[[X:.+]] = math.exp %[[V]]
// CHECK:           %[[Y:.+]] = arith.addf
// CHECK:           %[[M:.+]] = arith.select %[[IN]], %[[Y]], %{{.*}} : f32
// CHECK:           linalg.yield %[[M]]
// CHECK:         %[[R:.+]] = dtensor.all_reduce %[[G]], %arg0 mesh_dims = [1] reduce = sum
// CHECK:         return %[[R]]
func.func @computes(%m: !dtensor.device_mesh<@mesh>,
                    %t: tensor<32x8xf32> {dtensor.global = tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>},
                    %ids: tensor<2xindex> {dtensor.global = tensor<4xindex, #dtensor.spec<@mesh, [S(0), R]>>},
                    %pos: tensor<8xf32> {dtensor.global = tensor<8xf32, #dtensor.spec<@mesh, [R, R]>>})
    -> tensor<2x8xf32> {
  %g = dtensor.all_gather %t, %m mesh_dims = [1] gather_dim = 0 : tensor<32x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<64x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<2xindex>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%i: index, %o: f32):
    %j = linalg.index 1 : index
    %v = tensor.extract %g[%i, %j] : tensor<64x8xf32>
    %x = math.exp %v : f32
    %p = tensor.extract %pos[%j] : tensor<8xf32>
    %y = arith.addf %x, %p : f32
    linalg.yield %y : f32
  } -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#ids = affine_map<(i, j) -> (i)>
#out = affine_map<(i, j) -> (i, j)>

// An uneven table (63 rows: 32 and 31) gathered as padded pieces and sliced
// to its rows: the lookup reads the padded piece, the slice and the gather
// go. A slice that drops leading rows, or cuts another dim, keeps them.
// CHECK-LABEL: func.func @uneven
// CHECK-NOT:     dtensor.all_gather
// CHECK-NOT:     tensor.extract_slice
// CHECK:         linalg.generic
// CHECK:           tensor.extract %[[P:.+]][%{{.*}}, %{{.*}}] : tensor<32x8xf32>
// CHECK:         dtensor.all_reduce
// CHECK-LABEL: func.func @offset_slice
// CHECK:         dtensor.all_gather
// CHECK-NOT:     dtensor.all_reduce
func.func @uneven(%m: !dtensor.device_mesh<@mesh>,
                  %t: tensor<?x8xf32> {dtensor.global = tensor<63x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>},
                  %ids: tensor<2xindex> {dtensor.global = tensor<4xindex, #dtensor.spec<@mesh, [S(0), R]>>})
    -> (tensor<2x8xf32> {dtensor.global = tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>}) {
  %c0 = arith.constant 0 : index
  %z = arith.constant dense<0.0> : tensor<32x8xf32>
  %n = tensor.dim %t, %c0 : tensor<?x8xf32>
  %p = tensor.insert_slice %t into %z[0, 0] [%n, 8] [1, 1] : tensor<?x8xf32> into tensor<32x8xf32>
  %g = dtensor.all_gather %p, %m mesh_dims = [1] gather_dim = 0 : tensor<32x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<64x8xf32>
  %s = tensor.extract_slice %g[0, 0] [63, 8] [1, 1] : tensor<64x8xf32> to tensor<63x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<2xindex>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%i: index, %o: f32):
    %j = linalg.index 1 : index
    %v = tensor.extract %s[%i, %j] : tensor<63x8xf32>
    linalg.yield %v : f32
  } -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

func.func @offset_slice(%m: !dtensor.device_mesh<@mesh>,
                        %t: tensor<32x8xf32> {dtensor.global = tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>},
                        %ids: tensor<2xindex> {dtensor.global = tensor<4xindex, #dtensor.spec<@mesh, [S(0), R]>>})
    -> (tensor<2x8xf32> {dtensor.global = tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>}) {
  %g = dtensor.all_gather %t, %m mesh_dims = [1] gather_dim = 0 : tensor<32x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<64x8xf32>
  %s = tensor.extract_slice %g[1, 0] [63, 8] [1, 1] : tensor<64x8xf32> to tensor<63x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %r = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<2xindex>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%i: index, %o: f32):
    %j = linalg.index 1 : index
    %v = tensor.extract %s[%i, %j] : tensor<63x8xf32>
    linalg.yield %v : f32
  } -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}
