//===- ShardingRules.h - what a compute op does to placements ---*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// The rules of SEMANTICS.md for linalg ops, derived from indexing maps,
// iterator types and bodies, written once for propagation (which chooses)
// and partitioning (which checks).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_TRANSFORMS_SHARDINGRULES_H
#define DTENSOR_DIALECT_DTENSOR_TRANSFORMS_SHARDINGRULES_H

#include "dtensor/Core/Placement.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <vector>

namespace mlir {
namespace dtensor {

/// The reduction a linalg body applies to its output `outArg` (sum,
/// product, max, min), if it is one of the Partial kinds.
std::optional<ReduceKind> combinerOf(Block &body, BlockArgument outArg);

/// Whether an element-wise body keeps Partial inputs Partial: one add/sub of
/// two Partial inputs, or one mul/div with exactly one Partial input (the
/// numerator of a div). `partialInputs` marks the Partial ones.
bool keepsPartial(Block &body, ArrayRef<bool> partialInputs,
                  unsigned numInputs);

/// A `loop` argument of placementsForLoop: no loop sharded, and every
/// operand replicated (Partial inputs reduced first).
constexpr int64_t kReplicateAll = -2;

/// The placement every operand (inputs then outputs) must have on one mesh
/// dim when that mesh dim shards loop `loop` of `op` (or no loop, -1, with
/// Partial inputs passed through; or kReplicateAll), given
/// the inputs' current placements there (for Partial pass-through). Returns
/// std::nullopt when no exact rule exists: a reduction loop without a
/// Partial combiner, or Partial inputs the body does not keep.
std::optional<std::vector<Placement>>
placementsForLoop(linalg::LinalgOp op, int64_t loop,
                  ArrayRef<Placement> inputPlacements);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_TRANSFORMS_SHARDINGRULES_H
