//===- Assignment.cpp - whole-function choice of strategies ---------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Assignment.h"

#include <Cbc_C_Interface.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <set>

using namespace mlir::dtensor;

namespace {

bool isLegal(double v) { return std::isfinite(v); }

/// Checks the shape of the problem (every index in range) and `choice`
/// (when given) against it.
bool wellFormed(const AssignmentProblem &p, const std::vector<int> *choice,
                std::string &error) {
  for (size_t n = 0; n < p.nodes.size(); ++n)
    if (p.nodes[n].cost.size() != p.nodes[n].bytes.size() ||
        p.nodes[n].cost.empty()) {
      error = "node " + std::to_string(n) + " has no options or unequal costs";
      return false;
    }
  for (size_t i = 0; i < p.demands.size(); ++i) {
    const auto &d = p.demands[i];
    size_t rows = d.producer < 0 ? 1 : 0;
    if (d.producer >= int(p.nodes.size())) {
      error = "demand " + std::to_string(i) + " names no node";
      return false;
    }
    if (d.producer >= 0)
      rows = p.nodes[d.producer].cost.size();
    if (d.cost.size() != rows || d.bytes.size() != rows) {
      error = "demand " + std::to_string(i) + " has a cost row per producer option";
      return false;
    }
    size_t targets = rows ? d.cost[0].size() : 0;
    for (size_t a = 0; a < rows; ++a)
      if (d.cost[a].size() != targets || d.bytes[a].size() != targets) {
        error = "demand " + std::to_string(i) + " has ragged targets";
        return false;
      }
    for (const auto &[node, need] : d.consumers) {
      if (node < 0 || node >= int(p.nodes.size()) ||
          need.size() != p.nodes[node].cost.size()) {
        error = "demand " + std::to_string(i) + " has a malformed consumer";
        return false;
      }
      for (int t : need)
        if (t >= int(targets)) {
          error = "demand " + std::to_string(i) + " needs an unknown target";
          return false;
        }
    }
  }
  if (choice) {
    if (choice->size() != p.nodes.size()) {
      error = "the starting assignment has the wrong number of nodes";
      return false;
    }
    for (size_t n = 0; n < choice->size(); ++n)
      if ((*choice)[n] < 0 || (*choice)[n] >= int(p.nodes[n].cost.size())) {
        error = "the starting assignment's option for node " +
                std::to_string(n) + " is out of range";
        return false;
      }
  }
  return true;
}

/// Calls `pay(a, t)` once for each distinct target t of `d` that the
/// consumers' options in `choice` need, a the producer's option (0 when the
/// state is fixed); `needed` is scratch space.
template <typename Pay>
void forEachNeeded(const AssignmentProblem::Demand &d,
                   const std::vector<int> &choice, std::vector<char> &needed,
                   Pay &&pay) {
  int a = d.producer < 0 ? 0 : choice[d.producer];
  needed.assign(d.cost[a].size(), 0);
  for (const auto &[node, need] : d.consumers)
    if (need[choice[node]] >= 0)
      needed[need[choice[node]]] = 1;
  for (size_t t = 0; t < needed.size(); ++t)
    if (needed[t])
      pay(a, t);
}

/// Depth-first branch and bound over the nodes in order: a demand's cost is
/// added once its producer and every consumer have an option, so a partial
/// assignment's cost is a lower bound of every completion. Returns the
/// optimum (or `incumbent` when nothing is strictly better), or nullopt when
/// more than `budget` assignments would be visited, or (when `seconds` is
/// positive) the search runs longer than that.
std::optional<AssignmentSolution>
branchAndBound(const AssignmentProblem &p, const AssignmentSolution &incumbent,
               int64_t budget, double seconds) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(seconds);
  size_t n = p.nodes.size();
  // The demands settled at each node: those whose last node it is.
  std::vector<std::vector<size_t>> settled(n);
  for (size_t i = 0; i < p.demands.size(); ++i) {
    const auto &d = p.demands[i];
    int last = d.producer;
    for (const auto &consumer : d.consumers)
      last = std::max(last, consumer.first);
    if (last >= 0)
      settled[last].push_back(i);
  }
  constexpr double kEps = 1e-9;
  std::vector<int> choice(n, 0), best;
  // Only a start within the bytes bound bounds the search.
  double bestTime = incumbent.value.bytes <= p.bytesLimit + kEps
                        ? incumbent.value.time
                        : AssignmentProblem::kInfinity;
  double bestBytes = 0;
  // The cheapest own cost of the nodes from k on: every completion pays at
  // least that.
  std::vector<double> rest(n + 1, 0);
  for (size_t k = n; k-- > 0;)
    rest[k] = rest[k + 1] + *std::min_element(p.nodes[k].cost.begin(),
                                              p.nodes[k].cost.end());
  int64_t visits = 0;
  bool aborted = false;
  std::vector<char> needed;
  std::function<void(size_t, double, double)> visit = [&](size_t k, double time,
                                                          double bytes) {
    if (aborted)
      return;
    if (k == n) {
      best = choice;
      bestTime = time;
      bestBytes = bytes;
      return;
    }
    for (size_t o = 0; o < p.nodes[k].cost.size(); ++o) {
      if (++visits > budget ||
          (seconds > 0 && visits % 1024 == 0 &&
           std::chrono::steady_clock::now() > deadline)) {
        aborted = true;
        return;
      }
      double t = time + p.nodes[k].cost[o], b = bytes + p.nodes[k].bytes[o];
      choice[k] = int(o);
      for (size_t i : settled[k]) {
        const auto &d = p.demands[i];
        forEachNeeded(d, choice, needed, [&](int a, size_t target) {
          t += d.cost[a][target];
          b += d.bytes[a][target];
        });
      }
      if (isLegal(t) && t + rest[k + 1] < bestTime - kEps &&
          b <= p.bytesLimit + kEps)
        visit(k + 1, t, b);
      if (aborted)
        return;
    }
  };
  visit(0, 0, 0);
  if (aborted)
    return std::nullopt;
  if (best.empty()) {
    // Nothing strictly better (or nothing legal at all): the start.
    AssignmentSolution out = incumbent;
    out.optimal = true;
    out.lowerBound = out.value.time;
    return out;
  }
  return AssignmentSolution{best, {bestTime, bestBytes}, true, bestTime};
}

/// A table over some nodes' options: per assignment of `scope` (node
/// indices, ascending; the first varies fastest), a time and bytes.
struct Factor {
  std::vector<int> scope;
  std::vector<size_t> stride;
  std::vector<double> time, bytes;
  size_t index(const std::vector<int> &choice) const {
    size_t i = 0;
    for (size_t k = 0; k < scope.size(); ++k)
      i += size_t(choice[scope[k]]) * stride[k];
    return i;
  }
};

/// (time, bytes) compared by time, then bytes: the order the elimination
/// minimizes. Sums keep it (adding the same pair to both sides), so
/// minimizing term by term minimizes the total; ties in time within
/// rounding prefer fewer bytes.
bool lexLess(double t, double b, double bt, double bb) {
  if (!std::isfinite(bt))
    return t < bt;
  double tol = 1e-12 * std::max(1.0, std::fabs(bt));
  if (t < bt - tol)
    return true;
  return !(t > bt + tol) && b < bb;
}

/// The tables variable elimination works on. Each node is a variable (and
/// each split target's two-state node, after the nodes); its own cost a
/// one-variable table; a demand a table over its producer and consumers
/// (each distinct target paid once).
struct FactorModel {
  std::vector<size_t> domain;
  std::vector<Factor> factors;
  size_t numNodes = 0;
  /// Some demand was relaxed (each reader paying its share): the model's
  /// minimum is a lower bound of the problem's, not its value.
  bool relaxed = false;
  /// Table entries visited so far (the work limit counts them).
  double work = 0;
};
constexpr size_t kMaxSplitTargets = 6;
/// A plan within this fraction of a proven lower bound is kept without
/// searching further (as integer programming solvers' default gap, 1e-4).
constexpr double kRelativeGap = 1e-4;

/// A table over `scope` (deduplicated and sorted here), zero everywhere;
/// nullopt past `maxEntries` entries.
std::optional<Factor> makeFactor(const std::vector<size_t> &domain,
                                 std::vector<int> scope, size_t maxEntries) {
  std::sort(scope.begin(), scope.end());
  scope.erase(std::unique(scope.begin(), scope.end()), scope.end());
  Factor f;
  size_t size = 1;
  for (int v : scope) {
    f.stride.push_back(size);
    if (size > maxEntries / domain[v])
      return std::nullopt;
    size *= domain[v];
  }
  f.scope = std::move(scope);
  f.time.assign(size, 0);
  f.bytes.assign(size, 0);
  return f;
}

/// Visits every assignment of `scope` (in `choice`) in table order.
template <typename Visit>
void forEachAssignment(const std::vector<size_t> &domain,
                       const std::vector<int> &scope, std::vector<int> &choice,
                       Visit &&visit) {
  for (int v : scope)
    choice[v] = 0;
  for (size_t i = 0;; ++i) {
    visit(i);
    size_t k = 0;
    while (k < scope.size() && ++choice[scope[k]] == int(domain[scope[k]]))
      choice[scope[k++]] = 0;
    if (k == scope.size())
      return;
  }
}

/// The tables of `p`, time priced as time plus `lambda` per byte (a
/// Lagrangian weight of the bytes bound; 0: time alone). Nullopt when a
/// table would exceed `maxEntries` or the work `maxWork`.
std::optional<FactorModel> buildFactors(const AssignmentProblem &p,
                                        size_t maxEntries, double maxWork,
                                        double lambda,
                                        size_t maxSplitTargets = kMaxSplitTargets) {
  auto price = [&](double time, double bytes) {
    return lambda > 0 && isLegal(time) ? time + lambda * bytes : time;
  };
  FactorModel m;
  size_t n = p.nodes.size();
  m.numNodes = n;
  std::vector<size_t> &domain = m.domain;
  std::vector<Factor> &factors = m.factors;
  domain.resize(n);
  for (size_t i = 0; i < n; ++i)
    domain[i] = p.nodes[i].cost.size();
  auto makeFactor = [&](std::vector<int> scope) {
    return ::makeFactor(domain, std::move(scope), maxEntries);
  };
  auto forEach = [&](const std::vector<int> &scope, std::vector<int> &choice,
                     auto &&visit) {
    forEachAssignment(domain, scope, choice, visit);
  };
  std::vector<int> choice(n, 0);
  for (size_t i = 0; i < n; ++i) {
    Factor f = *makeFactor({int(i)});
    f.time = p.nodes[i].cost;
    f.bytes = p.nodes[i].bytes;
    for (size_t o = 0; o < f.time.size(); ++o)
      f.time[o] = price(f.time[o], f.bytes[o]);
    factors.push_back(std::move(f));
  }
  std::vector<char> needed;
  size_t splitTargets = 0;
  for (const auto &d : p.demands) {
    std::vector<int> scope;
    if (d.producer >= 0)
      scope.push_back(d.producer);
    for (const auto &consumer : d.consumers)
      scope.push_back(consumer.first);
    // A value read by many nodes (a weight every layer reads) would make
    // one table over all of them. Split instead: a two-state node per
    // target (moved or not), paying the move from the producer's state, and
    // a pair table per consumer and target forbidding an option that needs
    // a target not moved. Exact (a target is paid once, when any consumer
    // needs it); the tables then grow with the targets, not the readers.
    double direct = 1;
    {
      std::vector<int> unique = scope;
      std::sort(unique.begin(), unique.end());
      unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
      for (int v : unique)
        direct *= double(domain[v]);
    }
    size_t targets = d.cost.empty() ? 0 : d.cost[0].size();
    if (d.consumers.size() > 1 && direct > 1024 && targets <= 24) {
      std::vector<size_t> coupling;
      for (size_t t = 0; t < targets; ++t) {
        bool used = false;
        for (const auto &consumer : d.consumers)
          used |= std::find(consumer.second.begin(), consumer.second.end(),
                            int(t)) != consumer.second.end();
        // A target every producer state reaches for nothing couples no one
        // (a replicated weight sliced); one no state reaches forbids the
        // options that need it, each alone.
        bool free = true, unreachable = true;
        for (size_t a = 0; a < d.cost.size(); ++a) {
          free &= d.cost[a][t] == 0 && d.bytes[a][t] == 0;
          unreachable &= !isLegal(d.cost[a][t]);
        }
        if (!used || free)
          continue;
        if (!unreachable) {
          coupling.push_back(t);
          continue;
        }
        for (const auto &[node, need] : d.consumers) {
          Factor forbid = *makeFactor({node});
          for (size_t o = 0; o < need.size(); ++o)
            if (need[o] == int(t))
              forbid.time[o] = AssignmentProblem::kInfinity;
          factors.push_back(std::move(forbid));
        }
      }
      if (splitTargets + coupling.size() > maxSplitTargets) {
        // Too many two-state nodes for the tables (each stays in every
        // table until its last reader is eliminated). Relaxed instead: each
        // of the k readers pays 1/k of the move to the target it needs, so
        // the model never prices a plan above its exact cost (a lower
        // bound), and prices it exactly when all k readers share one
        // target (a weight every layer reads alike).
        m.relaxed = true;
        double k = double(d.consumers.size());
        for (const auto &[node, need] : d.consumers) {
          std::vector<int> pair{node};
          if (d.producer >= 0)
            pair.push_back(d.producer);
          Factor share = *makeFactor(pair);
          forEach(share.scope, choice, [&](size_t i) {
            int t = need[choice[node]];
            if (t < 0 || std::find(coupling.begin(), coupling.end(), size_t(t)) == coupling.end())
              return;
            int a = d.producer < 0 ? 0 : choice[d.producer];
            share.time[i] = price(d.cost[a][t], d.bytes[a][t]) / k;
            share.bytes[i] = d.bytes[a][t] / k;
          });
          factors.push_back(std::move(share));
        }
        continue;
      }
      splitTargets += coupling.size();
      for (size_t t : coupling) {
        int y = int(domain.size());
        domain.push_back(2);
        choice.push_back(0);
        std::vector<int> moveScope{y};
        if (d.producer >= 0)
          moveScope.push_back(d.producer);
        Factor move = *makeFactor(moveScope);
        forEach(move.scope, choice, [&](size_t i) {
          if (!choice[y])
            return;
          int a = d.producer < 0 ? 0 : choice[d.producer];
          move.time[i] = price(d.cost[a][t], d.bytes[a][t]);
          move.bytes[i] = d.bytes[a][t];
        });
        factors.push_back(std::move(move));
        for (const auto &[node, need] : d.consumers) {
          Factor requires_ = *makeFactor({node, y});
          forEach(requires_.scope, choice, [&](size_t i) {
            if (!choice[y] && need[choice[node]] == int(t))
              requires_.time[i] = AssignmentProblem::kInfinity;
          });
          factors.push_back(std::move(requires_));
        }
      }
      continue;
    }
    std::optional<Factor> f = makeFactor(scope);
    if (!f)
      return std::nullopt;
    m.work += double(f->time.size()) * double(d.consumers.size() + 1);
    if (m.work > maxWork)
      return std::nullopt;
    forEach(f->scope, choice, [&](size_t i) {
      forEachNeeded(d, choice, needed, [&](int a, size_t t) {
        f->time[i] += price(d.cost[a][t], d.bytes[a][t]);
        f->bytes[i] += d.bytes[a][t];
      });
    });
    factors.push_back(std::move(*f));
  }

  return m;
}

/// The order of elimination: the node whose elimination makes the smallest
/// table next (a leaf makes one entry). Tracks the factors on each node as
/// tables are consumed and made.
class EliminationOrder {
public:
  EliminationOrder(const std::vector<size_t> &domain,
                   const std::vector<Factor> &factors)
      : domain(domain), on(domain.size()), mark(domain.size(), 0),
        sizes(domain.size()) {
    for (const Factor &f : factors)
      added(f.scope);
    for (size_t v = 0; v < domain.size(); ++v)
      order.insert({sizes[v] = sizeOf(int(v)), int(v)});
  }

  /// The next node to eliminate, the factors on it (consumed) and the
  /// scope of the table its elimination makes; false when none is left.
  /// `added` must follow with that table.
  bool next(int &node, std::vector<int> &used, std::vector<int> &scope) {
    if (order.empty())
      return false;
    node = order.begin()->second;
    order.erase(order.begin());
    used = std::move(on[node]);
    on[node].clear();
    scope.clear();
    for (int f : used)
      for (int u : scopes[f])
        if (u != node)
          scope.push_back(u);
    for (int f : used)
      for (int u : scopes[f])
        if (u != node)
          on[u].erase(std::find(on[u].begin(), on[u].end(), f));
    return true;
  }

  /// Records a table over `scope` (sorted, unique); only its nodes' sizes
  /// change.
  void added(const std::vector<int> &scope) {
    int id = int(scopes.size());
    scopes.push_back(scope);
    for (int u : scope)
      on[u].push_back(id);
    for (int u : scope)
      if (order.erase({sizes[u], u}))
        order.insert({sizes[u] = sizeOf(u), u});
  }

private:
  double sizeOf(int v) {
    double size = 1;
    std::vector<int> seen;
    for (int f : on[v])
      for (int u : scopes[f])
        if (u != v && !mark[u]) {
          mark[u] = 1;
          seen.push_back(u);
          size *= double(domain[u]);
        }
    for (int u : seen)
      mark[u] = 0;
    return size;
  }

  const std::vector<size_t> &domain;
  std::vector<std::vector<int>> scopes, on;
  std::vector<char> mark;
  std::vector<double> sizes;
  std::set<std::pair<double, int>> order;
};

/// Exact minimization of the time (ties: fewer bytes), ignoring the bytes
/// bound, by variable elimination (dynamic programming over the graph the
/// demands make: exact on chains and trees in time linear in the nodes, and
/// on any graph whose elimination keeps tables small). Nodes are
/// eliminated in the order that makes the smallest table next. Returns
/// nullopt when a table would exceed `maxEntries` or the work `maxWork`
/// (then the other methods decide).
struct Eliminated {
  std::vector<int> choice;
  /// The minimum of the model eliminated (time + lambda * bytes): when
  /// `relaxed`, a lower bound of the problem's own.
  double objective = 0;
  bool relaxed = false;
};
/// `built` is buildFactors' model at lambda 0 (time alone): a table's time
/// at lambda is its time plus lambda per byte where legal (every table is a
/// sum of moves, or a share of one), so the Lagrangian iterations build the
/// tables once.
std::optional<Eliminated> eliminate(const FactorModel &built, size_t maxEntries,
                                    double maxWork, double lambda) {
  std::optional<FactorModel> model = built;
  if (model->work > maxWork)
    return std::nullopt;
  if (lambda > 0)
    for (Factor &f : model->factors)
      for (size_t i = 0; i < f.time.size(); ++i)
        if (isLegal(f.time[i]))
          f.time[i] += lambda * f.bytes[i];
  std::vector<size_t> &domain = model->domain;
  std::vector<Factor> &factors = model->factors;
  size_t numNodes = model->numNodes, numModel = factors.size();
  std::vector<int> choice(domain.size(), 0);
  struct Step {
    int node;
    std::vector<int> factors;
  };
  std::vector<Step> steps;
  EliminationOrder order(domain, factors);
  int best;
  std::vector<int> used, scope;
  while (order.next(best, used, scope)) {
    std::optional<Factor> g = makeFactor(domain, scope, maxEntries);
    if (!g)
      return std::nullopt;
    model->work += double(g->time.size()) * double(domain[best]) *
                   double(used.size());
    if (model->work > maxWork)
      return std::nullopt;
    // Per table consumed: the stride of the eliminated node in it, and per
    // entry of the new table the index with that node's option 0.
    std::vector<size_t> strides, bases;
    for (int f : used) {
      const Factor &u = factors[f];
      size_t at = size_t(std::find(u.scope.begin(), u.scope.end(), best) -
                         u.scope.begin());
      strides.push_back(at < u.scope.size() ? u.stride[at] : 0);
    }
    bases.resize(used.size());
    choice[best] = 0;
    forEachAssignment(domain, g->scope, choice, [&](size_t i) {
      for (size_t k = 0; k < used.size(); ++k)
        bases[k] = factors[used[k]].index(choice);
      double bt = AssignmentProblem::kInfinity, bb = 0;
      for (size_t o = 0; o < domain[best]; ++o) {
        double t = 0, b = 0;
        for (size_t k = 0; k < used.size(); ++k) {
          const Factor &u = factors[used[k]];
          size_t at = bases[k] + o * strides[k];
          t += u.time[at];
          b += u.bytes[at];
        }
        if (lexLess(t, b, bt, bb)) {
          bt = t;
          bb = b;
        }
      }
      g->time[i] = bt;
      g->bytes[i] = bb;
    });
    choice[best] = 0;
    order.added(g->scope);
    factors.push_back(std::move(*g));
    steps.push_back({best, used});
  }
  // Back: each node, in the reverse order, takes the option that attains
  // the minimum given the nodes eliminated after it (already chosen).
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    double bt = AssignmentProblem::kInfinity, bb = 0;
    int pick = 0;
    for (size_t o = 0; o < domain[it->node]; ++o) {
      choice[it->node] = int(o);
      double t = 0, b = 0;
      for (int f : it->factors) {
        size_t k = factors[f].index(choice);
        t += factors[f].time[k];
        b += factors[f].bytes[k];
      }
      if (lexLess(t, b, bt, bb)) {
        bt = t;
        bb = b;
        pick = int(o);
      }
    }
    choice[it->node] = pick;
  }
  Eliminated out;
  for (size_t f = 0; f < numModel; ++f)
    out.objective += factors[f].time[factors[f].index(choice)];
  choice.resize(numNodes);
  out.choice = std::move(choice);
  out.relaxed = model->relaxed;
  return out;
}

/// A point of a Pareto frontier: a time and bytes, and where it came from
/// (for an eliminated table's points: its offset in the table's `origin`,
/// which holds the eliminated node's option and then the point taken from
/// each table consumed).
struct FrontierPoint {
  double time, bytes;
  uint32_t origin;
};

/// Keeps the points no other beats in both time and bytes (ties in time:
/// fewer bytes; equal points: one), sorted by time.
void prune(std::vector<FrontierPoint> &points) {
  constexpr double kEps = 1e-9;
  std::sort(points.begin(), points.end(),
            [](const FrontierPoint &a, const FrontierPoint &b) {
              return a.time < b.time || (a.time == b.time && a.bytes < b.bytes);
            });
  size_t kept = 0;
  double least = AssignmentProblem::kInfinity;
  for (const FrontierPoint &q : points)
    if (!isLegal(least) || q.bytes < least - kEps * std::max(1.0, least)) {
      least = q.bytes;
      points[kept++] = q;
    }
  points.resize(kept);
}

/// The frontier of sums of one point from each of several frontiers, within
/// `limit` bytes, and per point the index taken from each (`width` indices
/// per point, flat).
struct FrontierSum {
  std::vector<FrontierPoint> points, next;
  std::vector<int32_t> picks, nextPicks;
  size_t width = 0;

  void reset() {
    points.assign(1, {0, 0, 0});
    picks.clear();
    width = 0;
  }
  /// Adds one frontier; returns the pairs combined (the work).
  double add(const std::vector<FrontierPoint> &frontier, double limit) {
    double work = double(points.size()) * double(frontier.size()) + 1;
    next.clear();
    nextPicks.clear();
    for (size_t a = 0; a < points.size(); ++a)
      for (size_t k = 0; k < frontier.size(); ++k) {
        FrontierPoint q{points[a].time + frontier[k].time,
                        points[a].bytes + frontier[k].bytes,
                        uint32_t(next.size())};
        if (q.bytes > limit)
          continue;
        next.push_back(q);
        nextPicks.insert(nextPicks.end(), picks.begin() + a * width,
                         picks.begin() + (a + 1) * width);
        nextPicks.push_back(int32_t(k));
      }
    prune(next);
    points.clear();
    picks.clear();
    for (FrontierPoint q : next) {
      picks.insert(picks.end(), nextPicks.begin() + q.origin * (width + 1),
                   nextPicks.begin() + (q.origin + 1) * (width + 1));
      q.origin = uint32_t(points.size());
      points.push_back(q);
    }
    ++width;
    return work;
  }
  const int32_t *picksOf(size_t point) const {
    return picks.data() + point * width;
  }
};

/// Exact minimization of the time within the bytes bound, by variable
/// elimination whose table entries are Pareto frontiers: per assignment of
/// a table's scope, every (time, bytes) no other completion beats in both,
/// within the bound. Exact where the Lagrangian weights leave a gap (a plan
/// the bound forbids is cheaper than every plan it allows), as long as the
/// frontiers stay small: nullopt past `maxWork` points combined, or when
/// the model must relax a demand (then the branch and bound and CBC decide).
std::optional<AssignmentSolution> eliminateWithinBound(const AssignmentProblem &p,
                                                       size_t maxEntries,
                                                       double maxWork) {
  // Every shared target split (exact); the work limit bounds the tables.
  std::optional<FactorModel> model =
      buildFactors(p, maxEntries, maxWork, 0, std::numeric_limits<size_t>::max());
  if (!model || model->relaxed)
    return std::nullopt;
  constexpr double kEps = 1e-9;
  const double limit = p.bytesLimit * (1 + kEps) + kEps;
  std::vector<size_t> &domain = model->domain;
  size_t numModel = model->factors.size();
  double work = model->work;
  struct Frontiers {
    std::vector<int> scope;
    std::vector<size_t> stride;
    std::vector<std::vector<FrontierPoint>> entries;
    std::vector<int32_t> origin;
    size_t index(const std::vector<int> &choice) const {
      size_t i = 0;
      for (size_t k = 0; k < scope.size(); ++k)
        i += size_t(choice[scope[k]]) * stride[k];
      return i;
    }
  };
  std::vector<Frontiers> tables;
  for (Factor &f : model->factors) {
    Frontiers t{f.scope, f.stride, {}, {}};
    t.entries.resize(f.time.size());
    for (size_t i = 0; i < f.time.size(); ++i)
      if (isLegal(f.time[i]) && f.bytes[i] <= limit)
        t.entries[i].push_back({f.time[i], f.bytes[i], 0});
    tables.push_back(std::move(t));
  }
  model->factors.clear();
  std::vector<int> choice(domain.size(), 0);
  struct Step {
    int node;
    std::vector<int> used;
  };
  std::vector<Step> steps;
  // The table each step made (-1: a model table).
  std::vector<int> madeBy(numModel, -1);
  {
    std::vector<Factor> scopesOnly;
    for (const Frontiers &t : tables)
      scopesOnly.push_back(Factor{t.scope, t.stride, {}, {}});
    EliminationOrder order(domain, scopesOnly);
    int best;
    std::vector<int> used, scope;
    // The sums built so far for one option: points, and per point the
    // points taken from the tables consumed so far.
    FrontierSum sum;
    while (order.next(best, used, scope)) {
      std::optional<Factor> shape = makeFactor(domain, scope, maxEntries);
      if (!shape)
        return std::nullopt;
      Frontiers g{shape->scope, shape->stride, {}, {}};
      g.entries.resize(shape->time.size());
      bool over = false;
      forEachAssignment(domain, g.scope, choice, [&](size_t i) {
        if (over)
          return;
        std::vector<FrontierPoint> &out = g.entries[i];
        for (size_t o = 0; o < domain[best]; ++o) {
          choice[best] = int(o);
          sum.reset();
          for (int f : used) {
            work += sum.add(tables[f].entries[tables[f].index(choice)], limit);
            if (work > maxWork) {
              over = true;
              return;
            }
            if (sum.points.empty())
              break;
          }
          if (sum.width < used.size())
            continue;
          for (size_t a = 0; a < sum.points.size(); ++a) {
            out.push_back({sum.points[a].time, sum.points[a].bytes,
                           uint32_t(g.origin.size())});
            g.origin.push_back(int32_t(o));
            g.origin.insert(g.origin.end(), sum.picksOf(a),
                            sum.picksOf(a) + sum.width);
          }
        }
        prune(out);
      });
      if (over)
        return std::nullopt;
      choice[best] = 0;
      order.added(g.scope);
      madeBy.push_back(int(steps.size()));
      tables.push_back(std::move(g));
      steps.push_back({best, used});
    }
  }
  // What is left: tables over no node (one entry each). Their sum's fastest
  // point within the bound is the optimum.
  std::vector<int> roots;
  {
    std::vector<char> consumed(tables.size(), 0);
    for (const Step &s : steps)
      for (int f : s.used)
        consumed[f] = 1;
    for (size_t f = 0; f < tables.size(); ++f)
      if (!consumed[f])
        roots.push_back(int(f));
  }
  FrontierSum total;
  total.reset();
  for (int f : roots)
    total.add(tables[f].entries[0], limit);
  AssignmentSolution out;
  if (total.points.empty()) {
    // Nothing legal within the bound.
    out.value.time = AssignmentProblem::kInfinity;
    return out;
  }
  // The points are sorted by time: the first is the fastest.
  // Back: a point of a made table names its node's option and the points of
  // the tables it consumed, read at the nodes chosen so far.
  std::function<void(int, const FrontierPoint &)> take =
      [&](int f, const FrontierPoint &q) {
    if (madeBy[f] < 0)
      return;
    const Step &s = steps[madeBy[f]];
    const int32_t *origin = &tables[f].origin[q.origin];
    choice[s.node] = origin[0];
    for (size_t u = 0; u < s.used.size(); ++u) {
      const Frontiers &t = tables[s.used[u]];
      take(s.used[u], t.entries[t.index(choice)][origin[1 + u]]);
    }
  };
  for (size_t r = 0; r < roots.size(); ++r)
    take(roots[r], tables[roots[r]].entries[0][total.picksOf(0)[r]]);
  choice.resize(model->numNodes);
  out.value = evaluateAssignment(p, choice);
  out.choice = std::move(choice);
  out.optimal = true;
  out.lowerBound = out.value.time;
  return out;
}

struct ModelDeleter {
  void operator()(Cbc_Model *m) const { Cbc_deleteModel(m); }
};

} // namespace

AssignmentValue mlir::dtensor::evaluateAssignment(const AssignmentProblem &p,
                                                  const std::vector<int> &choice) {
  AssignmentValue v;
  for (size_t n = 0; n < p.nodes.size(); ++n) {
    v.time += p.nodes[n].cost[choice[n]];
    v.bytes += p.nodes[n].bytes[choice[n]];
  }
  std::vector<char> needed;
  for (const auto &d : p.demands)
    forEachNeeded(d, choice, needed, [&](int a, size_t t) {
      v.time += d.cost[a][t];
      v.bytes += d.bytes[a][t];
    });
  return v;
}

std::optional<std::vector<int>>
mlir::dtensor::myopicAssignment(const AssignmentProblem &p,
                                const std::vector<int> &start,
                                const std::vector<bool> &decide) {
  size_t n = p.nodes.size();
  if (start.size() != n || decide.size() != n)
    return std::nullopt;
  // Per node, the demands it reads: (demand, the targets per option).
  std::vector<std::vector<std::pair<size_t, const std::vector<int> *>>> reads(n);
  for (size_t d = 0; d < p.demands.size(); ++d)
    for (const auto &[node, need] : p.demands[d].consumers)
      if (node >= 0 && size_t(node) < n)
        reads[node].push_back({d, &need});
  std::vector<int> choice = start;
  for (size_t k = 0; k < n; ++k) {
    if (!decide[k])
      continue;
    int best = -1;
    double bestMoves = 0, bestOwn = 0;
    for (size_t o = 0; o < p.nodes[k].cost.size(); ++o) {
      double own = p.nodes[k].cost[o];
      if (!isLegal(own))
        continue;
      double moves = 0;
      for (auto [d, need] : reads[k]) {
        int t = (*need)[o];
        if (t < 0)
          continue;
        const AssignmentProblem::Demand &demand = p.demands[d];
        int a = demand.producer < 0 ? 0 : choice[demand.producer];
        moves += demand.cost[a][t];
      }
      if (!isLegal(moves))
        continue;
      if (best < 0 || moves < bestMoves - 1e-12 ||
          (moves <= bestMoves + 1e-12 && own < bestOwn - 1e-12)) {
        best = int(o);
        bestMoves = moves;
        bestOwn = own;
      }
    }
    if (best < 0)
      return std::nullopt;
    choice[k] = best;
  }
  return choice;
}

std::optional<AssignmentSolution>
mlir::dtensor::solveAssignment(const AssignmentProblem &p,
                               const std::vector<int> &start, double seconds,
                               std::string &error, int64_t searchBudget,
                               int64_t eliminationWork) {
  if (!wellFormed(p, &start, error))
    return std::nullopt;
  AssignmentSolution incumbent{start, evaluateAssignment(p, start), false};
  if (p.nodes.empty()) {
    incumbent.optimal = true;
    incumbent.lowerBound = incumbent.value.time;
    return incumbent;
  }
  auto start_ = std::chrono::steady_clock::now();
  constexpr double kEps = 1e-9;
  // Exact where elimination keeps its tables small: the optimum without the
  // bytes bound is the optimum with it when it keeps the bound.
  auto within = [&](const AssignmentValue &v) {
    return v.bytes <= p.bytesLimit * (1 + kEps) + kEps;
  };
  // Each solution of the elimination at a weight lambda per byte, and the
  // model's minimum there (a lower bound of time + lambda * bytes over all
  // plans).
  struct Found {
    AssignmentSolution solution;
    double objective;
  };
  // The tables, built once for every weight (nullopt: too large).
  std::optional<std::optional<FactorModel>> built;
  auto solveAt = [&](double lambda) -> std::optional<Found> {
    if (!built)
      built = buildFactors(p, size_t(1) << 20, double(eliminationWork), 0);
    if (!*built)
      return std::nullopt;
    std::optional<Eliminated> e =
        eliminate(**built, size_t(1) << 20, double(eliminationWork), lambda);
    if (!e)
      return std::nullopt;
    AssignmentValue value = evaluateAssignment(p, e->choice);
    return Found{{std::move(e->choice), value, false}, e->objective};
  };
  std::optional<Found> free;
  if (eliminationWork > 0)
    free = solveAt(0);
  if (free) {
    // Every plan within the bytes bound takes at least `bound`.
    double bound = free->objective;
    auto proven = [&]() {
      return incumbent.value.time <=
             bound + kEps * std::max(1.0, std::fabs(bound));
    };
    // Within the relative gap of the bound: no search for what is left.
    auto closeEnough = [&]() {
      return incumbent.value.time <= bound + kRelativeGap * std::fabs(bound);
    };
    auto consider = [&](const AssignmentSolution &s) {
      if (within(s.value) && s.value.time < incumbent.value.time - kEps)
        incumbent = s;
    };
    consider(free->solution);
    if (proven()) {
      incumbent.optimal = true;
      incumbent.lowerBound = incumbent.value.time;
      return incumbent;
    }
    // The fastest plan breaks the bytes bound (or the model was relaxed
    // and its plan costs more than its bound): Lagrangian relaxation of
    // the bound. For a weight lambda per byte, the elimination's minimum L
    // of time + lambda * bytes gives every plan within the bound a time of
    // at least L - lambda * bound; plans found within the bound are
    // candidates. Weights are taken between one whose plan breaks the
    // bound and one whose plan keeps it (below); the best candidate is proven
    // optimal when it meets the best lower bound, else it is the start of
    // the other methods.
    if (!within(free->solution.value)) {
      // The weights: where the lines time + lambda * bytes of the best
      // known plan breaking the bound and of one keeping it cross (the
      // maximum of the lower envelope they make, as a cutting-plane method
      // takes it). The plan found there is a new line below both, which
      // replaces the one on its side of the bound; or it is not, and the
      // bound is the best the weights can give (the dual optimum).
      double tLo = free->solution.value.time, bLo = free->solution.value.bytes;
      bool haveHi = isLegal(incumbent.value.time);
      double tHi = incumbent.value.time, bHi = incumbent.value.bytes;
      double lambda = 0;
      for (int iteration = 0; iteration < 16; ++iteration) {
        if (seconds > 0 && std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - start_)
                                   .count() > seconds)
          break;
        lambda = haveHi ? std::max((tHi - tLo) / std::max(bLo - bHi, 1.0), 1e-12)
                 : lambda > 0 ? lambda * 4
                              : std::max(tLo, 1.0) /
                                    std::max(bLo - p.bytesLimit, 1.0);
        std::optional<Found> s = solveAt(lambda);
        if (!s)
          break;
        bound = std::max(bound, s->objective - lambda * p.bytesLimit);
        consider(s->solution);
        if (proven()) {
          incumbent.optimal = true;
          incumbent.lowerBound = incumbent.value.time;
          return incumbent;
        }
        const AssignmentValue &v = s->solution.value;
        if (haveHi) {
          double envelope = std::min(tLo + lambda * bLo, tHi + lambda * bHi);
          if (!(s->objective <
                envelope - kEps * std::max(1.0, std::fabs(envelope))))
            break;
        }
        if (within(v)) {
          haveHi = true;
          tHi = v.time;
          bHi = v.bytes;
        } else {
          tLo = v.time;
          bLo = v.bytes;
        }
      }
    }
    if (closeEnough()) {
      incumbent.lowerBound = bound;
      return incumbent;
    }
    // The gap the weights leave (a plan the bound forbids is cheaper than
    // every plan it allows, at every weight): the frontiers close it where
    // they stay small.
    if (std::optional<AssignmentSolution> exact = eliminateWithinBound(
            p, size_t(1) << 20, double(eliminationWork) / 8)) {
      if (isLegal(exact->value.time) && within(exact->value)) {
        consider(*exact);
        incumbent.optimal = true;
        incumbent.lowerBound = incumbent.value.time;
        return incumbent;
      }
    }
  }
  if (std::optional<AssignmentSolution> found =
          branchAndBound(p, incumbent, searchBudget, seconds))
    return found;
  // Without a time limit the branch and bound alone decides: the start.
  if (!(seconds > 0))
    return incumbent;
  // Building the model counts against the limit too (CBC adds rows one at a
  // time, quadratic on problems of thousands of rows): past it, the start.
  auto left = [&]() {
    return seconds - std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start_).count();
  };
  bool late = false;

  std::unique_ptr<Cbc_Model, ModelDeleter> model(Cbc_newModel());
  Cbc_Model *m = model.get();
  Cbc_setLogLevel(m, 0);
  int columns = 0;
  auto addColumn = [&](double lb, double ub, double obj, bool integer) {
    Cbc_addCol(m, "", lb, ub, obj, integer ? 1 : 0, 0, nullptr, nullptr);
    return columns++;
  };
  // Rows: sum(coef * col) in [lb, ub].
  auto addRow = [&](std::vector<int> cols, std::vector<double> coefs, char sense,
                    double rhs) {
    if (late || (late = left() < 0))
      return;
    Cbc_addRow(m, "", int(cols.size()), cols.data(), coefs.data(), sense, rhs);
  };
  std::vector<int> bytesCols;
  std::vector<double> bytesCoefs;

  // x: one binary per option; exactly one per node.
  std::vector<std::vector<int>> x(p.nodes.size());
  for (size_t n = 0; n < p.nodes.size(); ++n) {
    const auto &node = p.nodes[n];
    std::vector<double> ones;
    for (size_t o = 0; o < node.cost.size(); ++o) {
      bool legal = isLegal(node.cost[o]);
      int c = addColumn(0, legal ? 1 : 0, legal ? node.cost[o] : 0, true);
      x[n].push_back(c);
      ones.push_back(1);
      if (legal && node.bytes[o] != 0) {
        bytesCols.push_back(c);
        bytesCoefs.push_back(node.bytes[o]);
      }
    }
    addRow(x[n], ones, 'E', 1);
  }

  for (const auto &d : p.demands) {
    size_t rows = d.cost.size();
    size_t targets = rows ? d.cost[0].size() : 0;
    // Producer options whose moves cost alike to every target.
    std::vector<std::vector<int>> groups;
    for (size_t a = 0; a < rows && d.producer >= 0; ++a) {
      auto same = std::find_if(groups.begin(), groups.end(),
                               [&](const std::vector<int> &g) {
                                 return d.cost[g[0]] == d.cost[a] &&
                                        d.bytes[g[0]] == d.bytes[a];
                               });
      if (same == groups.end())
        groups.push_back({int(a)});
      else
        same->push_back(int(a));
    }
    // y[t]: the value is moved to target t.
    std::vector<int> y(targets, -1);
    for (size_t t = 0; t < targets; ++t) {
      bool used = false;
      for (const auto &[node, need] : d.consumers)
        used |= std::find(need.begin(), need.end(), int(t)) != need.end();
      if (!used)
        continue;
      if (d.producer < 0) {
        // A fixed state: the move's price sits on y itself.
        bool legal = isLegal(d.cost[0][t]);
        y[t] = addColumn(0, legal ? 1 : 0, legal ? d.cost[0][t] : 0, false);
        if (legal && d.bytes[0][t] != 0) {
          bytesCols.push_back(y[t]);
          bytesCoefs.push_back(d.bytes[0][t]);
        }
      } else {
        y[t] = addColumn(0, 1, 0, false);
      }
      // y[t] >= the consumer's options that need t (their sum: one row per
      // consumer, tighter than one per option).
      for (const auto &[node, need] : d.consumers) {
        std::vector<int> cols{y[t]};
        std::vector<double> coefs{1};
        for (size_t o = 0; o < need.size(); ++o)
          if (need[o] == int(t)) {
            cols.push_back(x[node][o]);
            coefs.push_back(-1);
          }
        if (cols.size() > 1)
          addRow(cols, coefs, 'G', 0);
      }
      if (d.producer < 0)
        continue;
      // w[g] <= the x of group g's options, sum_g w[g] = y[t]: the move to
      // t is made from the state the producer's option gives (producer
      // options that move alike form one group, so the program grows with
      // the states, not the strategies). An illegal move has no w, so an
      // option it would start from leaves t unreachable. Tighter than the
      // product z >= x + y - 1: the relaxation routes y through the options
      // x allows.
      std::vector<int> cover{y[t]};
      std::vector<double> coefs{-1};
      for (const std::vector<int> &group : groups) {
        double price = d.cost[group[0]][t], bytes = d.bytes[group[0]][t];
        if (!isLegal(price))
          continue;
        int w = addColumn(0, 1, price, false);
        std::vector<int> cols{w};
        std::vector<double> ws{1};
        for (int a : group) {
          cols.push_back(x[d.producer][a]);
          ws.push_back(-1);
        }
        addRow(cols, ws, 'L', 0);
        cover.push_back(w);
        coefs.push_back(1);
        if (bytes != 0) {
          bytesCols.push_back(w);
          bytesCoefs.push_back(bytes);
        }
      }
      addRow(cover, coefs, 'E', 0);
    }
  }
  if (std::isfinite(p.bytesLimit) && !bytesCols.empty())
    addRow(bytesCols, bytesCoefs, 'L', p.bytesLimit);

  // No MIP start: CBC completes a given start with a small branch and bound
  // of its own, which measured slower than solving from scratch (0.42 of
  // 0.55 s on a 2-op problem); the start is the answer when nothing better
  // is found.
  if (late || left() <= 0)
    return incumbent;
  Cbc_setMaximumSeconds(m, left());
  Cbc_setMaximumNodes(m, 1000);
  Cbc_setParameter(m, "threads", "1");
  int status = Cbc_solve(m);
  const double *sol = Cbc_getColSolution(m);
  if (status < 0 || !sol) {
    error = "the integer program solver failed (status " +
            std::to_string(status) + ")";
    return std::nullopt;
  }
  bool proven = Cbc_isProvenOptimal(m);
  std::vector<int> choice(p.nodes.size(), -1);
  bool complete = true;
  for (size_t n = 0; n < p.nodes.size(); ++n) {
    for (size_t o = 0; o < x[n].size(); ++o)
      if (sol[x[n][o]] > 0.5)
        choice[n] = int(o);
    complete &= choice[n] >= 0;
  }
  if (!complete) {
    // No integer solution (infeasible, or none found in time): the start.
    incumbent.optimal = Cbc_isProvenInfeasible(m) ? false : proven;
    return incumbent;
  }
  AssignmentValue value = evaluateAssignment(p, choice);
  if (!(value.time < incumbent.value.time - kEps) ||
      value.bytes > p.bytesLimit * (1 + kEps) + kEps) {
    incumbent.optimal = proven;
    if (proven)
      incumbent.lowerBound = incumbent.value.time;
    return incumbent;
  }
  return AssignmentSolution{std::move(choice), value, proven,
                            proven ? value.time : -AssignmentProblem::kInfinity};
}
