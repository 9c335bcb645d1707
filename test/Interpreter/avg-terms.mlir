// RUN: dtensor-run %s --entry f16_avg --verify --print-values | FileCheck %s --check-prefix=F16
// RUN: dtensor-run %s --entry f32_avg --verify --print-values | FileCheck %s --check-prefix=F32
// RUN: dtensor-run %s --entry i8_avg --verify --print-values | FileCheck %s --check-prefix=I8
// RUN: dtensor-run %s --entry i32_avg_scatter --verify --print-values | FileCheck %s --check-prefix=I32
// RUN: %if mpi %{ dtensor-run %s --all-entries --verify --target=mpi | FileCheck %s --check-prefix=MPI %}
//
// A Partial(avg) whose terms are large: distribute_tensor to P(avg) keeps
// the value on every rank (DTensor's R -> P), so the mean of the terms is
// the value. The reductions summed in the element type, then divided: the
// sum overflowed (f16 40000 x 4 is inf; i8 100 x 4 wrapped to -112 and gave
// -28), and the compiled programs differed from the global ones (found by
// probing). Floats now divide each term first and sum (as NCCL's ncclAvg
// and DDP), integers sum in i64, in the interpreter and the runtime alike.

dtensor.mesh @m shape = [4]

// F16: [40000, -40000, 65504, 1]
// F16: verified @f16_avg
func.func @f16_avg(%mh: !dtensor.device_mesh<@m>) -> tensor<4xf16> {
  %v = arith.constant dense<[40000.0, -40000.0, 65504.0, 1.0]> : tensor<4xf16>
  %x = dtensor.distribute_tensor %v, %mh : tensor<4xf16>, !dtensor.device_mesh<@m> -> tensor<4xf16, #dtensor.spec<@m, [P(avg)]>>
  %r = dtensor.full_tensor %x, %mh : tensor<4xf16, #dtensor.spec<@m, [P(avg)]>>, !dtensor.device_mesh<@m> -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// F32: [3e+38, -3e+38]
// F32: verified @f32_avg
func.func @f32_avg(%mh: !dtensor.device_mesh<@m>) -> tensor<2xf32> {
  %v = arith.constant dense<[3.0e38, -3.0e38]> : tensor<2xf32>
  %x = dtensor.distribute_tensor %v, %mh : tensor<2xf32>, !dtensor.device_mesh<@m> -> tensor<2xf32, #dtensor.spec<@m, [P(avg)]>>
  %r = dtensor.full_tensor %x, %mh : tensor<2xf32, #dtensor.spec<@m, [P(avg)]>>, !dtensor.device_mesh<@m> -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// I8: [100, -100, 127, -128]
// I8: verified @i8_avg
func.func @i8_avg(%mh: !dtensor.device_mesh<@m>) -> tensor<4xi8> {
  %v = arith.constant dense<[100, -100, 127, -128]> : tensor<4xi8>
  %x = dtensor.distribute_tensor %v, %mh : tensor<4xi8>, !dtensor.device_mesh<@m> -> tensor<4xi8, #dtensor.spec<@m, [P(avg)]>>
  %r = dtensor.full_tensor %x, %mh : tensor<4xi8, #dtensor.spec<@m, [P(avg)]>>, !dtensor.device_mesh<@m> -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// Through a reduce_scatter (P(avg) -> S(0)).
// I32: [2000000000, -2000000000, 2147483647, -2147483648, 7, -7, 1, 0]
// I32: verified @i32_avg_scatter
func.func @i32_avg_scatter(%mh: !dtensor.device_mesh<@m>) -> tensor<8xi32> {
  %v = arith.constant dense<[2000000000, -2000000000, 2147483647, -2147483648, 7, -7, 1, 0]> : tensor<8xi32>
  %x = dtensor.distribute_tensor %v, %mh : tensor<8xi32>, !dtensor.device_mesh<@m> -> tensor<8xi32, #dtensor.spec<@m, [P(avg)]>>
  %s = dtensor.redistribute %x, %mh : tensor<8xi32, #dtensor.spec<@m, [P(avg)]>>, !dtensor.device_mesh<@m> -> tensor<8xi32, #dtensor.spec<@m, [S(0)]>>
  %r = dtensor.full_tensor %s, %mh : tensor<8xi32, #dtensor.spec<@m, [S(0)]>>, !dtensor.device_mesh<@m> -> tensor<8xi32>
  return %r : tensor<8xi32>
}

// MPI: verified @f16_avg on target mpi
// MPI: verified @f32_avg on target mpi
// MPI: verified @i8_avg on target mpi
// MPI: verified @i32_avg_scatter on target mpi
