// RUN: dtensor-run %s --verify --pipeline dtensor-compile --print-values | FileCheck %s
// RUN: dtensor-opt %s --dtensor-compile | dtensor-translate --dtensor-to-cpp | FileCheck %s --check-prefix=CPP
// RUN: %if mpi %{ dtensor-run %s --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPI %}
//
// fptosi of a value out of the result's range is poison in MLIR; the
// interpreter and the emitted C++ give the same answer for it: through a
// 64-bit integer, wrapped to the result's width (NaN and values beyond 64
// bits: the least 64-bit integer, 0 in i32). The emitted `int32_t(x)` was
// undefined in C++ (x86 gave -2^31), so the real job differed from the
// interpreter.
// CHECK: [1410065408, -1410065408, 0, 2, -2, -1294967296, 0, 0]
// CHECK: verified @fptosi_i32
// CPP: rt_fptosi(
// MPI: verified @fptosi_i32 on target mpi
dtensor.mesh @mesh shape = [4]
func.func @fptosi_i32(%m: !dtensor.device_mesh<@mesh>) -> tensor<8xi32, #dtensor.spec<@mesh, [S(0)]>> {
  %v = arith.constant dense<[1.0e10, -1.0e10, 0x7FC00000, 2.5, -2.5, 3.0e9, 0x7F800000, -0.99]> : tensor<8xf32>
  %x = dtensor.distribute_tensor %v, %m : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>
  %e = tensor.empty() : tensor<8xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e : tensor<8xi32>) {
  ^bb0(%a: f32, %o: i32):
    %r = arith.fptosi %a : f32 to i32
    linalg.yield %r : i32
  } -> tensor<8xi32>
  %d = dtensor.distribute_tensor %r, %m : tensor<8xi32>, !dtensor.device_mesh<@mesh> -> tensor<8xi32, #dtensor.spec<@mesh, [S(0)]>>
  return %d : tensor<8xi32, #dtensor.spec<@mesh, [S(0)]>>
}
