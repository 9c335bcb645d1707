// RUN: dtensor-run %s --entry mul_tensor --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=MUL
// RUN: dtensor-run %s --entry div_partial --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=DIV
// RUN: dtensor-run %s --entry max_exp --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=MAX
// RUN: dtensor-run %s --entry int_max_plus --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=INT
// RUN: dtensor-run %s --entry max_plus_inf --verify --pipeline dtensor-compile --print-values | FileCheck %s --check-prefix=PLUSINF
// RUN: %if mpi %{ dtensor-run %s --entry max_plus_inf --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPIINF %}
// RUN: dtensor-opt %s --dtensor-propagate --dtensor-insert-redistribute | FileCheck %s --check-prefix=IR
// RUN: %if mpi %{ dtensor-run %s --entry mul_tensor --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPI %}
// Partials through element-wise ops, as SEMANTICS.md's pointwise rules say
// (DTensor's): a P(sum) times or divided by a replicated tensor stays
// P(sum), and ops that do not decrease (exp, adding a finite constant, max
// with a replicated value) keep a P(max). Each saved a collective: mul_tensor was a
// reduce_scatter (120 B/rank), now none (div_partial likewise); max_exp
// gathered and reduce-scattered (2 collectives, 32 B), now one
// all_reduce(max) of 16 B. (Where a rule is not exact for the program's
// types: partial-elementwise-exact.mlir.)

dtensor.mesh @mesh shape = [2] names = ["tp"]

// A tensor-level arith.mulf of a Partial and a replicated tensor: its
// operands need different specs, which one arith op cannot hold; it becomes
// a linalg.generic.
// MUL: verified @mul_tensor: 1 output(s)
// MUL: communication: 0 collectives, 0 bytes/rank
// MPI: verified @mul_tensor on target mpi
// IR-LABEL: func.func @mul_tensor
// IR: linalg.generic
// IR-SAME: ins(%{{.*}}, %{{.*}} : tensor<6x5xf32, #dtensor.spec<@mesh, [P(sum)]>>, tensor<6x5xf32, #dtensor.spec<@mesh, [R]>>)
// IR: arith.mulf %{{.*}}, %{{.*}} : f32
func.func @mul_tensor(%m: !dtensor.device_mesh<@mesh>,
  %x: tensor<6x4xf32, #dtensor.spec<@mesh, [S(1)]>>,
  %w: tensor<4x5xf32, #dtensor.spec<@mesh, [S(0)]>>,
  %s0: tensor<6x5xf32, #dtensor.spec<@mesh, [R]>>)
  -> tensor<6x5xf32, #dtensor.spec<@mesh, [P(sum)]>> {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<6x5xf32>
  %s = linalg.copy ins(%s0 : tensor<6x5xf32, #dtensor.spec<@mesh, [R]>>) outs(%es : tensor<6x5xf32>) -> tensor<6x5xf32>
  %e1 = tensor.empty() : tensor<6x5xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<6x5xf32>) -> tensor<6x5xf32>
  %h = linalg.matmul ins(%x, %w : tensor<6x4xf32, #dtensor.spec<@mesh, [S(1)]>>, tensor<4x5xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%z1 : tensor<6x5xf32>) -> tensor<6x5xf32>
  %d = arith.mulf %h, %s : tensor<6x5xf32>
  %dd = dtensor.distribute_tensor %d, %m : tensor<6x5xf32>, !dtensor.device_mesh<@mesh> -> tensor<6x5xf32, #dtensor.spec<@mesh, [P(sum)]>>
  return %dd : tensor<6x5xf32, #dtensor.spec<@mesh, [P(sum)]>>
}

// DIV: verified @div_partial: 1 output(s)
// DIV: communication: 0 collectives, 0 bytes/rank
// A P(sum) divided by a replicated tensor (tensor-level arith.divf).
func.func @div_partial(%m: !dtensor.device_mesh<@mesh>,
  %x: tensor<6x4xf32, #dtensor.spec<@mesh, [S(1)]>>,
  %w: tensor<4x5xf32, #dtensor.spec<@mesh, [S(0)]>>,
  %s0: tensor<6x5xf32, #dtensor.spec<@mesh, [R]>>)
  -> tensor<6x5xf32, #dtensor.spec<@mesh, [P(sum)]>> {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<6x5xf32>
  %s = linalg.copy ins(%s0 : tensor<6x5xf32, #dtensor.spec<@mesh, [R]>>) outs(%es : tensor<6x5xf32>) -> tensor<6x5xf32>
  %two = arith.constant dense<2.0> : tensor<6x5xf32>
  %s2 = arith.addf %s, %two : tensor<6x5xf32>
  %e1 = tensor.empty() : tensor<6x5xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<6x5xf32>) -> tensor<6x5xf32>
  %h = linalg.matmul ins(%x, %w : tensor<6x4xf32, #dtensor.spec<@mesh, [S(1)]>>, tensor<4x5xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%z1 : tensor<6x5xf32>) -> tensor<6x5xf32>
  %d = arith.divf %h, %s2 : tensor<6x5xf32>
  %dd = dtensor.distribute_tensor %d, %m : tensor<6x5xf32>, !dtensor.device_mesh<@mesh> -> tensor<6x5xf32, #dtensor.spec<@mesh, [P(sum)]>>
  return %dd : tensor<6x5xf32, #dtensor.spec<@mesh, [P(sum)]>>
}

// MAX: verified @max_exp: 2 output(s)
// MAX: communication: 1 collective, 16 bytes/rank
// MAX-NEXT: all_reduce 1 16 bytes
// A row max over a sharded dim is P(max); exp and adding a finite constant
// keep it, so the all_reduce(max) runs once at the end. (Adding a
// replicated tensor does not: @max_plus_inf.)
func.func @max_exp(%m: !dtensor.device_mesh<@mesh>,
  %x: tensor<4x8xf32, #dtensor.spec<@mesh, [S(1)]>>)
  -> (tensor<4xf32, #dtensor.spec<@mesh, [R]>>, tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>) {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %mx = linalg.reduce ins(%x : tensor<4x8xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %r = arith.maximumf %a, %acc : f32
      linalg.yield %r : f32
    }
  %b = arith.constant dense<[1.5, -2.0, 0.0, 3.0e38]> : tensor<4xf32>
  %ex = math.exp %mx : tensor<4xf32>
  %y = arith.addf %ex, %b : tensor<4xf32>
  %c = arith.constant dense<0.5> : tensor<4xf32>
  %z = arith.maximumf %y, %c : tensor<4xf32>
  %r1 = dtensor.distribute_tensor %z, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [R]>>
  %r2 = dtensor.distribute_tensor %z, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>
  return %r1, %r2 : tensor<4xf32, #dtensor.spec<@mesh, [R]>>, tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>
}

// A P(max) plus a replicated tensor is reduced first: max_i(a_i + c) is not
// max_i(a_i) + c where c is +inf and some term (not all) is -inf (an empty
// shard's term is its init, -inf): that rank's term is NaN, and a NaN term
// wins. Found by probing: the compiled program gave NaN where the global
// one gives inf. Terms per rank (rows of the table): [-inf, 5], [-inf,
// -inf], [1, 3], [2, inf]; plus [inf, 1, inf, -inf].
// PLUSINF: [inf, -inf, inf, {{-?}}nan]
// PLUSINF: verified @max_plus_inf: 1 output(s)
// MPIINF: verified @max_plus_inf on target mpi
func.func @max_plus_inf(%m: !dtensor.device_mesh<@mesh>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %r = dtensor.mesh_coord %m mesh_dims = [0] : !dtensor.device_mesh<@mesh> -> index
  %first = arith.cmpi eq, %r, %c0 : index
  %a = arith.constant dense<[0xFF800000, 0xFF800000, 1.0, 2.0]> : tensor<4xf32>
  %b = arith.constant dense<[5.0, 0xFF800000, 3.0, 0x7F800000]> : tensor<4xf32>
  %t = arith.select %first, %a, %b : tensor<4xf32>
  %p = dtensor.from_local %t, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>
  %cv = arith.constant dense<[0x7F800000, 1.0, 0x7F800000, 0xFF800000]> : tensor<4xf32>
  %c = dtensor.distribute_tensor %cv, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [R]>>
  %e = tensor.empty() : tensor<4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%p, %c : tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>, tensor<4xf32, #dtensor.spec<@mesh, [R]>>) outs(%e : tensor<4xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %w = arith.addf %u, %v : f32
    linalg.yield %w : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// An i8 P(max) plus a constant wraps (127 + 1 = -128): max does not
// commute with it, so the Partial is reduced first.
// INT: verified @int_max_plus: 1 output(s)
// INT: communication: 1 collective
func.func @int_max_plus(%m: !dtensor.device_mesh<@mesh>,
  %x: tensor<4x8xi8, #dtensor.spec<@mesh, [S(1)]>>)
  -> tensor<4xi8, #dtensor.spec<@mesh, [R]>> {
  %lo = arith.constant -128 : i8
  %e = tensor.empty() : tensor<4xi8>
  %f = linalg.fill ins(%lo : i8) outs(%e : tensor<4xi8>) -> tensor<4xi8>
  %mx = linalg.reduce ins(%x : tensor<4x8xi8, #dtensor.spec<@mesh, [S(1)]>>) outs(%f : tensor<4xi8>) dimensions = [1]
    (%a: i8, %acc: i8) {
      %r = arith.maxsi %a, %acc : i8
      linalg.yield %r : i8
    }
  %c = arith.constant dense<3> : tensor<4xi8>
  %y = arith.addi %mx, %c : tensor<4xi8>
  %r1 = dtensor.distribute_tensor %y, %m : tensor<4xi8>, !dtensor.device_mesh<@mesh> -> tensor<4xi8, #dtensor.spec<@mesh, [R]>>
  return %r1 : tensor<4xi8, #dtensor.spec<@mesh, [R]>>
}
