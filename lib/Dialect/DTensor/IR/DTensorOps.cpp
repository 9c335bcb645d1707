//===- DTensorOps.cpp - dtensor ops and their verifiers -------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/IR/DTensor.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::dtensor;

#define GET_OP_CLASSES
#include "dtensor/Dialect/DTensor/IR/DTensorOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers shared by verifiers and passes
//===----------------------------------------------------------------------===//

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

FailureOr<ResolvedMeshView>
mlir::dtensor::resolveMeshView(Operation *from, const MeshViewRef &view,
                               SymbolTableCollection &symbols,
                               llvm::function_ref<InFlightDiagnostic()> emitError) {
  auto mesh = symbols.lookupNearestSymbolFrom<MeshOp>(from, view.mesh);
  if (!mesh)
    return emitError() << "mesh " << view.mesh
                       << " is not declared; add `dtensor.mesh "
                       << view.mesh << " shape = [...]` to the module";
  ResolvedMeshView resolved;
  resolved.mesh = mesh;
  ArrayRef<int64_t> meshShape = mesh.getShape();
  // The mesh op's verifier says the same, but symbol uses can be checked
  // before it ran (or on IR built without verifying): every product of mesh
  // sizes below relies on the mesh's bound.
  std::string meshError;
  if (!verifyMeshShape(Shape(meshShape.begin(), meshShape.end()), meshError))
    return emitError() << "mesh " << view.mesh << ": " << meshError;
  if (view.dims.empty()) {
    for (int64_t d = 0, e = meshShape.size(); d < e; ++d) {
      resolved.shape.push_back(meshShape[d]);
      resolved.meshDims.push_back({d});
    }
    return resolved;
  }
  for (int64_t d : view.dims)
    if (d >= (int64_t)meshShape.size())
      return emitError() << "mesh dim " << d << " does not exist: mesh "
                         << view.mesh << " has " << meshShape.size()
                         << " dim(s)";
  if (!view.flattened && view.dims.size() == meshShape.size())
    return emitError() << "a view of every dim of " << view.mesh
                       << " in order is the mesh itself: write "
                       << view.mesh << " without dims";
  if (view.flattened) {
    int64_t size = 1;
    for (int64_t d : view.dims)
      size *= meshShape[d];
    resolved.shape.push_back(size);
    resolved.meshDims.push_back(SmallVector<int64_t>(view.dims));
    return resolved;
  }
  for (int64_t d : view.dims) {
    resolved.shape.push_back(meshShape[d]);
    resolved.meshDims.push_back({d});
  }
  return resolved;
}

FailureOr<Layout>
mlir::dtensor::verifySpecForMesh(Operation *from, SpecAttr spec, int64_t rank,
                                 SymbolTableCollection &symbols,
                                 llvm::function_ref<InFlightDiagnostic()> emitError) {
  FailureOr<ResolvedMeshView> view =
      resolveMeshView(from, spec.getView(), symbols, emitError);
  if (failed(view))
    return failure();
  Placements ps(spec.getPlacements().begin(), spec.getPlacements().end());
  std::string error;
  std::optional<Layout> layout = Layout::create(view->shape, rank, ps, error);
  if (!layout)
    return emitError() << "spec " << spec << " on mesh shape "
                       << formatShape(view->shape) << ": placements "
                       << formatPlacements(ps) << " " << error;
  return *layout;
}

LogicalResult
mlir::dtensor::verifyLocalType(RankedTensorType local, RankedTensorType global,
                               const Layout &layout,
                               llvm::function_ref<InFlightDiagnostic()> emitError) {
  if (local.getElementType() != global.getElementType())
    return emitError() << "local type " << local
                       << " has another element type than " << global;
  if (local.getRank() != global.getRank())
    return emitError() << "local type " << local << " has rank "
                       << local.getRank() << " but " << global << " has rank "
                       << global.getRank();
  Shape globalShape(global.getShape().begin(), global.getShape().end());
  bool anyDynamic = llvm::any_of(globalShape, ShapedType::isDynamic);
  for (int64_t d = 0; d < local.getRank(); ++d) {
    int64_t localSize = local.getDimSize(d);
    if (global.isDynamicDim(d)) {
      if (!ShapedType::isDynamic(localSize))
        return emitError() << "local type " << local
                           << " cannot be a shard of " << global << ": dim "
                           << d
                           << " is dynamic globally, so it must be dynamic "
                              "('?') locally";
      continue;
    }
    if (ShapedType::isDynamic(localSize))
      continue;
    // Other dims may be dynamic; the size of a static dim does not depend on
    // them, so compute on a shape where they are 0.
    Shape probe = globalShape;
    if (anyDynamic)
      for (int64_t &s : probe)
        if (ShapedType::isDynamic(s))
          s = 0;
    std::vector<int64_t> sizes = layout.distinctSizes(probe, d);
    if (sizes.size() != 1) {
      std::string list;
      for (size_t i = 0; i < sizes.size(); ++i)
        list += (i ? ", " : "") + std::to_string(sizes[i]);
      return emitError() << "local type " << local << " cannot be a shard of "
                         << global << ": dim " << d
                         << " is sharded unevenly (shard sizes " << list
                         << "), so it must be dynamic ('?') locally";
    }
    if (sizes.front() != localSize)
      return emitError() << "local type " << local << " cannot be a shard of "
                         << global << ": dim " << d << " has size "
                         << sizes.front() << " on every rank, not "
                         << localSize;
  }
  return success();
}

/// Emits at `op` through a callback the helpers above can use.
static auto errorAt(Operation *op) {
  return [op]() { return op->emitOpError(); };
}

/// Checks that a spec sits on the same mesh view as the handle operand.
static LogicalResult verifySameView(Operation *op, SpecAttr spec,
                                    DeviceMeshType mesh) {
  if (spec.getView() != mesh.getView())
    return op->emitOpError() << "spec " << spec << " is on another mesh view "
                             << "than the mesh operand " << mesh
                             << "; pass the handle of the spec's mesh";
  return success();
}

//===----------------------------------------------------------------------===//
// MeshOp
//===----------------------------------------------------------------------===//

LogicalResult MeshOp::verify() {
  Shape shape(getShape().begin(), getShape().end());
  std::string error;
  if (!verifyMeshShape(shape, error))
    return emitOpError() << error;
  if (std::optional<ArrayAttr> names = getNames()) {
    if ((int64_t)names->size() != getRank())
      return emitOpError() << "has " << names->size() << " dim name(s) for "
                           << getRank() << " dim(s); give one name per dim";
    llvm::StringSet<> seen;
    for (Attribute name : *names) {
      StringRef n = llvm::cast<StringAttr>(name).getValue();
      if (n.empty())
        return emitOpError() << "has an empty dim name";
      if (!seen.insert(n).second)
        return emitOpError() << "has dim name \"" << n
                             << "\" twice; dim names must be unique";
    }
  }
  return success();
}

std::optional<int64_t> MeshOp::getDimIndex(StringRef name) {
  if (std::optional<ArrayAttr> names = getNames())
    for (auto [i, n] : llvm::enumerate(*names))
      if (llvm::cast<StringAttr>(n).getValue() == name)
        return i;
  return std::nullopt;
}

std::string MeshOp::getDimName(int64_t dim) {
  if (std::optional<ArrayAttr> names = getNames())
    return llvm::cast<StringAttr>((*names)[dim]).getValue().str();
  return std::to_string(dim);
}

//===----------------------------------------------------------------------===//
// SubmeshOp / FlattenOp
//===----------------------------------------------------------------------===//

LogicalResult SubmeshOp::verify() {
  if (getSource().getType().getFlattened())
    return emitOpError() << "cannot take a sub-mesh of a flattened view";
  if (getDimNames().empty())
    return emitOpError() << "needs at least one dim name";
  return success();
}

LogicalResult SubmeshOp::verifySymbolUses(SymbolTableCollection &symbols) {
  DeviceMeshType source = getSource().getType();
  FailureOr<ResolvedMeshView> view =
      resolveMeshView(*this, source.getView(), symbols, errorAt(*this));
  if (failed(view))
    return failure();
  MeshOp mesh = view->mesh;
  SmallVector<int64_t> dims;
  for (Attribute attr : getDimNames()) {
    StringRef name = llvm::cast<StringAttr>(attr).getValue();
    std::optional<int64_t> dim = mesh.getDimIndex(name);
    if (!dim)
      return emitOpError() << "mesh " << source.getMesh()
                           << " has no dim named \"" << name << "\""
                           << (mesh.getNames() ? ""
                                               : " (it declares no names; add "
                                                 "`names = [...]`)");
    if (!llvm::any_of(view->meshDims,
                      [&](ArrayRef<int64_t> ds) { return ds[0] == *dim; }))
      return emitOpError() << "dim \"" << name
                           << "\" is not a dim of the operand's view";
    if (!dims.empty() && *dim <= dims.back())
      return emitOpError() << "dim names must be unique and in mesh order; "
                              "\""
                           << name << "\" comes too late";
    dims.push_back(*dim);
  }
  if ((int64_t)dims.size() == mesh.getRank())
    dims.clear();
  auto expected = DeviceMeshType::get(getContext(), source.getMesh(), dims,
                                      /*flattened=*/false);
  if (expected != getResult().getType())
    return emitOpError() << "result type should be " << expected;
  return success();
}

LogicalResult FlattenOp::verifySymbolUses(SymbolTableCollection &symbols) {
  DeviceMeshType source = getSource().getType();
  FailureOr<ResolvedMeshView> view =
      resolveMeshView(*this, source.getView(), symbols, errorAt(*this));
  if (failed(view))
    return failure();
  SmallVector<int64_t> dims;
  for (ArrayRef<int64_t> ds : view->meshDims)
    llvm::append_range(dims, ds);
  auto expected = DeviceMeshType::get(getContext(), source.getMesh(), dims,
                                      /*flattened=*/true);
  if (expected != getResult().getType())
    return emitOpError() << "result type should be " << expected;
  return success();
}

//===----------------------------------------------------------------------===//
// DTensor API ops
//===----------------------------------------------------------------------===//

LogicalResult DistributeTensorOp::verify() {
  RankedTensorType source = getSource().getType(), result = getType();
  if (source.getShape() != result.getShape() ||
      source.getElementType() != result.getElementType())
    return emitOpError() << "result type " << result
                         << " must have the shape and element type of the "
                            "source "
                         << source;
  SpecAttr spec = getSpec(result);
  if (failed(verifySameView(*this, spec, getMesh().getType())))
    return failure();
  // DTensor 2.15's distribute_tensor accepts Partial placements: the terms
  // are R -> P's (sum: t / n; avg, max, min: t).
  for (auto [m, p] : llvm::enumerate(spec.getPlacements()))
    if (p.isPartial()) {
      std::string why = transitionError(Placement::replicate(), p);
      if (!why.empty())
        return emitOpError() << "cannot distribute to " << spec
                             << ": on mesh dim " << m << ": " << why;
    }
  return success();
}

LogicalResult
DistributeTensorOp::verifySymbolUses(SymbolTableCollection &symbols) {
  RankedTensorType result = getType();
  FailureOr<Layout> layout = verifySpecForMesh(
      *this, getSpec(result), result.getRank(), symbols, errorAt(*this));
  if (failed(layout))
    return failure();
  if (std::optional<int64_t> src = getSrcRank()) {
    SpecAttr spec = getSpec(result);
    for (auto [dim, size] : llvm::enumerate(layout->mesh())) {
      if (*src < size)
        continue;
      InFlightDiagnostic diag = emitOpError()
                                << "src_rank " << *src
                                << " is the source's rank within each mesh "
                                   "dim's group, but ";
      if (spec.getMeshDims().empty())
        diag << "mesh dim " << dim;
      else if (spec.getFlattened())
        diag << "the flattened view " << spec.getMesh() << "[("
             << spec.getMeshDims() << ")]";
      else
        diag << "mesh dim " << spec.getMeshDims()[dim];
      return diag << " has only " << size << " rank(s)";
    }
  }
  return success();
}

LogicalResult FromLocalOp::verify() {
  return verifySameView(*this, getSpec(getType()), getMesh().getType());
}

LogicalResult FromLocalOp::verifySymbolUses(SymbolTableCollection &symbols) {
  RankedTensorType result = getType();
  FailureOr<Layout> layout = verifySpecForMesh(
      *this, getSpec(result), result.getRank(), symbols, errorAt(*this));
  if (failed(layout))
    return failure();
  return verifyLocalType(getLocal().getType(), result, *layout, errorAt(*this));
}

LogicalResult ToLocalOp::verify() { return success(); }

LogicalResult ToLocalOp::verifySymbolUses(SymbolTableCollection &symbols) {
  RankedTensorType source = getSource().getType();
  FailureOr<Layout> layout = verifySpecForMesh(
      *this, getSpec(source), source.getRank(), symbols, errorAt(*this));
  if (failed(layout))
    return failure();
  return verifyLocalType(getType(), source, *layout, errorAt(*this));
}

LogicalResult RedistributeOp::verify() {
  RankedTensorType source = getSource().getType(), result = getType();
  if (source.getShape() != result.getShape() ||
      source.getElementType() != result.getElementType())
    return emitOpError() << "changes the tensor (" << source << " -> "
                         << result
                         << "); redistribute keeps the shape and element type";
  SpecAttr from = getSpec(source), to = getSpec(result);
  if (failed(verifySameView(*this, from, getMesh().getType())) ||
      failed(verifySameView(*this, to, getMesh().getType())))
    return failure();
  Placements fromPs = from.getNormalizedPlacements(source.getRank());
  Placements toPs = to.getNormalizedPlacements(result.getRank());
  if (fromPs.size() != toPs.size())
    return emitOpError() << "source and result specs have "
                         << fromPs.size() << " and " << toPs.size()
                         << " placements on one mesh";
  for (size_t m = 0; m < fromPs.size(); ++m) {
    std::string error = transitionError(fromPs[m], toPs[m]);
    if (!error.empty())
      return emitOpError() << "on mesh dim " << m << ": " << error;
  }
  return success();
}

LogicalResult RedistributeOp::verifySymbolUses(SymbolTableCollection &symbols) {
  RankedTensorType source = getSource().getType();
  if (failed(verifySpecForMesh(*this, getSpec(source), source.getRank(),
                               symbols, errorAt(*this))) ||
      failed(verifySpecForMesh(*this, getSpec(getType()), source.getRank(),
                               symbols, errorAt(*this))))
    return failure();
  return success();
}

LogicalResult FullTensorOp::verify() {
  RankedTensorType source = getSource().getType(), result = getType();
  if (source.getShape() != result.getShape() ||
      source.getElementType() != result.getElementType())
    return emitOpError() << "result type " << result
                         << " must be the global tensor of " << source;
  return verifySameView(*this, getSpec(source), getMesh().getType());
}

LogicalResult FullTensorOp::verifySymbolUses(SymbolTableCollection &symbols) {
  RankedTensorType source = getSource().getType();
  return verifySpecForMesh(*this, getSpec(source), source.getRank(), symbols,
                           errorAt(*this));
}

//===----------------------------------------------------------------------===//
// LocalMapOp
//===----------------------------------------------------------------------===//

LogicalResult LocalMapOp::verify() {
  ArrayAttr specs = getInSpecs();
  if (specs.size() != getInputs().size())
    return emitOpError() << "has " << getInputs().size() << " input(s) but "
                         << specs.size() << " in_specs; give one per input";
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body takes " << body.getNumArguments()
                         << " argument(s) for " << getInputs().size()
                         << " input(s)";
  DeviceMeshType mesh = getMesh().getType();
  for (auto [i, input, attr] :
       llvm::enumerate(getInputs(), specs.getAsRange<SpecAttr>())) {
    auto type = llvm::cast<RankedTensorType>(input.getType());
    SpecAttr have = getSpec(type);
    // Each input is seen in placements on its own mesh view, as DTensor
    // applies in_placements to each input's own mesh: inputs may live on
    // other meshes than the handle's (multi-mesh local_map inputs), and
    // nothing moves a value between meshes.
    if (attr.getView() != have.getView())
      return emitOpError() << "in_specs entry " << i << " " << attr
                           << " is on another mesh view than input " << i
                           << " " << type
                           << "; give its placements on its own mesh (no "
                              "redistribution moves a value between meshes)";
    if (have.getNormalizedPlacements(type.getRank()) !=
            attr.getNormalizedPlacements(type.getRank()) &&
        !getRedistributeInputs())
      return emitOpError()
             << "input " << i << " is " << type << " but the region expects "
             << attr << "; redistribute it first or set redistribute_inputs";
    std::string error;
    if (!verifyPlacementsForRank(Placements(attr.getPlacements().begin(),
                                            attr.getPlacements().end()),
                                 type.getRank(), error))
      return emitOpError() << "in_specs entry " << i << ": " << error;
  }
  auto yield = llvm::cast<YieldOp>(body.getTerminator());
  if (yield.getValues().size() != getResults().size())
    return emitOpError() << "body yields " << yield.getValues().size()
                         << " value(s) for " << getResults().size()
                         << " result(s)";
  for (auto [i, result] : llvm::enumerate(getResults()))
    if (getSpec(result.getType()).getView() != mesh.getView())
      return emitOpError() << "result " << i
                           << " is on another mesh view than the handle";
  return success();
}

LogicalResult LocalMapOp::verifySymbolUses(SymbolTableCollection &symbols) {
  Block &body = getBody().front();
  auto yield = llvm::cast<YieldOp>(body.getTerminator());
  for (auto [i, input, attr] : llvm::enumerate(
           getInputs(), getInSpecs().getAsRange<SpecAttr>())) {
    auto global = llvm::cast<RankedTensorType>(input.getType());
    auto expected = RankedTensorType::get(global.getShape(),
                                          global.getElementType(), attr);
    FailureOr<Layout> layout = verifySpecForMesh(
        *this, attr, global.getRank(), symbols, errorAt(*this));
    if (failed(layout))
      return failure();
    auto local = llvm::dyn_cast<RankedTensorType>(body.getArgument(i).getType());
    if (!local || local.getEncoding())
      return emitOpError() << "body argument " << i
                           << " must be a local tensor";
    if (failed(verifyLocalType(local, expected, *layout, [&]() {
          return emitOpError() << "body argument " << i << ": ";
        })))
      return failure();
  }
  for (auto [i, result] : llvm::enumerate(getResults())) {
    auto global = llvm::cast<RankedTensorType>(result.getType());
    FailureOr<Layout> layout = verifySpecForMesh(
        *this, getSpec(global), global.getRank(), symbols, errorAt(*this));
    if (failed(layout))
      return failure();
    auto local = llvm::dyn_cast<RankedTensorType>(yield.getValues()[i].getType());
    if (!local || local.getEncoding())
      return emitOpError() << "must yield local tensors";
    if (failed(verifyLocalType(local, global, *layout, [&]() {
          return emitOpError() << "yielded value " << i << ": ";
        })))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// HintOp
//===----------------------------------------------------------------------===//

LogicalResult HintOp::verify() {
  RankedTensorType source = getSource().getType(), result = getType();
  if (source.getShape() != result.getShape() ||
      source.getElementType() != result.getElementType())
    return emitOpError() << "changes the tensor (" << source << " -> " << result
                         << "); a hint keeps the shape and element type";
  SpecAttr to = getSpec(result);
  if (failed(verifySameView(*this, to, getMesh().getType())))
    return failure();
  // A plain source is a value propagation gives a spec to (or, where it
  // computes from no distributed value, one distributed to the hint): a
  // Partial hint is the spec its producer should make where it can (a
  // matmul's K-sharded sum stays Partial), else the move to it.
  SpecAttr from = getSpec(source);
  if (!from)
    return success();
  if (failed(verifySameView(*this, from, getMesh().getType())))
    return failure();
  Placements fromPs = from.getNormalizedPlacements(source.getRank());
  Placements toPs = to.getNormalizedPlacements(result.getRank());
  for (size_t m = 0; m < fromPs.size() && m < toPs.size(); ++m) {
    std::string error = transitionError(fromPs[m], toPs[m]);
    if (!error.empty())
      return emitOpError() << "on mesh dim " << m << ": " << error;
  }
  return success();
}

LogicalResult HintOp::verifySymbolUses(SymbolTableCollection &symbols) {
  RankedTensorType result = getType();
  if (SpecAttr from = getSpec(getSource().getType()))
    if (failed(verifySpecForMesh(*this, from, result.getRank(), symbols,
                                 errorAt(*this))))
      return failure();
  return verifySpecForMesh(*this, getSpec(result), result.getRank(), symbols,
                           errorAt(*this));
}

//===----------------------------------------------------------------------===//
// ReshardOp
//===----------------------------------------------------------------------===//

LogicalResult ReshardOp::verify() {
  auto from = llvm::cast<RankedTensorType>(getFrom());
  SpecAttr to = getTo();
  if (failed(verifySameView(*this, getSpec(from), getMesh().getType())) ||
      failed(verifySameView(*this, to, getMesh().getType())))
    return failure();
  if (getSource().getType().getRank() != from.getRank() ||
      getType().getRank() != from.getRank() ||
      getSource().getType().getElementType() != from.getElementType() ||
      getType().getElementType() != from.getElementType())
    return emitOpError() << "local types must be shards of " << from;
  Placements fromPs = getSpec(from).getNormalizedPlacements(from.getRank());
  Placements toPs = to.getNormalizedPlacements(from.getRank());
  if (fromPs.size() != toPs.size())
    return emitOpError() << "from and to specs have " << fromPs.size()
                         << " and " << toPs.size() << " placements";
  for (size_t m = 0; m < fromPs.size(); ++m) {
    std::string error = transitionError(fromPs[m], toPs[m]);
    if (!error.empty())
      return emitOpError() << "on mesh dim " << m << ": " << error;
  }
  return success();
}

LogicalResult ReshardOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto from = llvm::cast<RankedTensorType>(getFrom());
  FailureOr<Layout> source = verifySpecForMesh(
      *this, getSpec(from), from.getRank(), symbols, errorAt(*this));
  if (failed(source) ||
      failed(verifyLocalType(getSource().getType(), from, *source,
                             errorAt(*this))))
    return failure();
  FailureOr<Layout> target = verifySpecForMesh(*this, getTo(), from.getRank(),
                                               symbols, errorAt(*this));
  if (failed(target))
    return failure();
  RankedTensorType global =
      RankedTensorType::get(from.getShape(), from.getElementType(), getTo());
  return verifyLocalType(getType(), global, *target, errorAt(*this));
}
