//===- DTensorAttrs.td - dtensor attributes ----------------*- tablegen -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_DTENSORATTRS_TD
#define DTENSOR_DIALECT_DTENSOR_IR_DTENSORATTRS_TD

include "dtensor/Dialect/DTensor/IR/DTensorDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/TensorEncoding.td"

def DTensor_PlacementArrayParameter
    : ArrayRefParameter<"::mlir::dtensor::Placement", "placements"> {
  let parser = "::mlir::dtensor::parsePlacementList($_parser)";
  let printer = "::mlir::dtensor::printPlacementList($_printer, $_self)";
  let cppStorageType = "::llvm::SmallVector<::mlir::dtensor::Placement>";
}

def DTensor_SpecAttr : AttrDef<DTensor_Dialect, "Spec",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "spec";
  let summary = "How a global-view tensor is distributed over a mesh";
  let description = [{
    A DTensor spec: the mesh (or a sub-mesh / flattened view of it) and one
    placement per mesh dim, written the way DTensor prints them.

    ```mlir
    #dtensor.spec<@mesh, [S(0), R]>          // rows split over "dp"
    #dtensor.spec<@mesh, [P(sum), S(1)]>     // partial sums, cols split
    #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]> // dim 0 split by mesh dim 1 first
    #dtensor.spec<@mesh[1], [S(0)]>          // on the sub-mesh of dim 1
    #dtensor.spec<@mesh[(0, 1)], [S(0)]>     // on dims 0 and 1 flattened
    ```

    Placements: `S(d)` (also `Shard(d)`), `R` (`Replicate()`), `P(op)`
    (`Partial(op)`) with op in sum, avg, max, min, product. A shard may carry
    `[k]`, its mesh dim's position in the shard order of its tensor dim (0 is
    applied first); without `[k]` mesh dims apply left to right. An explicit
    order equal to the default is dropped, so both spellings are one type.
    Negative shard dims are kept as written and normalized (`d + rank`)
    wherever the layout is computed; `S(-1)` and `S(1)` cannot be grouped
    without the rank, so such specs keep their orders as written until the
    `dtensor-normalize-specs` pass rewrites them.

    Used as the encoding of a ranked tensor type, the spec is checked against
    the tensor's rank (shard dims in range). Checks that need the mesh
    (placement count, mesh dims of a view) run in ops that use the spec and
    in the `dtensor-verify` pass.
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$mesh,
    OptionalArrayRefParameter<"int64_t">:$meshDims,
    DefaultValuedParameter<"bool", "false">:$flattened,
    DTensor_PlacementArrayParameter:$placements);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The placements with shard dims normalized for a rank-`rank` tensor.
    ::mlir::dtensor::Placements getNormalizedPlacements(int64_t rank) const;
    /// The mesh view this spec lives on.
    ::mlir::dtensor::MeshViewRef getView() const {
      return {getMesh(), getMeshDims(), getFlattened()};
    }
  }];
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Same cases in the same order as the core's ReduceKind, so that
/// toReduceKind / toReduction (DTensor.h) are a plain mapping.
def DTensor_Reduction : I32EnumAttr<"Reduction",
    "the reduction of a collective (sum, avg, max, min, product)", [
      I32EnumAttrCase<"Sum", 0, "sum">,
      I32EnumAttrCase<"Avg", 1, "avg">,
      I32EnumAttrCase<"Max", 2, "max">,
      I32EnumAttrCase<"Min", 3, "min">,
      I32EnumAttrCase<"Product", 4, "product">]> {
  let cppNamespace = "::mlir::dtensor";
  let genSpecializedAttr = 0;
}

def DTensor_ReductionAttr : EnumAttr<DTensor_Dialect, DTensor_Reduction,
                                     "reduction"> {
  let summary = "How a collective combines the group's values";
  let description = [{
    The reduction of `dtensor.all_reduce` and `dtensor.reduce_scatter`, with
    the cases of DTensor's `Partial(op)`: `sum`, `avg` (the mean over the
    group, not a sum divided afterwards), `max`, `min`, `product`. Ops print
    it as a bare keyword (`reduce = sum`); the generic form spells it
    `#dtensor<reduction sum>`.
  }];
}

#endif // DTENSOR_DIALECT_DTENSOR_IR_DTENSORATTRS_TD
