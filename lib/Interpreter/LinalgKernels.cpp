//===- LinalgKernels.cpp - linalg structured ops, math and scf ------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Every linalg structured op (generic and named alike) runs through one
// kernel: its body compiled once (BodyProgram), its indexing maps turned into
// per-loop strides of each operand, and an odometer over the loop domain.
// matmul and batch_matmul in f32/f64 with their default maps go to BLAS.
//
//===----------------------------------------------------------------------===//

#include "BodyProgram.h"
#include "dtensor/Interpreter/Interpreter.h"

#include "dtensor/Dialect/DTensor/Transforms/Contractions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"

#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <cblas.h>
#include <cmath>

using namespace mlir;
using namespace mlir::dtensor;
using namespace mlir::dtensor::interp;

namespace mlir::dtensor::interp {
void registerLinalgKernels(llvm::StringMap<Interpreter::Kernel> &kernels);
} // namespace mlir::dtensor::interp

namespace {

/// An indexing map result as sum(coefficient[loop] * index[loop]) + constant.
struct LinearExpr {
  std::vector<int64_t> coefficients;
  int64_t constant = 0;
};

std::optional<LinearExpr> linearize(AffineExpr e, unsigned numDims) {
  LinearExpr out{std::vector<int64_t>(numDims, 0), 0};
  if (auto d = llvm::dyn_cast<AffineDimExpr>(e)) {
    out.coefficients[d.getPosition()] = 1;
    return out;
  }
  if (auto c = llvm::dyn_cast<AffineConstantExpr>(e)) {
    out.constant = c.getValue();
    return out;
  }
  auto bin = llvm::dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return std::nullopt;
  std::optional<LinearExpr> l = linearize(bin.getLHS(), numDims);
  std::optional<LinearExpr> r = linearize(bin.getRHS(), numDims);
  if (!l || !r)
    return std::nullopt;
  // Checked: a map with huge constants is an error, not a wrapped stride.
  auto add = [](int64_t &to, int64_t v) {
    std::optional<int64_t> sum = llvm::checkedAdd(to, v);
    to = sum.value_or(0);
    return sum.has_value();
  };
  auto mul = [](int64_t &to, int64_t v) {
    std::optional<int64_t> product = llvm::checkedMul(to, v);
    to = product.value_or(0);
    return product.has_value();
  };
  if (bin.getKind() == AffineExprKind::Add) {
    for (unsigned k = 0; k < numDims; ++k)
      if (!add(l->coefficients[k], r->coefficients[k]))
        return std::nullopt;
    if (!add(l->constant, r->constant))
      return std::nullopt;
    return l;
  }
  if (bin.getKind() == AffineExprKind::Mul) {
    bool lConst = llvm::all_of(l->coefficients, [](int64_t c) { return c == 0; });
    bool rConst = llvm::all_of(r->coefficients, [](int64_t c) { return c == 0; });
    if (!lConst && !rConst)
      return std::nullopt;
    LinearExpr &var = lConst ? *r : *l;
    int64_t factor = lConst ? l->constant : r->constant;
    for (int64_t &c : var.coefficients)
      if (!mul(c, factor))
        return std::nullopt;
    if (!mul(var.constant, factor))
      return std::nullopt;
    return var;
  }
  return std::nullopt;
}

/// Loads element `offset` of `t` into a register of the body's kind.
inline Reg load(const Tensor &t, int64_t offset, bool isFloatReg) {
  Reg r;
  dispatch(t.dtype(), [&](auto v) {
    using T = decltype(v);
    T x = t.data<T>()[offset];
    if (isFloatReg)
      r.f = double(x);
    else
      r.i = int64_t(x);
  });
  return r;
}

inline void store(Tensor &t, int64_t offset, Reg r, bool isFloatReg) {
  dispatch(t.dtype(), [&](auto v) {
    using T = decltype(v);
    t.mutableData<T>()[offset] = isFloatReg ? T(r.f) : T(r.i);
  });
}

Shape stridesOf(const Shape &shape) {
  // An empty tensor is never read (the bounds check sees to it), and its
  // other dims may be huge: no strides to overflow.
  if (llvm::is_contained(shape, 0))
    return Shape(shape.size(), 0);
  Shape s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    s[d - 1] = s[d] * shape[d];
  return s;
}

/// Whether `op` is a matmul / batch_matmul on equal f32 or f64 element
/// types whose maps are the default ones or read A as [k, m] / B as [n, k]
/// (`x @ W^T` with W stored [out, in]): the BLAS path, with `transA` /
/// `transB` set for the transposed reads. A linalg.generic out[m, n] +=
/// a * b over loops (m, n, k) with those maps is one too (the PyTorch
/// importer's linear layers; a loop nest of 512 x 2048 x 1024 took tens of
/// seconds).
bool isPlainMatmul(linalg::LinalgOp op, DType &dtype, bool &transA,
                   bool &transB) {
  auto generic = llvm::dyn_cast<linalg::GenericOp>(op.getOperation());
  if (generic ? !(op.getNumLoops() == 3 && isMulAddContraction(generic))
              : !llvm::isa<linalg::MatmulOp, linalg::BatchMatmulOp>(
                    op.getOperation()))
    return false;
  auto named = op.getOperation();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  MLIRContext *ctx = named->getContext();
  bool batch = llvm::isa<linalg::BatchMatmulOp>(named);
  AffineExpr b, m, n, k;
  SmallVector<AffineExpr> lead;
  unsigned numDims = batch ? 4 : 3;
  if (batch) {
    bindDims(ctx, b, m, n, k);
    lead.push_back(b);
  } else {
    bindDims(ctx, m, n, k);
  }
  auto map = [&](AffineExpr r, AffineExpr c) {
    SmallVector<AffineExpr> results(lead);
    results.push_back(r);
    results.push_back(c);
    return AffineMap::get(numDims, 0, results, ctx);
  };
  if (maps.size() != 3 || maps[2] != map(m, n))
    return false;
  transA = maps[0] == map(k, m);
  transB = maps[1] == map(n, k);
  if ((!transA && maps[0] != map(m, k)) || (!transB && maps[1] != map(k, n)))
    return false;
  Type elt = getElementTypeOrSelf(named->getOperand(0).getType());
  for (Value v : named->getOperands())
    if (getElementTypeOrSelf(v.getType()) != elt)
      return false;
  if (!elt.isF32() && !elt.isF64())
    return false;
  dtype = elt.isF32() ? DType::F32 : DType::F64;
  return true;
}

/// One rank's execution of a structured op. `outs` are the results being
/// built, starting as the inits (copies, or the inits themselves at their
/// last use); `args` are every operand, inits included.
FailureOr<std::vector<RValue>> runStructured(linalg::LinalgOp op,
                                             const BodyProgram &body,
                                             std::vector<const RValue *> args,
                                             std::vector<const RValue *> captured,
                                             std::vector<Tensor> outs,
                                             int64_t rank) {
  Operation *raw = op.getOperation();
  unsigned numInputs = op.getNumDpsInputs();
  unsigned numLoops = op.getNumLoops();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();

  DType dtype;
  bool transA = false, transB = false;
  // A matmul (batched or not) for BLAS: `batches` products of [M, K] and
  // [K, N] (either read transposed) added to [M, N].
  bool blas = false;
  int64_t batches = 1, M = 0, K = 0, N = 0;
  if (isPlainMatmul(op, dtype, transA, transB)) {
    const Tensor &a = args[0]->tensor, &b = args[1]->tensor;
    const Tensor &c = outs[0];
    bool batch = a.rank() == 3;
    batches = batch ? a.shape()[0] : 1;
    int64_t ar = a.rank(), br = b.rank();
    M = a.shape()[transA ? ar - 1 : ar - 2];
    K = a.shape()[transA ? ar - 2 : ar - 1];
    N = b.shape()[transB ? br - 2 : br - 1];
    int64_t bK = b.shape()[transB ? br - 1 : br - 2];
    if (bK != K || c.shape()[c.rank() - 2] != M ||
        c.shape()[c.rank() - 1] != N ||
        (batch && (b.shape()[0] != batches || c.shape()[0] != batches)))
      return raw->emitOpError() << "operand shapes do not match a matmul";
    blas = true;
  } else if (auto g = llvm::dyn_cast<linalg::GenericOp>(raw);
             g && (leadingDimsMatmul(g) || batchedMatmul(g)) &&
             (args[0]->tensor.dtype() == DType::F32 ||
              args[0]->tensor.dtype() == DType::F64)) {
    // (Both patterns have two inputs and one init: args[1] exists.)
    const Tensor &a = args[0]->tensor, &b = args[1]->tensor;
    const Tensor &c = outs[0];
    dtype = a.dtype();
    if (leadingDimsMatmul(g)) {
      // x[b..., k] * w[k, n]: x's leading dims are its rows.
      // (The rows from x's and the result's leading dims alike: a rank
      // whose shard of w has no columns has an empty result, not no rows.)
      K = a.shape().back();
      N = b.shape()[1];
      M = 1;
      bool rowsAgree = a.rank() == c.rank();
      for (int64_t d = 0; d + 1 < a.rank(); ++d) {
        M *= a.shape()[d];
        rowsAgree = rowsAgree && c.shape()[d] == a.shape()[d];
      }
      if (b.shape()[0] != K || c.shape().back() != N || !rowsAgree)
        return raw->emitOpError() << "operand shapes do not match a matmul";
      blas = true;
    } else if (unsigned nb = batchedMatmul(g)) {
      // x[b..., m, k] * y[b..., k, n]: the batch dims are one batch.
      M = a.shape()[nb];
      K = a.shape()[nb + 1];
      N = b.shape()[nb + 1];
      batches = 1;
      for (unsigned d = 0; d < nb; ++d) {
        if (b.shape()[d] != a.shape()[d] || c.shape()[d] != a.shape()[d])
          return raw->emitOpError() << "operand shapes do not match a matmul";
        batches *= a.shape()[d];
      }
      if (b.shape()[nb] != K || c.shape()[nb] != M || c.shape()[nb + 1] != N)
        return raw->emitOpError() << "operand shapes do not match a matmul";
      blas = true;
    }
  }
  if (blas) {
    const Tensor &a = args[0]->tensor, &b = args[1]->tensor;
    Tensor &c = outs[0];
    // BLAS rejects leading dimensions of 0; an empty product adds nothing.
    if (M == 0 || N == 0 || K == 0)
      batches = 0;
    // Rows of every batch, in chunks over the rank threads (one BLAS call
    // per chunk and batch; a no-op split on a rank thread). Row i of A
    // starts at i * K, or at column i of the [K, M] array when transposed.
    int64_t grain = std::max<int64_t>(8, (int64_t(1) << 21) /
                                             std::max<int64_t>(1, K * N));
    CBLAS_TRANSPOSE ta = transA ? CblasTrans : CblasNoTrans;
    CBLAS_TRANSPOSE tb = transB ? CblasTrans : CblasNoTrans;
    int64_t lda = transA ? M : K, ldb = transB ? K : N;
    parallelChunks(batches * M, grain, [&](int64_t begin, int64_t end) {
      for (int64_t q = begin; q < end;) {
        int64_t t = q / M, i = q % M, rows = std::min(M - i, end - q);
        int64_t aOff = t * M * K + (transA ? i : i * K);
        if (dtype == DType::F32)
          cblas_sgemm(CblasRowMajor, ta, tb, rows, N, K, 1.0f,
                      a.data<float>() + aOff, lda,
                      b.data<float>() + t * K * N, ldb, 1.0f,
                      c.mutableData<float>() + t * M * N + i * N, N);
        else
          cblas_dgemm(CblasRowMajor, ta, tb, rows, N, K, 1.0,
                      a.data<double>() + aOff, lda,
                      b.data<double>() + t * K * N, ldb, 1.0,
                      c.mutableData<double>() + t * M * N + i * N, N);
        q += rows;
      }
    });
    std::vector<RValue> results;
    for (Tensor &t : outs)
      results.push_back(RValue::ofTensor(std::move(t)));
    return results;
  }

  // Loop bounds from the operands that index a loop directly.
  std::vector<int64_t> bounds(numLoops, -1);
  unsigned numOperands = args.size();
  std::vector<std::vector<LinearExpr>> exprs(numOperands);
  for (unsigned o = 0; o < numOperands; ++o) {
    AffineMap map = maps[o];
    const Shape *shape = nullptr;
    if (o >= numInputs)
      shape = &outs[o - numInputs].shape();
    else if (args[o]->kind == RValue::Kind::Tensor ||
             args[o]->kind == RValue::Kind::Dist)
      shape = &args[o]->tensor.shape();
    for (auto [j, e] : llvm::enumerate(map.getResults())) {
      std::optional<LinearExpr> lin = linearize(e, numLoops);
      if (!lin)
        return raw->emitOpError()
               << "has an indexing map the interpreter cannot evaluate: "
               << AffineMapAttr::get(map);
      exprs[o].push_back(*lin);
      if (auto d = llvm::dyn_cast<AffineDimExpr>(e))
        if (shape && bounds[d.getPosition()] < 0)
          bounds[d.getPosition()] = (*shape)[j];
    }
  }
  for (unsigned k = 0; k < numLoops; ++k)
    if (bounds[k] < 0)
      return raw->emitOpError() << "loop " << k
                                << " has no operand dim to take its size from";
  // The loops' bounds come from different operands, so their product (the
  // iteration count) is not bounded by any tensor's size.
  std::optional<int64_t> total = checkedNumElements(bounds);
  if (!total)
    return raw->emitOpError()
           << "iterates over more than 2^63 points on rank " << rank;

  // Per-operand strides per loop, and base offsets.
  std::vector<std::vector<int64_t>> loopStride(numOperands,
                                               std::vector<int64_t>(numLoops, 0));
  std::vector<int64_t> base(numOperands, 0);
  std::vector<const Tensor *> tensors(numOperands, nullptr);
  for (unsigned o = 0; o < numOperands; ++o) {
    if (o >= numInputs)
      tensors[o] = &outs[o - numInputs];
    else if (args[o]->kind == RValue::Kind::Tensor ||
             args[o]->kind == RValue::Kind::Dist)
      tensors[o] = &args[o]->tensor;
    if (!tensors[o])
      continue;
    Shape strides = stridesOf(tensors[o]->shape());
    for (auto [j, lin] : llvm::enumerate(exprs[o])) {
      base[o] += lin.constant * strides[j];
      for (unsigned k = 0; k < numLoops; ++k)
        loopStride[o][k] += lin.coefficients[k] * strides[j];
    }
  }
  // Bounds check of the extreme points (linear maps: extremes at corners).
  for (unsigned o = 0; o < numOperands; ++o) {
    if (!tensors[o])
      continue;
    for (auto [j, lin] : llvm::enumerate(exprs[o])) {
      std::optional<int64_t> lo = lin.constant, hi = lin.constant;
      for (unsigned k = 0; k < numLoops && lo && hi; ++k) {
        if (bounds[k] == 0)
          continue;
        std::optional<int64_t> v =
            llvm::checkedMul(lin.coefficients[k], bounds[k] - 1);
        if (!v)
          lo = std::nullopt;
        else if (*v < 0)
          lo = llvm::checkedAdd(*lo, *v);
        else
          hi = llvm::checkedAdd(*hi, *v);
      }
      bool empty = llvm::any_of(bounds, [](int64_t b) { return b == 0; });
      if (!empty && (!lo || !hi || *lo < 0 || *hi >= tensors[o]->shape()[j]))
        return raw->emitOpError()
               << "operand " << o << " is indexed out of bounds in dim " << j;
    }
  }

  std::vector<Reg> regs(body.numRegs());
  body.init(regs.data());
  for (auto [k, capture] : llvm::enumerate(body.captures())) {
    const RValue *v = captured[k];
    Reg &r = regs[capture.first];
    if (llvm::isa<RankedTensorType>(capture.second.getType()))
      r.i = int64_t(reinterpret_cast<intptr_t>(&v->tensor));
    else if (llvm::isa<FloatType>(capture.second.getType()))
      r.f = v->kind == RValue::Kind::Float ? v->f : double(v->i);
    else
      r.i = v->kind == RValue::Kind::Int ? v->i : int64_t(v->f);
  }
  // Scalar inputs are constant over the loop.
  for (unsigned o = 0; o < numInputs; ++o)
    if (!tensors[o]) {
      if (body.isFloatArg(o))
        regs[o].f = args[o]->kind == RValue::Kind::Float ? args[o]->f
                                                         : double(args[o]->i);
      else
        regs[o].i = args[o]->kind == RValue::Kind::Int ? args[o]->i
                                                       : int64_t(args[o]->f);
    }
  std::vector<int64_t> index(numLoops, 0), offset = base;
  const std::vector<int> &yields = body.yields();

  // linalg.fill of a scalar: no body to run.
  if (llvm::isa<linalg::FillOp>(raw) && !tensors[0]) {
    Reg value = regs[0];
    dispatch(outs[0].dtype(), [&](auto v) {
      using T = decltype(v);
      T x = body.isFloatArg(0) ? T(value.f) : T(value.i);
      std::fill_n(outs[0].mutableData<T>(), outs[0].numElements(), x);
    });
    std::vector<RValue> results;
    for (Tensor &t : outs)
      results.push_back(RValue::ofTensor(std::move(t)));
    return results;
  }

  // Advances the odometer (innermost loop fastest) and every offset. Signed
  // from the start: with no loops (0-d operands) there is nothing to advance.
  auto next = [&]() {
    for (int64_t k = int64_t(numLoops) - 1; k >= 0; --k) {
      ++index[k];
      for (unsigned o = 0; o < numOperands; ++o)
        offset[o] += loopStride[o][k];
      if (index[k] < bounds[k])
        break;
      for (unsigned o = 0; o < numOperands; ++o)
        offset[o] -= loopStride[o][k] * bounds[k];
      index[k] = 0;
    }
  };

  // Every tensor operand of one float type and no reduction along the
  // innermost loop: whole rows of the innermost loop at once, each body
  // instruction a tight loop over the row.
  auto columnLoop = [&](auto zero) {
    using T = decltype(zero);
    int inner = numLoops - 1;
    int64_t rowLength = bounds[inner];
    int64_t rows = *total / rowLength;
    // Tiles of the row keep the register block in cache.
    const int64_t kTile = 512;
    int64_t width = std::min(rowLength, kTile);
    std::vector<Reg> block(size_t(body.numRegs()) * width);
    body.initColumns(block.data(), width);
    for (unsigned o = 0; o < numInputs; ++o)
      if (!tensors[o])
        std::fill_n(block.data() + o * width, width, regs[o]);
    for (auto &capture : body.captures())
      std::fill_n(block.data() + capture.first * width, width,
                  regs[capture.first]);
    std::vector<const T *> in(numOperands, nullptr);
    for (unsigned o = 0; o < numOperands; ++o)
      if (tensors[o])
        in[o] = tensors[o]->data<T>();
    for (int64_t row = 0; row < rows; ++row) {
      for (int64_t t0 = 0; t0 < rowLength; t0 += width) {
        int64_t n = std::min(width, rowLength - t0);
        for (unsigned o = 0; o < numOperands; ++o) {
          if (!in[o])
            continue;
          Reg *col = block.data() + o * width;
          int64_t step = loopStride[o][inner];
          const T *src = in[o] + offset[o] + t0 * step;
          for (int64_t i = 0; i < n; ++i)
            col[i].f = double(src[i * step]);
        }
        index[inner] = t0;
        body.runColumns(block.data(), width, n, index.data(), inner);
        for (unsigned r = 0; r < outs.size(); ++r) {
          const Reg *col = block.data() + yields[r] * width;
          int64_t step = loopStride[numInputs + r][inner];
          T *dst = outs[r].mutableData<T>() + offset[numInputs + r] + t0 * step;
          for (int64_t i = 0; i < n; ++i)
            dst[i * step] = T(col[i].f);
        }
      }
      // Jump to the next row: the inner loop's index wraps.
      index[inner] = rowLength - 1;
      for (unsigned o = 0; o < numOperands; ++o)
        offset[o] += loopStride[o][inner] * (rowLength - 1);
      next();
    }
  };

  // Every tensor operand of one float type: typed pointers, no per-element
  // dtype dispatch.
  auto typedLoop = [&](auto zero) {
    using T = decltype(zero);
    std::vector<const T *> in(numOperands, nullptr);
    std::vector<T *> out(outs.size(), nullptr);
    for (unsigned o = 0; o < numInputs; ++o)
      if (tensors[o])
        in[o] = tensors[o]->data<T>();
    for (unsigned r = 0; r < outs.size(); ++r) {
      out[r] = outs[r].mutableData<T>();
      in[numInputs + r] = out[r];
    }
    Reg *rf = regs.data();
    for (int64_t point = 0; point < *total; ++point) {
      for (unsigned o = 0; o < numOperands; ++o)
        if (in[o])
          rf[o].f = double(in[o][offset[o]]);
      body.run(rf, index.data());
      for (unsigned r = 0; r < outs.size(); ++r)
        out[r][offset[numInputs + r]] = T(rf[yields[r]].f);
      next();
    }
  };
  DType common = outs[0].dtype();
  bool allFloat = common == DType::F32 || common == DType::F64;
  for (unsigned o = 0; o < numOperands; ++o) {
    if (tensors[o] && tensors[o]->dtype() != common)
      allFloat = false;
    if (tensors[o] && !body.isFloatArg(o))
      allFloat = false;
  }
  // Columns need independent points along the innermost loop: every output
  // moves with it (no reduction there).
  bool columns = numLoops > 0 && *total > 0;
  for (unsigned r = 0; r < outs.size() && columns; ++r)
    columns = loopStride[numInputs + r][numLoops - 1] != 0;
  if (allFloat && columns) {
    if (common == DType::F32)
      columnLoop(float());
    else
      columnLoop(double());
  } else if (allFloat) {
    if (common == DType::F32)
      typedLoop(float());
    else
      typedLoop(double());
  } else {
    for (int64_t point = 0; point < *total; ++point) {
      for (unsigned o = 0; o < numOperands; ++o)
        if (tensors[o])
          regs[o] = load(*tensors[o], offset[o], body.isFloatArg(o));
      body.run(regs.data(), index.data());
      for (unsigned r = 0; r < outs.size(); ++r)
        store(outs[r], offset[numInputs + r], regs[yields[r]],
              body.isFloatArg(numInputs + r));
      next();
    }
  }
  std::vector<RValue> results;
  for (Tensor &t : outs)
    results.push_back(RValue::ofTensor(std::move(t)));
  return results;
}

LogicalResult runLinalg(Interpreter &I, Operation *raw) {
  auto op = llvm::cast<linalg::LinalgOp>(raw);
  if (!op.hasPureTensorSemantics())
    return raw->emitOpError() << "on buffers is not supported by the interpreter";
  FailureOr<BodyProgram> body = BodyProgram::compile(*op.getBlock());
  if (failed(body))
    return failure();
  bool uniform = llvm::all_of(raw->getOperands(),
                              [&](Value v) { return I.lookup(v).uniform; });
  SmallVector<Value> captures;
  for (auto &capture : body->captures()) {
    uniform &= I.lookup(capture.second).uniform;
    captures.push_back(capture.second);
  }
  // Per-rank operands that are the same everywhere also run once (shared).
  bool once = uniform || I.runsOnce(raw, captures);
  int64_t ranks = once ? 1 : I.numRanks();
  std::vector<MValue> results(raw->getNumResults());
  for (MValue &m : results) {
    m.uniform = uniform;
    m.values.resize(ranks);
  }
  // Each init is the result's starting value: taken at its last use (no
  // copy), copied otherwise. Taken here, in order, before ranks may run on
  // threads (taking moves the value out of the environment).
  std::vector<std::vector<std::optional<Tensor>>> taken(ranks);
  for (int64_t r = 0; r < ranks; ++r)
    for (OpOperand &init : op.getDpsInitsMutable())
      taken[r].push_back(
          I.takeForUpdate(raw, init.getOperandNumber(), r, once));
  bool parallel = ranks > 1 && worthThreads(I, raw);
  // On threads, each rank gets its own copy of the body program (it notes
  // out-of-bounds reads), so the error names the rank that made one.
  std::vector<BodyProgram> bodies;
  if (parallel)
    bodies.assign(ranks, *body);
  LogicalResult ok = I.forEachRank(ranks, parallel, [&](int64_t r) -> LogicalResult {
    std::vector<Tensor> outs;
    for (auto [k, init] : llvm::enumerate(op.getDpsInits())) {
      std::optional<Tensor> out = std::move(taken[r][k]);
      std::string error;
      if (!out)
        out = I.lookup(init).on(r).tensor.copy(error);
      if (!out)
        return emitCannotHold(raw, r, error);
      outs.push_back(std::move(*out));
    }
    std::vector<const RValue *> args;
    for (Value v : raw->getOperands())
      args.push_back(&I.lookup(v).on(r));
    std::vector<const RValue *> captured;
    for (auto &capture : body->captures())
      captured.push_back(&I.lookup(capture.second).on(r));
    const BodyProgram &program = parallel ? bodies[r] : *body;
    FailureOr<std::vector<RValue>> out =
        runStructured(op, program, args, captured, std::move(outs), r);
    if (failed(out))
      return failure();
    if (program.readOutOfBounds())
      return raw->emitOpError()
             << "reads a tensor out of bounds with tensor.extract in its body"
             << (ranks > 1 ? " on rank " + std::to_string(r) : std::string());
    for (size_t i = 0; i < out->size(); ++i)
      results[i].values[r] = std::move((*out)[i]);
    return success();
  });
  if (failed(ok))
    return failure();
  if (once && !uniform)
    for (MValue &m : results)
      m.values.assign(I.numRanks(), m.values[0]);
  for (auto [res, m] : llvm::zip(raw->getResults(), results))
    I.bind(res, std::move(m));
  return success();
}

//===----------------------------------------------------------------------===//
// scf
//===----------------------------------------------------------------------===//

/// A scalar the whole program agrees on, or an error naming the op.
FailureOr<int64_t> uniformInt(Interpreter &I, Operation *op, Value v,
                              StringRef what) {
  const MValue &m = I.lookup(v);
  int64_t first = m.on(0).i;
  for (int64_t r = 1; r < (m.uniform ? 1 : I.numRanks()); ++r)
    if (m.on(r).i != first)
      return op->emitOpError()
             << what << " differs across ranks (" << first << " on rank 0, "
             << m.on(r).i << " on rank " << r
             << "); rank-dependent control flow is not supported yet";
  return first;
}

/// Fails at `loop` when it is about to start iteration `iteration` (from 1)
/// past the interpreter's loop limit.
LogicalResult checkLoopLimit(Interpreter &I, Operation *loop,
                             int64_t iteration) {
  int64_t limit = I.getMaxLoopIterations();
  if (limit <= 0 || iteration <= limit)
    return success();
  return loop->emitOpError()
         << "ran " << limit
         << " iterations, the most one loop may run (--max-loop-iterations)";
}

LogicalResult runFor(Interpreter &I, Operation *raw) {
  auto loop = llvm::cast<scf::ForOp>(raw);
  FailureOr<int64_t> lb = uniformInt(I, raw, loop.getLowerBound(), "the lower bound");
  FailureOr<int64_t> ub = uniformInt(I, raw, loop.getUpperBound(), "the upper bound");
  FailureOr<int64_t> step = uniformInt(I, raw, loop.getStep(), "the step");
  if (failed(lb) || failed(ub) || failed(step))
    return failure();
  if (*step <= 0)
    return raw->emitOpError() << "has a non-positive step " << *step;
  if (loop.getUnsignedCmp())
    return raw->emitOpError()
           << "compares its bounds unsigned, which is not supported (the "
              "interpreter compares them signed)";
  std::vector<MValue> carried;
  for (Value v : loop.getInitArgs())
    carried.push_back(I.lookup(v));
  int64_t iterations = 0;
  // The next induction value past INT64_MAX ends the loop (it cannot be
  // below the bound), without the signed overflow.
  for (int64_t iv = *lb, next; iv < *ub;
       iv = llvm::AddOverflow(iv, *step, next) ? *ub : next) {
    if (failed(checkLoopLimit(I, raw, ++iterations)))
      return failure();
    std::vector<MValue> args{MValue::same(RValue::ofInt(iv))};
    // Moved, not copied: the body's block arguments then hold the only
    // handles, so an update at their last use can happen in place.
    args.insert(args.end(), std::make_move_iterator(carried.begin()),
                std::make_move_iterator(carried.end()));
    std::vector<MValue> results;
    if (failed(I.runRegion(loop.getRegion(), std::move(args), results)))
      return failure();
    carried = std::move(results);
  }
  for (auto [res, m] : llvm::zip(loop.getResults(), carried))
    I.bind(res, std::move(m));
  return success();
}

LogicalResult runIf(Interpreter &I, Operation *raw) {
  auto branch = llvm::cast<scf::IfOp>(raw);
  FailureOr<int64_t> cond =
      uniformInt(I, raw, branch.getCondition(), "the condition");
  if (failed(cond))
    return failure();
  Region &region = *cond ? branch.getThenRegion() : branch.getElseRegion();
  std::vector<MValue> results;
  if (!region.empty() && failed(I.runRegion(region, {}, results)))
    return failure();
  for (auto [res, m] : llvm::zip(branch.getResults(), results))
    I.bind(res, std::move(m));
  return success();
}

LogicalResult runWhile(Interpreter &I, Operation *raw) {
  auto loop = llvm::cast<scf::WhileOp>(raw);
  std::vector<MValue> carried;
  for (Value v : loop.getInits())
    carried.push_back(I.lookup(v));
  for (int64_t iterations = 1;; ++iterations) {
    if (failed(checkLoopLimit(I, raw, iterations)))
      return failure();
    std::vector<MValue> before;
    if (failed(I.runRegion(loop.getBefore(), std::move(carried), before)))
      return failure();
    // before = [condition, forwarded...]
    auto condition = loop.getConditionOp();
    I.bind(condition.getCondition(), before.front());
    FailureOr<int64_t> cond =
        uniformInt(I, raw, condition.getCondition(), "the condition");
    if (failed(cond))
      return failure();
    std::vector<MValue> forwarded(before.begin() + 1, before.end());
    if (!*cond) {
      for (auto [res, m] : llvm::zip(loop.getResults(), forwarded))
        I.bind(res, std::move(m));
      return success();
    }
    std::vector<MValue> after;
    if (failed(I.runRegion(loop.getAfter(), std::move(forwarded), after)))
      return failure();
    carried = std::move(after);
  }
}

//===----------------------------------------------------------------------===//
// math and float unary ops on tensors and scalars
//===----------------------------------------------------------------------===//

using UnaryFn = double (*)(double);

void registerUnary(llvm::StringMap<Interpreter::Kernel> &k, StringRef name,
                   UnaryFn f) {
  k[name] = [f](Interpreter &I, Operation *op) -> LogicalResult {
    const MValue &in = I.lookup(op->getOperand(0));
    bool f32 = getElementTypeOrSelf(op->getResult(0).getType()).isF32();
    MValue out;
    out.uniform = in.uniform;
    for (int64_t r = 0; r < (in.uniform ? 1 : I.numRanks()); ++r) {
      const RValue &v = in.on(r);
      if (v.kind == RValue::Kind::Float) {
        double x = f(v.f);
        out.values.push_back(RValue::ofFloat(f32 ? double(float(x)) : x));
        continue;
      }
      std::string error;
      std::optional<Tensor> made =
          Tensor::create(v.tensor.dtype(), v.tensor.shape(), error);
      if (!made)
        return emitCannotHold(op, r, error);
      Tensor &t = *made;
      int64_t n = t.numElements();
      if (t.dtype() == DType::F32) {
        const float *x = v.tensor.data<float>();
        float *y = t.mutableData<float>();
        for (int64_t i = 0; i < n; ++i)
          y[i] = float(f(x[i]));
      } else if (t.dtype() == DType::F64) {
        const double *x = v.tensor.data<double>();
        double *y = t.mutableData<double>();
        for (int64_t i = 0; i < n; ++i)
          y[i] = f(x[i]);
      } else if (isFloat(t.dtype())) {
        dispatch(t.dtype(), [&](auto z) {
          using T = decltype(z);
          const T *x = v.tensor.data<T>();
          T *y = t.mutableData<T>();
          for (int64_t i = 0; i < n; ++i)
            y[i] = T(f(double(float(x[i]))));
        });
      } else {
        return op->emitOpError() << "needs a float tensor";
      }
      out.values.push_back(RValue::ofTensor(std::move(*made)));
    }
    I.bind(op->getResult(0), std::move(out));
    return success();
  };
}

} // namespace

void mlir::dtensor::interp::registerLinalgKernels(
    llvm::StringMap<Interpreter::Kernel> &k) {
  for (StringRef name :
       {"linalg.generic", "linalg.matmul", "linalg.batch_matmul",
        "linalg.fill", "linalg.transpose", "linalg.broadcast", "linalg.reduce",
        "linalg.map", "linalg.add", "linalg.sub", "linalg.mul", "linalg.div",
        "linalg.max", "linalg.min", "linalg.exp", "linalg.log", "linalg.abs",
        "linalg.negf", "linalg.copy", "linalg.elementwise",
        "linalg.matvec", "linalg.vecmat", "linalg.dot",
        "linalg.conv_1d", "linalg.conv_2d", "linalg.conv_2d_nhwc_hwcf",
        "linalg.conv_2d_nchw_fchw", "linalg.depthwise_conv_2d_nhwc_hwc"})
    k[name] = runLinalg;
  k["scf.for"] = runFor;
  k["scf.if"] = runIf;
  k["scf.while"] = runWhile;
  registerUnary(k, "math.exp", [](double x) { return std::exp(x); });
  registerUnary(k, "math.log", [](double x) { return std::log(x); });
  registerUnary(k, "math.tanh", [](double x) { return std::tanh(x); });
  registerUnary(k, "math.sqrt", [](double x) { return std::sqrt(x); });
  registerUnary(k, "math.rsqrt", [](double x) { return 1.0 / std::sqrt(x); });
  registerUnary(k, "math.erf", [](double x) { return std::erf(x); });
  registerUnary(k, "math.absf", [](double x) { return std::fabs(x); });
  registerUnary(k, "math.sin", [](double x) { return std::sin(x); });
  registerUnary(k, "math.cos", [](double x) { return std::cos(x); });
  registerUnary(k, "math.floor", [](double x) { return std::floor(x); });
  registerUnary(k, "math.ceil", [](double x) { return std::ceil(x); });
  registerUnary(k, "arith.negf", [](double x) { return -x; });
}
