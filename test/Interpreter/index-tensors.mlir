// RUN: dtensor-run %s --entry main --verify | FileCheck %s
// RUN: dtensor-opt %s --dtensor-propagate=auto-shard=mesh | FileCheck %s --check-prefix=AUTO
//
// An `index` tensor computed from distributed values: propagation priced its
// moves with the element's bit width, which `index` does not have (a
// segmentation fault in FloatType::getWidth), in the greedy analysis, the
// whole-function model and auto-sharding. It is priced as 8 bytes, as the
// dialect sizes it.

// CHECK: verified @main: 1 output(s) of the compiled program match the original on 2 rank(s)
// AUTO-LABEL: func.func @auto_fn
// AUTO-SAME: #dtensor.spec<@mesh

dtensor.mesh @mesh shape = [2]
#id = affine_map<(d0) -> (d0)>

func.func @main(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<4xindex> {
  %e = tensor.empty() : tensor<4xindex>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e : tensor<4xindex>) {
  ^bb0(%v: f32, %o: index):
    %i = arith.fptosi %v : f32 to i64
    %c = arith.index_cast %i : i64 to index
    linalg.yield %c : index
  } -> tensor<4xindex>
  return %r : tensor<4xindex>
}

func.func @auto_fn(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32>) -> tensor<4xindex> {
  %e = tensor.empty() : tensor<4xindex>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xindex>) {
  ^bb0(%v: f32, %o: index):
    %i = arith.fptosi %v : f32 to i64
    %c = arith.index_cast %i : i64 to index
    linalg.yield %c : index
  } -> tensor<4xindex>
  return %r : tensor<4xindex>
}
