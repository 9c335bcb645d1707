// RUN: rm -rf %t && mkdir -p %t
// RUN: dtensor-run %s --entry=make --output-dir %t --quiet
// RUN: dtensor-run %s --entry=take --input 1=%t/out0.npy --verify --pipeline dtensor-compile --print-values | FileCheck %s
// numpy has no bf16: outputs are written as f32, and a bf16 argument takes
// an f32 file (rounded to nearest even), as the real job reads it. It was
// refused ("has dtype f32 but the argument is bf16"), so dtensor-run could
// not read its own outputs back.
dtensor.mesh @mesh shape = [2] names = ["tp"]
func.func @make() -> tensor<4xbf16> {
  %c = arith.constant dense<[1.5, -2.0, 3.0, 0.25]> : tensor<4xbf16>
  return %c : tensor<4xbf16>
}
func.func @take(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xbf16, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<4xbf16, #dtensor.spec<@mesh, [S(0)]>> {
  %y = arith.addf %x, %x : tensor<4xbf16, #dtensor.spec<@mesh, [S(0)]>>
  return %y : tensor<4xbf16, #dtensor.spec<@mesh, [S(0)]>>
}
// CHECK: output 0:
// CHECK: [3, -4, 6, 0.5]
// CHECK: verified @take: 1 output(s)
