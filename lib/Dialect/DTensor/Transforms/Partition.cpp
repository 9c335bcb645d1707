//===- Partition.cpp - DTensor API programs into the local view -----------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// A dialect conversion whose type converter maps every distributed tensor
// type to its local shard type (LocalView.h), with patterns for the DTensor
// API ops and the func boundary patterns for signatures, calls and returns.
// Ops other than these that touch distributed values are diagnosed up front,
// so the conversion never leaves a half-converted program behind.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/LocalView.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORPARTITIONPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// What every pattern needs: symbols to resolve meshes and the cost model.
struct Context {
  SymbolTableCollection symbols;
  CostModel cost;
  /// Set when a lowering emitted an error: the op is then replaced by a
  /// placeholder so the conversion completes, and the pass fails once,
  /// without the conversion driver's second "failed to legalize" error.
  bool failed = false;
};

Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return tensor::CastOp::create(b, loc, type, v);
}

/// The mesh dims (of the mesh symbol) of the view dims holding `kind`.
SmallVector<int64_t> meshDimsWhere(const DistributedType &t,
                                   PlacementKind kind) {
  SmallVector<int64_t> dims;
  for (auto [v, p] : llvm::enumerate(t.layout.placements()))
    if (p.kind == kind && t.view.shape[v] > 1)
      llvm::append_range(dims, t.view.meshDims[v]);
  return dims;
}

template <typename OpTy>
struct ApiPattern : OpConversionPattern<OpTy> {
  ApiPattern(const TypeConverter &converter, MLIRContext *ctx, Context &c)
      : OpConversionPattern<OpTy>(converter, ctx), c(c) {}
  Context &c;
};

/// from_local: the local value is this rank's shard already. With run_check,
/// replicated mesh dims are broadcast from group rank 0, as DTensor does.
struct FromLocalLowering : ApiPattern<FromLocalOp> {
  using ApiPattern::ApiPattern;
  LogicalResult
  matchAndRewrite(FromLocalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<DistributedType> t =
        resolveDistributedType(op.getType(), op, c.symbols);
    if (failed(t))
      return failure();
    Type localType = getTypeConverter()->convertType(op.getType());
    Value v = castTo(rewriter, op.getLoc(), adaptor.getLocal(), localType);
    SmallVector<int64_t> replicated =
        meshDimsWhere(*t, PlacementKind::Replicate);
    if (op.getRunCheck() && !replicated.empty())
      v = BroadcastOp::create(rewriter, op.getLoc(), localType, v,
                              adaptor.getMesh(), replicated, /*root=*/0);
    rewriter.replaceOp(op, v);
    return success();
  }
};

/// to_local: the converted value is the shard.
struct ToLocalLowering : ApiPattern<ToLocalOp> {
  using ApiPattern::ApiPattern;
  LogicalResult
  matchAndRewrite(ToLocalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, castTo(rewriter, op.getLoc(), adaptor.getSource(),
                                  op.getType()));
    return success();
  }
};

/// distribute_tensor: broadcast from the source rank when there is one,
/// then keep this rank's shard.
struct DistributeTensorLowering : ApiPattern<DistributeTensorOp> {
  using ApiPattern::ApiPattern;
  LogicalResult
  matchAndRewrite(DistributeTensorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<DistributedType> t =
        resolveDistributedType(op.getType(), op, c.symbols);
    if (failed(t))
      return failure();
    Location loc = op.getLoc();
    Value v = adaptor.getSource();
    if (std::optional<int64_t> src = op.getSrcRank()) {
      // Group rank `src` on every view dim is one rank of the whole view; a
      // flattened view dim's group rank spreads over its mesh dims
      // row-major.
      SmallVector<int64_t> dims;
      Shape sizes, coords;
      for (auto [viewDim, size] : llvm::enumerate(t->view.shape)) {
        if (size == 1)
          continue;
        Shape groupSizes;
        for (int64_t m : t->view.meshDims[viewDim])
          groupSizes.push_back(t->view.mesh.getShape()[m]);
        Shape digits = rankToCoord(groupSizes, *src);
        for (auto [k, m] : llvm::enumerate(t->view.meshDims[viewDim])) {
          dims.push_back(m);
          sizes.push_back(groupSizes[k]);
          coords.push_back(digits[k]);
        }
      }
      int64_t root = coordToRank(sizes, coords);
      if (!dims.empty())
        v = BroadcastOp::create(rewriter, loc, v.getType(), v,
                                adaptor.getMesh(), dims, root);
    }
    RankedTensorType global = op.getType();
    auto localType =
        llvm::cast<RankedTensorType>(getTypeConverter()->convertType(global));
    SmallVector<OpFoldResult> offsets, sizes,
        strides(global.getRank(), rewriter.getIndexAttr(1));
    for (int64_t d = 0; d < global.getRank(); ++d) {
      if (t->layout.order(d).empty()) {
        offsets.push_back(rewriter.getIndexAttr(0));
        sizes.push_back(rewriter.getIndexAttr(global.getDimSize(d)));
        continue;
      }
      auto [offset, size] =
          emitShardExtent(rewriter, loc, adaptor.getMesh(), *t, t->layout, d);
      offsets.push_back(offset);
      if (localType.isDynamicDim(d))
        sizes.push_back(size);
      else
        sizes.push_back(rewriter.getIndexAttr(localType.getDimSize(d)));
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(op, localType, v,
                                                        offsets, sizes, strides);
    return success();
  }
};

/// redistribute and full_tensor: the planner's steps.
template <typename OpTy>
struct RedistributeLowering : ApiPattern<OpTy> {
  using ApiPattern<OpTy>::ApiPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType source = op.getSource().getType();
    FailureOr<DistributedType> from =
        resolveDistributedType(source, op, this->c.symbols);
    if (failed(from))
      return failure();
    Placements to;
    Type resultType;
    if constexpr (std::is_same_v<OpTy, FullTensorOp>) {
      to.assign(from->layout.placements().size(), Placement::replicate());
      resultType = op.getType();
    } else {
      to = getSpec(op.getType()).getNormalizedPlacements(source.getRank());
      resultType = this->getTypeConverter()->convertType(op.getType());
    }
    FailureOr<Value> v =
        lowerRedistribute(rewriter, op.getLoc(), adaptor.getSource(),
                          adaptor.getMesh(), *from, to, this->c.cost);
    if (failed(v)) {
      this->c.failed = true;
      rewriter.replaceOpWithNewOp<UnrealizedConversionCastOp>(
          op, resultType, adaptor.getSource());
      return success();
    }
    rewriter.replaceOp(op, castTo(rewriter, op.getLoc(), *v, resultType));
    return success();
  }
};

bool isApiOp(Operation *op) {
  return isa<FromLocalOp, ToLocalOp, DistributeTensorOp, RedistributeOp,
             FullTensorOp, func::ReturnOp, func::CallOp, func::FuncOp>(op);
}

bool touchesDistributed(Operation *op) {
  auto isDist = [](Type t) { return bool(getSpec(t)); };
  if (llvm::any_of(op->getOperandTypes(), isDist) ||
      llvm::any_of(op->getResultTypes(), isDist))
    return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        if (isDist(arg.getType()))
          return true;
  return false;
}

struct DTensorPartitionPass
    : public dtensor::impl::DTensorPartitionPassBase<DTensorPartitionPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    Context c;
    c.cost.devicesPerHost = devicesPerHost;

    // Diagnose what this pass cannot partition before changing anything.
    bool unsupported = false;
    module.walk([&](Operation *op) {
      if (isApiOp(op) || !touchesDistributed(op))
        return;
      op->emitOpError()
          << "operates on distributed tensors, which dtensor-partition "
             "supports only in the DTensor API ops (from_local, "
             "distribute_tensor, redistribute, to_local, full_tensor) and "
             "function boundaries; propagate and partition compute ops first";
      unsupported = true;
    });
    module.walk([&](Operation *op) {
      if (!isa<DistributeTensorOp, RedistributeOp, FullTensorOp>(op))
        return;
      for (Type t : op->getOperandTypes())
        if (auto tensor = llvm::dyn_cast<RankedTensorType>(t);
            tensor && getSpec(t) && !tensor.hasStaticShape()) {
          op->emitOpError() << "needs a static global shape to be "
                               "partitioned, got "
                            << t;
          unsupported = true;
        }
    });
    if (unsupported)
      return signalPassFailure();

    // A distributed type's local type needs its mesh; resolve from the
    // module, which holds every dtensor.mesh.
    TypeConverter converter;
    converter.addConversion([](Type t) { return t; });
    converter.addConversion([&](RankedTensorType t) -> std::optional<Type> {
      if (!getSpec(t))
        return t;
      FailureOr<DistributedType> dist =
          resolveDistributedType(t, module, c.symbols);
      if (failed(dist))
        return std::nullopt;
      return getLocalType(t, dist->layout);
    });

    ConversionTarget target(*ctx);
    target.addLegalDialect<arith::ArithDialect, tensor::TensorDialect,
                           DTensorDialect>();
    target.addIllegalOp<FromLocalOp, ToLocalOp, DistributeTensorOp,
                        RedistributeOp, FullTensorOp>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return converter.isLegal(op); });
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });

    RewritePatternSet patterns(ctx);
    patterns.add<FromLocalLowering, ToLocalLowering, DistributeTensorLowering,
                 RedistributeLowering<RedistributeOp>,
                 RedistributeLowering<FullTensorOp>>(converter, ctx, c);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    if (failed(applyPartialConversion(module, target, std::move(patterns))) ||
        c.failed)
      signalPassFailure();
  }
};

} // namespace
