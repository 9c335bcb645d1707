// RUN: dtensor-run %s --verify --pipeline dtensor-compile --report | FileCheck %s
// RUN: dtensor-run %s --verify --pipeline "dtensor-compile{narrow=0 whole-function-ops=0}" --report | FileCheck %s --check-prefix=WIDE
// RUN: dtensor-run %s --verify --pipeline "dtensor-compile{narrow=0}" --report | FileCheck %s

// Propagation prices the narrow form: a data-parallel linear layer (batch
// 512 split over 4 ranks) whose int8 weight is stored sharded by output
// rows. Gathering the weight as f32 (8 MiB) costs more than moving the
// activations (an all_gather of x and an all_to_all of y, 3 MiB), but
// gathering it as int8 with its scales (2 MiB) costs less: with narrow
// pricing propagation keeps the batch split and gathers the weight, and
// dtensor-narrow-moves moves it as int8. Verified on every rank.
// Without narrow pricing the whole-function integer program finds the same
// plan on its own: it gathers the int8 weight and its scales and
// dequantizes them replicated (the plan propagation alone makes without
// narrow pricing is WIDE).

// CHECK:      verified @f: 1 output(s)
// CHECK-NEXT: communication: 2 collectives, 2105344 bytes/rank
// CHECK-NEXT:   all_gather         2    2105344 bytes  mesh dims ["dp"]

// WIDE:      verified @f: 1 output(s)
// WIDE-NEXT: communication: 2 collectives, 3145728 bytes/rank
// WIDE-NEXT:   all_gather         1    2097152 bytes  mesh dims ["dp"]
// WIDE-NEXT:   all_to_all         1    1048576 bytes  mesh dims ["dp"]

dtensor.mesh @g shape = [4] names = ["dp"]
#w = affine_map<(o, i) -> (o, i)>
#s = affine_map<(o, i) -> (o, 0)>
#x = affine_map<(b, o, i) -> (b, i)>
#wt = affine_map<(b, o, i) -> (o, i)>
#y = affine_map<(b, o, i) -> (b, o)>
func.func @f(%m: !dtensor.device_mesh<@g>,
             %x: tensor<512x1024xf32, #dtensor.spec<@g, [S(0)]>>,
             %w: tensor<2048x1024xi8, #dtensor.spec<@g, [S(0)]>>,
             %s: tensor<2048x1xf32, #dtensor.spec<@g, [S(0)]>>)
    -> tensor<512x2048xf32, #dtensor.spec<@g, [S(0)]>> {
  %e = tensor.empty() : tensor<2048x1024xf32>
  %wf = linalg.generic {indexing_maps = [#w, #s, #w], iterator_types = ["parallel", "parallel"]}
      ins(%w, %s : tensor<2048x1024xi8, #dtensor.spec<@g, [S(0)]>>, tensor<2048x1xf32, #dtensor.spec<@g, [S(0)]>>)
      outs(%e : tensor<2048x1024xf32>) {
  ^bb0(%a: i8, %b: f32, %c: f32):
    %af = arith.sitofp %a : i8 to f32
    %r = arith.mulf %af, %b : f32
    linalg.yield %r : f32
  } -> tensor<2048x1024xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<512x2048xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<512x2048xf32>) -> tensor<512x2048xf32>
  %y = linalg.generic {indexing_maps = [#x, #wt, #y], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wf : tensor<512x1024xf32, #dtensor.spec<@g, [S(0)]>>, tensor<2048x1024xf32>)
      outs(%z : tensor<512x2048xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %c, %p : f32
    linalg.yield %q : f32
  } -> tensor<512x2048xf32>
  %yd = dtensor.distribute_tensor %y, %m : tensor<512x2048xf32>, !dtensor.device_mesh<@g> -> tensor<512x2048xf32, #dtensor.spec<@g, [S(0)]>>
  return %yd : tensor<512x2048xf32, #dtensor.spec<@g, [S(0)]>>
}
