//===- AssignmentTest.cpp - whole-function choice of strategies -----------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Assignment.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

using namespace mlir::dtensor;

namespace {

constexpr double kInf = AssignmentProblem::kInfinity;

AssignmentProblem::Node node(std::vector<double> cost) {
  AssignmentProblem::Node n;
  n.bytes.assign(cost.size(), 0);
  n.cost = std::move(cost);
  return n;
}

/// Calls `visit(choice)` for every assignment of `p`'s nodes.
template <typename Visit>
void forEveryAssignment(const AssignmentProblem &p, Visit &&visit) {
  std::vector<int> choice(p.nodes.size(), 0);
  while (true) {
    visit(choice);
    size_t n = 0;
    while (n < choice.size() && ++choice[n] == int(p.nodes[n].cost.size()))
      choice[n++] = 0;
    if (n == choice.size())
      return;
  }
}

/// Every assignment, the cheapest within the bytes bound (ties: the first).
std::vector<int> bruteForce(const AssignmentProblem &p) {
  std::vector<int> best;
  double bestTime = kInf;
  forEveryAssignment(p, [&](const std::vector<int> &choice) {
    AssignmentValue v = evaluateAssignment(p, choice);
    if (v.time < bestTime - 1e-9 && v.bytes <= p.bytesLimit + 1e-9) {
      bestTime = v.time;
      best = choice;
    }
  });
  return best;
}

/// A random problem over `nodes` nodes in a chain: each node has
/// `minOptions` plus up to `optionSpan - 1` options priced by `nodeCost()` and
/// `nodeBytes()`; demand k (k = 0 .. nodes - 2) is produced by
/// `producerOf(k)` (-1: a fixed state), with 1 to 3 targets priced by
/// `moveCost()` and `moveBytes()`, and read by node k + 1 and, each with
/// even odds, the nodes after it up to `reach` past k.
template <typename Draw, typename Producer>
AssignmentProblem randomChain(std::mt19937 &rng, int nodes, int minOptions,
                              int optionSpan, Draw nodeCost, Draw nodeBytes,
                              Producer producerOf, Draw moveCost,
                              Draw moveBytes, int reach) {
  AssignmentProblem p;
  for (int n = 0; n < nodes; ++n) {
    std::vector<double> cost;
    int options = minOptions + int(rng() % optionSpan);
    for (int o = 0; o < options; ++o)
      cost.push_back(nodeCost());
    AssignmentProblem::Node nd = node(cost);
    for (double &b : nd.bytes)
      b = nodeBytes();
    p.nodes.push_back(nd);
  }
  for (int k = 0; k + 1 < nodes; ++k) {
    AssignmentProblem::Demand d;
    d.producer = producerOf(k);
    int targets = 1 + int(rng() % 3);
    size_t rows = d.producer < 0 ? 1 : p.nodes[d.producer].cost.size();
    for (size_t a = 0; a < rows; ++a) {
      std::vector<double> c, b;
      for (int t = 0; t < targets; ++t) {
        c.push_back(moveCost());
        b.push_back(moveBytes());
      }
      d.cost.push_back(c);
      d.bytes.push_back(b);
    }
    for (int c = k + 1; c < nodes && c <= k + reach; ++c) {
      if (c != k + 1 && rng() % 2)
        continue;
      std::vector<int> need;
      for (size_t o = 0; o < p.nodes[c].cost.size(); ++o)
        need.push_back(int(rng() % (targets + 1)) - 1);
      d.consumers.push_back({c, need});
    }
    p.demands.push_back(d);
  }
  return p;
}

// The case a one-op-at-a-time choice loses: the first node's cheapest option
// (0) forces both consumers to pay a large move; option 1 costs a little
// more alone and nothing after.
AssignmentProblem greedyMiss() {
  AssignmentProblem p;
  p.nodes = {node({0, 1}), node({0}), node({0})};
  AssignmentProblem::Demand d;
  d.producer = 0;
  d.consumers = {{1, {0}}, {2, {0}}};
  d.cost = {{5}, {0}};
  d.bytes = {{100}, {0}};
  p.demands.push_back(d);
  return p;
}

TEST(Assignment, FindsTheGlobalOptimumAGreedyChoiceMisses) {
  AssignmentProblem p = greedyMiss();
  std::string error;
  auto s = solveAssignment(p, {0, 0, 0}, 10, error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->choice, (std::vector<int>{1, 0, 0}));
  EXPECT_DOUBLE_EQ(s->value.time, 1);
  EXPECT_TRUE(s->optimal);
}

// The same through CBC (no branch and bound).
TEST(Assignment, TheIntegerProgramFindsItToo) {
  AssignmentProblem p = greedyMiss();
  std::string error;
  auto s = solveAssignment(p, {0, 0, 0}, 10, error, /*searchBudget=*/0);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->choice, (std::vector<int>{1, 0, 0}));
  EXPECT_TRUE(s->optimal);
}

// DTensor's eager choice: each node by the moves of its operands from the
// choices before it. In greedyMiss node 0 reads nothing, so it takes its
// cheaper option alone (0), and its consumers then pay the move.
TEST(Assignment, TheEagerChoiceTakesEachNodeByItsOperandsMoves) {
  AssignmentProblem p = greedyMiss();
  auto choice = myopicAssignment(p, {1, 0, 0}, {true, true, true});
  ASSERT_TRUE(choice);
  EXPECT_EQ(*choice, (std::vector<int>{0, 0, 0}));
  EXPECT_DOUBLE_EQ(evaluateAssignment(p, *choice).bytes, 100);
  // Undecided nodes keep the start's option.
  choice = myopicAssignment(p, {1, 0, 0}, {false, true, true});
  ASSERT_TRUE(choice);
  EXPECT_EQ(*choice, (std::vector<int>{1, 0, 0}));
}

// A consumer's option is chosen by the moves into it from its producer's
// choice (not by its own cost); its own cost breaks ties; an illegal move
// or option is never taken; with none legal there is no eager choice.
TEST(Assignment, TheEagerChoiceWeighsMovesThenOwnCost) {
  AssignmentProblem p;
  p.nodes = {node({0}), node({5, 0, 1, kInf})};
  AssignmentProblem::Demand d;
  d.producer = 0;
  // Option 0 needs nothing; 1 a target priced 2; 2 a target priced 0; 3 is
  // illegal alone.
  d.consumers = {{1, {-1, 0, 1, -1}}};
  d.cost = {{2, 0}};
  d.bytes = {{1, 7}};
  p.demands.push_back(d);
  auto choice = myopicAssignment(p, {0, 1}, {true, true});
  ASSERT_TRUE(choice);
  // Options 0 and 2 both move for 0; 2 costs less alone.
  EXPECT_EQ(*choice, (std::vector<int>{0, 2}));
  p.demands[0].cost = {{kInf, kInf}};
  p.nodes[1] = node({kInf, 0, 0, kInf});
  EXPECT_FALSE(myopicAssignment(p, {0, 1}, {true, true}));
  EXPECT_FALSE(myopicAssignment(p, {0}, {true, true})); // malformed
}

// One redistribution serves two consumers that need the same target.
TEST(Assignment, ATargetSharedByTwoConsumersIsPaidOnce) {
  AssignmentProblem p;
  p.nodes = {node({0}), node({0, 3}), node({0, 3})};
  AssignmentProblem::Demand d;
  d.producer = 0;
  // Option 0 of each consumer needs target 0 (a move of 4), option 1 needs
  // nothing but costs 3 alone: together they pay the move once (4 < 6).
  d.consumers = {{1, {0, -1}}, {2, {0, -1}}};
  d.cost = {{4}};
  d.bytes = {{8}};
  p.demands.push_back(d);
  std::string error;
  auto s = solveAssignment(p, {0, 1, 1}, 10, error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->choice, (std::vector<int>{0, 0, 0}));
  EXPECT_DOUBLE_EQ(s->value.time, 4);
  EXPECT_DOUBLE_EQ(s->value.bytes, 8);
}

// An illegal move (infinite price) forbids the pair; an illegal option is
// never taken.
TEST(Assignment, IllegalMovesAndOptionsAreNeverChosen) {
  AssignmentProblem p;
  p.nodes = {node({0, 2}), node({kInf, 1, 0})};
  AssignmentProblem::Demand d;
  d.producer = 0;
  d.consumers = {{1, {-1, -1, 0}}};
  d.cost = {{kInf}, {0}};
  d.bytes = {{0}, {0}};
  p.demands.push_back(d);
  std::string error;
  auto s = solveAssignment(p, {0, 1}, 10, error);
  ASSERT_TRUE(s) << error;
  // (0, 2) is illegal, (0, 1) costs 1, (1, 2) costs 2.
  EXPECT_EQ(s->choice, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(evaluateAssignment(p, {0, 2}).time, kInf);
}

// The bytes bound: the faster assignment moves more, so the start stays.
TEST(Assignment, TheBytesBoundKeepsAFasterPlanThatMovesMore) {
  AssignmentProblem p;
  p.nodes = {node({0, 0}), node({0})};
  AssignmentProblem::Demand d;
  d.producer = 0;
  d.consumers = {{1, {0}}};
  d.cost = {{10}, {4}};   // option 1: faster
  d.bytes = {{64}, {512}}; // but moves more
  p.demands.push_back(d);
  std::string error;
  auto free = solveAssignment(p, {0, 0}, 10, error);
  ASSERT_TRUE(free) << error;
  EXPECT_EQ(free->choice[0], 1);
  p.bytesLimit = 64;
  auto bounded = solveAssignment(p, {0, 0}, 10, error);
  ASSERT_TRUE(bounded) << error;
  EXPECT_EQ(bounded->choice[0], 0);
  EXPECT_DOUBLE_EQ(bounded->value.bytes, 64);
}

// The bytes bound where no Lagrangian weight finds the optimum: two
// independent choices, fast-and-heavy or slow-and-light, (0, 10) or (10, 0)
// and (0, 6) or (6, 0), within 10 bytes. Only the mixed plans keep the
// bound, the faster one the first node fast (6 us, 10 bytes), and every
// weight's minimum is one of the pure plans. Elimination over Pareto frontiers proves it optimal with no branch
// and bound and no CBC (a search budget of 0, no time limit).
TEST(Assignment, ParetoFrontiersCloseTheLagrangianGap) {
  AssignmentProblem p;
  AssignmentProblem::Node a = node({0, 10}), b = node({0, 6});
  a.bytes = {10, 0};
  b.bytes = {6, 0};
  p.nodes = {a, b};
  p.bytesLimit = 10;
  std::string error;
  auto s = solveAssignment(p, {1, 1}, 0, error, /*searchBudget=*/0);
  ASSERT_TRUE(s) << error;
  EXPECT_TRUE(s->optimal);
  EXPECT_EQ(s->choice, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(s->value.time, 6);
  EXPECT_DOUBLE_EQ(s->value.bytes, 10);
}

// Larger random problems under a tight bytes bound (a chain with values
// read further on, as a function's ops): elimination alone (no branch and
// bound, no CBC) proves the brute-force optimum every time.
TEST(Assignment, BoundedRandomProblemsAreSolvedByElimination) {
  std::mt19937 rng(11);
  int solved = 0;
  for (int trial = 0; trial < 40; ++trial) {
    auto below = [&](unsigned mod) -> std::function<double()> {
      return [&rng, mod]() { return double(rng() % mod); };
    };
    int nodes = 6 + int(rng() % 5);
    AssignmentProblem p =
        randomChain(rng, nodes, 2, 3, below(9), below(16),
                    [](int k) { return k; }, below(12), below(32), 3);
    // The bound: the bytes of the lightest plan plus a little, so the
    // fastest plan breaks it.
    std::vector<int> lightest;
    double least = kInf;
    forEveryAssignment(p, [&](const std::vector<int> &choice) {
      AssignmentValue v = evaluateAssignment(p, choice);
      if (v.bytes < least) {
        least = v.bytes;
        lightest = choice;
      }
    });
    p.bytesLimit = least + double(rng() % 24);
    std::vector<int> best = bruteForce(p);
    ASSERT_FALSE(best.empty());
    std::string error;
    auto s = solveAssignment(p, lightest, 0, error, /*searchBudget=*/0);
    ASSERT_TRUE(s) << error;
    EXPECT_TRUE(s->optimal) << trial;
    EXPECT_NEAR(s->value.time, evaluateAssignment(p, best).time, 1e-9) << trial;
    EXPECT_LE(s->value.bytes, p.bytesLimit + 1e-9) << trial;
    solved += s->optimal;
  }
  EXPECT_EQ(solved, 40);
}

// A fixed state (an argument): the price sits on the target alone.
TEST(Assignment, AFixedProducerPaysPerTarget) {
  AssignmentProblem p;
  p.nodes = {node({0, 0})};
  AssignmentProblem::Demand d;
  d.producer = -1;
  d.consumers = {{0, {0, 1}}};
  d.cost = {{3, 2}};
  d.bytes = {{0, 0}};
  p.demands.push_back(d);
  std::string error;
  auto s = solveAssignment(p, {0}, 10, error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->choice, (std::vector<int>{1}));
  EXPECT_DOUBLE_EQ(s->value.time, 2);
}

TEST(Assignment, MalformedProblemsAreErrors) {
  AssignmentProblem p;
  p.nodes = {node({0})};
  AssignmentProblem::Demand d;
  d.producer = 3;
  p.demands.push_back(d);
  std::string error;
  EXPECT_FALSE(solveAssignment(p, {0}, 1, error));
  EXPECT_NE(error.find("names no node"), std::string::npos);
  p.demands.clear();
  EXPECT_FALSE(solveAssignment(p, {2}, 1, error));
  EXPECT_NE(error.find("out of range"), std::string::npos);
}

// Random chains and trees with fan-out against brute force: the solver's
// assignment is optimal and never worse than the start.
TEST(Assignment, RandomProblemsMatchBruteForce) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    int nodes = 2 + int(rng() % 5);
    std::function<double()> nodeCost = [&]() {
      return rng() % 7 == 0 ? kInf : double(rng() % 5);
    };
    std::function<double()> nodeBytes = [&]() { return double(rng() % 4); };
    std::function<double()> moveCost = [&]() {
      return rng() % 9 == 0 ? kInf : double(rng() % 6);
    };
    std::function<double()> moveBytes = [&]() { return double(rng() % 8); };
    AssignmentProblem p = randomChain(
        rng, nodes, 1, 3, nodeCost, nodeBytes,
        [&](int k) { return rng() % 4 == 0 ? -1 : int(rng() % (k + 1)); },
        moveCost, moveBytes, nodes);
    if (trial % 2)
      p.bytesLimit = double(rng() % 20);
    std::vector<int> best = bruteForce(p);
    if (best.empty())
      continue; // nothing legal within the bound
    // Each method: elimination (the default), elimination alone (no branch
    // and bound, no CBC: the bytes bound by Lagrangian weights and then
    // Pareto frontiers), the branch and bound (no elimination) and CBC
    // (neither: a search budget of 0).
    for (auto [budget, elimination, seconds] :
         {std::tuple<int64_t, int64_t, double>{200000, 50000000, 10},
          {0, 50000000, 0},
          {200000, 0, 10},
          {0, 0, 10}}) {
      std::string error;
      auto s = solveAssignment(p, best, seconds, error, budget, elimination);
      ASSERT_TRUE(s) << error;
      // From the optimum, nothing better exists.
      EXPECT_DOUBLE_EQ(s->value.time, evaluateAssignment(p, best).time) << trial;
      // From the all-zero start (when legal), the optimum is found.
      std::vector<int> zero(p.nodes.size(), 0);
      AssignmentValue z = evaluateAssignment(p, zero);
      if (z.time < kInf && z.bytes <= p.bytesLimit) {
        auto t = solveAssignment(p, zero, seconds, error, budget, elimination);
        ASSERT_TRUE(t) << error;
        EXPECT_TRUE(t->optimal) << trial;
        EXPECT_NEAR(t->value.time, evaluateAssignment(p, best).time, 1e-6) << trial;
        EXPECT_LE(t->value.bytes, p.bytesLimit + 1e-6) << trial;
      }
    }
  }
}

// A chain of 3,000 nodes (a layer stack), each with 8 options, each value
// read by the next node: past the branch and bound's budget and any integer
// program's time, elimination solves it exactly without a time limit,
// checked against the chain's own dynamic program.
TEST(Assignment, EliminationSolvesLongChainsExactly) {
  std::mt19937 rng(11);
  constexpr int kNodes = 3000, kOptions = 8;
  AssignmentProblem p;
  for (int n = 0; n < kNodes; ++n) {
    std::vector<double> cost;
    for (int o = 0; o < kOptions; ++o)
      cost.push_back(double(rng() % 10));
    p.nodes.push_back(node(cost));
  }
  // Node n needs its value in the state of its own option; a move between
  // two states costs their distance.
  for (int n = 1; n < kNodes; ++n) {
    AssignmentProblem::Demand d;
    d.producer = n - 1;
    std::vector<int> need;
    for (int o = 0; o < kOptions; ++o)
      need.push_back(o);
    d.consumers = {{n, need}};
    for (int a = 0; a < kOptions; ++a) {
      std::vector<double> c, b;
      for (int t = 0; t < kOptions; ++t) {
        c.push_back(std::abs(a - t) * 3.0);
        b.push_back(a == t ? 0 : 1);
      }
      d.cost.push_back(c);
      d.bytes.push_back(b);
    }
    p.demands.push_back(d);
  }
  // The chain's optimum, by its own recurrence.
  std::vector<double> best(p.nodes[0].cost);
  for (int n = 1; n < kNodes; ++n) {
    std::vector<double> next(kOptions, kInf);
    for (int o = 0; o < kOptions; ++o)
      for (int a = 0; a < kOptions; ++a)
        next[o] = std::min(next[o], best[a] + std::abs(a - o) * 3.0 +
                                        p.nodes[n].cost[o]);
    best = next;
  }
  double optimum = *std::min_element(best.begin(), best.end());
  std::vector<int> start(kNodes, 0);
  std::string error;
  auto s = solveAssignment(p, start, /*seconds=*/0, error);
  ASSERT_TRUE(s) << error;
  EXPECT_TRUE(s->optimal);
  EXPECT_NEAR(s->value.time, optimum, 1e-6);
  EXPECT_LT(s->value.time, evaluateAssignment(p, start).time);
}

// Values read by many nodes (a weight every layer reads): elimination splits
// such a demand into one two-state node per target; the result still equals
// brute force, a target paid once however many nodes need it.
/// Nine nodes of three options; `values` demands, each read by seven of
/// them (3^7 assignments, past the direct table's size).
AssignmentProblem sharedReads(std::mt19937 &rng, int values) {
  AssignmentProblem p;
  constexpr int kNodes = 9;
  for (int n = 0; n < kNodes; ++n) {
    std::vector<double> cost;
    for (int o = 0; o < 3; ++o)
      cost.push_back(double(rng() % 4));
    p.nodes.push_back(node(cost));
  }
  for (int k = 0; k < values; ++k) {
    AssignmentProblem::Demand d;
    d.producer = k == 0 ? -1 : int(rng() % 2);
    size_t rows = d.producer < 0 ? 1 : 3;
    for (size_t a = 0; a < rows; ++a) {
      std::vector<double> c, b;
      for (int t = 0; t < 3; ++t) {
        c.push_back(rng() % 11 == 0 ? kInf : double(rng() % 9));
        b.push_back(double(rng() % 5));
      }
      d.cost.push_back(c);
      d.bytes.push_back(b);
    }
    for (int c = 2; c < kNodes; ++c) {
      std::vector<int> need;
      for (int o = 0; o < 3; ++o)
        need.push_back(int(rng() % 4) - 1);
      d.consumers.push_back({c, need});
    }
    p.demands.push_back(d);
  }
  return p;
}

// Past six such targets the split would carry too many two-state nodes:
// each reader pays its share of a move instead, a lower bound. The bound
// and the plan are still right, and the other methods finish the proof.
TEST(Assignment, ManySharedTargetsAreBoundedThenSolved) {
  std::mt19937 rng(29);
  int solved = 0;
  for (int trial = 0; trial < 12; ++trial) {
    AssignmentProblem p = sharedReads(rng, 4);
    std::vector<int> best = bruteForce(p);
    if (best.empty())
      continue; // nothing legal
    ++solved;
    double optimum = evaluateAssignment(p, best).time;
    for (int o = 0; o < 3; ++o) {
      std::vector<int> start(p.nodes.size(), o);
      if (!(evaluateAssignment(p, start).time < kInf))
        continue;
      std::string error;
      // Elimination alone: a legal plan, no better than the optimum, and a
      // bound no higher.
      auto s = solveAssignment(p, start, 0, error, /*searchBudget=*/0);
      ASSERT_TRUE(s) << error;
      EXPECT_GE(s->value.time, optimum - 1e-9) << trial;
      EXPECT_LE(s->value.time, evaluateAssignment(p, start).time) << trial;
      if (s->optimal) {
        EXPECT_NEAR(s->value.time, optimum, 1e-9) << trial;
      }
      if (std::isfinite(s->lowerBound)) {
        EXPECT_LE(s->lowerBound, optimum + 1e-9) << trial;
      }
      // With the branch and bound after it: the optimum.
      auto t = solveAssignment(p, start, 0, error);
      ASSERT_TRUE(t) << error;
      EXPECT_TRUE(t->optimal) << trial;
      EXPECT_NEAR(t->value.time, optimum, 1e-9) << trial;
    }
  }
  EXPECT_GE(solved, 8);
}

TEST(Assignment, ValuesReadByManyNodesMatchBruteForce) {
  std::mt19937 rng(23);
  int solved = 0;
  for (int trial = 0; trial < 12; ++trial) {
    // Two values (six targets): split exactly.
    AssignmentProblem p = sharedReads(rng, 2);
    constexpr int kNodes = 9;
    std::vector<int> best = bruteForce(p);
    if (best.empty())
      continue; // nothing legal
    ++solved;
    // A start that is legal: the optimum's; and elimination alone (no
    // search budget, no time: neither other method runs).
    std::string error;
    auto s = solveAssignment(p, best, 0, error, /*searchBudget=*/0);
    ASSERT_TRUE(s) << error;
    EXPECT_TRUE(s->optimal);
    EXPECT_DOUBLE_EQ(s->value.time, evaluateAssignment(p, best).time) << trial;
    // From every legal single-option start, the optimum too.
    for (int o = 0; o < 3; ++o) {
      std::vector<int> start(kNodes, o);
      if (!(evaluateAssignment(p, start).time < kInf))
        continue;
      auto t = solveAssignment(p, start, 0, error, /*searchBudget=*/0);
      ASSERT_TRUE(t) << error;
      EXPECT_TRUE(t->optimal) << trial;
      EXPECT_NEAR(t->value.time, evaluateAssignment(p, best).time, 1e-9) << trial;
    }
  }
  EXPECT_GE(solved, 8);
}

} // namespace
