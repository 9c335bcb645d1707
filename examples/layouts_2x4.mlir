// A 2x4 mesh ("dp" x "tp") and distributed tensors on it: even and uneven
// shards, nested shard orders, a Partial and a sub-mesh. The main job prints
// where each rank's shard of every value lives:
//
//   dtensor-opt examples/layouts_2x4.mlir --dtensor-normalize-specs \
//       --dtensor-verify --dtensor-print-layout -o /dev/null

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]

func.func @layouts(%mesh: !dtensor.device_mesh<@mesh>,
                   // Activations: batch split over "dp", hidden over "tp".
                   %act: tensor<16x32xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>,
                   // 13 rows over 4 "tp" ranks: 4, 4, 4, 1 (torch.chunk).
                   %uneven: tensor<13x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
                   // Dim 0 split by "dp" (5 | 4 rows), then each part by "tp" (2,2,1,0 | 1,1,1,1).
                   %nested: tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>,
                   // The same split with "tp" applied first (DTensor's S(0)[1], S(0)[0]).
                   %reordered: tensor<9x4xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>,
                   // Partial sums over "tp": every rank holds a full-size term.
                   %partial: tensor<8x8xf32, #dtensor.spec<@mesh, [S(-1), P(sum)]>>,
                   // This rank's rows of a 9-row tensor: 5 or 4, so dynamic.
                   %local: tensor<?x8xf32>)
    -> tensor<16x32xf32> {
  // A local shard wrapped as a DTensor: rows uneven over "dp" (5 / 4).
  %wrapped = dtensor.from_local %local, %mesh
      : tensor<?x8xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<9x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  // The "tp" sub-mesh, and a weight scattered over it from group rank 0.
  %tp = dtensor.submesh %mesh ["tp"]
      : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[1]>
  %full = dtensor.full_tensor %act, %mesh
      : tensor<16x32xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>,
        !dtensor.device_mesh<@mesh> -> tensor<16x32xf32>
  %w = tensor.empty() : tensor<6x8xf32>
  %wt = dtensor.distribute_tensor %w, %tp src_rank = 0
      : tensor<6x8xf32>, !dtensor.device_mesh<@mesh[1]>
      -> tensor<6x8xf32, #dtensor.spec<@mesh[1], [S(0)]>>
  return %full : tensor<16x32xf32>
}
