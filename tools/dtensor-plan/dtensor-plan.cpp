//===- dtensor-plan.cpp - ask the layout core questions from a shell ------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// `dtensor-plan layout`: where does each rank's shard of a DTensor live?
//
//   dtensor-plan layout --mesh 2x2 --shape 9x5 --placements '[S(0), S(0)]'
//
// prints one row per rank (coordinate, local shape, global offset); with
// --json, {"ranks": [{"rank": 0, "coord": [0, 0], "local_shape": [3, 5],
// "offset": [0, 0]}, ...]} in rank order.
//
// `dtensor-plan redistribute`: how does a DTensor get from one spec to
// another?
//
//   dtensor-plan redistribute --mesh 2x2 --shape 8x8 --dtype f32 \
//       --from '[S(0), S(1)]' --to '[S(1), S(0)]'
//
// prints the planned steps (collective, mesh dims, logical shape, bytes per
// rank, estimated time) and totals, next to DTensor's greedy plan. The search
// is bounded (--max-search-steps, --search-time-ms); a plan found when a
// bound stopped it is printed with a note that it may not be optimal.
//
// Sizes that cannot be counted in int64 (elements, bytes, padded buffers)
// are errors, never wrapped-around answers (docs/Layout.md).
//
// Everything is computed by the semantic core, the same code the compiler's
// verifiers and passes use.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Layout.h"
#include "dtensor/Core/Placement.h"
#include "dtensor/Core/Redistribute.h"
#include "dtensor/Support/CrashReport.h"
#include "dtensor/Support/ToolOptions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::dtensor;
namespace cl = llvm::cl;

static cl::SubCommand layoutCmd(
    "layout", "Print each rank's local shape and global offset of a DTensor");

static cl::OptionCategory layoutCat("layout options");
static cl::opt<std::string>
    meshOpt("mesh", cl::desc("Mesh shape, e.g. 2x4 (row-major ranks)"),
            cl::value_desc("AxBx..."), cl::sub(layoutCmd), cl::Required,
            cl::cat(layoutCat));
static cl::opt<std::string>
    shapeOpt("shape", cl::desc("Global tensor shape, e.g. 9x5"),
             cl::value_desc("AxBx..."), cl::sub(layoutCmd), cl::Required,
             cl::cat(layoutCat));
static cl::opt<std::string> placementsOpt(
    "placements",
    cl::desc("One placement per mesh dim: S(d), R, P(sum|avg|max|min|product);"
             " S(d)[k] gives that mesh dim's position k in dim d's shard "
             "order, e.g. '[S(0)[1], S(0)[0], R]'"),
    cl::value_desc("list"), cl::sub(layoutCmd), cl::Required,
    cl::cat(layoutCat));
static cl::opt<bool> jsonOpt("json", cl::desc("Print JSON instead of a table"),
                             cl::sub(layoutCmd), cl::cat(layoutCat));

static cl::SubCommand redistributeCmd(
    "redistribute",
    "Plan a redistribution: the collectives, bytes and time of each step");
static cl::OptionCategory redistCat("redistribute options");
static cl::opt<std::string>
    rMeshOpt("mesh", cl::desc("Mesh shape, e.g. 2x4 (row-major ranks)"),
             cl::value_desc("AxBx..."), cl::sub(redistributeCmd), cl::Required,
             cl::cat(redistCat));
static cl::opt<std::string>
    rShapeOpt("shape", cl::desc("Global tensor shape, e.g. 8x8"),
              cl::value_desc("AxBx..."), cl::sub(redistributeCmd),
              cl::Required, cl::cat(redistCat));
static cl::opt<std::string>
    dtypeOpt("dtype",
             cl::desc("Element type: f32, f64, f16, bf16, i1, i8, i16, i32, "
                      "i64 (default f32)"),
             cl::init("f32"), cl::sub(redistributeCmd), cl::cat(redistCat));
static cl::opt<std::string>
    fromOpt("from", cl::desc("Source placements, e.g. '[S(0), S(1)]'"),
            cl::value_desc("list"), cl::sub(redistributeCmd), cl::Required,
            cl::cat(redistCat));
static cl::opt<std::string>
    toOpt("to", cl::desc("Target placements, e.g. '[S(1), S(0)]'"),
          cl::value_desc("list"), cl::sub(redistributeCmd), cl::Required,
          cl::cat(redistCat));
static cl::opt<int64_t> devicesPerHostOpt(
    "devices-per-host",
    cl::desc("Devices per host: mesh dims whose groups span more use the "
             "slower inter-host links (default 8)"),
    cl::init(8), cl::sub(redistributeCmd), cl::cat(redistCat));
static cl::opt<bool>
    greedyOpt("greedy",
              cl::desc("Print DTensor's default greedy plan instead of ours"),
              cl::sub(redistributeCmd), cl::cat(redistCat));
static cl::opt<bool>
    noMergeOpt("no-merge",
               cl::desc("Do not merge collectives over several mesh dims"),
               cl::sub(redistributeCmd), cl::cat(redistCat));
static cl::opt<bool> rJsonOpt("json",
                              cl::desc("Print JSON instead of a table"),
                              cl::sub(redistributeCmd), cl::cat(redistCat));
static cl::opt<int64_t> maxSearchStepsOpt(
    "max-search-steps",
    cl::desc("Stop the search after pricing this many candidate steps and "
             "print the best plan found, marked as maybe not optimal (0: no "
             "limit; default 200000)"),
    cl::init(PlanOptions().maxSearchSteps), cl::sub(redistributeCmd),
    cl::cat(redistCat));
static cl::opt<double> searchTimeMsOpt(
    "search-time-ms",
    cl::desc("Stop the search after this many milliseconds, as "
             "--max-search-steps does (0: no limit, the default)"),
    cl::init(0), cl::sub(redistributeCmd), cl::cat(redistCat));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "dtensor-plan") << message << "\n";
  return 1;
}

static std::string join(const Shape &values, const char *sep) {
  std::string s;
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? sep : "") + std::to_string(values[i]);
  return s;
}

static int runLayout() {
  Shape mesh, shape;
  Placements placements;
  std::string error;
  if (!parseShape(meshOpt, /*positive=*/true, mesh, error))
    return fail("--mesh " + error);
  if (mesh.empty())
    return fail("--mesh needs at least one dim, e.g. --mesh 4");
  if (!parseShape(shapeOpt, /*positive=*/false, shape, error))
    return fail("--shape " + error);
  if (!verifyGlobalShape(shape, /*elementBytes=*/0, error))
    return fail("--shape " + error);
  if (!parsePlacements(placementsOpt, placements, error))
    return fail("--placements: " + error);
  std::optional<Layout> layout =
      Layout::create(mesh, (int64_t)shape.size(), placements, error);
  if (!layout)
    return fail("--placements " + formatPlacements(placements) + " " + error);

  llvm::raw_ostream &os = llvm::outs();
  if (jsonOpt) {
    os << "{\"ranks\": [";
    for (int64_t r = 0; r < layout->numRanks(); ++r) {
      Shard shard = layout->shardOf(shape, r);
      os << (r ? ", " : "") << "{\"rank\": " << r << ", \"coord\": ["
         << join(rankToCoord(mesh, r), ", ") << "], \"local_shape\": ["
         << join(shard.shape, ", ") << "], \"offset\": ["
         << join(shard.offset, ", ") << "]}";
    }
    os << "]}\n";
    return 0;
  }
  os << "mesh " << join(mesh, "x") << ", global shape "
     << (shape.empty() ? std::string("scalar") : join(shape, "x"))
     << ", placements " << formatPlacements(layout->placements()) << "\n";
  for (int64_t d = 0; d < layout->rank(); ++d) {
    const std::vector<int64_t> &order = layout->order(d);
    if (order.size() > 1)
      os << "tensor dim " << d << " is sharded by mesh dims "
         << join(order, " then ") << "\n";
  }
  os << llvm::format("%-5s %-12s %-14s %s\n", "rank", "coord", "local_shape",
                     "offset");
  for (int64_t r = 0; r < layout->numRanks(); ++r) {
    Shard shard = layout->shardOf(shape, r);
    os << llvm::format("%-5lld %-12s %-14s %s\n", (long long)r,
                       ("(" + join(rankToCoord(mesh, r), ", ") + ")").c_str(),
                       (shape.empty() ? std::string("scalar")
                                      : join(shard.shape, "x"))
                           .c_str(),
                       ("(" + join(shard.offset, ", ") + ")").c_str());
  }
  return 0;
}

/// A number the way JSON readers expect it: shortest form, 3 decimals at
/// most, always with a decimal point.
static std::string formatTime(double us) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%.3f", us);
  std::string s = buf;
  while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.')
    s.pop_back();
  return s;
}

static void printPlanTable(llvm::raw_ostream &os, const Plan &plan) {
  os << llvm::format("%-5s %-15s %-10s %-34s %-14s %12s %10s\n", "step",
                     "collective", "mesh_dims", "change", "logical_shape",
                     "bytes/rank", "time_us");
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step &st = plan.steps[i];
    std::string change =
        formatPlacements(st.before) + " -> " + formatPlacements(st.after);
    os << llvm::format("%-5zu %-15s %-10s %-34s %-14s %12lld %10s\n", i + 1,
                       stringifyStepKind(st.kind),
                       ("[" + join(st.meshDims, ", ") + "]").c_str(),
                       change.c_str(), join(st.logicalShape, "x").c_str(),
                       (long long)st.bytesPerRank,
                       formatTime(st.timeUs).c_str());
  }
}

static std::string summarize(const Plan &plan) {
  std::string s = std::to_string(plan.numCollectives()) + " collective(s)";
  std::map<std::string, int64_t> counts = plan.counts();
  if (!counts.empty()) {
    s += " (";
    bool first = true;
    for (auto &[name, n] : counts) {
      s += (first ? "" : ", ") + name + " " + std::to_string(n);
      first = false;
    }
    s += ")";
  }
  return s + ", " + std::to_string(plan.bytesPerRank()) + " bytes/rank, " +
         formatTime(plan.timeUs()) + " us";
}

static int runRedistribute() {
  RedistributeRequest req;
  std::string error;
  if (!parseShape(rMeshOpt, /*positive=*/true, req.mesh, error))
    return fail("--mesh " + error);
  if (req.mesh.empty())
    return fail("--mesh needs at least one dim, e.g. --mesh 4");
  if (!parseShape(rShapeOpt, /*positive=*/false, req.shape, error))
    return fail("--shape " + error);
  req.elementBytes = elementBytesOf(dtypeOpt);
  if (!req.elementBytes)
    return fail("--dtype '" + dtypeOpt +
                "' is not one of f32, f64, f16, bf16, i1, i8, i16, i32, i64");
  if (!parsePlacements(fromOpt, req.from, error))
    return fail("--from: " + error);
  if (!parsePlacements(toOpt, req.to, error))
    return fail("--to: " + error);
  if (devicesPerHostOpt <= 0)
    return fail("--devices-per-host must be positive");
  if (maxSearchStepsOpt < 0)
    return fail("--max-search-steps must be 0 (no limit) or positive");
  if (!(searchTimeMsOpt >= 0))
    return fail("--search-time-ms must be 0 (no limit) or positive");
  CostModel cost;
  cost.devicesPerHost = devicesPerHostOpt;
  PlanOptions options;
  options.mergeGroups = !noMergeOpt;
  options.maxSearchSteps = maxSearchStepsOpt;
  options.searchTimeMs = searchTimeMsOpt;

  std::optional<Plan> plan = greedyOpt ? planGreedy(req, cost, error)
                                       : planRedistribute(req, cost, error,
                                                          options);
  if (!plan)
    return fail("cannot redistribute " + formatPlacements(req.from) + " to " +
                formatPlacements(req.to) + ": " + error);
  // A plan that divides a replicated value into Partial(sum) terms has no
  // exact form for integers: dtensor-compile rejects it, and so does this.
  if (dtypeOpt[0] == 'i')
    for (const Step &st : plan->steps)
      if (st.kind == StepKind::LocalDivide)
        return fail("cannot redistribute " + formatPlacements(req.from) +
                    " to " + formatPlacements(req.to) + " for " + dtypeOpt +
                    ": a Partial(sum) of an integer tensor cannot be made "
                    "from a replicated one (that divides by the group "
                    "size), as dtensor-compile says of it");

  llvm::raw_ostream &os = llvm::outs();
  if (rJsonOpt) {
    os << "{\"steps\": [";
    for (size_t i = 0; i < plan->steps.size(); ++i) {
      const Step &st = plan->steps[i];
      os << (i ? ", " : "") << "{\"collective\": \""
         << stringifyStepKind(st.kind) << "\", \"mesh_dims\": ["
         << join(st.meshDims, ", ") << "], \"bytes_per_rank\": "
         << st.bytesPerRank << ", \"time_us\": " << formatTime(st.timeUs)
         << "}";
    }
    os << "], \"counts\": {";
    bool first = true;
    for (auto &[name, n] : plan->counts()) {
      os << (first ? "" : ", ") << "\"" << name << "\": " << n;
      first = false;
    }
    os << "}, \"bytes_per_rank\": " << plan->bytesPerRank()
       << ", \"time_us\": " << formatTime(plan->timeUs())
       << ", \"optimal\": " << (plan->optimal ? "true" : "false") << "}\n";
    return 0;
  }
  os << "mesh " << join(req.mesh, "x") << ", shape "
     << (req.shape.empty() ? std::string("scalar") : join(req.shape, "x"))
     << ", " << dtypeOpt << ": " << formatPlacements(req.from) << " -> "
     << formatPlacements(req.to) << "\n";
  if (plan->steps.empty()) {
    os << "nothing to do: the layouts are the same\n";
    return 0;
  }
  printPlanTable(os, *plan);
  os << (greedyOpt ? "DTensor greedy: " : "total: ") << summarize(*plan)
     << "\n";
  if (!plan->optimal)
    os << "note: " << plan->note
       << "; raise --max-search-steps or --search-time-ms (0: no limit) to "
          "search further\n";
  if (!greedyOpt) {
    std::string ignored;
    if (std::optional<Plan> greedy = planGreedy(req, cost, ignored))
      os << "DTensor greedy: " << summarize(*greedy) << "\n";
    else
      os << "DTensor greedy: not defined for non-default shard orders\n";
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::dtensor::setCrashReportMessage();
  cl::HideUnrelatedOptions({&layoutCat, &redistCat});
  mlir::dtensor::setVersionPrinter("dtensor-plan");
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "dtensor-plan: answers layout and redistribution questions about "
          "DTensor placements\n\n"
          "  dtensor-plan layout --mesh 2x2 --shape 9x5 --placements "
          "'[S(0), S(0)]'\n"
          "  dtensor-plan redistribute --mesh 2x2 --shape 8x8 --dtype f32 "
          "--from '[S(0), S(1)]' --to '[S(1), S(0)]'\n",
          &llvm::errs()))
    return 1;
  if (layoutCmd)
    return runLayout();
  if (redistributeCmd)
    return runRedistribute();
  cl::PrintHelpMessage();
  return 1;
}
