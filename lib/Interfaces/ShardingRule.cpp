//===- ShardingRule.cpp - what an op does to placements -------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Interfaces/ShardingRuleOpInterface.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace mlir::dtensor;

#include "dtensor/Interfaces/ShardingRuleOpInterface.cpp.inc"

bool ShardingRule::isInit(size_t o) const {
  for (int64_t t : tied)
    if (t == int64_t(o))
      return true;
  return false;
}

std::optional<int64_t> ShardingRule::dimOf(size_t o, int64_t f) const {
  const std::vector<int64_t> &dims =
      o < numOperands() ? operandDims[o] : resultDims[o - numOperands()];
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d] == f)
      return int64_t(d);
  return std::nullopt;
}

const WindowedDim *ShardingRule::windowOf(size_t o, int64_t dim) const {
  for (const WindowedDim &w : windows)
    if (w.operand == o && w.dim == dim)
      return &w;
  return nullptr;
}

std::optional<std::vector<Placement>>
mlir::dtensor::placementsForFactor(const ShardingRule &rule, int64_t factor,
                                   ArrayRef<Placement> operandPlacements) {
  size_t numOperands = rule.numOperands(), numResults = rule.numResults();
  std::vector<Placement> out(numOperands + numResults, Placement::replicate());
  auto tieInits = [&]() {
    for (size_t r = 0; r < numResults; ++r)
      if (rule.tied[r] >= 0)
        out[rule.tied[r]] = out[numOperands + r];
  };
  if (factor == kReplicateAll)
    return out;
  if (factor == kNoFactor) {
    // Nothing sharded here: Partial operands must survive the op.
    llvm::SmallVector<bool, 8> partial(numOperands, false);
    std::optional<ReduceKind> kind;
    for (size_t o = 0; o < numOperands; ++o) {
      if (rule.isInit(o) || o >= operandPlacements.size() ||
          !operandPlacements[o].isPartial())
        continue;
      if (kind && *kind != operandPlacements[o].reduce)
        return std::nullopt;
      kind = operandPlacements[o].reduce;
      partial[o] = true;
      out[o] = operandPlacements[o];
    }
    if (!kind)
      return out;
    if (!rule.keepsPartial || !rule.keepsPartial(partial, *kind))
      return std::nullopt;
    for (size_t r = 0; r < numResults; ++r)
      out[numOperands + r] = Placement::partial(*kind);
    tieInits();
    return out;
  }
  const RuleFactor &f = rule.factors[factor];
  if (f.kind == RuleFactor::Kind::Blocked)
    return std::nullopt;
  for (size_t o = 0; o < numOperands + numResults; ++o) {
    if (o < numOperands && rule.isInit(o))
      continue;
    if (std::optional<int64_t> d = rule.dimOf(o, factor)) {
      out[o] = Placement::shard(*d);
      continue;
    }
    if (o < numOperands) {
      // A windowed operand stays sharded along its windowed dim (a halo
      // exchange) or replicated (each rank slices its window); any other
      // operand is broadcast along the factor: replicated.
      for (const WindowedDim &w : rule.windows)
        if (w.operand == o && w.factor == factor &&
            o < operandPlacements.size() &&
            operandPlacements[o].isShard() &&
            operandPlacements[o].dim == w.dim)
          out[o] = Placement::shard(w.dim);
      continue;
    }
    size_t r = o - numOperands;
    if (f.kind != RuleFactor::Kind::Reduction || r >= f.combiners.size() ||
        !f.combiners[r])
      return std::nullopt; // a result that drops a parallel factor
    out[o] = Placement::partial(*f.combiners[r]);
  }
  tieInits();
  return out;
}

Placement mlir::dtensor::factorView(const ShardingRule &rule, int64_t factor,
                                    size_t operand, const Placement &p) {
  // (The reads of operandPlacements in placementsForFactor, above.)
  if (operand >= rule.numOperands() || rule.isInit(operand) ||
      factor == kReplicateAll)
    return Placement::replicate();
  if (factor == kNoFactor)
    return p.isPartial() ? p : Placement::replicate();
  if (factor >= 0 && size_t(factor) < rule.factors.size() &&
      rule.factors[factor].kind == RuleFactor::Kind::Blocked)
    return Placement::replicate();
  if (rule.dimOf(operand, factor))
    return Placement::replicate();
  for (const WindowedDim &w : rule.windows)
    if (w.operand == operand && w.factor == factor && p.isShard() &&
        p.dim == w.dim)
      return p;
  return Placement::replicate();
}

std::vector<std::vector<Placements>> mlir::dtensor::shardOrderVariants(
    const ShardingRule &rule, ArrayRef<int64_t> factorOfMeshDim,
    const std::vector<Placements> &placed,
    llvm::function_ref<ArrayRef<Placements>(size_t)> statesOf, size_t limit) {
  std::vector<std::vector<Placements>> variants{placed};
  size_t meshRank = factorOfMeshDim.size();
  size_t numAll = rule.numOperands() + rule.numResults();
  for (int64_t f = 0; f < int64_t(rule.factors.size()); ++f) {
    llvm::SmallVector<size_t, 4> dims;
    for (size_t m = 0; m < meshRank; ++m)
      if (factorOfMeshDim[m] == f)
        dims.push_back(m);
    if (dims.size() < 2)
      continue;
    // The orders of those mesh dims some operand or result has now.
    std::vector<llvm::SmallVector<int64_t, 4>> orders;
    for (size_t o = 0; o < numAll; ++o) {
      std::optional<int64_t> d = rule.dimOf(o, f);
      if (!d)
        continue;
      for (const Placements &state : statesOf(o)) {
        if (state.size() != meshRank)
          continue;
        llvm::SmallVector<size_t, 4> sharding;
        for (size_t m = 0; m < meshRank; ++m)
          if (state[m].isShard(*d))
            sharding.push_back(m);
        if (sharding != dims)
          continue;
        llvm::SmallVector<int64_t, 4> positions;
        bool fallback = true;
        for (auto [i, m] : llvm::enumerate(dims)) {
          positions.push_back(state[m].order);
          fallback &= state[m].order == -1 || state[m].order == int64_t(i);
        }
        if (!fallback && !llvm::is_contained(orders, positions))
          orders.push_back(positions);
      }
    }
    // Every variant so far in each of them (the default kept as it is).
    size_t existing = variants.size();
    for (const auto &order : orders)
      for (size_t v = 0; v < existing && variants.size() < limit; ++v) {
        std::vector<Placements> next = variants[v];
        for (size_t o = 0; o < numAll; ++o) {
          std::optional<int64_t> d = rule.dimOf(o, f);
          if (!d)
            continue;
          for (auto [i, m] : llvm::enumerate(dims))
            if (next[o][m].isShard(*d))
              next[o][m].order = order[i];
        }
        variants.push_back(std::move(next));
      }
  }
  return variants;
}

bool mlir::dtensor::divisibilityHolds(const ShardingRule &rule,
                                      ArrayRef<int64_t> factorOfMeshDim,
                                      ArrayRef<int64_t> meshShape,
                                      std::string &error) {
  for (size_t f = 0; f < rule.factors.size(); ++f) {
    if (rule.factors[f].windowed &&
        llvm::count(factorOfMeshDim, int64_t(f)) > 1) {
      error = "a loop read through a window can be sharded on one mesh dim "
              "only";
      return false;
    }
    if (rule.factors[f].mustDivide.empty())
      continue;
    int64_t shards = 1;
    for (size_t m = 0; m < factorOfMeshDim.size(); ++m)
      if (factorOfMeshDim[m] == int64_t(f))
        shards *= meshShape[m];
    for (int64_t size : rule.factors[f].mustDivide)
      if (size % shards != 0) {
        error = "a dim of size " + std::to_string(size) + " split " +
                std::to_string(shards) +
                " ways would not keep the shards of a reshape aligned";
        return false;
      }
  }
  return true;
}

std::optional<std::vector<Placements>>
mlir::dtensor::operandPlacementsForResult(const ShardingRule &rule,
                                          const Placements &result) {
  if (rule.numResults() != 1 || !rule.windows.empty())
    return std::nullopt;
  for (const RuleFactor &f : rule.factors)
    if (f.kind != RuleFactor::Kind::Parallel || f.windowed ||
        !f.mustDivide.empty())
      return std::nullopt;
  const std::vector<int64_t> &out = rule.resultDims[0];
  for (int64_t f = 0; f < int64_t(rule.factors.size()); ++f)
    if (std::find(out.begin(), out.end(), f) == out.end())
      return std::nullopt;
  for (const Placement &p : result)
    if (p.isPartial() || (p.isShard() && p.order >= 0) ||
        (p.isShard() && (p.dim < 0 || p.dim >= int64_t(out.size()))))
      return std::nullopt;
  std::vector<Placements> operands(rule.numOperands(),
                                   Placements(result.size()));
  for (size_t o = 0; o < rule.numOperands(); ++o)
    for (size_t m = 0; m < result.size(); ++m) {
      if (!result[m].isShard())
        continue;
      if (std::optional<int64_t> dim = rule.dimOf(o, out[result[m].dim]))
        operands[o][m] = Placement::shard(*dim);
    }
  return operands;
}

ShardingRule mlir::dtensor::elementwiseRule(unsigned numOperands, int64_t rank) {
  ShardingRule rule;
  rule.factors.resize(rank);
  std::vector<int64_t> dims(rank);
  for (int64_t d = 0; d < rank; ++d)
    dims[d] = d;
  for (unsigned o = 0; o < numOperands; ++o) {
    rule.operands.push_back(o);
    rule.operandDims.push_back(dims);
  }
  rule.resultDims.push_back(dims);
  rule.tied.push_back(-1);
  return rule;
}

std::vector<ReshapeGroup> mlir::dtensor::reshapeGroups(ArrayRef<int64_t> from,
                                                       ArrayRef<int64_t> to) {
  std::vector<ReshapeGroup> groups;
  int64_t i = 0, j = 0, n = from.size(), m = to.size();
  while (i < n || j < m) {
    ReshapeGroup g{i, i, j, j};
    int64_t a = 1, b = 1;
    // Take one dim from each side (if any), then grow the smaller product.
    if (i < n)
      a *= from[i++];
    if (j < m)
      b *= to[j++];
    while (a != b) {
      if (a < b && i < n)
        a *= from[i++];
      else if (b < a && j < m)
        b *= to[j++];
      else
        return {};
    }
    // Trailing unit dims join the group.
    while (i < n && from[i] == 1 && (j >= m || to[j] != 1))
      ++i;
    while (j < m && to[j] == 1 && (i >= n || from[i] != 1))
      ++j;
    g.fromEnd = i;
    g.toEnd = j;
    groups.push_back(g);
  }
  return groups;
}

ShardingRule mlir::dtensor::reshapeRule(ArrayRef<int64_t> from,
                                        ArrayRef<int64_t> to) {
  ShardingRule rule;
  rule.operands = {0};
  rule.operandDims.assign(1, std::vector<int64_t>(from.size(), -1));
  rule.resultDims.assign(1, std::vector<int64_t>(to.size(), -1));
  rule.tied = {-1};
  // A view keeps every Partial: the sum of views is the view of the sum.
  rule.keepsPartial = [](ArrayRef<bool>, ReduceKind) { return true; };
  auto blocked = [&](std::string why) {
    RuleFactor f;
    f.kind = RuleFactor::Kind::Blocked;
    f.why = std::move(why);
    rule.factors.push_back(f);
    return int64_t(rule.factors.size() - 1);
  };
  for (const ReshapeGroup &g : reshapeGroups(from, to)) {
    auto head = [](ArrayRef<int64_t> shape, int64_t b, int64_t e) {
      for (int64_t d = b; d < e; ++d)
        if (shape[d] != 1)
          return d;
      return int64_t(-1);
    };
    int64_t hf = head(from, g.fromBegin, g.fromEnd);
    int64_t ht = head(to, g.toBegin, g.toEnd);
    if (hf >= 0 && ht >= 0) {
      RuleFactor f;
      auto nonUnit = [](ArrayRef<int64_t> shape, int64_t b, int64_t e) {
        return llvm::count_if(shape.slice(b, e - b),
                              [](int64_t s) { return s != 1; });
      };
      // A dim that is reshaped with others keeps its shards aligned only
      // when they split it evenly; a dim kept whole needs nothing.
      if (nonUnit(from, g.fromBegin, g.fromEnd) > 1 ||
          nonUnit(to, g.toBegin, g.toEnd) > 1)
        f.mustDivide = {from[hf], to[ht]};
      rule.factors.push_back(f);
      rule.operandDims[0][hf] = rule.resultDims[0][ht] =
          int64_t(rule.factors.size() - 1);
    }
    for (int64_t d = g.fromBegin; d < g.fromEnd; ++d)
      if (d != hf)
        rule.operandDims[0][d] =
            blocked("an inner dim of a reshaped group cannot be sharded");
    for (int64_t d = g.toBegin; d < g.toEnd; ++d)
      if (d != ht)
        rule.resultDims[0][d] =
            blocked("an inner dim of a reshaped group cannot be sharded");
  }
  return rule;
}
