//===- ShardingRule.h - what an op does to placements -----------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// A sharding rule describes an op by the factors (loops) of its iteration
// space and which dim of each tensor operand and result every factor
// indexes. Propagation chooses, per mesh dim, one factor to shard (or none);
// partitioning checks that the specs it is given are such a choice. Both ask
// `placementsForFactor`, so a rule is written once, by the op's model of
// ShardingRuleOpInterface (linalg from indexing maps, tensor shape ops from
// their static sizes, element-wise arith/math).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_INTERFACES_SHARDINGRULE_H
#define DTENSOR_INTERFACES_SHARDINGRULE_H

#include "dtensor/Core/Placement.h"

#include "llvm/ADT/ArrayRef.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace dtensor {

/// One factor of an op's iteration space.
struct RuleFactor {
  enum class Kind {
    /// Sharding it shards every operand and result that index it.
    Parallel,
    /// Results do not index it: sharding it leaves them Partial, of the
    /// combiner in `combiners` (per result; none = not exact).
    Reduction,
    /// Must not be sharded (a padded, sliced or concatenated dim, a softmax
    /// dim, an inner dim of a reshaped group); `why` says which.
    Blocked,
  };
  Kind kind = Kind::Parallel;
  std::vector<std::optional<ReduceKind>> combiners;
  /// Sizes the factor's shard count must divide for the sharding to be exact
  /// (a reshaped group's leading dims).
  std::vector<int64_t> mustDivide;
  std::string why;
  /// Some operand reads a dim through a window of this factor (see
  /// WindowedDim): it may be sharded on one mesh dim at most.
  bool windowed = false;
};

/// An operand dim read at `stride * factor + w + offset`, where w, the sum of
/// other loops times their coefficients, ranges over [lowSpan, highSpan]
/// (a convolution's input: `oh * stride + kh * dilation`; a stencil's
/// `i + k`; a shift `i + 2`; a reversal `7 - i`). When `factor` is sharded
/// on a mesh dim, each rank reads a window of the dim (Core/Window.h); the
/// operand is then S(dim) there (partitioning exchanges halos) or R (each
/// rank slices its window).
struct WindowedDim {
  size_t operand = 0;
  int64_t dim = 0;
  int64_t factor = 0;
  int64_t stride = 1, offset = 0, lowSpan = 0, highSpan = 0;
};

/// The rule of one op. Operands are the op's tensor operands the rule covers
/// (scalars and index operands are not placed).
struct ShardingRule {
  std::vector<RuleFactor> factors;
  /// Operand numbers (into the op's operand list) of the placed operands.
  std::vector<unsigned> operands;
  /// Per placed operand / result, per tensor dim: its factor, or -1.
  std::vector<std::vector<int64_t>> operandDims;
  std::vector<std::vector<int64_t>> resultDims;
  /// Per result: the placed operand (index into `operands`) it is written
  /// into, a destination-style init, or -1. An init has its result's
  /// placements.
  std::vector<int64_t> tied;
  /// When a mesh dim shards no factor: whether Partial operands of `kind`
  /// (marked in `partial`, one entry per placed operand; inits are never
  /// marked) stay Partial through the op. Null: never.
  std::function<bool(llvm::ArrayRef<bool> partial, ReduceKind kind)>
      keepsPartial;
  /// Whether the op makes a Partial result from no Partial operand (a fill,
  /// which gives each rank its share).
  bool makesPartial = false;
  /// Operand dims read through windows (their `operandDims` entry is -1).
  std::vector<WindowedDim> windows;

  size_t numOperands() const { return operands.size(); }
  size_t numResults() const { return resultDims.size(); }
  /// Whether placed operand `o` is some result's init.
  bool isInit(size_t o) const;
  /// The tensor dim of placed operand `o` (or result `r` when `o >=
  /// numOperands()`, as `numOperands() + r`) that factor `f` indexes.
  std::optional<int64_t> dimOf(size_t o, int64_t f) const;
  /// The window through which placed operand `o` reads its dim `dim`, or
  /// null.
  const WindowedDim *windowOf(size_t o, int64_t dim) const;
};

/// A factor choice meaning: nothing sharded, every operand replicated
/// (Partial operands reduced first).
constexpr int64_t kReplicateAll = -2;
/// A factor choice meaning: nothing sharded, Partial operands passed
/// through where the op keeps them.
constexpr int64_t kNoFactor = -1;

/// The placement every placed operand, then every result, has on one mesh
/// dim when that mesh dim shards factor `factor` (or kNoFactor /
/// kReplicateAll), given the placements the operands have there now (used
/// for Partial pass-through). std::nullopt when no exact rule exists: a
/// blocked factor, a reduction without a Partial combiner, Partials the op
/// does not keep.
std::optional<std::vector<Placement>>
placementsForFactor(const ShardingRule &rule, int64_t factor,
                    llvm::ArrayRef<Placement> operandPlacements);

/// What placementsForFactor(rule, factor, ...) reads of placed operand
/// `operand`'s placement `p`: `p` itself where it matters (a Partial under
/// kNoFactor, a shard along a dim the operand is windowed on by `factor`),
/// else Replicate. Operand placements with the same projections give the
/// same rows, so a caller enumerating combinations of operand placements
/// needs only the distinct projections.
Placement factorView(const ShardingRule &rule, int64_t factor, size_t operand,
                     const Placement &p);

/// The placements `placed` (every placed operand, then every result, per
/// mesh dim; built with default orders for the choice of factors
/// `factorOfMeshDim`) in each shard order worth trying. A factor sharded by
/// several mesh dims may be sharded in the default order or in any order
/// in which an operand (an init too) or a result already shards its dim on
/// exactly those mesh dims (`statesOf(o)`: the placements placed operand
/// or result `o` has, or is wanted in, now); every operand and result
/// indexing the factor then gets that order (partitioning computes the
/// loop's pieces nested in it), so that the cheapest value is the one
/// reordered. The first variant is `placed` itself; at most `limit`.
std::vector<std::vector<Placements>> shardOrderVariants(
    const ShardingRule &rule, llvm::ArrayRef<int64_t> factorOfMeshDim,
    const std::vector<Placements> &placed,
    llvm::function_ref<llvm::ArrayRef<Placements>(size_t)> statesOf,
    size_t limit = 16);

/// Whether per-mesh-dim choices `factorOfMeshDim` (on a mesh of `meshShape`)
/// satisfy every factor's divisibility condition; sets `error` otherwise.
bool divisibilityHolds(const ShardingRule &rule,
                       llvm::ArrayRef<int64_t> factorOfMeshDim,
                       llvm::ArrayRef<int64_t> meshShape, std::string &error);

/// For an op with one result whose factors are all parallel, exact at any
/// shard count and all indexed by the result (element-wise ops,
/// broadcasts, transposes): the placements every placed operand has when
/// the result has `result` (no Partial, default shard orders). A mesh dim
/// sharding result dim d shards the operand dim d's factor indexes; an
/// operand that does not index it is replicated there (inits take the
/// result's). std::nullopt for other rules or results.
std::optional<std::vector<Placements>>
operandPlacementsForResult(const ShardingRule &rule, const Placements &result);

/// Element-wise rule for `numOperands` operands and one result of rank
/// `rank`: one parallel factor per dim, shared by all.
ShardingRule elementwiseRule(unsigned numOperands, int64_t rank);

/// Groups of a reshape from `from` to `to` (static shapes): pairs of
/// half-open dim ranges with equal element counts, in order. Empty when the
/// shapes hold different element counts.
struct ReshapeGroup {
  int64_t fromBegin, fromEnd, toBegin, toEnd;
};
std::vector<ReshapeGroup> reshapeGroups(llvm::ArrayRef<int64_t> from,
                                        llvm::ArrayRef<int64_t> to);

/// The rule of a reshape (collapse, expand, or general) between static
/// shapes: each group's first non-unit dims on both sides share a factor that
/// needs its shard count to divide both sizes; every other dim is blocked.
ShardingRule reshapeRule(llvm::ArrayRef<int64_t> from,
                         llvm::ArrayRef<int64_t> to);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_INTERFACES_SHARDINGRULE_H
