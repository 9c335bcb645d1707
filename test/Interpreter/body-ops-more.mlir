// RUN: dtensor-run %s --entry floats --print-values | FileCheck %s --check-prefix=FLOATS
// RUN: dtensor-run %s --entry unsigned --print-values | FileCheck %s --check-prefix=UNSIGNED
// RUN: dtensor-run %s --entry bits --print-values | FileCheck %s --check-prefix=BITS
// RUN: %if mpi %{ dtensor-run %s --entry emitted --verify --target=mpi | FileCheck %s --check-prefix=MPI-E %}
// RUN: %if mpi %{ dtensor-run %s --entry unsigned --verify --target=mpi | FileCheck %s --check-prefix=MPI-U %}
// RUN: %if mpi %{ dtensor-run %s --entry floats --verify --target=mpi | FileCheck %s --check-prefix=MPI-F %}
// RUN: %if mpi %{ dtensor-run %s --entry bits --verify --target=mpi | FileCheck %s --check-prefix=MPI-B %}
// MPI-F: verified @floats on target mpi
// MPI-B: verified @bits on target mpi
// Ops linalg bodies (and, through them, tensor-level element-wise ops) did
// not run in the interpreter ("cannot be compiled into a linalg body"),
// some of which the C++ emitter emitted and some neither: math.round, erfc,
// copysign, fma, isnan / isinf / isfinite, ctlz / cttz / ctpop, ipowi;
// arith.divui, remui, ceildivui, maxui, minui, fptoui. Both run them all
// now, alike. Unsigned division by zero gives 0, as the signed ones do (the
// emitted C++ trapped: rt_divui / rt_remui), and fptoui goes through 64
// bits as fptosi does (a negative value converted to an unsigned C++ type
// is undefined: rt_fptoui).

#map = affine_map<(i) -> (i)>

// FLOATS: output 0:
// FLOATS-NEXT: [3, -3, 1, -0]
// FLOATS: output 1:
// FLOATS-NEXT: [-2.5, 2.5, 0.5, 0.25]
// FLOATS: output 2:
// FLOATS-NEXT: [0, 0, 1, 0]
// FLOATS: output 3:
// FLOATS-NEXT: [1, 1, 0, 0]
// FLOATS: output 4:
// FLOATS-NEXT: [0.000406952, 1.99959, 0.4795, 1.27633]
func.func @floats() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>) {
  %a = arith.constant dense<[2.5, -2.5, 0.5, -0.25]> : tensor<4xf32>
  %b = arith.constant dense<[-0.2, 1.0, 0x7FC00000, 0x7F800000]> : tensor<4xf32>
  %round = math.round %a : tensor<4xf32>
  %sign = math.copysign %a, %b : tensor<4xf32>
  %nan = math.isnan %b : tensor<4xf32>
  %fin = math.isfinite %b : tensor<4xf32>
  %erfc = math.erfc %a : tensor<4xf32>
  return %round, %sign, %nan, %fin, %erfc : tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>
}

// On generated inputs, against the MPI job.
// MPI-E: verified @emitted on target mpi
func.func @emitted(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xi32>) {
  %e = tensor.empty() : tensor<8xf32>
  %ei = tensor.empty() : tensor<8xi32>
  %r:3 = linalg.generic {indexing_maps = [#map, #map, #map, #map, #map, #map], iterator_types = ["parallel"]} ins(%a, %b, %c : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e, %e, %ei : tensor<8xf32>, tensor<8xf32>, tensor<8xi32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %o1: f32, %o2: f32, %o3: i32):
    %f = math.fma %x, %y, %z : f32
    %ten = arith.constant 10.0 : f32
    %big = arith.mulf %x, %ten : f32
    %r = math.round %big : f32
    %s = math.copysign %r, %y : f32
    %abs = math.absf %big : f32
    %u = arith.fptoui %abs : f32 to i32
    linalg.yield %f, %s, %u : f32, f32, i32
  } -> (tensor<8xf32>, tensor<8xf32>, tensor<8xi32>)
  return %r#0, %r#1, %r#2 : tensor<8xf32>, tensor<8xf32>, tensor<8xi32>
}

// i8 held sign-extended: 200 is -56, read unsigned as 200.
// UNSIGNED: output 0:
// UNSIGNED-NEXT: [66, 0, 1, 0]
// UNSIGNED: output 1:
// UNSIGNED-NEXT: [2, 0, 1, 0]
// UNSIGNED: output 2:
// UNSIGNED-NEXT: [-56, 7, 3, 5]
// UNSIGNED: output 3:
// UNSIGNED-NEXT: [3, 0, 2, 0]
// MPI-U: verified @unsigned on target mpi
func.func @unsigned() -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>) {
  %a = arith.constant dense<[-56, 7, 3, 0]> : tensor<4xi8>
  %b = arith.constant dense<[3, 0, 2, 5]> : tensor<4xi8>
  %div = arith.divui %a, %b : tensor<4xi8>
  %rem = arith.remui %a, %b : tensor<4xi8>
  %max = arith.maxui %a, %b : tensor<4xi8>
  %min = arith.minui %a, %b : tensor<4xi8>
  return %div, %rem, %max, %min : tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>
}

// BITS: output 0:
// BITS-NEXT: [0, 5, 7, 8]
// BITS: output 1:
// BITS-NEXT: [7, 0, 0, 8]
// BITS: output 2:
// BITS-NEXT: [1, 2, 1, 0]
// BITS: output 3:
// BITS-NEXT: [43, 0, 1, 0]
// BITS: output 4:
// BITS-NEXT: [87, 1, 9, -1]
func.func @bits() -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>) {
  %a = arith.constant dense<[-128, 5, 1, 0]> : tensor<4xi8>
  %b = arith.constant dense<[3, 0, 2, 5]> : tensor<4xi8>
  %lz = math.ctlz %a : tensor<4xi8>
  %tz = math.cttz %a : tensor<4xi8>
  %pop = math.ctpop %a : tensor<4xi8>
  %cdiv = arith.ceildivui %a, %b : tensor<4xi8>
  %two = arith.constant dense<[7, 2, 3, -1]> : tensor<4xi8>
  %pow = math.ipowi %two, %b : tensor<4xi8>
  return %lz, %tz, %pop, %cdiv, %pow : tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>
}
