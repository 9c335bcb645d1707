//===- Propagate.cpp - choose specs for computed values -------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Sharding propagation as an analysis: in program order (into scf regions
// and, at their first call, into private callees), each op with a sharding
// rule (ShardingRuleOpInterface) and a distributed operand gets a choice:
// per mesh dim, one factor of its iteration space to shard, or none. The
// placements a choice implies come from the rule; the cheapest choice wins
// (DTensor's order: no redistribution first, then the planner's cost, then
// the most sharded result), with user hints first by priority. Nothing is
// rewritten here: the choices are recorded as attributes
// (`dtensor.operand_specs`, `dtensor.result_specs`, `dtensor.arg_specs`)
// that dtensor-insert-redistribute makes real.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Assignment.h"
#include "dtensor/Core/Redistribute.h"
#include "dtensor/Core/Window.h"
#include "dtensor/Dialect/DTensor/Transforms/LocalView.h"
#include "dtensor/Dialect/DTensor/Transforms/Lookups.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "dtensor/Dialect/DTensor/Transforms/Propagation.h"
#include "dtensor/Interfaces/ShardingRuleOpInterface.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORPROPAGATEPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

bool mlir::dtensor::readsGlobalOperands(Operation *op) {
  return !llvm::isa<DTensorDialect>(op->getDialect()) &&
         !llvm::isa<ShardingRuleOpInterface, scf::IfOp, scf::ForOp,
                    scf::WhileOp, scf::YieldOp, scf::ConditionOp, func::CallOp,
                    func::ReturnOp>(op);
}

bool mlir::dtensor::isFreshTensor(Value v) {
  if (v.getDefiningOp<tensor::EmptyOp>())
    return true;
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    return fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>() != nullptr;
  return false;
}

/// Whether partitioning can make the init `v` (a plain value or a fresh
/// tensor, not one a redistribution moves) a Partial of `kind`: R -> P keeps
/// the value for avg, max and min and divides it by the group size for a
/// float sum; a fill fills each rank's share. An integer sum's share of a
/// value is exact only for 0, a product's (an n-th root) for 0 and 1.
static bool initTakesPartial(Value v, ReduceKind kind) {
  if (kind != ReduceKind::Sum && kind != ReduceKind::Product)
    return true;
  if (v.getDefiningOp<tensor::EmptyOp>())
    return true; // undefined values in any spec
  auto type = llvm::cast<RankedTensorType>(v.getType());
  bool isFloat = llvm::isa<FloatType>(type.getElementType());
  if (kind == ReduceKind::Sum && isFloat)
    return true;
  auto fill = v.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return false;
  Value c = fill.getInputs()[0];
  if (matchPattern(c, m_Zero()) || matchPattern(c, m_AnyZeroFloat()))
    return true;
  return kind == ReduceKind::Product &&
         (matchPattern(c, m_One()) || matchPattern(c, m_OneFloat()));
}

std::optional<ShardingRule>
mlir::dtensor::recomputableRule(Operation *op,
                                llvm::function_ref<bool(Value)> distributed) {
  if (op->getNumResults() != 1 || !isMemoryEffectFree(op))
    return std::nullopt;
  auto iface = llvm::dyn_cast<ShardingRuleOpInterface>(op);
  if (!iface)
    return std::nullopt;
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  if (llvm::any_of(above, distributed))
    return std::nullopt;
  std::string reason;
  FailureOr<ShardingRule> rule = iface.getShardingRule(reason);
  if (failed(rule))
    return std::nullopt;
  auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op);
  for (size_t o = 0; o < rule->numOperands(); ++o)
    if (rule->isInit(o) &&
        (!linalgOp || linalgOp.payloadUsesValueFromOperand(
                          &op->getOpOperand(rule->operands[o]))))
      return std::nullopt;
  return std::move(*rule);
}

void mlir::dtensor::appendStructuralKey(std::string &key, Operation *op) {
  auto put = [&](int64_t v) { key.append(reinterpret_cast<char *>(&v), 8); };
  auto ptr = [&](const void *p) { put(reinterpret_cast<intptr_t>(p)); };
  auto opKey = [&](Operation *o) {
    ptr(o->getName().getAsOpaquePointer());
    // The attribute dictionary, less the specs propagation records on the
    // op: a key must not depend on an earlier analysis's choice.
    DictionaryAttr dict = o->getRawDictionaryAttrs();
    if (!dict.contains(kOperandSpecsAttr) && !dict.contains(kResultSpecsAttr)) {
      ptr(dict.getAsOpaquePointer());
    } else {
      put(-9);
      for (NamedAttribute a : dict)
        if (a.getName() != kOperandSpecsAttr && a.getName() != kResultSpecsAttr) {
          ptr(a.getName().getAsOpaquePointer());
          ptr(a.getValue().getAsOpaquePointer());
        }
    }
    // Properties enter by hash (building them as an attribute costs more
    // than the rest of the key); sameProperties confirms a match.
    put(int64_t(size_t(o->getName().hashOpProperties(o->getPropertiesStorage()))));
    for (Type t : o->getResultTypes())
      ptr(t.getAsOpaquePointer());
  };
  opKey(op);
  for (Value v : op->getOperands())
    ptr(v.getType().getAsOpaquePointer());
  // The body, structurally: each op and its operands (body arguments,
  // earlier body results, or outer values).
  for (Region &region : op->getRegions())
    for (Block &block : region) {
      llvm::DenseMap<Operation *, int64_t> index;
      put(-7);
      for (BlockArgument arg : block.getArguments())
        ptr(arg.getType().getAsOpaquePointer());
      for (Operation &inner : block) {
        index[&inner] = index.size();
        opKey(&inner);
        for (Value v : inner.getOperands()) {
          if (auto arg = llvm::dyn_cast<BlockArgument>(v);
              arg && arg.getOwner() == &block)
            put(-1000 - int64_t(arg.getArgNumber()));
          else if (Operation *def = v.getDefiningOp(); def && index.count(def))
            put(index[def] * 64 + llvm::cast<OpResult>(v).getResultNumber());
          else
            ptr(v.getAsOpaquePointer());
        }
      }
    }
}

bool mlir::dtensor::sameProperties(Operation *a, Operation *b) {
  if (a->getName() != b->getName() ||
      !a->getName().compareOpProperties(a->getPropertiesStorage(),
                                        b->getPropertiesStorage()) ||
      a->getNumRegions() != b->getNumRegions())
    return false;
  for (auto [ra, rb] : llvm::zip(a->getRegions(), b->getRegions())) {
    if (!llvm::hasSingleElement(ra) || !llvm::hasSingleElement(rb)) {
      if (ra.empty() && rb.empty())
        continue;
      return false; // Multi-block bodies: no reuse.
    }
    Block &ba = ra.front(), &bb = rb.front();
    auto ia = ba.begin(), ib = bb.begin();
    for (; ia != ba.end() && ib != bb.end(); ++ia, ++ib)
      if (!sameProperties(&*ia, &*ib))
        return false;
    if (ia != ba.end() || ib != bb.end())
      return false;
  }
  return true;
}

namespace {

/// Whether a distribute_tensor takes `v` (then a move to its spec is a
/// redistribute only this op's choice pays for).
bool hasDistributeUser(Value v) {
  return llvm::any_of(v.getUsers(), [](Operation *user) {
    return llvm::isa<DistributeTensorOp>(user);
  });
}

/// A hash of a list of words (the whole-function model's keys).
struct WordsHash {
  size_t operator()(const std::vector<int64_t> &words) const {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ words.size();
    for (int64_t w : words) {
      h ^= uint64_t(w) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 0xff51afd7ed558ccdull;
    }
    return size_t(h ^ (h >> 33));
  }
};

/// A candidate: the placements of every placed operand, then every result.
/// A priced move's key: shapes, element width, mesh and placements as words
/// (inline, so a lookup allocates nothing).
using MoveKey = llvm::SmallVector<int64_t, 24>;
struct MoveKeyHash {
  // Keys are a dozen words, asked for tens of thousands of times per
  // function (the whole-function model): a multiply-xorshift per word
  // (splitmix64's finalizer) instead of llvm::hash_combine_range, which
  // cost about half of a cached price.
  size_t operator()(const MoveKey &key) const {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ key.size();
    for (int64_t word : key) {
      h ^= uint64_t(word);
      h *= 0xbf58476d1ce4e5b9ULL;
      h ^= h >> 31;
    }
    h ^= h >> 29;
    h *= 0x94d049bb133111ebULL;
    return size_t(h ^ (h >> 32));
  }
};

/// A priced move's key in four words where it fits (the common case): the
/// tensor type (uniqued: its shape and element type), the mesh view's sizes
/// and the two placements, 16 bits per mesh dim each. Every field MoveKey
/// holds is in it, so both keys tell the same moves apart.
struct PackedMoveKey {
  const void *type;
  uint64_t view, from, to;
  bool operator==(const PackedMoveKey &o) const {
    return type == o.type && view == o.view && from == o.from && to == o.to;
  }
};
struct PackedMoveKeyInfo {
  static PackedMoveKey getEmptyKey() {
    return {llvm::DenseMapInfo<const void *>::getEmptyKey(), 0, 0, 0};
  }
  static PackedMoveKey getTombstoneKey() {
    return {llvm::DenseMapInfo<const void *>::getTombstoneKey(), 0, 0, 0};
  }
  static unsigned getHashValue(const PackedMoveKey &k) {
    uint64_t h = uint64_t(reinterpret_cast<uintptr_t>(k.type));
    for (uint64_t w : {k.view, k.from, k.to}) {
      h ^= w + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      h *= 0xbf58476d1ce4e5b9ULL;
      h ^= h >> 31;
    }
    return unsigned(h ^ (h >> 32));
  }
  static bool isEqual(const PackedMoveKey &a, const PackedMoveKey &b) {
    return a == b;
  }
};

/// Packs `ps` 16 bits per mesh dim (kind 2, reduce 3, dim 5, order + 1 5,
/// a set bit so that a Replicate is not 0); false when it does not fit.
static bool packPlacements(const Placements &ps, uint64_t &out) {
  if (ps.size() > 4)
    return false;
  out = 0;
  for (const Placement &p : ps) {
    if (p.dim < 0 || p.dim > 31 || p.order < -1 || p.order > 30 ||
        uint64_t(p.reduce) > 7)
      return false;
    uint64_t word = (uint64_t(1) << 15) | (uint64_t(p.kind) << 13) |
                    (uint64_t(p.reduce) << 10) | (uint64_t(p.dim) << 5) |
                    uint64_t(p.order + 1);
    out = (out << 16) | word;
  }
  return true;
}

/// The trip count of `loop` when its bounds and step are constants (at
/// least 1, as propagation counts a loop's cost).
std::optional<int64_t> constantTrips(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                         ub = getConstantIntValue(loop.getUpperBound()),
                         step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return std::max<int64_t>((*ub - *lb + *step - 1) / *step, 1);
}

/// Whether `v` is the same in every iteration of `loop` in a way LICM
/// sees (and so dtensor-optimize-collectives, which moves what it computes
/// and the collectives of it out of the loop): defined outside it, or the
/// result of a pure, speculatable op of the loop's own body whose operands
/// and captured values are such. Memoized in `cache`.
bool loopInvariant(Value v, scf::ForOp loop,
                   llvm::DenseMap<std::pair<Value, Operation *>, bool> &cache,
                   int depth = 0) {
  if (loop.isDefinedOutsideOfLoop(v))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != loop.getBody() || depth > 256)
    return false;
  auto key = std::make_pair(v, loop.getOperation());
  if (auto it = cache.find(key); it != cache.end())
    return it->second;
  cache[key] = false; // (no cycles in SSA; a guard all the same)
  bool invariant = isMemoryEffectFree(def) && isSpeculatable(def);
  for (Value operand : def->getOperands())
    if (invariant)
      invariant = loopInvariant(operand, loop, cache, depth + 1);
  if (invariant && def->getNumRegions()) {
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(def->getRegions(), captured);
    for (Value c : captured)
      if (invariant)
        invariant = loopInvariant(c, loop, cache, depth + 1);
  }
  return cache[key] = invariant;
}

/// How many times fewer a move of `v` for `user` runs than `user` does:
/// dtensor-optimize-collectives moves a collective whose operands are
/// loop-invariant (loopInvariant) out of an scf.for that runs a constant
/// number of times, at least once (as LICM: from the loop's own body, so
/// through each such loop `user` sits directly in). The product of their
/// trip counts.
double hoistTrips(Value v, Operation *user,
                  llvm::DenseMap<std::pair<Value, Operation *>, bool> &cache) {
  double trips = 1;
  for (Operation *p = user->getParentOp(); p; p = p->getParentOp()) {
    auto loop = llvm::dyn_cast<scf::ForOp>(p);
    if (!loop || !loopInvariant(v, loop, cache))
      break;
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                           ub = getConstantIntValue(loop.getUpperBound()),
                           step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *step <= 0 || *ub <= *lb)
      break;
    trips *= std::ceil((double(*ub) - double(*lb)) / double(*step));
  }
  return trips;
}

/// Every placement of a rank-`rank` tensor on a mesh of `meshRank` dims
/// with R or S(d) per mesh dim (and P(sum) with `partialSum`), default
/// shard orders.
std::vector<Placements> everyPlacement(int64_t meshRank, int64_t rank,
                                       bool partialSum) {
  std::vector<Placements> out;
  Placements ps(meshRank);
  std::function<void(int64_t)> fill = [&](int64_t m) {
    if (m == meshRank) {
      out.push_back(ps);
      return;
    }
    for (int64_t d = partialSum ? -2 : -1; d < rank; ++d) {
      ps[m] = d == -1   ? Placement::replicate()
              : d == -2 ? Placement::partial(ReduceKind::Sum)
                        : Placement::shard(d);
      fill(m + 1);
    }
  };
  fill(0);
  return out;
}

struct Candidate {
  /// Per placed operand and result, its placements; filled when the
  /// candidate is priced (enumeration ranks candidates by their factors'
  /// rows alone, and most are never priced).
  std::vector<Placements> placed;
  /// Per mesh dim: a factor, kNoFactor or kReplicateAll.
  SmallVector<int64_t, 4> factors;
  double cost = 0;
  /// The part of `cost` spent redistributing operands (the rest is the cost
  /// of reaching the results' targets).
  double moveCost = 0;
  /// The part of `cost` spent moving results to their annotated or hinted
  /// specs, or to a distribute_tensor of them (paid by nobody else).
  double targetCost = 0;
  /// Enumeration order: the first of equally ranked candidates wins.
  int64_t index = 0;
  bool priced = false;
  /// The strongest (lowest) priority among the operands that must move and
  /// the hints a result misses; kNoPriority when none.
  int64_t moved = kNoPriority;
  int64_t moves = 0;
  /// Mesh dims on which moved operands change placement: when operands
  /// must move anyway, the fewest changes (as DTensor) break cost ties
  /// before the most sharded result does.
  int64_t changedDims = 0;
  int64_t outputElements = 0;
};

SpecAttr specWith(SpecAttr like, const Placements &ps) {
  return SpecAttr::get(like.getContext(), like.getMesh(), like.getMeshDims(),
                       like.getFlattened(), ps);
}

/// A choice meaning: a pure lookup leaves the table it reads sharded on
/// this mesh dim along a dim it reads at a computed index, each rank reads
/// the rows it holds (zero elsewhere), and the results are P(sum) there
/// (Lookups.h).
constexpr int64_t kMaskedLookup = -3;

/// A distributed table read by `tensor.extract` in a linalg body: an operand
/// the rule does not place, priced by propagation as insert-redistribute
/// will move it (InsertRedistribute.cpp: alignedTableType).
struct TableRead {
  Value table;
  RankedTensorType type;
  Placements have;
  /// Per table dim: the loop every direct read indexes it by (`linalg.index
  /// k`), -1 when some read computes the index, -2 when no read does.
  std::vector<int64_t> dimLoop;
  /// Whether every read is directly in the body (else the table is needed
  /// whole).
  bool direct = true;
  /// Whether a masked lookup may leave it sharded (Lookups.h: maskableRead).
  bool maskable = false;
};

std::string formatChoice(ArrayRef<int64_t> factors) {
  std::string s = "[";
  for (size_t m = 0; m < factors.size(); ++m) {
    s += m ? ", " : "";
    s += factors[m] == kReplicateAll   ? std::string("R")
         : factors[m] == kMaskedLookup ? std::string("masked")
         : factors[m] == kNoFactor     ? std::string("-")
                                     : "d" + std::to_string(factors[m]);
  }
  return s + "]";
}

struct DTensorPropagatePass
    : public dtensor::impl::DTensorPropagatePassBase<DTensorPropagatePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerShardingRuleModels(registry);
  }

  // Per run (the pass object itself is copied when pipelines are cloned).
  SymbolTableCollection *symbolTables = nullptr;
  CostModel cost;
  bool failedAny = false;
  /// The spec chosen for each value that has no spec in its type (yet).
  llvm::DenseMap<Value, SpecAttr> chosen;
  /// How strongly a value's spec is held: a hint's result its priority,
  /// inferred values the strongest priority of the operands they follow.
  llvm::DenseMap<Value, int64_t> strength;
  /// Functions analysed (or being analysed, for recursion).
  llvm::DenseSet<Operation *> done, active;
  /// Calls of a function made inside its own analysis (recursion, with
  /// plain operands), per callee.
  llvm::DenseMap<Operation *, llvm::SetVector<Operation *>> recursiveCalls;
  /// Plans already priced in this run (time, bytes per rank): programs
  /// repeat their shapes.
  std::unordered_map<MoveKey, std::pair<double, double>, MoveKeyHash> prices;
  /// The same answers by PackedMoveKey, asked first.
  llvm::DenseMap<PackedMoveKey, std::pair<double, double>, PackedMoveKeyInfo>
      packedPrices;
  /// The redistribution cost of the choices made since it was last reset
  /// (to compare the specs a loop could carry, or two analyses of a
  /// function).
  double spent = 0;
  /// Lookahead: the spec each use asked for in the function's first
  /// analysis; a result whose uses all asked for one spec targets it in the
  /// second.
  llvm::DenseMap<OpOperand *, SpecAttr> demands;
  /// Lookahead's third analysis: demands carried back (deepDemands), each
  /// use's set of specs, consulted before `demands`.
  llvm::DenseMap<OpOperand *, SmallVector<SpecAttr, 2>> deepAsked;
  /// What the caller does with the results of the call a private callee is
  /// being analysed at, per result: the specs the results' uses asked for
  /// in the caller's first analysis, and whether one is returned as a plain
  /// (replicated) result of a public function. The callee's returned values
  /// price their moves to them as the caller would make them.
  struct ReturnDemand {
    SmallVector<SpecAttr> specs;
    bool whole = false;
  };
  llvm::DenseMap<Operation *, SmallVector<ReturnDemand>> returnDemands;
  /// Private functions in the order their analysis started (at a call).
  std::vector<Operation *> started;
  /// How many calls deep the function being analysed is.
  int64_t callDepth = 0;
  /// Whether the private callees a function analysed on its own calls
  /// directly look ahead too (visitFunction tries both).
  bool calleeLookahead = false;
  /// The redistribution cost of each analysed function's kept analysis
  /// (callees included), added at each call of a private callee.
  llvm::DenseMap<Operation *, double> ownCost;
  /// The ops given specs in the function being analysed.
  std::vector<Operation *> decided;
  /// Explain output, printed once the analysis kept is known.
  std::string log;

  /// A choice made once, for every op that is the same op on operands in
  /// the same state with the same targets (programs repeat their layers).
  struct Decision {
    Operation *representative;
    /// The representative's attribute dictionary with the specs recorded.
    DictionaryAttr attrs;
    SmallVector<SpecAttr> results;
    int64_t followed;
    /// What the decision adds to `spent`.
    double cost;
    /// The other choices offered to the local search, and the move they
    /// would avoid.
    std::vector<std::vector<int64_t>> alternatives;
    double moveCost;
    /// The operands it moves (operand number, spec), marked paid again.
    SmallVector<std::pair<unsigned, Attribute>> moved;
    /// The choice, kept for analysisBytes when the op reads windows.
    std::vector<int64_t> factors;
    bool windowed = false;
  };
  std::unordered_map<std::string, Decision> decisions;
  /// Per op, its structural key interned: 8 bytes naming the distinct
  /// structure (appendStructuralKey's string, hundreds of bytes, is built
  /// once per op and numbered by `structuralIds`).
  llvm::DenseMap<Operation *, std::string> structuralKeys;
  llvm::StringMap<int64_t> structuralIds;

  /// Moves already paid in this analysis: a value moved to a spec for an op
  /// in a block. A later op of the same block that needs the value in the
  /// same spec reuses that redistribution (insert-redistribute makes one
  /// per user and dtensor-optimize-collectives merges equal ones), so it
  /// pays nothing for it. Only values with several users appear.
  llvm::DenseMap<Value, SmallVector<std::pair<Attribute, Block *>, 2>> paidMoves;
  /// loopInvariant's answers (the IR's structure does not change here).
  llvm::DenseMap<std::pair<Value, Operation *>, bool> invariantCache;
  bool alreadyPaid(Value v, Attribute spec, Block *block) const {
    auto it = paidMoves.find(v);
    return it != paidMoves.end() &&
           llvm::is_contained(it->second, std::make_pair(spec, block));
  }
  /// The moves of `op`'s operands already paid in its block, as key bytes:
  /// part of the decision cache's key (pricing depends on them), not of the
  /// key the local search forces choices by (an earlier forced choice may
  /// change what is paid, and the choice must still apply).
  void appendPaidKey(std::string &key, Operation *op) const {
    for (auto [i, v] : llvm::enumerate(op->getOperands())) {
      auto paid = paidMoves.find(v);
      if (paid == paidMoves.end())
        continue;
      SmallVector<intptr_t> specs;
      for (auto [spec, block] : paid->second)
        if (block == op->getBlock())
          specs.push_back(reinterpret_cast<intptr_t>(spec.getAsOpaquePointer()));
      if (specs.empty())
        continue;
      llvm::sort(specs);
      int64_t operand = int64_t(i);
      key.append("\xfe paid");
      key.append(reinterpret_cast<const char *>(&operand), 8);
      for (intptr_t p : specs)
        key.append(reinterpret_cast<const char *>(&p), 8);
    }
  }
  void markPaid(Value v, Attribute spec, Block *block) {
    if (v.hasOneUse() || alreadyPaid(v, spec, block))
      return;
    paidMoves[v].push_back({spec, block});
  }

  /// Local search (see the pass description): the choice forced at every
  /// op with a decision key, and the alternatives recorded in the analysis
  /// that offers them.
  std::unordered_map<std::string, std::vector<int64_t>> forced;
  /// Whole-function optimization: the choice forced at each op.
  llvm::DenseMap<Operation *, std::vector<int64_t>> forcedOps;
  /// Per op, its choice and what it added to `spent` in the last analysis
  /// that decided it (windows of large functions force the plan's choices
  /// outside the window and rank windows by what their ops pay).
  struct Chosen {
    std::vector<int64_t> factors;
    double cost = 0;
  };
  llvm::DenseMap<Operation *, Chosen> lastChoice;
  /// A window's choices tried at every op alike (by decision key), over
  /// forcedOps.
  std::unordered_map<std::string, std::vector<int64_t>> keyForced;
  struct Alternative {
    std::string key;
    std::vector<int64_t> factors;
    /// The move it would avoid (most expensive tried first).
    double weight;
  };
  std::vector<Alternative> alternatives;
  /// How many of an op's next-cheapest choices the search may try.
  static constexpr size_t kAlternativesPerOp = 4;
  bool recordAlternatives = false;

  /// Everything a choice depends on, as bytes: the op (name, attributes,
  /// properties, body structure), its operands' types, chosen specs,
  /// strengths and freshness, its results' types and targets.
  llvm::DenseMap<Operation *, std::string>::iterator
  structuralKeyOf(Operation *op) {
    auto [cached, fresh] = structuralKeys.try_emplace(op);
    if (fresh) {
      std::string structure;
      appendStructuralKey(structure, op);
      int64_t id =
          structuralIds.try_emplace(structure, int64_t(structuralIds.size()))
              .first->second;
      cached->second.assign(reinterpret_cast<const char *>(&id), 8);
    }
    return cached;
  }
  /// The number naming `op`'s structure (appendStructuralKey): equal for
  /// ops alike but for their properties' hash colliding, which
  /// sameProperties tells apart.
  int64_t structuralId(Operation *op) {
    int64_t id;
    std::memcpy(&id, structuralKeyOf(op)->second.data(), 8);
    return id;
  }
  std::string decisionKey(Operation *op, SpecAttr like) {
    int64_t meshRank = like.getPlacements().size();
    // The structural part does not change between analyses (it leaves out
    // the specs they record): built once per op.
    auto cached = structuralKeyOf(op);
    SmallVector<int64_t, 32> words;
    auto put = [&](int64_t v) { words.push_back(v); };
    for (Value v : op->getOperands()) {
      put(reinterpret_cast<intptr_t>(chosen.lookup(v).getAsOpaquePointer()));
      put(strengthOf(v));
      put(isFreshTensor(v));
    }
    for (Value r : op->getResults()) {
      int64_t strength;
      std::optional<Placements> t = targetOf(r, meshRank, strength);
      put(strength);
      put(t ? int64_t(t->size()) : -1);
      if (t)
        for (const Placement &p : *t)
          put((int64_t(p.kind) << 48) | (int64_t(p.reduce) << 40) |
              ((p.dim & 0xff) << 8) | (p.order & 0xff));
      else
        for (SpecAttr want : demandsOf(r, like))
          put(reinterpret_cast<intptr_t>(want.getAsOpaquePointer()));
      put(hasDistributeUser(r));
      put(-3);
    }
    std::string key;
    key.reserve(cached->second.size() + 8 * words.size() + 64);
    key.append(cached->second);
    key.append(reinterpret_cast<const char *>(words.data()), 8 * words.size());
    return key;
  }

  /// Auto-sharding (auto-shard=MESH): the arguments to choose, per entry
  /// function, and the mesh they live on.
  struct AutoArgs {
    SmallVector<unsigned> args;
    ResolvedMeshView view;
    FlatSymbolRefAttr mesh;
  };
  llvm::DenseMap<Operation *, AutoArgs> autoFunctions;
  /// Set by optimizeWholeFunction when it chose a function's arguments, and
  /// why it last skipped a function (the auto-sharding error says it).
  bool autoChosen = false;
  std::string wholeSkip;

  /// Each public function's unannotated ranked tensor arguments start
  /// replicated on the mesh, so the analysis plans with them distributed;
  /// optimizeWholeFunction then chooses their specs.
  LogicalResult provisionAutoArguments(ModuleOp module) {
    MLIRContext *ctx = module.getContext();
    auto meshRef = FlatSymbolRefAttr::get(ctx, autoShard);
    if (!llvm::isa_and_nonnull<MeshOp>(
            symbolTables->lookupNearestSymbolFrom(module, meshRef.getAttr())))
      return module.emitError()
             << "auto-shard: no dtensor.mesh named @" << autoShard;
    FailureOr<ResolvedMeshView> view =
        resolveMeshView(module, MeshViewRef{meshRef, {}, false}, *symbolTables,
                        [&]() { return module.emitError(); });
    if (failed(view))
      return failure();
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || fn.isPrivate())
        continue;
      SmallVector<unsigned> args;
      // Static shapes of numbers only (the model prices bytes); others
      // stay plain, the same on every rank.
      for (BlockArgument a : fn.getArguments()) {
        auto t = llvm::dyn_cast<RankedTensorType>(a.getType());
        if (t && !t.getEncoding() && t.hasStaticShape() &&
            t.getElementType().isIntOrFloat())
          args.push_back(a.getArgNumber());
      }
      if (args.empty())
        continue;
      // (A handle of the whole mesh: the specs chosen are on it; a handle
      // of a sub-mesh cannot communicate over the others.)
      if (!findMeshHandleIn(fn, MeshViewRef{meshRef, {}, false}))
        return fn.emitError()
               << "auto-sharding @" << fn.getSymName()
               << " over @" << autoShard
               << " needs the mesh's handle as an argument (!dtensor.device_mesh<@"
               << autoShard << ">)";
      // A caller passes its operands as they are: only entry functions'
      // arguments can be chosen.
      std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(fn, module);
      if (uses && !uses->empty())
        return fn.emitError()
               << "auto-sharding chooses the arguments of entry functions; @"
               << fn.getSymName() << " is called in the module";
      // Chosen specs, as a private function's arguments get them from their
      // first call: recorded in `dtensor.arg_specs`, made types by
      // dtensor-insert-redistribute.
      SpecAttr replicated =
          SpecAttr::get(ctx, meshRef, {}, false,
                        Placements(view->shape.size(), Placement::replicate()));
      for (unsigned i : args)
        choose(fn.getArgument(i), replicated);
      autoFunctions[fn] = AutoArgs{std::move(args), *view, meshRef};
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Option values that mean nothing are errors (they were taken as "no
    // budget" or priced every link as inter-host).
    auto badOption = [&](StringRef name, const Twine &why) {
      module.emitError() << "dtensor-propagate: " << name << " " << why;
      signalPassFailure();
    };
    if (devicesPerHost <= 0)
      return badOption("devices-per-host", "must be positive, not " +
                                               Twine(int64_t(devicesPerHost)));
    if (!(memoryBudgetMb >= 0) || std::isinf(double(memoryBudgetMb)))
      return badOption("memory-budget-mb",
                       "must be a finite number of MB, 0 for no budget");
    if (double(memoryBudgetMb) > 0 && std::string(autoShard).empty())
      return badOption("memory-budget-mb",
                       "bounds the arguments auto-sharding chooses: give "
                       "auto-shard=MESH with it");
    if (wholeFunctionOps < 0)
      return badOption("whole-function-ops", "must be 0 (off) or positive");
    if (wholeFunctionWindowOps <= 0)
      return badOption("whole-function-window-ops", "must be positive");
    if (wholeFunctionWindows < 0)
      return badOption("whole-function-windows", "must be 0 (none) or positive");
    if (!(wholeFunctionSeconds >= 0))
      return badOption("whole-function-seconds", "must be 0 or positive");
    if (searchBudget < 0)
      return badOption("search-budget", "must be 0 (off) or positive");
    if (failed(verifyDistributedTypes(getOperation())) ||
        failed(verifyUniformCompute(module)))
      return signalPassFailure();
    SymbolTableCollection tables;
    symbolTables = &tables;
    failedAny = false;
    // Everything keyed by op or value belongs to this run: a pass object
    // run again (a pass manager reused on another module) starts afresh.
    chosen.clear();
    strength.clear();
    done.clear();
    active.clear();
    rules.clear();
    deepAsked.clear();
    recursiveCalls.clear();
    demands.clear();
    returnDemands.clear();
    calleeLookahead = false;
    started.clear();
    ownCost.clear();
    decided.clear();
    log.clear();
    decisions.clear();
    structuralKeys.clear();
    structuralIds.clear();
    recomputables.clear();
    narrowPrices.clear(); // keyed by values and attributes of this module
    paidMoves.clear();
    invariantCache.clear();
    forced.clear();
    forcedOps.clear();
    lastChoice.clear();
    alternatives.clear();
    cost.devicesPerHost = devicesPerHost;
    autoFunctions.clear();
    if (!autoShard.empty() && failed(provisionAutoArguments(module)))
      return signalPassFailure();
    // Public functions first: a private one is analysed at its first call,
    // with the specs of that call's operands; uncalled ones at the end.
    for (bool privateOnes : {false, true})
      for (auto fn : module.getOps<func::FuncOp>())
        if (!fn.isExternal() && fn.isPrivate() == privateOnes &&
            !done.contains(fn))
          visitFunction(fn);
    llvm::errs() << log;
    if (failedAny)
      signalPassFailure();
  }

  //===--------------------------------------------------------------------===//
  // Specs of values
  //===--------------------------------------------------------------------===//

  /// The spec a value has (in its type) or was given here; null if plain.
  SpecAttr specOf(Value v) const {
    if (SpecAttr s = getSpec(v.getType()))
      return s;
    return chosen.lookup(v);
  }
  /// The spec of `op`'s last distributed operand (its mesh view), or null.
  SpecAttr likeOf(Operation *op) const {
    SpecAttr like;
    for (Value v : op->getOperands())
      if (SpecAttr s = specOf(v))
        like = s;
    return like;
  }
  /// For a linalg op none of whose operands is distributed: the spec of
  /// the first distributed value its body reads (a lookup's table), whose
  /// view it is decided on; null otherwise.
  SpecAttr tableLikeOf(Operation *op) const {
    if (!llvm::isa<linalg::LinalgOp>(op))
      return {};
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(op->getRegions(), above);
    for (Value v : above)
      if (SpecAttr s = specOf(v))
        return s;
    return {};
  }
  int64_t strengthOf(Value v) const {
    if (auto hint = v.getDefiningOp<HintOp>())
      return hint.getPriority();
    auto it = strength.find(v);
    return it == strength.end() ? kNoPriority : it->second;
  }
  void choose(Value v, SpecAttr spec, int64_t s = kNoPriority) {
    if (getSpec(v.getType()))
      return; // a user annotation stays; insert-redistribute restores it
    if (spec)
      chosen[v] = spec;
    else
      chosen.erase(v);
    strength[v] = s;
  }
  static Attribute orUnit(MLIRContext *ctx, SpecAttr s) {
    return s ? Attribute(s) : Attribute(UnitAttr::get(ctx));
  }
  /// Records the specs of `values` on `op` as `name`.
  void record(Operation *op, StringRef name, ValueRange values) {
    SmallVector<Attribute> attrs;
    bool any = false;
    for (Value v : values) {
      SpecAttr s = getSpec(v.getType()) ? SpecAttr() : chosen.lookup(v);
      any |= bool(s);
      attrs.push_back(orUnit(op->getContext(), s));
    }
    if (any)
      op->setAttr(name, ArrayAttr::get(op->getContext(), attrs));
    else
      op->removeAttr(name);
  }

  /// Element width, mesh and both placements, as key words.
  static void appendMoveKey(MoveKey &key, RankedTensorType type,
                            const ResolvedMeshView &view, const Placements &from,
                            const Placements &to) {
    key.push_back(getElementByteSize(type.getElementType()).value_or(8));
    key.append(view.shape.begin(), view.shape.end());
    key.push_back(-2);
    for (const Placements *ps : {&from, &to})
      for (const Placement &p : *ps)
        key.push_back((int64_t(p.kind) << 48) | (int64_t(p.reduce) << 40) |
                      ((p.dim & 0xff) << 8) | (p.order & 0xff));
  }

  /// A move's compact key: sizes, element width, mesh, placements.
  static void moveKey(MoveKey &key, const ResolvedMeshView &view,
                      RankedTensorType type, const Placements &from,
                      const Placements &to) {
    key.append(type.getShape().begin(), type.getShape().end());
    key.push_back(-1);
    appendMoveKey(key, type, view, from, to);
  }

  /// Each op's sharding rule, built once per run: propagation analyses a
  /// function several times (lookahead, the search's trials, the
  /// whole-function model) and changes no op, only attributes.
  llvm::DenseMap<Operation *, std::shared_ptr<ShardingRule>> rules;
  FailureOr<const ShardingRule *> ruleOf(ShardingRuleOpInterface iface,
                                         std::string &reason) {
    std::shared_ptr<ShardingRule> &slot = rules[iface.getOperation()];
    if (!slot) {
      FailureOr<ShardingRule> rule = iface.getShardingRule(reason);
      if (failed(rule)) {
        rules.erase(iface.getOperation());
        return failure();
      }
      slot = std::make_shared<ShardingRule>(std::move(*rule));
    }
    return slot.get();
  }

  /// Plans by placement pattern and size class (see priceUncached): the
  /// plans found for it, tried in the order found (nullopt: the two
  /// placements are one state).
  static constexpr size_t kPlansPerPattern = 4;
  std::unordered_map<MoveKey, std::optional<SmallVector<PricedPlan, 1>>,
                     MoveKeyHash>
      patterns;
  /// The cost of redistributing `from` to `to` (0 when equal; infinite when
  /// illegal).
  double priceOf(const ResolvedMeshView &view, RankedTensorType type,
                 const Placements &from, const Placements &to) {
    return priceAndBytes(view, type, from, to).first;
  }
  /// The price and the bytes per rank of the plan priced.
  std::pair<double, double> priceAndBytes(const ResolvedMeshView &view,
                                          RankedTensorType type,
                                          const Placements &from,
                                          const Placements &to) {
    // The model asks for the same moves many times (every option pair of
    // every edge): four words where they fit, else a key on the stack that
    // only a miss copies.
    PackedMoveKey packed{type.getAsOpaquePointer(), 0, 0, 0};
    bool fits = view.shape.size() <= 4 && packPlacements(from, packed.from) &&
                packPlacements(to, packed.to);
    // (Sizes are at least 1, so the leading zeros give the mesh's rank.)
    for (int64_t size : view.shape) {
      if (size < 1 || size > 0xffff)
        fits = false;
      packed.view = (packed.view << 16) | uint64_t(size & 0xffff);
    }
    if (fits) {
      if (auto it = packedPrices.find(packed); it != packedPrices.end())
        return it->second;
      std::pair<double, double> price = priceUncached(view, type, from, to);
      packedPrices.try_emplace(packed, price);
      return price;
    }
    MoveKey key;
    moveKey(key, view, type, from, to);
    if (auto it = prices.find(key); it != prices.end())
      return it->second;
    std::pair<double, double> price = priceUncached(view, type, from, to);
    prices.emplace(std::move(key), price);
    return price;
  }

  /// A move's placement pattern and size class (see priceUncached).
  static MoveKey patternKey(const ResolvedMeshView &view, RankedTensorType type,
                            const Placements &from, const Placements &to) {
    MoveKey key;
    key.push_back(type.getRank());
    double elements = 1;
    for (int64_t d : type.getShape())
      elements *= double(d);
    key.push_back(elements > 0 ? int64_t(std::ilogb(elements)) : -1);
    appendMoveKey(key, type, view, from, to);
    return key;
  }

  std::pair<double, double> priceUncached(const ResolvedMeshView &view,
                                          RankedTensorType type,
                                          const Placements &from,
                                          const Placements &to) {
    // One search per placement pattern and size class: a plan found for
    // one shape is replayed (re-priced exactly) on the others. Shapes
    // whose byte counts lie within a factor of two share the plan, so the
    // latency / bandwidth trade-off that picks it is the same; where no
    // plan found so far is legal on this shape (a merged step needs even
    // pieces) it plans afresh and keeps that plan too (up to
    // kPlansPerPattern), so that shapes of another evenness replay it
    // rather than search again. The price is that of a legal plan for this shape
    // (never below the fastest one; it can differ a little from the plan
    // lowering picks, which also keeps within DTensor's greedy bytes);
    // insert-redistribute and lowering plan every move for its own shape.
    // An integer value cannot become a Partial sum it was not (R -> P(sum)
    // divides by the group size; lowering refuses it): illegal.
    if (!llvm::isa<FloatType>(type.getElementType()))
      for (auto [a, b] : llvm::zip(from, to))
        if (b.isPartial() && b.reduce == ReduceKind::Sum &&
            !(a.isPartial() && a.reduce == ReduceKind::Sum))
          return {std::numeric_limits<double>::infinity(),
                  std::numeric_limits<double>::infinity()};
    MoveKey key = patternKey(view, type, from, to);
    // Whether the two are one state depends on the mesh and rank only: an
    // empty plan records it per pattern.
    // (The plan is compiled, PricedPlan, so a replay is a few divisions.)
    auto it = patterns.find(key);
    if (it != patterns.end() && !it->second)
      return {0, 0};
    if (it == patterns.end() && sameState(from, to, view.shape, type.getRank())) {
      patterns.emplace(std::move(key), std::nullopt);
      return {0, 0};
    }
    Shape shape(type.getShape().begin(), type.getShape().end());
    if (it != patterns.end())
      for (const PricedPlan &known : *it->second)
        if (std::optional<std::pair<double, int64_t>> price = known.price(shape))
          return {price->first, double(price->second)};
    std::optional<Plan> plan = planFor(view, type, from, to);
    if (!plan)
      return {std::numeric_limits<double>::infinity(), 0};
    if (it == patterns.end())
      it = patterns.emplace(std::move(key), SmallVector<PricedPlan, 1>()).first;
    if (it->second->size() < kPlansPerPattern)
      it->second->push_back(PricedPlan(
          RedistributeRequest{view.shape, shape,
                              getElementByteSize(type.getElementType()).value_or(8), from,
                              to},
          cost, plan->steps));
    return {plan->timeUs(), double(plan->bytesPerRank())};
  }

  /// The cost of giving `v`, an operand of `consumer`, placements `to` by
  /// moving the inputs of its element-wise producer and computing it again,
  /// as dtensor-narrow-moves will where that is cheaper (an int8 weight and
  /// its scale instead of the f32 they dequantize to); infinity when the
  /// producer does not allow it. One producer deep.
  double narrowPrice(const ResolvedMeshView &view, Operation *consumer, Value v,
                     SpecAttr like, const Placements &to) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    auto res = llvm::dyn_cast<OpResult>(v);
    if (!res)
      return kInf;
    Operation *producer = res.getOwner();
    if (producer->getBlock() != consumer->getBlock())
      return kInf;
    // Asked again for every candidate and analysis: the answer depends on
    // the producer's operand specs (a uniqued attribute) where they give
    // every operand's, and on `like` and `to`.
    auto specs = producer->getAttrOfType<ArrayAttr>(kOperandSpecsAttr);
    MoveKey key;
    if (specs) {
      key.push_back(int64_t(reinterpret_cast<uintptr_t>(v.getAsOpaquePointer())));
      key.push_back(int64_t(reinterpret_cast<uintptr_t>(specs.getAsOpaquePointer())));
      key.push_back(int64_t(reinterpret_cast<uintptr_t>(like.getAsOpaquePointer())));
      for (const Placement &p : to)
        key.push_back((int64_t(p.kind) << 48) | (int64_t(p.reduce) << 40) |
                      ((p.dim & 0xff) << 8) | (p.order & 0xff));
      if (auto it = narrowPrices.find(key); it != narrowPrices.end())
        return it->second;
    }
    bool cacheable = bool(specs);
    double price = narrowPriceUncached(view, producer, v, like, to, specs,
                                       cacheable);
    if (cacheable)
      narrowPrices.emplace(std::move(key), price);
    return price;
  }
  /// narrowPrice's answers (see there); cleared with the pass's caches.
  std::unordered_map<MoveKey, double, MoveKeyHash> narrowPrices;
  double narrowPriceUncached(const ResolvedMeshView &view, Operation *producer,
                             Value v, SpecAttr like, const Placements &to,
                             ArrayAttr specs, bool &cacheable) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const std::optional<ShardingRule> &rule = recomputableRuleOf(producer);
    // (A rule that depends on what is distributed now is asked afresh.)
    if (auto it = recomputables.find(producer);
        it == recomputables.end() || it->second.readsOuter)
      cacheable = false;
    if (!rule)
      return kInf;
    std::optional<std::vector<Placements>> need =
        operandPlacementsForResult(*rule, dropDefaultOrders(to));
    if (!need)
      return kInf;
    double sum = 0;
    for (size_t o = 0; o < rule->numOperands(); ++o) {
      OpOperand &operand = producer->getOpOperand(rule->operands[o]);
      if (rule->isInit(o))
        continue; // unread: made fresh

      auto type = llvm::dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type || !type.hasStaticShape())
        return kInf;
      SpecAttr have;
      if (specs && operand.getOperandNumber() < specs.size())
        have = llvm::dyn_cast<SpecAttr>(specs[operand.getOperandNumber()]);
      if (!have) {
        have = specOf(operand.get());
        cacheable = false; // the analysis's spec of the operand, not the op's
      }
      if (!have)
        continue; // a plain input: each rank slices it
      if (have.getView() != like.getView())
        return kInf;
      Placements from = have.getNormalizedPlacements(type.getRank());
      if (llvm::any_of(from, [](const Placement &p) { return p.isPartial(); }))
        return kInf;
      sum += priceOf(view, type, from, (*need)[o]);
      if (!(sum < kInf))
        return kInf;
    }
    return sum;
  }

  /// recomputableRule of `producer` as propagation now sees it. Types and
  /// rules do not change during the pass, so the rule is computed once per
  /// op; only an op whose regions read outer values asks again (whether one
  /// of those is distributed changes between analyses).
  struct Recomputable {
    bool readsOuter = false;
    std::optional<ShardingRule> rule;
  };
  llvm::DenseMap<Operation *, Recomputable> recomputables;
  std::optional<ShardingRule> scratchRule;
  const std::optional<ShardingRule> &recomputableRuleOf(Operation *producer) {
    auto distributed = [&](Value t) { return bool(specOf(t)); };
    auto [it, fresh] = recomputables.try_emplace(producer);
    if (fresh) {
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(producer->getRegions(), above);
      it->second.readsOuter = !above.empty();
      if (!it->second.readsOuter)
        it->second.rule =
            recomputableRule(producer, [](Value) { return false; });
    }
    if (!it->second.readsOuter)
      return it->second.rule;
    scratchRule = recomputableRule(producer, distributed);
    return scratchRule;
  }

  std::optional<Plan> planFor(const ResolvedMeshView &view, RankedTensorType type,
                              const Placements &from, const Placements &to) {
    RedistributeRequest req{view.shape,
                            Shape(type.getShape().begin(), type.getShape().end()),
                            getElementByteSize(type.getElementType()).value_or(8), from, to};
    std::string error;
    return planRedistribute(req, cost, error);
  }

  //===--------------------------------------------------------------------===//
  // Walking the program
  //===--------------------------------------------------------------------===//

  /// Where a function's analysis starts (see visitFunction).
  struct Restart {
    func::FuncOp fn;
    size_t mark, logStart;
    /// The alternatives recorded before the function (a callee's restart
    /// keeps its caller's).
    size_t alternativesStart;
  };

  /// Analyses `fn`; with lookahead twice (see the pass description),
  /// keeping the cheaper analysis.
  void visitFunction(func::FuncOp fn) {
    done.insert(fn);
    double outer = spent;
    auto outerDemands = std::move(demands);
    demands.clear();
    auto outerDeep = std::move(deepAsked);
    deepAsked.clear();
    std::vector<Operation *> outerDecided = std::move(decided);
    decided.clear();
    // Every analysis of a function starts from the same state: the specs
    // chosen before it (its arguments'), nothing left from an earlier
    // analysis, so an analysis depends only on the demands and forced
    // choices it is given. Only functions analysed on their own and the
    // callees they call directly are analysed more than once.
    Restart start{fn, started.size(), log.size(), alternatives.size()};
    bool searching = searchBudget > 0 && callDepth == 0;
    size_t decidedBefore = decided.size();
    constexpr double kEps = 1e-9;
    // One analysis, then lookahead's second, kept where it costs less; the
    // total of the analysis kept. Callees analysed at a call are part of
    // their caller's analyses (and analysed again in each): functions
    // analysed on their own look ahead, and (calleeLookahead) the callees
    // they call directly, deeper callees do not, so a chain of calls costs
    // a constant factor, not one per call (nested lookahead would analyse a
    // callee at depth n 2^n times).
    auto analyse = [&]() {
      spent = 0;
      analyseFunction(fn);
      double first = spent + returnCost(fn) + returnDemandCost(fn);
      bool looks = lookahead && !failedAny &&
                   (callDepth == 0 || (callDepth == 1 && calleeLookahead));
      if (!looks || !collectDemands(fn))
        return first;
      // The demands carried back through ops that only followed their
      // operand (see deepDemands): a third analysis where they differ.
      auto deep = deepDemands();
      bool tryDeep = !deep.empty();
      restart(start);
      analyseFunction(fn);
      double second = spent + returnCost(fn) + returnDemandCost(fn);
      if (tryDeep) {
        deepAsked = std::move(deep);
        restart(start);
        analyseFunction(fn);
        double third = spent + returnCost(fn) + returnDemandCost(fn);
        if (third < std::min(first, second) - kEps)
          return third;
        deepAsked.clear();
        if (second < first - kEps) {
          restart(start);
          analyseFunction(fn);
          return second;
        }
      } else if (second < first - kEps) {
        return second;
      }
      demands.clear();
      restart(start);
      analyseFunction(fn);
      return first;
    };
    // The analyses with lookahead, then the local search from the one kept
    // (which records the search's alternatives): the total reached.
    auto plan = [&](bool callees) {
      if (callDepth == 0)
        calleeLookahead = callees;
      // Each plan counts its own analysed ops (the search's budget shrinks
      // with them), so a plan made again is made alike.
      decided.resize(decidedBefore);
      demands.clear();
      deepAsked.clear();
      if (searching) {
        recordAlternatives = true;
        alternatives.clear();
      }
      double total = analyse();
      if (searching) {
        recordAlternatives = false;
        if (!failedAny)
          total = search(fn, start, spent + returnCost(fn),
                         decided.size() - decidedBefore);
        alternatives.clear();
      }
      return total;
    };
    double total = plan(false);
    // Whether the plan kept had callees look ahead (the whole-function
    // optimization makes that plan again where it keeps it).
    bool withCallees = false;
    // With callees that look ahead themselves, pricing their results' moves
    // to what this function does with them (a layer called twice reduces
    // its sum once instead of scattering it and having the caller gather
    // it): tried silently, search included, and kept only if this
    // function's total drops, so it never costs more than callees deciding
    // alone.
    if (lookahead && callDepth == 0 && !failedAny && callsPrivateFunction(fn)) {
      restart(start);
      bool trialFailed = false;
      double with;
      {
        ScopedDiagnosticHandler quiet(fn.getContext(), [&](Diagnostic &d) {
          trialFailed |= d.getSeverity() == DiagnosticSeverity::Error;
          return success();
        });
        with = plan(true);
      }
      trialFailed |= failedAny;
      failedAny = false;
      if (trialFailed || !(with < total - kEps)) {
        restart(start);
        plan(false);
      } else {
        withCallees = true;
      }
    }
    if (callDepth == 0)
      calleeLookahead = false;
    // The whole function as one integer program (issue 14), where it is a
    // straight line of ops the model covers; kept only when its analysis
    // costs less than the plan above.
    // Auto-sharding: the whole-function optimization chooses the
    // arguments' specs too; the function is then planned with them.
    if (callDepth == 0 && !failedAny)
      if (auto it = autoFunctions.find(fn); it != autoFunctions.end()) {
        autoChosen = false;
        wholeSkip.clear();
        if (wholeFunctionOps > 0)
          optimizeWholeFunction(fn, start, [&]() {
            restart(start);
            plan(withCallees);
          }, &it->second);
        if (!autoChosen) {
          fn.emitError() << "auto-sharding needs the whole-function "
                            "optimization to cover @"
                         << fn.getSymName() << ": "
                         << (wholeFunctionOps > 0
                                 ? (wholeSkip.empty() ? std::string("it does not")
                                                      : wholeSkip)
                                 : std::string("whole-function-ops is 0"));
          failedAny = true;
        }
      }
    if (callDepth == 0 && !failedAny && wholeFunctionOps > 0)
      optimizeWholeFunction(fn, start, [&]() {
        restart(start);
        plan(withCallees);
      });
    if (callDepth == 0)
      calleeLookahead = false;
    demands = std::move(outerDemands);
    deepAsked = std::move(outerDeep);
    decided = std::move(outerDecided);
    // A function's cost is its own. Its calls add it to their caller's
    // only for private callees, which every analysis of the caller analyses
    // again (see visitCall); a public callee is analysed once, so counting
    // it in the caller's first analysis alone would favour the second.
    ownCost[fn] = spent;
    spent = outer;
  }

  /// Local search over forced choices (see the pass description). The
  /// function has just been analysed as lookahead left it.
  double search(func::FuncOp fn, const Restart &start, double total,
                size_t analysed) {
    auto reanalyse = [&]() {
      restart(start);
      analyseFunction(fn);
      return spent + returnCost(fn);
    };
    // The alternatives the last analysis recorded, once per decision, the
    // ones whose ops move the most (summed over the ops that share the
    // decision) first.
    auto collect = [&]() {
      std::vector<Alternative> alts;
      std::map<std::pair<std::string, std::vector<int64_t>>, size_t> where;
      for (Alternative &a : alternatives) {
        auto [it, inserted] = where.try_emplace({a.key, a.factors}, alts.size());
        if (inserted)
          alts.push_back(std::move(a));
        else
          alts[it->second].weight += a.weight;
      }
      alternatives.clear();
      std::stable_sort(alts.begin(), alts.end(),
                       [](const Alternative &a, const Alternative &b) {
                         return a.weight > b.weight;
                       });
      return alts;
    };
    // An analysis that records them.
    auto record = [&](double &again) {
      recordAlternatives = true;
      again = reanalyse();
      recordAlternatives = false;
      return collect();
    };
    double best = total;
    std::vector<Alternative> alts = collect();
    if (alts.empty())
      return total;
    // A trial is kept only if its moves send no more bytes than the plan the
    // search started from (lookahead's): the bar is no more communication
    // than DTensor's, and a latency-bound model would otherwise trade a few
    // small collectives for a large one (loss-parallel's all_reduces for a
    // gather of the LM head). Measured against bounding by the best so far,
    // this keeps more of the search's gains (docs/Compile.md). A trial's
    // bytes are counted only when it costs less (most do not).
    double startBytes = analysisBytes(fn);
    auto movesNoMoreBytes = [&]() {
      return analysisBytes(fn) <= startBytes * (1 + 1e-9) + 1e-9;
    };
    // Each trial re-analyses the whole function (mostly from the decision
    // cache): fewer on large ones, at least two.
    int64_t budget = std::min<int64_t>(
        searchBudget, std::max<int64_t>(2, 8000 / std::max<size_t>(1, analysed)));
    std::set<std::pair<std::string, std::vector<int64_t>>> tried;
    bool current = true;
    constexpr double kEps = 1e-9;
    for (size_t i = 0; i < alts.size() && budget > 0;) {
      const Alternative alt = alts[i++];
      if (forced.count(alt.key) || !tried.insert({alt.key, alt.factors}).second)
        continue;
      --budget;
      forced[alt.key] = alt.factors;
      // Trials are silent: a choice that makes a later op fail is rejected.
      bool trialFailed = false;
      double total;
      {
        ScopedDiagnosticHandler quiet(fn.getContext(), [&](Diagnostic &d) {
          trialFailed |= d.getSeverity() == DiagnosticSeverity::Error;
          return success();
        });
        total = reanalyse();
      }
      trialFailed |= failedAny;
      failedAny = false;
      if (!trialFailed && total < best - kEps && movesNoMoreBytes()) {
        // Kept: the ops after it may now decide in other states, with
        // other alternatives.
        double again;
        alts = record(again);
        best = std::min(best, again);
        i = 0;
        tried.clear();
        current = true;
      } else {
        forced.erase(alt.key);
        current = false;
      }
    }
    if (!current)
      reanalyse();
    forced.clear();
    return best;
  }

  //===--------------------------------------------------------------------===//
  // Whole-function optimization (issue 14)
  //===--------------------------------------------------------------------===//

  /// One op's strategies: the factors chosen per mesh dim and the
  /// placements of every placed operand, then every result.
  struct WholeOption {
    std::vector<int64_t> factors;
    std::vector<Placements> placed;
  };
  struct WholeNode {
    /// The op, or null for an argument whose spec auto-sharding chooses
    /// (its options are its placements, its one "result" the argument).
    Operation *op;
    ShardingRule rule;
    ResolvedMeshView view;
    SpecAttr like;
    std::vector<WholeOption> options;
    /// The argument, for an argument's node; the loop's region argument,
    /// for a carried value's; the scf.if's result, for a branch result's.
    Value arg = {};
    /// A value an scf.for carries or an scf.if yields (its options: the
    /// states it may be in; the analysis takes its init's or its yield's,
    /// or one branch's yield's).
    bool carry = false;
    /// The distributed tables a lookup's body reads (each option needs
    /// them as tableNeed says), the one it may mask, and its loop ranges.
    std::vector<TableRead> tables = {};
    int maskedTable = -1;
    SmallVector<int64_t> loopRanges = {};
  };

  /// Hints in the whole-function model. A hint is not a cost: propagation
  /// meets hints before it weighs cost, and values computed from a hinted
  /// value carry its priority into later choices (strengthOf). So the
  /// solution keeps what the hints decided in the plan, and optimizes the
  /// rest: a hinted value the plan produced in one of its hints' specs is
  /// produced in that spec (an auto-sharded argument takes its strongest
  /// hint's spec where it can); a value held by a hint's priority keeps the
  /// plan's spec, and every op the plan did not move it for reads it in
  /// that spec. Drops the other options of the nodes that decide them;
  /// false, with `why`, when a node would be left with none.
  template <typename Resolve, typename ProducerOf>
  bool keepHintDecisions(std::vector<WholeNode> &nodes,
                         ArrayRef<HintOp> hints, Resolve &resolve,
                         ProducerOf &producerOf, bool autoArgs,
                         std::string &why) {
    auto normalized = [](SpecAttr s, Type t) {
      return dropDefaultOrders(s.getNormalizedPlacements(
          llvm::cast<RankedTensorType>(t).getRank()));
    };
    // The option column of a node's `r`th result.
    auto column = [](const WholeNode &n, int64_t r) -> size_t {
      return n.op ? n.rule.numOperands() + r : 0;
    };
    auto keepOnly = [&](WholeNode &n, size_t col, const Placements &want,
                        Operation *at) {
      llvm::erase_if(n.options, [&](const WholeOption &o) {
        return dropDefaultOrders(o.placed[col]) != want;
      });
      if (!n.options.empty())
        return true;
      why = ("skipped: no strategy keeps what a hint decided at " +
             at->getName().getStringRef())
                .str();
      return false;
    };
    // Hinted values, by the value inside the model, with their hints.
    llvm::MapVector<Value, SmallVector<HintOp, 1>> hinted;
    for (HintOp h : hints)
      hinted[resolve(h.getSource())].push_back(h);
    for (auto &[v, on] : hinted) {
      int64_t r = 0;
      int p = producerOf(v, r);
      if (p < 0)
        continue; // fixed or plain: nothing to decide
      WholeNode &n = nodes[p];
      Type type = v.getType();
      std::optional<Placements> want;
      if (!n.op && !n.carry) {
        // An auto-sharded argument: its strongest hint, where it can be.
        HintOp best = *llvm::min_element(on, [](HintOp a, HintOp b) {
          return a.getPriority() < b.getPriority();
        });
        Placements p = normalized(getSpec(best.getType()), type);
        if (llvm::any_of(n.options, [&](const WholeOption &o) {
              return dropDefaultOrders(o.placed[0]) == p;
            }))
          want = std::move(p);
      } else if (SpecAttr planned = specOf(v)) {
        Placements have = normalized(planned, type);
        if (llvm::any_of(on, [&](HintOp h) {
              return normalized(getSpec(h.getType()), type) == have;
            }))
          want = std::move(have);
      }
      if (want && !keepOnly(n, column(n, r), *want, on.front()))
        return false;
    }
    if (autoArgs)
      return true; // the plan it starts from has every argument replicated
    // Values held by a hint's priority.
    for (WholeNode &n : nodes) {
      if (n.carry) {
        SpecAttr planned = specOf(n.arg);
        Operation *at = llvm::isa<BlockArgument>(n.arg)
                            ? n.arg.getParentRegion()->getParentOp()
                            : n.arg.getDefiningOp();
        if (planned && (strengthOf(n.arg) != kNoPriority ||
                        strengthOf(carriedResult(n)) != kNoPriority) &&
            !keepOnly(n, 0, normalized(planned, n.arg.getType()), at))
          return false;
        continue;
      }
      if (!n.op)
        continue;
      for (OpResult res : n.op->getResults()) {
        SpecAttr planned = specOf(res);
        if (!planned || getSpec(res.getType()) ||
            strengthOf(res) == kNoPriority)
          continue;
        if (!keepOnly(n, column(n, res.getResultNumber()),
                      normalized(planned, res.getType()), n.op))
          return false;
      }
      auto operandSpecs = n.op->getAttrOfType<ArrayAttr>(kOperandSpecsAttr);
      for (size_t o = 0; o < n.rule.numOperands() && operandSpecs; ++o) {
        unsigned num = n.rule.operands[o];
        Value v = n.op->getOperand(num);
        SpecAttr have = specOf(v);
        auto read = num < operandSpecs.size()
                        ? llvm::dyn_cast<SpecAttr>(operandSpecs[num])
                        : SpecAttr();
        if (!have || !read || strengthOf(v) == kNoPriority)
          continue;
        Placements state = normalized(have, v.getType());
        if (normalized(read, v.getType()) != state)
          continue; // the plan moved it here: free
        if (!keepOnly(n, o, state, n.op))
          return false;
      }
    }
    return true;
  }

  /// A carried value's node (WholeNode::carry): the value outside its
  /// region (the loop's result; the branch's result itself).
  static Value carriedResult(const WholeNode &n) {
    auto arg = llvm::dyn_cast<BlockArgument>(n.arg);
    if (!arg || llvm::isa<scf::WhileOp>(arg.getOwner()->getParentOp()))
      return n.arg; // (an scf.while's results are what its condition forwards)
    auto loop = llvm::cast<scf::ForOp>(arg.getOwner()->getParentOp());
    return loop->getResult(arg.getArgNumber() - loop.getNumInductionVars());
  }
  /// The values a loop carries (an scf.for's region arguments, an
  /// scf.while's before region's) or a branch yields (its results).
  static SmallVector<Value> carriedValues(Operation *op) {
    if (auto loop = llvm::dyn_cast<scf::ForOp>(op))
      return SmallVector<Value>(loop.getRegionIterArgs());
    if (auto loop = llvm::dyn_cast<scf::WhileOp>(op))
      return SmallVector<Value>(loop.getBeforeArguments());
    return SmallVector<Value>(op->getResults());
  }
  /// The values whose states a carried value may take as they are (a
  /// loop's init; a branch's two yields), and whose moves to its state are
  /// paid: the init once per entry, the yield once per iteration; each
  /// branch's yield once per run of the branch.
  static SmallVector<std::pair<Value, Block *>, 2>
  carriedSources(Value carried) {
    if (auto arg = llvm::dyn_cast<BlockArgument>(carried)) {
      if (auto loop =
              llvm::dyn_cast<scf::WhileOp>(arg.getOwner()->getParentOp())) {
        unsigned i = arg.getArgNumber();
        return {{loop.getInits()[i], loop->getBlock()},
                {loop.getYieldOp().getOperand(i), &loop.getAfter().front()}};
      }
      auto loop = llvm::cast<scf::ForOp>(arg.getOwner()->getParentOp());
      unsigned i = arg.getArgNumber() - loop.getNumInductionVars();
      auto yield = llvm::cast<scf::YieldOp>(loop.getBody()->getTerminator());
      return {{loop.getInitArgs()[i], loop->getBlock()},
              {yield.getOperand(i), loop.getBody()}};
    }
    auto res = llvm::cast<OpResult>(carried);
    auto branch = llvm::cast<scf::IfOp>(res.getOwner());
    unsigned i = res.getResultNumber();
    return {{branch.thenYield().getOperand(i), branch.thenBlock()},
            {branch.elseYield().getOperand(i), branch.elseBlock()}};
  }

  /// How many symbol uses name each symbol, per symbol table (counted once
  /// per pass, at the first question).
  llvm::DenseMap<Operation *, llvm::DenseMap<StringAttr, int64_t>> symbolUses;
  int64_t symbolUseCount(func::FuncOp f) {
    Operation *table = f->getParentOp();
    auto [counts, fresh] = symbolUses.try_emplace(table);
    if (fresh)
      for (Region &region : table->getRegions()) {
        // (Unknown ops that may hold symbol tables: nothing is counted, and
        // no count matches the calls seen.)
        if (std::optional<SymbolTable::UseRange> uses =
                SymbolTable::getSymbolUses(&region))
          for (const SymbolTable::SymbolUse &use : *uses)
            ++counts->second[use.getSymbolRef().getRootReference()];
      }
    return counts->second.lookup(f.getSymNameAttr());
  }

  /// The callee of `call` when whole-function optimization can decide its
  /// ops with its caller's (see optimizeWholeFunction): private, with a
  /// body of one block; else null, with `why`.
  func::FuncOp inlinableCallee(func::CallOp call, int depth, std::string &why) {
    constexpr int kMaxDepth = 16;
    auto fail = [&](const Twine &reason) {
      why = ("skipped: " + reason).str();
      return func::FuncOp();
    };
    auto callee = symbolTables->lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    if (!callee || callee.isExternal() || !callee.isPrivate())
      return fail("it calls " + call.getCallee() +
                  ", which is not a private function with a body");
    if (depth >= kMaxDepth)
      return fail("calls nest deeper than " + Twine(kMaxDepth));
    if (!callee.getBody().hasOneBlock())
      return fail("@" + call.getCallee() + " has several blocks");
    for (Value v : call.getOperands())
      if (SpecAttr s = specOf(v); s && !findMeshHandleIn(callee, s.getView()))
        return fail("@" + call.getCallee() +
                    " takes a distributed value without its mesh's handle");
    return callee;
  }


  /// Bytes of the largest shard a rank holds of a `type` tensor placed as
  /// `placed` on `view`.
  static double shardBytes(RankedTensorType type, const Placements &placed,
                           const ResolvedMeshView &view) {
    double elements = 1;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      double size = double(type.getDimSize(d));
      for (size_t m = 0; m < placed.size(); ++m)
        if (placed[m].isShard() && placed[m].dim == d)
          size = std::ceil(size / double(view.shape[m]));
      elements *= size;
    }
    return elements * double(getElementByteSize(type.getElementType()).value_or(8));
  }

  /// The price and bytes per rank of a move, as the integer program sees
  /// it: a move into a Partial the value does not already hold is illegal
  /// (propagation asks for a Partial operand only where it is one), except
  /// with `intoPartial`: a value moved to a fixed spec (an annotation, a
  /// distribute_tensor, the function's result) or to the state a loop
  /// carries or a branch yields, which the analysis makes as the planner
  /// prices it (a replicated yield made a P(sum) locally).
  std::pair<double, double> movePrice(const ResolvedMeshView &view,
                                      RankedTensorType type,
                                      const Placements &from,
                                      const Placements &to,
                                      bool intoPartial = false) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    for (size_t d = 0; d < to.size() && !intoPartial; ++d)
      if (to[d].isPartial() && !(from[d] == to[d]))
        return {kInf, 0};
    auto [time, bytes] = priceAndBytes(view, type, from, to);
    if (!std::isfinite(time) || time == 0)
      return {time, 0};
    return {time, bytes};
  }
  /// Memory bandwidth of the whole-function model's compute term (an
  /// H100's 2,000 GB/s, as the comm report's modeled step time).
  static constexpr double kMemoryBytesPerUs = 2.0e6;
  /// Peak arithmetic of auto-sharding's compute term (the comm report's
  /// default, 50 TFLOP/s).
  static constexpr double kFlopsPerUs = 5.0e7;
  static constexpr double kComputeWeight = 1e-3;
  /// How many times the whole-function model counts a loop whose trip
  /// count is not a constant (see multiplicity in optimizeWholeFunction).
  static constexpr int64_t kUnknownTrips = 1000;

  /// The ops one window of a large function decides (optimizeWindows).
  struct Window {
    llvm::DenseSet<Operation *> ops;
    std::string label;
  };
  std::string windowLog;
  /// The bytes the plan moved before the first window: no window, nor its
  /// choices at the ops alike, may make the function move more (measured
  /// against the plan the windows started from, as the local search does,
  /// so a window may move more than the last one kept).
  double windowBytes = 0;
  /// Solves `fn` (already planned: its ops carry the plan's specs) as one
  /// integer program when it is a straight block the model covers, and
  /// keeps the solution when its analysis costs less than the plan. `redo`
  /// makes the plan again when the solution is not kept.
  void optimizeWholeFunction(func::FuncOp fn, const Restart &start,
                             llvm::function_ref<void()> redo,
                             AutoArgs *autoArgs = nullptr,
                             const Window *window = nullptr) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    constexpr double kEps = 1e-9;
    auto note = [&](const Twine &why) {
      wholeSkip = why.str();
      // (A window's analyses restart the function's log: its notes are
      // kept apart until the last window.)
      if (explain)
        llvm::raw_string_ostream(window ? windowLog : log)
            << "dtensor-propagate: @" << fn.getSymName()
            << ": whole-function optimization "
            << (window ? window->label + " " : std::string()) << why << "\n";
    };
    if (!fn.getBody().hasOneBlock())
      return;
    Block &body = fn.getBody().front();
    // The ops to decide, in order; anything the model does not cover
    // (regions that are not a rule op's body, calls, hints) leaves the
    // function to the plan.
    // First the cheap checks (functions of many thousand ops stop here). A
    // plan that moves nothing cannot be improved on.
    double before = spent + returnCost(fn);
    if (!(before > 0) && !autoArgs)
      return;
    // The ops in program order, with the bodies of the private callees in
    // place of their first calls (every call of each in this function or
    // its callees, none elsewhere). The analysis gives a callee's arguments
    // its first call's operand specs, moves the operands of later calls to
    // them, and gives every call's results the specs of the values the
    // callee returns (where a type carries a spec, call and callee carry the
    // same one). So inside the model a callee's argument *is* its first
    // call's operand (`alias`), a call's result the value its callee
    // returns, a later call's operand moves to the state of the first's
    // (priced below), and what happens inside a callee happens once per
    // call (`multiplicity`). A chain of distinct layers as calls is planned
    // as the inline chain; a layer called for every block, with its ops
    // decided once for all of them.
    std::vector<Operation *> order;
    llvm::DenseMap<Value, Value> alias;
    struct Inlined {
      func::FuncOp callee;
      std::vector<func::CallOp> calls;
    };
    std::vector<Inlined> inlined;
    llvm::DenseMap<Operation *, unsigned> inlinedIndex; // callee, call or return
    llvm::DenseSet<Operation *> collecting;
    // scf.for loops (constant trip counts) and scf.if branches: their
    // bodies' ops join the model (a loop body's count once per iteration),
    // and each value a loop carries or a branch yields is a node of its own
    // (below); the loop or branch stands in `order` for those nodes.
    int64_t toDecide = 0;
    // The ops to decide in program order (for the windows of a function
    // with more than whole-function-ops of them).
    std::vector<Operation *> decidedOrder;
    std::vector<HintOp> hints;
    std::string why;
    // Callees whose calls stay calls in the model (`opaque`): public
    // functions with a body, and private ones called from elsewhere too.
    // They are decided apart (a public function on its own, a shared one
    // at its first call), so a call's operands move to its callee's
    // arguments' specs and its results have the specs the plan gave them.
    llvm::DenseSet<Operation *> opaque;
    auto opaqueCallee = [&](func::CallOp call) -> func::FuncOp {
      auto callee = symbolTables->lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!callee || callee.isExternal() ||
          (callee.isPrivate() && !opaque.contains(callee)))
        return func::FuncOp();
      return callee;
    };
    std::function<bool(Block &, int)> collect = [&](Block &block,
                                                    int depth) -> bool {
      for (Operation &op : block) {
        if (auto hint = llvm::dyn_cast<HintOp>(op)) {
          // Its result's spec is fixed (in its type); moving the source to
          // it is priced where the source is decided, and the solution
          // keeps what the plan's hints decided (below).
          hints.push_back(hint);
          continue;
        }
        if (auto call = llvm::dyn_cast<func::CallOp>(op)) {
          if (opaqueCallee(call))
            continue; // priced at its operands' producers (outsideTarget)
          func::FuncOp callee = inlinableCallee(call, depth, why);
          if (!callee)
            return false;
          if (collecting.contains(callee)) {
            why = ("skipped: @" + call.getCallee() + " is recursive").str();
            return false;
          }
          Operation *ret = callee.getBody().front().getTerminator();
          auto [it, first] = inlinedIndex.try_emplace(callee, inlined.size());
          unsigned index = it->second;
          inlinedIndex[call] = index;
          if (first) {
            inlined.push_back({callee, {call}});
            inlinedIndex[ret] = index;
            for (auto [arg, operand] :
                 llvm::zip(callee.getArguments(), call.getOperands()))
              alias[arg] = operand;
            collecting.insert(callee);
            bool ok = collect(callee.getBody().front(), depth + 1);
            collecting.erase(callee);
            if (!ok)
              return false;
          } else {
            inlined[index].calls.push_back(call);
          }
          for (auto [res, v] : llvm::zip(call.getResults(), ret->getOperands()))
            alias[res] = v;
          continue;
        }
        if (auto loop = llvm::dyn_cast<scf::ForOp>(op)) {
          // (A trip count that is not a constant: see multiplicity.)
          order.push_back(loop); // its carried values' nodes go here
          if (!collect(*loop.getBody(), depth))
            return false;
          continue;
        }
        if (auto loop = llvm::dyn_cast<scf::WhileOp>(op)) {
          // Its before region's arguments are carried (nodes, as an
          // scf.for's); what the condition forwards is the after region's
          // arguments and the loop's results as they are (the analysis
          // gives them the forwarded values' specs). Both regions count
          // kUnknownTrips times per run of the loop (see multiplicity).
          order.push_back(loop);
          for (auto [i, v] : llvm::enumerate(loop.getConditionOp().getArgs())) {
            alias[loop.getAfterArguments()[i]] = v;
            alias[loop->getResult(i)] = v;
          }
          if (!collect(loop.getBefore().front(), depth) ||
              !collect(loop.getAfter().front(), depth))
            return false;
          continue;
        }
        if (auto branch = llvm::dyn_cast<scf::IfOp>(op)) {
          // Both branches' ops join the model, each counted as if it ran
          // (as the analysis counts them); each result is a node (below)
          // that both yields move to.
          if (!collect(*branch.thenBlock(), depth) ||
              (branch.elseBlock() && !collect(*branch.elseBlock(), depth)))
            return false;
          order.push_back(branch); // its results' nodes go here
          continue;
        }
        if (!llvm::isa<ShardingRuleOpInterface>(op)) {
          if (op.getNumRegions()) {
            why = ("skipped: it has an " + op.getName().getStringRef() +
                   " (regions the model does not cover)")
                      .str();
            return false;
          }
          continue;
        }
        order.push_back(&op);
        if (op.hasAttr(kOperandSpecsAttr)) {
          decidedOrder.push_back(&op);
          toDecide += !window || window->ops.contains(&op);
        }
      }
      return true;
    };
    // Collected again while private callees turn out to be called from
    // elsewhere too (they become opaque; as `opaque` only grows, this ends).
    while (true) {
      if (!collect(body, 0))
        return note(why);
      bool more = false;
      for (Inlined &in : inlined)
        if (symbolUseCount(in.callee) != int64_t(in.calls.size()))
          more |= opaque.insert(in.callee).second;
      if (!more)
        break;
      order.clear();
      alias.clear();
      inlined.clear();
      inlinedIndex.clear();
      collecting.clear();
      hints.clear();
      decidedOrder.clear();
      toDecide = 0;
    }
    // How many times a block runs per call of the function.
    llvm::DenseMap<Block *, double> multiplicities;
    std::function<double(Block *)> multiplicity = [&](Block *b) -> double {
      if (b == &body)
        return 1;
      auto [it, fresh] = multiplicities.try_emplace(b, 0);
      if (!fresh)
        return it->second;
      Operation *parent = b->getParentOp();
      // A loop whose trip count is not a constant (an scf.while, an
      // scf.for of computed bounds) counts kUnknownTrips times: what the
      // model saves per iteration comes first. (The analysis counts such a
      // loop once, and the solution is kept only if the analysis finds it
      // cheaper too: so it is no worse than the plan for any trip count
      // from 1 to kUnknownTrips, the costs being linear in it.)
      double m;
      if (auto loop = llvm::dyn_cast<scf::ForOp>(parent)) {
        m = double(constantTrips(loop).value_or(kUnknownTrips)) *
            multiplicity(loop->getBlock());
      } else if (auto loop = llvm::dyn_cast<scf::WhileOp>(parent)) {
        m = double(kUnknownTrips) * multiplicity(loop->getBlock());
      } else if (auto callee = inlinedIndex.find(parent);
                 callee != inlinedIndex.end()) {
        m = 0;
        for (func::CallOp call : inlined[callee->second].calls)
          m += multiplicity(call->getBlock());
      } else {
        // Another op's region (a use in a linalg body): where that op runs.
        m = parent->getBlock() ? multiplicity(parent->getBlock()) : 1;
      }
      // Deep nests of long loops stay finite (an infinite count times a
      // free move would make a NaN cost).
      return multiplicities[b] = std::min(m, 1e15);
    };
    // The value `v` is inside the model (through inlined calls).
    auto resolve = [&](Value v) {
      for (auto it = alias.find(v); it != alias.end(); it = alias.find(v))
        v = it->second;
      return v;
    };
    // The uses of `v`, through first calls (into their callees' arguments)
    // and returns (out to every call's results). A later call's operand is
    // moved to the first call's (priced apart).
    std::function<void(Value, llvm::function_ref<void(OpOperand &)>)>
        forEachUse = [&](Value v, llvm::function_ref<void(OpOperand &)> f) {
          for (OpOperand &use : v.getUses()) {
            Operation *user = use.getOwner();
            if (llvm::isa<scf::YieldOp, scf::WhileOp>(user) ||
                (llvm::isa<scf::ForOp>(user) &&
                 use.getOperandNumber() >=
                     llvm::cast<scf::ForOp>(user).getNumControlOperands()))
              continue; // moved to the carried state (priced apart)
            if (auto cond = llvm::dyn_cast<scf::ConditionOp>(user)) {
              // Forwarded as it is: used where what it becomes is.
              unsigned i = use.getOperandNumber();
              if (i == 0)
                continue; // the condition
              auto loop = llvm::cast<scf::WhileOp>(cond->getParentOp());
              forEachUse(loop.getAfterArguments()[i - 1], f);
              forEachUse(loop->getResult(i - 1), f);
              continue;
            }
            auto it = inlinedIndex.find(user);
            if (it == inlinedIndex.end()) {
              f(use);
              continue;
            }
            Inlined &in = inlined[it->second];
            if (auto call = llvm::dyn_cast<func::CallOp>(user)) {
              if (call == in.calls.front())
                forEachUse(in.callee.getArgument(use.getOperandNumber()), f);
            } else {
              for (func::CallOp c : in.calls)
                forEachUse(c->getResult(use.getOperandNumber()), f);
            }
          }
        };
    if (toDecide == 0 && !autoArgs)
      return;
    if (toDecide > wholeFunctionOps) {
      if (autoArgs || window || wholeFunctionWindows == 0)
        return note("skipped: " + Twine(toDecide) + " ops to decide (limit " +
                    Twine(wholeFunctionOps) + ", whole-function-ops)");
      return optimizeWindows(fn, start, redo, decidedOrder);
    }
    // In a window: loops and branches whose bodies hold none of its ops
    // keep the states the plan carries (fixed, as its ops' results are).
    llvm::DenseSet<Operation *> aroundWindow;
    if (window)
      for (Operation *op : window->ops)
        for (Operation *p = op->getParentOp(); p && p != fn.getOperation();
             p = p->getParentOp())
          aroundWindow.insert(p);
    std::vector<WholeNode> nodes;
    llvm::DenseMap<Operation *, int> nodeOf;
    // Auto-sharding's arguments first: every placement without Partials.
    llvm::DenseMap<Value, int> argNodeOf;
    if (autoArgs)
      for (unsigned i : autoArgs->args) {
        BlockArgument a = fn.getArgument(i);
        auto type = llvm::cast<RankedTensorType>(a.getType());
        WholeNode n{nullptr, ShardingRule(), autoArgs->view, specOf(a), {}};
        for (Placements &ps : everyPlacement(autoArgs->view.shape.size(),
                                             type.getRank(),
                                             /*partialSum=*/false)) {
          WholeOption opt;
          opt.placed.push_back(std::move(ps));
          n.options.push_back(std::move(opt));
        }
        n.arg = a;
        argNodeOf[a] = int(nodes.size());
        nodes.push_back(std::move(n));
      }
    for (Operation *opPtr : order) {
      Operation &op = *opPtr;
      if (window && !window->ops.contains(&op) && !aroundWindow.contains(&op))
        continue; // outside the window: as the plan has it
      if (llvm::isa<scf::ForOp, scf::IfOp, scf::WhileOp>(op)) {
        // A node per distributed value a loop carries or a branch yields
        // without a spec of its own: the loop's region argument and result
        // (an scf.while's before region's argument), or the branch's
        // result, are in its state.
        for (Value v : carriedValues(&op)) {
          auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
          if (!type || getSpec(type))
            continue; // fixed (its sources move to it) or no tensor
          WholeNode n{nullptr, ShardingRule(), ResolvedMeshView(), specOf(v), {}};
          n.arg = v;
          n.carry = true;
          for (auto [source, block] : carriedSources(n.arg))
            if (!n.like)
              n.like = specOf(source);
          if (!n.like)
            continue; // nothing distributed is carried or yielded
          if (!type.hasStaticShape())
            return note("skipped: an " + op.getName().getStringRef() +
                        " carries or yields a tensor of dynamic shape");
          FailureOr<ResolvedMeshView> view = resolveMeshView(
              &op, n.like.getView(), *symbolTables,
              [&]() { return op.emitOpError(); });
          if (failed(view))
            return;
          n.view = std::move(*view);
          argNodeOf[v] = int(nodes.size());
          argNodeOf[carriedResult(n)] = int(nodes.size());
          nodes.push_back(std::move(n));
        }
        continue;
      }
      auto iface = llvm::dyn_cast<ShardingRuleOpInterface>(op);
      if (!iface || !op.hasAttr(kOperandSpecsAttr))
        continue; // nothing distributed reaches it
      std::string reason;
      FailureOr<const ShardingRule *> rule = ruleOf(iface, reason);
      SpecAttr like = likeOf(&op);
      if (!like)
        like = tableLikeOf(&op);
      if (failed(rule) || !like)
        return;
      // A distributed table read in the op's body (a lookup) is a read of
      // each option's (tableNeed, as propagation prices it); one the model
      // cannot price (on another view, of dynamic shape) skips it.
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(op.getRegions(), above);
      size_t distributedAbove =
          llvm::count_if(above, [&](Value v) { return bool(specOf(v)); });
      std::vector<TableRead> tables;
      if (distributedAbove)
        tables = tableReadsOf(&op, like);
      if (distributedAbove != tables.size())
        return note("skipped: an op reads a distributed tensor in its body "
                    "on another view or of dynamic shape");
      FailureOr<ResolvedMeshView> view = resolveMeshView(
          &op, like.getView(), *symbolTables, [&]() { return op.emitOpError(); });
      if (failed(view))
        return;
      nodeOf[&op] = int(nodes.size());
      nodes.push_back({&op, **rule, std::move(*view), like, {}});
      if (!tables.empty()) {
        nodes.back().maskedTable = maskedTableOf(tables);
        nodes.back().loopRanges =
            llvm::cast<linalg::LinalgOp>(op).getStaticLoopRanges();
        nodes.back().tables = std::move(tables);
      }
    }
    if (nodes.empty())
      return;

    // The states a value can be in: its producer's options' (one per
    // option), or the one its type or argument fixes; empty when plain.
    auto producerOf = [&](Value v, int64_t &result) -> int {
      v = resolve(v);
      if (auto arg = argNodeOf.find(v); arg != argNodeOf.end()) {
        result = 0;
        return arg->second;
      }
      auto res = llvm::dyn_cast<OpResult>(v);
      if (!res || getSpec(v.getType()))
        return -1;
      auto it = nodeOf.find(res.getOwner());
      if (it == nodeOf.end())
        return -1;
      result = res.getResultNumber();
      return it->second;
    };
    auto statesOf = [&](Value v) {
      v = resolve(v);
      std::vector<Placements> out;
      auto type = llvm::cast<RankedTensorType>(v.getType());
      int64_t r = 0;
      int p = producerOf(v, r);
      if (p >= 0) {
        const WholeNode &n = nodes[p];
        for (const WholeOption &o : n.options)
          out.push_back(o.placed[n.rule.numOperands() + r]);
      } else if (SpecAttr s = specOf(v)) {
        out.push_back(s.getNormalizedPlacements(type.getRank()));
      }
      return out;
    };

    // Options: every factor per mesh dim, with the rows the operands' possible
    // states give (Partials pass through only where an operand can be one).
    constexpr size_t kMaxOptions = 512, kMaxStates = 64;
    // Nodes of one kind (below) have the same options: per node its kind
    // (-1: one of its own), per kind its first node.
    std::vector<int> nodeClass(nodes.size(), -1);
    std::vector<int> classFirst;
    std::unordered_map<std::vector<int64_t>, int, WordsHash> classOf;
    // The states a value can be in (statesOf) as a number: equal lists,
    // equal numbers (-1: plain).
    std::unordered_map<std::vector<int64_t>, int64_t, WordsHash> stateLists;
    llvm::DenseMap<Value, int64_t> stateListOf;
    auto stateListId = [&](Value v) -> int64_t {
      auto [known, fresh] = stateListOf.try_emplace(v, -1);
      if (!fresh)
        return known->second;
      // (statesOf's lists, read in place.)
      std::vector<int64_t> words;
      auto encode = [&](const Placements &ps) {
        words.push_back(-1 - int64_t(ps.size()));
        for (const Placement &p : ps)
          words.push_back(
              (int64_t(p.kind) << 56) |
              (p.isPartial() ? int64_t(p.reduce) << 48 : 0) |
              (p.isShard() ? ((p.dim & 0xffffff) << 24) | (p.order & 0xffffff)
                           : 0));
      };
      Value at = resolve(v);
      int64_t r = 0;
      if (int p = producerOf(at, r); p >= 0) {
        const WholeNode &n = nodes[p];
        for (const WholeOption &o : n.options)
          encode(o.placed[n.rule.numOperands() + r]);
      } else if (SpecAttr s = specOf(at)) {
        encode(s.getNormalizedPlacements(
            llvm::cast<RankedTensorType>(at.getType()).getRank()));
      }
      if (words.empty())
        return -1;
      int64_t id = stateLists.try_emplace(std::move(words), stateLists.size())
                       .first->second;
      stateListOf[v] = id;
      return id;
    };
    for (WholeNode &n : nodes) {
      if (n.carry) {
        // A carried value's states: its init's (a branch result's: both
        // yields'), the plan's, and every placement of R, S(d) and P(sum)
        // per mesh dim.
        auto type = llvm::cast<RankedTensorType>(n.arg.getType());
        int64_t meshRank = n.view.shape.size();
        std::vector<Placements> states;
        auto sources = carriedSources(n.arg);
        if (llvm::isa<BlockArgument>(n.arg))
          sources.pop_back(); // a loop's yield: its states follow the carried one
        for (auto [source, block] : sources)
          for (Placements &ps : statesOf(source))
            states.push_back(std::move(ps));
        if (SpecAttr planned = specOf(n.arg))
          states.push_back(planned.getNormalizedPlacements(type.getRank()));
        else
          states.push_back(Placements(meshRank, Placement::replicate()));
        // (A branch's result: the analysis gives it one yield's spec, so
        // only the yields' states; a loop may carry a third state, such as
        // a Partial sum its body accumulates.)
        if (llvm::isa<BlockArgument>(n.arg))
          for (Placements &ps :
               everyPlacement(meshRank, type.getRank(), /*partialSum=*/true))
            states.push_back(std::move(ps));
        for (Placements &ps : states) {
          bool seen = llvm::any_of(n.options, [&](const WholeOption &o) {
            return sameIgnoringDefaultOrders(o.placed[0], ps);
          });
          if (seen)
            continue;
          WholeOption opt;
          opt.placed.push_back(std::move(ps));
          n.options.push_back(std::move(opt));
        }
        continue;
      }
      if (!n.op)
        continue; // an argument: its placements
      const ShardingRule &rule = n.rule;
      size_t numPlaced = rule.numOperands(), numResults = rule.numResults();
      int64_t meshRank = n.view.shape.size();
      // Ops alike (structure, types, mesh view) whose operands can be in
      // the same states have the same options: a chain of equal layers
      // enumerates one layer's. (A lookup is a kind of its own: its options
      // and prices depend on its tables.)
      int index = int(&n - nodes.data());
      if (n.tables.empty()) {
        std::vector<int64_t> classKey;
        classKey.push_back(structuralId(n.op));
        classKey.push_back(
            reinterpret_cast<intptr_t>(n.view.mesh.getOperation()));
        for (int64_t size : n.view.shape)
          classKey.push_back(size);
        for (const SmallVector<int64_t> &dims : n.view.meshDims) {
          classKey.push_back(-1 - int64_t(dims.size()));
          llvm::append_range(classKey, dims);
        }
        for (size_t o = 0; o < numPlaced; ++o)
          classKey.push_back(
              stateListId(resolve(n.op->getOperand(rule.operands[o]))));
        auto [known, fresh] =
            classOf.try_emplace(std::move(classKey), int(classFirst.size()));
        if (fresh) {
          classFirst.push_back(index);
          nodeClass[index] = known->second;
        } else if (sameProperties(nodes[classFirst[known->second]].op, n.op)) {
          n.options = nodes[classFirst[known->second]].options;
          nodeClass[index] = known->second;
          continue;
        }
      }
      std::vector<std::vector<Placements>> states(numPlaced);
      std::vector<bool> distributed(numPlaced);
      for (size_t o = 0; o < numPlaced; ++o) {
        Value v = n.op->getOperand(rule.operands[o]);
        states[o] = statesOf(v);
        distributed[o] = !states[o].empty();
        if (states[o].empty())
          states[o].push_back(Placements(meshRank, Placement::replicate()));
      }
      // Per mesh dim: the distinct (factor, row) pairs. A row reads of
      // the operands' states only what factorView keeps (their Partials,
      // their shards along windowed dims), so per factor only the distinct
      // views combine (a concat of many operands, each S or R, has one).
      std::vector<std::vector<std::pair<int64_t, std::vector<Placement>>>> rows(
          meshRank);
      for (int64_t d = 0; d < meshRank; ++d)
        for (int64_t f = kReplicateAll; f < int64_t(rule.factors.size()); ++f) {
          std::vector<std::vector<Placement>> heres(numPlaced);
          size_t combos = 1;
          for (size_t o = 0; o < numPlaced; ++o) {
            for (const Placements &s : states[o]) {
              Placement view = factorView(rule, f, o, s[d]);
              if (!llvm::is_contained(heres[o], view))
                heres[o].push_back(view);
            }
            combos *= heres[o].size();
            if (combos > kMaxStates)
              return note("skipped: too many operand states at " +
                          n.op->getName().getStringRef());
          }
          for (size_t c = 0; c < combos; ++c) {
            std::vector<Placement> here(numPlaced);
            size_t rest = c;
            for (size_t o = 0; o < numPlaced; ++o) {
              here[o] = heres[o][rest % heres[o].size()];
              rest /= heres[o].size();
            }
            std::optional<std::vector<Placement>> row =
                placementsForFactor(rule, f, here);
            if (!row)
              continue;
            std::pair<int64_t, std::vector<Placement>> entry{f, *row};
            if (!llvm::is_contained(rows[d], entry))
              rows[d].push_back(std::move(entry));
          }
        }
      // A lookup reading plain operands only splits its loops where its
      // tables lie (as visitRuleOp).
      if (!n.tables.empty() && llvm::none_of(distributed, [](bool b) { return b; }))
        for (int64_t d = 0; d < meshRank; ++d)
          llvm::erase_if(rows[d], [&](const auto &entry) {
            return !plainLookupMayTake(n.tables, d, entry.first, n.loopRanges);
          });
      // A lookup of a table sharded along a dim it reads at a computed
      // index may leave it there (as visitRuleOp's masked rows): every
      // operand whole on that mesh dim, the results and inits P(sum).
      if (n.maskedTable >= 0)
        for (int64_t d = 0; d < meshRank; ++d) {
          if (!masksOn(n.tables[n.maskedTable], d))
            continue;
          size_t count = rows[d].size();
          for (size_t i = 0; i < count; ++i) {
            if (rows[d][i].first != kReplicateAll)
              continue;
            std::pair<int64_t, std::vector<Placement>> entry{
                kMaskedLookup, maskedRowOf(rule, rows[d][i].second)};
            if (!llvm::is_contained(rows[d], entry))
              rows[d].push_back(std::move(entry));
          }
        }
      std::vector<size_t> pick(meshRank, 0);
      std::function<bool(int64_t)> enumerate = [&](int64_t d) -> bool {
        if (d == meshRank) {
          WholeOption opt;
          opt.placed.assign(numPlaced + numResults, Placements(meshRank));
          for (int64_t m = 0; m < meshRank; ++m) {
            opt.factors.push_back(rows[m][pick[m]].first);
            for (size_t o = 0; o < numPlaced + numResults; ++o)
              opt.placed[o][m] = rows[m][pick[m]].second[o];
          }
          std::vector<std::vector<Placements>> variants = shardOrderVariants(
              n.rule, opt.factors, opt.placed,
              [&](size_t o) -> ArrayRef<Placements> {
                return o < numPlaced ? ArrayRef<Placements>(states[o])
                                     : ArrayRef<Placements>();
              });
          std::string error;
          if (!divisibilityHolds(rule, opt.factors, n.view.shape, error))
            return true;
          if (n.maskedTable >= 0 &&
              !maskedLookupLegal(n.view, n.tables[n.maskedTable], opt.factors,
                                 n.loopRanges))
            return true;
          for (size_t o = 0; o < numPlaced + numResults; ++o) {
            std::optional<ReduceKind> kind;
            for (const Placement &p : opt.placed[o])
              if (p.isPartial()) {
                if (kind && *kind != p.reduce)
                  return true;
                kind = p.reduce;
              }
            if (o < numPlaced && kind && !distributed[o] && !rule.isInit(o))
              return true; // a plain input cannot become a Partial
            if (o < numPlaced && kind && rule.isInit(o)) {
              Value init = n.op->getOperand(rule.operands[o]);
              if ((!distributed[o] || isFreshTensor(init)) &&
                  !initTakesPartial(init, *kind))
                return true; // an init whose terms partitioning cannot make
            }
          }
          // One option per shard order worth trying (the solver prices the
          // moves each makes).
          for (std::vector<Placements> &v : variants) {
            if (llvm::any_of(n.options, [&](const WholeOption &other) {
                  return other.placed == v;
                }))
              continue;
            WholeOption one = opt;
            one.placed = std::move(v);
            n.options.push_back(std::move(one));
            if (n.options.size() > kMaxOptions)
              return false;
          }
          return true;
        }
        for (size_t i = 0; i < rows[d].size(); ++i) {
          pick[d] = i;
          if (!enumerate(d + 1))
            return false;
        }
        return true;
      };
      if (!enumerate(0))
        return note("skipped: too many strategies at " +
                    n.op->getName().getStringRef());
      if (n.options.empty())
        return;
    }
    std::vector<size_t> optionCounts;
    for (const WholeNode &n : nodes)
      optionCounts.push_back(n.options.size());
    if (!keepHintDecisions(nodes, hints, resolve, producerOf, autoArgs, why))
      return note(why);
    // A node whose options a hint narrowed is a kind of its own.
    for (auto [i, n] : llvm::enumerate(nodes))
      if (n.options.size() != optionCounts[i])
        nodeClass[i] = -1;
    stateListOf.clear(); // (the hints may have narrowed some)
    // Per kind, each option's own work (time, bytes), built by its first
    // node and read by the others.
    std::vector<std::vector<std::pair<double, double>>> ownOf(classFirst.size());

    // The problem: node costs (results moved to annotations, returns and
    // distribute_tensors) and one demand per value the nodes read.
    AssignmentProblem problem;
    auto ret = llvm::cast<func::ReturnOp>(body.getTerminator());
    // The placements a use outside the model needs of a value the model
    // decides: a distribute_tensor's spec, the function's result spec
    // (whole for a public function's plain result), whole for an op that
    // reads it whole (readsWhole); none for other users.
    // Whether a use is a lookup's read of its table in its body (a node's:
    // a demand prices it).
    llvm::DenseSet<Value> tableValues;
    for (const WholeNode &n : nodes)
      for (const TableRead &t : n.tables)
        tableValues.insert(t.table);
    auto readAsTable = [&](OpOperand &use) {
      if (!tableValues.contains(use.get()))
        return false;
      for (Operation *at = use.getOwner()->getParentOp(); at;
           at = at->getParentOp())
        if (auto it = nodeOf.find(at); it != nodeOf.end())
          return llvm::any_of(nodes[it->second].tables, [&](const TableRead &t) {
            return t.table == use.get();
          });
      return false;
    };
    auto outsideTarget = [&](OpOperand &use, int64_t rank,
                             size_t meshRank) -> std::optional<Placements> {
      Operation *user = use.getOwner();
      if (readAsTable(use))
        return std::nullopt;
      if (auto dist = llvm::dyn_cast<DistributeTensorOp>(user))
        return getSpec(dist.getType()).getNormalizedPlacements(rank);
      if (auto hint = llvm::dyn_cast<HintOp>(user))
        return getSpec(hint.getType()).getNormalizedPlacements(rank);
      if (auto call = llvm::dyn_cast<func::CallOp>(user))
        if (func::FuncOp callee = opaqueCallee(call)) {
          // To the callee's argument's spec (gathered whole to a plain one).
          if (SpecAttr s = specOf(callee.getArgument(use.getOperandNumber())))
            return s.getNormalizedPlacements(rank);
          return Placements(meshRank, Placement::replicate());
        }
      if (user == ret.getOperation()) {
        if (SpecAttr s = getSpec(fn.getResultTypes()[use.getOperandNumber()]))
          return s.getNormalizedPlacements(rank);
        if (fn.isPublic())
          return Placements(meshRank, Placement::replicate());
      }
      if (readsWhole(user))
        return Placements(meshRank, Placement::replicate());
      if (window && llvm::isa<ShardingRuleOpInterface>(user))
        if (auto specs = user->getAttrOfType<ArrayAttr>(kOperandSpecsAttr);
            specs && use.getOperandNumber() < specs.size())
          if (auto s = llvm::dyn_cast<SpecAttr>(
                  specs[use.getOperandNumber()]))
            return s.getNormalizedPlacements(rank); // an op outside, as planned
      return std::nullopt;
    };
    for (WholeNode &n : nodes) {
      size_t numPlaced = n.rule.numOperands();
      AssignmentProblem::Node pn;
      if (n.carry) {
        // Its sources' moves are demands (below); the loop's or branch's
        // result moves to the function's result and distribute_tensors as
        // an op's result does.
        Value res = carriedResult(n);
        auto type = llvm::cast<RankedTensorType>(res.getType());
        std::vector<std::pair<Placements, double>> outside;
        forEachUse(res, [&](OpOperand &use) {
          if (std::optional<Placements> want =
                  outsideTarget(use, type.getRank(), n.view.shape.size()))
            outside.push_back(
                {std::move(*want), multiplicity(use.getOwner()->getBlock())});
        });
        for (const WholeOption &opt : n.options) {
          double time = 0, bytes = 0;
          for (const auto &[want, count] : outside) {
            auto [t, b] = movePrice(n.view, type, opt.placed[0], want,
                                    /*intoPartial=*/true);
            time += count * t;
            bytes += count * b;
          }
          pn.cost.push_back(time);
          pn.bytes.push_back(autoArgs ? 0 : bytes);
        }
        problem.nodes.push_back(std::move(pn));
        continue;
      }
      if (!n.op) {
        // An argument arrives in its layout for nothing; its "bytes" are
        // its shard's (the memory the budget bounds). Users outside the
        // model (a tensor.extract, a return) need it as they are priced
        // elsewhere: whole, or in the result's spec; each distinct target
        // is paid once.
        auto type = llvm::cast<RankedTensorType>(n.arg.getType());
        std::vector<Placements> outside;
        std::vector<double> times; // how many times each is moved
        forEachUse(n.arg, [&](OpOperand &use) {
          Operation *user = use.getOwner();
          if (nodeOf.count(user) || readAsTable(use))
            return; // a node: a demand prices it
          Placements want(n.view.shape.size(), Placement::replicate());
          if (user == ret.getOperation()) {
            if (SpecAttr s =
                    getSpec(fn.getResultTypes()[use.getOperandNumber()]))
              want = s.getNormalizedPlacements(type.getRank());
          } else if (auto hint = llvm::dyn_cast<HintOp>(user)) {
            want = getSpec(hint.getType()).getNormalizedPlacements(
                type.getRank());
          } else if (auto call = llvm::dyn_cast<func::CallOp>(user)) {
            if (func::FuncOp callee = opaqueCallee(call))
              if (SpecAttr s =
                      specOf(callee.getArgument(use.getOperandNumber())))
                want = s.getNormalizedPlacements(type.getRank());
          }
          if (!llvm::is_contained(outside, want)) {
            outside.push_back(want);
            times.push_back(multiplicity(user->getBlock()));
          }
        });
        for (const WholeOption &opt : n.options) {
          double time = 0;
          for (auto [want, count] : llvm::zip(outside, times))
            time += count * movePrice(n.view, type, opt.placed[0], want,
                                      /*intoPartial=*/true)
                                .first;
          pn.cost.push_back(time);
          pn.bytes.push_back(shardBytes(type, opt.placed[0], n.view));
        }
        problem.nodes.push_back(std::move(pn));
        continue;
      }
      // What happens at the op happens once per run of its block.
      double runs = multiplicity(n.op->getBlock());
      // (Halo prices are the op's own.)
      int kind = nodeClass[&n - nodes.data()];
      std::vector<std::pair<double, double>> *ownRow =
          kind >= 0 && n.rule.windows.empty() ? &ownOf[kind] : nullptr;
      for (const WholeOption &opt : n.options) {
        double time = 0, bytes = 0;
        auto add = [&](Value res, const Placements &from, const Placements &to,
                       double count) {
          auto [t, b] =
              movePrice(n.view, llvm::cast<RankedTensorType>(res.getType()),
                        from, to, /*intoPartial=*/true);
          time += count * t;
          bytes += count * b;
        };
        for (size_t r = 0; r < n.rule.numResults(); ++r) {
          Value res = n.op->getResult(r);
          auto type = llvm::cast<RankedTensorType>(res.getType());
          const Placements &have = opt.placed[numPlaced + r];
          if (SpecAttr s = getSpec(type)) {
            add(res, have, s.getNormalizedPlacements(type.getRank()), runs);
            continue; // its users see the annotation
          }
          forEachUse(res, [&](OpOperand &use) {
            if (std::optional<Placements> want =
                    outsideTarget(use, type.getRank(), n.view.shape.size()))
              add(res, have, *want, multiplicity(use.getOwner()->getBlock()));
          });
        }
        double own = 0, ownBytes = 0;
        size_t k = size_t(&opt - n.options.data());
        if (ownRow && k < ownRow->size()) {
          std::tie(own, ownBytes) = (*ownRow)[k];
          time += runs * own;
          bytes += runs * ownBytes;
          pn.cost.push_back(time);
          pn.bytes.push_back(autoArgs ? 0 : bytes);
          continue;
        }
        // The op's own work per rank. Planning a given program: as memory
        // traffic (the local pieces of its operands and results, at
        // kMemoryBytesPerUs) weighted kComputeWeight, a tie-breaker: where
        // communication ties, the solver computes sharded, as propagation
        // prefers the most sharded result (propagation, the analysis that
        // decides whether the solution is kept, and the exhaustive check
        // all minimize communication). Auto-sharding, which chooses the
        // layouts themselves: a real cost, the roofline time of the comm
        // report's step model (the op's flops divided by the mesh dims that
        // split its loops, at kFlopsPerUs, or its traffic, whichever is
        // longer), so dividing the work pays as moving data costs.
        double traffic = 0;
        for (size_t o = 0; o < opt.placed.size(); ++o) {
          Value v = o < numPlaced ? n.op->getOperand(n.rule.operands[o])
                                  : n.op->getResult(o - numPlaced);
          auto type = llvm::cast<RankedTensorType>(v.getType());
          traffic += shardBytes(type, opt.placed[o], n.view);
        }
        if (autoArgs) {
          double split = 1;
          for (size_t m = 0; m < opt.factors.size(); ++m)
            if (opt.factors[m] >= 0)
              split *= double(n.view.shape[m]);
          own += std::max(linalgFlops(n.op).value_or(0) / split / kFlopsPerUs,
                          traffic / kMemoryBytesPerUs);
        } else {
          own += kComputeWeight * traffic / kMemoryBytesPerUs;
        }
        // Its halo exchanges, as propagation prices them.
        if (!n.rule.windows.empty()) {
          auto [t, b] = haloPrice(n.view, n.op, n.rule, opt.factors, opt.placed);
          own += t;
          ownBytes += b;
        }
        if (ownRow)
          ownRow->push_back({own, ownBytes});
        time += runs * own;
        bytes += runs * ownBytes;
        pn.cost.push_back(time);
        // Auto-sharding bounds memory, not bytes moved.
        pn.bytes.push_back(autoArgs ? 0 : bytes);
      }
      problem.nodes.push_back(std::move(pn));
    }
    // Demands: per value read by a node, its distinct targets.
    // (A value read in a callee and in its caller moves in each: the
    // analysis redistributes per block.)
    llvm::MapVector<std::pair<Value, Block *>, int> demandOf;
    // What a consumer's options need of an operand and the prices from
    // each of its producer's states: the same for every consumer of a kind
    // reading a producer of a kind (per consumer kind, operand and
    // producer: `rowsOf`).
    struct DemandRows {
      /// Per consumer option, its target among `wants`.
      std::vector<int> localOf;
      /// The distinct targets in the order the options first need them,
      /// each as the option that needs it first.
      std::vector<int> wants;
      /// Per producer state and target: the price of one move.
      std::vector<std::vector<std::pair<double, double>>> price;
    };
    std::unordered_map<std::vector<int64_t>, DemandRows, WordsHash> rowsOf;
    for (auto [ni, n] : llvm::enumerate(nodes)) {
      // Its placed operands, as each option places them, then the tables
      // its body reads, as each option needs them.
      size_t numPlaced = n.rule.numOperands();
      std::vector<std::vector<Placements>> tableWants(n.tables.size());
      for (auto [i, t] : llvm::enumerate(n.tables))
        for (const WholeOption &opt : n.options)
          tableWants[i].push_back(tableNeed(t, int(i) == n.maskedTable,
                                            opt.factors, n.loopRanges));
      for (size_t o = 0; o < numPlaced + n.tables.size(); ++o) {
        bool table = o >= numPlaced;
        Value read = table ? n.tables[o - numPlaced].table
                           : n.op->getOperand(n.rule.operands[o]);
        auto wantOf = [&](size_t k) -> const Placements & {
          return table ? tableWants[o - numPlaced][k] : n.options[k].placed[o];
        };
        Value v = resolve(read);
        int64_t r = 0;
        int p = producerOf(v, r);
        SpecAttr fixed = p < 0 ? specOf(v) : SpecAttr();
        if (p < 0 && !fixed)
          continue; // plain: each rank slices it
        if (!table && n.rule.isInit(o) && isFreshTensor(v))
          continue; // made fresh in any spec
        auto type = llvm::cast<RankedTensorType>(v.getType());
        auto buildRows = [&](DemandRows &rows) {
          std::vector<Placements> from = statesOf(v);
          std::vector<size_t> firstOf(from.size());
          for (size_t a = 0; a < from.size(); ++a)
            firstOf[a] = size_t(llvm::find(from, from[a]) - from.begin());
          rows.price.resize(from.size());
          for (size_t k = 0; k < n.options.size(); ++k) {
            const Placements &want = wantOf(k);
            auto t = llvm::find_if(rows.wants,
                                   [&](int w) { return wantOf(w) == want; });
            rows.localOf.push_back(int(t - rows.wants.begin()));
            if (t != rows.wants.end())
              continue;
            rows.wants.push_back(int(k));
            // Producer options that give the same state share its price.
            for (size_t a = 0; a < from.size(); ++a)
              rows.price[a].push_back(
                  firstOf[a] < a ? rows.price[firstOf[a]].back()
                                 : movePrice(n.view, type, from[a], want));
          }
        };
        DemandRows own;
        DemandRows *rows = &own;
        if (int kind = nodeClass[ni]; kind >= 0 && !table) {
          std::vector<int64_t> key{kind, int64_t(o), stateListId(v)};
          auto [at, first] = rowsOf.try_emplace(std::move(key));
          rows = &at->second;
          if (first)
            buildRows(*rows);
        } else {
          buildRows(own);
        }
        size_t numFrom = rows->price.size();
        auto [it, fresh] = demandOf.try_emplace({v, n.op->getBlock()},
                                                int(problem.demands.size()));
        if (fresh) {
          AssignmentProblem::Demand d;
          d.producer = p;
          d.cost.resize(numFrom);
          d.bytes.resize(numFrom);
          problem.demands.push_back(std::move(d));
          demandStates.push_back({});
        }
        AssignmentProblem::Demand &d = problem.demands[it->second];
        std::vector<Placements> &targets = demandStates[it->second];
        // (A move of a value from outside the loops around the op leaves
        // them: hoistTrips.)
        double runs = multiplicity(n.op->getBlock()) /
                      hoistTrips(read, n.op, invariantCache);
        for (size_t a = 0; a < numFrom; ++a)
          for (std::vector<double> *row : {&d.cost[a], &d.bytes[a]})
            if (row->capacity() < row->size() + rows->wants.size())
              row->reserve(std::max(2 * row->capacity(),
                                    row->size() + rows->wants.size()));
        // The rows' targets among the demand's (other consumers of the
        // value may have added some).
        std::vector<int> global;
        for (auto [l, w] : llvm::enumerate(rows->wants)) {
          const Placements &want = wantOf(w);
          auto t = llvm::find(targets, want);
          global.push_back(int(t - targets.begin()));
          if (t != targets.end())
            continue;
          targets.push_back(want);
          for (size_t a = 0; a < numFrom; ++a) {
            auto [time, bytes] = rows->price[a][l];
            d.cost[a].push_back(time * runs);
            d.bytes[a].push_back(bytes * runs);
          }
        }
        std::vector<int> need;
        need.reserve(rows->localOf.size());
        for (int l : rows->localOf)
          need.push_back(global[l]);
        d.consumers.push_back({int(ni), std::move(need)});
      }
    }
    demandStates.clear();
    // `have` moving to the state of `want` `runs` times: a later call's
    // operand to its first call's (the callee's argument), a loop's init
    // and yield to the state it carries.
    // Moves into a Partial are priced (else illegal) toward the states in
    // `intoPartial` (null: every state).
    auto moveToState = [&](Value want, Value have, double runs,
                           const std::vector<Placements> *intoPartial) {
      auto type = llvm::dyn_cast<RankedTensorType>(have.getType());
      if (want == have || !type)
        return;
      std::vector<Placements> from = statesOf(have);
      if (from.empty())
        return; // plain: each rank slices it
      std::vector<Placements> to = statesOf(want);
      int64_t rh = 0, rw = 0;
      int ph = producerOf(have, rh), pw = producerOf(want, rw);
      if (ph < 0 && pw < 0)
        return; // the same whatever is chosen
      const ResolvedMeshView &view = nodes[ph >= 0 ? ph : pw].view;
      if (to.empty()) // a plain argument: gathered whole
        to.push_back(Placements(from.front().size(), Placement::replicate()));
      auto price = [&](const Placements &a, const Placements &b) {
        auto [t, bytes] = movePrice(
            view, type, a, b,
            !intoPartial || llvm::is_contained(*intoPartial, b));
        return std::make_pair(runs * t, runs * bytes);
      };
      if (pw < 0 || ph == pw) {
        // One node decides both states (or the target is fixed): part of
        // that node's cost.
        for (size_t o = 0; o < problem.nodes[ph].cost.size(); ++o) {
          auto [t, b] = price(from[o], pw < 0 ? to.front() : to[o]);
          problem.nodes[ph].cost[o] += t;
          problem.nodes[ph].bytes[o] += autoArgs ? 0 : b;
        }
        return;
      }
      if (ph < 0) {
        for (size_t o = 0; o < problem.nodes[pw].cost.size(); ++o) {
          auto [t, b] = price(from.front(), to[o]);
          problem.nodes[pw].cost[o] += t;
          problem.nodes[pw].bytes[o] += autoArgs ? 0 : b;
        }
        return;
      }
      // Two nodes: a demand of `have` whose consumer is the node that gives
      // `want` its state.
      AssignmentProblem::Demand d;
      d.producer = ph;
      std::vector<Placements> targets;
      std::vector<int> need;
      for (const Placements &t : to) {
        auto at = llvm::find(targets, t);
        need.push_back(int(at - targets.begin()));
        if (at == targets.end())
          targets.push_back(t);
      }
      d.cost.resize(from.size());
      d.bytes.resize(from.size());
      for (size_t a = 0; a < from.size(); ++a)
        for (const Placements &t : targets) {
          auto [time, bytes] = price(from[a], t);
          d.cost[a].push_back(time);
          d.bytes[a].push_back(bytes);
        }
      d.consumers.push_back({pw, std::move(need)});
      problem.demands.push_back(std::move(d));
    };
    for (const Inlined &in : inlined) {
      func::CallOp first = in.calls.front();
      for (func::CallOp call : llvm::drop_begin(in.calls))
        for (unsigned j = 0; j < call.getNumOperands(); ++j)
          moveToState(resolve(first.getOperand(j)), resolve(call.getOperand(j)),
                      multiplicity(call->getBlock()), nullptr);
    }
    // A loop's init moves once per entry, its yield once per iteration; a
    // branch's yield once per run of the branch.
    for (Operation *op : order) {
      if (!llvm::isa<scf::ForOp, scf::WhileOp, scf::IfOp>(op))
        continue;
      bool loop = !llvm::isa<scf::IfOp>(op);
      for (Value carried : carriedValues(op)) {
        auto sources = carriedSources(carried);
        // A loop's into a Partial only toward the states the analysis may
        // carry (the init's or the yield's: an R init moved once to the
        // P(sum) the body accumulates); pricing every state's would cost
        // planner searches by the thousand on 3-D meshes. A branch's
        // toward every state.
        std::vector<Placements> analysed;
        if (loop)
          for (auto &[source, block] : sources)
            for (Placements &ps : statesOf(resolve(source)))
              analysed.push_back(std::move(ps));
        for (auto &[source, block] : sources)
          moveToState(carried, resolve(source), multiplicity(block),
                      loop ? &analysed : nullptr);
      }
    }
    if (autoArgs)
      for (AssignmentProblem::Demand &d : problem.demands)
        for (std::vector<double> &row : d.bytes)
          std::fill(row.begin(), row.end(), 0.0);

    // The plan's choice as the start: the option with the specs it recorded
    // (an argument's: its smallest shard, so the start keeps any budget
    // that can be kept).
    std::vector<int> startChoice;
    for (auto [index, n] : llvm::enumerate(nodes)) {
      if (n.carry) {
        // The state the plan carries (plain: replicated).
        auto type = llvm::cast<RankedTensorType>(n.arg.getType());
        SpecAttr planned = specOf(n.arg);
        Placements want =
            planned ? dropDefaultOrders(
                          planned.getNormalizedPlacements(type.getRank()))
                    : Placements(n.view.shape.size(), Placement::replicate());
        auto it = llvm::find_if(n.options, [&](const WholeOption &o) {
          return dropDefaultOrders(o.placed[0]) == want;
        });
        if (it == n.options.end())
          return note("skipped: the plan's carried state is not among its "
                      "options");
        startChoice.push_back(int(it - n.options.begin()));
        continue;
      }
      if (!n.op) {
        const std::vector<double> &bytes = problem.nodes[index].bytes;
        startChoice.push_back(
            int(std::min_element(bytes.begin(), bytes.end()) - bytes.begin()));
        continue;
      }
      auto operandSpecs = n.op->getAttrOfType<ArrayAttr>(kOperandSpecsAttr);
      auto resultSpecs = n.op->getAttrOfType<ArrayAttr>(kResultSpecsAttr);
      auto placementsOf = [&](Attribute a, Type t) -> std::optional<Placements> {
        auto s = llvm::dyn_cast_or_null<SpecAttr>(a);
        if (!s)
          return std::nullopt;
        return dropDefaultOrders(s.getNormalizedPlacements(
            llvm::cast<RankedTensorType>(t).getRank()));
      };
      int found = -1;
      for (auto [i, opt] : llvm::enumerate(n.options)) {
        bool same = operandSpecs && resultSpecs;
        for (size_t o = 0; same && o < n.rule.numOperands(); ++o) {
          unsigned num = n.rule.operands[o];
          auto want = placementsOf(num < operandSpecs.size() ? operandSpecs[num]
                                                             : Attribute(),
                                   n.op->getOperand(num).getType());
          same = want && *want == dropDefaultOrders(opt.placed[o]);
        }
        for (size_t r = 0; same && r < n.rule.numResults(); ++r) {
          auto want = placementsOf(r < resultSpecs.size() ? resultSpecs[r]
                                                          : Attribute(),
                                   n.op->getResult(r).getType());
          same = want && *want ==
                             dropDefaultOrders(opt.placed[n.rule.numOperands() + r]);
        }
        if (same) {
          found = int(i);
          break;
        }
      }
      if (found < 0)
        return note("skipped: the plan's choice at " +
                    n.op->getName().getStringRef() +
                    " is not among its strategies");
      startChoice.push_back(found);
    }
    AssignmentValue greedy = evaluateAssignment(problem, startChoice);
    if (!(greedy.time < kInf))
      return note("skipped: the model cannot price the plan");
    // No more bytes than the plan, or than the plan DTensor's eager
    // dispatch makes (each op by the cheapest moves of its operands from
    // the choices before it, as DTensor picks a strategy): a faster plan
    // may not move more data than the larger of the two. (Bounded by the plan alone, a
    // 4-rank attention with k sharded on its head dim took 3 all_to_alls,
    // 25 us, for DTensor's one all_gather, 8.4 us, to save 768 bytes.)
    problem.bytesLimit = greedy.bytes;
    std::optional<AssignmentValue> eager;
    if (!window && !autoArgs) { // (auto-sharding bounds memory instead)
      std::vector<bool> decide(nodes.size());
      for (auto [index, n] : llvm::enumerate(nodes))
        decide[index] = n.op != nullptr;
      if (std::optional<std::vector<int>> choice =
              myopicAssignment(problem, startChoice, decide)) {
        AssignmentValue value = evaluateAssignment(problem, *choice);
        if (value.time < kInf) {
          eager = value;
          problem.bytesLimit = std::max(greedy.bytes, value.bytes);
        }
      }
    }
    double budget = autoArgs && memoryBudgetMb > 0
                        ? memoryBudgetMb * 1024.0 * 1024.0
                        : std::numeric_limits<double>::infinity();
    if (autoArgs) {
      // Auto-sharding: the arguments' shards within the budget instead.
      problem.bytesLimit = budget;
      if (greedy.bytes > budget) {
        fn.emitError() << "auto-sharding @" << fn.getSymName()
                       << ": the arguments need " << int64_t(greedy.bytes)
                       << " bytes per rank with each sharded as finely as it "
                          "can be, more than memory-budget-mb allows ("
                       << int64_t(budget) << " bytes)";
        failedAny = true;
        autoChosen = true; // said here
        return;
      }
    }
    std::string error;
    auto began = std::chrono::steady_clock::now();
    // (The windows of a function share its time limit.)
    double seconds =
        window ? wholeFunctionSeconds /
                     double(std::max<int64_t>(1, wholeFunctionWindows))
               : double(wholeFunctionSeconds);
    std::optional<AssignmentSolution> solution =
        solveAssignment(problem, startChoice, seconds, error);
    // A solution beyond the plan's bytes is kept only where it beats the
    // best one within them by time x bytes (it saves at least the fraction
    // of time it adds in bytes). (The distinct-width Megatron stack of
    // dtensor-propagate-whole-stack.test would otherwise move 1.9x the
    // bytes to save 0.8 % of the time.)
    if (solution && !autoArgs && solution->value.bytes > greedy.bytes + kEps) {
      problem.bytesLimit = greedy.bytes;
      std::string againError;
      std::optional<AssignmentSolution> within =
          solveAssignment(problem, startChoice, seconds, againError);
      if (within && !(solution->value.time * solution->value.bytes <
                      within->value.time * within->value.bytes * (1 - 1e-9))) {
        solution = std::move(within);
        eager.reset();
      }
    }
    double solveSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - began)
                              .count();
    if (!solution)
      return note("failed: " + error);
    size_t strategies = 0, carried = 0, joined = 0;
    for (const WholeNode &n : nodes) {
      strategies += n.options.size();
      carried += n.carry && llvm::isa<BlockArgument>(n.arg);
      joined += n.carry && !llvm::isa<BlockArgument>(n.arg);
    }
    std::string summary;
    llvm::raw_string_ostream(summary)
        << "(" << nodes.size() - carried - joined << " ops, "
        << (carried ? std::to_string(carried) + " carried values, " : "")
        << (joined ? std::to_string(joined) + " branch results, " : "")
        << strategies << " strategies, "
        << (solution->optimal ? std::string("proven optimal")
            : std::isfinite(solution->lowerBound)
                ? llvm::formatv("within {0:e} us of a proven bound",
                                solution->value.time - solution->lowerBound)
                      .str()
                : std::string("best found in the time limit"))
        << " in " << llvm::format("%.3f", solveSeconds) << " s"
        << "): modeled " << solution->value.time << " us, "
        << int64_t(solution->value.bytes) << " bytes/rank; the plan "
        << greedy.time << " us, " << int64_t(greedy.bytes) << " bytes/rank";
    if (eager && eager->bytes > greedy.bytes)
      llvm::raw_string_ostream(summary)
          << "; DTensor's eager choices " << eager->time << " us, "
          << int64_t(eager->bytes) << " bytes/rank (the bytes bound)";
    if (autoArgs) {
      // The arguments take the solution's placements; the function is then
      // planned with them as any other.
      MLIRContext *ctx = fn.getContext();
      std::string chosenArgs;
      llvm::raw_string_ostream os(chosenArgs);
      for (auto [index, n] : llvm::enumerate(nodes)) {
        if (n.op || n.carry)
          continue;
        const Placements &placed = n.options[solution->choice[index]].placed[0];
        auto type = llvm::cast<RankedTensorType>(n.arg.getType());
        SpecAttr spec = SpecAttr::get(ctx, autoArgs->mesh, {}, false, placed);
        auto arg = llvm::cast<BlockArgument>(n.arg);
        choose(arg, spec);
        os << "\n  argument " << arg.getArgNumber() << ": " << spec << ", "
           << int64_t(shardBytes(type, placed, n.view)) << " bytes/rank";
      }
      // What the choice is against: the plan made with every argument
      // replicated (the arguments at their R option, the ops as planned).
      std::vector<int> replicated = startChoice;
      for (auto [index, n] : llvm::enumerate(nodes)) {
        if (n.op || n.carry)
          continue;
        for (auto [o, opt] : llvm::enumerate(n.options))
          if (llvm::all_of(opt.placed[0],
                           [](const Placement &p) { return p.isReplicate(); }))
            replicated[index] = int(o);
      }
      AssignmentValue whole = evaluateAssignment(problem, replicated);
      os << "\n  against every argument replicated: modeled " << whole.time
         << " us, " << int64_t(whole.bytes) << " bytes/rank"
         << (whole.bytes > budget ? " (over the budget)" : "");
      autoChosen = true;
      // Decisions cached by the ops' structure saw the arguments' old specs.
      decisions.clear();
      structuralKeys.clear();
      redo(); // (which forgets the log of the plans before it)
      if (explain) {
        llvm::raw_string_ostream out(log);
        out << "dtensor-propagate: @" << fn.getSymName() << ": auto-sharding ("
            << nodes.size() << " nodes, " << strategies << " strategies, "
            << (solution->optimal ? std::string("proven optimal")
                                  : std::string("best found"))
            << "): modeled " << solution->value.time
            << " us of communication and compute; arguments' shards "
            << int64_t(solution->value.bytes) << " bytes/rank";
        if (std::isfinite(budget))
          out << " of a budget of " << int64_t(budget);
        out << chosenArgs << "\n";
      }
      return;
    }
    if (!(solution->value.time < greedy.time - kEps))
      return note(summary + ": kept the plan");

    // Analyse the function with the solution's choices forced; keep it only
    // if the analysis's own total drops. (In a window, every other op keeps
    // the plan's choice, and the function's moves may not send more bytes
    // than the plan's before the first window: the model bounds the
    // window's alone.)
    llvm::DenseMap<Operation *, std::vector<int64_t>> planChoice;
    if (window)
      planChoice = choicesOf(decidedOrder);
    forcedOps = planChoice;
    for (auto [n, c] : llvm::zip(nodes, solution->choice))
      if (n.op)
        forcedOps[n.op] = n.options[c].factors;
    double after;
    bool trialFailed = analyseForced(fn, start, after);
    std::string compared;
    llvm::raw_string_ostream(compared)
        << after << " us against the plan's " << before << " us";
    bool moreBytes =
        window && !trialFailed && after < before - kEps &&
        analysisBytes(fn) > windowBytes * (1 + 1e-9) + 1e-9;
    if (moreBytes)
      compared += ", moving more bytes";
    if (trialFailed || !(after < before - kEps) || moreBytes) {
      if (window)
        restorePlan(fn, start, redo, planChoice, before);
      else
        redo();
      return note(summary + ": kept the plan (the solution's analysis costs " +
                  compared + ")");
    }
    note(summary + ": kept the solution (analysed: " + compared + ")");
    if (window)
      extendToAlike(fn, start, redo, *window, nodes, solution->choice,
                    decidedOrder, after);
  }

  /// Each of `ops`' choices in the last analysis that decided it.
  llvm::DenseMap<Operation *, std::vector<int64_t>>
  choicesOf(ArrayRef<Operation *> ops) const {
    llvm::DenseMap<Operation *, std::vector<int64_t>> out;
    for (Operation *op : ops)
      if (auto it = lastChoice.find(op); it != lastChoice.end())
        out[op] = it->second.factors;
    return out;
  }
  /// What `ops` added to the last analysis's total.
  double costOf(ArrayRef<Operation *> ops) const {
    double cost = 0;
    for (Operation *op : ops)
      if (auto it = lastChoice.find(op); it != lastChoice.end())
        cost += it->second.cost;
    return cost;
  }

  /// After a window's solution is kept: the same choice at every op alike
  /// (the same op on operands in the same states, by decision key: the
  /// other layers of a model), every other op as it is now; kept when the
  /// function's total drops and its moves send no more bytes.
  void extendToAlike(func::FuncOp fn, const Restart &start,
                     llvm::function_ref<void()> redo, const Window &window,
                     ArrayRef<WholeNode> nodes, ArrayRef<int> choice,
                     ArrayRef<Operation *> decidedOrder, double now) {
    if (searchBudget == 0 && explain)
      return; // (no decision keys)
    llvm::DenseMap<Operation *, std::vector<int64_t>> current =
        choicesOf(decidedOrder);
    std::unordered_map<std::string, std::vector<int64_t>> byKey;
    std::set<std::string> ambiguous;
    size_t alike = 0;
    for (auto [n, c] : llvm::zip(nodes, choice)) {
      if (!n.op)
        continue;
      SpecAttr like = likeOf(n.op);
      if (!like)
        continue;
      auto [it, fresh] =
          byKey.try_emplace(decisionKey(n.op, like), n.options[c].factors);
      if (!fresh && it->second != n.options[c].factors)
        ambiguous.insert(it->first);
    }
    for (const std::string &k : ambiguous)
      byKey.erase(k);
    // Worth a trial only where an op outside the window has such a key.
    for (Operation *op : decidedOrder) {
      if (window.ops.contains(op))
        continue;
      SpecAttr like = likeOf(op);
      if (!like)
        continue;
      auto it = byKey.find(decisionKey(op, like));
      alike += it != byKey.end() && current.lookup(op) != it->second;
    }
    if (alike == 0)
      return;
    keyForced = std::move(byKey);
    forcedOps = current;
    double after;
    bool failed = analyseForced(fn, start, after);
    bool kept = !failed && after < now - 1e-9 &&
                analysisBytes(fn) <= windowBytes * (1 + 1e-9) + 1e-9;
    if (explain)
      llvm::raw_string_ostream(windowLog)
          << "dtensor-propagate: @" << fn.getSymName()
          << ": whole-function optimization: the window's choices at " << alike
          << " op(s) alike elsewhere: " << after << " us against " << now
          << " us: " << (kept ? "kept" : "not kept") << "\n";
    if (!kept)
      restorePlan(fn, start, redo, current, now);
  }

  /// Analyses `fn` again, silently, with the choices in forcedOps and
  /// keyForced (cleared after): its total in `total`; true when it failed
  /// (a forced choice that makes a later op fail).
  bool analyseForced(func::FuncOp fn, const Restart &start, double &total) {
    demands.clear();
    deepAsked.clear();
    restart(start);
    bool failed = false;
    {
      ScopedDiagnosticHandler quiet(fn.getContext(), [&](Diagnostic &d) {
        failed |= d.getSeverity() == DiagnosticSeverity::Error;
        return success();
      });
      analyseFunction(fn);
    }
    forcedOps.clear();
    keyForced.clear();
    failed |= failedAny;
    failedAny = false;
    total = spent + returnCost(fn);
    return failed;
  }

  /// Analyses `fn` again with every op's choice forced as `planChoice`
  /// records the plan's; where that does not give the plan's total
  /// (`before`) back, plans it afresh (`redo`).
  void restorePlan(func::FuncOp fn, const Restart &start,
                   llvm::function_ref<void()> redo,
                   const llvm::DenseMap<Operation *, std::vector<int64_t>> &planChoice,
                   double before) {
    forcedOps = planChoice;
    double again;
    bool failed = analyseForced(fn, start, again);
    if (failed || std::abs(again - before) > 1e-9 * std::max(1.0, before)) {
      if (explain)
        llvm::raw_string_ostream(windowLog)
            << "dtensor-propagate: @" << fn.getSymName()
            << ": whole-function optimization: the plan's choices forced cost "
            << again << " us, not its " << before << " us: planned again\n";
      redo();
    }
  }

  /// A function with more ops to decide than whole-function-ops: windows of
  /// whole-function-window-ops consecutive ops (at most whole-function-ops;
  /// program order, private callees' bodies in place of their first calls),
  /// overlapping by half, each solved as the
  /// whole-function problem with every op outside it kept as the plan has
  /// it (its results fixed in their specs, its operands' specs the targets
  /// of the window's moves). A window's solution is analysed with it and
  /// the plan elsewhere, and kept when the function's total drops, as for
  /// the whole function. The windows whose ops pay the most are solved
  /// first, at most whole-function-windows of them (a bound independent of
  /// the machine's speed, so the result depends on the program alone).
  void optimizeWindows(func::FuncOp fn, const Restart &start,
                       llvm::function_ref<void()> redo,
                       ArrayRef<Operation *> decidedOrder) {
    size_t size = size_t(std::min<int64_t>(wholeFunctionOps, wholeFunctionWindowOps)),
           n = decidedOrder.size();
    size_t step = std::max<size_t>(1, size / 2);
    struct Candidate {
      size_t begin, end;
      double cost;
    };
    // What a window's ops pay in the last analysis (the last window also
    // the moves to the function's results).
    auto windowCost = [&](size_t b, size_t e) {
      return (e == n ? returnCost(fn) : 0) +
             costOf(decidedOrder.slice(b, e - b));
    };
    std::vector<Candidate> windows;
    for (size_t b = 0;; b += step) {
      size_t e = std::min(n, b + size);
      if (e == n)
        b = n > size ? n - size : 0; // the last one ends at the end
      double cost = windowCost(b, e);
      if (cost > 0)
        windows.push_back({b, e, cost});
      if (e == n)
        break;
    }
    windowLog.clear();
    windowBytes = analysisBytes(fn);
    if (explain)
      llvm::raw_string_ostream(windowLog)
          << "dtensor-propagate: @" << fn.getSymName()
          << ": whole-function optimization of " << n
          << " ops to decide (limit " << wholeFunctionOps
          << ", whole-function-ops): " << windows.size() << " window(s) of "
          << size << " ops where the plan moves data, the "
          << std::min<size_t>(windows.size(), size_t(wholeFunctionWindows))
          << " costliest solved (whole-function-windows)\n";
    std::stable_sort(windows.begin(), windows.end(),
                     [](const Candidate &a, const Candidate &b) {
                       return a.cost > b.cost;
                     });
    if (windows.size() > size_t(wholeFunctionWindows))
      windows.resize(size_t(wholeFunctionWindows));
    for (const Candidate &c : windows) {
      // (A window kept before, or its choices at the ops alike, may have
      // left nothing to move here.)
      if (!(windowCost(c.begin, c.end) > 0))
        continue;
      Window w;
      w.label = ("window of ops " + Twine(c.begin) + "-" + Twine(c.end - 1))
                    .str();
      for (size_t i = c.begin; i < c.end; ++i)
        w.ops.insert(decidedOrder[i]);
      optimizeWholeFunction(fn, start, redo, nullptr, &w);
      if (failedAny)
        break;
    }
    log += windowLog;
    windowLog.clear();
  }
  std::vector<std::vector<Placements>> demandStates;

  /// Private callees analysed since `mark` (at their first call, with that
  /// call's operand specs) are analysed again at their first call of the
  /// next analysis of the caller, whose operands may have other specs.
  void restart(const Restart &start) {
    log.resize(start.logStart);
    spent = 0;
    alternatives.erase(alternatives.begin() + std::min(start.alternativesStart,
                                                       alternatives.size()),
                       alternatives.end());
    // Forget the specs chosen inside the function and in the callees first
    // analysed from it (their arguments too: the call chooses them again).
    auto forget = [&](Value v) {
      chosen.erase(v);
      strength.erase(v);
      paidMoves.erase(v);
    };
    auto forgetInside = [&](Operation *root, bool arguments) {
      root->walk([&](Operation *op) {
        for (Value r : op->getResults())
          forget(r);
        for (Region &region : op->getRegions())
          for (Block &block : region)
            if (arguments || op != root)
              for (Value a : block.getArguments())
                forget(a);
      });
    };
    forgetInside(start.fn, /*arguments=*/false);
    for (size_t i = start.mark; i < started.size(); ++i)
      forgetInside(started[i], /*arguments=*/true);
    // Moves paid inside them, of values defined outside too (the
    // function's arguments): the next analysis pays them again.
    forgetPaidSince(start.fn, start.mark);
  }

  /// Forgets the moves paid in blocks under `root` or in the callees first
  /// analysed since `mark`, and those callees (their next call analyses
  /// them again): the next analysis pays the moves again.
  void forgetPaidSince(Operation *root, size_t mark) {
    auto inside = [&](Block *block) {
      Operation *owner = block->getParentOp();
      if (root->isAncestor(owner))
        return true;
      for (size_t i = mark; i < started.size(); ++i)
        if (started[i]->isAncestor(owner))
          return true;
      return false;
    };
    for (auto &[value, paid] : paidMoves)
      llvm::erase_if(paid, [&](const std::pair<Attribute, Block *> &p) {
        return inside(p.second);
      });
    forgetStarted(mark);
  }

  void forgetStarted(size_t mark) {
    for (size_t i = mark; i < started.size(); ++i)
      done.erase(started[i]);
    started.resize(mark);
  }

  /// Lookahead's demands (collectDemands, just after the first analysis)
  /// carried back through ops that only followed an operand: where an op
  /// took an operand as it was, gave its result that operand's type and
  /// spec (any type, when the specs asked shard no dim), and every use of
  /// the result asks one other spec, the operand is asked for that spec
  /// instead (in reverse program order, so through chains). The case: a variance's Partial sum scaled by 1/N, then
  /// `rsqrt`, then read whole by a batch-sharded normalization. Each op
  /// follows its operand in the first analysis, so lookahead, one user
  /// deep, saw no cost in reduce-scattering the sum and gathering the
  /// `rsqrt` later; carried back, the scale asks for it whole and reducing
  /// once (an all_reduce) is priced against both collectives.
  llvm::DenseMap<OpOperand *, SmallVector<SpecAttr, 2>> deepDemands() {
    llvm::DenseMap<OpOperand *, SmallVector<SpecAttr, 2>> deep;
    bool changed = false;
    auto asked = [&](OpOperand *use) -> SmallVector<SpecAttr, 2> {
      if (auto it = deep.find(use); it != deep.end())
        return it->second;
      SmallVector<SpecAttr, 2> one;
      if (SpecAttr d = demands.lookup(use)) {
        one.push_back(d);
      } else if (auto ret = llvm::dyn_cast<func::ReturnOp>(use->getOwner())) {
        // The function's result spec, or whole for a public function's
        // plain result (a private one's takes the spec it is given).
        auto fn = ret->getParentOfType<func::FuncOp>();
        Value v = use->get();
        auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
        SpecAttr like = specOf(v);
        if (SpecAttr s = getSpec(fn.getResultTypes()[use->getOperandNumber()]))
          one.push_back(s);
        else if (fn.isPublic() && type && like)
          one.push_back(specWith(like, Placements(like.getNormalizedPlacements(
                                                      type.getRank()).size(),
                                                  Placement::replicate())));
      }
      return one;
    };
    for (Operation *op : llvm::reverse(decided)) {
      if (op->getNumResults() != 1)
        continue;
      Value res = op->getResult(0);
      SpecAttr have = specOf(res);
      auto type = llvm::dyn_cast<RankedTensorType>(res.getType());
      if (!have || !type || res.use_empty())
        continue;
      // Every spec the result's uses ask for; a use that asks nothing (a
      // return, an op without a rule) leaves the op as it is.
      SmallVector<SpecAttr, 2> wants;
      bool all = true;
      for (OpOperand &use : res.getUses()) {
        SmallVector<SpecAttr, 2> d = asked(&use);
        if (d.empty()) {
          all = false;
          break;
        }
        for (SpecAttr w : d)
          if (!llvm::is_contained(wants, w))
            wants.push_back(w);
      }
      if (!all || wants.empty() || (wants.size() == 1 && wants[0] == have))
        continue;
      // A spec that shards no dim (replicated, or Partial) means the same
      // for an operand of another shape: such demands are also carried
      // through ops that took an operand of as many elements as the result
      // as it was and made no Partial of it, whatever the result's shape and
      // spec (reshapes that renumber the sharded dim, casts, element-wise
      // ops with broadcast operands: a batch norm's channel statistics
      // expanded to 1 x C x 1 x 1 and collapsed to C x 1 x 1 before they
      // are gathered).
      auto shardsNothing = [](SpecAttr w, int64_t rank) {
        return llvm::none_of(w.getNormalizedPlacements(rank),
                             [](const Placement &p) { return p.isShard(); });
      };
      bool shapeFree = llvm::all_of(
          wants, [&](SpecAttr w) { return shardsNothing(w, type.getRank()); });
      bool madePartial = llvm::any_of(
          have.getNormalizedPlacements(type.getRank()),
          [](const Placement &p) { return p.isPartial(); });
      for (OpOperand &operand : op->getOpOperands()) {
        SpecAttr given = specOf(operand.get());
        if (!given || demands.lookup(&operand) != given)
          continue;
        auto t = llvm::dyn_cast<RankedTensorType>(operand.get().getType());
        if (!t)
          continue;
        bool same = given == have && t.getShape() == type.getShape() &&
                    t.getElementType() == type.getElementType();
        // (Only where the operand holds the result's elements, rearranged:
        // past a contraction, asking the operand whole would mean computing
        // the op whole everywhere, which the third analysis would price and
        // almost always reject, an analysis spent for nothing.)
        bool rearranged = t.hasStaticShape() && type.hasStaticShape() &&
                          t.getNumElements() == type.getNumElements();
        if (!same && !(shapeFree && !madePartial && rearranged))
          continue;
        deep[&operand] = wants;
        changed = true;
      }
    }
    if (!changed)
      deep.clear();
    return deep;
  }

  /// Records the spec every use asked for (operand specs of the ops in
  /// `fn`); whether some use asked for a spec its value does not have.
  bool collectDemands(func::FuncOp fn) {
    bool anyMove = false;
    auto name = StringAttr::get(fn.getContext(), kOperandSpecsAttr);
    for (Operation *op : decided) {
      auto specs = llvm::dyn_cast_or_null<ArrayAttr>(op->getDiscardableAttr(name));
      if (!specs)
        continue;
      for (auto [i, attr] : llvm::enumerate(specs)) {
        auto spec = llvm::dyn_cast<SpecAttr>(attr);
        if (!spec || i >= op->getNumOperands())
          continue;
        // Equal specs are one attribute (propagation builds them alike);
        // a spurious difference only costs a second analysis.
        anyMove |= specOf(op->getOperand(i)) != spec;
        demands[&op->getOpOperand(i)] = spec;
      }
    }
    // With callees that look ahead, a call asks for its callee's argument
    // specs (a private callee's are its first call's, which later calls are
    // moved to).
    if (calleeLookahead)
      fn.walk([&](func::CallOp call) {
      auto callee = symbolTables->lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!callee || callee.isExternal())
        return;
      auto inferred =
          llvm::dyn_cast_or_null<ArrayAttr>(callee->getAttr(kArgSpecsAttr));
      for (auto [i, arg] : llvm::enumerate(callee.getArguments())) {
        SpecAttr spec = getSpec(arg.getType());
        if (!spec && inferred && i < inferred.size())
          spec = llvm::dyn_cast<SpecAttr>(inferred[i]);
        Value v = call.getOperand(i);
        SpecAttr have = specOf(v);
        if (!have)
          continue;
        // A plain argument takes the value whole on every rank.
        if (!spec) {
          auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
          if (!type)
            continue;
          spec = specWith(have, Placements(have.getNormalizedPlacements(
                                                   type.getRank()).size(),
                                               Placement::replicate()));
        }
        anyMove |= have != spec;
        demands[&call->getOpOperand(i)] = spec;
      }
    });
    return anyMove;
  }

  /// The cost of bringing `fn`'s returned values to its result specs.
  double returnCost(func::FuncOp fn) {
    auto ret = llvm::cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    double total = 0;
    for (auto [v, type] : llvm::zip(ret.getOperands(), fn.getResultTypes())) {
      if (fn.isPrivate() && !getSpec(type))
        continue; // the result takes the value's spec
      total += boundaryCost(v, getSpec(type), ret);
    }
    return total;
  }

  /// What moving `fn`'s returned values to the specs its call's results
  /// are wanted in costs the caller (ReturnDemand): a private callee's
  /// analyses are compared with it, so a choice that costs the callee more
  /// but saves its caller a move wins.
  double returnDemandCost(func::FuncOp fn) {
    auto it = returnDemands.find(fn);
    if (it == returnDemands.end())
      return 0;
    auto ret = llvm::cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    double total = 0;
    for (auto [v, want, type] :
         llvm::zip(ret.getOperands(), it->second, fn.getResultTypes())) {
      SpecAttr have = specOf(v);
      // An annotated result reaches the caller in its annotation, whatever
      // the value's spec (returnCost prices that move).
      if (!have || getSpec(type))
        continue;
      for (SpecAttr spec : want.specs)
        if (spec.getView() == have.getView())
          total += boundaryCost(v, spec, ret);
      if (want.whole)
        total += boundaryCost(v, SpecAttr(), ret);
    }
    return total;
  }

  void analyseFunction(func::FuncOp fn) {
    active.insert(fn);
    visitBlock(fn.getBody().front());
    active.erase(fn);
    // A function whose signature has no spec for an argument or result gets
    // the ones chosen here (its call sites are given them).
    record(fn, kArgSpecsAttr, fn.getArguments());
    auto ret = llvm::cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    SmallVector<Attribute> results;
    bool any = false;
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      SpecAttr s = specOf(v);
      bool inferred = fn.isPrivate() && !getSpec(fn.getResultTypes()[i]) && s;
      any |= inferred;
      results.push_back(orUnit(fn.getContext(), inferred ? s : SpecAttr()));
    }
    if (any)
      fn->setAttr(kResultSpecsAttr, ArrayAttr::get(fn.getContext(), results));
    else
      fn->removeAttr(kResultSpecsAttr);
  }

  void visitBlock(Block &block) {
    for (Operation &op : block) {
      if (auto rule = llvm::dyn_cast<ShardingRuleOpInterface>(&op)) {
        if (failed(visitRuleOp(&op, rule)))
          failedAny = true;
      } else if (auto loop = llvm::dyn_cast<scf::ForOp>(op)) {
        visitFor(loop);
      } else if (auto branch = llvm::dyn_cast<scf::IfOp>(op)) {
        visitIf(branch);
      } else if (auto loop = llvm::dyn_cast<scf::WhileOp>(op)) {
        visitWhile(loop);
      } else if (auto call = llvm::dyn_cast<func::CallOp>(op)) {
        visitCall(call);
      } else if (readsWhole(&op)) {
        // Insert-redistribute gathers each distributed operand whole for
        // it (once per value and block: equal gathers merge).
        for (Value v : op.getOperands()) {
          if (!specOf(v) || !llvm::isa<RankedTensorType>(v.getType()))
            continue;
          Attribute whole = UnitAttr::get(op.getContext());
          if (alreadyPaid(v, whole, op.getBlock()))
            continue;
          spent += boundaryCost(v, SpecAttr(), &op);
          markPaid(v, whole, op.getBlock());
        }
      }
    }
  }

  /// Whether `op` reads its distributed operands whole: a full_tensor, or
  /// an op insert-redistribute gathers them for (readsGlobalOperands: a
  /// tensor.cast, a tensor.extract, any op without a sharding rule outside
  /// the structure propagation follows).
  static bool readsWhole(Operation *op) {
    return llvm::isa<FullTensorOp>(op) || readsGlobalOperands(op);
  }

  /// The cost of giving `v` the spec `want` (null: plain) at `at`.
  double boundaryCost(Value v, SpecAttr want, Operation *at) {
    auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
    SpecAttr have = specOf(v);
    if (!type || have == want || !have)
      return 0; // equal, or a distribute (each rank slices its chunk)
    if (want && want.getView() != have.getView())
      return std::numeric_limits<double>::infinity();
    FailureOr<ResolvedMeshView> view = resolveMeshView(
        at, have.getView(), *symbolTables, [&]() { return at->emitOpError(); });
    if (failed(view))
      return std::numeric_limits<double>::infinity();
    Placements from = have.getNormalizedPlacements(type.getRank());
    Placements to = want ? want.getNormalizedPlacements(type.getRank())
                         : Placements(view->shape.size(), Placement::replicate());
    return priceOf(*view, type, from, to);
  }

  /// Chooses what a loop carries. First the inits' specs; if the body
  /// yields other specs, carrying those instead is tried too (then the inits
  /// move once before the loop rather than the yields every iteration), and
  /// the cheaper of the two per iteration wins: body redistributions, plus
  /// the yields' moves, plus the inits' move spread over the trip count.
  /// `visit` sets the carried values' specs, analyses the loop's regions and
  /// returns the yielded values; `fixed` marks carried values whose types
  /// hold a user spec.
  SmallVector<SpecAttr>
  chooseCarried(Operation *loop, ValueRange inits, ArrayRef<bool> fixed,
                int64_t trips,
                llvm::function_ref<SmallVector<Value>(ArrayRef<SpecAttr>)> visit) {
    SmallVector<SpecAttr> first;
    for (Value init : inits)
      first.push_back(specOf(init));
    size_t mark = started.size();
    size_t logStart = log.size();
    auto attempt = [&](ArrayRef<SpecAttr> carry, SmallVector<Value> &yields) {
      // Moves an earlier attempt paid in the body, or in a callee first
      // called there, are paid again: else the second attempt would find
      // the first's redistributions paid and cost less than it does.
      forgetPaidSince(loop, mark); // callees first called in the body: again
      log.resize(logStart); // explain the attempt kept, once
      double outer = spent;
      spent = 0;
      yields = visit(carry);
      double cost = spent;
      spent = outer;
      for (auto [v, want] : llvm::zip(yields, carry))
        cost += boundaryCost(v, want, loop);
      return cost;
    };
    SmallVector<Value> yields;
    // The loop's whole cost counts toward the enclosing analysis.
    int64_t iterations = std::max<int64_t>(trips, 1);
    double firstCost = attempt(first, yields);
    SmallVector<SpecAttr> second(first);
    for (auto [i, v] : llvm::enumerate(yields)) {
      SpecAttr s = specOf(v);
      if (!fixed[i] && s && s != first[i])
        second[i] = s;
    }
    if (second == first) {
      spent += firstCost * iterations;
      return first;
    }
    double secondCost = attempt(second, yields);
    double once = 0;
    for (auto [init, want] : llvm::zip(inits, second))
      once += boundaryCost(init, want, loop);
    secondCost += once / double(iterations);
    if (secondCost < firstCost) {
      spent += secondCost * iterations;
      return second;
    }
    attempt(first, yields); // the choices inside follow the carried specs
    spent += firstCost * iterations;
    return first;
  }

  void visitFor(scf::ForOp loop) {
    auto yield = llvm::cast<scf::YieldOp>(loop.getBody()->getTerminator());
    SmallVector<bool> fixed;
    for (BlockArgument arg : loop.getRegionIterArgs())
      fixed.push_back(bool(getSpec(arg.getType())));
    int64_t trips = constantTrips(loop).value_or(1);
    SmallVector<SpecAttr> carried = chooseCarried(
        loop, loop.getInitArgs(), fixed, trips, [&](ArrayRef<SpecAttr> carry) {
          for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
            choose(arg, carry[i], strengthOf(loop.getInitArgs()[i]));
          visitBlock(*loop.getBody());
          return SmallVector<Value>(yield.getOperands());
        });
    for (auto [i, res] : llvm::enumerate(loop.getResults()))
      choose(res, carried[i], strengthOf(loop.getInitArgs()[i]));
    record(loop, kResultSpecsAttr, loop.getResults());
  }

  void visitIf(scf::IfOp branch) {
    visitBlock(*branch.thenBlock());
    if (branch.elseBlock())
      visitBlock(*branch.elseBlock());
    if (branch.getNumResults() == 0)
      return;
    auto thenYield = branch.thenYield();
    auto elseYield = branch.elseYield();
    for (auto [i, res] : llvm::enumerate(branch.getResults())) {
      Value a = thenYield.getOperand(i), b = elseYield.getOperand(i);
      // One branch's spec; the other is redistributed at its yield. The
      // stronger-held spec if one is; else the one whose other branch moves
      // more cheaply (the then branch's on a tie).
      SpecAttr sa = specOf(a), sb = specOf(b);
      bool takeElse;
      double cost = 0;
      if (!sa || !sb) {
        takeElse = !sa;
      } else if (strengthOf(a) != strengthOf(b)) {
        takeElse = strengthOf(b) < strengthOf(a);
        cost = takeElse ? boundaryCost(a, sb, branch) : boundaryCost(b, sa, branch);
      } else {
        double keepThen = boundaryCost(b, sa, branch);
        double keepElse = boundaryCost(a, sb, branch);
        takeElse = keepElse < keepThen;
        cost = std::min(keepThen, keepElse);
      }
      spent += cost;
      Value from = takeElse ? b : a;
      choose(res, specOf(from), strengthOf(from));
    }
    record(branch, kResultSpecsAttr, branch.getResults());
  }

  void visitWhile(scf::WhileOp loop) {
    scf::ConditionOp cond = loop.getConditionOp();
    scf::YieldOp yield = loop.getYieldOp();
    SmallVector<bool> fixed;
    for (BlockArgument arg : loop.getBeforeArguments())
      fixed.push_back(bool(getSpec(arg.getType())));
    chooseCarried(loop, loop.getInits(), fixed, /*trips=*/1,
                  [&](ArrayRef<SpecAttr> carry) {
                    for (auto [i, arg] : llvm::enumerate(loop.getBeforeArguments()))
                      choose(arg, carry[i], strengthOf(loop.getInits()[i]));
                    visitBlock(loop.getBefore().front());
                    for (auto [i, arg] : llvm::enumerate(loop.getAfterArguments()))
                      choose(arg, specOf(cond.getArgs()[i]),
                             strengthOf(cond.getArgs()[i]));
                    visitBlock(loop.getAfter().front());
                    return SmallVector<Value>(yield.getOperands());
                  });
    for (auto [i, res] : llvm::enumerate(loop.getResults()))
      choose(res, specOf(cond.getArgs()[i]), strengthOf(cond.getArgs()[i]));
    record(loop, kArgSpecsAttr, loop.getBeforeArguments());
    record(loop, kResultSpecsAttr, loop.getResults());
  }

  /// The spec a private callee's argument takes from its first call's
  /// operand `v`: the operand's, except that a P(product) is reduced first.
  /// Later calls' operands are redistributed to it, and no redistribution
  /// reaches P(product) from anything else (not even from R).
  SpecAttr argumentSpec(Value v) {
    SpecAttr s = specOf(v);
    if (!s)
      return s;
    auto type = llvm::cast<RankedTensorType>(v.getType());
    Placements ps = s.getNormalizedPlacements(type.getRank());
    bool product = false;
    for (Placement &p : ps)
      if (p.isPartial() && p.reduce == ReduceKind::Product) {
        p = Placement::replicate();
        product = true;
      }
    return product ? specWith(s, ps) : s;
  }

  /// Whether `fn` calls a private function with a body.
  bool callsPrivateFunction(func::FuncOp fn) {
    bool found = false;
    fn.walk([&](func::CallOp call) {
      auto callee = symbolTables->lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      found |= callee && callee.isPrivate() && !callee.isExternal();
    });
    return found;
  }

  /// What the caller does with `call`'s results (ReturnDemand): the specs
  /// their uses asked for in its first analysis, and plain results of a
  /// public function they are returned as.
  SmallVector<ReturnDemand> returnDemandsOf(func::CallOp call) {
    SmallVector<ReturnDemand> out(call.getNumResults());
    for (auto [i, res] : llvm::enumerate(call.getResults())) {
      out[i].specs = demandsOf(res);
      for (OpOperand &use : res.getUses())
        if (auto ret = llvm::dyn_cast<func::ReturnOp>(use.getOwner())) {
          auto fn = ret->getParentOfType<func::FuncOp>();
          Type want = fn.getResultTypes()[use.getOperandNumber()];
          if (SpecAttr s = getSpec(want)) {
            if (!llvm::is_contained(out[i].specs, s))
              out[i].specs.push_back(s);
          } else if (fn.isPublic()) {
            out[i].whole = true;
          }
        }
    }
    return out;
  }

  /// A call to a private function whose arguments have no specs gives them
  /// the specs of its first call's operands; the function is analysed then,
  /// and its calls' results take the specs it returns.
  void visitCall(func::CallOp call) {
    auto callee = symbolTables->lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    if (!callee || callee.isExternal())
      return;
    if (active.contains(callee)) {
      if (llvm::any_of(call.getOperands(), [&](Value v) { return specOf(v); })) {
        call.emitOpError() << "calls " << call.getCalleeAttr()
                           << " recursively with distributed operands, which "
                              "dtensor-propagate does not support";
        failedAny = true;
      }
      recursiveCalls[callee].insert(call);
      return;
    }
    if (!done.contains(callee)) {
      if (callee.isPrivate()) {
        // A callee without the mesh's handle cannot communicate: it takes
        // the value whole (gathered at the call).
        for (auto [arg, v] : llvm::zip(callee.getArguments(), call.getOperands())) {
          SpecAttr s = argumentSpec(v);
          if (s && !findMeshHandleIn(callee, s.getView()))
            s = SpecAttr();
          choose(arg, s, strengthOf(v));
        }
        started.push_back(callee);
        if (calleeLookahead)
          returnDemands[callee] = returnDemandsOf(call);
      }
      ++callDepth;
      visitFunction(callee);
      --callDepth;
      returnDemands.erase(callee);
      // A recursive call inside has no result specs (its callee's were not
      // known yet); it cannot take results the callee returns distributed.
      if (auto it = recursiveCalls.find(callee); it != recursiveCalls.end()) {
        auto ret =
            llvm::cast<func::ReturnOp>(callee.getBody().front().getTerminator());
        for (auto [v, type] :
             llvm::zip(ret.getOperands(), callee.getResultTypes())) {
          if (getSpec(type) || !specOf(v))
            continue;
          for (Operation *inner : it->second)
            inner->emitOpError()
                << "calls " << call.getCalleeAttr()
                << " recursively, which returns a distributed value ("
                << specOf(v)
                << "); dtensor-propagate does not support recursion through "
                   "distributed values";
          failedAny = true;
          break;
        }
      }
    }
    // Every call of a private callee pays its redistributions (the callee
    // is analysed at its first call, with that call's specs).
    if (callee.isPrivate())
      spent += ownCost.lookup(callee);
    // And its operands' moves to the callee's arguments' specs (nothing at
    // a private callee's first call, which takes its operands' specs; a
    // later call's operands are redistributed to them, as a public callee's
    // are to its arguments').
    for (auto [arg, v] : llvm::zip(callee.getArguments(), call.getOperands()))
      spent += boundaryCost(v, specOf(arg), call);
    auto ret =
        llvm::cast<func::ReturnOp>(callee.getBody().front().getTerminator());
    for (auto [res, v, type] :
         llvm::zip(call.getResults(), ret.getOperands(), callee.getResultTypes()))
      choose(res, callee.isPrivate() && !getSpec(type) ? specOf(v) : SpecAttr(),
             strengthOf(v));
    record(call, kResultSpecsAttr, call.getResults());
  }

  //===--------------------------------------------------------------------===//
  // Ops with a sharding rule
  //===--------------------------------------------------------------------===//

  /// The spec a result is known to end up in: its own annotation, a hint on
  /// it, or that of the returns (all-R for a plain function result) and
  /// distributes that are its only users. Sets `priority` to how strongly.
  std::optional<Placements> targetOf(Value result, int64_t meshRank,
                                     int64_t &priority) {
    auto type = llvm::cast<RankedTensorType>(result.getType());
    // A user annotation is a target that only cost weighs (the op may
    // compute in another spec and redistribute to it).
    priority = kNoPriority;
    if (SpecAttr s = getSpec(type))
      return s.getNormalizedPlacements(type.getRank());
    // The strongest hint on the value wins.
    std::optional<Placements> hinted;
    for (Operation *user : result.getUsers())
      if (auto hint = llvm::dyn_cast<HintOp>(user))
        if (int64_t(hint.getPriority()) < priority) {
          priority = hint.getPriority();
          hinted = getSpec(hint.getType()).getNormalizedPlacements(type.getRank());
        }
    if (hinted)
      return hinted;
    std::optional<Placements> target;
    for (OpOperand &use : result.getUses()) {
      std::optional<Placements> here;
      Operation *user = use.getOwner();
      if (auto ret = llvm::dyn_cast<func::ReturnOp>(user)) {
        auto fn = ret->getParentOfType<func::FuncOp>();
        Type want = fn.getResultTypes()[use.getOperandNumber()];
        if (SpecAttr s = getSpec(want))
          here = s.getNormalizedPlacements(type.getRank());
        else if (fn.isPrivate())
          return std::nullopt; // the function's result takes the spec
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

  /// Lookahead: the distinct specs the uses of `result` asked for in the
  /// first analysis, when it has no target (targetOf). Each is priced as a
  /// move the result's users would make.
  SmallVector<SpecAttr> demandsOf(Value result, SpecAttr like = {}) {
    SmallVector<SpecAttr> out;
    auto add = [&](SpecAttr want) {
      if (want && !llvm::is_contained(out, want))
        out.push_back(want);
    };
    if (!returnDemands.empty())
      for (OpOperand &use : result.getUses())
        if (auto ret = llvm::dyn_cast<func::ReturnOp>(use.getOwner())) {
          auto it = returnDemands.find(ret->getParentOfType<func::FuncOp>());
          if (it == returnDemands.end())
            continue;
          const ReturnDemand &want = it->second[use.getOperandNumber()];
          for (SpecAttr s : want.specs)
            add(s);
          if (want.whole && like) {
            auto type = llvm::cast<RankedTensorType>(result.getType());
            add(specWith(like, Placements(like.getNormalizedPlacements(
                                                  type.getRank()).size(),
                                          Placement::replicate())));
          }
        }
    if (demands.empty())
      return out;
    for (OpOperand &use : result.getUses()) {
      if (auto it = deepAsked.find(&use); it != deepAsked.end()) {
        for (SpecAttr s : it->second)
          add(s);
        continue;
      }
      add(demands.lookup(&use));
    }
    return out;
  }

  /// The distributed tables on `like`'s view that `op`'s body reads (by
  /// `tensor.extract`: lookups). Tables on other views are not priced.
  std::vector<TableRead> tableReadsOf(Operation *op, SpecAttr like) {
    std::vector<TableRead> out;
    if (!llvm::isa<linalg::LinalgOp>(op))
      return out;
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(op->getRegions(), above);
    for (Value v : above) {
      SpecAttr spec = specOf(v);
      auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
      if (!spec || !type || !type.hasStaticShape() ||
          spec.getView() != like.getView())
        continue;
      TableRead t;
      t.table = v;
      t.type = type;
      t.have = spec.getNormalizedPlacements(type.getRank());
      t.dimLoop.assign(type.getRank(), -2);
      for (Operation *user : v.getUsers()) {
        if (!op->isProperAncestor(user))
          continue;
        auto read = llvm::dyn_cast<tensor::ExtractOp>(user);
        if (!read || user->getParentOp() != op || read.getTensor() != v) {
          t.direct = false;
          continue;
        }
        for (auto [d, idx] : llvm::enumerate(read.getIndices())) {
          auto index = idx.getDefiningOp<linalg::IndexOp>();
          int64_t k = index && index->getParentOp() == op
                          ? int64_t(index.getDim())
                          : -1;
          t.dimLoop[d] = t.dimLoop[d] == -2 || t.dimLoop[d] == k ? k : -1;
        }
      }
      t.maskable = t.direct && bool(maskableRead(op, v));
      out.push_back(std::move(t));
    }
    return out;
  }

  /// What the halo exchanges of a choice cost (Core/Window.h): an operand
  /// read through a window of a loop the choice shards on a mesh dim where
  /// the operand is sharded along the windowed dim is fetched as
  /// partitioning does, one permute per shift of the pieces each rank
  /// needs from others (the largest piece times the rest of the local
  /// shard), or gathered along the mesh dim when there are more than
  /// kMaxHaloShifts shifts. Replicated there, it is sliced for free.
  std::pair<double, double> haloPrice(const ResolvedMeshView &view,
                                      Operation *op, const ShardingRule &rule,
                                      ArrayRef<int64_t> factors,
                                      ArrayRef<Placements> placed) {
    double time = 0, bytes = 0;
    std::vector<LinkParams> links = cost.links(view.shape);
    for (const WindowedDim &w : rule.windows) {
      const Placements &ps = placed[w.operand];
      auto type = llvm::cast<RankedTensorType>(
          op->getOperand(rule.operands[w.operand]).getType());
      // The loop's extent, from a value that indexes it plainly.
      int64_t extent = -1;
      for (size_t i = 0; i < rule.numOperands() + rule.numResults() && extent < 0;
           ++i)
        if (std::optional<int64_t> pos = rule.dimOf(i, w.factor)) {
          Value v = i < rule.numOperands()
                        ? op->getOperand(rule.operands[i])
                        : op->getResult(i - rule.numOperands());
          extent = llvm::cast<RankedTensorType>(v.getType()).getDimSize(*pos);
        }
      if (extent < 0)
        continue;
      for (size_t m = 0; m < factors.size(); ++m) {
        if (factors[m] != w.factor || !ps[m].isShard() || ps[m].dim != w.dim)
          continue;
        WindowRead read{w.stride,  w.offset, w.lowSpan, w.highSpan,
                        extent, type.getDimSize(w.dim)};
        std::map<int64_t, int64_t> shifts = haloShifts(read, view.shape[m]);
        if (int64_t(shifts.size()) > kMaxHaloShifts) {
          Placements whole = ps;
          whole[m] = Placement::replicate();
          auto [t, b] = movePrice(view, type, ps, whole);
          time += t;
          bytes += b;
          continue;
        }
        // The rest of the largest local shard, in bytes.
        double row = getElementByteSize(type.getElementType()).value_or(8);
        for (int64_t d = 0; d < type.getRank(); ++d) {
          if (d == w.dim)
            continue;
          int64_t n = type.getDimSize(d);
          for (size_t k = 0; k < ps.size(); ++k)
            if (ps[k].isShard() && ps[k].dim == d)
              n = (n + view.shape[k] - 1) / view.shape[k];
          row *= double(n);
        }
        for (auto [shift, piece] : shifts) {
          time += cost.pointToPointTimeUs(links[m], int64_t(double(piece) * row));
          bytes += double(piece) * row;
        }
      }
    }
    return {time, bytes};
  }

  /// Whether a masked lookup of `t` may leave it where it lies on mesh dim
  /// `m`: sharded there along a dim it is read at by computed index.
  static bool masksOn(const TableRead &t, int64_t m) {
    const Placement &p = t.have[m];
    return p.isShard() && t.dimLoop[p.dim] == -1;
  }
  /// The masked lookup's row from replicate-everything's `row`: every
  /// operand whole, the results (and their inits) P(sum).
  static std::vector<Placement> maskedRowOf(const ShardingRule &rule,
                                            std::vector<Placement> row) {
    size_t numPlaced = rule.numOperands();
    for (size_t o = 0; o < row.size(); ++o)
      if (o >= numPlaced || rule.isInit(o))
        row[o] = Placement::partial(ReduceKind::Sum);
    return row;
  }

  /// The table a lookup may mask: the first maskable one sharded along a dim
  /// it is read at by computed index; -1 when none.
  static int maskedTableOf(ArrayRef<TableRead> tables) {
    for (auto [i, t] : llvm::enumerate(tables))
      if (t.maskable)
        for (int64_t m = 0; m < int64_t(t.have.size()); ++m)
          if (masksOn(t, m))
            return int(i);
    return -1;
  }

  /// Bytes per rank the moves of the analysis just made send (each
  /// distinct move of a value in a block once, as insert-redistribute and
  /// dtensor-optimize-collectives make them): operands to their recorded
  /// specs, tables as their lookups need them, results to annotations,
  /// `distribute_tensor`s and the function's result specs. Loop trips,
  /// loop-carried values and callees are not counted: the local search
  /// compares two analyses of one function by it.
  double analysisBytes(func::FuncOp fn) {
    double bytes = 0;
    std::set<std::tuple<const void *, const void *, const void *>> seen;
    // Resolved views (a program uses one or two).
    std::vector<std::pair<SpecAttr, std::optional<ResolvedMeshView>>> views;
    auto viewOf = [&](SpecAttr like, Operation *at) -> const std::optional<ResolvedMeshView> & {
      for (auto &[spec, view] : views)
        if (spec.getView() == like.getView())
          return view;
      views.push_back({like, std::nullopt});
      ScopedDiagnosticHandler quiet(fn.getContext(),
                                    [](Diagnostic &) { return success(); });
      FailureOr<ResolvedMeshView> view = resolveMeshView(
          at, like.getView(), *symbolTables, [&]() { return at->emitOpError(); });
      if (succeeded(view))
        views.back().second = std::move(*view);
      return views.back().second;
    };
    auto add = [&](Value v, const Placements &to, SpecAttr like, Operation *at) {
      SpecAttr have = specOf(v);
      auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
      if (!have || !type || !like || have.getView() != like.getView())
        return;
      Placements from = have.getNormalizedPlacements(type.getRank());
      if (sameIgnoringDefaultOrders(from, to))
        return;
      SpecAttr want = specWith(like, to);
      if (!seen.insert({v.getAsOpaquePointer(), want.getAsOpaquePointer(),
                        at->getBlock()})
               .second)
        return;
      const std::optional<ResolvedMeshView> &view = viewOf(like, at);
      if (view)
        bytes += movePrice(*view, type, from, to).second;
    };
    auto addSpec = [&](Value v, SpecAttr want, Operation *at) {
      auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
      if (want && type)
        add(v, want.getNormalizedPlacements(type.getRank()), want, at);
    };
    fn.walk([&](Operation *op) {
      if (auto specs = op->getAttrOfType<ArrayAttr>(kOperandSpecsAttr))
        for (auto [i, a] : llvm::enumerate(specs))
          if (i < op->getNumOperands())
            addSpec(op->getOperand(i), llvm::dyn_cast<SpecAttr>(a), op);
      if (llvm::isa<ShardingRuleOpInterface>(op))
        for (Value r : op->getResults())
          if (SpecAttr s = getSpec(r.getType())) {
            SpecAttr computed = chosenResult(op, r);
            if (computed && computed != s) {
              auto type = llvm::cast<RankedTensorType>(r.getType());
              Placements from = computed.getNormalizedPlacements(type.getRank());
              Placements to = s.getNormalizedPlacements(type.getRank());
              if (!sameIgnoringDefaultOrders(from, to))
                if (const std::optional<ResolvedMeshView> &view = viewOf(s, op))
                  bytes += movePrice(*view, type, from, to).second;
            }
          }
      if (auto dist = llvm::dyn_cast<DistributeTensorOp>(op))
        addSpec(dist.getSource(), getSpec(dist.getType()), op);
      if (auto ret = llvm::dyn_cast<func::ReturnOp>(op))
        if (ret->getParentOp() == fn.getOperation())
          for (auto [v, t] : llvm::zip(ret.getOperands(), fn.getResultTypes()))
            addSpec(v, getSpec(t), op);
      auto factors = chosenFactors.find(op);
      if (factors != chosenFactors.end()) {
        SpecAttr like = likeOf(op);
        if (!like)
          return;
        if (auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op)) {
          std::vector<TableRead> tables = tableReadsOf(op, like);
          int masked = maskedTableOf(tables);
          SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
          for (auto [i, t] : llvm::enumerate(tables))
            add(t.table, tableNeed(t, int(i) == masked, factors->second, ranges),
                like, op);
        }
        // Halo exchanges, at the operand specs the analysis recorded.
        auto iface = llvm::dyn_cast<ShardingRuleOpInterface>(op);
        auto specs = op->getAttrOfType<ArrayAttr>(kOperandSpecsAttr);
        std::string reason;
        FailureOr<ShardingRule> rule =
            iface ? iface.getShardingRule(reason) : FailureOr<ShardingRule>(failure());
        const std::optional<ResolvedMeshView> &view = viewOf(like, op);
        if (failed(rule) || rule->windows.empty() || !specs || !view)
          return;
        std::vector<Placements> placed;
        for (unsigned operand : rule->operands) {
          auto type = llvm::cast<RankedTensorType>(op->getOperand(operand).getType());
          SpecAttr spec = operand < specs.size()
                              ? llvm::dyn_cast<SpecAttr>(specs[operand])
                              : SpecAttr();
          if (!spec)
            spec = specOf(op->getOperand(operand));
          placed.push_back(spec ? spec.getNormalizedPlacements(type.getRank())
                                : Placements(view->shape.size(),
                                             Placement::replicate()));
        }
        bytes += haloPrice(*view, op, *rule, factors->second, placed).second;
      }
    });
    return bytes;
  }
  /// The spec the analysis computed `r` in (its recorded result spec).
  static SpecAttr chosenResult(Operation *op, Value r) {
    auto specs = op->getAttrOfType<ArrayAttr>(kResultSpecsAttr);
    unsigned n = llvm::cast<OpResult>(r).getResultNumber();
    return specs && n < specs.size() ? llvm::dyn_cast<SpecAttr>(specs[n])
                                     : SpecAttr();
  }
  /// The choice of every op that reads tables, from the last analysis of it.
  llvm::DenseMap<Operation *, std::vector<int64_t>> chosenFactors;

  /// The placements table `t` is moved to for an op that chooses `factors`
  /// (loops `ranges`): each dim read at a sharded loop's own index, as long
  /// as the loop, sharded as the loop; where the choice masks the lookup
  /// (`masked`), sharded as it is; whole elsewhere.
  static Placements tableNeed(const TableRead &t, bool masked,
                              ArrayRef<int64_t> factors,
                              ArrayRef<int64_t> ranges) {
    Placements need(factors.size(), Placement::replicate());
    for (auto [m, f] : llvm::enumerate(factors)) {
      if (f == kMaskedLookup && masked) {
        need[m] = t.have[m];
        continue;
      }
      if (f < 0 || !t.direct)
        continue;
      for (int64_t d = 0; d < t.type.getRank(); ++d)
        if (t.dimLoop[d] == f && !ShapedType::isDynamic(ranges[f]) &&
            t.type.getDimSize(d) == ranges[f]) {
          need[m] = Placement::shard(d);
          break;
        }
    }
    keepOrdersWhereSame(need, t.have);
    return need;
  }

  /// For a lookup none of whose operands is distributed (decided on its
  /// tables' view): whether mesh dim `m` may take factor `f`. Only to read
  /// a table where it lies: replicated, masked, or a loop that reads a dim
  /// a table is sharded along there (each rank its own columns). A plain
  /// op is not split otherwise (it is computed whole on every rank).
  static bool plainLookupMayTake(ArrayRef<TableRead> tables, int64_t m,
                                 int64_t f, ArrayRef<int64_t> ranges) {
    if (f == kReplicateAll || f == kMaskedLookup)
      return true;
    for (const TableRead &t : tables) {
      const Placement &p = t.have[m];
      if (t.direct && p.isShard() && t.dimLoop[p.dim] == f && f >= 0 &&
          !ShapedType::isDynamic(ranges[f]) &&
          t.type.getDimSize(p.dim) == ranges[f])
        return true;
    }
    return false;
  }

  /// Whether a choice that masks a lookup of `t` (kMaskedLookup on some
  /// mesh dims) leaves every rank some rows of it: each reads its own.
  static bool maskedLookupLegal(const ResolvedMeshView &view,
                                const TableRead &t, ArrayRef<int64_t> factors,
                                ArrayRef<int64_t> ranges) {
    if (!llvm::is_contained(factors, kMaskedLookup))
      return true;
    Placements need = tableNeed(t, /*masked=*/true, factors, ranges);
    std::string error;
    std::optional<Layout> layout =
        Layout::create(view.shape, t.type.getRank(), need, error);
    Shape shape(t.type.getShape().begin(), t.type.getShape().end());
    for (auto [m, f] : llvm::enumerate(factors))
      if (f == kMaskedLookup &&
          (!layout || layout->distinctSizes(shape, need[m].dim).front() == 0))
        return false;
    return true;
  }

  LogicalResult visitRuleOp(Operation *op, ShardingRuleOpInterface iface) {
    // The mesh view: from the distributed operands.
    SpecAttr like;
    for (Value v : op->getOperands())
      if (SpecAttr s = specOf(v)) {
        if (like && s.getView() != like.getView())
          return op->emitOpError()
                 << "has distributed operands on different meshes or views";
        like = s;
      }
    // A lookup whose operands are plain (token ids) but whose body reads a
    // distributed table is decided on the table's view: it may read each
    // rank's own part of the table instead of gathering it.
    if (!like)
      like = tableLikeOf(op);
    if (!like) {
      // Nothing distributed reaches this op (now: an earlier loop attempt
      // may have given it specs).
      for (Value res : op->getResults())
        choose(res, SpecAttr());
      op->removeAttr(kOperandSpecsAttr);
      op->removeAttr(kResultSpecsAttr);
      return success();
    }
    if (!findMeshHandle(op, like.getView()))
      return op->emitOpError()
             << "computes on values distributed over " << like.getMesh()
             << "; its function needs that mesh's handle as an argument";
    // Tables read in the body are priced per choice (and the choice may
    // mask a lookup); such ops are decided afresh (the cache's key and its
    // replayed moves cover operands only).
    std::vector<TableRead> tables = tableReadsOf(op, like);
    bool cacheable = !explain && tables.empty();
    std::string key;
    if (!explain || searchBudget > 0)
      key = decisionKey(op, like);
    auto forcedIt = forced.find(key);
    const std::vector<int64_t> *force =
        forcedIt == forced.end() ? nullptr : &forcedIt->second;
    if (!forcedOps.empty()) {
      auto it = forcedOps.find(op);
      if (it != forcedOps.end())
        force = &it->second;
    }
    if (!keyForced.empty() && !key.empty())
      if (auto it = keyForced.find(key); it != keyForced.end())
        force = &it->second;
    // A forced choice is cached apart (the same op forced alike decides
    // alike).
    std::string cacheKey = key;
    appendPaidKey(cacheKey, op);
    // (The same op at another depth of loops around its operands prices
    // their moves apart: hoistTrips.)
    for (Value v : op->getOperands()) {
      double trips = hoistTrips(v, op, invariantCache);
      cacheKey.append(reinterpret_cast<const char *>(&trips), sizeof trips);
    }
    std::string freeKey;
    if (force) {
      if (cacheable)
        freeKey = cacheKey;
      cacheKey.append("\xff forced");
      for (int64_t f : *force)
        cacheKey.append(reinterpret_cast<const char *>(&f), 8);
    }
    if (cacheable) {
      auto it = decisions.find(cacheKey);
      bool hit =
          it != decisions.end() && sameProperties(it->second.representative, op);
      // A forced choice that the op makes unforced anyway decides as the
      // unforced decision did (one candidate per choice; forcing keeps the
      // free best when it is that choice): windows force every op to the
      // plan's choice.
      bool asFree = false;
      if (!hit && force) {
        it = decisions.find(freeKey);
        hit = asFree = it != decisions.end() &&
                       llvm::equal(it->second.factors, *force) &&
                       sameProperties(it->second.representative, op);
      }
      if (hit) {
        const Decision &d = it->second;
        spent += d.cost;
        if (recordAlternatives && !asFree)
          for (const std::vector<int64_t> &f : d.alternatives)
            alternatives.push_back({key, f, d.moveCost});
        // The key holds the op's attribute dictionary: this one is the
        // representative's with the same two specs set.
        op->setDiscardableAttrs(d.attrs);
        for (auto [operand, spec] : d.moved)
          markPaid(op->getOperand(operand), spec, op->getBlock());
        if (d.windowed)
          chosenFactors[op] = d.factors;
        lastChoice[op] = {d.factors, d.cost};
        decided.push_back(op);
        for (auto [res, spec] : llvm::zip(op->getResults(), d.results))
          choose(res, spec, d.followed);
        return success();
      }
    }
    std::string reason;
    FailureOr<const ShardingRule *> ruleOr = ruleOf(iface, reason);
    if (failed(ruleOr))
      return op->emitOpError()
             << "takes distributed operands but has no sharding rule: " << reason
             << "; redistribute them to R, or compute in a dtensor.local_map";
    const ShardingRule &rule = **ruleOr;
    FailureOr<ResolvedMeshView> view = resolveMeshView(
        op, like.getView(), *symbolTables, [&]() { return op->emitOpError(); });
    if (failed(view))
      return failure();
    int64_t meshRank = view->shape.size();
    size_t numPlaced = rule.numOperands(), numResults = rule.numResults();
    int64_t numFactors = rule.factors.size();

    // Current placements of every placed operand (plain ones replicated).
    std::vector<Placements> current(numPlaced), canonical(numPlaced);
    std::vector<bool> annotated(numPlaced, false), pays(numPlaced, false);
    std::vector<int64_t> held(numPlaced, kNoPriority);
    for (size_t o = 0; o < numPlaced; ++o) {
      Value v = op->getOperand(rule.operands[o]);
      auto type = llvm::cast<RankedTensorType>(v.getType());
      if (!type.hasStaticShape())
        return op->emitOpError() << "needs static shapes to be propagated";
      if (SpecAttr s = specOf(v)) {
        current[o] = s.getNormalizedPlacements(type.getRank());
        annotated[o] = true;
        held[o] = strengthOf(v);
      } else {
        current[o].assign(meshRank, Placement::replicate());
      }
      canonical[o] = dropDefaultOrders(current[o]);
      pays[o] = annotated[o] && !(rule.isInit(o) && isFreshTensor(v));
    }
    for (Value r : op->getResults())
      if (!llvm::cast<RankedTensorType>(r.getType()).hasStaticShape())
        return op->emitOpError() << "needs static shapes to be propagated";

    // The rule of each (mesh dim, factor) choice, computed once.
    std::vector<std::vector<std::optional<std::vector<Placement>>>> rows(meshRank);
    for (int64_t d = 0; d < meshRank; ++d) {
      std::vector<Placement> here;
      for (size_t o = 0; o < numPlaced; ++o)
        here.push_back(current[o][d]);
      for (int64_t f = kReplicateAll; f < numFactors; ++f)
        rows[d].push_back(placementsForFactor(rule, f, here));
    }
    // A pure lookup of a table sharded along a dim it reads at a computed
    // index may leave it there: every operand whole on that mesh dim, the
    // results (and their inits) P(sum).
    int maskedTable = maskedTableOf(tables);
    std::vector<std::optional<std::vector<Placement>>> maskedRows(meshRank);
    if (maskedTable >= 0)
      for (int64_t d = 0; d < meshRank; ++d)
        if (masksOn(tables[maskedTable], d) && rows[d][0])
          maskedRows[d] = maskedRowOf(rule, *rows[d][0]);
    auto rowOf = [&](int64_t d, int64_t f)
        -> const std::optional<std::vector<Placement>> & {
      return f == kMaskedLookup ? maskedRows[d] : rows[d][f - kReplicateAll];
    };
    SmallVector<int64_t> loopRanges;
    if (!tables.empty())
      loopRanges = llvm::cast<linalg::LinalgOp>(op).getStaticLoopRanges();
    std::vector<std::optional<Placements>> targets(numResults);
    std::vector<int64_t> targetStrength(numResults, kNoPriority);
    for (size_t r = 0; r < numResults; ++r)
      targets[r] = targetOf(op->getResult(r), meshRank, targetStrength[r]);
    // Moves to a result's target that no other analysis step counts: to
    // its annotation, its hint, a distribute_tensor of it (a return's move
    // is counted with the function's result).
    std::vector<bool> paidHere(numResults);
    for (size_t r = 0; r < numResults; ++r) {
      Value res = op->getResult(r);
      paidHere[r] = targetStrength[r] != kNoPriority ||
                    getSpec(res.getType()) || hasDistributeUser(res);
    }
    std::vector<std::vector<Placements>> demanded(numResults);
    for (size_t r = 0; r < numResults; ++r)
      if (!targets[r]) {
        auto type = llvm::cast<RankedTensorType>(op->getResult(r).getType());
        for (SpecAttr want : demandsOf(op->getResult(r), like))
          if (want.getView() == like.getView())
            demanded[r].push_back(want.getNormalizedPlacements(type.getRank()));
      }
    auto outType = llvm::cast<RankedTensorType>(op->getResult(0).getType());

    // Every combination of choices, with its moves; priced lazily.
    std::vector<Candidate> candidates;
    std::vector<int64_t> choice(meshRank, kNoFactor);
    std::string divisibilityError;
    // Enumeration reads the rows in place (a candidate's placements are
    // built only when it is priced): per mesh dim its legal choices, and per
    // choice what each placed operand and result gets there.
    struct RowInfo {
      int64_t factor;
      const std::vector<Placement> *row;
    };
    std::vector<SmallVector<RowInfo, 6>> legal(meshRank);
    bool plainLookup = !tables.empty() && !llvm::any_of(annotated, [](bool a) { return a; });
    for (int64_t d = 0; d < meshRank; ++d)
      for (int64_t f = maskedRows[d] ? kMaskedLookup : kReplicateAll;
           f < numFactors; ++f)
        if (const auto &row = rowOf(d, f))
          if (!plainLookup || plainLookupMayTake(tables, d, f, loopRanges))
            legal[d].push_back({f, &*row});
    SmallVector<size_t, 4> at(meshRank, 0);
    // (Reserved: growing would copy the candidates, whose small vectors do
    // not move without throwing as far as std::vector can tell.)
    size_t combinations = 1;
    for (const auto &l : legal)
      combinations *= l.size();
    candidates.reserve(combinations);
    // The combination `at` picks, as a candidate unless it is illegal.
    auto consider = [&]() {
      if (!divisibilityHolds(rule, choice, view->shape, divisibilityError))
        return;
      Candidate c;
      for (size_t o = 0; o < numPlaced + numResults; ++o) {
        // One Partial kind per spec.
        std::optional<ReduceKind> kind;
        int64_t changed = 0;
        for (int64_t d = 0; d < meshRank; ++d) {
          const Placement &p = (*legal[d][at[d]].row)[o];
          if (p.isPartial()) {
            if (kind && *kind != p.reduce)
              return;
            kind = p.reduce;
          }
          // (Orders aside: a candidate takes an operand's own order of a
          // factor it shards the same way, shardOrderVariants.)
          if (o < numPlaced && !sameIgnoringOrder(p, canonical[o][d]))
            ++changed;
        }
        if (o >= numPlaced)
          continue;
        if (!annotated[o] && !rule.isInit(o) && kind)
          return; // a plain input cannot become a Partial
        if (kind && rule.isInit(o) && !pays[o] &&
            !initTakesPartial(op->getOperand(rule.operands[o]), *kind))
          return; // an init whose terms partitioning cannot make
        if (changed && (pays[o] || !rule.isInit(o))) {
          ++c.moves;
          c.changedDims += changed;
          c.moved = std::min(c.moved, annotated[o] ? held[o] : kNoPriority);
        }
      }
      c.factors.assign(choice.begin(), choice.end());
      // The largest local output: chunk 0 at every level.
      SmallVector<int64_t, 4> sizes(outType.getShape().begin(),
                                    outType.getShape().end());
      for (int64_t d = 0; d < meshRank; ++d) {
        const Placement &p = (*legal[d][at[d]].row)[numPlaced];
        if (p.isShard())
          sizes[p.dim] = (sizes[p.dim] + view->shape[d] - 1) / view->shape[d];
      }
      c.outputElements = 1;
      for (int64_t v : sizes)
        c.outputElements *= v;
      c.index = int64_t(candidates.size());
      candidates.push_back(std::move(c));
    };
    // The next combination (the last mesh dim fastest); false after the last.
    auto advance = [&]() {
      for (int64_t d = meshRank - 1; d >= 0; --d) {
        if (++at[d] < legal[d].size())
          return true;
        at[d] = 0;
      }
      return false;
    };
    if (llvm::all_of(legal, [](const auto &l) { return !l.empty(); }))
      do {
        for (int64_t d = 0; d < meshRank; ++d)
          choice[d] = legal[d][at[d]].factor;
        consider();
      } while (advance());
    // A candidate's placements, from its factors' rows.
    auto place = [&](Candidate &c) {
      if (!c.placed.empty())
        return;
      c.placed.assign(numPlaced + numResults, Placements(meshRank));
      for (int64_t d = 0; d < meshRank; ++d) {
        const auto &row = *rowOf(d, c.factors[d]);
        for (size_t o = 0; o < numPlaced + numResults; ++o)
          c.placed[o][d] = row[o];
      }
      // A factor sharded by several mesh dims: the shard order that moves
      // the least (operands from what they have, results to their targets).
      std::vector<std::vector<Placements>> variants = shardOrderVariants(
          rule, c.factors, c.placed, [&](size_t o) -> ArrayRef<Placements> {
            if (o < numPlaced)
              return current[o];
            const auto &target = targets[o - numPlaced];
            return target ? ArrayRef<Placements>(*target)
                          : ArrayRef<Placements>();
          });
      if (variants.size() < 2)
        return;
      double best = std::numeric_limits<double>::infinity();
      for (std::vector<Placements> &v : variants) {
        double moves = 0;
        for (size_t o = 0; o < numPlaced; ++o)
          if (pays[o] && v[o] != canonical[o])
            moves += priceOf(*view,
                             llvm::cast<RankedTensorType>(
                                 op->getOperand(rule.operands[o]).getType()),
                             current[o], v[o]);
        for (size_t r = 0; r < numResults; ++r)
          if (targets[r] && v[numPlaced + r] != dropDefaultOrders(*targets[r]))
            moves += priceOf(*view,
                             llvm::cast<RankedTensorType>(
                                 op->getResult(r).getType()),
                             v[numPlaced + r], *targets[r]);
        if (moves < best) {
          best = moves;
          c.placed = std::move(v);
        }
      }
    };

    auto price = [&](Candidate &c) {
      if (c.priced)
        return;
      c.priced = true;
      place(c);
      for (size_t o = 0; o < numPlaced; ++o)
        if (pays[o] && c.placed[o] != canonical[o])
        {
          Value v = op->getOperand(rule.operands[o]);
          if (paidMoves.count(v) &&
              alreadyPaid(v, specWith(like, c.placed[o]), op->getBlock()))
            continue; // an earlier user's redistribution serves this one
          double move = priceOf(*view, llvm::cast<RankedTensorType>(v.getType()),
                                current[o], c.placed[o]);
          // dtensor-narrow-moves may move the producer's inputs instead.
          if (narrow && move > 0)
            move = std::min(move, narrowPrice(*view, op, v, like, c.placed[o]));
          // A move of a value from outside the loops around the op leaves
          // them: paid once for all their iterations.
          c.moveCost += move / hoistTrips(v, op, invariantCache);
        }
      for (auto [i, t] : llvm::enumerate(tables)) {
        bool masked = int(i) == maskedTable;
        Placements need = tableNeed(t, masked, c.factors, loopRanges);
        if (masked && !maskedLookupLegal(*view, t, c.factors, loopRanges))
          c.moveCost = std::numeric_limits<double>::infinity();
        if (sameIgnoringDefaultOrders(need, t.have) ||
            alreadyPaid(t.table, specWith(like, need), op->getBlock()))
          continue;
        c.moveCost += priceOf(*view, t.type, t.have, need);
      }
      if (!rule.windows.empty())
        c.moveCost += haloPrice(*view, op, rule, c.factors, c.placed).first;
      c.cost = c.moveCost;
      for (size_t r = 0; r < numResults; ++r)
        if (targets[r]) {
          Placements have = c.placed[numPlaced + r];
          if (!sameIgnoringDefaultOrders(have, *targets[r]))
            c.moved = std::min(c.moved, targetStrength[r]);
          double move = priceOf(
              *view, llvm::cast<RankedTensorType>(op->getResult(r).getType()),
              have, *targets[r]);
          c.cost += move;
          if (paidHere[r])
            c.targetCost += move;
        } else {
          for (const Placements &want : demanded[r])
            c.cost += priceOf(
                *view, llvm::cast<RankedTensorType>(op->getResult(r).getType()),
                c.placed[numPlaced + r], want);
        }
    };
    // Priorities first (a candidate that moves a stronger-held value, or
    // misses a stronger hint, loses); then DTensor's order: no
    // redistribution, the least cost, the fewest changed placements, the
    // most sharded result. Without a known target, candidates that move
    // nothing cost nothing.
    auto rank = [](const Candidate &k) {
      return std::make_tuple(-k.moved, k.moves > 0, k.cost, k.moves,
                             k.changedDims, k.outputElements, k.index);
    };
    // Pricing can only lower `moved`, so before it a candidate's first two
    // ranks are its best case: price in that order (stable: equal ranks keep
    // their order) and stop once the best case loses to the best found.
    auto bestCase = [](const Candidate &k) {
      return std::make_tuple(-k.moved, k.moves > 0);
    };
    SmallVector<Candidate *, 32> byBestCase;
    for (Candidate &c : candidates)
      byBestCase.push_back(&c);
    std::stable_sort(byBestCase.begin(), byBestCase.end(),
                     [&](const Candidate *a, const Candidate *b) {
                       return bestCase(*a) < bestCase(*b);
                     });
    Candidate *best = nullptr;
    for (Candidate *c : byBestCase) {
      if (best && bestCase(*best) < bestCase(*c))
        break;
      price(*c);
      if (!std::isfinite(c->cost))
        continue;
      if (!best || rank(*c) < rank(*best))
        best = c;
    }
    if (best && plainLookup && !force) {
      // A lookup of plain ids reads its table whole, as it would without a
      // choice: reading each rank's own part leaves its result sharded or
      // Partial, which its users pay for later, beyond what one op can
      // see (a vocabulary-parallel lookup's Partial reduce-scattered to the
      // batch dim turned a sequence-parallel step data-parallel, 10 -> 12
      // collectives). The whole-function model, its windows and the local
      // search weigh the other choices against the later uses.
      for (Candidate &c : candidates)
        if (llvm::all_of(c.factors,
                         [](int64_t f) { return f == kReplicateAll; })) {
          price(c);
          if (std::isfinite(c.cost) && c.moved >= best->moved)
            best = &c;
          break;
        }
    }
    if (best && force) {
      // The search's choice, when legal and not against a stronger hint.
      for (Candidate &c : candidates)
        if (llvm::equal(c.factors, *force)) {
          price(c);
          if (std::isfinite(c.cost) && c.moved >= best->moved)
            best = &c;
          break;
        }
    }
    // The next-cheapest choices that give other results, for the search to
    // try (kept with the decision, so an analysis answered from the cache
    // offers them too). A choice with the same results as a cheaper one
    // leaves every later op as it was, so it can only cost more.
    std::vector<std::vector<int64_t>> offered;
    if (best && !force && searchBudget > 0 && best->moveCost > 0) {
      std::vector<Candidate *> others;
      for (Candidate &c : candidates) {
        price(c);
        if (std::isfinite(c.cost) && c.moved >= best->moved &&
            c.factors != best->factors)
          others.push_back(&c);
      }
      std::stable_sort(others.begin(), others.end(),
                       [&](Candidate *a, Candidate *b) { return rank(*a) < rank(*b); });
      auto results = [&](const Candidate &c) {
        return std::vector<Placements>(c.placed.begin() + numPlaced, c.placed.end());
      };
      std::vector<std::vector<Placements>> seen{results(*best)};
      for (Candidate *c : others) {
        if (offered.size() == kAlternativesPerOp)
          break;
        std::vector<Placements> r = results(*c);
        if (llvm::is_contained(seen, r))
          continue;
        seen.push_back(std::move(r));
        offered.emplace_back(c->factors.begin(), c->factors.end());
      }
      if (recordAlternatives)
        for (const std::vector<int64_t> &f : offered)
          alternatives.push_back({key, f, best->moveCost});
    }
    if (!best) {
      InFlightDiagnostic diag =
          op->emitOpError() << "has no sharding rule for its distributed "
                               "operands; redistribute them (for example to "
                               "R) first";
      if (!divisibilityError.empty())
        diag << " (" << divisibilityError << ")";
      // A result typed as an integer Partial sum (or product) can only be
      // reached from Partial terms: DTensor's R -> P of an integer has no
      // exact form, so no strategy whose result is whole gets there.
      auto integerSumOrProduct = [](RankedTensorType t) {
        SpecAttr spec = getSpec(t);
        return spec && llvm::isa<IntegerType, IndexType>(t.getElementType()) &&
               llvm::any_of(spec.getPlacements(), [](const Placement &p) {
                 return p.isPartial() && (p.reduce == ReduceKind::Sum ||
                                          p.reduce == ReduceKind::Product);
               });
      };
      for (Value r : op->getResults()) {
        auto t = llvm::dyn_cast<RankedTensorType>(r.getType());
        if (t && integerSumOrProduct(t)) {
          diag.attachNote(r.getLoc())
              << "its result is typed " << getSpec(t)
              << ", an integer Partial: it can come only from Partial "
                 "terms (a replicated integer cannot be split into terms), "
                 "and no strategy of this op keeps its operands' terms";
          break;
        }
        // The same asked by a hint (an output placement of the PyTorch
        // importer is one).
        for (Operation *user : r.getUsers())
          if (auto hint = llvm::dyn_cast<HintOp>(user);
              hint && integerSumOrProduct(hint.getType())) {
            diag.attachNote(hint.getLoc())
                << "a hint asks for its result as " << getSpec(hint.getType())
                << ", an integer Partial: it can come only from Partial terms "
                   "(a replicated integer cannot be split into terms), and no "
                   "strategy of this op makes them; hint Replicate or Shard";
            break;
          }
      }
      return diag;
    }
    spent += best->moveCost + best->targetCost;
    SmallVector<std::pair<unsigned, Attribute>> movedOperands;
    for (size_t o = 0; o < numPlaced; ++o)
      if (pays[o] && best->placed[o] != canonical[o]) {
        Value v = op->getOperand(rule.operands[o]);
        if (v.hasOneUse())
          continue;
        SpecAttr spec = specWith(like, best->placed[o]);
        movedOperands.push_back({rule.operands[o], spec});
        markPaid(v, spec, op->getBlock());
      }
    if (!tables.empty() || !rule.windows.empty())
      chosenFactors[op].assign(best->factors.begin(), best->factors.end());
    lastChoice[op] = {std::vector<int64_t>(best->factors.begin(), best->factors.end()),
                      best->moveCost + best->targetCost};
    for (auto [i, t] : llvm::enumerate(tables)) {
      bool masked = int(i) == maskedTable;
      Placements need = tableNeed(t, masked, best->factors, loopRanges);
      if (!sameIgnoringDefaultOrders(need, t.have))
        markPaid(t.table, specWith(like, need), op->getBlock());
      if (explain && masked && llvm::is_contained(best->factors, kMaskedLookup))
        llvm::raw_string_ostream(log)
            << "dtensor-propagate: " << op->getName() << " at " << op->getLoc()
            << ": masked lookup " << formatChoice(best->factors)
            << ": the table stays " << formatPlacements(t.have)
            << ", each rank reads the rows it holds, the result is "
            << formatPlacements(best->placed[numPlaced]) << "\n";
    }
    if (explain)
      for (size_t r = 0; r < numResults; ++r) {
        const Placements &have = best->placed[numPlaced + r];
        if (!targets[r] ||
            sameIgnoringDefaultOrders(have, *targets[r]))
          continue;
        llvm::raw_string_ostream os(log);
        os << "dtensor-propagate: " << op->getName() << " at " << op->getLoc()
           << ": result " << r << " is computed as " << formatPlacements(have)
           << " and moved to " << formatPlacements(*targets[r]) << " for its ";
        if (targetStrength[r] != kNoPriority)
          os << "hint (priority " << targetStrength[r] << ")";
        else if (getSpec(op->getResult(r).getType()))
          os << "annotation";
        else
          os << "users";
        auto type = llvm::cast<RankedTensorType>(op->getResult(r).getType());
        if (std::optional<Plan> plan = planFor(*view, type, have, *targets[r]))
          os << " (" << plan->numCollectives() << " collective(s), "
             << plan->bytesPerRank() << " bytes/rank)";
        os << "\n";
      }
    if (explain)
      for (size_t r = 0; r < numResults; ++r)
        for (Operation *user : op->getResult(r).getUsers()) {
          auto hint = llvm::dyn_cast<HintOp>(user);
          if (!hint || int64_t(hint.getPriority()) == targetStrength[r])
            continue;
          auto type = llvm::cast<RankedTensorType>(hint.getType());
          Placements want = getSpec(type).getNormalizedPlacements(type.getRank());
          const Placements &have = best->placed[numPlaced + r];
          if (sameIgnoringDefaultOrders(want, have))
            continue;
          llvm::raw_string_ostream(log)
              << "dtensor-propagate: hint at " << hint.getLoc() << " (priority "
              << hint.getPriority()
              << ") conflicts with a stronger one; the value is "
              << formatPlacements(have) << " and is redistributed to "
              << formatPlacements(want) << " for it\n";
        }
    int64_t followed = apply(op, rule, *best, like, *view, current, annotated, held);
    if (cacheable) {
      Decision d{op, op->getRawDictionaryAttrs(),
                 {},
                 followed,
                 best->moveCost + best->targetCost,
                 std::move(offered),
                 best->moveCost,
                 std::move(movedOperands)};
      for (size_t r = 0; r < numResults; ++r)
        d.results.push_back(specWith(like, best->placed[numPlaced + r]));
      d.factors.assign(best->factors.begin(), best->factors.end());
      d.windowed = !rule.windows.empty();
      decisions.emplace(std::move(cacheKey), std::move(d)); // keeps a first entry
    }
    return success();
  }

  /// Records a choice: the spec every placed operand must have and the
  /// spec of every result. Returns the strength the results hold.
  int64_t apply(Operation *op, const ShardingRule &rule, const Candidate &c,
             SpecAttr like, const ResolvedMeshView &view,
             const std::vector<Placements> &current,
             const std::vector<bool> &annotated,
             const std::vector<int64_t> &held) {
    MLIRContext *ctx = op->getContext();
    size_t numPlaced = rule.numOperands();
    SmallVector<Attribute> operandSpecs(op->getNumOperands(), UnitAttr::get(ctx));
    int64_t followed = kNoPriority;
    for (size_t o = 0; o < numPlaced; ++o) {
      operandSpecs[rule.operands[o]] = specWith(like, c.placed[o]);
      if (annotated[o] && sameIgnoringDefaultOrders(c.placed[o], current[o]))
        followed = std::min(followed, held[o]);
      if (!explain || !annotated[o] || rule.isInit(o) ||
          sameIgnoringDefaultOrders(c.placed[o], current[o]))
        continue;
      Value v = op->getOperand(rule.operands[o]);
      auto type = llvm::cast<RankedTensorType>(v.getType());
      llvm::raw_string_ostream os(log);
      os << "dtensor-propagate: " << op->getName() << " at " << op->getLoc()
         << ": loops " << formatChoice(c.factors) << " need operand "
         << rule.operands[o] << " as " << formatPlacements(c.placed[o])
         << ", it is " << formatPlacements(current[o]);
      for (int64_t f : c.factors)
        if (f >= 0 && rule.factors[f].kind == RuleFactor::Kind::Reduction) {
          os << "; a sharded reduction leaves Partial results";
          break;
        }
      if (std::optional<Plan> plan = planFor(view, type, current[o], c.placed[o]))
        os << " (" << plan->numCollectives() << " collective(s), "
           << plan->bytesPerRank() << " bytes/rank)";
      os << "\n";
    }
    op->setAttr(kOperandSpecsAttr, ArrayAttr::get(ctx, operandSpecs));
    decided.push_back(op);
    for (size_t r = 0; r < rule.numResults(); ++r)
      choose(op->getResult(r), specWith(like, c.placed[numPlaced + r]), followed);
    SmallVector<Attribute> resultSpecs;
    for (size_t r = 0; r < rule.numResults(); ++r)
      resultSpecs.push_back(specWith(like, c.placed[numPlaced + r]));
    op->setAttr(kResultSpecsAttr, ArrayAttr::get(ctx, resultSpecs));
    return followed;
  }
};

} // namespace
