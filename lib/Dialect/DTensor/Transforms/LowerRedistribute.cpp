//===- LowerRedistribute.cpp - reshards into planned collectives ----------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Replaces every `dtensor.reshard` (a redistribute in the local view, left by
// dtensor-partition) with the planner's steps: dtensor collectives on the
// mesh handle, local chunking and scaling, and padding around collectives
// where shards are uneven (LocalView.h). Identical requests share one plan.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/LocalView.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORLOWERREDISTRIBUTEPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {

struct DTensorLowerRedistributePass
    : public dtensor::impl::DTensorLowerRedistributePassBase<
          DTensorLowerRedistributePass> {
  using Base::Base;

  void runOnOperation() override {
    if (devicesPerHost <= 0) {
      getOperation().emitError()
          << "dtensor-lower-redistribute: devices-per-host must be positive, "
             "not "
          << int64_t(devicesPerHost);
      return signalPassFailure();
    }
    if (failed(verifyDistributedTypes(getOperation())))
      return signalPassFailure();
    SymbolTableCollection symbols;
    CostModel cost;
    cost.devicesPerHost = devicesPerHost;
    PlanCache plans;
    llvm::DenseMap<Type, DistributedType> resolved;
    SmallVector<ReshardOp> reshards;
    getOperation().walk([&](ReshardOp op) { reshards.push_back(op); });
    bool failedAny = false;
    for (ReshardOp op : reshards) {
      auto global = llvm::cast<RankedTensorType>(op.getFrom());
      auto it = resolved.find(global);
      if (it == resolved.end()) {
        FailureOr<DistributedType> t = resolveDistributedType(global, op, symbols);
        if (failed(t)) {
          failedAny = true;
          continue;
        }
        it = resolved.try_emplace(global, *t).first;
      }
      OpBuilder b(op);
      Placements to = op.getTo().getNormalizedPlacements(global.getRank());
      FailureOr<Value> v = lowerRedistribute(b, op.getLoc(), op.getSource(),
                                             op.getMesh(), it->second, to, cost,
                                             &plans);
      if (failed(v)) {
        failedAny = true;
        continue;
      }
      Value result = *v;
      if (result.getType() != op.getType())
        result = tensor::CastOp::create(b, op.getLoc(), op.getType(), result);
      op.replaceAllUsesWith(result);
      op.erase();
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
