// RUN: dtensor-run %s --all-entries --verify --quiet | FileCheck %s
// RUN: dtensor-opt %s --dtensor-compile | FileCheck %s --check-prefix=LOCAL
// RUN: %if mpi %{ dtensor-run %s --all-entries --verify --target=mpi --quiet | FileCheck %s --check-prefix=MPI %}
//
// Tensors with a zero-size dim whose other dim is sharded. Lowering sliced
// them with tensor.extract_slice at a static offset 0 in the empty dim, which
// MLIR 22's verifier rejects ("offset 0 is out-of-bounds: 0 >= 0"): every
// redistribution of a 0x4, 4x0 or 0x0 tensor on a 2x3 mesh that chunks
// locally failed to compile (216 of 288). A slice of an empty tensor is now
// an empty tensor, and nothing is inserted into one.

// CHECK: verified 5 of 5 function(s)
// MPI: verified 5 of 5 function(s)

dtensor.mesh @m shape = [2, 3]

// LOCAL-LABEL: func.func @r_to_s1
// LOCAL-NOT: tensor.extract_slice
// LOCAL: tensor.empty() : tensor<0x2xf32>
func.func @r_to_s1(%mh: !dtensor.device_mesh<@m>, %x: tensor<0x4xf32, #dtensor.spec<@m, [R, R]>>) -> tensor<0x4xf32, #dtensor.spec<@m, [S(1), R]>> {
  %r = dtensor.redistribute %x, %mh : tensor<0x4xf32, #dtensor.spec<@m, [R, R]>>, !dtensor.device_mesh<@m> -> tensor<0x4xf32, #dtensor.spec<@m, [S(1), R]>>
  return %r : tensor<0x4xf32, #dtensor.spec<@m, [S(1), R]>>
}

// Uneven: 4 over 3 ranks.
func.func @s1_to_r(%mh: !dtensor.device_mesh<@m>, %x: tensor<0x4xf32, #dtensor.spec<@m, [R, S(1)]>>) -> tensor<0x4xf32, #dtensor.spec<@m, [R, R]>> {
  %r = dtensor.redistribute %x, %mh : tensor<0x4xf32, #dtensor.spec<@m, [R, S(1)]>>, !dtensor.device_mesh<@m> -> tensor<0x4xf32, #dtensor.spec<@m, [R, R]>>
  return %r : tensor<0x4xf32, #dtensor.spec<@m, [R, R]>>
}

func.func @partial_to_s0(%mh: !dtensor.device_mesh<@m>, %x: tensor<4x0xf32, #dtensor.spec<@m, [P(sum), S(0)]>>) -> tensor<4x0xf32, #dtensor.spec<@m, [S(0), R]>> {
  %r = dtensor.redistribute %x, %mh : tensor<4x0xf32, #dtensor.spec<@m, [P(sum), S(0)]>>, !dtensor.device_mesh<@m> -> tensor<4x0xf32, #dtensor.spec<@m, [S(0), R]>>
  return %r : tensor<4x0xf32, #dtensor.spec<@m, [S(0), R]>>
}

func.func @empty_both(%mh: !dtensor.device_mesh<@m>, %x: tensor<0x0xf32, #dtensor.spec<@m, [S(1), S(0)]>>) -> tensor<0x0xf32, #dtensor.spec<@m, [R, S(1)]>> {
  %r = dtensor.redistribute %x, %mh : tensor<0x0xf32, #dtensor.spec<@m, [S(1), S(0)]>>, !dtensor.device_mesh<@m> -> tensor<0x0xf32, #dtensor.spec<@m, [R, S(1)]>>
  return %r : tensor<0x0xf32, #dtensor.spec<@m, [R, S(1)]>>
}

// A row reduction of an empty batch whose columns are sharded.
func.func @reduce_rows(%mh: !dtensor.device_mesh<@m>, %x: tensor<0x4xf32, #dtensor.spec<@m, [R, S(1)]>>) -> tensor<0xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<0xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<0xf32>) -> tensor<0xf32>
  %r = linalg.reduce ins(%x : tensor<0x4xf32, #dtensor.spec<@m, [R, S(1)]>>) outs(%z : tensor<0xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<0xf32>
}
