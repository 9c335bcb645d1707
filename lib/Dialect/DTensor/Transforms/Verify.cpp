//===- Verify.cpp - check every distributed type against its mesh ---------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "dtensor/Dialect/DTensor/Transforms/Propagation.h"

#include "dtensor/Dialect/DTensor/IR/DTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORVERIFYPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

LogicalResult mlir::dtensor::verifyDistributedTypes(Operation *root) {
  SymbolTableCollection symbols;
  bool failedAny = false;
  // What is found valid once is valid everywhere (meshes are module-level
  // symbols): mesh handle types by type, and specs by (spec, rank), which
  // is all a spec's validity depends on, so tensors of many shapes (every
  // layer its own width) share one check.
  llvm::DenseSet<Type> valid;
  llvm::DenseSet<std::pair<Attribute, int64_t>> validSpecs;
  root->walk([&](Operation *op) {
    // Each distinct type once per op: one diagnostic per mistake.
    llvm::SmallDenseSet<Type, 8> seen;
    auto check = [&](Type type) {
      if (valid.contains(type) || !seen.insert(type).second)
        return;
      auto emitError = [&]() {
        return op->emitError() << "in type " << type << ": ";
      };
      if (SpecAttr spec = getSpec(type)) {
        auto tensor = llvm::cast<RankedTensorType>(type);
        // An integer mean truncates at each reduction: over two mesh dims
        // its value would depend on whether they are reduced together or
        // one after the other (trunc(trunc(a / 3) / 2) is not trunc(a /
        // 6)), which a plan chooses. (Found by probing: a compiled
        // [P(avg), P(avg)] -> [P(avg), S(0)] differed from the global value.)
        if (llvm::isa<IntegerType, IndexType>(tensor.getElementType()) &&
            llvm::count_if(spec.getPlacements(), [](const Placement &p) {
              return p.isPartial() && p.reduce == ReduceKind::Avg;
            }) > 1) {
          emitError() << "an integer Partial(avg) over more than one mesh dim "
                         "has no value of its own: each reduction truncates, "
                         "so the result would depend on the order its mesh "
                         "dims are reduced in; use Partial(sum) and divide, "
                         "or average over one mesh dim";
          failedAny = true;
          return;
        }
        std::pair<Attribute, int64_t> key{spec, tensor.getRank()};
        if (validSpecs.contains(key))
          return;
        if (failed(verifySpecForMesh(op, spec, tensor.getRank(), symbols,
                                     emitError)))
          failedAny = true;
        else
          validSpecs.insert(key);
      } else if (auto mesh = llvm::dyn_cast<DeviceMeshType>(type)) {
        if (failed(resolveMeshView(op, mesh.getView(), symbols, emitError)))
          failedAny = true;
        else
          valid.insert(type);
      }
    };
    for (Type t : op->getResultTypes())
      check(t);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          check(arg.getType());
    if (auto fn = llvm::dyn_cast<FunctionOpInterface>(op)) {
      for (Type t : fn.getArgumentTypes())
        check(t);
      for (Type t : fn.getResultTypes())
        check(t);
    }
  });
  return failure(failedAny);
}

/// Checks one of propagation's spec lists on `op`: an array with one entry
/// per value of `values`, each a unit (no requirement) or a spec valid for
/// that value's tensor type and mesh.
static LogicalResult
verifySpecList(Operation *op, StringRef name, TypeRange values, StringRef what,
               SymbolTableCollection &symbols,
               llvm::DenseSet<std::pair<Attribute, int64_t>> &validSpecs) {
  Attribute raw = op->getDiscardableAttr(name);
  if (!raw)
    return success();
  auto list = llvm::dyn_cast<ArrayAttr>(raw);
  if (!list)
    return op->emitError() << "'" << name << "' must be an array of specs";
  if (list.size() != values.size())
    return op->emitError() << "'" << name << "' has " << list.size()
                           << " entries for " << values.size() << " " << what
                           << "s";
  for (auto [i, attr] : llvm::enumerate(list)) {
    if (llvm::isa<UnitAttr>(attr))
      continue;
    auto spec = llvm::dyn_cast<SpecAttr>(attr);
    if (!spec)
      return op->emitError() << "'" << name << "' entry " << i
                             << " must be a #dtensor.spec or unit, not "
                             << attr;
    auto tensor = llvm::dyn_cast<RankedTensorType>(values[i]);
    if (!tensor)
      return op->emitError() << "'" << name << "' gives a spec to " << what
                             << " " << i << ", which is not a ranked tensor";
    std::pair<Attribute, int64_t> key{spec, tensor.getRank()};
    if (validSpecs.contains(key))
      continue; // (valid for every op: it depends on the spec and rank)
    if (failed(verifySpecForMesh(op, spec, tensor.getRank(), symbols, [&]() {
          return op->emitError() << "in '" << name << "' entry " << i << ": ";
        })))
      return failure();
    validSpecs.insert(key);
  }
  return success();
}

LogicalResult mlir::dtensor::verifyPropagationAttrs(Operation *root) {
  SymbolTableCollection symbols;
  bool failedAny = false;
  llvm::DenseSet<std::pair<Attribute, int64_t>> validSpecs;
  root->walk([&](Operation *op) {
    if (op->getRawDictionaryAttrs().empty())
      return;
    auto fn = llvm::dyn_cast<FunctionOpInterface>(op);
    TypeRange argTypes;
    if (fn)
      argTypes = fn.getArgumentTypes();
    else if (auto loop = llvm::dyn_cast<scf::WhileOp>(op))
      argTypes = loop.getBeforeBody()->getArgumentTypes();
    else if (op->getDiscardableAttr(kArgSpecsAttr)) {
      op->emitError() << "'" << kArgSpecsAttr
                      << "' belongs on a function or an scf.while";
      failedAny = true;
      return;
    }
    TypeRange resultTypes =
        fn ? TypeRange(fn.getResultTypes()) : TypeRange(op->getResultTypes());
    if (failed(verifySpecList(op, kOperandSpecsAttr, op->getOperandTypes(),
                              "operand", symbols, validSpecs)) ||
        failed(verifySpecList(op, kResultSpecsAttr, resultTypes, "result",
                              symbols, validSpecs)) ||
        failed(verifySpecList(op, kArgSpecsAttr, argTypes, "argument",
                              symbols, validSpecs)))
      failedAny = true;
  });
  return failure(failedAny);
}

//===----------------------------------------------------------------------===//
// Values that differ from rank to rank, in the global view
//===----------------------------------------------------------------------===//

bool mlir::dtensor::reachesWholeMesh(Operation *op) {
  Value handle;
  ArrayRef<int64_t> dims;
  if (auto g = dyn_cast<AllGatherOp>(op))
    handle = g.getMesh(), dims = g.getMeshDims();
  else if (auto r = dyn_cast<AllReduceOp>(op))
    handle = r.getMesh(), dims = r.getMeshDims();
  else if (auto b = dyn_cast<BroadcastOp>(op))
    handle = b.getMesh(), dims = b.getMeshDims();
  else
    return false;
  auto type = dyn_cast<DeviceMeshType>(handle.getType());
  auto mesh = type ? SymbolTable::lookupNearestSymbolFrom<MeshOp>(
                         op, type.getMesh())
                   : MeshOp();
  return mesh && llvm::all_of(llvm::enumerate(mesh.getShape()), [&](auto it) {
           return it.value() == 1 ||
                  llvm::is_contained(dims, int64_t(it.index()));
         });
}

namespace {

/// The ops whose results differ from rank to rank by construction: a rank's
/// own shard or coordinate, and collectives that leave each rank its own
/// piece. Every varying value comes from one of them.
bool originatesVarying(Operation *op) {
  return isa<ToLocalOp, MeshCoordOp, ShardSizeOp, ShardOffsetOp,
             ReduceScatterOp, AllToAllOp, PermuteOp>(op);
}

/// The forward analysis of verifyUniformCompute: which values differ from
/// rank to rank (with the op their difference comes from) and which are,
/// or are computed from, distributed tensors (those partitioning splits).
struct Uniformity {
  ModuleOp module;
  DenseMap<Value, Operation *> varying;
  llvm::DenseSet<Value> distributed;
  /// The first op found computing on both, with the origin of the varying
  /// value it reads.
  DenseMap<Operation *, Operation *> mixed;
  SmallVector<Operation *> mixedOrder;
  bool changed = false;

  void setVarying(Value v, Operation *origin) {
    if (origin && varying.try_emplace(v, origin).second)
      changed = true;
  }
  void setDistributed(Value v) {
    if (distributed.insert(v).second)
      changed = true;
  }
  Operation *originOf(Value v) const { return varying.lookup(v); }
  static bool isDistributedType(Type t) { return bool(getSpec(t)); }

  /// Marks `to` from `from` positionally (loop-carried values, yields).
  void flow(ValueRange from, ValueRange to, Operation *control) {
    for (auto [a, b] : llvm::zip(from, to)) {
      setVarying(b, control ? control : originOf(a));
      if (distributed.contains(a))
        setDistributed(b);
    }
  }

  void visitRegion(Region &region, Operation *control) {
    for (Block &block : region)
      for (Operation &op : block)
        visit(&op, control);
  }

  /// `control`: the origin of a varying condition the op runs under (ranks
  /// may run it differently), or null.
  void visit(Operation *op, Operation *control) {
    // Sanctioned per-rank ops: from_local makes a distributed tensor of
    // each rank's local tensor, local_map runs its region per rank on
    // locals, to_local gives each rank its own shard.
    if (isa<FromLocalOp, LocalMapOp>(op)) {
      for (Value r : op->getResults())
        setDistributed(r);
      return;
    }
    if (originatesVarying(op)) {
      for (Value r : op->getResults())
        setVarying(r, op);
      return;
    }
    if (reachesWholeMesh(op))
      return; // the same on every rank, whatever its operand
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      if (callee && !callee.isExternal()) {
        flow(call.getOperands(), callee.getArguments(), control);
        callee.walk([&](func::ReturnOp ret) {
          flow(ret.getOperands(), call.getResults(), control);
        });
        return;
      }
    }

    // What the op reads: its operands and, for ops other than scf's
    // (whose bodies are checked op by op), values its regions use from
    // above (a linalg body's scalars).
    bool scfOp = isa<scf::ForOp, scf::IfOp, scf::WhileOp>(op);
    llvm::SetVector<Value> reads(op->operand_begin(), op->operand_end());
    if (!scfOp && op->getNumRegions())
      getUsedValuesDefinedAbove(op->getRegions(), reads);
    Operation *origin = control;
    bool readsDistributed = false;
    for (Value v : reads) {
      if (!origin)
        origin = originOf(v);
      readsDistributed |= distributed.contains(v);
    }
    bool makesDistributed = llvm::any_of(op->getResultTypes(), isDistributedType);
    bool terminator = op->hasTrait<OpTrait::IsTerminator>();
    // A distributed tensor computed with a value that differs per rank:
    // partitioning would give each rank its own value on its own shard.
    // (distribute_tensor of a per-rank tensor splits each rank's own copy,
    // as DTensor does; scf ops are checked through their bodies unless
    // their own condition or bounds differ.)
    if (origin && (readsDistributed || makesDistributed) && !terminator &&
        !isa<DistributeTensorOp, HintOp, RedistributeOp, FullTensorOp>(op) &&
        !mixed.count(op)) {
      mixed[op] = origin;
      mixedOrder.push_back(op);
    }
    bool plainResult = isa<FullTensorOp>(op); // the global value, everywhere
    for (Value r : op->getResults()) {
      setVarying(r, origin);
      if ((readsDistributed || isDistributedType(r.getType())) && !plainResult)
        setDistributed(r);
    }

    // Regions: block arguments, then the body, then what flows back out.
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      Operation *bounds = control;
      for (Value v : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
        if (!bounds)
          bounds = originOf(v);
      setVarying(loop.getInductionVar(), bounds);
      flow(loop.getInitArgs(), loop.getRegionIterArgs(), bounds);
      visitRegion(loop.getRegion(), bounds);
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      flow(yield.getOperands(), loop.getRegionIterArgs(), bounds);
      flow(yield.getOperands(), loop.getResults(), bounds);
      return;
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      Operation *cond = control ? control : originOf(branch.getCondition());
      for (Region *r : {&branch.getThenRegion(), &branch.getElseRegion()}) {
        if (r->empty())
          continue;
        visitRegion(*r, cond);
        flow(r->front().getTerminator()->getOperands(), branch.getResults(),
             cond);
      }
      return;
    }
    if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      flow(loop.getInits(), loop.getBeforeArguments(), control);
      visitRegion(loop.getBefore(), control);
      scf::ConditionOp cond = loop.getConditionOp();
      Operation *exit = control ? control : originOf(cond.getCondition());
      flow(cond.getArgs(), loop.getAfterArguments(), exit);
      flow(cond.getArgs(), loop.getResults(), exit);
      visitRegion(loop.getAfter(), exit);
      auto yield = loop.getYieldOp();
      flow(yield.getOperands(), loop.getBeforeArguments(), exit);
      return;
    }
    for (Region &region : op->getRegions()) {
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments()) {
          setVarying(arg, origin);
          if (readsDistributed)
            setDistributed(arg);
        }
      visitRegion(region, control);
    }
  }
};

} // namespace

LogicalResult mlir::dtensor::verifyUniformCompute(ModuleOp module) {
  // A module without an op that originates a varying value has nothing to
  // report, and most global programs have none: they skip the fixed point
  // (a third of propagation's time on a 4,000-op function).
  if (!module
           .walk([](Operation *op) {
             return originatesVarying(op) ? WalkResult::interrupt()
                                          : WalkResult::advance();
           })
           .wasInterrupted())
    return success();
  Uniformity u;
  u.module = module;
  SmallVector<func::FuncOp> functions;
  module.walk([&](func::FuncOp fn) {
    if (!fn.isExternal())
      functions.push_back(fn);
  });
  for (func::FuncOp fn : functions)
    for (BlockArgument arg : fn.getArguments())
      if (getSpec(arg.getType()))
        u.distributed.insert(arg);
  // Loops and calls carry values back: to a fixed point (the sets only
  // grow, so this ends).
  do {
    u.changed = false;
    for (func::FuncOp fn : functions)
      u.visitRegion(fn.getBody(), nullptr);
  } while (u.changed);
  bool any = false;
  for (Operation *op : u.mixedOrder) {
    Operation *origin = u.mixed[op];
    // One diagnostic per op: not again for the ops of its body.
    bool inside = false;
    for (Operation *p = op->getParentOp(); p && !inside; p = p->getParentOp())
      inside = u.mixed.count(p);
    if (inside)
      continue;
    any = true;
    InFlightDiagnostic diag =
        op->emitError()
        << "computes on a distributed tensor with a value that differs from "
           "rank to rank (from '"
        << origin->getName()
        << "'): each rank would apply its own value to its own shard, which "
           "is no global program's value; compute per rank inside "
           "dtensor.local_map (or on to_local values, then from_local), or "
           "use a value that is the same on every rank";
    diag.attachNote(origin->getLoc()) << "the value that differs per rank comes "
                                         "from here";
  }
  return failure(any);
}

namespace {
struct DTensorVerifyPass
    : public dtensor::impl::DTensorVerifyPassBase<DTensorVerifyPass> {
  void runOnOperation() override {
    if (failed(verifyDistributedTypes(getOperation())))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
