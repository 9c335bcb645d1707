// RUN: dtensor-opt %s | dtensor-opt | FileCheck %s
// RUN: dtensor-opt %s --mlir-print-op-generic | dtensor-opt | FileCheck %s

// Round trip of every dtensor op, in the custom form and through the generic
// form.

// CHECK: dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]{{$}}
dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
// CHECK-NEXT: dtensor.mesh @ring shape = [8]{{$}}
dtensor.mesh @ring shape = [8]
// CHECK-NEXT: dtensor.mesh @cube shape = [2, 3, 2] names = ["pp", "dp", "tp"]{{$}}
dtensor.mesh @cube shape = [2, 3, 2] names = ["pp", "dp", "tp"]
// CHECK-NEXT: dtensor.mesh @square shape = [2, 2]{{$}}
dtensor.mesh @square shape = [2, 2]
// CHECK-NEXT: dtensor.mesh @one shape = [1] names = ["x"]{{$}}
dtensor.mesh @one shape = [1] names = ["x"]

//===----------------------------------------------------------------------===//
// submesh / flatten
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @submesh
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[C:[a-z0-9_]+]]: !dtensor.device_mesh<@cube>)
func.func @submesh(%m: !dtensor.device_mesh<@mesh>, %c: !dtensor.device_mesh<@cube>)
    -> (!dtensor.device_mesh<@mesh[0]>, !dtensor.device_mesh<@mesh[1]>,
        !dtensor.device_mesh<@mesh>, !dtensor.device_mesh<@cube[0, 2]>,
        !dtensor.device_mesh<@cube[2]>, !dtensor.device_mesh<@cube[1, 2]>) {
  // CHECK: %[[DP:.+]] = dtensor.submesh %[[M]] ["dp"] : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[0]>
  %dp = dtensor.submesh %m ["dp"] : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[0]>
  // CHECK-NEXT: %[[TP:.+]] = dtensor.submesh %[[M]] ["tp"] : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[1]>
  %tp = dtensor.submesh %m ["tp"] : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[1]>
  // Naming every dim gives the mesh itself.
  // CHECK-NEXT: %[[ALL:.+]] = dtensor.submesh %[[M]] ["dp", "tp"] : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh>
  %all = dtensor.submesh %m ["dp", "tp"] : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh>
  // CHECK-NEXT: %[[PPTP:.+]] = dtensor.submesh %[[C]] ["pp", "tp"] : !dtensor.device_mesh<@cube> -> !dtensor.device_mesh<@cube[0, 2]>
  %pptp = dtensor.submesh %c ["pp", "tp"] : !dtensor.device_mesh<@cube> -> !dtensor.device_mesh<@cube[0, 2]>
  // A sub-mesh of a sub-mesh.
  // CHECK-NEXT: %[[CTP:.+]] = dtensor.submesh %[[PPTP]] ["tp"] : !dtensor.device_mesh<@cube[0, 2]> -> !dtensor.device_mesh<@cube[2]>
  %ctp = dtensor.submesh %pptp ["tp"] : !dtensor.device_mesh<@cube[0, 2]> -> !dtensor.device_mesh<@cube[2]>
  // CHECK-NEXT: %[[DPTP:.+]] = dtensor.submesh %[[C]] ["dp", "tp"] {note = "kept"} : !dtensor.device_mesh<@cube> -> !dtensor.device_mesh<@cube[1, 2]>
  %dptp = dtensor.submesh %c ["dp", "tp"] {note = "kept"} : !dtensor.device_mesh<@cube> -> !dtensor.device_mesh<@cube[1, 2]>
  // CHECK-NEXT: return %[[DP]], %[[TP]], %[[ALL]], %[[PPTP]], %[[CTP]], %[[DPTP]]
  return %dp, %tp, %all, %pptp, %ctp, %dptp
      : !dtensor.device_mesh<@mesh[0]>, !dtensor.device_mesh<@mesh[1]>,
        !dtensor.device_mesh<@mesh>, !dtensor.device_mesh<@cube[0, 2]>,
        !dtensor.device_mesh<@cube[2]>, !dtensor.device_mesh<@cube[1, 2]>
}

// CHECK-LABEL: func.func @flatten
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[V:[a-z0-9_]+]]: !dtensor.device_mesh<@cube[0, 2]>, %[[R:[a-z0-9_]+]]: !dtensor.device_mesh<@ring>)
func.func @flatten(%m: !dtensor.device_mesh<@mesh>, %v: !dtensor.device_mesh<@cube[0, 2]>, %r: !dtensor.device_mesh<@ring>)
    -> (!dtensor.device_mesh<@mesh[(0, 1)]>, !dtensor.device_mesh<@cube[(0, 2)]>,
        !dtensor.device_mesh<@ring[(0)]>) {
  // CHECK: %[[F0:.+]] = dtensor.flatten %[[M]] : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[(0, 1)]>
  %f0 = dtensor.flatten %m : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[(0, 1)]>
  // CHECK-NEXT: %[[F1:.+]] = dtensor.flatten %[[V]] : !dtensor.device_mesh<@cube[0, 2]> -> !dtensor.device_mesh<@cube[(0, 2)]>
  %f1 = dtensor.flatten %v : !dtensor.device_mesh<@cube[0, 2]> -> !dtensor.device_mesh<@cube[(0, 2)]>
  // CHECK-NEXT: %[[F2:.+]] = dtensor.flatten %[[R]] : !dtensor.device_mesh<@ring> -> !dtensor.device_mesh<@ring[(0)]>
  %f2 = dtensor.flatten %r : !dtensor.device_mesh<@ring> -> !dtensor.device_mesh<@ring[(0)]>
  // CHECK-NEXT: return %[[F0]], %[[F1]], %[[F2]]
  return %f0, %f1, %f2 : !dtensor.device_mesh<@mesh[(0, 1)]>, !dtensor.device_mesh<@cube[(0, 2)]>, !dtensor.device_mesh<@ring[(0)]>
}

//===----------------------------------------------------------------------===//
// distribute_tensor
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @distribute_tensor
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[T:[a-z0-9_]+]]: tensor<16x8xf32>, %[[TP:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh[1]>, %[[U:[a-z0-9_]+]]: tensor<9x?xf32>)
func.func @distribute_tensor(%m: !dtensor.device_mesh<@mesh>, %t: tensor<16x8xf32>,
                             %tp: !dtensor.device_mesh<@mesh[1]>, %u: tensor<9x?xf32>) {
  // CHECK: %[[D0:.+]] = dtensor.distribute_tensor %[[T]], %[[M]] src_rank = 0 : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  %d0 = dtensor.distribute_tensor %t, %m src_rank = 0 : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  // src_rank may be as large as the smallest mesh dim allows (dp has 2 ranks).
  // CHECK-NEXT: dtensor.distribute_tensor %[[T]], %[[M]] src_rank = 1 : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  %d1 = dtensor.distribute_tensor %t, %m src_rank = 1 : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  // Without src_rank (src_data_rank=None).
  // CHECK-NEXT: dtensor.distribute_tensor %[[T]], %[[M]] : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %d2 = dtensor.distribute_tensor %t, %m : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  // On a sub-mesh handle, with src_rank up to that mesh dim's size.
  // CHECK-NEXT: dtensor.distribute_tensor %[[T]], %[[TP]] src_rank = 3 : tensor<16x8xf32>, !dtensor.device_mesh<@mesh[1]> -> tensor<16x8xf32, #dtensor.spec<@mesh[1], [S(1)]>>
  %d3 = dtensor.distribute_tensor %t, %tp src_rank = 3 : tensor<16x8xf32>, !dtensor.device_mesh<@mesh[1]> -> tensor<16x8xf32, #dtensor.spec<@mesh[1], [S(1)]>>
  // Uneven and dynamic global shapes.
  // CHECK-NEXT: dtensor.distribute_tensor %[[U]], %[[M]] : tensor<9x?xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x?xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %d4 = dtensor.distribute_tensor %u, %m : tensor<9x?xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x?xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  return
}

//===----------------------------------------------------------------------===//
// from_local / to_local
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @from_local
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[L:[a-z0-9_]+]]: tensor<8x2xf32>, %[[LU:[a-z0-9_]+]]: tensor<?x2xf32>, %[[LF:[a-z0-9_]+]]: tensor<16x8xf32>)
func.func @from_local(%m: !dtensor.device_mesh<@mesh>, %l: tensor<8x2xf32>, %lu: tensor<?x2xf32>, %lf: tensor<16x8xf32>) {
  // Static local dims, with and without run_check.
  // CHECK: dtensor.from_local %[[L]], %[[M]] run_check : tensor<8x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %a = dtensor.from_local %l, %m run_check : tensor<8x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  // CHECK-NEXT: dtensor.from_local %[[L]], %[[M]] : tensor<8x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %b = dtensor.from_local %l, %m : tensor<8x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  // A static local dim may also be left dynamic.
  // CHECK-NEXT: dtensor.from_local %[[LU]], %[[M]] : tensor<?x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %c = dtensor.from_local %lu, %m : tensor<?x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  // Uneven: 9 rows on 2 ranks are 5 and 4, so the local dim is '?'.
  // CHECK-NEXT: dtensor.from_local %[[LU]], %[[M]] run_check : tensor<?x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %d = dtensor.from_local %lu, %m run_check : tensor<?x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  // Dynamic global dim: dynamic local dim; the other dim stays static.
  // CHECK-NEXT: dtensor.from_local %[[LU]], %[[M]] : tensor<?x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %e = dtensor.from_local %lu, %m : tensor<?x2xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  // Replicate and Partial keep the whole shape locally.
  // CHECK-NEXT: dtensor.from_local %[[LF]], %[[M]] : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [P(sum), R]>>
  %f = dtensor.from_local %lf, %m : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [P(sum), R]>>
  return
}

// CHECK-LABEL: func.func @from_local_nested
// CHECK-SAME: (%[[S:[a-z0-9_]+]]: !dtensor.device_mesh<@square>, %[[L2:[a-z0-9_]+]]: tensor<2x4xf32>, %[[LU:[a-z0-9_]+]]: tensor<?x4xf32>, %[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[L1:[a-z0-9_]+]]: tensor<2x8xf32>)
func.func @from_local_nested(%s: !dtensor.device_mesh<@square>, %l2: tensor<2x4xf32>, %lu: tensor<?x4xf32>,
                             %m: !dtensor.device_mesh<@mesh>, %l1: tensor<2x8xf32>) {
  // 8 rows as [S(0), S(0)] on 2x2: 2 rows each.
  // CHECK: dtensor.from_local %[[L2]], %[[S]] : tensor<2x4xf32>, !dtensor.device_mesh<@square> -> tensor<8x4xf32, #dtensor.spec<@square, [S(0), S(0)]>>
  %a = dtensor.from_local %l2, %s : tensor<2x4xf32>, !dtensor.device_mesh<@square> -> tensor<8x4xf32, #dtensor.spec<@square, [S(0), S(0)]>>
  // 9 rows as [S(0), S(0)] on 2x2: 3, 2, 2, 2.
  // CHECK-NEXT: dtensor.from_local %[[LU]], %[[S]] : tensor<?x4xf32>, !dtensor.device_mesh<@square> -> tensor<9x4xf32, #dtensor.spec<@square, [S(0), S(0)]>>
  %b = dtensor.from_local %lu, %s : tensor<?x4xf32>, !dtensor.device_mesh<@square> -> tensor<9x4xf32, #dtensor.spec<@square, [S(0), S(0)]>>
  // An explicit shard order that is not the default is kept.
  // CHECK-NEXT: dtensor.from_local %[[L1]], %[[M]] : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>
  %c = dtensor.from_local %l1, %m : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>
  return
}

// CHECK-LABEL: func.func @to_local
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, %[[B:[a-z0-9_]+]]: tensor<9x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, %[[C:[a-z0-9_]+]]: tensor<16x8xf32, #dtensor.spec<@mesh, [P(max), R]>>, %[[D:[a-z0-9_]+]]: tensor<?x8xf32, #dtensor.spec<@mesh[(0, 1)], [S(1)]>>)
func.func @to_local(%a: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>,
                    %b: tensor<9x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>,
                    %c: tensor<16x8xf32, #dtensor.spec<@mesh, [P(max), R]>>,
                    %d: tensor<?x8xf32, #dtensor.spec<@mesh[(0, 1)], [S(1)]>>)
    -> (tensor<8x2xf32>, tensor<?x?xf32>, tensor<16x8xf32>, tensor<?x1xf32>) {
  // CHECK: %[[LA:.+]] = dtensor.to_local %[[A]] : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> -> tensor<8x2xf32>
  %la = dtensor.to_local %a : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> -> tensor<8x2xf32>
  // 9 rows on 2 ranks (5, 4) and 6 cols on 4 ranks (2, 2, 2, 0): both uneven.
  // CHECK-NEXT: %[[LB:.+]] = dtensor.to_local %[[B]] : tensor<9x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> -> tensor<?x?xf32>
  %lb = dtensor.to_local %b : tensor<9x6xf32, #dtensor.spec<@mesh, [S(0), S(1)]>> -> tensor<?x?xf32>
  // CHECK-NEXT: %[[LC:.+]] = dtensor.to_local %[[C]] : tensor<16x8xf32, #dtensor.spec<@mesh, [P(max), R]>> -> tensor<16x8xf32>
  %lc = dtensor.to_local %c : tensor<16x8xf32, #dtensor.spec<@mesh, [P(max), R]>> -> tensor<16x8xf32>
  // 8 cols over the 8 ranks of the flattened view.
  // CHECK-NEXT: %[[LD:.+]] = dtensor.to_local %[[D]] : tensor<?x8xf32, #dtensor.spec<@mesh[(0, 1)], [S(1)]>> -> tensor<?x1xf32>
  %ld = dtensor.to_local %d : tensor<?x8xf32, #dtensor.spec<@mesh[(0, 1)], [S(1)]>> -> tensor<?x1xf32>
  // CHECK-NEXT: return %[[LA]], %[[LB]], %[[LC]], %[[LD]]
  return %la, %lb, %lc, %ld : tensor<8x2xf32>, tensor<?x?xf32>, tensor<16x8xf32>, tensor<?x1xf32>
}

//===----------------------------------------------------------------------===//
// redistribute / full_tensor
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @redistribute
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[X:[a-z0-9_]+]]: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>)
func.func @redistribute(%m: !dtensor.device_mesh<@mesh>, %x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>)
    -> tensor<16x8xf32, #dtensor.spec<@mesh, [P(avg), S(0)]>> {
  // CHECK: %[[R0:.+]] = dtensor.redistribute %[[X]], %[[M]] : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  %r0 = dtensor.redistribute %x, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  // CHECK-NEXT: %[[R1:.+]] = dtensor.redistribute %[[R0]], %[[M]] : tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [P(avg), S(0)]>>
  %r1 = dtensor.redistribute %r0, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [P(avg), S(0)]>>
  // CHECK-NEXT: return %[[R1]]
  return %r1 : tensor<16x8xf32, #dtensor.spec<@mesh, [P(avg), S(0)]>>
}

// CHECK-LABEL: func.func @full_tensor
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[X:[a-z0-9_]+]]: tensor<9x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>, %[[R:[a-z0-9_]+]]: !dtensor.device_mesh<@ring>, %[[Y:[a-z0-9_]+]]: tensor<?xi32, #dtensor.spec<@ring, [S(-1)]>>)
func.func @full_tensor(%m: !dtensor.device_mesh<@mesh>, %x: tensor<9x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>,
                       %r: !dtensor.device_mesh<@ring>, %y: tensor<?xi32, #dtensor.spec<@ring, [S(-1)]>>)
    -> (tensor<9x8xf32>, tensor<?xi32>) {
  // CHECK: %[[F0:.+]] = dtensor.full_tensor %[[X]], %[[M]] : tensor<9x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<9x8xf32>
  %f0 = dtensor.full_tensor %x, %m : tensor<9x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>, !dtensor.device_mesh<@mesh> -> tensor<9x8xf32>
  // CHECK-NEXT: %[[F1:.+]] = dtensor.full_tensor %[[Y]], %[[R]] : tensor<?xi32, #dtensor.spec<@ring, [S(-1)]>>, !dtensor.device_mesh<@ring> -> tensor<?xi32>
  %f1 = dtensor.full_tensor %y, %r : tensor<?xi32, #dtensor.spec<@ring, [S(-1)]>>, !dtensor.device_mesh<@ring> -> tensor<?xi32>
  // CHECK-NEXT: return %[[F0]], %[[F1]]
  return %f0, %f1 : tensor<9x8xf32>, tensor<?xi32>
}

// The whole DTensor API in one function, as a program uses it.
// CHECK-LABEL: func.func @api_chain
// CHECK-SAME: (%[[M:[a-z0-9_]+]]: !dtensor.device_mesh<@mesh>, %[[T:[a-z0-9_]+]]: tensor<16x8xf32>)
func.func @api_chain(%m: !dtensor.device_mesh<@mesh>, %t: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // CHECK: %[[D:.+]] = dtensor.distribute_tensor %[[T]], %[[M]] src_rank = 0 :
  %d = dtensor.distribute_tensor %t, %m src_rank = 0 : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  // CHECK-NEXT: %[[L:.+]] = dtensor.to_local %[[D]] :
  %l = dtensor.to_local %d : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>> -> tensor<8x8xf32>
  // CHECK-NEXT: %[[W:.+]] = dtensor.from_local %[[L]], %[[M]] run_check :
  %w = dtensor.from_local %l, %m run_check : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  // CHECK-NEXT: %[[R:.+]] = dtensor.redistribute %[[W]], %[[M]] :
  %r = dtensor.redistribute %w, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  // CHECK-NEXT: %[[F:.+]] = dtensor.full_tensor %[[R]], %[[M]] :
  %f = dtensor.full_tensor %r, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32>
  // CHECK-NEXT: return %[[F]]
  return %f : tensor<16x8xf32>
}

// A hint: plain or distributed source, optional priority (default 0).
// CHECK-LABEL: func.func @hint
func.func @hint(%m: !dtensor.device_mesh<@mesh>, %t: tensor<16x8xf32>, %d: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>)
    -> (tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>) {
  // CHECK: dtensor.hint %{{.*}}, %{{.*}} priority 2 : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  %a = dtensor.hint %t, %m priority 2 : tensor<16x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  // CHECK: dtensor.hint %{{.*}}, %{{.*}} : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>
  %b = dtensor.hint %d, %m : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, !dtensor.device_mesh<@mesh> -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>
  return %a, %b : tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<16x8xf32, #dtensor.spec<@mesh, [R, R]>>
}

// A redistribute in the local view, static and uneven (dynamic) shards.
// CHECK-LABEL: func.func @reshard
func.func @reshard(%m: !dtensor.device_mesh<@mesh>, %l: tensor<8x8xf32>, %u: tensor<?x8xf32>) -> (tensor<16x2xf32>, tensor<9x2xf32>) {
  // CHECK: dtensor.reshard %{{.*}}, %{{.*}} to #dtensor.spec<@mesh, [R, S(1)]> from tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>> : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x2xf32>
  %a = dtensor.reshard %l, %m to #dtensor.spec<@mesh, [R, S(1)]> from tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>> : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x2xf32>
  // CHECK: dtensor.reshard %{{.*}}, %{{.*}} to #dtensor.spec<@mesh, [R, S(1)]> from tensor<9x8xf32, #dtensor.spec<@mesh, [S(0), R]>> : tensor<?x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x2xf32>
  %b = dtensor.reshard %u, %m to #dtensor.spec<@mesh, [R, S(1)]> from tensor<9x8xf32, #dtensor.spec<@mesh, [S(0), R]>> : tensor<?x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<9x2xf32>
  return %a, %b : tensor<16x2xf32>, tensor<9x2xf32>
}
