//===- MaskLookups.cpp - masked lookups instead of gathered tables --------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// A table read by computed index inside a linalg body (an embedding lookup)
// must be whole where it is read, so partitioning gathers a sharded table
// once before the op. When the lookup's result is the same on every rank of
// the gather's group (its indices and everything else it reads are), DTensor
// does better (MaskPartial): each rank looks up the indices that fall in its
// own shard of the table, zero elsewhere, and the group sums the results.
// Exactly one rank contributes each element, so the sum is exact. This pass
// makes that rewrite in the local view, where it pays: when the gathered
// table has more bytes than twice the lookup's result (an all_reduce moves
// about twice its buffer, an all_gather about its result).
//
//   %g = dtensor.all_gather %t, %m mesh_dims = K gather_dim = d
//   %r = linalg.generic ... { ... %v = tensor.extract %g[.., %i, ..]
//                                 linalg.yield %v }
// becomes
//   %o = mesh_coord(K) * size(t, d)
//   %p = linalg.generic ... { %l = %i - %o; %in = 0 <= %l < size(t, d)
//                             %v = tensor.extract %t[.., select(%in, %l, 0), ..]
//                             linalg.yield select(%in, %v, 0) }
//   %r = dtensor.all_reduce %p, %m mesh_dims = K reduce = sum
//
// The body may compute on the looked-up value before it yields (a scaled
// embedding, a sum with another table's row): the select then takes what it
// yields, so only the rank holding the row contributes. A rank that does
// not hold it computes on its own first row, so the ops on that path must be
// safe on any element: scalar arith and math, no integer division or
// remainder, no float-to-integer conversion, no read indexed by the value.
//
// An uneven table is gathered as padded pieces and sliced to its rows; the
// lookup then reads the rank's padded piece (never empty, so the clamped
// read stays in bounds on a rank whose shard is). Gathers of one user are
// rewritten, in functions whose uniformity across the group is known from
// the compiled function's contract (`dtensor.global`: a distributed argument
// replicated on the group, or a plain argument of a function that has a
// contract, is the same on every rank of it). Propagation offers the masked
// form itself where it pays by its cost model (Lookups.h); this pass covers
// the gathers left, by bytes. A slice of the sum taken alike across the
// group is taken before the sum.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/IR/DTensor.h"
#include "dtensor/Dialect/DTensor/Transforms/Lookups.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORMASKLOOKUPSPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// Whether values hold the same data on every rank of the group over mesh
/// dims `group` (of a mesh seen whole). Conservative: false when unsure.
class Uniformity {
public:
  Uniformity(func::FuncOp fn, ArrayRef<int64_t> group)
      : fn(fn), group(group.begin(), group.end()) {}

  bool of(Value v) {
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    memo[v] = false; // cycles (loop-carried values) are not uniform
    bool u = compute(v);
    memo[v] = u;
    return u;
  }

private:
  bool hasContract() {
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (fn.getArgAttr(i, kGlobalTypeAttrName))
        return true;
    for (unsigned i = 0; i < fn.getNumResults(); ++i)
      if (fn.getResultAttr(i, kGlobalTypeAttrName))
        return true;
    return false;
  }

  bool covers(ArrayRef<int64_t> dims) const {
    return llvm::all_of(group, [&](int64_t k) {
      return llvm::is_contained(dims, k);
    });
  }
  bool disjoint(ArrayRef<int64_t> dims) const {
    return llvm::none_of(group, [&](int64_t k) {
      return llvm::is_contained(dims, k);
    });
  }
  static bool wholeMesh(Type handle) {
    auto t = llvm::dyn_cast<DeviceMeshType>(handle);
    return t && t.getMeshDims().empty() && !t.getFlattened();
  }

  bool compute(Value v) {
    if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != &fn.getBody().front())
        return false;
      if (llvm::isa<DeviceMeshType>(arg.getType()))
        return true;
      auto global = fn.getArgAttrOfType<TypeAttr>(arg.getArgNumber(),
                                                  kGlobalTypeAttrName);
      // A plain argument of a compiled global-view function (one with a
      // contract) is the same global tensor on every rank; a function
      // without one is local code whose arguments may differ per rank.
      if (!global)
        return hasContract() && llvm::isa<RankedTensorType>(arg.getType());
      SpecAttr spec = getSpec(global.getValue());
      if (!spec || !spec.getMeshDims().empty() || spec.getFlattened())
        return false;
      ArrayRef<Placement> ps = spec.getPlacements();
      return llvm::all_of(group, [&](int64_t k) {
        return k < int64_t(ps.size()) && ps[k].isReplicate();
      });
    }
    Operation *op = v.getDefiningOp();
    if (auto g = llvm::dyn_cast<AllGatherOp>(op))
      return !g.isAsync() && wholeMesh(g.getMesh().getType()) &&
             covers(g.getMeshDims());
    if (auto r = llvm::dyn_cast<AllReduceOp>(op))
      return !r.isAsync() && wholeMesh(r.getMesh().getType()) &&
             covers(r.getMeshDims());
    if (llvm::isa<MeshCoordOp, ShardSizeOp, ShardOffsetOp>(op)) {
      auto dims = op->getAttrOfType<DenseI64ArrayAttr>("mesh_dims");
      return wholeMesh(op->getOperand(0).getType()) && dims &&
             disjoint(dims.asArrayRef());
    }
    if (!isMemoryEffectFree(op) || llvm::isa<func::CallOp>(op))
      return false;
    for (Value operand : op->getOperands())
      if (!of(operand))
        return false;
    if (op->getNumRegions()) {
      bool rankDependent = false;
      op->walk([&](Operation *inner) {
        if (llvm::isa<MeshCoordOp, ShardSizeOp, ShardOffsetOp>(inner))
          rankDependent = true;
      });
      if (rankDependent)
        return false;
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(op->getRegions(), above);
      for (Value a : above)
        if (!of(a))
          return false;
    }
    return true;
  }

  func::FuncOp fn;
  SmallVector<int64_t> group;
  llvm::DenseMap<Value, bool> memo;
};

std::optional<int64_t> staticBytes(Type t) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(t);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  return tensor.getNumElements() *
         getElementByteSize(tensor.getElementType()).value_or(8);
}

struct DTensorMaskLookupsPass
    : public dtensor::impl::DTensorMaskLookupsPassBase<DTensorMaskLookupsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(verifyDistributedTypes(getOperation())))
      return signalPassFailure();
    SmallVector<std::pair<linalg::GenericOp, tensor::ExtractOp>> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (tensor::ExtractOp e = lookupOf(op))
        candidates.push_back({op, e});
    });
    for (auto [op, extract] : candidates)
      rewrite(op, extract);
  }

  /// The read of a gathered table in a lookup that masking may rewrite
  /// (Lookups.h: maskableRead).
  static tensor::ExtractOp lookupOf(linalg::GenericOp op) {
    if (!isPureLookup(op))
      return {};
    for (Operation &inner : op.getRegion().front())
      if (auto extract = llvm::dyn_cast<tensor::ExtractOp>(inner))
        if (gatherOf(extract.getTensor()))
          if (tensor::ExtractOp read = maskableRead(op, extract.getTensor()))
            return read;
    return {};
  }

  /// The gather a table comes from: an all_gather's result, or (an uneven
  /// table, gathered as padded pieces) the leading rows of one along its
  /// gather dim, the rest whole. Global row g is then row g - r * piece of
  /// rank r's padded piece, as for an even table.
  static AllGatherOp gatherOf(Value table) {
    if (auto g = table.getDefiningOp<AllGatherOp>())
      return g;
    auto slice = table.getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || !slice->hasOneUse())
      return {};
    auto g = slice.getSource().getDefiningOp<AllGatherOp>();
    if (!g)
      return {};
    auto whole = g.getResultTensorType();
    auto part = llvm::cast<RankedTensorType>(slice.getResult().getType());
    if (!whole.hasStaticShape() || !part.hasStaticShape() ||
        part.getRank() != whole.getRank() || slice.getDroppedDims().any())
      return {};
    for (int64_t d = 0; d < whole.getRank(); ++d)
      if (slice.getStaticOffsets()[d] != 0 || slice.getStaticStrides()[d] != 1 ||
          (d != g.getGatherDim() && part.getDimSize(d) != whole.getDimSize(d)))
        return {};
    return g;
  }

  void rewrite(linalg::GenericOp op, tensor::ExtractOp extract) {
    AllGatherOp gather = gatherOf(extract.getTensor());
    if (!gather || gather.isAsync() || !gather->hasOneUse())
      return;
    auto slice = extract.getTensor().getDefiningOp<tensor::ExtractSliceOp>();
    // In one block: a lookup in a loop around which the table was gathered
    // once would all-reduce on every trip.
    if (gather->getBlock() != op->getBlock())
      return;
    auto meshType = llvm::cast<DeviceMeshType>(gather.getMesh().getType());
    if (!meshType.getMeshDims().empty() || meshType.getFlattened())
      return;
    auto fn = op->getParentOfType<func::FuncOp>();
    if (!fn || fn.isPrivate())
      return; // a callee's arguments carry no contract
    auto local = llvm::cast<RankedTensorType>(gather.getInput().getType());
    auto whole = gather.getResultTensorType();
    int64_t d = gather.getGatherDim();
    if (!local.hasStaticShape() || !whole.hasStaticShape() ||
        local.getDimSize(d) == 0)
      return;
    int64_t parts = whole.getDimSize(d) / local.getDimSize(d);
    if (parts * local.getDimSize(d) != whole.getDimSize(d))
      return; // (all_gather pieces are equal; uneven tables are padded)
    // It pays when the table moves more than the result would, twice.
    std::optional<int64_t> tableBytes = staticBytes(whole);
    std::optional<int64_t> resultBytes = staticBytes(op->getResult(0).getType());
    if (!tableBytes || !resultBytes || *tableBytes <= 2 * *resultBytes)
      return;
    // The result must be the same on every rank of the group.
    Uniformity uniform(fn, gather.getMeshDims());
    for (Value v : op.getDpsInputs())
      if (!uniform.of(v))
        return;
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(op->getRegions(), above);
    for (Value v : above)
      if (v != extract.getTensor() && !uniform.of(v))
        return;
    auto yield = llvm::cast<linalg::YieldOp>(
        op.getRegion().front().getTerminator());
    Type elem = yield.getValues()[0].getType();

    Location loc = op.getLoc();
    OpBuilder b(op);
    Value coord = MeshCoordOp::create(b, loc, b.getIndexType(),
                                      gather.getMesh(), gather.getMeshDims());
    Value size = arith::ConstantIndexOp::create(b, loc, local.getDimSize(d));
    Value offset = arith::MulIOp::create(b, loc, coord, size);
    Value zeroIndex = arith::ConstantIndexOp::create(b, loc, 0);

    // The body reads this rank's shard where the index falls in it.
    b.setInsertionPoint(extract);
    SmallVector<Value> indices(extract.getIndices());
    Value mine = arith::SubIOp::create(b, loc, indices[d], offset);
    Value ge = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, mine,
                                     zeroIndex);
    Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, mine,
                                     size);
    Value in = arith::AndIOp::create(b, loc, ge, lt);
    indices[d] = arith::SelectOp::create(b, loc, in, mine, zeroIndex);
    Value read = tensor::ExtractOp::create(b, loc, gather.getInput(), indices);
    extract.getResult().replaceAllUsesWith(read);
    extract.erase();
    // What the body yields from it counts on the rank that holds the row.
    b.setInsertionPoint(yield);
    Value zero = arith::ConstantOp::create(b, loc, elem, b.getZeroAttr(elem));
    Value masked =
        arith::SelectOp::create(b, loc, in, yield.getValues()[0], zero);
    yield->setOperand(0, masked);

    // The group sums its terms: one rank's value and zeros.
    b.setInsertionPointAfter(op);
    Value sum = AllReduceOp::create(b, loc, op->getResult(0).getType(),
                                    op->getResult(0), gather.getMesh(),
                                    gather.getMeshDims(), Reduction::Sum);
    op->getResult(0).replaceAllUsesExcept(sum, sum.getDefiningOp());
    Value mesh = gather.getMesh();
    SmallVector<int64_t> group(gather.getMeshDims());
    if (slice)
      slice.erase();
    gather.erase();
    ++numMasked;
    // A slice of the sum taken alike across the group (its offsets and
    // sizes the same on every rank of it: this rank's rows over another mesh
    // dim) is the sum of the slices: reduce only what is kept.
    if (!sum.hasOneUse())
      return;
    auto kept = llvm::dyn_cast<tensor::ExtractSliceOp>(*sum.getUsers().begin());
    if (!kept || !llvm::all_of(kept->getOperands().drop_front(),
                               [&](Value v) { return uniform.of(v); }))
      return;
    b.setInsertionPoint(kept);
    auto part = tensor::ExtractSliceOp::create(
        b, kept.getLoc(), kept.getType(), op->getResult(0), kept.getMixedOffsets(),
        kept.getMixedSizes(), kept.getMixedStrides());
    Value reduced = AllReduceOp::create(b, loc, kept.getType(), part, mesh,
                                        group, Reduction::Sum);
    kept.replaceAllUsesWith(reduced);
    kept.erase();
    sum.getDefiningOp()->erase();
  }
};

} // namespace
