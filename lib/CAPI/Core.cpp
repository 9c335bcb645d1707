//===- Core.cpp - C API: layouts and redistribution plans -----------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor-c/Core.h"
#include "dtensor/Core/Layout.h"
#include "dtensor/Core/Redistribute.h"

#include <cstring>
#include <string>

using namespace mlir::dtensor;

namespace {

void report(MlirStringCallback error, void *userData,
            const std::string &message) {
  if (error)
    error(mlirStringRefCreate(message.data(), message.size()), userData);
}

bool toCore(const DTensorPlacement &p, Placement &out, std::string &error) {
  // A caller may store any integer in the enum fields: read them as the
  // integers they hold (loading an out-of-range enum value is undefined).
  int kind = 0, reduce = 0;
  static_assert(sizeof p.kind == sizeof(int) && sizeof p.reduce == sizeof(int));
  std::memcpy(&kind, &p.kind, sizeof kind);
  std::memcpy(&reduce, &p.reduce, sizeof reduce);
  switch (kind) {
  case DTensorPlacementReplicate:
    out = Placement::replicate();
    return true;
  case DTensorPlacementShard:
    out = Placement::shard(p.dim, p.order);
    return true;
  case DTensorPlacementPartial:
    if (reduce < int(DTensorReduceSum) || reduce > int(DTensorReduceProduct)) {
      error = "unknown Partial reduction " + std::to_string(reduce);
      return false;
    }
    out = Placement::partial(ReduceKind(reduce));
    return true;
  }
  error = "unknown placement kind " + std::to_string(kind);
  return false;
}

DTensorPlacement fromCore(const Placement &p) {
  DTensorPlacement out;
  out.kind = DTensorPlacementKind(p.kind);
  out.dim = p.isShard() ? p.dim : 0;
  out.reduce = DTensorReduceKind(p.reduce);
  out.order = p.isShard() ? p.order : -1;
  return out;
}

bool toCore(const DTensorPlacement *ps, intptr_t n, Placements &out,
            std::string &error) {
  if (n < 0 || (n > 0 && !ps)) {
    error = "no placements given";
    return false;
  }
  out.resize(n);
  for (intptr_t i = 0; i < n; ++i)
    if (!toCore(ps[i], out[i], error))
      return false;
  return true;
}

bool toShape(const int64_t *data, intptr_t n, Shape &out, const char *what,
             std::string &error) {
  if (n < 0 || (n > 0 && !data)) {
    error = std::string("no ") + what + " given";
    return false;
  }
  out.assign(data, data + n);
  return true;
}

/// What a DTensorPlan points to: the plan, and each step's mesh dims as
/// int64_t (the C view's pointers point here).
struct OwnedPlan {
  Plan plan;
  std::vector<std::vector<int64_t>> meshDims;
  std::vector<std::string> before, after;
};

OwnedPlan *unwrap(DTensorPlan plan) {
  return static_cast<OwnedPlan *>(plan.ptr);
}

} // namespace

MlirLogicalResult dtensorParsePlacements(MlirStringRef text,
                                         DTensorPlacement *out,
                                         intptr_t capacity, intptr_t *count,
                                         MlirStringCallback error,
                                         void *userData) {
  Placements ps;
  std::string why;
  if (!parsePlacements(std::string_view(text.data, text.length), ps, why)) {
    report(error, userData, why);
    return mlirLogicalResultFailure();
  }
  if (count)
    *count = intptr_t(ps.size());
  if (intptr_t(ps.size()) > capacity || (!ps.empty() && !out)) {
    report(error, userData,
           std::to_string(ps.size()) + " placements do not fit in room for " +
               std::to_string(capacity));
    return mlirLogicalResultFailure();
  }
  for (size_t i = 0; i < ps.size(); ++i)
    out[i] = fromCore(ps[i]);
  return mlirLogicalResultSuccess();
}

void dtensorPrintPlacements(const DTensorPlacement *ps, intptr_t n,
                            MlirStringCallback callback, void *userData) {
  if (!callback)
    return;
  Placements core;
  std::string error;
  std::string text =
      toCore(ps, n, core, error) ? formatPlacements(core) : "<" + error + ">";
  callback(mlirStringRefCreate(text.data(), text.size()), userData);
}

MlirLogicalResult dtensorLocalShard(const int64_t *mesh, intptr_t meshRank,
                                    const int64_t *shape, intptr_t rank,
                                    const DTensorPlacement *placements,
                                    int64_t deviceRank, int64_t *localShape,
                                    int64_t *offset, MlirStringCallback error,
                                    void *userData) {
  std::string why;
  Shape meshShape, global;
  Placements ps;
  if (!toShape(mesh, meshRank, meshShape, "mesh", why) ||
      !toShape(shape, rank, global, "shape", why) ||
      !toCore(placements, meshRank, ps, why)) {
    report(error, userData, why);
    return mlirLogicalResultFailure();
  }
  for (int64_t d : global)
    if (d < 0) {
      report(error, userData, "shape has a negative size " + std::to_string(d));
      return mlirLogicalResultFailure();
    }
  std::optional<Layout> layout = Layout::create(meshShape, rank, ps, why);
  if (!layout) {
    report(error, userData, why);
    return mlirLogicalResultFailure();
  }
  if (deviceRank < 0 || deviceRank >= layout->numRanks()) {
    report(error, userData,
           "device rank " + std::to_string(deviceRank) + " is not in [0, " +
               std::to_string(layout->numRanks()) + ")");
    return mlirLogicalResultFailure();
  }
  Shard shard = layout->shardOf(global, deviceRank);
  for (intptr_t d = 0; d < rank; ++d) {
    if (localShape)
      localShape[d] = shard.shape[d];
    if (offset)
      offset[d] = shard.offset[d];
  }
  return mlirLogicalResultSuccess();
}

DTensorPlan dtensorPlanRedistribute(const int64_t *mesh, intptr_t meshRank,
                                    const int64_t *shape, intptr_t rank,
                                    int64_t elementBytes,
                                    const DTensorPlacement *from,
                                    const DTensorPlacement *to,
                                    int64_t devicesPerHost,
                                    MlirStringCallback error, void *userData) {
  RedistributeRequest request;
  std::string why;
  if (!toShape(mesh, meshRank, request.mesh, "mesh", why) ||
      !toShape(shape, rank, request.shape, "shape", why) ||
      !toCore(from, meshRank, request.from, why) ||
      !toCore(to, meshRank, request.to, why)) {
    report(error, userData, why);
    return {nullptr};
  }
  if (elementBytes <= 0) {
    report(error, userData,
           "element size " + std::to_string(elementBytes) +
               " is not positive");
    return {nullptr};
  }
  request.elementBytes = elementBytes;
  CostModel cost;
  if (devicesPerHost < 0) {
    report(error, userData, "devices per host is negative");
    return {nullptr};
  }
  if (devicesPerHost > 0)
    cost.devicesPerHost = devicesPerHost;
  std::optional<Plan> plan = planRedistribute(request, cost, why);
  if (!plan) {
    report(error, userData, why);
    return {nullptr};
  }
  auto *owned = new OwnedPlan{std::move(*plan), {}, {}, {}};
  for (const Step &s : owned->plan.steps) {
    owned->meshDims.emplace_back(s.meshDims.begin(), s.meshDims.end());
    owned->before.push_back(formatPlacements(s.before));
    owned->after.push_back(formatPlacements(s.after));
  }
  return {owned};
}

void dtensorPlanDestroy(DTensorPlan plan) { delete unwrap(plan); }

intptr_t dtensorPlanGetNumSteps(DTensorPlan plan) {
  return plan.ptr ? intptr_t(unwrap(plan)->plan.steps.size()) : 0;
}

DTensorPlanStep dtensorPlanGetStep(DTensorPlan plan, intptr_t index) {
  DTensorPlanStep out{};
  if (!plan.ptr || index < 0 || index >= dtensorPlanGetNumSteps(plan)) {
    out.kind = "";
    out.fromDim = out.toDim = -1;
    return out;
  }
  OwnedPlan *p = unwrap(plan);
  const Step &s = p->plan.steps[index];
  out.kind = stringifyStepKind(s.kind);
  out.numMeshDims = intptr_t(p->meshDims[index].size());
  out.meshDims = p->meshDims[index].data();
  out.fromDim = s.fromDim;
  out.toDim = s.toDim;
  out.reduce = DTensorReduceKind(s.reduce);
  out.bytesPerRank = s.bytesPerRank;
  out.timeUs = s.timeUs;
  return out;
}

void dtensorPlanPrintStepStates(DTensorPlan plan, intptr_t index,
                                MlirStringCallback before,
                                MlirStringCallback after, void *userData) {
  if (!plan.ptr || index < 0 || index >= dtensorPlanGetNumSteps(plan))
    return;
  OwnedPlan *p = unwrap(plan);
  if (before)
    before(mlirStringRefCreate(p->before[index].data(),
                               p->before[index].size()),
           userData);
  if (after)
    after(mlirStringRefCreate(p->after[index].data(), p->after[index].size()),
          userData);
}

int64_t dtensorPlanGetNumCollectives(DTensorPlan plan) {
  return plan.ptr ? unwrap(plan)->plan.numCollectives() : 0;
}

int64_t dtensorPlanGetBytesPerRank(DTensorPlan plan) {
  return plan.ptr ? unwrap(plan)->plan.bytesPerRank() : 0;
}

double dtensorPlanGetTimeUs(DTensorPlan plan) {
  return plan.ptr ? unwrap(plan)->plan.timeUs() : 0;
}

bool dtensorPlanIsOptimal(DTensorPlan plan) {
  return plan.ptr && unwrap(plan)->plan.optimal;
}
