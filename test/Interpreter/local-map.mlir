// RUN: dtensor-run %s --all-entries --verify --report | FileCheck %s
// RUN: dtensor-opt %s | dtensor-opt | FileCheck %s --check-prefix=ROUNDTRIP
// local_map on every rank against the global view: inputs in another spec
// are redistributed (redistribute_inputs), the region runs on local shards
// (uneven rows: 9 over dp), and the yields become the results' shards.

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

// ROUNDTRIP-LABEL: func.func @rowwise
// ROUNDTRIP: dtensor.local_map %{{.*}}, %{{.*}} on %{{.*}} : !dtensor.device_mesh<@mesh> in_specs = [#dtensor.spec<@mesh, [S(0), R]>, #dtensor.spec<@mesh, [R, R]>] redistribute_inputs {
// ROUNDTRIP: dtensor.yield %{{.*}} : tensor<?x4xf32>
// ROUNDTRIP: } : (tensor<9x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>>) -> tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
func.func @rowwise(%m: !dtensor.device_mesh<@mesh>,
                   %x: tensor<9x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
                   %w: tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>>)
    -> tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %r = dtensor.local_map %x, %w on %m : !dtensor.device_mesh<@mesh>
      in_specs = [#dtensor.spec<@mesh, [S(0), R]>, #dtensor.spec<@mesh, [R, R]>] redistribute_inputs {
  ^bb0(%lx: tensor<?x4xf32>, %lw: tensor<4x4xf32>):
    %c0 = arith.constant 0 : index
    %rows = tensor.dim %lx, %c0 : tensor<?x4xf32>
    %e = tensor.empty(%rows) : tensor<?x4xf32>
    %zero = arith.constant 0.0 : f32
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
    %y = linalg.matmul ins(%lx, %lw : tensor<?x4xf32>, tensor<4x4xf32>) outs(%z : tensor<?x4xf32>) -> tensor<?x4xf32>
    %t = math.tanh %y : tensor<?x4xf32>
    dtensor.yield %t : tensor<?x4xf32>
  } : (tensor<9x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>>) -> tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// A local_map whose result is Partial: each rank's column sums of its rows.
func.func @partial_out(%m: !dtensor.device_mesh<@mesh>,
                       %x: tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<4xf32, #dtensor.spec<@mesh, [R, R]>> {
  %p = dtensor.local_map %x on %m : !dtensor.device_mesh<@mesh>
      in_specs = [#dtensor.spec<@mesh, [S(0), R]>] {
  ^bb0(%lx: tensor<?x4xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %s = linalg.reduce ins(%lx : tensor<?x4xf32>) outs(%z : tensor<4xf32>) dimensions = [0]
      (%in: f32, %acc: f32) {
        %a = arith.addf %in, %acc : f32
        linalg.yield %a : f32
      }
    dtensor.yield %s : tensor<4xf32>
  } : (tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<4xf32, #dtensor.spec<@mesh, [P(sum), R]>>
  %r = dtensor.redistribute %p, %m : tensor<4xf32, #dtensor.spec<@mesh, [P(sum), R]>>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [R, R]>>
  return %r : tensor<4xf32, #dtensor.spec<@mesh, [R, R]>>
}

// CHECK:      verified @rowwise: 1 output(s)
// CHECK-NEXT: communication: 1 collective
// CHECK-NEXT:   all_gather         1         80 bytes  mesh dims ["tp"]
// CHECK:      verified @partial_out: 1 output(s)
// CHECK-NEXT: communication: 1 collective
// CHECK-NEXT:   all_reduce         1         16 bytes  mesh dims ["dp"]
// CHECK:      verified @yield_arg: 1 output(s)
// CHECK-NEXT: communication: 1 collective
// CHECK-NEXT:   all_gather         1         64 bytes  mesh dims ["tp"]
// CHECK:      verified 3 of 3 function(s)

// A region that yields its own argument: the result is the redistributed
// input (partitioning must not leave a use of the inlined region's
// argument).
func.func @yield_arg(%m: !dtensor.device_mesh<@mesh>,
                     %x: tensor<8x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>)
    -> tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %r = dtensor.local_map %x on %m : !dtensor.device_mesh<@mesh>
      in_specs = [#dtensor.spec<@mesh, [S(0), R]>] redistribute_inputs {
  ^bb0(%lx: tensor<4x4xf32>):
    dtensor.yield %lx : tensor<4x4xf32>
  } : (tensor<8x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>) -> tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
}
