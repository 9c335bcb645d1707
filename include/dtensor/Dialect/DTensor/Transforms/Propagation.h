//===- Propagation.h - what propagation hands to its materializer -*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// dtensor-propagate records its choices as discardable attributes; the
// attribute names and their meaning are the contract with
// dtensor-insert-redistribute, which makes them real.
//
//   dtensor.operand_specs  on an op with a sharding rule: per operand, the
//                          spec it must have (unit: no requirement).
//   dtensor.result_specs   on a rule op, scf.for/if/while, func.call: per
//                          result, its spec (unit: keep the type); on a
//                          private func.func: per result of its signature.
//   dtensor.arg_specs      on func.func: per argument; on scf.while: per
//                          argument of its `before` region.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PROPAGATION_H
#define DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PROPAGATION_H

#include "dtensor/Interfaces/ShardingRule.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace mlir {
namespace dtensor {

constexpr const char *kOperandSpecsAttr = "dtensor.operand_specs";
constexpr const char *kResultSpecsAttr = "dtensor.result_specs";
constexpr const char *kArgSpecsAttr = "dtensor.arg_specs";

/// A linalg op's floating-point operations: its iteration points times the
/// float ops of its body; 0 for other ops, nullopt when a loop's size is not
/// static. The compute term of the comm report's step model and of
/// auto-sharding's cost (defined in CommReport.cpp).
std::optional<double> linalgFlops(Operation *op);

/// Priorities of hints: 0 is the strongest; values without a hint behind
/// them have none.
constexpr int64_t kNoPriority = std::numeric_limits<int64_t>::max();

/// Appends to `key` what identifies `op` as a computation: its name,
/// attributes, properties, operand and result types, and its regions'
/// structure. Properties enter by hash: two ops with equal keys for which
/// sameProperties holds have the same sharding rule, so passes can decide
/// once for a program's repeated layers.
void appendStructuralKey(std::string &key, Operation *op);

/// Whether `a` and `b` (and their bodies' ops, pairwise) have equal
/// properties: with equal structural keys, the ops are the same computation.
bool sameProperties(Operation *a, Operation *b);

/// Whether `v` is a fresh output: tensor.empty, or a fill of one. Such an
/// init is made in the spec it is needed in rather than redistributed.
bool isFreshTensor(Value v);

/// Whether `op` computes on the global values of its distributed tensor
/// operands (insert-redistribute gathers each whole before it, and
/// propagation prices that): an op of no dialect of ours, with no sharding
/// rule, that is not control flow carrying values (scf.if/for/while, their
/// yields and conditions, calls and returns).
bool readsGlobalOperands(Operation *op);

/// The sharding rule of `op` when the value it computes may be computed
/// again from its operands in another spec (dtensor-narrow-moves, and
/// propagation pricing it): one result, no memory effects, no value for
/// which `distributed` holds read from above in its regions (a table whose
/// placement follows the op's own spec), and every init unread.
/// operandPlacementsForResult then gives the operands' placements.
std::optional<ShardingRule>
recomputableRule(Operation *op, llvm::function_ref<bool(Value)> distributed);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PROPAGATION_H
