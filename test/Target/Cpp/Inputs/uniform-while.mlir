dtensor.mesh @mesh shape = [2]
// Halve x until its global sum of squares is below 0.01. The condition is an
// all_reduce over the whole mesh, the same on every rank.
func.func @while_norm(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<6xf32, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<6xf32, #dtensor.spec<@mesh, [S(0)]>> {
  %thr = arith.constant 0.01 : f32
  %z = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %r = scf.while (%v = %x) : (tensor<6xf32, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<6xf32, #dtensor.spec<@mesh, [S(0)]>> {
    %e = tensor.empty() : tensor<f32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
    %s = linalg.generic {indexing_maps = [affine_map<(a) -> (a)>, affine_map<(a) -> ()>], iterator_types = ["reduction"]}
        ins(%v : tensor<6xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%f : tensor<f32>) {
    ^bb0(%a: f32, %o: f32):
      %q = arith.mulf %a, %a : f32
      %t = arith.addf %q, %o : f32
      linalg.yield %t : f32
    } -> tensor<f32>
    %sr = dtensor.distribute_tensor %s, %m : tensor<f32>, !dtensor.device_mesh<@mesh> -> tensor<f32, #dtensor.spec<@mesh, [R]>>
    %sv = tensor.extract %sr[] : tensor<f32, #dtensor.spec<@mesh, [R]>>
    %c = arith.cmpf ogt, %sv, %thr : f32
    scf.condition(%c) %v : tensor<6xf32, #dtensor.spec<@mesh, [S(0)]>>
  } do {
  ^bb0(%v: tensor<6xf32, #dtensor.spec<@mesh, [S(0)]>>):
    %g = arith.mulf %v, %v : tensor<6xf32, #dtensor.spec<@mesh, [S(0)]>>
    scf.yield %g : tensor<6xf32, #dtensor.spec<@mesh, [S(0)]>>
  }
  return %r : tensor<6xf32, #dtensor.spec<@mesh, [S(0)]>>
}
