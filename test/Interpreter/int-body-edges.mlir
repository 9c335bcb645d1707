// RUN: dtensor-run %s --verify --pipeline dtensor-compile --print-values | FileCheck %s
// RUN: %if mpi %{ dtensor-run %s --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPI %}
// Integer edges inside linalg bodies, where the interpreter's compiled body
// programs and the emitted C++ must agree:
// - floordivsi / ceildivsi in a body (the interpreter could not compile
//   them) by 0 give 0 (the emitted C++ died of SIGFPE) and the least value
//   over -1 wraps;
// - fptosi's result is narrowed to its width (an i1 true was stored as 255
//   by the interpreter; 200.0 to i8 compared as 200, not -56).
dtensor.mesh @mesh shape = [2] names = ["tp"]
#id = affine_map<(d0) -> (d0)>
func.func @main(%m: !dtensor.device_mesh<@mesh>) -> (tensor<4xi16>, tensor<4xi16>, tensor<4xi1>, tensor<4xi32>) {
  %a0 = arith.constant dense<[7, -7, 5, -32768]> : tensor<4xi16>
  %b0 = arith.constant dense<[0, 2, 0, -1]> : tensor<4xi16>
  %x0 = arith.constant dense<[-1.0, 0.5, 1.0, 2.0]> : tensor<4xf32>
  %a = dtensor.distribute_tensor %a0, %m : tensor<4xi16>, !dtensor.device_mesh<@mesh> -> tensor<4xi16, #dtensor.spec<@mesh, [S(0)]>>
  %b = dtensor.distribute_tensor %b0, %m : tensor<4xi16>, !dtensor.device_mesh<@mesh> -> tensor<4xi16, #dtensor.spec<@mesh, [S(0)]>>
  %x = dtensor.distribute_tensor %x0, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>
  %e16 = tensor.empty() : tensor<4xi16>
  %fl = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xi16, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xi16, #dtensor.spec<@mesh, [S(0)]>>) outs(%e16 : tensor<4xi16>) {
  ^bb0(%p: i16, %q: i16, %o: i16):
    %r = arith.floordivsi %p, %q : i16
    linalg.yield %r : i16
  } -> tensor<4xi16>
  %ce = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xi16, #dtensor.spec<@mesh, [S(0)]>>, tensor<4xi16, #dtensor.spec<@mesh, [S(0)]>>) outs(%e16 : tensor<4xi16>) {
  ^bb0(%p: i16, %q: i16, %o: i16):
    %r = arith.ceildivsi %p, %q : i16
    linalg.yield %r : i16
  } -> tensor<4xi16>
  %e1 = tensor.empty() : tensor<4xi1>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e1 : tensor<4xi1>) {
  ^bb0(%p: f32, %o: i1):
    %r = arith.fptosi %p : f32 to i1
    linalg.yield %r : i1
  } -> tensor<4xi1>
  %e32 = tensor.empty() : tensor<4xi32>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>) outs(%e32 : tensor<4xi32>) {
  ^bb0(%p: f32, %o: i32):
    %c100 = arith.constant 100.0 : f32
    %y = arith.mulf %p, %c100 : f32
    %r = arith.fptosi %y : f32 to i8
    %c0 = arith.constant 0 : i8
    %g = arith.cmpi sgt, %r, %c0 : i8
    %z = arith.extui %g : i1 to i32
    linalg.yield %z : i32
  } -> tensor<4xi32>
  return %fl, %ce, %t, %w : tensor<4xi16>, tensor<4xi16>, tensor<4xi1>, tensor<4xi32>
}
// CHECK: output 0:
// CHECK-NEXT: [0, -4, 0, -32768]
// CHECK: output 1:
// CHECK-NEXT: [0, -3, 0, -32768]
// CHECK: output 2:
// CHECK-NEXT: [1, 0, 1, 0]
// CHECK: output 3:
// CHECK-NEXT: [0, 1, 1, 0]
// CHECK: verified @main: 4 output(s)
// MPI: verified @main on target mpi: 4 output(s)
