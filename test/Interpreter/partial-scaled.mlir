// RUN: dtensor-run %s --verify --pipeline dtensor-compile --report | FileCheck %s
// RUN: %if mpi %{ dtensor-run %s --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPI %}
// A Partial(sum) multiplied in a linalg.generic body by a constant stays
// Partial (linear in it, as DTensor's mul by a replicated value keeps the
// Partial). The body rule took only block arguments as operands, so the
// matmul's sum was reduce-scattered for it on top of the all_reduce:
// 2 collectives, 120 B/rank; 1 and 60 now. (An arith.mulf on tensors of a
// Partial and a replicated tensor: partial-elementwise.mlir.)
// CHECK: verified @in_body: 2 output(s)
// CHECK: communication: 1 collective, 60 bytes/rank
// MPI: verified @in_body on target mpi
dtensor.mesh @mesh shape = [2, 3] names = ["dp", "tp"]
func.func @in_body(%m: !dtensor.device_mesh<@mesh>,
  %x: tensor<6x7xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>,
  %w: tensor<7x5xf32, #dtensor.spec<@mesh, [R, S(0)]>>)
  -> (tensor<6x5xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<6x5xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e1 = tensor.empty() : tensor<6x5xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<6x5xf32>) -> tensor<6x5xf32>
  %h = linalg.matmul ins(%x, %w : tensor<6x7xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, tensor<7x5xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z1 : tensor<6x5xf32>) -> tensor<6x5xf32>
  %hr = dtensor.distribute_tensor %h, %m : tensor<6x5xf32>, !dtensor.device_mesh<@mesh> -> tensor<6x5xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %e9 = tensor.empty() : tensor<6x5xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<6x5xf32>) outs(%e9 : tensor<6x5xf32>) {
  ^bb0(%o: f32, %unused: f32):
    %r = arith.mulf %o, %two : f32
    linalg.yield %r : f32
  } -> tensor<6x5xf32>
  %dd = dtensor.distribute_tensor %d, %m : tensor<6x5xf32>, !dtensor.device_mesh<@mesh> -> tensor<6x5xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>
  return %hr, %dd : tensor<6x5xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<6x5xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>
}
