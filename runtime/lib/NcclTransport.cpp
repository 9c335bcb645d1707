//===- NcclTransport.cpp - collectives' transfers over NCCL ---------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// The transport of the CUDA flavour (dtensor_rt_cuda), as BACKEND.md
// designs it:
//   - one world NCCL communicator, from a unique id rank 0 makes and MPI
//     broadcasts; one communicator per mesh group by ncclCommSplit, made
//     eagerly and in the same order on every rank (Mesh::addGroup);
//   - one communication stream per rank, so every communicator's calls are
//     issued in program order on every rank. A start records an event on
//     the compute stream (the legacy default stream, where every kernel,
//     cuBLAS call and copy of the runtime runs), makes the communication
//     stream wait for it, enqueues the NCCL call and records a done event;
//     wait makes the compute stream wait for that event. Nothing blocks
//     the host, and compute issued between start and wait overlaps the
//     transfer. The Future keeps the buffers alive until wait.
//   - send / recv (permute, all_to_all) inside ncclGroupStart/End.
// NCCL's AllGather and ReduceScatter take equal counts on every rank; the
// compiled program already pads uneven pieces (docs/Redistribution.md).
// Float maxima and minima arrive as integer keys (Internal.h, orderedKey):
// NCCL's float max is fmaxf, which drops a NaN the program's maximumf keeps.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

namespace dtensor_rt {
namespace transport {

namespace {

ncclComm_t world = nullptr;
cudaStream_t commStream = nullptr;
int myRank = 0;

void checkNccl(ncclResult_t code, const char *where, const char *call) {
  if (code != ncclSuccess)
    fail(where, std::string(call) + " failed: " + ncclGetErrorString(code) +
                    (code == ncclInvalidUsage
                         ? " (two ranks on one GPU? use the host-staged "
                           "flavour: dtensor-build --target=cuda-mpi)"
                         : ""));
}

void checkCuda(cudaError_t code, const char *where, const char *call) {
  if (code != cudaSuccess)
    fail(where, std::string(call) + " failed: " + cudaGetErrorString(code));
}

struct Comm {
  ncclComm_t comm;
  int size, rank;
};

Comm &commOf(void *c) { return *static_cast<Comm *>(c); }

ncclDataType_t typeOf(DType t) {
  switch (t) {
  case DType::F32: return ncclFloat32;
  case DType::F64: return ncclFloat64;
  case DType::F16: return ncclFloat16;
  case DType::BF16: return ncclBfloat16;
  case DType::I8: return ncclInt8;
  case DType::I32: return ncclInt32;
  case DType::I64: return ncclInt64;
  case DType::I1: return ncclUint8;
  case DType::I16: break; // reduced in i32 (reduction)
  }
  fail(nullptr, std::string("NCCL has no reduction over ") + dtypeName(t));
}

ncclRedOp_t opOf(DType t, Reduction r) {
  if (t == DType::I1) // bool(a + b) is a logical or, bool(a * b) an and
    return r == Reduction::Sum || r == Reduction::Max ? ncclMax : ncclMin;
  switch (r) {
  case Reduction::Sum:
  case Reduction::Avg: return ncclSum;
  case Reduction::Max: return ncclMax;
  case Reduction::Min: return ncclMin;
  case Reduction::Product: return ncclProd;
  }
  return ncclSum;
}

/// An NCCL call in flight on the communication stream.
struct NcclPending : Pending {
  cudaEvent_t done = nullptr;
  /// An i16 reduction runs in i32 (NCCL has no 16-bit integers): the wide
  /// buffers, and where the narrowed result goes after the wait.
  Tensor wideIn, wideOut;
  int16_t *narrowTo = nullptr;

  void wait(const char *where) override {
    if (!done)
      return;
    checkCuda(cudaStreamWaitEvent(0, done, 0), where, "cudaStreamWaitEvent");
    cudaEventDestroy(done);
    done = nullptr;
    if (narrowTo) {
      int16_t *out = narrowTo;
      const int32_t *in = wideOut.data<int32_t>();
      parallel_for(wideOut.numel(), DTENSOR_KERNEL(int64_t i) {
        out[i] = int16_t(in[i]);
      });
      narrowTo = nullptr;
    }
  }
};

/// The i32 copy of `count` i16 elements (on the compute stream).
Tensor widen(const void *p, size_t count) {
  Tensor wide = Tensor::empty(DType::I32, {static_cast<int64_t>(count)});
  const int16_t *in = static_cast<const int16_t *>(p);
  int32_t *out = wide.data<int32_t>();
  parallel_for(static_cast<int64_t>(count),
               DTENSOR_KERNEL(int64_t i) { out[i] = int32_t(in[i]); });
  return wide;
}

/// Runs `enqueue` on the communication stream after the compute stream's
/// work so far; the Pending's event marks its end.
template <typename F>
std::unique_ptr<NcclPending> onCommStream(const char *where, F enqueue) {
  cudaEvent_t ready;
  checkCuda(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming), where,
            "cudaEventCreate");
  checkCuda(cudaEventRecord(ready, 0), where, "cudaEventRecord");
  checkCuda(cudaStreamWaitEvent(commStream, ready, 0), where,
            "cudaStreamWaitEvent");
  cudaEventDestroy(ready);
  enqueue();
  auto p = std::make_unique<NcclPending>();
  checkCuda(cudaEventCreateWithFlags(&p->done, cudaEventDisableTiming), where,
            "cudaEventCreate");
  checkCuda(cudaEventRecord(p->done, commStream), where, "cudaEventRecord");
  return p;
}

} // namespace

void init() {
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &myRank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ncclUniqueId id;
  if (myRank == 0)
    checkNccl(ncclGetUniqueId(&id), "mesh set-up", "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  checkNccl(ncclCommInitRank(&world, size, id, myRank), "mesh set-up",
            "ncclCommInitRank");
  checkCuda(cudaStreamCreateWithFlags(&commStream, cudaStreamNonBlocking),
            "mesh set-up", "cudaStreamCreate");
}

int worldRank() { return myRank; }

void *split(int color, int key, int &size, int &rank, const char *where) {
  auto *c = new Comm;
  checkNccl(ncclCommSplit(world, color, key, &c->comm, nullptr), where,
            "ncclCommSplit");
  checkNccl(ncclCommCount(c->comm, &c->size), where, "ncclCommCount");
  checkNccl(ncclCommUserRank(c->comm, &c->rank), where, "ncclCommUserRank");
  size = c->size;
  rank = c->rank;
  return c;
}

void release(void *comm) {
  auto *c = static_cast<Comm *>(comm);
  ncclCommDestroy(c->comm);
  delete c;
}

PendingPtr allGather(void *comm, const void *send, void *recv, size_t bytes,
                     const char *where) {
  Comm &c = commOf(comm);
  return onCommStream(where, [&] {
    checkNccl(ncclAllGather(send, recv, bytes, ncclUint8, c.comm, commStream),
              where, "ncclAllGather");
  });
}

namespace {
/// A reduction: `call(send, recv, type)` enqueues it. NCCL has no 16-bit
/// integers: i16 goes through i32 copies (wrapping sums and products are
/// the i32 ones truncated; max and min are exact), narrowed after the wait.
template <typename F>
PendingPtr reduction(const char *where, const void *send, size_t sendCount,
                     void *recv, size_t recvCount, DType dtype, F call) {
  if (dtype != DType::I16)
    return onCommStream(where, [&] { call(send, recv, typeOf(dtype)); });
  Tensor in = widen(send, sendCount);
  Tensor out = Tensor::empty(DType::I32, {static_cast<int64_t>(recvCount)});
  auto p = onCommStream(where, [&] { call(in.raw(), out.raw(), ncclInt32); });
  p->wideIn = in;
  p->wideOut = out;
  p->narrowTo = static_cast<int16_t *>(recv);
  return p;
}
} // namespace

PendingPtr allReduce(void *comm, const void *send, void *recv, size_t count,
                     DType dtype, Reduction reduce, const char *where) {
  Comm &c = commOf(comm);
  return reduction(where, send, count, recv, count, dtype,
                   [&](const void *in, void *out, ncclDataType_t type) {
                     checkNccl(ncclAllReduce(in, out, count, type,
                                             opOf(dtype, reduce), c.comm,
                                             commStream),
                               where, "ncclAllReduce");
                   });
}

PendingPtr reduceScatter(void *comm, const void *send, void *recv,
                         size_t recvCount, DType dtype, Reduction reduce,
                         const char *where) {
  Comm &c = commOf(comm);
  return reduction(where, send, recvCount * size_t(c.size), recv, recvCount,
                   dtype, [&](const void *in, void *out, ncclDataType_t type) {
                     checkNccl(ncclReduceScatter(in, out, recvCount, type,
                                                 opOf(dtype, reduce), c.comm,
                                                 commStream),
                               where, "ncclReduceScatter");
                   });
}

PendingPtr allToAll(void *comm, const void *send, void *recv,
                    size_t bytesPerPeer, int groupSize, const char *where) {
  Comm &c = commOf(comm);
  return onCommStream(where, [&] {
    checkNccl(ncclGroupStart(), where, "ncclGroupStart");
    for (int peer = 0; peer < groupSize; ++peer) {
      checkNccl(ncclSend(static_cast<const char *>(send) + peer * bytesPerPeer,
                         bytesPerPeer, ncclUint8, peer, c.comm, commStream),
                where, "ncclSend");
      checkNccl(ncclRecv(static_cast<char *>(recv) + peer * bytesPerPeer,
                         bytesPerPeer, ncclUint8, peer, c.comm, commStream),
                where, "ncclRecv");
    }
    checkNccl(ncclGroupEnd(), where, "ncclGroupEnd");
  });
}

PendingPtr broadcast(void *comm, const void *send, void *recv, size_t bytes,
                     int root, const char *where) {
  Comm &c = commOf(comm);
  return onCommStream(where, [&] {
    checkNccl(ncclBroadcast(send, recv, bytes, ncclUint8, root, c.comm,
                            commStream),
              where, "ncclBroadcast");
  });
}

PendingPtr sendRecv(void *comm, const void *send, int to, void *recv,
                    int from, size_t bytes, const char *where) {
  Comm &c = commOf(comm);
  return onCommStream(where, [&] {
    checkNccl(ncclGroupStart(), where, "ncclGroupStart");
    if (to >= 0)
      checkNccl(ncclSend(send, bytes, ncclUint8, to, c.comm, commStream),
                where, "ncclSend");
    if (from >= 0)
      checkNccl(ncclRecv(recv, bytes, ncclUint8, from, c.comm, commStream),
                where, "ncclRecv");
    checkNccl(ncclGroupEnd(), where, "ncclGroupEnd");
  });
}

} // namespace transport
} // namespace dtensor_rt
