// RUN: dtensor-opt %s --dtensor-comm-report=model=false -o /dev/null 2>&1 | FileCheck %s --strict-whitespace --match-full-lines --implicit-check-not=external
// RUN: dtensor-opt %s --dtensor-comm-report="json=true model=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON --implicit-check-not=external
// RUN: dtensor-opt %s --dtensor-comm-report=json=true -o /dev/null 2>&1 | %python -c "import json, sys; s = sys.stdin.read(); sys.exit(json.dumps(json.loads(s)) != s.strip())"
// RUN: dtensor-opt %s > %t.before
// RUN: dtensor-opt %s --dtensor-comm-report 2> /dev/null > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.after --check-prefix=IR

// The report: per function with a body, in module order, the collectives by
// kind (in a fixed order), their count, the bytes per rank (the larger of
// input and result), and the distinct groups as the mesh's dim names (or
// indices), as each op lists them. The python run checks that the JSON is
// one document in json.dumps's own format; the diff that the IR is unchanged.

// IR: func.func @every_kind
// IR: dtensor.permute

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
dtensor.mesh @cube shape = [2, 3, 2] names = ["pp", "dp", "tp"]
dtensor.mesh @ring shape = [8]
dtensor.mesh @grid shape = [2, 2]

// JSON: {"functions": [{"name": "none", "collectives": {}, "total": {"count": 0, "bytes": 0, "dynamic": 0, "async": 0, "in_unknown_loops": 0}},
// CHECK-LABEL:func @none: no collectives
func.func @none(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = arith.addf %x, %x : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// A declaration has no body and no report (the implicit-check-not above).
func.func private @external_decl(tensor<8x8xf32>) -> tensor<8x8xf32>

// 2x8xf32 gathered into 8x8xf32: the result's 256 bytes.
// CHECK-LABEL:func @mlp: 2 collectives, 512 bytes/rank
//  CHECK-NEXT:  all_gather      1  256 bytes  mesh @mesh dims ["tp"]
//  CHECK-NEXT:  all_reduce      1  256 bytes  mesh @mesh dims ["dp", "tp"]
//  JSON-SAME: {"name": "mlp", "collectives": {"all_gather": {"count": 1, "bytes": 256, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"tp"]], "meshes": ["mesh"]}, "all_reduce": {"count": 1, "bytes": 256, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"dp", "tp"]], "meshes": ["mesh"]}}, "total": {"count": 2, "bytes": 512, "dynamic": 0, "async": 0, "in_unknown_loops": 0}},
func.func @mlp(%m: !dtensor.device_mesh<@mesh>, %x: tensor<2x8xf32>)
    -> tensor<8x8xf32> {
  %g = dtensor.all_gather %x, %m mesh_dims = [1] gather_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  %r = dtensor.all_reduce %g, %m mesh_dims = [0, 1] reduce = sum
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// Every kind, listed in the fixed order whatever the op order. Element
// sizes: bf16 64 x 2, reduce_scatter's input 8x8xf32 (larger than its
// result), i8 32 x 1, i1 64 x 1 (rounded up to a byte).
// CHECK-LABEL:func @every_kind: 6 collectives, 768 bytes/rank
//  CHECK-NEXT:  all_gather      1  256 bytes  mesh @mesh dims ["tp"]
//  CHECK-NEXT:  all_reduce      1  128 bytes  mesh @mesh dims ["dp"]
//  CHECK-NEXT:  reduce_scatter  1  256 bytes  mesh @mesh dims ["tp"]
//  CHECK-NEXT:  all_to_all      1   32 bytes  mesh @mesh dims ["dp"]
//  CHECK-NEXT:  broadcast       1   64 bytes  mesh @mesh dims ["dp"]
//  CHECK-NEXT:  permute         1   32 bytes  mesh @mesh dims ["tp"]
//  JSON-SAME: {"name": "every_kind", "collectives": {"all_gather": {"count": 1, "bytes": 256, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"tp"]], "meshes": ["mesh"]}, "all_reduce": {"count": 1, "bytes": 128, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"dp"]], "meshes": ["mesh"]}, "reduce_scatter": {"count": 1, "bytes": 256, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"tp"]], "meshes": ["mesh"]}, "all_to_all": {"count": 1, "bytes": 32, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"dp"]], "meshes": ["mesh"]}, "broadcast": {"count": 1, "bytes": 64, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"dp"]], "meshes": ["mesh"]}, "permute": {"count": 1, "bytes": 32, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"tp"]], "meshes": ["mesh"]}}, "total": {"count": 6, "bytes": 768, "dynamic": 0, "async": 0, "in_unknown_loops": 0}},
func.func @every_kind(%m: !dtensor.device_mesh<@mesh>, %f32: tensor<2x8xf32>,
                      %bf16: tensor<8x8xbf16>, %big: tensor<8x8xf32>,
                      %i8: tensor<4x8xi8>, %i1: tensor<8x8xi1>,
                      %halo: tensor<8x1xf32>) {
  %5 = dtensor.permute %halo, %m mesh_dims = [1] source_target_pairs = [0, 1, 1, 2, 2, 3]
      : tensor<8x1xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x1xf32>
  %4 = dtensor.broadcast %i1, %m mesh_dims = [0] root = 0
      : tensor<8x8xi1>, !dtensor.device_mesh<@mesh> -> tensor<8x8xi1>
  %3 = dtensor.all_to_all %i8, %m mesh_dims = [0] split_dim = 1 concat_dim = 0
      : tensor<4x8xi8>, !dtensor.device_mesh<@mesh> -> tensor<8x4xi8>
  %2 = dtensor.reduce_scatter %big, %m mesh_dims = [1] scatter_dim = 0 reduce = sum
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x8xf32>
  %1 = dtensor.all_reduce %bf16, %m mesh_dims = [0] reduce = sum
      : tensor<8x8xbf16>, !dtensor.device_mesh<@mesh> -> tensor<8x8xbf16>
  %0 = dtensor.all_gather %f32, %m mesh_dims = [1] gather_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return
}

// A future's bytes are its value's; waits are not collectives.
// CHECK-LABEL:func @async: 3 collectives, 768 bytes/rank (2 async)
//  CHECK-NEXT:  all_gather      1  256 bytes  mesh @mesh dims ["tp"]  (1 async)
//  CHECK-NEXT:  all_reduce      2  512 bytes  mesh @mesh dims ["tp"]  (1 async)
//  JSON-SAME: {"name": "async", "collectives": {"all_gather": {"count": 1, "bytes": 256, "dynamic": 0, "async": 1, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"tp"]], "meshes": ["mesh"]}, "all_reduce": {"count": 2, "bytes": 512, "dynamic": 0, "async": 1, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"tp"]], "meshes": ["mesh"]}}, "total": {"count": 3, "bytes": 768, "dynamic": 0, "async": 2, "in_unknown_loops": 0}},
func.func @async(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>,
                 %s: tensor<2x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %f = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x8xf32>>
  %sync = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum
      : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  %h = dtensor.all_gather %s, %m mesh_dims = [1] gather_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<8x8xf32>>
  %r = dtensor.wait %f : !dtensor.future<tensor<8x8xf32>>
  %g = dtensor.wait %h : !dtensor.future<tensor<8x8xf32>>
  return %r, %g : tensor<8x8xf32>, tensor<8x8xf32>
}

// Ops in loops count once per trip (the static trip counts of every loop
// around them, multiplied); ops in both branches of an scf.if count both;
// the groups are listed in order of first use.
// CHECK-LABEL:func @nested: 34 collectives, 8576 bytes/rank
//  CHECK-NEXT:  all_gather       2   384 bytes  mesh @mesh dims ["tp"], ["dp"]
//  CHECK-NEXT:  all_reduce      32  8192 bytes  mesh @mesh dims ["tp"], ["dp"]
//  JSON-SAME: {"name": "nested", "collectives": {"all_gather": {"count": 2, "bytes": 384, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"tp"], ["dp"]], "meshes": ["mesh", "mesh"]}, "all_reduce": {"count": 32, "bytes": 8192, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"tp"], ["dp"]], "meshes": ["mesh", "mesh"]}}, "total": {"count": 34, "bytes": 8576, "dynamic": 0, "async": 0, "in_unknown_loops": 0}},
func.func @nested(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x8xf32>,
                  %s: tensor<2x8xf32>, %c: i1) {
  %lb = arith.constant 0 : index
  %ub = arith.constant 16 : index
  %step = arith.constant 1 : index
  scf.for %i = %lb to %ub step %step {
    %0 = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum
        : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  }
  scf.if %c {
    %1 = dtensor.all_gather %s, %m mesh_dims = [1] gather_dim = 0
        : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
    scf.for %j = %lb to %ub step %step {
      %2 = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = max
          : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
    }
  } else {
    %3 = dtensor.all_gather %s, %m mesh_dims = [0] gather_dim = 1
        : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x16xf32>
  }
  return
}

// Groups are mesh dims of the mesh symbol, whatever the handle's view: the
// sub-mesh and the whole-mesh handle make one group. The order as listed is
// kept ([1, 0] and [0, 1] order the group's ranks differently), and the text
// puts each mesh's groups together.
// CHECK-LABEL:func @views: 6 collectives, 768 bytes/rank
//  CHECK-NEXT:  all_gather      2  512 bytes  mesh @mesh dims ["tp"]
//  CHECK-NEXT:  all_reduce      3  192 bytes  mesh @mesh dims ["tp", "dp"], ["dp", "tp"]; @ring dims [0]
//  CHECK-NEXT:  reduce_scatter  1   64 bytes  mesh @cube dims ["tp", "pp"]
//  JSON-SAME: {"name": "views", "collectives": {"all_gather": {"count": 2, "bytes": 512, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"tp"]], "meshes": ["mesh"]}, "all_reduce": {"count": 3, "bytes": 192, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"tp", "dp"], [0], ["dp", "tp"]], "meshes": ["mesh", "ring", "mesh"]}, "reduce_scatter": {"count": 1, "bytes": 64, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"tp", "pp"]], "meshes": ["cube"]}}, "total": {"count": 6, "bytes": 768, "dynamic": 0, "async": 0, "in_unknown_loops": 0}},
func.func @views(%m: !dtensor.device_mesh<@mesh>, %v: !dtensor.device_mesh<@cube[0, 2]>,
                 %r: !dtensor.device_mesh<@ring>, %x: tensor<2x8xf32>) {
  %tp = dtensor.submesh %m ["tp"]
      : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[1]>
  %flat = dtensor.flatten %m
      : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[(0, 1)]>
  %0 = dtensor.all_gather %x, %tp mesh_dims = [1] gather_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh[1]> -> tensor<8x8xf32>
  %1 = dtensor.all_gather %x, %m mesh_dims = [1] gather_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  %2 = dtensor.all_reduce %x, %flat mesh_dims = [1, 0] reduce = sum
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh[(0, 1)]> -> tensor<2x8xf32>
  %3 = dtensor.all_reduce %x, %r mesh_dims = [0] reduce = sum
      : tensor<2x8xf32>, !dtensor.device_mesh<@ring> -> tensor<2x8xf32>
  %4 = dtensor.all_reduce %x, %flat mesh_dims = [0, 1] reduce = sum
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh[(0, 1)]> -> tensor<2x8xf32>
  %5 = dtensor.reduce_scatter %x, %v mesh_dims = [2, 0] scatter_dim = 1 reduce = max
      : tensor<2x8xf32>, !dtensor.device_mesh<@cube[0, 2]> -> tensor<2x2xf32>
  return
}

// Meshes without names: dims are indices (numbers in the JSON).
// CHECK-LABEL:func @unnamed: 3 collectives, 640 bytes/rank
//  CHECK-NEXT:  all_gather      1  512 bytes  mesh @ring dims [0]
//  CHECK-NEXT:  all_to_all      1   64 bytes  mesh @grid dims [0, 1]
//  CHECK-NEXT:  broadcast       1   64 bytes  mesh @grid dims [1]
//  JSON-SAME: {"name": "unnamed", "collectives": {"all_gather": {"count": 1, "bytes": 512, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}0]], "meshes": ["ring"]}, "all_to_all": {"count": 1, "bytes": 64, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}0, 1]], "meshes": ["grid"]}, "broadcast": {"count": 1, "bytes": 64, "dynamic": 0, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}1]], "meshes": ["grid"]}}, "total": {"count": 3, "bytes": 640, "dynamic": 0, "async": 0, "in_unknown_loops": 0}},
func.func @unnamed(%r: !dtensor.device_mesh<@ring>, %g: !dtensor.device_mesh<@grid>,
                   %x: tensor<2x8xf32>) {
  %flat = dtensor.flatten %g
      : !dtensor.device_mesh<@grid> -> !dtensor.device_mesh<@grid[(0, 1)]>
  %0 = dtensor.all_gather %x, %r mesh_dims = [0] gather_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@ring> -> tensor<16x8xf32>
  %1 = dtensor.all_to_all %x, %flat mesh_dims = [0, 1] split_dim = 1 concat_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@grid[(0, 1)]> -> tensor<8x2xf32>
  %2 = dtensor.broadcast %x, %g mesh_dims = [1] root = 1
      : tensor<2x8xf32>, !dtensor.device_mesh<@grid> -> tensor<2x8xf32>
  return
}

// A dynamic size on either side leaves the op's bytes out of the totals.
// CHECK-LABEL:func @dynamic: 4 collectives, 256 bytes/rank + 3 of dynamic size (1 async)
//  CHECK-NEXT:  all_gather      3  256 bytes + 2 of dynamic size  mesh @mesh dims ["tp"]
//  CHECK-NEXT:  all_reduce      1    0 bytes + 1 of dynamic size  mesh @mesh dims ["tp", "dp"]  (1 async)
//   CHECK-NOT:{{.+}}
//  JSON-SAME: {"name": "dynamic", "collectives": {"all_gather": {"count": 3, "bytes": 256, "dynamic": 2, "async": 0, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"tp"]], "meshes": ["mesh"]}, "all_reduce": {"count": 1, "bytes": 0, "dynamic": 1, "async": 1, "in_unknown_loops": 0, "mesh_dims": {{\[\[}}"tp", "dp"]], "meshes": ["mesh"]}}, "total": {"count": 4, "bytes": 256, "dynamic": 3, "async": 1, "in_unknown_loops": 0}}]}{{$}}
//   JSON-NOT: {{.}}
func.func @dynamic(%m: !dtensor.device_mesh<@mesh>, %d: tensor<?x8xf32>,
                   %x: tensor<2x8xf32>, %i: tensor<?x4xi32>) {
  %0 = dtensor.all_gather %d, %m mesh_dims = [1] gather_dim = 0
      : tensor<?x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x8xf32>
  %1 = dtensor.all_gather %x, %m mesh_dims = [1] gather_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<?x?xf32>
  %2 = dtensor.all_gather %x, %m mesh_dims = [1] gather_dim = 0
      : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  %3 = dtensor.all_reduce %i, %m mesh_dims = [1, 0] reduce = min
      : tensor<?x4xi32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<?x4xi32>>
  return
}
