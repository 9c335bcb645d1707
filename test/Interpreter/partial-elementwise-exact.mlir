// RUN: dtensor-run %s --entry int_avg_mul --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=INT-AVG-MUL
// RUN: dtensor-run %s --entry int_avg_add --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=INT-AVG-ADD
// RUN: dtensor-run %s --entry int_avg_trunci --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=INT-AVG-TRUNCI
// RUN: dtensor-run %s --entry psum_truncf_f16_overflow --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=PSUM-TRUNCF-F16-OVERFLOW
// RUN: dtensor-run %s --entry fptosi_max --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=FPTOSI-MAX
// RUN: dtensor-run %s --entry fptosi_nan_max --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=FPTOSI-NAN-MAX
// RUN: dtensor-run %s --entry psum_reduce --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=PSUM-REDUCE
// RUN: dtensor-run %s --entry pavg_add_r --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=PAVG-ADD-R
// RUN: dtensor-run %s --entry pmax_sinh --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=PMAX-SINH
// RUN: %if mpi %{ dtensor-run %s --entry psum_reduce --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPI %}
// MPI: verified @psum_reduce on target mpi
// Partials through element-wise ops and reductions, kept only where the
// identity is exact for the program's own types (found by probing: the
// first cases were kept Partial and gave wrong numbers).

dtensor.mesh @mesh shape = [2]

// An i32 P(avg) times 2: its reduction divides, truncating, so the average of
// doubled terms is not the doubled average ([1,1,1,1] and [0,2,0,4]: [0,2,0,4]
// reduced first, [1,3,1,5] kept Partial). Reduced first.
// INT-AVG-MUL: verified @int_avg_mul
// INT-AVG-MUL: communication: 1 collective, 16 bytes/rank
#id_int_avg_mul = affine_map<(i) -> (i)>
func.func @int_avg_mul(%m: !dtensor.device_mesh<@mesh>) -> tensor<4xi32, #dtensor.spec<@mesh, [R]>> {
  %v = arith.constant dense<[1, 1, 1, 1, 0, 2, 0, 4]> : tensor<8xi32>
  %x = dtensor.distribute_tensor %v, %m : tensor<8xi32>, !dtensor.device_mesh<@mesh> -> tensor<8xi32, #dtensor.spec<@mesh, [S(0)]>>
  %l = dtensor.to_local %x : tensor<8xi32, #dtensor.spec<@mesh, [S(0)]>> -> tensor<4xi32>
  %pa = dtensor.from_local %l, %m : tensor<4xi32>, !dtensor.device_mesh<@mesh> -> tensor<4xi32, #dtensor.spec<@mesh, [P(avg)]>>
  %e = tensor.empty() : tensor<4xi32>
  %y = linalg.generic {indexing_maps = [#id_int_avg_mul, #id_int_avg_mul], iterator_types = ["parallel"]} ins(%pa : tensor<4xi32, #dtensor.spec<@mesh, [P(avg)]>>) outs(%e : tensor<4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 2 : i32
    %r = arith.muli %a, %c : i32
    linalg.yield %r : i32
  } -> tensor<4xi32>
  %r = dtensor.distribute_tensor %y, %m : tensor<4xi32>, !dtensor.device_mesh<@mesh> -> tensor<4xi32, #dtensor.spec<@mesh, [R]>>
  return %r : tensor<4xi32, #dtensor.spec<@mesh, [R]>>
}

// An i32 P(avg) plus a P(avg): not linear either. Reduced first.
// INT-AVG-ADD: verified @int_avg_add
// INT-AVG-ADD: communication: 1 collective, 16 bytes/rank
#id_int_avg_add = affine_map<(i) -> (i)>
func.func @int_avg_add(%m: !dtensor.device_mesh<@mesh>) -> tensor<4xi32, #dtensor.spec<@mesh, [R]>> {
  %va = arith.constant dense<[1, 1, 0, 0, 0, 2, 0, 0]> : tensor<8xi32>
  %xa = dtensor.distribute_tensor %va, %m : tensor<8xi32>, !dtensor.device_mesh<@mesh> -> tensor<8xi32, #dtensor.spec<@mesh, [S(0)]>>
  %la = dtensor.to_local %xa : tensor<8xi32, #dtensor.spec<@mesh, [S(0)]>> -> tensor<4xi32>
  %pa = dtensor.from_local %la, %m : tensor<4xi32>, !dtensor.device_mesh<@mesh> -> tensor<4xi32, #dtensor.spec<@mesh, [P(avg)]>>
  %vb = arith.constant dense<[1, 1, 0, 0, 0, 2, 0, 0]> : tensor<8xi32>
  %xb = dtensor.distribute_tensor %vb, %m : tensor<8xi32>, !dtensor.device_mesh<@mesh> -> tensor<8xi32, #dtensor.spec<@mesh, [S(0)]>>
  %lb = dtensor.to_local %xb : tensor<8xi32, #dtensor.spec<@mesh, [S(0)]>> -> tensor<4xi32>
  %pb = dtensor.from_local %lb, %m : tensor<4xi32>, !dtensor.device_mesh<@mesh> -> tensor<4xi32, #dtensor.spec<@mesh, [P(avg)]>>
  %e = tensor.empty() : tensor<4xi32>
  %y = linalg.generic {indexing_maps = [#id_int_avg_add, #id_int_avg_add, #id_int_avg_add], iterator_types = ["parallel"]} ins(%pa, %pb : tensor<4xi32, #dtensor.spec<@mesh, [P(avg)]>>, tensor<4xi32, #dtensor.spec<@mesh, [P(avg)]>>) outs(%e : tensor<4xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %r = arith.addi %a, %b : i32
    linalg.yield %r : i32
  } -> tensor<4xi32>
  %r = dtensor.distribute_tensor %y, %m : tensor<4xi32>, !dtensor.device_mesh<@mesh> -> tensor<4xi32, #dtensor.spec<@mesh, [R]>>
  return %r : tensor<4xi32, #dtensor.spec<@mesh, [R]>>
}

// i32 P(avg) terms 100 and 101 truncated to i8: the sum wraps. Reduced first.
// INT-AVG-TRUNCI: verified @int_avg_trunci
// INT-AVG-TRUNCI: communication: 1 collective, 16 bytes/rank
#id_int_avg_trunci = affine_map<(i) -> (i)>
func.func @int_avg_trunci(%m: !dtensor.device_mesh<@mesh>) -> tensor<4xi8, #dtensor.spec<@mesh, [R]>> {
  %va = arith.constant dense<[100, 1, 2, 3, 101, 1, 2, 3]> : tensor<8xi32>
  %xa = dtensor.distribute_tensor %va, %m : tensor<8xi32>, !dtensor.device_mesh<@mesh> -> tensor<8xi32, #dtensor.spec<@mesh, [S(0)]>>
  %la = dtensor.to_local %xa : tensor<8xi32, #dtensor.spec<@mesh, [S(0)]>> -> tensor<4xi32>
  %pa = dtensor.from_local %la, %m : tensor<4xi32>, !dtensor.device_mesh<@mesh> -> tensor<4xi32, #dtensor.spec<@mesh, [P(avg)]>>
  %e = tensor.empty() : tensor<4xi8>
  %y = linalg.generic {indexing_maps = [#id_int_avg_trunci, #id_int_avg_trunci], iterator_types = ["parallel"]} ins(%pa : tensor<4xi32, #dtensor.spec<@mesh, [P(avg)]>>) outs(%e : tensor<4xi8>) {
  ^bb0(%a: i32, %o: i8):
    %r = arith.trunci %a : i32 to i8
    linalg.yield %r : i8
  } -> tensor<4xi8>
  %r = dtensor.distribute_tensor %y, %m : tensor<4xi8>, !dtensor.device_mesh<@mesh> -> tensor<4xi8, #dtensor.spec<@mesh, [R]>>
  return %r : tensor<4xi8, #dtensor.spec<@mesh, [R]>>
}

// f32 P(sum) terms 70000 and -70000 narrowed to f16: the global program
// narrows the sum (0); narrowed terms are inf and -inf (NaN). A P(sum) is
// reduced before a float cast.
// PSUM-TRUNCF-F16-OVERFLOW: verified @psum_truncf_f16_overflow
// PSUM-TRUNCF-F16-OVERFLOW: communication: 1 collective, 16 bytes/rank
#id_psum_truncf_f16_overflow = affine_map<(i) -> (i)>
func.func @psum_truncf_f16_overflow(%m: !dtensor.device_mesh<@mesh>) -> tensor<4xf16, #dtensor.spec<@mesh, [R]>> {
  %va = arith.constant dense<[70000.0, 1.0, 0.1, 3.0, -70000.0, 1.0, 0.2, -3.0]> : tensor<8xf32>
  %xa = dtensor.distribute_tensor %va, %m : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>
  %la = dtensor.to_local %xa : tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>> -> tensor<4xf32>
  %pa = dtensor.from_local %la, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [P(sum)]>>
  %e = tensor.empty() : tensor<4xf16>
  %y = linalg.generic {indexing_maps = [#id_psum_truncf_f16_overflow, #id_psum_truncf_f16_overflow], iterator_types = ["parallel"]} ins(%pa : tensor<4xf32, #dtensor.spec<@mesh, [P(sum)]>>) outs(%e : tensor<4xf16>) {
  ^bb0(%a: f32, %o: f16):
    %r = arith.truncf %a : f32 to f16
    linalg.yield %r : f16
  } -> tensor<4xf16>
  %r = dtensor.distribute_tensor %y, %m : tensor<4xf16>, !dtensor.device_mesh<@mesh> -> tensor<4xf16, #dtensor.spec<@mesh, [R]>>
  return %r : tensor<4xf16, #dtensor.spec<@mesh, [R]>>
}

// P(max) terms 200.0 and 100.0 to i8: fptosi wraps (200 is -56), so it does
// not keep the order. Reduced first.
// FPTOSI-MAX: verified @fptosi_max
// FPTOSI-MAX: communication: 1 collective, 16 bytes/rank
#id_fptosi_max = affine_map<(i) -> (i)>
func.func @fptosi_max(%m: !dtensor.device_mesh<@mesh>) -> tensor<4xi8, #dtensor.spec<@mesh, [R]>> {
  %va = arith.constant dense<[200.0, 1.0, 2.0, 3.0, 100.0, 1.0, 2.0, 3.0]> : tensor<8xf32>
  %xa = dtensor.distribute_tensor %va, %m : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>
  %la = dtensor.to_local %xa : tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>> -> tensor<4xf32>
  %pa = dtensor.from_local %la, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>
  %e = tensor.empty() : tensor<4xi8>
  %y = linalg.generic {indexing_maps = [#id_fptosi_max, #id_fptosi_max], iterator_types = ["parallel"]} ins(%pa : tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>) outs(%e : tensor<4xi8>) {
  ^bb0(%a: f32, %o: i8):
    %r = arith.fptosi %a : f32 to i8
    linalg.yield %r : i8
  } -> tensor<4xi8>
  %r = dtensor.distribute_tensor %y, %m : tensor<4xi8>, !dtensor.device_mesh<@mesh> -> tensor<4xi8, #dtensor.spec<@mesh, [R]>>
  return %r : tensor<4xi8, #dtensor.spec<@mesh, [R]>>
}

// P(max) terms NaN and 100 to i32: NaN converts to 0. Reduced first.
// FPTOSI-NAN-MAX: verified @fptosi_nan_max
// FPTOSI-NAN-MAX: communication: 1 collective, 16 bytes/rank
#id_fptosi_nan_max = affine_map<(i) -> (i)>
func.func @fptosi_nan_max(%m: !dtensor.device_mesh<@mesh>) -> tensor<4xi32, #dtensor.spec<@mesh, [R]>> {
  %va = arith.constant dense<[0x7FC00000, 1.0, 2.0, 3.0, 100.0, 1.0, 2.0, 3.0]> : tensor<8xf32>
  %xa = dtensor.distribute_tensor %va, %m : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>
  %la = dtensor.to_local %xa : tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>> -> tensor<4xf32>
  %pa = dtensor.from_local %la, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>
  %e = tensor.empty() : tensor<4xi32>
  %y = linalg.generic {indexing_maps = [#id_fptosi_nan_max, #id_fptosi_nan_max], iterator_types = ["parallel"]} ins(%pa : tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>) outs(%e : tensor<4xi32>) {
  ^bb0(%a: f32, %o: i32):
    %r = arith.fptosi %a : f32 to i32
    linalg.yield %r : i32
  } -> tensor<4xi32>
  %r = dtensor.distribute_tensor %y, %m : tensor<4xi32>, !dtensor.device_mesh<@mesh> -> tensor<4xi32, #dtensor.spec<@mesh, [R]>>
  return %r : tensor<4xi32, #dtensor.spec<@mesh, [R]>>
}

// A sum over a dim no mesh dim shards, of a P(sum): each rank sums its terms,
// the sums stay P(sum), and the all_reduce moves the 64 sums (256 B), not the
// 64x64 matrix (16 KiB).
// PSUM-REDUCE: verified @psum_reduce
// PSUM-REDUCE: communication: 1 collective, 256 bytes/rank
func.func @psum_reduce(%m: !dtensor.device_mesh<@mesh>,
  %x: tensor<64x4xf32, #dtensor.spec<@mesh, [S(1)]>>,
  %w: tensor<4x64xf32, #dtensor.spec<@mesh, [S(0)]>>)
  -> tensor<64xf32, #dtensor.spec<@mesh, [R]>> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x64xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %h = linalg.matmul ins(%x, %w : tensor<64x4xf32, #dtensor.spec<@mesh, [S(1)]>>, tensor<4x64xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%z1 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.reduce ins(%h : tensor<64x64xf32>) outs(%f : tensor<64xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  %r1 = dtensor.distribute_tensor %s, %m : tensor<64xf32>, !dtensor.device_mesh<@mesh> -> tensor<64xf32, #dtensor.spec<@mesh, [R]>>
  return %r1 : tensor<64xf32, #dtensor.spec<@mesh, [R]>>
}

// An f32 P(avg) plus a replicated value stays P(avg) (avg(a) + c = avg(a +
// c)), as DTensor keeps it.
// PAVG-ADD-R: verified @pavg_add_r
// PAVG-ADD-R: communication: 0 collectives, 0 bytes/rank
#id_pavg_add_r = affine_map<(i) -> (i)>
func.func @pavg_add_r(%m: !dtensor.device_mesh<@mesh>) -> tensor<4xf32, #dtensor.spec<@mesh, [P(avg)]>> {
  %va = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %xa = dtensor.distribute_tensor %va, %m : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>
  %la = dtensor.to_local %xa : tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>> -> tensor<4xf32>
  %pa = dtensor.from_local %la, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [P(avg)]>>
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id_pavg_add_r, #id_pavg_add_r], iterator_types = ["parallel"]} ins(%pa : tensor<4xf32, #dtensor.spec<@mesh, [P(avg)]>>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 10.0 : f32
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %r = dtensor.distribute_tensor %y, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [P(avg)]>>
  return %r : tensor<4xf32, #dtensor.spec<@mesh, [P(avg)]>>
}

// sinh does not decrease: P(max) stays P(max), as DTensor keeps it.
// PMAX-SINH: verified @pmax_sinh
// PMAX-SINH: communication: 0 collectives, 0 bytes/rank
#id_pmax_sinh = affine_map<(i) -> (i)>
func.func @pmax_sinh(%m: !dtensor.device_mesh<@mesh>) -> tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>> {
  %va = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, -6.0, 7.0, 8.0]> : tensor<8xf32>
  %xa = dtensor.distribute_tensor %va, %m : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>
  %la = dtensor.to_local %xa : tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>> -> tensor<4xf32>
  %pa = dtensor.from_local %la, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id_pmax_sinh, #id_pmax_sinh], iterator_types = ["parallel"]} ins(%pa : tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.sinh %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %r = dtensor.distribute_tensor %y, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>
  return %r : tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>
}
