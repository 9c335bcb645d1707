// RUN: dtensor-run %s --verify --pipeline dtensor-compile --print-values | FileCheck %s
// RUN: %if mpi %{ dtensor-run %s --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPI %}
//
// arith.bitcast in a linalg body reinterprets bits: f32 <-> i32, f16 -> i16,
// f16 -> bf16, i64 -> f64 (the interpreter had no kernel for it: the global
// program did not run; the emitted C++ memcpys).
// CHECK: [1069547520, -1073741824, 1048576000, 1077936128]
// CHECK-NEXT: output 1:
// CHECK-NEXT: [1.5, -2, 0.25, 3]
// CHECK-NEXT: output 2:
// CHECK-NEXT: [15872, -16384, 13312, 16896]
// CHECK-NEXT: output 3:
// CHECK-NEXT: [0.125, -2, 1.19209e-07, 32]
// CHECK-NEXT: output 4:
// CHECK-NEXT: [5.28427e-315, -nan, 5.18065e-315, 5.32571e-315]
// CHECK: verified @bitcasts: 5 output(s)
// MPI: verified @bitcasts on target mpi: 5 output(s) of 2 MPI process(es) match the interpreter
dtensor.mesh @mesh shape = [2]
#id = affine_map<(i) -> (i)>
func.func @bitcasts(%m: !dtensor.device_mesh<@mesh>) -> (tensor<4xi32, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xi16, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xbf16, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xf64, #dtensor.spec<@mesh, [S(0)]>>) {
  %v = arith.constant dense<[1.5, -2.0, 0.25, 3.0]> : tensor<4xf32>
  %x = dtensor.distribute_tensor %v, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>
  %e1 = tensor.empty() : tensor<4xi32>
  %e2 = tensor.empty() : tensor<4xf32>
  %e3 = tensor.empty() : tensor<4xi16>
  %e4 = tensor.empty() : tensor<4xbf16>
  %e5 = tensor.empty() : tensor<4xf64>
  %r:5 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]}
     ins(%x : tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e1, %e2, %e3, %e4, %e5 : tensor<4xi32>, tensor<4xf32>, tensor<4xi16>, tensor<4xbf16>, tensor<4xf64>) {
  ^bb0(%a: f32, %o1: i32, %o2: f32, %o3: i16, %o4: bf16, %o5: f64):
    %1 = arith.bitcast %a : f32 to i32
    %2 = arith.bitcast %1 : i32 to f32
    %h = arith.truncf %a : f32 to f16
    %3 = arith.bitcast %h : f16 to i16
    %4 = arith.bitcast %h : f16 to bf16
    %w = arith.extsi %1 : i32 to i64
    %5 = arith.bitcast %w : i64 to f64
    linalg.yield %1, %2, %3, %4, %5 : i32, f32, i16, bf16, f64
  } -> (tensor<4xi32>, tensor<4xf32>, tensor<4xi16>, tensor<4xbf16>, tensor<4xf64>)
  %d1 = dtensor.distribute_tensor %r#0, %m : tensor<4xi32>, !dtensor.device_mesh<@mesh> -> tensor<4xi32, #dtensor.spec<@mesh, [S(0)]>>
  %d2 = dtensor.distribute_tensor %r#1, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>
  %d3 = dtensor.distribute_tensor %r#2, %m : tensor<4xi16>, !dtensor.device_mesh<@mesh> -> tensor<4xi16, #dtensor.spec<@mesh, [S(0)]>>
  %d4 = dtensor.distribute_tensor %r#3, %m : tensor<4xbf16>, !dtensor.device_mesh<@mesh> -> tensor<4xbf16, #dtensor.spec<@mesh, [S(0)]>>
  %d5 = dtensor.distribute_tensor %r#4, %m : tensor<4xf64>, !dtensor.device_mesh<@mesh> -> tensor<4xf64, #dtensor.spec<@mesh, [S(0)]>>
  return %d1, %d2, %d3, %d4, %d5 : tensor<4xi32, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xi16, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xbf16, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xf64, #dtensor.spec<@mesh, [S(0)]>>
}
