//===- Pipelines.h - named dtensor pipelines --------------------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_PIPELINES_PIPELINES_H
#define DTENSOR_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace dtensor {

/// Options of --dtensor-compile: knobs that do not depend on the mesh.
struct CompileOptions : public PassPipelineOptions<CompileOptions> {
  PassOptions::Option<int64_t> devicesPerHost{
      *this, "devices-per-host",
      llvm::cl::desc("Devices per host in the cost model (default 8)"),
      llvm::cl::init(8)};
  PassOptions::Option<bool> explain{
      *this, "explain",
      llvm::cl::desc("Print why propagation inserted each redistribute"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> overlap{
      *this, "overlap",
      llvm::cl::desc("End with dtensor-schedule-async: collectives start as "
                     "early and wait as late as their values allow"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> narrow{
      *this, "narrow",
      llvm::cl::desc("Run dtensor-narrow-moves: move the narrow inputs of an "
                     "element-wise value (int8 data and scale, bf16) and "
                     "compute it after the move, where that costs less"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> wholeFunctionOps{
      *this, "whole-function-ops",
      llvm::cl::desc("Propagation also solves functions of at most this "
                     "many ops (one block; constant-trip scf.for loops, "
                     "scf.if branches and private callees taken in) exactly "
                     "over every op's "
                     "strategies, kept where it costs less; 0 turns it off"),
      llvm::cl::init(200)};
  PassOptions::Option<int64_t> wholeFunctionWindows{
      *this, "whole-function-windows",
      llvm::cl::desc("Larger functions are solved in windows of "
                     "whole-function-window-ops consecutive ops, the windows "
                     "whose ops move the most first, at most this many; 0: "
                     "none"),
      llvm::cl::init(4)};
  PassOptions::Option<int64_t> wholeFunctionWindowOps{
      *this, "whole-function-window-ops",
      llvm::cl::desc("The ops to decide in one window (at most "
                     "whole-function-ops)"),
      llvm::cl::init(100)};
  PassOptions::Option<double> wholeFunctionSeconds{
      *this, "whole-function-seconds",
      llvm::cl::desc("Time limit of CBC per function where elimination and "
                     "the exact branch and bound do not finish; 0: no CBC"),
      llvm::cl::init(0.5)};
  PassOptions::Option<std::string> autoShard{
      *this, "auto-shard",
      llvm::cl::desc("Auto-sharding: the mesh over which the unannotated "
                     "tensor arguments of public functions get placements "
                     "chosen by propagation (see dtensor-propagate)")};
  PassOptions::Option<double> memoryBudgetMb{
      *this, "memory-budget-mb",
      llvm::cl::desc("With auto-shard: the most MiB per rank the chosen "
                     "arguments' shards may take; 0: no budget"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> bucketBytes{
      *this, "bucket-bytes",
      llvm::cl::desc("The most bytes one merged bucket of all_reduces may "
                     "hold (dtensor-bucket-collectives); 0 merges none"),
      llvm::cl::init(26214400)};
};

/// normalize-specs -> verify -> propagate -> insert-redistribute ->
/// narrow-moves -> partition -> lower-redistribute -> canonicalize -> cse ->
/// mask-lookups -> optimize-collectives -> cse -> bucket-collectives (unless
/// bucket-bytes=0) (-> schedule-async with overlap=1).
void buildCompilePipeline(OpPassManager &pm, const CompileOptions &options);

/// Registers --dtensor-compile.
void registerCompilePipeline();

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_PIPELINES_PIPELINES_H
