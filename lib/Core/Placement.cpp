//===- Placement.cpp - DTensor placements, plain C++ ----------------------===//
//
// Part of dtensor-mlir. The semantic core: no MLIR IR here.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Placement.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>

namespace mlir {
namespace dtensor {

const char *stringifyReduceKind(ReduceKind kind) {
  switch (kind) {
  case ReduceKind::Sum:
    return "sum";
  case ReduceKind::Avg:
    return "avg";
  case ReduceKind::Max:
    return "max";
  case ReduceKind::Min:
    return "min";
  case ReduceKind::Product:
    return "product";
  }
  return "sum";
}

std::optional<ReduceKind> parseReduceKind(std::string_view name) {
  if (name == "sum")
    return ReduceKind::Sum;
  if (name == "avg")
    return ReduceKind::Avg;
  if (name == "max")
    return ReduceKind::Max;
  if (name == "min")
    return ReduceKind::Min;
  if (name == "product" || name == "prod")
    return ReduceKind::Product;
  return std::nullopt;
}

bool isLinear(ReduceKind kind) {
  return kind == ReduceKind::Sum || kind == ReduceKind::Avg;
}

bool sameIgnoringOrder(const Placement &a, const Placement &b) {
  if (a.kind != b.kind)
    return false;
  if (a.isShard())
    return a.dim == b.dim;
  if (a.isPartial())
    return a.reduce == b.reduce;
  return true;
}

std::string formatPlacement(const Placement &p) {
  switch (p.kind) {
  case PlacementKind::Replicate:
    return "R";
  case PlacementKind::Partial:
    return std::string("P(") + stringifyReduceKind(p.reduce) + ")";
  case PlacementKind::Shard: {
    std::string s = "S(" + std::to_string(p.dim) + ")";
    if (p.order >= 0)
      s += "[" + std::to_string(p.order) + "]";
    return s;
  }
  }
  return "?";
}

std::string formatPlacements(const Placements &ps) {
  std::string s = "[";
  for (size_t i = 0; i < ps.size(); ++i) {
    if (i)
      s += ", ";
    s += formatPlacement(ps[i]);
  }
  return s + "]";
}

namespace {
/// A tiny recursive-descent reader over the placement grammar:
///   list      ::= `[` (placement (`,` placement)*)? `]` | placement (`,` ...)*
///   placement ::= (`S` | `Shard`) `(` int `)` (`[` int `]`)?
///               | (`R` | `Replicate` (`(` `)`)?)
///               | (`P` | `Partial`) (`(` name? `)`)?
class Reader {
public:
  explicit Reader(std::string_view text) : text(text) {}

  bool fail(const std::string &msg) {
    if (error.empty())
      error = msg + " at column " + std::to_string(pos + 1) + " of '" +
              std::string(text) + "'";
    return false;
  }
  void skipSpace() {
    while (pos < text.size() && std::isspace((unsigned char)text[pos]))
      ++pos;
  }
  bool atEnd() {
    skipSpace();
    return pos >= text.size();
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool expect(char c) {
    if (consume(c))
      return true;
    return fail(std::string("expected '") + c + "'");
  }
  std::string_view word() {
    skipSpace();
    size_t start = pos;
    while (pos < text.size() &&
           (std::isalnum((unsigned char)text[pos]) || text[pos] == '_'))
      ++pos;
    return text.substr(start, pos - start);
  }
  bool integer(int64_t &out) {
    skipSpace();
    size_t start = pos;
    bool neg = false;
    if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) {
      neg = text[pos] == '-';
      ++pos;
    }
    size_t digits = pos;
    int64_t v = 0;
    while (pos < text.size() && std::isdigit((unsigned char)text[pos])) {
      int digit = text[pos] - '0';
      if (v > (INT64_MAX - digit) / 10) {
        pos = start;
        return fail("integer larger than " + std::to_string(INT64_MAX));
      }
      v = v * 10 + digit;
      ++pos;
    }
    if (pos == digits) {
      pos = start;
      return fail("expected an integer");
    }
    out = neg ? -v : v;
    return true;
  }

  bool placement(Placement &p) {
    size_t start = pos;
    std::string_view w = word();
    if (w == "S" || w == "Shard") {
      int64_t d;
      if (!expect('(') || !integer(d) || !expect(')'))
        return false;
      p = Placement::shard(d);
      if (consume('[')) {
        int64_t k;
        if (!integer(k) || !expect(']'))
          return false;
        if (k < 0)
          return fail("a shard order position must be non-negative");
        p.order = k;
      }
      return true;
    }
    if (w == "R" || w == "Replicate") {
      if (consume('(') && !expect(')'))
        return false;
      p = Placement::replicate();
      return true;
    }
    if (w == "P" || w == "Partial") {
      p = Placement::partial(ReduceKind::Sum);
      if (consume('(')) {
        if (consume(')'))
          return true;
        std::string_view name = word();
        std::optional<ReduceKind> kind = parseReduceKind(name);
        if (!kind)
          return fail("unknown Partial reduction '" + std::string(name) +
                      "' (expected sum, avg, max, min or product)");
        p.reduce = *kind;
        return expect(')');
      }
      return true;
    }
    pos = start;
    skipSpace();
    return fail("expected a placement: S(d), R or P(op)");
  }

  bool list(Placements &out) {
    out.clear();
    bool bracketed = consume('[');
    if (bracketed && consume(']'))
      return atEnd() || fail("unexpected text after the placement list");
    if (!bracketed && atEnd())
      return fail("expected a placement list such as '[S(0), R]'");
    do {
      Placement p;
      if (!placement(p))
        return false;
      out.push_back(p);
    } while (consume(','));
    if (bracketed && !expect(']'))
      return false;
    if (!atEnd())
      return fail("unexpected text after the placement list");
    return true;
  }

  std::string_view text;
  size_t pos = 0;
  std::string error;
};
} // namespace

bool parsePlacements(std::string_view text, Placements &out,
                     std::string &error) {
  Reader reader(text);
  if (reader.list(out))
    return true;
  error = reader.error;
  return false;
}

bool verifyPlacementStructure(const Placements &ps, std::string &error) {
  const Placement *firstPartial = nullptr;
  for (const Placement &p : ps) {
    if (!p.isPartial())
      continue;
    if (firstPartial && firstPartial->reduce != p.reduce) {
      error = "mixes Partial kinds " + formatPlacement(*firstPartial) +
              " and " + formatPlacement(p) +
              "; a spec may hold one Partial reduction only: reduce one of "
              "them first (redistribute it to Replicate)";
      return false;
    }
    firstPartial = &p;
  }
  // Group mesh dims by the tensor dim they shard (as written; a negative and
  // a positive spelling of one dim are grouped again after normalization).
  std::map<int64_t, std::vector<size_t>> byDim;
  for (size_t m = 0; m < ps.size(); ++m)
    if (ps[m].isShard())
      byDim[ps[m].dim].push_back(m);
  for (auto &[dim, meshDims] : byDim) {
    size_t explicitCount = 0;
    std::vector<bool> seen(meshDims.size(), false);
    for (size_t m : meshDims) {
      if (ps[m].order < 0)
        continue;
      ++explicitCount;
      int64_t k = ps[m].order;
      if (k >= (int64_t)meshDims.size() || seen[k]) {
        error = "shard order of tensor dim " + std::to_string(dim) +
                " is not a permutation: " + std::to_string(meshDims.size()) +
                " mesh dim(s) shard it, so their positions must be 0.." +
                std::to_string(meshDims.size() - 1) + ", each once";
        return false;
      }
      seen[k] = true;
    }
    if (explicitCount != 0 && explicitCount != meshDims.size()) {
      error = "shard order of tensor dim " + std::to_string(dim) +
              " is given for some but not all of the mesh dims sharding it; "
              "write a position [k] on every S(" +
              std::to_string(dim) + ") or on none";
      return false;
    }
  }
  return true;
}

bool verifyPlacementsForRank(const Placements &ps, int64_t rank,
                             std::string &error) {
  for (size_t m = 0; m < ps.size(); ++m) {
    const Placement &p = ps[m];
    if (p.isShard() && (p.dim >= rank || p.dim < -rank)) {
      error = "shard dim " + std::to_string(p.dim) + " of mesh dim " +
              std::to_string(m) + " is out of range for a rank-" +
              std::to_string(rank) + " tensor (valid: " +
              (rank ? std::to_string(-rank) + ".." + std::to_string(rank - 1)
                    : std::string("none, a rank-0 tensor cannot be sharded")) +
              ")";
      return false;
    }
  }
  return true;
}

bool verifyPlacementsForMesh(const Placements &ps, int64_t meshRank,
                             std::string &error) {
  if ((int64_t)ps.size() != meshRank) {
    error = "has " + std::to_string(ps.size()) + " placement(s) but the mesh has " +
            std::to_string(meshRank) +
            " dim(s); give exactly one placement per mesh dim";
    return false;
  }
  return true;
}

namespace {
/// Whether the shards of tensor dim `dim` in `ps` take the default order
/// (each explicit order equal to its shard's position among them, mesh dims
/// left to right).
bool defaultOrder(const Placements &ps, int64_t dim) {
  int64_t next = 0;
  for (const Placement &q : ps)
    if (q.isShard(dim)) {
      if (q.order >= 0 && q.order != next)
        return false;
      ++next;
    }
  return true;
}
/// The order of `ps[m]` once default orders are dropped.
int64_t effectiveOrder(const Placements &ps, size_t m) {
  const Placement &p = ps[m];
  if (!p.isShard() || p.order < 0 || defaultOrder(ps, p.dim))
    return -1;
  return p.order;
}
/// dropDefaultOrders in place: an order set to -1 keeps its dim's order
/// default, so the later shards of that dim see the same answer.
void dropDefaultOrdersInPlace(Placements &ps) {
  for (Placement &p : ps)
    if (p.isShard() && p.order >= 0 && defaultOrder(ps, p.dim))
      p.order = -1;
}
} // namespace

Placements dropDefaultOrders(const Placements &ps) {
  Placements out = ps;
  dropDefaultOrdersInPlace(out);
  return out;
}

bool sameIgnoringDefaultOrders(const Placements &a, const Placements &b) {
  if (a.size() != b.size())
    return false;
  for (size_t m = 0; m < a.size(); ++m) {
    const Placement &p = a[m], &q = b[m];
    if (p.kind != q.kind)
      return false;
    if (p.isPartial() && p.reduce != q.reduce)
      return false;
    if (p.isShard() &&
        (p.dim != q.dim || effectiveOrder(a, m) != effectiveOrder(b, m)))
      return false;
  }
  return true;
}

Placements normalizeShardDims(const Placements &ps, int64_t rank) {
  Placements out = ps;
  for (Placement &p : out)
    if (p.isShard() && p.dim < 0)
      p.dim += rank;
  return out;
}

void normalizePlacementsInPlace(Placements &ps, int64_t rank) {
  for (Placement &p : ps)
    if (p.isShard() && p.dim < 0)
      p.dim += rank;
  dropDefaultOrdersInPlace(ps);
}

Placements normalizePlacements(const Placements &ps, int64_t rank) {
  Placements out = ps;
  normalizePlacementsInPlace(out, rank);
  return out;
}

std::vector<int64_t> shardOrder(const Placements &ps, int64_t dim) {
  std::vector<int64_t> meshDims;
  for (size_t m = 0; m < ps.size(); ++m)
    if (ps[m].isShard(dim))
      meshDims.push_back((int64_t)m);
  if (!meshDims.empty() && ps[meshDims.front()].order >= 0) {
    std::vector<int64_t> ordered(meshDims.size());
    for (int64_t m : meshDims)
      ordered[ps[m].order] = m;
    return ordered;
  }
  return meshDims;
}

std::string transitionError(const Placement &from, const Placement &to) {
  if (!to.isPartial() || from == to)
    return "";
  // S(d) -> P(sum): each rank's shard in place, zeros elsewhere (DTensor
  // 2.15's redistribute accepts it).
  if (from.isShard() && to.reduce != ReduceKind::Sum)
    return "cannot redistribute " + formatPlacement(from) + " to " +
           formatPlacement(to) +
           ": a shard can only become a Partial(sum) (its shard in place, "
           "zeros elsewhere); go through Replicate (R) first for " +
           formatPlacement(to);
  if (from.isPartial())
    return "cannot redistribute " + formatPlacement(from) + " to " +
           formatPlacement(to) +
           ": one Partial reduction cannot become another; reduce to R first";
  if (to.reduce == ReduceKind::Product)
    return "cannot redistribute R to P(product): no local op turns a "
           "replicated value into product terms; keep it R";
  return "";
}

std::vector<Placements> enumeratePlacements(int64_t meshRank, int64_t rank,
                                            ReduceKind partial,
                                            bool withOrders) {
  std::vector<Placement> choices{Placement::replicate(),
                                 Placement::partial(partial)};
  for (int64_t d = 0; d < rank; ++d)
    choices.push_back(Placement::shard(d));
  std::vector<Placements> out;
  Placements cur(meshRank);
  std::function<void(int64_t)> rec = [&](int64_t m) {
    if (m == meshRank) {
      // every order of each tensor dim's mesh dims
      std::vector<std::vector<int64_t>> byDim(rank);
      for (int64_t i = 0; i < meshRank; ++i)
        if (cur[i].isShard())
          byDim[cur[i].dim].push_back(i);
      std::function<void(int64_t, Placements)> orders = [&](int64_t d,
                                                            Placements ps) {
        if (d == rank) {
          out.push_back(dropDefaultOrders(ps));
          return;
        }
        std::vector<int64_t> perm = byDim[d];
        std::sort(perm.begin(), perm.end());
        do {
          Placements q = ps;
          for (size_t k = 0; k < perm.size(); ++k)
            q[perm[k]].order = perm.size() > 1 ? (int64_t)k : -1;
          orders(d + 1, q);
          if (!withOrders)
            break;
        } while (std::next_permutation(perm.begin(), perm.end()));
      };
      orders(0, cur);
      return;
    }
    for (const Placement &p : choices) {
      cur[m] = p;
      rec(m + 1);
    }
  };
  rec(0);
  return out;
}

} // namespace dtensor
} // namespace mlir
