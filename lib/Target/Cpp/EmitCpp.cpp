//===- EmitCpp.cpp - the local view as a C++ program over the runtime -----===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// One pass over a compiled module, after prepareForCpp:
//
//  - every SSA value is a C++ local: tensors are dtensor_rt::Tensor (shared,
//    copy-on-write), futures dtensor_rt::Future, mesh handles a reference to
//    the process's dtensor_rt::Mesh, scalars their C++ type;
//  - linalg.generic becomes one kernel: the loops that every output indexes
//    run through dtensor_rt::parallel_for (all but the innermost of them
//    flattened), the rest (reductions) nest inside in their order, and the
//    body is straight-line scalar C++;
//  - fill, matmul, batch_matmul and the tensor dialect's data movement call
//    the runtime;
//  - collectives call the runtime with a group id. Every (mesh, mesh_dims)
//    a program uses is one group, split eagerly in main in first-use order;
//    the color and key of every world rank come from the layout core's
//    meshGroups, emitted as tables, so the runtime never re-derives a group.
//    The per-rank answers of mesh_coord, shard_size and shard_offset are
//    tables from the core too;
//  - main reads each distributed argument's box for this rank from the
//    layout core's shard of its `dtensor.global` type (the compiled
//    function's contract), applies DTensor's R -> P rule to Partial inputs,
//    runs the entry and writes every result.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Target/Cpp.h"

#include "dtensor/Core/Layout.h"
#include "dtensor/Dialect/DTensor/IR/DTensor.h"
#include "dtensor/Dialect/DTensor/Transforms/Contractions.h"
#include "dtensor/Dialect/DTensor/Transforms/LocalView.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "dtensor/InitAll.h"
#include "dtensor/Support/InputScreen.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/IndentedOstream.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/ParseUtilities.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::dtensor;

//===----------------------------------------------------------------------===//
// Preparation
//===----------------------------------------------------------------------===//

namespace {

/// Whether the emitter calls the runtime for this structured op instead of
/// generating its loops.
bool isLibraryCall(linalg::LinalgOp op) {
  if (isa<linalg::FillOp>(op))
    return true;
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
      op.hasUserDefinedMaps())
    return false;
  Type t = getElementTypeOrSelf(op->getResult(0).getType());
  if (llvm::all_of(op->getOperandTypes(),
                   [&](Type o) { return getElementTypeOrSelf(o) == t; }))
    return true;
  return isWidenedProduct(op);
}

/// A linalg.generic that is a matmul over collapsed dims (Contractions.h):
/// out[b..., n] += x[b..., k] * w[k, n] (the PyTorch importer's F.linear
/// over leading dims) becomes a linalg.matmul of x with its leading dims
/// collapsed, and out[b..., m, n] += x[b..., m, k] * y[b..., k, n]
/// (attention's products over batch and heads) a linalg.batch_matmul with
/// the batch dims collapsed. A rank's pieces are contiguous, so the
/// collapses are free and BLAS computes the product instead of a loop nest.
struct CollapsedMatmul : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    // (Widened products too: the runtime computes them.)
    unsigned lead = leadingDimsMatmul(op, /*widened=*/true),
             batch = batchedMatmul(op, /*widened=*/true);
    if (!lead && !batch)
      return failure();
    Location loc = op.getLoc();
    unsigned n = lead ? lead : batch;
    // Dims [0, n) of a rank-`rank` tensor as one, the others kept.
    auto groupsOf = [&](int64_t rank) {
      SmallVector<ReassociationIndices> groups(1);
      for (unsigned l = 0; l < n; ++l)
        groups[0].push_back(l);
      for (int64_t d = n; d < rank; ++d)
        groups.push_back({d});
      return groups;
    };
    auto collapse = [&](Value v) -> Value {
      if (n == 1)
        return v;
      return tensor::CollapseShapeOp::create(
          rewriter, loc, v,
          groupsOf(cast<RankedTensorType>(v.getType()).getRank()));
    };
    Value init = op.getDpsInits()[0];
    Value x = collapse(op.getDpsInputs()[0]);
    Value y = lead ? op.getDpsInputs()[1] : collapse(op.getDpsInputs()[1]);
    Value acc = collapse(init);
    Value product =
        lead ? linalg::MatmulOp::create(rewriter, loc, ValueRange{x, y},
                                        ValueRange{acc})
                   .getResult(0)
             : linalg::BatchMatmulOp::create(rewriter, loc, ValueRange{x, y},
                                             ValueRange{acc})
                   .getResult(0);
    if (n == 1) {
      rewriter.replaceOp(op, product);
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, op->getResult(0).getType(), product,
        groupsOf(cast<RankedTensorType>(init.getType()).getRank()),
        tensor::getMixedSizes(rewriter, loc, init));
    return success();
  }
};

/// A contraction out += a * b whose operands or result read their loops in
/// another order (the PyTorch importer's einsums: `bqhd,bkhd->bhqk` reads
/// the heads, a batch loop, after the rows) becomes transposes of the
/// operands into the order CollapsedMatmul takes (batch..., rows..., k) and
/// (batch..., k, n), that contraction, and a transpose of its result back:
/// BLAS instead of a loop nest, for the price of copies. One column loop,
/// and one row loop where there are batch loops (else a loop nest).
struct PermutedContraction : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() ||
        !isMulAddContraction(op, /*widened=*/true) ||
        leadingDimsMatmul(op, /*widened=*/true) ||
        batchedMatmul(op, /*widened=*/true))
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    for (AffineMap m : maps)
      if (!m.isProjectedPermutation(/*allowZeroInResults=*/false))
        return failure();
    int64_t loops = op.getNumLoops(), k = loops - 1;
    auto positionIn = [&](AffineMap m, int64_t loop) -> int64_t {
      for (auto [i, e] : llvm::enumerate(m.getResults()))
        if (cast<AffineDimExpr>(e).getPosition() == loop)
          return int64_t(i);
      return -1;
    };
    if (positionIn(maps[0], k) < 0 || positionIn(maps[1], k) < 0 ||
        positionIn(maps[2], k) >= 0)
      return failure();
    // The parallel loops in the result's order, by the operands they index.
    SmallVector<int64_t> batch, rows, cols;
    for (AffineExpr e : maps[2].getResults()) {
      int64_t l = cast<AffineDimExpr>(e).getPosition();
      bool inA = positionIn(maps[0], l) >= 0, inB = positionIn(maps[1], l) >= 0;
      if (inA && inB)
        batch.push_back(l);
      else if (inA)
        rows.push_back(l);
      else if (inB)
        cols.push_back(l);
      else
        return failure();
    }
    if (cols.size() != 1 || rows.empty() || (!batch.empty() && rows.size() != 1) ||
        int64_t(batch.size() + rows.size() + cols.size()) != loops - 1)
      return failure();
    Location loc = op.getLoc();
    // `v` with its dim i taken from dim perm[i] (as a generic: the named
    // ops were generalized before these patterns).
    auto transposed = [&](Value v, ArrayRef<int64_t> perm) -> Value {
      if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
        return v;
      SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, v);
      SmallVector<OpFoldResult> permuted;
      for (int64_t p : perm)
        permuted.push_back(sizes[p]);
      Value empty = tensor::EmptyOp::create(rewriter, loc, permuted,
                                            getElementTypeOrSelf(v.getType()));
      auto transpose =
          linalg::TransposeOp::create(rewriter, loc, v, empty, perm);
      FailureOr<linalg::GenericOp> generic =
          linalg::generalizeNamedOp(rewriter, transpose);
      return succeeded(generic) ? (*generic)->getResult(0)
                                : transpose->getResult(0);
    };
    // `v` (indexed by `map`) with its dims in the order of `want` (loops).
    auto reorder = [&](Value v, AffineMap map, ArrayRef<int64_t> want) {
      SmallVector<int64_t> perm;
      for (int64_t l : want)
        perm.push_back(positionIn(map, l));
      return transposed(v, perm);
    };
    SmallVector<int64_t> aOrder(batch), bOrder(batch), cOrder(batch);
    aOrder.append(rows.begin(), rows.end());
    aOrder.push_back(k);
    bOrder.push_back(k);
    bOrder.append(cols.begin(), cols.end());
    cOrder.append(rows.begin(), rows.end());
    cOrder.append(cols.begin(), cols.end());
    Value a = reorder(op.getDpsInputs()[0], maps[0], aOrder);
    Value b = reorder(op.getDpsInputs()[1], maps[1], bOrder);
    Value init = reorder(op.getDpsInits()[0], maps[2], cOrder);
    // The contraction over loops (batch..., rows..., n, k), canonical.
    int64_t nb = batch.size(), nr = rows.size();
    MLIRContext *ctx = op.getContext();
    SmallVector<AffineMap> canonical = {
        loopMap(loops, nb + nr, {k}, ctx),
        loopMap(loops, nb, {k, nb + nr}, ctx),
        loopMap(loops, nb + nr, {nb + nr}, ctx)};
    SmallVector<utils::IteratorType> iters(loops, utils::IteratorType::parallel);
    iters.back() = utils::IteratorType::reduction;
    auto product = linalg::GenericOp::create(rewriter, loc, init.getType(),
                                             ValueRange{a, b}, ValueRange{init},
                                             canonical, iters);
    rewriter.cloneRegionBefore(op.getRegion(), product.getRegion(),
                               product.getRegion().end());
    // Back to the result's order: its dim i is the canonical dim holding
    // the loop it reads.
    SmallVector<int64_t> back;
    for (AffineExpr e : maps[2].getResults())
      back.push_back(llvm::find(cOrder, cast<AffineDimExpr>(e).getPosition()) -
                     cOrder.begin());
    Value result = transposed(product->getResult(0), back);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

LogicalResult mlir::dtensor::prepareForCpp(ModuleOp module) {
  PassManager pm(module.getContext());
  pm.addPass(createConvertElementwiseToLinalgPass());
  if (failed(pm.run(module)))
    return failure();
  IRRewriter rewriter(module.getContext());
  // Aggregates first (softmax decomposes into named ops and generics).
  SmallVector<linalg::AggregatedOpInterface> aggregates;
  module.walk([&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
  for (linalg::AggregatedOpInterface op : aggregates) {
    rewriter.setInsertionPoint(op);
    FailureOr<SmallVector<Value>> parts = op.decomposeOperation(rewriter);
    if (failed(parts))
      return op->emitOpError("cannot be decomposed for C++ emission");
    rewriter.replaceOp(op, *parts);
  }
  SmallVector<linalg::LinalgOp> named;
  module.walk([&](linalg::LinalgOp op) {
    if (!isa<linalg::GenericOp>(op) && !isLibraryCall(op))
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    if (failed(linalg::generalizeNamedOp(rewriter, op)))
      return op->emitOpError("cannot be generalized for C++ emission");
  }
  {
    RewritePatternSet matmuls(module.getContext());
    matmuls.add<CollapsedMatmul, PermutedContraction>(module.getContext());
    if (failed(applyPatternsGreedily(module, std::move(matmuls))))
      return module.emitError("matmul recognition did not converge");
  }
  // Fuse exact element-wise chains: a parallel producer with one use is
  // inlined into its consumer's body, so the chain is one kernel and one
  // pass over memory. Each fused body computes the same scalar ops in the
  // same order, so the numbers do not change. A producer that calls a math
  // function (tanh, exp, ...) is not fused: a kernel with a chain of such
  // calls per element is latency-bound (measured: 16 GELU and add kernels on
  // 2^20 floats take 96 ms as 16 loops, 235 ms as one loop; with this rule
  // they are 8 loops; with the runtime's vector math, 16.5 ms with the rule
  // and 30.7 ms as one loop), while chains of arithmetic fuse completely.
  RewritePatternSet fusion(module.getContext());
  linalg::populateElementwiseOpsFusionPatterns(
      fusion, [](OpOperand *fused) {
        Operation *producer = fused->get().getDefiningOp();
        if (!producer || !producer->hasOneUse())
          return false;
        bool callsMath = false;
        producer->walk([&](Operation *op) {
          if (op->getDialect() && isa<math::MathDialect>(op->getDialect()))
            callsMath = true;
        });
        return !callsMath;
      });
  GreedyRewriteConfig config;
  config.setUseTopDownTraversal(true);
  if (failed(applyPatternsGreedily(module, std::move(fusion), config)))
    return module.emitError("element-wise fusion did not converge");
  return success();
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

namespace {

/// The runtime's name of an element type, or empty.
StringRef dtypeEnum(Type t) {
  if (t.isF32())
    return "rt::DType::F32";
  if (t.isF16())
    return "rt::DType::F16";
  if (t.isBF16())
    return "rt::DType::BF16";
  if (t.isF64())
    return "rt::DType::F64";
  if (t.isInteger(1))
    return "rt::DType::I1";
  if (t.isInteger(8))
    return "rt::DType::I8";
  if (t.isInteger(16))
    return "rt::DType::I16";
  if (t.isInteger(32))
    return "rt::DType::I32";
  if (t.isInteger(64) || t.isIndex())
    return "rt::DType::I64";
  return "";
}

/// The C++ type of a scalar, or empty.
StringRef scalarType(Type t) {
  if (t.isF32())
    return "float";
  // Two bytes of storage, arithmetic through float (Runtime.h).
  if (t.isF16())
    return "rt::half";
  if (t.isBF16())
    return "rt::bfloat16";
  if (t.isF64())
    return "double";
  if (t.isInteger(1))
    return "bool";
  if (t.isInteger(8))
    return "int8_t";
  if (t.isInteger(16))
    return "int16_t";
  if (t.isInteger(32))
    return "int32_t";
  if (t.isInteger(64) || t.isIndex())
    return "int64_t";
  return "";
}

/// The unsigned C++ type of the same width as integer `t`.
StringRef unsignedType(Type t) {
  if (t.isInteger(1))
    return "bool";
  if (t.isInteger(8))
    return "uint8_t";
  if (t.isInteger(16))
    return "uint16_t";
  if (t.isInteger(32))
    return "uint32_t";
  return "uint64_t";
}

std::string floatLiteral(double v, bool isF32) {
  std::string t = isF32 ? "float" : "double";
  if (std::isnan(v))
    return "std::numeric_limits<" + t + ">::quiet_NaN()";
  if (std::isinf(v))
    return std::string(v < 0 ? "-" : "") + "std::numeric_limits<" + t +
           ">::infinity()";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%a", v);
  return t + "(" + buf + ")";
}

std::string intLiteral(const APInt &v, Type t) {
  if (t.isInteger(1))
    return v.isZero() ? "false" : "true";
  int64_t x = t.isIndex() ? v.getSExtValue() : v.getSExtValue();
  if (x == INT64_MIN)
    return "int64_t(-9223372036854775807LL - 1)";
  return (scalarType(t) + "(" + Twine(x) + "LL)").str();
}

/// A reduction a GPU may split (emitGeneric): the single output's block
/// argument is used once, by the op that yields, which combines it with a
/// term by an associative and commutative operation. Returns that op and the
/// operation's identity in C++, or null.
std::pair<Operation *, std::string> splittableCombiner(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1)
    return {nullptr, ""};
  Block &blk = op.getRegion().front();
  BlockArgument acc = blk.getArgument(op.getNumDpsInputs());
  auto yield = cast<linalg::YieldOp>(blk.getTerminator());
  Value v = yield.getValues()[0];
  Operation *c = v.getDefiningOp();
  if (!c || c->getBlock() != &blk || c->getNumOperands() != 2 ||
      !acc.hasOneUse() || !v.hasOneUse() ||
      (c->getOperand(0) != acc && c->getOperand(1) != acc) ||
      c->getOperand(0) == c->getOperand(1))
    return {nullptr, ""};
  Type t = v.getType();
  StringRef ty = scalarType(t);
  auto fl = [&](double x) {
    return (ty + "(" + floatLiteral(x, true) + ")").str();
  };
  unsigned w = t.isIntOrIndex() ? (t.isIndex() ? 64 : t.getIntOrFloatBitWidth()) : 0;
  auto in = [&](const APInt &x) { return intLiteral(x, t); };
  double inf = std::numeric_limits<double>::infinity();
  std::string id =
      TypeSwitch<Operation *, std::string>(c)
          .Case([&](arith::AddFOp) { return fl(-0.0); })
          .Case([&](arith::MulFOp) { return fl(1.0); })
          .Case<arith::MaximumFOp, arith::MaxNumFOp>([&](auto) { return fl(-inf); })
          .Case<arith::MinimumFOp, arith::MinNumFOp>([&](auto) { return fl(inf); })
          .Case<arith::AddIOp, arith::OrIOp, arith::XOrIOp>(
              [&](auto) { return in(APInt::getZero(w)); })
          .Case([&](arith::MulIOp) { return in(APInt(w, 1)); })
          .Case([&](arith::AndIOp) { return in(APInt::getAllOnes(w)); })
          .Case([&](arith::MaxSIOp) {
            return w > 1 ? in(APInt::getSignedMinValue(w)) : std::string();
          })
          .Case([&](arith::MinSIOp) {
            return w > 1 ? in(APInt::getSignedMaxValue(w)) : std::string();
          })
          .Default([](Operation *) { return std::string(); });
  if (id.empty())
    return {nullptr, ""};
  return {c, id};
}

/// C++ string literal of `s`.
std::string quoted(StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    // Other control bytes as three-digit octal escapes, which cannot run
    // into the characters after them as hex escapes would.
    if ((unsigned char)c < 0x20 || c == 0x7f) {
      char octal[5];
      snprintf(octal, sizeof(octal), "\\%03o", (unsigned char)c);
      out += octal;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// A C++ identifier for symbol `name` with `prefix`: letters, digits and
/// '_' stay, anything else (MLIR symbols may be any quoted string) becomes
/// `_xHH`, and '_' itself `__`, so distinct symbols stay distinct.
std::string ident(StringRef prefix, StringRef name) {
  std::string out = prefix.str();
  for (char c : name) {
    if (llvm::isAlnum(c)) {
      out += c;
    } else if (c == '_') {
      out += "__";
    } else {
      out += "_x";
      out += llvm::hexdigit((static_cast<unsigned char>(c) >> 4) & 15, true);
      out += llvm::hexdigit(static_cast<unsigned char>(c) & 15, true);
    }
  }
  return out;
}

std::string locationText(Location loc) {
  if (auto fl = dyn_cast<FileLineColLoc>(loc))
    return (fl.getFilename().getValue() + ":" + Twine(fl.getLine()) + ":" +
            Twine(fl.getColumn()))
        .str();
  if (auto named = dyn_cast<NameLoc>(loc))
    return locationText(named.getChildLoc());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations()) {
      std::string t = locationText(l);
      if (!t.empty())
        return t;
    }
  if (auto callsite = dyn_cast<CallSiteLoc>(loc))
    return locationText(callsite.getCallee());
  return "";
}

class CppEmitter {
public:
  CppEmitter(ModuleOp module) : module(module) {}

  LogicalResult emit(raw_ostream &out, CppFlavour flavour);

private:
  // Names and types.
  std::string name(Value v) {
    auto it = names.find(v);
    if (it != names.end())
      return it->second;
    std::string n = "v" + std::to_string(nextName++);
    names[v] = n;
    return n;
  }
  FailureOr<std::string> cppType(Type t, Operation *at);
  std::string where(Operation *op) {
    std::string loc = locationText(op->getLoc());
    return quoted(op->getName().getStringRef().str() +
                  (loc.empty() ? "" : " at " + loc));
  }
  /// `v`, moved when this is its last use (its only use, in the block that
  /// defines it), so that writable() can reuse its storage.
  /// What a kernel writes into for init `v`: fresh storage when `v` is a
  /// tensor.empty (its contents are undefined, so nothing is copied), else
  /// `v` made writable.
  std::string writableInit(Value v, Operation *user) {
    if (auto e = v.getDefiningOp<tensor::EmptyOp>()) {
      if (shapeOnly(e))
        return "rt::Tensor::empty(" + dtypeEnum(e.getType().getElementType()).str() +
               ", " + name(v) + "_shape)";
      return "rt::Tensor::empty(" + name(v) + ".dtype(), " + name(v) +
             ".shape())";
    }
    return "rt::writable(" + consume(v, user) + ")";
  }
  /// Whether every use of `e` is the init of a kernel that writes into
  /// fresh storage of its shape (writableInit): then `e` is a shape, with
  /// no storage of its own.
  static bool shapeOnly(tensor::EmptyOp e) {
    return llvm::all_of(e->getUses(), [](OpOperand &use) {
      Operation *user = use.getOwner();
      if (!isa<linalg::GenericOp, linalg::FillOp, linalg::MatmulOp,
               linalg::BatchMatmulOp>(user))
        return false;
      return cast<DestinationStyleOpInterface>(user).isDpsInit(&use);
    });
  }
  std::string consume(Value v, Operation *user) {
    if (isLastUse(v, user)) {
      moved.insert(v);
      return "std::move(" + name(v) + ")";
    }
    return name(v);
  }

  // Liveness (docs/CodeGen.md, "Memory"). A tensor or future is released
  // after the op of its defining block that last uses it (directly or from a
  // nested region), so its storage goes back to the pool for the next
  // tensor of its size; an op that is that last use, directly and once,
  // may take the value (std::move), so writable() updates it in place
  // instead of copying.
  static bool isHandle(Value v) {
    return isa<RankedTensorType, FutureType>(v.getType());
  }
  /// Computes the last users of every tensor and future of `fn`'s blocks
  /// (not of linalg bodies, whose values are scalars: a use there is a use
  /// by the linalg op).
  void computeLiveness(func::FuncOp fn) {
    lastUser.clear();
    releaseAfter.clear();
    moved.clear();
    fn.walk([&](Block *block) {
      Operation *parent = block->getParentOp();
      if (parent->getParentOfType<linalg::LinalgOp>() ||
          isa<linalg::LinalgOp>(parent))
        return;
      auto visit = [&](Value v, Operation *def) {
        if (!isHandle(v))
          return;
        Operation *last = nullptr;
        for (OpOperand &use : v.getUses()) {
          Operation *at = block->findAncestorOpInBlock(*use.getOwner());
          if (at && (!last || last->isBeforeInBlock(at)))
            last = at;
        }
        if (!last && !def)
          return; // an unused block argument: dropped with its scope
        if (auto e = dyn_cast_or_null<tensor::EmptyOp>(def); e && shapeOnly(e))
          return; // a shape, no storage
        lastUser[v] = last;
        Operation *after = last ? last : def;
        if (!after->hasTrait<OpTrait::IsTerminator>())
          releaseAfter[after].push_back(v);
      };
      for (BlockArgument arg : block->getArguments())
        visit(arg, nullptr);
      for (Operation &op : *block)
        for (Value r : op.getResults())
          visit(r, &op);
    });
  }
  /// Whether `user`, an op of `v`'s block, is `v`'s last use and uses it
  /// once, as an operand (not from a nested region).
  bool isLastUse(Value v, Operation *user) {
    if (user->getBlock() != v.getParentBlock())
      return false;
    auto it = lastUser.find(v);
    if (it == lastUser.end() || it->second != user)
      return false;
    int direct = 0;
    for (OpOperand &use : v.getUses()) {
      if (use.getOwner() != user &&
          v.getParentBlock()->findAncestorOpInBlock(*use.getOwner()) == user)
        return false;
      direct += use.getOwner() == user;
    }
    return direct == 1;
  }
  /// `v`, or `std::move(v)` at its last use.
  std::string take(Value v, Operation *user) {
    return isHandle(v) ? consume(v, user) : name(v);
  }
  /// Releases the values whose last use is `op` (just emitted).
  LogicalResult emitReleases(Operation *op) {
    auto it = releaseAfter.find(op);
    if (it == releaseAfter.end())
      return success();
    for (Value v : it->second) {
      if (moved.contains(v))
        continue; // taken by its last use
      FailureOr<std::string> t = cppType(v.getType(), op);
      if (failed(t))
        return failure();
      *os << name(v) << " = " << *t << "();\n";
    }
    return success();
  }
  std::string ofr(OpFoldResult f) {
    if (auto attr = dyn_cast<Attribute>(f))
      return std::to_string(cast<IntegerAttr>(attr).getInt());
    return "int64_t(" + name(cast<Value>(f)) + ")";
  }
  std::string ofrList(ArrayRef<OpFoldResult> fs) {
    std::string s = "rt::Shape{";
    for (auto [i, f] : llvm::enumerate(fs))
      s += (i ? ", " : "") + ofr(f);
    return s + "}";
  }
  /// The shape of a tensor result: static dims from the type, dynamic ones
  /// from `dynamic` in order.
  std::string shapeOf(RankedTensorType t, ValueRange dynamic) {
    std::string s = "rt::Shape{";
    unsigned next = 0;
    for (int64_t d = 0; d < t.getRank(); ++d) {
      s += d ? ", " : "";
      if (t.isDynamicDim(d))
        s += "int64_t(" + name(dynamic[next++]) + ")";
      else
        s += std::to_string(t.getDimSize(d));
    }
    return s + "}";
  }
  std::string table(ArrayRef<int64_t> values) {
    std::string n = "kTable" + std::to_string(tables.size());
    std::string s = "static const int64_t " + n + "[] = {";
    for (auto [i, v] : llvm::enumerate(values))
      s += (i ? ", " : "") + std::to_string(v) + "LL";
    if (values.empty())
      s += "0";
    tables.push_back(s + "};");
    return n;
  }

  // Meshes and groups.
  FailureOr<MeshOp> meshOf(Value handle, Operation *at);
  FailureOr<int> groupOf(MeshOp mesh, ArrayRef<int64_t> dims, Operation *at);

  // Statements.
  LogicalResult emitFunction(func::FuncOp fn);
  LogicalResult emitBlock(Block &block);
  LogicalResult emitOp(Operation *op);
  LogicalResult emitScalar(Operation *op, raw_indented_ostream &os);
  LogicalResult emitGeneric(linalg::GenericOp op);
  FailureOr<std::string> operandIndex(linalg::GenericOp op, AffineMap map,
                                      unsigned k, ArrayRef<std::string> vars);
  void emitUnflatten(ArrayRef<int64_t> loops);
  LogicalResult emitLoads(linalg::GenericOp op, ArrayRef<std::string> tensorOf,
                          ArrayRef<std::string> vars,
                          SmallVectorImpl<std::string> &index,
                          std::optional<unsigned> skip = std::nullopt);
  LogicalResult emitReduction(linalg::GenericOp op, ArrayRef<int64_t> outer,
                              ArrayRef<int64_t> nested,
                              ArrayRef<std::string> vars,
                              ArrayRef<std::string> tensorOf,
                              Operation *combiner, const std::string &identity);
  LogicalResult emitCollective(Operation *op);
  LogicalResult emitQuery(Operation *op);
  LogicalResult emitTensorOp(Operation *op);
  LogicalResult emitScf(Operation *op);
  LogicalResult emitMain(raw_ostream &out);

  /// Declares `results` of `op` (without initializers) for region results.
  LogicalResult declare(ValueRange values, Operation *at) {
    for (Value v : values) {
      if (isa<DeviceMeshType>(v.getType()))
        return at->emitOpError("carries a mesh handle through control flow or "
                               "a call result, which the C++ emitter does not "
                               "support (pass the function's handle instead)");
      FailureOr<std::string> t = cppType(v.getType(), at);
      if (failed(t))
        return failure();
      // A result nothing reads is still assigned: say so to the compiler
      // (nvcc warns about it, and the CUDA build is -Werror).
      *os << (v.use_empty() ? "[[maybe_unused]] " : "") << *t << " "
          << name(v) << ";\n";
    }
    return success();
  }

  ModuleOp module;
  SymbolTableCollection symbols;
  DenseMap<Value, Operation *> lastUser;
  DenseMap<Operation *, SmallVector<Value>> releaseAfter;
  DenseSet<Value> moved;
  DenseMap<Value, std::string> names;
  unsigned nextName = 0;
  std::vector<std::string> tables;
  /// Groups in first-use order: (mesh, mesh dims) -> (id within its mesh).
  std::map<std::pair<std::string, std::vector<int64_t>>, int> groupIds;
  /// Per mesh symbol, its groups' color and key tables in id order.
  std::map<std::string, std::vector<std::pair<std::string, std::string>>>
      meshGroupsEmitted;
  std::vector<MeshOp> meshes;
  std::string body;
  std::unique_ptr<llvm::raw_string_ostream> bodyStream;
  std::unique_ptr<raw_indented_ostream> os;
  /// Inside a kernel body: loop variable of each linalg loop.
  SmallVector<std::string> loopVars;
  int kernelDepth = 0;
  /// Tensors read inside the kernel being emitted: the names of their data
  /// pointer (dims are NAME_dD).
  DenseMap<Value, std::string> kernelTensors;
};

FailureOr<std::string> CppEmitter::cppType(Type t, Operation *at) {
  if (auto tensor = dyn_cast<RankedTensorType>(t)) {
    if (tensor.getEncoding())
      return at->emitOpError("has a global-view (spec-typed) value: run "
                             "--dtensor-compile (or --dtensor-partition) "
                             "before emitting C++"),
             failure();
    if (dtypeEnum(tensor.getElementType()).empty())
      return at->emitOpError("uses element type ")
                 << tensor.getElementType()
                 << ", which the C++ emitter does not support yet (f32, f64, "
                    "f16, bf16, i1, i8, i16, i32, i64, index)",
             failure();
    return std::string("rt::Tensor");
  }
  if (isa<FutureType>(t))
    return std::string("rt::Future");
  if (isa<DeviceMeshType>(t))
    return std::string("rt::Mesh &");
  StringRef s = scalarType(t);
  if (s.empty())
    return at->emitOpError("uses type ") << t
                                          << ", which the C++ emitter does not "
                                             "support",
           failure();
  return s.str();
}

FailureOr<MeshOp> CppEmitter::meshOf(Value handle, Operation *at) {
  auto type = cast<DeviceMeshType>(handle.getType());
  auto mesh = symbols.lookupNearestSymbolFrom<MeshOp>(at, type.getMesh());
  if (!mesh)
    return at->emitOpError("names mesh ") << type.getMesh()
                                           << ", which does not exist",
           failure();
  return mesh;
}

FailureOr<int> CppEmitter::groupOf(MeshOp mesh, ArrayRef<int64_t> dims,
                                   Operation *at) {
  std::string meshName = mesh.getSymName().str();
  auto key = std::make_pair(meshName, std::vector<int64_t>(dims.begin(), dims.end()));
  auto it = groupIds.find(key);
  if (it != groupIds.end())
    return it->second;
  Shape shape(mesh.getShape().begin(), mesh.getShape().end());
  int64_t ranks = meshSize(shape);
  std::vector<std::vector<int64_t>> groups = meshGroups(shape, key.second);
  std::vector<int64_t> color(ranks, -1), position(ranks, -1);
  for (auto [g, members] : llvm::enumerate(groups))
    for (auto [i, r] : llvm::enumerate(members)) {
      color[r] = static_cast<int64_t>(g);
      position[r] = static_cast<int64_t>(i);
    }
  if (llvm::is_contained(color, -1))
    return at->emitOpError("mesh dims do not partition mesh @")
               << meshName,
           failure();
  auto &list = meshGroupsEmitted[meshName];
  int id = static_cast<int>(list.size());
  std::string colorTable = table(color);
  std::string keyTable = table(position);
  list.emplace_back(colorTable, keyTable);
  groupIds[key] = id;
  return id;
}

//===----------------------------------------------------------------------===//
// Scalar ops (also the bodies of kernels)
//===----------------------------------------------------------------------===//

LogicalResult CppEmitter::emitScalar(Operation *op, raw_indented_ostream &o) {
  if (op->getNumResults() != 1)
    return op->emitOpError("is not supported by the C++ emitter");
  Value res = op->getResult(0);
  Type t = res.getType();
  StringRef ty = scalarType(t);
  if (ty.empty())
    return op->emitOpError("has result type ")
           << t << ", which the C++ emitter does not support here";
  auto operand = [&](unsigned i) { return name(op->getOperand(i)); };
  auto def = [&](const std::string &expr) {
    o << ty << " " << name(res) << " = " << expr << ";\n";
    return success();
  };
  auto bin = [&](StringRef sym) {
    return def((ty + "(" + operand(0) + " " + sym + " " + operand(1) + ")").str());
  };
  // Wrapping integer arithmetic: through the unsigned type of the width.
  auto wrap = [&](StringRef sym) {
    Type it = op->getOperand(0).getType();
    if (it.isInteger(1)) {
      if (sym == "+" || sym == "-")
        return def("bool(" + operand(0) + " ^ " + operand(1) + ")");
      return def(operand(0) + " && " + operand(1));
    }
    // At least unsigned int: two uint16_t promote to int, whose product
    // can overflow (undefined); the low bits are the same either way.
    std::string u =
        it.isInteger(8) || it.isInteger(16) ? "uint32_t" : unsignedType(it).str();
    return def((ty + "(" + u + "(" + operand(0) + ") " + sym + " " + u + "(" +
                operand(1) + "))")
                   .str());
  };
  auto call = [&](StringRef fn) {
    std::string args;
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      args += (i ? ", " : "") + operand(i);
    return def((ty + "(" + fn + "(" + args + "))").str());
  };
  auto unsignedOf = [&](unsigned i) {
    return (unsignedType(op->getOperand(i).getType()) + "(" + operand(i) + ")")
        .str();
  };
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](arith::ConstantOp c) -> LogicalResult {
        if (auto f = dyn_cast<FloatAttr>(c.getValue()))
          return def(floatLiteral(f.getValueAsDouble(), t.isF32()));
        if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
          return def(intLiteral(i.getValue(), t));
        return op->emitOpError("has a constant the C++ emitter cannot write");
      })
      .Case([&](arith::AddFOp) { return bin("+"); })
      .Case([&](arith::SubFOp) { return bin("-"); })
      .Case([&](arith::MulFOp) { return bin("*"); })
      .Case([&](arith::DivFOp) { return bin("/"); })
      .Case([&](arith::RemFOp) { return call("std::fmod"); })
      .Case([&](arith::NegFOp) { return def("-" + operand(0)); })
      .Case([&](arith::MaximumFOp) { return call("rt_maximum"); })
      .Case([&](arith::MinimumFOp) { return call("rt_minimum"); })
      .Case([&](arith::MaxNumFOp) { return call("rt_maxnum"); })
      .Case([&](arith::MinNumFOp) { return call("rt_minnum"); })
      .Case([&](arith::AddIOp) { return wrap("+"); })
      .Case([&](arith::SubIOp) { return wrap("-"); })
      .Case([&](arith::MulIOp) { return wrap("*"); })
      .Case([&](arith::DivSIOp) { return call("rt_divsi"); })
      .Case([&](arith::RemSIOp) { return call("rt_remsi"); })
      // By zero: 0, as the signed divisions and the interpreter (a C++
      // division by zero traps).
      .Case([&](arith::DivUIOp) {
        return def((ty + "(rt_divui(" + unsignedOf(0) + ", " + unsignedOf(1) + "))").str());
      })
      .Case([&](arith::RemUIOp) {
        return def((ty + "(rt_remui(" + unsignedOf(0) + ", " + unsignedOf(1) + "))").str());
      })
      .Case([&](arith::CeilDivSIOp) { return call("rt_ceildiv"); })
      .Case([&](arith::FloorDivSIOp) { return call("rt_floordiv"); })
      .Case([&](arith::AndIOp) { return bin("&"); })
      .Case([&](arith::OrIOp) { return bin("|"); })
      .Case([&](arith::XOrIOp) { return bin("^"); })
      .Case([&](arith::ShLIOp) {
        return def((ty + "(" + unsignedOf(0) + " << " + operand(1) + ")").str());
      })
      .Case([&](arith::ShRSIOp) { return bin(">>"); })
      .Case([&](arith::ShRUIOp) {
        return def((ty + "(" + unsignedOf(0) + " >> " + operand(1) + ")").str());
      })
      // i1 reads true as -1 when signed: a signed max is an and, a min an or.
      .Case([&](arith::MaxSIOp m) {
        return m.getType().isInteger(1) ? bin("&")
                                        : call("std::max<" + ty.str() + ">");
      })
      .Case([&](arith::MinSIOp m) {
        return m.getType().isInteger(1) ? bin("|")
                                        : call("std::min<" + ty.str() + ">");
      })
      .Case([&](arith::MaxUIOp) {
        return def((ty + "(std::max(" + unsignedOf(0) + ", " + unsignedOf(1) + "))").str());
      })
      .Case([&](arith::MinUIOp) {
        return def((ty + "(std::min(" + unsignedOf(0) + ", " + unsignedOf(1) + "))").str());
      })
      .Case([&](arith::CmpIOp c) -> LogicalResult {
        using P = arith::CmpIPredicate;
        std::string a = operand(0), b = operand(1);
        P predicate = c.getPredicate();
        // On i1 (held as 0 / 1) the signed order is the unsigned one reversed.
        if (c.getLhs().getType().isInteger(1))
          switch (predicate) {
          case P::slt: predicate = P::ugt; break;
          case P::sle: predicate = P::uge; break;
          case P::sgt: predicate = P::ult; break;
          case P::sge: predicate = P::ule; break;
          default: break;
          }
        switch (predicate) {
        case P::eq: return def(a + " == " + b);
        case P::ne: return def(a + " != " + b);
        case P::slt: return def(a + " < " + b);
        case P::sle: return def(a + " <= " + b);
        case P::sgt: return def(a + " > " + b);
        case P::sge: return def(a + " >= " + b);
        case P::ult: return def(unsignedOf(0) + " < " + unsignedOf(1));
        case P::ule: return def(unsignedOf(0) + " <= " + unsignedOf(1));
        case P::ugt: return def(unsignedOf(0) + " > " + unsignedOf(1));
        case P::uge: return def(unsignedOf(0) + " >= " + unsignedOf(1));
        }
        return failure();
      })
      .Case([&](arith::CmpFOp c) -> LogicalResult {
        using P = arith::CmpFPredicate;
        std::string a = operand(0), b = operand(1);
        std::string uno = "(std::isnan(" + a + ") || std::isnan(" + b + "))";
        std::string ord = "!" + uno;
        switch (c.getPredicate()) {
        case P::AlwaysFalse: return def("false");
        case P::AlwaysTrue: return def("true");
        case P::OEQ: return def(a + " == " + b);
        case P::OGT: return def(a + " > " + b);
        case P::OGE: return def(a + " >= " + b);
        case P::OLT: return def(a + " < " + b);
        case P::OLE: return def(a + " <= " + b);
        case P::ONE: return def(ord + " && " + a + " != " + b);
        case P::ORD: return def(ord);
        case P::UEQ: return def(uno + " || " + a + " == " + b);
        case P::UGT: return def("!(" + a + " <= " + b + ")");
        case P::UGE: return def("!(" + a + " < " + b + ")");
        case P::ULT: return def("!(" + a + " >= " + b + ")");
        case P::ULE: return def("!(" + a + " > " + b + ")");
        case P::UNE: return def(a + " != " + b);
        case P::UNO: return def(uno);
        }
        return failure();
      })
      .Case([&](arith::SelectOp) {
        return def(operand(0) + " ? " + operand(1) + " : " + operand(2));
      })
      // Through a 64-bit integer, as the interpreter converts: a value out
      // of the result's range (poison in MLIR) wraps instead of being
      // undefined in C++; NaN and values beyond 64 bits give the least one.
      .Case([&](arith::FPToSIOp) {
        if (t.isInteger(1))
          return def("bool(rt_fptosi(" + operand(0) + ") & 1)");
        return def((ty + "(rt_fptosi(" + operand(0) + "))").str());
      })
      .Case<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp,
            arith::SIToFPOp, arith::ExtFOp, arith::TruncFOp>(
          [&](Operation *) {
            if (t.isInteger(1) && !op->getOperand(0).getType().isInteger(1))
              return def("bool(" + operand(0) + " & 1)");
            // A signed i1 is 0 or -1 (extsi, sitofp of true give -1).
            if (op->getOperand(0).getType().isInteger(1) && !t.isInteger(1))
              return def((ty + "(-int(" + operand(0) + "))").str());
            return def((ty + "(" + operand(0) + ")").str());
          })
      .Case<arith::IndexCastUIOp, arith::ExtUIOp, arith::UIToFPOp>(
          [&](Operation *) {
            return def((ty + "(" + unsignedOf(0) + ")").str());
          })
      // Through a 64-bit integer, wrapped to the width, as the interpreter
      // (a negative or too large value converted to an unsigned type is
      // undefined in C++).
      .Case([&](arith::FPToUIOp) {
        return def((ty + "(" + unsignedType(t) + "(rt_fptoui(" + operand(0) + ")))").str());
      })
      .Case([&](arith::BitcastOp) {
        return def(("rt_bitcast<" + ty + ">(" + operand(0) + ")").str());
      })
      .Case([&](math::TanhOp) { return call("std::tanh"); })
      .Case([&](math::AsinOp) { return call("std::asin"); })
      .Case([&](math::AcosOp) { return call("std::acos"); })
      .Case([&](math::SinhOp) { return call("std::sinh"); })
      .Case([&](math::CoshOp) { return call("std::cosh"); })
      .Case([&](math::AsinhOp) { return call("std::asinh"); })
      .Case([&](math::AcoshOp) { return call("std::acosh"); })
      .Case([&](math::AtanhOp) { return call("std::atanh"); })
      .Case([&](math::ExpOp) { return call("std::exp"); })
      .Case([&](math::Exp2Op) { return call("std::exp2"); })
      .Case([&](math::ExpM1Op) { return call("std::expm1"); })
      .Case([&](math::LogOp) { return call("std::log"); })
      .Case([&](math::Log2Op) { return call("std::log2"); })
      .Case([&](math::Log10Op) { return call("std::log10"); })
      .Case([&](math::Log1pOp) { return call("std::log1p"); })
      .Case([&](math::SqrtOp) { return call("std::sqrt"); })
      .Case([&](math::RsqrtOp) {
        return def((ty + "(1) / std::sqrt(" + operand(0) + ")").str());
      })
      .Case([&](math::ErfOp) { return call("std::erf"); })
      .Case([&](math::AbsFOp) { return call("std::fabs"); })
      .Case([&](math::AbsIOp) { return call("rt_absi"); })
      .Case([&](math::SinOp) { return call("std::sin"); })
      .Case([&](math::CosOp) { return call("std::cos"); })
      .Case([&](math::TanOp) { return call("std::tan"); })
      .Case([&](math::AtanOp) { return call("std::atan"); })
      .Case([&](math::Atan2Op) { return call("std::atan2"); })
      .Case([&](math::PowFOp) { return call("std::pow"); })
      .Case([&](math::FloorOp) { return call("std::floor"); })
      .Case([&](math::CeilOp) { return call("std::ceil"); })
      .Case([&](math::RoundOp) { return call("std::round"); })
      .Case([&](math::RoundEvenOp) { return call("std::nearbyint"); })
      .Case([&](math::TruncOp) { return call("std::trunc"); })
      .Case([&](math::FmaOp) { return call("std::fma"); })
      .Case([&](math::CopySignOp) { return call("std::copysign"); })
      .Case([&](math::ErfcOp) { return call("std::erfc"); })
      .Case([&](math::IsNaNOp) { return call("std::isnan"); })
      .Case([&](math::IsInfOp) { return call("std::isinf"); })
      .Case([&](math::IsFiniteOp) { return call("std::isfinite"); })
      // Bit counts of the width (the interpreter's rules: a zero counts
      // the width).
      .Case([&](math::CountLeadingZerosOp) {
        return def((ty + "(rt_ctlz(" + unsignedOf(0) + ", " +
                    std::to_string(t.isIndex() ? 64u : t.getIntOrFloatBitWidth()) + "))").str());
      })
      .Case([&](math::CountTrailingZerosOp) {
        return def((ty + "(rt_cttz(" + unsignedOf(0) + ", " +
                    std::to_string(t.isIndex() ? 64u : t.getIntOrFloatBitWidth()) + "))").str());
      })
      .Case([&](math::CtPopOp) {
        return def((ty + "(rt_ctpop(" + unsignedOf(0) + "))").str());
      })
      .Case([&](arith::CeilDivUIOp) {
        return def((ty + "(rt_ceildivui(" + unsignedOf(0) + ", " + unsignedOf(1) + "))").str());
      })
      .Case([&](math::IPowIOp) { return call("rt_ipowi"); })
      .Case([&](math::CbrtOp) { return call("std::cbrt"); })
      .Default([&](Operation *) {
        return op->emitOpError("is not supported by the C++ emitter");
      });
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// C++ expression of an affine expression over loop variables (`vars`: its
/// dims', then from `numDims` on its symbols').
FailureOr<std::string> affineText(AffineExpr e, ArrayRef<std::string> vars,
                                  unsigned numDims = 0) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return vars[d.getPosition()];
  if (auto sym = dyn_cast<AffineSymbolExpr>(e)) {
    if (numDims + sym.getPosition() >= vars.size())
      return failure();
    return vars[numDims + sym.getPosition()];
  }
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return "int64_t(" + std::to_string(c.getValue()) + ")";
  auto b = dyn_cast<AffineBinaryOpExpr>(e);
  if (!b)
    return failure();
  FailureOr<std::string> l = affineText(b.getLHS(), vars, numDims);
  FailureOr<std::string> r = affineText(b.getRHS(), vars, numDims);
  if (failed(l) || failed(r))
    return failure();
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return "(" + *l + " + " + *r + ")";
  case AffineExprKind::Mul:
    return "(" + *l + " * " + *r + ")";
  case AffineExprKind::FloorDiv:
    return "rt_floordiv(" + *l + ", " + *r + ")";
  case AffineExprKind::CeilDiv:
    return "rt_ceildiv(" + *l + ", " + *r + ")";
  case AffineExprKind::Mod:
    return "rt_mod(" + *l + ", " + *r + ")";
  default:
    return failure();
  }
}

LogicalResult CppEmitter::emitGeneric(linalg::GenericOp op) {
  raw_indented_ostream &o = *os;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  int64_t numLoops = op.getNumLoops();
  if (op.hasPureBufferSemantics() || op->getNumResults() != op.getNumDpsInits())
    return op->emitOpError("must be on tensors for the C++ emitter");
  for (AffineMap m : maps)
    if (m.getNumSymbols())
      return op->emitOpError("has an indexing map with symbols, which the C++ "
                             "emitter does not support");

  // In place: an output whose init is a tensor.empty (never read) takes
  // the storage of an input at that input's last use, where every
  // iteration reads that input at the very element it writes (the same
  // permutation map, the same type; every loop parallel): each element is
  // read before it is written, by the iteration that writes it. Whether
  // nothing else holds that storage (an entry's argument, say, which the
  // caller keeps) is known at run time: takeOrEmpty() takes it only then,
  // else gives fresh storage and the kernel reads the input where it is. A
  // chain of kernels needs one buffer where it needed two.
  SmallVector<int> reuses(op.getNumDpsInits(), -1);
  if (llvm::all_of(iters, [](utils::IteratorType t) {
        return t == utils::IteratorType::parallel;
      })) {
    llvm::SmallDenseSet<unsigned> taken;
    for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable())) {
      AffineMap m = op.getMatchingIndexingMap(&init);
      if (!init.get().getDefiningOp<tensor::EmptyOp>() ||
          op.payloadUsesValueFromOperand(&init) || !m.isPermutation())
        continue;
      for (OpOperand *in : op.getDpsInputOperands()) {
        if (taken.contains(in->getOperandNumber()) ||
            in->get().getType() != init.get().getType() ||
            op.getMatchingIndexingMap(in) != m || !isLastUse(in->get(), op))
          continue;
        reuses[i] = int(in->getOperandNumber());
        taken.insert(in->getOperandNumber());
        break;
      }
    }
  }

  // Outputs: writable copies of the inits, named after the results.
  for (auto [i, init] : llvm::enumerate(op.getDpsInits())) {
    o << "rt::Tensor " << name(op->getResult(i)) << " = ";
    if (reuses[i] >= 0) {
      // (Released after the kernel as before: it may still hold it.)
      o << "rt::takeOrEmpty(" << name(op->getOperand(reuses[i])) << ");\n";
    } else {
      o << writableInit(init, op) << ";\n";
    }
  }

  // Operand tensors (inputs by name, outputs by result; an input whose
  // storage an output took, by that output).
  SmallVector<std::string> tensorOf;
  for (OpOperand &operand : op->getOpOperands()) {
    if (op.isDpsInit(&operand))
      tensorOf.push_back(name(op->getResult(op.getTiedOpResult(&operand).getResultNumber())));
    else if (isa<RankedTensorType>(operand.get().getType()))
      tensorOf.push_back(name(operand.get()));
    else
      tensorOf.push_back(""); // a scalar input
  }
  // (The input where it is: in its own name unless the output took it.)
  for (auto [i, from] : llvm::enumerate(reuses))
    if (from >= 0)
      tensorOf[from] = "(" + name(op->getOperand(from)) + ".raw() ? " +
                       name(op->getOperand(from)) + " : " +
                       name(op->getResult(i)) + ")";

  o << "{\n";
  o.indent();
  // Loop sizes: the first operand dim indexed by exactly that loop.
  SmallVector<std::string> sizes(numLoops);
  for (int64_t l = 0; l < numLoops; ++l) {
    for (auto [k, m] : llvm::enumerate(maps)) {
      if (tensorOf[k].empty())
        continue;
      for (auto [r, e] : llvm::enumerate(m.getResults()))
        if (auto d = dyn_cast<AffineDimExpr>(e); d && d.getPosition() == l) {
          sizes[l] = tensorOf[k] + ".dim(" + std::to_string(r) + ")";
          break;
        }
      if (!sizes[l].empty())
        break;
    }
    if (sizes[l].empty())
      return op->emitOpError("has loop ")
             << l << " that no operand dim indexes alone; the C++ emitter "
                     "cannot size it";
    o << "const int64_t n" << l << " = " << sizes[l] << ";\n";
  }
  // Row-major strides of every tensor operand.
  for (auto [k, m] : llvm::enumerate(maps)) {
    if (tensorOf[k].empty())
      continue;
    int64_t rank = m.getNumResults();
    for (int64_t r = rank - 1; r >= 0; --r) {
      o << "const int64_t s" << k << "_" << r << " = ";
      if (r == rank - 1)
        o << "1;\n";
      else
        o << "s" << k << "_" << (r + 1) << " * " << tensorOf[k] << ".dim("
          << (r + 1) << ");\n";
    }
  }
  // Data pointers.
  for (auto [k, operand] : llvm::enumerate(op->getOpOperands())) {
    if (tensorOf[k].empty())
      continue;
    Type et = getElementTypeOrSelf(operand.get().getType());
    bool out = op.isDpsInit(&operand);
    o << (out ? "" : "const ") << scalarType(et) << " *p" << k << " = "
      << tensorOf[k] << ".data<" << scalarType(et) << ">();\n";
  }

  // Tensors the body reads by index (tensor.extract): their data and dims
  // as plain values, so the kernel captures no Tensor (a device lambda
  // cannot hold one).
  for (Operation &bodyOp : op.getRegion().front().without_terminator()) {
    auto extract = dyn_cast<tensor::ExtractOp>(bodyOp);
    if (!extract || kernelTensors.count(extract.getTensor()))
      continue;
    Value t = extract.getTensor();
    if (op->isAncestor(t.getParentBlock()->getParentOp()))
      return extract->emitOpError("reads a tensor made inside the linalg "
                                  "body, which the C++ emitter does not "
                                  "support");
    std::string base = "k" + name(t);
    StringRef st = scalarType(extract.getType());
    o << "const " << st << " *" << base << " = " << name(t) << ".data<" << st
      << ">();\n";
    auto type = cast<RankedTensorType>(t.getType());
    for (int64_t d = 0; d < type.getRank(); ++d)
      o << "const int64_t " << base << "_d" << d << " = " << name(t)
        << ".dim(" << d << ");\n";
    kernelTensors[t] = base;
  }

  // Outer loops: parallel and indexed by every output; the rest go inside.
  SmallVector<int64_t> outer, nested;
  for (int64_t l = 0; l < numLoops; ++l) {
    bool inAllOutputs = iters[l] == utils::IteratorType::parallel &&
                        llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
                          return op.getMatchingIndexingMap(&init)
                              .isFunctionOfDim(l);
                        });
    (inAllOutputs ? outer : nested).push_back(l);
  }
  SmallVector<std::string> vars(numLoops);
  for (int64_t l = 0; l < numLoops; ++l)
    vars[l] = "i" + std::to_string(l);

  auto [combiner, identity] = splittableCombiner(op);
  if (combiner && !nested.empty() &&
      llvm::all_of(nested, [&](int64_t l) {
        return iters[l] == utils::IteratorType::reduction &&
               !maps.back().isFunctionOfDim(l);
      }))
    return emitReduction(op, outer, nested, vars, tensorOf, combiner, identity);

  // parallel_for over all outer loops but the last (flattened); the last
  // outer loop and the inner loops nest inside.
  SmallVector<int64_t> flat(outer.begin(), outer.end());
  std::optional<int64_t> lastOuter;
  if (!flat.empty()) {
    lastOuter = flat.back();
    flat.pop_back();
  }
  o << "const int64_t nflat = 1";
  for (int64_t l : flat)
    o << " * n" << l;
  o << ";\n";
  // The last outer loop is the kernel's second index: an inner loop on the
  // host (vectorized), one more dimension of threads on a GPU. Where an
  // operand is not contiguous along it (a transposed read or write), a host
  // runs the pairs in blocks (parallel_for2_tiled), so that both the row
  // and the column it steps through stay in cache.
  // (A kernel with loops of its own inside reads runs in them: unblocked.)
  bool strided = false;
  if (lastOuter && nested.empty())
    for (auto [k, map] : llvm::enumerate(maps)) {
      if (tensorOf[k].empty() || !map.isFunctionOfDim(*lastOuter))
        continue;
      auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
      if (!last || static_cast<int64_t>(last.getPosition()) != *lastOuter)
        strided = true;
    }
  if (lastOuter)
    o << "rt::parallel_for2" << (strided ? "_tiled" : "") << "(nflat, n"
      << *lastOuter << ", DTENSOR_KERNEL(int64_t flat, int64_t i" << *lastOuter
      << ") {\n";
  else
    o << "rt::parallel_for(nflat, DTENSOR_KERNEL(int64_t flat) {\n";
  o.indent();
  emitUnflatten(flat);
  int opened = 0;
  auto loop = [&](int64_t l) {
    o << "for (int64_t i" << l << " = 0; i" << l << " < n" << l << "; ++i"
      << l << ") {\n";
    o.indent();
    ++opened;
  };
  for (int64_t l : nested)
    loop(l);

  // Loads, body, stores.
  Block &blk = op.getRegion().front();
  SmallVector<std::string> index(op->getNumOperands());
  if (failed(emitLoads(op, tensorOf, vars, index)))
    return failure();
  SmallVector<std::string> savedVars = loopVars;
  loopVars = vars;
  ++kernelDepth;
  for (Operation &bodyOp : blk.without_terminator())
    if (failed(emitOp(&bodyOp)))
      return failure();
  --kernelDepth;
  kernelTensors.clear();
  loopVars = savedVars;
  auto yield = cast<linalg::YieldOp>(blk.getTerminator());
  for (auto [i, v] : llvm::enumerate(yield.getValues())) {
    unsigned k = op.getNumDpsInputs() + i;
    o << "p" << k << "[" << index[k] << "] = " << name(v) << ";\n";
  }
  for (int i = 0; i < opened; ++i) {
    o.unindent();
    o << "}\n";
  }
  o.unindent();
  o << "});\n";
  o.unindent();
  o << "}\n";
  return success();
}

/// The linear index into operand `k` (its row-major strides `sk_r`) of the
/// element `map` reads at the loop variables `vars`.
FailureOr<std::string> CppEmitter::operandIndex(linalg::GenericOp op,
                                                AffineMap map, unsigned k,
                                                ArrayRef<std::string> vars) {
  std::string lin = "0";
  for (auto [r, e] : llvm::enumerate(map.getResults())) {
    FailureOr<std::string> text = affineText(e, vars);
    if (failed(text))
      return op->emitOpError("has an indexing expression the C++ emitter "
                             "cannot write");
    lin += " + " + *text + " * s" + std::to_string(k) + "_" + std::to_string(r);
  }
  return lin;
}

/// `const int64_t iL = ...` for the loops `loops` (the last fastest),
/// decomposed from a kernel's `flat` index.
void CppEmitter::emitUnflatten(ArrayRef<int64_t> loops) {
  for (int64_t idx = static_cast<int64_t>(loops.size()) - 1; idx >= 0; --idx) {
    int64_t l = loops[idx];
    *os << "const int64_t i" << l << " = flat % n" << l << ";\n";
    if (idx > 0)
      *os << "flat /= n" << l << ";\n";
  }
}

/// Reads every operand's element (or scalar) at the loop variables `vars`
/// into its block argument's name, and records each tensor operand's linear
/// index in `index`; operands whose block argument is unused, or named
/// `skip`, are not read.
LogicalResult CppEmitter::emitLoads(linalg::GenericOp op,
                                    ArrayRef<std::string> tensorOf,
                                    ArrayRef<std::string> vars,
                                    SmallVectorImpl<std::string> &index,
                                    std::optional<unsigned> skip) {
  raw_indented_ostream &o = *os;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  Block &blk = op.getRegion().front();
  for (auto [k, operand] : llvm::enumerate(op->getOpOperands())) {
    if (skip && k == *skip)
      continue;
    BlockArgument arg = blk.getArgument(k);
    std::string argName = name(arg);
    Type et = arg.getType();
    if (tensorOf[k].empty()) {
      o << scalarType(et) << " " << argName << " = " << name(operand.get())
        << ";\n";
      continue;
    }
    FailureOr<std::string> linear = operandIndex(op, maps[k], k, vars);
    if (failed(linear))
      return failure();
    index[k] = *linear;
    if (arg.use_empty())
      continue;
    o << scalarType(et) << " " << argName << " = p" << k << "[" << *linear
      << "];\n";
  }
  return success();
}

/// A reduction (splittableCombiner), through rt::reduce: the emitted part
/// function combines the terms p, p + parts, ... of one output (the terms in
/// the row-major order of the nested loops), starting from the output's
/// initial value (part 0) or the identity, with the accumulator in a
/// register. With one part (the host, and a GPU whose outputs fill it) the
/// nested loops run in order, as the interpreter combines them; with more,
/// one flattened loop steps by `parts` through the nest (adjacent parts read
/// adjacent terms). The runtime combines the parts: in order on the host, as
/// a tree on a GPU. The layout argument says whether one output's
/// consecutive terms are adjacent in memory (the innermost nested loop
/// indexes the first input's last dimension), which decides how a GPU
/// spreads the work.
LogicalResult CppEmitter::emitReduction(linalg::GenericOp op,
                                        ArrayRef<int64_t> outer,
                                        ArrayRef<int64_t> nested,
                                        ArrayRef<std::string> vars,
                                        ArrayRef<std::string> tensorOf,
                                        Operation *combiner,
                                        const std::string &identity) {
  raw_indented_ostream &o = *os;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  Block &blk = op.getRegion().front();
  unsigned out = op.getNumDpsInputs();
  Type et = blk.getArgument(out).getType();
  std::string ty = scalarType(et).str();
  BlockArgument accArg = blk.getArgument(out);
  Value term = combiner->getOperand(0) == accArg ? combiner->getOperand(1)
                                                 : combiner->getOperand(0);

  FailureOr<std::string> outIndex = operandIndex(op, maps[out], out, vars);
  if (failed(outIndex))
    return failure();

  bool inner = false;
  for (unsigned k = 0; k < out; ++k) {
    if (tensorOf[k].empty() || maps[k].getNumResults() == 0)
      continue;
    auto last = dyn_cast<AffineDimExpr>(maps[k].getResults().back());
    inner = last && static_cast<int64_t>(last.getPosition()) == nested.back();
    break;
  }

  o << "const int64_t nflat = 1";
  for (int64_t l : outer)
    o << " * n" << l;
  o << ";\n";
  o << "const int64_t nterms = 1";
  for (int64_t l : nested)
    o << " * n" << l;
  o << ";\n";
  o << "rt::reduce<" << ty << ">(nflat, nterms, rt::ReduceLayout::"
    << (inner ? "Inner" : "Outer") << ",\n";
  o.indent();

  // The part function.
  o << "DTENSOR_KERNEL(int64_t flat, int64_t part, int64_t parts) -> " << ty
    << " {\n";
  o.indent();
  emitUnflatten(outer);
  std::string accName = "acc";
  o << ty << " " << accName << " = part == 0 ? p" << out << "[" << *outIndex
    << "] : " << identity << ";\n";
  SmallVector<std::string> savedVars = loopVars;
  loopVars.assign(vars.begin(), vars.end());
  ++kernelDepth;
  names[accArg] = accName;
  SmallVector<std::string> index(op->getNumOperands());
  auto emitTerm = [&]() -> LogicalResult {
    if (failed(emitLoads(op, tensorOf, vars, index, out)))
      return failure();
    for (Operation &bodyOp : blk.without_terminator())
      if (failed(emitOp(&bodyOp)))
        return failure();
    o << accName << " = " << name(combiner->getResult(0)) << ";\n";
    return success();
  };
  // One part: the nested loops in order.
  o << "if (parts == 1) {\n";
  o.indent();
  for (int64_t l : nested) {
    o << "for (int64_t i" << l << " = 0; i" << l << " < n" << l << "; ++i" << l
      << ") {\n";
    o.indent();
  }
  if (failed(emitTerm()))
    return failure();
  for (size_t i = 0; i < nested.size(); ++i) {
    o.unindent();
    o << "}\n";
  }
  o.unindent();
  // Several: term t = part, part + parts, ...; the loop indices advance by
  // the digits of `parts` in the nest's mixed radix, with carries.
  o << "} else if (nterms > 0) {\n";
  o.indent();
  o << "int64_t rest = part, step = parts;\n";
  for (int64_t idx = static_cast<int64_t>(nested.size()) - 1; idx >= 0; --idx) {
    int64_t l = nested[idx];
    if (idx > 0) {
      o << "int64_t i" << l << " = rest % n" << l << ";\n";
      o << "const int64_t d" << l << " = step % n" << l << ";\n";
      o << "rest /= n" << l << ";\n";
      o << "step /= n" << l << ";\n";
    } else {
      o << "int64_t i" << l << " = rest;\n";
      o << "const int64_t d" << l << " = step;\n";
    }
  }
  o << "for (int64_t t = part; t < nterms; t += parts) {\n";
  o.indent();
  if (failed(emitTerm()))
    return failure();
  if (nested.size() > 1)
    o << "int64_t carry = 0;\n";
  for (int64_t idx = static_cast<int64_t>(nested.size()) - 1; idx >= 0; --idx) {
    int64_t l = nested[idx];
    o << "i" << l << " += d" << l << (idx + 1 < static_cast<int64_t>(nested.size()) ? " + carry" : "") << ";\n";
    if (idx > 0) {
      o << "carry = i" << l << " >= n" << l << ";\n";
      o << "if (carry)\n";
      o << "  i" << l << " -= n" << l << ";\n";
    }
  }
  o.unindent();
  o << "}\n";
  o.unindent();
  o << "}\n";
  o << "return " << accName << ";\n";
  o.unindent();
  o << "},\n";

  // The combining function.
  o << "DTENSOR_KERNEL(" << ty << " acc, " << ty << " pv) -> " << ty << " {\n";
  o.indent();
  std::string termName = name(term);
  names[term] = "pv";
  LogicalResult combined = emitOp(combiner);
  names[term] = termName;
  if (failed(combined))
    return failure();
  o << "return " << name(combiner->getResult(0)) << ";\n";
  o.unindent();
  o << "},\n";

  // The store.
  o << "DTENSOR_KERNEL(int64_t flat, " << ty << " acc) {\n";
  o.indent();
  emitUnflatten(outer);
  o << "p" << out << "[" << *outIndex << "] = acc;\n";
  o.unindent();
  o << "}";
  // Several outputs: a tile of `count` outputs from `flat0`, the reduction
  // loops outside and the outputs inside (rt::reduce calls it on a host; a
  // GPU runs the part function). Each output still adds its terms in the
  // nested loops' order, from the same start: the numbers are those of the
  // part function's single part. Adjacent outputs adjacent in memory (an
  // Outer layout: column sums, a bias's gradient): the host reads the input
  // row by row instead of one strided column per output. An output's terms
  // adjacent (Inner: row sums, a softmax's maxima and sums): the tile's
  // outputs are independent chains of dependent adds that the host runs
  // side by side, where one output at a time waits for each add. Outputs of
  // a tile never depend on each other, so the output loop is `omp simd`
  // (DTENSOR_RT_SIMD; its math calls go to their vector variants).
  if (!outer.empty()) {
    o << ",\n";
    o << "DTENSOR_KERNEL(int64_t flat0, int64_t count, " << ty << " *accs) {\n";
    o.indent();
    // One output loop: its index is the output's flat index. Several: each
    // output's indices, unflattened once per tile.
    bool single = outer.size() == 1;
    if (!single)
      for (int64_t l : outer)
        o << "int64_t x" << l << "[rt::kReduceTile];\n";
    o << "for (int64_t k = 0; k < count; ++k) {\n";
    o.indent();
    if (single) {
      o << "const int64_t " << vars[outer.front()] << " = flat0 + k;\n";
    } else {
      o << "int64_t flat = flat0 + k;\n";
      emitUnflatten(outer);
      for (int64_t l : outer)
        o << "x" << l << "[k] = " << vars[l] << ";\n";
    }
    o << "accs[k] = p" << out << "[" << *outIndex << "];\n";
    o.unindent();
    o << "}\n";
    for (int64_t l : nested) {
      o << "for (int64_t i" << l << " = 0; i" << l << " < n" << l << "; ++i"
        << l << ") {\n";
      o.indent();
    }
    o << "DTENSOR_RT_SIMD\n";
    o << "for (int64_t k = 0; k < count; ++k) {\n";
    o.indent();
    if (single) {
      o << "const int64_t " << vars[outer.front()] << " = flat0 + k;\n";
    } else {
      for (int64_t l : outer)
        o << "const int64_t " << vars[l] << " = x" << l << "[k];\n";
    }
    o << ty << " " << accName << " = accs[k];\n";
    if (failed(emitTerm()))
      return failure();
    o << "accs[k] = " << accName << ";\n";
    o.unindent();
    o << "}\n";
    for (size_t i = 0; i < nested.size(); ++i) {
      o.unindent();
      o << "}\n";
    }
    o.unindent();
    o << "}";
  }
  o << ");\n";
  o.unindent();
  --kernelDepth;
  kernelTensors.clear();
  loopVars = savedVars;
  o.unindent();
  o << "}\n";
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives and queries
//===----------------------------------------------------------------------===//

LogicalResult CppEmitter::emitCollective(Operation *op) {
  raw_indented_ostream &o = *os;
  Value mesh = op->getOperand(1);
  FailureOr<MeshOp> meshOp = meshOf(mesh, op);
  if (failed(meshOp))
    return failure();
  auto dims = op->getAttrOfType<DenseI64ArrayAttr>("mesh_dims").asArrayRef();
  FailureOr<int> group = groupOf(*meshOp, dims, op);
  if (failed(group))
    return failure();
  bool async = isa<FutureType>(op->getResult(0).getType());
  std::string head = name(op->getResult(0));
  // At its input's last use an all_reduce's result may take the input's
  // storage (reduced in place; the runtime checks nothing else holds it).
  std::string input = name(op->getOperand(0));
  if (isa<AllReduceOp>(op) && isLastUse(op->getOperand(0), op)) {
    moved.insert(op->getOperand(0));
    input = "rt::release(" + input + ")";
  }
  std::string common = name(mesh) + ", " + std::to_string(*group) + ", " + input;
  auto reduction = [](Reduction r) -> std::string {
    switch (r) {
    case Reduction::Sum: return "rt::Reduction::Sum";
    case Reduction::Avg: return "rt::Reduction::Avg";
    case Reduction::Max: return "rt::Reduction::Max";
    case Reduction::Min: return "rt::Reduction::Min";
    case Reduction::Product: return "rt::Reduction::Product";
    }
    return "rt::Reduction::Sum";
  };
  std::string fn, extra;
  if (auto g = dyn_cast<AllGatherOp>(op)) {
    fn = "allGather";
    extra = std::to_string(g.getGatherDim());
  } else if (auto r = dyn_cast<AllReduceOp>(op)) {
    fn = "allReduce";
    extra = reduction(r.getReduce());
  } else if (auto s = dyn_cast<ReduceScatterOp>(op)) {
    fn = "reduceScatter";
    extra = std::to_string(s.getScatterDim()) + ", " + reduction(s.getReduce());
  } else if (auto a = dyn_cast<AllToAllOp>(op)) {
    fn = "allToAll";
    extra = std::to_string(a.getSplitDim()) + ", " +
            std::to_string(a.getConcatDim());
  } else if (auto b = dyn_cast<BroadcastOp>(op)) {
    fn = "broadcast";
    extra = std::to_string(b.getRoot());
  } else if (auto p = dyn_cast<PermuteOp>(op)) {
    fn = "permute";
    ArrayRef<int64_t> pairs = p.getSourceTargetPairs();
    extra = table(pairs) + ", " + std::to_string(pairs.size() / 2);
  } else {
    return op->emitOpError("is not supported by the C++ emitter");
  }
  o << (async ? "rt::Future " : "rt::Tensor ") << head << " = rt::" << fn
    << (async ? "Start(" : "(") << common << ", " << extra << ", "
    << where(op) << ");\n";
  return success();
}

LogicalResult CppEmitter::emitQuery(Operation *op) {
  FailureOr<MeshOp> meshOp = meshOf(op->getOperand(0), op);
  if (failed(meshOp))
    return failure();
  Shape shape(meshOp->getShape().begin(), meshOp->getShape().end());
  auto dims = op->getAttrOfType<DenseI64ArrayAttr>("mesh_dims").asArrayRef();
  std::vector<int64_t> dimList(dims.begin(), dims.end());
  int64_t ranks = meshSize(shape);
  if (ranks > (int64_t(1) << 20))
    return op->emitOpError("is on a mesh of ")
           << ranks << " ranks; the C++ emitter tabulates per-rank answers "
                       "up to 2^20 ranks";
  std::vector<int64_t> values(ranks);
  for (int64_t r = 0; r < ranks; ++r) {
    if (isa<MeshCoordOp>(op)) {
      values[r] = groupRank(shape, dimList, r);
      continue;
    }
    int64_t size = op->getAttrOfType<IntegerAttr>("size").getInt();
    Chunk c = nestedChunk(size, shape, dimList, rankToCoord(shape, r));
    values[r] = isa<ShardSizeOp>(op) ? c.size : c.offset;
  }
  *os << "int64_t " << name(op->getResult(0)) << " = " << table(values) << "["
      << name(op->getOperand(0)) << ".rank()];\n";
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor ops
//===----------------------------------------------------------------------===//

LogicalResult CppEmitter::emitTensorOp(Operation *op) {
  raw_indented_ostream &o = *os;
  auto resultName = [&]() { return name(op->getResult(0)); };
  auto elementOf = [](Value v) { return getElementTypeOrSelf(v.getType()); };
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](tensor::EmptyOp e) {
        if (shapeOnly(e)) {
          o << "const rt::Shape " << resultName() << "_shape = "
            << shapeOf(e.getType(), e.getDynamicSizes()) << ";\n";
          return success();
        }
        o << "rt::Tensor " << resultName() << " = rt::Tensor::empty("
          << dtypeEnum(e.getType().getElementType()) << ", "
          << shapeOf(e.getType(), e.getDynamicSizes()) << ");\n";
        return success();
      })
      .Case([&](tensor::ExtractSliceOp s) -> LogicalResult {
        RankedTensorType rt = s.getType();
        // The result shape: the sizes without the dropped unit dims.
        llvm::SmallBitVector dropped = s.getDroppedDims();
        SmallVector<OpFoldResult> kept;
        for (auto [i, f] : llvm::enumerate(s.getMixedSizes()))
          if (!dropped.test(i))
            kept.push_back(f);
        if (static_cast<int64_t>(kept.size()) != rt.getRank())
          return s->emitOpError("drops dims the C++ emitter cannot tell");
        // A 1-D tensor read only by contiguous slices (a bucket's reduced
        // buffer unpacked into its members) is sliced by views: no copy,
        // and the buffer lives as long as a slice does, never longer than
        // it would whole.
        auto contiguousRange = [](tensor::ExtractSliceOp e) {
          return e.getSourceType().getRank() == 1 && e.getType().getRank() == 1 &&
                 llvm::all_of(e.getStaticStrides(),
                              [](int64_t st) { return st == 1; });
        };
        if (contiguousRange(s) &&
            llvm::all_of(s.getSource().getUsers(), [&](Operation *u) {
              auto e = dyn_cast<tensor::ExtractSliceOp>(u);
              return e && e.getSource() == s.getSource() && contiguousRange(e);
            })) {
          o << "rt::Tensor " << resultName() << " = rt::extractRange("
            << name(s.getSource()) << ", " << ofrList(s.getMixedOffsets())
            << ", " << ofrList(s.getMixedSizes()) << ");\n";
          return success();
        }
        o << "rt::Tensor " << resultName() << " = rt::extractSlice("
          << name(s.getSource()) << ", " << ofrList(s.getMixedOffsets()) << ", "
          << ofrList(s.getMixedSizes()) << ", " << ofrList(s.getMixedStrides())
          << ", " << ofrList(kept) << ");\n";
        return success();
      })
      .Case([&](tensor::InsertSliceOp s) {
        o << "rt::Tensor " << resultName() << " = rt::insertSlice("
          << name(s.getSource()) << ", rt::writable(" << consume(s.getDest(), op)
          << "), " << ofrList(s.getMixedOffsets()) << ", "
          << ofrList(s.getMixedSizes()) << ", " << ofrList(s.getMixedStrides())
          << ");\n";
        return success();
      })
      .Case([&](tensor::PadOp p) -> LogicalResult {
        Value padValue = p.getConstantPaddingValue();
        if (!padValue)
          return p->emitOpError("pads with a value computed per element; the "
                                "C++ emitter needs a constant or a value "
                                "defined outside the region");
        std::string tmp = resultName() + "_pad";
        if (Operation *def = padValue.getDefiningOp();
            def && p.getRegion().isAncestor(def->getParentRegion())) {
          // A constant inside the region: emit it here.
          if (failed(emitScalar(def, o)))
            return failure();
        }
        o << scalarType(elementOf(p.getResult())) << " " << tmp << " = "
          << name(padValue) << ";\n";
        o << "rt::Tensor " << resultName() << " = rt::pad(" << name(p.getSource())
          << ", " << ofrList(p.getMixedLowPad()) << ", "
          << ofrList(p.getMixedHighPad()) << ", &" << tmp << ");\n";
        return success();
      })
      .Case([&](tensor::ConcatOp c) {
        o << "rt::Tensor " << resultName() << " = rt::concat(" << c.getDim()
          << ", {";
        for (auto [i, v] : llvm::enumerate(c.getInputs()))
          o << (i ? ", " : "") << name(v);
        o << "});\n";
        return success();
      })
      .Case([&](tensor::CollapseShapeOp c) {
        RankedTensorType t = c.getResultType();
        o << "rt::Tensor " << resultName() << " = " << name(c.getSrc())
          << ".reshaped(rt::Shape{";
        for (auto [i, group] : llvm::enumerate(c.getReassociationIndices())) {
          o << (i ? ", " : "");
          if (!t.isDynamicDim(i)) {
            o << t.getDimSize(i);
            continue;
          }
          o << "1";
          for (int64_t d : group)
            o << " * " << name(c.getSrc()) << ".dim(" << d << ")";
        }
        o << "});\n";
        return success();
      })
      .Case([&](tensor::ExpandShapeOp e) {
        o << "rt::Tensor " << resultName() << " = " << name(e.getSrc())
          << ".reshaped(" << ofrList(e.getMixedOutputShape()) << ");\n";
        return success();
      })
      .Case([&](tensor::ReshapeOp r) -> LogicalResult {
        auto shapeType = cast<RankedTensorType>(r.getShape().getType());
        if (shapeType.isDynamicDim(0))
          return r->emitOpError("has a shape operand of unknown length");
        StringRef st = scalarType(shapeType.getElementType());
        o << "rt::Tensor " << resultName() << " = " << name(r.getSource())
          << ".reshaped(rt::Shape{";
        for (int64_t i = 0; i < shapeType.getDimSize(0); ++i)
          o << (i ? ", " : "") << "int64_t(rt::load<" << st << ">("
            << name(r.getShape()) << ", " << i << "))";
        o << "});\n";
        return success();
      })
      .Case([&](tensor::CastOp c) {
        o << "rt::Tensor " << resultName() << " = " << name(c.getSource())
          << ";\n";
        return success();
      })
      .Case([&](tensor::DimOp d) {
        o << "int64_t " << resultName() << " = " << name(d.getSource())
          << ".dim(" << name(d.getIndex()) << ");\n";
        return success();
      })
      .Case([&](tensor::ExtractOp e) {
        std::string t = name(e.getTensor());
        StringRef st = scalarType(e.getType());
        auto it = kernelTensors.find(e.getTensor());
        bool inKernel = kernelDepth > 0 && it != kernelTensors.end();
        std::string lin = "0";
        for (auto [i, idx] : llvm::enumerate(e.getIndices()))
          lin = "(" + lin + ") * " +
                (inKernel ? it->second + "_d" + std::to_string(i)
                          : t + ".dim(" + std::to_string(i) + ")") +
                " + " + name(idx);
        if (inKernel)
          o << st << " " << resultName() << " = " << it->second << "[" << lin
            << "];\n";
        else
          o << st << " " << resultName() << " = rt::load<" << st << ">(" << t
            << ", " << lin << ");\n";
        return success();
      })
      .Case([&](tensor::InsertOp in) {
        std::string t = resultName();
        o << "rt::Tensor " << t << " = rt::writable(" << consume(in.getDest(), op)
          << ");\n";
        std::string lin = "0";
        for (auto [i, idx] : llvm::enumerate(in.getIndices()))
          lin = "(" + lin + ") * " + t + ".dim(" + std::to_string(i) + ") + " +
                name(idx);
        o << "rt::store<" << scalarType(in.getScalar().getType()) << ">(" << t
          << ", " << lin << ", " << name(in.getScalar()) << ");\n";
        return success();
      })
      .Case([&](tensor::FromElementsOp f) {
        RankedTensorType t = f.getType();
        o << "rt::Tensor " << resultName() << " = rt::Tensor::empty("
          << dtypeEnum(t.getElementType()) << ", " << shapeOf(t, {}) << ");\n";
        for (auto [i, v] : llvm::enumerate(f.getElements()))
          o << "rt::store<" << scalarType(t.getElementType()) << ">("
            << resultName() << ", " << i << ", " << name(v) << ");\n";
        return success();
      })
      .Case([&](tensor::SplatOp s) {
        RankedTensorType t = s.getType();
        o << "rt::Tensor " << resultName() << " = rt::fill(rt::Tensor::empty("
          << dtypeEnum(t.getElementType()) << ", "
          << shapeOf(t, s.getDynamicSizes()) << "), &" << name(s.getInput())
          << ");\n";
        return success();
      })
      .Default([&](Operation *) {
        return op->emitOpError("is not supported by the C++ emitter");
      });
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

LogicalResult CppEmitter::emitScf(Operation *op) {
  raw_indented_ostream &o = *os;
  if (auto f = dyn_cast<scf::ForOp>(op)) {
    if (f.getUnsignedCmp())
      return op->emitOpError(
          "compares its bounds unsigned, which the C++ emitter does not "
          "support (it compares them signed)");
    if (failed(declare(f.getResults(), op)))
      return failure();
    for (auto [res, init] : llvm::zip(f.getResults(), f.getInitArgs()))
      o << name(res) << " = " << take(init, op) << ";\n";
    std::string iv = name(f.getInductionVar());
    StringRef ivType = scalarType(f.getInductionVar().getType());
    o << "for (" << ivType << " " << iv << " = " << name(f.getLowerBound())
      << "; " << iv << " < " << name(f.getUpperBound()) << "; " << iv
      << " = rt_for_next(" << iv << ", " << name(f.getStep()) << ", "
      << name(f.getUpperBound()) << ")) {\n";
    o.indent();
    for (auto [arg, res] : llvm::zip(f.getRegionIterArgs(), f.getResults())) {
      FailureOr<std::string> t = cppType(arg.getType(), op);
      if (failed(t))
        return failure();
      // The iteration's value moves in, so a kernel may update it in place.
      o << *t << " " << name(arg) << " = std::move(" << name(res) << ");\n";
    }
    if (failed(emitBlock(*f.getBody())))
      return failure();
    auto yield = cast<scf::YieldOp>(f.getBody()->getTerminator());
    for (auto [res, v] : llvm::zip(f.getResults(), yield.getOperands()))
      o << name(res) << " = " << take(v, yield) << ";\n";
    o.unindent();
    o << "}\n";
    return success();
  }
  if (auto i = dyn_cast<scf::IfOp>(op)) {
    if (failed(declare(i.getResults(), op)))
      return failure();
    o << "if (" << name(i.getCondition()) << ") {\n";
    o.indent();
    if (failed(emitBlock(i.getThenRegion().front())))
      return failure();
    for (auto [res, v] : llvm::zip(i.getResults(), i.thenYield().getOperands()))
      o << name(res) << " = " << take(v, i.thenYield()) << ";\n";
    o.unindent();
    if (!i.getElseRegion().empty()) {
      o << "} else {\n";
      o.indent();
      if (failed(emitBlock(i.getElseRegion().front())))
        return failure();
      for (auto [res, v] :
           llvm::zip(i.getResults(), i.elseYield().getOperands()))
        o << name(res) << " = " << take(v, i.elseYield()) << ";\n";
      o.unindent();
    }
    o << "}\n";
    return success();
  }
  if (auto w = dyn_cast<scf::WhileOp>(op)) {
    // Carried values live in the results' variables between iterations.
    if (failed(declare(w.getResults(), op)))
      return failure();
    SmallVector<std::string> carried;
    for (auto [k, init] : llvm::enumerate(w.getInits())) {
      FailureOr<std::string> t = cppType(init.getType(), op);
      if (failed(t))
        return failure();
      std::string c = name(op->getResult(0)) + "_c" + std::to_string(k);
      o << *t << " " << c << " = " << take(init, op) << ";\n";
      carried.push_back(c);
    }
    o << "while (true) {\n";
    o.indent();
    Block &before = w.getBefore().front();
    for (auto [arg, c] : llvm::zip(before.getArguments(), carried)) {
      FailureOr<std::string> t = cppType(arg.getType(), op);
      if (failed(t))
        return failure();
      o << *t << " " << name(arg) << " = " << c << ";\n";
    }
    if (failed(emitBlock(before)))
      return failure();
    auto cond = cast<scf::ConditionOp>(before.getTerminator());
    o << "if (!" << name(cond.getCondition()) << ") {\n";
    o.indent();
    for (auto [res, v] : llvm::zip(w.getResults(), cond.getArgs()))
      o << name(res) << " = " << name(v) << ";\n";
    o << "break;\n";
    o.unindent();
    o << "}\n";
    Block &after = w.getAfter().front();
    for (auto [arg, v] : llvm::zip(after.getArguments(), cond.getArgs())) {
      FailureOr<std::string> t = cppType(arg.getType(), op);
      if (failed(t))
        return failure();
      o << *t << " " << name(arg) << " = " << name(v) << ";\n";
    }
    if (failed(emitBlock(after)))
      return failure();
    auto yield = cast<scf::YieldOp>(after.getTerminator());
    for (auto [c, v] : llvm::zip(carried, yield.getOperands()))
      o << c << " = " << take(v, yield) << ";\n";
    o.unindent();
    o << "}\n";
    return success();
  }
  return op->emitOpError("is not supported by the C++ emitter");
}

//===----------------------------------------------------------------------===//
// Ops, blocks, functions
//===----------------------------------------------------------------------===//

LogicalResult CppEmitter::emitOp(Operation *op) {
  raw_indented_ostream &o = *os;
  if (kernelDepth > 0) {
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      o << "int64_t " << name(index.getResult()) << " = "
        << loopVars[index.getDim()] << ";\n";
      return success();
    }
    if (isa<tensor::ExtractOp>(op))
      return emitTensorOp(op);
    // Fusing a producer that reads linalg.index into a consumer indexing
    // it through a compound map (a window's i + t) rewrites the index as
    // an affine.apply of the consumer's loops.
    if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
      AffineMap map = apply.getAffineMap();
      std::vector<std::string> vars;
      for (Value v : apply.getMapOperands())
        vars.push_back(name(v));
      FailureOr<std::string> text =
          affineText(map.getResult(0), vars, map.getNumDims());
      if (failed(text))
        return op->emitOpError("has an affine map the C++ emitter does not "
                               "support");
      o << "int64_t " << name(apply.getResult()) << " = " << *text << ";\n";
      return success();
    }
    if (op->getNumRegions() || op->getDialect() == nullptr ||
        !isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
      return op->emitOpError("inside a linalg body is not supported by the "
                             "C++ emitter");
    return emitScalar(op, o);
  }
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    auto tensor = dyn_cast<RankedTensorType>(c.getType());
    if (!tensor)
      return emitScalar(op, o);
    if (failed(cppType(tensor, op)))
      return failure();
    auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
    if (!dense)
      return op->emitOpError("has a constant the C++ emitter cannot write");
    Type et = tensor.getElementType();
    std::string n = name(c.getResult());
    if (dense.isSplat()) {
      std::string v = n + "_v";
      o << scalarType(et) << " " << v << " = ";
      if (auto f = dyn_cast<FloatType>(et))
        o << floatLiteral(dense.getSplatValue<APFloat>().convertToDouble(),
                          et.isF32());
      else
        o << intLiteral(dense.getSplatValue<APInt>(), et);
      o << ";\n";
      o << "rt::Tensor " << n << " = rt::fill(rt::Tensor::empty("
        << dtypeEnum(et) << ", " << shapeOf(tensor, {}) << "), &" << v << ");\n";
      return success();
    }
    std::string values;
    int64_t i = 0;
    if (isa<FloatType>(et)) {
      for (APFloat f : dense.getValues<APFloat>())
        values += (i++ ? ", " : "") +
                  floatLiteral(f.convertToDouble(), et.isF32());
    } else {
      for (APInt v : dense.getValues<APInt>())
        values += (i++ ? ", " : "") + intLiteral(v, et);
    }
    std::string tname = "kConst" + std::to_string(tables.size());
    tables.push_back("static const " + scalarType(et).str() + " " + tname +
                     "[] = {" + values + "};");
    o << "rt::Tensor " << n << " = rt::Tensor::fromBytes(" << dtypeEnum(et)
      << ", " << shapeOf(tensor, {}) << ", " << tname << ");\n";
    return success();
  }
  if (op->getDialect() &&
      isa<arith::ArithDialect, math::MathDialect>(op->getDialect())) {
    if (llvm::any_of(op->getResultTypes(),
                     [](Type t) { return isa<ShapedType>(t); }))
      return op->emitOpError("on tensors should have been made a linalg.generic "
                             "(prepareForCpp)");
    return emitScalar(op, o);
  }
  if (auto g = dyn_cast<linalg::GenericOp>(op))
    return emitGeneric(g);
  if (auto f = dyn_cast<linalg::FillOp>(op)) {
    std::string v = name(f.getResult(0)) + "_v";
    Type et = getElementTypeOrSelf(f.getOutputs()[0].getType());
    o << scalarType(et) << " " << v << " = " << name(f.getInputs()[0]) << ";\n";
    o << "rt::Tensor " << name(f.getResult(0)) << " = rt::fill("
      << writableInit(f.getOutputs()[0], op) << ", &" << v << ");\n";
    return success();
  }
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op)) {
    auto l = cast<linalg::LinalgOp>(op);
    o << "rt::Tensor " << name(op->getResult(0)) << " = rt::"
      << (isa<linalg::MatmulOp>(op) ? "matmul(" : "batchMatmul(")
      << name(l.getDpsInputs()[0]) << ", " << name(l.getDpsInputs()[1])
      << ", " << writableInit(l.getDpsInits()[0], op) << ");\n";
    return success();
  }
  if (isa<AllGatherOp, AllReduceOp, ReduceScatterOp, AllToAllOp, BroadcastOp,
          PermuteOp>(op))
    return emitCollective(op);
  if (auto w = dyn_cast<WaitOp>(op)) {
    o << "rt::Tensor " << name(w.getResult()) << " = " << name(w.getFuture())
      << ".wait();\n";
    return success();
  }
  if (isa<MeshCoordOp, ShardSizeOp, ShardOffsetOp>(op))
    return emitQuery(op);
  if (auto check = dyn_cast<cf::AssertOp>(op)) {
    // Every rank stops (rt::fail aborts the job) with the op's location.
    o << "if (!" << name(check.getArg()) << ") rt::fail(" << where(op)
      << ", " << quoted("assertion failed: " + check.getMsg().str())
      << ");\n";
    return success();
  }
  if (op->getDialect() && isa<tensor::TensorDialect>(op->getDialect()))
    return emitTensorOp(op);
  if (isa<scf::ForOp, scf::IfOp, scf::WhileOp>(op))
    return emitScf(op);
  if (auto call = dyn_cast<func::CallOp>(op)) {
    if (failed(declare(call.getResults(), op)))
      return failure();
    std::string args;
    for (auto [i, a] : llvm::enumerate(call.getOperands()))
      args += (i ? ", " : "") + take(a, op);
    if (call.getNumResults() == 0) {
      o << ident("f_", call.getCallee()) << "(" << args << ");\n";
      return success();
    }
    o << "std::tie(";
    for (auto [i, r] : llvm::enumerate(call.getResults()))
      o << (i ? ", " : "") << name(r);
    o << ") = " << ident("f_", call.getCallee()) << "(" << args << ");\n";
    return success();
  }
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    o << "return {";
    for (auto [i, v] : llvm::enumerate(ret.getOperands()))
      o << (i ? ", " : "") << take(v, op);
    o << "};\n";
    return success();
  }
  if (isa<scf::YieldOp, scf::ConditionOp>(op))
    return success(); // handled by the parent
  if (isa<ReshardOp, RedistributeOp, DistributeTensorOp, FromLocalOp,
          ToLocalOp, FullTensorOp, LocalMapOp, HintOp>(op))
    return op->emitOpError("is a global-view op: run --dtensor-compile (or "
                           "--dtensor-partition and "
                           "--dtensor-lower-redistribute) before emitting C++");
  return op->emitOpError("is not supported by the C++ emitter");
}

LogicalResult CppEmitter::emitBlock(Block &block) {
  for (Operation &op : block) {
    if (isa<scf::YieldOp, scf::ConditionOp>(op))
      continue;
    if (failed(emitOp(&op)) || failed(emitReleases(&op)))
      return failure();
  }
  return success();
}

LogicalResult CppEmitter::emitFunction(func::FuncOp fn) {
  raw_indented_ostream &o = *os;
  if (fn.getBody().getBlocks().size() != 1)
    return fn.emitOpError("has several blocks; the C++ emitter handles "
                          "structured control flow only");
  std::string ret = "std::tuple<";
  for (auto [i, t] : llvm::enumerate(fn.getResultTypes())) {
    if (isa<DeviceMeshType>(t))
      return fn.emitOpError("returns a mesh handle, which the C++ emitter "
                            "does not support");
    FailureOr<std::string> ct = cppType(t, fn);
    if (failed(ct))
      return failure();
    ret += (i ? ", " : "") + *ct;
  }
  ret += ">";
  o << "[[maybe_unused]] static " << ret << " " << ident("f_", fn.getSymName())
    << "(";
  for (auto [i, arg] : llvm::enumerate(fn.getArguments())) {
    FailureOr<std::string> ct = cppType(arg.getType(), fn);
    if (failed(ct))
      return failure();
    o << (i ? ", " : "") << *ct << (isa<DeviceMeshType>(arg.getType()) ? "" : " ")
      << name(arg);
  }
  o << ") {\n";
  o.indent();
  computeLiveness(fn);
  if (failed(emitBlock(fn.getBody().front())))
    return failure();
  o.unindent();
  o << "}\n\n";
  return success();
}

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

LogicalResult CppEmitter::emitMain(raw_ostream &out) {
  SmallVector<func::FuncOp> entries;
  for (auto fn : module.getOps<func::FuncOp>())
    if (!fn.isExternal() && fn.isPublic())
      entries.push_back(fn);
  if (entries.empty())
    return module.emitError("has no public function to run"), failure();
  // One mesh per process: every mesh the program names must have as many
  // ranks as the world (the processes mpirun starts).
  std::optional<int64_t> ranks;
  for (MeshOp mesh : module.getOps<MeshOp>()) {
    int64_t n = meshSize(Shape(mesh.getShape().begin(), mesh.getShape().end()));
    if (ranks && *ranks != n)
      return mesh.emitOpError("has ")
             << n << " ranks and another mesh has " << *ranks
             << "; the generated program runs one process per rank of a "
                "single world, so every mesh must have the same size",
             failure();
    ranks = n;
  }
  if (!ranks)
    ranks = 1;

  raw_indented_ostream o(out);
  o << "int main(int argc, char **argv) {\n";
  o.indent();
  o << "rt::Session session(argc, argv, " << *ranks << ", {";
  for (auto [i, fn] : llvm::enumerate(entries))
    o << (i ? ", " : "") << quoted(fn.getSymName());
  o << "});\n";
  // Meshes and their groups, split eagerly in first-use order.
  for (MeshOp mesh : module.getOps<MeshOp>()) {
    std::string m = ident("mesh_", mesh.getSymName());
    o << "rt::Mesh " << m << "(rt::Shape{";
    for (auto [i, d] : llvm::enumerate(mesh.getShape()))
      o << (i ? ", " : "") << d;
    o << "});\n";
    for (auto &[color, key] : meshGroupsEmitted[mesh.getSymName().str()])
      o << m << ".addGroup(" << color << ", " << key << ");\n";
  }
  o << "for (const std::string &entry : session.run()) {\n";
  o.indent();
  o << "session.begin(entry);\n";
  for (func::FuncOp fn : entries) {
    o << "if (entry == " << quoted(fn.getSymName()) << ") {\n";
    o.indent();
    SmallVector<std::string> args;
    for (auto [i, arg] : llvm::enumerate(fn.getArguments())) {
      Type t = arg.getType();
      if (auto meshType = dyn_cast<DeviceMeshType>(t)) {
        args.push_back(ident("mesh_", meshType.getMesh().getValue()));
        continue;
      }
      auto local = dyn_cast<RankedTensorType>(t);
      if (!local)
        return fn.emitOpError("entry argument ")
               << i << " has type " << t
               << "; the generated driver reads tensor and mesh arguments "
                  "only",
               failure();
      auto global = fn.getArgAttrOfType<TypeAttr>(i, kGlobalTypeAttrName);
      RankedTensorType globalType =
          global ? cast<RankedTensorType>(global.getValue()) : local;
      // A plain argument (the same on every rank, or one file per rank)
      // takes its shape from its file; a distributed one needs its global
      // shape for the boxes each rank reads.
      if (!globalType.hasStaticShape() && getSpec(globalType))
        return fn.emitOpError("entry argument ")
               << i << " has a dynamic global shape, which the generated "
                       "driver cannot read",
               failure();
      int64_t rank = globalType.getRank();
      std::vector<int64_t> boxes;
      std::vector<int64_t> first;
      int partialMode = 0;
      double divisor = 1, identity = 0;
      Shape gshape(globalType.getShape().begin(), globalType.getShape().end());
      for (int64_t &n : gshape)
        if (ShapedType::isDynamic(n))
          n = -1;
      if (SpecAttr spec = getSpec(globalType)) {
        FailureOr<DistributedType> dist =
            resolveDistributedType(globalType, fn, symbols);
        if (failed(dist))
          return failure();
        Shape meshShape(dist->view.mesh.getShape().begin(),
                        dist->view.mesh.getShape().end());
        const Placements &ps = dist->layout.placements();
        std::vector<int64_t> partialDims;
        for (auto [d, p] : llvm::enumerate(ps))
          if (p.isPartial())
            partialDims.push_back(d);
        int64_t partialSize = 1;
        for (int64_t d : partialDims)
          partialSize *= dist->view.shape[d];
        for (int64_t r = 0; r < *ranks; ++r) {
          Shape meshCoord = rankToCoord(meshShape, r);
          // The view's coordinate: its mesh dims combined row-major.
          Shape viewCoord;
          for (const auto &dims : dist->view.meshDims) {
            int64_t c = 0;
            for (int64_t md : dims)
              c = c * meshShape[md] + meshCoord[md];
            viewCoord.push_back(c);
          }
          Shard s = dist->layout.shardAt(gshape, viewCoord);
          for (int64_t d = 0; d < rank; ++d)
            boxes.push_back(s.shape[d] == 0 ? 0 : s.offset[d]);
          for (int64_t d = 0; d < rank; ++d)
            boxes.push_back(s.shape[d]);
          first.push_back(llvm::all_of(partialDims, [&](int64_t d) {
            return viewCoord[d] == 0;
          }));
        }
        if (!partialDims.empty()) {
          ReduceKind kind = ps[partialDims.front()].reduce;
          bool isFloat = isa<FloatType>(globalType.getElementType());
          if (kind == ReduceKind::Sum && isFloat) {
            partialMode = 1;
            divisor = static_cast<double>(partialSize);
          } else if (kind == ReduceKind::Sum || kind == ReduceKind::Product) {
            partialMode = 2;
            identity = kind == ReduceKind::Sum ? 0 : 1;
          }
        }
      } else {
        for (int64_t r = 0; r < *ranks; ++r) {
          for (int64_t d = 0; d < rank; ++d)
            boxes.push_back(0);
          for (int64_t d = 0; d < rank; ++d)
            boxes.push_back(gshape[d]);
          first.push_back(1);
        }
      }
      std::string a = "a" + std::to_string(i);
      o << "rt::InputLayout " << a << "_layout{"
        << dtypeEnum(globalType.getElementType()) << ", rt::Shape{";
      for (auto [d, n] : llvm::enumerate(gshape))
        o << (d ? ", " : "") << n;
      o << "}, " << table(boxes) << ", " << partialMode << ", "
        << floatLiteral(divisor, false) << ", " << floatLiteral(identity, false)
        << ", " << table(first) << "};\n";
      o << "rt::Tensor " << a << " = session.input(" << i << ", " << a
        << "_layout, rt::Shape{";
      for (int64_t d = 0; d < local.getRank(); ++d)
        o << (d ? ", " : "")
          << (local.isDynamicDim(d) ? int64_t(-1) : local.getDimSize(d));
      o << "});\n";
      args.push_back(a);
    }
    o << "auto call = [&]() { return " << ident("f_", fn.getSymName()) << "(";
    for (auto [i, a] : llvm::enumerate(args))
      o << (i ? ", " : "") << a;
    o << "); };\n";
    o << "session.startStep();\n";
    o << "auto results = call();\n";
    o << "session.endStep();\n";
    o << "for (int step = 1; step < session.repeats(); ++step) {\n";
    o << "  results = decltype(results)();\n";
    o << "  session.startStep();\n";
    o << "  results = call();\n";
    o << "  session.endStep();\n";
    o << "}\n";
    for (auto [i, t] : llvm::enumerate(fn.getResultTypes())) {
      if (isa<RankedTensorType>(t)) {
        o << "session.output(" << i << ", std::get<" << i << ">(results));\n";
        continue;
      }
      StringRef st = scalarType(t);
      if (st.empty())
        return fn.emitOpError("entry result ")
               << i << " has type " << t
               << ", which the generated driver cannot write",
               failure();
      o << "{ " << st << " x = std::get<" << i << ">(results); "
        << "session.output(" << i << ", rt::Tensor::fromBytes("
        << dtypeEnum(t) << ", rt::Shape{}, &x)); }\n";
    }
    o.unindent();
    o << "}\n";
  }
  o.unindent();
  o << "}\n";
  o << "return session.finish();\n";
  o.unindent();
  o << "}\n";
  return success();
}

/// Every rank must issue the same collectives in the same order, or the
/// job hangs. A value is rank-dependent when it comes from a mesh query, a
/// collective (its groups differ), or a distributed argument that is not
/// replicated (its shards differ); a plain tensor is the same on every rank,
/// as in the global view. Control flow on a rank-dependent value around a
/// collective (or a call that makes one) is an error here.
LogicalResult checkUniformCollectives(ModuleOp module) {
  // Each rank-dependent value, with the op its dependence comes from.
  DenseMap<Value, Operation *> tainted;
  auto taint = [&](Value v, Operation *origin) {
    if (!tainted.count(v))
      tainted[v] = origin;
  };
  auto visit = [&](Operation *op) {
    if (auto fn = dyn_cast<func::FuncOp>(op)) {
      if (fn.isExternal())
        return;
      for (auto [i, arg] : llvm::enumerate(fn.getArguments())) {
        auto global = fn.getArgAttrOfType<TypeAttr>(i, kGlobalTypeAttrName);
        SpecAttr spec = global ? getSpec(global.getValue()) : SpecAttr();
        if (spec && llvm::any_of(spec.getPlacements(), [](const Placement &p) {
              return !p.isReplicate();
            }))
          taint(arg, fn);
      }
      return;
    }
    // An all_reduce, all_gather or broadcast over every rank of the world
    // (all mesh dims of more than one rank; every mesh is the whole world,
    // emitMain) gives every rank the same value, whatever its operand.
    if (reachesWholeMesh(op))
      return;
    Operation *origin = nullptr;
    if (isa<MeshCoordOp, ShardSizeOp, ShardOffsetOp, AllGatherOp, AllReduceOp,
            ReduceScatterOp, AllToAllOp, BroadcastOp, PermuteOp>(op))
      origin = op;
    // A call passes what its operands carry to the callee's arguments and
    // gets back what the callee returns (results of an unknown callee
    // carry whatever its operands do: below).
    if (auto call = dyn_cast<func::CallOp>(op))
      if (auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
          callee && !callee.isExternal()) {
        for (auto [k, v] : llvm::enumerate(call.getOperands()))
          if (tainted.count(v) && k < callee.getNumArguments())
            taint(callee.getArgument(k), tainted[v]);
        callee.walk([&](func::ReturnOp ret) {
          for (auto [k, v] : llvm::enumerate(ret.getOperands()))
            if (tainted.count(v) && k < call.getNumResults())
              taint(call.getResult(k), tainted[v]);
        });
        return;
      }
    for (Value v : op->getOperands())
      if (!origin && tainted.count(v))
        origin = tainted[v];
    if (isa<scf::YieldOp, scf::ConditionOp>(op)) {
      // What a region yields flows to its parent's results and, in a loop,
      // to the next iteration's arguments.
      Operation *parent = op->getParentOp();
      ValueRange yielded = isa<scf::ConditionOp>(op)
                               ? cast<scf::ConditionOp>(op).getArgs()
                               : op->getOperands();
      for (auto [k, v] : llvm::enumerate(yielded)) {
        if (!tainted.count(v))
          continue;
        if (k < parent->getNumResults())
          taint(parent->getResult(k), tainted[v]);
        if (auto f = dyn_cast<scf::ForOp>(parent))
          taint(f.getRegionIterArgs()[k], tainted[v]);
        if (auto w = dyn_cast<scf::WhileOp>(parent)) {
          Block &next = isa<scf::ConditionOp>(op) ? w.getAfter().front()
                                                  : w.getBefore().front();
          taint(next.getArgument(k), tainted[v]);
        }
      }
      return;
    }
    // Loops and branches: each carried value on its own.
    if (auto f = dyn_cast<scf::ForOp>(op)) {
      for (Value b : {f.getLowerBound(), f.getUpperBound(), f.getStep()})
        if (tainted.count(b)) {
          taint(f.getInductionVar(), tainted[b]);
          for (Value r : f.getResults())
            taint(r, tainted[b]);
        }
      for (auto [k, init] : llvm::enumerate(f.getInitArgs()))
        if (tainted.count(init)) {
          taint(f.getRegionIterArgs()[k], tainted[init]);
          taint(f.getResult(k), tainted[init]);
        }
      return;
    }
    if (auto w = dyn_cast<scf::WhileOp>(op)) {
      for (auto [k, init] : llvm::enumerate(w.getInits()))
        if (tainted.count(init))
          taint(w.getBefore().front().getArgument(k), tainted[init]);
      return;
    }
    if (auto i = dyn_cast<scf::IfOp>(op)) {
      if (tainted.count(i.getCondition()))
        for (Value r : i.getResults())
          taint(r, tainted[i.getCondition()]);
      return;
    }
    if (!origin)
      return;
    for (Value r : op->getResults())
      taint(r, origin);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          taint(arg, origin);
  };
  // Until nothing changes: a value carried round a loop, or returned by a
  // callee defined after its caller, reaches its uses on a later pass (each
  // pass is linear; a value is tainted once).
  for (size_t before = ~size_t(0); before != tainted.size();) {
    before = tainted.size();
    module.walk<WalkOrder::PreOrder>(visit);
  }
  // Functions that make collectives, directly or through calls.
  DenseSet<Operation *> communicating;
  bool changed = true;
  auto makesCollective = [&](Operation *root) {
    bool found = false;
    root->walk([&](Operation *op) {
      if (isa<AllGatherOp, AllReduceOp, ReduceScatterOp, AllToAllOp,
              BroadcastOp, PermuteOp>(op))
        found = true;
      if (auto call = dyn_cast<func::CallOp>(op))
        if (auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee()))
          if (communicating.contains(callee))
            found = true;
    });
    return found;
  };
  while (changed) {
    changed = false;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!communicating.contains(fn) && makesCollective(fn)) {
        communicating.insert(fn);
        changed = true;
      }
  }
  WalkResult result = module.walk([&](Operation *op) {
    Value decides;
    if (auto i = dyn_cast<scf::IfOp>(op); i && tainted.count(i.getCondition()))
      decides = i.getCondition();
    if (auto f = dyn_cast<scf::ForOp>(op))
      for (Value v : {f.getLowerBound(), f.getUpperBound(), f.getStep()})
        if (tainted.count(v))
          decides = v;
    if (auto w = dyn_cast<scf::WhileOp>(op)) {
      auto cond = cast<scf::ConditionOp>(w.getBefore().front().getTerminator());
      if (tainted.count(cond.getCondition()))
        decides = cond.getCondition();
    }
    if (!decides || !makesCollective(op))
      return WalkResult::advance();
    InFlightDiagnostic diag =
        op->emitOpError("makes collectives under control flow that can differ "
                        "between ranks; every rank must issue the same "
                        "collectives in the same order, or the job hangs");
    diag.attachNote(tainted[decides]->getLoc())
        << "the rank-dependent value comes from here";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

LogicalResult CppEmitter::emit(raw_ostream &out, CppFlavour flavour) {
  if (failed(checkUniformCollectives(module)))
    return failure();
  bodyStream = std::make_unique<llvm::raw_string_ostream>(body);
  os = std::make_unique<raw_indented_ostream>(*bodyStream);
  // Scalar helpers the kernels use.
  std::string declarations;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isExternal())
      return fn.emitOpError("is external; the C++ emitter needs every "
                            "function's body"),
             failure();
    if (failed(emitFunction(fn)))
      return failure();
  }
  std::string mainText;
  llvm::raw_string_ostream mainStream(mainText);
  if (failed(emitMain(mainStream)))
    return failure();

  if (flavour == CppFlavour::Cuda)
    out << "// Generated by dtensor-translate --dtensor-to-cuda. Do not edit.\n"
        << "// One rank of the compiled program per process, on its GPU: build\n"
        << "// with dtensor-build (nvcc; NCCL, or --target=cuda-mpi for MPI\n"
        << "// staged through host memory), run with mpirun (docs/CodeGen.md).\n\n"
        << "#if !defined(__CUDACC__)\n"
        << "#error \"a CUDA program: build it with dtensor-build (nvcc)\"\n"
        << "#endif\n\n";
  else
    out << "// Generated by dtensor-translate --dtensor-to-cpp. Do not edit.\n"
        << "// One rank of the compiled program per MPI process; build with\n"
        << "// dtensor-build, run with mpirun (docs/CodeGen.md).\n\n";
  out << "#include \"dtensor_rt/Runtime.h\"\n\n"
      << "#include <algorithm>\n#include <cmath>\n#include <cstdint>\n"
      << "#include <cstring>\n#include <limits>\n#include <string>\n"
      << "#include <tuple>\n"
      << "#include <utility>\n\n"
      << "namespace rt = dtensor_rt;\n\nnamespace {\n\n"
      << "template <typename T> DTENSOR_HD T rt_floordiv(T a, T b) {\n"
      << "  if (b == 0) return T(0);\n"
      << "  if (b == T(-1)) return T(0 - uint64_t(int64_t(a)));\n"
      << "  T q = a / b;\n  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n}\n"
      << "template <typename T> DTENSOR_HD T rt_ceildiv(T a, T b) {\n"
      << "  if (b == 0) return T(0);\n"
      << "  if (b == T(-1)) return T(0 - uint64_t(int64_t(a)));\n"
      << "  T q = a / b;\n  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;\n}\n"
      << "template <typename T> DTENSOR_HD T rt_mod(T a, T b) {\n"
      << "  T r = a % b;\n  return r < 0 ? r + (b < 0 ? -b : b) : r;\n}\n"
      // arith.divsi / remsi as the interpreter computes them where MLIR
      // leaves them undefined (division by zero: 0; the least value over
      // -1: the wrapped quotient, remainder 0) instead of a SIGFPE.
      // scf.for's next induction value; past the type's largest value the
      // loop ends (the bound), where `iv += step` would overflow.
      << "template <typename T> T rt_for_next(T iv, T step, T ub) {\n"
      << "  T next;\n  return __builtin_add_overflow(iv, step, &next) ? ub : next;\n}\n"
      << "template <typename F> DTENSOR_HD int64_t rt_fptosi(F f) {\n"
      << "  double x = double(f);\n"
      << "  if (!(x > -9223372036854775808.0 && x < 9223372036854775808.0))\n"
      << "    return -9223372036854775807LL - 1;\n"
      << "  return int64_t(x);\n}\n"
      << "template <typename F> DTENSOR_HD int64_t rt_fptoui(F f) {\n"
      << "  double x = double(f);\n"
      << "  if (x >= 9223372036854775808.0 && x < 18446744073709551616.0)\n"
      << "    return int64_t(uint64_t(x));\n"
      << "  return rt_fptosi(x);\n}\n"
      << "template <typename U> DTENSOR_HD U rt_ctlz(U u, int bits) {\n"
      << "  int n = 0;\n"
      << "  for (int b = bits - 1; b >= 0 && !((u >> b) & 1); --b) ++n;\n"
      << "  return U(n);\n}\n"
      << "template <typename U> DTENSOR_HD U rt_cttz(U u, int bits) {\n"
      << "  if (!u) return U(bits);\n"
      << "  int n = 0;\n  while (!(u & 1)) { u >>= 1; ++n; }\n  return U(n);\n}\n"
      << "template <typename U> DTENSOR_HD U rt_ctpop(U u) {\n"
      << "  int n = 0;\n  while (u) { n += int(u & 1); u >>= 1; }\n  return U(n);\n}\n"
      << "template <typename U> DTENSOR_HD U rt_ceildivui(U a, U b) {\n"
      << "  return b == 0 ? U(0) : U(a / b + (a % b != 0));\n}\n"
      << "template <typename T> DTENSOR_HD T rt_ipowi(T base, T e) {\n"
      << "  if (e < 0)\n"
      << "    return base == 1 ? T(1) : base == T(-1) ? ((e & 1) ? T(-1) : T(1)) : T(0);\n"
      << "  uint64_t r = 1, b = uint64_t(int64_t(base));\n"
      << "  for (uint64_t n = uint64_t(int64_t(e)); n; n >>= 1, b *= b)\n"
      << "    if (n & 1) r *= b;\n"
      << "  return T(r);\n}\n"
      << "template <typename U> DTENSOR_HD U rt_divui(U a, U b) {\n"
      << "  return b == 0 ? U(0) : U(a / b);\n}\n"
      << "template <typename U> DTENSOR_HD U rt_remui(U a, U b) {\n"
      << "  return b == 0 ? U(0) : U(a % b);\n}\n"
      << "template <typename T> DTENSOR_HD T rt_divsi(T a, T b) {\n"
      << "  if (b == 0) return T(0);\n"
      << "  if (b == T(-1)) return T(0 - uint64_t(int64_t(a)));\n"
      << "  return T(a / b);\n}\n"
      << "template <typename T> DTENSOR_HD T rt_remsi(T a, T b) {\n"
      << "  return (b == 0 || b == T(-1)) ? T(0) : T(a % b);\n}\n"
      << "template <typename T> DTENSOR_HD T rt_maximum(T a, T b) {\n"
      << "  if (std::isnan(a) || std::isnan(b)) return T(a + b);\n"
      << "  if (a == 0 && b == 0) return std::signbit(a) ? b : a;\n"
      << "  return a > b ? a : b;\n}\n"
      << "template <typename T> DTENSOR_HD T rt_minimum(T a, T b) {\n"
      << "  if (std::isnan(a) || std::isnan(b)) return T(a + b);\n"
      << "  if (a == 0 && b == 0) return std::signbit(a) ? a : b;\n"
      << "  return a < b ? a : b;\n}\n"
      // std::fmax and std::fmin as glibc computes them on x86-64 (the one
      // not a NaN; y where they compare equal, so fmax(-0, +0) is +0), but
      // inline: g++ calls libm's fmaxf for each element (a row max was a
      // third of a softmax) and cannot vectorize the call.
      << "template <typename T> DTENSOR_HD T rt_maxnum(T a, T b) {\n"
      << "  return (a > b || b != b) ? a : b;\n}\n"
      << "template <typename T> DTENSOR_HD T rt_minnum(T a, T b) {\n"
      << "  return (a < b || b != b) ? a : b;\n}\n"
      << "template <typename T> DTENSOR_HD T rt_absi(T a) {\n"
      << "  return a < 0 ? T(0 - uint64_t(int64_t(a))) : a;\n}\n"
      << "template <typename To, typename From> DTENSOR_HD To rt_bitcast(From f) {\n"
      << "  To t;\n  memcpy(&t, &f, sizeof(t));\n  return t;\n}\n\n";
  for (const std::string &t : tables)
    out << t << "\n";
  out << "\n";
  // Forward declarations (calls may precede definitions).
  for (auto fn : module.getOps<func::FuncOp>()) {
    std::string ret = "std::tuple<";
    for (auto [i, t] : llvm::enumerate(fn.getResultTypes()))
      ret += (i ? ", " : "") + *cppType(t, fn);
    ret += ">";
    out << "static " << ret << " " << ident("f_", fn.getSymName()) << "(";
    for (auto [i, t] : llvm::enumerate(fn.getArgumentTypes()))
      out << (i ? ", " : "") << *cppType(t, fn);
    out << ");\n";
  }
  out << "\n" << body << "} // namespace\n\n" << mainText;
  return success();
}

} // namespace

LogicalResult mlir::dtensor::emitCpp(ModuleOp module, raw_ostream &os,
                                     CppFlavour flavour) {
  CppEmitter emitter(module);
  std::string text;
  llvm::raw_string_ostream buffer(text);
  if (failed(emitter.emit(buffer, flavour)))
    return failure();
  os << text;
  return success();
}

void mlir::dtensor::registerToCppTranslation() {
  // Registered as whole translations rather than TranslateFromMLIRRegistration
  // so that the source is screened before MLIR's parser reads it: a few
  // malformed spellings of upstream ops crash that parser (InputScreen.h),
  // and dtensor-translate, like dtensor-opt and dtensor-run, answers them
  // with an error at the location. Each chunk of --split-input-file comes
  // here with a source manager of its own, so each is screened.
  auto translate = [](CppFlavour flavour) {
    return [flavour](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                     raw_ostream &output, MLIRContext *context) -> LogicalResult {
      DialectRegistry registry;
      registerAllDialects(registry);
      context->appendDialectRegistry(registry);
      if (!screenSourceBuffer(*sourceMgr, sourceMgr->getMainFileID()))
        return failure();
      OwningOpRef<Operation *> op = parseSourceFileForTool(
          sourceMgr, ParserConfig(context), /*insertImplicitModule=*/true);
      if (!op || failed(verify(*op)))
        return failure();
      auto module = dyn_cast<ModuleOp>(*op);
      if (!module)
        return op->emitError("expected a module");
      if (failed(prepareForCpp(module)))
        return failure();
      return emitCpp(module, output, flavour);
    };
  };
  TranslateRegistration cpp(
      "dtensor-to-cpp",
      "emit a compiled (local view) module as a C++ program over MPI "
      "(docs/CodeGen.md)",
      translate(CppFlavour::Host));
  TranslateRegistration cuda(
      "dtensor-to-cuda",
      "emit a compiled (local view) module as a CUDA program over NCCL or "
      "host-staged MPI (docs/CodeGen.md)",
      translate(CppFlavour::Cuda));
}
