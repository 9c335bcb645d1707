// RUN: dtensor-opt %s --dtensor-comm-report -o /dev/null 2>&1 | FileCheck %s
// RUN: dtensor-opt %s --dtensor-comm-report="peak-tflops=25 memory-gbs=1000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SLOW
// RUN: dtensor-opt %s --dtensor-comm-report=json=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON

// The modeled step time: ops replayed in program order on a compute and a
// communication stream. A 1024^3 f32 matmul is 2.1 GFLOP: 42.9 us at the
// default 50 TFLOP/s (its 12 MiB take 6.3 us at 2,000 GB/s, so it is
// compute-bound); a 1 MiB all_reduce over 4 ranks is 6.6 + 6 * 0.6 +
// 1 MiB * 6/4 / 87.7 GB/s = 28.1 us.

dtensor.mesh @mesh shape = [4] names = ["tp"]

// A synchronous all_reduce holds both streams: the step is their sum.
// CHECK-LABEL: func @sync: 1 collective, 1048576 bytes/rank
// CHECK:         modeled step: 71.1 us per rank (compute 42.9 us, communication 28.1 us, 0.0 us of it hidden)
// SLOW-LABEL:  func @sync:
// SLOW:          modeled step: 114.0 us per rank (compute 85.9 us, communication 28.1 us, 0.0 us of it hidden)
func.func @sync(%m: !dtensor.device_mesh<@mesh>, %g: tensor<512x512xf32>,
                %a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>,
                %c: tensor<1024x1024xf32>) -> (tensor<512x512xf32>, tensor<1024x1024xf32>) {
  %r = dtensor.all_reduce %g, %m mesh_dims = [0] reduce = sum : tensor<512x512xf32>, !dtensor.device_mesh<@mesh> -> tensor<512x512xf32>
  %p = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r, %p : tensor<512x512xf32>, tensor<1024x1024xf32>
}

// Started before the matmul and waited for after it, the all_reduce runs
// behind it: the step is the matmul's, all 28.1 us hidden.
// CHECK-LABEL: func @overlapped: 1 collective, 1048576 bytes/rank (1 async)
// CHECK:         modeled step: 42.9 us per rank (compute 42.9 us, communication 28.1 us, 28.1 us of it hidden)
func.func @overlapped(%m: !dtensor.device_mesh<@mesh>, %g: tensor<512x512xf32>,
                      %a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>,
                      %c: tensor<1024x1024xf32>) -> (tensor<512x512xf32>, tensor<1024x1024xf32>) {
  %f = dtensor.all_reduce %g, %m mesh_dims = [0] reduce = sum : tensor<512x512xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<512x512xf32>>
  %p = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = dtensor.wait %f : !dtensor.future<tensor<512x512xf32>>
  return %r, %p : tensor<512x512xf32>, tensor<1024x1024xf32>
}

// An all_reduce of the matmul's result cannot start before it: nothing to
// hide. A loop of 3 trips counts its body 3 times.
// CHECK-LABEL: func @dependent: 3 collectives, 12582912 bytes/rank (3 async)
// CHECK:         modeled step: 374.7 us per rank (compute 128.8 us, communication 245.8 us,
// CHECK-SAME:    0.0 us of it hidden)
func.func @dependent(%m: !dtensor.device_mesh<@mesh>, %a: tensor<1024x1024xf32>,
                     %b: tensor<1024x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %out = scf.for %i = %c0 to %c3 step %c1 iter_args(%x = %c) -> (tensor<1024x1024xf32>) {
    %p = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%x : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    %f = dtensor.all_reduce %p, %m mesh_dims = [0] reduce = sum : tensor<1024x1024xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<1024x1024xf32>>
    %r = dtensor.wait %f : !dtensor.future<tensor<1024x1024xf32>>
    scf.yield %r : tensor<1024x1024xf32>
  }
  return %out : tensor<1024x1024xf32>
}

// JSON: {"name": "overlapped", {{.*}} "modeled": {"step_us": 42.95, "compute_us": 42.95, "comm_us": 28.135, "hidden_us": 28.135, "unknown_ops": 0}}

// A value ready before a loop is not waited for again in every trip: one
// all_gather into 1 MiB (6.6 + 3 * 0.6 + 1 MiB * 3/4 / 87.7 GB/s = 17.4
// us), then 10 trips of an element-wise add whose operands and result are
// 4 MiB (2.1 us each at 2,000 GB/s).
// CHECK-LABEL: func @gather_then_loop: 1 collective, 1048576 bytes/rank
// CHECK:         modeled step: 38.3 us per rank (compute 21.0 us, communication 17.4 us, 0.0 us of it hidden)
func.func @gather_then_loop(%m: !dtensor.device_mesh<@mesh>, %x: tensor<64x1024xf32>,
                            %acc: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %g = dtensor.all_gather %x, %m mesh_dims = [0] gather_dim = 0 : tensor<64x1024xf32>, !dtensor.device_mesh<@mesh> -> tensor<256x1024xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %out = scf.for %i = %c0 to %c10 step %c1 iter_args(%a = %acc) -> (tensor<256x1024xf32>) {
    %s = linalg.add ins(%a, %g : tensor<256x1024xf32>, tensor<256x1024xf32>) outs(%a : tensor<256x1024xf32>) -> tensor<256x1024xf32>
    scf.yield %s : tensor<256x1024xf32>
  }
  return %out : tensor<256x1024xf32>
}

// A buffer of dynamic size (an uneven shard's piece) is counted at its
// latency, 6.6 + 6 * 0.6 = 10.2 us over 4 ranks (it was counted as nothing:
// a step of 0.0 us for a function that communicates).
// CHECK-LABEL: func @dynamic_size: 1 collective, 0 bytes/rank + 1 of dynamic size
// CHECK:         modeled step: 10.2 us per rank (compute 0.0 us, communication 10.2 us, 0.0 us of it hidden); 1 op(s) of dynamic size (compute not counted, collectives at their latency)
func.func @dynamic_size(%m: !dtensor.device_mesh<@mesh>, %g: tensor<?xf32>) -> tensor<?xf32> {
  %r = dtensor.all_reduce %g, %m mesh_dims = [0] reduce = sum : tensor<?xf32>, !dtensor.device_mesh<@mesh> -> tensor<?xf32>
  return %r : tensor<?xf32>
}
