//===- Redistribute.cpp - Redistribution planning, plain C++ --------------===//
//
// Part of dtensor-mlir. The semantic core: no MLIR IR here.
//
//===----------------------------------------------------------------------===//
//
// States are DTensor layouts: per mesh dim R, P(op) or S(d), and per tensor
// dim the order its mesh dims were applied in. A step changes one mesh dim
// (or, merged, several) the way SEMANTICS.md allows: only the innermost
// (last-applied) mesh dim of a tensor dim can be unsharded or moved, and new
// shards are appended innermost. The search is label-setting over (time,
// collectives, bytes, steps) so that it can return the fastest plan among
// those that use no more collectives and bytes than DTensor's greedy plan.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Redistribute.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>
#include <set>
#include <unordered_map>

namespace mlir {
namespace dtensor {

//===----------------------------------------------------------------------===//
// Cost model
//===----------------------------------------------------------------------===//

const char *stringifyStepKind(StepKind kind) {
  switch (kind) {
  case StepKind::AllGather:
    return "all_gather";
  case StepKind::AllReduce:
    return "all_reduce";
  case StepKind::ReduceScatter:
    return "reduce_scatter";
  case StepKind::AllToAll:
    return "all_to_all";
  case StepKind::LocalChunk:
  case StepKind::LocalDivide:
  case StepKind::LocalZeroPad:
  case StepKind::LocalNoop:
    return "local";
  }
  return "local";
}

bool isCollective(StepKind kind) {
  return kind == StepKind::AllGather || kind == StepKind::AllReduce ||
         kind == StepKind::ReduceScatter || kind == StepKind::AllToAll;
}

std::vector<LinkParams> CostModel::links(const Shape &mesh) const {
  std::vector<LinkParams> out(mesh.size(),
                              {intraHostLatencyUs, intraHostBandwidthGBs});
  int64_t devices = 1;
  for (size_t i = mesh.size(); i-- > 0;) {
    devices *= mesh[i];
    if (devices > devicesPerHost)
      out[i] = {interHostLatencyUs, interHostBandwidthGBs};
  }
  return out;
}

double CostModel::collectiveTimeUs(StepKind kind, int64_t groupSize,
                                   const LinkParams &link,
                                   int64_t bytes) const {
  if (!isCollective(kind) || groupSize <= 1)
    return 0;
  double hops = double(groupSize - 1);
  if (kind == StepKind::AllReduce)
    hops *= 2;
  double transferUs =
      double(bytes) * hops / double(groupSize) / (link.bandwidthGBs * 1e3);
  return baseLatencyUs + hops * link.latencyUs + transferUs;
}

double CostModel::pointToPointTimeUs(const LinkParams &link, int64_t bytes,
                                     int64_t hops) const {
  return baseLatencyUs + double(hops) * link.latencyUs +
         double(bytes) / (link.bandwidthGBs * 1e3);
}

int64_t elementBytesOf(const std::string &dtype) {
  if (dtype == "f64" || dtype == "i64")
    return 8;
  if (dtype == "f32" || dtype == "i32")
    return 4;
  if (dtype == "f16" || dtype == "bf16" || dtype == "i16")
    return 2;
  if (dtype == "i8" || dtype == "i1")
    return 1;
  return 0;
}

int64_t Plan::numCollectives() const {
  int64_t n = 0;
  for (const Step &s : steps)
    n += isCollective(s.kind);
  return n;
}

int64_t Plan::bytesPerRank() const {
  // The planners only return plans whose sum they checked, so this cannot
  // overflow; saturate rather than wrap for hand-built plans.
  int64_t n = 0;
  for (const Step &s : steps)
    n = checkedAdd(n, s.bytesPerRank).value_or(INT64_MAX);
  return n;
}

double Plan::timeUs() const {
  double t = 0;
  for (const Step &s : steps)
    t += s.timeUs;
  return t;
}

std::map<std::string, int64_t> Plan::counts() const {
  std::map<std::string, int64_t> c;
  for (const Step &s : steps)
    if (isCollective(s.kind))
      ++c[stringifyStepKind(s.kind)];
  return c;
}

//===----------------------------------------------------------------------===//
// States
//===----------------------------------------------------------------------===//

namespace {

/// A layout during planning: one placement per mesh dim, a shard's `order`
/// always set to its position in its tensor dim's shard order (0 outermost).
/// One flat vector, as the search copies states for every step it prices.
struct State {
  Placements kinds;

  static State of(const Placements &ps, const Shape &mesh, int64_t rank) {
    State s;
    s.kinds = normalizePlacements(ps, rank);
    for (int64_t d = 0; d < rank; ++d) {
      std::vector<int64_t> o = shardOrder(s.kinds, d);
      for (size_t k = 0; k < o.size(); ++k)
        s.kinds[o[k]].order = int64_t(k);
    }
    s.canonicalize(mesh);
    return s;
  }

  bool shards(int64_t m, int64_t d) const { return kinds[m].isShard(d); }

  /// The mesh dims sharding tensor dim `d`, outermost first.
  std::vector<int64_t> orderOf(int64_t d) const {
    std::vector<int64_t> o;
    for (int64_t m = 0; m < int64_t(kinds.size()); ++m)
      if (shards(m, d))
        o.push_back(m);
    std::sort(o.begin(), o.end(), [&](int64_t a, int64_t b) {
      return kinds[a].order < kinds[b].order;
    });
    return o;
  }

  /// A size-1 mesh dim splits nothing, so where it sits in a shard order
  /// does not change any shard: keep such dims last (innermost), so that one
  /// layout is one state. Positions are renumbered 0.. in place.
  void canonicalize(const Shape &mesh) {
    int64_t n = kinds.size();
    auto before = [&](int64_t a, int64_t b) { // a sits before b
      bool ta = mesh[a] == 1, tb = mesh[b] == 1;
      return ta != tb ? tb : kinds[a].order < kinds[b].order;
    };
    // Positions only compare within a tensor dim; compute all new ones
    // from the old before writing any.
    int64_t fresh[64];
    std::vector<int64_t> spill;
    int64_t *pos = fresh;
    if (n > 64) {
      spill.resize(n);
      pos = spill.data();
    }
    for (int64_t m = 0; m < n; ++m) {
      pos[m] = -1;
      if (!kinds[m].isShard())
        continue;
      int64_t k = 0;
      for (int64_t o = 0; o < n; ++o)
        if (o != m && shards(o, kinds[m].dim) && before(o, m))
          ++k;
      pos[m] = k;
    }
    for (int64_t m = 0; m < n; ++m)
      if (kinds[m].isShard())
        kinds[m].order = pos[m];
  }

  /// This state with mesh dim `m` (now R) sharding tensor dim `d`, applied
  /// innermost.
  State withShard(int64_t m, int64_t d, const Shape &mesh) const {
    State t = *this;
    int64_t count = 0;
    for (int64_t o = 0; o < int64_t(kinds.size()); ++o)
      count += shards(o, d);
    t.kinds[m] = Placement::shard(d, count);
    t.canonicalize(mesh);
    return t;
  }

  /// This state with shard mesh dim `m` replicated.
  State withoutShard(int64_t m) const {
    State t = *this;
    int64_t d = kinds[m].dim, at = kinds[m].order;
    t.kinds[m] = Placement::replicate();
    for (Placement &p : t.kinds)
      if (p.isShard(d) && p.order > at)
        --p.order;
    return t;
  }

  /// Whether `m` can be unsharded or moved: it is the innermost mesh dim of
  /// its tensor dim that splits anything (size-1 dims move freely).
  bool isInnermost(const Shape &mesh, int64_t m) const {
    if (mesh[m] == 1)
      return true;
    for (int64_t o = 0; o < int64_t(kinds.size()); ++o)
      if (o != m && mesh[o] > 1 && shards(o, kinds[m].dim) &&
          kinds[o].order > kinds[m].order)
        return false;
    return true;
  }

  Placements placements() const { return dropDefaultOrders(kinds); }

  /// A placement as the user writes it (no explicit order).
  Placement kindAt(int64_t m) const {
    Placement p = kinds[m];
    p.order = -1;
    return p;
  }

  /// For messages.
  std::string format() const { return formatPlacements(placements()); }

  /// A compact identity (equal exactly when the states are), for the
  /// search's state table. Dims and orders take 7 bits a byte, so that a
  /// tensor of rank 256 cannot alias dim 0.
  std::string id() const {
    std::string k;
    k.reserve(kinds.size() * 4);
    auto put = [&](int64_t v) {
      uint64_t u = uint64_t(v);
      while (u >= 0x80) {
        k.push_back(char(0x80 | (u & 0x7f)));
        u >>= 7;
      }
      k.push_back(char(u));
    };
    for (const Placement &p : kinds) {
      k.push_back(char(p.kind));
      k.push_back(char(p.reduce));
      if (p.isShard()) {
        put(p.dim);
        put(p.order);
      }
    }
    return k;
  }

  bool operator==(const State &o) const { return kinds == o.kinds; }

  /// The mesh sizes that split tensor dim `d`, in the order maxLocalInto
  /// applies them (positions 0, 1, ... until one is missing).
  std::vector<int64_t> splitSizes(const Shape &mesh, int64_t d) const {
    std::vector<int64_t> sizes;
    int64_t n = kinds.size();
    for (int64_t k = 0;; ++k) {
      int64_t found = -1;
      for (int64_t m = 0; m < n && found < 0; ++m)
        if (shards(m, d) && kinds[m].order == k)
          found = m;
      if (found < 0)
        return sizes;
      sizes.push_back(mesh[found]);
    }
  }

  /// The largest local shape over ranks (chunk 0 at every level), into `s`.
  void maxLocalInto(const Shape &mesh, const Shape &global, Shape &s) const {
    s.assign(global.begin(), global.end());
    int64_t n = kinds.size();
    for (size_t d = 0; d < s.size(); ++d)
      for (int64_t k = 0;; ++k) { // positions 0, 1, ... of dim d
        int64_t found = -1;
        for (int64_t m = 0; m < n && found < 0; ++m)
          if (shards(m, d) && kinds[m].order == k)
            found = m;
        if (found < 0)
          break;
        s[d] = chunk(s[d], mesh[found], 0).size;
      }
  }

  std::optional<ReduceKind> partialKind() const {
    for (const Placement &p : kinds)
      if (p.isPartial())
        return p.reduce;
    return std::nullopt;
  }
};

/// Every size tensor dim `d` can have after chunking `length` by `meshDims`
/// in order, over all coordinates (a few per level, whatever the mesh size).
std::set<int64_t> sizesAfter(int64_t length, const Shape &mesh,
                             const std::vector<int64_t> &meshDims) {
  std::set<int64_t> sizes{length};
  for (int64_t m : meshDims) {
    std::set<int64_t> next;
    for (int64_t s : sizes)
      for (int64_t c : distinctChunkSizes(s, mesh[m]))
        next.insert(c);
    sizes = std::move(next);
  }
  return sizes;
}

/// Bytes of a collective's per-rank buffer (the larger of its input and
/// output; uneven pieces padded to the largest): the largest local shape
/// before the step (`lb`; after it, `la`, for an all_gather) with the dim it
/// gathers or scatters holding `n` pieces of the other side's size there.
/// std::nullopt when that does not fit in int64.
std::optional<int64_t> collectiveBufferBytes(StepKind kind, int64_t n,
                                             const Shape &lb, const Shape &la,
                                             int64_t fromDim, int64_t toDim,
                                             int64_t elementBytes) {
  const Shape *base = &lb;
  int64_t scaledDim = -1;
  std::optional<int64_t> scaledSize;
  switch (kind) {
  case StepKind::AllGather:
    base = &la;
    scaledDim = fromDim;
    scaledSize = checkedMul(n, lb[fromDim]);
    break;
  case StepKind::ReduceScatter:
  case StepKind::AllToAll:
    scaledDim = toDim;
    scaledSize = checkedMul(n, la[toDim]);
    break;
  default:
    break;
  }
  if (scaledDim >= 0 && !scaledSize)
    return std::nullopt;
  std::optional<int64_t> bytes = elementBytes;
  for (size_t d = 0; d < base->size() && bytes; ++d)
    bytes = checkedMul(*bytes, int64_t(d) == scaledDim ? *scaledSize : (*base)[d]);
  return bytes;
}

/// The first tensor dim that, padded by the mesh's rank count (the most a
/// gathered or scattered buffer can grow), makes the tensor's bytes overflow
/// int64; -1 when none does (checkPaddedBytes says why it matters).
int64_t firstOverflowingPaddedDim(const Shape &shape, const Shape &mesh,
                                  int64_t elementBytes) {
  int64_t ranks = meshSize(mesh);
  Shape grown = shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::optional<int64_t> size = checkedAdd(shape[d], ranks);
    std::optional<int64_t> elements;
    if (size) {
      grown[d] = *size;
      elements = numElements(grown);
      grown[d] = shape[d];
    }
    if (!elements || !checkedMul(*elements, elementBytes))
      return int64_t(d);
  }
  return -1;
}

/// Limits of one search: a count of priced steps, an optional deadline,
/// and a limit for the current phase (the plain-order phase). Expansions
/// check it between steps, so that even one state with millions of merged
/// moves (every order of many Partial mesh dims) stops in time.
class SearchBudget {
public:
  explicit SearchBudget(const PlanOptions &options)
      : maxSteps(options.maxSearchSteps) {
    if (options.searchTimeMs > 0)
      deadline =
          std::chrono::steady_clock::now() +
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
              std::chrono::duration<double, std::milli>(options.searchTimeMs));
  }

  /// Starts a phase that may price at most `limit` steps (0: no limit of
  /// its own).
  void startPhase(int64_t limit) {
    phaseLimit = limit;
    phaseSteps = 0;
  }

  /// Counts one priced step.
  void charge() {
    ++steps;
    ++phaseSteps;
    if (maxSteps > 0 && steps >= maxSteps)
      hitSteps = true;
    // The clock costs about as much as pricing a step: read it rarely.
    if (deadline && (steps & 255) == 0 &&
        std::chrono::steady_clock::now() >= *deadline)
      hitTime = true;
  }

  /// Whether the whole search must stop.
  bool spent() const { return hitSteps || hitTime; }
  /// Whether the current phase must stop.
  bool exhausted() const {
    return spent() || (phaseLimit > 0 && phaseSteps >= phaseLimit);
  }
  int64_t priced() const { return steps; }

  /// Why the search stopped, for Plan::note.
  std::string reason() const {
    if (hitSteps)
      return "the search stopped after pricing " + std::to_string(steps) +
             " candidate steps (its limit, PlanOptions::maxSearchSteps)";
    return "the search stopped at its time budget after pricing " +
           std::to_string(steps) + " candidate steps";
  }

private:
  int64_t maxSteps;
  int64_t steps = 0;
  int64_t phaseLimit = 0, phaseSteps = 0;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  bool hitSteps = false, hitTime = false;
};

/// Builds steps out of states; one instance per request.
class StepBuilder {
public:
  StepBuilder(const RedistributeRequest &req, const CostModel &cost)
      : req(req), cost(cost), links(cost.links(req.mesh)) {}

  int64_t groupSize(const std::vector<int64_t> &dims) const {
    int64_t n = 1;
    for (int64_t m : dims)
      n *= req.mesh[m];
    return n;
  }

  LinkParams slowest(const std::vector<int64_t> &dims) const {
    LinkParams l{0, 1e300};
    for (int64_t m : dims) {
      l.latencyUs = std::max(l.latencyUs, links[m].latencyUs);
      l.bandwidthGBs = std::min(l.bandwidthGBs, links[m].bandwidthGBs);
    }
    return l;
  }

  /// Fills shapes, bytes and time of a step from its before/after states;
  /// its before/after placements and logical shape only when `detailed`.
  Step make(StepKind kind, std::vector<int64_t> dims, int64_t fromDim,
            int64_t toDim, ReduceKind reduce, const State &before,
            const State &after) const {
    if (budget)
      budget->charge();
    if (!isWanted(kind, dims.data(), dims.size(), fromDim, toDim, reduce)) {
      // Not the step a replay looks for: left unpriced (and unmatchable).
      Step s;
      s.kind = kind;
      s.fromDim = -2;
      return s;
    }
    return build(kind, std::move(dims), fromDim, toDim, reduce, before, after,
                 detailed);
  }

  /// Whether the step over mesh dims [dims, dims + count) can be the one a
  /// replay looks for (any step when not replaying; a step over a group of
  /// one rank is a LocalNoop).
  bool isWanted(StepKind kind, const int64_t *dims, size_t count,
                int64_t fromDim, int64_t toDim, ReduceKind reduce) const {
    if (!only)
      return true;
    if (only->meshDims.size() != count ||
        !std::equal(dims, dims + count, only->meshDims.begin()) ||
        only->fromDim != fromDim || only->toDim != toDim ||
        only->reduce != reduce)
      return false;
    int64_t ranks = 1;
    for (size_t i = 0; i < count; ++i)
      ranks *= req.mesh[dims[i]];
    return only->kind == kind ||
           (only->kind == StepKind::LocalNoop && ranks == 1);
  }
  /// A single-mesh-dim step a replay does not look for: expand builds
  /// neither it nor its target state.
  bool unwanted(StepKind kind, int64_t m, int64_t fromDim, int64_t toDim,
                ReduceKind reduce) const {
    return !isWanted(kind, &m, 1, fromDim, toDim, reduce);
  }

  /// Whether the search's budget is spent: expansions stop offering steps.
  bool stopped() const { return budget && budget->exhausted(); }

  /// `kept` (made without details) with its details: the search prices
  /// many more steps than it keeps and details only those it returns.
  Step withDetails(const Step &kept, const State &before,
                   const State &after) const {
    return build(kept.kind, kept.meshDims, kept.fromDim, kept.toDim,
                 kept.reduce, before, after, /*detailed=*/true);
  }

private:
  Step build(StepKind kind, std::vector<int64_t> dims, int64_t fromDim,
             int64_t toDim, ReduceKind reduce, const State &before,
             const State &after, bool detailed) const {
    Step s;
    int64_t n = groupSize(dims);
    if (n == 1)
      kind = StepKind::LocalNoop;
    s.kind = kind;
    s.meshDims = std::move(dims);
    s.fromDim = fromDim;
    s.toDim = toDim;
    s.reduce = reduce;
    if (detailed) {
      s.before = before.placements();
      s.after = after.placements();
    }
    // Largest local shapes before and after (scratch buffers: the search
    // makes many steps).
    before.maxLocalInto(req.mesh, req.shape, lb);
    after.maxLocalInto(req.mesh, req.shape, la);
    if (detailed) {
      s.logicalShape = kind == StepKind::AllGather ? la : lb;
      if (kind == StepKind::AllToAll)
        s.logicalShape[fromDim] = la[fromDim];
    }
    if (isCollective(kind)) {
      // checkRequest bounds every padded buffer, so these cannot overflow;
      // if one ever did, the planner reports it instead of a wrong count.
      std::optional<int64_t> bytes = collectiveBufferBytes(
          kind, n, lb, la, fromDim, toDim, req.elementBytes);
      if (!bytes)
        overflowed = true;
      s.bytesPerRank = bytes.value_or(INT64_MAX);
    }
    s.timeUs =
        cost.collectiveTimeUs(kind, n, slowest(s.meshDims), s.bytesPerRank);
    return s;
  }

public:
  /// Every legal step from `s`, paired with its target state.
  void expand(const State &s, const PlanOptions &options,
              std::optional<ReduceKind> targetPartial,
              std::vector<std::pair<Step, State>> &out) const {
    int64_t meshRank = req.mesh.size();
    int64_t rank = req.shape.size();
    std::optional<ReduceKind> partial = s.partialKind();
    for (int64_t m = 0; m < meshRank && !stopped(); ++m) {
      // A replay needs the steps on its step's mesh dims only.
      if (only && (only->meshDims.size() != 1 || only->meshDims[0] != m))
        continue;
      if (onlyMeshDim >= 0 && m != onlyMeshDim)
        continue;
      const Placement &p = s.kinds[m];
      if (p.isShard()) {
        int64_t d = p.dim;
        if (!s.isInnermost(req.mesh, m))
          continue;
        State r = s.withoutShard(m);
        if (!unwanted(StepKind::AllGather, m, d, -1, ReduceKind::Sum))
          out.emplace_back(make(StepKind::AllGather, {m}, d, -1,
                                ReduceKind::Sum, s, r),
                           r);
        // S(d) -> P(sum): no data moves (the sum of the zero-padded shards
        // is the value). Offered toward a target with a Partial(sum) only.
        // As a detour elsewhere it can pay ([R, S(0)] -> [S(0), S(0)] could
        // pad dim 1, chunk dim 0 and reduce-scatter half the bytes of an
        // all_gather), but that changes many plans and is not explored yet
        // (docs/Redistribution.md).
        if ((!partial || *partial == ReduceKind::Sum) && targetPartial &&
            *targetPartial == ReduceKind::Sum &&
            !unwanted(StepKind::LocalZeroPad, m, d, -1, ReduceKind::Sum)) {
          State t = r;
          t.kinds[m] = Placement::partial(ReduceKind::Sum);
          out.emplace_back(make(StepKind::LocalZeroPad, {m}, d, -1,
                                ReduceKind::Sum, s, t),
                           t);
        }
        for (int64_t e = 0; e < rank; ++e) {
          if (e == d || unwanted(StepKind::AllToAll, m, d, e, ReduceKind::Sum))
            continue;
          State t = r.withShard(m, e, req.mesh);
          out.emplace_back(
              make(StepKind::AllToAll, {m}, d, e, ReduceKind::Sum, s, t), t);
        }
      } else if (p.isPartial()) {
        State r = s;
        r.kinds[m] = Placement::replicate();
        if (!unwanted(StepKind::AllReduce, m, -1, -1, p.reduce))
          out.emplace_back(
              make(StepKind::AllReduce, {m}, -1, -1, p.reduce, s, r), r);
        for (int64_t d = 0; d < rank; ++d) {
          if (unwanted(StepKind::ReduceScatter, m, -1, d, p.reduce))
            continue;
          State t = r.withShard(m, d, req.mesh);
          out.emplace_back(
              make(StepKind::ReduceScatter, {m}, -1, d, p.reduce, s, t), t);
        }
      } else {
        for (int64_t d = 0; d < rank; ++d) {
          if (unwanted(StepKind::LocalChunk, m, -1, d, ReduceKind::Sum))
            continue;
          State t = s.withShard(m, d, req.mesh);
          out.emplace_back(
              make(StepKind::LocalChunk, {m}, -1, d, ReduceKind::Sum, s, t), t);
        }
        for (ReduceKind k : {ReduceKind::Sum, ReduceKind::Avg, ReduceKind::Max,
                             ReduceKind::Min}) {
          if (partial && *partial != k)
            continue; // one Partial kind per spec
          if (options.prunePartials && (!targetPartial || *targetPartial != k))
            continue;
          StepKind kind =
              k == ReduceKind::Sum ? StepKind::LocalDivide : StepKind::LocalNoop;
          if (unwanted(kind, m, -1, -1, k))
            continue;
          State t = s;
          t.kinds[m] = Placement::partial(k);
          out.emplace_back(make(kind, {m}, -1, -1, k, s, t), t);
        }
      }
    }
    if (options.mergeGroups && (!only || only->meshDims.size() > 1))
      expandMerged(s, out);
  }

private:
  /// Collectives over flattened groups of several mesh dims, offered only
  /// where one collective over the group computes exactly what the steps
  /// one mesh dim at a time would.
  void expandMerged(const State &s,
                    std::vector<std::pair<Step, State>> &out) const {
    int64_t rank = req.shape.size();
    // all_gather of the innermost k mesh dims of one tensor dim, gathered in
    // one group ordered as applied: exact when every piece has one size.
    for (int64_t d = 0; d < rank && !stopped(); ++d) {
      // Size-1 dims sit last and split nothing: merge over the others.
      std::vector<int64_t> order, trivial;
      for (int64_t m : s.orderOf(d))
        (req.mesh[m] > 1 ? order : trivial).push_back(m);
      for (size_t k = 2; k <= order.size(); ++k) {
        std::vector<int64_t> prefix(order.begin(), order.end() - k);
        std::vector<int64_t> dims(order.end() - k, order.end());
        int64_t n = groupSize(dims);
        bool even = true;
        for (int64_t parent : sizesAfter(req.shape[d], req.mesh, prefix))
          even &= parent % n == 0;
        if (!even && !ignoreEvenness)
          continue;
        State r = s;
        for (int64_t m : dims)
          r.kinds[m] = Placement::replicate();
        int64_t at = 0;
        for (int64_t m : prefix)
          r.kinds[m].order = at++;
        for (int64_t m : trivial)
          r.kinds[m].order = at++;
        out.emplace_back(
            make(StepKind::AllGather, dims, d, -1, ReduceKind::Sum, s, r), r);
      }
    }
    // all_reduce / reduce_scatter over several Partial mesh dims.
    std::vector<int64_t> partials;
    for (int64_t m = 0; m < (int64_t)s.kinds.size(); ++m)
      if (s.kinds[m].isPartial() && req.mesh[m] > 1)
        partials.push_back(m);
    if (partials.size() < 2)
      return;
    ReduceKind reduce = *s.partialKind();
    int64_t count = partials.size();
    // At most 24 mesh dims have size > 1 (kMaxMeshRanks), so the mask fits.
    for (int64_t mask = 1; mask < (int64_t(1) << count) && !stopped(); ++mask) {
      std::vector<int64_t> dims;
      for (int64_t i = 0; i < count; ++i)
        if (mask & (int64_t(1) << i))
          dims.push_back(partials[i]);
      if (dims.size() < 2)
        continue;
      State r = s;
      for (int64_t m : dims)
        r.kinds[m] = Placement::replicate();
      out.emplace_back(
          make(StepKind::AllReduce, dims, -1, -1, reduce, s, r), r);
      // reduce_scatter onto d, appending the mesh dims in each order.
      std::vector<int64_t> perm = dims;
      int64_t n = groupSize(dims);
      do {
        for (int64_t d = 0; d < rank; ++d) {
          bool even = true;
          for (int64_t len : sizesAfter(req.shape[d], req.mesh, s.orderOf(d)))
            even &= len % n == 0;
          if (!even && !ignoreEvenness)
            continue;
          State t = r;
          int64_t at = 0;
          for (const Placement &p : t.kinds)
            at += p.isShard(d);
          for (int64_t m : perm)
            t.kinds[m] = Placement::shard(d, at++);
          t.canonicalize(req.mesh);
          out.emplace_back(
              make(StepKind::ReduceScatter, perm, -1, d, reduce, s, t), t);
        }
      } while (!stopped() && std::next_permutation(perm.begin(), perm.end()));
    }
  }

  const RedistributeRequest &req;
  const CostModel &cost;
  std::vector<LinkParams> links;
  mutable Shape lb, la;

public:
  /// Whether the steps `make` and `expand` build carry their details (the
  /// search turns this off; see withDetails).
  bool detailed = true;
  /// Counts priced steps and stops expansions when spent (the search's).
  SearchBudget *budget = nullptr;
  /// When set (a replay), only steps that can equal it are priced; the
  /// others come out of `make` unpriced, with fromDim -2.
  const Step *only = nullptr;
  /// When >= 0, expand offers only steps on this one mesh dim (replayMoves
  /// looks for one there).
  int64_t onlyMeshDim = -1;
  /// Offer merged steps whatever the shape's evenness (PricedPlan records
  /// the evenness a step needs and checks it per shape).
  bool ignoreEvenness = false;
  /// Set when a step's byte count did not fit in int64; checkRequest's bound
  /// should make this impossible, and the planners fail rather than use it.
  mutable bool overflowed = false;
};

/// Checks that every buffer a plan can use has a byte count that fits in
/// int64. A step's buffer is the largest local shape (each dim at most its
/// global size) with one dim scaled to `n` pieces of the largest chunk of
/// its parent piece: n * ceil(p / n) < p + n <= size + ranks. So it is
/// enough that the tensor with any one dim grown by the mesh's rank count
/// fits.
bool checkPaddedBytes(const RedistributeRequest &req, std::string &error) {
  int64_t d = firstOverflowingPaddedDim(req.shape, req.mesh, req.elementBytes);
  if (d < 0)
    return true;
  error = "the tensor is too large to plan: with tensor dim " +
          std::to_string(d) + " padded by up to " +
          std::to_string(meshSize(req.mesh)) +
          " (the mesh's rank count), as uneven collectives pad it, its "
          "buffers would hold more bytes than fit in a signed 64-bit integer "
          "(at most " +
          std::to_string(INT64_MAX) + "); use a smaller shape";
  return false;
}

/// Checks both specs and every mesh dim's transition.
bool checkRequest(const RedistributeRequest &req, std::string &error) {
  int64_t rank = req.shape.size();
  if (req.elementBytes <= 0) {
    error = "element size must be positive";
    return false;
  }
  std::string why;
  if (!verifyGlobalShape(req.shape, req.elementBytes, why)) {
    error = "tensor shape " + why;
    return false;
  }
  if (!Layout::create(req.mesh, rank, req.from, why)) {
    error = "source placements " + formatPlacements(req.from) + " " + why;
    return false;
  }
  if (!Layout::create(req.mesh, rank, req.to, why)) {
    error = "target placements " + formatPlacements(req.to) + " " + why;
    return false;
  }
  if (!checkPaddedBytes(req, error))
    return false;
  Placements from = normalizePlacements(req.from, rank);
  Placements to = normalizePlacements(req.to, rank);
  for (size_t m = 0; m < from.size(); ++m) {
    std::string t = transitionError(from[m], to[m]);
    if (!t.empty()) {
      error = "on mesh dim " + std::to_string(m) + ": " + t;
      return false;
    }
  }
  return true;
}

} // namespace

bool sameState(const Placements &a, const Placements &b, const Shape &mesh,
               int64_t rank) {
  return State::of(a, mesh, rank) == State::of(b, mesh, rank);
}

std::vector<Step> legalSteps(const RedistributeRequest &request,
                             const CostModel &cost, const Placements &state,
                             const PlanOptions &options) {
  StepBuilder builder(request, cost);
  int64_t rank = request.shape.size();
  std::optional<ReduceKind> targetPartial =
      State::of(request.to, request.mesh, rank).partialKind();
  std::vector<std::pair<Step, State>> moves;
  builder.expand(State::of(state, request.mesh, rank), options, targetPartial, moves);
  std::vector<Step> steps;
  for (auto &mv : moves)
    steps.push_back(std::move(mv.first));
  return steps;
}

//===----------------------------------------------------------------------===//
// DTensor's greedy plan
//===----------------------------------------------------------------------===//

namespace {
/// Replays one-mesh-dim moves (mesh dim, placement it ends in) from the
/// request's source through the state model, which prices them and checks
/// that each is legal, and that they end in the target. `what` names the
/// plan in errors.
std::optional<Plan>
replayMoves(const RedistributeRequest &req, const CostModel &cost,
            const std::string &what,
            const std::vector<std::pair<int64_t, Placement>> &moves,
            std::string &error) {
  int64_t rank = req.shape.size();
  StepBuilder builder(req, cost);
  builder.detailed = false;
  PlanOptions single;
  single.mergeGroups = false;
  single.prunePartials = false;
  State state = State::of(req.from, req.mesh, rank);
  Plan plan;
  int64_t bytes = 0;
  std::optional<ReduceKind> targetPartial =
      State::of(req.to, req.mesh, rank).partialKind();
  std::vector<std::pair<Step, State>> options;
  for (auto &[m, target] : moves) {
    options.clear();
    builder.onlyMeshDim = m;
    builder.expand(state, single, targetPartial, options);
    bool found = false;
    for (auto &[step, next] : options) {
      Placement got = next.kindAt(m);
      if (step.meshDims == std::vector<int64_t>{m} && got == target) {
        plan.steps.push_back(builder.withDetails(step, state, next));
        state = next;
        found = true;
        break;
      }
    }
    if (!found) {
      error = what + " move " + formatPlacement(state.kindAt(m)) + " -> " +
              formatPlacement(target) + " on mesh dim " + std::to_string(m) +
              " is not legal from " + state.format();
      return std::nullopt;
    }
    std::optional<int64_t> sum =
        checkedAdd(bytes, plan.steps.back().bytesPerRank);
    if (!sum || builder.overflowed) {
      error = what + " plan moves more bytes per rank than fit in a signed "
                     "64-bit integer; use a smaller shape";
      return std::nullopt;
    }
    bytes = *sum;
  }
  if (!(state == State::of(req.to, req.mesh, rank))) {
    error = what + " plan ends in " + state.format() + ", not " +
            formatPlacements(req.to);
    return std::nullopt;
  }
  return plan;
}

/// A plan that exists for every legal request, for when the search stops
/// early and DTensor's greedy plan is undefined (explicit shard orders):
/// reduce the Partial mesh dims that change, unshard every tensor dim down to
/// the prefix of its shard order that the target keeps (innermost first),
/// then shard in the target's order and make the target's Partials locally.
std::optional<Plan> planThroughReplicate(const RedistributeRequest &req,
                                         const CostModel &cost,
                                         std::string &error) {
  int64_t rank = req.shape.size(), meshRank = req.mesh.size();
  State from = State::of(req.from, req.mesh, rank);
  State to = State::of(req.to, req.mesh, rank);
  std::vector<std::pair<int64_t, Placement>> moves;
  for (int64_t m = 0; m < meshRank; ++m)
    if (from.kinds[m].isPartial() && from.kindAt(m) != to.kindAt(m))
      moves.push_back({m, Placement::replicate()});
  std::vector<std::vector<int64_t>> reshard(rank);
  for (int64_t d = 0; d < rank; ++d) {
    std::vector<int64_t> have = from.orderOf(d), want = to.orderOf(d);
    size_t keep = 0;
    while (keep < have.size() && keep < want.size() && have[keep] == want[keep])
      ++keep;
    for (size_t k = have.size(); k-- > keep;)
      moves.push_back({have[k], Placement::replicate()});
    reshard[d].assign(want.begin() + keep, want.end());
  }
  for (int64_t d = 0; d < rank; ++d)
    for (int64_t m : reshard[d])
      moves.push_back({m, Placement::shard(d)});
  for (int64_t m = 0; m < meshRank; ++m)
    if (to.kinds[m].isPartial() && from.kindAt(m) != to.kindAt(m))
      moves.push_back({m, to.kindAt(m)});
  return replayMoves(req, cost, "the fallback", moves, error);
}
} // namespace

namespace {
/// replayPlan and replayTimeUs: the plan (with details) into `out` when set,
/// its time in any case.
std::optional<double> replay(const RedistributeRequest &req,
                             const CostModel &cost,
                             const std::vector<Step> &steps, std::string &error,
                             Plan *out, int64_t *bytesOut = nullptr) {
  if (out) {
    if (!checkRequest(req, error))
      return std::nullopt;
  } else {
    // replayTimeUs: the placements were checked with the plan's own
    // request (the same mesh, rank and placements); only what depends on
    // the shape is checked again.
    std::string why;
    if (req.elementBytes <= 0 ||
        !verifyGlobalShape(req.shape, req.elementBytes, why)) {
      error = "tensor shape " + why;
      return std::nullopt;
    }
    if (!checkPaddedBytes(req, error))
      return std::nullopt;
  }
  int64_t rank = req.shape.size();
  StepBuilder builder(req, cost);
  builder.detailed = false;
  PlanOptions all;
  all.prunePartials = false;
  State state = State::of(req.from, req.mesh, rank);
  double time = 0;
  int64_t bytes = 0;
  std::vector<std::pair<Step, State>> options;
  for (const Step &want : steps) {
    options.clear();
    builder.only = &want;
    builder.expand(state, all, std::nullopt, options);
    bool found = false;
    for (auto &[step, next] : options)
      if (step.kind == want.kind && step.meshDims == want.meshDims &&
          step.fromDim == want.fromDim && step.toDim == want.toDim &&
          step.reduce == want.reduce) {
        std::optional<int64_t> sum = checkedAdd(bytes, step.bytesPerRank);
        if (!sum || builder.overflowed) {
          error = "the replayed plan moves more bytes per rank than fit in a "
                  "signed 64-bit integer";
          return std::nullopt;
        }
        bytes = *sum;
        time += step.timeUs;
        if (out)
          out->steps.push_back(builder.withDetails(step, state, next));
        state = std::move(next);
        found = true;
        break;
      }
    if (!found) {
      error = std::string("step ") + stringifyStepKind(want.kind) +
              " is not legal from " + state.format();
      return std::nullopt;
    }
  }
  if (!(state == State::of(req.to, req.mesh, rank))) {
    error = "the replayed plan ends in " + state.format() + ", not " +
            formatPlacements(req.to);
    return std::nullopt;
  }
  if (bytesOut)
    *bytesOut = bytes;
  return time;
}
} // namespace

std::optional<Plan> replayPlan(const RedistributeRequest &req,
                               const CostModel &cost,
                               const std::vector<Step> &steps,
                               std::string &error) {
  Plan plan;
  if (!replay(req, cost, steps, error, &plan))
    return std::nullopt;
  return plan;
}

std::optional<double> replayTimeUs(const RedistributeRequest &req,
                                   const CostModel &cost,
                                   const std::vector<Step> &steps,
                                   std::string &error) {
  return replay(req, cost, steps, error, nullptr);
}

std::optional<std::pair<double, int64_t>>
replayPrice(const RedistributeRequest &req, const CostModel &cost,
            const std::vector<Step> &steps, std::string &error) {
  int64_t bytes = 0;
  std::optional<double> time = replay(req, cost, steps, error, nullptr, &bytes);
  if (!time)
    return std::nullopt;
  return std::make_pair(*time, bytes);
}

PricedPlan::PricedPlan(const RedistributeRequest &req, const CostModel &cost,
                       const std::vector<Step> &plan)
    : mesh(req.mesh), elementBytes(req.elementBytes), cost(cost) {
  // replay's walk, on the placements only: the step each one matches, from
  // the state the steps before it leave. Merged steps are offered whatever
  // this shape's evenness; their evenness is kept and checked per shape.
  int64_t rank = req.shape.size();
  StepBuilder builder(req, cost);
  builder.detailed = false;
  builder.ignoreEvenness = true;
  PlanOptions all;
  all.prunePartials = false;
  State state = State::of(req.from, req.mesh, rank);
  std::vector<std::pair<Step, State>> options;
  for (const Step &want : plan) {
    options.clear();
    builder.only = &want;
    builder.expand(state, all, std::nullopt, options);
    auto match = std::find_if(options.begin(), options.end(), [&](auto &o) {
      const Step &s = o.first;
      return s.kind == want.kind && s.meshDims == want.meshDims &&
             s.fromDim == want.fromDim && s.toDim == want.toDim &&
             s.reduce == want.reduce;
    });
    if (match == options.end())
      return; // never legal from this state
    const Step &step = match->first;
    const State &next = match->second;
    Priced p;
    p.kind = step.kind;
    p.groupSize = builder.groupSize(step.meshDims);
    p.link = builder.slowest(step.meshDims);
    p.fromDim = step.fromDim;
    p.toDim = step.toDim;
    for (int64_t d = 0; d < rank; ++d) {
      p.before.push_back(state.splitSizes(req.mesh, d));
      p.after.push_back(next.splitSizes(req.mesh, d));
    }
    // expandMerged's evenness, for steps over several mesh dims.
    if (step.meshDims.size() > 1 && step.kind == StepKind::AllGather) {
      std::vector<int64_t> order;
      for (int64_t m : state.orderOf(step.fromDim))
        if (req.mesh[m] > 1)
          order.push_back(m);
      p.evenDim = step.fromDim;
      p.evenPrefix.assign(order.begin(), order.end() - step.meshDims.size());
    } else if (step.meshDims.size() > 1 &&
               step.kind == StepKind::ReduceScatter) {
      p.evenDim = step.toDim;
      p.evenPrefix = state.orderOf(step.toDim);
    }
    steps.push_back(std::move(p));
    state = next;
  }
  ok = state == State::of(req.to, req.mesh, rank);
}

std::optional<std::pair<double, int64_t>>
PricedPlan::price(const Shape &shape) const {
  if (!ok)
    return std::nullopt;
  // replay's checks of the shape (the message is not wanted here), skipped
  // where a bound shows they pass: every size non-negative and the bytes
  // with every dim padded by the mesh's rank count (more than either check
  // pads) far below 2^63.
  double bound = double(elementBytes);
  double ranks = double(meshSize(mesh));
  bool small = elementBytes > 0;
  for (int64_t d : shape) {
    small &= d >= 0;
    bound *= double(d) + ranks;
  }
  if (!(small && bound < 0x1p60)) {
    std::string why;
    if (!verifyGlobalShape(shape, elementBytes, why) ||
        firstOverflowingPaddedDim(shape, mesh, elementBytes) >= 0)
      return std::nullopt;
  }
  auto local = [&](int64_t length, const std::vector<int64_t> &sizes) {
    for (int64_t parts : sizes)
      length = chunk(length, parts, 0).size;
    return length;
  };
  double time = 0;
  int64_t bytes = 0;
  Shape lb(shape.size()), la(shape.size());
  for (const Priced &p : steps) {
    if (p.evenDim >= 0)
      for (int64_t piece : sizesAfter(shape[p.evenDim], mesh, p.evenPrefix))
        if (piece % p.groupSize != 0)
          return std::nullopt;
    if (!isCollective(p.kind))
      continue; // no bytes, no time
    for (size_t d = 0; d < shape.size(); ++d) {
      lb[d] = local(shape[d], p.before[d]);
      la[d] = local(shape[d], p.after[d]);
    }
    std::optional<int64_t> stepBytes = collectiveBufferBytes(
        p.kind, p.groupSize, lb, la, p.fromDim, p.toDim, elementBytes);
    std::optional<int64_t> sum =
        stepBytes ? checkedAdd(bytes, *stepBytes) : std::nullopt;
    if (!sum)
      return std::nullopt;
    bytes = *sum;
    time += cost.collectiveTimeUs(p.kind, p.groupSize, p.link, *stepBytes);
  }
  return std::make_pair(time, bytes);
}

std::optional<Plan> planGreedy(const RedistributeRequest &req,
                               const CostModel &cost, std::string &error) {
  if (!checkRequest(req, error))
    return std::nullopt;
  int64_t rank = req.shape.size();
  Placements from = normalizePlacements(req.from, rank);
  Placements to = normalizePlacements(req.to, rank);
  for (const Placement &p : from)
    if (p.order >= 0) {
      error = "DTensor's greedy plan is defined for default shard orders only";
      return std::nullopt;
    }
  for (const Placement &p : to)
    if (p.order >= 0) {
      error = "DTensor's greedy plan is defined for default shard orders only";
      return std::nullopt;
    }

  // The (mesh dim, target) moves, as DTensor's _gen_transform_infos orders
  // them.
  std::vector<std::pair<int64_t, Placement>> moves;
  int64_t meshRank = req.mesh.size();
  Placements cur = from;
  int64_t numShards = 1;
  for (int64_t m = 0; m < meshRank; ++m)
    if (from[m].isShard())
      numShards *= req.mesh[m];
  if (meshRank > 1 && numShards > 1) {
    for (int64_t m = meshRank - 1; m >= 0; --m) {
      Placement target = to[m];
      if (target.isShard()) {
        std::vector<int64_t> curSharding, tgtSharding;
        for (int64_t i = 0; i < m; ++i) {
          if (cur[i].isShard(target.dim))
            curSharding.push_back(i);
          if (to[i].isShard(target.dim))
            tgtSharding.push_back(i);
        }
        if (curSharding != tgtSharding)
          target = Placement::replicate();
      }
      if (cur[m] != target) {
        moves.push_back({m, target});
        cur[m] = target;
      }
    }
  }
  for (int64_t m = 0; m < meshRank; ++m)
    if (cur[m] != to[m]) {
      moves.push_back({m, to[m]});
      cur[m] = to[m];
    }

  return replayMoves(req, cost, "DTensor's greedy", moves, error);
}

//===----------------------------------------------------------------------===//
// The search
//===----------------------------------------------------------------------===//

namespace {
struct Label {
  double time = 0;
  int64_t collectives = 0;
  int64_t bytes = 0;
  int64_t steps = 0;
  int64_t state = 0;
  int64_t parent = -1;
  Step step;
  bool dead = false;
  /// Lower bounds on the time and collectives still needed from `state`.
  double timeToGo = 0;
  int64_t collectivesToGo = 0;
};

constexpr double kTimeEps = 1e-9;

/// Lexicographic: time, then collectives, bytes and steps.
bool better(const Label &a, const Label &b) {
  if (a.time < b.time - kTimeEps)
    return true;
  if (a.time > b.time + kTimeEps)
    return false;
  if (a.collectives != b.collectives)
    return a.collectives < b.collectives;
  if (a.bytes != b.bytes)
    return a.bytes < b.bytes;
  return a.steps < b.steps;
}

bool dominates(const Label &a, const Label &b) {
  return a.time <= b.time + kTimeEps && a.collectives <= b.collectives &&
         a.bytes <= b.bytes && a.steps <= b.steps;
}

/// The search's queue order: `better` on the totals plus the lower bounds
/// of what is still to go (A*).
bool betterEstimate(const Label &a, const Label &b) {
  double ta = a.time + a.timeToGo, tb = b.time + b.timeToGo;
  if (ta < tb - kTimeEps)
    return true;
  if (ta > tb + kTimeEps)
    return false;
  int64_t ca = a.collectives + a.collectivesToGo;
  int64_t cb = b.collectives + b.collectivesToGo;
  if (ca != cb)
    return ca < cb;
  if (a.bytes != b.bytes)
    return a.bytes < b.bytes;
  return a.steps < b.steps;
}

/// A lower bound on the collectives any path from `s` to `goal` needs.
/// Only collectives leave a Shard or a Partial on a mesh dim that splits
/// anything. Every mesh dim that must leave S(d) needs a collective whose
/// source dim is d (all_gather, all_to_all; a merged all_gather covers one d
/// only), and a Partial that must go needs an all_reduce or reduce_scatter,
/// which has no source dim: so one collective per such d, plus one if any
/// Partial must go. A step changes this count by at most one, and local steps
/// only raise it, which makes the bound consistent.
/// Toward a goal with a Partial(sum), a shard can also become a Partial(sum)
/// locally (S(d) -> P(sum)) and leave in the one reduction: while the state
/// has no Partial of another kind, the bound is then one collective if
/// anything must go. A shard whose target is P(sum) needs none.
int64_t collectivesToGo(const State &s, const State &goal, const Shape &mesh) {
  bool reduce = false;
  std::vector<int64_t> dims;
  for (size_t m = 0; m < mesh.size(); ++m) {
    if (mesh[m] == 1)
      continue;
    const Placement &p = s.kinds[m], &g = goal.kinds[m];
    if (p.isPartial() && !(g.isPartial() && g.reduce == p.reduce))
      reduce = true;
    // A shard becomes a Partial(sum) with no collective.
    if (p.isShard() && !g.isShard(p.dim) &&
        !(g.isPartial() && g.reduce == ReduceKind::Sum))
      dims.push_back(p.dim);
  }
  std::optional<ReduceKind> partial = s.partialKind();
  std::optional<ReduceKind> goalPartial = goal.partialKind();
  if (goalPartial && *goalPartial == ReduceKind::Sum &&
      (!partial || *partial == ReduceKind::Sum))
    return reduce || !dims.empty() ? 1 : 0;
  std::sort(dims.begin(), dims.end());
  return int64_t(reduce) +
         (std::unique(dims.begin(), dims.end()) - dims.begin());
}

/// A lower bound on the time of one collective: the base latency and one hop
/// over the fastest link (or 0 when the cost model has negative terms).
double minCollectiveUs(const CostModel &cost, const Shape &mesh) {
  std::vector<LinkParams> links = cost.links(mesh);
  double lat = -1;
  for (size_t m = 0; m < mesh.size(); ++m)
    if (mesh[m] > 1 && (lat < 0 || links[m].latencyUs < lat))
      lat = links[m].latencyUs;
  if (lat < 0 || cost.baseLatencyUs < 0)
    return 0;
  return cost.baseLatencyUs + lat;
}
} // namespace

/// Lexicographic order of whole plans, as of labels.
static bool betterPlan(const Plan &a, const Plan &b) {
  Label la, lb;
  la.time = a.timeUs();
  la.collectives = a.numCollectives();
  la.bytes = a.bytesPerRank();
  la.steps = a.steps.size();
  lb.time = b.timeUs();
  lb.collectives = b.numCollectives();
  lb.bytes = b.bytesPerRank();
  lb.steps = b.steps.size();
  return better(la, lb);
}

namespace {
/// What one run of the search found.
struct SearchOutcome {
  /// The cheapest plan, when the search ran to the goal.
  std::optional<Plan> optimal;
  /// The cheapest complete plan it had seen when its budget ran out.
  std::optional<Plan> bestSeen;
  /// Some path was dropped because its bytes overflowed int64.
  bool droppedForBytes = false;
  /// A step's bytes overflowed int64 (checkRequest should prevent this).
  bool overflowed = false;
};

/// One label-setting search from `start` to `goal` within the greedy bounds
/// and the budget, in plain cost order or, with `estimate`, in order of cost
/// plus a lower bound of the cost to go.
SearchOutcome search(const RedistributeRequest &req, const CostModel &cost,
                     const PlanOptions &options, const State &start,
                     const State &goal, std::optional<int64_t> maxCollectives,
                     std::optional<int64_t> maxBytes, SearchBudget &budget,
                     bool estimate) {
  SearchOutcome out;
  StepBuilder builder(req, cost);
  builder.detailed = false;
  builder.budget = &budget;
  std::optional<ReduceKind> targetPartial = goal.partialKind();
  std::vector<State> states;
  std::unordered_map<std::string, int64_t> ids;
  // The live (undominated) labels of each state.
  std::vector<std::vector<int64_t>> labelsAt;
  std::vector<Label> labels;
  // Lower bounds of the collectives left, per state (-1: not computed yet).
  std::vector<int64_t> toGo;
  double collectiveUs = estimate ? minCollectiveUs(cost, req.mesh) : 0;
  auto stateId = [&](const State &s) {
    auto [it, inserted] = ids.emplace(s.id(), (int64_t)states.size());
    if (inserted) {
      states.push_back(s);
      labelsAt.emplace_back();
      toGo.push_back(-1);
    }
    return it->second;
  };
  auto setToGo = [&](Label &l) {
    if (!estimate)
      return;
    if (toGo[l.state] < 0)
      toGo[l.state] = collectivesToGo(states[l.state], goal, req.mesh);
    l.collectivesToGo = toGo[l.state];
    l.timeToGo = double(l.collectivesToGo) * collectiveUs;
  };
  // Without estimates these are zero and the order is plain `better`.
  auto cmp = [&](int64_t a, int64_t b) {
    return betterEstimate(labels[b], labels[a]);
  };
  std::priority_queue<int64_t, std::vector<int64_t>, decltype(cmp)> queue(cmp);

  /// The plan of the path that ends in label `li`.
  auto planOf = [&](int64_t li) {
    Plan plan;
    for (int64_t i = li; labels[i].parent >= 0; i = labels[i].parent)
      plan.steps.push_back(builder.withDetails(
          labels[i].step, states[labels[labels[i].parent].state],
          states[labels[i].state]));
    std::reverse(plan.steps.begin(), plan.steps.end());
    return plan;
  };

  Label first;
  first.state = stateId(start);
  setToGo(first);
  labels.push_back(first);
  labelsAt[first.state].push_back(0);
  queue.push(0);
  int64_t goalId = stateId(goal);

  std::vector<std::pair<Step, State>> moves;
  while (!queue.empty() && !budget.exhausted()) {
    int64_t li = queue.top();
    queue.pop();
    if (labels[li].dead)
      continue;
    // Labels leave the queue in order of a consistent estimate (or of their
    // cost), so the first at the goal is optimal.
    if (labels[li].state == goalId) {
      out.optimal = planOf(li);
      return out;
    }
    moves.clear();
    // (A reference: only expand reads it, before stateId grows `states`.)
    const State &here = states[labels[li].state];
    builder.expand(here, options, targetPartial, moves);
    if (builder.overflowed) {
      out.overflowed = true;
      return out;
    }
    for (auto &[step, next] : moves) {
      Label l;
      l.time = labels[li].time + step.timeUs;
      l.collectives = labels[li].collectives + isCollective(step.kind);
      std::optional<int64_t> bytes =
          checkedAdd(labels[li].bytes, step.bytesPerRank);
      if (!bytes) {
        // No plan through here can report its bytes.
        out.droppedForBytes = true;
        continue;
      }
      l.bytes = *bytes;
      l.steps = labels[li].steps + 1;
      if ((maxCollectives && l.collectives > *maxCollectives) ||
          (maxBytes && l.bytes > *maxBytes))
        continue;
      l.state = stateId(next);
      setToGo(l);
      if (maxCollectives && l.collectives + l.collectivesToGo > *maxCollectives)
        continue;
      std::vector<int64_t> &at = labelsAt[l.state];
      if (std::any_of(at.begin(), at.end(), [&](int64_t other) {
            return dominates(labels[other], l);
          }))
        continue;
      // Drop the labels this one dominates from the state's live list, so
      // that the list stays the Pareto front and each check stays short.
      size_t kept = 0;
      for (int64_t other : at) {
        if (dominates(l, labels[other]))
          labels[other].dead = true;
        else
          at[kept++] = other;
      }
      at.resize(kept);
      l.parent = li;
      l.step = std::move(step);
      labels.push_back(std::move(l));
      int64_t id = (int64_t)labels.size() - 1;
      at.push_back(id);
      queue.push(id);
    }
  }
  int64_t best = -1;
  for (int64_t li : labelsAt[goalId])
    if (best < 0 || better(labels[li], labels[best]))
      best = li;
  if (best >= 0)
    out.bestSeen = planOf(best);
  return out;
}
} // namespace

std::optional<Plan> planRedistribute(const RedistributeRequest &req,
                                     const CostModel &cost, std::string &error,
                                     const PlanOptions &options) {
  if (!checkRequest(req, error))
    return std::nullopt;
  int64_t rank = req.shape.size();
  State start = State::of(req.from, req.mesh, rank);
  State goal = State::of(req.to, req.mesh, rank);
  if (start == goal)
    return Plan{};

  std::string greedyError;
  std::optional<Plan> greedy = planGreedy(req, cost, greedyError);
  std::optional<int64_t> maxCollectives, maxBytes;
  if (options.boundByGreedy && greedy) {
    maxCollectives = greedy->numCollectives();
    maxBytes = greedy->bytesPerRank();
  }

  // Plain cost order first: it is the order this planner has always used,
  // so the many small problems it finishes keep their exact plans (among
  // equally cheap plans the two orders may pick different ones). A problem
  // it cannot finish within plainSearchSteps is searched again with the
  // lower bound (A*), which explores far fewer states.
  SearchBudget budget(options);
  bool twoPhases = options.lowerBound && options.plainSearchSteps > 0;
  budget.startPhase(twoPhases ? options.plainSearchSteps : 0);
  SearchOutcome run =
      search(req, cost, options, start, goal, maxCollectives, maxBytes, budget,
             /*estimate=*/options.lowerBound && !twoPhases);
  std::vector<Plan> seen;
  if (twoPhases && !run.optimal && !run.overflowed && !budget.spent() &&
      budget.exhausted()) {
    if (run.bestSeen)
      seen.push_back(*run.bestSeen);
    budget.startPhase(0);
    bool dropped = run.droppedForBytes;
    run = search(req, cost, options, start, goal, maxCollectives, maxBytes,
                 budget, /*estimate=*/true);
    run.droppedForBytes |= dropped;
  }
  if (run.overflowed) {
    error = "a step's buffer holds more bytes than fit in a signed 64-bit "
            "integer; use a smaller shape";
    return std::nullopt;
  }
  if (run.optimal) {
    run.optimal->searchedSteps = budget.priced();
    return run.optimal;
  }
  if (!budget.spent()) {
    error = run.droppedForBytes
                ? "every plan from " + formatPlacements(req.from) + " to " +
                      formatPlacements(req.to) +
                      " moves more bytes per rank than fit in a signed 64-bit "
                      "integer; use a smaller shape"
                : "no sequence of legal steps leads from " +
                      formatPlacements(req.from) + " to " +
                      formatPlacements(req.to);
    return std::nullopt;
  }

  // The search stopped early. Its best complete plans, if any, are within
  // the greedy bound; so is the greedy plan. Where greedy is undefined, a
  // plan through Replicate always exists.
  if (run.bestSeen)
    seen.push_back(*run.bestSeen);
  std::optional<Plan> best;
  for (Plan &p : seen)
    if (!best || betterPlan(p, *best))
      best = p;
  std::optional<Plan> fallback = greedy;
  if (!fallback) {
    std::string why;
    fallback = planThroughReplicate(req, cost, why);
    if (!fallback && !best) {
      error = "the search stopped before finding a plan, and " + why;
      return std::nullopt;
    }
  }
  bool fallbackAllowed =
      fallback &&
      (!maxCollectives || (fallback->numCollectives() <= *maxCollectives &&
                           fallback->bytesPerRank() <= *maxBytes));
  bool useFallback = fallbackAllowed && (!best || betterPlan(*fallback, *best));
  if (useFallback)
    best = fallback;
  best->optimal = false;
  best->searchedSteps = budget.priced();
  best->note = budget.reason() + "; this is the best plan found by then" +
               (!useFallback ? ""
                : greedy     ? " (DTensor's greedy plan)"
                             : " (through Replicate)") +
               " and may not be optimal";
  return best;
}

} // namespace dtensor
} // namespace mlir
