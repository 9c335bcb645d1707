//===- CommReport.cpp - count each function's collectives ------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// A compile-time CommDebugMode: per function, the dtensor collectives by
// kind, with their count, the bytes each rank moves, and the mesh dims of
// their groups. The counts are static: an op in a loop body counts once.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <limits>
#include <optional>

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORCOMMREPORTPASS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

/// The kinds in the order the report lists them.
static constexpr std::array<StringLiteral, 6> kKinds = {
    "all_gather", "all_reduce", "reduce_scatter",
    "all_to_all", "broadcast",  "permute"};

namespace {
/// What the report needs of one collective op.
struct Collective {
  size_t kind;
  /// Bytes per rank, or nullopt when a shape (or element size) is unknown.
  std::optional<int64_t> bytes;
  bool async;
  FlatSymbolRefAttr mesh;
  ArrayRef<int64_t> meshDims;
  /// How many times it runs per call of its function: the product of the
  /// static trip counts of the loops around it.
  int64_t times = 1;
  /// Whether a loop around it has no static trip count (then counted as if
  /// that loop ran once).
  bool unknownTrips = false;
};

/// The groups one kind runs over: mesh dims (as the op lists them) of a mesh.
struct Group {
  FlatSymbolRefAttr mesh;
  SmallVector<int64_t> meshDims;
  bool operator==(const Group &o) const {
    return mesh == o.mesh && meshDims == o.meshDims;
  }
};

struct KindStats {
  int64_t count = 0;
  int64_t bytes = 0;
  int64_t dynamic = 0;
  int64_t async = 0;
  /// Collective ops in loops of unknown trip count (each counted per
  /// known-trip iteration only).
  int64_t unknownLoops = 0;
  /// Distinct groups, in order of first use.
  SmallVector<Group> groups;

  void add(const Collective &c) {
    count += c.times;
    if (c.bytes)
      bytes += *c.bytes * c.times;
    else
      dynamic += c.times;
    if (c.async)
      async += c.times;
    if (c.unknownTrips)
      ++unknownLoops;
    Group group{c.mesh, SmallVector<int64_t>(c.meshDims)};
    if (!llvm::is_contained(groups, group))
      groups.push_back(std::move(group));
  }
};

struct FunctionStats {
  std::array<KindStats, kKinds.size()> kinds;
  /// Why the function has no collectives yet, if it is not compiled that
  /// far (a report before the passes that make them says so).
  std::string notYet;

  KindStats total() const {
    KindStats t;
    for (const KindStats &k : kinds) {
      t.count += k.count;
      t.bytes += k.bytes;
      t.dynamic += k.dynamic;
      t.async += k.async;
      t.unknownLoops += k.unknownLoops;
    }
    return t;
  }
};
} // namespace

/// Bytes of one element, rounding sub-byte widths up (i1 takes a byte), or
/// nullopt for element types without a fixed size.
static std::optional<int64_t> elementBytes(Type type) {
  if (llvm::isa<IndexType>(type))
    return IndexType::kInternalStorageBitWidth / 8;
  if (type.isIntOrFloat())
    return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
  if (auto complex = llvm::dyn_cast<ComplexType>(type)) {
    std::optional<int64_t> part = elementBytes(complex.getElementType());
    return part ? std::optional<int64_t>(2 * *part) : std::nullopt;
  }
  return std::nullopt;
}

static std::optional<int64_t> tensorBytes(RankedTensorType type) {
  std::optional<int64_t> element = elementBytes(type.getElementType());
  if (!element || !type.hasStaticShape())
    return std::nullopt;
  return *element * type.getNumElements();
}

/// The collective `op` is, if it is one.
static std::optional<Collective> getCollective(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<Collective>>(op)
      .Case<AllGatherOp, AllReduceOp, ReduceScatterOp, AllToAllOp, BroadcastOp,
            PermuteOp>([](auto c) -> std::optional<Collective> {
        StringRef name = c->getName().stripDialect();
        size_t kind = llvm::find(kKinds, name) - kKinds.begin();
        assert(kind < kKinds.size() && "collective missing from kKinds");
        std::optional<int64_t> in = tensorBytes(c.getInput().getType());
        std::optional<int64_t> out = tensorBytes(c.getResultTensorType());
        std::optional<int64_t> bytes;
        if (in && out)
          bytes = std::max(*in, *out);
        return Collective{kind, bytes, c.isAsync(),
                          c.getMesh().getType().getMesh(), c.getMeshDims()};
      })
      .Default([](Operation *) { return std::nullopt; });
}

namespace {
struct DTensorCommReportPass
    : public dtensor::impl::DTensorCommReportPassBase<DTensorCommReportPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyDistributedTypes(getOperation())))
      return signalPassFailure();

    // Functions in module order; a collective belongs to its innermost one.
    llvm::MapVector<Operation *, FunctionStats> functions;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto fn = llvm::dyn_cast<FunctionOpInterface>(op)) {
        if (!fn.isExternal())
          functions[op];
        return;
      }
      if (auto fn = op->getParentOfType<FunctionOpInterface>()) {
        std::string &why = functions[fn.getOperation()].notYet;
        auto global = [](Type t) {
          auto tensor = llvm::dyn_cast<RankedTensorType>(t);
          return tensor && getSpec(tensor);
        };
        if (llvm::isa<ReshardOp, RedistributeOp>(op) ||
            llvm::any_of(op->getResultTypes(), global) ||
            llvm::any_of(op->getOperandTypes(), global))
          why = llvm::isa<ReshardOp>(op) && why.empty()
                    ? "its redistributes are not lowered to collectives yet "
                      "(run --dtensor-lower-redistribute, or --dtensor-compile)"
                    : "it is still in the global view: collectives appear "
                      "after --dtensor-partition and "
                      "--dtensor-lower-redistribute (or --dtensor-compile)";
      }
      std::optional<Collective> c = getCollective(op);
      if (!c)
        return;
      for (Operation *p = op->getParentOp();
           p && !llvm::isa<FunctionOpInterface>(p); p = p->getParentOp()) {
        auto loop = llvm::dyn_cast<LoopLikeOpInterface>(p);
        if (!loop)
          continue;
        std::optional<APInt> trips = loop.getStaticTripCount();
        if (!trips || trips->getActiveBits() > 62) {
          c->unknownTrips = true;
          continue;
        }
        std::optional<int64_t> times =
            llvm::checkedMul(c->times, int64_t(trips->getZExtValue()));
        c->times = times ? *times : std::numeric_limits<int64_t>::max();
      }
      if (auto fn = op->getParentOfType<FunctionOpInterface>())
        functions[fn.getOperation()].kinds[c->kind].add(*c);
    });

    SymbolTableCollection symbols;
    raw_ostream &os = llvm::errs();
    if (json)
      printJson(os, functions, symbols);
    else
      printText(os, functions, symbols);
    os.flush();
    markAllAnalysesPreserved();
  }

private:
  /// The mesh symbol behind `group`, or null when it does not resolve (then
  /// dims print as indices).
  MeshOp lookupMesh(Operation *fn, const Group &group,
                    SymbolTableCollection &symbols) {
    return symbols.lookupNearestSymbolFrom<MeshOp>(fn, group.mesh);
  }

  void printJson(raw_ostream &os,
                 const llvm::MapVector<Operation *, FunctionStats> &functions,
                 SymbolTableCollection &symbols) {
    auto str = [&](StringRef s) { os << llvm::json::Value(s.str()); };
    auto counts = [&](const KindStats &k) {
      os << "\"count\": " << k.count << ", \"bytes\": " << k.bytes
         << ", \"dynamic\": " << k.dynamic << ", \"async\": " << k.async
         << ", \"in_unknown_loops\": " << k.unknownLoops;
    };
    os << "{\"functions\": [";
    llvm::ListSeparator fnSep;
    for (const auto &[op, stats] : functions) {
      os << fnSep << "{\"name\": ";
      str(llvm::cast<FunctionOpInterface>(op).getName());
      if (!stats.notYet.empty()) {
        os << ", \"not_yet\": ";
        str(stats.notYet);
      }
      os << ", \"collectives\": {";
      llvm::ListSeparator kindSep;
      for (auto [kind, k] : llvm::enumerate(stats.kinds)) {
        if (!k.count)
          continue;
        os << kindSep;
        str(kKinds[kind]);
        os << ": {";
        counts(k);
        // mesh_dims[i] are dims of meshes[i].
        os << ", \"mesh_dims\": [";
        llvm::interleaveComma(k.groups, os, [&](const Group &group) {
          MeshOp mesh = lookupMesh(op, group, symbols);
          bool named = mesh && mesh.getNames();
          os << "[";
          llvm::interleaveComma(group.meshDims, os, [&](int64_t d) {
            if (named)
              str(mesh.getDimName(d));
            else
              os << d;
          });
          os << "]";
        });
        os << "], \"meshes\": [";
        llvm::interleaveComma(k.groups, os, [&](const Group &group) {
          str(group.mesh.getValue());
        });
        os << "]}";
      }
      os << "}, \"total\": {";
      counts(stats.total());
      os << "}}";
    }
    os << "]}\n";
  }

  void printText(raw_ostream &os,
                 const llvm::MapVector<Operation *, FunctionStats> &functions,
                 SymbolTableCollection &symbols) {
    auto plural = [](int64_t n, StringRef word) {
      return std::to_string(n) + " " + word.str() + (n == 1 ? "" : "s");
    };
    auto dynamicText = [](const KindStats &k) {
      return k.dynamic ? " + " + std::to_string(k.dynamic) + " of dynamic size"
                       : std::string();
    };
    auto asyncText = [](const KindStats &k) {
      return k.async ? "(" + std::to_string(k.async) + " async)"
                     : std::string();
    };

    for (const auto &[op, stats] : functions) {
      os << "func @" << llvm::cast<FunctionOpInterface>(op).getName() << ": ";
      KindStats total = stats.total();
      if (!total.count) {
        if (stats.notYet.empty())
          os << "no collectives\n";
        else
          os << "no collectives yet: " << stats.notYet << "\n";
        continue;
      }
      os << plural(total.count, "collective") << ", " << total.bytes
         << " bytes/rank" << dynamicText(total);
      if (total.async)
        os << " " << asyncText(total);
      if (total.unknownLoops)
        os << "; " << plural(total.unknownLoops, "collective op")
           << " in loops of unknown trip count, counted once per such loop";
      os << "\n";

      // Columns as wide as this function's widest entry.
      size_t countWidth = 0, bytesWidth = 0, dynamicWidth = 0;
      for (const KindStats &k : stats.kinds) {
        if (!k.count)
          continue;
        countWidth = std::max(countWidth, std::to_string(k.count).size());
        bytesWidth = std::max(bytesWidth, std::to_string(k.bytes).size());
        dynamicWidth = std::max(dynamicWidth, dynamicText(k).size());
      }
      for (auto [kind, k] : llvm::enumerate(stats.kinds)) {
        if (!k.count)
          continue;
        os << "  " << llvm::left_justify(kKinds[kind], 14) << "  "
           << llvm::right_justify(std::to_string(k.count), countWidth) << "  "
           << llvm::right_justify(std::to_string(k.bytes), bytesWidth)
           << " bytes" << llvm::left_justify(dynamicText(k), dynamicWidth)
           << "  ";
        // Groups of one mesh together: `mesh @m dims [..], [..]; @n dims ..`.
        llvm::MapVector<Attribute, SmallVector<const Group *>> byMesh;
        for (const Group &group : k.groups)
          byMesh[group.mesh].push_back(&group);
        os << "mesh ";
        llvm::ListSeparator meshSep("; ");
        for (const auto &[meshAttr, groups] : byMesh) {
          os << meshSep << llvm::cast<FlatSymbolRefAttr>(meshAttr) << " dims ";
          MeshOp mesh = lookupMesh(op, *groups.front(), symbols);
          bool named = mesh && mesh.getNames();
          llvm::interleaveComma(groups, os, [&](const Group *group) {
            os << "[";
            llvm::interleaveComma(group->meshDims, os, [&](int64_t d) {
              if (named)
                os << llvm::json::Value(mesh.getDimName(d));
              else
                os << d;
            });
            os << "]";
          });
        }
        if (k.async)
          os << "  " << asyncText(k);
        os << "\n";
      }
    }
  }
};
} // namespace
