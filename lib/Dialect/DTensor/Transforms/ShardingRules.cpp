//===- ShardingRules.cpp - what a compute op does to placements -----------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/ShardingRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir {
namespace dtensor {

/// The reduction a linalg body applies to its output `outArg`, if it is one
/// of the Partial kinds.
std::optional<ReduceKind> combinerOf(Block &body, BlockArgument outArg) {
  auto yield = llvm::cast<linalg::YieldOp>(body.getTerminator());
  unsigned index = outArg.getArgNumber() -
                   (body.getNumArguments() - yield.getNumOperands());
  Operation *def = yield.getOperand(index).getDefiningOp();
  if (!def || !llvm::is_contained(def->getOperands(), Value(outArg)))
    return std::nullopt;
  if (llvm::isa<arith::AddFOp, arith::AddIOp>(def))
    return ReduceKind::Sum;
  if (llvm::isa<arith::MulFOp, arith::MulIOp>(def))
    return ReduceKind::Product;
  if (llvm::isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(def))
    return ReduceKind::Max;
  if (llvm::isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(def))
    return ReduceKind::Min;
  return std::nullopt;
}

/// Whether a Partial input is kept Partial by an element-wise body: the body
/// is one add/sub of Partial(sum|avg) inputs of one kind, or one mul/div
/// with exactly one such input (the numerator of a div), the rest Replicate.
bool keepsPartial(Block &body, ArrayRef<bool> partialInputs, unsigned numInputs) {
  auto yield = llvm::cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1)
    return false;
  Operation *def = yield.getOperand(0).getDefiningOp();
  if (!def || def->getBlock() != &body || &body.front() != def ||
      def->getNextNode() != yield.getOperation())
    return false;
  auto argIndex = [&](Value v) -> int {
    auto arg = llvm::dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &body && arg.getArgNumber() < numInputs
               ? int(arg.getArgNumber())
               : -1;
  };
  if (def->getNumOperands() != 2)
    return false;
  int a = argIndex(def->getOperand(0)), b = argIndex(def->getOperand(1));
  if (a < 0 || b < 0)
    return false;
  bool pa = partialInputs[a], pb = partialInputs[b];
  if (llvm::isa<arith::AddFOp, arith::SubFOp>(def))
    return pa && pb;
  if (llvm::isa<arith::MulFOp>(def))
    return pa != pb;
  if (llvm::isa<arith::DivFOp>(def))
    return pa && !pb;
  return false;
}

std::optional<std::vector<Placement>>
placementsForLoop(linalg::LinalgOp op, int64_t loop,
                  ArrayRef<Placement> inputPlacements) {
  Operation *raw = op.getOperation();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned numInputs = op.getNumDpsInputs();
  unsigned numOperands = raw->getNumOperands();
  std::vector<Placement> out(numOperands, Placement::replicate());
  if (loop == kReplicateAll)
    return out;
  if (loop < 0) {
    // No loop sharded: Partial inputs must survive the body.
    SmallVector<bool> partial;
    std::optional<ReduceKind> kind;
    for (unsigned o = 0; o < numInputs; ++o) {
      bool p = o < inputPlacements.size() && inputPlacements[o].isPartial();
      partial.push_back(p);
      if (p) {
        if (kind && *kind != inputPlacements[o].reduce)
          return std::nullopt;
        kind = inputPlacements[o].reduce;
        out[o] = inputPlacements[o];
      }
    }
    if (!kind)
      return out;
    if (!isLinear(*kind) || !keepsPartial(*op.getBlock(), partial, numInputs))
      return std::nullopt;
    for (unsigned o = numInputs; o < numOperands; ++o)
      out[o] = Placement::partial(*kind);
    return out;
  }
  AffineExpr dim = getAffineDimExpr(loop, raw->getContext());
  bool reduction =
      op.getIteratorTypesArray()[loop] == utils::IteratorType::reduction;
  for (unsigned o = 0; o < numOperands; ++o) {
    std::optional<unsigned> pos = maps[o].getResultPosition(dim);
    if (pos) {
      out[o] = Placement::shard(*pos);
      continue;
    }
    if (o >= numInputs) {
      if (!reduction)
        return std::nullopt; // an output that drops a parallel loop
      std::optional<ReduceKind> kind =
          combinerOf(*op.getBlock(), op.getBlock()->getArgument(o));
      if (!kind)
        return std::nullopt;
      out[o] = Placement::partial(*kind);
    }
  }
  return out;
}

} // namespace dtensor
} // namespace mlir
