//===- NormalizeSpecs.cpp - one spelling per layout in every type ---------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORNORMALIZESPECSPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {
struct DTensorNormalizeSpecsPass
    : public dtensor::impl::DTensorNormalizeSpecsPassBase<
          DTensorNormalizeSpecsPass> {
  void runOnOperation() override {
    if (failed(verifyDistributedTypes(getOperation())))
      return signalPassFailure();
    AttrTypeReplacer replacer;
    // The rank lives on the tensor type, not on the spec, so the rewrite is
    // keyed on tensor types.
    replacer.addReplacement(
        [](RankedTensorType type) -> std::optional<Type> {
          SpecAttr spec = getSpec(type);
          if (!spec)
            return std::nullopt;
          Placements normalized = spec.getNormalizedPlacements(type.getRank());
          if (llvm::equal(normalized, spec.getPlacements()))
            return std::nullopt;
          auto newSpec = SpecAttr::get(type.getContext(), spec.getMesh(),
                                       spec.getMeshDims(), spec.getFlattened(),
                                       normalized);
          return RankedTensorType::get(type.getShape(), type.getElementType(),
                                       newSpec);
        });
    replacer.recursivelyReplaceElementsIn(getOperation(), /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
  }
};
} // namespace
