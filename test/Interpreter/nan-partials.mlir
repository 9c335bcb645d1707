// RUN: dtensor-run %s --entry max_nan --verify --print-values | FileCheck %s --check-prefix=MAX
// RUN: dtensor-run %s --entry maxnum_nan --verify --print-values | FileCheck %s --check-prefix=MAXNUM
// RUN: dtensor-run %s --entry min_nan --verify --print-values | FileCheck %s --check-prefix=MIN
// RUN: dtensor-run %s --entry collectives --print-values | FileCheck %s --check-prefix=COLL
// RUN: dtensor-opt %s --dtensor-compile | FileCheck %s --check-prefix=COMPILED
// RUN: %if mpi %{ dtensor-run %s --entry max_nan --verify --target=mpi | FileCheck %s --check-prefix=MPI %}
// RUN: %if mpi %{ dtensor-run %s --entry maxnum_nan --verify --target=mpi | FileCheck %s --check-prefix=MPI %}
// RUN: %if mpi %{ dtensor-run %s --entry collectives --verify --target=mpi | FileCheck %s --check-prefix=MPI %}
//
// A Partial max / min combines as torch.maximum / minimum (LocalTensor's
// collectives) and arith.maximumf / minimumf: a NaN term makes the result
// NaN whichever rank holds it. The collectives used std::max (interpreter)
// and MPI_MAX (emitted code), which kept a NaN only when it came first in
// rank order, so a maximumf reduction over a sharded dim with the NaN on
// rank 1 gave 2 where the global program gives NaN. maxnumf / minnumf
// ignore NaNs, which a rank whose terms are all NaN would pass on: they are
// no Partial kind, and their reduction dim is gathered first.

dtensor.mesh @m shape = [2]

// MAX: output 0: same on every rank, scalar f32
// MAX-NEXT: {{^}}nan
// MAX: verified @max_nan
// COMPILED-LABEL: func.func @max_nan
// COMPILED: dtensor.all_reduce {{.*}} reduce = max
func.func @max_nan(%mh: !dtensor.device_mesh<@m>) -> tensor<f32> {
  %v = arith.constant dense<[1.0, 2.0, 3.0, 0x7FC00000]> : tensor<4xf32>
  %x = dtensor.distribute_tensor %v, %mh : tensor<4xf32>, !dtensor.device_mesh<@m>
      -> tensor<4xf32, #dtensor.spec<@m, [S(0)]>>
  %c = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%x : tensor<4xf32, #dtensor.spec<@m, [S(0)]>>) outs(%z : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.maximumf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

// MAXNUM: output 0: same on every rank, scalar f32
// MAXNUM-NEXT: {{^}}2
// MAXNUM: verified @maxnum_nan
// COMPILED-LABEL: func.func @maxnum_nan
// COMPILED: dtensor.all_gather
// COMPILED-NOT: reduce = max
// COMPILED: return
func.func @maxnum_nan(%mh: !dtensor.device_mesh<@m>) -> tensor<f32> {
  %v = arith.constant dense<[0x7FC00000, 0x7FC00000, 1.0, 2.0]> : tensor<4xf32>
  %x = dtensor.distribute_tensor %v, %mh : tensor<4xf32>, !dtensor.device_mesh<@m>
      -> tensor<4xf32, #dtensor.spec<@m, [S(0)]>>
  %c = arith.constant 0x7FC00000 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%x : tensor<4xf32, #dtensor.spec<@m, [S(0)]>>) outs(%z : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.maxnumf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

// MIN: output 0: same on every rank, 2 f32
// MIN-NEXT: {{^}}[nan, -1]
// MIN: verified @min_nan
func.func @min_nan(%mh: !dtensor.device_mesh<@m>) -> tensor<2xf32> {
  %v = arith.constant dense<[[1.0, 5.0], [2.0, 4.0], [0x7FC00000, -1.0], [3.0, 7.0]]> : tensor<4x2xf32>
  %x = dtensor.distribute_tensor %v, %mh : tensor<4x2xf32>, !dtensor.device_mesh<@m>
      -> tensor<4x2xf32, #dtensor.spec<@m, [S(0)]>>
  %c = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<2xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.reduce ins(%x : tensor<4x2xf32, #dtensor.spec<@m, [S(0)]>>) outs(%z : tensor<2xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.minimumf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<2xf32>
}

// The collectives themselves (a local-view program): rank 0 holds [nan, 1],
// rank 1 [2, nan]; max and min are NaN in both elements on every rank.
// COLL: output 0: per rank
// COLL-NEXT: rank 0: 2 f32
// COLL-NEXT: [nan, nan]
// COLL-NEXT: rank 1: 2 f32
// COLL-NEXT: [nan, nan]
// COLL: output 1: per rank
// COLL-NEXT: rank 0: 2 f32
// COLL-NEXT: [nan, nan]
// COLL-NEXT: rank 1: 2 f32
// COLL-NEXT: [nan, nan]
// MPI: verified
func.func @collectives(%mh: !dtensor.device_mesh<@m>) -> (tensor<2xf32>, tensor<2xf32>) {
  %r = dtensor.mesh_coord %mh mesh_dims = [0] : !dtensor.device_mesh<@m> -> index
  %c0 = arith.constant 0 : index
  %is0 = arith.cmpi eq, %r, %c0 : index
  %a = arith.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  %b = arith.constant dense<[2.0, 0x7FC00000]> : tensor<2xf32>
  %x = arith.select %is0, %a, %b : tensor<2xf32>
  %m = dtensor.all_reduce %x, %mh mesh_dims = [0] reduce = max : tensor<2xf32>, !dtensor.device_mesh<@m> -> tensor<2xf32>
  %n = dtensor.all_reduce %x, %mh mesh_dims = [0] reduce = min : tensor<2xf32>, !dtensor.device_mesh<@m> -> tensor<2xf32>
  return %m, %n : tensor<2xf32>, tensor<2xf32>
}
