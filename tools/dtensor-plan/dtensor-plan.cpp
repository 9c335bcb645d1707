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
// "offset": [0, 0]}, ...]} in rank order. Everything is computed by the
// layout core, the same code the compiler's verifiers and passes use.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Layout.h"
#include "dtensor/Core/Placement.h"

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

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "dtensor-plan") << message << "\n";
  return 1;
}

/// Parses `2x4` (also `2,4`); an empty string is a rank-0 shape.
static bool parseShape(llvm::StringRef text, bool positive, Shape &out,
                       std::string &error) {
  out.clear();
  text = text.trim();
  if (text.empty())
    return true;
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, text.contains(',') ? ',' : 'x');
  for (llvm::StringRef part : parts) {
    int64_t v;
    if (part.trim().getAsInteger(10, v) || v < 0 || (positive && v == 0)) {
      error = "'" + text.str() + "' is not a shape: expected " +
              (positive ? "positive" : "non-negative") +
              " sizes separated by 'x', e.g. 2x4";
      return false;
    }
    out.push_back(v);
  }
  return true;
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

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions({&layoutCat});
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "dtensor-plan: answers layout questions about DTensor placements\n\n"
          "  dtensor-plan layout --mesh 2x2 --shape 9x5 --placements "
          "'[S(0), S(0)]'\n",
          &llvm::errs()))
    return 1;
  if (layoutCmd)
    return runLayout();
  cl::PrintHelpMessage();
  return 1;
}
