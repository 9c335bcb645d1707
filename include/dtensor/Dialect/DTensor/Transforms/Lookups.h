//===- Lookups.h - masked lookups of sharded tables -------------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// A table read by computed index inside a linalg body (an embedding lookup)
// can stay sharded along the dim it is read at: each rank reads the rows it
// holds and yields zero elsewhere, and the result is Partial(sum) over the
// mesh dims that shard that dim (DTensor's MaskPartial). Propagation offers
// it as a strategy, insert-redistribute leaves the table sharded there,
// partitioning masks the read, and dtensor-mask-lookups rewrites gathered
// tables after the fact. They decide with these predicates, written once.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_TRANSFORMS_LOOKUPS_H
#define DTENSOR_DIALECT_DTENSOR_TRANSFORMS_LOOKUPS_H

#include "dtensor/Core/Placement.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Operation.h"

namespace mlir {
namespace dtensor {

/// Whether `op` is a pure lookup: a linalg.generic with one result and one
/// init that its body does not read, every loop parallel, yielding a number
/// (a float or an integer wider than i1, which a group can sum).
bool isPureLookup(Operation *op);

/// Whether everything computed from `read`'s value in its block is scalar
/// arithmetic that cannot trap or read memory whatever the value (no integer
/// division or remainder, no float-to-integer conversion, no other read
/// indexed by it), and stays in the block: a rank that does not hold the
/// row may compute on another element and discard the result.
bool safeOnOtherRows(tensor::ExtractOp read);

/// The read of `table` that a masked lookup in `op` would mask: the only use
/// of `table` inside `op`, a tensor.extract directly in the body of a pure
/// lookup, safe on other rows, of a table defined outside `op`. Null
/// otherwise.
tensor::ExtractOp maskableRead(Operation *op, Value table);

/// Whether index `dim` of `read`, directly in the body of `op`, is computed
/// (not `linalg.index` of one of `op`'s loops): the dims a masked lookup
/// masks.
bool readAtComputedIndex(tensor::ExtractOp read, Operation *op, int64_t dim);

/// The placements a table is moved to (`need`, from `have`) keep an explicit
/// shard order only on dims that the same mesh dims shard in both; elsewhere
/// the order is dropped (default order). Propagation prices and
/// insert-redistribute makes the table's move with it.
void keepOrdersWhereSame(Placements &need, const Placements &have);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_TRANSFORMS_LOOKUPS_H
