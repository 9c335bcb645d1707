// LocalTensor tutorial, example 5: rank-specific computation. rank_map
// builds a value from each rank's index; tensor_map transforms each rank's
// shard with its own factor; a per-rank choice (select) on the rank.
//
//   dtensor-run examples/localtensor/05_rank_specific.mlir --print-values

dtensor.mesh @world shape = [4]

func.func @main(%world: !dtensor.device_mesh<@world>)
    -> (tensor<3xf32>, tensor<3xf32>, f32) {
  %rank = dtensor.mesh_coord %world mesh_dims = [0] : !dtensor.device_mesh<@world> -> index
  %r64 = arith.index_cast %rank : index to i64
  %rf = arith.sitofp %r64 : i64 to f32
  // rank_map: rank r holds [r, r, r] * 10.
  %ten = arith.constant 10.0 : f32
  %v = arith.mulf %rf, %ten : f32
  %x = tensor.splat %v : tensor<3xf32>
  // tensor_map: scale each rank's shard by (r + 1).
  %one = arith.constant 1.0 : f32
  %factor = arith.addf %rf, %one : f32
  %fs = tensor.splat %factor : tensor<3xf32>
  %y = arith.mulf %x, %fs : tensor<3xf32>
  // Even ranks keep their rank, odd ranks take -1.
  %c2 = arith.constant 2 : i64
  %parity = arith.remsi %r64, %c2 : i64
  %c0 = arith.constant 0 : i64
  %even = arith.cmpi eq, %parity, %c0 : i64
  %neg = arith.constant -1.0 : f32
  %choice = arith.select %even, %rf, %neg : f32
  return %x, %y, %choice : tensor<3xf32>, tensor<3xf32>, f32
}
