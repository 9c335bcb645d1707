//===- OptimizeCollectives.cpp - hoist and deduplicate collectives --------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Collectives carry a communicator effect so that no generic pass reorders,
// merges or drops them: every rank must issue the collectives of a group in
// the same order. Within one compiled program that order is the program's
// own, and this pass changes it the same way on every rank, so it can do
// what CSE and LICM do for pure ops:
//  - a synchronous collective equal to one that dominates it (same kind,
//    input, mesh, groups, attributes, result type) is that one's value, and
//    pure ops then equal are merged as CSE does, until nothing merges;
//  - a synchronous collective in a loop whose operands are defined outside
//    it moves before the loop, when the loop's trip count is a constant of
//    at least one (so no rank communicates where the program would not);
//    pure ops that feed or follow it (the padding and slicing lowering puts
//    around collectives) move with it, as LICM would move them.
// Asynchronous starts and waits stay where they are (the overlap pass
// places them).
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/IR/DTensor.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSOROPTIMIZECOLLECTIVESPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// A collective that returns its value (not a future).
bool isSyncCollective(Operation *op) {
  if (!isa<AllGatherOp, AllReduceOp, ReduceScatterOp, AllToAllOp, BroadcastOp,
           PermuteOp>(op))
    return false;
  return op->getNumResults() == 1 &&
         !isa<FutureType>(op->getResult(0).getType());
}

struct DTensorOptimizeCollectivesPass
    : public dtensor::impl::DTensorOptimizeCollectivesPassBase<
          DTensorOptimizeCollectivesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(verifyDistributedTypes(getOperation())))
      return signalPassFailure();
    ModuleOp module = getOperation();
    if (hoist)
      module.walk([&](LoopLikeOpInterface loop) { hoistFrom(loop); });
    // Merging two collectives can make what they feed equal (the padding
    // and slicing an uneven all_reduce -> all_gather puts between them),
    // and so the next collectives: merge, then CSE, until nothing merges.
    if (dedupe)
      while (deduplicate(module)) {
        IRRewriter rewriter(module.getContext());
        DominanceInfo dominance(module);
        bool changed = false;
        eliminateCommonSubExpressions(rewriter, dominance, module, &changed);
        if (!changed)
          break;
      }
  }

  /// Loop-invariant code motion that also moves synchronous collectives
  /// out of loops that run at least once. Post-order walk: inner loops
  /// first, so an op leaves a nest one level per enclosing loop.
  void hoistFrom(LoopLikeOpInterface loop) {
    std::optional<APInt> trips = loop.getStaticTripCount();
    bool runsOnce = trips && trips->isStrictlyPositive();
    moveLoopInvariantCode(
        loop.getLoopRegions(),
        [&](Value v, Region *) { return loop.isDefinedOutsideOfLoop(v); },
        [&](Operation *op, Region *) {
          if (isSyncCollective(op))
            return runsOnce;
          return isMemoryEffectFree(op) && isSpeculatable(op);
        },
        [&](Operation *op, Region *) {
          numHoisted += isSyncCollective(op);
          loop.moveOutOfLoop(op);
        });
  }

  /// Replaces every synchronous collective equal to one that dominates it;
  /// whether any was.
  bool deduplicate(ModuleOp module) {
    DominanceInfo dominance(module);
    struct Info : llvm::DenseMapInfo<Operation *> {
      static unsigned getHashValue(const Operation *op) {
        return OperationEquivalence::computeHash(
            const_cast<Operation *>(op),
            OperationEquivalence::directHashValue,
            OperationEquivalence::ignoreHashValue,
            OperationEquivalence::IgnoreLocations);
      }
      static bool isEqual(const Operation *a, const Operation *b) {
        if (a == b)
          return true;
        if (a == getEmptyKey() || a == getTombstoneKey() ||
            b == getEmptyKey() || b == getTombstoneKey())
          return false;
        return OperationEquivalence::isEquivalentTo(
            const_cast<Operation *>(a), const_cast<Operation *>(b),
            OperationEquivalence::IgnoreLocations);
      }
    };
    llvm::DenseMap<Operation *, SmallVector<Operation *, 1>, Info> seen;
    SmallVector<Operation *> dead;
    module.walk([&](Operation *op) {
      if (!isSyncCollective(op))
        return;
      SmallVector<Operation *, 1> &earlier = seen[op];
      for (Operation *first : earlier)
        if (dominance.properlyDominates(first, op)) {
          op->getResult(0).replaceAllUsesWith(first->getResult(0));
          dead.push_back(op);
          ++numMerged;
          return;
        }
      earlier.push_back(op);
    });
    for (Operation *op : dead)
      op->erase();
    return !dead.empty();
  }
};

} // namespace
