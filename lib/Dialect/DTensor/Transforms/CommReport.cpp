//===- CommReport.cpp - count each function's collectives ------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// A compile-time CommDebugMode: per function, the dtensor collectives by
// kind, with their count, the bytes each rank moves, and the mesh dims of
// their groups; ops in loops count once per static trip. And a modeled step
// time per rank: the function replayed on a compute and a communication
// stream (StepModel below).
//
//===----------------------------------------------------------------------===//

#include <cmath>

#include "dtensor/Core/Redistribute.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "dtensor/Dialect/DTensor/Transforms/Propagation.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
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

/// A function's modeled time per rank, in microseconds.
struct StepTime {
  /// From the first op's start to the last op's end.
  double step = 0;
  /// Busy time of each stream.
  double compute = 0, comm = 0;
  /// Ops whose size is not static (not counted).
  int64_t unknown = 0;
};

struct FunctionStats {
  std::array<KindStats, kKinds.size()> kinds;
  /// Why the function has no collectives yet, if it is not compiled that
  /// far (a report before the passes that make them says so).
  std::string notYet;
  /// The modeled step time (compiled functions only).
  std::optional<StepTime> modeled;

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
/// Replays a compiled function in program order on two streams. A compute
/// op starts when the compute stream is free and its operands are ready and
/// takes the roofline time of its floating-point work and bytes; a
/// synchronous collective holds both streams; an asynchronous start runs on
/// the communication stream once its input is ready, and its wait holds the
/// compute stream until it is done. Loops take their static trip count
/// times one replayed trip (one trip when unknown), an scf.if its slower
/// branch, a call its callee's step.
class StepModel {
public:
  StepModel(const CostModel &cost, double flopsPerUs, double bytesPerUs,
            SymbolTableCollection &symbols)
      : cost(cost), flopsPerUs(flopsPerUs), bytesPerUs(bytesPerUs),
        symbols(symbols) {}

  StepTime ofFunction(FunctionOpInterface fn) {
    auto it = functions.find(fn.getOperation());
    if (it != functions.end())
      return it->second;
    functions[fn.getOperation()] = StepTime(); // recursion: count nothing
    State s;
    for (Block &b : fn.getFunctionBody())
      run(b, s);
    StepTime t{std::max(s.computeAt, s.commAt), s.computeBusy, s.commBusy,
               s.unknown};
    functions[fn.getOperation()] = t;
    return t;
  }

private:
  struct State {
    double computeAt = 0, commAt = 0, computeBusy = 0, commBusy = 0;
    int64_t unknown = 0;
    llvm::DenseMap<Value, double> ready;
    double readyOf(Value v) const {
      auto it = ready.find(v);
      return it == ready.end() ? 0 : it->second;
    }
    double operandsReady(Operation *op) const {
      double t = 0;
      for (Value v : op->getOperands())
        t = std::max(t, readyOf(v));
      return t;
    }
    void results(Operation *op, double t) {
      for (Value r : op->getResults())
        ready[r] = t;
    }
  };

  void run(Block &block, State &s) {
    for (Operation &op : block)
      runOp(&op, s);
  }

  /// When every value `op`'s regions read from outside is ready.
  static double readyAbove(Operation *op, const State &s) {
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(op->getRegions(), above);
    double t = 0;
    for (Value v : above)
      t = std::max(t, s.readyOf(v));
    return t;
  }

  /// Runs `region`'s first block from `start` in a fresh state that sees
  /// `outer`'s ready times; returns it.
  State sub(Region &region, const State &outer, double start) {
    State s;
    s.ready = outer.ready;
    s.computeAt = s.commAt = start;
    if (!region.empty())
      run(region.front(), s);
    return s;
  }

  void runOp(Operation *op, State &s) {
    if (std::optional<Collective> c = getCollective(op)) {
      double t = commTime(op, *c, s);
      double input = s.readyOf(op->getOperand(0));
      if (c->async) {
        double start = std::max(s.commAt, input);
        s.commAt = start + t;
        s.results(op, s.commAt);
      } else {
        double start = std::max({s.computeAt, s.commAt, input});
        s.computeAt = s.commAt = start + t;
        s.results(op, s.computeAt);
      }
      s.commBusy += t;
      return;
    }
    if (llvm::isa<WaitOp>(op)) {
      s.computeAt = std::max(s.computeAt, s.operandsReady(op));
      s.results(op, s.computeAt);
      return;
    }
    if (auto loop = llvm::dyn_cast<LoopLikeOpInterface>(op);
        loop && op->getNumRegions() > 0 && !llvm::isa<linalg::LinalgOp>(op)) {
      double start = std::max({s.computeAt, s.commAt, s.operandsReady(op),
                               readyAbove(op, s)});
      int64_t trips = 1;
      if (std::optional<APInt> n = loop.getStaticTripCount();
          n && n->getActiveBits() < 62)
        trips = int64_t(n->getZExtValue());
      double length = 0, compute = 0, comm = 0;
      for (Region &r : op->getRegions()) {
        State body = sub(r, s, start);
        length += std::max(body.computeAt, body.commAt) - start;
        compute += body.computeBusy;
        comm += body.commBusy;
        s.unknown += body.unknown;
      }
      s.computeAt = s.commAt = start + length * double(trips);
      s.computeBusy += compute * double(trips);
      s.commBusy += comm * double(trips);
      s.results(op, s.computeAt);
      return;
    }
    if (llvm::isa<scf::IfOp, scf::IndexSwitchOp>(op)) {
      double start = std::max({s.computeAt, s.commAt, s.operandsReady(op)});
      State slowest;
      bool any = false;
      for (Region &r : op->getRegions()) {
        State branch = sub(r, s, start);
        if (!any || std::max(branch.computeAt, branch.commAt) >
                        std::max(slowest.computeAt, slowest.commAt))
          slowest = std::move(branch);
        any = true;
      }
      if (any) {
        s.computeAt = slowest.computeAt;
        s.commAt = slowest.commAt;
        s.computeBusy += slowest.computeBusy;
        s.commBusy += slowest.commBusy;
        s.unknown += slowest.unknown;
      }
      s.results(op, std::max(s.computeAt, s.commAt));
      return;
    }
    if (auto call = llvm::dyn_cast<CallOpInterface>(op)) {
      auto callee = llvm::dyn_cast_or_null<FunctionOpInterface>(
          call.resolveCallableInTable(&symbols));
      double start = std::max({s.computeAt, s.commAt, s.operandsReady(op)});
      if (callee && !callee.isExternal()) {
        StepTime t = ofFunction(callee);
        s.computeAt = s.commAt = start + t.step;
        s.computeBusy += t.compute;
        s.commBusy += t.comm;
        s.unknown += t.unknown;
      }
      s.results(op, std::max(s.computeAt, s.commAt));
      return;
    }
    std::optional<double> t = computeTime(op);
    if (!t) {
      ++s.unknown;
      t = 0;
    }
    double start = std::max(s.computeAt, s.operandsReady(op));
    s.computeAt = start + *t;
    s.computeBusy += *t;
    s.results(op, s.computeAt);
  }

  /// The roofline time of a compute op; nullopt when a size is not static.
  std::optional<double> computeTime(Operation *op) {
    // Views, fresh tensors and terminators move no data.
    if (op->hasTrait<OpTrait::IsTerminator>() ||
        llvm::isa<tensor::EmptyOp, tensor::ExpandShapeOp,
                  tensor::CollapseShapeOp, tensor::ReshapeOp,
                  tensor::ExtractSliceOp, tensor::CastOp>(op))
      return 0.0;
    double bytes = 0;
    bool tensors = false;
    for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
      auto tensor = llvm::dyn_cast<RankedTensorType>(t);
      if (!tensor)
        continue;
      tensors = true;
      std::optional<int64_t> b = tensorBytes(tensor);
      if (!b)
        return std::nullopt;
      bytes += double(*b);
    }
    if (!tensors)
      return 0.0;
    std::optional<double> flops = linalgFlops(op);
    if (!flops)
      return std::nullopt;
    return std::max(*flops / flopsPerUs, bytes / bytesPerUs);
  }

  /// The cost model's time of collective `c` (`op`); 0 when its mesh does
  /// not resolve or its size is unknown.
  double commTime(Operation *op, const Collective &c, State &s) {
    MeshOp mesh = symbols.lookupNearestSymbolFrom<MeshOp>(op, c.mesh);
    if (!mesh) {
      ++s.unknown;
      return 0;
    }
    // A buffer of dynamic size (an uneven shard's piece) is counted at its
    // latency: the time of an empty buffer, a lower bound.
    if (!c.bytes)
      ++s.unknown;
    int64_t bytes = c.bytes.value_or(0);
    Shape shape(mesh.getShape().begin(), mesh.getShape().end());
    std::vector<LinkParams> links = cost.links(shape);
    int64_t group = 1;
    LinkParams link{0, std::numeric_limits<double>::infinity()};
    for (int64_t d : c.meshDims) {
      if (d < 0 || d >= int64_t(shape.size()))
        return 0;
      group *= shape[d];
      if (links[d].bandwidthGBs < link.bandwidthGBs)
        link = links[d];
    }
    if (group <= 1)
      return 0;
    StringRef kind = kKinds[c.kind];
    auto ring = [&](StepKind k) {
      return cost.collectiveTimeUs(k, group, link, bytes);
    };
    if (kind == "all_gather")
      return ring(StepKind::AllGather);
    if (kind == "all_reduce")
      return ring(StepKind::AllReduce);
    if (kind == "reduce_scatter")
      return ring(StepKind::ReduceScatter);
    if (kind == "all_to_all")
      return ring(StepKind::AllToAll);
    // A broadcast passes the buffer down a ring; a permute sends it to one
    // peer.
    return cost.pointToPointTimeUs(link, bytes,
                                   kind == "broadcast" ? group - 1 : 1);
  }

  const CostModel &cost;
  double flopsPerUs, bytesPerUs;
  SymbolTableCollection &symbols;
  llvm::DenseMap<Operation *, StepTime> functions;
};
} // namespace

namespace {
struct DTensorCommReportPass
    : public dtensor::impl::DTensorCommReportPassBase<DTensorCommReportPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Option values that mean nothing are errors (a NaN rate printed NaN
    // in the JSON; zero or negative rates were clamped to 1e-9 silently).
    auto positive = [&](StringRef name, double v) {
      if (v > 0 && !std::isinf(v))
        return true;
      module.emitError() << "dtensor-comm-report: " << name
                         << " must be a positive, finite number, not " << v;
      return false;
    };
    if (!positive("peak-tflops", peakTflops) ||
        !positive("memory-gbs", memoryGbs))
      return signalPassFailure();
    if (devicesPerHost <= 0) {
      module.emitError()
          << "dtensor-comm-report: devices-per-host must be positive, not "
          << int64_t(devicesPerHost);
      return signalPassFailure();
    }
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
    CostModel cost;
    if (devicesPerHost > 0)
      cost.devicesPerHost = devicesPerHost;
    StepModel stepModel(cost, double(peakTflops) * 1e6,
                        double(memoryGbs) * 1e3, symbols);
    for (auto &[op, stats] : functions)
      if (model && stats.notYet.empty())
        stats.modeled = stepModel.ofFunction(llvm::cast<FunctionOpInterface>(op));
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
      os << "}";
      if (stats.modeled) {
        const StepTime &t = *stats.modeled;
        // Microseconds to 3 decimals, written as JSON parsers print them
        // back (no trailing zeros).
        auto us = [](double v) {
          std::string text = llvm::formatv("{0:F3}", v).str();
          while (text.back() == '0' && text[text.size() - 2] != '.')
            text.pop_back();
          return text;
        };
        os << ", \"modeled\": {\"step_us\": " << us(t.step)
           << ", \"compute_us\": " << us(t.compute)
           << ", \"comm_us\": " << us(t.comm)
           << ", \"hidden_us\": " << us(hiddenOf(t))
           << ", \"unknown_ops\": " << t.unknown << "}";
      }
      os << "}";
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
        printModeled(os, stats);
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
      printModeled(os, stats);
    }
  }

  /// Communication time the compute stream did not wait for.
  static double hiddenOf(const StepTime &t) {
    return std::max(0.0, t.compute + t.comm - t.step);
  }

  static void printModeled(raw_ostream &os, const FunctionStats &stats) {
    if (!stats.modeled)
      return;
    const StepTime &t = *stats.modeled;
    os << "  modeled step: " << llvm::format("%.1f", t.step)
       << " us per rank (compute " << llvm::format("%.1f", t.compute)
       << " us, communication " << llvm::format("%.1f", t.comm) << " us, "
       << llvm::format("%.1f", hiddenOf(t)) << " us of it hidden)";
    if (t.unknown)
      os << "; " << t.unknown
         << " op(s) of dynamic size (compute not counted, collectives at "
            "their latency)";
    os << "\n";
  }
};
} // namespace

std::optional<double> mlir::dtensor::linalgFlops(Operation *op) {
  auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return 0.0;
  double points = 1;
  for (int64_t n : linalgOp.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(n))
      return std::nullopt;
    points *= double(n);
  }
  int64_t perPoint = 0;
  op->walk([&](Operation *inner) {
    if (inner != op && inner->getNumResults() == 1 &&
        llvm::isa<FloatType>(inner->getResult(0).getType()) &&
        inner->getNumOperands() > 0)
      ++perPoint;
  });
  return points * double(perPoint);
}
