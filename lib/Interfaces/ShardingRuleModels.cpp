//===- ShardingRuleModels.cpp - rules of upstream ops ---------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// External models of ShardingRuleOpInterface for the upstream ops global-view
// programs are written in. The rules follow SEMANTICS.md: linalg from its
// indexing maps, iterator types and body; element-wise arith/math; tensor
// views and slices from their static sizes.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Interfaces/ShardingRuleOpInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cstdlib>
#include <limits>

using namespace mlir;
using namespace mlir::dtensor;

namespace {

//===----------------------------------------------------------------------===//
// linalg
//===----------------------------------------------------------------------===//

/// The reduction a linalg body applies to its output `outArg` (sum,
/// product, max, min), if it is one of the Partial kinds.
std::optional<ReduceKind> combinerOf(Block &body, BlockArgument outArg) {
  auto yield = llvm::cast<linalg::YieldOp>(body.getTerminator());
  unsigned firstOut = body.getNumArguments() - yield.getNumOperands();
  unsigned index = outArg.getArgNumber() - firstOut;
  Operation *def = yield.getOperand(index).getDefiningOp();
  if (!def || def->getNumOperands() != 2 ||
      !llvm::is_contained(def->getOperands(), Value(outArg)))
    return std::nullopt;
  // The term combined with the accumulator must not read any accumulator
  // (its own: `acc + acc * x` is a product recurrence; another output's:
  // `p + o`), or the per-rank partial results do not combine with the op.
  Value term = def->getOperand(0) == Value(outArg) ? def->getOperand(1)
                                                   : def->getOperand(0);
  if (term == Value(outArg))
    return std::nullopt; // acc + acc
  llvm::SmallVector<Value> work{term};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == &body && arg.getArgNumber() >= firstOut)
        return std::nullopt;
      continue;
    }
    Operation *op = v.getDefiningOp();
    if (!op || !body.getParentOp()->isAncestor(op) || !seen.insert(op).second)
      continue;
    llvm::append_range(work, op->getOperands());
    // Values an op's regions read from the body count too.
    op->walk([&](Operation *inner) {
      if (inner != op)
        llvm::append_range(work, inner->getOperands());
    });
  }
  // On i1, addi is a xor and maxsi / minsi read true as -1, where a bool
  // Partial sum / max / min combines as or / or / and (torch's bools): no
  // Partial kind; muli (and) is a Partial product.
  if (outArg.getType().isInteger(1) &&
      !llvm::isa<arith::MulIOp, arith::AndIOp>(def))
    return std::nullopt;
  if (llvm::isa<arith::AddFOp, arith::AddIOp>(def))
    return ReduceKind::Sum;
  if (llvm::isa<arith::MulFOp, arith::MulIOp>(def))
    return ReduceKind::Product;
  // A Partial max / min combines as torch.maximum / minimum: a NaN term
  // gives NaN, as arith.maximumf / minimumf do. maxnumf / minnumf ignore a
  // NaN, which a rank whose terms are all NaN would pass on: they are no
  // Partial kind (their reduction dims are gathered first).
  if (llvm::isa<arith::MaximumFOp, arith::MaxSIOp>(def))
    return ReduceKind::Max;
  if (llvm::isa<arith::MinimumFOp, arith::MinSIOp>(def))
    return ReduceKind::Min;
  return std::nullopt;
}

/// Whether `v` is a constant whose every element is a finite float: the
/// constant itself, or (inside a linalg body) the element of a constant
/// input, through the moves and views that keep its values (propagation
/// sees `x + c` at the tensor level; partitioning sees the linalg.generic
/// insert-redistribute makes of it, with the constant distributed as R).
static bool isFiniteConstant(Value v) {
  for (int steps = 0; steps < 16; ++steps) {
    if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
      auto linalgOp =
          llvm::dyn_cast_or_null<linalg::LinalgOp>(arg.getOwner()->getParentOp());
      if (!linalgOp || arg.getArgNumber() >= unsigned(linalgOp.getNumDpsInputs()))
        return false;
      v = linalgOp.getDpsInputOperand(arg.getArgNumber())->get();
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!def)
      return false;
    // (The dialect's moves by name: this library sits below the dialect.)
    StringRef name = def->getName().getStringRef();
    if (name == "dtensor.distribute_tensor" || name == "dtensor.redistribute" ||
        name == "dtensor.hint" ||
        llvm::isa<tensor::CastOp, tensor::ExtractSliceOp, tensor::ExpandShapeOp,
                  tensor::CollapseShapeOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    break;
  }
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return false;
  if (auto f = llvm::dyn_cast<FloatAttr>(attr))
    return f.getValue().isFinite();
  if (auto dense = llvm::dyn_cast<DenseFPElementsAttr>(attr))
    return llvm::all_of(dense.getValues<APFloat>(),
                        [](const APFloat &x) { return x.isFinite(); });
  return false;
}

/// Whether `op`, one element-wise arith/math op, keeps a Partial of `kind`
/// in the operands marked in `partial` (one entry per operand of `op`; the
/// others are the same on every rank: replicated tensors, constants, values
/// from outside a body). SEMANTICS.md's pointwise rules, where they are
/// exact for the program's own types: add/sub keep P(sum|avg) of two
/// Partial sides, and a P(avg) plus or minus a replicated value; mul/div
/// keep P(sum|avg) with exactly one Partial side (div: the numerator); ops
/// that do not decrease (exp, tanh, adding a finite constant, max/min with
/// a replicated value, casts that keep the order) keep P(max|min). Not kept, where DTensor
/// keeps them: a P(sum|avg) through a float cast (the global program
/// rounds the sum, not each term: a narrowed sum of f32 terms 70000 and
/// -70000 is 0, the sum of narrowed terms inf - inf; a reduction before a
/// widening cast moves fewer bytes anyway), and an integer P(avg) through
/// anything (its reduction divides, truncating: avg(a) * c is not avg(a *
/// c)). On integers a wrap rules orders out (an i8 P(max) plus a constant,
/// fptosi of 200.0 to i8), and i1 keeps nothing (add is a xor, a bool
/// Partial sum an or).
bool opKeepsPartial(Operation *op, ArrayRef<bool> partial, ReduceKind kind) {
  if (op->getNumResults() != 1 || partial.empty() ||
      partial.size() != op->getNumOperands() ||
      llvm::none_of(partial, [](bool p) { return p; }))
    return false;
  Type elem = getElementTypeOrSelf(op->getResult(0).getType());
  Type in = getElementTypeOrSelf(op->getOperand(0).getType());
  if (elem.isInteger(1) || in.isInteger(1))
    return false;
  bool isFloat = llvm::isa<FloatType>(elem);
  // Sums wrap exactly on integers (mod 2^n); an average divides.
  bool linear = kind == ReduceKind::Sum || (kind == ReduceKind::Avg && isFloat);
  bool order = kind == ReduceKind::Max || kind == ReduceKind::Min;
  if (op->getNumOperands() == 1) {
    // An integer truncation is a ring homomorphism (mod 2^n): sums and
    // products survive it; an order does not.
    if (llvm::isa<arith::TruncIOp>(op))
      return kind == ReduceKind::Sum || kind == ReduceKind::Product;
    if (llvm::isa<arith::NegFOp>(op))
      return linear;
    // Non-decreasing on all of their domain: max_i f(a_i) = f(max_i a_i)
    // (float casts round monotonically; sitofp too).
    if (llvm::isa<arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp,
                  arith::SIToFPOp, math::ExpOp, math::Exp2Op, math::ExpM1Op,
                  math::TanhOp, math::SinhOp, math::AsinhOp, math::AtanOp,
                  math::ErfOp, math::CbrtOp, math::CeilOp, math::FloorOp,
                  math::RoundOp, math::RoundEvenOp, math::TruncOp>(op))
      return order;
    return false;
  }
  if (op->getNumOperands() != 2)
    return false;
  bool pa = partial[0], pb = partial[1];
  bool avg = kind == ReduceKind::Avg && isFloat;
  // A P(max|min) plus a value the same on every rank is one only where that
  // value is finite: max_i(a_i + c) = max_i(a_i) + c fails for c = +inf
  // when some term is -inf (an empty shard's term is its init, -inf: NaN on
  // that rank, and a NaN term wins) and not all are. So the other side must
  // be a finite constant. (Found by probing; the global program gave inf.)
  Value other = op->getOperand(pa ? 1 : 0);
  if (llvm::isa<arith::AddFOp, arith::AddIOp>(op))
    return linear ? pa && pb || (avg && pa != pb)
                  : order && isFloat && pa != pb && isFiniteConstant(other);
  if (llvm::isa<arith::SubFOp, arith::SubIOp>(op))
    return linear ? pa && pb || (avg && pa != pb)
                  : order && isFloat && pa && !pb && isFiniteConstant(other);
  if (llvm::isa<arith::MulFOp, arith::MulIOp>(op))
    return linear && pa != pb;
  if (llvm::isa<arith::DivFOp>(op))
    return linear && pa && !pb;
  // max(max_i a_i, c) = max_i max(a_i, c), and min(., c) does not decrease
  // either: one Partial side of either order keeps P(max|min); two Partial
  // sides only when the op is the Partial's own combiner.
  bool maxOp = llvm::isa<arith::MaximumFOp, arith::MaxSIOp>(op);
  bool minOp = llvm::isa<arith::MinimumFOp, arith::MinSIOp>(op);
  if (maxOp || minOp)
    return order && (pa != pb || (maxOp ? kind == ReduceKind::Max
                                        : kind == ReduceKind::Min));
  return false;
}

/// Whether a body keeps its Partial inputs (marked, by block argument) of
/// `kind` Partial: it is one op that does (opKeepsPartial) on inputs,
/// constants and values from outside the body, or a contraction (out + a *
/// b) with exactly one Partial factor and a linear kind; the rest Replicate.
bool bodyKeepsPartial(Block &body, ArrayRef<bool> partialInputs,
                      unsigned numInputs, ReduceKind kind) {
  auto yield = llvm::cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1)
    return false;
  auto argIndex = [&](Value v) -> int {
    auto arg = llvm::dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &body && arg.getArgNumber() < numInputs
               ? int(arg.getArgNumber())
               : -1;
  };
  // A contraction, out + a * b, is linear in each factor: one Partial
  // factor (the accumulator Partial too) keeps the result Partial.
  Value out = body.getArgument(body.getNumArguments() - 1);
  bool floatOut = llvm::isa<FloatType>(out.getType());
  if (out.getType().isInteger(1)) // an i1 sum is a xor, a Partial one an or
    return false;
  // (An integer average divides, truncating: only its sums are linear.)
  bool linear = kind == ReduceKind::Sum || (kind == ReduceKind::Avg && floatOut);
  if (auto add = yield.getOperand(0).getDefiningOp();
      add && linear && llvm::isa<arith::AddFOp, arith::AddIOp>(add) &&
      body.getOperations().size() == 3) {
    Value other = add->getOperand(0) == out ? add->getOperand(1)
                  : add->getOperand(1) == out ? add->getOperand(0)
                                                : Value();
    Operation *mul = other ? other.getDefiningOp() : nullptr;
    if (mul && llvm::isa<arith::MulFOp, arith::MulIOp>(mul)) {
      int a = argIndex(mul->getOperand(0)), b = argIndex(mul->getOperand(1));
      return a >= 0 && b >= 0 && a != b && partialInputs[a] != partialInputs[b];
    }
  }
  Operation *def = yield.getOperand(0).getDefiningOp();
  // A reduction by the Partial's own combiner of a Partial input into the
  // accumulator (a sum over a dim no mesh dim here shards): each rank
  // reduces its terms, and the terms' reductions combine as the Partial
  // does (sum of sums, max of maxes; an average of sums for floats).
  if (def && def->getBlock() == &body && def->getNumOperands() == 2 &&
      body.getOperations().size() == 2 &&
      llvm::is_contained(def->getOperands(), out)) {
    Value term = def->getOperand(0) == out ? def->getOperand(1)
                                           : def->getOperand(0);
    int at = argIndex(term);
    if (at < 0 || !partialInputs[at])
      return false;
    if (llvm::isa<arith::AddFOp, arith::AddIOp>(def))
      return linear;
    if (llvm::isa<arith::MaximumFOp, arith::MaxSIOp>(def))
      return kind == ReduceKind::Max;
    if (llvm::isa<arith::MinimumFOp, arith::MinSIOp>(def))
      return kind == ReduceKind::Min;
    return false;
  }
  // One op (besides constants) on inputs, constants and values from outside
  // the body (the same for every element: never Partial).
  if (!def || def->getBlock() != &body || def->getNumOperands() < 1 ||
      def->getNumOperands() > 2)
    return false;
  for (Operation &op : body)
    if (&op != def && &op != yield.getOperation() &&
        !llvm::isa<arith::ConstantOp>(op))
      return false;
  bool partial[2] = {false, false};
  for (auto [i, v] : llvm::enumerate(def->getOperands())) {
    if (int at = argIndex(v); at >= 0) {
      partial[i] = partialInputs[at];
      continue;
    }
    auto arg = llvm::dyn_cast<BlockArgument>(v);
    if (arg && arg.getOwner() == &body)
      return false; // the init
    if (v.getParentBlock() == &body && !v.getDefiningOp<arith::ConstantOp>())
      return false;
  }
  return opKeepsPartial(def, ArrayRef<bool>(partial, def->getNumOperands()),
                        kind);
}

/// Adds `scale` times the linear form of `e` to `coef` (per loop) and
/// `constant`; false when `e` is not a linear combination of loops.
bool decomposeLinear(AffineExpr e, SmallVectorImpl<int64_t> &coef,
                     int64_t &constant, int64_t scale) {
  if (auto d = llvm::dyn_cast<AffineDimExpr>(e)) {
    coef[d.getPosition()] += scale;
    return true;
  }
  if (auto c = llvm::dyn_cast<AffineConstantExpr>(e)) {
    constant += scale * c.getValue();
    return true;
  }
  auto bin = llvm::dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return false;
  if (bin.getKind() == AffineExprKind::Add)
    return decomposeLinear(bin.getLHS(), coef, constant, scale) &&
           decomposeLinear(bin.getRHS(), coef, constant, scale);
  if (bin.getKind() == AffineExprKind::Mul) {
    if (auto c = llvm::dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return decomposeLinear(bin.getLHS(), coef, constant,
                             scale * c.getValue());
    if (auto c = llvm::dyn_cast<AffineConstantExpr>(bin.getLHS()))
      return decomposeLinear(bin.getRHS(), coef, constant,
                             scale * c.getValue());
  }
  return false;
}

template <typename OpTy>
struct LinalgRuleModel
    : public ShardingRuleOpInterface::ExternalModel<LinalgRuleModel<OpTy>, OpTy> {
  FailureOr<ShardingRule> getShardingRule(Operation *raw,
                                          std::string &reason) const {
    auto op = llvm::cast<linalg::LinalgOp>(raw);
    if (!op.hasPureTensorSemantics()) {
      reason = "works on buffers";
      return failure();
    }
    ShardingRule rule;
    MLIRContext *ctx = raw->getContext();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    unsigned numInputs = op.getNumDpsInputs();
    unsigned numLoops = op.getNumLoops();
    Block *body = op.getBlock();
    rule.factors.resize(numLoops);
    auto dimsOf = [&](AffineMap map) {
      std::vector<int64_t> dims(map.getNumResults(), -1);
      for (unsigned d = 0; d < map.getNumResults(); ++d)
        if (auto e = llvm::dyn_cast<AffineDimExpr>(map.getResult(d)))
          dims[d] = e.getPosition();
      return dims;
    };
    for (OpOperand &operand : raw->getOpOperands()) {
      if (!llvm::isa<RankedTensorType>(operand.get().getType()))
        continue; // a scalar input (fill) is not placed
      rule.operands.push_back(operand.getOperandNumber());
      rule.operandDims.push_back(dimsOf(maps[operand.getOperandNumber()]));
    }
    for (unsigned r = 0; r < raw->getNumResults(); ++r) {
      unsigned o = numInputs + r;
      rule.resultDims.push_back(dimsOf(maps[o]));
      rule.tied.push_back(
          std::find(rule.operands.begin(), rule.operands.end(), o) -
          rule.operands.begin());
    }
    for (unsigned k = 0; k < numLoops; ++k) {
      RuleFactor &f = rule.factors[k];
      if (iterators[k] == utils::IteratorType::reduction) {
        f.kind = RuleFactor::Kind::Reduction;
        for (unsigned r = 0; r < raw->getNumResults(); ++r)
          f.combiners.push_back(
              combinerOf(*body, body->getArgument(numInputs + r)));
      }
      // A loop that indexes two dims of one operand (a diagonal) cannot be
      // sharded by sharding one of them.
      AffineExpr dim = getAffineDimExpr(k, ctx);
      for (AffineMap map : maps)
        if (llvm::count(map.getResults(), dim) > 1) {
          f.kind = RuleFactor::Kind::Blocked;
          f.why = "a loop indexing two dims of one operand";
        }
    }
    // A loop that enters a compound index (`i + 2`, `ow + kw`, `15 - i`,
    // `2 * i`) reads, on each rank, an interval of that dim that is not the
    // rank's own shard of it: a window. A linear index with one parallel
    // loop that the results index (the sharded loop) and other loops of
    // static extent (the window) is recorded as a WindowedDim, and
    // partitioning fetches each rank's window; the window loops stay whole.
    // Anything else keeps every loop it mentions whole.
    // (The loops' extents only where a compound index needs them: upstream
    // computes them by inverting the maps.)
    SmallVector<int64_t> extents;
    auto block = [&](unsigned k, AffineExpr e, size_t o, int64_t d,
                     StringRef what) {
      RuleFactor &f = rule.factors[k];
      if (f.kind == RuleFactor::Kind::Blocked)
        return;
      f.kind = RuleFactor::Kind::Blocked;
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "loop " << k << " is read through the index `" << e << "` (dim "
         << d << " of " << (o < numInputs ? "input " : "output ")
         << (o < numInputs ? o : o - numInputs) << "), " << what;
      f.why = std::move(text);
    };
    // A loop some operand or result indexes plainly: its share on each rank
    // is known from that value's shards.
    auto indexedPlainly = [&](unsigned k) {
      for (const std::vector<int64_t> &dims : rule.operandDims)
        if (llvm::is_contained(dims, int64_t(k)))
          return true;
      for (const std::vector<int64_t> &dims : rule.resultDims)
        if (llvm::is_contained(dims, int64_t(k)))
          return true;
      return false;
    };
    for (auto [o, map] : llvm::enumerate(maps)) {
      for (auto [d, e] : llvm::enumerate(map.getResults())) {
        if (llvm::isa<AffineDimExpr, AffineConstantExpr>(e))
          continue;
        if (extents.empty())
          extents = op.getStaticLoopRanges();
        SmallVector<int64_t> coef(numLoops, 0);
        int64_t constant = 0;
        bool linear = decomposeLinear(e, coef, constant, 1);
        // The loop that sweeps the dim (the largest reach: an output
        // position, or the spatial loop of a weight gradient) is the one
        // to shard; the others (kernel offsets) are the window.
        SmallVector<unsigned> sharded, window;
        std::optional<unsigned> sweep;
        auto reach = [&](unsigned k) {
          return ShapedType::isDynamic(extents[k])
                     ? std::numeric_limits<int64_t>::max()
                     : std::abs(coef[k]) * extents[k];
        };
        for (unsigned k = 0; k < numLoops; ++k)
          if (coef[k] && indexedPlainly(k) &&
              (!sweep || reach(k) > reach(*sweep)))
            sweep = k;
        for (unsigned k = 0; k < numLoops; ++k) {
          if (!coef[k])
            continue;
          if (sweep && k == *sweep)
            sharded.push_back(k);
          else
            window.push_back(k);
        }
        // Which placed operand this map belongs to (scalar inputs have
        // none).
        auto placed = llvm::find(rule.operands, unsigned(o));
        bool ok = linear && sharded.size() == 1 && o < numInputs &&
                  placed != rule.operands.end();
        int64_t low = 0, high = 0;
        for (unsigned k : window)
          if (ShapedType::isDynamic(extents[k]))
            ok = false;
          else if (extents[k] > 0) {
            int64_t reach = coef[k] * (extents[k] - 1);
            low += std::min<int64_t>(reach, 0);
            high += std::max<int64_t>(reach, 0);
          }
        size_t p = placed - rule.operands.begin();
        if (ok) {
          unsigned k = sharded.front();
          // One window per loop and operand, and never next to a plain
          // index of the same loop.
          for (const WindowedDim &w : rule.windows)
            if (w.operand == p && w.factor == int64_t(k))
              ok = false;
          if (ok && llvm::is_contained(rule.operandDims[p], int64_t(k)))
            ok = false;
        }
        if (!ok) {
          for (unsigned k = 0; k < numLoops; ++k)
            if (e.isFunctionOfDim(k))
              block(k, e, o, d,
                    "which is not a window partitioning can fetch (one "
                    "loop another value indexes plainly plus loops of "
                    "static extent, linearly, in an input)");
          continue;
        }
        unsigned k = sharded.front();
        rule.factors[k].windowed = true;
        rule.windows.push_back(WindowedDim{p, int64_t(d), int64_t(k), coef[k],
                                           constant, low, high});
        for (unsigned w : window)
          block(w, e, o, d,
                "a window offset of another loop's sharded reads");
      }
    }
    std::vector<unsigned> operandNumbers = rule.operands;
    rule.keepsPartial = [body, numInputs, operandNumbers](ArrayRef<bool> partial,
                                                          ReduceKind kind) {
      SmallVector<bool> byArg(numInputs, false);
      for (size_t o = 0; o < partial.size(); ++o)
        if (partial[o] && operandNumbers[o] < numInputs)
          byArg[operandNumbers[o]] = true;
      return bodyKeepsPartial(*body, byArg, numInputs, kind);
    };
    rule.makesPartial = llvm::isa<linalg::FillOp>(raw);
    return rule;
  }
};

struct SoftmaxRuleModel
    : public ShardingRuleOpInterface::ExternalModel<SoftmaxRuleModel,
                                                    linalg::SoftmaxOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *raw,
                                          std::string &reason) const {
    auto op = llvm::cast<linalg::SoftmaxOp>(raw);
    auto type = llvm::dyn_cast<RankedTensorType>(op.getInput().getType());
    if (!type || raw->getNumResults() != 1) {
      reason = "works on buffers";
      return failure();
    }
    ShardingRule rule = elementwiseRule(2, type.getRank());
    rule.tied = {1};
    RuleFactor &f = rule.factors[op.getDimension()];
    f.kind = RuleFactor::Kind::Blocked;
    f.why = "softmax normalizes along dim " +
            std::to_string(op.getDimension()) +
            ", which must be whole on every rank";
    return rule;
  }
};

//===----------------------------------------------------------------------===//
// Element-wise arith and math
//===----------------------------------------------------------------------===//

template <typename OpTy>
struct ElementwiseRuleModel
    : public ShardingRuleOpInterface::ExternalModel<ElementwiseRuleModel<OpTy>,
                                                    OpTy> {
  FailureOr<ShardingRule> getShardingRule(Operation *raw,
                                          std::string &reason) const {
    auto type = raw->getNumResults() == 1
                    ? llvm::dyn_cast<RankedTensorType>(raw->getResult(0).getType())
                    : RankedTensorType();
    if (!type) {
      reason = "computes on scalars";
      return failure();
    }
    ShardingRule rule = elementwiseRule(0, type.getRank());
    for (OpOperand &operand : raw->getOpOperands()) {
      auto t = llvm::dyn_cast<RankedTensorType>(operand.get().getType());
      if (!t)
        continue; // a scalar condition of a select
      if (t.getShape() != type.getShape()) {
        reason = "mixes tensor shapes";
        return failure();
      }
      rule.operands.push_back(operand.getOperandNumber());
      rule.operandDims.push_back(rule.resultDims[0]);
    }
    // The op's own Partial rule (opKeepsPartial), by op operand. Operands
    // whose specs then differ (a Partial times a replicated tensor) are
    // given one linalg.generic by insert-redistribute: arith ops on tensors
    // take one type.
    if (rule.operands.size() == raw->getNumOperands()) {
      std::vector<unsigned> numbers = rule.operands;
      rule.keepsPartial = [raw, numbers](ArrayRef<bool> partial,
                                         ReduceKind kind) {
        SmallVector<bool, 4> byOperand(raw->getNumOperands(), false);
        for (auto [o, p] : llvm::enumerate(partial))
          byOperand[numbers[o]] = p;
        return opKeepsPartial(raw, byOperand, kind);
      };
    }
    return rule;
  }
};

//===----------------------------------------------------------------------===//
// tensor
//===----------------------------------------------------------------------===//

/// Appends a factor; blocked when `why` is set.
int64_t addFactor(ShardingRule &rule, const char *why = nullptr) {
  RuleFactor f;
  if (why) {
    f.kind = RuleFactor::Kind::Blocked;
    f.why = why;
  }
  rule.factors.push_back(f);
  return int64_t(rule.factors.size() - 1);
}

bool isConstant(OpFoldResult v, int64_t c) {
  std::optional<int64_t> i = getConstantIntValue(v);
  return i && *i == c;
}

struct ExtractSliceRuleModel
    : public ShardingRuleOpInterface::ExternalModel<ExtractSliceRuleModel,
                                                    tensor::ExtractSliceOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *raw,
                                          std::string &reason) const {
    auto op = llvm::cast<tensor::ExtractSliceOp>(raw);
    RankedTensorType source = op.getSourceType();
    ShardingRule rule;
    rule.operands = {0};
    rule.operandDims.assign(1, {});
    rule.resultDims.assign(1, {});
    rule.tied = {-1};
    llvm::SmallBitVector dropped = op.getDroppedDims();
    SmallVector<OpFoldResult> offsets = op.getMixedOffsets(),
                              sizes = op.getMixedSizes(),
                              strides = op.getMixedStrides();
    for (int64_t d = 0; d < source.getRank(); ++d) {
      bool whole = !source.isDynamicDim(d) && isConstant(offsets[d], 0) &&
                   isConstant(sizes[d], source.getDimSize(d)) &&
                   isConstant(strides[d], 1);
      // A dim sliced at a static offset and size (stride 1) is read through
      // a window (offset) of the result's loop: each rank's part of the
      // slice comes from its own shard of the source and its neighbours' (a
      // shift `x[:, 1:]` of a sequence-sharded tensor). Strided slices keep
      // the dim whole (the interpreter and the emitters take stride 1).
      std::optional<int64_t> offset = getConstantIntValue(offsets[d]);
      std::optional<int64_t> size = getConstantIntValue(sizes[d]);
      std::optional<int64_t> stride = getConstantIntValue(strides[d]);
      bool window = !whole && !dropped.test(d) && !source.isDynamicDim(d) &&
                    offset && size && stride && *stride == 1 && *size > 0;
      int64_t f = dropped.test(d) ? addFactor(rule, "a dropped dim of a slice")
                  : whole || window ? addFactor(rule)
                                    : addFactor(rule, "a sliced dim (dynamic "
                                                      "offset or size, or a "
                                                      "stride)");
      if (window) {
        rule.factors[f].windowed = true;
        rule.windows.push_back(WindowedDim{0, d, f, *stride, *offset, 0, 0});
      }
      rule.operandDims[0].push_back(window ? -1 : f);
      if (!dropped.test(d))
        rule.resultDims[0].push_back(f);
    }
    rule.keepsPartial = [](ArrayRef<bool>, ReduceKind) { return true; };
    return rule;
  }
};

struct InsertSliceRuleModel
    : public ShardingRuleOpInterface::ExternalModel<InsertSliceRuleModel,
                                                    tensor::InsertSliceOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *raw,
                                          std::string &reason) const {
    auto op = llvm::cast<tensor::InsertSliceOp>(raw);
    RankedTensorType dest = op.getDestType();
    ShardingRule rule;
    rule.operands = {0, 1};
    rule.operandDims.assign(2, {});
    rule.resultDims.assign(1, {});
    rule.tied = {1};
    llvm::SmallBitVector dropped = op.getDroppedDims();
    SmallVector<OpFoldResult> offsets = op.getMixedOffsets(),
                              sizes = op.getMixedSizes(),
                              strides = op.getMixedStrides();
    for (int64_t d = 0; d < dest.getRank(); ++d) {
      bool whole = !dest.isDynamicDim(d) && isConstant(offsets[d], 0) &&
                   isConstant(sizes[d], dest.getDimSize(d)) &&
                   isConstant(strides[d], 1);
      int64_t f = dropped.test(d) ? addFactor(rule, "a dropped dim of a slice")
                  : whole ? addFactor(rule)
                          : addFactor(rule, "a dim only partly overwritten by "
                                            "insert_slice");
      if (!dropped.test(d))
        rule.operandDims[0].push_back(f);
      rule.operandDims[1].push_back(f);
      rule.resultDims[0].push_back(f);
    }
    // The source's Partial terms land in the destination's (both Partial).
    rule.keepsPartial = [](ArrayRef<bool> partial, ReduceKind) {
      return partial[0];
    };
    return rule;
  }
};

struct PadRuleModel
    : public ShardingRuleOpInterface::ExternalModel<PadRuleModel, tensor::PadOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *raw,
                                          std::string &reason) const {
    auto op = llvm::cast<tensor::PadOp>(raw);
    RankedTensorType source = op.getSourceType();
    ShardingRule rule = elementwiseRule(1, source.getRank());
    SmallVector<OpFoldResult> low = op.getMixedLowPad(),
                              high = op.getMixedHighPad();
    // A padded dim is a shift by `low` of its source, with the padding where
    // the source ends: a window (stride 1, offset -low) whose positions
    // outside the source hold the padding. So it can stay sharded: each rank
    // takes the few elements its part of the padded dim needs from its
    // neighbours, and the edge ranks pad. Needs static amounts and one
    // padding value for every position.
    Value padding = op.getConstantPaddingValue();
    for (int64_t d = 0; d < source.getRank(); ++d) {
      if (isConstant(low[d], 0) && isConstant(high[d], 0))
        continue;
      std::optional<int64_t> l = getConstantIntValue(low[d]);
      std::optional<int64_t> h = getConstantIntValue(high[d]);
      if (!padding || !l || !h || *l < 0 || *h < 0) {
        rule.factors[d].kind = RuleFactor::Kind::Blocked;
        rule.factors[d].why = "a padded dim (with dynamic amounts or a "
                              "padding that depends on the position)";
        continue;
      }
      rule.operandDims[0][d] = -1;
      rule.factors[d].windowed = true;
      rule.windows.push_back(WindowedDim{0, d, d, 1, -*l, 0, 0});
    }
    // Every rank pads its term: the padding survives max/min/avg, and a sum
    // when it is zero.
    bool zero = padding && (matchPattern(padding, m_AnyZeroFloat()) ||
                            matchPattern(padding, m_Zero()));
    bool uniform = padding && padding.getParentRegion() != &op.getRegion();
    rule.keepsPartial = [zero, uniform](ArrayRef<bool>, ReduceKind kind) {
      switch (kind) {
      case ReduceKind::Sum:
        return zero;
      case ReduceKind::Avg:
      case ReduceKind::Max:
      case ReduceKind::Min:
        return uniform;
      case ReduceKind::Product:
        return false;
      }
      return false;
    };
    return rule;
  }
};

struct ConcatRuleModel
    : public ShardingRuleOpInterface::ExternalModel<ConcatRuleModel,
                                                    tensor::ConcatOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *raw,
                                          std::string &reason) const {
    auto op = llvm::cast<tensor::ConcatOp>(raw);
    int64_t rank = op.getResultType().getRank();
    ShardingRule rule = elementwiseRule(raw->getNumOperands(), rank);
    int64_t dim = op.getDim();
    // The concatenated dim: blocked on every operand (their sizes differ).
    rule.factors[dim].kind = RuleFactor::Kind::Blocked;
    rule.factors[dim].why = "the concatenated dim";
    rule.keepsPartial = [](ArrayRef<bool> partial, ReduceKind) {
      return llvm::all_of(partial, [](bool p) { return p; });
    };
    return rule;
  }
};

template <typename OpTy>
struct ReshapeRuleModel
    : public ShardingRuleOpInterface::ExternalModel<ReshapeRuleModel<OpTy>,
                                                    OpTy> {
  FailureOr<ShardingRule> getShardingRule(Operation *raw,
                                          std::string &reason) const {
    auto from = llvm::dyn_cast<RankedTensorType>(raw->getOperand(0).getType());
    auto to = llvm::dyn_cast<RankedTensorType>(raw->getResult(0).getType());
    if (!from || !to || !from.hasStaticShape() || !to.hasStaticShape()) {
      reason = "reshapes dynamic shapes";
      return failure();
    }
    ShardingRule rule = reshapeRule(from.getShape(), to.getShape());
    if (rule.factors.empty() && from.getNumElements() != 0 &&
        (from.getRank() || to.getRank())) {
      // reshapeGroups found no grouping: every dim is blocked.
      reason = "reshapes between shapes with no common grouping";
      return failure();
    }
    return rule;
  }
};

template <typename OpTy>
void attachLinalg(MLIRContext *ctx) {
  OpTy::template attachInterface<LinalgRuleModel<OpTy>>(*ctx);
}
template <typename... OpTys>
void attachAllLinalg(MLIRContext *ctx) {
  (attachLinalg<OpTys>(ctx), ...);
}

/// Attaches the element-wise model to the ops among `OpTys` that are
/// element-wise.
template <typename... OpTys>
void attachElementwise(MLIRContext *ctx) {
  (
      [&] {
        if constexpr (OpTys::template hasTrait<OpTrait::Elementwise>())
          OpTys::template attachInterface<ElementwiseRuleModel<OpTys>>(*ctx);
      }(),
      ...);
}

} // namespace

void mlir::dtensor::registerShardingRuleModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    attachAllLinalg<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(ctx);
    linalg::SoftmaxOp::attachInterface<SoftmaxRuleModel>(*ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attachElementwise<
#define GET_OP_LIST
#include "mlir/Dialect/Arith/IR/ArithOps.cpp.inc"
        >(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attachElementwise<
#define GET_OP_LIST
#include "mlir/Dialect/Math/IR/MathOps.cpp.inc"
        >(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::ExtractSliceOp::attachInterface<ExtractSliceRuleModel>(*ctx);
    tensor::InsertSliceOp::attachInterface<InsertSliceRuleModel>(*ctx);
    tensor::PadOp::attachInterface<PadRuleModel>(*ctx);
    tensor::ConcatOp::attachInterface<ConcatRuleModel>(*ctx);
    tensor::CollapseShapeOp::attachInterface<
        ReshapeRuleModel<tensor::CollapseShapeOp>>(*ctx);
    tensor::ExpandShapeOp::attachInterface<
        ReshapeRuleModel<tensor::ExpandShapeOp>>(*ctx);
    tensor::ReshapeOp::attachInterface<ReshapeRuleModel<tensor::ReshapeOp>>(
        *ctx);
  });
}
