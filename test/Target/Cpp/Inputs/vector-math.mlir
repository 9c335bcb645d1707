// Every math function the runtime declares `simd` (glibc's vector variants,
// runtime/include/dtensor_rt/Runtime.h), in f32 and f64, on inputs scaled to
// reach their edges: overflow to infinity (exp, sinh, cosh), NaN outside the
// domain (log of a negative, acos beyond 1, acosh below 1), large arguments
// of sin, cos and tan. 64 columns: the vector loop's body and its tail.
// (test/Target/Cpp/vector-math.test)

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @math_f32(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 1.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.acos %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 4.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.acosh %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 1.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.asin %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 100.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.asinh %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 100.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.atan %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r5 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 1.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.atanh %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 1000.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.cbrt %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r7 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 1000.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.cos %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r8 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 100.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.cosh %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r9 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 5.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.erf %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r10 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 100.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.exp %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r11 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 150.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.exp2 %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r12 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 100.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.expm1 %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r13 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 1000.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.log %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r14 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 1000.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.log10 %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r15 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 1000.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.log1p %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r16 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 1000.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.log2 %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r17 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 1000.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.sin %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r18 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 100.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.sinh %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r19 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 1000.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.tan %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r20 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 20.0 : f32
    %s = arith.mulf %v, %c : f32
    %y = math.tanh %s : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r21 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %h = arith.constant 0.5 : f32
    %q = arith.constant 0.25 : f32
    %a = arith.mulf %v, %h : f32
    %b = arith.subf %a, %q : f32
    %y = math.atan2 %v, %b : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  %r22 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %f = arith.constant 4.0 : f32
    %t = arith.constant 10.0 : f32
    %av = math.absf %v : f32
    %b = arith.mulf %av, %f : f32
    %p = arith.mulf %v, %t : f32
    %y = math.powf %b, %p : f32
    linalg.yield %y : f32
  } -> tensor<8x64xf32>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21, %r22 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

func.func @math_f64(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) -> (tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>) {
  %e = tensor.empty() : tensor<8x64xf64>
  %r0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 1.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.acos %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 4.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.acosh %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 1.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.asin %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 100.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.asinh %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 100.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.atan %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r5 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 1.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.atanh %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 1000.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.cbrt %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r7 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 1000.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.cos %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r8 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 100.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.cosh %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r9 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 5.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.erf %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r10 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 100.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.exp %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r11 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 150.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.exp2 %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r12 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 100.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.expm1 %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r13 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 1000.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.log %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r14 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 1000.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.log10 %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r15 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 1000.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.log1p %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r16 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 1000.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.log2 %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r17 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 1000.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.sin %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r18 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 100.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.sinh %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r19 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 1000.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.tan %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r20 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %c = arith.constant 20.0 : f64
    %s = arith.mulf %v, %c : f64
    %y = math.tanh %s : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r21 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %h = arith.constant 0.5 : f64
    %q = arith.constant 0.25 : f64
    %a = arith.mulf %v, %h : f64
    %b = arith.subf %a, %q : f64
    %y = math.atan2 %v, %b : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  %r22 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf64, #dtensor.spec<@mesh, [S(0), S(1)]>>) outs(%e : tensor<8x64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %f = arith.constant 4.0 : f64
    %t = arith.constant 10.0 : f64
    %av = math.absf %v : f64
    %b = arith.mulf %av, %f : f64
    %p = arith.mulf %v, %t : f64
    %y = math.powf %b, %p : f64
    linalg.yield %y : f64
  } -> tensor<8x64xf64>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21, %r22 : tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>, tensor<8x64xf64>
}
