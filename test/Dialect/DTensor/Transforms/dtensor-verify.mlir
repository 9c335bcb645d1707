// RUN: split-file --leading-lines %s %t
// RUN: dtensor-opt %t/invalid.mlir -split-input-file --dtensor-verify -verify-diagnostics
// Every pass that computes layouts runs the same check first, so none of them
// relies on IR that the parser accepts but nothing has verified:
// RUN: dtensor-opt %t/invalid.mlir -split-input-file --dtensor-normalize-specs -verify-diagnostics
// RUN: dtensor-opt %t/invalid.mlir -split-input-file --dtensor-propagate -verify-diagnostics
// RUN: dtensor-opt %t/invalid.mlir -split-input-file --dtensor-insert-redistribute -verify-diagnostics
// RUN: dtensor-opt %t/invalid.mlir -split-input-file --dtensor-partition -verify-diagnostics
// RUN: dtensor-opt %t/invalid.mlir -split-input-file --dtensor-lower-redistribute -verify-diagnostics
// RUN: dtensor-opt %t/invalid.mlir -split-input-file --dtensor-print-layout -verify-diagnostics
// RUN: dtensor-opt %t/invalid.mlir -split-input-file --dtensor-comm-report -verify-diagnostics
// RUN: dtensor-opt %t/invalid.mlir -split-input-file --dtensor-compile -verify-diagnostics
// RUN: dtensor-opt %t/invalid.mlir -split-input-file --dtensor-narrow-moves -verify-diagnostics
// RUN: dtensor-opt %t/invalid.mlir -split-input-file --dtensor-mask-lookups -verify-diagnostics
// RUN: dtensor-opt %t/invalid.mlir -split-input-file --dtensor-optimize-collectives -verify-diagnostics
// RUN: dtensor-opt %t/invalid.mlir -split-input-file --dtensor-bucket-collectives -verify-diagnostics
// RUN: dtensor-opt %t/invalid.mlir -split-input-file --dtensor-schedule-async -verify-diagnostics
// RUN: dtensor-opt %t/attrs.mlir -split-input-file --dtensor-insert-redistribute -verify-diagnostics
// RUN: dtensor-opt %t/valid.mlir --dtensor-verify | FileCheck %t/valid.mlir
// RUN: dtensor-opt %t/valid.mlir --dtensor-verify --mlir-print-op-generic | dtensor-opt --dtensor-verify | FileCheck %t/valid.mlir

// --dtensor-verify checks every #dtensor.spec encoding and every
// !dtensor.device_mesh handle on any value (function arguments and results,
// results of upstream ops, block arguments of nested regions) against its
// mesh symbol, where no dtensor op verifies it.

//--- invalid.mlir

// An undeclared mesh on a function argument.
// expected-error@+1 {{in type 'tensor<16x8xf32, #dtensor.spec<@nomesh, [S(0), R]>>': mesh @nomesh is not declared; add `dtensor.mesh @nomesh shape = [...]` to the module}}
func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@nomesh, [S(0), R]>>) {
  return
}

// -----

// An undeclared mesh on a handle; the symbol names a function, not a mesh.
func.func private @g()
// expected-error@+1 {{in type '!dtensor.device_mesh<@g>': mesh @g is not declared}}
func.func @f(%m: !dtensor.device_mesh<@g>) {
  return
}

// -----

// Wrong placement count on a function argument.
dtensor.mesh @mesh shape = [2, 4]
// expected-error@+1 {{in type 'tensor<16x8xf32, #dtensor.spec<@mesh, [S(0)]>>': spec #dtensor.spec<@mesh, [S(0)]> on mesh shape 2x4: placements [S(0)] has 1 placement(s) but the mesh has 2 dim(s); give exactly one placement per mesh dim}}
func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0)]>>) {
  return
}

// -----

// Wrong placement count for a view: a sub-mesh of one dim takes one placement.
dtensor.mesh @mesh shape = [2, 4]
// expected-error@+1 {{in type 'tensor<16x8xf32, #dtensor.spec<@mesh[1], [S(0), R]>>': spec #dtensor.spec<@mesh[1], [S(0), R]> on mesh shape 4: placements [S(0), R] has 2 placement(s) but the mesh has 1 dim(s)}}
func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@mesh[1], [S(0), R]>>) {
  return
}

// -----

// A view dim out of range on a handle argument.
dtensor.mesh @mesh shape = [2, 4]
// expected-error@+1 {{in type '!dtensor.device_mesh<@mesh[2]>': mesh dim 2 does not exist: mesh @mesh has 2 dim(s)}}
func.func @f(%m: !dtensor.device_mesh<@mesh[2]>) {
  return
}

// -----

// A view dim out of range inside a flattened view of a spec.
dtensor.mesh @mesh shape = [2, 4]
// expected-error@+1 {{in type 'tensor<16x8xf32, #dtensor.spec<@mesh[(1, 3)], [S(0)]>>': mesh dim 3 does not exist: mesh @mesh has 2 dim(s)}}
func.func @f(%x: tensor<16x8xf32, #dtensor.spec<@mesh[(1, 3)], [S(0)]>>) {
  return
}

// -----

// A view of every dim of the mesh, on a function declaration.
dtensor.mesh @mesh shape = [2, 4]
// expected-error@+1 {{in type '!dtensor.device_mesh<@mesh[0, 1]>': a view of every dim of @mesh in order is the mesh itself: write @mesh without dims}}
func.func private @decl(!dtensor.device_mesh<@mesh[0, 1]>)

// -----

// A function result.
dtensor.mesh @mesh shape = [2, 4]
// expected-error@+1 {{in type 'tensor<16x8xf32, #dtensor.spec<@mesh, [R, R, R]>>': spec #dtensor.spec<@mesh, [R, R, R]> on mesh shape 2x4: placements [R, R, R] has 3 placement(s) but the mesh has 2 dim(s)}}
func.func private @decl() -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, R, R]>>

// -----

// The result of an upstream op.
dtensor.mesh @mesh shape = [2, 4]
func.func @f() {
  // expected-error@+1 {{in type 'tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R, R]>>': spec #dtensor.spec<@mesh, [S(0), R, R]> on mesh shape 2x4: placements [S(0), R, R] has 3 placement(s) but the mesh has 2 dim(s)}}
  %0 = tensor.empty() : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R, R]>>
  return
}

// -----

// An op nested in a region.
dtensor.mesh @mesh shape = [2, 4]
func.func @f(%c: i1) {
  scf.if %c {
    // expected-error@+1 {{in type 'tensor<16x8xf32, #dtensor.spec<@mesh[1], [R, R]>>': spec #dtensor.spec<@mesh[1], [R, R]> on mesh shape 4: placements [R, R] has 2 placement(s) but the mesh has 1 dim(s)}}
    %0 = tensor.empty() : tensor<16x8xf32, #dtensor.spec<@mesh[1], [R, R]>>
  }
  return
}

// -----

// A loop carrying a bad handle: reported at the function (its argument) and at
// the loop (its result and region argument, once).
dtensor.mesh @mesh shape = [2, 4]
// expected-error@+1 {{in type '!dtensor.device_mesh<@mesh[5]>': mesh dim 5 does not exist: mesh @mesh has 2 dim(s)}}
func.func @f(%m: !dtensor.device_mesh<@mesh[5]>, %lb: index, %ub: index, %step: index) {
  // expected-error@+1 {{in type '!dtensor.device_mesh<@mesh[5]>': mesh dim 5 does not exist: mesh @mesh has 2 dim(s)}}
  %r = scf.for %i = %lb to %ub step %step iter_args(%a = %m) -> (!dtensor.device_mesh<@mesh[5]>) {
    scf.yield %a : !dtensor.device_mesh<@mesh[5]>
  }
  return
}

// -----

// One diagnostic per distinct type and op, however many values carry it; each
// op holding a bad type gets its own.
dtensor.mesh @mesh shape = [2, 4]
// expected-error@+1 {{in type 'tensor<8xf32, #dtensor.spec<@mesh, [R]>>': spec #dtensor.spec<@mesh, [R]> on mesh shape 2x4}}
func.func @f(%a: tensor<8xf32, #dtensor.spec<@mesh, [R]>>, %b: tensor<8xf32, #dtensor.spec<@mesh, [R]>>)
    -> tensor<8xf32, #dtensor.spec<@mesh, [R]>> {
  // expected-error@+1 {{in type 'tensor<8xf32, #dtensor.spec<@mesh, [R]>>': spec #dtensor.spec<@mesh, [R]> on mesh shape 2x4}}
  %0 = tensor.empty() : tensor<8xf32, #dtensor.spec<@mesh, [R]>>
  return %0 : tensor<8xf32, #dtensor.spec<@mesh, [R]>>
}

// -----

// An integer mean over two mesh dims truncates at each reduction: its value
// would depend on the plan (found by probing). Over one mesh dim, or of
// floats, it is fine.
dtensor.mesh @mesh shape = [2, 3]
func.func @int_avg(%m: !dtensor.device_mesh<@mesh>, %a: tensor<6xi32, #dtensor.spec<@mesh, [P(avg), R]>>, %b: tensor<6xf32, #dtensor.spec<@mesh, [P(avg), P(avg)]>>) {
  // expected-error@+1 {{in type 'tensor<6xi32, #dtensor.spec<@mesh, [P(avg), P(avg)]>>': an integer Partial(avg) over more than one mesh dim has no value of its own}}
  %0 = tensor.empty() : tensor<6xi32, #dtensor.spec<@mesh, [P(avg), P(avg)]>>
  return
}

// -----

// Valid: nothing to report.
dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh[(0, 1)]>, %x: tensor<16x8xf32, #dtensor.spec<@mesh[(0, 1)], [S(0)]>>) {
  %0 = tensor.empty() : tensor<16x8xf32, #dtensor.spec<@mesh, [P(sum), S(1)]>>
  return
}

//--- attrs.mlir

// Propagation's attributes are input to dtensor-insert-redistribute too: one
// entry per value, each a spec valid for it or a unit.
dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-error@+1 {{'dtensor.operand_specs' has 1 entries for 2 operands}}
  %r = linalg.copy ins(%x : tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<8xf32>) {dtensor.operand_specs = [#dtensor.spec<@mesh, [S(0), R]>]} -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-error@+1 {{in 'dtensor.result_specs' entry 0: spec #dtensor.spec<@mesh, [S(0)]> on mesh shape 2x4: placements [S(0)] has 1 placement(s) but the mesh has 2 dim(s)}}
  %r = linalg.copy ins(%x : tensor<8xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<8xf32>) {dtensor.result_specs = [#dtensor.spec<@mesh, [S(0)]>]} -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 4]
// expected-error@+1 {{'dtensor.arg_specs' entry 1 must be a #dtensor.spec or unit, not 3 : i64}}
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32>) -> tensor<8xf32> attributes {dtensor.arg_specs = [unit, 3]} {
  return %x : tensor<8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 4]
// expected-error@+1 {{'dtensor.result_specs' gives a spec to result 0, which is not a ranked tensor}}
func.func private @g(%m: !dtensor.device_mesh<@mesh>) -> f32 attributes {dtensor.result_specs = [#dtensor.spec<@nomesh, [R]>]}

// -----

dtensor.mesh @mesh shape = [2, 4]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'dtensor.arg_specs' belongs on a function or an scf.while}}
  %e = tensor.empty() {dtensor.arg_specs = []} : tensor<8xf32>
  return %e : tensor<8xf32>
}

//--- valid.mlir

// The pass leaves valid IR unchanged.

// CHECK: dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
// CHECK-NEXT: dtensor.mesh @cube shape = [2, 3, 2]
dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
dtensor.mesh @cube shape = [2, 3, 2]

// CHECK-LABEL: func.func @args
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[TP:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh[1]>, %[[F:[a-z0-9_]+]]: !dtensor.device_mesh<@cube[(0, 2)]>, %[[X:[a-z0-9_]+]]: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, %[[Y:[a-z0-9_]+]]: tensor<16x8xf32, #dtensor.spec<@cube[0, 2], [S(0)[1], S(0)[0]]>>)
// CHECK-SAME: -> tensor<16x8xf32, #dtensor.spec<@mesh[1], [P(max)]>>
func.func @args(%m: !dtensor.device_mesh<@mesh>, %tp: !dtensor.device_mesh<@mesh[1]>,
                %f: !dtensor.device_mesh<@cube[(0, 2)]>,
                %x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
                %y: tensor<16x8xf32, #dtensor.spec<@cube[0, 2], [S(0)[1], S(0)[0]]>>)
    -> tensor<16x8xf32, #dtensor.spec<@mesh[1], [P(max)]>> {
  // CHECK: %[[E:.+]] = tensor.empty() : tensor<16x8xf32, #dtensor.spec<@mesh[1], [P(max)]>>
  %0 = tensor.empty() : tensor<16x8xf32, #dtensor.spec<@mesh[1], [P(max)]>>
  // CHECK-NEXT: return %[[E]]
  return %0 : tensor<16x8xf32, #dtensor.spec<@mesh[1], [P(max)]>>
}

// CHECK-LABEL: func.func private @decl(tensor<4x6x8xf32, #dtensor.spec<@cube, [R, S(-1), P(avg)]>>, !dtensor.device_mesh<@cube[(0, 1, 2)]>) -> tensor<4x6x8xf32, #dtensor.spec<@cube[(0, 1, 2)], [S(0)]>>{{$}}
func.func private @decl(tensor<4x6x8xf32, #dtensor.spec<@cube, [R, S(-1), P(avg)]>>, !dtensor.device_mesh<@cube[(0, 1, 2)]>)
    -> tensor<4x6x8xf32, #dtensor.spec<@cube[(0, 1, 2)], [S(0)]>>
