// RUN: not dtensor-run %s 2>&1 | FileCheck %s
// In the global view the ranks of one group of a sub-mesh hold one logical
// value: a computation that gives them different values (here through the
// rank's tp coordinate) is an error at the op, not a silently chosen copy.
// CHECK: error: 'linalg.generic' op produced a distributed value that differs across the ranks of one group of its sub-mesh (ranks 0 and 1) in the global view
dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]
#id = affine_map<(d0) -> (d0)>
func.func @bad(%m: !dtensor.device_mesh<@mesh>, %tp: !dtensor.device_mesh<@mesh[1]>, %x: tensor<4xf32, #dtensor.spec<@mesh[1], [R]>>) -> tensor<4xf32, #dtensor.spec<@mesh[1], [R]>> {
  %c = dtensor.mesh_coord %m mesh_dims = [1] : !dtensor.device_mesh<@mesh> -> index
  %ci = arith.index_cast %c : index to i64
  %cf = arith.sitofp %ci : i64 to f32
  %e = tensor.empty() : tensor<4xf32, #dtensor.spec<@mesh[1], [R]>>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32, #dtensor.spec<@mesh[1], [R]>>) outs(%e : tensor<4xf32, #dtensor.spec<@mesh[1], [R]>>) {
  ^bb0(%v: f32, %o: f32):
    %a = arith.addf %v, %cf : f32
    linalg.yield %a : f32
  } -> tensor<4xf32, #dtensor.spec<@mesh[1], [R]>>
  return %y : tensor<4xf32, #dtensor.spec<@mesh[1], [R]>>
}
