// The first program of docs/Tutorial.md: DTensor's
//
//   mesh = init_device_mesh("cpu", (4,), mesh_dim_names=("tp",))
//   x = distribute_tensor(x, mesh, [Replicate()])        # 8x16
//   w = distribute_tensor(w, mesh, [Shard(1)])           # 16x32, by columns
//   y = torch.relu(x @ w).redistribute(mesh, [Replicate()])
//
// as a global-view program: arguments carry their placements, the compute
// in between is plain (propagation chooses its layout), and the result's
// placements are what the caller gets.

dtensor.mesh @mesh shape = [4] names = ["tp"]

func.func @first(%m: !dtensor.device_mesh<@mesh>,
                 %x: tensor<8x16xf32, #dtensor.spec<@mesh, [R]>>,
                 %w: tensor<16x32xf32, #dtensor.spec<@mesh, [S(1)]>>)
    -> tensor<8x32xf32, #dtensor.spec<@mesh, [R]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%x, %w : tensor<8x16xf32, #dtensor.spec<@mesh, [R]>>,
                                  tensor<16x32xf32, #dtensor.spec<@mesh, [S(1)]>>)
                     outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.max ins(%h, %z : tensor<8x32xf32>, tensor<8x32xf32>)
                  outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = dtensor.distribute_tensor %y, %m : tensor<8x32xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<8x32xf32, #dtensor.spec<@mesh, [R]>>
  return %r : tensor<8x32xf32, #dtensor.spec<@mesh, [R]>>
}
