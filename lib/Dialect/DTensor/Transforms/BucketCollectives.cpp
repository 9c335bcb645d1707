//===- BucketCollectives.cpp - merge small all_reduces into buckets -------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Many small all_reduces of one group (a data-parallel step's gradients) cost
// a latency each; one all_reduce of their concatenation costs one (DDP's
// buckets). In each block, synchronous all_reduces of the same mesh handle,
// mesh dims, reduction and element type, with static shapes, are gathered
// into a bucket until an op uses one of their results or the bucket would
// pass `bucket-bytes`; then, just before that op, their inputs are
// flattened, concatenated and reduced once, and each result is its slice of
// the reduced buffer, reshaped. An element-wise reduction of a concatenation
// is the concatenation of the reductions. Every rank runs the same program,
// so every rank makes the same buckets, in the same order.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/IR/DTensor.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include <vector>

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORBUCKETCOLLECTIVESPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {

struct Key {
  Value mesh;
  SmallVector<int64_t> dims;
  Reduction reduce;
  Type element;
  bool operator==(const Key &o) const {
    return mesh == o.mesh && dims == o.dims && reduce == o.reduce &&
           element == o.element;
  }
};

int64_t bytesOf(RankedTensorType t) {
  return t.getNumElements() *
         getElementByteSize(t.getElementType()).value_or(8);
}

struct DTensorBucketCollectivesPass
    : public dtensor::impl::DTensorBucketCollectivesPassBase<
          DTensorBucketCollectivesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (bucketBytes < 0) {
      getOperation().emitError()
          << "dtensor-bucket-collectives: bucket-bytes must be 0 or positive, "
             "not "
          << int64_t(bucketBytes);
      return signalPassFailure();
    }
    if (failed(verifyDistributedTypes(getOperation())))
      return signalPassFailure();
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *b) { blocks.push_back(b); });
    for (Block *b : blocks)
      bucketBlock(*b);
  }

  static bool candidate(AllReduceOp op) {
    if (op.isAsync())
      return false;
    auto t = llvm::cast<RankedTensorType>(op.getInput().getType());
    return t.hasStaticShape() && t.getRank() > 0 &&
           t.getElementType().isIntOrFloat();
  }

  /// An open bucket: its key, members in program order, and bytes.
  struct Bucket {
    Key key;
    SmallVector<AllReduceOp> members;
    int64_t bytes = 0;
  };

  void bucketBlock(Block &block) {
    // Open buckets in order of creation (deterministic output).
    std::vector<Bucket> open;
    SmallVector<Operation *> ops;
    for (Operation &op : block)
      ops.push_back(&op);
    for (Operation *op : ops) {
      // A bucket whose result this op reads is reduced just before it.
      for (size_t i = 0; i < open.size();) {
        bool used = llvm::any_of(open[i].members, [&](AllReduceOp member) {
          return llvm::any_of(member->getUsers(), [&](Operation *user) {
            return block.findAncestorOpInBlock(*user) == op;
          });
        });
        if (used) {
          flush(open[i].members, op);
          open.erase(open.begin() + i);
        } else {
          ++i;
        }
      }
      auto reduce = llvm::dyn_cast<AllReduceOp>(op);
      if (!reduce || !candidate(reduce))
        continue;
      auto t = llvm::cast<RankedTensorType>(reduce.getInput().getType());
      Key key{reduce.getMesh(), SmallVector<int64_t>(reduce.getMeshDims()),
              reduce.getReduce(), t.getElementType()};
      int64_t bytes = bytesOf(t);
      auto it = llvm::find_if(open, [&](const Bucket &b) { return b.key == key; });
      // (Compared without adding: a limit near INT64_MAX would overflow.)
      if (it != open.end() && bytes > int64_t(bucketBytes) - it->bytes) {
        flush(it->members, reduce);
        open.erase(it);
        it = open.end();
      }
      if (it == open.end()) {
        open.push_back(Bucket{key, {}, 0});
        it = std::prev(open.end());
      }
      it->members.push_back(reduce);
      it->bytes += bytes;
    }
    // Anything left has no use in this block after it: reduce at the end.
    Operation *end = block.mightHaveTerminator() ? block.getTerminator() : nullptr;
    for (Bucket &b : open)
      if (end)
        flush(b.members, end);
  }

  /// Replaces `members` (two or more) by one all_reduce before `at`. The
  /// bucket is filled as its members' inputs are made: an empty buffer
  /// before the first, each input inserted where its all_reduce was, so an
  /// input dies there as it did (a concatenation at `at` kept every input
  /// alive until then, and then a second copy of them all).
  void flush(SmallVector<AllReduceOp> &members, Operation *at) {
    if (members.size() < 2)
      return;
    Location loc = members.front().getLoc();
    SmallVector<int64_t> sizes;
    int64_t total = 0;
    for (AllReduceOp m : members) {
      auto t = llvm::cast<RankedTensorType>(m.getInput().getType());
      sizes.push_back(t.getNumElements());
      total += t.getNumElements();
    }
    Type element =
        llvm::cast<RankedTensorType>(members.front().getInput().getType())
            .getElementType();
    auto bucketType = RankedTensorType::get({total}, element);
    OpBuilder b(members.front());
    Value joined = tensor::EmptyOp::create(b, loc, bucketType.getShape(), element);
    int64_t filled = 0;
    for (auto [m, size] : llvm::zip(members, sizes)) {
      b.setInsertionPoint(m);
      auto t = llvm::cast<RankedTensorType>(m.getInput().getType());
      SmallVector<ReassociationIndices> groups(1);
      for (int64_t d = 0; d < t.getRank(); ++d)
        groups[0].push_back(d);
      Value flat =
          tensor::CollapseShapeOp::create(b, loc, m.getInput(), groups);
      joined = tensor::InsertSliceOp::create(
          b, loc, flat, joined, ArrayRef<OpFoldResult>{b.getIndexAttr(filled)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(size)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
      filled += size;
    }
    b.setInsertionPoint(at);
    AllReduceOp first = members.front();
    Value reduced = AllReduceOp::create(b, loc, bucketType, joined,
                                        first.getMesh(), first.getMeshDims(),
                                        first.getReduce());
    int64_t offset = 0;
    for (auto [m, size] : llvm::zip(members, sizes)) {
      auto t = llvm::cast<RankedTensorType>(m.getResult().getType());
      Value piece = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get({size}, element), reduced,
          ArrayRef<OpFoldResult>{b.getIndexAttr(offset)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(size)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
      SmallVector<ReassociationIndices> groups(1);
      for (int64_t d = 0; d < t.getRank(); ++d)
        groups[0].push_back(d);
      // Expanded to the (static) input's shape; a result type with dynamic
      // sizes is reached by a cast.
      auto in = llvm::cast<RankedTensorType>(m.getInput().getType());
      Value shaped = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get(in.getShape(), element), piece, groups);
      if (shaped.getType() != t)
        shaped = tensor::CastOp::create(b, loc, t, shaped);
      m.getResult().replaceAllUsesWith(shaped);
      offset += size;
    }
    numBucketed += members.size();
    ++numBuckets;
    for (AllReduceOp m : members)
      m.erase();
  }
};

} // namespace
