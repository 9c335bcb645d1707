// Three Megatron MLP blocks in an scf.for loop: the loop carries the
// batch-sharded activation; propagation reaches into the loop body and
// partitioning retypes the loop-carried values. One all_reduce per iteration.
//
//   dtensor-run examples/compile/loop.mlir --verify --pipeline dtensor-compile --report

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]
func.func @main(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
                %w1: tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>, %w2: tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%h = %x) -> (tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) {
    %zero = arith.constant 0.0 : f32
    %e1 = tensor.empty() : tensor<4x16xf32>
    %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
    %a = linalg.matmul ins(%h, %w1 : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z1 : tensor<4x16xf32>) -> tensor<4x16xf32>
    %t = math.tanh %a : tensor<4x16xf32>
    %e2 = tensor.empty() : tensor<4x8xf32>
    %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
    %b = linalg.matmul ins(%t, %w2 : tensor<4x16xf32>, tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z2 : tensor<4x8xf32>) -> tensor<4x8xf32>
    %n = dtensor.distribute_tensor %b, %m : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
    scf.yield %n : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  }
  return %r : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}
