// Tensor shape ops in compiled programs: reshapes, slices, pad, concat,
// softmax. Each function is verified on every rank against the global
// program (test/examples/compile.test).
//
//   dtensor-run examples/compile/shapes.mlir --all-entries --verify --pipeline dtensor-compile --report

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

// Flatten (batch, seq) for a matmul and unflatten after: the batch shards
// flow through both reshapes (4 rows split 2 ways keep the shards aligned),
// so only the final gather of the plain result communicates.
func.func @flatten_matmul(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<4x6x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
    %w: tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>)
    -> tensor<4x6x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %zero = arith.constant 0.0 : f32
  %flat = tensor.collapse_shape %x [[0, 1], [2]] : tensor<4x6x8xf32, #dtensor.spec<@mesh, [S(0), R]>> into tensor<24x8xf32>
  %e = tensor.empty() : tensor<24x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<24x8xf32>) -> tensor<24x8xf32>
  %y = linalg.matmul ins(%flat, %w : tensor<24x8xf32>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%z : tensor<24x8xf32>) -> tensor<24x8xf32>
  %back = tensor.expand_shape %y [[0, 1], [2]] output_shape [4, 6, 8] : tensor<24x8xf32> into tensor<4x6x8xf32>
  %r = dtensor.distribute_tensor %back, %m : tensor<4x6x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x6x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<4x6x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// Uneven rows (7 over dp: 4 | 3) through a reshape that keeps the row dim
// whole and splits the columns: the row shards need no alignment.
func.func @uneven_reshape(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<7x6xf32, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<7x2x3xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %shape = arith.constant dense<[7, 2, 3]> : tensor<3xindex>
  %r = tensor.reshape %x(%shape) : (tensor<7x6xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<3xindex>) -> tensor<7x2x3xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<7x2x3xf32>, !dtensor.device_mesh<@mesh> -> tensor<7x2x3xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<7x2x3xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// Padding and slicing the sequence dim (replicated) while the feature dim
// stays sharded on tp: no communication.
func.func @pad_slice(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<6x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(1)]>> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<6x8xf32, #dtensor.spec<@mesh, [R, S(1)]>> to tensor<8x8xf32>
  %s = tensor.extract_slice %p[2, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  %d = dtensor.distribute_tensor %s, %m : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  return %d : tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
}

// Concatenating two row-sharded tensors along the columns, then writing the
// result into a slice of a fresh tensor: rows stay sharded throughout.
func.func @concat_insert(%m: !dtensor.device_mesh<@mesh>,
    %a: tensor<8x3xf32, #dtensor.spec<@mesh, [S(0), R]>>,
    %b: tensor<8x5xf32, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<8x12xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %zero = arith.constant 0.0 : f32
  %c = tensor.concat dim(1) %a, %b : (tensor<8x3xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8x5xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x12xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x12xf32>) -> tensor<8x12xf32>
  %i = tensor.insert_slice %c into %z[0, 2] [8, 8] [1, 1] : tensor<8x8xf32> into tensor<8x12xf32>
  %d = dtensor.distribute_tensor %i, %m : tensor<8x12xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x12xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<8x12xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// Softmax over the last dim of column-sharded scores: the normalized dim
// must be whole, so the columns are gathered first (one all_gather on tp);
// the batch stays sharded on dp.
func.func @softmax_rows(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = dtensor.distribute_tensor %s, %m : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// A K-sharded matmul leaves partial sums; a reshape keeps them Partial, and
// they are reduced once, straight into row shards (one reduce_scatter).
func.func @partial_through_reshape(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %w: tensor<16x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>)
    -> tensor<4x2x4xf32, #dtensor.spec<@mesh, [R, S(0)]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<16x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = tensor.expand_shape %y [[0, 1], [2]] output_shape [4, 2, 4] : tensor<8x4xf32> into tensor<4x2x4xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<4x2x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x2x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  return %d : tensor<4x2x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>
}

// Partial sums through a zero pad stay Partial (every rank pads its term
// with 0), and are reduced once for the plain result (one all_reduce).
func.func @partial_through_pad(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %w: tensor<16x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> tensor<10x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<16x4xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %p = tensor.pad %y low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<8x4xf32> to tensor<10x4xf32>
  return %p : tensor<10x4xf32>
}
