//===- Layout.cpp - Where each rank's shard lives, plain C++ --------------===//
//
// Part of dtensor-mlir. The semantic core: no MLIR IR here.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Layout.h"

#include <algorithm>
#include <cassert>

namespace mlir {
namespace dtensor {

bool verifyMeshShape(const Shape &mesh, std::string &error) {
  if (mesh.empty()) {
    error = "a mesh needs at least one dim";
    return false;
  }
  int64_t ranks = 1;
  for (size_t i = 0; i < mesh.size(); ++i) {
    if (mesh[i] <= 0) {
      error = "mesh dim " + std::to_string(i) + " has size " +
              std::to_string(mesh[i]) + "; every mesh dim size must be positive";
      return false;
    }
    if (mesh[i] > kMaxMeshRanks / ranks) {
      error = "mesh has more than " + std::to_string(kMaxMeshRanks) +
              " ranks, the most supported";
      return false;
    }
    ranks *= mesh[i];
  }
  return true;
}

int64_t meshSize(const Shape &mesh) {
  int64_t n = 1;
  for (int64_t s : mesh)
    n *= s;
  return n;
}

Shape rankToCoord(const Shape &mesh, int64_t rank) {
  Shape coord(mesh.size(), 0);
  for (size_t i = mesh.size(); i-- > 0;) {
    coord[i] = rank % mesh[i];
    rank /= mesh[i];
  }
  return coord;
}

int64_t coordToRank(const Shape &mesh, const Shape &coord) {
  int64_t rank = 0;
  for (size_t i = 0; i < mesh.size(); ++i)
    rank = rank * mesh[i] + coord[i];
  return rank;
}

int64_t groupRank(const Shape &mesh, const std::vector<int64_t> &meshDims,
                  int64_t rank) {
  Shape coord = rankToCoord(mesh, rank);
  int64_t index = 0;
  for (int64_t d : meshDims)
    index = index * mesh[d] + coord[d];
  return index;
}

std::vector<std::vector<int64_t>>
meshGroups(const Shape &mesh, const std::vector<int64_t> &meshDims) {
  int64_t groupSize = 1;
  for (int64_t d : meshDims)
    groupSize *= mesh[d];
  std::vector<std::vector<int64_t>> groups;
  std::vector<int64_t> groupOfRank(meshSize(mesh), -1);
  for (int64_t r = 0; r < meshSize(mesh); ++r) {
    if (groupOfRank[r] >= 0)
      continue;
    // r is the first rank of a new group: enumerate the members row-major
    // over meshDims, keeping r's other coordinates.
    Shape base = rankToCoord(mesh, r);
    std::vector<int64_t> members(groupSize);
    for (int64_t i = 0; i < groupSize; ++i) {
      Shape coord = base;
      int64_t rest = i;
      for (size_t j = meshDims.size(); j-- > 0;) {
        coord[meshDims[j]] = rest % mesh[meshDims[j]];
        rest /= mesh[meshDims[j]];
      }
      members[i] = coordToRank(mesh, coord);
      groupOfRank[members[i]] = (int64_t)groups.size();
    }
    groups.push_back(std::move(members));
  }
  return groups;
}

Chunk chunk(int64_t length, int64_t parts, int64_t index) {
  int64_t full = (length + parts - 1) / parts;
  int64_t start = std::min(full * index, length);
  int64_t size = std::max<int64_t>(0, std::min(length, start + full) - start);
  return {size, start};
}

Chunk nestedChunk(int64_t length, const Shape &mesh,
                  const std::vector<int64_t> &meshDims, const Shape &coord) {
  int64_t size = length, offset = 0;
  for (int64_t m : meshDims) {
    Chunk c = chunk(size, mesh[m], coord[m]);
    offset += c.offset;
    size = c.size;
  }
  // DTensor reports the global size as the offset of an empty shard.
  return {size, size == 0 ? length : offset};
}

std::optional<Layout> Layout::create(const Shape &mesh, int64_t rank,
                                     const Placements &placements,
                                     std::string &error) {
  if (!verifyMeshShape(mesh, error) ||
      !verifyPlacementsForMesh(placements, (int64_t)mesh.size(), error) ||
      !verifyPlacementsForRank(placements, rank, error))
    return std::nullopt;
  // Normalize dims before checking orders, so S(-1) and S(1) group together.
  Placements dimsOnly = normalizeShardDims(placements, rank);
  if (!verifyPlacementStructure(dimsOnly, error))
    return std::nullopt;
  Layout layout;
  layout.meshShape = mesh;
  layout.tensorRank = rank;
  layout.normalized = normalizePlacements(dimsOnly, rank);
  layout.orders.resize(rank);
  for (int64_t d = 0; d < rank; ++d)
    layout.orders[d] = shardOrder(layout.normalized, d);
  return layout;
}

Shard Layout::shardAt(const Shape &global, const Shape &coord) const {
  assert((int64_t)global.size() == tensorRank && "shape rank mismatch");
  Shard shard{global, Shape(global.size(), 0)};
  for (int64_t d = 0; d < tensorRank; ++d) {
    Chunk c = nestedChunk(global[d], meshShape, orders[d], coord);
    shard.shape[d] = c.size;
    shard.offset[d] = c.offset;
  }
  return shard;
}

std::vector<int64_t> Layout::sizeTable(const Shape &global,
                                       int64_t dim) const {
  std::vector<int64_t> sizes(numRanks());
  for (int64_t r = 0; r < numRanks(); ++r)
    sizes[r] = shardOf(global, r).shape[dim];
  return sizes;
}

std::vector<int64_t> Layout::distinctSizes(const Shape &global,
                                           int64_t dim) const {
  // Level by level over the distinct lengths of the previous level, never
  // over ranks: torch.chunk of a length gives at most three sizes (full
  // chunks, one remainder, empty ones), so a million ranks cost as little as
  // two.
  std::vector<int64_t> lengths = {global[dim]};
  for (int64_t m : orders[dim]) {
    int64_t parts = meshShape[m];
    std::vector<int64_t> next;
    for (int64_t length : lengths) {
      Chunk first = chunk(length, parts, 0);
      next.push_back(first.size);
      if (first.size == 0)
        continue;
      // Pieces 0 .. whole-1 are full; then a remainder; then empties.
      int64_t whole = length / first.size;
      int64_t rest = length - whole * first.size;
      if (whole < parts && rest > 0)
        next.push_back(rest);
      if (whole + (rest > 0 ? 1 : 0) < parts)
        next.push_back(0);
    }
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    lengths = std::move(next);
  }
  return lengths;
}

std::optional<int64_t> Layout::uniformSize(const Shape &global,
                                           int64_t dim) const {
  std::vector<int64_t> sizes = distinctSizes(global, dim);
  if (sizes.size() == 1)
    return sizes.front();
  return std::nullopt;
}

} // namespace dtensor
} // namespace mlir
