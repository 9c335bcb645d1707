// LocalTensor tutorial, example 4: uneven shards. 13 rows over 4 ranks are
// 4, 4, 4, 1 (torch.chunk); each rank's row count is a per-rank integer
// (LocalIntNode) that arithmetic works on; reductions of uneven shards
// reassemble the exact global value.
//
//   dtensor-run examples/localtensor/04_uneven.mlir --verify --print-values

dtensor.mesh @world shape = [4]

func.func @main(%world: !dtensor.device_mesh<@world>, %x: tensor<13x3xf32>)
    -> (index, index, tensor<13x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %xd = dtensor.distribute_tensor %x, %world : tensor<13x3xf32>, !dtensor.device_mesh<@world>
      -> tensor<13x3xf32, #dtensor.spec<@world, [S(0)]>>
  %xl = dtensor.to_local %xd : tensor<13x3xf32, #dtensor.spec<@world, [S(0)]>> -> tensor<?x3xf32>
  // Per-rank sizes, and arithmetic on them.
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %xl, %c0 : tensor<?x3xf32>
  %c2 = arith.constant 2 : index
  %twice = arith.muli %rows, %c2 : index
  // Double every local element and rebuild the global tensor.
  %dbl = arith.addf %xl, %xl : tensor<?x3xf32>
  %dd = dtensor.from_local %dbl, %world : tensor<?x3xf32>, !dtensor.device_mesh<@world>
      -> tensor<13x3xf32, #dtensor.spec<@world, [S(0)]>>
  %back = dtensor.full_tensor %dd, %world
      : tensor<13x3xf32, #dtensor.spec<@world, [S(0)]>>, !dtensor.device_mesh<@world> -> tensor<13x3xf32>
  // Column sums: each rank sums its rows (a Partial(sum)), then reduce.
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %part = linalg.reduce ins(%xl : tensor<?x3xf32>) outs(%z : tensor<3xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %pd = dtensor.from_local %part, %world : tensor<3xf32>, !dtensor.device_mesh<@world>
      -> tensor<3xf32, #dtensor.spec<@world, [P(sum)]>>
  %colsum = dtensor.full_tensor %pd, %world
      : tensor<3xf32, #dtensor.spec<@world, [P(sum)]>>, !dtensor.device_mesh<@world> -> tensor<3xf32>
  %ref = linalg.reduce ins(%x : tensor<13x3xf32>) outs(%z : tensor<3xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %rows, %twice, %back, %colsum, %ref : index, index, tensor<13x3xf32>, tensor<3xf32>, tensor<3xf32>
}
