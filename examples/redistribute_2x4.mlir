// Redistributions on a 2x4 mesh ("dp" x "tp"), written against the DTensor
// API in the global view. `dtensor-run --verify` compiles this with
// --dtensor-partition into one SPMD program (collectives plus slicing on local
// shards) and checks every rank of the compiled program against the original.
//
//   dtensor-run examples/redistribute_2x4.mlir --verify --report

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]

func.func @main(%mesh: !dtensor.device_mesh<@mesh>,
                // Activations: 13 rows over "dp" (7 | 6), 32 columns over "tp".
                %act: tensor<13x32xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>,
                // Partial sums over "tp" (a row-parallel matmul's output).
                %partial: tensor<13x32xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>)
    -> (tensor<13x32xf32, #dtensor.spec<@mesh, [S(1), S(0)]>>,
        tensor<13x32xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>,
        tensor<13x32xf32>) {
  // Swap which mesh dim shards which tensor dim: an all_gather and an
  // all_to_all (uneven rows are padded and cut back).
  %swapped = dtensor.redistribute %act, %mesh
      : tensor<13x32xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, !dtensor.device_mesh<@mesh>
      -> tensor<13x32xf32, #dtensor.spec<@mesh, [S(1), S(0)]>>
  // Reduce the partial sums straight into row shards (sequence parallel):
  // one reduce_scatter, not an all_reduce and a slice.
  %rows = dtensor.redistribute %partial, %mesh
      : tensor<13x32xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>, !dtensor.device_mesh<@mesh>
      -> tensor<13x32xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>
  // Everything on every rank.
  %full = dtensor.full_tensor %act, %mesh
      : tensor<13x32xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, !dtensor.device_mesh<@mesh>
      -> tensor<13x32xf32>
  return %swapped, %rows, %full
      : tensor<13x32xf32, #dtensor.spec<@mesh, [S(1), S(0)]>>,
        tensor<13x32xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>,
        tensor<13x32xf32>
}
