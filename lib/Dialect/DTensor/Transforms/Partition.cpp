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
#include "dtensor/Dialect/DTensor/Transforms/ShardingRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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
  PlanCache plans;
  /// Distributed types resolved so far (every op of a layer repeats them).
  llvm::DenseMap<Type, DistributedType> resolved;

  FailureOr<DistributedType> resolve(RankedTensorType type, Operation *at) {
    auto it = resolved.find(type);
    if (it != resolved.end())
      return it->second;
    FailureOr<DistributedType> t = resolveDistributedType(type, at, symbols);
    if (succeeded(t))
      resolved.try_emplace(type, *t);
    return t;
  }
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
        c.resolve(op.getType(), op);
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
        c.resolve(op.getType(), op);
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
        this->c.resolve(source, op);
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
                          adaptor.getMesh(), *from, to, this->c.cost,
                          &this->c.plans);
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

bool touchesDistributed(Operation *op);

/// local_map: inputs brought to their in_specs, then the region inlined on
/// the local shards; its yields are the results' shards.
struct LocalMapLowering : ApiPattern<LocalMapOp> {
  using ApiPattern::ApiPattern;
  LogicalResult
  matchAndRewrite(LocalMapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Block &body = op.getBody().front();
    SmallVector<Value> locals;
    for (auto [i, input, attr] : llvm::enumerate(
             op.getInputs(), op.getInSpecs().getAsRange<SpecAttr>())) {
      auto global = llvm::cast<RankedTensorType>(input.getType());
      FailureOr<DistributedType> from = c.resolve(global, op);
      if (failed(from))
        return failure();
      Value v = adaptor.getInputs()[i];
      Placements want = attr.getNormalizedPlacements(global.getRank());
      if (want != from->layout.placements()) {
        FailureOr<Value> moved =
            lowerRedistribute(rewriter, loc, v, adaptor.getMesh(), *from, want,
                              c.cost, &c.plans);
        if (failed(moved)) {
          c.failed = true;
          return failure();
        }
        v = *moved;
      }
      locals.push_back(castTo(rewriter, loc, v, body.getArgument(i).getType()));
    }
    auto yield = llvm::cast<YieldOp>(body.getTerminator());
    SmallVector<Value> yielded(yield.getValues());
    rewriter.inlineBlockBefore(&body, op, locals);
    rewriter.eraseOp(yield);
    SmallVector<Value> results;
    for (auto [value, result] : llvm::zip(yielded, op.getResults()))
      results.push_back(castTo(rewriter, loc, value,
                               getTypeConverter()->convertType(result.getType())));
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Compute ops on annotated values
//===----------------------------------------------------------------------===//

/// How a linalg op's loops are distributed, read off its operands' specs.
struct LoopSharding {
  /// Per loop: the view dims sharding it, in the order they apply.
  std::vector<std::vector<int64_t>> meshDimsOfLoop;
  /// Per loop: an operand and result position that index it directly (to
  /// compute the loop's offset), or -1.
  std::vector<std::pair<int, int>> witness;
};

/// Checks that the specs of a linalg op's operands and results describe one
/// consistent distribution of its loops, and returns it. Emits and fails
/// otherwise: a sharding the partitioned op could not compute exactly is a
/// diagnostic, never a wrong program.
FailureOr<LoopSharding> analyzeLinalg(linalg::LinalgOp op, Context &c) {
  Operation *raw = op.getOperation();
  unsigned numLoops = op.getNumLoops();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned numInputs = op.getNumDpsInputs();
  SmallVector<Value> operands(raw->getOperands());
  std::optional<ResolvedMeshView> view;
  SpecAttr anySpec;
  std::vector<std::optional<DistributedType>> dist(operands.size());
  for (auto [o, v] : llvm::enumerate(operands)) {
    auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
    if (!type || !getSpec(type))
      continue;
    FailureOr<DistributedType> t = c.resolve(type, raw);
    if (failed(t))
      return failure();
    if (anySpec && t->spec.getView() != anySpec.getView())
      return raw->emitOpError()
             << "mixes distributed operands on different meshes or views";
    anySpec = t->spec;
    dist[o] = *t;
  }
  if (!anySpec)
    return raw->emitOpError() << "has distributed results but no distributed "
                                 "operand to take the mesh from";
  for (auto [o, v] : llvm::enumerate(operands)) {
    auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
    if (type && !dist[o])
      return raw->emitOpError()
             << "mixes distributed and plain tensors (operand " << o
             << "); give every tensor operand a spec";
  }
  int64_t meshRank = anySpec.getPlacements().size();
  LoopSharding out;
  out.meshDimsOfLoop.resize(numLoops);
  out.witness.assign(numLoops, {-1, -1});
  for (int64_t m = 0; m < meshRank; ++m) {
    // The loop this mesh dim shards, from every operand that shards.
    std::optional<unsigned> loop;
    for (auto [o, t] : llvm::enumerate(dist)) {
      if (!t)
        continue;
      const Placement &p = t->layout.placements()[m];
      if (!p.isShard())
        continue;
      auto expr = llvm::dyn_cast<AffineDimExpr>(maps[o].getResult(p.dim));
      if (!expr)
        return raw->emitOpError()
               << "operand " << o << " is sharded along dim " << p.dim
               << ", which its indexing map does not index by one loop";
      if (loop && *loop != expr.getPosition())
        return raw->emitOpError()
               << "shards two loops (" << *loop << " and "
               << expr.getPosition() << ") on mesh dim " << m
               << "; redistribute one operand first";
      loop = expr.getPosition();
      out.witness[*loop] = {int(o), int(p.dim)};
    }
    // Every operand must agree: shard the loop where it indexes it, and be
    // Replicate (inputs) or the loop's result kind (outputs) elsewhere.
    for (auto [o, t] : llvm::enumerate(dist)) {
      if (!t)
        continue;
      const Placement &p = t->layout.placements()[m];
      std::optional<unsigned> pos;
      if (loop)
        pos = maps[o].getResultPosition(getAffineDimExpr(*loop, raw->getContext()));
      bool isOutput = o >= numInputs;
      if (loop && pos) {
        if (!p.isShard(*pos))
          return raw->emitOpError()
                 << "operand " << o << " should be S(" << *pos
                 << ") on mesh dim " << m << " like the other operands "
                 << "sharding loop " << *loop << ", but is "
                 << formatPlacement(p);
        continue;
      }
      if (isOutput && loop &&
          iterators[*loop] == utils::IteratorType::reduction) {
        std::optional<ReduceKind> kind = combinerOf(
            *op.getBlock(), op.getBlock()->getArgument(o));
        if (!kind)
          return raw->emitOpError()
                 << "reduces over loop " << *loop << ", sharded on mesh dim "
                 << m << ", with a combiner that is not sum, product, max or "
                    "min";
        if (!p.isPartial() || p.reduce != *kind)
          return raw->emitOpError()
                 << "reduces over loop " << *loop << ", sharded on mesh dim "
                 << m << ": its result must be "
                 << formatPlacement(Placement::partial(*kind))
                 << " there, not " << formatPlacement(p);
        continue;
      }
      if (p.isShard())
        continue; // handled above (its loop is `loop`)
      if (loop && !isOutput && !p.isReplicate())
        return raw->emitOpError()
               << "operand " << o << " does not index loop " << *loop
               << " (sharded on mesh dim " << m
               << "), so it must be R there, not " << formatPlacement(p);
    }
    if (loop) {
      out.meshDimsOfLoop[*loop].push_back(m);
      continue;
    }
    // No loop sharded on m: Partial inputs must survive the body, and the
    // outputs' placement must follow.
    SmallVector<bool> partialInputs;
    std::optional<ReduceKind> inputKind;
    for (unsigned o = 0; o < numInputs; ++o) {
      bool partial = dist[o] && dist[o]->layout.placements()[m].isPartial();
      partialInputs.push_back(partial);
      if (partial) {
        ReduceKind k = dist[o]->layout.placements()[m].reduce;
        if (!isLinear(k))
          return raw->emitOpError() << "takes a " << formatPlacement(Placement::partial(k))
                                    << " input on mesh dim " << m
                                    << "; reduce it first (redistribute to R)";
        inputKind = k;
      }
    }
    for (unsigned o = numInputs; o < operands.size(); ++o) {
      const Placement &p = dist[o]->layout.placements()[m];
      if (inputKind) {
        if (!keepsPartial(*op.getBlock(), partialInputs, numInputs) ||
            !p.isPartial() || p.reduce != *inputKind)
          return raw->emitOpError()
                 << "cannot keep its Partial input Partial on mesh dim " << m
                 << " (only add/sub of two Partials, or mul/div by a "
                    "replicated value, can): redistribute the input to R";
      } else if (p.isPartial() && !llvm::isa<linalg::FillOp>(raw)) {
        // A Partial result from replicated inputs needs every term to be a
        // share of the value; only fill (scaled) is lowered that way.
        return raw->emitOpError()
               << "makes a Partial result on mesh dim " << m
               << " from replicated inputs; compute it replicated and "
                  "redistribute";
      } else if (p.isPartial() && p.reduce == ReduceKind::Product) {
        return raw->emitOpError() << "cannot fill a P(product) value";
      }
    }
  }
  // A loop sharded by several mesh dims must use one order everywhere.
  for (auto [o, t] : llvm::enumerate(dist)) {
    if (!t)
      continue;
    for (unsigned k = 0; k < numLoops; ++k) {
      std::optional<unsigned> pos =
          maps[o].getResultPosition(getAffineDimExpr(k, raw->getContext()));
      if (!pos)
        continue;
      const std::vector<int64_t> &order = t->layout.order(*pos);
      if (std::vector<int64_t>(order) != out.meshDimsOfLoop[k])
        return raw->emitOpError()
               << "operand " << o << " shards loop " << k
               << " in another order of mesh dims than the other operands";
    }
  }
  return out;
}

/// The mesh handle of `view` among the arguments of `op`'s function, or null.
Value meshHandleFor(Operation *op, const MeshViewRef &view) {
  for (BlockArgument arg :
       op->getParentOfType<FunctionOpInterface>().getArguments())
    if (auto handle = llvm::dyn_cast<DeviceMeshType>(arg.getType()))
      if (handle.getView() == view)
        return arg;
  return {};
}

/// What partitioning does to one compute op, decided while every type is
/// still global and applied in place afterwards (compute ops keep their
/// form: only result types change, plus a few index computations).
struct ComputePlan {
  Operation *op = nullptr;
  Value mesh;
  /// linalg.index of a sharded loop: (loop, an operand type indexing it,
  /// that operand's dim) to compute this rank's offset from.
  SmallVector<std::tuple<unsigned, DistributedType, int64_t>> shifts;
  /// A fill of a Partial(sum) value fills value / fillShare.
  int64_t fillShare = 0;
  /// A tensor.empty whose local sizes differ across ranks.
  std::optional<DistributedType> unevenEmpty;
};

/// Checks a compute op on distributed values and plans its partitioning.
/// Emits and fails on what cannot be computed exactly.
FailureOr<ComputePlan> planCompute(Operation *raw, Context &c) {
  ComputePlan plan;
  plan.op = raw;
  if (auto op = llvm::dyn_cast<linalg::LinalgOp>(raw)) {
    FailureOr<LoopSharding> sharding = analyzeLinalg(op, c);
    if (failed(sharding))
      return failure();
    SpecAttr spec;
    for (Value v : raw->getOperands())
      if ((spec = getSpec(v.getType())))
        break;
    plan.mesh = meshHandleFor(raw, spec.getView());
    op.getBlock()->walk([&](linalg::IndexOp index) {
      unsigned k = index.getDim();
      if (sharding->meshDimsOfLoop[k].empty())
        return;
      auto [o, pos] = sharding->witness[k];
      FailureOr<DistributedType> t = c.resolve(
          llvm::cast<RankedTensorType>(raw->getOperand(o).getType()), raw);
      plan.shifts.push_back({k, *t, pos});
    });
    if (auto fill = llvm::dyn_cast<linalg::FillOp>(raw)) {
      FailureOr<DistributedType> t = c.resolve(
          llvm::cast<RankedTensorType>(fill.getResultTypes()[0]), raw);
      int64_t n = 1;
      bool sum = false;
      for (auto [m, p] : llvm::enumerate(t->layout.placements()))
        if (p.isPartial() && p.reduce == ReduceKind::Sum) {
          sum = true;
          n *= t->view.shape[m];
        }
      if (sum) {
        if (!llvm::isa<FloatType>(raw->getOperand(0).getType()))
          return raw->emitOpError() << "fills an integer P(sum) value, which "
                                       "would divide by the group size";
        plan.fillShare = n;
      }
    }
    if ((!plan.shifts.empty() || plan.fillShare) && !plan.mesh)
      return raw->emitOpError()
             << "needs the mesh handle of " << spec.getMesh()
             << " as an argument of its function (for this rank's offsets)";
    return plan;
  }
  if (auto empty = llvm::dyn_cast<tensor::EmptyOp>(raw)) {
    RankedTensorType global = empty.getType();
    if (!global.hasStaticShape())
      return raw->emitOpError() << "needs a static global shape to be partitioned";
    FailureOr<DistributedType> t = c.resolve(global, raw);
    if (failed(t))
      return failure();
    if (!getLocalType(global, t->layout).hasStaticShape()) {
      plan.mesh = meshHandleFor(raw, t->spec.getView());
      if (!plan.mesh)
        return raw->emitOpError()
               << "needs the mesh handle of " << t->spec.getMesh()
               << " as a function argument for its uneven local sizes";
      plan.unevenEmpty = *t;
    }
    return plan;
  }
  // Element-wise arith/math (all operands share the result's spec): Partial
  // survives add/sub of two Partial(sum|avg) only.
  SpecAttr spec = getSpec(raw->getResult(0).getType());
  bool partial = llvm::any_of(spec.getPlacements(),
                              [](const Placement &p) { return p.isPartial(); });
  bool linear = llvm::isa<arith::AddFOp, arith::SubFOp>(raw) &&
                llvm::all_of(spec.getPlacements(), [](const Placement &p) {
                  return !p.isPartial() || isLinear(p.reduce);
                });
  if (partial && !linear)
    return raw->emitOpError()
           << "on Partial operands is not exact (only add/sub of two "
              "Partial(sum|avg) values are); redistribute them to R first";
  return plan;
}

/// Applies a plan: local result types, index shifts, fill shares, uneven
/// empties.
void applyCompute(const ComputePlan &plan, const TypeConverter &converter) {
  Operation *raw = plan.op;
  OpBuilder b(raw);
  Location loc = raw->getLoc();
  if (plan.unevenEmpty) {
    auto global = llvm::cast<RankedTensorType>(raw->getResult(0).getType());
    auto local = llvm::cast<RankedTensorType>(converter.convertType(global));
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < local.getRank(); ++d)
      if (local.isDynamicDim(d))
        sizes.push_back(emitShardExtent(b, loc, plan.mesh, *plan.unevenEmpty,
                                        plan.unevenEmpty->layout, d)
                            .second);
    auto empty = tensor::EmptyOp::create(b, loc, local, sizes);
    raw->getResult(0).replaceAllUsesWith(empty);
    raw->erase();
    return;
  }
  for (auto &[loop, type, pos] : plan.shifts) {
    b.setInsertionPoint(raw);
    Value offset = emitShardExtent(b, loc, plan.mesh, type, type.layout, pos).first;
    llvm::cast<linalg::LinalgOp>(raw).getBlock()->walk([&](linalg::IndexOp index) {
      if (index.getDim() != loop)
        return;
      b.setInsertionPointAfter(index);
      auto shifted = arith::AddIOp::create(b, loc, index, offset);
      index.getResult().replaceAllUsesExcept(shifted, shifted);
    });
  }
  if (plan.fillShare) {
    b.setInsertionPoint(raw);
    Value scalar = raw->getOperand(0);
    Value count = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(scalar.getType(), double(plan.fillShare)));
    raw->setOperand(0, arith::DivFOp::create(b, loc, scalar, count));
  }
  for (OpResult res : raw->getResults())
    res.setType(converter.convertType(res.getType()));
}

/// Retypes function signatures, entry block arguments and call results to
/// local types, in place.
void retypeBoundaries(ModuleOp module, const TypeConverter &converter) {
  auto convert = [&](TypeRange types) {
    SmallVector<Type> out;
    for (Type t : types)
      out.push_back(converter.convertType(t));
    return out;
  };
  for (auto fn : module.getOps<func::FuncOp>()) {
    FunctionType type = fn.getFunctionType();
    fn.setType(FunctionType::get(fn.getContext(), convert(type.getInputs()),
                                 convert(type.getResults())));
    if (!fn.isExternal())
      for (BlockArgument arg : fn.getArguments())
        arg.setType(converter.convertType(arg.getType()));
  }
  module.walk([&](func::CallOp call) {
    for (OpResult res : call->getResults())
      res.setType(converter.convertType(res.getType()));
  });
  // Loops and branches carry distributed values through their results and
  // block arguments.
  module.walk([&](Operation *op) {
    if (!llvm::isa<scf::ForOp, scf::IfOp>(op))
      return;
    for (OpResult res : op->getResults())
      res.setType(converter.convertType(res.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(converter.convertType(arg.getType()));
  });
}

bool isApiOp(Operation *op) {
  return isa<FromLocalOp, ToLocalOp, DistributeTensorOp, RedistributeOp,
             FullTensorOp, LocalMapOp, YieldOp, func::ReturnOp, func::CallOp,
             func::FuncOp, scf::ForOp, scf::IfOp, scf::YieldOp,
             linalg::LinalgOp, tensor::EmptyOp>(op) ||
         (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
          op->getNumResults() == 1 &&
          llvm::isa<RankedTensorType>(op->getResult(0).getType()));
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
             "supports in the DTensor API ops, linalg ops, tensor.empty, "
             "element-wise arith/math and function boundaries only";
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
      FailureOr<DistributedType> dist = c.resolve(t, module);
      if (failed(dist))
        return std::nullopt;
      return getLocalType(t, dist->layout);
    });
    // API ops see their operands in local types; those values are retyped
    // in place in step 3, after which these casts are identities.
    auto castMaterialization = [](OpBuilder &b, Type type, ValueRange inputs,
                                  Location loc) -> Value {
      if (inputs.size() != 1 || !llvm::isa<RankedTensorType>(type))
        return Value();
      return tensor::CastOp::create(b, loc, type, inputs[0]);
    };
    converter.addTargetMaterialization(castMaterialization);
    converter.addSourceMaterialization(castMaterialization);

    // 1. Plan every compute op while all types are global.
    std::vector<ComputePlan> plans;
    bool planFailed = false;
    module.walk([&](Operation *op) {
      bool compute = llvm::isa<linalg::LinalgOp, tensor::EmptyOp>(op) ||
                     (llvm::isa<arith::ArithDialect, math::MathDialect>(
                          op->getDialect()) &&
                      op->getNumResults() == 1);
      if (!compute || !touchesDistributed(op))
        return;
      FailureOr<ComputePlan> plan = planCompute(op, c);
      if (failed(plan))
        planFailed = true;
      else
        plans.push_back(*plan);
    });
    if (planFailed)
      return signalPassFailure();

    // 2. Lower the DTensor API ops (the only ops that change form) with a
    // dialect conversion; everything else is left for step 3.
    ConversionTarget target(*ctx);
    target.addIllegalOp<FromLocalOp, ToLocalOp, DistributeTensorOp,
                        RedistributeOp, FullTensorOp, LocalMapOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    patterns.add<FromLocalLowering, ToLocalLowering, DistributeTensorLowering,
                 RedistributeLowering<RedistributeOp>,
                 RedistributeLowering<FullTensorOp>, LocalMapLowering>(
        converter, ctx, c);
    // Patterns never fail after changing IR (diagnosed ops are replaced by
    // placeholders), so the conversion needs no rollback: the faster mode.
    ConversionConfig config;
    config.allowPatternRollback = false;
    if (failed(applyPartialConversion(module, target, std::move(patterns),
                                      config)) ||
        c.failed)
      return signalPassFailure();

    // 3. Compute ops keep their form: local result types, in place.
    for (const ComputePlan &plan : plans)
      applyCompute(plan, converter);
    retypeBoundaries(module, converter);
    // The casts the conversion left between the two views: local now on
    // both sides, and dropped where they became identities.
    module.walk([&](tensor::CastOp cast) {
      cast.getResult().setType(
          llvm::cast<TensorType>(converter.convertType(cast.getType())));
      if (cast.getSource().getType() == cast.getType()) {
        cast.getResult().replaceAllUsesWith(cast.getSource());
        cast.erase();
      }
    });
  }
};

} // namespace
