//===- Dialects.cpp - C API: dialect, passes, pipelines -------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor-c/Dialects.h"
#include "dtensor/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(DTensor, dtensor,
                                      mlir::dtensor::DTensorDialect)

void dtensorRegisterRequiredDialects(MlirDialectRegistry registry) {
  dtensor::registerAllDialects(*unwrap(registry));
}

void dtensorRegisterPasses(void) {
  static bool once = [] {
    dtensor::registerAllPasses();
    return true;
  }();
  (void)once;
}

MlirLogicalResult dtensorRunPassPipeline(MlirModule module,
                                         MlirStringRef pipeline,
                                         MlirStringCallback error,
                                         void *userData) {
  dtensorRegisterPasses();
  ModuleOp op = unwrap(module);
  PassManager pm(op->getContext());
  std::string parseError;
  llvm::raw_string_ostream os(parseError);
  llvm::StringRef text = unwrap(pipeline);
  auto report = [&](const std::string &message) {
    if (error)
      error(mlirStringRefCreate(message.data(), message.size()), userData);
  };
  if (failed(parsePassPipeline(text, pm, os))) {
    report("'" + text.str() + "' is not a pass pipeline: " +
           llvm::StringRef(parseError).trim().str());
    return mlirLogicalResultFailure();
  }
  if (failed(pm.run(op))) {
    report("the pipeline '" + text.str() +
           "' failed (the diagnostics say where)");
    return mlirLogicalResultFailure();
  }
  return mlirLogicalResultSuccess();
}
