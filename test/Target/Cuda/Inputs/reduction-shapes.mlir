// The shapes that take each of a GPU's reduction schemes (rt::reduce,
// docs/CodeGen.md "Reductions"): an Inner reduction with one block per
// output, with several blocks per output (two kernels), with small blocks
// for short rows, and with so many outputs that the grid has a second row
// of blocks; an Outer one with one thread per output and with parts
// combined by a second kernel; nests of three loops whose flattened steps
// carry between digits; f64, i64 and i8. Run by gpu-run.test (GPU) and
// Target/Cpp/mpi-run.test (CPU, once as the host runs it and once with
// parts forced).
dtensor.mesh @g shape = [2]

// Inner, one block of 256 threads per output (300 rows of 1000).
func.func @rows_blocks(%m: !dtensor.device_mesh<@g>, %a: tensor<300x1000xf32, #dtensor.spec<@g, [R]>>) -> tensor<300xf32, #dtensor.spec<@g, [R]>> {
  %z = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<300xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<300xf32>) -> tensor<300xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<300x1000xf32, #dtensor.spec<@g, [R]>>) outs(%f : tensor<300xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  } -> tensor<300xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<300xf32>, !dtensor.device_mesh<@g> -> tensor<300xf32, #dtensor.spec<@g, [R]>>
  return %d : tensor<300xf32, #dtensor.spec<@g, [R]>>
}

// Inner, short rows: blocks of 32 threads (2000 rows of 200).
func.func @rows_short(%m: !dtensor.device_mesh<@g>, %a: tensor<2000x200xf32, #dtensor.spec<@g, [R]>>) -> tensor<2000xf32, #dtensor.spec<@g, [R]>> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2000xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2000xf32>) -> tensor<2000xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<2000x200xf32, #dtensor.spec<@g, [R]>>) outs(%f : tensor<2000xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  } -> tensor<2000xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<2000xf32>, !dtensor.device_mesh<@g> -> tensor<2000xf32, #dtensor.spec<@g, [R]>>
  return %d : tensor<2000xf32, #dtensor.spec<@g, [R]>>
}

// Inner, rows too short for a block (64 terms): one thread per output.
func.func @rows_tiny(%m: !dtensor.device_mesh<@g>, %a: tensor<3000x64xf64, #dtensor.spec<@g, [R]>>) -> tensor<3000xf64, #dtensor.spec<@g, [R]>> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3000xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<3000xf64>) -> tensor<3000xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<3000x64xf64, #dtensor.spec<@g, [R]>>) outs(%f : tensor<3000xf64>) {
  ^bb0(%x: f64, %y: f64):
    %t = arith.addf %y, %x : f64
    linalg.yield %t : f64
  } -> tensor<3000xf64>
  %d = dtensor.distribute_tensor %r, %m : tensor<3000xf64>, !dtensor.device_mesh<@g> -> tensor<3000xf64, #dtensor.spec<@g, [R]>>
  return %d : tensor<3000xf64, #dtensor.spec<@g, [R]>>
}

// Inner, 66000 outputs of 128 terms: more blocks than a grid row holds.
func.func @rows_many(%m: !dtensor.device_mesh<@g>, %a: tensor<66000x128xi8, #dtensor.spec<@g, [R]>>) -> tensor<66000xi8, #dtensor.spec<@g, [R]>> {
  %z = arith.constant -128 : i8
  %e = tensor.empty() : tensor<66000xi8>
  %f = linalg.fill ins(%z : i8) outs(%e : tensor<66000xi8>) -> tensor<66000xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<66000x128xi8, #dtensor.spec<@g, [R]>>) outs(%f : tensor<66000xi8>) {
  ^bb0(%x: i8, %y: i8):
    %t = arith.maxsi %y, %x : i8
    linalg.yield %t : i8
  } -> tensor<66000xi8>
  %d = dtensor.distribute_tensor %r, %m : tensor<66000xi8>, !dtensor.device_mesh<@g> -> tensor<66000xi8, #dtensor.spec<@g, [R]>>
  return %d : tensor<66000xi8, #dtensor.spec<@g, [R]>>
}

// Inner, a sum of everything in a 3-D nest: several blocks per output, and
// steps whose digits carry (f64).
func.func @total_3d(%m: !dtensor.device_mesh<@g>, %a: tensor<64x33x70xf64, #dtensor.spec<@g, [S(0)]>>) -> tensor<f64, #dtensor.spec<@g, [R]>> {
  %z = arith.constant 1.0 : f64
  %e = tensor.empty() : tensor<f64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%a : tensor<64x33x70xf64, #dtensor.spec<@g, [S(0)]>>) outs(%f : tensor<f64>) {
  ^bb0(%x: f64, %y: f64):
    %t = arith.addf %y, %x : f64
    linalg.yield %t : f64
  } -> tensor<f64>
  %d = dtensor.distribute_tensor %r, %m : tensor<f64>, !dtensor.device_mesh<@g> -> tensor<f64, #dtensor.spec<@g, [R]>>
  return %d : tensor<f64, #dtensor.spec<@g, [R]>>
}

// Outer, outputs innermost in memory over a 3-D nest (16 outputs of 2000
// terms: parts combined by a second kernel), i64.
func.func @outer_3d(%m: !dtensor.device_mesh<@g>, %a: tensor<40x50x16xi64, #dtensor.spec<@g, [R]>>) -> tensor<16xi64, #dtensor.spec<@g, [R]>> {
  %z = arith.constant 7 : i64
  %e = tensor.empty() : tensor<16xi64>
  %f = linalg.fill ins(%z : i64) outs(%e : tensor<16xi64>) -> tensor<16xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (k)>], iterator_types = ["reduction", "reduction", "parallel"]}
      ins(%a : tensor<40x50x16xi64, #dtensor.spec<@g, [R]>>) outs(%f : tensor<16xi64>) {
  ^bb0(%x: i64, %y: i64):
    %t = arith.addi %y, %x : i64
    linalg.yield %t : i64
  } -> tensor<16xi64>
  %d = dtensor.distribute_tensor %r, %m : tensor<16xi64>, !dtensor.device_mesh<@g> -> tensor<16xi64, #dtensor.spec<@g, [R]>>
  return %d : tensor<16xi64, #dtensor.spec<@g, [R]>>
}

// Outer with enough outputs for one thread each (50000 columns of 40).
func.func @outer_wide(%m: !dtensor.device_mesh<@g>, %a: tensor<40x50000xf32, #dtensor.spec<@g, [R]>>) -> tensor<50000xf32, #dtensor.spec<@g, [R]>> {
  %z = arith.constant -1.0e30 : f32
  %e = tensor.empty() : tensor<50000xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<50000xf32>) -> tensor<50000xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<40x50000xf32, #dtensor.spec<@g, [R]>>) outs(%f : tensor<50000xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.maximumf %y, %x : f32
    linalg.yield %t : f32
  } -> tensor<50000xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<50000xf32>, !dtensor.device_mesh<@g> -> tensor<50000xf32, #dtensor.spec<@g, [R]>>
  return %d : tensor<50000xf32, #dtensor.spec<@g, [R]>>
}
