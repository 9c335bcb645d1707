//===- RedistributeTest.cpp - redistribution planner tests ----------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// The planner is checked three ways: exact plans for every single-dim
// transition kind; a reference executor that runs each plan's steps on real
// per-rank arrays cut by the layout core and compares with the target layout
// (including Partial terms and flattened groups); and brute-force
// enumeration of step sequences that no cheaper plan exists. Every plan is
// also compared with DTensor's greedy plan on collectives and bytes.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Layout.h"
#include "dtensor/Core/Placement.h"
#include "dtensor/Core/Redistribute.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <random>

using namespace mlir::dtensor;

namespace {

Placements parse(const std::string &text) {
  Placements ps;
  std::string error;
  EXPECT_TRUE(parsePlacements(text, ps, error)) << error;
  return ps;
}

RedistributeRequest request(Shape mesh, Shape shape, const std::string &from,
                            const std::string &to, int64_t elementBytes = 4) {
  return {std::move(mesh), std::move(shape), elementBytes, parse(from),
          parse(to)};
}

std::string kinds(const Plan &plan) {
  std::string s;
  for (const Step &st : plan.steps) {
    if (!s.empty())
      s += " ";
    s += stringifyStepKind(st.kind);
    s += "[";
    for (size_t i = 0; i < st.meshDims.size(); ++i)
      s += (i ? "," : "") + std::to_string(st.meshDims[i]);
    s += "]";
  }
  return s;
}

//===----------------------------------------------------------------------===//
// A reference executor over per-rank arrays
//===----------------------------------------------------------------------===//

struct Array {
  Shape shape;
  std::vector<double> data;

  int64_t size() const { return numel(shape); }
  static int64_t numel(const Shape &s) {
    int64_t n = 1;
    for (int64_t v : s)
      n *= v;
    return n;
  }
  /// Strides of a row-major layout.
  static Shape strides(const Shape &s) {
    Shape st(s.size(), 1);
    for (size_t i = s.size(); i-- > 1;)
      st[i - 1] = st[i] * s[i];
    return st;
  }
  Array slice(const Shape &offset, const Shape &sizes) const {
    Array out{sizes, std::vector<double>(numel(sizes))};
    Shape inStr = strides(shape), outStr = strides(sizes);
    for (int64_t i = 0; i < out.size(); ++i) {
      int64_t src = 0, rest = i;
      for (size_t d = 0; d < sizes.size(); ++d) {
        int64_t idx = rest / outStr[d];
        rest %= outStr[d];
        src += (idx + offset[d]) * inStr[d];
      }
      out.data[i] = data[src];
    }
    return out;
  }
  Array sliceDim(int64_t dim, int64_t start, int64_t size) const {
    Shape off(shape.size(), 0), sz = shape;
    off[dim] = start;
    sz[dim] = size;
    return slice(off, sz);
  }
  static Array concat(const std::vector<Array> &parts, int64_t dim) {
    Shape s = parts.front().shape;
    s[dim] = 0;
    for (const Array &p : parts)
      s[dim] += p.shape[dim];
    Array out{s, std::vector<double>(numel(s))};
    Shape outStr = strides(s);
    int64_t base = 0;
    for (const Array &p : parts) {
      Shape inStr = strides(p.shape);
      for (int64_t i = 0; i < p.size(); ++i) {
        int64_t dst = 0, rest = i;
        for (size_t d = 0; d < s.size(); ++d) {
          int64_t idx = rest / inStr[d];
          rest %= inStr[d];
          dst += (idx + (int64_t(d) == dim ? base : 0)) * outStr[d];
        }
        out.data[dst] = p.data[i];
      }
      base += p.shape[dim];
    }
    return out;
  }
  /// torch.chunk piece `index` of `parts` along `dim`.
  Array chunkDim(int64_t dim, int64_t parts, int64_t index) const {
    Chunk c = chunk(shape[dim], parts, index);
    return sliceDim(dim, c.size ? c.offset : shape[dim], c.size);
  }
};

double combine(ReduceKind k, double a, double b) {
  switch (k) {
  case ReduceKind::Sum:
  case ReduceKind::Avg:
    return a + b;
  case ReduceKind::Max:
    return std::max(a, b);
  case ReduceKind::Min:
    return std::min(a, b);
  case ReduceKind::Product:
    return a * b;
  }
  return 0;
}

Array reduceAll(const std::vector<Array> &terms, ReduceKind kind) {
  Array out = terms.front();
  for (size_t t = 1; t < terms.size(); ++t) {
    EXPECT_EQ(terms[t].shape, out.shape) << "Partial terms differ in shape";
    for (int64_t i = 0; i < out.size(); ++i)
      out.data[i] = combine(kind, out.data[i], terms[t].data[i]);
  }
  if (kind == ReduceKind::Avg)
    for (double &v : out.data)
      v /= double(terms.size());
  return out;
}

/// Each rank's local value of `global` under `ps`, with Partial dims turned
/// into terms whose reduction over each group is the shard.
std::vector<Array> distribute(const Shape &mesh, const Array &global,
                              const Placements &ps, std::mt19937 &rng) {
  std::string error;
  std::optional<Layout> layout =
      Layout::create(mesh, global.shape.size(), ps, error);
  EXPECT_TRUE(layout) << error;
  std::vector<Array> local(meshSize(mesh));
  for (int64_t r = 0; r < meshSize(mesh); ++r) {
    Shard s = layout->shardOf(global.shape, r);
    Shape off = s.offset;
    for (size_t d = 0; d < off.size(); ++d)
      if (s.shape[d] == 0)
        off[d] = 0;
    local[r] = global.slice(off, s.shape);
  }
  std::vector<int64_t> partialDims;
  std::optional<ReduceKind> kind;
  for (size_t m = 0; m < ps.size(); ++m)
    if (ps[m].isPartial()) {
      partialDims.push_back(m);
      kind = ps[m].reduce;
    }
  if (partialDims.empty())
    return local;
  std::uniform_int_distribution<int> small(1, 5);
  for (const std::vector<int64_t> &group : meshGroups(mesh, partialDims)) {
    Array value = local[group[0]];
    int64_t n = group.size();
    Array rest = value;
    std::fill(rest.data.begin(), rest.data.end(),
              *kind == ReduceKind::Product ? 1.0 : 0.0);
    for (int64_t i = 1; i < n; ++i) {
      Array &t = local[group[i]];
      for (int64_t e = 0; e < t.size(); ++e) {
        double v = value.data[e];
        switch (*kind) {
        case ReduceKind::Sum:
        case ReduceKind::Avg:
          t.data[e] = small(rng);
          rest.data[e] += t.data[e];
          break;
        case ReduceKind::Max:
          t.data[e] = v - small(rng);
          break;
        case ReduceKind::Min:
          t.data[e] = v + small(rng);
          break;
        case ReduceKind::Product:
          t.data[e] = small(rng) % 2 ? 1.0 : -1.0;
          rest.data[e] *= t.data[e];
          break;
        }
      }
    }
    Array &first = local[group[0]];
    for (int64_t e = 0; e < first.size(); ++e) {
      double v = value.data[e];
      switch (*kind) {
      case ReduceKind::Sum:
        first.data[e] = v - rest.data[e];
        break;
      case ReduceKind::Avg:
        first.data[e] = v * double(n) - rest.data[e];
        break;
      case ReduceKind::Max:
      case ReduceKind::Min:
        first.data[e] = v;
        break;
      case ReduceKind::Product:
        first.data[e] = v * rest.data[e]; // rest is +-1
        break;
      }
    }
  }
  return local;
}

/// Runs one step on every group.
void execute(const Shape &mesh, const Step &step, std::vector<Array> &local) {
  for (const std::vector<int64_t> &group : meshGroups(mesh, step.meshDims)) {
    int64_t n = group.size();
    std::vector<Array> in;
    for (int64_t r : group)
      in.push_back(local[r]);
    switch (step.kind) {
    case StepKind::AllGather: {
      Array out = Array::concat(in, step.fromDim);
      for (int64_t r : group)
        local[r] = out;
      break;
    }
    case StepKind::AllReduce: {
      Array out = reduceAll(in, step.reduce);
      for (int64_t r : group)
        local[r] = out;
      break;
    }
    case StepKind::ReduceScatter: {
      Array out = reduceAll(in, step.reduce);
      for (int64_t i = 0; i < n; ++i)
        local[group[i]] = out.chunkDim(step.toDim, n, i);
      break;
    }
    case StepKind::AllToAll:
      for (int64_t t = 0; t < n; ++t) {
        std::vector<Array> pieces;
        for (int64_t k = 0; k < n; ++k)
          pieces.push_back(in[k].chunkDim(step.toDim, n, t));
        local[group[t]] = Array::concat(pieces, step.fromDim);
      }
      break;
    case StepKind::LocalChunk:
      for (int64_t i = 0; i < n; ++i)
        local[group[i]] = in[i].chunkDim(step.toDim, n, i);
      break;
    case StepKind::LocalDivide:
      for (int64_t r : group)
        for (double &v : local[r].data)
          v /= double(n);
      break;
    case StepKind::LocalZeroPad:
      // Rank i's piece in place among zero pieces of the others' shapes.
      for (int64_t i = 0; i < n; ++i) {
        std::vector<Array> pieces;
        for (int64_t k = 0; k < n; ++k)
          pieces.push_back(
              k == i ? in[k]
                     : Array{in[k].shape, std::vector<double>(
                                              in[k].data.size(), 0.0)});
        local[group[i]] = Array::concat(pieces, step.fromDim);
      }
      break;
    case StepKind::LocalNoop:
      break;
    }
  }
}

/// Runs `plan` on random data laid out as `req.from` and checks every rank
/// against `req.to`.
void checkPlanComputes(const RedistributeRequest &req, const Plan &plan,
                       std::mt19937 &rng) {
  Array global{req.shape, std::vector<double>(Array::numel(req.shape))};
  std::uniform_int_distribution<int> value(-9, 9);
  for (double &v : global.data) {
    v = value(rng);
    if (v == 0)
      v = 1; // keeps products invertible
  }
  std::vector<Array> local = distribute(req.mesh, global, req.from, rng);
  for (const Step &step : plan.steps)
    execute(req.mesh, step, local);
  std::mt19937 unused(0);
  std::vector<Array> expected = distribute(req.mesh, global, req.to, unused);
  std::vector<int64_t> partialDims;
  std::optional<ReduceKind> kind;
  for (size_t m = 0; m < req.to.size(); ++m)
    if (req.to[m].isPartial()) {
      partialDims.push_back(m);
      kind = req.to[m].reduce;
    }
  // Reduce Partial terms before comparing: the logical value is what counts.
  if (!partialDims.empty())
    for (const std::vector<int64_t> &group :
         meshGroups(req.mesh, partialDims)) {
      std::vector<Array> terms, wanted;
      for (int64_t r : group) {
        terms.push_back(local[r]);
        wanted.push_back(expected[r]);
      }
      Array got = reduceAll(terms, *kind);
      for (int64_t r : group) {
        local[r] = got;
        expected[r] = expected[group[0]];
      }
      // expected[group[0]] holds the shard itself (term 0 = value when
      // distributed with max/min; rebuild it from the reduction instead).
      Array want = reduceAll(wanted, *kind);
      for (int64_t r : group)
        expected[r] = want;
    }
  for (int64_t r = 0; r < meshSize(req.mesh); ++r) {
    ASSERT_EQ(local[r].shape, expected[r].shape)
        << "rank " << r << " of " << formatPlacements(req.from) << " -> "
        << formatPlacements(req.to) << " via " << kinds(plan);
    for (int64_t i = 0; i < local[r].size(); ++i)
      ASSERT_NEAR(local[r].data[i], expected[r].data[i], 1e-9)
          << "rank " << r << " element " << i << " of "
          << formatPlacements(req.from) << " -> " << formatPlacements(req.to)
          << " via " << kinds(plan);
  }
}

//===----------------------------------------------------------------------===//
// Enumerating specs
//===----------------------------------------------------------------------===//

bool legalPair(const Placements &from, const Placements &to) {
  for (size_t m = 0; m < from.size(); ++m)
    if (!transitionError(from[m], to[m]).empty())
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Single-dim transitions
//===----------------------------------------------------------------------===//

TEST(Planner, EverySingleDimTransitionKind) {
  CostModel cost;
  std::string error;
  struct Case {
    std::string from, to, plan;
  } cases[] = {
      {"[S(0)]", "[R]", "all_gather[0]"},
      {"[P(sum)]", "[R]", "all_reduce[0]"},
      {"[P(avg)]", "[S(1)]", "reduce_scatter[0]"},
      {"[S(0)]", "[S(1)]", "all_to_all[0]"},
      {"[R]", "[S(1)]", "local[0]"},
      {"[R]", "[P(sum)]", "local[0]"},
      {"[R]", "[P(max)]", "local[0]"},
      {"[S(0)]", "[S(0)]", ""},
  };
  for (const Case &c : cases) {
    std::optional<Plan> plan =
        planRedistribute(request({4}, {8, 8}, c.from, c.to), cost, error);
    ASSERT_TRUE(plan) << c.from << " -> " << c.to << ": " << error;
    EXPECT_EQ(kinds(*plan), c.plan) << c.from << " -> " << c.to;
  }
  // Kinds of local steps and the bytes of each collective (f32, 8x8 on 4).
  std::optional<Plan> p =
      planRedistribute(request({4}, {8, 8}, "[R]", "[P(sum)]"), cost, error);
  EXPECT_EQ(p->steps[0].kind, StepKind::LocalDivide);
  p = planRedistribute(request({4}, {8, 8}, "[R]", "[P(max)]"), cost, error);
  EXPECT_EQ(p->steps[0].kind, StepKind::LocalNoop);
  p = planRedistribute(request({4}, {8, 8}, "[S(0)]", "[R]"), cost, error);
  EXPECT_EQ(p->steps[0].bytesPerRank, 8 * 8 * 4); // gathered output
  EXPECT_EQ(p->steps[0].logicalShape, (Shape{8, 8}));
  p = planRedistribute(request({4}, {8, 8}, "[P(sum)]", "[S(0)]"), cost,
                       error);
  EXPECT_EQ(p->steps[0].bytesPerRank, 8 * 8 * 4); // unscattered input
  p = planRedistribute(request({4}, {8, 8}, "[S(0)]", "[S(1)]"), cost, error);
  EXPECT_EQ(p->steps[0].bytesPerRank, 2 * 8 * 4);
  p = planRedistribute(request({4}, {8, 8}, "[P(min)]", "[R]"), cost, error);
  EXPECT_EQ(p->steps[0].reduce, ReduceKind::Min);
  EXPECT_EQ(p->steps[0].bytesPerRank, 8 * 8 * 4);
}

TEST(Planner, IllegalTransitionsAreErrors) {
  CostModel cost;
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"[S(0)]", "[P(sum)]"},
           {"[P(sum)]", "[P(max)]"},
           {"[R]", "[P(product)]"},
           {"[S(0), R]", "[R, S(5)]"},
           {"[S(0)]", "[R, R]"}}) {
    std::string error;
    EXPECT_FALSE(planRedistribute(request({2, 2}, {8, 8}, from, to), cost,
                                  error))
        << from << " -> " << to;
    EXPECT_FALSE(error.empty());
  }
}

TEST(Planner, SizeOneMeshDimsMoveNothing) {
  CostModel cost;
  std::string error;
  std::optional<Plan> plan = planRedistribute(
      request({1, 4}, {8, 8}, "[S(0), P(sum)]", "[S(1), R]"), cost, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->numCollectives(), 1);
  EXPECT_EQ(plan->counts(), (std::map<std::string, int64_t>{{"all_reduce", 1}}));
}

TEST(Planner, IssueExample) {
  // [S(0), S(1)] -> [S(1), S(0)] on 2x2, 8x8 f32: one all_gather of 128
  // bytes and one all_to_all of 128 bytes, as DTensor's greedy plan.
  CostModel cost;
  std::string error;
  RedistributeRequest req =
      request({2, 2}, {8, 8}, "[S(0), S(1)]", "[S(1), S(0)]");
  std::optional<Plan> plan = planRedistribute(req, cost, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->counts(), (std::map<std::string, int64_t>{
                                {"all_gather", 1}, {"all_to_all", 1}}));
  EXPECT_EQ(plan->bytesPerRank(), 256);
  std::optional<Plan> greedy = planGreedy(req, cost, error);
  ASSERT_TRUE(greedy) << error;
  EXPECT_EQ(kinds(*greedy), "all_gather[1] all_to_all[0] local[1]");
  EXPECT_EQ(greedy->bytesPerRank(), 256);
}

TEST(Planner, MergesGroupsOnlyWhenExact) {
  CostModel cost;
  std::string error;
  // Even: one all_gather over the flattened (0, 1) group.
  std::optional<Plan> plan = planRedistribute(
      request({2, 2}, {8, 4}, "[S(0), S(0)]", "[R, R]"), cost, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(kinds(*plan), "all_gather[0,1]");
  // Uneven (9 rows): pieces differ, so two steps, innermost first.
  plan = planRedistribute(request({2, 2}, {9, 4}, "[S(0), S(0)]", "[R, R]"),
                          cost, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(kinds(*plan), "all_gather[1] all_gather[0]");
  // A non-default order gathers in its own order.
  plan = planRedistribute(
      request({2, 2}, {8, 4}, "[S(0)[1], S(0)[0]]", "[R, R]"), cost, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(kinds(*plan), "all_gather[1,0]");
  // Partial sums over both dims: one all_reduce; reduce_scatter onto an
  // evenly divisible dim: one reduce_scatter.
  plan = planRedistribute(
      request({2, 2}, {8, 4}, "[P(sum), P(sum)]", "[R, R]"), cost, error);
  EXPECT_EQ(kinds(*plan), "all_reduce[0,1]");
  plan = planRedistribute(
      request({2, 2}, {8, 4}, "[P(sum), P(sum)]", "[S(0), S(0)]"), cost,
      error);
  EXPECT_EQ(kinds(*plan), "reduce_scatter[0,1]");
  // 7 rows do not split evenly over 4: no merged reduce_scatter. One
  // all_reduce over both dims and local chunks beats two reduce_scatters
  // (fewer collectives, fewer bytes, less time).
  plan = planRedistribute(
      request({2, 2}, {7, 4}, "[P(sum), P(sum)]", "[S(0), S(0)]"), cost,
      error);
  EXPECT_EQ(kinds(*plan), "all_reduce[0,1] local[0] local[1]");
  // Without merging, one collective per mesh dim.
  PlanOptions single;
  single.mergeGroups = false;
  plan = planRedistribute(request({2, 2}, {8, 4}, "[S(0), S(0)]", "[R, R]"),
                          cost, error, single);
  EXPECT_EQ(kinds(*plan), "all_gather[1] all_gather[0]");
}

TEST(Planner, NestedOrdersUnshardInnermostFirst) {
  CostModel cost;
  std::string error;
  // [S(0), S(0)] -> [R, S(0)]: mesh dim 0 is outer, so DTensor (and we) must
  // gather mesh dim 1 first, then reshard; a lone gather on mesh dim 0 would
  // leave strided rows.
  RedistributeRequest req =
      request({2, 2}, {9, 4}, "[S(0), S(0)]", "[R, S(0)]");
  std::optional<Plan> plan = planRedistribute(req, cost, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->numCollectives(), 2);
  std::mt19937 rng(7);
  checkPlanComputes(req, *plan, rng);
  // The same data with mesh dim 1 applied first needs one all_gather.
  plan = planRedistribute(
      request({2, 2}, {9, 4}, "[S(0)[1], S(0)[0]]", "[R, S(0)]"), cost, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(kinds(*plan), "all_gather[0]");
}

TEST(Planner, DevicesPerHostMakesOuterDimsSlower) {
  CostModel cost;
  cost.devicesPerHost = 4;
  std::vector<LinkParams> links = cost.links({4, 4});
  EXPECT_EQ(links[1].latencyUs, cost.intraHostLatencyUs);
  EXPECT_EQ(links[0].latencyUs, cost.interHostLatencyUs);
  EXPECT_LT(links[0].bandwidthGBs, links[1].bandwidthGBs);
  // A collective over the outer dim costs more than over the inner one.
  std::string error;
  std::optional<Plan> outer = planRedistribute(
      request({4, 4}, {1024, 1024}, "[S(0), R]", "[R, R]"), cost, error);
  std::optional<Plan> inner = planRedistribute(
      request({4, 4}, {1024, 1024}, "[R, S(0)]", "[R, R]"), cost, error);
  EXPECT_GT(outer->timeUs(), inner->timeUs());
}

//===----------------------------------------------------------------------===//
// Properties over all placement pairs
//===----------------------------------------------------------------------===//

struct Sweep {
  Shape mesh;
  std::vector<Shape> shapes;
  bool withOrders;
  int64_t sampleEvery; // 1 = every pair
};

/// For every legal pair: a plan exists, its steps are legal moves, it
/// computes the target layout on real data, and it never uses more
/// collectives or bytes than DTensor's greedy plan.
void sweep(const Sweep &sw) {
  CostModel cost;
  std::mt19937 rng(1234);
  int64_t checked = 0, pairIndex = 0;
  for (const Shape &shape : sw.shapes) {
    for (ReduceKind partial : {ReduceKind::Sum, ReduceKind::Avg,
                               ReduceKind::Max, ReduceKind::Min,
                               ReduceKind::Product}) {
      std::vector<Placements> specs =
          enumeratePlacements(sw.mesh.size(), shape.size(), partial, sw.withOrders);
      for (const Placements &from : specs) {
        for (const Placements &to : specs) {
          if (!legalPair(from, to))
            continue;
          if (pairIndex++ % sw.sampleEvery)
            continue;
          RedistributeRequest req{sw.mesh, shape, 4, from, to};
          std::string error;
          std::optional<Plan> plan = planRedistribute(req, cost, error);
          ASSERT_TRUE(plan) << formatPlacements(from) << " -> "
                            << formatPlacements(to) << ": " << error;
          checkPlanComputes(req, *plan, rng);
          std::optional<Plan> greedy = planGreedy(req, cost, error);
          bool defaultOrders =
              std::none_of(from.begin(), from.end(),
                           [](const Placement &p) { return p.order >= 0; }) &&
              std::none_of(to.begin(), to.end(),
                           [](const Placement &p) { return p.order >= 0; });
          if (defaultOrders) {
            ASSERT_TRUE(greedy) << formatPlacements(from) << " -> "
                                << formatPlacements(to) << ": " << error;
            checkPlanComputes(req, *greedy, rng);
            EXPECT_LE(plan->numCollectives(), greedy->numCollectives())
                << formatPlacements(from) << " -> " << formatPlacements(to);
            EXPECT_LE(plan->bytesPerRank(), greedy->bytesPerRank())
                << formatPlacements(from) << " -> " << formatPlacements(to);
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

TEST(PlannerSweep, OneDimMeshes) {
  for (int64_t n : {2, 3, 4})
    sweep({{n}, {{1}, {5}, {8}, {3, 7}, {4, 4}}, true, 1});
}

TEST(PlannerSweep, TwoDimMeshes) {
  sweep({{2, 2}, {{9}, {8}, {1}, {5, 3}, {4, 6}}, true, 1});
  sweep({{2, 3}, {{7}, {6, 5}}, true, 1});
}

TEST(PlannerSweep, FourDimMeshesSampled) {
  sweep({{2, 2, 2, 2}, {{8, 4}, {5, 3}}, false, 997});
}

TEST(PlannerSweep, ThreeDimMeshesSampled) {
  sweep({{2, 2, 2}, {{8, 4}, {5, 3}}, true, 7});
  sweep({{2, 1, 3}, {{6}, {4, 5}}, true, 5});
}

//===----------------------------------------------------------------------===//
// Minimality by brute force
//===----------------------------------------------------------------------===//

/// The best (time, collectives, bytes) over every sequence of legal steps of
/// at most `depth` steps, within the greedy bound, by exhaustive search over
/// the unpruned move set.
std::optional<std::tuple<double, int64_t, int64_t>>
bruteForce(const RedistributeRequest &req, const CostModel &cost, int depth,
           std::optional<int64_t> maxCollectives,
           std::optional<int64_t> maxBytes) {
  // Unpruned; S(d) -> P(sum) is offered toward a Partial(sum) target only,
  // by the planner and here alike (as a detour elsewhere it can be cheaper:
  // not explored yet).
  PlanOptions all;
  all.prunePartials = false;
  std::optional<std::tuple<double, int64_t, int64_t>> best;
  int64_t rank = req.shape.size();
  std::function<void(const Placements &, int, double, int64_t, int64_t)> rec =
      [&](const Placements &state, int left, double t, int64_t c, int64_t b) {
        if ((maxCollectives && c > *maxCollectives) || (maxBytes && b > *maxBytes))
          return;
        if (best && t > std::get<0>(*best) + 1e-9)
          return;
        if (sameState(state, req.to, req.mesh, rank)) {
          auto here = std::make_tuple(t, c, b);
          if (!best || t < std::get<0>(*best) - 1e-9 ||
              (std::abs(t - std::get<0>(*best)) <= 1e-9 &&
               std::make_pair(c, b) <
                   std::make_pair(std::get<1>(*best), std::get<2>(*best))))
            best = here;
          return;
        }
        if (left == 0)
          return;
        for (const Step &s : legalSteps(req, cost, state, all))
          rec(s.after, left - 1, t + s.timeUs, c + isCollective(s.kind),
              b + s.bytesPerRank);
      };
  rec(req.from, depth, 0, 0, 0);
  return best;
}

TEST(PlannerMinimality, MatchesBruteForceOnSmallMeshes) {
  CostModel cost;
  int64_t compared = 0;
  for (Shape mesh : {Shape{2}, Shape{3}, Shape{2, 2}}) {
    for (Shape shape : {Shape{4, 6}, Shape{5, 3}}) {
      std::vector<Placements> specs =
          enumeratePlacements(mesh.size(), shape.size(), ReduceKind::Sum);
      for (const Placements &from : specs)
        for (const Placements &to : specs) {
          if (!legalPair(from, to))
            continue;
          RedistributeRequest req{mesh, shape, 4, from, to};
          std::string error;
          std::optional<Plan> plan = planRedistribute(req, cost, error);
          ASSERT_TRUE(plan) << error;
          std::optional<Plan> greedy = planGreedy(req, cost, error);
          std::optional<int64_t> maxC, maxB;
          if (greedy) {
            maxC = greedy->numCollectives();
            maxB = greedy->bytesPerRank();
          }
          int depth = mesh.size() == 1 ? 3 : 5;
          auto best = bruteForce(req, cost, depth, maxC, maxB);
          ASSERT_TRUE(best) << formatPlacements(from) << " -> "
                            << formatPlacements(to);
          EXPECT_NEAR(plan->timeUs(), std::get<0>(*best), 1e-6)
              << formatPlacements(from) << " -> " << formatPlacements(to)
              << " planned " << kinds(*plan);
          EXPECT_EQ(plan->numCollectives(), std::get<1>(*best))
              << formatPlacements(from) << " -> " << formatPlacements(to);
          EXPECT_EQ(plan->bytesPerRank(), std::get<2>(*best))
              << formatPlacements(from) << " -> " << formatPlacements(to);
          ++compared;
        }
    }
  }
  EXPECT_GT(compared, 100);
}

//===----------------------------------------------------------------------===//
// The lower bound (A*) finds plans exactly as cheap as plain cost order
//===----------------------------------------------------------------------===//

/// Plans every legal pair (every `sampleEvery`-th) both ways and expects the
/// same totals, and A*'s plan to compute the target.
void compareWithPlainOrder(const Shape &mesh, const Shape &shape,
                           bool withOrders, int64_t sampleEvery,
                           const CostModel &cost) {
  PlanOptions plain, astar;
  plain.lowerBound = false;
  plain.maxSearchSteps = 0;
  astar.plainSearchSteps = 0; // the lower bound from the first step
  astar.maxSearchSteps = 0;
  std::mt19937 rng(7);
  int64_t compared = 0, index = 0;
  for (ReduceKind partial : {ReduceKind::Sum, ReduceKind::Max}) {
    std::vector<Placements> specs =
        enumeratePlacements(mesh.size(), shape.size(), partial, withOrders);
    for (const Placements &from : specs)
      for (const Placements &to : specs) {
        if (!legalPair(from, to) || index++ % sampleEvery)
          continue;
        RedistributeRequest req{mesh, shape, 4, from, to};
        std::string error;
        std::optional<Plan> a = planRedistribute(req, cost, error, plain);
        ASSERT_TRUE(a) << error;
        std::optional<Plan> b = planRedistribute(req, cost, error, astar);
        ASSERT_TRUE(b) << error;
        ASSERT_TRUE(a->optimal && b->optimal);
        std::string what = formatPlacements(from) + " -> " +
                           formatPlacements(to) + ": plain " + kinds(*a) +
                           ", A* " + kinds(*b);
        EXPECT_NEAR(a->timeUs(), b->timeUs(), 1e-6) << what;
        EXPECT_EQ(a->numCollectives(), b->numCollectives()) << what;
        EXPECT_EQ(a->bytesPerRank(), b->bytesPerRank()) << what;
        checkPlanComputes(req, *b, rng);
        ++compared;
      }
  }
  EXPECT_GT(compared, 10);
}

TEST(PlannerLowerBound, SameCostsAsPlainOrder) {
  CostModel cost;
  compareWithPlainOrder({4}, {9, 2}, true, 1, cost);
  compareWithPlainOrder({2, 2}, {9, 5}, true, 1, cost);
  compareWithPlainOrder({2, 3}, {6, 7}, true, 1, cost);
  compareWithPlainOrder({2, 1, 3}, {4, 5}, true, 3, cost);
  compareWithPlainOrder({2, 2, 2}, {8, 3}, true, 11, cost);
  compareWithPlainOrder({2, 2, 2, 2}, {8, 4}, false, 101, cost);
  // Inter-host links on the outer dims make the bound's fastest link matter.
  CostModel hosts;
  hosts.devicesPerHost = 2;
  compareWithPlainOrder({2, 2, 2}, {16, 5}, false, 3, hosts);
}

//===----------------------------------------------------------------------===//
// A bounded search (issue 10): never a hang, never worse than greedy
//===----------------------------------------------------------------------===//

/// A 6-D case that takes plain cost order millions of priced steps.
RedistributeRequest sixDimRequest() {
  return request({2, 2, 2, 2, 2, 2}, {8, 8, 8},
                 "[P(sum), P(sum), P(sum), P(sum), P(sum), P(sum)]",
                 "[S(0), S(1), S(2), S(0), S(1), S(2)]");
}

TEST(PlannerBudget, StopsAtTheStepLimitWithALegalPlanNoWorseThanGreedy) {
  CostModel cost;
  RedistributeRequest req = sixDimRequest();
  std::string error;
  std::optional<Plan> greedy = planGreedy(req, cost, error);
  ASSERT_TRUE(greedy) << error;
  std::mt19937 rng(3);
  for (int64_t limit : {1, 100, 5000, 30000}) {
    PlanOptions options;
    options.maxSearchSteps = limit;
    std::optional<Plan> plan = planRedistribute(req, cost, error, options);
    ASSERT_TRUE(plan) << error;
    EXPECT_FALSE(plan->optimal) << "limit " << limit;
    EXPECT_NE(plan->note.find("may not be optimal"), std::string::npos)
        << plan->note;
    // One expansion checks the budget between mesh dims: a few steps over.
    EXPECT_LE(plan->searchedSteps, limit + 16);
    EXPECT_LE(plan->numCollectives(), greedy->numCollectives());
    EXPECT_LE(plan->bytesPerRank(), greedy->bytesPerRank());
    EXPECT_LE(plan->timeUs(), greedy->timeUs() + 1e-9);
    checkPlanComputes(req, *plan, rng);
  }
  // Unbounded, the search proves a cheaper plan than greedy's.
  PlanOptions unbounded;
  unbounded.maxSearchSteps = 0;
  std::optional<Plan> best = planRedistribute(req, cost, error, unbounded);
  ASSERT_TRUE(best) << error;
  EXPECT_TRUE(best->optimal);
  EXPECT_TRUE(best->note.empty());
  EXPECT_LT(best->timeUs(), greedy->timeUs());
  checkPlanComputes(req, *best, rng);
}

TEST(PlannerBudget, KeepsTheBestCompletePlanItFound) {
  // Plain order only, stopped late: some complete plans have been seen, and
  // the best of them beats greedy's.
  CostModel cost;
  RedistributeRequest req = request({2, 2, 2, 2, 2, 2}, {64, 64, 64},
                                    "[S(0), S(1), S(2), P(sum), S(0), R]",
                                    "[R, S(0), S(2), S(1), R, S(0)]");
  std::string error;
  std::optional<Plan> greedy = planGreedy(req, cost, error);
  ASSERT_TRUE(greedy) << error;
  PlanOptions options;
  options.lowerBound = false;
  options.maxSearchSteps = 400000;
  std::optional<Plan> plan = planRedistribute(req, cost, error, options);
  ASSERT_TRUE(plan) << error;
  EXPECT_FALSE(plan->optimal);
  EXPECT_EQ(plan->note.find("greedy"), std::string::npos) << plan->note;
  EXPECT_LT(plan->timeUs(), greedy->timeUs());
  EXPECT_LE(plan->numCollectives(), greedy->numCollectives());
  EXPECT_LE(plan->bytesPerRank(), greedy->bytesPerRank());
}

TEST(PlannerBudget, TimeBudgetEndsALargeSearch) {
  // 8-D: the complete search takes minutes and gigabytes; 50 ms it is.
  CostModel cost;
  RedistributeRequest req =
      request({2, 2, 2, 2, 2, 2, 2, 2}, {60, 60, 60},
              "[S(0), S(0), S(1), S(1), S(2), S(2), R, R]",
              "[S(2), S(1), S(0), S(2), S(1), S(0), S(1), S(0)]");
  PlanOptions options;
  options.maxSearchSteps = 0;
  options.searchTimeMs = 50;
  std::string error;
  auto start = std::chrono::steady_clock::now();
  std::optional<Plan> plan = planRedistribute(req, cost, error, options);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_TRUE(plan) << error;
  EXPECT_FALSE(plan->optimal);
  EXPECT_NE(plan->note.find("time budget"), std::string::npos) << plan->note;
  EXPECT_LT(seconds, 20) << "the budget was not honoured";
  std::optional<Plan> greedy = planGreedy(req, cost, error);
  ASSERT_TRUE(greedy) << error;
  EXPECT_LE(plan->timeUs(), greedy->timeUs() + 1e-9);
}

TEST(PlannerBudget, ExplicitOrdersFallBackThroughReplicate) {
  // No greedy plan for explicit orders: a search stopped at once returns a
  // plan through Replicate, which must still compute the target.
  CostModel cost;
  PlanOptions options;
  options.maxSearchSteps = 1;
  std::mt19937 rng(5);
  int64_t checked = 0;
  for (Shape mesh : {Shape{2, 2}, Shape{2, 1, 3}, Shape{2, 2, 2}}) {
    Shape shape = mesh.size() == 2 ? Shape{9, 4} : Shape{7, 6};
    for (ReduceKind partial : {ReduceKind::Sum, ReduceKind::Min}) {
      std::vector<Placements> specs =
          enumeratePlacements(mesh.size(), shape.size(), partial, true);
      int64_t index = 0;
      for (const Placements &from : specs)
        for (const Placements &to : specs) {
          if (!legalPair(from, to) || (mesh.size() > 2 && index++ % 13))
            continue;
          RedistributeRequest req{mesh, shape, 4, from, to};
          std::string error;
          std::optional<Plan> plan =
              planRedistribute(req, cost, error, options);
          ASSERT_TRUE(plan) << formatPlacements(from) << " -> "
                            << formatPlacements(to) << ": " << error;
          checkPlanComputes(req, *plan, rng);
          if (plan->note.find("through Replicate") != std::string::npos)
            ++checked;
        }
    }
  }
  EXPECT_GT(checked, 500);
}

//===----------------------------------------------------------------------===//
// Sizes that do not fit in int64 (issue 10): errors, never wrapped counts
//===----------------------------------------------------------------------===//

TEST(PlannerSizes, ExactUpToTheBound) {
  CostModel cost;
  std::string error;
  // 2^60 f32 elements: 2^62 bytes gathered, exactly.
  std::optional<Plan> plan = planRedistribute(
      request({2}, {int64_t(1) << 60}, "[S(0)]", "[R]"), cost, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->bytesPerRank(), int64_t(1) << 62);
  // The issue's uneven case: INT64_MAX / 4 rows of i8 on 4 ranks pad to
  // 2^61 * 4 bytes (it fits: no error, no wrap).
  plan = planRedistribute(
      request({4}, {INT64_MAX / 2}, "[S(0)]", "[R]", /*elementBytes=*/1), cost,
      error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->bytesPerRank(), int64_t(1) << 62);
}

TEST(PlannerSizes, TooLargeIsAnError) {
  CostModel cost;
  auto expectError = [&](const RedistributeRequest &req,
                         const std::string &message) {
    std::string error;
    std::optional<Plan> plan = planRedistribute(req, cost, error);
    EXPECT_FALSE(plan) << "planned " << kinds(*plan) << " with "
                       << plan->bytesPerRank() << " bytes/rank";
    EXPECT_NE(error.find(message), std::string::npos) << error;
    std::optional<Plan> greedy = planGreedy(req, cost, error);
    EXPECT_FALSE(greedy);
  };
  // The tensor itself: 2^61 f32 elements are 2^63 bytes.
  expectError(request({2}, {int64_t(1) << 61}, "[S(0)]", "[R]"),
              "more bytes than fit in a signed 64-bit integer");
  // Its element count.
  expectError(request({2}, {int64_t(1) << 62, 4}, "[S(0)]", "[R]", 1),
              "has more elements than fit");
  // A padded buffer: 2^61 - 1 f32 rows fit (2^63 - 4 bytes), but the
  // gathered buffer pads to 2 * 2^60 rows (before: -2^63 bytes/rank).
  expectError(request({2}, {(int64_t(1) << 61) - 1}, "[S(0)]", "[R]"),
              "the tensor is too large to plan");
  // Totals: every plan moves more than INT64_MAX bytes over its steps.
  expectError(request({2, 2, 2}, {1879048192, 1073741824},
                      "[S(0), S(1), P(sum)]", "[S(1), S(0), R]"),
              "moves more bytes per rank than fit");
}

TEST(PlannerReplay, RepricesAPlanOnAnotherShape) {
  CostModel cost;
  std::string error;
  // Planned on 8x4, replayed on 16x12: the same steps with the new bytes,
  // exactly what planning 16x12 itself gives.
  std::optional<Plan> small = planRedistribute(
      request({2, 2}, {8, 4}, "[P(sum), S(0)]", "[S(1), R]"), cost, error);
  ASSERT_TRUE(small) << error;
  RedistributeRequest big = request({2, 2}, {16, 12}, "[P(sum), S(0)]", "[S(1), R]");
  std::optional<Plan> replayed = replayPlan(big, cost, small->steps, error);
  ASSERT_TRUE(replayed) << error;
  std::optional<Plan> direct = planRedistribute(big, cost, error);
  ASSERT_TRUE(direct) << error;
  EXPECT_EQ(kinds(*replayed), kinds(*direct));
  EXPECT_EQ(replayed->bytesPerRank(), direct->bytesPerRank());
  EXPECT_DOUBLE_EQ(replayed->timeUs(), direct->timeUs());
  ASSERT_EQ(replayed->steps.size(), direct->steps.size());
  for (size_t i = 0; i < direct->steps.size(); ++i) {
    EXPECT_EQ(replayed->steps[i].after, direct->steps[i].after);
    EXPECT_EQ(replayed->steps[i].logicalShape, direct->steps[i].logicalShape);
  }
  // A merged all_gather needs pieces of one size: not legal on 9 rows.
  std::optional<Plan> merged = planRedistribute(
      request({2, 2}, {8, 4}, "[S(0), S(0)]", "[R, R]"), cost, error);
  ASSERT_TRUE(merged) << error;
  EXPECT_FALSE(replayPlan(request({2, 2}, {9, 4}, "[S(0), S(0)]", "[R, R]"),
                          cost, merged->steps, error));
  EXPECT_NE(error.find("not legal"), std::string::npos) << error;
  // Steps that do not reach the target are an error.
  EXPECT_FALSE(replayPlan(request({2, 2}, {8, 4}, "[S(0), S(0)]", "[S(1), R]"),
                          cost, merged->steps, error));
  EXPECT_NE(error.find("ends in"), std::string::npos) << error;
}

TEST(PlannerReplay, NeverCheaperThanPlanningAndEqualOnEvenShapes) {
  // Random pairs on 2-D meshes: a plan of one shape replayed on a shape
  // with every dim scaled is legal (even shapes stay even) and costs what
  // planning that shape costs; on an unrelated shape a replay, when legal,
  // is never cheaper than the fastest plan (the search without DTensor's
  // greedy bound, which may return a slower plan with fewer bytes).
  std::mt19937 rng(7);
  CostModel cost;
  PlanOptions fastest;
  fastest.boundByGreedy = false;
  const char *pool[] = {"R", "S(0)", "S(1)", "P(sum)"};
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Shape mesh = {2, int64_t(2 + rng() % 3)};
    std::string from = "[", to = "[";
    for (int m = 0; m < 2; ++m) {
      from += std::string(m ? ", " : "") + pool[rng() % 4];
      to += std::string(m ? ", " : "") + pool[rng() % 3];
    }
    from += "]";
    to += "]";
    std::string error;
    int64_t unit = mesh[0] * mesh[1];
    std::optional<Plan> base = planRedistribute(
        request(mesh, {unit, 2 * unit}, from, to), cost, error);
    if (!base)
      continue;
    RedistributeRequest scaled = request(mesh, {4 * unit, 8 * unit}, from, to);
    std::optional<Plan> replayed = replayPlan(scaled, cost, base->steps, error);
    ASSERT_TRUE(replayed) << from << " -> " << to << ": " << error;
    std::optional<Plan> direct = planRedistribute(scaled, cost, error, fastest);
    ASSERT_TRUE(direct) << error;
    EXPECT_GE(replayed->timeUs(), direct->timeUs() - 1e-9) << from << " -> " << to;
    RedistributeRequest odd = request(mesh, {7, 5}, from, to);
    if (std::optional<Plan> r = replayPlan(odd, cost, base->steps, error)) {
      std::optional<Plan> d = planRedistribute(odd, cost, error, fastest);
      ASSERT_TRUE(d) << error;
      EXPECT_GE(r->timeUs(), d->timeUs() - 1e-9) << from << " -> " << to;
      ++compared;
    }
  }
  EXPECT_GT(compared, 50);
}

TEST(PlannerReplay, TimeOnlyReplayEqualsThePlansTime) {
  // replayTimeUs prices only the steps it replays; on random pairs of 2-D
  // and 3-D meshes, uneven shapes and merged steps included, it gives
  // exactly replayPlan's time, and fails exactly where replayPlan does.
  std::mt19937 rng(11);
  CostModel cost;
  const char *pool[] = {"R", "S(0)", "S(1)", "S(2)", "P(sum)", "P(max)"};
  int replayed = 0, failed = 0;
  for (int trial = 0; trial < 400; ++trial) {
    Shape mesh = {2, int64_t(2 + rng() % 2)};
    if (trial % 3 == 0)
      mesh.push_back(2);
    std::string from = "[", to = "[";
    for (size_t m = 0; m < mesh.size(); ++m) {
      from += std::string(m ? ", " : "") + pool[rng() % 6];
      to += std::string(m ? ", " : "") + pool[rng() % 5];
    }
    from += "]";
    to += "]";
    std::string error;
    std::optional<Plan> base = planRedistribute(
        request(mesh, {24, 12, 8}, from, to), cost, error);
    if (!base)
      continue;
    RedistributeRequest other = request(
        mesh, {int64_t(1 + rng() % 30), int64_t(1 + rng() % 30), 8}, from, to);
    std::string planError, timeError;
    std::optional<Plan> plan = replayPlan(other, cost, base->steps, planError);
    std::optional<double> time = replayTimeUs(other, cost, base->steps, timeError);
    ASSERT_EQ(bool(plan), bool(time)) << from << " -> " << to << ": "
                                      << planError << " / " << timeError;
    if (plan) {
      EXPECT_EQ(plan->timeUs(), *time) << from << " -> " << to;
      ++replayed;
    } else {
      EXPECT_EQ(planError, timeError);
      ++failed;
    }
  }
  EXPECT_GT(replayed, 100);
  EXPECT_GT(failed, 0);
}

TEST(PlannerReplay, PricedPlanEqualsReplayPrice) {
  // A compiled plan prices a shape exactly as replayPrice does: random
  // pairs on 2-D and 3-D meshes (size-1 mesh dims included), plans of one
  // shape priced on others (uneven, empty and scaled ones; merged steps
  // that need even pieces), the same time and bytes, failing exactly where
  // replayPrice fails.
  std::mt19937 rng(17);
  CostModel cost;
  cost.devicesPerHost = 4; // some mesh dims cross hosts: slower links
  const char *pool[] = {"R", "S(0)", "S(1)", "S(2)", "P(sum)", "P(max)"};
  int priced = 0, failed = 0, merged = 0;
  for (int trial = 0; trial < 600; ++trial) {
    Shape mesh = {int64_t(1 + rng() % 3), int64_t(2 + rng() % 2)};
    if (trial % 3 == 0)
      mesh.push_back(2);
    std::string from = "[", to = "[";
    for (size_t m = 0; m < mesh.size(); ++m) {
      from += std::string(m ? ", " : "") + pool[rng() % 6];
      to += std::string(m ? ", " : "") + pool[rng() % 5];
    }
    from += "]";
    to += "]";
    std::string error;
    std::optional<Plan> base = planRedistribute(
        request(mesh, {24, 12, 8}, from, to, 2), cost, error);
    if (!base)
      continue;
    merged += std::any_of(base->steps.begin(), base->steps.end(), [](const Step &s) {
      return s.meshDims.size() > 1;
    });
    PricedPlan compiled(request(mesh, {24, 12, 8}, from, to, 2), cost,
                        base->steps);
    // (A plan that makes a Partial from a shard locally replays nowhere:
    // the replay does not offer that step.)
    ASSERT_EQ(compiled.replayable(),
              bool(replayPrice(request(mesh, {24, 12, 8}, from, to, 2), cost,
                               base->steps, error)))
        << from << " -> " << to;
    for (int k = 0; k < 4; ++k) {
      Shape shape = {int64_t(rng() % 40), int64_t(1 + rng() % 30),
                     int64_t(1 + rng() % 9)};
      if (k == 3)
        shape = {24 * 1000, 12 * 1000, 8};
      RedistributeRequest other = request(mesh, shape, from, to, 2);
      std::optional<std::pair<double, int64_t>> want =
          replayPrice(other, cost, base->steps, error);
      std::optional<std::pair<double, int64_t>> got = compiled.price(shape);
      ASSERT_EQ(bool(want), bool(got))
          << from << " -> " << to << " on " << shape[0] << "x" << shape[1]
          << "x" << shape[2] << ": "
          << error;
      if (!want) {
        ++failed;
        continue;
      }
      EXPECT_EQ(want->first, got->first) << from << " -> " << to;
      EXPECT_EQ(want->second, got->second) << from << " -> " << to;
      ++priced;
    }
  }
  EXPECT_GT(priced, 400);
  EXPECT_GT(failed, 0);
  EXPECT_GT(merged, 10);
  // Shapes out of bounds fail as the replay does.
  std::string error;
  std::optional<Plan> plan = planRedistribute(
      request({2}, {8}, "[S(0)]", "[R]"), cost, error);
  ASSERT_TRUE(plan) << error;
  PricedPlan compiled(request({2}, {8}, "[S(0)]", "[R]"), cost, plan->steps);
  EXPECT_FALSE(compiled.price({(int64_t(1) << 61) - 1}));
  EXPECT_FALSE(compiled.price({-2}));
  // Just below and above the bound that skips the shape checks.
  EXPECT_TRUE(compiled.price({int64_t(1) << 50}));
  EXPECT_TRUE(compiled.price({int64_t(1) << 59}));
  EXPECT_FALSE(compiled.price({INT64_MAX - 1}));
  EXPECT_FALSE(replayPrice(request({2}, {(int64_t(1) << 61) - 1}, "[S(0)]",
                                   "[R]"),
                           cost, plan->steps, error));
  // Steps that end elsewhere price nothing.
  PricedPlan wrong(request({2}, {8}, "[S(0)]", "[S(0)]"), cost, plan->steps);
  EXPECT_FALSE(wrong.replayable());
  EXPECT_FALSE(wrong.price({8}));
}

TEST(PlannerStates, TensorDimsBeyond255AreDistinct) {
  // States were keyed by one byte per dim: S(256) aliased S(0), and this
  // all_to_all was planned as nothing.
  Shape shape(257, 1);
  shape[0] = 2;
  shape[256] = 2;
  CostModel cost;
  std::string error;
  std::optional<Plan> plan =
      planRedistribute(request({2}, shape, "[S(0)]", "[S(256)]"), cost, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(kinds(*plan), "all_to_all[0]");
}

} // namespace
