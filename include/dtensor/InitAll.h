//===- InitAll.h - register dtensor-mlir's dialects and passes --*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// What a tool needs to understand dtensor programs: our dialect and passes,
// plus the upstream dialects that global-view programs are written in. Named
// one by one (no registerAll*), so tools link only what they use.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_INITALL_H
#define DTENSOR_INITALL_H

#include "dtensor/Dialect/DTensor/IR/DTensor.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "dtensor/Interfaces/ShardingRuleOpInterface.h"
#include "dtensor/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "dtensor/Support/CrashReport.h"

namespace mlir {
namespace dtensor {

/// Our dialect and the upstream ones programs use: func, arith, math, tensor,
/// linalg, scf (and cf for `cf.assert`, the run-time checks partitioning
/// makes), with the sharding rules of their ops.
inline void registerAllDialects(DialectRegistry &registry) {
  registry.insert<DTensorDialect, func::FuncDialect, arith::ArithDialect,
                  cf::ControlFlowDialect,
                  math::MathDialect, tensor::TensorDialect,
                  linalg::LinalgDialect, scf::SCFDialect>();
  registerShardingRuleModels(registry);
}

/// Our passes plus the generic upstream cleanups used in pipelines.
inline void registerAllPasses() {
  registerDTensorPasses();
  registerCompilePipeline();
  registerCanonicalizerPass();
  registerCSEPass();
  registerSymbolDCEPass();
}

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_INITALL_H
