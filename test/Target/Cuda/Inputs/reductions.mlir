// Reductions to few outputs, large enough that a GPU splits them into parts
// (rt::reduce): every combining operation the emitter splits (sums,
// products, max / min NaN-propagating and not, integer sums, products, min,
// max and bitwise), f16, and a column reduction with a nonzero initial
// value. Run by gpu-run.test (GPU) and Target/Cpp/mpi-run.test (CPU: one
// part in the interpreter's order, and 7 parts forced with
// DTENSOR_RT_REDUCTION_PARTS, so the identities are exercised there too).
dtensor.mesh @g shape = [2]
#in = affine_map<(i, j) -> (i, j)>
#all = affine_map<(i, j) -> ()>
#col = affine_map<(i, j) -> (j)>

func.func @sum_squares(%m: !dtensor.device_mesh<@g>, %a: tensor<4096x96xf32, #dtensor.spec<@g, [S(0)]>>) -> tensor<f32, #dtensor.spec<@g, [R]>> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#in, #all], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<4096x96xf32, #dtensor.spec<@g, [S(0)]>>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.mulf %x, %x : f32
    %t = arith.addf %y, %s : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %d = dtensor.distribute_tensor %r, %m : tensor<f32>, !dtensor.device_mesh<@g> -> tensor<f32, #dtensor.spec<@g, [R]>>
  return %d : tensor<f32, #dtensor.spec<@g, [R]>>
}

func.func @max_min(%m: !dtensor.device_mesh<@g>, %a: tensor<2048x64xf32, #dtensor.spec<@g, [R]>>)
    -> (tensor<f32, #dtensor.spec<@g, [R]>>, tensor<f32, #dtensor.spec<@g, [R]>>) {
  %lo = arith.constant -1.0e30 : f32
  %hi = arith.constant 1.0e30 : f32
  %e = tensor.empty() : tensor<f32>
  %f0 = linalg.fill ins(%lo : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %f1 = linalg.fill ins(%hi : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %mx = linalg.generic {indexing_maps = [#in, #all], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<2048x64xf32, #dtensor.spec<@g, [R]>>) outs(%f0 : tensor<f32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.maximumf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %mn = linalg.generic {indexing_maps = [#in, #all], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<2048x64xf32, #dtensor.spec<@g, [R]>>) outs(%f1 : tensor<f32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.minnumf %y, %x : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %d0 = dtensor.distribute_tensor %mx, %m : tensor<f32>, !dtensor.device_mesh<@g> -> tensor<f32, #dtensor.spec<@g, [R]>>
  %d1 = dtensor.distribute_tensor %mn, %m : tensor<f32>, !dtensor.device_mesh<@g> -> tensor<f32, #dtensor.spec<@g, [R]>>
  return %d0, %d1 : tensor<f32, #dtensor.spec<@g, [R]>>, tensor<f32, #dtensor.spec<@g, [R]>>
}

// Column sums of a tall matrix into a bias-initialized row: 8 outputs of
// 8192 terms each.
func.func @column_sums(%m: !dtensor.device_mesh<@g>, %a: tensor<8192x8xf32, #dtensor.spec<@g, [R]>>,
                       %b: tensor<8xf32, #dtensor.spec<@g, [R]>>) -> tensor<8xf32, #dtensor.spec<@g, [R]>> {
  %r = linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<8192x8xf32, #dtensor.spec<@g, [R]>>) outs(%b : tensor<8xf32, #dtensor.spec<@g, [R]>>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<8xf32, #dtensor.spec<@g, [R]>>
  return %r : tensor<8xf32, #dtensor.spec<@g, [R]>>
}

// A product of signs (+1 or -1): exact in any order, so a part lost or
// combined twice shows.
func.func @product(%m: !dtensor.device_mesh<@g>, %a: tensor<1024x32xf32, #dtensor.spec<@g, [R]>>) -> tensor<f32, #dtensor.spec<@g, [R]>> {
  %one = arith.constant 1.0 : f32
  %minus = arith.constant -1.0 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#in, #all], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<1024x32xf32, #dtensor.spec<@g, [R]>>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %y: f32):
    %pos = arith.cmpf oge, %x, %zero : f32
    %sign = arith.select %pos, %one, %minus : f32
    %t = arith.mulf %y, %sign : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %d = dtensor.distribute_tensor %r, %m : tensor<f32>, !dtensor.device_mesh<@g> -> tensor<f32, #dtensor.spec<@g, [R]>>
  return %d : tensor<f32, #dtensor.spec<@g, [R]>>
}

// Integers: a wrapping sum, a signed max and an xor of the values' bits.
func.func @integers(%m: !dtensor.device_mesh<@g>, %a: tensor<4096x16xi32, #dtensor.spec<@g, [S(0)]>>)
    -> (tensor<i32, #dtensor.spec<@g, [R]>>, tensor<i32, #dtensor.spec<@g, [R]>>, tensor<i32, #dtensor.spec<@g, [R]>>) {
  %z = arith.constant 0 : i32
  %lo = arith.constant -2147483648 : i32
  %e = tensor.empty() : tensor<i32>
  %f0 = linalg.fill ins(%z : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %f1 = linalg.fill ins(%lo : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %s = linalg.generic {indexing_maps = [#in, #all], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<4096x16xi32, #dtensor.spec<@g, [S(0)]>>) outs(%f0 : tensor<i32>) {
  ^bb0(%x: i32, %y: i32):
    %t = arith.addi %y, %x : i32
    linalg.yield %t : i32
  } -> tensor<i32>
  %mx = linalg.generic {indexing_maps = [#in, #all], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<4096x16xi32, #dtensor.spec<@g, [S(0)]>>) outs(%f1 : tensor<i32>) {
  ^bb0(%x: i32, %y: i32):
    %t = arith.maxsi %y, %x : i32
    linalg.yield %t : i32
  } -> tensor<i32>
  %x = linalg.generic {indexing_maps = [#in, #all], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<4096x16xi32, #dtensor.spec<@g, [S(0)]>>) outs(%f0 : tensor<i32>) {
  ^bb0(%v: i32, %y: i32):
    %t = arith.xori %y, %v : i32
    linalg.yield %t : i32
  } -> tensor<i32>
  %d0 = dtensor.distribute_tensor %s, %m : tensor<i32>, !dtensor.device_mesh<@g> -> tensor<i32, #dtensor.spec<@g, [R]>>
  %d1 = dtensor.distribute_tensor %mx, %m : tensor<i32>, !dtensor.device_mesh<@g> -> tensor<i32, #dtensor.spec<@g, [R]>>
  %d2 = dtensor.distribute_tensor %x, %m : tensor<i32>, !dtensor.device_mesh<@g> -> tensor<i32, #dtensor.spec<@g, [R]>>
  return %d0, %d1, %d2 : tensor<i32, #dtensor.spec<@g, [R]>>, tensor<i32, #dtensor.spec<@g, [R]>>, tensor<i32, #dtensor.spec<@g, [R]>>
}

// f16: a sum of -1, 0 and 1 (x < -0.5, between, x > 0.5), exact in f16
// while the sum stays within 2048, so any order gives the same result. (A sum of 32K arbitrary f16
// values is not exact: its error depends on the order, and a GPU's parts
// change the order.)
func.func @half_sum(%m: !dtensor.device_mesh<@g>, %a: tensor<512x64xf16, #dtensor.spec<@g, [R]>>) -> tensor<f16, #dtensor.spec<@g, [R]>> {
  %z = arith.constant 0.0 : f16
  %one = arith.constant 1.0 : f16
  %mone = arith.constant -1.0 : f16
  %half = arith.constant 0.5 : f16
  %mhalf = arith.constant -0.5 : f16
  %e = tensor.empty() : tensor<f16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<f16>) -> tensor<f16>
  %r = linalg.generic {indexing_maps = [#in, #all], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<512x64xf16, #dtensor.spec<@g, [R]>>) outs(%f : tensor<f16>) {
  ^bb0(%x: f16, %y: f16):
    %hi = arith.cmpf ogt, %x, %half : f16
    %lo = arith.cmpf olt, %x, %mhalf : f16
    %k0 = arith.select %lo, %mone, %z : f16
    %k = arith.select %hi, %one, %k0 : f16
    %t = arith.addf %y, %k : f16
    linalg.yield %t : f16
  } -> tensor<f16>
  %d = dtensor.distribute_tensor %r, %m : tensor<f16>, !dtensor.device_mesh<@g> -> tensor<f16, #dtensor.spec<@g, [R]>>
  return %d : tensor<f16, #dtensor.spec<@g, [R]>>
}

// The other combining operations: minimumf and maxnumf, and on integers a
// wrapping product, and, or and a signed min (exact in any order).
func.func @more_ops(%m: !dtensor.device_mesh<@g>, %a: tensor<2048x16xf32, #dtensor.spec<@g, [R]>>,
                    %b: tensor<2048x16xi32, #dtensor.spec<@g, [R]>>)
    -> (tensor<f32, #dtensor.spec<@g, [R]>>, tensor<f32, #dtensor.spec<@g, [R]>>,
        tensor<i32, #dtensor.spec<@g, [R]>>, tensor<i32, #dtensor.spec<@g, [R]>>,
        tensor<i32, #dtensor.spec<@g, [R]>>, tensor<i32, #dtensor.spec<@g, [R]>>) {
  %lo = arith.constant -1.0e30 : f32
  %hi = arith.constant 1.0e30 : f32
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %ones = arith.constant -1 : i32
  %max = arith.constant 2147483647 : i32
  %ef = tensor.empty() : tensor<f32>
  %ei = tensor.empty() : tensor<i32>
  %fhi = linalg.fill ins(%hi : f32) outs(%ef : tensor<f32>) -> tensor<f32>
  %flo = linalg.fill ins(%lo : f32) outs(%ef : tensor<f32>) -> tensor<f32>
  %f1 = linalg.fill ins(%one : i32) outs(%ei : tensor<i32>) -> tensor<i32>
  %f0 = linalg.fill ins(%zero : i32) outs(%ei : tensor<i32>) -> tensor<i32>
  %fm = linalg.fill ins(%ones : i32) outs(%ei : tensor<i32>) -> tensor<i32>
  %fx = linalg.fill ins(%max : i32) outs(%ei : tensor<i32>) -> tensor<i32>
  %mn = linalg.generic {indexing_maps = [#in, #all], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<2048x16xf32, #dtensor.spec<@g, [R]>>) outs(%fhi : tensor<f32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.minimumf %y, %x : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %mx = linalg.generic {indexing_maps = [#in, #all], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<2048x16xf32, #dtensor.spec<@g, [R]>>) outs(%flo : tensor<f32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.maxnumf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %p = linalg.generic {indexing_maps = [#in, #all], iterator_types = ["reduction", "reduction"]}
      ins(%b : tensor<2048x16xi32, #dtensor.spec<@g, [R]>>) outs(%f1 : tensor<i32>) {
  ^bb0(%x: i32, %y: i32):
    %x1 = arith.ori %x, %one : i32
    %t = arith.muli %y, %x1 : i32
    linalg.yield %t : i32
  } -> tensor<i32>
  %an = linalg.generic {indexing_maps = [#in, #all], iterator_types = ["reduction", "reduction"]}
      ins(%b : tensor<2048x16xi32, #dtensor.spec<@g, [R]>>) outs(%fm : tensor<i32>) {
  ^bb0(%x: i32, %y: i32):
    %x1 = arith.ori %x, %max : i32
    %t = arith.andi %y, %x1 : i32
    linalg.yield %t : i32
  } -> tensor<i32>
  %o = linalg.generic {indexing_maps = [#in, #all], iterator_types = ["reduction", "reduction"]}
      ins(%b : tensor<2048x16xi32, #dtensor.spec<@g, [R]>>) outs(%f0 : tensor<i32>) {
  ^bb0(%x: i32, %y: i32):
    %t = arith.ori %y, %x : i32
    linalg.yield %t : i32
  } -> tensor<i32>
  %s = linalg.generic {indexing_maps = [#in, #all], iterator_types = ["reduction", "reduction"]}
      ins(%b : tensor<2048x16xi32, #dtensor.spec<@g, [R]>>) outs(%fx : tensor<i32>) {
  ^bb0(%x: i32, %y: i32):
    %t = arith.minsi %x, %y : i32
    linalg.yield %t : i32
  } -> tensor<i32>
  %d0 = dtensor.distribute_tensor %mn, %m : tensor<f32>, !dtensor.device_mesh<@g> -> tensor<f32, #dtensor.spec<@g, [R]>>
  %d1 = dtensor.distribute_tensor %mx, %m : tensor<f32>, !dtensor.device_mesh<@g> -> tensor<f32, #dtensor.spec<@g, [R]>>
  %d2 = dtensor.distribute_tensor %p, %m : tensor<i32>, !dtensor.device_mesh<@g> -> tensor<i32, #dtensor.spec<@g, [R]>>
  %d3 = dtensor.distribute_tensor %an, %m : tensor<i32>, !dtensor.device_mesh<@g> -> tensor<i32, #dtensor.spec<@g, [R]>>
  %d4 = dtensor.distribute_tensor %o, %m : tensor<i32>, !dtensor.device_mesh<@g> -> tensor<i32, #dtensor.spec<@g, [R]>>
  %d5 = dtensor.distribute_tensor %s, %m : tensor<i32>, !dtensor.device_mesh<@g> -> tensor<i32, #dtensor.spec<@g, [R]>>
  return %d0, %d1, %d2, %d3, %d4, %d5 : tensor<f32, #dtensor.spec<@g, [R]>>, tensor<f32, #dtensor.spec<@g, [R]>>,
      tensor<i32, #dtensor.spec<@g, [R]>>, tensor<i32, #dtensor.spec<@g, [R]>>,
      tensor<i32, #dtensor.spec<@g, [R]>>, tensor<i32, #dtensor.spec<@g, [R]>>
}
