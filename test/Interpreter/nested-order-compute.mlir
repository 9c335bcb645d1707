// RUN: dtensor-run %s --entry mlp --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=MLP
// RUN: dtensor-run %s --entry one_order --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=ONE
// RUN: dtensor-opt %s --dtensor-propagate | FileCheck %s --check-prefix=PROP
// RUN: %if mpi %{ dtensor-run %s --entry mlp --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPI %}
// RUN: %if mpi %{ dtensor-run %s --entry one_order --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPI1 %}
// Weights sharded by two mesh dims in a non-default order (mesh dim "b"
// first, then "a": DTensor's _StridedShard, as FSDP over TP makes). The
// compute ops take the order their operands have (propagation adopts it,
// partitioning computes each rank's piece in it): the MLP needs one
// all_reduce over both dims, where it gathered each weight into the default
// order first (3 collectives, 2304 B/rank).

// MLP: verified @mlp: 1 output(s) of the compiled program match the original on 8 rank(s)
// MLP: communication: 1 collective, 256 bytes/rank
// MLP-NEXT: all_reduce 1 256 bytes mesh dims @mesh["a", "b"]
// MPI: verified @mlp on target mpi
// PROP-LABEL: func.func @mlp
// PROP: linalg.matmul {dtensor.operand_specs = [#dtensor.spec<@mesh, [S(0), R, R]>, #dtensor.spec<@mesh, [R, S(1)[1], S(1)[0]]>, #dtensor.spec<@mesh, [S(0), S(1)[1], S(1)[0]]>], dtensor.result_specs = [#dtensor.spec<@mesh, [S(0), S(1)[1], S(1)[0]]>]}
dtensor.mesh @mesh shape = [2, 2, 2] names = ["dp", "a", "b"]
func.func @mlp(%m: !dtensor.device_mesh<@mesh>,
  %x: tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R, R]>>,
  %w1: tensor<16x32xf32, #dtensor.spec<@mesh, [R, S(1)[1], S(1)[0]]>>,
  %w2: tensor<32x16xf32, #dtensor.spec<@mesh, [R, S(0)[1], S(0)[0]]>>)
  -> tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R, R]>> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R, R]>>, tensor<16x32xf32, #dtensor.spec<@mesh, [R, S(1)[1], S(1)[0]]>>) outs(%z1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x32xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<8x32xf32>) outs(%e2 : tensor<8x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c0 = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %c0 : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %e3 = tensor.empty() : tensor<8x16xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%g, %w2 : tensor<8x32xf32>, tensor<32x16xf32, #dtensor.spec<@mesh, [R, S(0)[1], S(0)[0]]>>) outs(%z3 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %yd = dtensor.distribute_tensor %y, %m : tensor<8x16xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R, R]>>
  return %yd : tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R, R]>>
}

// Uneven (9 on a 4x2 mesh, in order mesh dim 1 then 0: 5 and 4, then
// 2,1,1,1 and 1,1,1,1), with the loop index read: no collective.
// ONE: verified @one_order: 1 output(s) of the compiled program match the original on 8 rank(s)
// ONE: communication: 0 collectives
// MPI1: verified @one_order on target mpi
dtensor.mesh @square shape = [4, 2]
#one_order_id = affine_map<(d0) -> (d0)>
func.func @one_order(%m: !dtensor.device_mesh<@square>, %a: tensor<9xf32, #dtensor.spec<@square, [S(0)[1], S(0)[0]]>>, %b: tensor<9xf32, #dtensor.spec<@square, [S(0)[1], S(0)[0]]>>) -> tensor<9xf32, #dtensor.spec<@square, [S(0)[1], S(0)[0]]>> {
  %e = tensor.empty() : tensor<9xf32>
  %r = linalg.generic {indexing_maps = [#one_order_id, #one_order_id, #one_order_id], iterator_types = ["parallel"]} ins(%a, %b : tensor<9xf32, #dtensor.spec<@square, [S(0)[1], S(0)[0]]>>, tensor<9xf32, #dtensor.spec<@square, [S(0)[1], S(0)[0]]>>) outs(%e : tensor<9xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %p, %f : f32
    linalg.yield %s : f32
  } -> tensor<9xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<9xf32>, !dtensor.device_mesh<@square> -> tensor<9xf32, #dtensor.spec<@square, [S(0)[1], S(0)[0]]>>
  return %d : tensor<9xf32, #dtensor.spec<@square, [S(0)[1], S(0)[0]]>>
}
