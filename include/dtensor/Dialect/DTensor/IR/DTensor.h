//===- DTensor.h - the dtensor dialect --------------------------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_DTENSOR_H
#define DTENSOR_DIALECT_DTENSOR_IR_DTENSOR_H

#include "dtensor/Core/Layout.h"
#include "dtensor/Core/Placement.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Support/ErrorHandling.h"

namespace mlir {
namespace dtensor {

/// Lets placements live in attribute storage.
inline llvm::hash_code hash_value(const Placement &p) {
  return llvm::hash_combine(static_cast<uint8_t>(p.kind), p.isShard() ? p.dim : 0,
                            p.isPartial() ? static_cast<uint8_t>(p.reduce) : 0,
                            p.isShard() ? p.order : -1);
}

/// A mesh symbol plus the view of it a handle or spec refers to: the whole
/// mesh (no dims), a sub-mesh of some dims, or those dims flattened into one.
struct MeshViewRef {
  FlatSymbolRefAttr mesh;
  ArrayRef<int64_t> dims;
  bool flattened = false;

  bool operator==(const MeshViewRef &o) const {
    return mesh == o.mesh && dims == o.dims && flattened == o.flattened;
  }
  bool operator!=(const MeshViewRef &o) const { return !(*this == o); }
};

/// `@mesh`, `@mesh[1, 2]` or `@mesh[(0, 1)]`.
ParseResult parseMeshViewRef(AsmParser &parser, FlatSymbolRefAttr &mesh,
                             SmallVectorImpl<int64_t> &dims, bool &flattened);
void printMeshViewRef(AsmPrinter &printer, const MeshViewRef &view);

/// The value type inside `!dtensor.future<...>`: a ranked tensor.
FailureOr<RankedTensorType> parseFutureValueType(AsmParser &parser);

/// The placement list inside a spec: `[S(0)[1], R, P(sum)]`.
FailureOr<SmallVector<Placement>> parsePlacementList(AsmParser &parser);
void printPlacementList(AsmPrinter &printer, ArrayRef<Placement> placements);

} // namespace dtensor
} // namespace mlir

#include "dtensor/Dialect/DTensor/IR/DTensorDialect.h.inc"

#include "dtensor/Dialect/DTensor/IR/DTensorEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dtensor/Dialect/DTensor/IR/DTensorAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dtensor/Dialect/DTensor/IR/DTensorTypes.h.inc"

namespace mlir {
namespace dtensor {

/// The core's reduction for a collective's `reduce` (same cases, same order).
inline ReduceKind toReduceKind(Reduction reduction) {
  switch (reduction) {
  case Reduction::Sum:
    return ReduceKind::Sum;
  case Reduction::Avg:
    return ReduceKind::Avg;
  case Reduction::Max:
    return ReduceKind::Max;
  case Reduction::Min:
    return ReduceKind::Min;
  case Reduction::Product:
    return ReduceKind::Product;
  }
  llvm_unreachable("unknown dtensor reduction");
}

/// The collective `reduce` for one of the core's reductions.
inline Reduction toReduction(ReduceKind kind) {
  switch (kind) {
  case ReduceKind::Sum:
    return Reduction::Sum;
  case ReduceKind::Avg:
    return Reduction::Avg;
  case ReduceKind::Max:
    return Reduction::Max;
  case ReduceKind::Min:
    return Reduction::Min;
  case ReduceKind::Product:
    return Reduction::Product;
  }
  llvm_unreachable("unknown reduce kind");
}

/// What collectives read and write: the communicator of a group. Ordering
/// collectives on it keeps every rank issuing them in the same order, and a
/// write keeps an unused collective alive (the group's other ranks wait for
/// it), without making collectives conflict with memory other ops use.
struct CommunicatorResource
    : public SideEffects::Resource::Base<CommunicatorResource> {
  StringRef getName() final { return "dtensor.communicator"; }
};

/// The tensor of a collective's result: the type itself, or the value type
/// of a `!dtensor.future`.
RankedTensorType getTensorOrFutureValueType(Type type);

} // namespace dtensor
} // namespace mlir

#define GET_OP_CLASSES
#include "dtensor/Dialect/DTensor/IR/DTensorOps.h.inc"

namespace mlir {
namespace dtensor {

/// The spec of a distributed tensor type, or null.
SpecAttr getSpec(Type type);

/// The argument and result attribute that records, on a compiled (local
/// view) function, the global spec-typed tensor each local argument or
/// result is a shard of: `{dtensor.global = tensor<8x16xf32, #dtensor.spec<
/// ...>>}`.
inline constexpr llvm::StringLiteral kGlobalTypeAttrName = "dtensor.global";

/// What a view of a `dtensor.mesh` looks like once resolved: its shape and,
/// for every view dim, the mesh dims it stands for.
struct ResolvedMeshView {
  MeshOp mesh;
  /// Shape of the view (a flattened view has one dim).
  Shape shape;
  /// Mesh dims behind each view dim.
  SmallVector<SmallVector<int64_t>> meshDims;
};

/// Resolves `view` from `from` (an op inside the module holding the mesh),
/// checking the symbol and the view's dims. Emits through `emitError` and
/// fails on error.
FailureOr<ResolvedMeshView>
resolveMeshView(Operation *from, const MeshViewRef &view,
                SymbolTableCollection &symbols,
                llvm::function_ref<InFlightDiagnostic()> emitError);

/// Checks a spec against its mesh (placement count per view dim) and returns
/// the layout core's view of it for a tensor of rank `rank`.
FailureOr<Layout> verifySpecForMesh(Operation *from, SpecAttr spec, int64_t rank,
                                    SymbolTableCollection &symbols,
                                    llvm::function_ref<InFlightDiagnostic()> emitError);

/// Checks that `local` can be every rank's shard of `global` (a tensor with a
/// spec on a mesh of layout `layout`): static dims where every rank agrees
/// and equal to that size, dynamic where ranks differ.
LogicalResult verifyLocalType(RankedTensorType local, RankedTensorType global,
                              const Layout &layout,
                              llvm::function_ref<InFlightDiagnostic()> emitError);

/// The bytes of one element of `type` (integers and floats rounded up to
/// whole bytes, index as 8, complex as two parts), or std::nullopt for types
/// whose size the dialect does not know.
std::optional<int64_t> getElementByteSize(Type type);

/// Checks the size bound of docs/IR.md: the element count of the static dims
/// of `shape` and, where the element size is known, its byte size fit in
/// int64 (layouts, collectives and the planner count in int64).
LogicalResult
verifyTensorSizeFits(ArrayRef<int64_t> shape, Type elementType,
                     llvm::function_ref<InFlightDiagnostic()> emitError);

/// Resolves the mesh behind the handle `mesh` for a collective or query over
/// `meshDims` (dims of the mesh symbol, already checked against the handle's
/// view by the op's verifier) and checks that they exist. Returns the mesh
/// symbol's shape: `meshGroups(shape, meshDims)` gives every group, in the
/// order the op uses.
FailureOr<Shape>
resolveGroupMesh(Operation *from, DeviceMeshType mesh,
                 ArrayRef<int64_t> meshDims, SymbolTableCollection &symbols,
                 llvm::function_ref<InFlightDiagnostic()> emitError);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_IR_DTENSOR_H
