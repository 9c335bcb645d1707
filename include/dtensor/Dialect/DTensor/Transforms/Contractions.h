//===- Contractions.h - matmuls written as linalg.generic ------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// The PyTorch importer writes `F.linear` on an N-D input as one contraction
// over the output's leading dims, out[b..., n] += x[b..., k] * w[k, n], and
// attention's products as one contraction over several batch dims, so that
// a sharded leading or batch dim stays sharded (docs/PyTorch.md). On one
// rank's dense, row-major pieces those are a matmul with the leading dims
// collapsed and a batch_matmul with the batch dims collapsed: the
// interpreter and the C++ emitter recognise them here, written once, and
// call BLAS.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_TRANSFORMS_CONTRACTIONS_H
#define DTENSOR_DIALECT_DTENSOR_TRANSFORMS_CONTRACTIONS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir {
namespace dtensor {

/// Whether `o` carries fast-math flags (a product with them may be
/// reassociated or contracted; BLAS's is not that product).
inline bool hasFastMath(Operation *o) {
  auto fm = dyn_cast<arith::ArithFastMathInterface>(o);
  return fm && fm.getFastMathFlagsAttr() &&
         fm.getFastMathFlagsAttr().getValue() != arith::FastMathFlags::none;
}

/// Whether `op` (two inputs, one init) is one of the runtime's widened
/// products (i8 x i8 -> i32; f16 or bf16 -> f32: cuBLAS's int8 and
/// mixed-precision GEMMs): both inputs of one type, each sign-extended
/// (extsi; extf) in the body, then multiplied and added to the init, no
/// fast-math flags. Linalg's default (signed) cast of a named matmul is
/// this body; an unsigned or narrowing cast is not.
inline bool isWidenedProduct(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1)
    return false;
  Type in = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
  Type out = getElementTypeOrSelf(op->getResult(0).getType());
  if (getElementTypeOrSelf(op.getDpsInputs()[1].getType()) != in ||
      getElementTypeOrSelf(op.getDpsInits()[0].getType()) != out)
    return false;
  bool integer = in.isSignlessInteger(8) && out.isSignlessInteger(32);
  bool floating = (in.isF16() || in.isBF16()) && out.isF32();
  if (!integer && !floating)
    return false;
  Block &body = op->getRegion(0).front();
  SmallVector<Operation *> ops;
  for (Operation &o : body)
    ops.push_back(&o);
  if (ops.size() != 5)
    return false;
  auto extended = [&](Operation *e, unsigned arg) {
    bool kind = integer ? isa<arith::ExtSIOp>(e) : isa<arith::ExtFOp>(e);
    return kind && e->getOperand(0) == body.getArgument(arg);
  };
  Operation *mul = ops[2], *add = ops[3];
  bool mulOk = integer ? isa<arith::MulIOp>(mul) : isa<arith::MulFOp>(mul);
  bool addOk = integer ? isa<arith::AddIOp>(add) : isa<arith::AddFOp>(add);
  auto uses = [](Operation *o, Value a, Value b) {
    return (o->getOperand(0) == a && o->getOperand(1) == b) ||
           (o->getOperand(0) == b && o->getOperand(1) == a);
  };
  return extended(ops[0], 0) && extended(ops[1], 1) && mulOk && addOk &&
         !hasFastMath(mul) && !hasFastMath(add) &&
         uses(mul, ops[0]->getResult(0), ops[1]->getResult(0)) &&
         uses(add, body.getArgument(2), mul->getResult(0)) &&
         isa<linalg::YieldOp>(ops[4]) &&
         ops[4]->getOperand(0) == add->getResult(0);
}

/// Whether `op` has two inputs and one init of one element type, every loop
/// parallel but the last (a reduction), and the body out + a * b exactly
/// (a matmul's own; no fast-math flags). With `widened`, a widened product
/// (isWidenedProduct) counts too: the C++ emitter's runtime computes those;
/// the interpreter's BLAS path takes one element type only.
inline bool isMulAddContraction(linalg::GenericOp op, bool widened = false) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op->getNumResults() > 1)
    return false;
  int64_t loops = op.getNumLoops();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (int64_t l = 0; l < loops; ++l)
    if ((iters[l] == utils::IteratorType::reduction) != (l == loops - 1))
      return false;
  if (widened && isWidenedProduct(op))
    return true;
  Type et = getElementTypeOrSelf(op->getOperand(2).getType());
  for (Value v : op->getOperands())
    if (getElementTypeOrSelf(v.getType()) != et)
      return false;
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 3)
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *add = yield.getValues()[0].getDefiningOp();
  if (!add || !isa<arith::AddFOp, arith::AddIOp>(add))
    return false;
  Value acc = body.getArgument(2);
  if (!llvm::is_contained(add->getOperands(), acc))
    return false;
  Value prod = add->getOperand(0) == acc ? add->getOperand(1)
                                         : add->getOperand(0);
  Operation *mul = prod.getDefiningOp();
  if (!mul || !isa<arith::MulFOp, arith::MulIOp>(mul) ||
      !llvm::is_contained(mul->getOperands(), body.getArgument(0)) ||
      !llvm::is_contained(mul->getOperands(), body.getArgument(1)))
    return false;
  return !hasFastMath(add) && !hasFastMath(mul);
}

/// The map of `loops` loops reading d0, ..., d(lead - 1), then `tail`.
inline AffineMap loopMap(int64_t loops, int64_t lead, ArrayRef<int64_t> tail,
                         MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < lead; ++d)
    exprs.push_back(getAffineDimExpr(d, ctx));
  for (int64_t d : tail)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(loops, 0, exprs, ctx);
}

/// The number of leading dims (at least 1) when `op` computes exactly
/// out[b..., n] = out[b..., n] + x[b..., k] * w[k, n] over loops
/// (b..., n, k): F.linear on an N-D input. Else 0. (`widened`: as
/// isMulAddContraction.)
inline unsigned leadingDimsMatmul(linalg::GenericOp op, bool widened = false) {
  int64_t loops = op.getNumLoops(), nb = loops - 2;
  if (nb < 1 || !isMulAddContraction(op, widened))
    return 0;
  int64_t n = nb, k = nb + 1;
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineMap> want = {loopMap(loops, nb, {k}, ctx),
                                 loopMap(loops, 0, {k, n}, ctx),
                                 loopMap(loops, nb, {n}, ctx)};
  return op.getIndexingMapsArray() == want ? static_cast<unsigned>(nb) : 0;
}

/// The number of batch dims (at least 1) when `op` computes exactly
/// out[b..., m, n] = out[b..., m, n] + x[b..., m, k] * y[b..., k, n] over
/// loops (b..., m, n, k): a batched matmul over several batch dims (the
/// importer's attention scores and values, heads kept apart). Else 0.
/// (`widened`: as isMulAddContraction.)
inline unsigned batchedMatmul(linalg::GenericOp op, bool widened = false) {
  int64_t loops = op.getNumLoops(), nb = loops - 3;
  if (nb < 1 || !isMulAddContraction(op, widened))
    return 0;
  int64_t m = nb, n = nb + 1, k = nb + 2;
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineMap> want = {loopMap(loops, nb, {m, k}, ctx),
                                 loopMap(loops, nb, {k, n}, ctx),
                                 loopMap(loops, nb, {m, n}, ctx)};
  return op.getIndexingMapsArray() == want ? static_cast<unsigned>(nb) : 0;
}

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_TRANSFORMS_CONTRACTIONS_H
