// RUN: dtensor-run %s --all-entries --verify --report | FileCheck %s
// Specs on sub-meshes and flattened views in the global view. A value on a
// sub-mesh is one logical tensor per group of that sub-mesh, as each process
// group holds its own DTensor: here each dp group's rows become a DTensor on
// its tp sub-mesh (mesh["tp"]), the groups holding different values, and
// tensor parallelism runs on the tp sub-mesh as parallelize_module(mlp,
// mesh["tp"], ...) sets it up. Every rank of the compiled program is
// compared with its group's value (also as an MPI job, in
// Target/Cpp/mpi-run.test).
dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

// Each dp group's rows become a DTensor on its tp sub-mesh; groups hold
// different values.
func.func @api(%m: !dtensor.device_mesh<@mesh>, %tp: !dtensor.device_mesh<@mesh[1]>,
               %x: tensor<8x6xf32, #dtensor.spec<@mesh, [S(0), R]>>)
    -> (tensor<8x6xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<4x6xf32>) {
  %xl = dtensor.to_local %x : tensor<8x6xf32, #dtensor.spec<@mesh, [S(0), R]>> -> tensor<4x6xf32>
  %xt = dtensor.from_local %xl, %tp : tensor<4x6xf32>, !dtensor.device_mesh<@mesh[1]> -> tensor<4x6xf32, #dtensor.spec<@mesh[1], [R]>>
  %s = dtensor.redistribute %xt, %tp : tensor<4x6xf32, #dtensor.spec<@mesh[1], [R]>>, !dtensor.device_mesh<@mesh[1]> -> tensor<4x6xf32, #dtensor.spec<@mesh[1], [S(1)]>>
  %b = dtensor.redistribute %s, %tp : tensor<4x6xf32, #dtensor.spec<@mesh[1], [S(1)]>>, !dtensor.device_mesh<@mesh[1]> -> tensor<4x6xf32, #dtensor.spec<@mesh[1], [R]>>
  %bl = dtensor.to_local %b : tensor<4x6xf32, #dtensor.spec<@mesh[1], [R]>> -> tensor<4x6xf32>
  %out = dtensor.from_local %bl, %m : tensor<4x6xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x6xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %f = dtensor.full_tensor %s, %tp : tensor<4x6xf32, #dtensor.spec<@mesh[1], [S(1)]>>, !dtensor.device_mesh<@mesh[1]> -> tensor<4x6xf32>
  return %out, %f : tensor<8x6xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<4x6xf32>
}

// Tensor parallelism on the tp sub-mesh of a dp x tp mesh (as
// parallelize_module(mlp, mesh["tp"], ...) does): weights on the sub-mesh,
// activations per dp group.
func.func @tp_mlp(%m: !dtensor.device_mesh<@mesh>, %tp: !dtensor.device_mesh<@mesh[1]>,
                  %x: tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>,
                  %w1: tensor<16x32xf32, #dtensor.spec<@mesh[1], [S(1)]>>,
                  %w2: tensor<32x16xf32, #dtensor.spec<@mesh[1], [S(0)]>>)
    -> tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %xl = dtensor.to_local %x : tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>> -> tensor<4x16xf32>
  %xt = dtensor.from_local %xl, %tp : tensor<4x16xf32>, !dtensor.device_mesh<@mesh[1]> -> tensor<4x16xf32, #dtensor.spec<@mesh[1], [R]>>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x32xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x32xf32>) -> tensor<4x32xf32>
  %h = linalg.matmul ins(%xt, %w1 : tensor<4x16xf32, #dtensor.spec<@mesh[1], [R]>>, tensor<16x32xf32, #dtensor.spec<@mesh[1], [S(1)]>>)
                     outs(%z1 : tensor<4x32xf32>) -> tensor<4x32xf32>
  // A hint on a value that differs per dp group: each group's own.
  %hh = dtensor.hint %h, %tp priority 0 : tensor<4x32xf32>, !dtensor.device_mesh<@mesh[1]> -> tensor<4x32xf32, #dtensor.spec<@mesh[1], [S(1)]>>
  %g = math.tanh %h : tensor<4x32xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.matmul ins(%g, %w2 : tensor<4x32xf32>, tensor<32x16xf32, #dtensor.spec<@mesh[1], [S(0)]>>)
                     outs(%z2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = dtensor.distribute_tensor %y, %tp : tensor<4x16xf32>, !dtensor.device_mesh<@mesh[1]> -> tensor<4x16xf32, #dtensor.spec<@mesh[1], [R]>>
  %rl = dtensor.to_local %r : tensor<4x16xf32, #dtensor.spec<@mesh[1], [R]>> -> tensor<4x16xf32>
  %out = dtensor.from_local %rl, %m : tensor<4x16xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %out : tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>
}
// A flattened view of both dims (mesh["dp", "tp"]._flatten()): 10 rows over
// its 4 ranks (3, 3, 3, 1).
func.func @flat(%f: !dtensor.device_mesh<@mesh[(0, 1)]>, %x: tensor<10x3xf32, #dtensor.spec<@mesh[(0, 1)], [S(0)]>>) -> tensor<10x3xf32, #dtensor.spec<@mesh[(0, 1)], [R]>> {
  %r = dtensor.redistribute %x, %f : tensor<10x3xf32, #dtensor.spec<@mesh[(0, 1)], [S(0)]>>, !dtensor.device_mesh<@mesh[(0, 1)]> -> tensor<10x3xf32, #dtensor.spec<@mesh[(0, 1)], [R]>>
  return %r : tensor<10x3xf32, #dtensor.spec<@mesh[(0, 1)], [R]>>
}

// CHECK-LABEL: ran @api on 4 rank(s)
// CHECK:       output 1: per rank
// CHECK-NEXT:    rank 0: 4x6 f32 sum=[[G0:[-0-9.e]+]]
// CHECK-NEXT:    rank 1: 4x6 f32 sum=[[G0]]
// CHECK-NEXT:    rank 2: 4x6 f32 sum=[[G1:[-0-9.e]+]]
// CHECK-NEXT:    rank 3: 4x6 f32 sum=[[G1]]
// CHECK-NEXT:  verified @api: 2 output(s)
// CHECK-NEXT:  communication: 1 collective, 96 bytes/rank
// CHECK-NEXT:    all_gather         1         96 bytes  mesh dims ["tp"]
// CHECK:       verified @tp_mlp: 1 output(s)
// CHECK-NEXT:  communication: 1 collective, 256 bytes/rank
// CHECK-NEXT:    all_reduce         1        256 bytes  mesh dims ["tp"]
// CHECK:       verified @flat: 1 output(s)
// CHECK-NEXT:  communication: 1 collective, 144 bytes/rank
// CHECK-NEXT:    all_gather         1        144 bytes  mesh dims ["dp", "tp"]
// CHECK:       verified 3 of 3 function(s)
