// RUN: dtensor-run %s --all-entries --verify --pipeline dtensor-compile --print-values | FileCheck %s
// RUN: %if mpi %{ dtensor-run %s --all-entries --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPI %}
// MPI: verified @shifts on target mpi: 3 output(s)
// MPI: verified @hash on target mpi: 1 output(s)

// Shifts in linalg bodies (the PyTorch importer's random ops hash each
// element's global position with SplitMix64): shli, shrui and shrsi at their
// operand's width (i8: shli of -128 by 1 is 0, shrui 64, shrsi -64), a shift by
// the width or more is 0 (the sign for shrsi). @hash: a value computed from
// linalg.index and a replicated seed is the same global tensor whatever
// the sharding, each rank computing its own rows; the emitted C++ (under
// mpirun) computes the same bits.

dtensor.mesh @mesh shape = [2]

#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: ran @shifts
// CHECK: output 0: same on every rank, 4 i8
// CHECK-NEXT: [0, 2, 0, 0]
// CHECK: output 1: same on every rank, 4 i8
// CHECK-NEXT: [64, 0, 0, 0]
// CHECK: output 2: same on every rank, 4 i8
// CHECK-NEXT: [-64, 0, -1, 0]
// CHECK: verified @shifts: 3 output(s)
func.func @shifts(%m: !dtensor.device_mesh<@mesh>) -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>) {
  %v = arith.constant dense<[-128, 1, -128, 1]> : tensor<4xi8>
  %s = arith.constant dense<[1, 1, 8, 9]> : tensor<4xi8>
  %x = dtensor.distribute_tensor %v, %m : tensor<4xi8>, !dtensor.device_mesh<@mesh>
      -> tensor<4xi8, #dtensor.spec<@mesh, [S(0)]>>
  %e = tensor.empty() : tensor<4xi8>
  %left = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %s : tensor<4xi8, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xi8>) outs(%e : tensor<4xi8>) {
  ^bb0(%a: i8, %b: i8, %o: i8):
    %r = arith.shli %a, %b : i8
    linalg.yield %r : i8
  } -> tensor<4xi8>
  %right = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %s : tensor<4xi8, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xi8>) outs(%e : tensor<4xi8>) {
  ^bb0(%a: i8, %b: i8, %o: i8):
    %r = arith.shrui %a, %b : i8
    linalg.yield %r : i8
  } -> tensor<4xi8>
  %arith = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %s : tensor<4xi8, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xi8>) outs(%e : tensor<4xi8>) {
  ^bb0(%a: i8, %b: i8, %o: i8):
    %r = arith.shrsi %a, %b : i8
    linalg.yield %r : i8
  } -> tensor<4xi8>
  return %left, %right, %arith : tensor<4xi8>, tensor<4xi8>, tensor<4xi8>
}

// CHECK-LABEL: ran @hash
// CHECK: output 0: distributed [S(0)], global 6x3 i64
// CHECK: verified @hash: 1 output(s)
func.func @hash(%m: !dtensor.device_mesh<@mesh>, %seed: tensor<i64>)
    -> tensor<6x3xi64, #dtensor.spec<@mesh, [S(0)]>> {
  %e = tensor.empty() : tensor<6x3xi64>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%seed : tensor<i64>) outs(%e : tensor<6x3xi64>) {
  ^bb0(%s: i64, %o: i64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %c3 = arith.constant 3 : i64
    %row = arith.muli %ii, %c3 : i64
    %lin = arith.addi %row, %jj : i64
    %x = arith.xori %lin, %s : i64
    %g = arith.constant -7046029254386353131 : i64
    %z0 = arith.addi %x, %g : i64
    %c30 = arith.constant 30 : i64
    %z1 = arith.shrui %z0, %c30 : i64
    %z2 = arith.xori %z0, %z1 : i64
    %m1 = arith.constant -4658895280553007687 : i64
    %z3 = arith.muli %z2, %m1 : i64
    %c31 = arith.constant 31 : i64
    %z4 = arith.shrui %z3, %c31 : i64
    %z5 = arith.xori %z3, %z4 : i64
    linalg.yield %z5 : i64
  } -> tensor<6x3xi64>
  %r = dtensor.hint %h, %m : tensor<6x3xi64>, !dtensor.device_mesh<@mesh>
      -> tensor<6x3xi64, #dtensor.spec<@mesh, [S(0)]>>
  return %r : tensor<6x3xi64, #dtensor.spec<@mesh, [S(0)]>>
}
