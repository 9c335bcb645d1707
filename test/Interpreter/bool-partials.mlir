// RUN: dtensor-run %s --entry xor_rows --verify --print-values | FileCheck %s --check-prefix=XOR
// RUN: dtensor-opt %s --dtensor-compile | FileCheck %s --check-prefix=COMPILED
// RUN: dtensor-run %s --entry bool_terms --print-values | FileCheck %s --check-prefix=TERMS
// RUN: dtensor-run %s --entry max_signed --verify --pipeline dtensor-compile --print-values | FileCheck %s --check-prefix=MAXS
// RUN: dtensor-run %s --entry signed_order --print-values | FileCheck %s --check-prefix=ORDER
// RUN: %if mpi %{ dtensor-run %s --all-entries --verify --pipeline dtensor-compile --target=mpi --quiet | FileCheck %s --check-prefix=MPI %}
//
// Bools (i1) under Partial placements. A bool Partial sum combines as a
// logical or (torch's bool + bool; the runtime's MPI_MAX / ncclMax), so
// an i1 `arith.addi` reduction (a xor, the rows' parity) over a sharded dim
// is no Partial sum: it was compiled to an all_reduce sum, which the
// interpreter computed as the count of trues (4, not an i1) and the MPI job
// as an or ([1,0,1,0] where the parity is [0,0,1,0]). maxsi / minsi read
// true as -1, so they are no Partial max / min either (and the interpreter
// and the emitted C++ read it as +1: maxsi(true, false) gave true). The
// interpreter's bool sum and avg are the or the runtime computes.

dtensor.mesh @mesh shape = [4]

// XOR: ran @xor_rows
// XOR: [0, 0, 1, 0]
// XOR: verified @xor_rows
// COMPILED-LABEL: func.func @xor_rows
// COMPILED-NOT: reduce = sum
// COMPILED: return
func.func @xor_rows(%m: !dtensor.device_mesh<@mesh>) -> tensor<4xi1, #dtensor.spec<@mesh, [R]>> {
  %v = arith.constant dense<[[true, false, true, false, true, false, true, false], [true, true, true, true, false, false, false, false], [true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true]]> : tensor<4x8xi1>
  %x = dtensor.distribute_tensor %v, %m : tensor<4x8xi1>, !dtensor.device_mesh<@mesh> -> tensor<4x8xi1, #dtensor.spec<@mesh, [S(1)]>>
  %f0 = arith.constant false
  %e = tensor.empty() : tensor<4xi1>
  %z = linalg.fill ins(%f0 : i1) outs(%e : tensor<4xi1>) -> tensor<4xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xi1, #dtensor.spec<@mesh, [S(1)]>>) outs(%z : tensor<4xi1>) {
  ^bb0(%a: i1, %o: i1):
    %s = arith.addi %a, %o : i1
    linalg.yield %s : i1
  } -> tensor<4xi1>
  %d = dtensor.distribute_tensor %r, %m : tensor<4xi1>, !dtensor.device_mesh<@mesh> -> tensor<4xi1, #dtensor.spec<@mesh, [R]>>
  return %d : tensor<4xi1, #dtensor.spec<@mesh, [R]>>
}

// MAXS: [0, 0]
// MAXS: verified @max_signed
// COMPILED-LABEL: func.func @max_signed
// COMPILED-NOT: reduce = max
// COMPILED: return
func.func @max_signed(%m: !dtensor.device_mesh<@mesh>) -> tensor<2xi1, #dtensor.spec<@mesh, [R]>> {
  %v = arith.constant dense<[[true, false, false, false, false, false, false, false], [false, false, false, false, false, false, false, false]]> : tensor<2x8xi1>
  %x = dtensor.distribute_tensor %v, %m : tensor<2x8xi1>, !dtensor.device_mesh<@mesh> -> tensor<2x8xi1, #dtensor.spec<@mesh, [S(1)]>>
  %f0 = arith.constant false
  %e = tensor.empty() : tensor<2xi1>
  %z = linalg.fill ins(%f0 : i1) outs(%e : tensor<2xi1>) -> tensor<2xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x8xi1, #dtensor.spec<@mesh, [S(1)]>>) outs(%z : tensor<2xi1>) {
  ^bb0(%a: i1, %o: i1):
    %s = arith.maxsi %a, %o : i1
    linalg.yield %s : i1
  } -> tensor<2xi1>
  %d = dtensor.distribute_tensor %r, %m : tensor<2xi1>, !dtensor.device_mesh<@mesh> -> tensor<2xi1, #dtensor.spec<@mesh, [R]>>
  return %d : tensor<2xi1, #dtensor.spec<@mesh, [R]>>
}

// Each rank's local bools as the terms of a Partial, then replicated:
// rank 0 [1,0,1,0], rank 1 [0,0,1,1], rank 2 [1,0,1,0], rank 3 [1,0,0,0].
// sum, avg and max are an or, min and product an and.
// TERMS: ran @bool_terms
// TERMS: output 0:
// TERMS-NEXT: [1, 0, 1, 1]
// TERMS: output 1:
// TERMS-NEXT: [1, 0, 1, 1]
// TERMS: output 2:
// TERMS-NEXT: [1, 0, 1, 1]
// TERMS: output 3:
// TERMS-NEXT: [0, 0, 0, 0]
// TERMS: output 4:
// TERMS-NEXT: [0, 0, 0, 0]
// MPI: verified 4 of 4 function(s)
func.func @bool_terms(%m: !dtensor.device_mesh<@mesh>)
    -> (tensor<4xi1, #dtensor.spec<@mesh, [R]>>, tensor<4xi1, #dtensor.spec<@mesh, [R]>>,
        tensor<4xi1, #dtensor.spec<@mesh, [R]>>, tensor<4xi1, #dtensor.spec<@mesh, [R]>>,
        tensor<4xi1, #dtensor.spec<@mesh, [R]>>) {
  %v = arith.constant dense<[true, false, true, false, false, false, true, true, true, false, true, false, true, false, false, false]> : tensor<16xi1>
  %x = dtensor.distribute_tensor %v, %m : tensor<16xi1>, !dtensor.device_mesh<@mesh> -> tensor<16xi1, #dtensor.spec<@mesh, [S(0)]>>
  %l = dtensor.to_local %x : tensor<16xi1, #dtensor.spec<@mesh, [S(0)]>> -> tensor<4xi1>
  %ps = dtensor.from_local %l, %m : tensor<4xi1>, !dtensor.device_mesh<@mesh> -> tensor<4xi1, #dtensor.spec<@mesh, [P(sum)]>>
  %rs = dtensor.redistribute %ps, %m : tensor<4xi1, #dtensor.spec<@mesh, [P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<4xi1, #dtensor.spec<@mesh, [R]>>
  %pa = dtensor.from_local %l, %m : tensor<4xi1>, !dtensor.device_mesh<@mesh> -> tensor<4xi1, #dtensor.spec<@mesh, [P(avg)]>>
  %ra = dtensor.redistribute %pa, %m : tensor<4xi1, #dtensor.spec<@mesh, [P(avg)]>>, !dtensor.device_mesh<@mesh> -> tensor<4xi1, #dtensor.spec<@mesh, [R]>>
  %px = dtensor.from_local %l, %m : tensor<4xi1>, !dtensor.device_mesh<@mesh> -> tensor<4xi1, #dtensor.spec<@mesh, [P(max)]>>
  %rx = dtensor.redistribute %px, %m : tensor<4xi1, #dtensor.spec<@mesh, [P(max)]>>, !dtensor.device_mesh<@mesh> -> tensor<4xi1, #dtensor.spec<@mesh, [R]>>
  %pn = dtensor.from_local %l, %m : tensor<4xi1>, !dtensor.device_mesh<@mesh> -> tensor<4xi1, #dtensor.spec<@mesh, [P(min)]>>
  %rn = dtensor.redistribute %pn, %m : tensor<4xi1, #dtensor.spec<@mesh, [P(min)]>>, !dtensor.device_mesh<@mesh> -> tensor<4xi1, #dtensor.spec<@mesh, [R]>>
  %pp = dtensor.from_local %l, %m : tensor<4xi1>, !dtensor.device_mesh<@mesh> -> tensor<4xi1, #dtensor.spec<@mesh, [P(product)]>>
  %rp = dtensor.redistribute %pp, %m : tensor<4xi1, #dtensor.spec<@mesh, [P(product)]>>, !dtensor.device_mesh<@mesh> -> tensor<4xi1, #dtensor.spec<@mesh, [R]>>
  return %rs, %ra, %rx, %rn, %rp : tensor<4xi1, #dtensor.spec<@mesh, [R]>>, tensor<4xi1, #dtensor.spec<@mesh, [R]>>,
      tensor<4xi1, #dtensor.spec<@mesh, [R]>>, tensor<4xi1, #dtensor.spec<@mesh, [R]>>,
      tensor<4xi1, #dtensor.spec<@mesh, [R]>>
}

// maxsi, minsi, slt, sge of i1: true is -1.
// ORDER: output 0:
// ORDER-NEXT: [0, 0, 1, 0]
// ORDER: output 1:
// ORDER-NEXT: [1, 1, 1, 0]
// ORDER: output 2:
// ORDER-NEXT: [1, 0, 0, 0]
// ORDER: output 3:
// ORDER-NEXT: [0, 1, 1, 1]
#id = affine_map<(i) -> (i)>
func.func @signed_order() -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %a = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
  %b = arith.constant dense<[false, true, true, false]> : tensor<4xi1>
  %e = tensor.empty() : tensor<4xi1>
  %r:4 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]}
     ins(%a, %b : tensor<4xi1>, tensor<4xi1>) outs(%e, %e, %e, %e : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  ^bb0(%x: i1, %y: i1, %o1: i1, %o2: i1, %o3: i1, %o4: i1):
    %1 = arith.maxsi %x, %y : i1
    %2 = arith.minsi %x, %y : i1
    %3 = arith.cmpi slt, %x, %y : i1
    %4 = arith.cmpi sge, %x, %y : i1
    linalg.yield %1, %2, %3, %4 : i1, i1, i1, i1
  } -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}
