//===- Redistribute.h - Redistribution planning, plain C++ -------*- C++ -*-===//
//
// Part of dtensor-mlir. The semantic core: no MLIR IR here.
//
//===----------------------------------------------------------------------===//
//
// Plans how a DTensor moves from one spec to another: a sequence of steps,
// each a collective (all_gather, all_reduce, reduce_scatter, all_to_all) or a
// local op over one or more mesh dims, through states that are legal DTensor
// layouts (placements plus shard orders). The planner searches all legal step
// sequences for a minimum-cost one under a per-mesh-dim latency/bandwidth
// model, never using more collectives or bytes than PyTorch's default greedy
// plan, which is re-implemented here as the baseline.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_CORE_REDISTRIBUTE_H
#define DTENSOR_CORE_REDISTRIBUTE_H

#include "dtensor/Core/Layout.h"
#include "dtensor/Core/Placement.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace dtensor {

//===----------------------------------------------------------------------===//
// Cost model
//===----------------------------------------------------------------------===//

/// Latency and bandwidth of the links one mesh dim's groups use.
struct LinkParams {
  double latencyUs = 0;
  double bandwidthGBs = 1;
};

/// What a step does.
enum class StepKind : uint8_t {
  AllGather,
  AllReduce,
  ReduceScatter,
  AllToAll,
  /// R -> S(d): keep this rank's chunk.
  LocalChunk,
  /// R -> P(sum): divide by the group size.
  LocalDivide,
  /// S(d) -> P(sum) (DTensor 2.15 accepts it): this rank's shard in place
  /// in the extent the group holds together, zeros elsewhere.
  LocalZeroPad,
  /// A change that moves no data: R -> P(avg|max|min), or any change on a
  /// size-1 mesh dim.
  LocalNoop,
};

/// `all_gather`, `all_reduce`, `reduce_scatter`, `all_to_all`, or `local`.
const char *stringifyStepKind(StepKind kind);
bool isCollective(StepKind kind);

/// Ring-algorithm costs with per-mesh-dim links, after DTensor's model: a
/// mesh dim whose groups span more devices than fit on one host (counting
/// mesh dims from the innermost) uses the slower inter-host links.
struct CostModel {
  double baseLatencyUs = 6.6;
  double intraHostLatencyUs = 0.6;
  double interHostLatencyUs = 2.7;
  double intraHostBandwidthGBs = 87.7;
  double interHostBandwidthGBs = 87.7 * 0.22;
  int64_t devicesPerHost = 8;

  /// The link of every mesh dim.
  std::vector<LinkParams> links(const Shape &mesh) const;
  /// Time of one collective of `kind` over a group of `groupSize` ranks whose
  /// slowest link is `link`, moving `bytes` per rank (the larger buffer).
  double collectiveTimeUs(StepKind kind, int64_t groupSize,
                          const LinkParams &link, int64_t bytes) const;
  /// Time of one permute (each rank sends `bytes` to one peer and receives
  /// from another) over `link`; `hops` peers in turn for a broadcast down a
  /// ring.
  double pointToPointTimeUs(const LinkParams &link, int64_t bytes,
                            int64_t hops = 1) const;
};

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

/// One step of a plan.
struct Step {
  StepKind kind = StepKind::LocalNoop;
  /// The group: ranks differing only along these mesh dims, row-major in
  /// this order (a merged step lists several).
  std::vector<int64_t> meshDims;
  /// Tensor dim this step unshards (all_gather, all_to_all's concat dim),
  /// or -1.
  int64_t fromDim = -1;
  /// Tensor dim this step shards (reduce_scatter, all_to_all's split dim,
  /// local chunk), or -1.
  int64_t toDim = -1;
  /// Reduction of all_reduce / reduce_scatter.
  ReduceKind reduce = ReduceKind::Sum;
  /// States before and after (explicit orders only where not default).
  Placements before, after;
  /// The shape of the tensor the group works on (the largest over ranks).
  Shape logicalShape;
  /// Bytes of the larger per-rank buffer (0 for local steps). Uneven shards
  /// are padded to the largest piece, as the lowering does.
  int64_t bytesPerRank = 0;
  double timeUs = 0;
};

/// A redistribution plan and its totals.
struct Plan {
  std::vector<Step> steps;
  /// False when the search reached a limit of PlanOptions (maxSearchSteps,
  /// searchTimeMs) before it could prove a plan the cheapest. The plan is
  /// then the cheaper of the best complete plan the search had found and
  /// DTensor's greedy plan (or, where greedy is undefined, a plan through
  /// Replicate): legal, never worse than greedy, but maybe not optimal.
  bool optimal = true;
  /// Why the plan may not be optimal (empty when it is), for messages.
  std::string note;
  /// Candidate steps the search priced (0 when there was nothing to search).
  int64_t searchedSteps = 0;
  int64_t numCollectives() const;
  /// The sum of the steps' bytes; the planners check that it fits in int64.
  int64_t bytesPerRank() const;
  double timeUs() const;
  /// Collectives by kind name.
  std::map<std::string, int64_t> counts() const;
};

/// One redistribution question. The planner accepts tensors whose byte size
/// fits in int64 even with one dim padded by the mesh's rank count (the most
/// a gathered or scattered buffer can grow), and reports an error otherwise
/// (docs/Layout.md, "Size bounds").
struct RedistributeRequest {
  Shape mesh;
  Shape shape;
  int64_t elementBytes = 4;
  Placements from, to;
};

/// Knobs of the search, mostly for tests and benchmarks.
struct PlanOptions {
  /// Offer collectives over flattened groups of several mesh dims where that
  /// is exact.
  bool mergeGroups = true;
  /// Never return more collectives or more bytes than DTensor's greedy plan
  /// (when it exists: default shard orders).
  bool boundByGreedy = true;
  /// Only offer R -> P(op) for the Partial kind of the target (other Partial
  /// intermediates can only add collectives).
  bool prunePartials = true;
  /// Let the search order states by cost so far plus a lower bound of the
  /// cost still to go (A*: the collectives that must still happen, each at
  /// least one hop's latency). It finds a plan as cheap as plain cost order
  /// (Dijkstra) does, exploring far fewer states on large meshes, but may
  /// pick another among equally cheap plans.
  bool lowerBound = true;
  /// With lowerBound, the steps to price in plain cost order before the
  /// search restarts with the lower bound; 0 to use the bound from the
  /// start. Plain order first keeps the plans this planner has always given
  /// wherever it finishes quickly (every planner-benchmark and test case
  /// needs under 10,000 priced steps).
  int64_t plainSearchSteps = 20000;
  /// The most candidate steps the search may price before it stops and
  /// returns the best plan it has (Plan::optimal is then false); 0 for no
  /// limit. Each priced step costs bounded time and at most one stored
  /// label, so this bounds both time and memory, and unlike a clock it gives
  /// the same plan on every machine. The default costs at most about 1 s and
  /// 50 MB on this project's machine; no planner-benchmark or test case needs
  /// more than 8,200, while some 8-D meshes would take minutes and gigabytes
  /// (docs/Redistribution.md, "Bounding the search").
  int64_t maxSearchSteps = 200000;
  /// A wall-clock budget for the search in milliseconds, checked as steps
  /// are priced; 0 for none. Plans then depend on the machine's speed, so
  /// the compiler leaves it off; interactive tools may set it.
  double searchTimeMs = 0;
};

/// Element size of a dtype name (f32, f64, f16, bf16, i1, i8, i16, i32, i64),
/// or 0 when unknown.
int64_t elementBytesOf(const std::string &dtype);

/// The minimum-cost plan (see PlanOptions::maxSearchSteps for when it may
/// not be), or std::nullopt with `error` set when a spec is invalid, a mesh
/// dim asks for an illegal transition (S -> P, P(x) -> P(y),
/// R -> P(product)), or the tensor is too large to count its bytes in int64.
std::optional<Plan> planRedistribute(const RedistributeRequest &request,
                                     const CostModel &cost, std::string &error,
                                     const PlanOptions &options = {});

/// PyTorch DTensor's default greedy plan (replicate misaligned shards from
/// the innermost mesh dim outwards, then apply targets outermost first), one
/// mesh dim per step. Defined for default shard orders only; std::nullopt
/// with `error` otherwise.
std::optional<Plan> planGreedy(const RedistributeRequest &request,
                               const CostModel &cost, std::string &error);

/// Every step legal from `state` (placements with shard orders), with costs.
/// Exposed for tests that enumerate plans by brute force.
std::vector<Step> legalSteps(const RedistributeRequest &request,
                             const CostModel &cost, const Placements &state,
                             const PlanOptions &options = {});

/// `steps` (a plan for another request with the same mesh, rank and
/// placements, e.g. another shape) replayed on `request`: each step's
/// collective kind, group and tensor dims taken from the request's source
/// state in turn, priced on its shape. std::nullopt with `error` when a step
/// is not legal there, the steps do not end in the target, or the bytes
/// overflow. Callers that price many shapes of one placement pattern plan
/// it once and replay it (the result is a legal plan, not necessarily the
/// cheapest for this shape).
std::optional<Plan> replayPlan(const RedistributeRequest &request,
                               const CostModel &cost,
                               const std::vector<Step> &steps,
                               std::string &error);

/// replayPlan's time (Plan::timeUs) without building the plan, for callers
/// that price many shapes of one placement pattern. `steps` must come from a
/// plan (planRedistribute or replayPlan) for a request with the same mesh,
/// rank and placements, which checked those; the shape's own bounds are
/// checked here.
std::optional<double> replayTimeUs(const RedistributeRequest &request,
                                   const CostModel &cost,
                                   const std::vector<Step> &steps,
                                   std::string &error);

/// replayTimeUs with the bytes per rank the replayed plan moves (Plan::
/// bytesPerRank), for callers that weigh both.
std::optional<std::pair<double, int64_t>>
replayPrice(const RedistributeRequest &request, const CostModel &cost,
            const std::vector<Step> &steps, std::string &error);

/// A plan compiled for pricing on other shapes of its placement pattern: what
/// replayPrice computes for the same steps, without walking planner states.
/// Compiling replays the steps once on the pattern (mesh, rank, element
/// size, placements) and keeps, per step, what its price depends on: the
/// collective, its group and link, the mesh sizes that split each tensor dim
/// before and after it, which dim its buffer scales, and for a step over
/// several mesh dims the evenness it needs. Pricing a shape is then a few
/// integer divisions per step (callers price thousands of shapes per
/// pattern: the whole-function model of propagation).
class PricedPlan {
public:
  /// Compiles `steps` (a plan for a request with `request`'s mesh, rank,
  /// element size and placements). When the steps are not legal on that
  /// pattern whatever the shape (a step not offered from its state, the
  /// steps not ending in the target), the compiled plan prices nothing:
  /// price() fails, as replayPrice would on every shape.
  PricedPlan(const RedistributeRequest &request, const CostModel &cost,
             const std::vector<Step> &steps);

  /// replayPrice(request with this shape, steps): the same time and bytes,
  /// or std::nullopt exactly where it fails (a shape out of bounds, an
  /// uneven piece a merged step cannot take, bytes that overflow).
  std::optional<std::pair<double, int64_t>> price(const Shape &shape) const;

  /// Whether the steps replay on the pattern at all (else price() fails).
  bool replayable() const { return ok; }

private:
  struct Priced {
    StepKind kind = StepKind::LocalNoop;
    int64_t groupSize = 1;
    LinkParams link;
    /// Mesh sizes splitting each tensor dim, outermost first, before and
    /// after the step.
    std::vector<std::vector<int64_t>> before, after;
    /// The tensor dims it gathers and scatters (its buffer's size).
    int64_t fromDim = -1, toDim = -1;
    /// A merged step's evenness: every piece of `evenDim` after chunking by
    /// the mesh dims `evenPrefix` must divide into groupSize (-1: none).
    int64_t evenDim = -1;
    std::vector<int64_t> evenPrefix;
  };
  Shape mesh;
  int64_t elementBytes = 4;
  CostModel cost;
  std::vector<Priced> steps;
  bool ok = false;
};

/// Whether two states are the same layout on `mesh` (placements and shard
/// orders; where a size-1 mesh dim sits in an order does not matter).
bool sameState(const Placements &a, const Placements &b, const Shape &mesh,
               int64_t rank);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_CORE_REDISTRIBUTE_H
