// RUN: dtensor-opt %s --dtensor-bucket-collectives --split-input-file | FileCheck %s
// RUN: dtensor-opt %s --dtensor-bucket-collectives=bucket-bytes=64 --split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: dtensor-opt %s --dtensor-bucket-collectives=bucket-bytes=9223372036854775807 --split-input-file | FileCheck %s --check-prefix=HUGE

// All_reduces of one group, reduction and element type merge into one
// all_reduce of their concatenation, placed just before the first use of
// any of them; each result is its slice, reshaped. The bucket is filled as
// its inputs are made: each inserted where its all_reduce was.

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]

// Three gradients of a data-parallel step: one bucket.
// CHECK-LABEL: func.func @gradients
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<44xf32>
// CHECK-NEXT:    %[[A:.+]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// CHECK-NEXT:    %[[J1:.+]] = tensor.insert_slice %[[A]] into %[[E]][0] [32] [1]
// CHECK-NEXT:    %[[B:.+]] = tensor.collapse_shape %arg2 {{\[\[}}0]] : tensor<8xf32> into tensor<8xf32>
// CHECK-NEXT:    %[[J2:.+]] = tensor.insert_slice %[[B]] into %[[J1]][32] [8] [1]
// CHECK-NEXT:    %[[C:.+]] = tensor.collapse_shape %arg3 {{\[\[}}0, 1]] : tensor<2x2xf32> into tensor<4xf32>
// CHECK-NEXT:    %[[J:.+]] = tensor.insert_slice %[[C]] into %[[J2]][40] [4] [1]
// CHECK-NEXT:    %[[R:.+]] = dtensor.all_reduce %[[J]], %arg0 mesh_dims = [0] reduce = avg : tensor<44xf32>, !dtensor.device_mesh<@mesh> -> tensor<44xf32>
// CHECK-NEXT:    tensor.extract_slice %[[R]][0] [32] [1]
// CHECK-NEXT:    tensor.expand_shape
// CHECK-NEXT:    tensor.extract_slice %[[R]][32] [8] [1]
// CHECK-NEXT:    tensor.expand_shape
// CHECK-NEXT:    tensor.extract_slice %[[R]][40] [4] [1]
// CHECK-NEXT:    tensor.expand_shape
// CHECK-NEXT:    return
// CHECK-NOT:     dtensor.all_reduce
// Over 64 bytes: the first two, then the third alone.
// SMALL-LABEL: func.func @gradients
// SMALL:         dtensor.all_reduce %arg1
// SMALL:         tensor.insert_slice
// SMALL:         dtensor.all_reduce {{.*}} : tensor<12xf32>
func.func @gradients(%m: !dtensor.device_mesh<@mesh>, %g1: tensor<4x8xf32>, %g2: tensor<8xf32>, %g3: tensor<2x2xf32>)
    -> (tensor<4x8xf32>, tensor<8xf32>, tensor<2x2xf32>) {
  %a = dtensor.all_reduce %g1, %m mesh_dims = [0] reduce = avg : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32>
  %b = dtensor.all_reduce %g2, %m mesh_dims = [0] reduce = avg : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
  %c = dtensor.all_reduce %g3, %m mesh_dims = [0] reduce = avg : tensor<2x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x2xf32>
  return %a, %b, %c : tensor<4x8xf32>, tensor<8xf32>, tensor<2x2xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]

// A use between them closes the bucket; other groups, reductions, element
// types, scalars and async starts stay apart.
// CHECK-LABEL: func.func @apart
// CHECK:         dtensor.all_reduce %arg1, %arg0 mesh_dims = [0] reduce = sum
// CHECK:         linalg.exp
// CHECK:         dtensor.all_reduce %arg1, %arg0 mesh_dims = [1] reduce = sum
// CHECK:         dtensor.all_reduce %arg1, %arg0 mesh_dims = [0] reduce = max
// CHECK:         dtensor.all_reduce %arg3, %arg0 mesh_dims = [0] reduce = sum : tensor<8xi32>
// CHECK:         dtensor.all_reduce %arg4, %arg0 mesh_dims = [0] reduce = sum : tensor<f32>
// CHECK:         dtensor.all_reduce %arg2, %arg0 mesh_dims = [0] reduce = sum {{.*}}-> !dtensor.future
// CHECK:         dtensor.all_reduce %arg1, %arg0 mesh_dims = [0] reduce = sum : tensor<8xf32>
func.func @apart(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8xf32>, %y: tensor<8xf32>, %i: tensor<8xi32>, %s: tensor<f32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>) {
  %a = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = sum : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %u = linalg.exp ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %b = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
  %c = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = max : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
  %d = dtensor.all_reduce %i, %m mesh_dims = [0] reduce = sum : tensor<8xi32>, !dtensor.device_mesh<@mesh> -> tensor<8xi32>
  %f = dtensor.all_reduce %s, %m mesh_dims = [0] reduce = sum : tensor<f32>, !dtensor.device_mesh<@mesh> -> tensor<f32>
  %g = dtensor.all_reduce %y, %m mesh_dims = [0] reduce = sum : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8xf32>>
  %h = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = sum : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32>
  %w = dtensor.wait %g : !dtensor.future<tensor<8xf32>>
  return %u, %b, %c, %d, %f, %w, %h : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>
}

// -----

dtensor.mesh @mesh shape = [2, 2] names = ["a", "b"]

// A result type with dynamic sizes (legal: the input is static): the
// piece is expanded to the input's shape and cast to the result type (it
// crashed in tensor.expand_shape's shape inference; found by probing).
// CHECK-LABEL: func.func @dynamic_results
// CHECK:         %[[R:.+]] = dtensor.all_reduce {{.*}} : tensor<19xf32>
// CHECK:         %[[E:.+]] = tensor.expand_shape {{.*}} output_shape [2, 8] : tensor<16xf32> into tensor<2x8xf32>
// CHECK-NEXT:    tensor.cast %[[E]] : tensor<2x8xf32> to tensor<?x8xf32>
// CHECK:         %[[F:.+]] = tensor.expand_shape {{.*}} output_shape [3] : tensor<3xf32> into tensor<3xf32>
// CHECK-NEXT:    tensor.cast %[[F]] : tensor<3xf32> to tensor<?xf32>
// A limit near INT64_MAX merges without overflowing the byte count.
// HUGE-LABEL: func.func @dynamic_results
// HUGE:         dtensor.all_reduce {{.*}} : tensor<19xf32>
// HUGE-NOT:     dtensor.all_reduce
func.func @dynamic_results(%m: !dtensor.device_mesh<@mesh>, %x: tensor<2x8xf32>, %y: tensor<3xf32>) -> (tensor<?x8xf32>, tensor<?xf32>) {
  %a = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x8xf32>
  %b = dtensor.all_reduce %y, %m mesh_dims = [1] reduce = sum : tensor<3xf32>, !dtensor.device_mesh<@mesh> -> tensor<?xf32>
  return %a, %b : tensor<?x8xf32>, tensor<?xf32>
}
