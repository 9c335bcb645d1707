//===- Passes.td - dtensor passes --------------------------*- tablegen -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD
#define DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DTensorVerifyPass : Pass<"dtensor-verify", "::mlir::ModuleOp"> {
  let summary = "Checks every distributed type in the module against its mesh";
  let description = [{
    The first stage of the pipeline. A `#dtensor.spec` encoding or a
    `!dtensor.device_mesh` handle can appear on any value (function
    arguments, results of upstream ops), where no dtensor op verifies it.
    This pass resolves each one's mesh symbol and checks what needs the mesh:
    the symbol names a `dtensor.mesh`, a view's dims exist, are unique and in
    mesh order, and a spec has exactly one placement per mesh dim of its
    view. Errors point at the op (or function) holding the value.
  }];
}

def DTensorNormalizeSpecsPass : Pass<"dtensor-normalize-specs", "::mlir::ModuleOp"> {
  let summary = "Rewrites negative shard dims in every spec to their positive form";
  let description = [{
    A spec is parsed without knowing the rank of its tensor, so `S(-1)` is
    kept as written and normalized wherever a layout is computed. Two
    spellings of one layout (`S(-1)` and `S(1)` on a rank-2 tensor) are
    different types, though, and ops that compare types see them as
    different. This pass rewrites every type in the module to the
    non-negative spelling, as DTensor normalizes `Shard(-1)` on
    construction. The pipeline runs it first.

    ```mlir
    // before: tensor<4x8xf32, #dtensor.spec<@mesh, [S(-1)]>>
    // after:  tensor<4x8xf32, #dtensor.spec<@mesh, [S(1)]>>
    ```
  }];
}

def DTensorPrintLayoutPass : Pass<"dtensor-print-layout", "::mlir::ModuleOp"> {
  let summary = "Prints each rank's local shape and offset of every distributed value";
  let description = [{
    An analysis printer: for every function argument and op result whose type
    carries a `#dtensor.spec`, prints a table with one row per rank of the
    mesh view: the rank's mesh coordinate, its local shard shape and the
    shard's global offset (torch.chunk semantics, nested shard orders, and
    the global size as the offset of an empty shard). Also prints the rank
    groups of each mesh dim. Output goes to stderr (like
    `-print-op-stats`), so `-o /dev/null` keeps just the tables. The IR is
    unchanged.
  }];
  let options = [
    Option<"showGroups", "groups", "bool", /*default=*/"true",
           "Print the rank groups of each mesh dim">,
  ];
}

def DTensorPropagatePass : Pass<"dtensor-propagate", "::mlir::ModuleOp"> {
  let summary = "Chooses a spec for every value computed by linalg ops from distributed inputs";
  let description = [{
    Sharding propagation over the straight-line body of each function, in
    program order. For every linalg op with a distributed input, each mesh
    dim may shard one of the op's loops (or none); the placements that
    choice implies for every operand come from the op's indexing maps,
    iterator types and body (a sharded reduction loop gives the Partial of
    the body's combiner; Partial inputs pass through linear bodies only). The
    choice with the least redistribution cost (the planner's cost model) wins;
    ties go to the most sharded result. Then the chosen specs are made real:
    inputs whose spec differs get a `dtensor.redistribute`, plain inputs a
    `dtensor.distribute_tensor` (each rank keeps its chunk), fresh outputs
    (`tensor.empty`, `linalg.fill` of one) are created with the output spec,
    and results take it. A result the user annotated is never overridden
    silently: the op computes in the chosen spec and a redistribute restores
    the annotation. Returns get the function's result specs (or
    `full_tensor` for plain results); other users of a newly distributed
    value get its `full_tensor`.

    With `explain=true`, every inserted redistribute is printed with the op
    and rule that caused it and its bytes per rank.

    Not yet: ops inside regions (scf), element-wise arith on tensors (write
    them as linalg.generic/map), tensor shape ops, user hints with
    priorities.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
  let options = [
    Option<"devicesPerHost", "devices-per-host", "int64_t", /*default=*/"8",
           "Devices per host in the cost model">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Print why each redistribute was inserted">,
  ];
}

def DTensorPartitionPass : Pass<"dtensor-partition", "::mlir::ModuleOp"> {
  let summary = "Rewrites annotated global-view programs into the local view";
  let description = [{
    Turns a global-view program whose tensors all carry specs (written by the
    user or by `dtensor-propagate`) into one SPMD program that every rank
    runs on its own shard:

    - every `tensor<..., #dtensor.spec<...>>` becomes the local shard type:
      static where every rank's shard has the same size, dynamic (`?`) where
      shards are uneven, in function signatures, calls and returns too;
    - `from_local` / `to_local` disappear (with `run_check`, replicated mesh
      dims are broadcast from group rank 0, as DTensor does);
    - `distribute_tensor` slices this rank's shard (after a broadcast from
      `src_rank`, when given);
    - `redistribute` and `full_tensor` become the steps the redistribution
      planner chooses: `dtensor.all_gather`, `all_reduce`, `reduce_scatter`,
      `all_to_all`, and local chunking or scaling, with uneven shards padded
      to the largest piece around each collective and sliced back after;
    - `local_map` redistributes its inputs to its in_specs and inlines its
      region on the local shards;
    - linalg ops, `tensor.empty` and element-wise arith/math keep their form
      on local shards, after a check that their operands' specs describe one
      distribution of their loops (a sharded reduction gives a Partial, and
      Partials pass only through linear bodies); `linalg.index` of a sharded
      loop is shifted by this rank's offset; `scf.for`/`scf.if` carry local
      types.

    Anything else on distributed values, and any spec the local computation
    could not honour exactly, is reported at the op.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect",
  ];
  let options = [
    Option<"devicesPerHost", "devices-per-host", "int64_t", /*default=*/"8",
           "Devices per host in the cost model: mesh dims whose groups span "
           "more use the slower inter-host links">,
  ];
}

def DTensorCommReportPass : Pass<"dtensor-comm-report", "::mlir::ModuleOp"> {
  let summary = "Prints the collectives of each function: kind, count, bytes, mesh dims";
  let description = [{
    A static CommDebugMode: for every function, counts the dtensor
    collectives it contains by kind, with the bytes each moves per rank (the
    larger of its input and result buffers, from their static types) and the
    mesh dims of their groups. Ops in loop bodies count once; collectives
    with dynamic shapes are counted and their bytes reported as unknown. The
    IR is unchanged. Prints to stderr, as text or (`json=true`) as JSON:
    `{"functions": [{"name": "f", "collectives": {"all_gather": {"count": 1,
    "bytes": 2048, "dynamic": 0, "async": 0, "mesh_dims": [["tp"]],
    "meshes": ["mesh"]}, ...}, "total": {"count": 1, "bytes": 2048,
    "dynamic": 0, "async": 0}}, ...]}` (`meshes[i]` is the mesh of
    `mesh_dims[i]`; kinds that do not occur are left out).
  }];
  let options = [
    Option<"json", "json", "bool", /*default=*/"false",
           "Print JSON instead of text">,
  ];
}

#endif // DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD
