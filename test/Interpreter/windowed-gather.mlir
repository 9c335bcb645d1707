// RUN: dtensor-run %s --verify --pipeline dtensor-compile --report | FileCheck %s
// A window far from the rank's own shard whose owners drift with the rank:
// out[i] = x[i + 40] with outputs chunked 2 per rank and inputs 4 per rank
// on 20 ranks, so rank g reads from rank g / 2 + 10: ten different shifts.
// Past 8 shifts partitioning gathers the operand along the mesh dim and
// slices each rank's window (correct first, docs/Windowed.md).

// CHECK: verified @far: 1 output(s) of the compiled program match the original on 20 rank(s)
// CHECK: all_gather
// CHECK-NOT: permute

dtensor.mesh @g shape = [20]

func.func @far(%m: !dtensor.device_mesh<@g>, %x: tensor<80xf32, #dtensor.spec<@g, [S(0)]>>)
    -> tensor<40xf32, #dtensor.spec<@g, [S(0)]>> {
  %e = tensor.empty() : tensor<40xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i + 40)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<80xf32, #dtensor.spec<@g, [S(0)]>>) outs(%e : tensor<40xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<40xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<40xf32>, !dtensor.device_mesh<@g> -> tensor<40xf32, #dtensor.spec<@g, [S(0)]>>
  return %d : tensor<40xf32, #dtensor.spec<@g, [S(0)]>>
}
