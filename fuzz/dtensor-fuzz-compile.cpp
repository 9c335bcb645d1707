//===- dtensor-fuzz-compile.cpp - fuzz parse, verify and --dtensor-compile ===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Input: MLIR text. Parses and verifies it as dtensor-opt does, then runs the
// --dtensor-compile pipeline. Any input may be rejected with diagnostics;
// none may crash our passes.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "dtensor/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext &ctx = dtensor_fuzz::context();
  mlir::ScopedDiagnosticHandler quiet(
      &ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      dtensor_fuzz::parse(ctx, data, size);
  if (!module)
    return 0;
  mlir::PassManager pm(&ctx);
  mlir::dtensor::buildCompilePipeline(pm, mlir::dtensor::CompileOptions{});
  (void)pm.run(*module);
  return 0;
}
