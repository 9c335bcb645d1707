//===- Partition.cpp - DTensor API programs into the local view -----------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Rewrites a program whose every distributed value has its spec into the
// local view: each distributed tensor type becomes its local shard type
// (LocalView.h). One walk first diagnoses the ops this pass cannot
// partition and plans the compute ops (checked against their sharding
// rules) while every type is still global, so a diagnosed program is left
// as it was. Then the DTensor API ops, the only ops that change form, are
// lowered producers-first (a redistribute becomes a dtensor.reshard), and
// every other value is retyped in place: compute ops, function signatures,
// calls, loops and branches. MLIR's dialect conversion driver is not used:
// for a pass that rewrites a handful of ops and retypes the rest, its
// per-op legality checks and materializations cost more than all the rest.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/LocalView.h"
#include "dtensor/Dialect/DTensor/Transforms/Lookups.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "dtensor/Dialect/DTensor/Transforms/Propagation.h"
#include "dtensor/Interfaces/ShardingRuleOpInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>
#include <unordered_map>

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORPARTITIONPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// What the lowerings share: symbols to resolve meshes, and the distributed
/// types resolved so far with their local types (every op of a layer
/// repeats them).
struct Context {
  ModuleOp module;
  SymbolTableCollection symbols;
  /// (Held by pointer: resolveRef's references stay valid as more are
  /// resolved.)
  llvm::DenseMap<Type, std::unique_ptr<DistributedType>> resolved;
  llvm::DenseMap<Type, Type> locals;
  /// The local values replacing the results of API ops lowered so far. The
  /// ops stay (with their global types, which later lowerings read) until
  /// every API op is lowered.
  llvm::DenseMap<Value, Value> lowered;

  /// The local value of `v`: its replacement if an API op made it, else
  /// `v` itself (retyped in place at the end).
  Value local(Value v) const { return lowered.lookup(v) ? lowered.lookup(v) : v; }

  FailureOr<DistributedType> resolve(RankedTensorType type, Operation *at) {
    if (const DistributedType *t = resolveRef(type, at))
      return *t;
    return failure();
  }
  /// resolve without a copy (null when it fails, diagnosed at `at`).
  const DistributedType *resolveRef(RankedTensorType type, Operation *at) {
    auto it = resolved.find(type);
    if (it != resolved.end())
      return it->second.get();
    // The view and layout depend on the spec and rank, not the shape: a
    // type of another shape with the same spec takes them from it.
    std::pair<Attribute, int64_t> key{getSpec(type), type.getRank()};
    std::unique_ptr<DistributedType> made;
    if (const DistributedType *like = bySpec.lookup(key)) {
      made = std::make_unique<DistributedType>(
          DistributedType{type, like->spec, like->view, like->layout});
    } else {
      FailureOr<DistributedType> t = resolveDistributedType(type, at, symbols);
      if (failed(t))
        return nullptr;
      made = std::make_unique<DistributedType>(std::move(*t));
      bySpec[key] = made.get();
    }
    auto [slot, fresh] = resolved.try_emplace(type, std::move(made));
    return slot->second.get();
  }
  /// The first type resolved per (spec, rank) (owned by `resolved`).
  llvm::DenseMap<std::pair<Attribute, int64_t>, const DistributedType *> bySpec;

  /// The local type of `type`: its shard type when distributed, else
  /// itself. Distributed types were all resolved (and diagnosed) while
  /// planning, so this cannot fail afterwards.
  Type localOf(Type type) {
    auto it = locals.find(type);
    if (it != locals.end())
      return it->second;
    Type local = type;
    if (auto tensor = llvm::dyn_cast<RankedTensorType>(type);
        tensor && getSpec(tensor)) {
      FailureOr<DistributedType> dist = resolve(tensor, module);
      assert(succeeded(dist) && "distributed types are resolved while planning");
      local = getLocalType(tensor, dist->layout);
    }
    locals.try_emplace(type, local);
    return local;
  }
};

/// `v` as a value of local type `type`. Values are retyped to their local
/// types in place once every op is lowered, so `v` counts as its local type
/// here; a cast is needed only where that differs from `type`.
Value castTo(OpBuilder &b, Location loc, Value v, Type type, Context &c) {
  if (c.localOf(v.getType()) == type)
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

/// The DTensor API ops are the only ops that change form. Each lowering
/// below builds the local ops before `op` and returns the values replacing
/// its results, or failure after emitting an error.

/// Each rank's size of dim `d` of `t`, as text for a diagnostic: the sizes
/// in rank order on small meshes, the distinct ones on big meshes.
std::string shardSizesText(const DistributedType &t, int64_t d) {
  Shape global(t.global.getShape().begin(), t.global.getShape().end());
  std::string text;
  llvm::raw_string_ostream os(text);
  // On a sub-mesh or flattened view, ranks are indices in the group.
  const char *who = t.spec.getMeshDims().empty() ? "rank " : "group index ";
  if (t.layout.numRanks() <= 16) {
    for (auto [r, size] : llvm::enumerate(t.layout.sizeTable(global, d)))
      os << (r ? ", " : "") << who << r << ": " << size;
    return text;
  }
  os << "one of ";
  llvm::interleaveComma(t.layout.distinctSizes(global, d), os);
  return text;
}

/// from_local's run-time shape check, as the global view makes it: each dim
/// whose local size the types leave open (a dynamic local dim of a static
/// global dim) must be this rank's shard size there, else every rank stops
/// with the op's location. Dims the types fix need no check (the verifier
/// saw them); a dynamic global dim has no size to check against.
void emitFromLocalShapeCheck(FromLocalOp op, Value local, Value mesh,
                             const DistributedType &t, OpBuilder &b) {
  Location loc = op.getLoc();
  auto localType = llvm::cast<RankedTensorType>(local.getType());
  RankedTensorType shard = getLocalType(t.global, t.layout);
  for (int64_t d = 0; d < localType.getRank(); ++d) {
    if (!localType.isDynamicDim(d) || t.global.isDynamicDim(d))
      continue;
    Value expected =
        shard.isDynamicDim(d)
            ? emitShardExtent(b, loc, mesh, t, t.layout, d).second
            : Value(arith::ConstantIndexOp::create(b, loc, shard.getDimSize(d)));
    Value actual = tensor::DimOp::create(b, loc, local, d);
    Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       actual, expected);
    std::string message;
    llvm::raw_string_ostream os(message);
    os << "from_local: this rank's local tensor has the wrong size in dim "
       << d << " for its shard of a ";
    llvm::interleave(t.global.getShape(), os, "x");
    os << " tensor as " << t.spec << " (" << shardSizesText(t, d) << ")";
    cf::AssertOp::create(b, loc, same, message);
  }
}

/// from_local: the local value is this rank's shard already (checked where
/// its type leaves sizes open). With run_check, replicated mesh dims are
/// broadcast from group rank 0, as DTensor does.
FailureOr<SmallVector<Value>> lowerFromLocal(FromLocalOp op, OpBuilder &b,
                                             Context &c) {
  FailureOr<DistributedType> t = c.resolve(op.getType(), op);
  if (failed(t))
    return failure();
  Type localType = c.localOf(op.getType());
  Value local = c.local(op.getLocal());
  emitFromLocalShapeCheck(op, local, op.getMesh(), *t, b);
  Value v = castTo(b, op.getLoc(), local, localType, c);
  SmallVector<int64_t> replicated = meshDimsWhere(*t, PlacementKind::Replicate);
  if (op.getRunCheck() && !replicated.empty())
    v = BroadcastOp::create(b, op.getLoc(), localType, v, op.getMesh(),
                            replicated, /*root=*/0);
  return SmallVector<Value>{v};
}

/// to_local: the shard is the local value.
FailureOr<SmallVector<Value>> lowerToLocal(ToLocalOp op, OpBuilder &b,
                                           Context &c) {
  return SmallVector<Value>{
      castTo(b, op.getLoc(), c.local(op.getSource()), op.getType(), c)};
}

/// distribute_tensor: broadcast from the source rank when there is one,
/// then keep this rank's shard.
FailureOr<SmallVector<Value>>
lowerDistributeTensor(DistributeTensorOp op, OpBuilder &b, Context &c) {
  FailureOr<DistributedType> t = c.resolve(op.getType(), op);
  if (failed(t))
    return failure();
  Location loc = op.getLoc();
  Value v = c.local(op.getSource());
  if (std::optional<int64_t> src = op.getSrcRank()) {
    // Group rank `src` on every view dim is one rank of the whole view; a
    // flattened view dim's group rank spreads over its mesh dims row-major.
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
      v = BroadcastOp::create(b, loc, c.localOf(v.getType()), v, op.getMesh(),
                              dims, root);
  }
  RankedTensorType global = op.getType();
  auto localType = llvm::cast<RankedTensorType>(c.localOf(global));
  SmallVector<OpFoldResult> offsets, sizes,
      strides(global.getRank(), b.getIndexAttr(1));
  for (int64_t d = 0; d < global.getRank(); ++d) {
    if (t->layout.order(d).empty()) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(global.getDimSize(d)));
      continue;
    }
    auto [offset, size] =
        emitShardExtent(b, loc, op.getMesh(), *t, t->layout, d);
    offsets.push_back(offset);
    if (localType.isDynamicDim(d))
      sizes.push_back(size);
    else
      sizes.push_back(b.getIndexAttr(localType.getDimSize(d)));
  }
  Value slice =
      createExtractSlice(b, loc, localType, v, offsets, sizes, strides);
  // Partial placements (DTensor 2.15): R -> P's terms. avg, max and min keep
  // the value; a float sum divides it by the size of its Partial group.
  int64_t n = 1;
  for (auto [viewDim, p] : llvm::enumerate(t->layout.placements()))
    if (p.isPartial() && p.reduce == ReduceKind::Sum)
      n *= t->view.shape[viewDim];
  if (n > 1) {
    Type elt = global.getElementType();
    if (!llvm::isa<FloatType>(elt))
      return op.emitOpError()
             << "cannot distribute integer tensor " << global
             << " to a Partial(sum): its terms would be the value divided by "
                "the group size (inexact); distribute as R";
    Value scalar =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(elt, double(n)));
    SmallVector<Value> dynamic;
    for (int64_t d = 0; d < localType.getRank(); ++d)
      if (localType.isDynamicDim(d))
        dynamic.push_back(tensor::DimOp::create(b, loc, slice, d));
    Value splat = tensor::SplatOp::create(b, loc, scalar, localType, dynamic);
    slice = arith::DivFOp::create(b, loc, slice, splat);
  }
  return SmallVector<Value>{slice};
}

/// This rank's shard of `from` (the local value `local`) as its shard of
/// `to`: a dtensor.reshard for dtensor-lower-redistribute to plan, or
/// nothing when the layouts are one.
Value emitReshard(OpBuilder &b, Location loc, Value local, Value mesh,
                  const DistributedType &from, ArrayRef<Placement> to) {
  RankedTensorType global = from.global;
  Placements target(to.begin(), to.end());
  SpecAttr toSpec =
      SpecAttr::get(b.getContext(), from.spec.getMesh(), from.spec.getMeshDims(),
                    from.spec.getFlattened(), target);
  if (sameState(from.layout.placements(), target, from.view.shape,
                global.getRank()))
    return local;
  std::string error;
  std::optional<Layout> layout =
      Layout::create(from.view.shape, global.getRank(), target, error);
  assert(layout && "redistribute targets are verified");
  Type localType = getLocalType(global, *layout);
  return ReshardOp::create(b, loc, localType, local, mesh, TypeAttr::get(global),
                           toSpec);
}

/// redistribute and full_tensor: a reshard, planned later.
template <typename OpTy>
FailureOr<SmallVector<Value>> lowerRedistribute(OpTy op, OpBuilder &b,
                                                Context &c) {
  RankedTensorType source = op.getSource().getType();
  FailureOr<DistributedType> from = c.resolve(source, op);
  if (failed(from))
    return failure();
  Placements to;
  Type resultType;
  if constexpr (std::is_same_v<OpTy, FullTensorOp>) {
    to.assign(from->layout.placements().size(), Placement::replicate());
    resultType = op.getType();
  } else {
    to = getSpec(op.getType()).getNormalizedPlacements(source.getRank());
    resultType = c.localOf(op.getType());
  }
  Value v = emitReshard(b, op.getLoc(), c.local(op.getSource()), op.getMesh(), *from, to);
  return SmallVector<Value>{castTo(b, op.getLoc(), v, resultType, c)};
}

/// local_map: inputs brought to their in_specs, then the region inlined on
/// the local shards; its yields are the results' shards.
FailureOr<SmallVector<Value>> lowerLocalMap(LocalMapOp op, OpBuilder &b,
                                            Context &c) {
  Location loc = op.getLoc();
  Block &body = op.getBody().front();
  SmallVector<Value> locals;
  for (auto [i, input, attr] : llvm::enumerate(
           op.getInputs(), op.getInSpecs().getAsRange<SpecAttr>())) {
    auto global = llvm::cast<RankedTensorType>(input.getType());
    FailureOr<DistributedType> from = c.resolve(global, op);
    if (failed(from))
      return failure();
    Value v = c.local(input);
    Placements want = attr.getNormalizedPlacements(global.getRank());
    if (want != from->layout.placements()) {
      // An input on another mesh than the handle's is redistributed on its
      // own mesh (the verifier saw to in_specs being there).
      Value mesh = op.getMesh();
      if (llvm::cast<DeviceMeshType>(mesh.getType()).getView() !=
          from->spec.getView())
        mesh = findMeshHandle(op, from->spec.getView());
      if (!mesh)
        return op->emitOpError()
               << "redistributes input " << i << " on "
               << from->spec.getMesh()
               << ", whose handle its function does not take; pass it as an "
                  "argument",
               failure();
      v = emitReshard(b, loc, v, mesh, *from, want);
    }
    locals.push_back(castTo(b, loc, v, body.getArgument(i).getType(), c));
  }
  // Arguments first: a region may yield one of them.
  for (auto [arg, local] : llvm::zip(body.getArguments(), locals))
    arg.replaceAllUsesWith(local);
  auto yield = llvm::cast<YieldOp>(body.getTerminator());
  SmallVector<Value> yielded(yield.getValues());
  yield->erase();
  Block *into = op->getBlock();
  into->getOperations().splice(op->getIterator(), body.getOperations());
  SmallVector<Value> results;
  for (auto [value, result] : llvm::zip(yielded, op.getResults()))
    results.push_back(
        castTo(b, loc, c.local(value), c.localOf(result.getType()), c));
  return results;
}

/// Lowers one API op in place (its replacement built before it).
LogicalResult lowerApiOp(Operation *op, Context &c) {
  OpBuilder b(op);
  FailureOr<SmallVector<Value>> results =
      llvm::TypeSwitch<Operation *, FailureOr<SmallVector<Value>>>(op)
          .Case([&](FromLocalOp o) { return lowerFromLocal(o, b, c); })
          .Case([&](ToLocalOp o) { return lowerToLocal(o, b, c); })
          .Case([&](DistributeTensorOp o) {
            return lowerDistributeTensor(o, b, c);
          })
          .Case([&](RedistributeOp o) { return lowerRedistribute(o, b, c); })
          .Case([&](FullTensorOp o) { return lowerRedistribute(o, b, c); })
          .Case([&](LocalMapOp o) { return lowerLocalMap(o, b, c); });
  if (failed(results))
    return failure();
  for (auto [result, local] : llvm::zip(op->getResults(), *results))
    c.lowered[result] = local;
  return success();
}

//===----------------------------------------------------------------------===//
// Compute ops on annotated values
//===----------------------------------------------------------------------===//

/// How an op's factors are distributed, read off its operands' specs.
struct FactorSharding {
  /// Per factor: the view dims sharding it, in the order they apply.
  std::vector<std::vector<int64_t>> meshDimsOfFactor;
  /// Per factor: a placed operand (or numOperands() + result) and its dim
  /// that index it (to compute the factor's offset), or -1.
  std::vector<std::pair<int, int>> witness;
};

/// Per mesh dim of `raw`'s view: whether a masked lookup (Lookups.h) may
/// make its results P(sum) there from whole operands: its maskable read's
/// table is sharded there along a dim read at a computed index.
SmallVector<bool> maskableMeshDims(Operation *raw, int64_t meshRank) {
  SmallVector<bool> out(meshRank, false);
  if (!isPureLookup(raw))
    return out;
  for (Operation &inner : llvm::cast<linalg::GenericOp>(raw).getBlock()->getOperations()) {
    auto read = llvm::dyn_cast<tensor::ExtractOp>(&inner);
    if (!read || !maskableRead(raw, read.getTensor()))
      continue;
    auto type = llvm::cast<RankedTensorType>(read.getTensor().getType());
    SpecAttr spec = getSpec(type);
    if (!spec)
      continue;
    Placements ps = spec.getNormalizedPlacements(type.getRank());
    for (auto [m, p] : llvm::enumerate(ps))
      if (int64_t(m) < meshRank && p.isShard() &&
          readAtComputedIndex(read, raw, p.dim))
        out[m] = true;
  }
  return out;
}

/// Checks that the specs of an op's operands and results describe one
/// choice its sharding rule allows, and returns it. Emits and fails
/// otherwise: a sharding the partitioned op could not compute exactly is a
/// diagnostic, never a wrong program.
FailureOr<FactorSharding> analyzeRule(Operation *raw, const ShardingRule &rule,
                                      Context &c) {
  size_t numPlaced = rule.numOperands(), numResults = rule.numResults();
  auto valueOf = [&](size_t i) -> Value {
    return i < numPlaced ? raw->getOperand(rule.operands[i])
                         : raw->getResult(i - numPlaced);
  };
  auto nameOf = [&](size_t i) {
    return i < numPlaced ? "operand " + std::to_string(rule.operands[i])
                         : "result " + std::to_string(i - numPlaced);
  };
  SpecAttr anySpec;
  SmallVector<const DistributedType *, 6> dist(numPlaced + numResults, nullptr);
  for (size_t i = 0; i < numPlaced + numResults; ++i) {
    auto type = llvm::cast<RankedTensorType>(valueOf(i).getType());
    if (!getSpec(type))
      continue;
    const DistributedType *t = c.resolveRef(type, raw);
    if (!t)
      return failure();
    if (anySpec && t->spec.getView() != anySpec.getView())
      return raw->emitOpError()
             << "mixes distributed operands on different meshes or views";
    anySpec = t->spec;
    dist[i] = t;
  }
  if (!anySpec)
    return raw->emitOpError() << "has distributed results but no distributed "
                                 "operand to take the mesh from";
  for (size_t i = 0; i < numPlaced + numResults; ++i)
    if (!dist[i])
      return raw->emitOpError()
             << "mixes distributed and plain tensors (" << nameOf(i)
             << "); give every tensor operand a spec, or run "
                "dtensor-propagate and dtensor-insert-redistribute first "
                "(dtensor-compile runs them all)";
  const ResolvedMeshView &view = dist[0]->view;
  int64_t meshRank = view.shape.size();
  FactorSharding out;
  out.meshDimsOfFactor.resize(rule.factors.size());
  out.witness.assign(rule.factors.size(), {-1, -1});
  std::vector<int64_t> factorOf(meshRank, kNoFactor);
  SmallVector<bool> maskable = maskableMeshDims(raw, meshRank);
  for (int64_t m = 0; m < meshRank; ++m) {
    // The factor this mesh dim shards, from every value that shards.
    std::optional<int64_t> factor;
    for (size_t i = 0; i < numPlaced + numResults; ++i) {
      const Placement &p = dist[i]->layout.placements()[m];
      if (!p.isShard())
        continue;
      const std::vector<int64_t> &dims =
          i < numPlaced ? rule.operandDims[i] : rule.resultDims[i - numPlaced];
      int64_t f = dims[p.dim];
      // A dim read through a window belongs to the window's loop, but its
      // shards are not the loop's (no offsets are taken from it).
      const WindowedDim *window =
          i < numPlaced ? rule.windowOf(i, p.dim) : nullptr;
      if (f < 0 && window)
        f = window->factor;
      if (f < 0)
        return raw->emitOpError()
               << nameOf(i) << " is sharded along dim " << p.dim
               << ", which no loop of the op indexes alone";
      if (rule.factors[f].kind == RuleFactor::Kind::Blocked)
        return raw->emitOpError()
               << nameOf(i) << " is sharded along dim " << p.dim
               << " on mesh dim " << m << ", but that dim cannot be sharded ("
               << rule.factors[f].why << "); redistribute it first";
      if (factor && *factor != f)
        return raw->emitOpError()
               << "shards two loops (" << *factor << " and " << f
               << ") on mesh dim " << m << "; redistribute one operand first";
      factor = f;
      if (!window)
        out.witness[f] = {int(i), int(p.dim)};
    }
    std::vector<Placement> here;
    for (size_t o = 0; o < numPlaced; ++o)
      here.push_back(dist[o]->layout.placements()[m]);
    int64_t f = factor ? *factor : kNoFactor;
    factorOf[m] = f;
    std::optional<std::vector<Placement>> expected =
        placementsForFactor(rule, f, here);
    if (!expected) {
      if (f >= 0 && rule.factors[f].kind == RuleFactor::Kind::Reduction)
        return raw->emitOpError()
               << "reduces over loop " << f << ", sharded on mesh dim " << m
               << ", with a combiner that is not sum, product, max or min";
      if (f >= 0)
        return raw->emitOpError()
               << "shards loop " << f << " on mesh dim " << m
               << ", which a result does not index; redistribute first";
      return raw->emitOpError()
             << "cannot keep its Partial input Partial on mesh dim " << m
             << " (only linear ops can: add/sub of Partials, mul/div by a "
                "replicated value, views and slices): redistribute the input "
                "to R";
    }
    // Inputs, then results, then inits (which follow their results).
    std::vector<size_t> checkOrder;
    for (size_t i = 0; i < numPlaced; ++i)
      if (!rule.isInit(i))
        checkOrder.push_back(i);
    for (size_t r = 0; r < numResults; ++r)
      checkOrder.push_back(numPlaced + r);
    for (size_t i = 0; i < numPlaced; ++i)
      if (rule.isInit(i))
        checkOrder.push_back(i);
    for (size_t i : checkOrder) {
      const Placement &have = dist[i]->layout.placements()[m];
      const Placement &want = (*expected)[i];
      if (sameIgnoringOrder(have, want))
        continue;
      bool isOutput = i >= numPlaced || rule.isInit(i);
      if (f == kNoFactor && isOutput && have.isPartial() && want.isReplicate() &&
          rule.makesPartial) {
        // A fill: each rank fills its share. A product's share of v is an
        // n-th root, exact only for 0 and 1 (every rank fills v itself).
        if (have.reduce == ReduceKind::Product) {
          auto fill = llvm::dyn_cast<linalg::FillOp>(raw);
          std::optional<double> v;
          if (fill) {
            if (auto c =
                    fill.getInputs()[0].getDefiningOp<arith::ConstantOp>()) {
              if (auto f = llvm::dyn_cast<FloatAttr>(c.getValue()))
                v = f.getValueAsDouble();
              else if (auto n = llvm::dyn_cast<IntegerAttr>(c.getValue());
                       n && (n.getValue().isZero() || n.getValue().isOne()))
                v = n.getValue().isZero() ? 0.0 : 1.0;
            }
          }
          if (!v || (*v != 0.0 && *v != 1.0))
            return raw->emitOpError()
                   << "cannot fill a P(product) value with anything but the "
                      "constants 0 or 1 (each rank's share of v would be an "
                      "n-th root of v)";
        }
        continue;
      }
      // A masked lookup: each rank's rows, zero elsewhere (planAlignedReads
      // checks the read).
      if (f == kNoFactor && isOutput && have.isPartial() &&
          have.reduce == ReduceKind::Sum && want.isReplicate() && maskable[m])
        continue;
      if (f >= 0 && want.isShard())
        return raw->emitOpError()
               << nameOf(i) << " should be " << formatPlacement(want)
               << " on mesh dim " << m << " like the other operands sharding "
               << "loop " << f << ", but is " << formatPlacement(have);
      if (f >= 0 && want.isPartial())
        return raw->emitOpError()
               << "reduces over loop " << f << ", sharded on mesh dim " << m
               << ": its " << nameOf(i) << " must be " << formatPlacement(want)
               << " there, not " << formatPlacement(have);
      if (f >= 0)
        return raw->emitOpError()
               << nameOf(i) << " does not index loop " << f
               << " (sharded on mesh dim " << m << "), so it must be "
               << formatPlacement(want) << " there, not "
               << formatPlacement(have);
      if (isOutput && have.isPartial())
        return raw->emitOpError()
               << "makes a Partial result on mesh dim " << m
               << " from replicated inputs; compute it replicated and "
                  "redistribute";
      return raw->emitOpError()
             << nameOf(i) << " should be " << formatPlacement(want)
             << " on mesh dim " << m << ", but is " << formatPlacement(have);
    }
    if (f >= 0)
      out.meshDimsOfFactor[f].push_back(m);
  }
  std::string error;
  if (!divisibilityHolds(rule, factorOf, view.shape, error))
    return raw->emitOpError() << "cannot be partitioned exactly: " << error;
  // A factor sharded by several mesh dims must use one order everywhere:
  // then every operand and result indexing it holds the same piece of the
  // loop on each rank (the pieces nest in that order), and the factor's
  // mesh dims are listed in it.
  for (size_t f = 0; f < rule.factors.size(); ++f) {
    std::optional<std::vector<int64_t>> first;
    size_t firstOperand = 0;
    for (size_t i = 0; i < numPlaced + numResults; ++i) {
      std::optional<int64_t> pos = rule.dimOf(i, f);
      if (!pos)
        continue;
      std::vector<int64_t> order(dist[i]->layout.order(*pos));
      if (!first) {
        first = order;
        firstOperand = i;
      } else if (order != *first) {
        return raw->emitOpError()
               << nameOf(i) << " shards loop " << f
               << " in another order of mesh dims than " << nameOf(firstOperand);
      }
    }
    if (first) {
      std::vector<int64_t> sorted(*first);
      llvm::sort(sorted);
      if (sorted != out.meshDimsOfFactor[f])
        return raw->emitOpError()
               << "shards loop " << f << " over other mesh dims than "
               << nameOf(firstOperand) << "'s order lists";
      out.meshDimsOfFactor[f] = *first;
    }
  }
  return out;
}



/// What partitioning does to one compute op, decided while every type is
/// still global and applied in place afterwards (compute ops keep their
/// form: result types change, plus index computations and the static
/// sizes of slices and reshapes).
struct ComputePlan {
  Operation *op = nullptr;
  Value mesh;
  /// linalg.index of a sharded loop: (loop, a type indexing it, that
  /// type's dim) to compute this rank's offset from.
  SmallVector<std::tuple<unsigned, DistributedType, int64_t>> shifts;
  /// A fill of a Partial(sum) value fills value / fillShare.
  int64_t fillShare = 0;
  /// A tensor.empty whose local sizes differ across ranks.
  std::optional<DistributedType> unevenEmpty;
  /// A slice or reshape whose sizes are rebuilt from the local type of this
  /// distributed value (the slice's whole dims, the reshape's result).
  std::optional<DistributedType> sizesFrom;
  /// Operands read through windows of a sharded loop: each rank fetches its
  /// window before the op (in this order), and the op reads it at
  /// `localOffset` instead of the global index's constant term.
  struct WindowFetch {
    unsigned operandNumber;
    DistributedType type;
    int64_t dim, viewDim;
    WindowRead read;
    /// Position of the dim in the operand's indexing map and its new
    /// constant term.
    int64_t localOffset;
    /// The constant term of the index in the op's indexing map.
    int64_t mapOffset;
    /// The operand is a tensor.pad's result fetched from the pad's source
    /// (`type` is the source's, `read` composed with the padding, which the
    /// window holds where the source's dim ends): one exchange for the pad
    /// and its reader.
    bool fromPadSource = false;
  };
  std::vector<WindowFetch> windows;
  /// Distributed tables read by `tensor.extract` in the body whose sharded
  /// dims line up with sharded loops (dtensor-insert-redistribute makes
  /// them so): the read's position among the body's extracts, and the dims
  /// it reads at the loop's local index (the shift left out).
  SmallVector<std::pair<int64_t, SmallVector<int64_t>>> alignedReads;
  /// A masked lookup (Lookups.h): the read's position among the body's
  /// extracts, its table, and the dims it reads at a computed index that the
  /// table shards; each rank reads its own rows there, zero elsewhere.
  struct MaskedRead {
    int64_t ordinal;
    DistributedType table;
    SmallVector<int64_t> dims;
  };
  std::optional<MaskedRead> maskedRead;

  /// Whether a window is fetched from a pad's source (the pad is left out).
  bool fusesPad() const {
    return llvm::any_of(windows,
                        [](const WindowFetch &w) { return w.fromPadSource; });
  }

  /// Whether applying the plan does more than retype the results.
  bool changesForm() const {
    return !shifts.empty() || fillShare || unevenEmpty || sizesFrom ||
           !windows.empty() || !alignedReads.empty() || maskedRead;
  }
};

/// Whether a `tensor.extract` directly in a linalg body reads a
/// distributed table defined outside the op.
bool readsDistributedTable(Operation *op) {
  auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return false;
  for (Operation &inner : linalgOp.getBlock()->getOperations())
    if (auto read = llvm::dyn_cast<tensor::ExtractOp>(&inner))
      if (getSpec(read.getTensor().getType()))
        return true;
  return false;
}

/// Checks every distributed table read in `op`'s body: each dim the table
/// shards must be read at `linalg.index k` of a loop k sharded by the same
/// view dims in the same order and as long as the dim, so each rank reads
/// only the rows it holds; those reads use the loop's local index.
LogicalResult planAlignedReads(linalg::LinalgOp op, SpecAttr opSpec,
                               const FactorSharding &sharding,
                               ComputePlan &plan, Context &c) {
  Operation *raw = op.getOperation();
  // (The loops' extents only once a distributed table is read: upstream
  // computes them by inverting the indexing maps.)
  SmallVector<int64_t> ranges;
  int64_t ordinal = -1;
  for (Operation &inner : op.getBlock()->getOperations()) {
    auto read = llvm::dyn_cast<tensor::ExtractOp>(&inner);
    if (!read)
      continue;
    ++ordinal;
    auto type = llvm::cast<RankedTensorType>(read.getTensor().getType());
    SpecAttr spec = getSpec(type);
    if (!spec)
      continue;
    auto fail = [&](const Twine &why) {
      return read->emitOpError()
             << "reads a distributed table in the body of a "
             << raw->getName() << " that " << why
             << "; make it whole first (dtensor.full_tensor), or let "
                "dtensor-insert-redistribute place it";
    };
    if (!opSpec || spec.getView() != opSpec.getView())
      return fail("is on another mesh view than the op's operands");
    FailureOr<DistributedType> t = c.resolve(type, raw);
    if (failed(t))
      return failure();
    if (ranges.empty())
      ranges = op.getStaticLoopRanges();
    SmallVector<int64_t> dims, masked;
    for (auto [d, idx] : llvm::enumerate(read.getIndices())) {
      const std::vector<int64_t> &order = t->layout.order(d);
      if (order.empty())
        continue;
      auto index = idx.getDefiningOp<linalg::IndexOp>();
      if (!index || index->getParentOp() != raw) {
        // A masked lookup: the results are P(sum) on every mesh dim that
        // shards the dim, the inputs whole there, and no rank's shard is
        // empty (a rank without the row reads its first one and discards
        // it).
        auto maskedOn = [&](int64_t m) {
          auto result = llvm::dyn_cast<RankedTensorType>(raw->getResult(0).getType());
          FailureOr<DistributedType> r =
              result && getSpec(result) ? c.resolve(result, raw)
                                        : FailureOr<DistributedType>(failure());
          if (failed(r) || r->spec.getView() != spec.getView())
            return false;
          const Placement &p = r->layout.placements()[m];
          if (!p.isPartial() || p.reduce != ReduceKind::Sum)
            return false;
          for (OpOperand *in : op.getDpsInputOperands())
            if (SpecAttr s = getSpec(in->get().getType())) {
              auto it = llvm::cast<RankedTensorType>(in->get().getType());
              if (!s.getNormalizedPlacements(it.getRank())[m].isReplicate())
                return false;
            }
          return true;
        };
        if (maskableRead(raw, read.getTensor()) == read &&
            llvm::all_of(order, maskedOn)) {
          Shape shape(type.getShape().begin(), type.getShape().end());
          if (t->layout.distinctSizes(shape, d).front() == 0)
            return fail("shards dim " + Twine(d) +
                        " with an empty shard on some rank, read there at a "
                        "computed index (a masked lookup reads each rank's "
                        "first row when it does not hold the index)");
          masked.push_back(d);
          continue;
        }
        return fail("shards dim " + Twine(d) +
                    ", read there at an index that is not a loop's own");
      }
      unsigned k = index.getDim();
      if (sharding.meshDimsOfFactor[k] != order ||
          ShapedType::isDynamic(ranges[k]) || ranges[k] != type.getDimSize(d))
        return fail("shards dim " + Twine(d) + " otherwise than loop " +
                    Twine(k) + ", which reads it");
      dims.push_back(d);
    }
    for (const Placement &p : t->layout.placements())
      if (p.isPartial())
        return fail("is Partial");
    if (!dims.empty())
      plan.alignedReads.push_back({ordinal, std::move(dims)});
    if (!masked.empty())
      plan.maskedRead = ComputePlan::MaskedRead{ordinal, *t, std::move(masked)};
  }
  return success();
}

/// A windowed operand that is a tensor.pad's only use, padded with a
/// constant, is fetched from the pad's source instead: the window read
/// through the padding is a window of the source (offset less the low
/// padding) holding the padding where the source's dim ends, so the pad and
/// its reader make one exchange instead of one each. Padded dims that are
/// not fetched must be whole (they are padded locally after the fetch).
/// Plans it where it holds; leaves the plan as it is otherwise.
void fusePads(Operation *raw, ComputePlan &plan, Context &c) {
  llvm::SmallDenseSet<unsigned> operands;
  for (const ComputePlan::WindowFetch &w : plan.windows)
    operands.insert(w.operandNumber);
  for (unsigned number : operands) {
    auto pad = raw->getOperand(number).getDefiningOp<tensor::PadOp>();
    if (!pad || !pad->hasOneUse() || !pad.getConstantPaddingValue() ||
        !pad.getLow().empty() || !pad.getHigh().empty())
      continue;
    auto sourceType = llvm::dyn_cast<RankedTensorType>(pad.getSource().getType());
    auto resultType = pad.getResultType();
    if (!sourceType || !getSpec(sourceType) || !getSpec(resultType) ||
        !sourceType.hasStaticShape())
      continue;
    FailureOr<DistributedType> source = c.resolve(sourceType, raw);
    FailureOr<DistributedType> result = c.resolve(resultType, raw);
    if (failed(source) || failed(result) ||
        source->spec.getView() != result->spec.getView())
      continue;
    // The fetched dims and their mesh dims.
    llvm::SmallDenseMap<int64_t, int64_t> fetched;
    for (const ComputePlan::WindowFetch &w : plan.windows)
      if (w.operandNumber == number)
        fetched[w.dim] = w.viewDim;
    ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
    bool ok = true;
    for (int64_t d = 0; d < sourceType.getRank(); ++d)
      if ((low[d] || high[d]) && !fetched.count(d))
        ok &= result->layout.order(d).empty() && source->layout.order(d).empty();
    // Elsewhere the source is placed as the result; on a fetched dim's mesh
    // dim it is sharded along that dim or whole.
    for (auto [m, have] : llvm::enumerate(source->layout.placements())) {
      const Placement &want = result->layout.placements()[m];
      bool fetchedHere = false;
      for (auto [d, viewDim] : fetched)
        if (viewDim == int64_t(m))
          fetchedHere |= have.isReplicate() || (have.isShard() && have.dim == d);
      ok &= fetchedHere || sameIgnoringOrder(have, want);
    }
    for (auto [d, viewDim] : fetched)
      for (int64_t m : source->layout.order(d))
        ok &= m == viewDim;
    if (!ok)
      continue;
    for (ComputePlan::WindowFetch &w : plan.windows) {
      if (w.operandNumber != number)
        continue;
      w.type = *source;
      w.read.offset -= low[w.dim];
      w.read.inputSize = sourceType.getDimSize(w.dim);
      std::string error;
      int64_t parts = source->view.shape[w.viewDim];
      if (windowLength(w.read, parts, error) < 0) {
        ok = false;
        break;
      }
      w.localOffset = localIndexOffset(w.read, parts);
      w.fromPadSource = true;
    }
    // A named op reads at its own index: the local constant must not move.
    if (!ok || (!llvm::isa<linalg::GenericOp>(raw) &&
                llvm::any_of(plan.windows, [&](const auto &w) {
                  return w.operandNumber == number && w.localOffset != w.mapOffset;
                }))) {
      // Back to the pad's own window (planned before this change).
      for (ComputePlan::WindowFetch &w : plan.windows)
        if (w.operandNumber == number && w.fromPadSource) {
          w.fromPadSource = false;
          w.type = *c.resolve(resultType, raw);
          w.read.offset += low[w.dim];
          w.read.inputSize = resultType.getDimSize(w.dim);
          w.localOffset =
              localIndexOffset(w.read, w.type.view.shape[w.viewDim]);
        }
      continue;
    }
  }
}

/// Checks a compute op on distributed values and plans its partitioning.
/// Emits and fails on what cannot be computed exactly.
FailureOr<ComputePlan> planCompute(Operation *raw, Context &c) {
  ComputePlan plan;
  plan.op = raw;
  if (auto empty = llvm::dyn_cast<tensor::EmptyOp>(raw)) {
    RankedTensorType global = empty.getType();
    if (!global.hasStaticShape())
      return raw->emitOpError() << "needs a static global shape to be partitioned";
    FailureOr<DistributedType> t = c.resolve(global, raw);
    if (failed(t))
      return failure();
    if (!getLocalType(global, t->layout).hasStaticShape()) {
      plan.mesh = findMeshHandle(raw, t->spec.getView());
      if (!plan.mesh)
        return raw->emitOpError()
               << "needs the mesh handle of " << t->spec.getMesh()
               << " as a function argument for its uneven local sizes";
      plan.unevenEmpty = *t;
    }
    return plan;
  }
  auto iface = llvm::dyn_cast<ShardingRuleOpInterface>(raw);
  std::string reason;
  FailureOr<ShardingRule> rule =
      iface ? iface.getShardingRule(reason) : FailureOr<ShardingRule>(failure());
  if (failed(rule))
    return raw->emitOpError()
           << "operates on distributed tensors but has no sharding rule"
           << (reason.empty() ? "" : ": " + reason);
  FailureOr<FactorSharding> sharding = analyzeRule(raw, *rule, c);
  if (failed(sharding))
    return failure();
  SpecAttr spec;
  for (Value v : raw->getOperands())
    if ((spec = getSpec(v.getType())))
      break;
  plan.mesh = findMeshHandle(raw, spec.getView());
  auto typeOf = [&](int i) {
    size_t numPlaced = rule->numOperands();
    Value v = size_t(i) < numPlaced ? raw->getOperand(rule->operands[i])
                                    : raw->getResult(i - numPlaced);
    return llvm::cast<RankedTensorType>(v.getType());
  };
  bool needsMesh = false;
  if (auto op = llvm::dyn_cast<linalg::LinalgOp>(raw)) {
    op.getBlock()->walk([&](linalg::IndexOp index) {
      unsigned k = index.getDim();
      if (sharding->meshDimsOfFactor[k].empty())
        return;
      auto [i, pos] = sharding->witness[k];
      FailureOr<DistributedType> t = c.resolve(typeOf(i), raw);
      plan.shifts.push_back({k, *t, pos});
    });
    if (failed(planAlignedReads(op, spec, *sharding, plan, c)))
      return failure();
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
      // Each rank's term of a P(sum) fill is the value / n: exact for
      // floats' purposes, and for a zero of any type (an accumulator's
      // init), which needs nothing.
      if (sum && !matchPattern(raw->getOperand(0), m_Zero()) &&
          !matchPattern(raw->getOperand(0), m_AnyZeroFloat())) {
        if (!llvm::isa<FloatType>(raw->getOperand(0).getType()))
          return raw->emitOpError()
                 << "fills an integer P(sum) value with a nonzero value, "
                    "whose per-rank terms would not be exact (value / "
                 << n << "); fill it replicated and redistribute instead";
        plan.fillShare = n;
      }
    }
    needsMesh = !plan.shifts.empty() || plan.fillShare || plan.maskedRead;
  } else if (llvm::isa<tensor::ExtractSliceOp, tensor::ExpandShapeOp,
                       tensor::ReshapeOp>(raw)) {
    plan.sizesFrom = *c.resolve(typeOf(rule->numOperands()), raw);
  } else if (llvm::isa<tensor::InsertSliceOp>(raw)) {
    plan.sizesFrom = *c.resolve(typeOf(1), raw);
  }
  if (plan.sizesFrom)
    needsMesh = !getLocalType(plan.sizesFrom->global, plan.sizesFrom->layout)
                     .hasStaticShape();
  for (const WindowedDim &w : rule->windows) {
    const std::vector<int64_t> &viewDims =
        sharding->meshDimsOfFactor[w.factor];
    if (viewDims.empty())
      continue;
    auto [i, pos] = sharding->witness[w.factor];
    if (i < 0)
      return raw->emitOpError()
             << "shards loop " << w.factor << ", which no operand or result "
             << "indexes plainly, so no rank knows its share of it";
    RankedTensorType operandType = typeOf(int(w.operand));
    WindowRead read{w.stride, w.offset, w.lowSpan, w.highSpan,
                    typeOf(i).getDimSize(pos),
                    operandType.getDimSize(w.dim)};
    FailureOr<DistributedType> t = c.resolve(operandType, raw);
    if (failed(t))
      return failure();
    int64_t parts = t->view.shape[viewDims.front()];
    std::string error;
    if (windowLength(read, parts, error) < 0)
      return raw->emitOpError() << error;
    int64_t local = localIndexOffset(read, parts);
    if (local != w.offset &&
        !llvm::isa<linalg::GenericOp, tensor::PadOp, tensor::ExtractSliceOp>(raw))
      return raw->emitOpError()
             << "reads operand " << rule->operands[w.operand]
             << " through a window whose local index differs from the "
                "global one; write it as a linalg.generic";
    plan.windows.push_back({rule->operands[w.operand], *t, w.dim,
                            viewDims.front(), read, local, w.offset});
  }
  if (llvm::isa<linalg::LinalgOp>(raw))
    fusePads(raw, plan, c);
  needsMesh |= !plan.windows.empty();
  if (needsMesh && !plan.mesh)
    return raw->emitOpError()
           << "needs the mesh handle of " << spec.getMesh()
           << " as an argument of its function (for this rank's offsets and "
              "sizes)";
  return plan;
}

/// The local sizes of `t`, static where every rank agrees.
SmallVector<OpFoldResult> localSizes(OpBuilder &b, Location loc, Value mesh,
                                     const DistributedType &t) {
  RankedTensorType local = getLocalType(t.global, t.layout);
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < local.getRank(); ++d)
    sizes.push_back(local.isDynamicDim(d)
                        ? OpFoldResult(emitShardExtent(b, loc, mesh, t,
                                                       t.layout, d)
                                           .second)
                        : OpFoldResult(b.getIndexAttr(local.getDimSize(d))));
  return sizes;
}

/// Applies a plan: local result types, index shifts, fill shares, uneven
/// empties, local sizes of slices and reshapes.
void applyCompute(const ComputePlan &plan, Context &c) {
  Operation *raw = plan.op;
  OpBuilder b(raw);
  Location loc = raw->getLoc();
  auto localOf = [&](Type t) {
    return llvm::cast<RankedTensorType>(c.localOf(t));
  };
  if (plan.unevenEmpty) {
    auto global = llvm::cast<RankedTensorType>(raw->getResult(0).getType());
    auto local = localOf(global);
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
  if (!plan.windows.empty()) {
    b.setInsertionPoint(raw);
    auto generic = llvm::dyn_cast<linalg::GenericOp>(raw);
    SmallVector<AffineMap> maps;
    if (generic)
      maps = generic.getIndexingMapsArray();
    llvm::DenseMap<unsigned, SmallVector<int64_t>> done;
    // Pads fetched through (their reader's only operand use).
    llvm::SmallDenseMap<unsigned, tensor::PadOp> pads;
    for (const ComputePlan::WindowFetch &w : plan.windows)
      if (w.fromPadSource)
        pads[w.operandNumber] =
            raw->getOperand(w.operandNumber).getDefiningOp<tensor::PadOp>();
    for (const ComputePlan::WindowFetch &w : plan.windows) {
      Value operand = raw->getOperand(w.operandNumber);
      SmallVector<int64_t> &windowed = done[w.operandNumber];
      if (w.fromPadSource && windowed.empty())
        operand = pads.lookup(w.operandNumber).getSource();
      DistributedType held = w.type;
      const Placement &p = held.layout.placements()[w.viewDim];
      if (windowed.empty() && p.isShard() && p.dim == w.dim &&
          int64_t(haloShifts(w.read, held.view.shape[w.viewDim]).size()) >
              kMaxHaloShifts) {
        // Pieces from many ranks (input and output chunked very
        // differently): gather the dim and slice the window locally.
        Placements to = held.layout.placements();
        to[w.viewDim] = Placement::replicate();
        operand = emitReshard(b, loc, operand, plan.mesh, held, to);
        std::string error;
        held.layout = *Layout::create(held.view.shape, held.global.getRank(),
                                      to, error);
        held.spec = SpecAttr::get(b.getContext(), held.spec.getMesh(),
                                  held.spec.getMeshDims(),
                                  held.spec.getFlattened(), to);
      }
      // A pad's window holds its padding where the global dim ends.
      Value fill;
      tensor::PadOp fused =
          w.fromPadSource ? pads.lookup(w.operandNumber) : tensor::PadOp();
      if (auto pad = fused ? fused : llvm::dyn_cast<tensor::PadOp>(raw)) {
        fill = pad.getConstantPaddingValue();
        // A constant yielded from inside the pad's body (as importers write
        // it) is materialized where the window is built.
        if (fill && pad.getRegion().isAncestor(fill.getParentRegion()))
          fill = b.clone(*fill.getDefiningOp())->getResult(0);
      }
      FailureOr<Value> window =
          emitWindow(b, loc, plan.mesh, operand, held, w.dim, w.viewDim,
                     w.read, windowed, fill);
      windowed.push_back(w.dim);
      // Planning checked every failure emitWindow could report.
      if (failed(window))
        continue;
      raw->setOperand(w.operandNumber, *window);
      if (generic && w.localOffset != w.mapOffset) {
        AffineMap &map = maps[w.operandNumber];
        SmallVector<AffineExpr> results(map.getResults());
        results[w.dim] = results[w.dim] + (w.localOffset - w.mapOffset);
        map = AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                             map.getContext());
      }
    }
    // The fused pads' other padded dims (whole) are padded locally.
    for (auto [number, pad] : pads) {
      SmallVector<OpFoldResult> low, high;
      bool any = false;
      for (auto [d, l, h] : llvm::enumerate(pad.getStaticLow(), pad.getStaticHigh())) {
        bool fetched = llvm::is_contained(done[number], int64_t(d));
        low.push_back(b.getIndexAttr(fetched ? 0 : l));
        high.push_back(b.getIndexAttr(fetched ? 0 : h));
        any |= !fetched && (l || h);
      }
      if (!any)
        continue;
      Value fill = pad.getConstantPaddingValue();
      if (pad.getRegion().isAncestor(fill.getParentRegion()))
        fill = b.clone(*fill.getDefiningOp())->getResult(0);
      Value window = raw->getOperand(number);
      raw->setOperand(number, tensor::PadOp::create(b, loc, Type(), window, low,
                                                    high, fill));
    }
    if (generic)
      generic.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
    if (auto pad = llvm::dyn_cast<tensor::PadOp>(raw)) {
      // The window is this rank's part of the padded dim, padding included.
      SmallVector<int64_t> low(pad.getStaticLow()), high(pad.getStaticHigh());
      for (const ComputePlan::WindowFetch &w : plan.windows)
        low[w.dim] = high[w.dim] = 0;
      pad.setStaticLow(low);
      pad.setStaticHigh(high);
    }
  }
  if (plan.sizesFrom) {
    SmallVector<OpFoldResult> local =
        localSizes(b, loc, plan.mesh, *plan.sizesFrom);
    Operation *replacement = nullptr;
    if (auto op = llvm::dyn_cast<tensor::ExtractSliceOp>(raw)) {
      // Kept dims take the result's local size: the sharded ones are whole
      // dims, the others are replicated (their size unchanged).
      SmallVector<OpFoldResult> sizes = op.getMixedSizes();
      SmallVector<OpFoldResult> offsets = op.getMixedOffsets();
      llvm::SmallBitVector dropped = op.getDroppedDims();
      int64_t r = 0;
      for (int64_t d = 0; d < op.getSourceType().getRank(); ++d)
        if (!dropped.test(d))
          sizes[d] = local[r++];
      // A dim sliced at an offset of a sharded loop reads its window (the
      // source was replaced by it above) from the local offset.
      for (const ComputePlan::WindowFetch &w : plan.windows)
        offsets[w.dim] = b.getIndexAttr(w.localOffset);
      replacement = tensor::ExtractSliceOp::create(
          b, loc, localOf(op.getType()), op.getSource(), offsets, sizes,
          op.getMixedStrides());
    } else if (auto op = llvm::dyn_cast<tensor::InsertSliceOp>(raw)) {
      SmallVector<OpFoldResult> sizes = op.getMixedSizes();
      // The destination may already be a lowered API op's local value;
      // the result still has the global type.
      auto dest = llvm::cast<RankedTensorType>(op.getResult().getType());
      for (int64_t d = 0; d < dest.getRank(); ++d)
        if (getConstantIntValue(sizes[d]) == dest.getDimSize(d) &&
            isConstantIntValue(op.getMixedOffsets()[d], 0))
          sizes[d] = local[d];
      replacement = tensor::InsertSliceOp::create(
          b, loc, op.getSource(), op.getDest(), op.getMixedOffsets(), sizes,
          op.getMixedStrides());
      replacement->getResult(0).setType(localOf(op.getType()));
    } else if (auto op = llvm::dyn_cast<tensor::ExpandShapeOp>(raw)) {
      replacement = tensor::ExpandShapeOp::create(
          b, loc, localOf(op.getType()), op.getSrc(),
          op.getReassociationIndices(), local);
    } else if (auto op = llvm::dyn_cast<tensor::ReshapeOp>(raw)) {
      SmallVector<Value> dims;
      for (OpFoldResult s : local)
        dims.push_back(getValueOrCreateConstantIndexOp(b, loc, s));
      auto shapeType = RankedTensorType::get({int64_t(dims.size())},
                                             b.getIndexType());
      Value shape = tensor::FromElementsOp::create(b, loc, shapeType, dims);
      replacement = tensor::ReshapeOp::create(b, loc, localOf(op.getType()),
                                              op.getSource(), shape);
    }
    raw->replaceAllUsesWith(replacement);
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
  if (!plan.alignedReads.empty()) {
    // Aligned table reads take the loop's local index: the shift's input.
    SmallVector<tensor::ExtractOp> reads;
    for (Operation &inner :
         llvm::cast<linalg::LinalgOp>(raw).getBlock()->getOperations())
      if (auto read = llvm::dyn_cast<tensor::ExtractOp>(&inner))
        reads.push_back(read);
    for (const auto &[ordinal, dims] : plan.alignedReads)
      for (int64_t d : dims) {
        OpOperand &idx = reads[ordinal].getIndicesMutable()[d];
        if (auto add = idx.get().getDefiningOp<arith::AddIOp>())
          if (add.getLhs().getDefiningOp<linalg::IndexOp>())
            idx.set(add.getLhs());
      }
  }
  if (plan.maskedRead) {
    // Each rank reads the rows it holds and yields zero where it does not:
    // the group's sum is the lookup (one rank contributes each element).
    const ComputePlan::MaskedRead &mr = *plan.maskedRead;
    auto generic = llvm::cast<linalg::GenericOp>(raw);
    tensor::ExtractOp read;
    int64_t ordinal = -1;
    for (Operation &inner : generic.getBlock()->getOperations())
      if (auto r = llvm::dyn_cast<tensor::ExtractOp>(&inner))
        if (++ordinal == mr.ordinal)
          read = r;
    b.setInsertionPoint(raw);
    SmallVector<std::pair<Value, Value>> extents;
    for (int64_t d : mr.dims)
      extents.push_back(
          emitShardExtent(b, loc, plan.mesh, mr.table, mr.table.layout, d));
    Value zeroIndex = arith::ConstantIndexOp::create(b, loc, 0);
    b.setInsertionPoint(read);
    Value in;
    for (auto [d, extent] : llvm::zip(mr.dims, extents)) {
      OpOperand &idx = read.getIndicesMutable()[d];
      Value mine = arith::SubIOp::create(b, loc, idx.get(), extent.first);
      Value ge = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, mine,
                                       zeroIndex);
      Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, mine,
                                       extent.second);
      Value here = arith::AndIOp::create(b, loc, ge, lt);
      in = in ? arith::AndIOp::create(b, loc, in, here).getResult() : here;
      idx.set(arith::SelectOp::create(b, loc, here, mine, zeroIndex));
    }
    Operation *yield = generic.getBlock()->getTerminator();
    b.setInsertionPoint(yield);
    Type elem = yield->getOperand(0).getType();
    Value zero = arith::ConstantOp::create(b, loc, elem, b.getZeroAttr(elem));
    yield->setOperand(
        0, arith::SelectOp::create(b, loc, in, yield->getOperand(0), zero));
  }
  if (plan.fillShare) {
    b.setInsertionPoint(raw);
    Value scalar = raw->getOperand(0);
    Value count = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(scalar.getType(), double(plan.fillShare)));
    raw->setOperand(0, arith::DivFOp::create(b, loc, scalar, count));
  }
  for (OpResult res : raw->getResults())
    res.setType(c.localOf(res.getType()));
}

/// Retypes a function's signature and entry block arguments to local types,
/// in place.
void retypeFunction(func::FuncOp fn, Context &c) {
  auto convert = [&](TypeRange types) {
    SmallVector<Type> out;
    for (Type t : types)
      out.push_back(c.localOf(t));
    return out;
  };
  FunctionType type = fn.getFunctionType();
  // The contract of the compiled function: each distributed argument and
  // result keeps the global type and spec it is a shard of, so runtimes,
  // emitters and embedding frameworks know which shard each rank passes and
  // gets back (docs/CodeGen.md).
  auto globalName = StringAttr::get(fn.getContext(), kGlobalTypeAttrName);
  // All at once: one attribute per call would rebuild the whole list each
  // time (quadratic in the argument count; attributes are never freed).
  auto withGlobal = [&](TypeRange types, auto getDict) {
    SmallVector<DictionaryAttr> dicts;
    bool any = false;
    for (auto [i, t] : llvm::enumerate(types)) {
      NamedAttrList attrs(getDict(i));
      if (getSpec(t)) {
        attrs.set(globalName, TypeAttr::get(t));
        any = true;
      }
      dicts.push_back(attrs.getDictionary(fn.getContext()));
    }
    return any ? dicts : SmallVector<DictionaryAttr>();
  };
  SmallVector<DictionaryAttr> argDicts = withGlobal(
      type.getInputs(), [&](unsigned i) { return fn.getArgAttrDict(i); });
  if (!argDicts.empty())
    fn.setAllArgAttrs(argDicts);
  SmallVector<DictionaryAttr> resultDicts = withGlobal(
      type.getResults(), [&](unsigned i) { return fn.getResultAttrDict(i); });
  if (!resultDicts.empty())
    fn.setAllResultAttrs(resultDicts);
  fn.setType(FunctionType::get(fn.getContext(), convert(type.getInputs()),
                               convert(type.getResults())));
  if (!fn.isExternal())
    for (BlockArgument arg : fn.getArguments())
      arg.setType(c.localOf(arg.getType()));
}

/// Retypes the results and block arguments of a call, loop or branch (which
/// carry distributed values through) to local types, in place.
void retypeCarrier(Operation *op, Context &c) {
  for (OpResult res : op->getResults())
    res.setType(c.localOf(res.getType()));
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        arg.setType(c.localOf(arg.getType()));
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

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerShardingRuleModels(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyDistributedTypes(getOperation())) ||
        failed(verifyUniformCompute(module)))
      return signalPassFailure();
    Context c;
    c.module = module;

    // 1. One walk, while every type is still global: diagnose what this
    // pass cannot partition and collect the compute ops (planned next), the
    // ops that change (API ops) and those that carry values (calls, loops,
    // branches). Nothing changes before the whole module is checked.
    struct PlannedKind {
      Operation *representative;
      ComputePlan plan;
    };
    std::unordered_map<std::string, PlannedKind> planned;
    std::vector<ComputePlan> plans;
    SmallVector<Operation *> computeOps, retypeOnly, apiOps, carriers;
    llvm::SetVector<Operation *> fusedPads;
    bool failedAny = false;
    module.walk([&](Operation *op) {
      if (isa<FromLocalOp, ToLocalOp, DistributeTensorOp, RedistributeOp,
              FullTensorOp, LocalMapOp>(op)) {
        // (A distribute_tensor's result too: its shard's offsets are
        // computed from the global sizes.)
        if (isa<DistributeTensorOp, RedistributeOp, FullTensorOp>(op))
          for (Type t : llvm::concat<Type>(op->getOperandTypes(),
                                           op->getResultTypes()))
            if (auto tensor = llvm::dyn_cast<RankedTensorType>(t);
                tensor && getSpec(t) && !tensor.hasStaticShape()) {
              op->emitOpError() << "needs a static global shape to be "
                                   "partitioned, got "
                                << t;
              failedAny = true;
              break;
            }
        apiOps.push_back(op);
        return;
      }
      if (isa<func::CallOp, scf::ForOp, scf::IfOp, scf::WhileOp>(op)) {
        carriers.push_back(op);
        return;
      }
      if (isa<YieldOp, func::ReturnOp, func::FuncOp, scf::YieldOp,
              scf::ConditionOp, ModuleOp>(op) ||
          !touchesDistributed(op))
        return;
      // A table read in a linalg body is checked and planned with the op
      // (when the op is planned: it has distributed operands or results).
      if (isa<tensor::ExtractOp>(op) &&
          isa_and_nonnull<linalg::LinalgOp>(op->getParentOp()) &&
          touchesDistributed(op->getParentOp()))
        return;
      if (!isa<ShardingRuleOpInterface, tensor::EmptyOp>(op)) {
        op->emitOpError()
            << "operates on distributed tensors, which dtensor-partition "
               "supports in the DTensor API ops, ops with a sharding rule "
               "(linalg, element-wise arith/math, tensor slices, pad, "
               "concat and reshapes), tensor.empty, scf and function "
               "boundaries only";
        if (isa<HintOp>(op))
          op->emitRemark() << "run dtensor-insert-redistribute first: it "
                              "turns hints into redistributes";
        failedAny = true;
        return;
      }
      computeOps.push_back(op);
    });
    if (failedAny)
      return signalPassFailure();

    // Plan the compute ops; repeated layers repeat their ops, so each kind
    // is planned once.
    std::string key;
    for (Operation *op : computeOps) {
      key.clear();
      appendStructuralKey(key, op);
      auto it = planned.find(key);
      if (it != planned.end() && !readsDistributedTable(op) &&
          !it->second.plan.fusesPad() &&
          sameProperties(it->second.representative, op)) {
        const PlannedKind &kind = it->second;
        if (!kind.plan.changesForm()) {
          retypeOnly.push_back(op);
          continue;
        }
        // A repeated op in another function needs that function's handle
        // (planned afresh, and diagnosed, when it has none).
        Value mesh;
        if (kind.plan.mesh)
          mesh = findMeshHandle(
              op, llvm::cast<DeviceMeshType>(kind.plan.mesh.getType()).getView());
        if (!kind.plan.mesh || mesh) {
          ComputePlan plan = kind.plan;
          plan.op = op;
          plan.mesh = mesh;
          plans.push_back(std::move(plan));
          continue;
        }
      }
      FailureOr<ComputePlan> plan = planCompute(op, c);
      if (failed(plan)) {
        failedAny = true;
        continue;
      }
      if (it == planned.end())
        planned.try_emplace(key, PlannedKind{op, *plan});
      for (const ComputePlan::WindowFetch &w : plan->windows)
        if (w.fromPadSource)
          fusedPads.insert(op->getOperand(w.operandNumber).getDefiningOp());
      if (!plan->changesForm())
        retypeOnly.push_back(op);
      else
        plans.push_back(*plan);
    }
    if (failedAny)
      return signalPassFailure();

    // 2. The API ops, producers before consumers. Operands count as their
    // local types already; they are retyped in step 3.
    // Blocks listed out of dominance order can put a consumer first: an API
    // op's API-op operands are lowered before it.
    llvm::DenseSet<Operation *> pending(apiOps.begin(), apiOps.end());
    std::function<void(Operation *)> lower = [&](Operation *op) {
      if (!pending.erase(op))
        return;
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp(); def && pending.contains(def))
          lower(def);
      if (failed(lowerApiOp(op, c)))
        failedAny = true;
    };
    for (Operation *op : apiOps)
      lower(op);
    if (failedAny)
      return signalPassFailure();
    for (Operation *op : apiOps)
      for (OpResult result : op->getResults())
        result.replaceAllUsesWith(c.local(result));
    for (Operation *op : apiOps)
      op->erase();

    // 3. Every other op keeps its form: local types, in place. Pads fetched
    // through by their reader are left out, then erased.
    for (const ComputePlan &plan : plans)
      if (!fusedPads.contains(plan.op))
        applyCompute(plan, c);
    for (Operation *op : retypeOnly)
      if (!fusedPads.contains(op))
        for (OpResult res : op->getResults())
          res.setType(c.localOf(res.getType()));
    for (Operation *pad : fusedPads)
      pad->erase();
    for (auto fn : module.getOps<func::FuncOp>())
      retypeFunction(fn, c);
    for (Operation *op : carriers)
      retypeCarrier(op, c);
  }
};

} // namespace
