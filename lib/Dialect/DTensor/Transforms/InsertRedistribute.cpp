//===- InsertRedistribute.cpp - make propagation's choices real -----------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Reads the attributes dtensor-propagate records (Propagation.h), gives every
// value its chosen spec in its type, and inserts the data movement wherever
// a producer's spec is not what a consumer needs: `dtensor.redistribute`
// between specs, `dtensor.distribute_tensor` from a plain value,
// `dtensor.full_tensor` to a plain one. Fresh outputs (tensor.empty, a fill
// of one) are made in the spec they are needed in. Hints become
// redistributes where their value did not come out in the hinted spec, and
// disappear where it did.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/LocalView.h"
#include "dtensor/Dialect/DTensor/Transforms/Lookups.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "dtensor/Dialect/DTensor/Transforms/Propagation.h"
#include "dtensor/Interfaces/ShardingRuleOpInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORINSERTREDISTRIBUTEPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {

RankedTensorType plain(Type t) {
  auto r = llvm::cast<RankedTensorType>(t);
  return RankedTensorType::get(r.getShape(), r.getElementType());
}

/// `t` with the spec in `attr` (a SpecAttr), or `t` when `attr` is unit.
Type withSpecAttr(Type t, Attribute attr) {
  auto spec = llvm::dyn_cast_or_null<SpecAttr>(attr);
  auto tensor = llvm::dyn_cast<RankedTensorType>(t);
  if (!spec || !tensor)
    return t;
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(), spec);
}

ArrayAttr specsOf(Operation *op, StringAttr name) {
  return op->getAttrOfType<ArrayAttr>(name);
}

struct DTensorInsertRedistributePass
    : public dtensor::impl::DTensorInsertRedistributePassBase<
          DTensorInsertRedistributePass> {
  using Base::Base;
  bool failedAny = false;
  /// The attribute names, made once.
  StringAttr operandSpecsName, resultSpecsName, argSpecsName;

  /// The mesh handle of `view` among the arguments of `op`'s function.
  Value meshFor(Operation *op, SpecAttr spec) {
    if (Value handle = findMeshHandle(op, spec.getView()))
      return handle;
    op->emitOpError() << "needs a value distributed over " << spec.getMesh()
                      << " moved here, and its function has no handle of that "
                         "mesh as an argument";
    failedAny = true;
    return {};
  }

  /// `v` redistributed to type `want`. Where a mesh dim cannot go straight
  /// to its target (a shard becoming a Partial, one Partial kind becoming
  /// another), the value goes through Replicate there first, as DTensor
  /// would have to: a private callee's Partial argument, say, reached from
  /// a sharded operand.
  Value redistribute(OpBuilder &b, Location loc, Value v, Type want,
                     Value mesh) {
    auto from = llvm::cast<RankedTensorType>(v.getType());
    SpecAttr have = getSpec(from), need = getSpec(want);
    int64_t rank = from.getRank();
    Placements a = have.getNormalizedPlacements(rank);
    Placements to = need.getNormalizedPlacements(rank);
    Placements via = a;
    bool detour = false;
    for (size_t m = 0; m < a.size() && m < to.size(); ++m)
      if (!transitionError(a[m], to[m]).empty()) {
        via[m] = Placement::replicate();
        detour = true;
      }
    if (detour) {
      // The dims left sharded keep their order, renumbered.
      for (int64_t d = 0; d < rank; ++d) {
        int64_t k = 0;
        for (int64_t m : shardOrder(a, d))
          if (via[m].isShard(d))
            via[m].order = k++;
      }
      SpecAttr mid = SpecAttr::get(b.getContext(), have.getMesh(),
                                   have.getMeshDims(), have.getFlattened(),
                                   dropDefaultOrders(via));
      v = RedistributeOp::create(b, loc, withSpecAttr(plain(from), mid), v, mesh);
    }
    return RedistributeOp::create(b, loc, want, v, mesh);
  }

  /// A value of type `want` made from `v` (of another type) before `at`.
  Value convert(OpBuilder &b, Operation *at, Value v, Type want,
                bool freshInit) {
    Location loc = at->getLoc();
    SpecAttr have = getSpec(v.getType()), need = getSpec(want);
    if (need && freshInit && isFreshTensor(v)) {
      // A fresh output is made in the spec it is needed in.
      Value made = tensor::EmptyOp::create(b, loc, want, ValueRange{});
      if (auto fill = v.getDefiningOp<linalg::FillOp>())
        made = linalg::FillOp::create(b, loc, fill.getInputs()[0], made)
                   .getResult(0);
      return made;
    }
    Value mesh = meshFor(at, need ? need : have);
    if (!mesh)
      return {};
    if (need && have)
      return redistribute(b, loc, v, want, mesh);
    if (need)
      return DistributeTensorOp::create(b, loc, want, v, mesh, IntegerAttr());
    return FullTensorOp::create(b, loc, want, v, mesh);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyDistributedTypes(getOperation())))
      return signalPassFailure();
    if (failed(verifyPropagationAttrs(getOperation())))
      return signalPassFailure();
    failedAny = false;
    MLIRContext *ctx = &getContext();
    operandSpecsName = StringAttr::get(ctx, kOperandSpecsAttr);
    resultSpecsName = StringAttr::get(ctx, kResultSpecsAttr);
    argSpecsName = StringAttr::get(ctx, kArgSpecsAttr);
    mixedSpecsToGeneric(module);
    retype(module);
    if (failedAny)
      return signalPassFailure();
    fixOperands(module);
    lowerHints(module);
    module.walk([&](Operation *op) {
      if (op->getRawDictionaryAttrs().empty())
        return;
      op->removeAttr(operandSpecsName);
      op->removeAttr(resultSpecsName);
      op->removeAttr(argSpecsName);
    });
    // Fresh outputs replaced by ones in the needed spec may be dead now.
    SmallVector<Operation *> dead;
    module.walk([&](Operation *op) {
      if (llvm::isa<tensor::EmptyOp, linalg::FillOp>(op) && op->use_empty())
        dead.push_back(op);
    });
    for (Operation *op : llvm::reverse(dead)) {
      Value source = llvm::isa<linalg::FillOp>(op) ? op->getOperand(1) : Value();
      op->erase();
      if (source && source.use_empty())
        if (Operation *empty = source.getDefiningOp<tensor::EmptyOp>())
          empty->erase();
    }
    if (failedAny)
      signalPassFailure();
  }

  /// An element-wise arith/math op on tensors whose operands were given
  /// different specs (a Partial times a replicated tensor, which keeps the
  /// Partial) cannot hold them: its operands and result share one type.
  /// It becomes the same op in a linalg.generic body, whose operands take
  /// any spec; the init is a fresh tensor in the result's spec.
  void mixedSpecsToGeneric(ModuleOp module) {
    SmallVector<Operation *> mixed;
    module.walk([&](Operation *op) {
      if (!llvm::isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
          !op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1)
        return;
      ArrayAttr operands = specsOf(op, operandSpecsName);
      ArrayAttr results = specsOf(op, resultSpecsName);
      auto type = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!operands || !results || results.size() != 1 || !type ||
          operands.size() != op->getNumOperands())
        return;
      for (Value v : op->getOperands()) {
        auto t = llvm::dyn_cast<RankedTensorType>(v.getType());
        if (!t || t.getShape() != type.getShape())
          return;
      }
      bool same = llvm::all_of(operands, [&](Attribute a) {
        return a == results[0];
      });
      if (!same)
        mixed.push_back(op);
    });
    for (Operation *op : mixed) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      RankedTensorType type = plain(op->getResult(0).getType());
      Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                           type.getElementType());
      unsigned n = op->getNumOperands();
      SmallVector<AffineMap> maps(n + 1,
                                  b.getMultiDimIdentityMap(type.getRank()));
      SmallVector<utils::IteratorType> iterators(type.getRank(),
                                                 utils::IteratorType::parallel);
      auto generic = linalg::GenericOp::create(
          b, loc, TypeRange{type}, op->getOperands(), ValueRange{init}, maps,
          iterators, [&](OpBuilder &nested, Location at, ValueRange args) {
            IRMapping map;
            for (unsigned i = 0; i < n; ++i)
              map.map(op->getOperand(i), args[i]);
            Operation *scalar = nested.clone(*op, map);
            scalar->setLoc(at);
            scalar->removeAttr(operandSpecsName);
            scalar->removeAttr(resultSpecsName);
            scalar->getResult(0).setType(type.getElementType());
            linalg::YieldOp::create(nested, at, scalar->getResult(0));
          });
      SmallVector<Attribute> operandSpecs(
          specsOf(op, operandSpecsName).getValue());
      ArrayAttr results = specsOf(op, resultSpecsName);
      operandSpecs.push_back(results[0]);
      generic->setAttr(operandSpecsName,
                       ArrayAttr::get(op->getContext(), operandSpecs));
      generic->setAttr(resultSpecsName, results);
      op->getResult(0).replaceAllUsesWith(generic.getResult(0));
      op->erase();
    }
  }

  /// Gives every value its chosen spec. A result the user annotated keeps
  /// its annotation: the op computes in the chosen spec and a redistribute
  /// restores the annotation.
  void retype(ModuleOp module) {
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      if (ArrayAttr args = specsOf(fn, argSpecsName))
        for (auto [arg, attr] : llvm::zip(fn.getArguments(), args))
          arg.setType(withSpecAttr(arg.getType(), attr));
      SmallVector<Type> results(fn.getResultTypes());
      if (ArrayAttr specs = specsOf(fn, resultSpecsName))
        for (auto [i, attr] : llvm::enumerate(specs))
          results[i] = withSpecAttr(results[i], attr);
      fn.setType(FunctionType::get(fn.getContext(),
                                   fn.getBody().front().getArgumentTypes(),
                                   results));
    }
    module.walk([&](Operation *op) {
      ArrayAttr specs = specsOf(op, resultSpecsName);
      if (!specs || llvm::isa<func::FuncOp>(op))
        return;
      OpBuilder b(op->getContext());
      b.setInsertionPointAfter(op);
      for (auto [res, attr] : llvm::zip(op->getResults(), specs)) {
        Type old = res.getType();
        if (!llvm::isa<SpecAttr>(attr) || !llvm::isa<RankedTensorType>(old))
          continue;
        Type now = withSpecAttr(plain(old), attr);
        if (old == now)
          continue;
        res.setType(now);
        if (!getSpec(old))
          continue;
        // A user's annotation is restored after the op.
        if (Value mesh = meshFor(op, getSpec(old))) {
          Value back = redistribute(b, op->getLoc(), res, old, mesh);
          // The redistribute reading `res` (the first, with a detour).
          Operation *reader = back.getDefiningOp();
          while (reader->getOperand(0) != res)
            reader = reader->getOperand(0).getDefiningOp();
          res.replaceAllUsesExcept(back, reader);
        }
      }
      // Region values carried with the results.
      if (auto loop = llvm::dyn_cast<scf::ForOp>(op))
        for (auto [arg, res] :
             llvm::zip(loop.getRegionIterArgs(), loop.getResults()))
          arg.setType(res.getType());
      if (auto loop = llvm::dyn_cast<scf::WhileOp>(op)) {
        for (auto [arg, res] :
             llvm::zip(loop.getAfterArguments(), loop.getResults()))
          arg.setType(res.getType());
        if (ArrayAttr before = specsOf(op, argSpecsName))
          for (auto [arg, attr] : llvm::zip(loop.getBeforeArguments(), before))
            if (llvm::isa<SpecAttr>(attr))
              arg.setType(withSpecAttr(plain(arg.getType()), attr));
      }
    });
  }

  /// The type each operand of `op` must have, or null for no requirement.
  SmallVector<Type> requiredTypes(Operation *op, SymbolTableCollection &tables) {
    SmallVector<Type> want(op->getNumOperands());
    if (ArrayAttr specs = specsOf(op, operandSpecsName)) {
      for (auto [i, attr] : llvm::enumerate(specs))
        if (llvm::isa<SpecAttr>(attr) &&
            llvm::isa<RankedTensorType>(op->getOperand(i).getType()))
          want[i] = withSpecAttr(plain(op->getOperand(i).getType()), attr);
      return want;
    }
    auto copy = [&](unsigned first, TypeRange types) {
      for (auto [i, t] : llvm::enumerate(types))
        want[first + i] = t;
    };
    if (auto yield = llvm::dyn_cast<scf::YieldOp>(op)) {
      Operation *parent = op->getParentOp();
      if (auto loop = llvm::dyn_cast<scf::WhileOp>(parent))
        copy(0, loop.getBefore().front().getArgumentTypes());
      else if (llvm::isa<scf::ForOp, scf::IfOp>(parent))
        copy(0, parent->getResultTypes());
    } else if (auto cond = llvm::dyn_cast<scf::ConditionOp>(op)) {
      copy(1, cond->getParentOp()->getResultTypes());
    } else if (auto loop = llvm::dyn_cast<scf::ForOp>(op)) {
      copy(3, loop.getResultTypes());
    } else if (auto loop = llvm::dyn_cast<scf::WhileOp>(op)) {
      copy(0, loop.getBefore().front().getArgumentTypes());
    } else if (auto ret = llvm::dyn_cast<func::ReturnOp>(op)) {
      copy(0, ret->getParentOfType<func::FuncOp>().getResultTypes());
    } else if (auto call = llvm::dyn_cast<func::CallOp>(op)) {
      if (auto callee = tables.lookupNearestSymbolFrom<func::FuncOp>(
              call, call.getCalleeAttr()))
        copy(0, callee.getArgumentTypes());
    } else if (readsGlobalOperands(op)) {
      // (An op with a rule and no recorded choice keeps the specs its
      // operands were given.)
      // Any other op sees the global value of a distributed operand.
      for (auto [i, v] : llvm::enumerate(op->getOperands()))
        if (getSpec(v.getType()))
          want[i] = plain(v.getType());
    }
    return want;
  }

  /// Where a move of `v` for a use by `op` goes: before `op`, or before the
  /// outermost compute op around it (a linalg body, a pad's or generate's
  /// region) that `v` comes from outside of, so that a collective never
  /// runs inside a compute body (once per element). A table read by
  /// `tensor.extract` in a body is moved once, before the op.
  static Operation *movePoint(Operation *op, Value v) {
    Operation *at = op;
    Region *home = v.getParentRegion();
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp()) {
      if (p->isAncestor(home->getParentOp()) && p != home->getParentOp())
        break;
      if (home->getParentOp() == p)
        break;
      if (llvm::isa<linalg::LinalgOp, tensor::PadOp, tensor::GenerateOp>(p))
        at = p;
    }
    return at;
  }

  /// The loop each mesh dim shards in linalg op `op` (-1: none), read off
  /// its operands' recorded specs and its results' types through the
  /// indexing maps; empty when a spec is on another view than `like`, has an
  /// explicit shard order, or shards a dim read through a compound index.
  static SmallVector<int64_t> loopOfMeshDim(linalg::LinalgOp op,
                                            ArrayAttr operandSpecs,
                                            SpecAttr like) {
    SmallVector<int64_t> loops;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    auto record = [&](SpecAttr spec, int64_t rank, AffineMap map) {
      if (spec.getView() != like.getView())
        return false;
      Placements ps = spec.getNormalizedPlacements(rank);
      if (loops.empty())
        loops.assign(ps.size(), -1);
      if (ps.size() != loops.size())
        return false;
      for (auto [m, p] : llvm::enumerate(ps)) {
        if (p.isShard() && p.order >= 0)
          return false;
        if (!p.isShard()) // (a Partial's loop shows on the operands)
          continue;
        auto dim = llvm::dyn_cast<AffineDimExpr>(map.getResult(p.dim));
        if (!dim || (loops[m] >= 0 && loops[m] != dim.getPosition()))
          return false;
        loops[m] = dim.getPosition();
      }
      return true;
    };
    Operation *raw = op.getOperation();
    for (OpOperand &use : raw->getOpOperands()) {
      auto tensor = llvm::dyn_cast<RankedTensorType>(use.get().getType());
      if (!tensor || use.getOperandNumber() >= maps.size())
        continue;
      SpecAttr spec;
      if (operandSpecs && use.getOperandNumber() < operandSpecs.size())
        spec = llvm::dyn_cast<SpecAttr>(operandSpecs[use.getOperandNumber()]);
      if (!spec)
        spec = getSpec(tensor);
      if (spec && !record(spec, tensor.getRank(), maps[use.getOperandNumber()]))
        return {};
    }
    for (OpResult res : raw->getResults())
      if (SpecAttr spec = getSpec(res.getType()))
        if (!record(spec, llvm::cast<RankedTensorType>(res.getType()).getRank(),
                    maps[op.getNumDpsInputs() + res.getResultNumber()]))
          return {};
    return loops;
  }

  /// A table read by `tensor.extract` directly in the body of linalg op
  /// `at` at a dim whose index is `linalg.index k` of a loop k that `at`
  /// shards, the dim as long as the loop, needs only the rows of this rank's
  /// iterations: the type of `table` sharded there as the loop is (on the
  /// same mesh dims, in the default order) and replicated elsewhere. Null
  /// when no dim lines up (the table is then needed whole). Partitioning
  /// reads such a table at the loop's local index.
  Type alignedTableType(Operation *op, Operation *at, Value table) {
    auto extract = llvm::dyn_cast<tensor::ExtractOp>(op);
    auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(at);
    SpecAttr have = getSpec(table.getType());
    if (!extract || !linalgOp || extract.getTensor() != table || !have ||
        op->getParentOp() != at)
      return {};
    SmallVector<int64_t> loops =
        loopOfMeshDim(linalgOp, specsOf(at, operandSpecsName), have);
    if (loops.empty())
      return {};
    auto type = llvm::cast<RankedTensorType>(table.getType());
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    // Per table dim, the loop every read of the table in the body indexes it
    // by (-1: none, or reads disagree).
    SmallVector<int64_t> dimLoop(type.getRank(), -2);
    for (Operation &inner : linalgOp.getBlock()->getOperations()) {
      auto read = llvm::dyn_cast<tensor::ExtractOp>(&inner);
      if (!read || read.getTensor() != table)
        continue;
      for (auto [t, idx] : llvm::enumerate(read.getIndices())) {
        auto index = idx.getDefiningOp<linalg::IndexOp>();
        int64_t k = index && index->getParentOp() == at ? int64_t(index.getDim())
                                                        : -1;
        dimLoop[t] = dimLoop[t] == -2 || dimLoop[t] == k ? k : -1;
      }
    }
    for (Operation *user : table.getUsers())
      if (at->isProperAncestor(user) && user->getParentOp() != at)
        return {}; // read deeper in the body too: keep it whole
    Placements ps(loops.size(), Placement::replicate());
    bool any = false;
    // A masked lookup (Lookups.h) leaves the table sharded along a dim it
    // reads at a computed index where propagation made the result P(sum)
    // from whole operands: each rank reads the rows it holds.
    Placements haveps = have.getNormalizedPlacements(type.getRank());
    std::optional<Placements> result;
    if (maskableRead(at, table))
      if (SpecAttr r = getSpec(at->getResult(0).getType()))
        if (r.getView() == have.getView())
          result = r.getNormalizedPlacements(
              llvm::cast<RankedTensorType>(at->getResult(0).getType()).getRank());
    ArrayAttr operandSpecs = specsOf(at, operandSpecsName);
    for (auto [m, k] : llvm::enumerate(loops)) {
      const Placement &p = haveps[m];
      if (k < 0 && result && p.isShard() && dimLoop[p.dim] == -1 &&
          (*result)[m].isPartial() && (*result)[m].reduce == ReduceKind::Sum &&
          !llvm::any_of(linalgOp.getDpsInputOperands(), [&](OpOperand *in) {
            auto s = operandSpecs && in->getOperandNumber() < operandSpecs.size()
                         ? llvm::dyn_cast<SpecAttr>(
                               operandSpecs[in->getOperandNumber()])
                         : getSpec(in->get().getType());
            auto t = llvm::dyn_cast<RankedTensorType>(in->get().getType());
            return s && t && s.getNormalizedPlacements(t.getRank())[m].isPartial();
          })) {
        ps[m] = p;
        any = true;
        continue;
      }
      if (k < 0)
        continue;
      for (int64_t t = 0; t < type.getRank(); ++t)
        if (dimLoop[t] == k && !ShapedType::isDynamic(ranges[k]) &&
            type.getDimSize(t) == ranges[k]) {
          ps[m] = Placement::shard(t);
          any = true;
          break;
        }
    }
    if (!any)
      return {};
    keepOrdersWhereSame(ps, haveps);
    SpecAttr spec = SpecAttr::get(at->getContext(), have.getMesh(),
                                  have.getMeshDims(), have.getFlattened(), ps);
    return RankedTensorType::get(type.getShape(), type.getElementType(), spec);
  }

  void fixOperands(ModuleOp module) {
    SymbolTableCollection tables;
    // Moves made before a compute op for uses in its body, reused by every
    // use of the same value in the same spec there.
    llvm::DenseMap<std::tuple<Operation *, Value, Type>, Value> hoisted;
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops) {
      if (auto dist = llvm::dyn_cast<DistributeTensorOp>(op)) {
        // Distributing a value that is distributed already is a
        // redistribution of it.
        if (getSpec(dist.getSource().getType())) {
          OpBuilder b(op);
          Value re = redistribute(b, op->getLoc(), dist.getSource(),
                                  dist.getType(), dist.getMesh());
          dist.replaceAllUsesWith(re);
          dist.erase();
        }
        continue;
      }
      SmallVector<Type> want = requiredTypes(op, tables);
      bool ruleOp = llvm::isa<ShardingRuleOpInterface>(op);
      for (OpOperand &use : op->getOpOperands()) {
        Type need = want[use.getOperandNumber()];
        Value v = use.get();
        if (!need || v.getType() == need ||
            !llvm::isa<RankedTensorType>(v.getType()))
          continue;
        Operation *at = movePoint(op, v);
        if (at != op)
          if (Type aligned = alignedTableType(op, at, v)) {
            if (v.getType() == aligned)
              continue;
            need = aligned;
          }
        if (at != op) {
          Value &moved = hoisted[{at, v, need}];
          if (!moved) {
            OpBuilder b(at);
            moved = convert(b, at, v, need, /*freshInit=*/false);
          }
          if (moved)
            use.set(moved);
          continue;
        }
        OpBuilder b(op);
        bool init = false;
        if (ruleOp)
          if (auto dps = llvm::dyn_cast<DestinationStyleOpInterface>(op))
            init = dps.isDpsInit(&use);
        if (Value moved = convert(b, op, v, need, init))
          use.set(moved);
      }
      globalResults(op, want);
    }
  }

  /// An op without a rule computes on global values (requiredTypes): one
  /// that read a distributed operand and whose result the user typed with
  /// a spec (`tensor.insert` into a sharded tensor) gets the plain result
  /// and a distribute_tensor to that spec after it (a local slice of the
  /// replicated value: no communication).
  void globalResults(Operation *op, ArrayRef<Type> want) {
    if (!readsGlobalOperands(op))
      return;
    bool readGlobal = llvm::any_of(llvm::enumerate(want), [&](auto it) {
      return it.value() && !getSpec(it.value()) &&
             llvm::isa<RankedTensorType>(op->getOperand(it.index()).getType());
    });
    if (!readGlobal)
      return;
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    for (OpResult res : op->getResults()) {
      SpecAttr spec = getSpec(res.getType());
      auto shaped = llvm::dyn_cast<RankedTensorType>(res.getType());
      // (A dynamic global shape is left to partition's error at the op.)
      if (!spec || !shaped || !shaped.hasStaticShape())
        continue;
      Value mesh = meshFor(op, spec);
      if (!mesh)
        continue;
      Type annotated = res.getType();
      res.setType(plain(annotated));
      auto back = DistributeTensorOp::create(b, op->getLoc(), annotated, res,
                                             mesh, IntegerAttr());
      res.replaceAllUsesExcept(back, back);
    }
  }

  /// A hint whose value came out in the hinted spec disappears; otherwise it
  /// is the redistribute (or distribute) that makes the spec.
  void lowerHints(ModuleOp module) {
    SmallVector<HintOp> hints;
    module.walk([&](HintOp hint) { hints.push_back(hint); });
    for (HintOp hint : hints) {
      Value source = hint.getSource();
      if (source.getType() == hint.getType()) {
        hint.replaceAllUsesWith(source);
        hint.erase();
        continue;
      }
      OpBuilder b(hint);
      Value moved =
          getSpec(source.getType())
              ? redistribute(b, hint.getLoc(), source, hint.getType(),
                             hint.getMesh())
              : Value(DistributeTensorOp::create(b, hint.getLoc(), hint.getType(),
                                                 source, hint.getMesh(),
                                                 IntegerAttr()));
      hint.replaceAllUsesWith(moved);
      hint.erase();
    }
  }
};

} // namespace
