//===- Assignment.h - whole-function choice of strategies ---------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Propagation as one optimization problem (issue 14, docs/Compile.md "Whole-
// function optimization"). Every op with a sharding rule is a node that picks
// exactly one of its options (a strategy: the placements it needs of its
// operands and gives its results). A node's own cost is what its option pays
// alone (moving a result to an annotation, a return, a distribute_tensor).
// A value is produced in the state its producer's option gives it and moved
// to every distinct state its consumers' options need: each distinct target
// is paid once (one redistribution serves every user that needs it), at the
// planner's price from the producer's state.
//
// Solved exactly as a 0-1 integer program with COIN-OR CBC under a time limit,
// from a given starting assignment (the greedy propagation's): x[n][o] = 1 when
// node n takes option o; y[d][t] >= x[c][o] for every consumer option needing
// target t; w[d][a][t] <= x[p][a] with sum over a of w[d][a][t] = y[d][t]
// carries the price of moving from the producer's option a to t (an illegal
// move, of infinite price, has no w: that pair cannot be chosen).
// An optional bound on the bytes moved (per rank) keeps a
// faster plan from moving more data than the one it replaces.
//
// Plain C++ (no MLIR): unit-tested in unittests/Core/AssignmentTest.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_CORE_ASSIGNMENT_H
#define DTENSOR_CORE_ASSIGNMENT_H

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace dtensor {

struct AssignmentProblem {
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();

  struct Node {
    /// Per option: its own time and bytes (infinite time: never legal).
    std::vector<double> cost, bytes;
  };
  std::vector<Node> nodes;

  /// One value and the states its consumers need it in.
  struct Demand {
    /// The node whose option decides the value's state; -1 when the state
    /// is fixed (an argument, an annotated result): then `cost` and `bytes`
    /// have one row.
    int producer = -1;
    /// Per consumer: its node, and per option of that node the target it
    /// needs (an index into the columns of `cost`) or -1 (none).
    std::vector<std::pair<int, std::vector<int>>> consumers;
    /// [producer option][target]: the price and bytes per rank of the move.
    std::vector<std::vector<double>> cost, bytes;
  };
  std::vector<Demand> demands;

  /// Bytes per rank the whole assignment may move (infinite: no bound).
  double bytesLimit = kInfinity;
};

/// An assignment's time and bytes by the problem's own model (infinite time
/// when it takes an illegal option or move).
struct AssignmentValue {
  double time = 0, bytes = 0;
};
AssignmentValue evaluateAssignment(const AssignmentProblem &problem,
                                   const std::vector<int> &choice);

/// The choice DTensor's eager dispatch would make in this model: every node
/// with `decide[n]` set, in index order (the program's), takes the option
/// whose operands arrive cheapest from the choices before it (the moves
/// into the states it needs, each priced once; its own cost, the moves of
/// its results to annotations and returns, breaks ties); the other nodes,
/// and producers not yet decided (a loop's carried value), keep `start`'s.
/// A reference plan, not an optimum: it bounds the bytes a faster plan may
/// move. Nullopt when some node has no legal option so.
std::optional<std::vector<int>>
myopicAssignment(const AssignmentProblem &problem, const std::vector<int> &start,
                 const std::vector<bool> &decide);

struct AssignmentSolution {
  static constexpr double kInfinityTime = AssignmentProblem::kInfinity;
  std::vector<int> choice;
  AssignmentValue value;
  /// Whether the solver proved the choice optimal (else: the best found
  /// within the time limit).
  bool optimal = false;
  /// A proven lower bound of the optimum's time when one is known (equal to
  /// the value's time when optimal), else -infinity. A plan within 1e-4 of
  /// its bound is returned without further search.
  double lowerBound = -kInfinityTime;
};

/// Solves `problem` exactly (within `seconds`), starting from `start` (one
/// option per node; it must satisfy the bytes bound, and is returned when
/// nothing better is found). First by variable elimination (dynamic
/// programming over the graph of nodes and demands, exact on chains and
/// trees, within `eliminationWork` table entries visited; 0: not tried),
/// whose optimum ignores the bytes bound and is the answer when it keeps
/// it. Then small problems are solved by a depth-first
/// branch and bound over the nodes in order (partial costs are lower
/// bounds: every price is non-negative) within `searchBudget` visited
/// assignments and, when `seconds` is positive, within `seconds`; the rest,
/// or what the budget does not finish, by CBC (`seconds` again). With
/// `seconds` 0 the branch and bound alone decides (deterministic).
/// Returns std::nullopt and sets `error` when the solver fails or the
/// problem is malformed.
std::optional<AssignmentSolution>
solveAssignment(const AssignmentProblem &problem, const std::vector<int> &start,
                double seconds, std::string &error,
                int64_t searchBudget = 200000,
                int64_t eliminationWork = 50000000);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_CORE_ASSIGNMENT_H
