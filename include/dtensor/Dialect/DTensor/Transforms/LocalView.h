//===- LocalView.h - building local-view IR for distributed values -*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// What partitioning needs to turn a global-view value into one rank's shard:
// the local type of a distributed tensor, this rank's chunk of a dim as
// index arithmetic, and the lowering of a redistribution into the planner's
// collectives with padding for uneven shards. Shared by the passes that
// produce local-view IR.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_TRANSFORMS_LOCALVIEW_H
#define DTENSOR_DIALECT_DTENSOR_TRANSFORMS_LOCALVIEW_H

#include "dtensor/Core/Redistribute.h"
#include "dtensor/Core/Window.h"
#include "dtensor/Dialect/DTensor/IR/DTensor.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <string>
#include <unordered_map>

namespace mlir {
namespace dtensor {

/// A distributed tensor type resolved against its mesh.
struct DistributedType {
  RankedTensorType global;
  SpecAttr spec;
  ResolvedMeshView view;
  Layout layout;

  /// The mesh symbol's dims behind the view dims `viewDims`, in order (a
  /// flattened view dim stands for several).
  SmallVector<int64_t> meshDimsOf(ArrayRef<int64_t> viewDims) const;
};

/// The handle of mesh view `view` among the arguments of the function
/// around `op`, or null when the function takes none.
Value findMeshHandle(Operation *op, const MeshViewRef &view);
/// The handle of mesh view `view` among `fn`'s arguments, or null.
Value findMeshHandleIn(FunctionOpInterface fn, const MeshViewRef &view);

/// Resolves `type` (a tensor with a spec) from `from`. Emits and fails when
/// the spec does not fit its mesh.
FailureOr<DistributedType> resolveDistributedType(RankedTensorType type,
                                                  Operation *from,
                                                  SymbolTableCollection &symbols);

/// The type of one rank's shard: a dim is static where every rank's shard
/// has the same size and dynamic where shards are uneven (or the global dim
/// is dynamic).
RankedTensorType getLocalType(RankedTensorType global, const Layout &layout);

/// Plans already made in one pass run, by request (programs repeat their
/// redistributions layer after layer).
struct PlanCache {
  std::unordered_map<std::string, std::optional<Plan>> plans;
  std::unordered_map<std::string, std::string> errors;
};

/// Lowers a redistribution of the local value `local` (this rank's shard of
/// `from`) to `to` on the same mesh: the planner's steps as dtensor
/// collectives on `mesh`, with local chunking, scaling, and padding around
/// collectives where shards are uneven. Emits at `loc` and fails on what it
/// cannot lower (dynamic global shapes, integer R -> P(sum)).
FailureOr<Value> lowerRedistribute(OpBuilder &b, Location loc, Value local,
                                   Value mesh, const DistributedType &from,
                                   ArrayRef<Placement> to,
                                   const CostModel &cost,
                                   PlanCache *cache = nullptr);

/// tensor.extract_slice of `source`, or, where `source` has a static
/// zero-size dim, a tensor.empty of the result (MLIR 22's verifier rejects
/// every static offset into a zero-size dim, 0 included, so a slice of an
/// empty tensor, which is empty, is built without one).
Value createExtractSlice(OpBuilder &b, Location loc,
                         RankedTensorType resultType, Value source,
                         ArrayRef<OpFoldResult> offsets,
                         ArrayRef<OpFoldResult> sizes,
                         ArrayRef<OpFoldResult> strides);
/// tensor.insert_slice of `piece` into `dest`, or `dest` itself where either
/// has a static zero-size dim (nothing is written).
Value createInsertSlice(OpBuilder &b, Location loc, Value piece, Value dest,
                        ArrayRef<OpFoldResult> offsets,
                        ArrayRef<OpFoldResult> sizes,
                        ArrayRef<OpFoldResult> strides);

/// This rank's offset and size of tensor dim `dim` of length `length`
/// (global) under `layout`: torch.chunk over each mesh dim of the dim's shard
/// order in turn, as index arithmetic on `dtensor.mesh_coord`.
std::pair<Value, Value> emitShardExtent(OpBuilder &b, Location loc, Value mesh,
                                        const DistributedType &type,
                                        const Layout &layout, int64_t dim);

/// Builds this rank's window of dim `dim` of `local` (its shard of `type`)
/// for a loop sharded on view dim `viewDim` that reads the dim as `read`
/// describes (Core/Window.h): a tensor whose dim `dim` is the window's static
/// length (this rank's share of the loop for a plain shift `i + c`), filled
/// from this rank's shard and from the ranks owning the rest: one
/// `dtensor.permute` per shift (Core/Window.h: haloShifts) when the operand
/// is sharded along `dim` on `viewDim`, a local slice when it is whole
/// there. Positions outside the global dim hold `fill` (a scalar: a pad's
/// padding), or zeros when it is null (never read). `windowed` lists dims of
/// `local` that are already windows (an operand read through windows in
/// several dims gets them one after the other).
FailureOr<Value> emitWindow(OpBuilder &b, Location loc, Value mesh,
                            Value local, const DistributedType &type,
                            int64_t dim, int64_t viewDim,
                            const WindowRead &read,
                            ArrayRef<int64_t> windowed = {},
                            Value fill = nullptr);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_TRANSFORMS_LOCALVIEW_H
