//===- PrintLayout.cpp - print each rank's shard of distributed values ----===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORPRINTLAYOUTPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

static std::string join(ArrayRef<int64_t> values, StringRef sep) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      values, os,
      [&](int64_t v) {
        if (ShapedType::isDynamic(v))
          os << "?";
        else
          os << v;
      },
      sep);
  return s;
}

namespace {
struct DTensorPrintLayoutPass
    : public dtensor::impl::DTensorPrintLayoutPassBase<DTensorPrintLayoutPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyDistributedTypes(getOperation())))
      return signalPassFailure();
    raw_ostream &os = llvm::errs();
    SymbolTableCollection symbols;
    AsmState state(module);
    bool failedAny = false;

    for (auto mesh : module.getOps<MeshOp>()) {
      Shape shape(mesh.getShape().begin(), mesh.getShape().end());
      os << "mesh @" << mesh.getSymName() << ": shape " << join(shape, "x")
         << ", " << meshSize(shape) << " ranks\n";
      if (!showGroups)
        continue;
      for (int64_t d = 0; d < mesh.getRank(); ++d) {
        os << "  groups of mesh dim " << d << " (" << mesh.getDimName(d)
           << "):";
        for (const std::vector<int64_t> &group : meshGroups(shape, {d}))
          os << " {" << join(group, ", ") << "}";
        os << "\n";
      }
    }

    auto printValue = [&](Value value, Operation *anchor) {
      SpecAttr spec = getSpec(value.getType());
      if (!spec)
        return;
      auto type = llvm::cast<RankedTensorType>(value.getType());
      auto emitError = [&]() { return anchor->emitError(); };
      FailureOr<Layout> layout =
          verifySpecForMesh(anchor, spec, type.getRank(), symbols, emitError);
      if (failed(layout)) {
        failedAny = true;
        return;
      }
      os << "\n";
      value.printAsOperand(os, state);
      if (Operation *def = value.getDefiningOp())
        os << " (" << def->getName() << ")";
      os << " : " << type << "\n";
      if (!spec.getMeshDims().empty())
        os << "  on a view of " << spec.getMesh() << " with shape "
           << join(layout->mesh(), "x")
           << ": ranks below are positions within each group of the view\n";
      if (!type.hasStaticShape()) {
        os << "  (dynamic global shape: per-rank sizes are known at run time)\n";
        return;
      }
      Shape global(type.getShape().begin(), type.getShape().end());
      os << "  global " << join(global, "x") << ", placements "
         << formatPlacements(layout->placements()) << "\n";
      os << llvm::format("  %-5s %-12s %-14s %s\n", "rank", "coord",
                         "local_shape", "offset");
      for (int64_t r = 0; r < layout->numRanks(); ++r) {
        Shape coord = rankToCoord(layout->mesh(), r);
        Shard shard = layout->shardAt(global, coord);
        os << llvm::format("  %-5lld %-12s %-14s %s\n", (long long)r,
                           ("(" + join(coord, ", ") + ")").c_str(),
                           join(shard.shape, "x").c_str(),
                           ("(" + join(shard.offset, ", ") + ")").c_str());
      }
    };

    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto fn = llvm::dyn_cast<FunctionOpInterface>(op)) {
        if (!fn.isExternal())
          for (BlockArgument arg : fn.getArguments())
            printValue(arg, op);
        return;
      }
      for (Value result : op->getResults())
        printValue(result, op);
    });
    os.flush();
    if (failedAny)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
