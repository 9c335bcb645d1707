// RUN: dtensor-run %s --verify | FileCheck %s
// RUN: %if mpi %{ dtensor-run %s --verify --target=mpi | FileCheck %s --check-prefix=MPI %}
// avg-terms.mlir on three ranks, where dividing each term first rounds
// differently from dividing the sum (within f32's tolerance).

dtensor.mesh @m shape = [3]

// Three terms: each divided by 3, rounded, then summed (within f32's
// tolerance of the value; near the largest float no longer inf).
// CHECK: verified @f32_avg_three
func.func @f32_avg_three(%mh: !dtensor.device_mesh<@m>) -> tensor<4xf32> {
  %v = arith.constant dense<[3.0e38, 0.1, -7.0, 1.0e-30]> : tensor<4xf32>
  %x = dtensor.distribute_tensor %v, %mh : tensor<4xf32>, !dtensor.device_mesh<@m> -> tensor<4xf32, #dtensor.spec<@m, [P(avg)]>>
  %r = dtensor.full_tensor %x, %mh : tensor<4xf32, #dtensor.spec<@m, [P(avg)]>>, !dtensor.device_mesh<@m> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// MPI: verified @f32_avg_three on target mpi
