// RUN: dtensor-opt %s --dtensor-propagate="search-budget=0 whole-function-ops=0" | FileCheck %s
// RUN: dtensor-opt %s --dtensor-propagate="lookahead=false search-budget=0 whole-function-ops=0" | FileCheck %s --check-prefix=GREEDY
// RUN: dtensor-run %s --all-entries --verify --pipeline "dtensor-compile{whole-function-ops=0}" --report | FileCheck %s --check-prefix=RAN

// Lookahead's demands carried back through ops that only follow their
// operand (deepDemands in Propagate.cpp). A batch norm's variance: a
// Partial sum over the sharded batch, + eps (which cannot keep the
// Partial), rsqrt, then read whole by the batch-sharded normalization.
// Decided one op at a time, + eps reduce-scatters its operand (cheaper
// than an all_reduce there), rsqrt follows, and the normalization gathers
// the result: two collectives. Lookahead one user deep sees only rsqrt,
// which followed; carried back through it, + eps's result is asked for
// whole, and reducing once (one all_reduce) is cheaper than both
// collectives. (Found on MobileViT's data-parallel training step; the
// local search and the whole-function program, off here, can find it too
// on small functions.)

// + eps takes the Partial sum whole (an all_reduce), rsqrt follows.
// CHECK-LABEL: func.func @variance
// CHECK: linalg.generic {{.*}} ins(%{{[0-9]+}} : tensor<64xf32>) {{.*}}dtensor.operand_specs = [#dtensor.spec<@mesh, [R]>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
// CHECK: linalg.generic {{.*}} ins(%{{[0-9]+}} : tensor<64xf32>) {{.*}}dtensor.operand_specs = [#dtensor.spec<@mesh, [R]>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.rsqrt
// One op at a time: + eps takes it reduce-scattered.
// GREEDY-LABEL: func.func @variance
// GREEDY: linalg.generic {{.*}} ins(%{{[0-9]+}} : tensor<64xf32>) {{.*}}dtensor.operand_specs = [#dtensor.spec<@mesh, [S(0)]>
// GREEDY-NEXT: ^bb0
// GREEDY-NEXT: arith.addf
// RAN: verified @variance
// RAN: communication: 1 collective, 256 bytes/rank
// RAN-NEXT: all_reduce
// RAN-NOT: all_gather
// RAN-NOT: reduce_scatter

dtensor.mesh @mesh shape = [2] names = ["dp"]

#id = affine_map<(d0) -> (d0)>
#rows = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
func.func @variance(%m: !dtensor.device_mesh<@mesh>,
                    %x: tensor<8x64xf32, #dtensor.spec<@mesh, [S(0)]>>)
    -> tensor<8x64xf32, #dtensor.spec<@mesh, [S(0)]>> {
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  // The sum of squares over the (sharded) batch: a Partial sum.
  %s = linalg.generic {indexing_maps = [#rows, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%z : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  // + eps (cannot keep the Partial), then rsqrt: both follow their operand.
  %v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%s : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %eps : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%v : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.rsqrt %a : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  // Read whole by the batch-sharded normalization.
  %ye = tensor.empty() : tensor<8x64xf32>
  %y = linalg.generic {indexing_maps = [#rows, #cols, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<64xf32>) outs(%ye : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.mulf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<8x64xf32>
  %yd = dtensor.distribute_tensor %y, %m : tensor<8x64xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x64xf32, #dtensor.spec<@mesh, [S(0)]>>
  return %yd : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0)]>>
}

// Carried back through a reshape too: a demand that shards no dim (here:
// whole) means the same for an operand of another shape. A batch norm's
// channel gradient as MobileViT's training step makes it: a Partial sum
// over the batch, scaled and exponentiated (cannot keep the Partial),
// expanded to C x 1, then read whole by the batch-sharded activations.
// Decided one op at a time the scale reduce-scatters and the expanded
// value is gathered; carried back through the expand_shape, the scale is
// asked for it whole: one all_reduce.
// CHECK-LABEL: func.func @channel_grad
// CHECK: linalg.generic {{.*}} ins(%{{[0-9]+}}, %{{.*}} : tensor<64xf32>, {{.*}}dtensor.operand_specs = [#dtensor.spec<@mesh, [R]>
// CHECK: tensor.expand_shape {{.*}}dtensor.operand_specs = [#dtensor.spec<@mesh, [R]>]
// GREEDY-LABEL: func.func @channel_grad
// GREEDY: linalg.generic {{.*}} ins(%{{[0-9]+}}, %{{.*}} : tensor<64xf32>, {{.*}}dtensor.operand_specs = [#dtensor.spec<@mesh, [S(0)]>
// RAN: verified @channel_grad
// RAN: communication: 1 collective, 256 bytes/rank
// RAN-NEXT: all_reduce
// RAN-NOT: all_gather
// RAN-NOT: reduce_scatter
#x3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#c3 = affine_map<(d0, d1, d2) -> (d1)>
#ch = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @channel_grad(%m: !dtensor.device_mesh<@mesh>,
                    %x: tensor<8x64x1xf32, #dtensor.spec<@mesh, [S(0)]>>,
                    %w: tensor<64xf32, #dtensor.spec<@mesh, [R]>>)
    -> tensor<8x64x1xf32, #dtensor.spec<@mesh, [S(0)]>> {
  %zero = arith.constant 0.0 : f32
  %k = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [#x3, #c3], iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%x : tensor<8x64x1xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%z : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %v = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%s, %w : tensor<64xf32>, tensor<64xf32, #dtensor.spec<@mesh, [R]>>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.mulf %a, %b : f32
    %u = math.exp %t : f32
    linalg.yield %u : f32
  } -> tensor<64xf32>
  %r = tensor.expand_shape %v [[0, 1]] output_shape [64, 1] : tensor<64xf32> into tensor<64x1xf32>
  %ye = tensor.empty() : tensor<8x64x1xf32>
  %y = linalg.generic {indexing_maps = [#x3, #ch, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %r : tensor<8x64x1xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<64x1xf32>) outs(%ye : tensor<8x64x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.mulf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<8x64x1xf32>
  %yd = dtensor.distribute_tensor %y, %m : tensor<8x64x1xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x64x1xf32, #dtensor.spec<@mesh, [S(0)]>>
  return %yd : tensor<8x64x1xf32, #dtensor.spec<@mesh, [S(0)]>>
}
