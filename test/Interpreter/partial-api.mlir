// DTensor 2.15's API rules for Partial placements (SEMANTICS.md):
// distribute_tensor(t, [Partial(sum)]) gives t / n on every rank (avg and max
// keep t), and redistribute S(d) -> P(sum) is legal: each rank's shard in
// place, zeros elsewhere, no communication. Verified against the compiled
// program on every rank; uneven shards on a 2x3 mesh.
//
// RUN: dtensor-run %s --entry terms --print-values | FileCheck %s --check-prefix=TERMS
// RUN: dtensor-run %s --all-entries --verify --quiet --report | FileCheck %s --check-prefix=VERIFY --implicit-check-not=all_

dtensor.mesh @grid shape = [2, 3]

// TERMS-LABEL: ran @terms on 6 rank(s)
// TERMS:       output 0: per rank
// TERMS-NEXT:    rank 0: 2 f32 sum=3
// TERMS-NEXT:      [1, 2]
// TERMS:         rank 5: 2 f32 sum=3
// TERMS-NEXT:      [1, 2]
// TERMS:       output 1: per rank
// TERMS-NEXT:    rank 0: 2 f32 sum=9
// TERMS-NEXT:      [3, 6]
func.func @terms(%m: !dtensor.device_mesh<@grid>) -> (tensor<2xf32>, tensor<2xf32>) {
  %t = arith.constant dense<[3.0, 6.0]> : tensor<2xf32>
  %s = dtensor.distribute_tensor %t, %m : tensor<2xf32>, !dtensor.device_mesh<@grid> -> tensor<2xf32, #dtensor.spec<@grid, [R, P(sum)]>>
  %sl = dtensor.to_local %s : tensor<2xf32, #dtensor.spec<@grid, [R, P(sum)]>> -> tensor<2xf32>
  %x = dtensor.distribute_tensor %t, %m : tensor<2xf32>, !dtensor.device_mesh<@grid> -> tensor<2xf32, #dtensor.spec<@grid, [P(max), R]>>
  %xl = dtensor.to_local %x : tensor<2xf32, #dtensor.spec<@grid, [P(max), R]>> -> tensor<2xf32>
  return %sl, %xl : tensor<2xf32>, tensor<2xf32>
}

// VERIFY: communication: 0 collectives, 0 bytes/rank
func.func @distribute_partial(%m: !dtensor.device_mesh<@grid>, %t: tensor<5x4xf32>)
    -> (tensor<5x4xf32, #dtensor.spec<@grid, [S(0), P(sum)]>>, tensor<?x4xf32>) {
  %d = dtensor.distribute_tensor %t, %m : tensor<5x4xf32>, !dtensor.device_mesh<@grid> -> tensor<5x4xf32, #dtensor.spec<@grid, [S(0), P(sum)]>>
  %l = dtensor.to_local %d : tensor<5x4xf32, #dtensor.spec<@grid, [S(0), P(sum)]>> -> tensor<?x4xf32>
  return %d, %l : tensor<5x4xf32, #dtensor.spec<@grid, [S(0), P(sum)]>>, tensor<?x4xf32>
}

// No collective: the compiled program's report is empty.
// VERIFY: communication: 0 collectives, 0 bytes/rank
// VERIFY: verified 3 of 3 function(s)
func.func @shard_to_partial(%m: !dtensor.device_mesh<@grid>, %a: tensor<7x5xf32, #dtensor.spec<@grid, [S(0), S(0)]>>)
    -> tensor<7x5xf32, #dtensor.spec<@grid, [S(0), P(sum)]>> {
  %r = dtensor.redistribute %a, %m : tensor<7x5xf32, #dtensor.spec<@grid, [S(0), S(0)]>>, !dtensor.device_mesh<@grid> -> tensor<7x5xf32, #dtensor.spec<@grid, [S(0), P(sum)]>>
  return %r : tensor<7x5xf32, #dtensor.spec<@grid, [S(0), P(sum)]>>
}
