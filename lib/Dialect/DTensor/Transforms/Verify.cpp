//===- Verify.cpp - check every distributed type against its mesh ---------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

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

namespace {
struct DTensorVerifyPass
    : public dtensor::impl::DTensorVerifyPassBase<DTensorVerifyPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    bool failedAny = false;
    getOperation()->walk([&](Operation *op) {
      // Each distinct type once per op: one diagnostic per mistake.
      llvm::SmallDenseSet<Type, 8> seen;
      auto check = [&](Type type) {
        if (!seen.insert(type).second)
          return;
        auto emitError = [&]() {
          return op->emitError() << "in type " << type << ": ";
        };
        if (SpecAttr spec = getSpec(type)) {
          auto tensor = llvm::cast<RankedTensorType>(type);
          if (failed(verifySpecForMesh(op, spec, tensor.getRank(), symbols,
                                       emitError)))
            failedAny = true;
        } else if (auto mesh = llvm::dyn_cast<DeviceMeshType>(type)) {
          if (failed(resolveMeshView(op, mesh.getView(), symbols, emitError)))
            failedAny = true;
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
    if (failedAny)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
