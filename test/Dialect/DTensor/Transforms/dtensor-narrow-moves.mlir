// RUN: dtensor-opt %s --dtensor-narrow-moves --split-input-file | FileCheck %s

// A move that reduces nothing, of a value computed element-wise from
// narrower inputs, moves the inputs instead when the planner says that costs
// less, and the value is computed after the move.

dtensor.mesh @g shape = [4]

#w = affine_map<(o, i) -> (o, i)>
#s = affine_map<(o, i) -> (o, 0)>

// An int8 weight and its per-row scale, both sharded by rows, gathered as
// f32: the int8 data (1/4 of the bytes) and the scale are gathered instead.
// CHECK-LABEL: func.func @dequantize_rows
// CHECK-DAG:     %[[W:.+]] = dtensor.redistribute %arg1, %arg0 : tensor<1024x512xi8, #dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g> -> tensor<1024x512xi8, #dtensor.spec<@g, [R]>>
// CHECK-DAG:     %[[S:.+]] = dtensor.redistribute %arg2, %arg0 : tensor<1024x1xf32, #dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g> -> tensor<1024x1xf32, #dtensor.spec<@g, [R]>>
// CHECK-DAG:     %[[E:.+]] = tensor.empty() : tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
// CHECK:         %[[F:.+]] = linalg.generic {{.*}} ins(%[[W]], %[[S]] : {{.*}}) outs(%[[E]] : {{.*}})
// CHECK:           arith.sitofp
// CHECK:         } -> tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
// CHECK-NOT:     dtensor.redistribute
// CHECK:         return %[[F]]
func.func @dequantize_rows(%m: !dtensor.device_mesh<@g>,
    %w: tensor<1024x512xi8, #dtensor.spec<@g, [S(0)]>>,
    %s: tensor<1024x1xf32, #dtensor.spec<@g, [S(0)]>>)
    -> tensor<1024x512xf32, #dtensor.spec<@g, [R]>> {
  %e = tensor.empty() : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>
  %f = linalg.generic {indexing_maps = [#w, #s, #w], iterator_types = ["parallel", "parallel"]}
      ins(%w, %s : tensor<1024x512xi8, #dtensor.spec<@g, [S(0)]>>, tensor<1024x1xf32, #dtensor.spec<@g, [S(0)]>>)
      outs(%e : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>) {
  ^bb0(%q: i8, %sc: f32, %o: f32):
    %x = arith.sitofp %q : i8 to f32
    %y = arith.mulf %x, %sc : f32
    linalg.yield %y : f32
  } -> tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>
  %r = dtensor.redistribute %f, %m : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g> -> tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
  return %r : tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
}

// -----

dtensor.mesh @g shape = [4]

#w = affine_map<(o, i) -> (o, i)>
#s = affine_map<(o, i) -> (o, 0)>

// Sharded by columns, the per-row scale is already whole on every rank: only
// the int8 data moves. Through full_tensor, the result is plain.
// CHECK-LABEL: func.func @dequantize_columns
// CHECK:         %[[W:.+]] = dtensor.full_tensor %arg1, %arg0 : tensor<1024x512xi8, #dtensor.spec<@g, [S(1)]>>, !dtensor.device_mesh<@g> -> tensor<1024x512xi8>
// CHECK:         %[[S:.+]] = dtensor.full_tensor %arg2, %arg0 : tensor<1024x1xf32, #dtensor.spec<@g, [R]>>, !dtensor.device_mesh<@g> -> tensor<1024x1xf32>
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<1024x512xf32>
// CHECK:         %[[F:.+]] = linalg.generic {{.*}} ins(%[[W]], %[[S]] : tensor<1024x512xi8>, tensor<1024x1xf32>) outs(%[[E]] : tensor<1024x512xf32>)
// CHECK:         return %[[F]]
func.func @dequantize_columns(%m: !dtensor.device_mesh<@g>,
    %w: tensor<1024x512xi8, #dtensor.spec<@g, [S(1)]>>,
    %s: tensor<1024x1xf32, #dtensor.spec<@g, [R]>>) -> tensor<1024x512xf32> {
  %e = tensor.empty() : tensor<1024x512xf32, #dtensor.spec<@g, [S(1)]>>
  %f = linalg.generic {indexing_maps = [#w, #s, #w], iterator_types = ["parallel", "parallel"]}
      ins(%w, %s : tensor<1024x512xi8, #dtensor.spec<@g, [S(1)]>>, tensor<1024x1xf32, #dtensor.spec<@g, [R]>>)
      outs(%e : tensor<1024x512xf32, #dtensor.spec<@g, [S(1)]>>) {
  ^bb0(%q: i8, %sc: f32, %o: f32):
    %x = arith.sitofp %q : i8 to f32
    %y = arith.mulf %x, %sc : f32
    linalg.yield %y : f32
  } -> tensor<1024x512xf32, #dtensor.spec<@g, [S(1)]>>
  %r = dtensor.full_tensor %f, %m : tensor<1024x512xf32, #dtensor.spec<@g, [S(1)]>>, !dtensor.device_mesh<@g> -> tensor<1024x512xf32>
  return %r : tensor<1024x512xf32>
}

// -----

dtensor.mesh @g shape = [2, 2]

#id = affine_map<(i, j) -> (i, j)>
#t = affine_map<(i, j) -> (j, i)>

// A chain (cast, then transpose-and-scale by a broadcast row) on a 2-D
// mesh: the bf16 input moves, to the dims the chain maps the target's to;
// the f32 row, whole on every rank, is sliced where it is. A target in a
// nested shard order keeps its move (partitioning computes loops sharded
// by several mesh dims in their default order only).
// CHECK-LABEL: func.func @chain
// CHECK:         %[[A:.+]] = dtensor.redistribute %arg1, %arg0 : tensor<256x128xbf16, #dtensor.spec<@g, [S(1), R]>>, !dtensor.device_mesh<@g> -> tensor<256x128xbf16, #dtensor.spec<@g, [R, S(0)]>>
// CHECK:         %[[C:.+]] = linalg.generic {{.*}} ins(%[[A]] :
// CHECK:         } -> tensor<256x128xf32, #dtensor.spec<@g, [R, S(0)]>>
// CHECK:         %[[R:.+]] = dtensor.redistribute %arg2, %arg0 : tensor<256xf32, #dtensor.spec<@g, [R, R]>>, !dtensor.device_mesh<@g> -> tensor<256xf32, #dtensor.spec<@g, [R, S(0)]>>
// CHECK:         %[[T:.+]] = linalg.generic {{.*}} ins(%[[C]], %[[R]] :
// CHECK:         } -> tensor<128x256xf32, #dtensor.spec<@g, [R, S(1)]>>
// CHECK:         %[[N:.+]] = dtensor.redistribute %[[TO:.+]], %arg0 : tensor<128x256xf32, #dtensor.spec<@g, [S(0), R]>>, !dtensor.device_mesh<@g> -> tensor<128x256xf32, #dtensor.spec<@g, [S(1)[1], S(1)[0]]>>
// CHECK:         return %[[T]], %[[N]]
func.func @chain(%m: !dtensor.device_mesh<@g>,
    %a: tensor<256x128xbf16, #dtensor.spec<@g, [S(1), R]>>,
    %row: tensor<256xf32, #dtensor.spec<@g, [R, R]>>)
    -> (tensor<128x256xf32, #dtensor.spec<@g, [R, S(1)]>>,
        tensor<128x256xf32, #dtensor.spec<@g, [S(1)[1], S(1)[0]]>>) {
  %e = tensor.empty() : tensor<256x128xf32, #dtensor.spec<@g, [S(1), R]>>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<256x128xbf16, #dtensor.spec<@g, [S(1), R]>>)
      outs(%e : tensor<256x128xf32, #dtensor.spec<@g, [S(1), R]>>) {
  ^bb0(%v: bf16, %o: f32):
    %x = arith.extf %v : bf16 to f32
    linalg.yield %x : f32
  } -> tensor<256x128xf32, #dtensor.spec<@g, [S(1), R]>>
  %e2 = tensor.empty() : tensor<128x256xf32, #dtensor.spec<@g, [S(0), R]>>
  %t = linalg.generic {indexing_maps = [#t, affine_map<(i, j) -> (j)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %row : tensor<256x128xf32, #dtensor.spec<@g, [S(1), R]>>, tensor<256xf32, #dtensor.spec<@g, [R, R]>>)
      outs(%e2 : tensor<128x256xf32, #dtensor.spec<@g, [S(0), R]>>) {
  ^bb0(%v: f32, %r: f32, %o: f32):
    %x = arith.mulf %v, %r : f32
    linalg.yield %x : f32
  } -> tensor<128x256xf32, #dtensor.spec<@g, [S(0), R]>>
  %r = dtensor.redistribute %t, %m : tensor<128x256xf32, #dtensor.spec<@g, [S(0), R]>>, !dtensor.device_mesh<@g> -> tensor<128x256xf32, #dtensor.spec<@g, [R, S(1)]>>
  %n = dtensor.redistribute %t, %m : tensor<128x256xf32, #dtensor.spec<@g, [S(0), R]>>, !dtensor.device_mesh<@g> -> tensor<128x256xf32, #dtensor.spec<@g, [S(1)[1], S(1)[0]]>>
  return %r, %n : tensor<128x256xf32, #dtensor.spec<@g, [R, S(1)]>>, tensor<128x256xf32, #dtensor.spec<@g, [S(1)[1], S(1)[0]]>>
}

// -----

dtensor.mesh @g shape = [4]

#id = affine_map<(i, j) -> (i, j)>

// Cases that keep their move.
// Small: two collectives' latency costs more than the bytes saved.
// CHECK-LABEL: func.func @small
// CHECK:         %[[F:.+]] = linalg.generic
// CHECK:         dtensor.redistribute %[[F]]
func.func @small(%m: !dtensor.device_mesh<@g>,
    %w: tensor<8x8xi8, #dtensor.spec<@g, [S(0)]>>,
    %s: tensor<8x8xf32, #dtensor.spec<@g, [S(0)]>>)
    -> tensor<8x8xf32, #dtensor.spec<@g, [R]>> {
  %e = tensor.empty() : tensor<8x8xf32, #dtensor.spec<@g, [S(0)]>>
  %f = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %s : tensor<8x8xi8, #dtensor.spec<@g, [S(0)]>>, tensor<8x8xf32, #dtensor.spec<@g, [S(0)]>>)
      outs(%e : tensor<8x8xf32, #dtensor.spec<@g, [S(0)]>>) {
  ^bb0(%q: i8, %sc: f32, %o: f32):
    %x = arith.sitofp %q : i8 to f32
    %y = arith.mulf %x, %sc : f32
    linalg.yield %y : f32
  } -> tensor<8x8xf32, #dtensor.spec<@g, [S(0)]>>
  %r = dtensor.redistribute %f, %m : tensor<8x8xf32, #dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g> -> tensor<8x8xf32, #dtensor.spec<@g, [R]>>
  return %r : tensor<8x8xf32, #dtensor.spec<@g, [R]>>
}

// Wider inputs: moving the f32 result is cheaper than moving two f32s.
// CHECK-LABEL: func.func @wider_inputs
// CHECK:         %[[F:.+]] = linalg.generic
// CHECK:         dtensor.redistribute %[[F]]
func.func @wider_inputs(%m: !dtensor.device_mesh<@g>,
    %a: tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>,
    %b: tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>)
    -> tensor<1024x512xf32, #dtensor.spec<@g, [R]>> {
  %e = tensor.empty() : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>
  %f = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>, tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>)
      outs(%e : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.addf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>
  %r = dtensor.redistribute %f, %m : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g> -> tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
  return %r : tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
}

// The init is read (an accumulation): not element-wise in its inputs alone.
// CHECK-LABEL: func.func @reads_init
// CHECK:         %[[F:.+]] = linalg.generic
// CHECK:         dtensor.redistribute %[[F]]
func.func @reads_init(%m: !dtensor.device_mesh<@g>,
    %w: tensor<1024x512xi8, #dtensor.spec<@g, [S(0)]>>,
    %acc: tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>)
    -> tensor<1024x512xf32, #dtensor.spec<@g, [R]>> {
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<1024x512xi8, #dtensor.spec<@g, [S(0)]>>)
      outs(%acc : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>) {
  ^bb0(%q: i8, %o: f32):
    %x = arith.sitofp %q : i8 to f32
    %y = arith.addf %x, %o : f32
    linalg.yield %y : f32
  } -> tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>
  %r = dtensor.redistribute %f, %m : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g> -> tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
  return %r : tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
}

// A reduction's result (here a row sum of int8) is not recomputed.
// CHECK-LABEL: func.func @reduction
// CHECK:         %[[F:.+]] = linalg.generic
// CHECK:         dtensor.redistribute %[[F]]
func.func @reduction(%m: !dtensor.device_mesh<@g>,
    %w: tensor<1024x512xi8, #dtensor.spec<@g, [S(0)]>>)
    -> tensor<1024xf32, #dtensor.spec<@g, [R]>> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024xf32, #dtensor.spec<@g, [S(0)]>>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<1024xf32, #dtensor.spec<@g, [S(0)]>>) -> tensor<1024xf32, #dtensor.spec<@g, [S(0)]>>
  %f = linalg.generic {indexing_maps = [#id, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%w : tensor<1024x512xi8, #dtensor.spec<@g, [S(0)]>>)
      outs(%i : tensor<1024xf32, #dtensor.spec<@g, [S(0)]>>) {
  ^bb0(%q: i8, %o: f32):
    %x = arith.sitofp %q : i8 to f32
    %y = arith.addf %x, %o : f32
    linalg.yield %y : f32
  } -> tensor<1024xf32, #dtensor.spec<@g, [S(0)]>>
  %r = dtensor.redistribute %f, %m : tensor<1024xf32, #dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g> -> tensor<1024xf32, #dtensor.spec<@g, [R]>>
  return %r : tensor<1024xf32, #dtensor.spec<@g, [R]>>
}

// A Partial source is a reduction, not a pure move.
// CHECK-LABEL: func.func @partial
// CHECK:         %[[F:.+]] = linalg.generic
// CHECK:         dtensor.redistribute %[[F]]
func.func @partial(%m: !dtensor.device_mesh<@g>,
    %w: tensor<1024x512xbf16, #dtensor.spec<@g, [P(sum)]>>)
    -> tensor<1024x512xf32, #dtensor.spec<@g, [R]>> {
  %e = tensor.empty() : tensor<1024x512xf32, #dtensor.spec<@g, [P(sum)]>>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<1024x512xbf16, #dtensor.spec<@g, [P(sum)]>>)
      outs(%e : tensor<1024x512xf32, #dtensor.spec<@g, [P(sum)]>>) {
  ^bb0(%v: bf16, %o: f32):
    %x = arith.extf %v : bf16 to f32
    linalg.yield %x : f32
  } -> tensor<1024x512xf32, #dtensor.spec<@g, [P(sum)]>>
  %r = dtensor.redistribute %f, %m : tensor<1024x512xf32, #dtensor.spec<@g, [P(sum)]>>, !dtensor.device_mesh<@g> -> tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
  return %r : tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
}

// -----

dtensor.mesh @g shape = [4]

#id = affine_map<(i, j) -> (i, j)>

// The value has another user: both are kept, and the move is of the input.
// A constant made by a fill is made again where it is needed, not moved.
// CHECK-LABEL: func.func @shared_and_fill
// CHECK:         %[[F:.+]] = linalg.generic {{.*}} ins(%arg1 :
// CHECK:         } -> tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>
// CHECK:         %[[W:.+]] = dtensor.redistribute %arg1, %arg0 {{.*}} -> tensor<1024x512xbf16, #dtensor.spec<@g, [R]>>
// CHECK:         %[[G:.+]] = linalg.generic {{.*}} ins(%[[W]] :
// CHECK:         } -> tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
// CHECK:         %[[Z:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : {{.*}}) -> tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
// CHECK-NOT:     dtensor.redistribute
// CHECK:         return %[[F]], %[[G]], %[[Z]]
func.func @shared_and_fill(%m: !dtensor.device_mesh<@g>,
    %w: tensor<1024x512xbf16, #dtensor.spec<@g, [S(0)]>>)
    -> (tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>,
        tensor<1024x512xf32, #dtensor.spec<@g, [R]>>,
        tensor<1024x512xf32, #dtensor.spec<@g, [R]>>) {
  %e = tensor.empty() : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<1024x512xbf16, #dtensor.spec<@g, [S(0)]>>)
      outs(%e : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>) {
  ^bb0(%v: bf16, %o: f32):
    %x = arith.extf %v : bf16 to f32
    linalg.yield %x : f32
  } -> tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>
  %r = dtensor.redistribute %f, %m : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g> -> tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
  %c = arith.constant 1.0 : f32
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>) -> tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>
  %zr = dtensor.redistribute %z, %m : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g> -> tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
  return %f, %r, %zr : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>, tensor<1024x512xf32, #dtensor.spec<@g, [R]>>, tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
}

// -----

dtensor.mesh @g shape = [4]

#id = affine_map<(i, j) -> (i, j)>

// A producer outside the loop is not computed again in every iteration.
// CHECK-LABEL: func.func @other_block
// CHECK:         %[[F:.+]] = linalg.generic
// CHECK:         scf.for
// CHECK:           dtensor.redistribute %[[F]]
func.func @other_block(%m: !dtensor.device_mesh<@g>,
    %w: tensor<1024x512xbf16, #dtensor.spec<@g, [S(0)]>>,
    %acc: tensor<1024x512xf32, #dtensor.spec<@g, [R]>>)
    -> tensor<1024x512xf32, #dtensor.spec<@g, [R]>> {
  %e = tensor.empty() : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<1024x512xbf16, #dtensor.spec<@g, [S(0)]>>)
      outs(%e : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>) {
  ^bb0(%v: bf16, %o: f32):
    %x = arith.extf %v : bf16 to f32
    linalg.yield %x : f32
  } -> tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %out = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %acc) -> (tensor<1024x512xf32, #dtensor.spec<@g, [R]>>) {
    %r = dtensor.redistribute %f, %m : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g> -> tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
    scf.yield %r : tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
  }
  return %out : tensor<1024x512xf32, #dtensor.spec<@g, [R]>>
}

// -----

dtensor.mesh @g shape = [4]

#w = affine_map<(o, i) -> (o, i)>
#col = affine_map<(o, i) -> (i)>

// A plain constant distributed for the op is sliced again in the target's
// spec, for free, not moved.
// CHECK-LABEL: func.func @plain_constant
// CHECK:         %[[W:.+]] = dtensor.redistribute %arg1, %arg0 {{.*}} -> tensor<1024x512xi8, #dtensor.spec<@g, [S(1)]>>
// CHECK:         %[[K:.+]] = dtensor.distribute_tensor %[[C:.+]], %arg0 : tensor<512xf32>, !dtensor.device_mesh<@g> -> tensor<512xf32, #dtensor.spec<@g, [S(0)]>>
// CHECK:         linalg.generic {{.*}} ins(%[[W]], %[[K]] :
// CHECK-NOT:     dtensor.redistribute
func.func @plain_constant(%m: !dtensor.device_mesh<@g>,
    %w: tensor<1024x512xi8, #dtensor.spec<@g, [S(0)]>>)
    -> tensor<1024x512xf32, #dtensor.spec<@g, [S(1)]>> {
  %k = arith.constant dense<0.5> : tensor<512xf32>
  %kd = dtensor.distribute_tensor %k, %m : tensor<512xf32>, !dtensor.device_mesh<@g> -> tensor<512xf32, #dtensor.spec<@g, [R]>>
  %e = tensor.empty() : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>
  %f = linalg.generic {indexing_maps = [#w, #col, #w], iterator_types = ["parallel", "parallel"]}
      ins(%w, %kd : tensor<1024x512xi8, #dtensor.spec<@g, [S(0)]>>, tensor<512xf32, #dtensor.spec<@g, [R]>>)
      outs(%e : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>) {
  ^bb0(%q: i8, %c: f32, %o: f32):
    %x = arith.sitofp %q : i8 to f32
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>
  %r = dtensor.redistribute %f, %m : tensor<1024x512xf32, #dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g> -> tensor<1024x512xf32, #dtensor.spec<@g, [S(1)]>>
  return %r : tensor<1024x512xf32, #dtensor.spec<@g, [S(1)]>>
}

// -----

dtensor.mesh @g shape = [2, 2]

// A lookup reading a distributed table in its body is not computed again:
// where the table is placed follows the op's own spec.
// CHECK-LABEL: func.func @table_lookup
// CHECK:         %[[L:.+]] = linalg.generic
// CHECK:         dtensor.redistribute %[[L]]
func.func @table_lookup(%m: !dtensor.device_mesh<@g>,
    %t: tensor<4096x512xf32, #dtensor.spec<@g, [R, S(1)]>>,
    %ids: tensor<512xindex, #dtensor.spec<@g, [S(0), R]>>)
    -> tensor<512x512xf32, #dtensor.spec<@g, [S(0), R]>> {
  %e = tensor.empty() : tensor<512x512xf32, #dtensor.spec<@g, [S(0), S(1)]>>
  %l = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<512xindex, #dtensor.spec<@g, [S(0), R]>>) outs(%e : tensor<512x512xf32, #dtensor.spec<@g, [S(0), S(1)]>>) {
  ^bb0(%id: index, %o: f32):
    %j = linalg.index 1 : index
    %v = tensor.extract %t[%id, %j] : tensor<4096x512xf32, #dtensor.spec<@g, [R, S(1)]>>
    linalg.yield %v : f32
  } -> tensor<512x512xf32, #dtensor.spec<@g, [S(0), S(1)]>>
  %r = dtensor.redistribute %l, %m : tensor<512x512xf32, #dtensor.spec<@g, [S(0), S(1)]>>, !dtensor.device_mesh<@g> -> tensor<512x512xf32, #dtensor.spec<@g, [S(0), R]>>
  return %r : tensor<512x512xf32, #dtensor.spec<@g, [S(0), R]>>
}
