// RUN: dtensor-run %s --all-entries --verify --pipeline dtensor-compile --report | FileCheck %s
// RUN: dtensor-opt %s --dtensor-propagate --dtensor-insert-redistribute | FileCheck %s --check-prefix=IR
// RUN: dtensor-run %s --all-entries --verify --pipeline dtensor-compile --target=mpi --quiet | FileCheck %s --check-prefix=MPI
// REQUIRES: mpi
// A slice at an offset of a sharded dim is a window of the result's loop
// (offset, stride 1): each rank's part of the slice is its own shard of the
// source plus what its neighbours hold, so only the few elements at the
// chunk boundaries move (one permute per shift), where the dim used to stay
// whole (the source gathered, or moved to another dim and back). 2x3 mesh,
// uneven shards. Every program matches the global program on every rank,
// on the interpreter and as an mpirun job.

// The next-token shift of sequence-sharded ids (`x[:, 1:]`): one element per
// row from the right neighbour.
// CHECK: verified @shift:
// CHECK-NEXT: communication: 1 collective, 8 bytes/rank
// CHECK-NEXT: permute 1 8 bytes mesh dims ["sp"]
// IR-LABEL: func.func @shift
// IR-NOT:     dtensor.redistribute %arg1
// IR:         tensor.extract_slice %arg1[0, 1] [4, 10] [1, 1] : tensor<4x11xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> to tensor<4x10xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
// IR-NOT:     dtensor.redistribute %arg1
// The middle of both dims, both sharded: a window along each.
// CHECK: verified @middle:
// CHECK-NEXT: communication: 2 collectives, 36 bytes/rank
// CHECK-NEXT: permute 2 36 bytes mesh dims ["dp"], ["sp"]
// A slice of a replicated source wanted sharded: each rank slices its part.
// CHECK: verified @from_whole:
// CHECK-NEXT: communication: 0 collectives, 0 bytes/rank
// The loss of a causal LM: logits at positions 0..n-2 against the labels
// at 1..n-1, both sequence-sharded; the shifted labels take one id from the
// right neighbour, and the sum over the sequence is one all_reduce.
// CHECK: verified @shifted_loss:
// CHECK-NEXT: communication: 2 collectives, 12 bytes/rank
// CHECK-NEXT: all_reduce 1 4 bytes mesh dims ["dp", "sp"]
// CHECK-NEXT: permute 1 8 bytes mesh dims ["sp"]
// CHECK: verified 4 of 4 function(s)
// MPI: verified 4 of 4 function(s)

dtensor.mesh @mesh shape = [2, 3] names = ["dp", "sp"]

func.func @shift(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4x11xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>)
    -> tensor<4x10xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> {
  %s = tensor.extract_slice %x[0, 1] [4, 10] [1, 1] : tensor<4x11xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> to tensor<4x10xf32>
  %d = dtensor.distribute_tensor %s, %m : tensor<4x10xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x10xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  return %d : tensor<4x10xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
}

func.func @middle(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x9xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>)
    -> tensor<5x4xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> {
  %s = tensor.extract_slice %x[2, 3] [5, 4] [1, 1] : tensor<8x9xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> to tensor<5x4xf32>
  %d = dtensor.distribute_tensor %s, %m : tensor<5x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<5x4xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  return %d : tensor<5x4xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
}

func.func @from_whole(%m: !dtensor.device_mesh<@mesh>, %x: tensor<6x13xf32, #dtensor.spec<@mesh, [R, R]>>)
    -> tensor<6x7xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> {
  %s = tensor.extract_slice %x[0, 5] [6, 7] [1, 1] : tensor<6x13xf32, #dtensor.spec<@mesh, [R, R]>> to tensor<6x7xf32>
  %d = dtensor.distribute_tensor %s, %m : tensor<6x7xf32>, !dtensor.device_mesh<@mesh> -> tensor<6x7xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  return %d : tensor<6x7xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
}

func.func @shifted_loss(%m: !dtensor.device_mesh<@mesh>,
                        %logits: tensor<4x12xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>,
                        %labels: tensor<4x12xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %l = tensor.extract_slice %logits[0, 0] [4, 11] [1, 1] : tensor<4x12xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> to tensor<4x11xf32>
  %y = tensor.extract_slice %labels[0, 1] [4, 11] [1, 1] : tensor<4x12xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> to tensor<4x11xf32>
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, s) -> (b, s)>, affine_map<(b, s) -> (b, s)>, affine_map<(b, s) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%l, %y : tensor<4x11xf32>, tensor<4x11xf32>) outs(%z : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %d = arith.subf %a, %b : f32
    %sq = arith.mulf %d, %d : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
