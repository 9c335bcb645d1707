//===- Layout.h - Where each rank's shard lives, plain C++ -------*- C++ -*-===//
//
// Part of dtensor-mlir. The semantic core: no MLIR IR here.
//
//===----------------------------------------------------------------------===//
//
// Local shapes and global offsets of DTensor shards with torch.chunk
// semantics, nested shard orders and empty shards, for any N-D mesh. This is
// the one place these rules are written; verifiers, passes, the interpreter
// and the CLIs call it.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_CORE_LAYOUT_H
#define DTENSOR_CORE_LAYOUT_H

#include "dtensor/Core/Placement.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlir {
namespace dtensor {

using Shape = std::vector<int64_t>;

//===----------------------------------------------------------------------===//
// Sizes
//
// Every size the core computes (a dim, an element count, a byte count, a
// padded buffer) is an int64_t. Rather than wrap around silently, the core
// checks each product and sum that user sizes can drive past INT64_MAX and
// reports an error; see docs/Layout.md for the bound this enforces.
//===----------------------------------------------------------------------===//

/// `a * b`, or std::nullopt when it overflows int64. (The core links no LLVM,
/// so this is its own llvm::checkedMul.)
std::optional<int64_t> checkedMul(int64_t a, int64_t b);
/// `a + b`, or std::nullopt when it overflows int64.
std::optional<int64_t> checkedAdd(int64_t a, int64_t b);

/// ceil(a / b) for a >= 0 and b > 0, without the overflow of (a + b - 1) / b.
inline int64_t ceilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0); }

/// The number of elements of `shape`, or std::nullopt when a size is negative
/// or the count does not fit in int64.
std::optional<int64_t> numElements(const Shape &shape);

/// Checks a global tensor shape: sizes non-negative, and the element count
/// and (with `elementBytes` > 0) the byte size fit in int64. The error says
/// which does not and by how much to shrink.
bool verifyGlobalShape(const Shape &shape, int64_t elementBytes,
                       std::string &error);

/// Parses a shape written `2x4` (or `2,4`, spaces allowed around sizes); an
/// empty string is the rank-0 shape. Sizes must be non-negative, or positive
/// with `positive` (mesh shapes), and fit in int64. Never fails on any input
/// but by returning false with `error` set.
bool parseShape(std::string_view text, bool positive, Shape &out,
                std::string &error);

//===----------------------------------------------------------------------===//
// Meshes
//===----------------------------------------------------------------------===//

/// The most ranks a mesh may have: far beyond any machine, small enough that
/// rank arithmetic and per-rank tables never overflow.
constexpr int64_t kMaxMeshRanks = int64_t(1) << 24;

/// Checks that there is at least one dim, every mesh dim size is positive,
/// and the mesh has at most kMaxMeshRanks ranks.
bool verifyMeshShape(const Shape &mesh, std::string &error);

/// Number of ranks of a mesh (product of its sizes). Requires a mesh that
/// verifyMeshShape accepts, so the product cannot overflow.
int64_t meshSize(const Shape &mesh);

/// Row-major coordinate of `rank`.
Shape rankToCoord(const Shape &mesh, int64_t rank);
/// Inverse of rankToCoord.
int64_t coordToRank(const Shape &mesh, const Shape &coord);

/// The groups of ranks that differ only along `meshDims` (one group per
/// combination of the other coordinates, in order of their first rank). Each
/// group lists its ranks row-major over `meshDims`, as a flattened sub-mesh
/// orders them. With one dim this is DTensor's process group of that mesh dim.
std::vector<std::vector<int64_t>> meshGroups(const Shape &mesh,
                                             const std::vector<int64_t> &meshDims);

/// The index of `rank` within its group over `meshDims` (row-major).
int64_t groupRank(const Shape &mesh, const std::vector<int64_t> &meshDims,
                  int64_t rank);

//===----------------------------------------------------------------------===//
// Chunks
//===----------------------------------------------------------------------===//

/// One torch.chunk piece of a dim.
struct Chunk {
  int64_t size = 0;
  /// Start of the piece; a zero-size piece reports the full length.
  int64_t offset = 0;
};

/// Piece `index` of `length` split into `parts` torch.chunk pieces: every
/// piece holds ceil(length / parts) except at the tail. Exact for every
/// length in [0, INT64_MAX], parts > 0 and index in [0, parts).
Chunk chunk(int64_t length, int64_t parts, int64_t index);

/// The distinct sizes of the `parts` torch.chunk pieces of `length`, largest
/// first (at most three: full pieces, the tail, empty pieces), in O(1).
std::vector<int64_t> distinctChunkSizes(int64_t length, int64_t parts);

/// The piece of a dim of `length` held at mesh coordinate `coord` when mesh
/// dims `meshDims` split it in that order (each re-chunking the current
/// piece). Its offset is global; an empty piece reports `length`, as DTensor
/// does.
Chunk nestedChunk(int64_t length, const Shape &mesh,
                  const std::vector<int64_t> &meshDims, const Shape &coord);

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

/// One rank's shard of a global tensor.
struct Shard {
  Shape shape;
  /// Global offset; a dim whose shard is empty reports that dim's global size.
  Shape offset;
};

/// A verified distribution of a rank-`rank` tensor on a mesh: normalized
/// placements plus the shard order of every tensor dim.
class Layout {
public:
  /// Verifies and normalizes. Returns std::nullopt and sets `error` when the
  /// mesh, the placements or their orders are not legal for this rank.
  static std::optional<Layout> create(const Shape &mesh, int64_t rank,
                                      const Placements &placements,
                                      std::string &error);

  const Shape &mesh() const { return meshShape; }
  int64_t rank() const { return tensorRank; }
  int64_t numRanks() const { return meshSize(meshShape); }
  const Placements &placements() const { return normalized; }
  /// Mesh dims sharding tensor dim `dim`, first applied first.
  const std::vector<int64_t> &order(int64_t dim) const { return orders[dim]; }

  /// The shard held by the rank at `coord`.
  Shard shardAt(const Shape &global, const Shape &coord) const;
  /// The shard held by `rank` (row-major over the mesh).
  Shard shardOf(const Shape &global, int64_t rank) const {
    return shardAt(global, rankToCoord(meshShape, rank));
  }
  /// Local size of tensor dim `dim` on every rank, in rank order.
  std::vector<int64_t> sizeTable(const Shape &global, int64_t dim) const;
  /// The distinct local sizes of `dim` over all ranks, ascending. Only the
  /// mesh dims sharding `dim` are enumerated, so this is cheap on big meshes.
  std::vector<int64_t> distinctSizes(const Shape &global, int64_t dim) const;
  /// The local size of `dim` when every rank agrees on it.
  std::optional<int64_t> uniformSize(const Shape &global, int64_t dim) const;

  /// Whether the value is the same on every rank along mesh dim `meshDim`
  /// (Replicate), a term of a reduction (Partial) or split (Shard).
  PlacementKind kindOn(int64_t meshDim) const {
    return normalized[meshDim].kind;
  }

private:
  Layout() = default;
  Shape meshShape;
  int64_t tensorRank = 0;
  Placements normalized;
  std::vector<std::vector<int64_t>> orders;
};

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_CORE_LAYOUT_H
