// RUN: dtensor-run %s --all-entries --verify --pipeline dtensor-compile --print-values | FileCheck %s
// RUN: %if mpi %{ dtensor-run %s --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPI %}
// MPI: verified @logic on target mpi: 6 output(s)

// An i1 is held as 0 or 1 in the interpreter: `arith.constant true` is 1
// (it was -1, its sign-extended value, so `xori %c, true` gave -2 and a
// stored "false" read 254), extui / extsi / trunci follow their widths, in
// a body and captured from outside it (the compiled program hoists the
// constant); sitofp / uitofp of an i1 give -1.0 / 1.0. Compiled for 2
// ranks, every output checked on every rank; the emitted C++ (under mpirun)
// computes the same.

dtensor.mesh @mesh shape = [2]

#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: ran @logic
// CHECK: output 0: same on every rank, 4 i1
// CHECK-NEXT: [0, 1, 0, 1]
// CHECK: output 1: same on every rank, 4 i32
// CHECK-NEXT: [0, -1, 0, -1]
// CHECK: output 2: same on every rank, 4 i32
// CHECK-NEXT: [0, 1, 0, 1]
// CHECK: output 3: same on every rank, 4 i1
// CHECK-NEXT: [1, 1, 0, 0]
// CHECK: output 4: same on every rank, 4 f32
// CHECK-NEXT: [0, -1, 0, -1]
// CHECK: output 5: same on every rank, 4 f32
// CHECK-NEXT: [0, 1, 0, 1]
// CHECK: verified @logic: 6 output(s)
func.func @logic(%m: !dtensor.device_mesh<@mesh>,
                 %x: tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>)
    -> (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>,
        tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xi1>
  %e32 = tensor.empty() : tensor<4xi32>
  %cst = arith.constant dense<[1.0, -1.0, 2.0, -3.0]> : tensor<4xf32>
  %d = dtensor.distribute_tensor %cst, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh>
      -> tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>
  %not = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%d : tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e : tensor<4xi1>) {
  ^bb0(%a: f32, %o: i1):
    %z = arith.constant 0.0 : f32
    %c = arith.cmpf ogt, %a, %z : f32
    %t = arith.constant true
    %n = arith.xori %c, %t : i1
    linalg.yield %n : i1
  } -> tensor<4xi1>
  %sext = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%not : tensor<4xi1>) outs(%e32 : tensor<4xi32>) {
  ^bb0(%a: i1, %o: i32):
    %w = arith.extsi %a : i1 to i32
    linalg.yield %w : i32
  } -> tensor<4xi32>
  %zext = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%not : tensor<4xi1>) outs(%e32 : tensor<4xi32>) {
  ^bb0(%a: i1, %o: i32):
    %w = arith.extui %a : i1 to i32
    linalg.yield %w : i32
  } -> tensor<4xi32>
  // Bit 0 of 3, 5, 2, 4: trunci keeps the low bit.
  %ints = arith.constant dense<[3, 5, 2, 4]> : tensor<4xi32>
  %low = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%ints : tensor<4xi32>) outs(%e : tensor<4xi1>) {
  ^bb0(%a: i32, %o: i1):
    %b = arith.trunci %a : i32 to i1
    linalg.yield %b : i1
  } -> tensor<4xi1>
  %ef = tensor.empty() : tensor<4xf32>
  %sf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%not : tensor<4xi1>) outs(%ef : tensor<4xf32>) {
  ^bb0(%a: i1, %o: f32):
    %f = arith.sitofp %a : i1 to f32
    linalg.yield %f : f32
  } -> tensor<4xf32>
  %uf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%not : tensor<4xi1>) outs(%ef : tensor<4xf32>) {
  ^bb0(%a: i1, %o: f32):
    %f = arith.uitofp %a : i1 to f32
    linalg.yield %f : f32
  } -> tensor<4xf32>
  return %not, %sext, %zext, %low, %sf, %uf
      : tensor<4xi1>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
}
