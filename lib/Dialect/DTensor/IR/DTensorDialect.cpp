//===- DTensorDialect.cpp - dtensor dialect, attributes and types ---------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/IR/DTensor.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::dtensor;

#include "dtensor/Dialect/DTensor/IR/DTensorDialect.cpp.inc"

#include "dtensor/Dialect/DTensor/IR/DTensorEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dtensor/Dialect/DTensor/IR/DTensorAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dtensor/Dialect/DTensor/IR/DTensorTypes.cpp.inc"

void DTensorDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dtensor/Dialect/DTensor/IR/DTensorAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "dtensor/Dialect/DTensor/IR/DTensorTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dtensor/Dialect/DTensor/IR/DTensorOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Size bounds
//===----------------------------------------------------------------------===//

std::optional<int64_t> mlir::dtensor::getElementByteSize(Type type) {
  // The parser verifies an encoding before it knows a malformed element
  // type: null here.
  if (!type)
    return std::nullopt;
  if (llvm::isa<IndexType>(type))
    return 8;
  if (type.isIntOrFloat())
    return (int64_t(type.getIntOrFloatBitWidth()) + 7) / 8;
  if (auto complex = llvm::dyn_cast<ComplexType>(type))
    if (std::optional<int64_t> part =
            getElementByteSize(complex.getElementType()))
      return 2 * *part;
  return std::nullopt;
}

LogicalResult mlir::dtensor::verifyTensorSizeFits(
    ArrayRef<int64_t> shape, Type elementType,
    llvm::function_ref<InFlightDiagnostic()> emitError) {
  // Dynamic dims are counted at run time; the static ones must fit already.
  std::optional<int64_t> elements = 1;
  for (int64_t size : shape)
    if (!ShapedType::isDynamic(size) && elements)
      elements = llvm::checkedMul(*elements, size);
  if (!elements) {
    std::string dims;
    for (int64_t size : shape)
      dims += (dims.empty() ? "" : "x") + (ShapedType::isDynamic(size)
                                               ? std::string("?")
                                               : std::to_string(size));
    return emitError() << "a tensor of shape " << dims
                       << " has more elements than fit in a signed 64-bit "
                          "integer (at most "
                       << INT64_MAX
                       << "), which sizes and offsets are computed in; use "
                          "smaller dims";
  }
  std::optional<int64_t> bytes = getElementByteSize(elementType);
  if (bytes && !llvm::checkedMul(*elements, *bytes))
    return emitError() << "a tensor of " << *elements << " " << elementType
                       << " elements holds more bytes than fit in a signed "
                          "64-bit integer (at most "
                       << INT64_MAX
                       << "), which communication is counted in; use "
                          "smaller dims";
  return success();
}

//===----------------------------------------------------------------------===//
// Mesh views
//===----------------------------------------------------------------------===//

ParseResult mlir::dtensor::parseMeshViewRef(AsmParser &parser,
                                            FlatSymbolRefAttr &mesh,
                                            SmallVectorImpl<int64_t> &dims,
                                            bool &flattened) {
  Attribute attr;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseAttribute(attr))
    return failure();
  mesh = llvm::dyn_cast<FlatSymbolRefAttr>(attr);
  if (!mesh)
    return parser.emitError(loc, "expected a mesh symbol such as @mesh");
  flattened = false;
  if (failed(parser.parseOptionalLSquare()))
    return success();
  flattened = succeeded(parser.parseOptionalLParen());
  if (parser.parseCommaSeparatedList([&]() -> ParseResult {
        int64_t d;
        if (parser.parseInteger(d))
          return failure();
        dims.push_back(d);
        return success();
      }))
    return failure();
  if (flattened && parser.parseRParen())
    return failure();
  return parser.parseRSquare();
}

void mlir::dtensor::printMeshViewRef(AsmPrinter &printer,
                                     const MeshViewRef &view) {
  printer.printAttributeWithoutType(view.mesh);
  if (view.dims.empty())
    return;
  printer << "[";
  if (view.flattened)
    printer << "(";
  llvm::interleaveComma(view.dims, printer);
  if (view.flattened)
    printer << ")";
  printer << "]";
}

/// Checks the parts of a view that need no mesh: dims non-negative, strictly
/// increasing, and present when flattened.
static LogicalResult
verifyViewDims(ArrayRef<int64_t> dims, bool flattened,
               llvm::function_ref<InFlightDiagnostic()> emitError) {
  if (flattened && dims.empty())
    return emitError() << "a flattened mesh view needs the dims it flattens, "
                          "as in @mesh[(0, 1)]";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0)
      return emitError() << "mesh dim " << dims[i] << " is negative";
    if (i && dims[i] <= dims[i - 1])
      return emitError() << "mesh dims of a view must be unique and in mesh "
                            "order (ascending), got ["
                         << dims << "]";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// DeviceMeshType
//===----------------------------------------------------------------------===//

Type DeviceMeshType::parse(AsmParser &parser) {
  FlatSymbolRefAttr mesh;
  SmallVector<int64_t> dims;
  bool flattened;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parseMeshViewRef(parser, mesh, dims, flattened) ||
      parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), mesh, dims, flattened);
}

void DeviceMeshType::print(AsmPrinter &printer) const {
  printer << "<";
  printMeshViewRef(printer, getView());
  printer << ">";
}

LogicalResult
DeviceMeshType::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                       FlatSymbolRefAttr mesh, ArrayRef<int64_t> meshDims,
                       bool flattened) {
  if (!mesh)
    return emitError() << "a device mesh handle needs a mesh symbol";
  return verifyViewDims(meshDims, flattened, emitError);
}

//===----------------------------------------------------------------------===//
// SpecAttr
//===----------------------------------------------------------------------===//

static bool hasNegativeShardDim(const Placements &ps) {
  return llvm::any_of(ps, [](const Placement &p) {
    return p.isShard() && p.dim < 0;
  });
}

FailureOr<SmallVector<Placement>>
mlir::dtensor::parsePlacementList(AsmParser &parser) {
  SmallVector<Placement> placements;
  auto parseOne = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef kw;
    if (parser.parseKeyword(&kw))
      return failure();
    if (kw == "S" || kw == "Shard") {
      int64_t dim;
      if (parser.parseLParen() || parser.parseInteger(dim) ||
          parser.parseRParen())
        return failure();
      Placement p = Placement::shard(dim);
      if (succeeded(parser.parseOptionalLSquare())) {
        SMLoc orderLoc = parser.getCurrentLocation();
        if (parser.parseInteger(p.order) || parser.parseRSquare())
          return failure();
        if (p.order < 0)
          return parser.emitError(orderLoc,
                                  "a shard order position must be >= 0");
      }
      placements.push_back(p);
      return success();
    }
    if (kw == "R" || kw == "Replicate") {
      if (succeeded(parser.parseOptionalLParen()) && parser.parseRParen())
        return failure();
      placements.push_back(Placement::replicate());
      return success();
    }
    if (kw == "P" || kw == "Partial") {
      Placement p = Placement::partial(ReduceKind::Sum);
      if (succeeded(parser.parseOptionalLParen()) &&
          failed(parser.parseOptionalRParen())) {
        SMLoc nameLoc = parser.getCurrentLocation();
        StringRef name;
        if (parser.parseKeyword(&name))
          return failure();
        std::optional<ReduceKind> kind = parseReduceKind(name.str());
        if (!kind)
          return parser.emitError(nameLoc)
                 << "unknown Partial reduction '" << name
                 << "' (expected sum, avg, max, min or product)";
        p.reduce = *kind;
        if (parser.parseRParen())
          return failure();
      }
      placements.push_back(p);
      return success();
    }
    return parser.emitError(loc) << "expected a placement: S(d), R or P(op), "
                                    "got '"
                                 << kw << "'";
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseOne))
    return failure();
  // One spelling per layout: an explicit order equal to the default is
  // dropped. Invalid orders are left for the verifier to report.
  // Without the rank, S(-1) and S(1) cannot be grouped, so specs with
  // negative dims keep their orders as written until normalized.
  std::string error;
  Placements asWritten(placements.begin(), placements.end());
  if (!hasNegativeShardDim(asWritten) &&
      verifyPlacementStructure(asWritten, error)) {
    Placements canonical = dropDefaultOrders(asWritten);
    placements.assign(canonical.begin(), canonical.end());
  }
  return placements;
}

void mlir::dtensor::printPlacementList(AsmPrinter &printer,
                                       ArrayRef<Placement> placements) {
  printer << "[";
  llvm::interleaveComma(placements, printer, [&](const Placement &p) {
    printer << formatPlacement(p);
  });
  printer << "]";
}

Attribute SpecAttr::parse(AsmParser &parser, Type) {
  FlatSymbolRefAttr mesh;
  SmallVector<int64_t> dims;
  bool flattened;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parseMeshViewRef(parser, mesh, dims, flattened) ||
      parser.parseComma())
    return {};
  FailureOr<SmallVector<Placement>> placements = parsePlacementList(parser);
  if (failed(placements) || parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), mesh, dims, flattened, *placements);
}

void SpecAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printMeshViewRef(printer, getView());
  printer << ", ";
  printPlacementList(printer, getPlacements());
  printer << ">";
}

LogicalResult SpecAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                               FlatSymbolRefAttr mesh, ArrayRef<int64_t> meshDims,
                               bool flattened, ArrayRef<Placement> placements) {
  if (!mesh)
    return emitError() << "a spec needs a mesh symbol";
  if (failed(verifyViewDims(meshDims, flattened, emitError)))
    return failure();
  if (placements.empty())
    return emitError() << "a spec needs one placement per mesh dim, got none";
  // Shard orders are checked here only when every shard dim is
  // non-negative; otherwise verifyEncoding checks them once the rank is known.
  Placements ps(placements.begin(), placements.end());
  if (hasNegativeShardDim(ps))
    for (Placement &p : ps)
      p.order = -1;
  std::string error;
  if (!verifyPlacementStructure(ps, error))
    return emitError() << "placements " << formatPlacements(Placements(
                              placements.begin(), placements.end()))
                       << " " << error;
  return success();
}

LogicalResult SpecAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    llvm::function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verifyTensorSizeFits(shape, elementType, emitError)))
    return failure();
  Placements ps(getPlacements().begin(), getPlacements().end());
  int64_t rank = shape.size();
  std::string error;
  if (!verifyPlacementsForRank(ps, rank, error))
    return emitError() << "placements " << formatPlacements(ps) << ": " << error;
  if (!verifyPlacementStructure(normalizeShardDims(ps, rank), error))
    return emitError() << "placements " << formatPlacements(ps) << " " << error;
  return success();
}

Placements SpecAttr::getNormalizedPlacements(int64_t rank) const {
  Placements ps(getPlacements().begin(), getPlacements().end());
  normalizePlacementsInPlace(ps, rank);
  return ps;
}

SpecAttr mlir::dtensor::getSpec(Type type) {
  auto tensor = llvm::dyn_cast_or_null<RankedTensorType>(type);
  if (!tensor)
    return {};
  return llvm::dyn_cast_or_null<SpecAttr>(tensor.getEncoding());
}
