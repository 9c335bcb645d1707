//===- Pipelines.cpp - named dtensor pipelines ----------------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Pipelines/Pipelines.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::dtensor;

void mlir::dtensor::buildCompilePipeline(OpPassManager &pm,
                                         const CompileOptions &options) {
  pm.addPass(createDTensorNormalizeSpecsPass());
  pm.addPass(createDTensorVerifyPass());
  DTensorPropagatePassOptions propagate;
  propagate.devicesPerHost = options.devicesPerHost;
  propagate.explain = options.explain;
  propagate.narrow = options.narrow;
  propagate.wholeFunctionOps = options.wholeFunctionOps;
  propagate.wholeFunctionSeconds = options.wholeFunctionSeconds;
  propagate.wholeFunctionWindows = options.wholeFunctionWindows;
  propagate.wholeFunctionWindowOps = options.wholeFunctionWindowOps;
  propagate.autoShard = options.autoShard;
  propagate.memoryBudgetMb = options.memoryBudgetMb;
  pm.addPass(createDTensorPropagatePass(propagate));
  pm.addPass(createDTensorInsertRedistributePass());
  if (options.narrow) {
    DTensorNarrowMovesPassOptions narrow;
    narrow.devicesPerHost = options.devicesPerHost;
    pm.addPass(createDTensorNarrowMovesPass(narrow));
  }
  pm.addPass(createDTensorPartitionPass());
  DTensorLowerRedistributePassOptions lower;
  lower.devicesPerHost = options.devicesPerHost;
  pm.addPass(createDTensorLowerRedistributePass(lower));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createDTensorMaskLookupsPass());
  // Equal collectives merge only once the compute feeding them has been
  // merged by CSE; what they feed merges in the second CSE.
  pm.addPass(createDTensorOptimizeCollectivesPass());
  pm.addPass(createCSEPass());
  // All_reduces of one group whose results nothing reads in between pay
  // one latency together (DDP's buckets); then, with overlap, each starts
  // early and is waited late.
  if (options.bucketBytes > 0) {
    DTensorBucketCollectivesPassOptions bucket;
    bucket.bucketBytes = options.bucketBytes;
    pm.addPass(createDTensorBucketCollectivesPass(bucket));
  }
  if (options.overlap)
    pm.addPass(createDTensorScheduleAsyncPass());
}

void mlir::dtensor::registerCompilePipeline() {
  PassPipelineRegistration<CompileOptions>(
      "dtensor-compile",
      "Compile a global-view DTensor program into one SPMD program per rank: "
      "normalize specs, verify, propagate shardings, insert redistributes, "
      "move narrow inputs instead of element-wise values computed from them, "
      "partition into the local view, lower redistributes to planned "
      "collectives, clean up, look tables up where they are sharded, move "
      "loop-invariant collectives out of loops "
      "and merge equal ones, merge all_reduces of one group into buckets; "
      "with overlap=1, start collectives early and wait late",
      buildCompilePipeline);
}
