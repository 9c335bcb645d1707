// RUN: dtensor-opt %s --dtensor-propagate --dtensor-insert-redistribute | FileCheck %s
// RUN: dtensor-opt %s --dtensor-propagate=explain=true --dtensor-insert-redistribute -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: dtensor-opt %s --dtensor-compile="explain=true devices-per-host=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: dtensor-opt %s --dtensor-propagate | FileCheck %s --check-prefix=ATTR
// RUN: dtensor-opt %s --dtensor-propagate="lookahead=false search-budget=0 whole-function-ops=0" --dtensor-insert-redistribute | FileCheck %s --check-prefix=GREEDY
// RUN: dtensor-run %s --entry shared_move --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=SHARED

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

// Column-parallel then row-parallel: no redistribution until the end.
// CHECK-LABEL: func.func @mlp
// CHECK:         %[[H:.*]] = linalg.matmul {{.*}} -> tensor<8x32xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
// CHECK:         %[[Y:.*]] = linalg.matmul ins(%[[H]], {{.*}} -> tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>
// CHECK:         %[[R:.*]] = dtensor.redistribute %[[Y]], %{{.*}} : tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>
// CHECK:         return %[[R]]
func.func @mlp(%m: !dtensor.device_mesh<@mesh>,
               %x: tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>,
               %w1: tensor<16x32xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
               %w2: tensor<32x16xf32, #dtensor.spec<@mesh, [R, S(0)]>>)
    -> tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<16x32xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<8x32xf32>, tensor<32x16xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %yd = dtensor.distribute_tensor %y, %m : tensor<8x16xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %yd : tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// Both inputs shard the contraction dim, but differently (x columns on tp,
// w rows on dp), and the plain result must end up whole on every rank. With
// that target priced in, gathering both inputs (two all_gathers) beats any
// Partial result (an all_gather plus an all_reduce, which costs twice the
// latency).
// CHECK-LABEL: func.func @mismatch
// CHECK:         %[[X:.*]] = dtensor.redistribute %{{.*}} -> tensor<8x16xf32, #dtensor.spec<@mesh, [R, R]>>
// CHECK:         %[[W:.*]] = dtensor.redistribute %{{.*}} -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>
// CHECK:         %[[Y:.*]] = linalg.matmul ins(%[[X]], %[[W]] : {{.*}}) {{.*}} -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>
// CHECK:         %[[F:.*]] = dtensor.full_tensor %[[Y]]
// CHECK:         return %[[F]] : tensor<8x8xf32>
// EXPLAIN: dtensor-propagate: linalg.matmul at {{.*}}dtensor-propagate.mlir{{.*}}: loops [R, R] need operand 0 as [R, R], it is [R, S(1)] (1 collective(s), 512 bytes/rank)
// EXPLAIN: dtensor-propagate: linalg.matmul at {{.*}}dtensor-propagate.mlir{{.*}}: loops [R, R] need operand 1 as [R, R], it is [S(0), R] (1 collective(s), 512 bytes/rank)
func.func @mismatch(%m: !dtensor.device_mesh<@mesh>,
                    %x: tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
                    %w: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// sin does not keep a Partial(max) (it is not monotone; exp, which does
// not decrease, would): the input is reduced first (here straight into
// shards, the cheapest), never silently kept Partial.
// CHECK-LABEL: func.func @reduce_first
// CHECK:         %[[R:.*]] = dtensor.redistribute %{{.*}} : tensor<4xf32, #dtensor.spec<@mesh, [R, P(max)]>>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [R, S(0)]>>
// CHECK:         linalg.generic {{.*}} ins(%[[R]]
#id1 = affine_map<(d0) -> (d0)>
func.func @reduce_first(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32, #dtensor.spec<@mesh, [R, P(max)]>>)
    -> tensor<4xf32, #dtensor.spec<@mesh, [R, S(0)]>> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : tensor<4xf32, #dtensor.spec<@mesh, [R, P(max)]>>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %v = math.sin %a : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  return %d : tensor<4xf32, #dtensor.spec<@mesh, [R, S(0)]>>
}

// A plain function stays plain.
// CHECK-LABEL: func.func @plain
// CHECK-NOT:     dtensor
func.func @plain(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %y = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// Hints. A hint on a result makes its producer compute in the hinted spec
// (here each rank slices its rows of the replicated inputs: no
// communication), and the hint disappears.
// Propagation alone only records its choice; the hint stays until
// dtensor-insert-redistribute.
// ATTR-LABEL: func.func @hint_result
// ATTR:         linalg.matmul {dtensor.operand_specs = [#dtensor.spec<@mesh, [S(0), R]>, #dtensor.spec<@mesh, [R, R]>, #dtensor.spec<@mesh, [S(0), R]>], dtensor.result_specs = [#dtensor.spec<@mesh, [S(0), R]>]} {{.*}} -> tensor<8x8xf32>
// ATTR:         dtensor.hint
// CHECK-LABEL: func.func @hint_result
// CHECK:         linalg.matmul {{.*}} -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
// CHECK-NOT:     dtensor.hint
// CHECK-NOT:     dtensor.redistribute
// CHECK:         return
func.func @hint_result(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>,
    %w: tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>) -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %e = tensor.empty() : tensor<8x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %h = dtensor.hint %y, %m priority 0 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %h : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// Two hints on one value conflict: the stronger (priority 0, S(1)) decides
// how the producer computes; the weaker gets a redistribute, and explain
// says so.
// CHECK-LABEL: func.func @hint_conflict
// CHECK:         %[[Y:.*]] = linalg.matmul {{.*}} -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
// CHECK:         dtensor.redistribute %[[Y]], %{{.*}} -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
// CHECK-NOT:     dtensor.hint
// EXPLAIN: dtensor-propagate: hint at {{.*}} (priority 3) conflicts with a stronger one; the value is [R, S(1)] and is redistributed to [R, S(0)] for it
func.func @hint_conflict(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>,
    %w: tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>)
    -> (tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) {
  %e = tensor.empty() : tensor<8x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %a = dtensor.hint %y, %m priority 3 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  %b = dtensor.hint %y, %m priority 0 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  return %a, %b : tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
}

// Operands held by hints of different priorities meet in an add: the one
// held more strongly keeps its spec, the other is redistributed; swapping
// the priorities swaps the outcome.
// CHECK-LABEL: func.func @hint_priority_a
// CHECK:         %[[B:.*]] = dtensor.redistribute %{{.*}} -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
// CHECK:         linalg.add ins(%{{.*}}, %[[B]] : {{.*}}) {{.*}} -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
// CHECK-LABEL: func.func @hint_priority_b
// CHECK:         %[[A:.*]] = dtensor.redistribute %{{.*}} -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
// CHECK:         linalg.add ins(%[[A]], %{{.*}} : {{.*}}) {{.*}} -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
func.func @hint_priority_a(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %a = dtensor.hint %x, %m priority 0 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %b = dtensor.hint %y, %m priority 1 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  %e = tensor.empty() : tensor<8x8xf32>
  %s = linalg.add ins(%a, %b : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}
func.func @hint_priority_b(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %a = dtensor.hint %x, %m priority 1 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %b = dtensor.hint %y, %m priority 0 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  %e = tensor.empty() : tensor<8x8xf32>
  %s = linalg.add ins(%a, %b : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}

// Lookahead: the Partial sum of a row-parallel matmul meets an add whose
// result the next column-parallel matmul needs whole on tp. Alone, the add's
// cheapest way out of Partial is a reduce_scatter (then an all_gather at the
// matmul); with lookahead it is reduced once to R.
// CHECK-LABEL: func.func @lookahead_chain
// CHECK:         dtensor.redistribute {{.*}} [S(0), P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
// CHECK-NOT:     [S(0), S(0)]
// CHECK:         return
// GREEDY-LABEL: func.func @lookahead_chain
// GREEDY:         dtensor.redistribute {{.*}} [S(0), P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>
// GREEDY:         dtensor.redistribute {{.*}} [S(0), S(0)]>>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
func.func @lookahead_chain(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
    %w1: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %w2: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
    %w3: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<4x8xf32>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.map { arith.addf } ins(%y, %x : tensor<4x8xf32>, tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<4x8xf32>)
  %o = linalg.matmul ins(%r, %w3 : tensor<4x8xf32>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %od = dtensor.distribute_tensor %o, %m : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  return %od : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
}

// A private callee looks ahead too, and prices its result's moves to what
// its caller does with it (here: the next call takes a plain argument, and
// the public function returns the result plain). So the row-parallel sum is
// reduced once to R in the callee (one all_reduce per call) instead of
// reduce-scattered there and gathered again by the caller at every call.
// CHECK-LABEL: func.func private @mlp_callee
// CHECK:         dtensor.redistribute {{.*}} [R, P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32, #dtensor.spec<@mesh, [R, R]>>
// CHECK-LABEL: func.func @callee_chain
// CHECK-NOT:     dtensor.redistribute
// CHECK:         return
// GREEDY-LABEL: func.func private @mlp_callee
// GREEDY:         dtensor.redistribute {{.*}} [R, P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>
func.func private @mlp_callee(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4x8xf32>,
    %w1: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %w2: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<4x8xf32>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.map { arith.addf } ins(%y, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>)
  return %r : tensor<4x8xf32>
}
func.func @callee_chain(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4x8xf32>,
    %w1: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %w2: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> tensor<4x8xf32> {
  %a = call @mlp_callee(%m, %x, %w1, %w2) : (!dtensor.device_mesh<@mesh>, tensor<4x8xf32>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> tensor<4x8xf32>
  %b = call @mlp_callee(%m, %a, %w1, %w2) : (!dtensor.device_mesh<@mesh>, tensor<4x8xf32>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// Explain lines from a loop body are printed once, for the carry the loop
// keeps (it analyses the body once per carry it tries). (The matmul and the
// tanh read only values from outside the loop: dtensor-optimize-collectives
// moves them and the all_reduce out of it, so the move is priced once.)
// EXPLAIN: dtensor-propagate: math.tanh at loc({{.*}}:[[@LINE+13]]:10): loops [d0, R] need operand 0 as [S(0), R], it is [S(0), P(sum)]
// EXPLAIN-NOT: math.tanh at loc({{.*}}:[[@LINE+12]]:10)
func.func @loop_explain(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>,
    %w: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %z) -> (tensor<8x8xf32>) {
    %y = linalg.matmul ins(%x, %w : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    %t = math.tanh %y : tensor<8x8xf32>
    %n = linalg.add ins(%acc, %t : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.yield %n : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// A table read by tensor.extract inside a linalg body (an embedding lookup
// by computed index) is moved once, before the op, never inside the body
// (where it would run once per element); two reads share the move.
// CHECK-LABEL: func.func @lookup
// CHECK:         %[[T:.*]] = dtensor.full_tensor %{{.*}} -> tensor<8x4xf32>
// CHECK-NOT:     dtensor.full_tensor
// CHECK:         linalg.generic
// CHECK:           tensor.extract %[[T]]
// CHECK:           tensor.extract %[[T]]
// CHECK:         } -> tensor<6x4xf32, #dtensor.spec<@mesh, [R, R]>>
func.func @lookup(%m: !dtensor.device_mesh<@mesh>, %table: tensor<8x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>, %ids: tensor<6xi64, #dtensor.spec<@mesh, [R, R]>>) -> tensor<6x4xf32> {
  %e = tensor.empty() : tensor<6x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<6xi64, #dtensor.spec<@mesh, [R, R]>>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<8x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>
    %c0 = arith.constant 0 : index
    %w = tensor.extract %table[%c0, %col] : tensor<8x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}

// A pure lookup of a table sharded along the dim it reads at a computed
// index (an embedding with its vocabulary split over tp) leaves the table
// where it is: each rank reads the rows it holds, zero elsewhere, and the
// result is P(sum) over tp, here scattered by columns for the user. Lining
// the table up with the sharded columns instead would move all of it.
// CHECK-LABEL: func.func @masked_cols
// CHECK-NOT:     dtensor.redistribute %arg1
// CHECK:         linalg.generic
// CHECK:           tensor.extract %arg1[
// CHECK:         } -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>
// CHECK:         dtensor.redistribute %{{.*}} -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
// EXPLAIN: dtensor-propagate: linalg.generic at loc({{.*}}:[[@LINE+6]]:8): masked lookup [d0, masked]: the table stays [R, S(0)], each rank reads the rows it holds, the result is [S(0), P(sum)]
func.func @masked_cols(%m: !dtensor.device_mesh<@mesh>,
                       %table: tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                       %ids: tensor<4xi64, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<64x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<4x8xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  return %d : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
}

// A value two ops of one block need in the same spec is moved once in the
// compiled program (one redistribution per user, merged by
// dtensor-optimize-collectives), so propagation charges it once: the second
// matmul's Partial sum goes to [R, R] for the exp and, at no further
// cost, for the add. Charged twice, the plan was 3 collectives of 4,096 B.
// (Bounded by the plan's bytes alone it was 3 collectives of 2,560 B, 22 us
// by the model; the bytes bound is now the larger of the plan's and
// DTensor's eager choices', 4,096 B: 2 collectives of 3,072 B, 15 us.)
// CHECK-LABEL: func.func @shared_move
// CHECK:         %[[P:.+]] = linalg.matmul ins(%{{.*}}, %arg3 :
// CHECK:         dtensor.redistribute %[[P]], %arg0 : tensor<16x16xf32, #dtensor.spec<@mesh, [R, P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<16x16xf32, #dtensor.spec<@mesh, [R, R]>>
// CHECK:         math.exp
// CHECK:         dtensor.redistribute %[[P]], %arg0 : tensor<16x16xf32, #dtensor.spec<@mesh, [R, P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<16x16xf32, #dtensor.spec<@mesh, [R, R]>>
// CHECK:         linalg.add
// SHARED:      verified @shared_move: 1 output(s)
// SHARED-NEXT: communication: 2 collectives, 3072 bytes/rank
func.func @shared_move(%m: !dtensor.device_mesh<@mesh>, %a0: tensor<16x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>, %a1: tensor<16x32xf32, #dtensor.spec<@mesh, [R, S(0)]>>, %a2: tensor<32x16xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> tensor<16x16xf32, #dtensor.spec<@mesh, [R, R]>> {
  %zero = arith.constant 0.0 : f32
  %v1 = tensor.empty() : tensor<16x32xf32>
  %v2 = linalg.fill ins(%zero : f32) outs(%v1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %v3 = linalg.matmul ins(%a0, %a1 : tensor<16x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<16x32xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%v2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %v4 = tensor.empty() : tensor<16x16xf32>
  %v5 = linalg.fill ins(%zero : f32) outs(%v4 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %v6 = linalg.matmul ins(%v3, %a2 : tensor<16x32xf32>, tensor<32x16xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%v5 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %v7 = math.exp %v6 : tensor<16x16xf32>
  %v8 = tensor.empty() : tensor<16x16xf32>
  %v9 = linalg.add ins(%v6, %v7 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%v8 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %dres = dtensor.distribute_tensor %v9, %m : tensor<16x16xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x16xf32, #dtensor.spec<@mesh, [R, R]>>
  return %dres : tensor<16x16xf32, #dtensor.spec<@mesh, [R, R]>>
}
