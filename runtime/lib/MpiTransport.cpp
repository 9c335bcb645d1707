//===- MpiTransport.cpp - collectives' transfers over MPI -----------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// The transport of the CPU flavour (dtensor_rt_mpi: buffers are host
// memory, handed to MPI's non-blocking collectives as they are) and of the
// host-staged CUDA flavour (dtensor_rt_cuda_mpi: buffers are device memory;
// a start copies the send buffer to pinned host memory, which waits for the
// kernels that produce it, then starts the MPI call on host buffers; wait
// completes it and copies the result back to the device). The staged flavour
// lets several ranks share one GPU, which NCCL refuses. Data moves as
// MPI_BYTE except in reductions; f16 and bf16 sums and products reduce
// through user MPI ops, float maxima and minima arrive as integer keys.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

namespace dtensor_rt {
namespace transport {

namespace {

#if defined(DTENSOR_RT_CUDA)
constexpr bool kStaged = true;
#else
constexpr bool kStaged = false;
#endif

void check(int code, const char *where, const char *call) {
  if (code == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  fail(where, std::string(call) + " failed: " + std::string(text, len));
}

/// The most elements one MPI call moves: MPI counts are `int`. Larger
/// transfers are split into several calls (chunks), each within the limit.
/// DTENSOR_RT_MPI_MAX_COUNT lowers it (the runtime's tests chunk small
/// tensors that way).
size_t maxCount() {
  static const size_t limit = [] {
    size_t n = static_cast<size_t>(INT_MAX);
    if (const char *e = std::getenv("DTENSOR_RT_MPI_MAX_COUNT")) {
      long long v = std::atoll(e);
      if (v > 0 && static_cast<unsigned long long>(v) < n)
        n = static_cast<size_t>(v);
    }
    return n;
  }();
  return limit;
}

/// [offset, offset + size) chunks of `total`, each at most maxCount().
template <typename F> void forChunks(size_t total, F f) {
  size_t step = maxCount();
  for (size_t off = 0; off < total; off += step)
    f(off, std::min(step, total - off));
}

MPI_Comm commOf(void *comm) { return *static_cast<MPI_Comm *>(comm); }

/// An f16 / bf16 sum or product, through float. (Float maxima and minima
/// never come here: they travel as integer keys, Internal.h's orderedKey.)
template <bool BF, bool Product>
void reduce16(void *in, void *inout, int *len, MPI_Datatype *) {
  auto *a = static_cast<uint16_t *>(in);
  auto *b = static_cast<uint16_t *>(inout);
  for (int i = 0; i < *len; ++i) {
    float x = BF ? bf16ToFloat(a[i]) : halfToFloat(a[i]);
    float y = BF ? bf16ToFloat(b[i]) : halfToFloat(b[i]);
    float r = Product ? x * y : x + y;
    b[i] = BF ? floatToBf16(r) : floatToHalf(r);
  }
}

/// A wrapping sum / product of narrow integers (two's complement, as the
/// interpreter and arith.addi / muli compute): Open MPI 4.1's AVX reduction
/// component saturates 8- and 16-bit MPI_SUM (100 + 100 gave 127 in an i8).
template <typename T, bool Product>
void reduceWrap(void *in, void *inout, int *len, MPI_Datatype *) {
  using U = std::make_unsigned_t<T>;
  auto *a = static_cast<const T *>(in);
  auto *b = static_cast<T *>(inout);
  for (int i = 0; i < *len; ++i) {
    // Products in unsigned int: a U would promote to int and overflow.
    unsigned x = U(a[i]), y = U(b[i]);
    b[i] = T(U(Product ? x * y : x + y));
  }
}

/// The MPI datatype and op of a reduction over `t`.
void reductionOf(DType t, Reduction r, MPI_Datatype &type, MPI_Op &op) {
  int kind = r == Reduction::Sum || r == Reduction::Avg ? 0
             : r == Reduction::Max                      ? 1
             : r == Reduction::Min                      ? 2
                                                        : 3;
  if (reducesAsKeys(t, r))
    fail(nullptr, "a float max / min reaches the transport (it reduces keys)");
  if (t == DType::F16 || t == DType::BF16) {
    static MPI_Op ops[2][2];
    static bool made = false;
    if (!made) {
      MPI_Op_create(&reduce16<false, false>, 1, &ops[0][0]);
      MPI_Op_create(&reduce16<false, true>, 1, &ops[0][1]);
      MPI_Op_create(&reduce16<true, false>, 1, &ops[1][0]);
      MPI_Op_create(&reduce16<true, true>, 1, &ops[1][1]);
      made = true;
    }
    type = MPI_UINT16_T;
    op = ops[t == DType::BF16][kind == 3];
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
  if ((t == DType::I8 || t == DType::I16) && (kind == 0 || kind == 3)) {
    static MPI_Op ops[2][2];
    static bool made = false;
    if (!made) {
      MPI_Op_create(&reduceWrap<int8_t, false>, 1, &ops[0][0]);
      MPI_Op_create(&reduceWrap<int8_t, true>, 1, &ops[0][1]);
      MPI_Op_create(&reduceWrap<int16_t, false>, 1, &ops[1][0]);
      MPI_Op_create(&reduceWrap<int16_t, true>, 1, &ops[1][1]);
      made = true;
    }
    op = ops[t == DType::I16][kind == 3];
    return;
  }
  static const MPI_Op byKind[4] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};
  op = byKind[kind];
}

/// Host memory for one transfer: the buffer itself (CPU flavour) or a
/// pinned staging copy from the runtime's host pool (host-staged CUDA
/// flavour: after the first step every staging buffer is a reuse).
struct Staging {
  void *host = nullptr;
  Tensor buffer;
  /// Host memory for `bytes` of compute memory at `p`, holding its contents
  /// when `in`.
  void *of(const void *p, size_t bytes, bool in) {
    if (!kStaged || !p || bytes == 0)
      return host = const_cast<void *>(p);
    buffer = Tensor::emptyHost(DType::I8, {static_cast<int64_t>(bytes)});
    host = buffer.raw();
    if (in)
      device::toHost(host, p, bytes);
    return host;
  }
};

struct MpiPending : Pending {
  std::vector<MPI_Request> requests;
  Staging send, recv;
  /// Where the received bytes go on the device (staged flavour).
  void *recvDevice = nullptr;
  size_t recvBytes = 0;
  /// Chunked transfers: packed pieces, and their unpacking after the wait.
  std::vector<std::vector<char>> temps;
  std::vector<std::function<void()>> after;

  MPI_Request *request() {
    requests.emplace_back();
    return &requests.back();
  }
  char *temp(size_t bytes) {
    temps.emplace_back(bytes);
    return temps.back().data();
  }

  void wait(const char *where) override {
    if (!requests.empty())
      check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                        MPI_STATUSES_IGNORE),
            where, "MPI_Waitall");
    requests.clear();
    for (auto &f : after)
      f();
    after.clear();
    if (kStaged && recvDevice)
      device::fromHost(recvDevice, recv.host, recvBytes);
    recvDevice = nullptr;
  }
};

std::unique_ptr<MpiPending> start(const void *send, size_t sendBytes,
                                  void *recv, size_t recvBytes) {
  auto p = std::make_unique<MpiPending>();
  p->send.of(send, sendBytes, true);
  p->recv.of(recv, recvBytes, false);
  p->recvDevice = recv;
  p->recvBytes = recvBytes;
  p->requests.reserve(8);
  return p;
}

} // namespace

void init() {}

int worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

void *split(int color, int key, int &size, int &rank, const char *where) {
  auto *comm = new MPI_Comm;
  check(MPI_Comm_split(MPI_COMM_WORLD, color, key, comm), where,
        "MPI_Comm_split");
  MPI_Comm_set_errhandler(*comm, MPI_ERRORS_RETURN);
  MPI_Comm_size(*comm, &size);
  MPI_Comm_rank(*comm, &rank);
  return comm;
}

void release(void *comm) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
    MPI_Comm_free(static_cast<MPI_Comm *>(comm));
  delete static_cast<MPI_Comm *>(comm);
}

PendingPtr allGather(void *comm, const void *send, void *recv, size_t bytes,
                     const char *where) {
  int size = 0;
  MPI_Comm_size(commOf(comm), &size);
  auto p = start(send, bytes, recv, bytes * size_t(size));
  const char *in = static_cast<const char *>(p->send.host);
  char *out = static_cast<char *>(p->recv.host);
  if (bytes <= maxCount()) {
    check(MPI_Iallgather(in, int(bytes), MPI_BYTE, out, int(bytes), MPI_BYTE,
                         commOf(comm), p->request()),
          where, "MPI_Iallgather");
    return p;
  }
  // Chunk c of every rank's block, gathered into a temporary, then placed.
  MpiPending *q = p.get();
  forChunks(bytes, [&](size_t off, size_t n) {
    char *tmp = q->temp(n * size_t(size));
    check(MPI_Iallgather(in + off, int(n), MPI_BYTE, tmp, int(n), MPI_BYTE,
                         commOf(comm), q->request()),
          where, "MPI_Iallgather");
    q->after.push_back([=] {
      for (int j = 0; j < size; ++j)
        std::memcpy(out + size_t(j) * bytes + off, tmp + size_t(j) * n, n);
    });
  });
  return p;
}

PendingPtr allReduce(void *comm, const void *send, void *recv, size_t count,
                     DType dtype, Reduction reduce, const char *where) {
  size_t elem = dtypeBytes(dtype);
  auto p = start(send, count * elem, recv, count * elem);
  MPI_Datatype type;
  MPI_Op op;
  reductionOf(dtype, reduce, type, op);
  const char *in = static_cast<const char *>(p->send.host);
  char *out = static_cast<char *>(p->recv.host);
  // In place (one buffer sent and received): MPI_IN_PLACE, which MPI
  // requires for aliased buffers. (Staged, the two are host copies apart.)
  bool inPlace = in == out;
  // Element-wise: chunks reduce independently.
  MpiPending *q = p.get();
  forChunks(count, [&](size_t off, size_t n) {
    check(MPI_Iallreduce(inPlace ? MPI_IN_PLACE : in + off * elem,
                         out + off * elem, int(n), type, op, commOf(comm),
                         q->request()),
          where, "MPI_Iallreduce");
  });
  return p;
}

PendingPtr reduceScatter(void *comm, const void *send, void *recv,
                         size_t recvCount, DType dtype, Reduction reduce,
                         const char *where) {
  int size = 0;
  MPI_Comm_size(commOf(comm), &size);
  size_t elem = dtypeBytes(dtype);
  size_t bytes = recvCount * elem;
  auto p = start(send, bytes * size_t(size), recv, bytes);
  MPI_Datatype type;
  MPI_Op op;
  reductionOf(dtype, reduce, type, op);
  const char *in = static_cast<const char *>(p->send.host);
  char *out = static_cast<char *>(p->recv.host);
  if (recvCount <= maxCount()) {
    check(MPI_Ireduce_scatter_block(in, out, int(recvCount), type, op,
                                    commOf(comm), p->request()),
          where, "MPI_Ireduce_scatter_block");
    return p;
  }
  // Chunk c of every rank's block, packed contiguously.
  MpiPending *q = p.get();
  forChunks(recvCount, [&](size_t off, size_t n) {
    char *tmp = q->temp(n * elem * size_t(size));
    for (int j = 0; j < size; ++j)
      std::memcpy(tmp + size_t(j) * n * elem,
                  in + (size_t(j) * recvCount + off) * elem, n * elem);
    check(MPI_Ireduce_scatter_block(tmp, out + off * elem, int(n), type, op,
                                    commOf(comm), q->request()),
          where, "MPI_Ireduce_scatter_block");
  });
  return p;
}

PendingPtr allToAll(void *comm, const void *send, void *recv,
                    size_t bytesPerPeer, int groupSize, const char *where) {
  size_t total = bytesPerPeer * size_t(groupSize);
  auto p = start(send, total, recv, total);
  const char *in = static_cast<const char *>(p->send.host);
  char *out = static_cast<char *>(p->recv.host);
  if (bytesPerPeer <= maxCount()) {
    check(MPI_Ialltoall(in, int(bytesPerPeer), MPI_BYTE, out,
                        int(bytesPerPeer), MPI_BYTE, commOf(comm),
                        p->request()),
          where, "MPI_Ialltoall");
    return p;
  }
  MpiPending *q = p.get();
  forChunks(bytesPerPeer, [&](size_t off, size_t n) {
    char *tmpIn = q->temp(n * size_t(groupSize));
    char *tmpOut = q->temp(n * size_t(groupSize));
    for (int j = 0; j < groupSize; ++j)
      std::memcpy(tmpIn + size_t(j) * n, in + size_t(j) * bytesPerPeer + off, n);
    check(MPI_Ialltoall(tmpIn, int(n), MPI_BYTE, tmpOut, int(n), MPI_BYTE,
                        commOf(comm), q->request()),
          where, "MPI_Ialltoall");
    q->after.push_back([=] {
      for (int j = 0; j < groupSize; ++j)
        std::memcpy(out + size_t(j) * bytesPerPeer + off, tmpOut + size_t(j) * n, n);
    });
  });
  return p;
}

PendingPtr broadcast(void *comm, const void *send, void *recv, size_t bytes,
                     int root, const char *where) {
  int rank = 0;
  MPI_Comm_rank(commOf(comm), &rank);
  // MPI broadcasts in place: the root's result starts as its input.
  if (rank == root)
    device::copy(recv, send, bytes);
  auto p = start(nullptr, 0, recv, bytes);
  if (kStaged && rank == root)
    device::toHost(p->recv.host, send, bytes);
  char *buf = static_cast<char *>(p->recv.host);
  MpiPending *q = p.get();
  forChunks(bytes, [&](size_t off, size_t n) {
    check(MPI_Ibcast(buf + off, int(n), MPI_BYTE, root, commOf(comm),
                     q->request()),
          where, "MPI_Ibcast");
  });
  return p;
}

PendingPtr sendRecv(void *comm, const void *send, int to, void *recv,
                    int from, size_t bytes, const char *where) {
  auto p = std::make_unique<MpiPending>();
  // Chunks between one pair travel in order (MPI does not overtake).
  if (from >= 0) {
    p->recv.of(recv, bytes, false);
    p->recvDevice = recv;
    p->recvBytes = bytes;
    char *buf = static_cast<char *>(p->recv.host);
    MpiPending *q = p.get();
    forChunks(bytes, [&](size_t off, size_t n) {
      check(MPI_Irecv(buf + off, int(n), MPI_BYTE, from, 0, commOf(comm),
                      q->request()),
            where, "MPI_Irecv");
    });
  }
  if (to >= 0) {
    p->send.of(send, bytes, true);
    const char *buf = static_cast<const char *>(p->send.host);
    MpiPending *q = p.get();
    forChunks(bytes, [&](size_t off, size_t n) {
      check(MPI_Isend(buf + off, int(n), MPI_BYTE, to, 0, commOf(comm),
                      q->request()),
            where, "MPI_Isend");
    });
  }
  return p;
}

} // namespace transport
} // namespace dtensor_rt
