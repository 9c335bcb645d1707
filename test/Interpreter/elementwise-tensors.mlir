// RUN: dtensor-run %s --entry casts --print-values | FileCheck %s
// RUN: dtensor-run %s --entry sharded --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=SHARDED
// RUN: %if mpi %{ dtensor-run %s --entry casts --verify --target=mpi | FileCheck %s --check-prefix=MPI %}
// RUN: %if mpi %{ dtensor-run %s --entry sharded --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPI-SHARDED %}
// Element-wise arith and math ops on tensors that had no tensor kernel in
// the interpreter (casts, comparisons, a select on a tensor condition,
// math ops only linalg bodies ran) were "not supported yet", in the global
// program and in the compiled one (partition keeps them on local tensors).
// They run as the linalg.generic that applies the op per element, with the
// bodies' rounding and wrapping, as the emitted C++ does.

// CHECK: output 0: {{.*}} bf16
// CHECK-NEXT: [1, -2.5, 300]
// CHECK: output 1: {{.*}} i1
// CHECK-NEXT: [0, 0, 1]
// CHECK: output 2:
// CHECK-NEXT: [1, -3, 300]
// CHECK: output 3: {{.*}} i8
// CHECK-NEXT: [1, -2, 44]
// CHECK: output 4:
// CHECK-NEXT: [2, 0.125, inf]
// MPI: verified @casts on target mpi: 5 output(s)
func.func @casts() -> (tensor<3xbf16>, tensor<3xi1>, tensor<3xf32>, tensor<3xi8>, tensor<3xf32>) {
  %a = arith.constant dense<[1.00390625, -2.5, 300.0]> : tensor<3xf32>
  %b = arith.constant dense<[1.0, -3.0, 400.0]> : tensor<3xf32>
  %t = arith.truncf %a : tensor<3xf32> to tensor<3xbf16>
  %c = arith.cmpf olt, %a, %b : tensor<3xf32>
  %s = arith.select %c, %a, %b : tensor<3xi1>, tensor<3xf32>
  %i = arith.fptosi %a : tensor<3xf32> to tensor<3xi8>
  %e = math.exp2 %b : tensor<3xf32>
  return %t, %c, %s, %i, %e : tensor<3xbf16>, tensor<3xi1>, tensor<3xf32>, tensor<3xi8>, tensor<3xf32>
}

// The same ops on sharded tensors, in the global program and compiled.
// SHARDED: verified @sharded: 2 output(s) of the compiled program match the original on 4 rank(s)
// SHARDED: communication: 0 collectives
// MPI-SHARDED: verified @sharded on target mpi
dtensor.mesh @mesh shape = [4] names = ["x"]
func.func @sharded(%m: !dtensor.device_mesh<@mesh>,
  %a: tensor<8x4xf32, #dtensor.spec<@mesh, [S(0)]>>,
  %b: tensor<8x4xf32, #dtensor.spec<@mesh, [S(0)]>>)
  -> (tensor<8x4xbf16, #dtensor.spec<@mesh, [S(0)]>>, tensor<8x4xi32, #dtensor.spec<@mesh, [S(0)]>>) {
  %c = arith.cmpf ogt, %a, %b : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0)]>>
  %s = arith.select %c, %a, %b : tensor<8x4xi1, #dtensor.spec<@mesh, [S(0)]>>, tensor<8x4xf32, #dtensor.spec<@mesh, [S(0)]>>
  %t = arith.truncf %s : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0)]>> to tensor<8x4xbf16, #dtensor.spec<@mesh, [S(0)]>>
  %i = arith.fptosi %s : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0)]>> to tensor<8x4xi32, #dtensor.spec<@mesh, [S(0)]>>
  return %t, %i : tensor<8x4xbf16, #dtensor.spec<@mesh, [S(0)]>>, tensor<8x4xi32, #dtensor.spec<@mesh, [S(0)]>>
}

// Uneven shards (7 rows on 4 ranks: 2, 2, 2, 1): each rank's local tensor
// has its own size (the compiled types are dynamic), and so has the
// per-element generic's init.
// RUN: dtensor-run %s --entry uneven --verify --pipeline dtensor-compile | FileCheck %s --check-prefix=UNEVEN
// UNEVEN: verified @uneven: 1 output(s) of the compiled program match the original on 4 rank(s)
func.func @uneven(%m: !dtensor.device_mesh<@mesh>,
  %a: tensor<7x3xf32, #dtensor.spec<@mesh, [S(0)]>>)
  -> tensor<7x3xbf16, #dtensor.spec<@mesh, [S(0)]>> {
  %e = math.exp2 %a : tensor<7x3xf32, #dtensor.spec<@mesh, [S(0)]>>
  %c = arith.cmpf ogt, %e, %a : tensor<7x3xf32, #dtensor.spec<@mesh, [S(0)]>>
  %s = arith.select %c, %e, %a : tensor<7x3xi1, #dtensor.spec<@mesh, [S(0)]>>, tensor<7x3xf32, #dtensor.spec<@mesh, [S(0)]>>
  %t = arith.truncf %s : tensor<7x3xf32, #dtensor.spec<@mesh, [S(0)]>> to tensor<7x3xbf16, #dtensor.spec<@mesh, [S(0)]>>
  return %t : tensor<7x3xbf16, #dtensor.spec<@mesh, [S(0)]>>
}
