//===- Mpi.cpp - meshes, groups and collectives over MPI ------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Each collective has the dialect op's exact semantics
// (DTensorCollectiveOps.td; the interpreter, lib/Interpreter/
// DTensorKernels.cpp, is the reference). Data moves as MPI_BYTE except in
// reductions; a gather, scatter, split or concat dim that is not the
// outermost is packed before or unpacked after the MPI call. Every start is
// an MPI_I* call whose Future holds the buffers until wait().
//
//===----------------------------------------------------------------------===//

#include "dtensor_rt/Runtime.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>

namespace dtensor_rt {

const char *const kCollectiveNames[6] = {"all_gather", "all_reduce",
                                         "reduce_scatter", "all_to_all",
                                         "broadcast", "permute"};

namespace {

CommStats stats;

void check(int code, const char *where, const char *call) {
  if (code == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  fail(where, std::string(call) + " failed: " + std::string(text, len));
}

int checkedCount(size_t n, const char *where) {
  if (n > static_cast<size_t>(INT_MAX))
    fail(where, "a message of " + std::to_string(n) +
                    " elements exceeds MPI's int count (chunking is not "
                    "implemented yet)");
  return static_cast<int>(n);
}

MPI_Comm commOf(const Group &g) { return *static_cast<MPI_Comm *>(g.comm); }

//===----------------------------------------------------------------------===//
// f16 / bf16 reductions
//===----------------------------------------------------------------------===//

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  int exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else { // subnormal
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ff;
      bits = sign | uint32_t(exp) << 23 | mant << 13;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | mant << 13;
  } else {
    bits = sign | uint32_t(exp - 15 + 127) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = (x >> 16) & 0x8000;
  uint32_t absx = x & 0x7fffffff;
  if (absx >= 0x7f800000) // inf or nan
    return sign | 0x7c00 | (absx > 0x7f800000 ? 0x200 : 0);
  if (absx >= 0x477ff000) // rounds to inf
    return sign | 0x7c00;
  if (absx < 0x38800000) { // subnormal or zero: round at 2^-24
    float a;
    std::memcpy(&a, &absx, 4);
    return sign | uint16_t(std::nearbyint(a * 16777216.0f));
  }
  uint32_t mant = absx & 0x7fffff;
  int exp = int(absx >> 23) - 127 + 15;
  uint32_t h = uint32_t(exp) << 10 | mant >> 13;
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return sign | uint16_t(h);
}

float bf16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000)
    return uint16_t((x >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return uint16_t((x + rounding) >> 16);
}

template <bool BF, int Kind>
void reduce16(void *in, void *inout, int *len, MPI_Datatype *) {
  auto *a = static_cast<uint16_t *>(in);
  auto *b = static_cast<uint16_t *>(inout);
  for (int i = 0; i < *len; ++i) {
    float x = BF ? bf16ToFloat(a[i]) : halfToFloat(a[i]);
    float y = BF ? bf16ToFloat(b[i]) : halfToFloat(b[i]);
    float r = Kind == 0 ? x + y : Kind == 1 ? std::max(x, y)
                        : Kind == 2 ? std::min(x, y) : x * y;
    b[i] = BF ? floatToBf16(r) : floatToHalf(r);
  }
}

/// The MPI datatype and op of a reduction over `t`.
void reductionOf(DType t, Reduction r, MPI_Datatype &type, MPI_Op &op) {
  int kind = r == Reduction::Sum || r == Reduction::Avg ? 0
             : r == Reduction::Max                      ? 1
             : r == Reduction::Min                      ? 2
                                                        : 3;
  if (t == DType::F16 || t == DType::BF16) {
    static MPI_Op ops[2][4];
    static bool made = false;
    if (!made) {
      MPI_Op_create(&reduce16<false, 0>, 1, &ops[0][0]);
      MPI_Op_create(&reduce16<false, 1>, 1, &ops[0][1]);
      MPI_Op_create(&reduce16<false, 2>, 1, &ops[0][2]);
      MPI_Op_create(&reduce16<false, 3>, 1, &ops[0][3]);
      MPI_Op_create(&reduce16<true, 0>, 1, &ops[1][0]);
      MPI_Op_create(&reduce16<true, 1>, 1, &ops[1][1]);
      MPI_Op_create(&reduce16<true, 2>, 1, &ops[1][2]);
      MPI_Op_create(&reduce16<true, 3>, 1, &ops[1][3]);
      made = true;
    }
    type = MPI_UINT16_T;
    op = ops[t == DType::BF16][kind];
    return;
  }
  switch (t) {
  case DType::F32: type = MPI_FLOAT; break;
  case DType::F64: type = MPI_DOUBLE; break;
  case DType::I8: type = MPI_INT8_T; break;
  case DType::I16: type = MPI_INT16_T; break;
  case DType::I32: type = MPI_INT32_T; break;
  case DType::I64: type = MPI_INT64_T; break;
  default: type = MPI_UINT8_T; break; // I1: 0 or 1
  }
  if (t == DType::I1) {
    // bool(a + b) is a logical or, bool(a * b) a logical and.
    op = kind == 0 || kind == 1 ? MPI_MAX : MPI_MIN;
    return;
  }
  static const MPI_Op byKind[4] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};
  op = byKind[kind];
}

/// Divides every element by `n` (avg), as the interpreter does: in the
/// type, so integers truncate.
void divideBy(Tensor &t, int64_t n) {
  int64_t count = t.numel();
  switch (t.dtype()) {
  case DType::F32: {
    float *p = t.data<float>();
    for (int64_t i = 0; i < count; ++i)
      p[i] = p[i] / float(n);
    break;
  }
  case DType::F64: {
    double *p = t.data<double>();
    for (int64_t i = 0; i < count; ++i)
      p[i] = p[i] / double(n);
    break;
  }
  case DType::F16:
  case DType::BF16: {
    bool bf = t.dtype() == DType::BF16;
    uint16_t *p = t.data<uint16_t>();
    for (int64_t i = 0; i < count; ++i) {
      float x = (bf ? bf16ToFloat(p[i]) : halfToFloat(p[i])) / float(n);
      p[i] = bf ? floatToBf16(x) : floatToHalf(x);
    }
    break;
  }
  case DType::I8: {
    int8_t *p = t.data<int8_t>();
    for (int64_t i = 0; i < count; ++i)
      p[i] = int8_t(p[i] / n);
    break;
  }
  case DType::I16: {
    int16_t *p = t.data<int16_t>();
    for (int64_t i = 0; i < count; ++i)
      p[i] = int16_t(p[i] / n);
    break;
  }
  case DType::I32: {
    int32_t *p = t.data<int32_t>();
    for (int64_t i = 0; i < count; ++i)
      p[i] = int32_t(p[i] / n);
    break;
  }
  case DType::I64: {
    int64_t *p = t.data<int64_t>();
    for (int64_t i = 0; i < count; ++i)
      p[i] = p[i] / n;
    break;
  }
  case DType::I1:
    break; // bool(x / n) with x in {0, 1}: the interpreter keeps x for n == 1
  }
}

/// Bytes of one "row" above dim `d` and below it: a tensor is
/// outer(d) x shape[d] x inner(d) elements.
int64_t outerOf(const Shape &s, int64_t d) {
  int64_t n = 1;
  for (int64_t k = 0; k < d; ++k)
    n *= s[k];
  return n;
}
int64_t innerOf(const Shape &s, int64_t d) {
  int64_t n = 1;
  for (size_t k = d + 1; k < s.size(); ++k)
    n *= s[k];
  return n;
}

/// Splits `in` along `dim` into `n` equal pieces laid out one after another
/// (piece j = rows [j * len/n, (j+1) * len/n) of dim `dim`).
void packPieces(const Tensor &in, int64_t dim, int64_t n, char *out) {
  const Shape &s = in.shape();
  size_t elem = dtypeBytes(in.dtype());
  int64_t outer = outerOf(s, dim), inner = innerOf(s, dim);
  int64_t piece = s[dim] / n;
  size_t chunk = size_t(piece * inner) * elem;
  const char *src = static_cast<const char *>(in.raw());
  for (int64_t j = 0; j < n; ++j)
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(out + (j * outer + o) * chunk,
                  src + (o * s[dim] + j * piece) * inner * elem, chunk);
}

/// The inverse: `n` pieces of shape `pieceShape` laid out one after another
/// become `out`, concatenated along `dim`.
void unpackPieces(const char *in, const Shape &pieceShape, int64_t dim,
                  int64_t n, Tensor &out) {
  size_t elem = dtypeBytes(out.dtype());
  int64_t outer = outerOf(pieceShape, dim), inner = innerOf(pieceShape, dim);
  int64_t piece = pieceShape[dim];
  size_t chunk = size_t(piece * inner) * elem;
  char *dst = static_cast<char *>(out.raw());
  for (int64_t j = 0; j < n; ++j)
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(dst + (o * piece * n + j * piece) * inner * elem,
                  in + (j * outer + o) * chunk, chunk);
}

void count(int kind, const Tensor &in, const Tensor &out) {
  ++stats.calls[kind];
  stats.bytesSent[kind] += static_cast<int64_t>(std::max(in.bytes(), out.bytes()));
}

} // namespace

const CommStats &commStats() { return stats; }
void resetCommStats() { stats = CommStats(); }

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

Mesh::Mesh(Shape shape) : shape_(std::move(shape)) {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  rank_ = r;
}

Mesh::~Mesh() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  for (Group &g : groups_) {
    if (!finalized)
      MPI_Comm_free(static_cast<MPI_Comm *>(g.comm));
    delete static_cast<MPI_Comm *>(g.comm);
  }
}

int64_t Mesh::size() const { return numElements(shape_); }

int Mesh::addGroup(const int64_t *color, const int64_t *key) {
  auto *comm = new MPI_Comm;
  check(MPI_Comm_split(MPI_COMM_WORLD, static_cast<int>(color[rank_]),
                       static_cast<int>(key[rank_]), comm),
        "mesh set-up", "MPI_Comm_split");
  MPI_Comm_set_errhandler(*comm, MPI_ERRORS_RETURN);
  Group g;
  g.comm = comm;
  MPI_Comm_size(*comm, &g.size);
  MPI_Comm_rank(*comm, &g.rank);
  if (g.rank != key[rank_])
    fail("mesh set-up", "the group position from MPI_Comm_split (" +
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
  /// Buffers the MPI call reads or writes until it completes.
  Tensor input, scratch;
  std::vector<MPI_Request> requests;
  /// Unpacking after completion (may be empty).
  std::function<void(State &)> finish;
  std::string where;
  bool waited = false;
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
  if (!s.requests.empty())
    check(MPI_Waitall(static_cast<int>(s.requests.size()), s.requests.data(),
                      MPI_STATUSES_IGNORE),
          s.where.c_str(), "MPI_Waitall");
  if (s.finish)
    s.finish(s);
  s.waited = true;
  s.input = Tensor();
  s.scratch = Tensor();
  return s.result;
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
  int bytes = checkedCount(input.bytes(), where);
  s->requests.resize(1);
  if (gatherDim == 0 || outerOf(input.shape(), gatherDim) == 1) {
    check(MPI_Iallgather(input.raw(), bytes, MPI_BYTE, s->result.raw(), bytes,
                         MPI_BYTE, commOf(g), &s->requests[0]),
          where, "MPI_Iallgather");
  } else {
    s->scratch = Tensor::empty(input.dtype(), {g.size * input.numel()});
    check(MPI_Iallgather(input.raw(), bytes, MPI_BYTE, s->scratch.raw(), bytes,
                         MPI_BYTE, commOf(g), &s->requests[0]),
          where, "MPI_Iallgather");
    Shape piece = input.shape();
    int n = g.size;
    s->finish = [piece, gatherDim, n](Future::State &st) {
      unpackPieces(static_cast<const char *>(st.scratch.raw()), piece,
                   gatherDim, n, st.result);
    };
  }
  count(0, input, s->result);
  return startCollective(s);
}

Future allReduceStart(Mesh &mesh, int group, const Tensor &input,
                      Reduction reduce, const char *where) {
  const Group &g = mesh.group(group);
  auto s = newState(input, where);
  s->result = Tensor::empty(input.dtype(), input.shape());
  MPI_Datatype type;
  MPI_Op op;
  reductionOf(input.dtype(), reduce, type, op);
  s->requests.resize(1);
  check(MPI_Iallreduce(input.raw(), s->result.raw(),
                       checkedCount(size_t(input.numel()), where), type, op,
                       commOf(g), &s->requests[0]),
        where, "MPI_Iallreduce");
  if (reduce == Reduction::Avg) {
    int n = g.size;
    s->finish = [n](Future::State &st) { divideBy(st.result, n); };
  }
  count(1, input, s->result);
  return startCollective(s);
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
  const void *send = input.raw();
  if (outerOf(input.shape(), scatterDim) != 1) {
    s->scratch = Tensor::empty(input.dtype(), {input.numel()});
    packPieces(input, scatterDim, g.size, static_cast<char *>(s->scratch.raw()));
    send = s->scratch.raw();
  }
  MPI_Datatype type;
  MPI_Op op;
  reductionOf(input.dtype(), reduce, type, op);
  s->requests.resize(1);
  check(MPI_Ireduce_scatter_block(send, s->result.raw(),
                                  checkedCount(size_t(s->result.numel()), where),
                                  type, op, commOf(g), &s->requests[0]),
        where, "MPI_Ireduce_scatter_block");
  if (reduce == Reduction::Avg) {
    int n = g.size;
    s->finish = [n](Future::State &st) { divideBy(st.result, n); };
  }
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
  int bytes = checkedCount(input.bytes() / std::max(n, 1), where);
  s->requests.resize(1);
  check(MPI_Ialltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, commOf(g),
                      &s->requests[0]),
        where, "MPI_Ialltoall");
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
  s->result = g.rank == root ? input.clone()
                             : Tensor::empty(input.dtype(), input.shape());
  s->requests.resize(1);
  check(MPI_Ibcast(s->result.raw(), checkedCount(input.bytes(), where),
                   MPI_BYTE, static_cast<int>(root), commOf(g),
                   &s->requests[0]),
        where, "MPI_Ibcast");
  count(4, input, s->result);
  return startCollective(s);
}

Future permuteStart(Mesh &mesh, int group, const Tensor &input,
                    const int64_t *pairs, size_t numPairs, const char *where) {
  const Group &g = mesh.group(group);
  auto s = newState(input, where);
  s->result = Tensor::zeros(input.dtype(), input.shape());
  int bytes = checkedCount(input.bytes(), where);
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
    std::memcpy(s->result.raw(), input.raw(), input.bytes());
    to = from = -1;
  }
  if (from >= 0) {
    s->requests.emplace_back();
    check(MPI_Irecv(s->result.raw(), bytes, MPI_BYTE, from, 0, commOf(g),
                    &s->requests.back()),
          where, "MPI_Irecv");
  }
  if (to >= 0) {
    s->requests.emplace_back();
    check(MPI_Isend(input.raw(), bytes, MPI_BYTE, to, 0, commOf(g),
                    &s->requests.back()),
          where, "MPI_Isend");
  }
  count(5, input, s->result);
  return startCollective(s);
}

} // namespace dtensor_rt
