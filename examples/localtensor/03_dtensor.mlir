// LocalTensor tutorial, example 3: DTensor on simulated ranks.
// Distribute a tensor and rebuild it; a distributed matmul (rows of x
// sharded, w replicated: each rank multiplies its rows); a linear layer with
// its output features sharded (each rank holds some rows of W and of b).
// `--verify` compiles the program and checks every rank.
//
//   dtensor-run examples/localtensor/03_dtensor.mlir --verify --report

dtensor.mesh @world shape = [4]

func.func @main(%world: !dtensor.device_mesh<@world>, %x: tensor<8x4xf32>,
                %w: tensor<4x6xf32>, %W: tensor<8x4xf32>, %bias: tensor<8xf32>)
    -> (tensor<8x4xf32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<8x8xf32>) {
  // Distribute and reconstruct.
  %xd = dtensor.distribute_tensor %x, %world src_rank = 0
      : tensor<8x4xf32>, !dtensor.device_mesh<@world>
      -> tensor<8x4xf32, #dtensor.spec<@world, [S(0)]>>
  %back = dtensor.full_tensor %xd, %world
      : tensor<8x4xf32, #dtensor.spec<@world, [S(0)]>>, !dtensor.device_mesh<@world> -> tensor<8x4xf32>

  // Distributed matmul: each rank's 2 rows of x times the whole w.
  %xl = dtensor.to_local %xd : tensor<8x4xf32, #dtensor.spec<@world, [S(0)]>> -> tensor<2x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6xf32>) -> tensor<2x6xf32>
  %yl = linalg.matmul ins(%xl, %w : tensor<2x4xf32>, tensor<4x6xf32>) outs(%z : tensor<2x6xf32>) -> tensor<2x6xf32>
  %yd = dtensor.from_local %yl, %world : tensor<2x6xf32>, !dtensor.device_mesh<@world>
      -> tensor<8x6xf32, #dtensor.spec<@world, [S(0)]>>
  %y = dtensor.full_tensor %yd, %world
      : tensor<8x6xf32, #dtensor.spec<@world, [S(0)]>>, !dtensor.device_mesh<@world> -> tensor<8x6xf32>
  // The same product, unsharded.
  %e2 = tensor.empty() : tensor<8x6xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x6xf32>) -> tensor<8x6xf32>
  %ref = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x6xf32>) outs(%z2 : tensor<8x6xf32>) -> tensor<8x6xf32>

  // Linear layer y = x W^T + b with output features sharded: rank r holds
  // rows 2r, 2r+1 of W and of b and computes those output columns.
  %Wd = dtensor.distribute_tensor %W, %world : tensor<8x4xf32>, !dtensor.device_mesh<@world>
      -> tensor<8x4xf32, #dtensor.spec<@world, [S(0)]>>
  %bd = dtensor.distribute_tensor %bias, %world : tensor<8xf32>, !dtensor.device_mesh<@world>
      -> tensor<8xf32, #dtensor.spec<@world, [S(0)]>>
  %Wl = dtensor.to_local %Wd : tensor<8x4xf32, #dtensor.spec<@world, [S(0)]>> -> tensor<2x4xf32>
  %bl = dtensor.to_local %bd : tensor<8xf32, #dtensor.spec<@world, [S(0)]>> -> tensor<2xf32>
  %e3 = tensor.empty() : tensor<8x2xf32>
  %bias2 = linalg.broadcast ins(%bl : tensor<2xf32>) outs(%e3 : tensor<8x2xf32>) dimensions = [0]
  %out = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %Wl : tensor<8x4xf32>, tensor<2x4xf32>) outs(%bias2 : tensor<8x2xf32>) -> tensor<8x2xf32>
  %od = dtensor.from_local %out, %world : tensor<8x2xf32>, !dtensor.device_mesh<@world>
      -> tensor<8x8xf32, #dtensor.spec<@world, [S(1)]>>
  %o = dtensor.full_tensor %od, %world
      : tensor<8x8xf32, #dtensor.spec<@world, [S(1)]>>, !dtensor.device_mesh<@world> -> tensor<8x8xf32>
  return %back, %y, %ref, %o : tensor<8x4xf32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<8x8xf32>
}
