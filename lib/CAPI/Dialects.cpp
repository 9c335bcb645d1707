//===- Dialects.cpp - C API: dialect, passes, pipelines -------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor-c/Dialects.h"
#include "dtensor/InitAll.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "dtensor/Support/InputScreen.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(DTensor, dtensor,
                                      mlir::dtensor::DTensorDialect)

void dtensorRegisterRequiredDialects(MlirDialectRegistry registry) {
  dtensor::registerAllDialects(*unwrap(registry));
}

void dtensorContextSetPrintOpOnDiagnostic(MlirContext context, bool enable) {
  unwrap(context)->printOpOnDiagnostic(enable);
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
  if (mlirModuleIsNull(module)) {
    static const char message[] = "dtensorRunPassPipeline: the module is null";
    if (error)
      error(mlirStringRefCreate(message, sizeof(message) - 1), userData);
    return mlirLogicalResultFailure();
  }
  ModuleOp op = unwrap(module);
  PassManager pm(op->getContext());
  std::string parseError;
  llvm::raw_string_ostream os(parseError);
  llvm::StringRef text = unwrap(pipeline);
  auto report = [&](const std::string &message) {
    if (error)
      error(mlirStringRefCreate(message.data(), message.size()), userData);
  };
  if (failed(dtensor::parseModulePassPipeline(text, pm, os))) {
    report("'" + unwrap(pipeline).str() + "' is not a pass pipeline: " +
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

MlirModule dtensorParseModule(MlirContext context, MlirStringRef text,
                              MlirStringRef sourceName) {
  if (mlirContextIsNull(context))
    return MlirModule{nullptr};
  MLIRContext *ctx = unwrap(context);
  // No text ({NULL, 0}) is the empty module text: MLIR's lexer reads the
  // byte at its start.
  llvm::StringRef source = text.data ? unwrap(text) : llvm::StringRef("");
  llvm::StringRef name =
      sourceName.data ? unwrap(sourceName) : llvm::StringRef("");
  if (std::optional<dtensor::ScreenFinding> finding =
          dtensor::screenForParserCrashes(source)) {
    llvm::StringRef before = source.take_front(finding->offset);
    unsigned line = 1 + before.count('\n');
    size_t lineStart = before.rfind('\n');
    unsigned col = 1 + unsigned(lineStart == llvm::StringRef::npos
                                    ? before.size()
                                    : before.size() - lineStart - 1);
    emitError(FileLineColLoc::get(ctx, name, line, col)) << finding->message;
    return {nullptr};
  }
  ParserConfig config(ctx);
  // (A NUL-terminated copy: an MlirStringRef need not be, and MLIR's lexer
  // reads one byte past a buffer without one; fuzz/FuzzCommon.h.)
  std::string owned = source.str();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(owned, config, name);
  return wrap(module.release());
}
