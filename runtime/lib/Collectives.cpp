//===- Collectives.cpp - meshes, futures and the dialect's collectives ----===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Each collective has the dialect op's exact semantics
// (DTensorCollectiveOps.td; the interpreter, lib/Interpreter/
// DTensorKernels.cpp, is the reference). This file is every flavour's:
// shapes, checks, packing (a gather, scatter, split or concat dim that is
// not the outermost is packed before or unpacked after the transfer, by the
// runtime's own kernels), Avg as a sum then a division in the type, the
// permute's zero fill, float max / min as integer keys (Internal.h), and
// the byte counts. The transfer itself is the transport's (MpiTransport.cpp,
// NcclTransport.cpp), on contiguous buffers.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <algorithm>
#include <functional>

namespace dtensor_rt {

const char *const kCollectiveNames[6] = {"all_gather", "all_reduce",
                                         "reduce_scatter", "all_to_all",
                                         "broadcast", "permute"};

namespace {

CommStats stats;

/// A tensor is outer(d) x shape[d] x inner(d) elements.
int64_t outerOf(const Shape &s, int64_t d) {
  int64_t n = 1;
  for (int64_t k = 0; k < d; ++k)
    n *= s[k];
  return n;
}

/// Splits `in` along `dim` into `n` equal pieces laid out one after another
/// in `out` (piece j = rows [j * len/n, (j+1) * len/n) of dim `dim`).
void packPieces(const Tensor &in, int64_t dim, int64_t n, void *out) {
  Shape piece = in.shape();
  piece[dim] /= n;
  Shape inStrides = rowMajorStrides(in.shape());
  Shape pieceStrides = rowMajorStrides(piece);
  int64_t pieceElems = numElements(piece);
  for (int64_t j = 0; j < n; ++j)
    copyBox(in.raw(), j * piece[dim] * inStrides[dim], inStrides, out,
            j * pieceElems, pieceStrides, piece, dtypeBytes(in.dtype()));
}

/// The inverse: `n` pieces of shape `pieceShape` laid out one after another
/// in `in` become `out`, concatenated along `dim`.
void unpackPieces(const void *in, const Shape &pieceShape, int64_t dim,
                  int64_t n, Tensor &out) {
  Shape outStrides = rowMajorStrides(out.shape());
  Shape pieceStrides = rowMajorStrides(pieceShape);
  int64_t pieceElems = numElements(pieceShape);
  for (int64_t j = 0; j < n; ++j)
    copyBox(in, j * pieceElems, pieceStrides, out.raw(),
            j * pieceShape[dim] * outStrides[dim], outStrides, pieceShape,
            dtypeBytes(out.dtype()));
}

void count(int kind, const Tensor &in, const Tensor &out) {
  ++stats.calls[kind];
  stats.bytesSent[kind] += static_cast<int64_t>(std::max(in.bytes(), out.bytes()));
}

bool transportReady = false;

} // namespace

const CommStats &commStats() { return stats; }
void resetCommStats() { stats = CommStats(); }

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

Mesh::Mesh(Shape shape) : shape_(std::move(shape)) {
  if (!transportReady) {
    transport::init();
    transportReady = true;
  }
  rank_ = transport::worldRank();
}

Mesh::~Mesh() {
  for (Group &g : groups_)
    transport::release(g.comm);
}

int64_t Mesh::size() const { return numElements(shape_); }

int Mesh::addGroup(const int64_t *color, const int64_t *key) {
  Group g;
  g.comm = transport::split(static_cast<int>(color[rank_]),
                            static_cast<int>(key[rank_]), g.size, g.rank,
                            "mesh set-up");
  if (g.rank != key[rank_])
    fail("mesh set-up", "the group position from the split (" +
                            std::to_string(g.rank) +
                            ") is not the compiler's key (" +
                            std::to_string(key[rank_]) + ")");
  groups_.push_back(g);
  return static_cast<int>(groups_.size()) - 1;
}

const Group &Mesh::group(int id) const {
  if (id < 0 || id >= static_cast<int>(groups_.size()))
    fail(nullptr, "no group " + std::to_string(id) + " on this mesh");
  return groups_[id];
}

//===----------------------------------------------------------------------===//
// Futures
//===----------------------------------------------------------------------===//

struct Future::State {
  Tensor result;
  /// Buffers the transfer reads or writes until it completes.
  Tensor input, scratch;
  /// What a reduction receives when it does not travel in the result's
  /// type (prepareReduction): float max / min keys, an integer mean's i64
  /// sums.
  Tensor transit;
  bool viaTransit = false;
  transport::PendingPtr pending;
  /// Unpacking or dividing after completion (may be empty).
  std::function<void(State &)> finish;
  std::string where;
  bool waited = false;
  /// A future dropped without a wait (its wait was in a branch not taken)
  /// still completes its transfer before the buffers return to the pools.
  ~State() {
    if (pending)
      pending->wait(where.c_str());
  }
};

Future startCollective(std::shared_ptr<Future::State> state) {
  Future f;
  f.state_ = std::move(state);
  return f;
}

Tensor Future::wait() {
  if (!state_)
    fail(nullptr, "wait on an empty future");
  State &s = *state_;
  if (s.waited)
    fail(s.where.c_str(), "a future is waited twice");
  if (s.pending)
    s.pending->wait(s.where.c_str());
  s.pending.reset();
  if (s.finish)
    s.finish(s);
  s.waited = true;
  s.input = Tensor();
  s.scratch = Tensor();
  // Waited once: the result leaves the state, so it is not shared.
  return std::move(s.result);
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

namespace {

std::shared_ptr<Future::State> newState(const Tensor &input, const char *where) {
  auto s = std::make_shared<Future::State>();
  s->input = input;
  s->where = where ? where : "";
  return s;
}

/// How a reduction travels: the transport never sees Avg, nor a float max /
/// min. Sets the state's input to what is sent (when it is not the input
/// itself), `transit` to what is received when it is not the result, and
/// the state's finish; returns the reduction and type the transport runs.
///   - float max / min: order-preserving integer keys (Internal.h), mapped
///     back after the wait;
///   - float avg: each term divided by the group size first, then summed
///     (NCCL's ncclAvg and DDP's pre-divided gradients: a sum of large
///     terms overflows only where the mean does; the interpreter's rule);
///   - i8 / i16 / i32 avg: summed as i64, divided truncating, narrowed (the
///     mean of terms that fit is exact; a sum in the type wrapped);
///   - i64 avg: a wrapping sum divided after; everything else as it is.
Reduction prepareReduction(Future::State &s, const Tensor &input,
                           const Shape &resultShape, Reduction reduce, int n,
                           DType &type) {
  type = input.dtype();
  if (reducesAsKeys(type, reduce)) {
    s.input = toOrderedKeys(input, reduce == Reduction::Max);
    type = s.input.dtype();
    s.transit = Tensor::empty(type, resultShape);
    s.viaTransit = true;
    s.finish = [](Future::State &st) { fromOrderedKeys(st.transit, st.result); };
    return reduce;
  }
  if (reduce != Reduction::Avg || type == DType::I1)
    return reduce == Reduction::Avg ? Reduction::Sum : reduce;
  switch (type) {
  case DType::F32:
  case DType::F64:
  case DType::F16:
  case DType::BF16:
    s.input = input.clone();
    divideBy(s.input, n);
    break;
  case DType::I8:
  case DType::I16:
  case DType::I32:
    s.input = widenToI64(input);
    type = DType::I64;
    s.transit = Tensor::empty(type, resultShape);
    s.viaTransit = true;
    s.finish = [n](Future::State &st) { narrowMean(st.transit, n, st.result); };
    break;
  default: // I64
    s.finish = [n](Future::State &st) { divideBy(st.result, n); };
    break;
  }
  return Reduction::Sum;
}

} // namespace

Future allGatherStart(Mesh &mesh, int group, const Tensor &input,
                      int64_t gatherDim, const char *where) {
  const Group &g = mesh.group(group);
  auto s = newState(input, where);
  Shape out = input.shape();
  if (gatherDim < 0 || gatherDim >= input.rank())
    fail(where, "gather dim out of range");
  out[gatherDim] *= g.size;
  s->result = Tensor::empty(input.dtype(), out);
  if (gatherDim == 0 || outerOf(input.shape(), gatherDim) == 1) {
    s->pending = transport::allGather(g.comm, input.raw(), s->result.raw(),
                                      input.bytes(), where);
  } else {
    s->scratch = Tensor::empty(input.dtype(), {g.size * input.numel()});
    s->pending = transport::allGather(g.comm, input.raw(), s->scratch.raw(),
                                      input.bytes(), where);
    Shape piece = input.shape();
    int n = g.size;
    s->finish = [piece, gatherDim, n](Future::State &st) {
      unpackPieces(st.scratch.raw(), piece, gatherDim, n, st.result);
    };
  }
  count(0, input, s->result);
  return startCollective(s);
}

namespace {
/// An all_reduce whose result is `input`'s storage when `inPlace`.
Future allReduceInto(Mesh &mesh, int group, const Tensor &input, bool inPlace,
                     Reduction reduce, const char *where) {
  const Group &g = mesh.group(group);
  auto s = newState(input, where);
  s->result = inPlace ? input : Tensor::empty(input.dtype(), input.shape());
  DType type;
  Reduction r = prepareReduction(*s, input, input.shape(), reduce, g.size, type);
  // (In place, the transport sees the same buffer twice unless the
  // reduction sends a converted copy: keys, pre-divided or widened terms.)
  Tensor &into = s->viaTransit ? s->transit : s->result;
  s->pending = transport::allReduce(g.comm, s->input.raw(), into.raw(),
                                    size_t(input.numel()), type, r, where);
  count(1, input, s->result);
  return startCollective(s);
}
} // namespace

Future allReduceStart(Mesh &mesh, int group, const Tensor &input,
                      Reduction reduce, const char *where) {
  return allReduceInto(mesh, group, input, /*inPlace=*/false, reduce, where);
}

Future allReduceStart(Mesh &mesh, int group, Tensor &&input, Reduction reduce,
                      const char *where) {
  Tensor held = release(input);
  bool inPlace = held.unique() && held.raw() && held.numel() > 0 &&
                 held.onHost() == kComputeIsHost;
  return allReduceInto(mesh, group, held, inPlace, reduce, where);
}

Future reduceScatterStart(Mesh &mesh, int group, const Tensor &input,
                          int64_t scatterDim, Reduction reduce,
                          const char *where) {
  const Group &g = mesh.group(group);
  auto s = newState(input, where);
  if (scatterDim < 0 || scatterDim >= input.rank())
    fail(where, "scatter dim out of range");
  if (input.dim(scatterDim) % g.size != 0)
    fail(where, "scatter dim of size " + std::to_string(input.dim(scatterDim)) +
                    " does not split into " + std::to_string(g.size) +
                    " equal pieces");
  Shape out = input.shape();
  out[scatterDim] /= g.size;
  s->result = Tensor::empty(input.dtype(), out);
  DType type;
  Reduction r = prepareReduction(*s, input, out, reduce, g.size, type);
  const Tensor &sent = s->input;
  const void *send = sent.raw();
  if (outerOf(input.shape(), scatterDim) != 1) {
    s->scratch = Tensor::empty(sent.dtype(), {input.numel()});
    packPieces(sent, scatterDim, g.size, s->scratch.raw());
    send = s->scratch.raw();
  }
  Tensor &into = s->viaTransit ? s->transit : s->result;
  s->pending = transport::reduceScatter(g.comm, send, into.raw(),
                                        size_t(s->result.numel()), type, r,
                                        where);
  count(2, input, s->result);
  return startCollective(s);
}

Future allToAllStart(Mesh &mesh, int group, const Tensor &input,
                     int64_t splitDim, int64_t concatDim, const char *where) {
  const Group &g = mesh.group(group);
  auto s = newState(input, where);
  if (splitDim < 0 || splitDim >= input.rank() || concatDim < 0 ||
      concatDim >= input.rank())
    fail(where, "split or concat dim out of range");
  if (input.dim(splitDim) % g.size != 0)
    fail(where, "split dim of size " + std::to_string(input.dim(splitDim)) +
                    " does not split into " + std::to_string(g.size) +
                    " equal pieces");
  int n = g.size;
  Shape piece = input.shape();
  piece[splitDim] /= n;
  Shape out = piece;
  out[concatDim] *= n;
  s->result = Tensor::empty(input.dtype(), out);
  s->scratch = Tensor::empty(input.dtype(), {2 * input.numel()});
  char *send = static_cast<char *>(s->scratch.raw());
  char *recv = send + input.bytes();
  packPieces(input, splitDim, n, send);
  s->pending = transport::allToAll(g.comm, send, recv,
                                   input.bytes() / std::max(n, 1), n, where);
  size_t offset = input.bytes();
  s->finish = [piece, concatDim, n, offset](Future::State &st) {
    unpackPieces(static_cast<const char *>(st.scratch.raw()) + offset, piece,
                 concatDim, n, st.result);
  };
  count(3, input, s->result);
  return startCollective(s);
}

Future broadcastStart(Mesh &mesh, int group, const Tensor &input, int64_t root,
                      const char *where) {
  const Group &g = mesh.group(group);
  auto s = newState(input, where);
  if (root < 0 || root >= g.size)
    fail(where, "root " + std::to_string(root) + " is not a rank of a group of " +
                    std::to_string(g.size));
  s->result = Tensor::empty(input.dtype(), input.shape());
  s->pending = transport::broadcast(g.comm, input.raw(), s->result.raw(),
                                    input.bytes(), static_cast<int>(root),
                                    where);
  count(4, input, s->result);
  return startCollective(s);
}

Future permuteStart(Mesh &mesh, int group, const Tensor &input,
                    const int64_t *pairs, size_t numPairs, const char *where) {
  const Group &g = mesh.group(group);
  auto s = newState(input, where);
  s->result = Tensor::zeros(input.dtype(), input.shape());
  int to = -1, from = -1;
  for (size_t p = 0; p < numPairs; ++p) {
    int64_t src = pairs[2 * p], dst = pairs[2 * p + 1];
    if (src < 0 || src >= g.size || dst < 0 || dst >= g.size)
      fail(where, "a source-target pair names a rank outside the group");
    if (src == g.rank)
      to = static_cast<int>(dst);
    if (dst == g.rank)
      from = static_cast<int>(src);
  }
  if (to == g.rank && from == g.rank) {
    device::copy(s->result.raw(), input.raw(), input.bytes());
    to = from = -1;
  }
  if (to >= 0 || from >= 0)
    s->pending = transport::sendRecv(g.comm, input.raw(), to, s->result.raw(),
                                     from, input.bytes(), where);
  count(5, input, s->result);
  return startCollective(s);
}

} // namespace dtensor_rt
