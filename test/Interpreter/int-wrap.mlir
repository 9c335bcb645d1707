// RUN: dtensor-run %s --all-entries --verify --pipeline dtensor-compile --print-values | FileCheck %s
// RUN: %if mpi %{ dtensor-run %s --all-entries --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPI %}
// MPI: verified @relu_of_sum on target mpi: 2 output(s)
// MPI: verified @divide on target mpi: 2 output(s)

// Integer arithmetic wraps at its type's width inside a linalg body, before
// the next op reads it: an i8 sum 100 + 100 is -56, so a ReLU (maxsi with 0)
// after it gives 0 (and -100 + -100 is 56); an i32 sum over 2^31 - 1 is negative. (The interpreter
// held registers as 64-bit integers and wrapped only when storing, so the
// maxsi read 200 and stored -56: the reference differed from the emitted C++
// and from MLIR.) @divide: the least i64 divided by -1 and remainders by -1
// or 0 do not trap the interpreter (undefined in MLIR; 0 and the wrapped
// quotient here).

dtensor.mesh @mesh shape = [2]

#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: ran @relu_of_sum
// CHECK: output 0: distributed [S(0)], global 4 i8
// CHECK-NEXT: [0, 10, 56, 127]
// CHECK: output 1: distributed [S(0)], global 4 i32
// CHECK-NEXT: [0, 0, 2147483646, 0]
// CHECK: verified @relu_of_sum: 2 output(s)
func.func @relu_of_sum(%m: !dtensor.device_mesh<@mesh>) -> (tensor<4xi8, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xi32, #dtensor.spec<@mesh, [S(0)]>>) {
  %v = arith.constant dense<[100, 5, -100, 127]> : tensor<4xi8>
  %w = arith.constant dense<[100, 5, -100, 0]> : tensor<4xi8>
  %u = arith.constant dense<[1, 2, -1, 2147483647]> : tensor<4xi32>
  %x = dtensor.distribute_tensor %v, %m : tensor<4xi8>, !dtensor.device_mesh<@mesh>
      -> tensor<4xi8, #dtensor.spec<@mesh, [S(0)]>>
  %y = dtensor.distribute_tensor %u, %m : tensor<4xi32>, !dtensor.device_mesh<@mesh>
      -> tensor<4xi32, #dtensor.spec<@mesh, [S(0)]>>
  %e = tensor.empty() : tensor<4xi8>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %w : tensor<4xi8, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xi8>) outs(%e : tensor<4xi8>) {
  ^bb0(%a: i8, %b: i8, %o: i8):
    %z = arith.constant 0 : i8
    %s = arith.addi %a, %b : i8
    %t = arith.maxsi %s, %z : i8
    linalg.yield %t : i8
  } -> tensor<4xi8>
  %e32 = tensor.empty() : tensor<4xi32>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<4xi32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e32 : tensor<4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %z = arith.constant 0 : i32
    %big = arith.constant 2147483647 : i32
    %s = arith.addi %a, %big : i32
    %t = arith.maxsi %s, %z : i32
    linalg.yield %t : i32
  } -> tensor<4xi32>
  %dr = dtensor.distribute_tensor %r, %m : tensor<4xi8>, !dtensor.device_mesh<@mesh> -> tensor<4xi8, #dtensor.spec<@mesh, [S(0)]>>
  %dq = dtensor.distribute_tensor %q, %m : tensor<4xi32>, !dtensor.device_mesh<@mesh> -> tensor<4xi32, #dtensor.spec<@mesh, [S(0)]>>
  return %dr, %dq : tensor<4xi8, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xi32, #dtensor.spec<@mesh, [S(0)]>>
}

// CHECK-LABEL: ran @divide
// CHECK: output 0: distributed [S(0)], global 4 i64
// CHECK-NEXT: [-9223372036854775808, 3, -7, 5]
// CHECK: output 1: distributed [S(0)], global 4 i64
// CHECK-NEXT: [0, 1, 0, 0]
func.func @divide(%m: !dtensor.device_mesh<@mesh>) -> (tensor<4xi64, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xi64, #dtensor.spec<@mesh, [S(0)]>>) {
  %v = arith.constant dense<[-9223372036854775808, 7, 7, 5]> : tensor<4xi64>
  %w = arith.constant dense<[-1, 2, -1, 1]> : tensor<4xi64>
  %x = dtensor.distribute_tensor %v, %m : tensor<4xi64>, !dtensor.device_mesh<@mesh>
      -> tensor<4xi64, #dtensor.spec<@mesh, [S(0)]>>
  %e = tensor.empty() : tensor<4xi64>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %w : tensor<4xi64, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xi64>) outs(%e : tensor<4xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
    %d = arith.divsi %a, %b : i64
    linalg.yield %d : i64
  } -> tensor<4xi64>
  %q = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %w : tensor<4xi64, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xi64>) outs(%e : tensor<4xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
    %d = arith.remsi %a, %b : i64
    linalg.yield %d : i64
  } -> tensor<4xi64>
  %dr = dtensor.distribute_tensor %r, %m : tensor<4xi64>, !dtensor.device_mesh<@mesh> -> tensor<4xi64, #dtensor.spec<@mesh, [S(0)]>>
  %dq = dtensor.distribute_tensor %q, %m : tensor<4xi64>, !dtensor.device_mesh<@mesh> -> tensor<4xi64, #dtensor.spec<@mesh, [S(0)]>>
  return %dr, %dq : tensor<4xi64, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xi64, #dtensor.spec<@mesh, [S(0)]>>
}

// The same on whole tensors (arith on tensor operands), and floordivsi /
// ceildivsi by -1: no trap.
// CHECK-LABEL: ran @divide_tensors
// CHECK: output 0: same on every rank, 3 i64
// CHECK-NEXT: [-9223372036854775808, 3, -3]
// CHECK: output 1: same on every rank, 3 i64
// CHECK-NEXT: [0, 1, -1]
// CHECK: output 2: same on every rank, 3 i64
// CHECK-NEXT: [-9223372036854775808, 3, -4]
// CHECK: output 3: same on every rank, 3 i64
// CHECK-NEXT: [-9223372036854775808, 4, -3]
func.func @divide_tensors() -> (tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) {
  %v = arith.constant dense<[-9223372036854775808, 7, -7]> : tensor<3xi64>
  %w = arith.constant dense<[-1, 2, 2]> : tensor<3xi64>
  %d = arith.divsi %v, %w : tensor<3xi64>
  %r = arith.remsi %v, %w : tensor<3xi64>
  %f = arith.floordivsi %v, %w : tensor<3xi64>
  %c = arith.ceildivsi %v, %w : tensor<3xi64>
  return %d, %r, %f, %c : tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>
}
