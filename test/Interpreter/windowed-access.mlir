// RUN: dtensor-run %s --all-entries --verify --pipeline dtensor-compile --report | FileCheck %s
// RUN: dtensor-opt %s --dtensor-propagate --dtensor-insert-redistribute | FileCheck %s --check-prefix=IR
// Windowed reads on a 1-D mesh of 3: a loop that reads an operand through a
// compound index (`i + 2`, `7 - i`, `2 * i`, `i + k`) sharded by
// propagation. Each rank fetches the window its share of the loop reads:
// from its own copy when the operand is replicated, from its neighbours
// (dtensor.permute, one per shift) when it is sharded along that dim. Every
// program must match the global program on every rank, uneven shards
// included (before windows were fetched, every rank but 0 computed rank 0's
// values). windowed-access-2d.mlir has the 2-D mesh cases.

// CHECK: verified @shift:
// CHECK-NEXT: communication: 0 collectives, 0 bytes/rank
// CHECK: verified @shift_sharded:
// CHECK-NEXT: communication: 1 collective, 4 bytes/rank
// CHECK-NEXT: permute 1 4 bytes mesh dims [0]
// CHECK: verified @reverse:
// CHECK-NEXT: communication: 4 collectives, 24 bytes/rank
// CHECK-NEXT: permute 4 24 bytes mesh dims [0]
// CHECK: verified @stride:
// CHECK-NEXT: communication: 0 collectives, 0 bytes/rank
// CHECK: verified @stencil_window:
// CHECK-NEXT: communication: 1 collective, 8 bytes/rank
// CHECK-NEXT: permute 1 8 bytes mesh dims [0]
// CHECK: verified @stencil_loop:
// CHECK-NEXT: communication: 6 collectives, 24 bytes/rank
// CHECK-NEXT: permute 6 24 bytes mesh dims [0]
// CHECK: verified @conv1d_width:
// CHECK-NEXT: communication: 2 collectives, 72 bytes/rank
// CHECK-NEXT: permute 2 72 bytes mesh dims [0]
// CHECK: verified 7 of 7 function(s)

dtensor.mesh @g shape = [3]

// The issue's reproducer: a replicated operand read at i + 2, the result
// distributed S(0).
// The replicated operand stays replicated and the loop is sharded: each rank
// slices its window, no collective.
// IR-LABEL: func.func @shift(
// IR: %[[R:.+]] = linalg.generic
// IR-SAME: ins(%{{.*}} : tensor<10xf32, #dtensor.spec<@g, [R]>>)
// IR-SAME: outs(%{{.*}} : tensor<8xf32, #dtensor.spec<@g, [S(0)]>>)
// IR: dtensor.redistribute %[[R]], %{{.*}} : tensor<8xf32, #dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g> -> tensor<8xf32, #dtensor.spec<@g, [S(0)]>>
func.func @shift(%m: !dtensor.device_mesh<@g>, %a: tensor<10xf32, #dtensor.spec<@g, [R]>>)
    -> tensor<8xf32, #dtensor.spec<@g, [S(0)]>> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i + 2)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<10xf32, #dtensor.spec<@g, [R]>>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<8xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<8xf32>, !dtensor.device_mesh<@g> -> tensor<8xf32, #dtensor.spec<@g, [S(0)]>>
  return %d : tensor<8xf32, #dtensor.spec<@g, [S(0)]>>
}

// A sharded operand shifted by one: the output's shard needs the next
// rank's first element (uneven: 11 on 3 ranks).
func.func @shift_sharded(%m: !dtensor.device_mesh<@g>, %a: tensor<11xf32, #dtensor.spec<@g, [S(0)]>>,
                         %b: tensor<10xf32, #dtensor.spec<@g, [S(0)]>>)
    -> tensor<10xf32, #dtensor.spec<@g, [S(0)]>> {
  %e = tensor.empty() : tensor<10xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i + 1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<11xf32, #dtensor.spec<@g, [S(0)]>>, tensor<10xf32, #dtensor.spec<@g, [S(0)]>>) outs(%e : tensor<10xf32>) {
  ^bb0(%x: f32, %z: f32, %y: f32):
    %s = arith.subf %x, %z : f32
    linalg.yield %s : f32
  } -> tensor<10xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<10xf32>, !dtensor.device_mesh<@g> -> tensor<10xf32, #dtensor.spec<@g, [S(0)]>>
  return %d : tensor<10xf32, #dtensor.spec<@g, [S(0)]>>
}

// A reversal: rank r's output shard is another rank's input shard.
func.func @reverse(%m: !dtensor.device_mesh<@g>, %a: tensor<8xf32, #dtensor.spec<@g, [S(0)]>>)
    -> tensor<8xf32, #dtensor.spec<@g, [S(0)]>> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (7 - i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32, #dtensor.spec<@g, [S(0)]>>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<8xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<8xf32>, !dtensor.device_mesh<@g> -> tensor<8xf32, #dtensor.spec<@g, [S(0)]>>
  return %d : tensor<8xf32, #dtensor.spec<@g, [S(0)]>>
}

// A stride: the output's shard reads every other element.
func.func @stride(%m: !dtensor.device_mesh<@g>, %a: tensor<16xf32, #dtensor.spec<@g, [S(0)]>>)
    -> tensor<8xf32, #dtensor.spec<@g, [S(0)]>> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (2 * i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<16xf32, #dtensor.spec<@g, [S(0)]>>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<8xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<8xf32>, !dtensor.device_mesh<@g> -> tensor<8xf32, #dtensor.spec<@g, [S(0)]>>
  return %d : tensor<8xf32, #dtensor.spec<@g, [S(0)]>>
}

// A 3-point stencil written as a generic with a window loop, uneven width.
func.func @stencil_window(%m: !dtensor.device_mesh<@g>, %a: tensor<12xf32, #dtensor.spec<@g, [S(0)]>>)
    -> tensor<10xf32, #dtensor.spec<@g, [S(0)]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<10xf32>) -> tensor<10xf32>
  %w = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i + k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a, %w : tensor<12xf32, #dtensor.spec<@g, [S(0)]>>, tensor<3xf32>) outs(%z : tensor<10xf32>) {
  ^bb0(%x: f32, %k: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<10xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<10xf32>, !dtensor.device_mesh<@g> -> tensor<10xf32, #dtensor.spec<@g, [S(0)]>>
  return %d : tensor<10xf32, #dtensor.spec<@g, [S(0)]>>
}

// A 3-point stencil in a loop: pad by one, average three neighbours; the
// carried value is sharded.
func.func @stencil_loop(%m: !dtensor.device_mesh<@g>, %a: tensor<10xf32, #dtensor.spec<@g, [S(0)]>>)
    -> tensor<10xf32, #dtensor.spec<@g, [S(0)]>> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %wts = arith.constant dense<[0.25, 0.5, 0.25]> : tensor<3xf32>
  %r = scf.for %t = %c0 to %c3 step %c1 iter_args(%x = %a) -> (tensor<10xf32, #dtensor.spec<@g, [S(0)]>>) {
    %p = tensor.pad %x low[1] high[1] {
    ^bb0(%i: index):
      tensor.yield %zero : f32
    } : tensor<10xf32, #dtensor.spec<@g, [S(0)]>> to tensor<12xf32>
    %e = tensor.empty() : tensor<10xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<10xf32>) -> tensor<10xf32>
    %n = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i + k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
        ins(%p, %wts : tensor<12xf32>, tensor<3xf32>) outs(%z : tensor<10xf32>) {
    ^bb0(%v0: f32, %w: f32, %y: f32):
      %v = arith.mulf %v0, %w : f32
      %s = arith.addf %v, %y : f32
      linalg.yield %s : f32
    } -> tensor<10xf32>
    %nd = dtensor.distribute_tensor %n, %m : tensor<10xf32>, !dtensor.device_mesh<@g> -> tensor<10xf32, #dtensor.spec<@g, [S(0)]>>
    scf.yield %nd : tensor<10xf32, #dtensor.spec<@g, [S(0)]>>
  }
  return %r : tensor<10xf32, #dtensor.spec<@g, [S(0)]>>
}

// conv_1d (nwc, wcf), input sharded on width, uneven (11 on 2 ranks).
func.func @conv1d_width(%m: !dtensor.device_mesh<@g>, %in: tensor<2x11x3xf32, #dtensor.spec<@g, [S(1)]>>,
                        %f: tensor<3x3x4xf32, #dtensor.spec<@g, [R]>>)
    -> tensor<2x9x4xf32, #dtensor.spec<@g, [S(1)]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x9x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x9x4xf32>) -> tensor<2x9x4xf32>
  %c = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
      ins(%in, %f : tensor<2x11x3xf32, #dtensor.spec<@g, [S(1)]>>, tensor<3x3x4xf32, #dtensor.spec<@g, [R]>>)
      outs(%z : tensor<2x9x4xf32>) -> tensor<2x9x4xf32>
  %d = dtensor.distribute_tensor %c, %m : tensor<2x9x4xf32>, !dtensor.device_mesh<@g> -> tensor<2x9x4xf32, #dtensor.spec<@g, [S(1)]>>
  return %d : tensor<2x9x4xf32, #dtensor.spec<@g, [S(1)]>>
}

