//===- DTensorOps.td - dtensor ops -------------------------*- tablegen -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_DTENSOROPS_TD
#define DTENSOR_DIALECT_DTENSOR_IR_DTENSOROPS_TD

include "dtensor/Dialect/DTensor/IR/DTensorDialect.td"
include "dtensor/Dialect/DTensor/IR/DTensorAttrs.td"
include "dtensor/Dialect/DTensor/IR/DTensorTypes.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def DTensor_AnyDeviceMesh : Type<CPred<"::llvm::isa<::mlir::dtensor::DeviceMeshType>($_self)">,
    "device mesh handle", "::mlir::dtensor::DeviceMeshType">;

/// A ranked tensor whose encoding is a #dtensor.spec.
def DTensor_DistTensor : Type<And<[
      CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">,
      CPred<"::llvm::isa_and_nonnull<::mlir::dtensor::SpecAttr>("
            "::llvm::cast<::mlir::RankedTensorType>($_self).getEncoding())">]>,
    "ranked tensor with a #dtensor.spec encoding", "::mlir::RankedTensorType">;

/// A ranked tensor without an encoding: a local shard or a plain tensor.
def DTensor_LocalTensor : Type<And<[
      CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">,
      CPred<"!::llvm::cast<::mlir::RankedTensorType>($_self).getEncoding()">]>,
    "ranked tensor without encoding", "::mlir::RankedTensorType">;

//===----------------------------------------------------------------------===//
// Meshes
//===----------------------------------------------------------------------===//

def DTensor_MeshOp : DTensor_Op<"mesh", [Symbol]> {
  let summary = "Declares a device mesh: its shape and dim names";
  let description = [{
    A module-level declaration of an N-D mesh of ranks, row-major, as
    `init_device_mesh(..., mesh_shape, mesh_dim_names)` creates it. Sizes
    must be positive; names, when given, are unique and one per dim.
    Run-time handles to the mesh are `!dtensor.device_mesh<@name>` values.

    ```mlir
    dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
    dtensor.mesh @ring shape = [8]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       DenseI64ArrayAttr:$shape,
                       OptionalAttr<StrArrayAttr>:$names);
  let assemblyFormat = [{
    $sym_name `shape` `=` $shape (`names` `=` $names^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The index of the dim called `name`, if any.
    std::optional<int64_t> getDimIndex(::llvm::StringRef name);
    /// The name of dim `dim`, or its index as text when the mesh has none.
    std::string getDimName(int64_t dim);
    int64_t getRank() { return getShape().size(); }
  }];
}

def DTensor_SubmeshOp : DTensor_Op<"submesh",
    [Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "The sub-mesh of some named mesh dims (`mesh[\"tp\"]`)";
  let description = [{
    Takes the sub-mesh of the given dims of a mesh handle, as DTensor's
    `mesh["tp"]` or `mesh["dp", "tp"]` does: the group of ranks that differ
    only along those dims, holding this rank. Names must be dims of the
    operand, unique and in mesh order (as DeviceMesh requires).

    ```mlir
    %tp = dtensor.submesh %m ["tp"]
        : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[1]>
    ```
  }];
  let arguments = (ins DTensor_AnyDeviceMesh:$source, StrArrayAttr:$dim_names);
  let results = (outs DTensor_AnyDeviceMesh:$result);
  let assemblyFormat = [{
    $source $dim_names attr-dict `:` qualified(type($source)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

def DTensor_FlattenOp : DTensor_Op<"flatten",
    [Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Flattens every dim of a mesh handle into one (`_flatten()`)";
  let description = [{
    Makes one mesh dim over the product of the operand's dims, ordered
    row-major, as DTensor's `mesh["dp", "tp"]._flatten()` does. The result
    is a 1-D view; collectives over it run over the whole flattened group.

    ```mlir
    %dp_tp = dtensor.flatten %m
        : !dtensor.device_mesh<@mesh> -> !dtensor.device_mesh<@mesh[(0, 1)]>
    ```
  }];
  let arguments = (ins DTensor_AnyDeviceMesh:$source);
  let results = (outs DTensor_AnyDeviceMesh:$result);
  let assemblyFormat = [{
    $source attr-dict `:` qualified(type($source)) `->` qualified(type($result))
  }];
}

//===----------------------------------------------------------------------===//
// The DTensor API
//===----------------------------------------------------------------------===//

class DTensor_ApiOp<string mnemonic, list<Trait> traits = []>
    : DTensor_Op<mnemonic,
        !listconcat(traits, [DeclareOpInterfaceMethods<SymbolUserOpInterface>])>;

def DTensor_DistributeTensorOp : DTensor_ApiOp<"distribute_tensor"> {
  let summary = "Distributes a global tensor (`distribute_tensor`)";
  let description = [{
    Every rank holds the whole tensor; the result is distributed by the
    result type's spec. With `src_rank = k`, the value of group rank `k` on
    every mesh dim is scattered (Shard) or broadcast (Replicate), as
    `distribute_tensor(t, mesh, placements, src_data_rank=k)`; without it,
    each rank keeps its own chunk of its own copy (`src_data_rank=None`).
    Partial placements are rejected, as DTensor rejects them: distribute as
    Replicate and redistribute to a Partial.

    ```mlir
    %d = dtensor.distribute_tensor %t, %m src_rank = 0
        : tensor<16x8xf32>, !dtensor.device_mesh<@mesh>
        -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
    ```
  }];
  let arguments = (ins DTensor_LocalTensor:$source, DTensor_AnyDeviceMesh:$mesh,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$src_rank);
  let results = (outs DTensor_DistTensor:$result);
  let assemblyFormat = [{
    $source `,` $mesh (`src_rank` `=` $src_rank^)? attr-dict `:` type($source)
    `,` qualified(type($mesh)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def DTensor_FromLocalOp : DTensor_ApiOp<"from_local"> {
  let summary = "Wraps this rank's shard as a distributed tensor (`from_local`)";
  let description = [{
    `DTensor.from_local(local, mesh, placements, run_check)`: no data moves.
    The operand is this rank's local shard; the result type gives the global
    shape and spec. Where ranks' shard sizes differ (uneven sharding) the
    local dim must be dynamic (`?`); where they agree it may be static and
    must then equal that size. `run_check` asks the runtime to check that
    replicated shards agree across ranks.

    ```mlir
    %d = dtensor.from_local %l, %m run_check
        : tensor<8x8xf32>, !dtensor.device_mesh<@mesh>
        -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
    ```
  }];
  let arguments = (ins DTensor_LocalTensor:$local, DTensor_AnyDeviceMesh:$mesh,
                       UnitAttr:$run_check);
  let results = (outs DTensor_DistTensor:$result);
  let assemblyFormat = [{
    $local `,` $mesh (`run_check` $run_check^)? attr-dict `:` type($local) `,`
    qualified(type($mesh)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def DTensor_ToLocalOp : DTensor_ApiOp<"to_local", [Pure]> {
  let summary = "This rank's shard of a distributed tensor (`to_local`)";
  let description = [{
    Unwraps a distributed tensor into this rank's local shard, without
    communication. The result type follows the same rules as `from_local`'s
    operand: static where every rank agrees on a dim's size, dynamic where
    shards are uneven. A Partial value's local shard is this rank's term.

    ```mlir
    %l = dtensor.to_local %d
        : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>> -> tensor<8x8xf32>
    ```
  }];
  let arguments = (ins DTensor_DistTensor:$source);
  let results = (outs DTensor_LocalTensor:$result);
  let assemblyFormat = [{
    $source attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def DTensor_RedistributeOp : DTensor_ApiOp<"redistribute"> {
  let summary = "Changes the placements of a distributed tensor (`redistribute`)";
  let description = [{
    The logical value stays the same; its spec changes from the operand's to
    the result's on the same mesh. Per mesh dim, S -> P, P(x) -> P(y) with
    x != y, and R -> P(product) are illegal, as in DTensor. Lowering plans
    the collectives (all_gather, all_reduce, reduce_scatter, all_to_all).

    ```mlir
    %r = dtensor.redistribute %d, %m
        : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
          !dtensor.device_mesh<@mesh>
        -> tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>
    ```
  }];
  let arguments = (ins DTensor_DistTensor:$source, DTensor_AnyDeviceMesh:$mesh);
  let results = (outs DTensor_DistTensor:$result);
  let assemblyFormat = [{
    $source `,` $mesh attr-dict `:` type($source) `,` qualified(type($mesh))
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def DTensor_HintOp : DTensor_ApiOp<"hint"> {
  let summary = "A sharding the user prefers for a value, with a priority";
  let description = [{
    A soft annotation for `dtensor-propagate`: the source (plain or
    distributed) should have the result's spec. The result always has it;
    propagation makes the source's producer compute in that spec when it
    can, and resolves conflicting hints by priority (0 is the strongest,
    then 1, ...), then by cost. A hint that its producer cannot meet
    becomes a redistribute (or a distribute_tensor of a plain source) in
    `dtensor-insert-redistribute`; `explain=true` reports each one. Values
    computed from a hinted value carry its priority into later choices.

    ```mlir
    %h = dtensor.hint %y, %m priority 1
        : tensor<16x8xf32>, !dtensor.device_mesh<@mesh>
        -> tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, DTensor_AnyDeviceMesh:$mesh,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntNonNegative]>, "0">:$priority);
  let results = (outs DTensor_DistTensor:$result);
  let assemblyFormat = [{
    $source `,` $mesh (`priority` $priority^)? attr-dict `:` type($source) `,`
    qualified(type($mesh)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def DTensor_ReshardOp : DTensor_ApiOp<"reshard"> {
  let summary = "A redistribute in the local view, before it is planned";
  let description = [{
    What `dtensor-partition` leaves of a `redistribute`: this rank's shard of
    the global tensor `from` (its type names the global shape and source
    spec), turned into its shard of `to`. (The target spec is printed first:
    an attribute right before the `:` would take the type list as its own.) `dtensor-lower-redistribute`
    replaces it by the planned collectives; the interpreter lowers it the
    same way before it runs.

    ```mlir
    %r = dtensor.reshard %l, %m to #dtensor.spec<@mesh, [R, S(1)]>
        from tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
        : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<16x4xf32>
    ```
  }];
  let arguments = (ins DTensor_LocalTensor:$source, DTensor_AnyDeviceMesh:$mesh,
                       TypeAttrOf<DTensor_DistTensor>:$from,
                       DTensor_SpecAttr:$to);
  let results = (outs DTensor_LocalTensor:$result);
  let assemblyFormat = [{
    $source `,` $mesh `to` qualified($to) `from` $from attr-dict `:` type($source) `,`
    qualified(type($mesh)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def DTensor_FullTensorOp : DTensor_ApiOp<"full_tensor"> {
  let summary = "The whole logical tensor on every rank (`full_tensor`)";
  let description = [{
    Redistributes to all-Replicate and unwraps: every rank receives the full
    global tensor (all-gathering shards, reducing partials).

    ```mlir
    %t = dtensor.full_tensor %d, %m
        : tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), P(sum)]>>,
          !dtensor.device_mesh<@mesh> -> tensor<16x8xf32>
    ```
  }];
  let arguments = (ins DTensor_DistTensor:$source, DTensor_AnyDeviceMesh:$mesh);
  let results = (outs DTensor_LocalTensor:$result);
  let assemblyFormat = [{
    $source `,` $mesh attr-dict `:` type($source) `,` qualified(type($mesh))
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def DTensor_LocalMapOp : DTensor_ApiOp<"local_map", [
    SingleBlockImplicitTerminator<"::mlir::dtensor::YieldOp">,
    IsolatedFromAbove]> {
  let summary = "Runs a region on local shards (`local_map`)";
  let description = [{
    DTensor's `local_map(f, out_placements, in_placements,
    redistribute_inputs, device_mesh)`: the region is `f`, written on local
    shards. Each input is seen in its `in_specs` entry; an input whose spec
    differs is redistributed first when `redistribute_inputs` is set, and is
    an error otherwise (as in DTensor). The region's arguments are the local
    shard types of `in_specs`; it yields one local shard per result, and the
    result types give the output placements (no communication, as DTensor
    wraps the outputs with `out_placements`).

    ```mlir
    %r = dtensor.local_map %x, %w on %m : !dtensor.device_mesh<@mesh> in_specs = [
        #dtensor.spec<@mesh, [S(0), R]>, #dtensor.spec<@mesh, [R, R]>]
        redistribute_inputs {
    ^bb0(%lx: tensor<?x8xf32>, %lw: tensor<8x8xf32>):
      ...
      dtensor.yield %o : tensor<?x8xf32>
    } : (tensor<9x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
         tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>)
      -> tensor<9x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
    ```
  }];
  let arguments = (ins Variadic<DTensor_DistTensor>:$inputs,
                       DTensor_AnyDeviceMesh:$mesh,
                       TypedArrayAttrBase<DTensor_SpecAttr, "spec array">:$in_specs,
                       UnitAttr:$redistribute_inputs);
  let results = (outs Variadic<DTensor_DistTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $inputs `on` $mesh `:` qualified(type($mesh)) `in_specs` `=` $in_specs
    (`redistribute_inputs` $redistribute_inputs^)? $body attr-dict `:`
    functional-type($inputs, $results)
  }];
  let hasVerifier = 1;
}

def DTensor_YieldOp : DTensor_Op<"yield", [Pure, Terminator,
    HasParent<"::mlir::dtensor::LocalMapOp">]> {
  let summary = "Yields the local shards of a local_map's results";
  let description = [{
    Terminates a `dtensor.local_map` body with one local shard per result.
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* no values */ }]>];
}

#endif // DTENSOR_DIALECT_DTENSOR_IR_DTENSOROPS_TD
