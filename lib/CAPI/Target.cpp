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

#include <cstring>

using namespace mlir;

MlirLogicalResult dtensorTranslateToCpp(MlirModule module,
                                        DTensorCppFlavour flavour,
                                        MlirStringCallback callback,
                                        void *userData) {
  // A null module or a flavour the enum does not name is a failure (there
  // is no op to report it at). The flavour's bytes are read as an integer:
  // a C caller may pass any int, and loading one the enum does not name as
  // the enum type is undefined in C++ (UBSan says so).
  static_assert(sizeof(flavour) == sizeof(unsigned), "a C enum is an int");
  unsigned raw;
  std::memcpy(&raw, &flavour, sizeof raw);
  if (mlirModuleIsNull(module) ||
      (raw != unsigned(DTensorCppFlavourHost) &&
       raw != unsigned(DTensorCppFlavourCuda)))
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
