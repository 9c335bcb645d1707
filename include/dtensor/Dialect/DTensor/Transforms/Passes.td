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

#endif // DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD
