// RUN: dtensor-run %s --entry mul_tensor --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=MUL
// RUN: dtensor-run %s --entry div_partial --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=DIV
// RUN: dtensor-run %s --entry max_exp --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=MAX
// RUN: dtensor-run %s --entry int_max_plus --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=INT
// RUN: dtensor-opt %s --dtensor-propagate --dtensor-insert-redistribute | FileCheck %s --check-prefix=IR
// RUN: %if mpi %{ dtensor-run %s --entry mul_tensor --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPI %}
// Partials through element-wise ops, as SEMANTICS.md's pointwise rules say
// (DTensor's): a P(sum) times or divided by a replicated tensor stays
// P(sum), and ops that do not decrease (exp, adding a replicated value, max
// with one) keep a P(max). Each saved a collective: mul_tensor was a
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
// A row max over a sharded dim is P(max); exp and adding a replicated
// tensor keep it, so the all_reduce(max) runs once at the end.
func.func @max_exp(%m: !dtensor.device_mesh<@mesh>,
  %x: tensor<4x8xf32, #dtensor.spec<@mesh, [S(1)]>>,
  %b0: tensor<4xf32, #dtensor.spec<@mesh, [R]>>)
  -> (tensor<4xf32, #dtensor.spec<@mesh, [R]>>, tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>) {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %mx = linalg.reduce ins(%x : tensor<4x8xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %r = arith.maximumf %a, %acc : f32
      linalg.yield %r : f32
    }
  %eb = tensor.empty() : tensor<4xf32>
  %b = linalg.copy ins(%b0 : tensor<4xf32, #dtensor.spec<@mesh, [R]>>) outs(%eb : tensor<4xf32>) -> tensor<4xf32>
  %ex = math.exp %mx : tensor<4xf32>
  %y = arith.addf %ex, %b : tensor<4xf32>
  %c = arith.constant dense<0.5> : tensor<4xf32>
  %z = arith.maximumf %y, %c : tensor<4xf32>
  %r1 = dtensor.distribute_tensor %z, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [R]>>
  %r2 = dtensor.distribute_tensor %z, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>
  return %r1, %r2 : tensor<4xf32, #dtensor.spec<@mesh, [R]>>, tensor<4xf32, #dtensor.spec<@mesh, [P(max)]>>
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
