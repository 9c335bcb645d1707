// REQUIRES: mpi
// RUN: dtensor-run %s --entry f --verify --pipeline dtensor-compile --target=mpi | FileCheck %s
// RUN: not dtensor-run %s --entry g --verify --pipeline dtensor-compile --target=mpi 2>&1 | FileCheck %s --check-prefix=SCALAR
// The executable's entries are the ones run: @g, whose scalar argument
// the emitted main cannot take, stopped the MPI job of @f ("entry argument
// 1 has type 'i1'", found by probing). Run itself, @g still says so.
// CHECK: verified @f on target mpi
// SCALAR: error: argument 1 cannot be given to the emitted program
dtensor.mesh @m shape = [2]
func.func @f(%mesh: !dtensor.device_mesh<@m>, %a: tensor<4xf32, #dtensor.spec<@m, [S(0)]>>) -> tensor<4xf32, #dtensor.spec<@m, [S(0)]>> {
  %b = arith.addf %a, %a : tensor<4xf32, #dtensor.spec<@m, [S(0)]>>
  return %b : tensor<4xf32, #dtensor.spec<@m, [S(0)]>>
}
func.func @g(%mesh: !dtensor.device_mesh<@m>, %c: i1, %a: tensor<4xf32, #dtensor.spec<@m, [S(0)]>>) -> tensor<4xf32, #dtensor.spec<@m, [S(0)]>> {
  return %a : tensor<4xf32, #dtensor.spec<@m, [S(0)]>>
}
