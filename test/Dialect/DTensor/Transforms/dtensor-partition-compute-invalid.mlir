// RUN: dtensor-opt %s -split-input-file --dtensor-partition -verify-diagnostics
// Compute ops whose specs the partitioned op could not compute exactly are
// diagnosed at the op, never partitioned into a wrong program.

dtensor.mesh @mesh shape = [2, 2]

// The two inputs shard the contraction loop differently.
func.func @inconsistent(%m: !dtensor.device_mesh<@mesh>, %a: tensor<4x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>, %b: tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>>, %c: tensor<4x4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) -> tensor<4x4xf32, #dtensor.spec<@mesh, [R, P(sum)]>> {
  // expected-error@+1 {{operand 1 should be S(0) on mesh dim 1 like the other operands sharding loop 2, but is R}}
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%c : tensor<4x4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) -> tensor<4x4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
  return %r : tensor<4x4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// A sharded contraction must give a Partial(sum) result.
func.func @not_partial(%m: !dtensor.device_mesh<@mesh>, %a: tensor<4x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>, %b: tensor<4x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>, %c: tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>>) -> tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>> {
  // expected-error@+1 {{reduces over loop 2, sharded on mesh dim 1: its result 0 must be P(sum) there, not R}}
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<4x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%c : tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>>) -> tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>>
  return %r : tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// exp of a partial sum is not the sum of exps.
#id = affine_map<(d0) -> (d0)>
func.func @nonlinear(%m: !dtensor.device_mesh<@mesh>, %a: tensor<4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) -> tensor<4xf32, #dtensor.spec<@mesh, [R, P(sum)]>> {
  // expected-error@+1 {{cannot keep its Partial input Partial on mesh dim 1}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) outs(%a : tensor<4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
  return %r : tensor<4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// Multiplying two partial sums is not a partial sum.
func.func @mul_partials(%a: tensor<4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) -> tensor<4xf32, #dtensor.spec<@mesh, [R, P(sum)]>> {
  // expected-error@+1 {{'arith.mulf' op cannot keep its Partial input Partial on mesh dim 1 (only linear ops can: add/sub of Partials, mul/div by a replicated value, views and slices): redistribute the input to R}}
  %r = arith.mulf %a, %a : tensor<4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
  return %r : tensor<4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// A Partial result out of replicated inputs (other than fill).
#id = affine_map<(d0) -> (d0)>
func.func @make_partial(%a: tensor<4xf32, #dtensor.spec<@mesh, [R, R]>>, %o: tensor<4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) -> tensor<4xf32, #dtensor.spec<@mesh, [R, P(sum)]>> {
  // expected-error@+1 {{makes a Partial result on mesh dim 1 from replicated inputs; compute it replicated and redistribute}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%o : tensor<4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
  return %r : tensor<4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// A loop sharded by two mesh dims in different orders.
#id = affine_map<(d0) -> (d0)>
func.func @orders(%a: tensor<8xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>, %o: tensor<8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>) -> tensor<8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>> {
  // expected-error@+1 {{operand 1 shards loop 0 in another order of mesh dims than operand 0}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>) outs(%o : tensor<8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>
  return %r : tensor<8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// Ops the pass does not partition are named.
func.func @other(%a: tensor<4x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> f32 {
  %i = arith.constant 0 : index
  // expected-error@+1 {{'tensor.extract' op operates on distributed tensors, which dtensor-partition supports in the DTensor API ops, ops with a sharding rule}}
  %r = tensor.extract %a[%i, %i] : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : f32
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// A reshaped group shards its leading dim only when the shards stay aligned.
func.func @uneven_collapse(%a: tensor<3x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<12xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  // expected-error@+1 {{cannot be partitioned exactly: a dim of size 3 split 2 ways would not keep the shards of a reshape aligned}}
  %r = tensor.collapse_shape %a [[0, 1]] : tensor<3x4xf32, #dtensor.spec<@mesh, [S(0), R]>> into tensor<12xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<12xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// A padded dim whose padding depends on the position stays whole (a
// uniform padding is a window: each rank pads its part, see
// windowed-access.mlir).
func.func @padded(%m: !dtensor.device_mesh<@mesh>, %a: tensor<4x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<6x4xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  // expected-error@+1 {{operand 0 is sharded along dim 0 on mesh dim 0, but that dim cannot be sharded (a padded dim (with dynamic amounts or a padding that depends on the position)); redistribute it first}}
  %r = tensor.pad %a low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    %i64 = arith.index_cast %i : index to i64
    %f = arith.sitofp %i64 : i64 to f32
    tensor.yield %f : f32
  } : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0), R]>> to tensor<6x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<6x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// Softmax normalizes along its dim: that dim stays whole.
func.func @softmax(%a: tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) -> tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(1)]>> {
  %e = tensor.empty() : tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  // expected-error@+1 {{softmax normalizes along dim 1, which must be whole on every rank}}
  %r = linalg.softmax dimension(1) ins(%a : tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%e : tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) -> tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  return %r : tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// Each rank's share of an integer fill would need a division.
func.func @int_fill(%m: !dtensor.device_mesh<@mesh>, %o: tensor<4xi32, #dtensor.spec<@mesh, [R, P(sum)]>>) -> tensor<4xi32, #dtensor.spec<@mesh, [R, P(sum)]>> {
  %c = arith.constant 3 : i32
  // expected-error@+1 {{fills an integer P(sum) value with a nonzero value, whose per-rank terms would not be exact (value / 2); fill it replicated and redistribute instead}}
  %r = linalg.fill ins(%c : i32) outs(%o : tensor<4xi32, #dtensor.spec<@mesh, [R, P(sum)]>>) -> tensor<4xi32, #dtensor.spec<@mesh, [R, P(sum)]>>
  return %r : tensor<4xi32, #dtensor.spec<@mesh, [R, P(sum)]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// Offsets of a sharded loop need this rank's coordinates: the function must
// take the mesh handle.
#id = affine_map<(d0) -> (d0)>
func.func @no_handle(%a: tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  // expected-error@+1 {{needs the mesh handle of @mesh as an argument of its function (for this rank's offsets and sizes)}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%a : tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>) {
  ^bb0(%x: f32, %y: f32):
    %i = linalg.index 0 : index
    %i64 = arith.index_cast %i : index to i64
    %f = arith.sitofp %i64 : i64 to f32
    linalg.yield %f : f32
  } -> tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// Each rank's share of a product's fill would be an n-th root: only 0 and
// 1 fill a P(product) value exactly.
func.func @product_fill(%m: !dtensor.device_mesh<@mesh>) -> tensor<4xf32, #dtensor.spec<@mesh, [R, P(product)]>> {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4xf32, #dtensor.spec<@mesh, [R, P(product)]>>
  // expected-error@+1 {{cannot fill a P(product) value with anything but the constants 0 or 1}}
  %f = linalg.fill ins(%two : f32) outs(%e : tensor<4xf32, #dtensor.spec<@mesh, [R, P(product)]>>) -> tensor<4xf32, #dtensor.spec<@mesh, [R, P(product)]>>
  return %f : tensor<4xf32, #dtensor.spec<@mesh, [R, P(product)]>>
}

// An integer 2 is no better.
func.func @product_fill_int(%m: !dtensor.device_mesh<@mesh>) -> tensor<4xi64, #dtensor.spec<@mesh, [R, P(product)]>> {
  %two = arith.constant 2 : i64
  %e = tensor.empty() : tensor<4xi64, #dtensor.spec<@mesh, [R, P(product)]>>
  // expected-error@+1 {{cannot fill a P(product) value with anything but the constants 0 or 1}}
  %f = linalg.fill ins(%two : i64) outs(%e : tensor<4xi64, #dtensor.spec<@mesh, [R, P(product)]>>) -> tensor<4xi64, #dtensor.spec<@mesh, [R, P(product)]>>
  return %f : tensor<4xi64, #dtensor.spec<@mesh, [R, P(product)]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// A loop read through a window (`i + 1`) is sharded on one mesh dim at most:
// its window is fetched from neighbours along that dim.
func.func @window_two_mesh_dims(%m: !dtensor.device_mesh<@mesh>, %a: tensor<10xf32, #dtensor.spec<@mesh, [R, R]>>, %e: tensor<8xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>) -> tensor<8xf32, #dtensor.spec<@mesh, [S(0), S(0)]>> {
  // expected-error@+1 {{cannot be partitioned exactly: a loop read through a window can be sharded on one mesh dim only}}
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i + 1)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%a : tensor<10xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%e : tensor<8xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<8xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>
  return %r : tensor<8xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// An index that is not linear in the loops (`i floordiv 2`) is no window:
// its loop stays whole.
func.func @nonlinear_index(%m: !dtensor.device_mesh<@mesh>, %a: tensor<4xf32, #dtensor.spec<@mesh, [R, R]>>, %e: tensor<8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> tensor<8xf32, #dtensor.spec<@mesh, [R, S(0)]>> {
  // expected-error@+1 {{operand 1 is sharded along dim 0 on mesh dim 1, but that dim cannot be sharded (loop 0 is read through the index `d0 floordiv 2` (dim 0 of input 0), which is not a window partitioning can fetch (one loop another value indexes plainly plus loops of static extent, linearly, in an input)); redistribute it first}}
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i floordiv 2)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%e : tensor<8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  return %r : tensor<8xf32, #dtensor.spec<@mesh, [R, S(0)]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// A window loop (the kernel offset `d3` of `d1 + d3`) cannot be sharded.
func.func @window_loop(%m: !dtensor.device_mesh<@mesh>, %in: tensor<2x11x3xf32, #dtensor.spec<@mesh, [R, R]>>, %f: tensor<3x3x4xf32, #dtensor.spec<@mesh, [S(0), R]>>, %o: tensor<2x9x4xf32, #dtensor.spec<@mesh, [P(sum), R]>>) -> tensor<2x9x4xf32, #dtensor.spec<@mesh, [P(sum), R]>> {
  // expected-error@+1 {{operand 1 is sharded along dim 0 on mesh dim 0, but that dim cannot be sharded (loop 3 is read through the index `d1 + d3` (dim 1 of input 0), a window offset of another loop's sharded reads); redistribute it first}}
  %c = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%in, %f : tensor<2x11x3xf32, #dtensor.spec<@mesh, [R, R]>>, tensor<3x3x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%o : tensor<2x9x4xf32, #dtensor.spec<@mesh, [P(sum), R]>>) -> tensor<2x9x4xf32, #dtensor.spec<@mesh, [P(sum), R]>>
  return %c : tensor<2x9x4xf32, #dtensor.spec<@mesh, [P(sum), R]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// A convolution's input sharded on its width needs the output sharded on it
// too: the width loop is what the input's shards follow.
func.func @windowed_conv(%m: !dtensor.device_mesh<@mesh>, %in: tensor<2x11x3xf32, #dtensor.spec<@mesh, [S(1), R]>>, %f: tensor<3x3x4xf32, #dtensor.spec<@mesh, [R, R]>>, %o: tensor<2x9x4xf32, #dtensor.spec<@mesh, [R, R]>>) -> tensor<2x9x4xf32, #dtensor.spec<@mesh, [R, R]>> {
  // expected-error@+1 {{result 0 should be S(1) on mesh dim 0 like the other operands sharding loop 1, but is R}}
  %c = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%in, %f : tensor<2x11x3xf32, #dtensor.spec<@mesh, [S(1), R]>>, tensor<3x3x4xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%o : tensor<2x9x4xf32, #dtensor.spec<@mesh, [R, R]>>) -> tensor<2x9x4xf32, #dtensor.spec<@mesh, [R, R]>>
  return %c : tensor<2x9x4xf32, #dtensor.spec<@mesh, [R, R]>>
}

// -----

dtensor.mesh @mesh shape = [2]

#id = affine_map<(i, j) -> (i, j)>

// A distributed table read in a linalg body: a sharded dim must be read at
// the index of a loop sharded the same way, else ranks would read rows
// they do not hold.
func.func @table_other_loop(%m: !dtensor.device_mesh<@mesh>, %t: tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>, %x: tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%x : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    // expected-error@+1 {{reads a distributed table in the body of a linalg.generic that shards dim 0 otherwise than loop 1, which reads it}}
    %v = tensor.extract %t[%j, %i] : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>
    linalg.yield %v : f32
  } -> tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>
  return %r : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>
}

// -----

dtensor.mesh @mesh shape = [2]

#id = affine_map<(i, j) -> (i, j)>

func.func @table_computed_index(%m: !dtensor.device_mesh<@mesh>, %t: tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>, %x: tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>> {
  %c3 = arith.constant 3 : index
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%x : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.subi %c3, %i : index
    // expected-error@+1 {{shards dim 0, read there at an index that is not a loop's own}}
    %v = tensor.extract %t[%k, %j] : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>
    linalg.yield %v : f32
  } -> tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>
  return %r : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>
}

// -----

dtensor.mesh @mesh shape = [2]

#id = affine_map<(i, j) -> (i, j)>

// The table is longer than the loop: its shards and the loop's differ.
func.func @table_longer(%m: !dtensor.device_mesh<@mesh>, %t: tensor<6x4xf32, #dtensor.spec<@mesh, [S(0)]>>, %x: tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%x : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    // expected-error@+1 {{shards dim 0 otherwise than loop 0, which reads it}}
    %v = tensor.extract %t[%i, %j] : tensor<6x4xf32, #dtensor.spec<@mesh, [S(0)]>>
    linalg.yield %v : f32
  } -> tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>
  return %r : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>
}

// -----

dtensor.mesh @mesh shape = [2]

// A P(sum) lookup result needs a body that may run on another row: one that
// converts the looked-up value to an integer (undefined out of range) keeps
// the table whole.
func.func @masked_unsafe_body(%m: !dtensor.device_mesh<@mesh>, %t: tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>, %ids: tensor<4xi64, #dtensor.spec<@mesh, [R]>>) -> tensor<4x4xi32, #dtensor.spec<@mesh, [P(sum)]>> {
  %e = tensor.empty() : tensor<4x4xi32, #dtensor.spec<@mesh, [P(sum)]>>
  // expected-error@+1 {{makes a Partial result on mesh dim 0 from replicated inputs}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64, #dtensor.spec<@mesh, [R]>>) outs(%e : tensor<4x4xi32, #dtensor.spec<@mesh, [P(sum)]>>) {
  ^bb0(%id: i64, %o: i32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %t[%row, %col] : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0)]>>
    %n = arith.fptosi %v : f32 to i32
    linalg.yield %n : i32
  } -> tensor<4x4xi32, #dtensor.spec<@mesh, [P(sum)]>>
  return %r : tensor<4x4xi32, #dtensor.spec<@mesh, [P(sum)]>>
}

// -----

dtensor.mesh @mesh shape = [2]

// A masked lookup reads each rank's first row where it does not hold the
// index: a rank with no rows has none.
func.func @masked_empty_shard(%m: !dtensor.device_mesh<@mesh>, %t: tensor<1x4xf32, #dtensor.spec<@mesh, [S(0)]>>, %ids: tensor<4xi64, #dtensor.spec<@mesh, [R]>>) -> tensor<4x4xf32, #dtensor.spec<@mesh, [P(sum)]>> {
  %e = tensor.empty() : tensor<4x4xf32, #dtensor.spec<@mesh, [P(sum)]>>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64, #dtensor.spec<@mesh, [R]>>) outs(%e : tensor<4x4xf32, #dtensor.spec<@mesh, [P(sum)]>>) {
  ^bb0(%id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    // expected-error@+1 {{shards dim 0 with an empty shard on some rank, read there at a computed index}}
    %v = tensor.extract %t[%row, %col] : tensor<1x4xf32, #dtensor.spec<@mesh, [S(0)]>>
    linalg.yield %v : f32
  } -> tensor<4x4xf32, #dtensor.spec<@mesh, [P(sum)]>>
  return %r : tensor<4x4xf32, #dtensor.spec<@mesh, [P(sum)]>>
}
