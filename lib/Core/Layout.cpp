//===- Layout.cpp - Where each rank's shard lives, plain C++ --------------===//
//
// Part of dtensor-mlir. The semantic core: no MLIR IR here.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Layout.h"

#include <algorithm>
#include <cassert>
#include <cctype>

namespace mlir {
namespace dtensor {

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out))
    return std::nullopt;
  return out;
}

std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out))
    return std::nullopt;
  return out;
}

std::optional<int64_t> numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s < 0)
      return std::nullopt;
    std::optional<int64_t> next = checkedMul(n, s);
    if (!next)
      return std::nullopt;
    n = *next;
  }
  return n;
}

/// `2x4` for messages.
static std::string formatShape(const Shape &shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

bool verifyGlobalShape(const Shape &shape, int64_t elementBytes,
                       std::string &error) {
  // (Built only for a message: planners check every shape they price.)
  auto name = [&]() { return "'" + formatShape(shape) + "'"; };
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] < 0) {
      error = name() + " has the negative size " + std::to_string(shape[d]) +
              " in dim " + std::to_string(d) + "; sizes must be >= 0";
      return false;
    }
  std::optional<int64_t> elements = numElements(shape);
  if (!elements) {
    error = name() +
            " has more elements than fit in a signed 64-bit integer (at most " +
            std::to_string(INT64_MAX) + "); use a smaller shape";
    return false;
  }
  if (elementBytes > 0 && !checkedMul(*elements, elementBytes)) {
    error = name() + " has " + std::to_string(*elements) + " elements of " +
            std::to_string(elementBytes) +
            " bytes, more bytes than fit in a signed 64-bit integer (at most " +
            std::to_string(INT64_MAX) + "); use a smaller shape";
    return false;
  }
  return true;
}

bool parseShape(std::string_view text, bool positive, Shape &out,
                std::string &error) {
  out.clear();
  auto isSpace = [](char c) { return std::isspace((unsigned char)c) != 0; };
  auto trim = [&](std::string_view t) {
    while (!t.empty() && isSpace(t.front()))
      t.remove_prefix(1);
    while (!t.empty() && isSpace(t.back()))
      t.remove_suffix(1);
    return t;
  };
  std::string_view all = trim(text);
  if (all.empty())
    return true;
  auto bad = [&](const std::string &why) {
    out.clear();
    error = "'" + std::string(text) + "' is not a shape: " + why +
            "; expected " + (positive ? "positive" : "non-negative") +
            " sizes separated by 'x', e.g. 2x4";
    return false;
  };
  char sep = all.find(',') != std::string_view::npos ? ',' : 'x';
  while (true) {
    size_t end = all.find(sep);
    std::string_view part = trim(all.substr(0, end));
    if (part.empty())
      return bad("a size is missing");
    int64_t v = 0;
    for (char c : part) {
      if (c < '0' || c > '9')
        return bad("'" + std::string(part) + "' is not a size");
      int digit = c - '0';
      if (v > (INT64_MAX - digit) / 10)
        return bad("size " + std::string(part) + " is larger than " +
                   std::to_string(INT64_MAX));
      v = v * 10 + digit;
    }
    if (positive && v == 0)
      return bad("a size is 0");
    out.push_back(v);
    if (end == std::string_view::npos)
      return true;
    all.remove_prefix(end + 1);
  }
}

//===----------------------------------------------------------------------===//
// Meshes
//===----------------------------------------------------------------------===//

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
  // (length + parts - 1) / parts and full * index overflow for lengths near
  // INT64_MAX; these forms never exceed length.
  int64_t full = ceilDiv(length, parts);
  int64_t start = full == 0 || index > length / full ? length : full * index;
  int64_t size = std::min(full, length - start);
  return {size, start};
}

std::vector<int64_t> distinctChunkSizes(int64_t length, int64_t parts) {
  int64_t full = ceilDiv(length, parts);
  if (full == 0)
    return {0};
  // Pieces 0 .. length / full - 1 are full; then a tail (if any), then
  // empty pieces (if pieces are left).
  int64_t fullPieces = length / full, tail = length % full;
  int64_t used = fullPieces + (tail != 0);
  std::vector<int64_t> sizes{full};
  if (tail != 0)
    sizes.push_back(tail);
  if (used < parts)
    sizes.push_back(0);
  return sizes;
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
  // A piece's size depends only on the size of its parent piece, so the
  // sizes of one level are the chunk sizes of each distinct size of the
  // level above: a few sizes per level instead of one shard per coordinate
  // (2^24 of them on the largest mesh).
  std::vector<int64_t> sizes{global[dim]};
  for (int64_t m : orders[dim]) {
    std::vector<int64_t> next;
    for (int64_t s : sizes)
      for (int64_t c : distinctChunkSizes(s, meshShape[m]))
        next.push_back(c);
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    sizes = std::move(next);
  }
  return sizes;
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
