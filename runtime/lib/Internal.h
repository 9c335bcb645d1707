//===- Internal.h - what the runtime's sources share -------------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Not installed. The memory of the flavour (host, or a CUDA device), the
// half-precision conversions kernels use, the packing helpers of the
// collectives, and the transport interface each flavour implements
// (MpiTransport.cpp: MPI on host memory, or staged through host memory from
// a device; NcclTransport.cpp: NCCL on a communication stream).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_RT_INTERNAL_H
#define DTENSOR_RT_INTERNAL_H

#include "dtensor_rt/Runtime.h"

#include <cmath>
#include <cstring>
#include <memory>

namespace dtensor_rt {

//===----------------------------------------------------------------------===//
// Memory of the flavour
//===----------------------------------------------------------------------===//

namespace device {
/// Compute memory: host memory, or device memory of this rank's GPU.
void *alloc(size_t bytes);
void release(void *p);
/// Host memory (pinned in the CUDA flavours).
void *allocHost(size_t bytes);
void releaseHost(void *p);
/// Copies within compute memory, ordered after the kernels before it.
void copy(void *dst, const void *src, size_t bytes);
/// Copies between compute and host memory; both wait for the kernels
/// before them, so the host sees their results.
void toHost(void *dst, const void *src, size_t bytes);
void fromHost(void *dst, const void *src, size_t bytes);
/// Zero bytes, ordered after the kernels before it.
void zero(void *p, size_t bytes);
/// Waits for every kernel and copy issued so far.
void synchronize();
/// Chooses this process's GPU (`localRank` modulo the GPUs visible); the
/// CPU flavour does nothing. Called once, before any allocation.
void select(int localRank);
/// What the flavour is, for messages: "cpu", "cuda".
const char *kind();
} // namespace device

/// Whether the flavour computes in host memory (the CPU one) or on a
/// device (the CUDA ones).
#if defined(DTENSOR_RT_CUDA)
constexpr bool kComputeIsHost = false;
#else
constexpr bool kComputeIsHost = true;
#endif

/// The memory plan (Tensor.cpp): Session::startStep / endStep bracket each
/// run of an entry, whose first run is recorded and whose later runs follow
/// the plan made from it (DTENSOR_RT_MEMORY_PLAN=0: the pool only).
void beginMemoryRun(const std::string &entry);
void endMemoryRun();

//===----------------------------------------------------------------------===//
// Helpers of the collectives (Tensor.cpp)
//===----------------------------------------------------------------------===//

/// Divides every element by `n` in its type, as the interpreter does
/// (integers truncate; f16/bf16 through float; I1 unchanged).
void divideBy(Tensor &t, double n);

/// An i8 / i16 / i32 tensor as i64 (an integer mean's exact sums), and the
/// way back: `out[i] = wide[i] / n` truncating, in `out`'s type.
Tensor widenToI64(const Tensor &t);
void narrowMean(const Tensor &wide, int64_t n, Tensor &out);

/// Copies the box `sizes` of a strided view of `src` (element strides
/// `srcStrides`, starting at element `srcBase`) into the same box of `dst`,
/// both compute memory with elements of `elem` bytes.
void copyBox(const void *src, int64_t srcBase, const Shape &srcStrides,
             void *dst, int64_t dstBase, const Shape &dstStrides,
             const Shape &sizes, size_t elem);
/// The same as one kernel over every element, whatever the strides: what
/// the CUDA flavours always run (the CPU flavour runs it for short rows;
/// the runtime's tests compare it with the row copies).
void copyBoxKernel(const void *src, int64_t srcBase, const Shape &srcStrides,
                   void *dst, int64_t dstBase, const Shape &dstStrides,
                   const Shape &sizes, size_t elem);

Shape rowMajorStrides(const Shape &shape);

//===----------------------------------------------------------------------===//
// Float max / min as integer reductions
//===----------------------------------------------------------------------===//
//
// A Partial max / min of floats combines as torch.maximum / minimum and
// arith.maximumf / minimumf (the interpreter's rule): a NaN term gives NaN
// whichever rank holds it, and -0 orders below +0. Neither MPI_MAX nor
// NCCL's ncclMax does that (MPI keeps or drops a NaN by the order it
// combines in; NCCL's float max is fmaxf, which drops it). So every flavour
// sends float maxima and minima as integer keys whose signed order is the
// float order: a non-negative float's bits as they are, a negative one's
// with every bit but the sign flipped (so -0 is -1, below +0's 0), and any
// NaN as the integer maximum (max) or minimum (min), which no float's key
// reaches. The integer max / min of the keys is then the float rule's
// result, exactly, and a transport's integer max is exact and
// order-independent on every library. f16 and bf16 keys are 16 bits wide.

/// The key of a float's `bits`: `S` is the signed integer of the float's
/// width, `U` the unsigned one, `infBits` the bits of +infinity (every bit
/// pattern above it, sign aside, is a NaN).
template <typename S, typename U>
DTENSOR_HD inline S orderedKey(U bits, U infBits, bool max) {
  const U magnitude = U(U(~U(0)) >> 1);
  const S top = S(magnitude), bottom = S(-top - 1);
  if (U(bits & magnitude) > infBits)
    return max ? top : bottom;
  S s = S(bits);
  return s >= 0 ? s : S(s ^ top);
}

/// The float bits of a key (`nanBits`, a quiet NaN, for either NaN key).
template <typename S, typename U>
DTENSOR_HD inline U fromOrderedKey(S key, U nanBits) {
  const S top = S(U(U(~U(0)) >> 1)), bottom = S(-top - 1);
  if (key == top || key == bottom)
    return nanBits;
  return U(key >= 0 ? key : S(key ^ top));
}

/// Whether a reduction of `t` by `r` travels as keys.
inline bool reducesAsKeys(DType t, Reduction r) {
  return (r == Reduction::Max || r == Reduction::Min) &&
         (t == DType::F32 || t == DType::F64 || t == DType::F16 ||
          t == DType::BF16);
}

/// The keys of a float tensor (a kernel of the flavour), of the signed
/// integer type of its width.
Tensor toOrderedKeys(const Tensor &floats, bool max);
/// Writes the floats of `keys` into `out` (same element count).
void fromOrderedKeys(const Tensor &keys, Tensor &out);

//===----------------------------------------------------------------------===//
// Transports
//===----------------------------------------------------------------------===//

namespace transport {

/// An operation in flight; `wait` completes it: after it, the receive
/// buffers hold the result for the kernels issued next.
struct Pending {
  virtual ~Pending() = default;
  virtual void wait(const char *where) = 0;
};
using PendingPtr = std::unique_ptr<Pending>;

/// Once, after MPI_Init: a world communicator of the transport's own, if
/// it needs one.
void init();
/// This process's rank in the world (the mesh rank).
int worldRank();
/// The group `color` of the world at position `key` (collective over the
/// world, in the same order on every rank).
void *split(int color, int key, int &size, int &rank, const char *where);
void release(void *comm);

/// Buffers are compute memory; counts are elements of `dtype` or bytes.
/// `reduce` is never Avg (the caller sums and divides), and never Max or
/// Min of a float type (the caller reduces keys: orderedKey).
PendingPtr allGather(void *comm, const void *send, void *recv, size_t bytes,
                     const char *where);
PendingPtr allReduce(void *comm, const void *send, void *recv, size_t count,
                     DType dtype, Reduction reduce, const char *where);
PendingPtr reduceScatter(void *comm, const void *send, void *recv,
                         size_t recvCount, DType dtype, Reduction reduce,
                         const char *where);
PendingPtr allToAll(void *comm, const void *send, void *recv,
                    size_t bytesPerPeer, int groupSize, const char *where);
PendingPtr broadcast(void *comm, const void *send, void *recv, size_t bytes,
                     int root, const char *where);
/// Sends `send` to `to` and receives into `recv` from `from` (each -1 for
/// none), `bytes` each way.
PendingPtr sendRecv(void *comm, const void *send, int to, void *recv,
                    int from, size_t bytes, const char *where);

} // namespace transport

} // namespace dtensor_rt

#endif // DTENSOR_RT_INTERNAL_H
