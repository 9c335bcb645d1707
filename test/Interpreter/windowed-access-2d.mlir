// RUN: dtensor-run %s --all-entries --verify --pipeline dtensor-compile --report | FileCheck %s
// RUN: dtensor-opt %s --dtensor-propagate --dtensor-insert-redistribute | FileCheck %s --check-prefix=IR
// Windowed reads on a 2x2 mesh: convolutions, pooling and a stencil with
// their windowed dims sharded on one or both mesh dims (H on one, W on the
// other: a halo along each, corners through the second exchange), uneven,
// with stride and dilation (see windowed-access.mlir). Every program must
// match the global program on every rank.

// CHECK: verified @conv2d_hw:
// CHECK-NEXT: communication: 3 collectives, 384 bytes/rank
// CHECK-NEXT: permute 3 384 bytes mesh dims [0], [1]
// CHECK: verified @conv2d_batch:
// CHECK-NEXT: communication: 0 collectives, 0 bytes/rank
// CHECK: verified @depthwise_pool:
// CHECK: verified @stencil_2d:
// CHECK-NEXT: communication: 4 collectives, 80 bytes/rank
// CHECK-NEXT: permute 4 80 bytes mesh dims [0], [1]
// CHECK: verified @shift_reverse_2d:
// CHECK-NEXT: communication: 2 collectives, 120 bytes/rank
// CHECK-NEXT: permute 2 120 bytes mesh dims [0]
// CHECK: verified 5 of 5 function(s)

dtensor.mesh @mesh shape = [2, 2]

// conv_2d (nchw, fchw) with H and W sharded on a 2-D mesh, stride 2 on W.
// The batch loop stays shardable: only the windowed loops are kept whole.
func.func @conv2d_hw(%m: !dtensor.device_mesh<@mesh>, %in: tensor<2x3x9x10xf32, #dtensor.spec<@mesh, [S(2), S(3)]>>,
                     %f: tensor<4x3x3x2xf32, #dtensor.spec<@mesh, [R, R]>>)
    -> tensor<2x4x7x5xf32, #dtensor.spec<@mesh, [S(2), S(3)]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x7x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x7x5xf32>) -> tensor<2x4x7x5xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>}
      ins(%in, %f : tensor<2x3x9x10xf32, #dtensor.spec<@mesh, [S(2), S(3)]>>, tensor<4x3x3x2xf32, #dtensor.spec<@mesh, [R, R]>>)
      outs(%z : tensor<2x4x7x5xf32>) -> tensor<2x4x7x5xf32>
  %d = dtensor.distribute_tensor %c, %m : tensor<2x4x7x5xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x4x7x5xf32, #dtensor.spec<@mesh, [S(2), S(3)]>>
  return %d : tensor<2x4x7x5xf32, #dtensor.spec<@mesh, [S(2), S(3)]>>
}

// Data-parallel conv_2d (nhwc, hwcf): the batch is sharded, which needs no
// window, so it stays sharded with no collective.
// IR-LABEL: func.func @conv2d_batch
// IR-NOT: dtensor.redistribute
// IR: linalg.conv_2d_nhwc_hwcf
// IR-SAME: -> tensor<4x6x6x2xf32, #dtensor.spec<@mesh, [S(0), R]>>
func.func @conv2d_batch(%m: !dtensor.device_mesh<@mesh>, %in: tensor<4x8x8x3xf32, #dtensor.spec<@mesh, [S(0), R]>>,
                        %f: tensor<3x3x3x2xf32, #dtensor.spec<@mesh, [R, R]>>)
    -> tensor<4x6x6x2xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6x6x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6x6x2xf32>) -> tensor<4x6x6x2xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %f : tensor<4x8x8x3xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<3x3x3x2xf32, #dtensor.spec<@mesh, [R, R]>>)
      outs(%z : tensor<4x6x6x2xf32>) -> tensor<4x6x6x2xf32>
  %d = dtensor.distribute_tensor %c, %m : tensor<4x6x6x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x6x6x2xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<4x6x6x2xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// Depthwise conv and max pooling on a width-sharded input, dilation 2.
func.func @depthwise_pool(%m: !dtensor.device_mesh<@mesh>, %in: tensor<1x9x10x2xf32, #dtensor.spec<@mesh, [R, S(2)]>>,
                          %f: tensor<2x2x2xf32, #dtensor.spec<@mesh, [R, R]>>)
    -> tensor<1x6x6x2xf32, #dtensor.spec<@mesh, [R, S(2)]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x8x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x8x2xf32>) -> tensor<1x7x8x2xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %f : tensor<1x9x10x2xf32, #dtensor.spec<@mesh, [R, S(2)]>>, tensor<2x2x2xf32, #dtensor.spec<@mesh, [R, R]>>)
      outs(%z : tensor<1x7x8x2xf32>) -> tensor<1x7x8x2xf32>
  %ninf = arith.constant -1.0e30 : f32
  %pe = tensor.empty() : tensor<1x6x6x2xf32>
  %pz = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x6x6x2xf32>) -> tensor<1x6x6x2xf32>
  %win = tensor.empty() : tensor<2x3xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%c, %win : tensor<1x7x8x2xf32>, tensor<2x3xf32>) outs(%pz : tensor<1x6x6x2xf32>) -> tensor<1x6x6x2xf32>
  %d = dtensor.distribute_tensor %p, %m : tensor<1x6x6x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<1x6x6x2xf32, #dtensor.spec<@mesh, [R, S(2)]>>
  return %d : tensor<1x6x6x2xf32, #dtensor.spec<@mesh, [R, S(2)]>>
}

// A 2-D 9-point stencil (a 3x3 window of weights) over a tensor sharded on
// both dims of a 2-D mesh, uneven on both.
func.func @stencil_2d(%m: !dtensor.device_mesh<@mesh>, %a: tensor<7x9xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>,
                      %w: tensor<3x3xf32, #dtensor.spec<@mesh, [R, R]>>)
    -> tensor<5x7xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x7xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<5x7xf32>) -> tensor<5x7xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, ki, kj) -> (i + ki, j + kj)>, affine_map<(i, j, ki, kj) -> (ki, kj)>,
                                        affine_map<(i, j, ki, kj) -> (i, j)>],
                       iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %w : tensor<7x9xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, tensor<3x3xf32, #dtensor.spec<@mesh, [R, R]>>)
      outs(%z : tensor<5x7xf32>) {
  ^bb0(%x: f32, %k: f32, %y: f32):
    %v = arith.mulf %x, %k : f32
    %s = arith.addf %v, %y : f32
    linalg.yield %s : f32
  } -> tensor<5x7xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<5x7xf32>, !dtensor.device_mesh<@mesh> -> tensor<5x7xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  return %d : tensor<5x7xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
}

// A shift along the dim sharded on "dim 1" and a reversal along the dim
// sharded on "dim 0", uneven (7 and 9 over 2). The shifted columns are
// already held (input chunks of 5 | 4 cover output windows [1, 5) and
// [5, 9)): only the reversal exchanges.
func.func @shift_reverse_2d(%m: !dtensor.device_mesh<@mesh>, %a: tensor<7x9xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>)
    -> tensor<7x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> {
  %e = tensor.empty() : tensor<7x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (6 - i, j + 1)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<7x9xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<7x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<7x8xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<7x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<7x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  return %d : tensor<7x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
}
