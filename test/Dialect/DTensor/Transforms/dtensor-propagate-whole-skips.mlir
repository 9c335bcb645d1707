// RUN: dtensor-opt %s --dtensor-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s
// RUN: dtensor-run %s --entry deep --verify --pipeline dtensor-compile | FileCheck %s --check-prefix=RAN
// RUN: not dtensor-run %s --entry recursive 2>&1 | FileCheck %s --check-prefix=REFUSED

// Whole-function optimization (issue 14) over calls: what it leaves to the
// plan, with the reason in explain.

dtensor.mesh @mesh shape = [4]

// A private callee that calls itself (with plain operands, returning a plain
// value: recursion through distributed values is an error,
// dtensor-propagate-invalid.mlir) leaves the function to the plan.
// CHECK: dtensor-propagate: @recursive: whole-function optimization skipped: @rec is recursive
// The interpreter does not run a function inside itself (its values live in
// one environment): an error at the call, where it used to recurse until the
// stack overflowed (a fuzz smoke run found it).
// REFUSED: error: 'func.call' op calls @rec recursively, which the interpreter does not run
func.func private @rec(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %z = tensor.empty() : tensor<8x16xf32>
  %r = func.call @rec(%m, %z) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func @recursive(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32, #dtensor.spec<@mesh, [S(1)]>>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @rec(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r, %t : tensor<8x16xf32>, tensor<8x16xf32>
}

// Calls nested 17 deep (@deep calls @d1, which calls @d2, ... @d17): past
// the model's 16 levels, the plan decides.
// RAN: verified @deep: 1 output(s) of the compiled program match the original on 4 rank(s)
// CHECK: dtensor-propagate: @deep: whole-function optimization skipped: calls nest deeper than 16
func.func private @d17(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %t : tensor<8x16xf32>
}
func.func private @d16(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d17(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func private @d15(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d16(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func private @d14(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d15(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func private @d13(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d14(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func private @d12(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d13(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func private @d11(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d12(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func private @d10(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d11(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func private @d9(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d10(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func private @d8(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d9(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func private @d7(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d8(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func private @d6(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d7(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func private @d5(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d6(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func private @d4(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d5(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func private @d3(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d4(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func private @d2(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d3(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func private @d1(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d2(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
func.func @deep(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x16xf32, #dtensor.spec<@mesh, [S(1)]>>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.negf ins(%x : tensor<8x16xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = func.call @d1(%m, %t) : (!dtensor.device_mesh<@mesh>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
