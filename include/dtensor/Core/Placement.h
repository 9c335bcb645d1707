//===- Placement.h - DTensor placements, plain C++ ---------------*- C++ -*-===//
//
// Part of dtensor-mlir. The semantic core: no MLIR IR here.
//
//===----------------------------------------------------------------------===//
//
// Placements as PyTorch DTensor defines them: Shard(d), Replicate(),
// Partial(op), one per mesh dim, plus an optional position of a Shard in its
// tensor dim's shard order (nested sharding). The textual form is DTensor's
// trace notation, `[S(0)[1], S(0)[0], R]`, shared by the IR and the CLIs.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_CORE_PLACEMENT_H
#define DTENSOR_CORE_PLACEMENT_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlir {
namespace dtensor {

/// What one mesh dim does to a tensor.
enum class PlacementKind : uint8_t { Replicate, Shard, Partial };

/// The reduction a Partial placement stands for.
enum class ReduceKind : uint8_t { Sum, Avg, Max, Min, Product };

/// Lower-case name used in `P(sum)` etc.
const char *stringifyReduceKind(ReduceKind kind);
/// Parses `sum`, `avg`, `max`, `min`, `product` (and `prod`).
std::optional<ReduceKind> parseReduceKind(std::string_view name);
/// Only sum and avg are linear: they survive scaling and addition.
bool isLinear(ReduceKind kind);

/// One mesh dim's placement.
struct Placement {
  PlacementKind kind = PlacementKind::Replicate;
  /// Tensor dim of a Shard; may be negative until normalized.
  int64_t dim = 0;
  /// Reduction of a Partial.
  ReduceKind reduce = ReduceKind::Sum;
  /// Position of this mesh dim in the shard order of `dim` (0 = applied
  /// first), or -1 for the default order (mesh dims left to right).
  int64_t order = -1;

  static Placement replicate() { return {}; }
  static Placement shard(int64_t dim, int64_t order = -1) {
    return {PlacementKind::Shard, dim, ReduceKind::Sum, order};
  }
  static Placement partial(ReduceKind reduce = ReduceKind::Sum) {
    return {PlacementKind::Partial, 0, reduce, -1};
  }

  bool isReplicate() const { return kind == PlacementKind::Replicate; }
  bool isShard() const { return kind == PlacementKind::Shard; }
  bool isPartial() const { return kind == PlacementKind::Partial; }
  bool isShard(int64_t d) const { return isShard() && dim == d; }

  friend bool operator==(const Placement &a, const Placement &b) {
    if (a.kind != b.kind)
      return false;
    if (a.isShard())
      return a.dim == b.dim && a.order == b.order;
    if (a.isPartial())
      return a.reduce == b.reduce;
    return true;
  }
  friend bool operator!=(const Placement &a, const Placement &b) {
    return !(a == b);
  }
};

using Placements = std::vector<Placement>;

/// Whether `a` and `b` are the same placement but for a shard's order.
bool sameIgnoringOrder(const Placement &a, const Placement &b);

/// `S(0)`, `S(0)[1]`, `R`, `P(sum)`.
std::string formatPlacement(const Placement &p);
/// `[S(0), R]`.
std::string formatPlacements(const Placements &ps);

/// Parses a placement list such as `[S(0)[1], S(0)[0], R]` or
/// `[Shard(0), Replicate(), Partial(avg)]`; the outer brackets are optional.
/// Returns false and sets `error` on malformed text. No semantic checks.
bool parsePlacements(std::string_view text, Placements &out,
                     std::string &error);

//===----------------------------------------------------------------------===//
// Validation, split by what each check needs to know, so that the IR can run
// each piece where that knowledge is available.
//===----------------------------------------------------------------------===//

/// Checks that need nothing but the placements: one Partial kind at most,
/// shard-order positions given for all or none of the mesh dims sharding a
/// tensor dim, and forming a permutation.
bool verifyPlacementStructure(const Placements &ps, std::string &error);

/// Checks shard dims against a tensor rank (negative dims allowed down to
/// -rank).
bool verifyPlacementsForRank(const Placements &ps, int64_t rank,
                             std::string &error);

/// Checks the number of placements against the mesh rank.
bool verifyPlacementsForMesh(const Placements &ps, int64_t meshRank,
                             std::string &error);

/// Drops explicit shard orders that equal the default (mesh dims left to
/// right), grouping shards by their dim as written.
Placements dropDefaultOrders(const Placements &ps);

/// dropDefaultOrders(a) == dropDefaultOrders(b), without making either.
bool sameIgnoringDefaultOrders(const Placements &a, const Placements &b);

/// Returns the placements with shard dims made non-negative (d + rank), orders
/// untouched. Requires dims verified for the rank.
Placements normalizeShardDims(const Placements &ps, int64_t rank);

/// Returns the placements with shard dims made non-negative and explicit
/// orders dropped where they equal the default (left to right), so that two
/// spellings of one layout compare equal. Requires verified input.
Placements normalizePlacements(const Placements &ps, int64_t rank);
/// normalizePlacements of `ps`, in place.
void normalizePlacementsInPlace(Placements &ps, int64_t rank);

/// The mesh dims that shard tensor dim `dim`, in the order they are applied.
/// Requires normalized, verified placements.
std::vector<int64_t> shardOrder(const Placements &ps, int64_t dim);

/// Every spec of a rank-`rank` tensor on a `meshRank`-dim mesh: each mesh
/// dim R, P(partial) or S(d), and with `withOrders` every shard order of the
/// mesh dims sharding one tensor dim (default orders canonical). For tests
/// and benchmarks that sweep all placements.
std::vector<Placements> enumeratePlacements(int64_t meshRank, int64_t rank,
                                            ReduceKind partial,
                                            bool withOrders = true);

/// Why the one-mesh-dim transition `from -> to` is illegal (S -> P,
/// P(x) -> P(y), R -> P(product)), or an empty string when it is legal.
std::string transitionError(const Placement &from, const Placement &to);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_CORE_PLACEMENT_H
