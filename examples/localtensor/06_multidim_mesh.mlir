// LocalTensor tutorial, example 6: 2-D and 3-D meshes. On a 2x2 mesh
// ("dp", "tp"): batch rows split over dp, weight columns over tp; each rank
// multiplies its block, then the tp groups gather their columns. On a 2x2x2
// mesh ("pp", "dp", "tp") the same on one pipeline stage per pp coordinate.
// Checked against the unsharded product; `--verify` checks every rank.
//
//   dtensor-run examples/localtensor/06_multidim_mesh.mlir --verify --report

dtensor.mesh @cube shape = [2, 2, 2] names = ["pp", "dp", "tp"]

func.func @main(%cube: !dtensor.device_mesh<@cube>, %x: tensor<4x6xf32>, %w: tensor<6x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // x: rows over dp; w: columns over tp; both replicated over pp.
  %xd = dtensor.distribute_tensor %x, %cube : tensor<4x6xf32>, !dtensor.device_mesh<@cube>
      -> tensor<4x6xf32, #dtensor.spec<@cube, [R, S(0), R]>>
  %wd = dtensor.distribute_tensor %w, %cube : tensor<6x8xf32>, !dtensor.device_mesh<@cube>
      -> tensor<6x8xf32, #dtensor.spec<@cube, [R, R, S(1)]>>
  %xl = dtensor.to_local %xd : tensor<4x6xf32, #dtensor.spec<@cube, [R, S(0), R]>> -> tensor<2x6xf32>
  %wl = dtensor.to_local %wd : tensor<6x8xf32, #dtensor.spec<@cube, [R, R, S(1)]>> -> tensor<6x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %yl = linalg.matmul ins(%xl, %wl : tensor<2x6xf32>, tensor<6x4xf32>) outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32>
  %yd = dtensor.from_local %yl, %cube : tensor<2x4xf32>, !dtensor.device_mesh<@cube>
      -> tensor<4x8xf32, #dtensor.spec<@cube, [R, S(0), S(1)]>>
  // Gather the columns within each tp group: rows stay split over dp.
  %rows = dtensor.redistribute %yd, %cube
      : tensor<4x8xf32, #dtensor.spec<@cube, [R, S(0), S(1)]>>, !dtensor.device_mesh<@cube>
      -> tensor<4x8xf32, #dtensor.spec<@cube, [R, S(0), R]>>
  %y = dtensor.full_tensor %rows, %cube
      : tensor<4x8xf32, #dtensor.spec<@cube, [R, S(0), R]>>, !dtensor.device_mesh<@cube> -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %ref = linalg.matmul ins(%x, %w : tensor<4x6xf32>, tensor<6x8xf32>) outs(%z2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y, %ref : tensor<4x8xf32>, tensor<4x8xf32>
}
