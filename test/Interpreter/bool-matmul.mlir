// RUN: dtensor-run %s --verify --pipeline dtensor-compile --print-values | FileCheck %s
// RUN: %if mpi %{ dtensor-run %s --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPI %}
// An i1 matmul: linalg's body for booleans is an and and an or. The
// runtime refused i1 ("not supported by the runtime's matmul") after every
// other stage accepted it. Row 0 of x meets column 0 of w twice: true (an
// exclusive or would give false).
dtensor.mesh @mesh shape = [2] names = ["tp"]
func.func @main(%m: !dtensor.device_mesh<@mesh>) -> tensor<2x2xi1> {
  %x0 = arith.constant dense<[[true, true, false], [true, false, false]]> : tensor<2x3xi1>
  %w0 = arith.constant dense<[[true, false], [true, true], [false, true]]> : tensor<3x2xi1>
  %x = dtensor.distribute_tensor %x0, %m : tensor<2x3xi1>, !dtensor.device_mesh<@mesh> -> tensor<2x3xi1, #dtensor.spec<@mesh, [S(0)]>>
  %f = arith.constant false
  %e = tensor.empty() : tensor<2x2xi1>
  %z = linalg.fill ins(%f : i1) outs(%e : tensor<2x2xi1>) -> tensor<2x2xi1>
  %y = linalg.matmul ins(%x, %w0 : tensor<2x3xi1, #dtensor.spec<@mesh, [S(0)]>>, tensor<3x2xi1>) outs(%z : tensor<2x2xi1>) -> tensor<2x2xi1>
  return %y : tensor<2x2xi1>
}
// CHECK: output 0:
// CHECK-NEXT: {{\[\[}}1, 1], [1, 0]]
// CHECK: verified @main: 1 output(s)
// MPI: verified @main on target mpi: 1 output(s)
