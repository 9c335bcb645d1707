//===- NarrowMoves.cpp - move narrow inputs, recompute after the move -----===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// A pure data movement (no Partial on either side) of a value computed
// element-wise can move the value's inputs instead, and the value is
// computed again after the move. In the global view a redistribute is the
// identity on values, so
//
//   redistribute(f(a, s), T)  ==  f(redistribute(a, Ta), redistribute(s, Ts))
//
// holds for any specs; what the rewrite needs is that the specs Ta, Ts are
// the ones f's sharding rule asks of its operands when its result has spec
// T, so that partitioning computes f locally with no further movement. For
// an op whose loops are all parallel and all index its result (element-wise
// ops, broadcasts, transposes) those follow from T alone: a mesh dim that
// shards result dim d shards, in the same order, the operand dim that d's
// loop indexes, and leaves an operand that does not index it replicated.
//
// Whether it pays is the planner's: the cost of moving the value against
// the sum over its inputs of the cheapest way to bring each to its spec,
// itself either a move or (recursively) a recomputation. An int8 weight and
// its per-row f32 scale move about a quarter of the dequantized f32 weight's
// bytes.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Redistribute.h"
#include "dtensor/Dialect/DTensor/IR/DTensor.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "dtensor/Dialect/DTensor/Transforms/Propagation.h"
#include "dtensor/Interfaces/ShardingRuleOpInterface.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <limits>

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORNARROWMOVESPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

bool hasPartial(const Placements &ps) {
  return llvm::any_of(ps, [](const Placement &p) { return p.isPartial(); });
}

/// The moves below one anchor (a redistribute or full_tensor): which values
/// are moved and which recomputed, chosen by cost, then made.
class Narrower {
public:
  Narrower(const CostModel &cost, const ResolvedMeshView &view, SpecAttr like,
           Value mesh, Block *block, int64_t maxDepth)
      : cost(cost), view(view), like(like), mesh(mesh), block(block),
        maxDepth(maxDepth) {}

  /// The cheapest cost of having `v` in `target` (a spec on the anchor's
  /// view, or null: plain, whole on every rank).
  double best(Value v, SpecAttr target, int64_t depth) {
    Key key{v, keyOf(target)};
    auto it = memo.find(key);
    if (it != memo.end())
      return it->second.cost;
    Choice choice;
    choice.cost = moveCost(v, target);
    memo[key] = choice; // a cycle (none in SSA) would see the move
    if (depth < maxDepth) {
      if (std::optional<Recompute> r = recomputation(v, target)) {
        double sum = 0;
        for (auto [number, value, spec] : r->inputs) {
          sum += best(value, spec, depth + 1);
          if (!(sum < choice.cost))
            break;
        }
        constexpr double kEps = 1e-9;
        if (sum < choice.cost * (1 - kEps) - kEps) {
          choice.cost = sum;
          choice.recompute = std::move(*r);
        }
      }
    }
    memo[key] = choice;
    return choice.cost;
  }

  /// Whether the cheapest way to have `v` in `target` recomputes it.
  bool recomputes(Value v, SpecAttr target) {
    auto it = memo.find(Key{v, keyOf(target)});
    return it != memo.end() && it->second.recompute.has_value();
  }

  /// Makes `v` in `target` before `b`'s insertion point, as chosen.
  Value make(OpBuilder &b, Location loc, Value v, SpecAttr target) {
    Key key{v, keyOf(target)};
    auto made = built.find(key);
    if (made != built.end())
      return made->second;
    Choice &choice = memo.at(key);
    Value result;
    if (!choice.recompute) {
      result = move(b, loc, v, target);
    } else {
      Operation *op = v.getDefiningOp();
      // Operand by operand: one value read twice (`a + transpose(a)`) may
      // be needed in two specs.
      SmallVector<std::pair<unsigned, Value>> operands;
      for (auto [number, value, spec] : choice.recompute->inputs)
        operands.emplace_back(number, make(b, loc, value, spec));
      for (auto [number, init] : choice.recompute->inits)
        operands.emplace_back(
            number, tensor::EmptyOp::create(b, loc, typeIn(init, target),
                                            ValueRange{}));
      Operation *clone = b.clone(*op);
      for (auto [number, value] : operands)
        clone->setOperand(number, value);
      clone->getResult(0).setType(typeIn(v, target));
      result = clone->getResult(0);
    }
    built[key] = result;
    return result;
  }

private:
  struct Recompute {
    /// Each non-init tensor operand (its number, value, and the spec it is
    /// needed in).
    SmallVector<std::tuple<unsigned, Value, SpecAttr>> inputs;
    /// Inits the op does not read (number, value): made fresh in the
    /// target's spec.
    SmallVector<std::pair<unsigned, Value>> inits;
  };
  struct Choice {
    double cost = kInfinity;
    std::optional<Recompute> recompute;
  };
  using Key = std::pair<Value, Attribute>;

  Attribute keyOf(SpecAttr target) {
    return target ? Attribute(target) : Attribute(UnitAttr::get(like.getContext()));
  }

  /// `v`'s shape and element type, in `target` (plain when null).
  static RankedTensorType typeIn(Value v, SpecAttr target) {
    auto t = llvm::cast<RankedTensorType>(v.getType());
    return RankedTensorType::get(t.getShape(), t.getElementType(), target);
  }

  Placements placementsOf(SpecAttr spec, int64_t rank) const {
    if (!spec)
      return Placements(view.shape.size(), Placement::replicate());
    return spec.getNormalizedPlacements(rank);
  }

  /// The planner's cost of moving `v` as it is to `target`; 0 for a plain
  /// value (each rank slices its shard) or one already there.
  /// The plain value `v` distributes when each rank slices its own shard
  /// of it (so distributing it again, in any spec, costs nothing), or null.
  static Value plainSource(Value v) {
    auto dist = v.getDefiningOp<DistributeTensorOp>();
    if (!dist || dist.getSrcRankAttr() || getSpec(dist.getSource().getType()))
      return {};
    return dist.getSource();
  }

  double moveCost(Value v, SpecAttr target) {
    auto type = llvm::cast<RankedTensorType>(v.getType());
    SpecAttr have = getSpec(type);
    if (!have || plainSource(v))
      return 0;
    if (have.getView() != like.getView())
      return kInfinity;
    std::optional<int64_t> bytes = getElementByteSize(type.getElementType());
    if (!bytes || !type.hasStaticShape())
      return kInfinity;
    RedistributeRequest req{view.shape,
                            Shape(type.getShape().begin(), type.getShape().end()),
                            *bytes, placementsOf(have, type.getRank()),
                            placementsOf(target, type.getRank())};
    if (sameState(req.from, req.to, req.mesh, type.getRank()))
      return 0;
    std::string error;
    std::optional<Plan> plan = planRedistribute(req, cost, error);
    return plan ? plan->timeUs() : kInfinity;
  }

  Value move(OpBuilder &b, Location loc, Value v, SpecAttr target) {
    RankedTensorType want = typeIn(v, target);
    if (v.getType() == want)
      return v;
    if (Value plain = plainSource(v))
      v = plain; // sliced again from the plain value
    if (v.getType() == want)
      return v;
    if (!getSpec(v.getType()))
      return DistributeTensorOp::create(b, loc, want, v, mesh, IntegerAttr());
    if (!target)
      return FullTensorOp::create(b, loc, want, v, mesh);
    return RedistributeOp::create(b, loc, want, v, mesh);
  }

  /// How `v` could be computed in `target` from its producer's operands,
  /// when its producer allows it.
  std::optional<Recompute> recomputation(Value v, SpecAttr target) {
    auto result = llvm::dyn_cast<OpResult>(v);
    if (!result)
      return std::nullopt;
    Operation *op = result.getOwner();
    if (op->getBlock() != block)
      return std::nullopt;
    std::optional<ShardingRule> ruleOr = recomputableRule(
        op, [](Value t) { return bool(getSpec(t.getType())); });
    if (!ruleOr)
      return std::nullopt;
    const ShardingRule &rule = *ruleOr;
    auto resultType = llvm::cast<RankedTensorType>(v.getType());
    // Partitioning computes a loop sharded by several mesh dims in their
    // default order only: the target's orders must be default.
    std::optional<std::vector<Placements>> needed = operandPlacementsForResult(
        rule, dropDefaultOrders(placementsOf(target, resultType.getRank())));
    if (!needed)
      return std::nullopt;

    Recompute r;
    for (size_t o = 0; o < rule.numOperands(); ++o) {
      Value value = op->getOperand(rule.operands[o]);
      if (rule.isInit(o)) { // unread (recomputableRule): made anew
        r.inits.emplace_back(rule.operands[o], value);
        continue;
      }
      auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
      if (!type)
        return std::nullopt;
      if (SpecAttr have = getSpec(type))
        if (have.getView() != like.getView() ||
            hasPartial(have.getNormalizedPlacements(type.getRank())))
          return std::nullopt;
      const Placements &ps = (*needed)[o];
      bool sharded = llvm::any_of(ps, [](const Placement &p) { return p.isShard(); });
      SpecAttr spec;
      if (target)
        spec = SpecAttr::get(like.getContext(), like.getMesh(),
                             like.getMeshDims(), like.getFlattened(),
                             ps);
      // A plain input needed whole stays plain.
      if (!getSpec(type) && !sharded)
        spec = {};
      r.inputs.emplace_back(rule.operands[o], value, spec);
    }
    return r;
  }

  const CostModel &cost;
  const ResolvedMeshView &view;
  SpecAttr like;
  Value mesh;
  Block *block;
  int64_t maxDepth;
  DenseMap<Key, Choice> memo;
  DenseMap<Key, Value> built;
};

struct DTensorNarrowMovesPass
    : public dtensor::impl::DTensorNarrowMovesPassBase<DTensorNarrowMovesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (devicesPerHost <= 0) {
      getOperation().emitError()
          << "dtensor-narrow-moves: devices-per-host must be positive, not "
          << int64_t(devicesPerHost);
      return signalPassFailure();
    }
    if (depth < 0) {
      getOperation().emitError()
          << "dtensor-narrow-moves: depth must be 0 or positive, not "
          << int64_t(depth);
      return signalPassFailure();
    }
    if (failed(verifyDistributedTypes(getOperation())))
      return signalPassFailure();
    ModuleOp module = getOperation();
    CostModel cost;
    if (devicesPerHost > 0)
      cost.devicesPerHost = devicesPerHost;
    SymbolTableCollection symbols;
    SmallVector<Operation *> anchors;
    module.walk([&](Operation *op) {
      if (llvm::isa<RedistributeOp, FullTensorOp>(op))
        anchors.push_back(op);
    });
    for (Operation *anchor : anchors) {
      Value source = anchor->getOperand(0), mesh = anchor->getOperand(1);
      auto sourceType = llvm::cast<RankedTensorType>(source.getType());
      SpecAttr have = getSpec(sourceType);
      SpecAttr target = getSpec(anchor->getResult(0).getType());
      if (!have || !source.getDefiningOp())
        continue;
      if (hasPartial(have.getNormalizedPlacements(sourceType.getRank())) ||
          (target &&
           hasPartial(target.getNormalizedPlacements(sourceType.getRank()))))
        continue;
      FailureOr<ResolvedMeshView> view =
          resolveMeshView(anchor, have.getView(), symbols,
                          [&]() { return anchor->emitOpError(); });
      if (failed(view))
        return signalPassFailure();
      Narrower narrower(cost, *view, have, mesh, anchor->getBlock(), depth);
      narrower.best(source, target, 0);
      if (!narrower.recomputes(source, target))
        continue;
      OpBuilder b(anchor);
      Value made = narrower.make(b, anchor->getLoc(), source, target);
      anchor->getResult(0).replaceAllUsesWith(made);
      Operation *producer = source.getDefiningOp();
      anchor->erase();
      eraseIfDead(producer);
      ++numNarrowed;
    }
  }

  /// Erases `op` and, in turn, the producers it leaves unused.
  static void eraseIfDead(Operation *op) {
    if (!op || !op->use_empty() || !isMemoryEffectFree(op))
      return;
    llvm::SmallSetVector<Operation *, 4> operands;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp())
        operands.insert(def);
    op->erase();
    for (Operation *def : operands)
      eraseIfDead(def);
  }
};

} // namespace
