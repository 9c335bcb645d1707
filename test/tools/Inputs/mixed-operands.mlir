// A linalg.generic mixing a distributed and a plain operand (help-version.test).
dtensor.mesh @m shape = [2]
func.func @f(%x: tensor<4xf32, #dtensor.spec<@m, [S(0)]>>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32, #dtensor.spec<@m, [S(0)]>>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %a : f32
    linalg.yield %c : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
