//===- DTensorKernels.cpp - collectives and DTensor API ops ---------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Collectives are computed exactly over every group of their mesh dims (the
// core's meshGroups, so group order is the one the IR documents). The DTensor
// API ops run in the global view, where a distributed value is its logical
// tensor plus spec; shards and Partial terms are derived with the layout core.
//
//===----------------------------------------------------------------------===//

#include "BodyProgram.h"
#include "dtensor/Core/Redistribute.h"
#include "dtensor/Interpreter/Interpreter.h"

#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dtensor;
using namespace mlir::dtensor::interp;

//===----------------------------------------------------------------------===//
// Layout helpers
//===----------------------------------------------------------------------===//

FailureOr<Layout> Interpreter::layoutOf(RankedTensorType type, Operation *at) {
  SpecAttr spec = getSpec(type);
  if (!type.hasStaticShape())
    return at->emitOpError() << "holds " << type
                             << ": the global view needs static shapes";
  return verifySpecForMesh(at, spec, type.getRank(), symbolTable,
                           [&]() { return at->emitOpError(); });
}

const Interpreter::Groups &Interpreter::groupsOf(SpecAttr spec) const {
  MeshViewRef view = spec.getView();
  std::vector<int64_t> dims(view.dims.begin(), view.dims.end());
  auto key = std::make_tuple(view.mesh.getValue().str(), dims, view.flattened);
  std::lock_guard<std::mutex> lock(viewGroupsMutex);
  auto it = viewGroups.find(key);
  if (it != viewGroups.end())
    return it->second;
  const Shape &mesh = meshShapeOf(view.mesh.getValue());
  // A whole mesh is its dims in order; a view lists its own (a flattened
  // view's are its one dim's, row-major), which verification checked.
  std::vector<int64_t> meshDims = dims;
  if (meshDims.empty())
    for (int64_t d = 0, e = mesh.size(); d < e; ++d)
      meshDims.push_back(d);
  return viewGroups.emplace(key, meshGroups(mesh, meshDims)).first->second;
}

MValue Interpreter::gatherGroup(const MValue &world,
                                const std::vector<int64_t> &group) {
  if (world.uniform)
    return world;
  MValue view;
  view.uniform = false;
  for (int64_t r : group)
    view.values.push_back(world.on(r));
  return view;
}

void Interpreter::scatterGroup(MValue &world, const std::vector<int64_t> &group,
                               const MValue &view) const {
  if (world.uniform) {
    RValue fill = world.values.empty() ? RValue() : world.values[0];
    world.uniform = false;
    world.values.assign(numRanks(), fill);
  }
  for (auto [v, r] : llvm::enumerate(group))
    world.values[r] = view.on(v);
}

std::optional<MValue> Interpreter::shardsOfDist(const MValue &v,
                                                std::string &error) const {
  const DistTensor &first = *v.on(0).dist;
  const Groups &groups = groupsOf(first.spec);
  if (groups.size() == 1 || v.uniform) {
    std::optional<MValue> view =
        shardsOf(first.global, first.layout, first.layout.placements(), error);
    if (!view || groups.size() == 1)
      return view;
    MValue world;
    for (const std::vector<int64_t> &group : groups)
      scatterGroup(world, group, *view);
    return world;
  }
  MValue world;
  for (const std::vector<int64_t> &group : groups) {
    const DistTensor &d = *v.on(group.front()).dist;
    std::optional<MValue> view =
        shardsOf(d.global, d.layout, d.layout.placements(), error);
    if (!view)
      return std::nullopt;
    scatterGroup(world, group, *view);
  }
  return world;
}

namespace {

/// Mesh dims holding `kind`, and the groups over them.
std::vector<int64_t> dimsOfKind(const Placements &ps, PlacementKind kind) {
  std::vector<int64_t> dims;
  for (size_t m = 0; m < ps.size(); ++m)
    if (ps[m].kind == kind)
      dims.push_back(m);
  return dims;
}

/// a + b and a * b, wrapping for integers (a signed overflow is undefined in
/// C++; MLIR's integers wrap).
template <typename T> T addWrapping(T a, T b) {
  if constexpr (std::is_integral_v<T> && sizeof(T) >= sizeof(int))
    return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
  else
    return T(a + b);
}
template <typename T> T mulWrapping(T a, T b) {
  if constexpr (std::is_integral_v<T> && sizeof(T) >= sizeof(int))
    return T(std::make_unsigned_t<T>(a) * std::make_unsigned_t<T>(b));
  else if constexpr (std::is_integral_v<T>)
    return T(unsigned(a) * unsigned(b)); // (int8/int16 promote to int)
  else
    return T(a * b);
}

/// A Partial max or min of floats combines as torch.maximum / minimum (what
/// LocalTensor's collectives do) and arith.maximumf / minimumf: a NaN term
/// makes the result NaN whichever rank holds it (std::max kept or dropped
/// it by the order of its operands), and -0 orders below +0.
template <typename T> T maxOrMin(bool max, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return max ? std::max(a, b) : std::min(a, b);
  } else if constexpr (std::is_floating_point_v<T>) {
    return T(max ? interp::maximumF(a, b) : interp::minimumF(a, b));
  } else { // Half, BFloat16: either operand, exactly
    return T(float(max ? interp::maximumF(float(a), float(b))
                       : interp::minimumF(float(a), float(b))));
  }
}

template <typename T> T combine(Reduction r, T a, T b) {
  switch (r) {
  case Reduction::Sum:
  case Reduction::Avg:
    return addWrapping(a, b);
  case Reduction::Max:
    return maxOrMin(true, a, b);
  case Reduction::Min:
    return maxOrMin(false, a, b);
  case Reduction::Product:
    return mulWrapping(a, b);
  }
  return a;
}

/// The average of `terms` at elements [begin, end) into `o`: floats divide
/// each term by the count, then sum in rank order in their type (as NCCL's
/// ncclAvg and DDP's pre-divided gradients do: a sum of large terms then
/// overflows only where the mean does; for a power-of-two count the bits
/// are those of the sum divided after, as a binary scaling commutes with
/// rounding); integers sum in i64 and divide truncating toward zero, so the
/// mean of i8, i16 and i32 terms is exact (an i8 mean of four 100s is 100,
/// where a sum in i8 wrapped to -112 and gave -28; an i64 sum wraps). The
/// runtime computes the same (runtime/lib/Collectives.cpp).
template <typename T>
void averageTerms(const std::vector<const Tensor *> &terms, T *o,
                  int64_t begin, int64_t end) {
  int64_t count = static_cast<int64_t>(terms.size());
  if constexpr (std::is_integral_v<T>) {
    // (An i64 sum wraps, as the runtime's does: MPI and NCCL have no
    // wider integer.)
    for (int64_t i = begin; i < end; ++i) {
      int64_t sum = 0;
      for (const Tensor *t : terms)
        sum = addWrapping(sum, int64_t(t->data<T>()[i]));
      o[i] = T(sum / count);
    }
  } else {
    const T n = T(count);
    for (int64_t i = begin; i < end; ++i)
      o[i] = T(terms.front()->data<T>()[i] / n);
    for (size_t t = 1; t < terms.size(); ++t) {
      const T *x = terms[t]->data<T>();
      for (int64_t i = begin; i < end; ++i)
        o[i] = T(o[i] + T(x[i] / n));
    }
  }
}

/// Element-wise reduction of equally shaped tensors.
std::optional<Tensor> reduceAll(const std::vector<const Tensor *> &terms,
                                Reduction r, std::string &error) {
  std::optional<Tensor> made =
      Tensor::create(terms.front()->dtype(), terms.front()->shape(), error);
  if (!made)
    return std::nullopt;
  Tensor &out = *made;
  int64_t n = out.numElements();
  dispatch(out.dtype(), [&](auto v) {
    using T = decltype(v);
    T *o = out.mutableData<T>();
    // Chunks of elements on the rank threads; each chunk combines the terms
    // in rank order, so the result does not depend on the threads.
    parallelChunks(n, int64_t(1) << 15, [&](int64_t begin, int64_t end) {
      if (r == Reduction::Avg && out.dtype() != DType::I1) {
        averageTerms<T>(terms, o, begin, end);
        return;
      }
      std::copy(terms.front()->data<T>() + begin,
                terms.front()->data<T>() + end, o + begin);
      for (size_t t = 1; t < terms.size(); ++t) {
        const T *x = terms[t]->data<T>();
        auto each = [&](auto combineFn) {
          for (int64_t i = begin; i < end; ++i)
            o[i] = combineFn(o[i], x[i]);
        };
        bool isBool = out.dtype() == DType::I1;
        switch (r) {
        case Reduction::Sum:
        case Reduction::Avg: // (of i1; others averaged above)
          // A bool sum is a logical or (torch's bool + bool; the runtime's
          // MPI_MAX / ncclMax), never a value other than 0 or 1.
          if (isBool)
            each([](T a, T b) { return T(a != 0 || b != 0); });
          else
            each([](T a, T b) { return addWrapping(a, b); });
          break;
        default:
          each([r](T a, T b) { return combine(r, a, b); });
        }
      }
    });
  });
  return made;
}

/// A box's offset with empty dims at 0 (an empty box's offset says nothing).
Shape boxOffset(const Shard &s) {
  Shape offset = s.offset;
  for (size_t d = 0; d < offset.size(); ++d)
    if (s.shape[d] == 0)
      offset[d] = 0;
  return offset;
}

/// DTensor's R -> P, in place on one rank's copy of the value: sum divides
/// by the group size `n` (floats), avg/max/min keep the value; integer sums
/// and products put the value on group rank 0 (`first`) and the identity
/// elsewhere.
void toPartialTerm(Tensor &t, ReduceKind kind, int64_t n, bool first) {
  dispatch(t.dtype(), [&](auto v) {
    using T = decltype(v);
    T *x = t.mutableData<T>();
    int64_t count = t.numElements();
    if (kind == ReduceKind::Sum && isFloat(t.dtype())) {
      for (int64_t i = 0; i < count; ++i)
        x[i] = T(x[i] / T(n));
    } else if ((kind == ReduceKind::Sum || kind == ReduceKind::Product) &&
               !first) {
      std::fill_n(x, count, T(kind == ReduceKind::Sum ? 0 : 1));
    }
  });
}

} // namespace

std::optional<MValue> Interpreter::shardsOf(const Tensor &global,
                                            const Layout &layout,
                                            const Placements &ps,
                                            std::string &error) const {
  const Shape &mesh = layout.mesh();
  std::vector<int64_t> partialDims = dimsOfKind(ps, PlacementKind::Partial);
  bool anyShard = !dimsOfKind(ps, PlacementKind::Shard).empty();
  if (!anyShard && partialDims.empty())
    return MValue::same(RValue::ofTensor(global));
  MValue out;
  out.uniform = false;
  int64_t partialSize = 1;
  for (int64_t m : partialDims)
    partialSize *= mesh[m];
  // Replicas hold equal shards: one copy each, keyed by the shard's box
  // (an empty one's offset says nothing) and, for Partial, whether the rank
  // is the one that keeps an integer sum or product.
  std::map<std::tuple<Shape, Shape, bool>, Tensor> made;
  for (int64_t r = 0; r < layout.numRanks(); ++r) {
    Shape coord = rankToCoord(mesh, r);
    Shard s = layout.shardAt(global.shape(), coord);
    Shape offset = boxOffset(s);
    bool first = llvm::all_of(partialDims,
                              [&](int64_t m) { return coord[m] == 0; });
    auto key = std::make_tuple(offset, s.shape, first);
    auto it = made.find(key);
    if (it != made.end()) {
      out.values.push_back(RValue::ofTensor(it->second));
      continue;
    }
    std::optional<Tensor> t = global.slice(offset, s.shape, error);
    if (!t) {
      error = "the shard of rank " + std::to_string(r) + ": " + error;
      return std::nullopt;
    }
    if (!partialDims.empty())
      toPartialTerm(*t, ps[partialDims.front()].reduce, partialSize, first);
    made.emplace(key, *t);
    out.values.push_back(RValue::ofTensor(std::move(*t)));
  }
  return out;
}

std::optional<Tensor> Interpreter::assemble(const MValue &local,
                                            const Layout &layout, DType dtype,
                                            const Shape &global,
                                            std::string &error) const {
  const Shape &mesh = layout.mesh();
  const Placements &ps = layout.placements();
  std::vector<int64_t> partialDims = dimsOfKind(ps, PlacementKind::Partial);
  std::optional<Tensor> made = Tensor::create(dtype, global, error);
  if (!made) {
    error = "cannot hold the global tensor: " + error;
    return std::nullopt;
  }
  Tensor &out = *made;
  for (int64_t r = 0; r < layout.numRanks(); ++r) {
    Shape coord = rankToCoord(mesh, r);
    Shard s = layout.shardAt(global, coord);
    const RValue &v = local.on(r);
    if (v.kind != RValue::Kind::Tensor) {
      error = "rank " + std::to_string(r) + " holds no tensor";
      return std::nullopt;
    }
    if (v.tensor.shape() != s.shape || v.tensor.dtype() != dtype) {
      std::string got, want;
      for (int64_t d : v.tensor.shape())
        got += (got.empty() ? "" : "x") + std::to_string(d);
      for (int64_t d : s.shape)
        want += (want.empty() ? "" : "x") + std::to_string(d);
      error = "rank " + std::to_string(r) + "'s local tensor is " + got + " " +
              stringifyDType(v.tensor.dtype()) + ", but its shard under " +
              formatPlacements(ps) + " is " + want + " " +
              stringifyDType(dtype);
      return std::nullopt;
    }
    // Replicas and Partial terms are read from coordinate 0 of those dims.
    bool representative = true;
    for (size_t m = 0; m < ps.size(); ++m)
      if (!ps[m].isShard() && coord[m] != 0)
        representative = false;
    if (!representative)
      continue;
    Tensor value = v.tensor;
    if (!partialDims.empty()) {
      std::vector<const Tensor *> terms;
      for (const std::vector<int64_t> &group :
           meshGroups(mesh, partialDims))
        if (group.front() == r)
          for (int64_t member : group)
            terms.push_back(&local.on(member).tensor);
      std::optional<Tensor> sum = reduceAll(
          terms, toReduction(ps[partialDims.front()].reduce), error);
      if (!sum) {
        error = "cannot hold the reduced Partial terms of rank " +
                std::to_string(r) + ": " + error;
        return std::nullopt;
      }
      value = std::move(*sum);
    }
    out.write(value, boxOffset(s));
  }
  return made;
}

//===----------------------------------------------------------------------===//
// Partial terms
//===----------------------------------------------------------------------===//

namespace {
/// The row-major index of `coord`'s coordinates over mesh dims `dims`.
int64_t termIndex(const Shape &mesh, const std::vector<int64_t> &dims,
                  const Shape &coord) {
  int64_t index = 0;
  for (int64_t m : dims)
    index = index * mesh[m] + coord[m];
  return index;
}
/// The mesh coordinate (zeros off `dims`) of term `index` over `dims`.
Shape termCoord(const Shape &mesh, const std::vector<int64_t> &dims,
                int64_t index) {
  Shape coord(mesh.size(), 0);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) {
    coord[dims[i]] = index % mesh[dims[i]];
    index /= mesh[dims[i]];
  }
  return coord;
}
int64_t termCount(const Shape &mesh, const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t m : dims)
    n *= mesh[m];
  return n;
}
/// The one reduction of `ps`'s Partial dims, or none when they differ.
std::optional<ReduceKind> partialKind(const Placements &ps) {
  std::optional<ReduceKind> kind;
  for (const Placement &p : ps)
    if (p.isPartial()) {
      if (kind && *kind != p.reduce)
        return std::nullopt;
      kind = p.reduce;
    }
  return kind;
}
bool emptyBox(const Shard &s) {
  return llvm::any_of(s.shape, [](int64_t n) { return n == 0; });
}
/// R -> P's term at coordinate `first` (all Partial coordinates 0) or not,
/// of `value`, over a group of `n` terms.
std::optional<Tensor> replicateToPartial(const Tensor &value, ReduceKind kind,
                                         int64_t n, bool first,
                                         std::string &error) {
  std::optional<Tensor> t = value.copy(error);
  if (!t)
    return std::nullopt;
  toPartialTerm(*t, kind, n, first);
  return t;
}
} // namespace

std::optional<std::vector<Tensor>>
Interpreter::termsFromLocals(const MValue &local, const Layout &layout,
                             const Tensor &global, std::string &error) const {
  const Shape &mesh = layout.mesh();
  std::vector<int64_t> pdims =
      dimsOfKind(layout.placements(), PlacementKind::Partial);
  std::vector<Tensor> terms;
  for (int64_t c = 0, n = termCount(mesh, pdims); c < n; ++c) {
    std::optional<Tensor> t =
        Tensor::create(global.dtype(), global.shape(), error);
    if (!t)
      return std::nullopt;
    terms.push_back(std::move(*t));
  }
  for (int64_t r = 0; r < layout.numRanks(); ++r) {
    Shape coord = rankToCoord(mesh, r);
    Shard s = layout.shardAt(global.shape(), coord);
    if (!emptyBox(s))
      terms[termIndex(mesh, pdims, coord)].write(local.on(r).tensor,
                                                      boxOffset(s));
  }
  return terms;
}

/// Whether `d` redistributed to `target` has terms other than R -> P's:
/// `target` has Partial dims of one reduction (the source's, if it has
/// any), and `d` has terms of its own or gains a zero-padded shard.
static bool termsMatter(const DistTensor &d, const Layout &target) {
  const Placements &from = d.layout.placements();
  const Placements &to = target.placements();
  std::vector<int64_t> pt = dimsOfKind(to, PlacementKind::Partial);
  std::optional<ReduceKind> ks = partialKind(from), kt = partialKind(to);
  bool sourcePartial = !dimsOfKind(from, PlacementKind::Partial).empty();
  if (pt.empty() || !kt || (sourcePartial && (!ks || *ks != *kt)))
    return false;
  return d.terms || llvm::any_of(pt, [&](int64_t m) { return from[m].isShard(); });
}

std::optional<std::shared_ptr<const std::vector<Tensor>>>
Interpreter::redistributeTerms(const DistTensor &d, const Layout &target,
                               std::string &error) const {
  const Shape &mesh = d.layout.mesh();
  using Terms = std::shared_ptr<const std::vector<Tensor>>;
  if (!termsMatter(d, target))
    return Terms();
  const Placements &from = d.layout.placements();
  const Placements &to = target.placements();
  std::vector<int64_t> ps = dimsOfKind(from, PlacementKind::Partial);
  std::vector<int64_t> pt = dimsOfKind(to, PlacementKind::Partial);
  std::optional<ReduceKind> ks = partialKind(from), kt = partialKind(to);
  auto isNewShard = [&](int64_t m) { return from[m].isShard(); };
  const Shape &shape = d.global.shape();

  // The source's terms (R -> P's when it keeps none).
  std::vector<Tensor> source;
  if (d.terms) {
    source = *d.terms;
  } else {
    int64_t n = termCount(mesh, ps);
    for (int64_t c = 0; c < n; ++c) {
      std::optional<Tensor> t =
          ps.empty() ? std::optional<Tensor>(d.global)
                     : replicateToPartial(d.global, *ks, n, c == 0, error);
      if (!t)
        return std::nullopt;
      source.push_back(std::move(*t));
    }
  }

  // Partial dims that go are reduced; those that stay keep their terms.
  std::vector<int64_t> kept, removed, fresh;
  for (int64_t m : ps)
    (to[m].isPartial() ? kept : removed).push_back(m);
  for (int64_t m : pt)
    if (!from[m].isPartial())
      fresh.push_back(m);
  std::vector<Tensor> base(termCount(mesh, kept));
  {
    std::vector<std::vector<const Tensor *>> groups(base.size());
    for (int64_t c = 0, n = termCount(mesh, ps); c < n; ++c) {
      Shape coord = termCoord(mesh, ps, c);
      groups[termIndex(mesh, kept, coord)].push_back(&source[c]);
    }
    for (size_t k = 0; k < base.size(); ++k) {
      if (groups[k].size() == 1) {
        base[k] = *groups[k].front();
        continue;
      }
      std::optional<Tensor> r = reduceAll(groups[k], toReduction(*ks), error);
      if (!r)
        return std::nullopt;
      base[k] = std::move(*r);
    }
  }

  // New Partial dims: S(d) -> P(sum) keeps the elements the rank owned
  // (zeros elsewhere); R -> P takes its rule.
  std::vector<int64_t> padded, replicated;
  for (int64_t m : fresh)
    (isNewShard(m) ? padded : replicated).push_back(m);
  int64_t replicatedSize = termCount(mesh, replicated);
  auto terms = std::make_shared<std::vector<Tensor>>();
  for (int64_t c = 0, n = termCount(mesh, pt); c < n; ++c) {
    Shape coord = termCoord(mesh, pt, c);
    Tensor value = base[termIndex(mesh, kept, coord)];
    if (!padded.empty()) {
      std::optional<Tensor> out = Tensor::create(value.dtype(), shape, error);
      if (!out)
        return std::nullopt;
      for (int64_t r = 0; r < d.layout.numRanks(); ++r) {
        Shape rc = rankToCoord(mesh, r);
        if (!llvm::all_of(padded, [&](int64_t m) { return rc[m] == coord[m]; }))
          continue;
        Shard s = d.layout.shardAt(shape, rc);
        if (!emptyBox(s))
          out->writeBox(value, boxOffset(s), s.shape, boxOffset(s));
      }
      value = std::move(*out);
    }
    if (!replicated.empty()) {
      bool first = llvm::all_of(replicated,
                                [&](int64_t m) { return coord[m] == 0; });
      std::optional<Tensor> t =
          replicateToPartial(value, *kt, replicatedSize, first, error);
      if (!t)
        return std::nullopt;
      value = std::move(*t);
    }
    terms->push_back(std::move(value));
  }
  return Terms(std::move(terms));
}

std::optional<std::shared_ptr<const std::vector<Tensor>>>
Interpreter::plannedTerms(const DistTensor &d, const Layout &target,
                          std::string &error) const {
  const Shape &mesh = d.layout.mesh();
  if (target.placements() == d.layout.placements())
    return d.terms;
  if (!termsMatter(d, target))
    return std::shared_ptr<const std::vector<Tensor>>();
  // Where a transition has several ways (R -> P, our extension, may be
  // reached through a zero-padded shard), the terms are the compiled
  // program's: the planner's steps (default cost model) replayed.
  RedistributeRequest req{mesh, d.global.shape(),
                          byteWidth(d.global.dtype()), d.layout.placements(),
                          target.placements()};
  std::string planError;
  if (std::optional<Plan> plan = planRedistribute(req, CostModel{}, planError)) {
    DistTensor cur = d;
    bool replayed = true;
    for (const Step &step : plan->steps) {
      std::optional<Layout> next =
          Layout::create(mesh, d.global.rank(), step.after, planError);
      if (!next) {
        replayed = false;
        break;
      }
      auto made = redistributeTerms(cur, *next, error);
      if (!made)
        return std::nullopt;
      cur.layout = std::move(*next);
      cur.terms = std::move(*made);
    }
    // (The plan may end in another spelling of the target: a shard order
    // through a mesh dim of size 1.)
    if (replayed && sameState(cur.layout.placements(), target.placements(),
                              mesh, d.global.rank()))
      return cur.terms;
  }
  return redistributeTerms(d, target, error);
}

std::optional<MValue> Interpreter::localsOf(const DistTensor &d,
                                            const Layout &layout,
                                            std::string &error) const {
  const Shape &mesh = layout.mesh();
  auto made = plannedTerms(d, layout, error);
  if (!made)
    return std::nullopt;
  std::shared_ptr<const std::vector<Tensor>> terms = *made;
  if (!terms)
    return shardsOf(d.global, layout, layout.placements(), error);
  std::vector<int64_t> pdims =
      dimsOfKind(layout.placements(), PlacementKind::Partial);
  MValue out;
  out.uniform = false;
  for (int64_t r = 0; r < layout.numRanks(); ++r) {
    Shape coord = rankToCoord(mesh, r);
    Shard s = layout.shardAt(d.global.shape(), coord);
    std::optional<Tensor> t = (*terms)[termIndex(mesh, pdims, coord)]
                                  .slice(boxOffset(s), s.shape, error);
    if (!t) {
      error = "the shard of rank " + std::to_string(r) + ": " + error;
      return std::nullopt;
    }
    out.values.push_back(RValue::ofTensor(std::move(*t)));
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Communication report
//===----------------------------------------------------------------------===//

namespace {
std::string dimsText(const std::vector<int64_t> &dims,
                     const std::vector<std::string> &names, bool quoted) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    s += i ? ", " : "";
    std::string name = dims[i] < (int64_t)names.size()
                           ? names[dims[i]]
                           : std::to_string(dims[i]);
    bool isNumber = !name.empty() && std::isdigit((unsigned char)name[0]);
    s += (quoted && !isNumber) ? "\"" + name + "\"" : name;
  }
  return s + "]";
}

/// Group `i` of `stat` as text: its dims by name, after its mesh's name
/// when the program has several meshes.
std::string groupText(const CommReport &report, const CommStat &stat,
                      size_t i, bool json) {
  static const std::vector<std::string> none;
  auto it = report.meshDimNames.find(stat.meshes[i]);
  std::string dims = dimsText(
      stat.meshDims[i], it == report.meshDimNames.end() ? none : it->second,
      true);
  if (report.meshDimNames.size() <= 1)
    return dims;
  if (json)
    return "{\"mesh\": \"" + stat.meshes[i] + "\", \"dims\": " + dims + "}";
  return "@" + stat.meshes[i] + dims;
}

const char *kKindOrder[] = {"all_gather", "all_reduce", "reduce_scatter",
                            "all_to_all", "broadcast",  "permute"};
} // namespace

void CommReport::print(llvm::raw_ostream &os) const {
  int64_t count = 0, bytes = 0;
  for (auto &[kind, stat] : byKind) {
    count += stat.count;
    bytes += stat.bytes;
  }
  os << "communication: " << count << " collective"
     << (count == 1 ? "" : "s") << ", " << bytes << " bytes/rank\n";
  for (const char *kind : kKindOrder) {
    auto it = byKind.find(kind);
    if (it == byKind.end())
      continue;
    std::string groups;
    for (size_t i = 0; i < it->second.meshDims.size(); ++i)
      groups += (i ? ", " : "") + groupText(*this, it->second, i, false);
    os << llvm::format("  %-15s %4lld %10lld bytes  mesh dims %s\n", kind,
                       (long long)it->second.count,
                       (long long)it->second.bytes, groups.c_str());
  }
}

void CommReport::printJson(llvm::raw_ostream &os) const {
  int64_t count = 0, bytes = 0;
  os << "{\"collectives\": {";
  bool first = true;
  for (const char *kind : kKindOrder) {
    auto it = byKind.find(kind);
    if (it == byKind.end())
      continue;
    count += it->second.count;
    bytes += it->second.bytes;
    os << (first ? "" : ", ") << "\"" << kind << "\": {\"count\": "
       << it->second.count << ", \"bytes\": " << it->second.bytes
       << ", \"mesh_dims\": [";
    for (size_t i = 0; i < it->second.meshDims.size(); ++i)
      os << (i ? ", " : "") << groupText(*this, it->second, i, true);
    os << "]}";
    first = false;
  }
  os << "}, \"total\": {\"count\": " << count << ", \"bytes\": " << bytes
     << "}}\n";
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

namespace {

using Kernels = llvm::StringMap<Interpreter::Kernel>;

struct GroupContext {
  std::vector<std::vector<int64_t>> groups;
  std::vector<const Tensor *> inputs; // per rank
  std::vector<Tensor> outputs;        // per rank
};

/// Common frame of a collective: groups, per-rank inputs, stats, binding
/// (as a future when the op is async).
template <typename OpTy>
LogicalResult runCollective(
    Interpreter &I, Operation *op, const char *kind,
    llvm::function_ref<LogicalResult(OpTy, GroupContext &,
                                     const std::vector<int64_t> &group)>
        body) {
  auto coll = llvm::cast<OpTy>(op);
  std::vector<int64_t> meshDims(coll.getMeshDims().begin(),
                                coll.getMeshDims().end());
  GroupContext ctx;
  ctx.groups = meshGroups(I.meshShapeOf(coll.getMesh()), meshDims);
  const MValue &in = I.lookup(coll.getInput());
  int64_t n = I.numRanks();
  ctx.outputs.resize(n);
  for (int64_t r = 0; r < n; ++r) {
    const RValue &v = in.on(r);
    if (v.kind != RValue::Kind::Tensor)
      return op->emitOpError() << "input on rank " << r << " is not a tensor";
    ctx.inputs.push_back(&v.tensor);
  }
  for (const std::vector<int64_t> &group : ctx.groups) {
    for (int64_t member : group)
      if (ctx.inputs[member]->shape() != ctx.inputs[group.front()]->shape())
        return op->emitOpError()
               << "needs the same input shape on every rank of a group, but "
                  "ranks "
               << group.front() << " and " << member << " differ";
    if (failed(body(coll, ctx, group)))
      return failure();
  }
  int64_t bytes = 0;
  for (int64_t r = 0; r < n; ++r)
    bytes = std::max({bytes, ctx.inputs[r]->numBytes(),
                      ctx.outputs[r].numBytes()});
  CommStat &stat = I.report().byKind[kind];
  ++stat.count;
  stat.bytes += bytes;
  std::string meshName =
      llvm::cast<DeviceMeshType>(coll.getMesh().getType()).getMesh().getValue().str();
  bool seen = false;
  for (size_t i = 0; i < stat.meshDims.size() && !seen; ++i)
    seen = stat.meshDims[i] == meshDims && stat.meshes[i] == meshName;
  if (!seen) {
    stat.meshDims.push_back(meshDims);
    stat.meshes.push_back(meshName);
  }
  bool async = llvm::isa<FutureType>(op->getResult(0).getType());
  MValue out;
  out.uniform = false;
  for (Tensor &t : ctx.outputs) {
    RValue v = RValue::ofTensor(std::move(t));
    if (async)
      v.kind = RValue::Kind::Future;
    out.values.push_back(std::move(v));
  }
  I.bind(op->getResult(0), std::move(out));
  return success();
}


void registerCollectives(Kernels &k) {
  k["dtensor.all_gather"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    return runCollective<AllGatherOp>(
        I, op, "all_gather",
        [&](AllGatherOp g, GroupContext &ctx, const std::vector<int64_t> &group)
            -> LogicalResult {
          std::vector<Tensor> parts;
          for (int64_t m : group)
            parts.push_back(*ctx.inputs[m]);
          // One gathered tensor per group, shared by its members.
          std::string error;
          std::optional<Tensor> all =
              Tensor::concat(parts, g.getGatherDim(), error);
          if (!all)
            return emitCannotHold(op, group.front(), error);
          for (int64_t m : group)
            ctx.outputs[m] = *all;
          return success();
        });
  };
  k["dtensor.all_reduce"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    return runCollective<AllReduceOp>(
        I, op, "all_reduce",
        [&](AllReduceOp a, GroupContext &ctx, const std::vector<int64_t> &group)
            -> LogicalResult {
          std::vector<const Tensor *> terms;
          for (int64_t m : group)
            terms.push_back(ctx.inputs[m]);
          std::string error;
          std::optional<Tensor> out = reduceAll(terms, a.getReduce(), error);
          if (!out)
            return emitCannotHold(op, group.front(), error);
          for (int64_t m : group)
            ctx.outputs[m] = *out;
          return success();
        });
  };
  k["dtensor.reduce_scatter"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    return runCollective<ReduceScatterOp>(
        I, op, "reduce_scatter",
        [&](ReduceScatterOp rs, GroupContext &ctx,
            const std::vector<int64_t> &group) -> LogicalResult {
          std::vector<const Tensor *> terms;
          for (int64_t m : group)
            terms.push_back(ctx.inputs[m]);
          std::string error;
          std::optional<Tensor> sum = reduceAll(terms, rs.getReduce(), error);
          if (!sum)
            return emitCannotHold(op, group.front(), error);
          int64_t d = rs.getScatterDim(), n = group.size();
          if (sum->shape()[d] % n)
            return rs.emitOpError()
                   << "scatters " << sum->shape()[d] << " rows over " << n
                   << " ranks; pad to a multiple first";
          Shape offset(sum->rank(), 0), size = sum->shape();
          size[d] /= n;
          for (int64_t i = 0; i < n; ++i) {
            offset[d] = i * size[d];
            std::optional<Tensor> piece = sum->slice(offset, size, error);
            if (!piece)
              return emitCannotHold(op, group[i], error);
            ctx.outputs[group[i]] = std::move(*piece);
          }
          return success();
        });
  };
  k["dtensor.all_to_all"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    return runCollective<AllToAllOp>(
        I, op, "all_to_all",
        [&](AllToAllOp a, GroupContext &ctx,
            const std::vector<int64_t> &group) -> LogicalResult {
          int64_t split = a.getSplitDim(), concat = a.getConcatDim();
          int64_t n = group.size();
          const Shape &shape = ctx.inputs[group.front()]->shape();
          if (shape[split] % n)
            return a.emitOpError() << "splits " << shape[split] << " over "
                                   << n << " ranks; pad first";
          Shape size = shape;
          size[split] /= n;
          std::string error;
          for (int64_t t = 0; t < n; ++t) {
            // Each piece is copied once, straight into its receiver's
            // output (no per-piece temporaries).
            Shape outShape = size;
            std::optional<int64_t> joined =
                llvm::checkedMul(outShape[concat], n);
            if (!joined)
              return a.emitOpError()
                     << "concatenates " << n << " pieces of size "
                     << size[concat] << ", which overflows";
            outShape[concat] = *joined;
            std::optional<Tensor> out =
                Tensor::create(ctx.inputs[group[t]]->dtype(), outShape, error);
            if (!out)
              return emitCannotHold(op, group[t], error);
            Shape offset(shape.size(), 0), at(shape.size(), 0);
            offset[split] = t * size[split];
            for (int64_t m : group) {
              out->writeBox(*ctx.inputs[m], offset, size, at);
              at[concat] += size[concat];
            }
            ctx.outputs[group[t]] = std::move(*out);
          }
          return success();
        });
  };
  k["dtensor.broadcast"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    return runCollective<BroadcastOp>(
        I, op, "broadcast",
        [&](BroadcastOp b, GroupContext &ctx, const std::vector<int64_t> &group) {
          const Tensor &root = *ctx.inputs[group[b.getRoot()]];
          for (int64_t m : group)
            ctx.outputs[m] = root;
          return success();
        });
  };
  k["dtensor.permute"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    return runCollective<PermuteOp>(
        I, op, "permute",
        [&](PermuteOp p, GroupContext &ctx, const std::vector<int64_t> &group)
            -> LogicalResult {
          // Ranks no pair sends to receive zeros.
          std::string error;
          for (int64_t m : group) {
            std::optional<Tensor> zeros = Tensor::create(
                ctx.inputs[m]->dtype(), ctx.inputs[m]->shape(), error);
            if (!zeros)
              return emitCannotHold(op, m, error);
            ctx.outputs[m] = std::move(*zeros);
          }
          ArrayRef<int64_t> pairs = p.getSourceTargetPairs();
          for (size_t i = 0; i + 1 < pairs.size(); i += 2)
            ctx.outputs[group[pairs[i + 1]]] = *ctx.inputs[group[pairs[i]]];
          return success();
        });
  };
  k["dtensor.wait"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    MValue m = I.lookup(op->getOperand(0));
    for (RValue &v : m.values)
      v.kind = RValue::Kind::Tensor;
    I.bind(op->getResult(0), std::move(m));
    return success();
  };
}

void registerQueries(Kernels &k) {
  auto query = [](Interpreter &I, Operation *op,
                  llvm::function_ref<int64_t(const Shape &)> fn) {
    MValue out;
    out.uniform = false;
    const Shape &mesh = I.meshShapeOf(op->getOperand(0));
    for (int64_t r = 0; r < I.numRanks(); ++r)
      out.values.push_back(RValue::ofInt(fn(rankToCoord(mesh, r))));
    I.bind(op->getResult(0), std::move(out));
    return success();
  };
  k["dtensor.mesh_coord"] = [query](Interpreter &I, Operation *op) -> LogicalResult {
    auto q = llvm::cast<MeshCoordOp>(op);
    std::vector<int64_t> dims(q.getMeshDims().begin(), q.getMeshDims().end());
    return query(I, op, [&](const Shape &coord) {
      int64_t index = 0;
      for (int64_t m : dims)
        index = index * I.meshShapeOf(op->getOperand(0))[m] + coord[m];
      return index;
    });
  };
  k["dtensor.shard_size"] = [query](Interpreter &I, Operation *op) -> LogicalResult {
    auto q = llvm::cast<ShardSizeOp>(op);
    return query(I, op, [&](const Shape &coord) {
      std::vector<int64_t> dims(q.getMeshDims().begin(), q.getMeshDims().end());
      return nestedChunk(q.getSize(), I.meshShapeOf(q.getMesh()), dims, coord).size;
    });
  };
  k["dtensor.shard_offset"] = [query](Interpreter &I, Operation *op) -> LogicalResult {
    auto q = llvm::cast<ShardOffsetOp>(op);
    return query(I, op, [&](const Shape &coord) {
      std::vector<int64_t> dims(q.getMeshDims().begin(), q.getMeshDims().end());
      return nestedChunk(q.getSize(), I.meshShapeOf(q.getMesh()), dims, coord).offset;
    });
  };
}

/// A distributed value of the global view: its kind, its global tensor, its
/// DistTensor.
RValue distValue(Tensor global, SpecAttr spec, Layout layout,
                 std::shared_ptr<const std::vector<Tensor>> terms = nullptr) {
  RValue r;
  r.kind = RValue::Kind::Dist;
  r.tensor = global;
  r.dist = std::make_shared<DistTensor>(
      DistTensor{std::move(global), spec, std::move(layout), std::move(terms)});
  return r;
}

/// Binds a distributed value of the global view, the same on every group.
void bindDist(Interpreter &I, Value v, Tensor global, SpecAttr spec,
              Layout layout,
              std::shared_ptr<const std::vector<Tensor>> terms = nullptr) {
  I.bind(v, MValue::same(distValue(std::move(global), spec, std::move(layout),
                                   std::move(terms))));
}

/// Where a failure names a rank of a sub-mesh's group: which group.
std::string groupText(const Interpreter::Groups &groups,
                      const std::vector<int64_t> &group) {
  if (groups.size() == 1)
    return "";
  std::string s = " (in the group of ranks [";
  for (auto [i, r] : llvm::enumerate(group))
    s += (i ? ", " : "") + std::to_string(r);
  return s + "] of its sub-mesh, by their index there)";
}

/// The distributed value made per group of `spec`'s view by `make` (one
/// DistTensor per group, from the group's ranks in view order): uniform
/// when the view makes one group.
FailureOr<MValue> perGroup(
    Interpreter &I, SpecAttr spec,
    llvm::function_ref<FailureOr<RValue>(const std::vector<int64_t> &)> make) {
  const Interpreter::Groups &groups = I.groupsOf(spec);
  if (groups.size() == 1) {
    FailureOr<RValue> v = make(groups.front());
    if (failed(v))
      return failure();
    return MValue::same(std::move(*v));
  }
  MValue out;
  for (const std::vector<int64_t> &group : groups) {
    FailureOr<RValue> v = make(group);
    if (failed(v))
      return failure();
    I.scatterGroup(out, group, MValue::same(std::move(*v)));
  }
  return out;
}

/// `fn` of each group's instance of the distributed `in` (one call when
/// every group holds the same instance: `in` is uniform), giving a
/// distributed value per group.
FailureOr<MValue>
mapInstances(Interpreter &I, const MValue &in,
             llvm::function_ref<FailureOr<RValue>(const DistTensor &)> fn) {
  if (in.uniform) {
    FailureOr<RValue> v = fn(*in.on(0).dist);
    if (failed(v))
      return failure();
    return MValue::same(std::move(*v));
  }
  return perGroup(I, in.on(0).dist->spec,
                  [&](const std::vector<int64_t> &group) {
                    return fn(*in.on(group.front()).dist);
                  });
}

/// Every rank's local tensor of the distributed `in` viewed in `layout` (on
/// the same mesh view): `localsOf` of each group's instance.
FailureOr<MValue> localsPerGroup(Interpreter &I, Operation *op,
                                 const MValue &in, const Layout &layout) {
  const Interpreter::Groups &groups = I.groupsOf(in.on(0).dist->spec);
  MValue out;
  for (const std::vector<int64_t> &group : groups) {
    std::string error;
    std::optional<MValue> view =
        I.localsOf(*in.on(group.front()).dist, layout, error);
    if (!view)
      return op->emitOpError() << "cannot hold " << error
                               << groupText(groups, group);
    if (groups.size() == 1)
      return std::move(*view);
    I.scatterGroup(out, group, *view);
  }
  return out;
}

/// The distributed value whose ranks hold `local` under `type` (from_local,
/// local_map's results): each group's logical tensor assembled from its
/// ranks' locals, with their Partial terms.
FailureOr<MValue> assemblePerGroup(Interpreter &I, Operation *op,
                                   const MValue &local, RankedTensorType type,
                                   const Layout &layout, StringRef what) {
  std::optional<DType> dt = dtypeOf(type.getElementType());
  if (!dt)
    return op->emitOpError() << "element type is not supported";
  SpecAttr spec = getSpec(type);
  const Interpreter::Groups &groups = I.groupsOf(spec);
  Shape shape(type.getShape().begin(), type.getShape().end());
  auto make = [&](const std::vector<int64_t> &group) -> FailureOr<RValue> {
    MValue view = Interpreter::gatherGroup(local, group);
    std::string error;
    std::optional<Tensor> global = I.assemble(view, layout, *dt, shape, error);
    if (!global)
      return op->emitOpError() << what << error << groupText(groups, group);
    std::shared_ptr<const std::vector<Tensor>> terms;
    if (partialKind(layout.placements())) {
      auto made = I.termsFromLocals(view, layout, *global, error);
      if (!made)
        return op->emitOpError() << "cannot hold the Partial terms: " << error;
      terms = std::make_shared<const std::vector<Tensor>>(std::move(*made));
    }
    return distValue(std::move(*global), spec, layout, std::move(terms));
  };
  // The same locals on every rank make the same value in every group: one
  // instance, shared (the value stays uniform).
  if (local.uniform) {
    FailureOr<RValue> v = make(groups.front());
    if (failed(v))
      return failure();
    return MValue::same(std::move(*v));
  }
  return perGroup(I, spec, make);
}

void registerApi(Kernels &k) {
  k["dtensor.from_local"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    auto from = llvm::cast<FromLocalOp>(op);
    RankedTensorType type = from.getType();
    FailureOr<Layout> layout = I.layoutOf(type, op);
    if (failed(layout))
      return failure();
    FailureOr<MValue> made = assemblePerGroup(I, op, I.lookup(from.getLocal()),
                                              type, *layout, "");
    if (failed(made))
      return failure();
    I.bind(from.getResult(), std::move(*made));
    return success();
  };
  k["dtensor.distribute_tensor"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    auto dist = llvm::cast<DistributeTensorOp>(op);
    RankedTensorType type = dist.getType();
    FailureOr<Layout> layout = I.layoutOf(type, op);
    if (failed(layout))
      return failure();
    const MValue &src = I.lookup(dist.getSource());
    SpecAttr spec = getSpec(type);
    if (src.uniform) {
      bindDist(I, dist.getResult(), src.on(0).tensor, spec, *layout);
      return success();
    }
    // Each rank distributes its own copy: from the source rank's copy (group
    // rank `src` on every view dim), or every rank keeps its chunk of its
    // own.
    FailureOr<MValue> made = perGroup(I, spec, [&](const std::vector<int64_t>
                                                       &group)
                                                   -> FailureOr<RValue> {
      const Shape &view = layout->mesh();
      if (std::optional<int64_t> k = dist.getSrcRank())
        return distValue(
            src.on(group[coordToRank(view, Shape(view.size(), *k))]).tensor,
            spec, *layout);
      MValue chunks;
      chunks.uniform = false;
      std::string error;
      for (auto [v, r] : llvm::enumerate(group)) {
        Shard s = layout->shardOf(src.on(r).tensor.shape(), v);
        std::optional<Tensor> chunk =
            src.on(r).tensor.slice(boxOffset(s), s.shape, error);
        if (!chunk)
          return emitCannotHold(op, r, error);
        chunks.values.push_back(RValue::ofTensor(std::move(*chunk)));
      }
      const Tensor &first = src.on(group.front()).tensor;
      std::optional<Tensor> g =
          I.assemble(chunks, *layout, first.dtype(), first.shape(), error);
      if (!g)
        return op->emitOpError() << error;
      return distValue(std::move(*g), spec, *layout);
    });
    if (failed(made))
      return failure();
    I.bind(dist.getResult(), std::move(*made));
    return success();
  };
  k["dtensor.to_local"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    const MValue &in = I.lookup(op->getOperand(0));
    FailureOr<MValue> locals =
        localsPerGroup(I, op, in, in.on(0).dist->layout);
    if (failed(locals))
      return failure();
    I.bind(op->getResult(0), std::move(*locals));
    return success();
  };
  k["dtensor.redistribute"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    auto re = llvm::cast<RedistributeOp>(op);
    FailureOr<Layout> layout = I.layoutOf(re.getType(), op);
    if (failed(layout))
      return failure();
    SpecAttr spec = getSpec(re.getType());
    FailureOr<MValue> made = mapInstances(
        I, I.lookup(re.getSource()),
        [&](const DistTensor &d) -> FailureOr<RValue> {
          std::string error;
          auto terms = I.plannedTerms(d, *layout, error);
          if (!terms)
            return op->emitOpError()
                   << "cannot hold the Partial terms: " << error;
          return distValue(d.global, spec, *layout, std::move(*terms));
        });
    if (failed(made))
      return failure();
    I.bind(re.getResult(), std::move(*made));
    return success();
  };
  k["dtensor.hint"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    // The logical value of the source, in the hinted spec.
    auto hint = llvm::cast<HintOp>(op);
    FailureOr<Layout> layout = I.layoutOf(hint.getType(), op);
    if (failed(layout))
      return failure();
    const MValue &src = I.lookup(hint.getSource());
    SpecAttr spec = getSpec(hint.getType());
    if (src.uniform) {
      const RValue &v = src.on(0);
      Tensor global = v.kind == RValue::Kind::Dist ? v.dist->global : v.tensor;
      bindDist(I, hint.getResult(), std::move(global), spec, *layout);
      return success();
    }
    // On a sub-mesh each group's value (the ranks of a group hold one).
    const Interpreter::Groups &groups = I.groupsOf(spec);
    if (groups.size() == 1)
      return op->emitOpError() << "hints a value that differs across ranks";
    FailureOr<MValue> made = perGroup(
        I, spec, [&](const std::vector<int64_t> &group) -> FailureOr<RValue> {
          const RValue &v = src.on(group.front());
          Tensor global = v.kind == RValue::Kind::Dist ? v.dist->global : v.tensor;
          for (int64_t r : group) {
            const RValue &w = src.on(r);
            const Tensor &t = w.kind == RValue::Kind::Dist ? w.dist->global : w.tensor;
            if (!t.sameContents(global))
              return op->emitOpError()
                     << "hints a value that differs across the ranks of one "
                        "group of its sub-mesh (ranks "
                     << group.front() << " and " << r << ")";
          }
          return distValue(std::move(global), spec, *layout);
        });
    if (failed(made))
      return failure();
    I.bind(hint.getResult(), std::move(*made));
    return success();
  };
  k["dtensor.full_tensor"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    const MValue &in = I.lookup(op->getOperand(0));
    if (in.uniform) {
      I.bind(op->getResult(0),
             MValue::same(RValue::ofTensor(in.on(0).dist->global)));
      return success();
    }
    // Each group's ranks get their group's logical tensor.
    MValue out;
    out.uniform = false;
    for (int64_t r = 0; r < I.numRanks(); ++r)
      out.values.push_back(RValue::ofTensor(in.on(r).dist->global));
    I.bind(op->getResult(0), std::move(out));
    return success();
  };
  k["dtensor.local_map"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    auto lm = llvm::cast<LocalMapOp>(op);
    std::vector<MValue> args;
    for (auto [input, attr] :
         llvm::zip(lm.getInputs(), lm.getInSpecs().getAsRange<SpecAttr>())) {
      const MValue &in = I.lookup(input);
      if (in.on(0).kind != RValue::Kind::Dist)
        return op->emitOpError() << "expects distributed inputs (global view)";
      auto global = llvm::cast<RankedTensorType>(input.getType());
      auto type = RankedTensorType::get(global.getShape(),
                                        global.getElementType(), attr);
      FailureOr<Layout> layout = I.layoutOf(type, op);
      if (failed(layout))
        return failure();
      // The region sees each input in its in_specs entry (redistributed if
      // it came in another one: the logical value is the same).
      FailureOr<MValue> shards = localsPerGroup(I, op, in, *layout);
      if (failed(shards))
        return failure();
      args.push_back(std::move(*shards));
    }
    std::vector<MValue> results;
    if (failed(I.runRegion(lm.getBody(), std::move(args), results)))
      return failure();
    for (auto [res, local] : llvm::zip(lm.getResults(), results)) {
      auto type = llvm::cast<RankedTensorType>(res.getType());
      FailureOr<Layout> layout = I.layoutOf(type, op);
      if (failed(layout))
        return failure();
      FailureOr<MValue> made =
          assemblePerGroup(I, op, local, type, *layout, "output: ");
      if (failed(made))
        return failure();
      I.bind(res, std::move(*made));
    }
    return success();
  };
  auto passHandle = [](Interpreter &I, Operation *op) -> LogicalResult {
    I.bind(op->getResult(0), MValue::same(RValue{RValue::Kind::Mesh}));
    return success();
  };
  k["dtensor.submesh"] = passHandle;
  k["dtensor.flatten"] = passHandle;
}

} // namespace

namespace mlir::dtensor::interp {
void registerDTensorKernels(llvm::StringMap<Interpreter::Kernel> &kernels) {
  registerCollectives(kernels);
  registerQueries(kernels);
  registerApi(kernels);
}
} // namespace mlir::dtensor::interp
