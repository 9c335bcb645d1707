// RUN: not dtensor-run %s 2>&1 | FileCheck %s
// An unsigned comparison would run as a signed one: an error.
func.func @unsigned_loop() -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant -1 : index
  %s = scf.for unsigned %i = %c0 to %n step %c1 iter_args(%a = %c0) -> index {
    %b = arith.addi %a, %c1 : index
    scf.yield %b : index
  }
  return %s : index
}
// CHECK: unsigned-loop.mlir:[[@LINE-6]]:8: error: 'scf.for' op compares its bounds unsigned, which is not supported
