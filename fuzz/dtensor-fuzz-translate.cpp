//===- dtensor-fuzz-translate.cpp - fuzz the C++ and CUDA emitters --------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Input: MLIR text. Parses and verifies it as dtensor-translate does, then
// emits it as C++ and as CUDA (--dtensor-to-cpp, --dtensor-to-cuda, into
// strings) with no compile pipeline before: what a user hands the translator
// is any local-view program, written by hand or by another tool, not only
// --dtensor-compile's output (which the compile target emits). Any input may
// be rejected with diagnostics; none may crash the emitters.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "dtensor/Target/Cpp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext &ctx = dtensor_fuzz::context();
  mlir::ScopedDiagnosticHandler quiet(
      &ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  for (mlir::dtensor::CppFlavour flavour :
       {mlir::dtensor::CppFlavour::Host, mlir::dtensor::CppFlavour::Cuda}) {
    // prepareForCpp rewrites the module (fusion): each flavour parses anew.
    mlir::OwningOpRef<mlir::ModuleOp> module =
        dtensor_fuzz::parse(ctx, data, size);
    if (!module)
      return 0;
    std::string text;
    llvm::raw_string_ostream os(text);
    if (mlir::succeeded(mlir::dtensor::prepareForCpp(*module)))
      (void)mlir::dtensor::emitCpp(*module, os, flavour);
  }
  return 0;
}
