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
        int a = d.producer < 0 ? 0 : choice[d.producer];
        needed.assign(d.cost[a].size(), 0);
        for (const auto &[node, need] : d.consumers)
          if (need[choice[node]] >= 0)
            needed[need[choice[node]]] = 1;
        for (size_t target = 0; target < needed.size(); ++target)
          if (needed[target]) {
            t += d.cost[a][target];
            b += d.bytes[a][target];
          }
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
    return out;
  }
  return AssignmentSolution{best, {bestTime, bestBytes}, true};
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
  for (const auto &d : p.demands) {
    int a = d.producer < 0 ? 0 : choice[d.producer];
    std::vector<bool> needed(d.cost[a].size(), false);
    for (const auto &[node, need] : d.consumers)
      if (need[choice[node]] >= 0)
        needed[need[choice[node]]] = true;
    for (size_t t = 0; t < needed.size(); ++t)
      if (needed[t]) {
        v.time += d.cost[a][t];
        v.bytes += d.bytes[a][t];
      }
  }
  return v;
}

std::optional<AssignmentSolution>
mlir::dtensor::solveAssignment(const AssignmentProblem &p,
                               const std::vector<int> &start, double seconds,
                               std::string &error, int64_t searchBudget) {
  if (!wellFormed(p, &start, error))
    return std::nullopt;
  AssignmentSolution incumbent{start, evaluateAssignment(p, start), false};
  if (p.nodes.empty()) {
    incumbent.optimal = true;
    return incumbent;
  }
  auto start_ = std::chrono::steady_clock::now();
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
  constexpr double kEps = 1e-9;
  if (!(value.time < incumbent.value.time - kEps) ||
      value.bytes > p.bytesLimit * (1 + kEps) + kEps) {
    incumbent.optimal = proven;
    return incumbent;
  }
  return AssignmentSolution{std::move(choice), value, proven};
}
