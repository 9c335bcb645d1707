// RUN: dtensor-run %s --print-values | FileCheck %s
// f16 and bf16 round to their own precision after every operation:
// 1/3 is 0.333251953125 in f16 and 0.333984375 in bf16.

#id = affine_map<(d0) -> (d0)>
func.func @main() -> (tensor<2xf16>, tensor<2xbf16>, tensor<2xbf16>, tensor<2xf16>) {
  %one = arith.constant dense<1.0> : tensor<2xf16>
  %three = arith.constant dense<3.0> : tensor<2xf16>
  %h = arith.divf %one, %three : tensor<2xf16>
  %oneb = arith.constant dense<1.0> : tensor<2xbf16>
  %threeb = arith.constant dense<3.0> : tensor<2xbf16>
  %b = arith.divf %oneb, %threeb : tensor<2xbf16>
  // A linalg body on bf16: x * 3 rounds back to 1.0 (0.333984375 * 3 = 1.001953125 -> 1.0)
  %e = tensor.empty() : tensor<2xbf16>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%b, %threeb : tensor<2xbf16>, tensor<2xbf16>) outs(%e : tensor<2xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %m = arith.mulf %x, %y : bf16
    linalg.yield %m : bf16
  } -> tensor<2xbf16>
  // f16 overflows to inf past 65504.
  %big = arith.constant dense<60000.0> : tensor<2xf16>
  %inf = arith.addf %big, %big : tensor<2xf16>
  return %h, %b, %g, %inf : tensor<2xf16>, tensor<2xbf16>, tensor<2xbf16>, tensor<2xf16>
}

// CHECK:      output 0: same on every rank, 2 f16
// CHECK-NEXT: [0.333252, 0.333252]
// CHECK:      output 1: same on every rank, 2 bf16
// CHECK-NEXT: [0.333984, 0.333984]
// CHECK:      output 2: same on every rank, 2 bf16
// CHECK-NEXT: [1, 1]
// CHECK:      output 3: same on every rank, 2 f16
// CHECK-NEXT: [inf, inf]

// RUN: dtensor-run %s --entry in_body --print-values | FileCheck %s --check-prefix=BODY
// RUN: %if mpi %{ dtensor-run %s --entry in_body --verify --target=mpi | FileCheck %s --check-prefix=MPI %}
// Inside one linalg body too, each op's result rounds to its type before the
// next op reads it (the interpreter rounded f16 and bf16 only on the store):
// (x + 1000) - 1000 is x to the nearest 0.5 in f16 and 4 in bf16; sitofp of
// 2049 to f16 is 2048; an f32 1/3 truncated to f16 then extended and tripled
// in f32 is 0.999756. The emitted C++ computes the same (MPI).
// BODY:      output 0: same on every rank, 4 f16
// BODY-NEXT: [0.5, 1.5, -0.5, 2048]
// BODY:      output 1: same on every rank, 4 bf16
// BODY-NEXT: [0, 0, 0, 2048]
// BODY:      output 2: same on every rank, 4 f32
// BODY-NEXT: [0.999756, 0.999756, 0.999756, 0.999756]
// MPI: verified @in_body on target mpi: 3 output(s)
func.func @in_body() -> (tensor<4xf16>, tensor<4xbf16>, tensor<4xf32>) {
  %x = arith.constant dense<[0.3, 1.3, -0.3, 0.0]> : tensor<4xf32>
  %n = arith.constant dense<[0, 0, 0, 2049]> : tensor<4xi32>
  %eh = tensor.empty() : tensor<4xf16>
  %eb = tensor.empty() : tensor<4xbf16>
  %ef = tensor.empty() : tensor<4xf32>
  %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %n : tensor<4xf32>, tensor<4xi32>) outs(%eh : tensor<4xf16>) {
  ^bb0(%a: f32, %i: i32, %o: f16):
    %big = arith.constant 1000.0 : f16
    %t = arith.truncf %a : f32 to f16
    %s = arith.addf %t, %big : f16
    %d = arith.subf %s, %big : f16
    %c = arith.sitofp %i : i32 to f16
    %r = arith.addf %d, %c : f16
    linalg.yield %r : f16
  } -> tensor<4xf16>
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %n : tensor<4xf32>, tensor<4xi32>) outs(%eb : tensor<4xbf16>) {
  ^bb0(%a: f32, %i: i32, %o: bf16):
    %big = arith.constant 1000.0 : bf16
    %t = arith.truncf %a : f32 to bf16
    %s = arith.addf %t, %big : bf16
    %d = arith.subf %s, %big : bf16
    %c = arith.sitofp %i : i32 to bf16
    %r = arith.addf %d, %c : bf16
    linalg.yield %r : bf16
  } -> tensor<4xbf16>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%ef : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %three = arith.constant 3.0 : f32
    %third = arith.divf %one, %three : f32
    %t = arith.truncf %third : f32 to f16
    %w = arith.extf %t : f16 to f32
    %r = arith.mulf %w, %three : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %h, %b, %f : tensor<4xf16>, tensor<4xbf16>, tensor<4xf32>
}

// A scalar cast rounds to its type: 1.00390625 is 1.0 in bf16 and
// 1.00390625 in f16 (it stayed unrounded in both before, where the emitted
// C++ rounds).
// RUN: dtensor-run %s --entry scalar_trunc --print-values | FileCheck %s --check-prefix=SCALAR
// RUN: %if mpi %{ dtensor-run %s --entry scalar_trunc --verify --target=mpi | FileCheck %s --check-prefix=SMPI %}
// SCALAR: output 0: 1{{$}}
// SCALAR: output 1: 1.00391
// SCALAR: output 2: 1.5{{$}}
// SMPI: verified @scalar_trunc on target mpi
func.func @scalar_trunc() -> (f32, f32, f32) {
  %a = arith.constant 1.00390625 : f32
  %t = arith.truncf %a : f32 to bf16
  %e = arith.extf %t : bf16 to f32
  %h = arith.truncf %a : f32 to f16
  %eh = arith.extf %h : f16 to f32
  %three = arith.constant 1.5 : f64
  %d = arith.truncf %three : f64 to f32
  return %e, %eh, %d : f32, f32, f32
}
