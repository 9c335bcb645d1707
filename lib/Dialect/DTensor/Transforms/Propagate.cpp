//===- Propagate.cpp - choose specs for computed values -------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// For each linalg op reached by distributed values: enumerate, per mesh dim,
// which loop it shards (or none); price each choice by the redistributions
// of the inputs it needs (the planner's cost); apply the cheapest. The rules
// come from ShardingRules.h, the same ones the partition pass checks.
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
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>
#include <unordered_map>
#include <tuple>

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORPROPAGATEPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// A candidate: the placements of every operand (inputs, then outputs).
struct Candidate {
  std::vector<Placements> operands;
  std::vector<int64_t> loops; // per mesh dim, -1 = none
  double cost = 0;
  /// Operands that must change placement (DTensor prefers none at all).
  int64_t moves = 0;
  int64_t outputElements = 0;
};

RankedTensorType withSpec(RankedTensorType t, SpecAttr like,
                          const Placements &ps) {
  auto spec = SpecAttr::get(t.getContext(), like.getMesh(), like.getMeshDims(),
                            like.getFlattened(), ps);
  return RankedTensorType::get(t.getShape(), t.getElementType(), spec);
}

RankedTensorType plain(Type t) {
  auto r = llvm::cast<RankedTensorType>(t);
  return RankedTensorType::get(r.getShape(), r.getElementType());
}

/// Whether `v` is a fresh output: tensor.empty, or a fill of one.
bool isFresh(Value v) {
  if (v.getDefiningOp<tensor::EmptyOp>())
    return true;
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    return fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>() != nullptr;
  return false;
}

struct DTensorPropagatePass
    : public dtensor::impl::DTensorPropagatePassBase<DTensorPropagatePass> {
  using Base::Base;

  // Per run (the pass object itself is copied when pipelines are cloned).
  SymbolTableCollection *symbolTables = nullptr;
  CostModel cost;
  bool failedAny = false;

  void runOnOperation() override {
    SymbolTableCollection tables;
    symbolTables = &tables;
    std::unordered_map<std::string, double> priceCache;
    prices = &priceCache;
    failedAny = false;
    cost.devicesPerHost = devicesPerHost;
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (!fn.isExternal())
        runOnFunction(fn);
    if (failedAny)
      signalPassFailure();
  }

  /// Plans already priced in this run: programs repeat their shapes.
  std::unordered_map<std::string, double> *prices = nullptr;

  /// The cost of redistributing `from` to `to` (0 when equal; infinite when
  /// illegal).
  double priceOf(const ResolvedMeshView &view, RankedTensorType type,
                 const Placements &from, const Placements &to) {
    // A compact key: sizes, element width, mesh, placements.
    std::string key;
    auto put = [&](int64_t v) { key.append(reinterpret_cast<char *>(&v), 8); };
    for (int64_t d : type.getShape())
      put(d);
    put(-1);
    put(type.getElementTypeBitWidth());
    for (int64_t d : view.shape)
      put(d);
    put(-2);
    for (const Placements *ps : {&from, &to})
      for (const Placement &p : *ps)
        put((int64_t(p.kind) << 48) | (int64_t(p.reduce) << 40) |
            ((p.dim & 0xff) << 8) | (p.order & 0xff));
    auto [it, inserted] = prices->emplace(key, 0.0);
    if (!inserted)
      return it->second;
    it->second = priceUncached(view, type, from, to);
    return it->second;
  }

  double priceUncached(const ResolvedMeshView &view, RankedTensorType type,
                       const Placements &from, const Placements &to) {
    if (sameState(from, to, view.shape, type.getRank()))
      return 0;
    RedistributeRequest req{view.shape,
                            Shape(type.getShape().begin(), type.getShape().end()),
                            (type.getElementTypeBitWidth() + 7) / 8, from, to};
    std::string error;
    std::optional<Plan> plan = planRedistribute(req, cost, error);
    return plan ? plan->timeUs() : std::numeric_limits<double>::infinity();
  }

  void runOnFunction(func::FuncOp fn) {
    Value mesh;
    for (BlockArgument arg : fn.getArguments())
      if (llvm::isa<DeviceMeshType>(arg.getType()))
        mesh = arg;
    // In program order, into scf regions too (linalg bodies excluded).
    SmallVector<Operation *> ops;
    fn.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (llvm::isa<linalg::LinalgOp>(op) || isElementwise(op)) {
        ops.push_back(op);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    for (Operation *op : ops) {
      LogicalResult result =
          llvm::isa<linalg::LinalgOp>(op)
              ? propagate(llvm::cast<linalg::LinalgOp>(op), mesh)
              : propagateElementwise(op, mesh);
      if (failed(result))
        failedAny = true;
    }
    fixReturns(fn, mesh);
  }

  /// Element-wise arith/math on tensors: every operand and the result have
  /// one type, so one spec.
  static bool isElementwise(Operation *op) {
    return llvm::isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
           op->hasTrait<OpTrait::SameOperandsAndResultType>() &&
           op->getNumResults() == 1 &&
           llvm::isa<RankedTensorType>(op->getResult(0).getType());
  }

  /// The spec of an element-wise op: one of its distributed operands' specs
  /// (or all-R), chosen like a linalg op's: no move first, then cost. A
  /// Partial spec is kept only by add/sub, and only when every operand is
  /// that Partial.
  LogicalResult propagateElementwise(Operation *op, Value mesh) {
    auto type = llvm::cast<RankedTensorType>(op->getResult(0).getType());
    SpecAttr like;
    for (Value v : op->getOperands())
      if (SpecAttr s = getSpec(v.getType())) {
        if (like && s.getView() != like.getView())
          return op->emitOpError()
                 << "has distributed operands on different meshes or views";
        like = s;
      }
    if (!like || getSpec(type))
      return success();
    if (!mesh || llvm::cast<DeviceMeshType>(mesh.getType()).getView() !=
                     like.getView())
      return op->emitOpError()
             << "computes on values distributed over " << like.getMesh()
             << "; its function needs that mesh's handle as an argument";
    if (!type.hasStaticShape())
      return op->emitOpError() << "needs static shapes to be propagated";
    FailureOr<ResolvedMeshView> view = resolveMeshView(
        op, like.getView(), *symbolTables, [&]() { return op->emitOpError(); });
    if (failed(view))
      return failure();
    int64_t rank = type.getRank();
    std::vector<Placements> candidates{
        Placements(view->shape.size(), Placement::replicate())};
    for (Value v : op->getOperands())
      if (SpecAttr s = getSpec(v.getType()))
        candidates.push_back(dropDefaultOrders(s.getNormalizedPlacements(rank)));
    bool linear = llvm::isa<arith::AddFOp, arith::SubFOp>(op);
    std::optional<Placements> target = targetOf(op->getResult(0),
                                                view->shape.size());
    std::optional<std::tuple<bool, double, int64_t>> bestKey;
    Placements best;
    for (const Placements &c : candidates) {
      bool partial = llvm::any_of(c, [](const Placement &p) { return p.isPartial(); });
      if (partial && (!linear || llvm::any_of(c, [](const Placement &p) {
                        return p.isPartial() && !isLinear(p.reduce);
                      })))
        continue;
      double cost = 0;
      int64_t moves = 0;
      bool ok = true;
      for (Value v : op->getOperands()) {
        SpecAttr s = getSpec(v.getType());
        if (!s) {
          ok &= !partial; // a plain operand is replicated, never a term
          moves += llvm::any_of(c, [](const Placement &p) { return !p.isReplicate(); });
          continue;
        }
        Placements have = dropDefaultOrders(s.getNormalizedPlacements(rank));
        if (have != c) {
          ++moves;
          cost += priceOf(*view, llvm::cast<RankedTensorType>(v.getType()), have, c);
        }
      }
      if (!ok)
        continue;
      if (target)
        cost += priceOf(*view, type, c, *target);
      auto key = std::make_tuple(moves > 0, cost, moves);
      if (!std::isfinite(cost) || (bestKey && !(key < *bestKey)))
        continue;
      bestKey = key;
      best = c;
    }
    if (!bestKey)
      return op->emitOpError() << "has no exact spec for its distributed "
                                  "operands; redistribute them first";
    RankedTensorType want = withSpec(plain(type), like, best);
    OpBuilder b(op);
    for (OpOperand &use : op->getOpOperands()) {
      Value v = use.get();
      if (v.getType() == want)
        continue;
      if (getSpec(v.getType()))
        use.set(RedistributeOp::create(b, op->getLoc(), want, v, mesh));
      else
        use.set(DistributeTensorOp::create(b, op->getLoc(), want, v, mesh,
                                           IntegerAttr()));
    }
    op->getResult(0).setType(want);
    return success();
  }

  /// The spec a result is known to end up in: its own annotation, or that
  /// of the returns (all-R for a plain function result) and distributes
  /// that are its only users.
  std::optional<Placements> targetOf(Value result, int64_t meshRank) {
    auto type = llvm::cast<RankedTensorType>(result.getType());
    if (SpecAttr s = getSpec(type))
      return s.getNormalizedPlacements(type.getRank());
    std::optional<Placements> target;
    for (OpOperand &use : result.getUses()) {
      std::optional<Placements> here;
      Operation *user = use.getOwner();
      if (auto ret = llvm::dyn_cast<func::ReturnOp>(user)) {
        auto fn = ret->getParentOfType<func::FuncOp>();
        Type want = fn.getResultTypes()[use.getOperandNumber()];
        if (SpecAttr s = getSpec(want))
          here = s.getNormalizedPlacements(type.getRank());
        else // a plain result ends up whole on every rank
          here = Placements(meshRank, Placement::replicate());
      } else if (auto dist = llvm::dyn_cast<DistributeTensorOp>(user)) {
        here = getSpec(dist.getType()).getNormalizedPlacements(type.getRank());
      } else {
        return std::nullopt;
      }
      if (target && *target != *here)
        return std::nullopt;
      target = here;
    }
    return target;
  }

  LogicalResult propagate(linalg::LinalgOp op, Value mesh) {
    Operation *raw = op.getOperation();
    if (!op.hasPureTensorSemantics())
      return success();
    // The mesh view: from the distributed inputs.
    SpecAttr spec;
    for (OpOperand *in : op.getDpsInputOperands())
      if (SpecAttr s = getSpec(in->get().getType())) {
        if (spec && s.getView() != spec.getView())
          return raw->emitOpError()
                 << "has distributed inputs on different meshes or views";
        spec = s;
      }
    if (!spec)
      return success(); // nothing distributed reaches this op
    if (!mesh || llvm::cast<DeviceMeshType>(mesh.getType()).getView() !=
                     spec.getView())
      return raw->emitOpError()
             << "computes on values distributed over " << spec.getMesh()
             << "; its function needs that mesh's handle as an argument";
    FailureOr<ResolvedMeshView> view = resolveMeshView(
        raw, spec.getView(), *symbolTables, [&]() { return raw->emitOpError(); });
    if (failed(view))
      return failure();
    int64_t meshRank = view->shape.size();
    unsigned numInputs = op.getNumDpsInputs();
    unsigned numOperands = raw->getNumOperands();
    unsigned numLoops = op.getNumLoops();

    // Current placements of every operand (plain tensors are replicated).
    std::vector<Placements> current(numOperands);
    std::vector<bool> annotated(numOperands, false);
    for (unsigned o = 0; o < numOperands; ++o) {
      auto type = llvm::dyn_cast<RankedTensorType>(raw->getOperand(o).getType());
      if (!type)
        return raw->emitOpError() << "has a non-tensor operand " << o
                                  << ", which propagation does not handle yet";
      if (!type.hasStaticShape())
        return raw->emitOpError() << "needs static shapes to be propagated";
      if (SpecAttr s = getSpec(type)) {
        current[o] = s.getNormalizedPlacements(type.getRank());
        annotated[o] = true;
      } else {
        current[o].assign(meshRank, Placement::replicate());
      }
    }

    // The rule of each (mesh dim, loop) choice, computed once.
    std::vector<std::vector<std::optional<std::vector<Placement>>>> rules(
        meshRank);
    for (int64_t d = 0; d < meshRank; ++d) {
      std::vector<Placement> inputs;
      for (unsigned o = 0; o < numInputs; ++o)
        inputs.push_back(current[o][d]);
      for (int64_t loop = kReplicateAll; loop < (int64_t)numLoops; ++loop)
        rules[d].push_back(placementsForLoop(op, loop, inputs));
    }
    std::vector<Placements> currentCanonical;
    for (const Placements &ps : current)
      currentCanonical.push_back(dropDefaultOrders(ps));
    auto outType = llvm::cast<RankedTensorType>(raw->getResult(0).getType());
    std::vector<std::optional<Placements>> targets;
    for (unsigned r = 0; r < raw->getNumResults(); ++r)
      targets.push_back(targetOf(raw->getResult(r), meshRank));
    bool anyTarget = llvm::any_of(targets, [](auto &t) { return t.has_value(); });

    // Every combination of choices, with its moves; priced lazily.
    std::vector<Candidate> candidates;
    std::vector<int64_t> choice(meshRank, -1);
    std::function<void(int64_t)> enumerate = [&](int64_t m) {
      if (m == meshRank) {
        Candidate c;
        c.loops = choice;
        c.operands.assign(numOperands, Placements(meshRank));
        for (int64_t d = 0; d < meshRank; ++d) {
          const auto &rule = rules[d][choice[d] - kReplicateAll];
          if (!rule)
            return;
          for (unsigned o = 0; o < numOperands; ++o)
            c.operands[o][d] = (*rule)[o];
        }
        for (unsigned o = 0; o < numOperands; ++o) {
          // One Partial kind per spec.
          std::optional<ReduceKind> kind;
          for (const Placement &p : c.operands[o])
            if (p.isPartial()) {
              if (kind && *kind != p.reduce)
                return;
              kind = p.reduce;
            }
          bool pays = o < numInputs ? annotated[o]
                                    : annotated[o] && !isFresh(raw->getOperand(o));
          bool moves = c.operands[o] != currentCanonical[o];
          if (!pays && o < numInputs && kind)
            return; // a plain input cannot become a Partial
          if (pays || o < numInputs)
            c.moves += moves;
        }
        // The largest local output: chunk 0 at every level.
        Shape sizes(outType.getShape().begin(), outType.getShape().end());
        for (int64_t d = 0; d < meshRank; ++d) {
          const Placement &p = c.operands[numInputs][d];
          if (p.isShard())
            sizes[p.dim] = (sizes[p.dim] + view->shape[d] - 1) / view->shape[d];
        }
        c.outputElements = 1;
        for (int64_t v : sizes)
          c.outputElements *= v;
        candidates.push_back(std::move(c));
        return;
      }
      for (int64_t loop = kReplicateAll; loop < (int64_t)numLoops; ++loop) {
        choice[m] = loop;
        enumerate(m + 1);
      }
    };
    enumerate(0);

    auto price = [&](Candidate &c) {
      for (unsigned o = 0; o < numOperands; ++o) {
        bool pays = o < numInputs ? annotated[o]
                                  : annotated[o] && !isFresh(raw->getOperand(o));
        if (pays && c.operands[o] != currentCanonical[o])
          c.cost += priceOf(*view,
                            llvm::cast<RankedTensorType>(raw->getOperand(o).getType()),
                            current[o], c.operands[o]);
      }
      for (unsigned r = 0; r < raw->getNumResults(); ++r)
        if (targets[r])
          c.cost += priceOf(*view,
                            llvm::cast<RankedTensorType>(raw->getResult(r).getType()),
                            c.operands[numInputs + r], *targets[r]);
    };
    // As DTensor: no redistribution first, then the least cost; among
    // equals, the most sharded result. Without a known target, candidates
    // that move nothing cost nothing and need no pricing.
    bool anyStill = llvm::any_of(candidates, [](const Candidate &c) {
      return c.moves == 0;
    });
    std::optional<Candidate> best;
    auto key = [](const Candidate &k) {
      return std::make_tuple(k.moves > 0, k.cost, k.moves, k.outputElements);
    };
    for (Candidate &c : candidates) {
      if (anyStill && !anyTarget && c.moves > 0)
        continue;
      price(c);
      if (!std::isfinite(c.cost))
        continue;
      if (!best || key(c) < key(*best))
        best = c;
    }
    if (!best)
      return raw->emitOpError()
             << "has no sharding rule for its distributed inputs; redistribute "
                "them (for example to R) first";
    apply(op, *best, spec, mesh, annotated, current);
    return success();
  }

  void apply(linalg::LinalgOp op, const Candidate &c, SpecAttr spec, Value mesh,
             const std::vector<bool> &annotated,
             const std::vector<Placements> &current) {
    Operation *raw = op.getOperation();
    OpBuilder b(raw);
    Location loc = raw->getLoc();
    unsigned numInputs = op.getNumDpsInputs();
    for (unsigned o = 0; o < raw->getNumOperands(); ++o) {
      Value v = raw->getOperand(o);
      auto type = llvm::cast<RankedTensorType>(v.getType());
      RankedTensorType want = withSpec(plain(type), spec, c.operands[o]);
      if (type == want)
        continue;
      Value replacement;
      if (o >= numInputs && isFresh(v)) {
        // A fresh output is made in the spec it is needed in.
        auto empty = tensor::EmptyOp::create(b, loc, want, ValueRange{});
        replacement = empty;
        if (auto fill = v.getDefiningOp<linalg::FillOp>())
          replacement = linalg::FillOp::create(b, loc, fill.getInputs()[0],
                                               replacement.getDefiningOp()->getResult(0))
                            .getResult(0);
      } else if (annotated[o]) {
        replacement = RedistributeOp::create(b, loc, want, v, mesh);
        if (explain) {
          llvm::raw_ostream &diag = llvm::errs();
          diag << "dtensor-propagate: " << raw->getName() << " at " << loc
               << ": loops [";
          for (size_t m = 0; m < c.loops.size(); ++m)
            diag << (m ? ", " : "")
                 << (c.loops[m] == kReplicateAll ? std::string("R")
                     : c.loops[m] < 0           ? std::string("-")
                                                : "d" + std::to_string(c.loops[m]));
          diag << "] need operand " << o << " as "
               << formatPlacements(c.operands[o]) << ", it is "
               << formatPlacements(current[o]);
          // What the move costs, from the planner.
          auto type = llvm::cast<RankedTensorType>(v.getType());
          FailureOr<ResolvedMeshView> view = resolveMeshView(
              raw, spec.getView(), *symbolTables,
              [&]() { return raw->emitOpError(); });
          if (succeeded(view)) {
            RedistributeRequest req{
                view->shape, Shape(type.getShape().begin(), type.getShape().end()),
                (type.getElementTypeBitWidth() + 7) / 8, current[o],
                c.operands[o]};
            std::string error;
            if (std::optional<Plan> plan = planRedistribute(req, cost, error))
              diag << " (" << plan->numCollectives() << " collective(s), "
                   << plan->bytesPerRank() << " bytes/rank)";
          }
          diag << "\n";
        }
      } else {
        replacement =
            DistributeTensorOp::create(b, loc, want, v, mesh, IntegerAttr());
      }
      raw->setOperand(o, replacement);
      // The plain fresh output may now be dead.
      if (Operation *def = v.getDefiningOp();
          def && def->use_empty() &&
          llvm::isa<tensor::EmptyOp, linalg::FillOp>(def)) {
        Value source = llvm::isa<linalg::FillOp>(def) ? def->getOperand(1) : Value();
        def->erase();
        if (source && source.use_empty())
          if (Operation *empty = source.getDefiningOp<tensor::EmptyOp>())
            empty->erase();
      }
    }
    // Results take their outputs' types; a user annotation is restored.
    b.setInsertionPointAfter(raw);
    for (unsigned r = 0; r < raw->getNumResults(); ++r) {
      Value res = raw->getResult(r);
      Type old = res.getType();
      Type now = raw->getOperand(numInputs + r).getType();
      if (old == now)
        continue;
      res.setType(now);
      if (getSpec(old)) {
        auto back = RedistributeOp::create(b, loc, old, res, mesh);
        res.replaceAllUsesExcept(back, back);
      }
    }
  }

  /// Gives every user of a distributed value that is not a linalg op the
  /// type it expects: the function's result spec for returns, the global
  /// tensor (full_tensor) for anything else.
  void fixReturns(func::FuncOp fn, Value mesh) {
    SmallVector<Operation *> all;
    fn.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      all.push_back(op);
      return llvm::isa<linalg::LinalgOp>(op) ? WalkResult::skip()
                                              : WalkResult::advance();
    });
    for (Operation *opPtr : all) {
      Operation &op = *opPtr;
      if (llvm::isa<linalg::LinalgOp>(op))
        continue;
      for (OpOperand &use : op.getOpOperands()) {
        Value v = use.get();
        SpecAttr s = getSpec(v.getType());
        if (!s || !mesh)
          continue;
        OpBuilder b(&op);
        if (auto ret = llvm::dyn_cast<func::ReturnOp>(op)) {
          Type want = fn.getResultTypes()[use.getOperandNumber()];
          if (want == v.getType())
            continue;
          if (getSpec(want))
            use.set(RedistributeOp::create(b, op.getLoc(), want, v, mesh));
          else
            use.set(FullTensorOp::create(b, op.getLoc(), plain(v.getType()), v,
                                         mesh));
          continue;
        }
        if (auto dist = llvm::dyn_cast<DistributeTensorOp>(op)) {
          // Distributing a value that is distributed already is a
          // redistribution of it.
          auto re = RedistributeOp::create(b, op.getLoc(), dist.getType(), v,
                                           dist.getMesh());
          dist.replaceAllUsesWith(re.getResult());
          dist.erase();
          break;
        }
        if (llvm::isa<DTensorDialect>(op.getDialect()))
          continue; // other DTensor ops take distributed values
        if (llvm::isa<func::CallOp, scf::YieldOp, scf::ForOp, scf::IfOp>(op))
          continue; // the callee's signature / the loop's types give the specs
        if (auto expected = llvm::dyn_cast<RankedTensorType>(v.getType());
            expected && !op.hasTrait<OpTrait::SameOperandsAndResultType>()) {
          // An op that does not take distributed values sees the global one.
          use.set(FullTensorOp::create(b, op.getLoc(), plain(expected), v, mesh));
        }
      }
    }
  }
};

} // namespace
