//===- FuzzCommon.h - what the IR fuzz targets share -------------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// One MLIRContext with our dialects, kept across inputs (making one costs
// more than most inputs) and replaced every few hundred inputs so that the
// types and attributes fuzzed inputs intern do not grow without bound. Every
// diagnostic is swallowed: a rejected input is a normal outcome.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_FUZZ_FUZZCOMMON_H
#define DTENSOR_FUZZ_FUZZCOMMON_H

#include "dtensor/InitAll.h"
#include "dtensor/Support/InputScreen.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <memory>

namespace dtensor_fuzz {

inline mlir::MLIRContext &context() {
  static std::unique_ptr<mlir::MLIRContext> ctx;
  static unsigned uses = 0;
  if (!ctx || ++uses % 500 == 0) {
    ctx.reset();
    mlir::DialectRegistry registry;
    mlir::dtensor::registerAllDialects(registry);
    ctx = std::make_unique<mlir::MLIRContext>(
        registry, mlir::MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    ctx->printOpOnDiagnostic(false);
    ctx->printStackTraceOnDiagnostic(false);
  }
  return *ctx;
}

/// Screens, parses and verifies `data` as a module, as our tools do; null
/// when any step fails.
inline mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &ctx,
                                               const uint8_t *data,
                                               size_t size) {
  // A NUL-terminated copy, as the tools' files and the C API's text are
  // (MLIR's lexer reads one byte past a buffer that has none: a
  // heap-buffer-overflow in OperationParser::parseCustomOperationName that
  // campaigns counted as upstream crashes).
  std::string owned(reinterpret_cast<const char *>(data), size);
  llvm::StringRef text(owned);
  if (mlir::dtensor::screenForParserCrashes(text))
    return nullptr;
  mlir::ParserConfig config(&ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, config, "fuzz-input");
  if (!module || mlir::failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

} // namespace dtensor_fuzz

#endif // DTENSOR_FUZZ_FUZZCOMMON_H
