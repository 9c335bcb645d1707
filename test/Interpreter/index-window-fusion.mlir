// RUN: dtensor-run %s --verify --pipeline dtensor-compile | FileCheck %s
// RUN: %if mpi %{ dtensor-run %s --verify --pipeline dtensor-compile --target=mpi | FileCheck %s --check-prefix=MPI %}
// RUN: dtensor-opt %s --dtensor-compile | dtensor-translate --dtensor-to-cpp | FileCheck %s --check-prefix=CPP
// An element-wise generic reading linalg.index, then a windowed generic
// reading it at i + t: the emitter fuses them, and fusion rewrites the
// index as an affine.apply of the consumer's loops, which the emitter
// refused ("affine.apply op inside a linalg body is not supported"), at an
// op the user never wrote. It is emitted as its expression now.
// CHECK: verified @f: 1 output(s)
// MPI: verified @f on target mpi: 1 output(s)
// CPP: int64_t {{v[0-9]+}} = ({{v[0-9]+}} + {{v[0-9]+}});
// An element-wise generic that reads linalg.index, consumed by a windowed
// generic (out[i] = sum_t in[i + t] * w[t]). The C++ emitter's element-wise
// fusion inlines the producer into the consumer and remaps linalg.index
// through affine.apply, which the emitter then rejects.
dtensor.mesh @mesh shape = [2]
#id = affine_map<(i) -> (i)>
func.func @f(%m: !dtensor.device_mesh<@mesh>, %x: tensor<6xf32, #dtensor.spec<@mesh, [R]>>) -> tensor<5xf32> {
  %e = tensor.empty() : tensor<6xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<6xf32, #dtensor.spec<@mesh, [R]>>) outs(%e : tensor<6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %r = arith.mulf %a, %fi : f32
    linalg.yield %r : f32
  } -> tensor<6xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<5xf32>) -> tensor<5xf32>
  %w = arith.constant dense<[0.5, 1.5]> : tensor<2xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, t) -> (i + t)>, affine_map<(i, t) -> (t)>, affine_map<(i, t) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%y, %w : tensor<6xf32>, tensor<2xf32>) outs(%z : tensor<5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %p, %acc : f32
    linalg.yield %q : f32
  } -> tensor<5xf32>
  return %s : tensor<5xf32>
}
