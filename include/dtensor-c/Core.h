/*===-- dtensor-c/Core.h - C API: layouts and redistribution plans -*- C -*-===*\
|*                                                                            *|
|* Part of dtensor-mlir.                                                      *|
|*                                                                            *|
|* Plain C over the semantic core, no IR needed: the shard a rank holds of a *|
|* tensor under DTensor placements (torch.chunk sizes, nested shard orders,  *|
|* empty shards), and the cheapest redistribution plan between two           *|
|* placements (steps, collectives, bytes, modelled time). Errors come back   *|
|* as text through an MlirStringCallback; nothing aborts.                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef DTENSOR_C_CORE_H
#define DTENSOR_C_CORE_H

#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum DTensorPlacementKind {
  DTensorPlacementReplicate = 0,
  DTensorPlacementShard = 1,
  DTensorPlacementPartial = 2,
} DTensorPlacementKind;

typedef enum DTensorReduceKind {
  DTensorReduceSum = 0,
  DTensorReduceAvg = 1,
  DTensorReduceMax = 2,
  DTensorReduceMin = 3,
  DTensorReduceProduct = 4,
} DTensorReduceKind;

/// One mesh dim's placement, as DTensor defines them: Replicate, Shard(dim)
/// or Partial(reduce). `order` places a Shard in its tensor dim's shard
/// order (0 = split first), or is -1 for the default (mesh dims left to
/// right), as in `S(0)[1]`.
typedef struct DTensorPlacement {
  DTensorPlacementKind kind;
  int64_t dim;
  DTensorReduceKind reduce;
  int64_t order;
} DTensorPlacement;

/// Parses placements written as in specs, `[S(0), R, P(sum)]` or
/// `[S(0)[1], S(0)[0]]`, into `out` (room for `capacity`); `*count` gets how
/// many there are. Fails (through `error`) on bad syntax or too little room.
MLIR_CAPI_EXPORTED MlirLogicalResult dtensorParsePlacements(
    MlirStringRef text, DTensorPlacement *out, intptr_t capacity,
    intptr_t *count, MlirStringCallback error, void *userData);

/// Prints placements in the spec syntax (`[S(0), R]`) to `callback`.
MLIR_CAPI_EXPORTED void dtensorPrintPlacements(const DTensorPlacement *ps,
                                               intptr_t numPlacements,
                                               MlirStringCallback callback,
                                               void *userData);

/// The shard device `deviceRank` (row-major over the mesh) holds of a tensor
/// of shape `shape` under `placements` (one per mesh dim): its local shape
/// and global offset, `rank` entries each. A dim whose shard is empty
/// reports the dim's global size as its offset, as DTensor does.
MLIR_CAPI_EXPORTED MlirLogicalResult dtensorLocalShard(
    const int64_t *mesh, intptr_t meshRank, const int64_t *shape, intptr_t rank,
    const DTensorPlacement *placements, int64_t deviceRank,
    int64_t *localShape, int64_t *offset, MlirStringCallback error,
    void *userData);

/// A redistribution plan, owned by the caller (dtensorPlanDestroy).
typedef struct DTensorPlan {
  void *ptr;
} DTensorPlan;

/// One step of a plan. `kind` is `all_gather`, `all_reduce`,
/// `reduce_scatter`, `all_to_all` or `local` (a static string). The group is
/// the ranks differing only along `meshDims`. `fromDim` is the tensor dim
/// the step unshards, `toDim` the one it shards (-1 when none).
/// `bytesPerRank` is the larger per-rank buffer (0 for local steps).
typedef struct DTensorPlanStep {
  const char *kind;
  intptr_t numMeshDims;
  const int64_t *meshDims;
  int64_t fromDim;
  int64_t toDim;
  DTensorReduceKind reduce;
  int64_t bytesPerRank;
  double timeUs;
} DTensorPlanStep;

/// The cheapest plan moving a tensor of `shape` (elements of
/// `elementBytes`) from placements `from` to `to` on `mesh` (one placement
/// per mesh dim each), under the default cost model with `devicesPerHost`
/// devices per host (8 when 0). A null plan, with the reason through
/// `error`, when a transition is illegal (S -> P, P(x) -> P(y), ...).
MLIR_CAPI_EXPORTED DTensorPlan dtensorPlanRedistribute(
    const int64_t *mesh, intptr_t meshRank, const int64_t *shape, intptr_t rank,
    int64_t elementBytes, const DTensorPlacement *from,
    const DTensorPlacement *to, int64_t devicesPerHost,
    MlirStringCallback error, void *userData);

static inline bool dtensorPlanIsNull(DTensorPlan plan) { return !plan.ptr; }
MLIR_CAPI_EXPORTED void dtensorPlanDestroy(DTensorPlan plan);
MLIR_CAPI_EXPORTED intptr_t dtensorPlanGetNumSteps(DTensorPlan plan);
/// Step `index`; its pointers live as long as the plan.
MLIR_CAPI_EXPORTED DTensorPlanStep dtensorPlanGetStep(DTensorPlan plan,
                                                      intptr_t index);
/// The placements before and after step `index`, in the spec syntax.
MLIR_CAPI_EXPORTED void dtensorPlanPrintStepStates(DTensorPlan plan,
                                                   intptr_t index,
                                                   MlirStringCallback before,
                                                   MlirStringCallback after,
                                                   void *userData);
MLIR_CAPI_EXPORTED int64_t dtensorPlanGetNumCollectives(DTensorPlan plan);
MLIR_CAPI_EXPORTED int64_t dtensorPlanGetBytesPerRank(DTensorPlan plan);
MLIR_CAPI_EXPORTED double dtensorPlanGetTimeUs(DTensorPlan plan);
/// False when the search hit its step bound before it could prove the plan
/// cheapest (it is then still legal and never worse than DTensor's greedy).
MLIR_CAPI_EXPORTED bool dtensorPlanIsOptimal(DTensorPlan plan);

#ifdef __cplusplus
}
#endif

#endif // DTENSOR_C_CORE_H
