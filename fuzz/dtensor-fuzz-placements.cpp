//===- dtensor-fuzz-placements.cpp - fuzz the layout core's parsers -------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Input: four lines, `mesh`, `shape`, `from`, `to` (as dtensor-plan takes
// them: `2x4`, `9x5`, `[S(0), R]`, `[P(sum), S(0)[1]]`). Parses and checks
// them as dtensor-plan does, computes every rank's shard (small meshes), and
// plans the redistribution and DTensor's greedy plan. Any input may be
// rejected; none may crash, overflow or hang.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Layout.h"
#include "dtensor/Core/Placement.h"
#include "dtensor/Core/Redistribute.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

using namespace mlir::dtensor;

/// `2x4` into sizes; false on anything else.
static bool parseSizes(llvm::StringRef text, Shape &out) {
  out.clear();
  text = text.trim();
  if (text.empty())
    return true;
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, 'x');
  for (llvm::StringRef part : parts) {
    int64_t v;
    if (part.trim().getAsInteger(10, v) || v < 0)
      return false;
    out.push_back(v);
  }
  return true;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  llvm::SmallVector<llvm::StringRef, 4> lines;
  input.split(lines, '\n', /*MaxSplit=*/3);
  lines.resize(4);
  Shape mesh, shape;
  if (!parseSizes(lines[0], mesh) || !parseSizes(lines[1], shape))
    return 0;
  // Small meshes only: the per-rank loop below is the fuzzer's, not a tool's.
  // A mesh dim of 0 is rejected by the tools before the core sees it.
  int64_t ranks = 1;
  for (int64_t m : mesh) {
    if (m <= 0 || m > 64)
      return 0;
    ranks *= m;
    if (ranks > 512)
      return 0;
  }
  std::string error;
  Placements from, to;
  if (!parsePlacements(lines[2].str(), from, error))
    return 0;
  if (!parsePlacements(lines[3].str(), to, error))
    to = from;
  std::optional<Layout> layout =
      Layout::create(mesh, int64_t(shape.size()), from, error);
  if (!layout)
    return 0;
  for (int64_t r = 0; r < layout->numRanks(); ++r)
    (void)layout->shardOf(shape, r);
  (void)formatPlacements(from);

  RedistributeRequest request;
  request.mesh = mesh;
  request.shape = shape;
  request.from = from;
  request.to = to;
  CostModel cost;
  if (std::optional<Plan> plan = planRedistribute(request, cost, error)) {
    (void)plan->bytesPerRank();
    (void)plan->timeUs();
  }
  (void)planGreedy(request, cost, error);
  return 0;
}
