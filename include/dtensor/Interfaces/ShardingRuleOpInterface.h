//===- ShardingRuleOpInterface.h - per-op sharding rules --------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_INTERFACES_SHARDINGRULEOPINTERFACE_H
#define DTENSOR_INTERFACES_SHARDINGRULEOPINTERFACE_H

#include "dtensor/Interfaces/ShardingRule.h"

#include "mlir/IR/OpDefinition.h"
#include "mlir/Support/LLVM.h"

#include <string>

#include "dtensor/Interfaces/ShardingRuleOpInterface.h.inc"

namespace mlir {
class DialectRegistry;
namespace dtensor {
/// Attaches ShardingRuleOpInterface to upstream ops: every linalg structured
/// op and linalg.softmax, element-wise arith and math ops, and tensor
/// extract_slice, insert_slice, pad, concat, collapse_shape, expand_shape,
/// reshape.
void registerShardingRuleModels(DialectRegistry &registry);
} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_INTERFACES_SHARDINGRULEOPINTERFACE_H
