// RUN: dtensor-run %s --verify --pipeline dtensor-compile --report | FileCheck %s
// RUN: dtensor-run %s --verify --pipeline "dtensor-compile{whole-function-ops=0}" --report | FileCheck %s
// RUN: dtensor-opt %s --dtensor-propagate=explain=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// A private callee first called in a loop, again in a branch. The loop is
// analysed twice (carrying its inits' specs, then its yields'); the second
// attempt found the moves the first had paid inside the callee still paid,
// priced the callee at nothing, and the whole-function solution (which
// gathers the callee's operand for both reductions) was kept: 20
// collectives, 2,072 bytes/rank, where the plan makes 14 and 968.
// CHECK: verified @main: 3 output(s)
// CHECK: communication: 14 collectives, 968 bytes/rank
// EXPLAIN: @main: whole-function optimization {{.*}}: kept the plan (the solution's analysis costs 1.44{{[0-9e+.]*}} us against the plan's 1.41{{[0-9e+.]*}} us)

dtensor.mesh @mesh shape = [2, 2] names = ["a", "b"]
#id = affine_map<(d0, d1) -> (d0, d1)>
#m1 = affine_map<(d0, d1) -> (d0)>
func.func private @red(%m: !dtensor.device_mesh<@mesh>, %x: tensor<5x6xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -1.0e30 : f32
  %e = tensor.empty() : tensor<5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %zm = linalg.fill ins(%ninf : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %s = linalg.generic {indexing_maps = [#id, #m1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<5x6xf32>) outs(%z : tensor<5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.addf %a, %o : f32
    linalg.yield %q : f32
  } -> tensor<5xf32>
  %mx = linalg.generic {indexing_maps = [#id, #m1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<5x6xf32>) outs(%zm : tensor<5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.maximumf %a, %o : f32
    linalg.yield %q : f32
  } -> tensor<5xf32>
  return %s, %mx, %x : tensor<5xf32>, tensor<5xf32>, tensor<5x6xf32>
}
func.func @pub(%m: !dtensor.device_mesh<@mesh>, %x: tensor<5x6xf32>) -> tensor<5x6xf32> {
  %t = math.tanh %x : tensor<5x6xf32>
  return %t : tensor<5x6xf32>
}
func.func @main(%m: !dtensor.device_mesh<@mesh>,
    %x0: tensor<5x6xf32, #dtensor.spec<@mesh, [S(1), S(1)]>>,
    %y0: tensor<5x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, %flagin: tensor<1xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %fv = tensor.extract %flagin[%c0] : tensor<1xf32>
  %flag = arith.cmpf ogt, %fv, %zero : f32
  %e = tensor.empty() : tensor<5x6xf32>
  %x = linalg.copy ins(%x0 : tensor<5x6xf32, #dtensor.spec<@mesh, [S(1), S(1)]>>) outs(%e : tensor<5x6xf32>) -> tensor<5x6xf32>
  %y = linalg.copy ins(%y0 : tensor<5x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<5x6xf32>) -> tensor<5x6xf32>
  %e5 = tensor.empty() : tensor<5xf32>
  %z5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<5xf32>) -> tensor<5xf32>
  %r:3 = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %z5, %acc2 = %z5, %v = %x) -> (tensor<5xf32>, tensor<5xf32>, tensor<5x6xf32>) {
    %a:3 = func.call @red(%m, %v) : (!dtensor.device_mesh<@mesh>, tensor<5x6xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5x6xf32>)
    %nv = scf.if %flag -> (tensor<5x6xf32>) {
      %b:3 = func.call @red(%m, %y) : (!dtensor.device_mesh<@mesh>, tensor<5x6xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5x6xf32>)
      %p = func.call @pub(%m, %b#2) : (!dtensor.device_mesh<@mesh>, tensor<5x6xf32>) -> tensor<5x6xf32>
      scf.yield %p : tensor<5x6xf32>
    } else {
      %p = func.call @pub(%m, %a#2) : (!dtensor.device_mesh<@mesh>, tensor<5x6xf32>) -> tensor<5x6xf32>
      scf.yield %p : tensor<5x6xf32>
    }
    %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%acc, %a#0 : tensor<5xf32>, tensor<5xf32>) outs(%e5 : tensor<5xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %w = arith.addf %p, %q : f32
      linalg.yield %w : f32
    } -> tensor<5xf32>
    %s2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%acc2, %a#1 : tensor<5xf32>, tensor<5xf32>) outs(%e5 : tensor<5xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %w = arith.addf %p, %q : f32
      linalg.yield %w : f32
    } -> tensor<5xf32>
    scf.yield %s, %s2, %nv : tensor<5xf32>, tensor<5xf32>, tensor<5x6xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<5xf32>, tensor<5xf32>, tensor<5x6xf32>
}
