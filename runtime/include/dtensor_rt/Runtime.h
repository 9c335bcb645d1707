//===- Runtime.h - what emitted dtensor-mlir programs call ------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// The runtime of programs emitted by `dtensor-translate --dtensor-to-cpp`
// (docs/CodeGen.md). Plain C++17 over MPI, OpenMP and CBLAS; no LLVM, no
// MLIR. Everything a rank needs:
//
//   - Tensor: a dense row-major buffer with value semantics by reference
//     count (copy-on-write through `writable`), storage from a pool keyed by
//     byte size, so a program's steady state allocates nothing;
//   - data movement and kernels the emitter calls (slices, pad, concat,
//     fill, matmul) and `parallel_for`, the one loop every emitted
//     element-wise or reduction kernel runs through;
//   - Mesh: the world communicator split eagerly, in program order, into one
//     communicator per group the program uses. The compiler computes every
//     group with the layout core and emits, per world rank, the color and
//     key of the split, so the runtime never re-derives a group;
//   - collectives with the exact semantics of the dtensor dialect's ops
//     (DTensorCollectiveOps.td), synchronous and started (`Future`), with
//     a count of the bytes each rank sends;
//   - Session: MPI start-up, the command line (`--input`, `--output-dir`,
//     `--entry`, `--comm-report`, `--mem-report`), each rank reading only its own box of an
//     input .npy, writing `outN.rankR.npy`, and failing every rank cleanly
//     with the rank, the op and its source location.
//
// Three flavours share this header and every line of the collectives'
// logic (docs/CodeGen.md, "The CUDA flavour"):
//   - dtensor_rt_mpi: host memory, OpenMP kernels, MPI collectives;
//   - dtensor_rt_cuda: device memory, CUDA kernels (the same kernel text,
//     compiled by nvcc), cuBLAS, NCCL collectives on a communication stream;
//   - dtensor_rt_cuda_mpi: device memory and CUDA kernels, collectives staged
//     through host memory over MPI, so several ranks can share one GPU.
// A translation unit compiled by nvcc (`__CUDACC__`) is a CUDA flavour.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_RT_RUNTIME_H
#define DTENSOR_RT_RUNTIME_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

// Vector variants of the math functions kernels call (glibc's libmvec, which
// libm.so links as needed): declared `simd` so that the compiler vectorizes a
// kernel's inner loop (parallel_for2's `omp simd`) through them instead of
// calling the scalar function per element, as glibc's own <math.h> declares
// them only under -ffast-math. libmvec's results are within a few ulp of the
// scalar functions' (docs/CodeGen.md states the tolerance every comparison
// uses). x86-64 hosts with glibc 2.35 or later, which has all of these.
#if !defined(__CUDACC__) && defined(__x86_64__) && defined(__GLIBC__) &&      \
    !defined(__FAST_MATH__) && defined(__GLIBC_PREREQ)
#if __GLIBC_PREREQ(2, 35)
#define DTENSOR_RT_SIMD_MATH(name)                                             \
  _Pragma("omp declare simd notinbranch") double name(double);                 \
  _Pragma("omp declare simd notinbranch") float name##f(float);
#define DTENSOR_RT_SIMD_MATH2(name)                                            \
  _Pragma("omp declare simd notinbranch") double name(double, double);         \
  _Pragma("omp declare simd notinbranch") float name##f(float, float);
extern "C" {
DTENSOR_RT_SIMD_MATH(acos)
DTENSOR_RT_SIMD_MATH(acosh)
DTENSOR_RT_SIMD_MATH(asin)
DTENSOR_RT_SIMD_MATH(asinh)
DTENSOR_RT_SIMD_MATH(atan)
DTENSOR_RT_SIMD_MATH(atanh)
DTENSOR_RT_SIMD_MATH(cbrt)
DTENSOR_RT_SIMD_MATH(cos)
DTENSOR_RT_SIMD_MATH(cosh)
DTENSOR_RT_SIMD_MATH(erf)
DTENSOR_RT_SIMD_MATH(exp)
DTENSOR_RT_SIMD_MATH(exp2)
DTENSOR_RT_SIMD_MATH(expm1)
DTENSOR_RT_SIMD_MATH(log)
DTENSOR_RT_SIMD_MATH(log10)
DTENSOR_RT_SIMD_MATH(log1p)
DTENSOR_RT_SIMD_MATH(log2)
DTENSOR_RT_SIMD_MATH(sin)
DTENSOR_RT_SIMD_MATH(sinh)
DTENSOR_RT_SIMD_MATH(tan)
DTENSOR_RT_SIMD_MATH(tanh)
DTENSOR_RT_SIMD_MATH2(atan2)
DTENSOR_RT_SIMD_MATH2(pow)
}
#undef DTENSOR_RT_SIMD_MATH
#undef DTENSOR_RT_SIMD_MATH2
#endif
#endif

#if defined(__CUDACC__)
#define DTENSOR_RT_CUDA 1
/// Functions that kernels call: host and device code under nvcc.
#define DTENSOR_HD __host__ __device__
#else
#define DTENSOR_HD
#endif
/// Before a loop whose iterations never depend on each other (a reduction
/// tile's outputs, EmitCpp.cpp): `omp simd` on a host; nothing under nvcc,
/// where the loop only exists in the host-only path.
#if defined(DTENSOR_RT_CUDA)
#define DTENSOR_RT_SIMD
#else
#define DTENSOR_RT_SIMD _Pragma("omp simd")
#endif
/// The lambda every emitted kernel body is: captures by value (pointers,
/// sizes, scalars), so the same text is an OpenMP loop body on the host and
/// a device lambda under nvcc (`--extended-lambda`).
#define DTENSOR_KERNEL [=] DTENSOR_HD

namespace dtensor_rt {

//===----------------------------------------------------------------------===//
// Element types and errors
//===----------------------------------------------------------------------===//

enum class DType : uint8_t { F32, F64, F16, BF16, I1, I8, I16, I32, I64 };

/// Bytes per element (I1 is stored as one byte, 0 or 1).
size_t dtypeBytes(DType t);
const char *dtypeName(DType t);

/// Prints `dtensor runtime: rank R: WHERE: MESSAGE` to stderr and aborts
/// every rank (MPI_Abort), so a failing rank never leaves the others hanging.
/// `where` is the op and its source location, e.g.
/// `dtensor.all_gather at model.mlir:12:5`; may be null.
[[noreturn]] void fail(const char *where, const std::string &message);

//===----------------------------------------------------------------------===//
// f16 and bf16: conversions and the scalar types kernels compute with
//===----------------------------------------------------------------------===//

DTENSOR_HD inline uint32_t floatBits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  return x;
}
DTENSOR_HD inline float bitsFloat(uint32_t x) {
  float f;
  memcpy(&f, &x, 4);
  return f;
}

DTENSOR_HD inline float halfToFloat(uint16_t h) {
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
  return bitsFloat(bits);
}

DTENSOR_HD inline uint16_t floatToHalf(float f) {
  uint32_t x = floatBits(f);
  uint16_t sign = (x >> 16) & 0x8000;
  uint32_t absx = x & 0x7fffffff;
  if (absx >= 0x7f800000) // inf or nan
    return sign | 0x7c00 | (absx > 0x7f800000 ? 0x200 : 0);
  if (absx >= 0x477ff000) // rounds to inf
    return sign | 0x7c00;
  if (absx < 0x38800000) // subnormal or zero: round at 2^-24
    return sign | uint16_t(std::nearbyint(bitsFloat(absx) * 16777216.0f));
  uint32_t mant = absx & 0x7fffff;
  int exp = int(absx >> 23) - 127 + 15;
  uint32_t h = uint32_t(exp) << 10 | mant >> 13;
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return sign | uint16_t(h);
}

DTENSOR_HD inline float bf16ToFloat(uint16_t h) {
  return bitsFloat(uint32_t(h) << 16);
}

DTENSOR_HD inline uint16_t floatToBf16(float f) {
  uint32_t x = floatBits(f);
  if ((x & 0x7fffffff) > 0x7f800000)
    return uint16_t((x >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return uint16_t((x + rounding) >> 16);
}

/// An f16 (`BF` false) or bf16 (`BF` true) scalar: two bytes of storage,
/// arithmetic through float. Every arith op of the program converts its
/// operands to float, computes and rounds the result to the type, which is
/// the correctly rounded result for +, -, *, / and sqrt (float holds more
/// than twice the significand bits plus two). Host and device code.
template <bool BF> struct Half16 {
  uint16_t bits;
  Half16() = default;
  template <typename T>
  DTENSOR_HD Half16(T v)
      : bits(BF ? floatToBf16(float(v)) : floatToHalf(float(v))) {}
  DTENSOR_HD operator float() const {
    return BF ? bf16ToFloat(bits) : halfToFloat(bits);
  }
};
using half = Half16<false>;
using bfloat16 = Half16<true>;

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

using Shape = std::vector<int64_t>;

/// Number of elements of `shape` (1 for rank 0).
int64_t numElements(const Shape &shape);

/// A dense, row-major, contiguous buffer. Copies share storage; a kernel
/// that writes first calls `writable`, which copies only when the storage
/// is shared. Storage comes from a per-process pool keyed by byte size.
class Tensor {
public:
  Tensor() = default;
  /// Uninitialized storage (the pool's bytes; contents unspecified).
  static Tensor empty(DType dtype, Shape shape);
  /// Zero-filled.
  static Tensor zeros(DType dtype, Shape shape);
  /// A copy of `bytes` (numElements(shape) * dtypeBytes(dtype) of them),
  /// which are in host memory.
  static Tensor fromBytes(DType dtype, Shape shape, const void *bytes);
  /// Uninitialized host memory (file I/O, staging). In the CPU flavour the
  /// same as `empty`.
  static Tensor emptyHost(DType dtype, Shape shape);

  DType dtype() const { return dtype_; }
  const Shape &shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t dim(int64_t d) const { return shape_[static_cast<size_t>(d)]; }
  int64_t numel() const { return numElements(shape_); }
  size_t bytes() const { return static_cast<size_t>(numel()) * dtypeBytes(dtype_); }

  void *raw() { return data_; }
  const void *raw() const { return data_; }
  template <typename T> T *data() { return static_cast<T *>(data_); }
  template <typename T> const T *data() const {
    return static_cast<const T *>(data_);
  }

  /// Whether no other Tensor shares this storage.
  bool unique() const { return storage_.use_count() <= 1; }
  /// A deep copy.
  Tensor clone() const;
  /// The same storage with another shape of the same element count
  /// (collapse_shape, expand_shape, reshape).
  Tensor reshaped(Shape shape) const;
  /// Elements [offset, offset + count) of a 1-D tensor, sharing its storage
  /// (a view; writes go through writable() / takeOrEmpty(), which copy
  /// shared storage first).
  Tensor range(int64_t offset, int64_t count) const;
  /// Whether the storage is host memory (always, in the CPU flavour).
  bool onHost() const { return host_; }
  /// The tensor in host memory / in the flavour's compute memory: itself
  /// when it is there already, else a copy (which waits for the kernels
  /// that produce it).
  Tensor toHost() const;
  Tensor toDevice() const;

private:
  static Tensor allocate(DType dtype, Shape shape, bool host);
  std::shared_ptr<void> storage_;
  void *data_ = nullptr;
  DType dtype_ = DType::F32;
  Shape shape_;
  bool host_ = true;
};

/// `t` itself when its storage is not shared, else a copy: what a kernel
/// writing into an `outs` operand calls.
Tensor writable(Tensor t);

/// The storage of `t`, taken (`t` is left empty), when nothing else shares
/// it and it is compute memory; else fresh storage of its type and shape
/// (`t` is left as it was). What an element-wise kernel that may write in
/// place of a dead input calls (docs/CodeGen.md, "In-place kernels"): it
/// then reads that input from `t` if `t` still holds it, else from the
/// result.
Tensor takeOrEmpty(Tensor &t);

/// `t` moved out, `t` left empty: a value passed at its last use to a
/// collective that may reuse its storage (allReduce).
Tensor release(Tensor &t);

//===----------------------------------------------------------------------===//
// Kernels and data movement (tensor dialect semantics)
//===----------------------------------------------------------------------===//

/// Element `index` (row-major) of `t`, read or written from host code
/// (scalars the program computes on the host: tensor.extract, tensor.insert,
/// from_elements outside kernels). A device copy of one element in the CUDA
/// flavours.
void loadElement(const Tensor &t, int64_t index, void *value);
void storeElement(Tensor &t, int64_t index, const void *value);
template <typename T> T load(const Tensor &t, int64_t index) {
  T v;
  loadElement(t, index, &v);
  return v;
}
template <typename T> void store(Tensor &t, int64_t index, T v) {
  storeElement(t, index, &v);
}

#if defined(DTENSOR_RT_CUDA)
namespace detail {
template <typename F> __global__ void gridStride(int64_t n, F body) {
  int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step)
    body(i);
}
/// Fails with the CUDA error of the last launch, if any.
void checkLaunch(const char *what);
} // namespace detail

/// Runs `body(i)` for i in [0, n): a grid-stride kernel on the compute
/// stream (the legacy default stream; collectives order themselves
/// against it with events). The OpenMP flavour runs the same body.
template <typename F> void parallel_for(int64_t n, const F &body) {
  if (n <= 0)
    return;
  const int threads = 256;
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks > 65536)
    blocks = 65536;
  detail::gridStride<<<static_cast<unsigned>(blocks), threads>>>(n, body);
  detail::checkLaunch("a kernel launch");
}

namespace detail {
template <typename F> struct Split2 {
  int64_t m;
  F body;
  DTENSOR_HD void operator()(int64_t k) const { body(k / m, k % m); }
};
} // namespace detail

/// Runs `body(i, j)` for i in [0, n), j in [0, m): one thread per pair.
template <typename F> void parallel_for2(int64_t n, int64_t m, const F &body) {
  if (n <= 0 || m <= 0)
    return;
  parallel_for(n * m, detail::Split2<F>{m, body});
}
/// parallel_for2 (the host flavour blocks the pairs; a GPU needs not).
template <typename F>
void parallel_for2_tiled(int64_t n, int64_t m, const F &body) {
  parallel_for2(n, m, body);
}
#else
/// Runs `body(i)` for i in [0, n): an OpenMP loop on the host (the CUDA
/// flavours launch a grid-stride kernel with the same body).
template <typename F> void parallel_for(int64_t n, const F &body) {
#pragma omp parallel for schedule(static) if (n > 4096)
  for (int64_t i = 0; i < n; ++i)
    body(i);
}

/// Runs `body(i, j)` for i in [0, n), j in [0, m): i over the threads, j
/// vectorized inside each (the innermost loop of a kernel; its math calls go
/// to their vector variants, above). The CUDA flavours run one thread per
/// pair, so a body never depends on another pair's: `omp simd` states it.
template <typename F> void parallel_for2(int64_t n, int64_t m, const F &body) {
#pragma omp parallel for schedule(static) if (n * m > 4096)
  for (int64_t i = 0; i < n; ++i) {
#pragma omp simd
    for (int64_t j = 0; j < m; ++j)
      body(i, j);
  }
}

/// parallel_for2 in blocks of 16 i by 512 j, for a kernel with an operand
/// that is not contiguous along j (a transposed read or write): a block's
/// 16 rows of one operand and 512 of the other stay in cache (a 2048x2048
/// transposed copy: 33.5 -> 11.5 ms on one core; contiguous kernels lose
/// 10-20 % in blocks, so they keep parallel_for2).
template <typename F>
void parallel_for2_tiled(int64_t n, int64_t m, const F &body) {
  constexpr int64_t kRows = 16, kCols = 512;
  const int64_t blocks = (n + kRows - 1) / kRows;
#pragma omp parallel for schedule(static) if (n * m > 4096)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t iEnd = std::min(n, (b + 1) * kRows);
    for (int64_t j0 = 0; j0 < m; j0 += kCols) {
      const int64_t jEnd = std::min(m, j0 + kCols);
      for (int64_t i = b * kRows; i < iEnd; ++i) {
#pragma omp simd
        for (int64_t j = j0; j < jEnd; ++j)
          body(i, j);
      }
    }
  }
}
#endif

/// Where a reduction's consecutive terms lie (EmitCpp.cpp, emitReduction):
/// `Inner` when the innermost reduction loop indexes its input's last
/// dimension (terms of one output are adjacent in memory: row sums, a sum
/// of everything), `Outer` otherwise (adjacent outputs are adjacent: column
/// sums). It only chooses how a GPU spreads the work; results are within
/// the dtype's tolerance either way.
enum class ReduceLayout { Inner, Outer };

namespace detail {
/// DTENSOR_RT_REDUCTION_PARTS, or 0 when unset.
inline int64_t forcedReductionParts() {
  const char *forced = std::getenv("DTENSOR_RT_REDUCTION_PARTS");
  if (!forced)
    return 0;
  int64_t k = std::atoll(forced);
  return k < 1 ? 1 : k;
}
} // namespace detail

#if defined(DTENSOR_RT_CUDA)
namespace detail {
/// Combines, for output `flat`, the values get(flat, p) for p in [0, parts)
/// over `chunks` blocks per output: each thread combines the parts
/// chunk * blockDim + threadIdx, + chunks * blockDim, ..., then the block
/// combines its threads' values as a tree in shared memory and calls
/// put(flat, chunk, value). No identity is needed: a thread with no part
/// takes no part in the tree.
template <typename T, typename Get, typename Combine, typename Put>
__global__ void blockReduce(int64_t blocks, int64_t chunks, int64_t parts,
                            Get get, Combine combine, Put put) {
  extern __shared__ unsigned char shared[];
  T *vals = reinterpret_cast<T *>(shared);
  bool *has = reinterpret_cast<bool *>(vals + blockDim.x);
  const int64_t b = blockIdx.x + int64_t(blockIdx.y) * gridDim.x;
  if (b >= blocks) // the grid's last row of blocks may overhang
    return;
  const int64_t flat = b / chunks, chunk = b % chunks;
  const int64_t lanes = chunks * blockDim.x;
  const unsigned tid = threadIdx.x;
  T acc{};
  bool any = false;
  for (int64_t p = chunk * blockDim.x + tid; p < parts; p += lanes) {
    T v = get(flat, p);
    acc = any ? combine(acc, v) : v;
    any = true;
  }
  vals[tid] = acc;
  has[tid] = any;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s && has[tid + s]) {
      vals[tid] = has[tid] ? combine(vals[tid], vals[tid + s]) : vals[tid + s];
      has[tid] = true;
    }
    __syncthreads();
  }
  if (tid == 0 && has[0])
    put(flat, chunk, vals[0]);
}

/// Launches blockReduce for `nout` outputs with `threads` (a power of two)
/// threads per block.
template <typename T, typename Get, typename Combine, typename Put>
void launchBlockReduce(int64_t nout, int64_t chunks, int64_t parts,
                       unsigned threads, const Get &get,
                       const Combine &combine, const Put &put) {
  const int64_t blocks = nout * chunks;
  const int64_t maxX = 65535;
  dim3 grid(static_cast<unsigned>(blocks < maxX ? blocks : maxX),
            static_cast<unsigned>((blocks + maxX - 1) / maxX));
  size_t shared = threads * (sizeof(T) + sizeof(bool));
  blockReduce<T><<<grid, threads, shared>>>(blocks, chunks, parts, get,
                                            combine, put);
  checkLaunch("a reduction kernel launch");
}

/// The GPU's stores of a reduction's partial values (`Put`).
template <typename T> struct ToScratch {
  T *scratch;
  int64_t chunks;
  DTENSOR_HD void operator()(int64_t flat, int64_t chunk, T v) const {
    scratch[flat * chunks + chunk] = v;
  }
};
template <typename T, typename Store> struct ToOutput {
  Store store;
  __device__ void operator()(int64_t flat, int64_t, T v) const {
    store(flat, v);
  }
};
template <typename T, typename Part, typename Store> struct OnePart {
  Part part;
  Store store;
  __device__ void operator()(int64_t flat) const {
    store(flat, part(flat, 0, 1));
  }
};
template <typename T, typename Part> struct PartToScratch {
  int64_t nout, parts;
  T *scratch; // part p of output `flat` at p * nout + flat
  Part part;
  __device__ void operator()(int64_t k) const {
    scratch[k] = part(k % nout, k / nout, parts);
  }
};
template <typename T, typename Part> struct PartOf {
  int64_t parts;
  Part part;
  __device__ T operator()(int64_t flat, int64_t p) const {
    return part(flat, p, parts);
  }
};
template <typename T> struct FromScratch {
  const T *scratch;
  int64_t stride, step; // value p of output `flat`: scratch[flat * stride + p * step]
  __device__ T operator()(int64_t flat, int64_t p) const {
    return scratch[flat * stride + p * step];
  }
};
inline int64_t floorPow2(int64_t x) {
  int64_t p = 1;
  while (p * 2 <= x)
    p *= 2;
  return p;
}
} // namespace detail
#endif

/// A reduction kernel (EmitCpp.cpp, emitReduction): `nout` outputs, each
/// combining `nterms` terms. The emitted `part(flat, p, parts)` combines the
/// terms p, p + parts, ... (in the row-major order of the reduction loops)
/// of output `flat`, starting from the output's value when p is 0 and from
/// the operation's identity otherwise; `combine(a, b)` is the operation;
/// `store(flat, v)` writes the result.
///
/// On the host one part per output: each output's terms combine in order
/// on one thread, as the interpreter combines them (results do not change).
/// On a GPU (docs/CodeGen.md, "Reductions"): an `Inner` reduction gives each
/// output one or more blocks whose threads read adjacent terms and combine
/// as a tree in shared memory; an `Outer` one gives each output a few parts
/// (part-major, so adjacent threads read adjacent outputs), combined by a
/// second kernel. Floating-point sums then associate differently (within
/// the dtype's tolerance).
/// DTENSOR_RT_REDUCTION_PARTS=K asks for K parts per output (at most
/// `nterms`) in any flavour: how tests run the split path, identities
/// included, on a CPU.
template <typename T, typename Part, typename Combine, typename Store>
void reduce(int64_t nout, int64_t nterms, ReduceLayout layout,
            const Part &part, const Combine &combine, const Store &store) {
  if (nout <= 0)
    return;
  int64_t forced = detail::forcedReductionParts();
  if (forced > nterms)
    forced = nterms > 1 ? nterms : 1;
#if defined(DTENSOR_RT_CUDA)
  using namespace detail;
  // About twice the threads an H100 or H200 holds at once (132 x 2048):
  // on an H200, 2^17 left the sum of a 8192x8192 f32 at 1.2 TB/s, 2^19
  // and 2^20 reach 2 TB/s (docs/CodeGen.md).
  const int64_t threadsWanted = int64_t(1) << 19;
  if (!forced && layout == ReduceLayout::Inner && nterms >= 128) {
    // Blocks of threads reading adjacent terms; enough blocks per output
    // to fill the device when the outputs alone do not, each thread
    // keeping at least 16 terms.
    const unsigned threads =
        static_cast<unsigned>(std::min<int64_t>(256, floorPow2(nterms / 4)));
    int64_t chunks = 1;
    if (nout * threads < threadsWanted) {
      chunks = threadsWanted / (nout * threads);
      chunks = std::min<int64_t>(chunks, nterms / (int64_t(threads) * 16));
      chunks = std::max<int64_t>(chunks, 1);
    }
    const int64_t parts = chunks * threads;
    PartOf<T, Part> get{parts, part};
    if (chunks == 1) {
      launchBlockReduce<T>(nout, 1, parts, threads, get, combine,
                           ToOutput<T, Store>{store});
      return;
    }
    Tensor scratch = Tensor::empty(DType::I8, {nout * chunks * int64_t(sizeof(T))});
    T *s = static_cast<T *>(scratch.raw());
    launchBlockReduce<T>(nout, chunks, parts, threads, get, combine,
                         ToScratch<T>{s, chunks});
    const unsigned second = static_cast<unsigned>(
        std::min<int64_t>(256, std::max<int64_t>(32, floorPow2(chunks))));
    launchBlockReduce<T>(nout, 1, chunks, second, FromScratch<T>{s, chunks, 1},
                         combine, ToOutput<T, Store>{store});
    return;
  }
  int64_t parts = forced;
  if (!parts) {
    // One thread per output, or a few parts each when the outputs alone
    // do not fill the device (each part keeping at least 32 terms).
    parts = 1;
    if (nout < threadsWanted / 2) {
      parts = std::min<int64_t>(threadsWanted / nout, nterms / 32);
      parts = std::max<int64_t>(parts, 1);
    }
  }
  if (parts == 1) {
    parallel_for(nout, OnePart<T, Part, Store>{part, store});
    return;
  }
  Tensor scratch = Tensor::empty(DType::I8, {nout * parts * int64_t(sizeof(T))});
  T *s = static_cast<T *>(scratch.raw());
  parallel_for(nout * parts, PartToScratch<T, Part>{nout, parts, s, part});
  const unsigned second = static_cast<unsigned>(
      std::min<int64_t>(256, std::max<int64_t>(32, floorPow2(parts))));
  launchBlockReduce<T>(nout, 1, parts, second, FromScratch<T>{s, 1, nout},
                       combine, ToOutput<T, Store>{store});
#else
  (void)layout;
  const int64_t parts = forced ? forced : 1;
  parallel_for(nout, [&](int64_t flat) {
    T acc = part(flat, 0, parts);
    for (int64_t p = 1; p < parts; ++p)
      acc = combine(acc, part(flat, p, parts));
    store(flat, acc);
  });
#endif
}

/// The most outputs `reduce` passes to a tile (below): the emitted tile
/// keeps each output's indices in arrays of this size.
constexpr int64_t kReduceTile = 256;

/// The same reduction with `tile(flat0, count, accs)`, which computes
/// outputs flat0 .. flat0 + count - 1 (count <= kReduceTile) into
/// accs[0 .. count) with the reduction loops outside and the outputs inside
/// (EmitCpp.cpp, emitReduction). A host runs tiles, each output's terms in
/// the order and from the start of a single part, so the numbers do not
/// change: of 256 outputs for an Outer layout (reading the input row by row
/// rather than a strided column per output); of 8 for an Inner one, whose
/// outputs' chains of dependent adds then run side by side where one output
/// at a time waits for each add (more rows than 8 thrash an 8-way L1 set
/// when the row stride is a multiple of 4 KiB). docs/CodeGen.md
/// ("Reductions on a host") has the figures. A GPU, or a forced split
/// (DTENSOR_RT_REDUCTION_PARTS), runs the reduction above.
template <typename T, typename Part, typename Combine, typename Store,
          typename Tile>
void reduce(int64_t nout, int64_t nterms, ReduceLayout layout,
            const Part &part, const Combine &combine, const Store &store,
            const Tile &tile) {
#if !defined(DTENSOR_RT_CUDA)
  if (nout > 1 && !detail::forcedReductionParts()) {
    const int64_t kTile = layout == ReduceLayout::Outer ? kReduceTile : 8;
    const int64_t tiles = (nout + kTile - 1) / kTile;
    // (Threads when the whole reduction is worth them, as parallel_for
    // decides for one output per iteration.)
#pragma omp parallel for schedule(static) if (nout * nterms > 4096)
    for (int64_t t = 0; t < tiles; ++t) {
      T accs[kReduceTile];
      const int64_t flat0 = t * kTile;
      const int64_t count = std::min(kTile, nout - flat0);
      tile(flat0, count, accs);
      for (int64_t k = 0; k < count; ++k)
        store(flat0 + k, accs[k]);
    }
    return;
  }
#else
  (void)tile;
#endif
  reduce<T>(nout, nterms, layout, part, combine, store);
}

/// tensor.extract_slice: `sizes` of the source (before dropping unit dims),
/// `resultShape` after the rank reduction.
/// A contiguous slice of a 1-D tensor as a view of it (Tensor::range):
/// what the emitter makes where every user of the source is such a slice
/// (a bucket's members unpacked from its reduced buffer).
Tensor extractRange(const Tensor &source, const Shape &offsets,
                    const Shape &sizes);
Tensor extractSlice(const Tensor &source, const Shape &offsets,
                    const Shape &sizes, const Shape &strides,
                    const Shape &resultShape);
/// tensor.insert_slice: `dest` with the box written from `source` (whose
/// element count equals the product of `sizes`).
Tensor insertSlice(const Tensor &source, Tensor dest, const Shape &offsets,
                   const Shape &sizes, const Shape &strides);
/// tensor.pad with a constant: `padValue` points at one element of the
/// tensor's dtype.
Tensor pad(const Tensor &source, const Shape &low, const Shape &high,
           const void *padValue);
/// tensor.concat along `dim`.
Tensor concat(int64_t dim, const std::vector<Tensor> &parts);
/// linalg.fill: every element of `dest` set to *value (one element of its
/// dtype).
Tensor fill(Tensor dest, const void *value);
/// linalg.matmul (A: MxK, B: KxN, C: MxN) and linalg.batch_matmul
/// (BxMxK, BxKxN, BxMxN): C + A*B. CBLAS for f32 and f64 (cuBLAS for f32,
/// f64, f16 and bf16 on a GPU), a loop otherwise. A and B of one dtype, C
/// of the same or, widened, i8 x i8 -> i32 and f16 / bf16 -> f32 (each
/// product of the operands extended, as linalg's signed cast: cuBLAS's
/// int8 and mixed-precision GEMMs on a GPU, a loop on a host).
Tensor matmul(const Tensor &a, const Tensor &b, Tensor c);
Tensor batchMatmul(const Tensor &a, const Tensor &b, Tensor c);

//===----------------------------------------------------------------------===//
// Mesh and collectives
//===----------------------------------------------------------------------===//

enum class Reduction : uint8_t { Sum, Avg, Max, Min, Product };

/// One communicator of a mesh: the group of ranks that differ only along
/// some mesh dims, ordered as the core's `meshGroups` orders it.
struct Group {
  void *comm = nullptr; ///< the transport's communicator (MPI_Comm or
                        ///< ncclComm_t; opaque: no mpi.h or nccl.h here)
  int size = 0;         ///< ranks in the group
  int rank = 0;         ///< this process's index in the group
};

/// A device mesh over MPI_COMM_WORLD (and, in the NCCL flavour, a world NCCL
/// communicator made from it). The world size must equal the number of mesh
/// ranks (Session checks it); world rank r is mesh rank r.
class Mesh {
public:
  explicit Mesh(Shape shape);
  ~Mesh();
  Mesh(const Mesh &) = delete;
  Mesh &operator=(const Mesh &) = delete;

  const Shape &shape() const { return shape_; }
  int64_t size() const;
  /// This process's mesh rank.
  int64_t rank() const { return rank_; }

  /// Splits the world communicator: this rank joins the group `color[rank]`
  /// at position `key[rank]` (both arrays have one entry per world rank, as
  /// the compiler emits them). Collective over the world: every rank calls
  /// addGroup in the same order. Returns the group's id.
  int addGroup(const int64_t *color, const int64_t *key);
  const Group &group(int id) const;

private:
  Shape shape_;
  int64_t rank_ = 0;
  std::vector<Group> groups_;
};

/// A started collective. `wait` completes it (MPI_Wait plus any
/// unpacking) and returns the result; a Future is waited at most once.
class Future {
public:
  Future() = default;
  Tensor wait();
  struct State;

private:
  friend Future startCollective(std::shared_ptr<State>);
  std::shared_ptr<State> state_;
};

/// The dialect's collectives over group `group` of `mesh`; `where` names the
/// op and location for errors. Each `...Start` returns a Future; the plain
/// form is `...Start(...).wait()`. Inputs may be of any dtype but I1 is sent
/// as bytes; f16/bf16 reductions use a 2-byte type and a user MPI_Op.
Future allGatherStart(Mesh &mesh, int group, const Tensor &input,
                      int64_t gatherDim, const char *where);
Future allReduceStart(Mesh &mesh, int group, const Tensor &input,
                      Reduction reduce, const char *where);
Future reduceScatterStart(Mesh &mesh, int group, const Tensor &input,
                          int64_t scatterDim, Reduction reduce,
                          const char *where);
Future allToAllStart(Mesh &mesh, int group, const Tensor &input,
                     int64_t splitDim, int64_t concatDim, const char *where);
Future broadcastStart(Mesh &mesh, int group, const Tensor &input,
                      int64_t root, const char *where);
/// `pairs` holds `numPairs` (source, target) pairs of group ranks,
/// flattened; a rank that receives nothing gets zeros.
Future permuteStart(Mesh &mesh, int group, const Tensor &input,
                    const int64_t *pairs, size_t numPairs, const char *where);

inline Tensor allGather(Mesh &m, int g, const Tensor &x, int64_t d,
                        const char *w) {
  return allGatherStart(m, g, x, d, w).wait();
}
/// The same for a value at its last use: the result takes its storage
/// (reduced in place: MPI_IN_PLACE, NCCL's in-place form) when nothing
/// else shares it and it is compute memory; else as above.
Future allReduceStart(Mesh &mesh, int group, Tensor &&input, Reduction reduce,
                      const char *where);
inline Tensor allReduce(Mesh &m, int g, const Tensor &x, Reduction r,
                        const char *w) {
  return allReduceStart(m, g, x, r, w).wait();
}
inline Tensor allReduce(Mesh &m, int g, Tensor &&x, Reduction r,
                        const char *w) {
  return allReduceStart(m, g, std::move(x), r, w).wait();
}
inline Tensor reduceScatter(Mesh &m, int g, const Tensor &x, int64_t d,
                            Reduction r, const char *w) {
  return reduceScatterStart(m, g, x, d, r, w).wait();
}
inline Tensor allToAll(Mesh &m, int g, const Tensor &x, int64_t s, int64_t c,
                       const char *w) {
  return allToAllStart(m, g, x, s, c, w).wait();
}
inline Tensor broadcast(Mesh &m, int g, const Tensor &x, int64_t root,
                        const char *w) {
  return broadcastStart(m, g, x, root, w).wait();
}
inline Tensor permute(Mesh &m, int g, const Tensor &x, const int64_t *pairs,
                      size_t n, const char *w) {
  return permuteStart(m, g, x, pairs, n, w).wait();
}

/// Bytes this rank has sent, per collective kind, since start-up (what
/// `--comm-report` prints; compare with `dtensor-opt --dtensor-comm-report`).
struct CommStats {
  int64_t calls[6] = {0, 0, 0, 0, 0, 0};
  int64_t bytesSent[6] = {0, 0, 0, 0, 0, 0};
};
/// Kinds in CommStats order.
extern const char *const kCollectiveNames[6]; // all_gather, all_reduce,
                                              // reduce_scatter, all_to_all,
                                              // broadcast, permute
const CommStats &commStats();
/// Zeroes the counts (Session::startStep does: the report is one run's).
void resetCommStats();

/// This rank's compute memory (host memory in the CPU flavour, device
/// memory in the CUDA ones; not the CUDA flavours' host staging), counted
/// by the pool (what `--mem-report` prints).
struct MemStats {
  /// Bytes held by tensors now, and the most held at once since the last
  /// resetMemPeak (Session::startStep: one run's peak, its inputs included).
  int64_t liveBytes = 0, peakLiveBytes = 0;
  /// Bytes obtained from the allocator (held by tensors or free in the
  /// pool): the process's footprint. The pool never gives memory back.
  int64_t reservedBytes = 0;
  /// Of those, the arenas of memory plans (docs/CodeGen.md, "Memory").
  int64_t planBytes = 0;
  /// Allocator calls since the last resetMemPeak (0 in a steady state: every
  /// buffer is a reuse).
  int64_t allocations = 0;
};
const MemStats &memStats();
void resetMemPeak();

//===----------------------------------------------------------------------===//
// Session: start-up, inputs, outputs
//===----------------------------------------------------------------------===//

/// How a rank's piece of a distributed input is made from the global file,
/// as the compiler computed it with the layout core (see Session::input).
struct InputLayout {
  DType dtype;
  /// -1 in a dim of a plain argument whose size its file gives.
  Shape globalShape;
  /// Per world rank, 2 * rank(globalShape) values: the box's offsets, then
  /// its sizes (an empty shard has size 0 on some dim).
  const int64_t *boxes;
  /// Partial inputs (DTensor's R -> P): 0 none; 1 divide every element by
  /// `divisor` (float sums); 2 keep the value on the ranks whose `first`
  /// entry is 1 and set the others to the reduction's identity `identity`
  /// (integer sums: 0, products: 1).
  int partialMode = 0;
  double divisor = 1;
  double identity = 0;
  const int64_t *first = nullptr; ///< per world rank, for partialMode 2
};

class Session {
public:
  /// MPI_Init, then the command line:
  ///   --input N=FILE.npy   argument N's global tensor (each rank reads only
  ///                        its own box), or with `{rank}` in FILE one file
  ///                        per rank holding that rank's local tensor;
  ///   --output-dir DIR     writes outN.rankR.npy for every tensor result;
  ///   --entry NAME         the function to run (default: the only one);
  ///   --batch FILE         runs several entries in one job: each line of
  ///                        FILE is an entry name followed by its N=FILE
  ///                        inputs; outputs go to DIR/NAME/outN.rankR.npy;
  ///   --repeat K           runs the entry K times and prints the best time
  ///                        of one run (the slowest rank's);
  ///   --comm-report        rank 0 prints every rank's collective counts;
  ///   --mem-report         rank 0 prints every rank's memory (MemStats);
  ///   --help.
  /// Fails cleanly (every rank) on a bad flag, or when the world size is not
  /// `meshRanks`.
  Session(int &argc, char **&argv, int64_t meshRanks,
          const std::vector<std::string> &entries);
  ~Session();

  /// The entries to run, in order: one, or the batch's.
  const std::vector<std::string> &run() const { return run_; }
  /// Selects entry `name` of run(): its inputs and output directory.
  void begin(const std::string &name);
  /// The entry begin() selected.
  const std::string &entry() const { return entry_; }
  /// How many times to run the entry (--repeat; 1 by default), and the
  /// timer around each run.
  int repeats() const { return repeats_; }
  void startStep();
  void endStep();
  int64_t rank() const { return rank_; }
  int64_t worldSize() const { return worldSize_; }

  /// Argument `index`'s local tensor for this rank: its box of the global
  /// .npy (read by offset, never the whole file) with the Partial rule
  /// applied; or the per-rank file as is. Errors name the argument and file.
  /// `localShape` has -1 for dims whose size varies by rank.
  Tensor input(int index, const InputLayout &layout, const Shape &localShape);
  /// Writes result `index` as DIR/out{index}.rank{R}.npy (when --output-dir
  /// was given).
  void output(int index, const Tensor &value);
  /// MPI_Finalize (after the comm report); the process's exit code.
  int finish();

private:
  std::vector<std::string> run_;
  std::string entry_;
  /// Per entry, its --input values (index, path).
  std::vector<std::vector<std::pair<int, std::string>>> inputsOf_;
  std::vector<std::pair<int, std::string>> inputs_;
  /// Which of inputs_ the entry read (one that none read names no tensor
  /// argument: an error at the first step).
  std::vector<bool> inputUsed_;
  std::string outputDir_, entryOutputDir_;
  bool batch_ = false, commReport_ = false, memReport_ = false;
  int repeats_ = 1;
  double stepStart_ = 0, bestStep_ = -1;
  int64_t rank_ = 0, worldSize_ = 1;
};

/// .npy I/O, also used by the runtime's tests. `readNpyBox` reads the box
/// [offsets, offsets + sizes) of a C-order .npy file, one contiguous row at
/// a time; errors go to `error` (the file name and what is wrong).
bool readNpyBox(const std::string &path, DType dtype, const Shape &shape,
                const Shape &offsets, const Shape &sizes, Tensor &out,
                std::string &error);
bool readNpy(const std::string &path, DType dtype, Tensor &out,
             std::string &error);
bool writeNpy(const std::string &path, const Tensor &value,
              std::string &error);

} // namespace dtensor_rt

#endif // DTENSOR_RT_RUNTIME_H
