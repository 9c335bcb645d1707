// RUN: dtensor-run %s --all-entries --verify --report | FileCheck %s
// RUN: dtensor-opt %s | dtensor-opt | FileCheck %s --check-prefix=ROUNDTRIP
// Several meshes in one program: two arrangements of the same four ranks,
// as DTensor's init_device_mesh((4,)) and init_device_mesh((2, 2)) over one
// world. Each value lives on its own mesh; local_map takes inputs from both
// (DTensor's multi-mesh local_map inputs, each seen in placements on its own
// mesh); to_local on one mesh and from_local on the other hand a rank's
// shard across; collectives run on the groups of their own mesh. Every
// rank of the compiled program is compared with the global view (and as a
// real MPI job in Target/Cpp/mpi-run.test).

dtensor.mesh @world shape = [4] names = ["x"]
dtensor.mesh @grid shape = [2, 2] names = ["dp", "tp"]

// ROUNDTRIP-LABEL: func.func @multi_mesh_inputs
// ROUNDTRIP: dtensor.local_map %{{.*}}, %{{.*}} on %{{.*}} : !dtensor.device_mesh<@grid> in_specs = [#dtensor.spec<@world, [S(1)]>, #dtensor.spec<@grid, [S(0), S(1)]>] {
// X (8x32) is column-sharded over all four ranks on @world, W (16x8) is
// sharded on both dims of @grid; each rank multiplies its 8x4 block of W by
// the first four rows of its 8x8 block of X, and the 8x8 blocks make a
// 16x16 result on @grid.
func.func @multi_mesh_inputs(%world: !dtensor.device_mesh<@world>,
                             %grid: !dtensor.device_mesh<@grid>,
                             %x: tensor<8x32xf32, #dtensor.spec<@world, [S(1)]>>,
                             %w: tensor<16x8xf32, #dtensor.spec<@grid, [S(0), S(1)]>>)
    -> tensor<16x16xf32, #dtensor.spec<@grid, [R, R]>> {
  %y = dtensor.local_map %x, %w on %grid : !dtensor.device_mesh<@grid>
      in_specs = [#dtensor.spec<@world, [S(1)]>, #dtensor.spec<@grid, [S(0), S(1)]>] {
  ^bb0(%lx: tensor<8x8xf32>, %lw: tensor<8x4xf32>):
    %top = tensor.extract_slice %lx[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<8x8xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %p = linalg.matmul ins(%lw, %top : tensor<8x4xf32>, tensor<4x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    dtensor.yield %p : tensor<8x8xf32>
  } : (tensor<8x32xf32, #dtensor.spec<@world, [S(1)]>>, tensor<16x8xf32, #dtensor.spec<@grid, [S(0), S(1)]>>)
    -> tensor<16x16xf32, #dtensor.spec<@grid, [S(0), S(1)]>>
  %r = dtensor.redistribute %y, %grid : tensor<16x16xf32, #dtensor.spec<@grid, [S(0), S(1)]>>, !dtensor.device_mesh<@grid> -> tensor<16x16xf32, #dtensor.spec<@grid, [R, R]>>
  return %r : tensor<16x16xf32, #dtensor.spec<@grid, [R, R]>>
}

// An input on another mesh than the handle's is redistributed on its own
// mesh before the region sees it (redistribute_inputs): X comes replicated
// on @grid and is seen with its 10 columns split over dp then tp (3, 2, 3,
// 2: a slice, no collective); each rank sums its columns of every row, a
// Partial on @world that one all_reduce over @world's ranks makes whole.
func.func @redistribute_on_own_mesh(%world: !dtensor.device_mesh<@world>,
                                    %grid: !dtensor.device_mesh<@grid>,
                                    %x: tensor<6x10xf32, #dtensor.spec<@grid, [R, R]>>)
    -> tensor<6xf32, #dtensor.spec<@world, [R]>> {
  %p = dtensor.local_map %x on %world : !dtensor.device_mesh<@world>
      in_specs = [#dtensor.spec<@grid, [S(1), S(1)]>] redistribute_inputs {
  ^bb0(%lx: tensor<6x?xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<6xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
    %s = linalg.reduce ins(%lx : tensor<6x?xf32>) outs(%z : tensor<6xf32>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %a = arith.addf %in, %acc : f32
        linalg.yield %a : f32
      }
    dtensor.yield %s : tensor<6xf32>
  } : (tensor<6x10xf32, #dtensor.spec<@grid, [R, R]>>) -> tensor<6xf32, #dtensor.spec<@world, [P(sum)]>>
  %r = dtensor.redistribute %p, %world : tensor<6xf32, #dtensor.spec<@world, [P(sum)]>>, !dtensor.device_mesh<@world> -> tensor<6xf32, #dtensor.spec<@world, [R]>>
  return %r : tensor<6xf32, #dtensor.spec<@world, [R]>>
}

// A rank's shard handed from one mesh to the other: rows over @world's four
// ranks are rows over @grid's dp then tp, so to_local / from_local move
// nothing; then a collective on each mesh.
func.func @across(%world: !dtensor.device_mesh<@world>,
                  %grid: !dtensor.device_mesh<@grid>,
                  %x: tensor<8x4xf32, #dtensor.spec<@world, [S(0)]>>)
    -> (tensor<8x4xf32, #dtensor.spec<@grid, [R, S(0)]>>, tensor<8x4xf32, #dtensor.spec<@world, [R]>>) {
  %l = dtensor.to_local %x : tensor<8x4xf32, #dtensor.spec<@world, [S(0)]>> -> tensor<2x4xf32>
  %g = dtensor.from_local %l, %grid : tensor<2x4xf32>, !dtensor.device_mesh<@grid> -> tensor<8x4xf32, #dtensor.spec<@grid, [S(0), S(0)]>>
  %a = dtensor.redistribute %g, %grid : tensor<8x4xf32, #dtensor.spec<@grid, [S(0), S(0)]>>, !dtensor.device_mesh<@grid> -> tensor<8x4xf32, #dtensor.spec<@grid, [R, S(0)]>>
  %b = dtensor.redistribute %x, %world : tensor<8x4xf32, #dtensor.spec<@world, [S(0)]>>, !dtensor.device_mesh<@world> -> tensor<8x4xf32, #dtensor.spec<@world, [R]>>
  return %a, %b : tensor<8x4xf32, #dtensor.spec<@grid, [R, S(0)]>>, tensor<8x4xf32, #dtensor.spec<@world, [R]>>
}

// CHECK:      verified @multi_mesh_inputs: 1 output(s)
// CHECK-NEXT: communication: 2 collectives, 1536 bytes/rank
// CHECK-NEXT:   all_gather         2       1536 bytes  mesh dims @grid["tp"], @grid["dp"]
// CHECK:      verified @redistribute_on_own_mesh: 1 output(s)
// CHECK-NEXT: communication: 1 collective, 24 bytes/rank
// CHECK-NEXT:   all_reduce         1         24 bytes  mesh dims @world["x"]
// CHECK:      verified @across: 2 output(s)
// CHECK-NEXT: communication: 2 collectives, 256 bytes/rank
// CHECK-NEXT:   all_gather         2        256 bytes  mesh dims @grid["dp", "tp"], @world["x"]
// CHECK:      verified 3 of 3 function(s)
