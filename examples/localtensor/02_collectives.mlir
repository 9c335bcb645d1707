// LocalTensor tutorial, example 2: collectives over 4 simulated ranks.
// all_reduce(sum) of each rank's rank gives 0+1+2+3 = 6 everywhere;
// broadcast from rank 1 gives 1 everywhere; all_gather collects [0, 1, 2, 3].
//
//   dtensor-run examples/localtensor/02_collectives.mlir --print-values --reconcile 0,1,2,3 --report

dtensor.mesh @world shape = [4]

func.func @main(%world: !dtensor.device_mesh<@world>)
    -> (tensor<2xf32>, tensor<2xf32>, tensor<4xf32>, tensor<2xf32>) {
  %rank = dtensor.mesh_coord %world mesh_dims = [0] : !dtensor.device_mesh<@world> -> index
  %r64 = arith.index_cast %rank : index to i64
  %rf = arith.sitofp %r64 : i64 to f32
  %x = tensor.splat %rf : tensor<2xf32>
  %sum = dtensor.all_reduce %x, %world mesh_dims = [0] reduce = sum
      : tensor<2xf32>, !dtensor.device_mesh<@world> -> tensor<2xf32>
  %b = dtensor.broadcast %x, %world mesh_dims = [0] root = 1
      : tensor<2xf32>, !dtensor.device_mesh<@world> -> tensor<2xf32>
  %one = tensor.splat %rf : tensor<1xf32>
  %all = dtensor.all_gather %one, %world mesh_dims = [0] gather_dim = 0
      : tensor<1xf32>, !dtensor.device_mesh<@world> -> tensor<4xf32>
  // The async form: start, then wait.
  %f = dtensor.all_reduce %x, %world mesh_dims = [0] reduce = max
      : tensor<2xf32>, !dtensor.device_mesh<@world> -> !dtensor.future<tensor<2xf32>>
  %max = dtensor.wait %f : !dtensor.future<tensor<2xf32>>
  return %sum, %b, %all, %max : tensor<2xf32>, tensor<2xf32>, tensor<4xf32>, tensor<2xf32>
}
