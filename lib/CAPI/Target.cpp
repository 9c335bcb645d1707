//===- Target.cpp - C API: code generation --------------------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor-c/Target.h"
#include "dtensor/Target/Cpp.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

MlirLogicalResult dtensorTranslateToCpp(MlirModule module,
                                        DTensorCppFlavour flavour,
                                        MlirStringCallback callback,
                                        void *userData) {
  // A null module or a flavour the enum does not name is a failure (there
  // is no op to report it at).
  if (mlirModuleIsNull(module) ||
      (flavour != DTensorCppFlavourHost && flavour != DTensorCppFlavourCuda))
    return mlirLogicalResultFailure();
  // The emitter rewrites what it translates (prepareForCpp): a copy, so the
  // caller's module stays the compiled program it gave.
  OwningOpRef<ModuleOp> copy = unwrap(module).clone();
  std::string text;
  llvm::raw_string_ostream os(text);
  if (failed(dtensor::prepareForCpp(*copy)) ||
      failed(dtensor::emitCpp(*copy, os,
                              flavour == DTensorCppFlavourCuda
                                  ? dtensor::CppFlavour::Cuda
                                  : dtensor::CppFlavour::Host)))
    return mlirLogicalResultFailure();
  os.flush();
  if (callback)
    callback(mlirStringRefCreate(text.data(), text.size()), userData);
  return mlirLogicalResultSuccess();
}
