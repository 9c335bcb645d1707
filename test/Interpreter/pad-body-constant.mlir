// A tensor.pad whose padding value is a constant defined inside its body (as
// importers write it, and upstream's getConstantPaddingValue returns it),
// feeding a windowed read on a sharded dim: the window's fill is
// materialized outside the body (it once referenced the body's value:
// "operand #0 does not dominate this use").
// RUN: dtensor-run %s --verify --pipeline dtensor-compile | FileCheck %s
// CHECK: verified @conv_w: 1 output(s) of the compiled program match the original on 2 rank(s)
// RUN: dtensor-opt %s --dtensor-compile | FileCheck %s --check-prefix=IR
// IR: dtensor.permute

dtensor.mesh @mesh shape = [2]

func.func @conv_w(%m: !dtensor.device_mesh<@mesh>,
                  %x: tensor<1x2x5x8xf32, #dtensor.spec<@mesh, [S(3)]>>,
                  %w: tensor<3x2x3x3xf32, #dtensor.spec<@mesh, [R]>>)
    -> tensor<1x3x5x8xf32, #dtensor.spec<@mesh, [S(3)]>> {
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    %z = arith.constant 0.5 : f32
    tensor.yield %z : f32
  } : tensor<1x2x5x8xf32, #dtensor.spec<@mesh, [S(3)]>> to tensor<1x2x7x10xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x5x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3x5x8xf32>) -> tensor<1x3x5x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x2x7x10xf32>, tensor<3x2x3x3xf32, #dtensor.spec<@mesh, [R]>>)
      outs(%f : tensor<1x3x5x8xf32>) -> tensor<1x3x5x8xf32>
  %d = dtensor.distribute_tensor %c, %m : tensor<1x3x5x8xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<1x3x5x8xf32, #dtensor.spec<@mesh, [S(3)]>>
  return %d : tensor<1x3x5x8xf32, #dtensor.spec<@mesh, [S(3)]>>
}
