// RUN: dtensor-run %s --print-values | FileCheck %s
// The interpreter writes a tensor in place only at its last use and only
// when no other value shares its storage: values read later, values shared
// by all ranks, loop inits, linalg inits and a callee's arguments keep
// their contents.

dtensor.mesh @mesh shape = [2] names = ["x"]

func.func @main(%m: !dtensor.device_mesh<@mesh>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<2xi32>, tensor<2xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zeros = arith.constant dense<0> : tensor<4xi32>
  %r = dtensor.mesh_coord %m mesh_dims = [0] : !dtensor.device_mesh<@mesh> -> index
  %ri = arith.index_cast %r : index to i32
  %base = tensor.splat %ri : tensor<4xi32>
  %p = arith.constant dense<[7, 7]> : tensor<2xi32>
  %q = arith.constant dense<[9]> : tensor<1xi32>
  // %base is read again below: the first insert copies it.
  %a = tensor.insert_slice %p into %base[0] [2] [1] : tensor<2xi32> into tensor<4xi32>
  // Its last use: written in place, into rank r's own copy.
  %b = tensor.insert_slice %q into %base[3] [1] [1] : tensor<1xi32> into tensor<4xi32>
  // %zeros is one value for all ranks: each rank inserts into a copy.
  %c = tensor.insert_slice %q into %zeros[%r] [1] [1] : tensor<1xi32> into tensor<4xi32>
  // A loop of inserts into its carried value, whose init is returned too.
  %five = arith.constant 5 : i32
  %loop = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zeros) -> tensor<4xi32> {
    %ii = arith.index_cast %i : index to i32
    %v = arith.addi %ii, %five : i32
    %next = tensor.insert %v into %acc[%i] : tensor<4xi32>
    scf.yield %next : tensor<4xi32>
  }
  // A linalg init read again after the op.
  %e = tensor.empty() : tensor<4xf32>
  %one = arith.constant 1.0 : f32
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %x = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %g = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%f : tensor<4xf32>) -> tensor<4xf32>
  // A callee's argument at its last use there, still held by the caller.
  %k = arith.constant dense<[10, 20]> : tensor<2xi32>
  %h1 = func.call @bump(%k) : (tensor<2xi32>) -> tensor<2xi32>
  %h2 = func.call @bump(%k) : (tensor<2xi32>) -> tensor<2xi32>
  return %a, %b, %c, %zeros, %loop, %f, %g, %h1, %h2 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<2xi32>, tensor<2xi32>
}

func.func private @bump(%t: tensor<2xi32>) -> tensor<2xi32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %x = tensor.extract %t[%c0] : tensor<2xi32>
  %y = arith.addi %x, %one : i32
  %u = tensor.insert %y into %t[%c0] : tensor<2xi32>
  return %u : tensor<2xi32>
}

// CHECK:      output 0: per rank
// CHECK-NEXT:   rank 0: 4 i32 sum=14
// CHECK-NEXT:     [7, 7, 0, 0]
// CHECK-NEXT:   rank 1: 4 i32 sum=16
// CHECK-NEXT:     [7, 7, 1, 1]
// CHECK-NEXT: output 1: per rank
// CHECK-NEXT:   rank 0: 4 i32 sum=9
// CHECK-NEXT:     [0, 0, 0, 9]
// CHECK-NEXT:   rank 1: 4 i32 sum=12
// CHECK-NEXT:     [1, 1, 1, 9]
// CHECK-NEXT: output 2: per rank
// CHECK-NEXT:   rank 0: 4 i32 sum=9
// CHECK-NEXT:     [9, 0, 0, 0]
// CHECK-NEXT:   rank 1: 4 i32 sum=9
// CHECK-NEXT:     [0, 9, 0, 0]
// CHECK-NEXT: output 3: same on every rank, 4 i32 sum=0
// CHECK-NEXT: [0, 0, 0, 0]
// CHECK-NEXT: output 4: same on every rank, 4 i32 sum=26
// CHECK-NEXT: [5, 6, 7, 8]
// CHECK-NEXT: output 5: same on every rank, 4 f32 sum=4
// CHECK-NEXT: [1, 1, 1, 1]
// CHECK-NEXT: output 6: same on every rank, 4 f32 sum=20
// CHECK-NEXT: [2, 4, 6, 8]
// CHECK-NEXT: output 7: same on every rank, 2 i32 sum=31
// CHECK-NEXT: [11, 20]
// CHECK-NEXT: output 8: same on every rank, 2 i32 sum=31
// CHECK-NEXT: [11, 20]
