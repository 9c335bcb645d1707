// RUN: dtensor-run %s --all-entries --verify --print-values | FileCheck %s
// RUN: dtensor-run %s --all-entries --verify --quiet --pipeline='dtensor-compile{whole-function-ops=0}' | FileCheck %s --check-prefix=GREEDY
// RUN: %if mpi %{ dtensor-run %s --all-entries --verify --target=mpi --quiet | FileCheck %s --check-prefix=MPI %}
//
// A reduction over a sharded dim into an init whose Partial terms
// partitioning cannot make: an integer sum into a value (its share would be
// the value divided by the group size) or a fill of a nonzero value, a
// product into a value or a fill other than 0 and 1 (an n-th root). Both
// propagation's greedy analysis and its whole-function model chose the
// Partial strategy anyway and partition then refused the program ("cannot
// distribute integer tensor ... to a Partial(sum)", "cannot redistribute R
// to P(product)", "fills an integer P(sum) value with a nonzero value",
// "cannot fill a P(product) value with anything but the constants 0 or 1");
// an integer R -> P(sum) was priced as a local divide. Now such inits are no
// strategy and the reduced dim is gathered.

// CHECK-LABEL: ran @int_sum_into_value
// CHECK: {{^}}110
// CHECK-LABEL: ran @product_into_value
// CHECK: {{^}}2400
// CHECK-LABEL: ran @int_sum_fill
// CHECK: {{^}}111
// CHECK-LABEL: ran @product_fill
// CHECK: {{^}}48
// CHECK-LABEL: ran @int_sum_replicated_init
// CHECK: {{^}}[17, 27]
// CHECK: verified 5 of 5 function(s)
// GREEDY: verified 5 of 5 function(s)
// MPI: verified 5 of 5 function(s)

dtensor.mesh @m shape = [2]

func.func @int_sum_into_value(%mh: !dtensor.device_mesh<@m>) -> tensor<i32> {
  %v = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %x = dtensor.distribute_tensor %v, %mh : tensor<4xi32>, !dtensor.device_mesh<@m>
      -> tensor<4xi32, #dtensor.spec<@m, [S(0)]>>
  %y = arith.constant dense<100> : tensor<i32>
  %r = linalg.reduce ins(%x : tensor<4xi32, #dtensor.spec<@m, [S(0)]>>) outs(%y : tensor<i32>) dimensions = [0]
    (%in: i32, %acc: i32) {
      %s = arith.addi %in, %acc : i32
      linalg.yield %s : i32
    }
  return %r : tensor<i32>
}

func.func @product_into_value(%mh: !dtensor.device_mesh<@m>) -> tensor<f32> {
  %v = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %x = dtensor.distribute_tensor %v, %mh : tensor<4xf32>, !dtensor.device_mesh<@m>
      -> tensor<4xf32, #dtensor.spec<@m, [S(0)]>>
  %y = arith.constant dense<100.0> : tensor<f32>
  %r = linalg.reduce ins(%x : tensor<4xf32, #dtensor.spec<@m, [S(0)]>>) outs(%y : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.mulf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

func.func @int_sum_fill(%mh: !dtensor.device_mesh<@m>) -> tensor<i32> {
  %v = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %x = dtensor.distribute_tensor %v, %mh : tensor<4xi32>, !dtensor.device_mesh<@m>
      -> tensor<4xi32, #dtensor.spec<@m, [S(0)]>>
  %c = arith.constant 101 : i32
  %e = tensor.empty() : tensor<i32>
  %z = linalg.fill ins(%c : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %r = linalg.reduce ins(%x : tensor<4xi32, #dtensor.spec<@m, [S(0)]>>) outs(%z : tensor<i32>) dimensions = [0]
    (%in: i32, %acc: i32) {
      %s = arith.addi %in, %acc : i32
      linalg.yield %s : i32
    }
  return %r : tensor<i32>
}

func.func @product_fill(%mh: !dtensor.device_mesh<@m>) -> tensor<f32> {
  %v = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %x = dtensor.distribute_tensor %v, %mh : tensor<4xf32>, !dtensor.device_mesh<@m>
      -> tensor<4xf32, #dtensor.spec<@m, [S(0)]>>
  %c = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%x : tensor<4xf32, #dtensor.spec<@m, [S(0)]>>) outs(%z : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.mulf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

// The init is distributed (replicated): an integer R -> P(sum) is no move.
func.func @int_sum_replicated_init(%mh: !dtensor.device_mesh<@m>) -> tensor<2xi32, #dtensor.spec<@m, [R]>> {
  %v = arith.constant dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi32>
  %x = dtensor.distribute_tensor %v, %mh : tensor<4x2xi32>, !dtensor.device_mesh<@m>
      -> tensor<4x2xi32, #dtensor.spec<@m, [S(0)]>>
  %w = arith.constant dense<[1, 7]> : tensor<2xi32>
  %y = dtensor.distribute_tensor %w, %mh : tensor<2xi32>, !dtensor.device_mesh<@m>
      -> tensor<2xi32, #dtensor.spec<@m, [R]>>
  %r = linalg.reduce ins(%x : tensor<4x2xi32, #dtensor.spec<@m, [S(0)]>>) outs(%y : tensor<2xi32, #dtensor.spec<@m, [R]>>) dimensions = [0]
    (%in: i32, %acc: i32) {
      %s = arith.addi %in, %acc : i32
      linalg.yield %s : i32
    }
  return %r : tensor<2xi32, #dtensor.spec<@m, [R]>>
}
