//===- ScheduleAsync.cpp - overlap collectives with compute ---------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Raise and sink (as Inductor's reorder passes do): a synchronous collective
// becomes a start placed as early as its operands allow and a wait placed
// as late as its first use allows, within its block. Everything between
// the two runs while the collective is in flight.
//
// Order. Every rank must issue the collectives of a group in one order. The
// program is the same on every rank, so any reordering this pass makes is
// made identically everywhere; it still keeps the issue order of the
// program: a start never moves above an earlier collective of its block (a
// start or a synchronous one), a call, or an op whose regions communicate.
// Waits may sink past other collectives: completing a started collective
// later does not change the order in which collectives are issued.
//
// Producers. A start can rise only as far as its operands are computed, so
// the pure ops computing them (slices and pads of a halo, a bucket's
// concatenation) rise first, each to just after the last op of the block
// that it depends on (operands, and values its regions use from above).
//
// Values. Tensors are values: the start's operand cannot change while the
// collective is in flight (the emitted programs keep the operand's buffer
// alive in the future, and a kernel writing into a shared buffer copies
// it).
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/IR/DTensor.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORSCHEDULEASYNCPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {

bool isCollective(Operation *op) {
  return isa<AllGatherOp, AllReduceOp, ReduceScatterOp, AllToAllOp,
             BroadcastOp, PermuteOp>(op);
}

bool isSync(Operation *op) {
  return isCollective(op) && op->getNumResults() == 1 &&
         !isa<FutureType>(op->getResult(0).getType());
}

/// Whether `op` issues collectives other than itself: a call (its callee
/// may), or an op whose regions hold a collective, a wait or a call.
bool communicatesInside(Operation *op) {
  if (isa<CallOpInterface>(op))
    return true;
  if (op->getNumRegions() == 0)
    return false;
  bool found = false;
  op->walk([&](Operation *inner) {
    if (inner != op && (isCollective(inner) || isa<WaitOp>(inner) ||
                        isa<CallOpInterface>(inner))) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

struct DTensorScheduleAsyncPass
    : public dtensor::impl::DTensorScheduleAsyncPassBase<
          DTensorScheduleAsyncPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(verifyDistributedTypes(getOperation())))
      return signalPassFailure();
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *b) { blocks.push_back(b); });
    for (Block *b : blocks)
      schedule(*b);
  }

  /// The values `op` reads: operands, and values its regions use from
  /// above.
  static SmallVector<Value> dependencies(Operation *op) {
    SmallVector<Value> deps(op->getOperands());
    if (op->getNumRegions()) {
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(op->getRegions(), above);
      deps.append(above.begin(), above.end());
    }
    return deps;
  }

  /// The pure ops of `block` that `op`'s operands are computed by, directly
  /// or through other pure ops (`producers`), and the last op of the block
  /// that `op` or one of them depends on otherwise (`anchor`; null: none).
  static void producersOf(Operation *op, Block &block,
                          llvm::SetVector<Operation *> &producers,
                          Operation *&anchor) {
    for (Value v : dependencies(op)) {
      Operation *def = v.getDefiningOp();
      if (!def)
        continue; // a block argument: available from the block's start
      Operation *inBlock = block.findAncestorOpInBlock(*def);
      if (!inBlock || producers.contains(inBlock))
        continue;
      if (inBlock == def && isMemoryEffectFree(def) &&
          !def->hasTrait<OpTrait::IsTerminator>()) {
        producers.insert(def);
        producersOf(def, block, producers, anchor);
        continue;
      }
      if (!anchor || anchor->isBeforeInBlock(inBlock))
        anchor = inBlock;
    }
  }

  /// Whether `op` does work worth overlapping: not a constant, an empty
  /// tensor, scalar index arithmetic, a rank query or a wait.
  static bool isWork(Operation *op) {
    if (op->hasTrait<OpTrait::ConstantLike>() ||
        isa<tensor::EmptyOp, WaitOp, MeshCoordOp, ShardSizeOp, ShardOffsetOp>(
            op))
      return false;
    if (op->getNumRegions() == 0 &&
        llvm::none_of(op->getResultTypes(),
                      [](Type t) { return isa<ShapedType>(t); }) &&
        isMemoryEffectFree(op))
      return false; // scalar arithmetic
    return true;
  }

  void schedule(Block &block) {
    // The ops a start may not move above, in block order, as we go.
    Operation *barrier = nullptr;
    SmallVector<std::pair<Operation *, WaitOp>> started;
    SmallVector<Operation *> ops;
    for (Operation &op : block)
      ops.push_back(&op);
    for (Operation *op : ops) {
      if (!isSync(op)) {
        // A check (from_local's shape assertion) stays before every
        // collective after it: a rank holding a wrong shard stops there
        // rather than entering a collective with it.
        if (isCollective(op) || communicatesInside(op) ||
            isa<cf::AssertOp>(op))
          barrier = op;
        continue;
      }
      // Earliest start: after the barrier and whatever the operands depend
      // on that is not a pure op of this block; those pure producers rise
      // with the start, in their order.
      llvm::SetVector<Operation *> producers;
      Operation *anchor = nullptr;
      producersOf(op, block, producers, anchor);
      Operation *after = barrier;
      if (anchor && (!after || after->isBeforeInBlock(anchor)))
        after = anchor;
      // Latest wait: before the first op of the block using the result.
      Operation *firstUse = nullptr;
      for (Operation *user : op->getResult(0).getUsers()) {
        Operation *inBlock = block.findAncestorOpInBlock(*user);
        if (inBlock && (!firstUse || inBlock->isBeforeInBlock(firstUse)))
          firstUse = inBlock;
      }
      if (!firstUse)
        firstUse = block.mightHaveTerminator() ? block.getTerminator() : nullptr;
      if (!firstUse) {
        barrier = op;
        continue;
      }
      Operation *startAt = after ? after->getNextNode() : &block.front();
      // The producers after the start's place move up to it, in order, and
      // the start follows them.
      Operation *insertAt = startAt;
      while (insertAt != op && producers.contains(insertAt))
        insertAt = insertAt->getNextNode();
      SmallVector<Operation *> rising;
      for (Operation *o = insertAt; o != op; o = o->getNextNode())
        if (producers.contains(o))
          rising.push_back(o);
      for (Operation *o : rising)
        o->moveBefore(insertAt);
      OpBuilder builder(insertAt);
      Type tensorType = op->getResult(0).getType();
      Operation *start = builder.clone(*op);
      start->getResult(0).setType(FutureType::get(
          op->getContext(), cast<RankedTensorType>(tensorType)));
      builder.setInsertionPoint(firstUse);
      auto wait = WaitOp::create(builder, op->getLoc(), tensorType,
                                 start->getResult(0));
      op->getResult(0).replaceAllUsesWith(wait.getResult());
      op->erase();
      barrier = start;
      started.push_back({start, wait});
    }
    // A start with no work before its wait (nothing else to run while it is
    // in flight) becomes synchronous again, where it starts.
    for (auto [start, wait] : started) {
      int64_t between = 0;
      for (Operation *o = start->getNextNode(); o != wait; o = o->getNextNode())
        between += isWork(o);
      if (between) {
        ++numStarted;
        numOverlapped += between;
        continue;
      }
      OpBuilder builder(start);
      Operation *sync = builder.clone(*start);
      sync->getResult(0).setType(wait.getType());
      wait.getResult().replaceAllUsesWith(sync->getResult(0));
      wait.erase();
      start->erase();
    }
  }
};

} // namespace
