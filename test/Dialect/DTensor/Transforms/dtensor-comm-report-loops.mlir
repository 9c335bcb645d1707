// RUN: dtensor-opt %s --dtensor-comm-report -o /dev/null 2>&1 | FileCheck %s
// RUN: dtensor-opt %s --dtensor-comm-report=json=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON

// Loops without a static trip count are counted once and marked; a function
// still in the global view (or with redistributes not yet lowered) says why
// it has no collectives yet instead of "no collectives".

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]

// CHECK-LABEL: func @unknown_trips: 9 collectives, 2304 bytes/rank; 1 collective op in loops of unknown trip count, counted once per such loop
// CHECK-NEXT:    all_reduce  9  2304 bytes  mesh @mesh dims ["tp"]
// JSON: "name": "unknown_trips", "collectives": {"all_reduce": {"count": 9, "bytes": 2304, "dynamic": 0, "async": 0, "in_unknown_loops": 1,
func.func @unknown_trips(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>, %n: index) {
  %lb = arith.constant 0 : index
  %ub = arith.constant 8 : index
  %step = arith.constant 1 : index
  scf.for %i = %lb to %ub step %step {
    %0 = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum
        : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  }
  scf.for %i = %lb to %n step %step {
    %1 = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum
        : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  }
  return
}

// CHECK-LABEL: func @global_view: no collectives yet: it is still in the global view: collectives appear after --dtensor-partition and --dtensor-lower-redistribute (or --dtensor-compile)
// JSON: "name": "global_view", "not_yet": "it is still in the global view
func.func @global_view(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>> {
  %r = dtensor.redistribute %x, %m : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh>
      -> tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>
  return %r : tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>
}

// CHECK-LABEL: func @plain: no collectives
// CHECK-NOT: yet
func.func @plain(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
