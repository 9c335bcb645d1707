//===- Assignment.cpp - whole-function choice of strategies ---------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Assignment.h"

#include <Cbc_C_Interface.h>

#include <cmath>
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
                               std::string &error) {
  if (!wellFormed(p, &start, error))
    return std::nullopt;
  AssignmentSolution incumbent{start, evaluateAssignment(p, start), false};
  if (p.nodes.empty()) {
    incumbent.optimal = true;
    return incumbent;
  }

  std::unique_ptr<Cbc_Model, ModelDeleter> model(Cbc_newModel());
  Cbc_Model *m = model.get();
  Cbc_setLogLevel(m, 0);
  int columns = 0;
  // The starting point, column by column (y and z follow from x).
  std::vector<double> startValue;
  auto addColumn = [&](double lb, double ub, double obj, bool integer,
                       double value) {
    Cbc_addCol(m, "", lb, ub, obj, integer ? 1 : 0, 0, nullptr, nullptr);
    startValue.push_back(value);
    return columns++;
  };
  // Rows: sum(coef * col) in [lb, ub].
  auto addRow = [&](std::vector<int> cols, std::vector<double> coefs, char sense,
                    double rhs) {
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
      int c = addColumn(0, legal ? 1 : 0, legal ? node.cost[o] : 0, true,
                        start[n] == int(o) ? 1 : 0);
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
    int a0 = d.producer < 0 ? 0 : start[d.producer];
    // y[t]: the value is moved to target t.
    std::vector<int> y(targets, -1);
    for (size_t t = 0; t < targets; ++t) {
      bool used = false, neededAtStart = false;
      for (const auto &[node, need] : d.consumers)
        for (size_t o = 0; o < need.size(); ++o)
          if (need[o] == int(t)) {
            used = true;
            neededAtStart |= start[node] == int(o);
          }
      if (!used)
        continue;
      if (d.producer < 0) {
        // A fixed state: the move's price sits on y itself.
        bool legal = isLegal(d.cost[0][t]);
        y[t] = addColumn(0, legal ? 1 : 0, legal ? d.cost[0][t] : 0, false,
                         neededAtStart ? 1 : 0);
        if (legal && d.bytes[0][t] != 0) {
          bytesCols.push_back(y[t]);
          bytesCoefs.push_back(d.bytes[0][t]);
        }
      } else {
        y[t] = addColumn(0, 1, 0, false, neededAtStart ? 1 : 0);
      }
      for (const auto &[node, need] : d.consumers)
        for (size_t o = 0; o < need.size(); ++o)
          if (need[o] == int(t))
            addRow({y[t], x[node][o]}, {1, -1}, 'G', 0);
      if (d.producer < 0)
        continue;
      // w[a] <= x[a], sum_a w[a] = y[t]: the move to t is made from the
      // producer's option (an illegal move has no w, so a producer option
      // it would start from leaves t unreachable). Tighter than
      // z >= x + y - 1: the relaxation routes y through the options x
      // allows, so the solver's bounds are close to the optimum.
      std::vector<int> cover{y[t]};
      std::vector<double> coefs{-1};
      for (size_t a = 0; a < rows; ++a) {
        double price = d.cost[a][t], bytes = d.bytes[a][t];
        if (!isLegal(price))
          continue;
        int xa = x[d.producer][a];
        bool on = neededAtStart && int(a) == a0;
        int w = addColumn(0, 1, price, false, on ? 1 : 0);
        addRow({w, xa}, {1, -1}, 'L', 0);
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

  std::vector<int> all(columns);
  for (int c = 0; c < columns; ++c)
    all[c] = c;
  if (incumbent.value.time < AssignmentProblem::kInfinity &&
      incumbent.value.bytes <= p.bytesLimit)
    Cbc_setMIPStartI(m, columns, all.data(), startValue.data());
  Cbc_setMaximumSeconds(m, seconds);
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
