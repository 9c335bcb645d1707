// RUN: dtensor-opt %s -split-input-file --dtensor-insert-redistribute -verify-diagnostics | FileCheck %s

// The attributes dtensor-propagate records, written by hand: operand specs
// become redistributes (between specs) and distributes (from plain values),
// fresh outputs are made in their spec, results take theirs, and a plain
// function result gets the full tensor.
dtensor.mesh @mesh shape = [2, 2]
// CHECK-LABEL: func.func @rule
// CHECK-SAME:    (%[[M:.*]]: !dtensor.device_mesh<@mesh>, %[[X:.*]]: tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, %[[W:.*]]: tensor<8x8xf32>)
// CHECK:         %[[XR:.*]] = dtensor.redistribute %[[X]], %[[M]] : {{.*}} -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>
// CHECK:         %[[WD:.*]] = dtensor.distribute_tensor %[[W]], %[[M]] : tensor<8x8xf32>, {{.*}} -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
// CHECK:         %[[Y:.*]] = linalg.matmul ins(%[[XR]], %[[WD]] : {{.*}}) outs(%[[E]] : {{.*}}) -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
// CHECK-NOT:     dtensor.operand_specs
// CHECK:         %[[T:.*]] = math.tanh %[[Y]] : tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
// CHECK:         %[[F:.*]] = dtensor.full_tensor %[[T]], %[[M]]
// CHECK:         return %[[F]] : tensor<8x8xf32>
func.func @rule(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = tensor.empty() : tensor<8x8xf32>
  %1 = linalg.matmul {dtensor.operand_specs = [#dtensor.spec<@mesh, [R, R]>, #dtensor.spec<@mesh, [R, S(1)]>, #dtensor.spec<@mesh, [R, S(1)]>], dtensor.result_specs = [#dtensor.spec<@mesh, [R, S(1)]>]} ins(%x, %w : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8x8xf32>) outs(%0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %2 = math.tanh %1 {dtensor.operand_specs = [#dtensor.spec<@mesh, [R, S(1)]>], dtensor.result_specs = [#dtensor.spec<@mesh, [R, S(1)]>]} : tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// -----

// A result the user annotated keeps its type: the op computes in the
// chosen spec, and a redistribute restores the annotation for its users.
dtensor.mesh @mesh shape = [2, 2]
// CHECK-LABEL: func.func @annotated
// CHECK:         %[[Y:.*]] = linalg.matmul {{.*}} -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
// CHECK:         %[[B:.*]] = dtensor.redistribute %[[Y]], %{{.*}} -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>
// CHECK:         return %[[B]]
func.func @annotated(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>, %w: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>> {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>) -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>
  %2 = linalg.matmul {dtensor.operand_specs = [#dtensor.spec<@mesh, [R, S(1)]>, #dtensor.spec<@mesh, [R, S(0)]>, #dtensor.spec<@mesh, [R, P(sum)]>], dtensor.result_specs = [#dtensor.spec<@mesh, [R, P(sum)]>]} ins(%x, %w : tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%1 : tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>) -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>
  return %2 : tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>
}

// -----

// Loop-carried values take the carried spec; the init is redistributed
// before the loop, the yield inside it where it differs.
dtensor.mesh @mesh shape = [2, 2]
// CHECK-LABEL: func.func @loop
// CHECK:         %[[I:.*]] = dtensor.distribute_tensor %{{.*}} -> tensor<4xf32, #dtensor.spec<@mesh, [S(0), R]>>
// CHECK:         scf.for {{.*}} iter_args(%[[A:.*]] = %[[I]]) -> (tensor<4xf32, #dtensor.spec<@mesh, [S(0), R]>>)
// CHECK:           %[[R:.*]] = dtensor.redistribute %[[A]], %{{.*}} -> tensor<4xf32, #dtensor.spec<@mesh, [R, R]>>
// CHECK:           %[[T:.*]] = math.tanh %[[R]]
// CHECK:           %[[Y:.*]] = dtensor.redistribute %[[T]], %{{.*}} -> tensor<4xf32, #dtensor.spec<@mesh, [S(0), R]>>
// CHECK:           scf.yield %[[Y]]
func.func @loop(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<4xf32>) {
    %t = math.tanh %a {dtensor.operand_specs = [#dtensor.spec<@mesh, [R, R]>], dtensor.result_specs = [#dtensor.spec<@mesh, [R, R]>]} : tensor<4xf32>
    scf.yield %t : tensor<4xf32>
  } {dtensor.result_specs = [#dtensor.spec<@mesh, [S(0), R]>]}
  return %r : tensor<4xf32>
}

// -----

// Hints disappear where the value came out in the hinted spec, and become
// redistributes where it did not.
dtensor.mesh @mesh shape = [2, 2]
// CHECK-LABEL: func.func @hints
// CHECK-NOT:     dtensor.hint
// CHECK:         %[[D:.*]] = dtensor.redistribute %{{.*}} -> tensor<4xf32, #dtensor.spec<@mesh, [R, S(0)]>>
// CHECK:         return %{{.*}}, %[[D]]
func.func @hints(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32, #dtensor.spec<@mesh, [S(0), R]>>)
    -> (tensor<4xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<4xf32, #dtensor.spec<@mesh, [R, S(0)]>>) {
  %a = dtensor.hint %x, %m : tensor<4xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %b = dtensor.hint %x, %m priority 1 : tensor<4xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  return %a, %b : tensor<4xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<4xf32, #dtensor.spec<@mesh, [R, S(0)]>>
}

// -----

// Moving a value needs its mesh's handle.
dtensor.mesh @mesh shape = [2, 2]
func.func @no_handle(%x: tensor<4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<4xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  // expected-error@+1 {{needs a value distributed over @mesh moved here, and its function has no handle of that mesh as an argument}}
  %t = math.tanh %x {dtensor.operand_specs = [#dtensor.spec<@mesh, [R, R]>], dtensor.result_specs = [#dtensor.spec<@mesh, [R, R]>]} : tensor<4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %t : tensor<4xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// -----

// A shard becomes a Partial(sum) in one redistribution (DTensor 2.15: its
// shard in place, zeros elsewhere); the planner orders the steps.
dtensor.mesh @mesh shape = [2, 2]
// CHECK-LABEL: func.func @detour
// CHECK:         %[[V:.*]] = dtensor.redistribute %{{.*}}, %{{.*}} : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>, {{.*}} -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>
// CHECK:         linalg.negf ins(%[[V]]
func.func @detour(%m: !dtensor.device_mesh<@mesh>, %y: tensor<8x8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %r = linalg.negf {dtensor.operand_specs = [#dtensor.spec<@mesh, [S(0), P(sum)]>, #dtensor.spec<@mesh, [S(0), P(sum)]>], dtensor.result_specs = [#dtensor.spec<@mesh, [S(0), P(sum)]>]} ins(%y : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

#id = affine_map<(i, j) -> (i, j)>

// A table read in a linalg body at a sharded loop's own index (row = loop
// i, split over mesh dim 0) moves to that loop's sharding, replicated
// elsewhere ([S(0), R], not gathered whole); one read at a computed row
// makes another table plain (full_tensor).
// CHECK-LABEL: func.func @aligned_table
// CHECK-DAG:     %[[T:.+]] = dtensor.redistribute %arg1, %arg0 {{.*}} -> tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
// CHECK-DAG:     %[[U:.+]] = dtensor.full_tensor %arg2, %arg0 {{.*}} -> tensor<8x4xf32>
// CHECK:         linalg.generic
// CHECK:           tensor.extract %[[T]][
// CHECK:           tensor.extract %[[U]][
func.func @aligned_table(%m: !dtensor.device_mesh<@mesh>,
    %t: tensor<8x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %u: tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>,
    %x: tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %c7 = arith.constant 7 : index
  %e = tensor.empty() : tensor<8x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<8x4xf32>)
      attrs = {dtensor.operand_specs = [#dtensor.spec<@mesh, [S(0), R]>, #dtensor.spec<@mesh, [S(0), R]>],
               dtensor.result_specs = [#dtensor.spec<@mesh, [S(0), R]>]} {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = tensor.extract %t[%i, %j] : tensor<8x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>
    %k = arith.subi %c7, %i : index
    %w = tensor.extract %u[%k, %j] : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<8x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
}
