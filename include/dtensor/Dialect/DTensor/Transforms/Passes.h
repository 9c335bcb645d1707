//===- Passes.h - dtensor passes --------------------------------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_H
#define DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_H

#include "dtensor/Dialect/DTensor/IR/DTensor.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace dtensor {

#define GEN_PASS_DECL
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_H
