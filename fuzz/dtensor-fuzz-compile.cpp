//===- dtensor-fuzz-compile.cpp - fuzz parse, verify and --dtensor-compile ===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Input: MLIR text. Parses and verifies it as dtensor-opt does, then runs the
// --dtensor-compile pipeline and, when that succeeds, emits the result as C++
// (dtensor-translate --dtensor-to-cpp, into a string). Any input may be
// rejected with diagnostics; none may crash our passes or the emitter.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "dtensor/Pipelines/Pipelines.h"
#include "dtensor/Target/Cpp.h"

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
  if (mlir::failed(pm.run(*module)) || mlir::failed(mlir::verify(*module)))
    return 0;
  std::string cpp;
  llvm::raw_string_ostream os(cpp);
  if (mlir::succeeded(mlir::dtensor::prepareForCpp(*module)))
    (void)mlir::dtensor::emitCpp(*module, os);
  return 0;
}
