// Auto-sharding on a 2x2 (dp x tp) mesh, with compute a real cost in the
// model (the roofline of the comm report's step model): a two-layer MLP of
// a 2048-row batch and 16 MiB f32 weights.
//
// RUN: dtensor-opt %s --dtensor-propagate="auto-shard=mesh explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FREE
// RUN: dtensor-opt %s --dtensor-propagate="auto-shard=mesh memory-budget-mb=20 explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: dtensor-run %s --verify --pipeline "dtensor-compile{auto-shard=mesh}" --report | FileCheck %s --check-prefix=RAN-FREE
// RUN: dtensor-run %s --verify --pipeline "dtensor-compile{auto-shard=mesh memory-budget-mb=20}" --report | FileCheck %s --check-prefix=RAN-BUDGET

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

// Without a budget: data parallel over both mesh dims (each rank computes a
// quarter of the batch with whole weights; the output is gathered once).
// FREE: @mlp: auto-sharding (6 nodes, 68 strategies, proven optimal): {{.*}}; arguments' shards 35651584 bytes/rank
// FREE-NEXT: argument 1: #dtensor.spec<@mesh, [S(0), S(0)]>, 2097152 bytes/rank
// FREE-NEXT: argument 2: #dtensor.spec<@mesh, [R, R]>, 16777216 bytes/rank
// FREE-NEXT: argument 3: #dtensor.spec<@mesh, [R, R]>, 16777216 bytes/rank
// FREE-NEXT: against every argument replicated: modeled 7.37{{[0-9]+}}e+02 us, 41943040 bytes/rank{{$}}
// RAN-FREE: verified @mlp: 1 output(s) of the compiled program match the original on 4 rank(s)
// RAN-FREE-NEXT: communication: 1 collective, 8388608 bytes/rank
// RAN-FREE-NEXT: all_gather 1 8388608 bytes mesh dims ["dp", "tp"]
//
// Within 20 MiB per rank the weights no longer fit whole: the batch over dp
// and Megatron's column / row split over tp (the 2-D plan written by hand
// for such a layer).
// BUDGET: @mlp: auto-sharding (6 nodes, 68 strategies, proven optimal): {{.*}}; arguments' shards 20971520 bytes/rank of a budget of 20971520
// BUDGET-NEXT: argument 1: #dtensor.spec<@mesh, [S(0), R]>, 4194304 bytes/rank
// BUDGET-NEXT: argument 2: #dtensor.spec<@mesh, [R, S(1)]>, 8388608 bytes/rank
// BUDGET-NEXT: argument 3: #dtensor.spec<@mesh, [R, S(0)]>, 8388608 bytes/rank
// BUDGET-NEXT: against every argument replicated: modeled 7.37{{[0-9]+}}e+02 us, 41943040 bytes/rank (over the budget)
// RAN-BUDGET: verified @mlp: 1 output(s) of the compiled program match the original on 4 rank(s)
// RAN-BUDGET-NEXT: communication: 2 collectives, 12582912 bytes/rank
// RAN-BUDGET-NEXT: all_gather 1 8388608 bytes mesh dims ["dp"]
// RAN-BUDGET-NEXT: all_reduce 1 4194304 bytes mesh dims ["tp"]
func.func @mlp(%m: !dtensor.device_mesh<@mesh>, %x: tensor<2048x1024xf32>, %w1: tensor<1024x4096xf32>, %w2: tensor<4096x1024xf32>) -> tensor<2048x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2048x4096xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<2048x1024xf32>, tensor<1024x4096xf32>) outs(%z1 : tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<2048x4096xf32>) outs(%e1 : tensor<2048x4096xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<2048x4096xf32>
  %e2 = tensor.empty() : tensor<2048x1024xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<2048x4096xf32>, tensor<4096x1024xf32>) outs(%z2 : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  return %y : tensor<2048x1024xf32>
}
