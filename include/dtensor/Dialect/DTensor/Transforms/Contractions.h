//===- Contractions.h - matmuls written as linalg.generic ------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// The PyTorch importer writes `F.linear` on an N-D input as one contraction
// over the output's leading dims, out[b..., n] += x[b..., k] * w[k, n], so
// that a sharded leading dim stays sharded (docs/PyTorch.md). On one rank's
// dense, row-major piece that is a matmul of x with its leading dims
// collapsed: the interpreter and the C++ emitter recognise it here, written
// once, and call BLAS.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_TRANSFORMS_CONTRACTIONS_H
#define DTENSOR_DIALECT_DTENSOR_TRANSFORMS_CONTRACTIONS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir {
namespace dtensor {

/// The number of leading dims (at least 1) when `op` computes exactly
/// out[b..., n] = out[b..., n] + x[b..., k] * w[k, n] over loops
/// (b..., n, k), with x, w and out of one element type and no fast-math
/// flags; else 0.
inline unsigned leadingDimsMatmul(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op->getNumResults() > 1)
    return 0;
  int64_t loops = op.getNumLoops(), nb = loops - 2;
  if (nb < 1)
    return 0;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (int64_t l = 0; l < loops; ++l)
    if ((iters[l] == utils::IteratorType::reduction) != (l == loops - 1))
      return 0;
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineExpr> xs, out;
  for (int64_t l = 0; l < nb; ++l)
    xs.push_back(getAffineDimExpr(l, ctx));
  out = xs;
  AffineExpr n = getAffineDimExpr(nb, ctx), k = getAffineDimExpr(nb + 1, ctx);
  xs.push_back(k);
  out.push_back(n);
  SmallVector<AffineMap> want = {AffineMap::get(loops, 0, xs, ctx),
                                 AffineMap::get(loops, 0, {k, n}, ctx),
                                 AffineMap::get(loops, 0, out, ctx)};
  if (op.getIndexingMapsArray() != want)
    return 0;
  Type et = getElementTypeOrSelf(op->getOperand(2).getType());
  for (Value v : op->getOperands())
    if (getElementTypeOrSelf(v.getType()) != et)
      return 0;
  // The body: acc + a * b, exactly (a matmul's own).
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 3)
    return 0;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *add = yield.getValues()[0].getDefiningOp();
  if (!add || !isa<arith::AddFOp, arith::AddIOp>(add))
    return 0;
  Value acc = body.getArgument(2);
  if (!llvm::is_contained(add->getOperands(), acc))
    return 0;
  Value prod = add->getOperand(0) == acc ? add->getOperand(1)
                                         : add->getOperand(0);
  Operation *mul = prod.getDefiningOp();
  if (!mul || !isa<arith::MulFOp, arith::MulIOp>(mul) ||
      !llvm::is_contained(mul->getOperands(), body.getArgument(0)) ||
      !llvm::is_contained(mul->getOperands(), body.getArgument(1)))
    return 0;
  for (Operation *o : {add, mul})
    if (auto fm = dyn_cast<arith::ArithFastMathInterface>(o))
      if (fm.getFastMathFlagsAttr() &&
          fm.getFastMathFlagsAttr().getValue() != arith::FastMathFlags::none)
        return 0;
  return static_cast<unsigned>(nb);
}

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_TRANSFORMS_CONTRACTIONS_H
