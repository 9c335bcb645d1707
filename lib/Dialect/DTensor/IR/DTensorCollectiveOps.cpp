//===- DTensorCollectiveOps.cpp - local-view collectives and queries ------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Verifiers of the collectives and group queries. The op classes themselves
// are generated into DTensorOps.cpp.inc (compiled in DTensorOps.cpp), since
// DTensor.td is the one tablegen root. Checks that need only the op go in
// verify(); the ones that need the mesh's sizes (group size, divisibility,
// ranks of the group) go in verifySymbolUses.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/IR/DTensor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::dtensor;

FailureOr<RankedTensorType>
mlir::dtensor::parseFutureValueType(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  Type type;
  if (parser.parseType(type))
    return failure();
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return parser.emitError(loc) << "a future holds a ranked tensor, as in "
                                    "!dtensor.future<tensor<8x8xf32>>; got "
                                 << type;
  return tensor;
}

RankedTensorType mlir::dtensor::getTensorOrFutureValueType(Type type) {
  if (auto future = llvm::dyn_cast<FutureType>(type))
    return future.getValueType();
  return llvm::cast<RankedTensorType>(type);
}

//===----------------------------------------------------------------------===//
// Groups
//===----------------------------------------------------------------------===//

/// Checks `mesh_dims` against the handle's view, as far as the view's type
/// tells: non-empty, non-negative, unique, and covered by a sub-mesh or
/// flattened view. Whether they exist on a whole-mesh handle needs the mesh
/// (resolveGroupMesh).
static LogicalResult verifyMeshDims(Operation *op, ArrayRef<int64_t> meshDims,
                                    DeviceMeshType mesh) {
  if (meshDims.empty())
    return op->emitOpError() << "needs at least one mesh dim in mesh_dims: "
                                "list the mesh dims whose ranks form the group";
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t d : meshDims) {
    if (d < 0)
      return op->emitOpError()
             << "mesh_dims has the negative dim " << d
             << "; mesh dims are indices (>= 0) of the dims of mesh "
             << mesh.getMesh();
    if (!seen.insert(d).second)
      return op->emitOpError() << "mesh_dims lists mesh dim " << d
                               << " twice; list each mesh dim once";
  }
  ArrayRef<int64_t> viewDims = mesh.getMeshDims();
  if (viewDims.empty())
    return success();
  if (mesh.getFlattened()) {
    if (meshDims.size() != viewDims.size() ||
        !llvm::all_of(viewDims, [&](int64_t d) { return seen.contains(d); }))
      return op->emitOpError()
             << "mesh_dims [" << meshDims << "] must be the dims of the "
             << "flattened view " << mesh
             << " (in any order), since a flattened group cannot be split; "
                "use a permutation of ["
             << viewDims << "], or a handle of the whole mesh";
    return success();
  }
  for (int64_t d : meshDims)
    if (!llvm::is_contained(viewDims, d))
      return op->emitOpError()
             << "mesh dim " << d << " in mesh_dims is not a dim of the view "
             << mesh << "; use dims of [" << viewDims
             << "] or a handle whose view has mesh dim " << d;
  return success();
}

FailureOr<Shape> mlir::dtensor::resolveGroupMesh(
    Operation *from, DeviceMeshType mesh, ArrayRef<int64_t> meshDims,
    SymbolTableCollection &symbols,
    llvm::function_ref<InFlightDiagnostic()> emitError) {
  FailureOr<ResolvedMeshView> view =
      resolveMeshView(from, mesh.getView(), symbols, emitError);
  if (failed(view))
    return failure();
  Shape shape(view->mesh.getShape().begin(), view->mesh.getShape().end());
  for (int64_t d : meshDims)
    if (d >= (int64_t)shape.size())
      return emitError() << "mesh dim " << d
                         << " in mesh_dims does not exist: mesh "
                         << mesh.getMesh() << " has " << shape.size()
                         << " dim(s); use dims in [0, " << shape.size() << ")";
  return shape;
}

/// The number of ranks in a group over `meshDims`. resolveMeshView has
/// checked the mesh (at most kMaxMeshRanks ranks), so this cannot overflow.
static int64_t groupSize(const Shape &mesh, ArrayRef<int64_t> meshDims) {
  int64_t n = 1;
  for (int64_t d : meshDims)
    n *= mesh[d];
  return n;
}

/// Resolves the group size of a collective or query.
template <typename OpT>
static FailureOr<int64_t> resolveGroupSize(OpT op,
                                           SymbolTableCollection &symbols) {
  FailureOr<Shape> shape =
      resolveGroupMesh(op, op.getMesh().getType(), op.getMeshDims(), symbols,
                       [op]() mutable { return op.emitOpError(); });
  if (failed(shape))
    return failure();
  return groupSize(*shape, op.getMeshDims());
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

static bool sizesAgree(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

static std::string formatSize(int64_t size) {
  return ShapedType::isDynamic(size) ? "?" : std::to_string(size);
}

/// The checks every collective shares: input and result hold the same
/// element type and rank, `mesh_dims` fit the handle, and every dim that the
/// op does not change (all but `changed`) agrees.
template <typename OpT>
static LogicalResult verifyCollective(OpT op, ArrayRef<int64_t> changed = {}) {
  if (failed(verifyMeshDims(op, op.getMeshDims(), op.getMesh().getType())))
    return failure();
  RankedTensorType input = op.getInput().getType();
  RankedTensorType result = op.getResultTensorType();
  auto errorAt = [op]() mutable { return op.emitOpError(); };
  if (failed(verifyTensorSizeFits(input.getShape(), input.getElementType(),
                                  errorAt)) ||
      failed(verifyTensorSizeFits(result.getShape(), result.getElementType(),
                                  errorAt)))
    return failure();
  if (input.getElementType() != result.getElementType())
    return op.emitOpError()
           << "result element type " << result.getElementType()
           << " differs from the input's " << input.getElementType()
           << "; collectives do not convert, so cast before or after";
  if (input.getRank() != result.getRank())
    return op.emitOpError()
           << "result rank " << result.getRank()
           << " differs from the input's rank " << input.getRank()
           << "; collectives keep the rank, so give the result rank "
           << input.getRank();
  for (int64_t d = 0; d < input.getRank(); ++d) {
    if (llvm::is_contained(changed, d) ||
        sizesAgree(input.getDimSize(d), result.getDimSize(d)))
      continue;
    return op.emitOpError()
           << "result dim " << d << " has size " << result.getDimSize(d)
           << " but the input's has " << input.getDimSize(d) << "; "
           << op->getName().stripDialect()
           << " does not change that dim, so make them equal (or '?')";
  }
  return success();
}

/// Checks that `dim` (the value of attribute `name`) is a dim of the input.
static LogicalResult verifyDimInRange(Operation *op, StringRef name,
                                      int64_t dim, RankedTensorType input) {
  if (dim >= 0 && dim < input.getRank())
    return success();
  return op->emitOpError() << name << " " << dim
                           << " is out of range for the rank-"
                           << input.getRank() << " input; use a dim in [0, "
                           << input.getRank() << ")";
}

/// Checks that the group of `n` ranks can split input dim `dim` evenly.
static LogicalResult verifyDivisible(Operation *op, StringRef name, int64_t dim,
                                     RankedTensorType input, int64_t n) {
  int64_t size = input.getDimSize(dim);
  if (ShapedType::isDynamic(size) || size % n == 0)
    return success();
  return op->emitOpError() << name << " " << dim << " of the input has size "
                           << size << ", which the group of " << n
                           << " rank(s) cannot split evenly; pad it to a "
                              "multiple of "
                           << n << " first";
}

/// Checks result dim `dim` against `expected` when both are known.
static LogicalResult verifyResultDim(Operation *op, StringRef name, int64_t dim,
                                     RankedTensorType result, int64_t expected,
                                     StringRef why) {
  int64_t size = result.getDimSize(dim);
  if (ShapedType::isDynamic(expected) || sizesAgree(size, expected))
    return success();
  return op->emitOpError() << name << " " << dim
                           << " of the result should have size " << expected
                           << " (" << why << "), not " << size;
}

/// `size * n`, dynamic when `size` is, or std::nullopt when the product
/// does not fit in int64 (it would wrap around to a size that a wrong result
/// type could match).
static std::optional<int64_t> scaled(int64_t size, int64_t n) {
  if (ShapedType::isDynamic(size))
    return ShapedType::kDynamic;
  return llvm::checkedMul(size, n);
}

/// The error for a gathered dim whose size does not fit in int64.
static LogicalResult emitScaledOverflow(Operation *op, StringRef name,
                                        int64_t dim, int64_t size, int64_t n) {
  return op->emitOpError()
         << name << " " << dim << " of the result would have " << size
         << " elements from each of the " << n
         << " rank(s) of the group, more than fit in a signed 64-bit integer "
            "(at most "
         << INT64_MAX << "); use a smaller input";
}

/// `size / n`, or dynamic when `size` is.
static int64_t divided(int64_t size, int64_t n) {
  return ShapedType::isDynamic(size) ? ShapedType::kDynamic : size / n;
}

static std::string gatheredWhy(int64_t size, int64_t n) {
  return formatSize(size) + " from each of the " + std::to_string(n) +
         " rank(s) of the group";
}

static std::string splitWhy(int64_t size, int64_t n) {
  return formatSize(size) + " split over the " + std::to_string(n) +
         " rank(s) of the group";
}

//===----------------------------------------------------------------------===//
// AllGatherOp
//===----------------------------------------------------------------------===//

LogicalResult AllGatherOp::verify() {
  if (failed(verifyDimInRange(*this, "gather_dim", getGatherDim(),
                              getInput().getType())))
    return failure();
  return verifyCollective(*this, {getGatherDim()});
}

LogicalResult AllGatherOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<int64_t> n = resolveGroupSize(*this, symbols);
  if (failed(n))
    return failure();
  int64_t dim = getGatherDim(), size = getInput().getType().getDimSize(dim);
  std::optional<int64_t> expected = scaled(size, *n);
  if (!expected)
    return emitScaledOverflow(*this, "gather_dim", dim, size, *n);
  return verifyResultDim(*this, "gather_dim", dim, getResultTensorType(),
                         *expected, gatheredWhy(size, *n));
}

//===----------------------------------------------------------------------===//
// AllReduceOp
//===----------------------------------------------------------------------===//

LogicalResult AllReduceOp::verify() { return verifyCollective(*this); }

LogicalResult AllReduceOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return resolveGroupSize(*this, symbols);
}

//===----------------------------------------------------------------------===//
// ReduceScatterOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceScatterOp::verify() {
  if (failed(verifyDimInRange(*this, "scatter_dim", getScatterDim(),
                              getInput().getType())))
    return failure();
  return verifyCollective(*this, {getScatterDim()});
}

LogicalResult
ReduceScatterOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<int64_t> n = resolveGroupSize(*this, symbols);
  if (failed(n))
    return failure();
  RankedTensorType input = getInput().getType();
  int64_t dim = getScatterDim(), size = input.getDimSize(dim);
  if (failed(verifyDivisible(*this, "scatter_dim", dim, input, *n)))
    return failure();
  return verifyResultDim(*this, "scatter_dim", dim, getResultTensorType(),
                         divided(size, *n), splitWhy(size, *n));
}

//===----------------------------------------------------------------------===//
// AllToAllOp
//===----------------------------------------------------------------------===//

LogicalResult AllToAllOp::verify() {
  RankedTensorType input = getInput().getType();
  if (failed(verifyDimInRange(*this, "split_dim", getSplitDim(), input)) ||
      failed(verifyDimInRange(*this, "concat_dim", getConcatDim(), input)))
    return failure();
  // With split_dim == concat_dim the shape is unchanged.
  if (getSplitDim() == getConcatDim())
    return verifyCollective(*this);
  return verifyCollective(*this, {getSplitDim(), getConcatDim()});
}

LogicalResult AllToAllOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<int64_t> n = resolveGroupSize(*this, symbols);
  if (failed(n))
    return failure();
  RankedTensorType input = getInput().getType(), result = getResultTensorType();
  int64_t split = getSplitDim(), concat = getConcatDim();
  if (failed(verifyDivisible(*this, "split_dim", split, input, *n)))
    return failure();
  if (split == concat)
    return success();
  int64_t splitSize = input.getDimSize(split);
  int64_t concatSize = input.getDimSize(concat);
  if (failed(verifyResultDim(*this, "split_dim", split, result,
                             divided(splitSize, *n), splitWhy(splitSize, *n))))
    return failure();
  std::optional<int64_t> expected = scaled(concatSize, *n);
  if (!expected)
    return emitScaledOverflow(*this, "concat_dim", concat, concatSize, *n);
  return verifyResultDim(*this, "concat_dim", concat, result, *expected,
                         gatheredWhy(concatSize, *n));
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  if (getRoot() < 0)
    return emitOpError() << "root " << getRoot()
                         << " is negative; root is the sender's index in "
                            "the group, from 0";
  return verifyCollective(*this);
}

LogicalResult BroadcastOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<int64_t> n = resolveGroupSize(*this, symbols);
  if (failed(n))
    return failure();
  if (getRoot() >= *n)
    return emitOpError() << "root " << getRoot()
                         << " is not a rank of the group of " << *n
                         << " rank(s); use a group rank in [0, " << *n << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// PermuteOp
//===----------------------------------------------------------------------===//

LogicalResult PermuteOp::verify() {
  ArrayRef<int64_t> pairs = getSourceTargetPairs();
  if (pairs.size() % 2)
    return emitOpError() << "source_target_pairs has " << pairs.size()
                         << " entries; list (source, target) pairs, an even "
                            "number of entries";
  llvm::SmallSet<int64_t, 8> sources, targets;
  for (size_t i = 0; i < pairs.size(); i += 2) {
    int64_t source = pairs[i], target = pairs[i + 1];
    if (source < 0 || target < 0)
      return emitOpError() << "source_target_pairs has the negative rank "
                           << std::min(source, target)
                           << "; group ranks count from 0";
    if (!sources.insert(source).second)
      return emitOpError() << "group rank " << source
                           << " is a source twice in source_target_pairs; "
                              "each rank sends at most once";
    if (!targets.insert(target).second)
      return emitOpError() << "group rank " << target
                           << " is a target twice in source_target_pairs; "
                              "each rank receives at most once";
  }
  return verifyCollective(*this);
}

LogicalResult PermuteOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<int64_t> n = resolveGroupSize(*this, symbols);
  if (failed(n))
    return failure();
  for (int64_t rank : getSourceTargetPairs())
    if (rank >= *n)
      return emitOpError() << "source_target_pairs has group rank " << rank
                           << ", but the group has " << *n
                           << " rank(s); use group ranks in [0, " << *n << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

LogicalResult MeshCoordOp::verify() {
  return verifyMeshDims(*this, getMeshDims(), getMesh().getType());
}

LogicalResult MeshCoordOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return resolveGroupSize(*this, symbols);
}

/// The checks of shard_size and shard_offset.
template <typename OpT> static LogicalResult verifyShardQuery(OpT op) {
  if (op.getSize() < 0)
    return op.emitOpError() << "size " << op.getSize()
                            << " is negative; give the dim's global size";
  return verifyMeshDims(op, op.getMeshDims(), op.getMesh().getType());
}

LogicalResult ShardSizeOp::verify() { return verifyShardQuery(*this); }

LogicalResult ShardSizeOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return resolveGroupSize(*this, symbols);
}

LogicalResult ShardOffsetOp::verify() { return verifyShardQuery(*this); }

LogicalResult ShardOffsetOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return resolveGroupSize(*this, symbols);
}
