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
  // expected-error@+1 {{reduces over loop 2, sharded on mesh dim 1: its result must be P(sum) there, not R}}
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
  // expected-error@+1 {{'arith.mulf' op on Partial operands is not exact (only add/sub of two Partial(sum|avg) values are); redistribute them to R first}}
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
  // expected-error@+1 {{in another order of mesh dims than the other operands}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>) outs(%o : tensor<8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>
  return %r : tensor<8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// Ops the pass does not partition are named.
func.func @other(%a: tensor<4x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<16xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  // expected-error@+1 {{'tensor.collapse_shape' op operates on distributed tensors, which dtensor-partition supports in the DTensor API ops, linalg ops, tensor.empty, element-wise arith/math and function boundaries only}}
  %r = tensor.collapse_shape %a [[0, 1]] : tensor<4x4xf32, #dtensor.spec<@mesh, [S(0), R]>> into tensor<16xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<16xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// Each rank's share of an integer fill would need a division.
func.func @int_fill(%m: !dtensor.device_mesh<@mesh>, %o: tensor<4xi32, #dtensor.spec<@mesh, [R, P(sum)]>>) -> tensor<4xi32, #dtensor.spec<@mesh, [R, P(sum)]>> {
  %c = arith.constant 3 : i32
  // expected-error@+1 {{fills an integer P(sum) value, which would divide by the group size}}
  %r = linalg.fill ins(%c : i32) outs(%o : tensor<4xi32, #dtensor.spec<@mesh, [R, P(sum)]>>) -> tensor<4xi32, #dtensor.spec<@mesh, [R, P(sum)]>>
  return %r : tensor<4xi32, #dtensor.spec<@mesh, [R, P(sum)]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

// Offsets of a sharded loop need this rank's coordinates: the function must
// take the mesh handle.
#id = affine_map<(d0) -> (d0)>
func.func @no_handle(%a: tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  // expected-error@+1 {{needs the mesh handle of @mesh as an argument of its function (for this rank's offsets)}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%a : tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>) {
  ^bb0(%x: f32, %y: f32):
    %i = linalg.index 0 : index
    %i64 = arith.index_cast %i : index to i64
    %f = arith.sitofp %i64 : i64 to f32
    linalg.yield %f : f32
  } -> tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}
