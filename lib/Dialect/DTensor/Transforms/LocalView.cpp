//===- LocalView.cpp - building local-view IR for distributed values ------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Uneven shards: a collective needs the same buffer size on every rank of a
// group, so around each collective whose pieces differ in size, every piece
// is padded to the largest piece P (known statically from the layout core:
// chunk 0 is always the largest) and placed at a multiple of P; after the
// collective the real pieces are cut out again at their torch.chunk offsets.
// Where the layout core proves the pieces even, the collective runs directly.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/LocalView.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::dtensor;

SmallVector<int64_t>
DistributedType::meshDimsOf(ArrayRef<int64_t> viewDims) const {
  SmallVector<int64_t> dims;
  for (int64_t v : viewDims)
    llvm::append_range(dims, view.meshDims[v]);
  return dims;
}

FailureOr<DistributedType>
mlir::dtensor::resolveDistributedType(RankedTensorType type, Operation *from,
                                      SymbolTableCollection &symbols) {
  SpecAttr spec = getSpec(type);
  auto emitError = [&]() { return from->emitOpError(); };
  FailureOr<ResolvedMeshView> view =
      resolveMeshView(from, spec.getView(), symbols, emitError);
  if (failed(view))
    return failure();
  FailureOr<Layout> layout =
      verifySpecForMesh(from, spec, type.getRank(), symbols, emitError);
  if (failed(layout))
    return failure();
  return DistributedType{type, spec, *view, *layout};
}

static bool hasStaticZeroDim(Value v) {
  auto t = llvm::dyn_cast<RankedTensorType>(v.getType());
  return t && llvm::is_contained(t.getShape(), 0);
}

Value mlir::dtensor::createExtractSlice(OpBuilder &b, Location loc,
                                        RankedTensorType resultType,
                                        Value source,
                                        ArrayRef<OpFoldResult> offsets,
                                        ArrayRef<OpFoldResult> sizes,
                                        ArrayRef<OpFoldResult> strides) {
  if (hasStaticZeroDim(source) &&
      resultType.getRank() == int64_t(sizes.size())) {
    SmallVector<Value> dynamic;
    for (int64_t d = 0; d < resultType.getRank(); ++d)
      if (resultType.isDynamicDim(d))
        dynamic.push_back(getValueOrCreateConstantIndexOp(b, loc, sizes[d]));
    return tensor::EmptyOp::create(b, loc, resultType, dynamic);
  }
  return tensor::ExtractSliceOp::create(b, loc, resultType, source, offsets,
                                        sizes, strides);
}

Value mlir::dtensor::createInsertSlice(OpBuilder &b, Location loc, Value piece,
                                       Value dest,
                                       ArrayRef<OpFoldResult> offsets,
                                       ArrayRef<OpFoldResult> sizes,
                                       ArrayRef<OpFoldResult> strides) {
  if (hasStaticZeroDim(piece) || hasStaticZeroDim(dest))
    return dest;
  return tensor::InsertSliceOp::create(b, loc, piece, dest, offsets, sizes,
                                       strides);
}

Value mlir::dtensor::findMeshHandle(Operation *op, const MeshViewRef &view) {
  auto fn = op->getParentOfType<FunctionOpInterface>();
  return fn ? findMeshHandleIn(fn, view) : Value();
}

Value mlir::dtensor::findMeshHandleIn(FunctionOpInterface fn,
                                      const MeshViewRef &view) {
  for (BlockArgument arg : fn.getArguments())
    if (auto handle = llvm::dyn_cast<DeviceMeshType>(arg.getType()))
      if (handle.getView() == view)
        return arg;
  return {};
}

RankedTensorType mlir::dtensor::getLocalType(RankedTensorType global,
                                             const Layout &layout) {
  SmallVector<int64_t> shape(global.getShape());
  if (global.hasStaticShape()) {
    Shape g(shape.begin(), shape.end());
    for (int64_t d = 0; d < global.getRank(); ++d) {
      std::optional<int64_t> size = layout.uniformSize(g, d);
      shape[d] = size ? *size : ShapedType::kDynamic;
    }
  } else {
    for (int64_t d = 0; d < global.getRank(); ++d)
      if (!layout.order(d).empty())
        shape[d] = ShapedType::kDynamic;
  }
  return RankedTensorType::get(shape, global.getElementType());
}

//===----------------------------------------------------------------------===//
// Small IR builders
//===----------------------------------------------------------------------===//

namespace {

/// Builds local-view index arithmetic and tensor slicing at one place.
struct Emitter {
  OpBuilder &b;
  Location loc;

  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  Value dim(Value v, int64_t d) {
    auto t = llvm::cast<RankedTensorType>(v.getType());
    if (!t.isDynamicDim(d))
      return cst(t.getDimSize(d));
    return tensor::DimOp::create(b, loc, v, d);
  }

  /// torch.chunk piece `index` of `length` split into `parts`.
  std::pair<Value, Value> chunk(Value length, int64_t parts, Value index) {
    Value full = arith::CeilDivSIOp::create(b, loc, length, cst(parts));
    Value start = arith::MinSIOp::create(
        b, loc, arith::MulIOp::create(b, loc, full, index), length);
    Value end = arith::MinSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, start, full), length);
    return {start, arith::SubIOp::create(b, loc, end, start)};
  }

  Value coord(Value mesh, ArrayRef<int64_t> meshDims) {
    return MeshCoordOp::create(b, loc, b.getIndexType(), mesh, meshDims);
  }

  /// A static size where `known` is static, else the value.
  OpFoldResult fold(Value v, int64_t known) {
    if (!ShapedType::isDynamic(known))
      return b.getIndexAttr(known);
    return v;
  }

  /// Per-dim (offset, size) overrides of a slice; other dims are whole.
  struct Window {
    int64_t dim;
    OpFoldResult offset, size;
  };

  /// The part of `v` inside `windows`; the result's dims are static where
  /// the sizes are attributes.
  Value slice(Value v, ArrayRef<Window> windows) {
    auto t = llvm::cast<RankedTensorType>(v.getType());
    SmallVector<OpFoldResult> offsets(t.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes, strides(t.getRank(), b.getIndexAttr(1));
    for (int64_t d = 0; d < t.getRank(); ++d)
      sizes.push_back(fold(t.isDynamicDim(d) ? dim(v, d) : Value(),
                           t.getDimSize(d)));
    for (const Window &w : windows) {
      offsets[w.dim] = w.offset;
      sizes[w.dim] = w.size;
    }
    SmallVector<int64_t> shape;
    for (OpFoldResult s : sizes) {
      std::optional<int64_t> c = getConstantIntValue(s);
      shape.push_back(c ? *c : ShapedType::kDynamic);
    }
    auto resultType = RankedTensorType::get(shape, t.getElementType());
    return createExtractSlice(b, loc, resultType, v, offsets, sizes, strides);
  }

  /// `dest` with `piece` written at `offsets` (0 in dims not listed).
  Value insert(Value piece, Value dest, ArrayRef<std::pair<int64_t, OpFoldResult>> at) {
    auto t = llvm::cast<RankedTensorType>(piece.getType());
    SmallVector<OpFoldResult> offsets(t.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes, strides(t.getRank(), b.getIndexAttr(1));
    for (int64_t d = 0; d < t.getRank(); ++d)
      sizes.push_back(fold(t.isDynamicDim(d) ? dim(piece, d) : Value(),
                           t.getDimSize(d)));
    for (auto &[d, off] : at)
      offsets[d] = off;
    return createInsertSlice(b, loc, piece, dest, offsets, sizes, strides);
  }

  /// Zeros of `type`; dynamic dims come from `sizeOf(dim)`.
  Value zeros(RankedTensorType type,
              llvm::function_ref<Value(int64_t)> sizeOf) {
    SmallVector<Value> dynamic;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dynamic.push_back(sizeOf(d));
    Value zero = arith::ConstantOp::create(
        b, loc, b.getZeroAttr(type.getElementType()));
    return tensor::SplatOp::create(b, loc, zero, type, dynamic);
  }

  static RankedTensorType withDimSize(RankedTensorType t, int64_t d,
                                      int64_t size) {
    SmallVector<int64_t> shape(t.getShape());
    shape[d] = size;
    return RankedTensorType::get(shape, t.getElementType());
  }

  /// `v` with dim `d` split into (`parts`, `inner`).
  Value splitDim(Value v, int64_t d, int64_t parts, OpFoldResult inner) {
    auto t = llvm::cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape;
    SmallVector<OpFoldResult> outShape;
    SmallVector<ReassociationIndices> groups;
    for (int64_t k = 0; k < t.getRank(); ++k) {
      int64_t at = shape.size();
      if (k == d) {
        std::optional<int64_t> c = getConstantIntValue(inner);
        shape.append({parts, c ? *c : ShapedType::kDynamic});
        outShape.append({b.getIndexAttr(parts), inner});
        groups.push_back({at, at + 1});
        continue;
      }
      shape.push_back(t.getDimSize(k));
      outShape.push_back(fold(t.isDynamicDim(k) ? dim(v, k) : Value(),
                              t.getDimSize(k)));
      groups.push_back({at});
    }
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(shape, t.getElementType()), v, groups,
        outShape);
  }

  /// `v` with dims `d` and `d + 1` merged.
  Value mergeDims(Value v, int64_t d) {
    auto t = llvm::cast<RankedTensorType>(v.getType());
    SmallVector<ReassociationIndices> groups;
    for (int64_t k = 0; k < t.getRank(); ++k) {
      if (k == d + 1)
        continue;
      if (k == d)
        groups.push_back({k, k + 1});
      else
        groups.push_back({k});
    }
    return tensor::CollapseShapeOp::create(b, loc, v, groups);
  }

  /// ceil(length / parts), folded when `length` is a constant.
  OpFoldResult fullChunk(Value length, int64_t parts) {
    if (std::optional<int64_t> c = getConstantIntValue(length))
      return b.getIndexAttr((*c + parts - 1) / parts);
    return arith::CeilDivSIOp::create(b, loc, length, cst(parts)).getResult();
  }

  Value value(OpFoldResult v) {
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return cst(*c);
    return llvm::cast<Value>(v);
  }

  /// Dim `d` of `buffer` holds `parts` slots of `slot` elements, slot i
  /// starting with torch.chunk piece i of a dim of `length` (the rest
  /// padding). Returns the pieces joined, `length` long. Every piece but the
  /// last non-empty one is a full ceil(length / parts) chunk, so the pieces
  /// are the first `length` elements of the slots cut to that size: a few
  /// ops whatever the number of parts (never one slice per rank).
  Value joinChunks(Value buffer, int64_t d, int64_t parts, int64_t slot,
                   Value length, int64_t staticLength) {
    OpFoldResult full = fullChunk(length, parts);
    std::optional<int64_t> c = getConstantIntValue(full);
    Value joined = buffer;
    if (!c || *c != slot) {
      Value grid = splitDim(buffer, d, parts, b.getIndexAttr(slot));
      joined = mergeDims(slice(grid, {{d + 1, b.getIndexAttr(0), full}}), d);
    }
    return slice(joined, {{d, b.getIndexAttr(0), fold(length, staticLength)}});
  }

  /// The inverse of joinChunks: `v`'s dim `d` cut into `parts` torch.chunk
  /// pieces, piece i at i * `slot` of a zero buffer `parts * slot` long.
  Value chunksToSlots(Value v, int64_t d, int64_t parts, int64_t slot) {
    auto t = llvm::cast<RankedTensorType>(v.getType());
    Value length = dim(v, d);
    OpFoldResult full = fullChunk(length, parts);
    std::optional<int64_t> c = getConstantIntValue(full);
    if (c && *c == slot)
      return insert(v,
                    zeros(withDimSize(t, d, parts * slot),
                          [&](int64_t i) { return dim(v, i); }),
                    {});
    // Pad to `parts` full chunks, then move each chunk to its slot.
    OpFoldResult paddedLen =
        c ? OpFoldResult(b.getIndexAttr(parts * *c))
          : OpFoldResult(
                arith::MulIOp::create(b, loc, value(full), cst(parts))
                    .getResult());
    std::optional<int64_t> pc = getConstantIntValue(paddedLen);
    Value padded = insert(
        v,
        zeros(withDimSize(t, d, pc ? *pc : ShapedType::kDynamic),
              [&](int64_t i) { return i == d ? value(paddedLen) : dim(v, i); }),
        {});
    Value grid = splitDim(padded, d, parts, full);
    auto gridType = llvm::cast<RankedTensorType>(grid.getType());
    SmallVector<int64_t> shape(gridType.getShape());
    shape[d + 1] = slot;
    Value dest = zeros(RankedTensorType::get(shape, t.getElementType()),
                       [&](int64_t i) { return dim(grid, i); });
    return mergeDims(insert(grid, dest, {}), d);
  }

  Value cast(Value v, Type type) {
    if (v.getType() == type)
      return v;
    return tensor::CastOp::create(b, loc, type, v);
  }
};

RankedTensorType withDim(RankedTensorType t, int64_t d, int64_t size) {
  SmallVector<int64_t> shape(t.getShape());
  shape[d] = size;
  return RankedTensorType::get(shape, t.getElementType());
}

bool allDivisible(const std::vector<int64_t> &sizes, int64_t n) {
  return llvm::all_of(sizes, [&](int64_t s) { return s % n == 0; });
}

} // namespace

std::pair<Value, Value>
mlir::dtensor::emitShardExtent(OpBuilder &b, Location loc, Value mesh,
                               const DistributedType &type,
                               const Layout &layout, int64_t dim) {
  Emitter e{b, loc};
  Value offset = e.cst(0);
  Value length = e.cst(type.global.getDimSize(dim));
  for (int64_t m : layout.order(dim)) {
    auto [start, size] =
        e.chunk(length, layout.mesh()[m], e.coord(mesh, type.meshDimsOf({m})));
    offset = arith::AddIOp::create(b, loc, offset, start);
    length = size;
  }
  return {offset, length};
}

//===----------------------------------------------------------------------===//
// Redistribution
//===----------------------------------------------------------------------===//

FailureOr<Value> mlir::dtensor::lowerRedistribute(OpBuilder &b, Location loc,
                                                  Value local, Value mesh,
                                                  const DistributedType &from,
                                                  ArrayRef<Placement> to,
                                                  const CostModel &cost,
                                                  PlanCache *cache) {
  RankedTensorType global = from.global;
  Type elt = global.getElementType();
  if (!global.hasStaticShape())
    return emitError(loc) << "cannot lower a redistribution of " << global
                          << ": it needs a static global shape";
  if (!elt.isIntOrFloat())
    return emitError(loc) << "cannot lower a redistribution of " << global
                          << ": element type " << elt
                          << " is not an integer or float";
  Shape shape(global.getShape().begin(), global.getShape().end());
  RedistributeRequest req{from.view.shape, shape,
                          (elt.getIntOrFloatBitWidth() + 7) / 8,
                          from.layout.placements(),
                          Placements(to.begin(), to.end())};
  std::string error;
  std::optional<Plan> plan;
  if (cache) {
    std::string key = formatPlacements(req.from) + formatPlacements(req.to);
    for (int64_t v : req.mesh)
      key += "m" + std::to_string(v);
    for (int64_t v : req.shape)
      key += "s" + std::to_string(v);
    key += "e" + std::to_string(req.elementBytes);
    auto it = cache->plans.find(key);
    if (it != cache->plans.end()) {
      plan = it->second;
      error = cache->errors[key];
    } else {
      plan = planRedistribute(req, cost, error);
      cache->plans[key] = plan;
      cache->errors[key] = error;
    }
  } else {
    plan = planRedistribute(req, cost, error);
  }
  if (!plan)
    return emitError(loc) << "cannot redistribute "
                          << formatPlacements(req.from) << " to "
                          << formatPlacements(req.to) << ": " << error;

  Emitter e{b, loc};
  int64_t rank = global.getRank();
  Shape zerosCoord(from.view.shape.size(), 0);
  Value v = local;
  for (const Step &step : plan->steps) {
    std::string why;
    std::optional<Layout> before =
        Layout::create(from.view.shape, rank, step.before, why);
    std::optional<Layout> after =
        Layout::create(from.view.shape, rank, step.after, why);
    assert(before && after && "planner produced an invalid state");
    RankedTensorType tBefore = getLocalType(global, *before);
    RankedTensorType tAfter = getLocalType(global, *after);
    v = e.cast(v, tBefore);
    int64_t n = 1;
    for (int64_t m : step.meshDims)
      n *= from.view.shape[m];
    SmallVector<int64_t> meshDims = from.meshDimsOf(step.meshDims);
    Shape maxBefore = before->shardAt(shape, zerosCoord).shape;
    auto sameAsV = [&](Value like) {
      return [&, like](int64_t d) { return e.dim(like, d); };
    };

    switch (step.kind) {
    case StepKind::LocalNoop:
      v = e.cast(v, tAfter);
      break;

    case StepKind::LocalDivide: {
      if (!llvm::isa<FloatType>(elt))
        return emitError(loc)
               << "cannot make a Partial(sum) of integer tensor " << global
               << " from a replicated one: that divides by the group size";
      Value scalar = arith::ConstantOp::create(
          b, loc, b.getFloatAttr(elt, double(n)));
      SmallVector<Value> dynamic;
      for (int64_t d = 0; d < rank; ++d)
        if (tBefore.isDynamicDim(d))
          dynamic.push_back(e.dim(v, d));
      Value splat = tensor::SplatOp::create(b, loc, scalar, tBefore, dynamic);
      v = arith::DivFOp::create(b, loc, v, splat);
      break;
    }

    case StepKind::LocalZeroPad: {
      // The extent the group holds together along d, this rank's piece of
      // it at its torch.chunk offset, zeros elsewhere.
      int64_t d = step.fromDim;
      Value parent = emitShardExtent(b, loc, mesh, from, *after, d).second;
      Value start = e.chunk(parent, n, e.coord(mesh, meshDims)).first;
      Value dest = e.zeros(tAfter, [&](int64_t k) {
        return k == d ? parent : e.dim(v, k);
      });
      v = e.insert(v, dest, {{d, start}});
      break;
    }

    case StepKind::LocalChunk: {
      int64_t d = step.toDim;
      auto [start, size] = e.chunk(e.dim(v, d), n, e.coord(mesh, meshDims));
      v = e.cast(e.slice(v, {{d, start, e.fold(size, tAfter.getDimSize(d))}}),
                 tAfter);
      break;
    }

    case StepKind::AllGather: {
      int64_t d = step.fromDim;
      if (allDivisible(after->distinctSizes(shape, d), n)) {
        v = AllGatherOp::create(b, loc, tAfter, v, mesh, meshDims, d);
        break;
      }
      // Pad this rank's piece to the largest, gather, cut the pieces out.
      int64_t piece = maxBefore[d];
      RankedTensorType padded = withDim(tBefore, d, piece);
      Value buffer = e.insert(v, e.zeros(padded, sameAsV(v)), {});
      Value gathered = AllGatherOp::create(b, loc, withDim(tBefore, d, n * piece),
                                           buffer, mesh, meshDims, d);
      Value parent = emitShardExtent(b, loc, mesh, from, *after, d).second;
      v = e.cast(e.joinChunks(gathered, d, n, piece, parent,
                              tAfter.getDimSize(d)),
                 tAfter);
      break;
    }

    case StepKind::ReduceScatter: {
      int64_t d = step.toDim;
      Reduction reduce = toReduction(step.reduce);
      if (allDivisible(before->distinctSizes(shape, d), n)) {
        v = ReduceScatterOp::create(b, loc, tAfter, v, mesh, meshDims, d,
                                    reduce);
        break;
      }
      // Place torch.chunk piece i at i * P, reduce-scatter P-sized pieces,
      // keep this rank's real size.
      int64_t piece = (maxBefore[d] + n - 1) / n;
      Value length = e.dim(v, d);
      Value buffer = e.chunksToSlots(v, d, n, piece);
      Value scattered = ReduceScatterOp::create(
          b, loc, withDim(tBefore, d, piece), buffer, mesh, meshDims, d,
          reduce);
      Value mine = e.chunk(length, n, e.coord(mesh, meshDims)).second;
      v = e.cast(e.slice(scattered, {{d, b.getIndexAttr(0),
                                      e.fold(mine, tAfter.getDimSize(d))}}),
                 tAfter);
      break;
    }

    case StepKind::AllReduce:
      v = AllReduceOp::create(b, loc, tAfter, v, mesh, meshDims,
                              toReduction(step.reduce));
      break;

    case StepKind::AllToAll: {
      int64_t i = step.fromDim, j = step.toDim;
      if (allDivisible(before->distinctSizes(shape, j), n) &&
          allDivisible(after->distinctSizes(shape, i), n)) {
        v = AllToAllOp::create(b, loc, tAfter, v, mesh, meshDims, j, i);
        break;
      }
      // Pieces of j go to P_j-sized slots, this rank's piece of i is padded
      // to the largest; after the exchange, cut both back.
      int64_t pieceJ = (maxBefore[j] + n - 1) / n;
      int64_t pieceI = maxBefore[i];
      RankedTensorType bufferType =
          withDim(withDim(tBefore, j, n * pieceJ), i, pieceI);
      Value lengthJ = e.dim(v, j);
      Value slotsJ = e.chunksToSlots(v, j, n, pieceJ);
      Value buffer =
          e.insert(slotsJ, e.zeros(bufferType, sameAsV(slotsJ)), {});
      Value exchanged = AllToAllOp::create(
          b, loc, withDim(withDim(tBefore, j, pieceJ), i, n * pieceI), buffer,
          mesh, meshDims, j, i);
      Value mineJ = e.chunk(lengthJ, n, e.coord(mesh, meshDims)).second;
      Value parentI = emitShardExtent(b, loc, mesh, from, *after, i).second;
      Value cut = e.slice(exchanged, {{j, b.getIndexAttr(0),
                                       e.fold(mineJ, tAfter.getDimSize(j))}});
      v = e.cast(e.joinChunks(cut, i, n, pieceI, parentI, tAfter.getDimSize(i)),
                 tAfter);
      break;
    }
    }
  }
  return v;
}

//===----------------------------------------------------------------------===//
// Windows of sharded loops
//===----------------------------------------------------------------------===//

FailureOr<Value> mlir::dtensor::emitWindow(OpBuilder &b, Location loc,
                                           Value mesh, Value local,
                                           const DistributedType &type,
                                           int64_t dim, int64_t viewDim,
                                           const WindowRead &read,
                                           ArrayRef<int64_t> windowed,
                                           Value fill) {
  Emitter e{b, loc};
  int64_t parts = type.view.shape[viewDim];
  std::string error;
  int64_t length = windowLength(read, parts, error);
  if (length < 0)
    return emitError(loc) << error;
  const Placement &held = type.layout.placements()[viewDim];
  bool sharded = held.isShard() && held.dim == dim;
  std::map<int64_t, int64_t> shifts;
  if (sharded)
    shifts = haloShifts(read, parts);

  // `local` may still carry its global type (partitioning retypes values in
  // place after planning), so its sizes come from the layout, except for
  // dims already cut to a window (then `local` is that window).
  RankedTensorType localType = getLocalType(type.global, type.layout);
  if (!windowed.empty()) {
    SmallVector<int64_t> shape(localType.getShape());
    auto current = llvm::cast<RankedTensorType>(local.getType());
    for (int64_t d : windowed)
      shape[d] = current.getDimSize(d);
    localType = RankedTensorType::get(shape, localType.getElementType());
  }
  SmallVector<Value> localDims;
  for (int64_t i = 0; i < localType.getRank(); ++i)
    localDims.push_back(
        !localType.isDynamicDim(i) ? e.cst(localType.getDimSize(i))
        : llvm::is_contained(windowed, i)
            ? e.dim(local, i)
            : emitShardExtent(b, loc, mesh, type, type.layout, i).second);
  // A slice of `src` (sizes `srcDims`) along `dim` only.
  auto cut = [&](Value src, ArrayRef<Value> srcDims, Value offset,
                 Value size) {
    int64_t rank = localType.getRank();
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes, strides(rank, b.getIndexAttr(1));
    SmallVector<int64_t> shape;
    for (int64_t i = 0; i < rank; ++i) {
      OpFoldResult s = i == dim ? OpFoldResult(size)
                                : getAsOpFoldResult(srcDims[i]);
      sizes.push_back(s);
      std::optional<int64_t> c = getConstantIntValue(s);
      shape.push_back(c ? *c : ShapedType::kDynamic);
    }
    offsets[dim] = offset;
    return createExtractSlice(
        b, loc, RankedTensorType::get(shape, localType.getElementType()), src,
        offsets, sizes, strides);
  };

  SmallVector<int64_t> meshDims = type.meshDimsOf({viewDim});
  Value g = e.coord(mesh, meshDims);
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y).getResult();
  };
  auto sub = [&](Value x, Value y) {
    return arith::SubIOp::create(b, loc, x, y).getResult();
  };
  auto mul = [&](Value x, int64_t c) {
    return arith::MulIOp::create(b, loc, x, e.cst(c)).getResult();
  };
  auto maxOf = [&](Value x, Value y) {
    return arith::MaxSIOp::create(b, loc, x, y).getResult();
  };
  auto minOf = [&](Value x, Value y) {
    return arith::MinSIOp::create(b, loc, x, y).getResult();
  };
  auto clamp = [&](Value x, Value lo, Value hi) {
    return maxOf(minOf(x, hi), lo);
  };
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y).getResult();
  };
  auto both = [&](Value x, Value y) {
    return arith::AndIOp::create(b, loc, x, y).getResult();
  };
  auto select = [&](Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y).getResult();
  };
  Value zero = e.cst(0), lengthV = e.cst(length);
  Value loopExtent = e.cst(read.loopExtent);
  Value inputSize = e.cst(read.inputSize);
  // windowStart (Core/Window.cpp) as index arithmetic on a group rank.
  int64_t largest =
      std::max<int64_t>(chunk(read.loopExtent, parts, 0).size, 1);
  int64_t anchor = read.offset + read.lowSpan +
                   (read.stride < 0 ? read.stride * (largest - 1) : 0);
  auto startOf = [&](Value rank) {
    return add(mul(e.chunk(loopExtent, parts, rank).first, read.stride),
               e.cst(anchor));
  };
  auto shareOf = [&](Value rank) {
    return e.chunk(loopExtent, parts, rank).second;
  };
  Value lo = startOf(g), hi = add(lo, lengthV);
  SmallVector<Value> windowDims(localDims);
  windowDims[dim] = lengthV;
  RankedTensorType windowType = withDim(localType, dim, length);
  Value win;
  if (fill) {
    SmallVector<Value> dynamic;
    for (int64_t i = 0; i < windowType.getRank(); ++i)
      if (windowType.isDynamicDim(i))
        dynamic.push_back(windowDims[i]);
    win = tensor::SplatOp::create(b, loc, fill, windowType, dynamic);
  } else {
    win = e.zeros(windowType, [&](int64_t i) { return windowDims[i]; });
  }
  // Copies [start, start + size) of the dim, held by `src` (sizes
  // `srcDims`, its dim starting at global index `srcStart`), into the window.
  auto place = [&](Value src, ArrayRef<Value> srcDims, Value srcStart,
                   Value start, Value size) {
    Value piece = cut(src, srcDims,
                      clamp(sub(start, srcStart), zero, srcDims[dim]), size);
    win = e.insert(piece, win, {{dim, clamp(sub(start, lo), zero, lengthV)}});
  };
  auto overlap = [&](Value aLo, Value aHi, Value bLo, Value bHi) {
    Value start = maxOf(aLo, bLo);
    return std::make_pair(start, maxOf(sub(minOf(aHi, bHi), start), zero));
  };

  if (!sharded) {
    auto [start, size] = overlap(lo, hi, zero, inputSize);
    place(local, localDims, zero, start, size);
  } else {
    auto [ownStart, ownSize] = e.chunk(inputSize, parts, g);
    Value ownEnd = add(ownStart, ownSize);
    {
      auto [start, size] = overlap(lo, hi, ownStart, ownEnd);
      place(local, localDims, ownStart, start, size);
    }
    Value last = e.cst(parts - 1);
    Value iRead = cmp(arith::CmpIPredicate::sgt, shareOf(g), zero);
    for (auto [shift, maxPiece] : shifts) {
      // Send to t = g - shift the part of its window this rank owns.
      Value t = sub(g, e.cst(shift));
      Value tc = clamp(t, zero, last);
      Value tReads =
          both(both(cmp(arith::CmpIPredicate::sge, t, zero),
                    cmp(arith::CmpIPredicate::sle, t, last)),
               cmp(arith::CmpIPredicate::sgt, shareOf(tc), zero));
      Value tLo = startOf(tc);
      auto [sendStart, sendSize] =
          overlap(tLo, add(tLo, lengthV), ownStart, ownEnd);
      sendSize = select(tReads, sendSize, zero);
      Value piece = cut(local, localDims,
                        clamp(sub(sendStart, ownStart), zero, ownSize),
                        sendSize);
      SmallVector<Value> bufferDims(localDims);
      bufferDims[dim] = e.cst(maxPiece);
      RankedTensorType bufferType = withDim(localType, dim, maxPiece);
      Value buffer = e.insert(
          piece,
          e.zeros(bufferType, [&](int64_t i) { return bufferDims[i]; }), {});
      SmallVector<int64_t> pairs;
      for (int64_t h = 0; h < parts; ++h)
        if (h - shift >= 0 && h - shift < parts)
          pairs.append({h, h - shift});
      Value received =
          PermuteOp::create(b, loc, bufferType, buffer, mesh, meshDims, pairs);
      // Receive from h = g + shift the part of this rank's window it owns.
      Value h = add(g, e.cst(shift));
      Value hValid = both(cmp(arith::CmpIPredicate::sge, h, zero),
                          cmp(arith::CmpIPredicate::sle, h, last));
      auto [hStart, hSize] = e.chunk(inputSize, parts, clamp(h, zero, last));
      auto [start, size] = overlap(lo, hi, hStart, add(hStart, hSize));
      size = select(both(hValid, iRead), size, zero);
      place(received, bufferDims, start, start, size);
    }
  }
  // A plain shift (`i + c`) becomes a plain index locally, which linalg
  // reads at the loop's own extent: cut the window to this rank's share.
  if (read.stride == 1 && read.lowSpan == 0 && read.highSpan == 0 &&
      localIndexOffset(read, parts) == 0)
    win = cut(win, windowDims, zero, shareOf(g));
  return win;
}
