// RUN: not dtensor-run %s --entry=never_ends --max-loop-iterations=1000 2>&1 | FileCheck %s --check-prefix=WHILE
// RUN: not dtensor-run %s --entry=long_for --max-loop-iterations=1000 2>&1 | FileCheck %s --check-prefix=FOR
// RUN: dtensor-run %s --entry=long_for --max-loop-iterations=1000000 --print-values 2>&1 | FileCheck %s --check-prefix=OK
// RUN: dtensor-run %s --entry=top_of_range --max-loop-iterations=10 --print-values 2>&1 | FileCheck %s --check-prefix=TOP
// RUN: %if mpi %{ dtensor-run %s --entry=top_of_range --verify --target=mpi 2>&1 | FileCheck %s --check-prefix=MPI %}
// --max-loop-iterations bounds each execution of a loop (the fuzzer runs
// with one: a while loop need not end on the inputs it is given).

// A while loop whose condition never turns false.
func.func @never_ends() -> index {
  %one = arith.constant 1 : index
  %w = scf.while (%v = %one) : (index) -> index {
    %go = arith.cmpi sgt, %v, %one : index
    %t = arith.constant true
    scf.condition(%t) %v : index
  } do {
  ^bb0(%v: index):
    scf.yield %v : index
  }
  return %w : index
}
// WHILE: loop-limit.mlir:[[@LINE-10]]:8: error: 'scf.while' op ran 1000 iterations, the most one loop may run (--max-loop-iterations)

func.func @long_for() -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 5000 : index
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> index {
    %b = arith.addi %a, %c1 : index
    scf.yield %b : index
  }
  return %s : index
}
// FOR: loop-limit.mlir:[[@LINE-6]]:8: error: 'scf.for' op ran 1000 iterations, the most one loop may run (--max-loop-iterations)
// OK: output 0: 5000

// The induction variable's next value is past INT64_MAX: the loop ends
// (two iterations), no signed overflow.
func.func @top_of_range() -> i64 {
  %lb = arith.constant 9223372036854775800 : i64
  %ub = arith.constant 9223372036854775807 : i64
  %st = arith.constant 4 : i64
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %s = scf.for %i = %lb to %ub step %st iter_args(%a = %c0) -> i64 : i64 {
    %b = arith.addi %a, %c1 : i64
    scf.yield %b : i64
  }
  return %s : i64
}
// TOP: output 0: 2
// MPI: verified @top_of_range on target mpi

