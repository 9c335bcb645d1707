// LocalTensor tutorial, example 1: per-rank tensors and per-rank arithmetic.
// Each rank builds its own 2x2 tensor filled with its rank; arithmetic runs
// on every rank's tensor; a value all ranks agree on reconciles to one.
//
//   dtensor-run examples/localtensor/01_basic.mlir --print-values --reconcile 2

dtensor.mesh @world shape = [4]

func.func @main(%world: !dtensor.device_mesh<@world>)
    -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  // rank_map: this rank's index, as a float.
  %rank = dtensor.mesh_coord %world mesh_dims = [0] : !dtensor.device_mesh<@world> -> index
  %r64 = arith.index_cast %rank : index to i64
  %rf = arith.sitofp %r64 : i64 to f32
  %x = tensor.splat %rf : tensor<2x2xf32>
  // Per-rank arithmetic: 2 * x + 1.
  %two = arith.constant dense<2.0> : tensor<2x2xf32>
  %one = arith.constant dense<1.0> : tensor<2x2xf32>
  %t = arith.mulf %x, %two : tensor<2x2xf32>
  %y = arith.addf %t, %one : tensor<2x2xf32>
  // x - x + 1 is the same on every rank: it reconciles.
  %d = arith.subf %x, %x : tensor<2x2xf32>
  %same = arith.addf %d, %one : tensor<2x2xf32>
  return %x, %y, %same : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
