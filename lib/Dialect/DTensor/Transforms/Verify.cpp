//===- Verify.cpp - check every distributed type against its mesh ---------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "dtensor/Dialect/DTensor/Transforms/Propagation.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORVERIFYPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

LogicalResult mlir::dtensor::verifyDistributedTypes(Operation *root) {
  SymbolTableCollection symbols;
  bool failedAny = false;
  // What is found valid once is valid everywhere (meshes are module-level
  // symbols): mesh handle types by type, and specs by (spec, rank), which
  // is all a spec's validity depends on, so tensors of many shapes (every
  // layer its own width) share one check.
  llvm::DenseSet<Type> valid;
  llvm::DenseSet<std::pair<Attribute, int64_t>> validSpecs;
  root->walk([&](Operation *op) {
    // Each distinct type once per op: one diagnostic per mistake.
    llvm::SmallDenseSet<Type, 8> seen;
    auto check = [&](Type type) {
      if (valid.contains(type) || !seen.insert(type).second)
        return;
      auto emitError = [&]() {
        return op->emitError() << "in type " << type << ": ";
      };
      if (SpecAttr spec = getSpec(type)) {
        auto tensor = llvm::cast<RankedTensorType>(type);
        std::pair<Attribute, int64_t> key{spec, tensor.getRank()};
        if (validSpecs.contains(key))
          return;
        if (failed(verifySpecForMesh(op, spec, tensor.getRank(), symbols,
                                     emitError)))
          failedAny = true;
        else
          validSpecs.insert(key);
      } else if (auto mesh = llvm::dyn_cast<DeviceMeshType>(type)) {
        if (failed(resolveMeshView(op, mesh.getView(), symbols, emitError)))
          failedAny = true;
        else
          valid.insert(type);
      }
    };
    for (Type t : op->getResultTypes())
      check(t);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          check(arg.getType());
    if (auto fn = llvm::dyn_cast<FunctionOpInterface>(op)) {
      for (Type t : fn.getArgumentTypes())
        check(t);
      for (Type t : fn.getResultTypes())
        check(t);
    }
  });
  return failure(failedAny);
}

/// Checks one of propagation's spec lists on `op`: an array with one entry
/// per value of `values`, each a unit (no requirement) or a spec valid for
/// that value's tensor type and mesh.
static LogicalResult
verifySpecList(Operation *op, StringRef name, TypeRange values, StringRef what,
               SymbolTableCollection &symbols,
               llvm::DenseSet<std::pair<Attribute, int64_t>> &validSpecs) {
  Attribute raw = op->getDiscardableAttr(name);
  if (!raw)
    return success();
  auto list = llvm::dyn_cast<ArrayAttr>(raw);
  if (!list)
    return op->emitError() << "'" << name << "' must be an array of specs";
  if (list.size() != values.size())
    return op->emitError() << "'" << name << "' has " << list.size()
                           << " entries for " << values.size() << " " << what
                           << "s";
  for (auto [i, attr] : llvm::enumerate(list)) {
    if (llvm::isa<UnitAttr>(attr))
      continue;
    auto spec = llvm::dyn_cast<SpecAttr>(attr);
    if (!spec)
      return op->emitError() << "'" << name << "' entry " << i
                             << " must be a #dtensor.spec or unit, not "
                             << attr;
    auto tensor = llvm::dyn_cast<RankedTensorType>(values[i]);
    if (!tensor)
      return op->emitError() << "'" << name << "' gives a spec to " << what
                             << " " << i << ", which is not a ranked tensor";
    std::pair<Attribute, int64_t> key{spec, tensor.getRank()};
    if (validSpecs.contains(key))
      continue; // (valid for every op: it depends on the spec and rank)
    if (failed(verifySpecForMesh(op, spec, tensor.getRank(), symbols, [&]() {
          return op->emitError() << "in '" << name << "' entry " << i << ": ";
        })))
      return failure();
    validSpecs.insert(key);
  }
  return success();
}

LogicalResult mlir::dtensor::verifyPropagationAttrs(Operation *root) {
  SymbolTableCollection symbols;
  bool failedAny = false;
  llvm::DenseSet<std::pair<Attribute, int64_t>> validSpecs;
  root->walk([&](Operation *op) {
    if (op->getRawDictionaryAttrs().empty())
      return;
    auto fn = llvm::dyn_cast<FunctionOpInterface>(op);
    TypeRange argTypes;
    if (fn)
      argTypes = fn.getArgumentTypes();
    else if (auto loop = llvm::dyn_cast<scf::WhileOp>(op))
      argTypes = loop.getBeforeBody()->getArgumentTypes();
    else if (op->getDiscardableAttr(kArgSpecsAttr)) {
      op->emitError() << "'" << kArgSpecsAttr
                      << "' belongs on a function or an scf.while";
      failedAny = true;
      return;
    }
    TypeRange resultTypes =
        fn ? TypeRange(fn.getResultTypes()) : TypeRange(op->getResultTypes());
    if (failed(verifySpecList(op, kOperandSpecsAttr, op->getOperandTypes(),
                              "operand", symbols, validSpecs)) ||
        failed(verifySpecList(op, kResultSpecsAttr, resultTypes, "result",
                              symbols, validSpecs)) ||
        failed(verifySpecList(op, kArgSpecsAttr, argTypes, "argument",
                              symbols, validSpecs)))
      failedAny = true;
  });
  return failure(failedAny);
}

namespace {
struct DTensorVerifyPass
    : public dtensor::impl::DTensorVerifyPassBase<DTensorVerifyPass> {
  void runOnOperation() override {
    if (failed(verifyDistributedTypes(getOperation())))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
