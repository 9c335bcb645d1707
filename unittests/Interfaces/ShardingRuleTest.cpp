//===- ShardingRuleTest.cpp - the sharding rule core ----------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Layout.h"
#include "dtensor/Interfaces/ShardingRule.h"

#include "gtest/gtest.h"

#include <numeric>

using namespace mlir::dtensor;

namespace {

std::vector<Placement> rowFor(const ShardingRule &rule, int64_t factor,
                              std::vector<Placement> operands) {
  std::optional<std::vector<Placement>> row =
      placementsForFactor(rule, factor, operands);
  EXPECT_TRUE(row.has_value());
  return row.value_or(std::vector<Placement>{});
}

/// A matmul's rule by hand: factors i, j (parallel), k (reduction, sum).
ShardingRule matmulRule() {
  ShardingRule rule;
  rule.factors.resize(3);
  rule.factors[2].kind = RuleFactor::Kind::Reduction;
  rule.factors[2].combiners = {ReduceKind::Sum};
  rule.operands = {0, 1, 2};
  rule.operandDims = {{0, 2}, {2, 1}, {0, 1}};
  rule.resultDims = {{0, 1}};
  rule.tied = {2};
  return rule;
}

TEST(ShardingRule, MatmulFactors) {
  ShardingRule rule = matmulRule();
  auto R = Placement::replicate();
  std::vector<Placement> none{R, R, R};
  // Sharding i: rows of A, of C and of the result.
  EXPECT_EQ(rowFor(rule, 0, none),
            (std::vector<Placement>{Placement::shard(0), R, Placement::shard(0),
                                    Placement::shard(0)}));
  // Sharding k: A's columns, B's rows, a P(sum) result and init.
  EXPECT_EQ(rowFor(rule, 2, none),
            (std::vector<Placement>{Placement::shard(1), Placement::shard(0),
                                    Placement::partial(ReduceKind::Sum),
                                    Placement::partial(ReduceKind::Sum)}));
  // Replicate-all and no factor with no Partials: all R.
  EXPECT_EQ(rowFor(rule, kReplicateAll, none),
            (std::vector<Placement>(4, R)));
  // A Partial operand without keepsPartial: no row.
  EXPECT_FALSE(placementsForFactor(
      rule, kNoFactor, {Placement::partial(ReduceKind::Sum), R, R}));
  // With it: the result and its init are Partial too.
  rule.keepsPartial = [](llvm::ArrayRef<bool> p, ReduceKind) {
    return p[0] != p[1];
  };
  EXPECT_EQ(rowFor(rule, kNoFactor, {Placement::partial(ReduceKind::Sum), R, R}),
            (std::vector<Placement>{Placement::partial(ReduceKind::Sum), R,
                                    Placement::partial(ReduceKind::Sum),
                                    Placement::partial(ReduceKind::Sum)}));
  // Two Partial kinds never mix.
  EXPECT_FALSE(placementsForFactor(
      rule, kNoFactor,
      {Placement::partial(ReduceKind::Sum), Placement::partial(ReduceKind::Max), R}));
}

TEST(ShardingRule, BlockedAndDroppedFactors) {
  ShardingRule rule = matmulRule();
  rule.factors[1].kind = RuleFactor::Kind::Blocked;
  EXPECT_FALSE(placementsForFactor(rule, 1, {}));
  // A reduction without a combiner cannot be sharded.
  rule.factors[2].combiners = {std::nullopt};
  EXPECT_FALSE(placementsForFactor(rule, 2, {}));
  // A result that drops a parallel factor cannot be sharded along it.
  ShardingRule drop = elementwiseRule(1, 2);
  drop.resultDims = {{0, -1}};
  EXPECT_FALSE(placementsForFactor(drop, 1, {}));
}

TEST(ShardingRule, ReshapeGroups) {
  auto groups = reshapeGroups({4, 6, 8}, {24, 8});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].fromBegin, 0);
  EXPECT_EQ(groups[0].fromEnd, 2);
  EXPECT_EQ(groups[0].toEnd, 1);
  EXPECT_EQ(groups[1].fromBegin, 2);
  // Unit dims join a group.
  groups = reshapeGroups({2, 1, 4}, {2, 4});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].fromEnd, 2);
  // Different element counts: no grouping.
  EXPECT_TRUE(reshapeGroups({4, 4}, {15}).empty());
  // Crossing groups: 6x4 -> 4x6 is one group.
  groups = reshapeGroups({6, 4}, {4, 6});
  ASSERT_EQ(groups.size(), 1u);
}

TEST(ShardingRule, ReshapeRuleShardsLeadingDimsEvenly) {
  // Collapse 4x6x8 -> 24x8: dim 0 maps to dim 0 (divisibility), dim 1 is
  // blocked, dim 2 maps to dim 1 without conditions.
  ShardingRule rule = reshapeRule({4, 6, 8}, {24, 8});
  int64_t head = rule.operandDims[0][0];
  ASSERT_GE(head, 0);
  EXPECT_EQ(rule.resultDims[0][0], head);
  EXPECT_EQ(rule.factors[head].mustDivide, (std::vector<int64_t>{4, 24}));
  EXPECT_EQ(rule.factors[rule.operandDims[0][1]].kind, RuleFactor::Kind::Blocked);
  int64_t kept = rule.operandDims[0][2];
  EXPECT_EQ(rule.resultDims[0][1], kept);
  EXPECT_TRUE(rule.factors[kept].mustDivide.empty());
  std::string error;
  // 2 ways divides 4; 8 ways does not.
  EXPECT_TRUE(divisibilityHolds(rule, {head, kNoFactor}, {2, 2}, error));
  EXPECT_FALSE(divisibilityHolds(rule, {head, head}, {2, 4}, error));
  EXPECT_NE(error.find("split 8 ways"), std::string::npos);
  // Views keep every Partial.
  ASSERT_TRUE(rule.keepsPartial);
  EXPECT_TRUE(rule.keepsPartial({true}, ReduceKind::Max));
}

/// The reshape rule is exact: for every even split the rule allows on a
/// 1-D mesh, each rank's shard of the source, reshaped, is its shard of the
/// result (as index lists, row-major).
TEST(ShardingRule, ReshapeRuleIsExact) {
  struct Case {
    Shape from, to;
  } cases[] = {{{4, 6}, {24}}, {{6, 4}, {6, 2, 2}}, {{8}, {4, 2}},
               {{1, 8}, {8}},   {{4, 6, 8}, {24, 8}}, {{6, 4}, {4, 6}}};
  for (const Case &c : cases) {
    ShardingRule rule = reshapeRule(c.from, c.to);
    for (int64_t f = 0; f < int64_t(rule.factors.size()); ++f) {
      if (rule.factors[f].kind == RuleFactor::Kind::Blocked)
        continue;
      for (int64_t n : {2, 3, 4}) {
        std::string error;
        if (!divisibilityHolds(rule, {f}, {n}, error))
          continue;
        std::optional<std::vector<Placement>> row =
            placementsForFactor(rule, f, {Placement::replicate()});
        ASSERT_TRUE(row);
        std::optional<Layout> in = Layout::create({n}, c.from.size(), {(*row)[0]}, error);
        std::optional<Layout> out = Layout::create({n}, c.to.size(), {(*row)[1]}, error);
        ASSERT_TRUE(in && out);
        for (int64_t r = 0; r < n; ++r) {
          Shard a = in->shardOf(c.from, r), b = out->shardOf(c.to, r);
          auto linear = [](const Shape &shape, const Shard &s) {
            std::vector<int64_t> ids;
            int64_t total = std::accumulate(s.shape.begin(), s.shape.end(),
                                            int64_t(1), std::multiplies<>());
            for (int64_t i = 0; i < total; ++i) {
              int64_t rem = i, id = 0;
              Shape idx(s.shape.size());
              for (int64_t d = s.shape.size() - 1; d >= 0; --d) {
                idx[d] = rem % s.shape[d] + s.offset[d];
                rem /= s.shape[d];
              }
              for (size_t d = 0; d < shape.size(); ++d)
                id = id * shape[d] + idx[d];
              ids.push_back(id);
            }
            return ids;
          };
          EXPECT_EQ(linear(c.from, a), linear(c.to, b))
              << "rank " << r << " of " << n << ", factor " << f;
        }
      }
    }
  }
}

} // namespace

TEST(ShardingRule, OperandPlacementsForResult) {
  auto R = Placement::replicate();
  auto S = [](int64_t d) { return Placement::shard(d); };
  // A broadcast-and-transpose op: out[i, j] = a[j, i] * s[i] (operands a,
  // s, then the init, tied to the result).
  ShardingRule rule;
  rule.factors.resize(2);
  rule.operands = {0, 1, 2};
  rule.operandDims = {{1, 0}, {0}, {0, 1}};
  rule.resultDims = {{0, 1}};
  rule.tied = {2};
  // Result rows over mesh dim 0, columns over mesh dim 1: a's dims swap, s
  // follows the rows only, the init is the result.
  auto need = operandPlacementsForResult(rule, {S(0), S(1)});
  ASSERT_TRUE(need);
  EXPECT_EQ((*need)[0], (Placements{S(1), S(0)}));
  EXPECT_EQ((*need)[1], (Placements{S(0), R}));
  EXPECT_EQ((*need)[2], (Placements{S(0), S(1)}));
  // Replicated result: every operand replicated.
  need = operandPlacementsForResult(rule, {R, R});
  ASSERT_TRUE(need);
  EXPECT_EQ((*need)[1], (Placements{R, R}));
  // No Partial result, no explicit shard order.
  EXPECT_FALSE(operandPlacementsForResult(
      rule, {Placement::partial(ReduceKind::Sum), R}));
  EXPECT_FALSE(
      operandPlacementsForResult(rule, {Placement::shard(0, 1), Placement::shard(0, 0)}));
  // A reduction (a matmul), a blocked factor: no such mapping.
  EXPECT_FALSE(operandPlacementsForResult(matmulRule(), {S(0), R}));
  ShardingRule blocked = elementwiseRule(1, 2);
  blocked.factors[1].kind = RuleFactor::Kind::Blocked;
  EXPECT_FALSE(operandPlacementsForResult(blocked, {S(0), R}));
}
