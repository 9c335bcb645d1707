//===- Tensor.cpp - buffers, the pool, data movement and matmul -----------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#if defined(DTENSOR_RT_CUDA)
#include <cublas_v2.h>
#include <cuda_runtime.h>
#else
#include <cblas.h>
#endif

#include <algorithm>
#include <climits>
#include <map>
#include <string>
#include <cstdint>
#include <cstdlib>
#include <unordered_map>

namespace dtensor_rt {

size_t dtypeBytes(DType t) {
  switch (t) {
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
    return 2;
  case DType::I1:
  case DType::I8:
    return 1;
  }
  return 1;
}

const char *dtypeName(DType t) {
  switch (t) {
  case DType::F32: return "f32";
  case DType::F64: return "f64";
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::I1: return "i1";
  case DType::I8: return "i8";
  case DType::I16: return "i16";
  case DType::I32: return "i32";
  case DType::I64: return "i64";
  }
  return "?";
}

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

//===----------------------------------------------------------------------===//
// Memory of the flavour
//===----------------------------------------------------------------------===//

#if defined(DTENSOR_RT_CUDA)
namespace {
void checkCuda(cudaError_t code, const char *what) {
  if (code != cudaSuccess)
    fail(nullptr, std::string(what) + " failed: " + cudaGetErrorString(code));
}
} // namespace

namespace detail {
void checkLaunch(const char *what) {
  cudaError_t code = cudaGetLastError();
  // DTENSOR_RT_SYNC=1 waits for every kernel, so a fault inside one is
  // reported here rather than at the next copy (for debugging).
  static const bool sync = [] {
    const char *e = std::getenv("DTENSOR_RT_SYNC");
    return e && *e && *e != '0';
  }();
  if (code == cudaSuccess && sync)
    code = cudaDeviceSynchronize();
  if (code != cudaSuccess)
    fail(nullptr, std::string(what) + " failed: " + cudaGetErrorString(code));
}
} // namespace detail

namespace device {
void *alloc(size_t bytes) {
  void *p = nullptr;
  checkCuda(cudaMalloc(&p, std::max<size_t>(bytes, 1)), "cudaMalloc");
  return p;
}
void release(void *p) { cudaFree(p); }
void *allocHost(size_t bytes) {
  void *p = nullptr;
  checkCuda(cudaMallocHost(&p, std::max<size_t>(bytes, 1)), "cudaMallocHost");
  return p;
}
void releaseHost(void *p) { cudaFreeHost(p); }
void copy(void *dst, const void *src, size_t bytes) {
  if (bytes)
    checkCuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0),
              "cudaMemcpyAsync");
}
void toHost(void *dst, const void *src, size_t bytes) {
  if (bytes)
    checkCuda(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
}
void fromHost(void *dst, const void *src, size_t bytes) {
  if (bytes)
    checkCuda(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
}
void zero(void *p, size_t bytes) {
  if (bytes)
    checkCuda(cudaMemsetAsync(p, 0, bytes, 0), "cudaMemsetAsync");
}
void synchronize() { checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }
void select(int localRank) {
  int count = 0;
  checkCuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count < 1)
    fail(nullptr, "no CUDA device is visible");
  checkCuda(cudaSetDevice(localRank % count), "cudaSetDevice");
}
const char *kind() { return "cuda"; }
} // namespace device
#else
namespace device {
void *alloc(size_t bytes) {
  size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
  void *p = std::aligned_alloc(64, rounded);
  if (!p)
    fail(nullptr, "out of memory allocating " + std::to_string(bytes) +
                      " bytes");
  return p;
}
void release(void *p) { std::free(p); }
void *allocHost(size_t bytes) { return alloc(bytes); }
void releaseHost(void *p) { std::free(p); }
void copy(void *dst, const void *src, size_t bytes) {
  if (bytes)
    std::memcpy(dst, src, bytes);
}
void toHost(void *dst, const void *src, size_t bytes) { copy(dst, src, bytes); }
void fromHost(void *dst, const void *src, size_t bytes) { copy(dst, src, bytes); }
void zero(void *p, size_t bytes) {
  if (bytes)
    std::memset(p, 0, bytes);
}
void synchronize() {}
void select(int) {}
const char *kind() { return "cpu"; }
} // namespace device
#endif

//===----------------------------------------------------------------------===//
// The pools
//===----------------------------------------------------------------------===//

namespace {

/// The memory plan of one entry (docs/CodeGen.md, "Memory"). The entry's
/// first run records the size, allocation time and release time of every
/// tensor it allocates in compute memory; before its second run the plan
/// gives each an offset in one arena such that tensors live at the same
/// time never share a byte (greedy by size: largest first, each at the
/// lowest offset free for its whole lifetime). Later runs take their k-th
/// tensor at the k-th offset while the sizes agree and the range is free;
/// anything else (a different sequence: data-dependent control flow, a
/// tensor kept beyond its recorded lifetime) falls back to the pool for the
/// rest of that run, so a plan can cost memory but never correctness.
struct MemoryPlan {
  static constexpr int64_t kForever = INT64_MAX;
  static constexpr size_t kAlign = 256;
  struct Block {
    size_t bytes;
    int64_t start, end;
    size_t offset = 0;
  };
  std::vector<Block> blocks;
  bool recording = false, planned = false;
  char *arena = nullptr;
  size_t arenaBytes = 0;
  /// Live arena ranges of the run: offset -> end (disjoint).
  std::map<size_t, size_t> live;

  static size_t span(size_t bytes) {
    return (std::max<size_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign;
  }
  void pack() {
    std::vector<size_t> order(blocks.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return blocks[a].bytes > blocks[b].bytes;
    });
    std::vector<size_t> placed;
    for (size_t i : order) {
      Block &b = blocks[i];
      // Placed blocks live at the same time as b, by offset.
      std::vector<std::pair<size_t, size_t>> busy;
      for (size_t j : placed) {
        const Block &o = blocks[j];
        if (o.start < b.end && b.start < o.end)
          busy.push_back({o.offset, o.offset + span(o.bytes)});
      }
      std::sort(busy.begin(), busy.end());
      size_t at = 0;
      for (auto [from, to] : busy) {
        if (from >= at + span(b.bytes))
          break;
        at = std::max(at, to);
      }
      b.offset = at;
      arenaBytes = std::max(arenaBytes, at + span(b.bytes));
      placed.push_back(i);
    }
  }
  /// Whether [offset, offset + bytes) meets no live range.
  bool isFree(size_t offset, size_t bytes) const {
    auto it = live.lower_bound(offset + span(bytes));
    return it == live.begin() || std::prev(it)->second <= offset;
  }
};

bool memoryPlanEnabled() {
  static const bool enabled = [] {
    const char *v = std::getenv("DTENSOR_RT_MEMORY_PLAN");
    return !(v && std::string(v) == "0");
  }();
  return enabled;
}

/// Free buffers by byte size. A program's steps allocate the same sizes
/// again and again, so after the first step every allocation is a reuse.
/// Host code is single-threaded (kernels never allocate), so no lock. In
/// the CUDA flavours every kernel, copy and collective is ordered on the
/// compute stream (collectives wait for it and it waits for them), so a
/// buffer freed here and taken again is never still in use; the same holds
/// for a range of a memory plan's arena.
class Pool {
public:
  explicit Pool(bool host) : host_(host) {}
  void *take(size_t bytes) {
    countLive(static_cast<int64_t>(bytes));
    auto it = free_.find(bytes);
    if (it != free_.end() && !it->second.empty()) {
      void *p = it->second.back();
      it->second.pop_back();
      return p;
    }
    stats.reservedBytes += static_cast<int64_t>(bytes);
    ++stats.allocations;
    return host_ ? device::allocHost(bytes) : device::alloc(bytes);
  }
  void give(void *p, size_t bytes) {
    countLive(-static_cast<int64_t>(bytes));
    free_[bytes].push_back(p);
  }
  void countLive(int64_t delta) {
    stats.liveBytes += delta;
    stats.peakLiveBytes = std::max(stats.peakLiveBytes, stats.liveBytes);
  }

  /// Storage of `bytes` bytes: from the running entry's plan when it has
  /// one and the run still follows it, else from the free lists.
  std::shared_ptr<void> allocate(size_t bytes) {
    MemoryPlan *plan = plan_;
    if (plan && plan->recording) {
      size_t id = plan->blocks.size();
      plan->blocks.push_back({bytes, clock_++, MemoryPlan::kForever});
      void *p = take(bytes);
      return std::shared_ptr<void>(p, [this, plan, id, bytes](void *q) {
        if (plan->recording)
          plan->blocks[id].end = clock_++;
        give(q, bytes);
      });
    }
    if (plan && plan->planned && !diverged_) {
      size_t k = next_++;
      if (k < plan->blocks.size() && plan->blocks[k].bytes == bytes &&
          plan->isFree(plan->blocks[k].offset, bytes)) {
        size_t offset = plan->blocks[k].offset;
        plan->live[offset] = offset + MemoryPlan::span(bytes);
        countLive(static_cast<int64_t>(bytes));
        return std::shared_ptr<void>(
            plan->arena + offset, [this, plan, offset, bytes](void *) {
              plan->live.erase(offset);
              countLive(-static_cast<int64_t>(bytes));
            });
      }
      diverged_ = true;
    }
    void *p = take(bytes);
    return std::shared_ptr<void>(p, [this, bytes](void *q) { give(q, bytes); });
  }

  /// A run of entry `entry` starts: record it (its first run) or follow its
  /// plan (made now, before its second run).
  void beginRun(const std::string &entry) {
    plan_ = nullptr;
    diverged_ = false;
    next_ = 0;
    if (!memoryPlanEnabled())
      return;
    MemoryPlan &plan = plans_[entry];
    plan_ = &plan;
    if (plan.blocks.empty() && !plan.planned) {
      plan.recording = true;
      return;
    }
    if (!plan.planned) {
      plan.pack();
      plan.arena = static_cast<char *>(device::alloc(plan.arenaBytes));
      plan.planned = true;
      stats.reservedBytes += static_cast<int64_t>(plan.arenaBytes);
      stats.planBytes += static_cast<int64_t>(plan.arenaBytes);
      ++stats.allocations;
      // The recorded run's buffers are the arena's now: give back the free
      // ones (those still held, inputs and results, return here later).
      for (auto &[size, list] : free_) {
        for (void *q : list)
          host_ ? device::releaseHost(q) : device::release(q);
        stats.reservedBytes -= static_cast<int64_t>(size * list.size());
        list.clear();
      }
    }
  }
  void endRun() {
    if (plan_)
      plan_->recording = false;
    plan_ = nullptr;
  }

  MemStats stats;

private:
  bool host_;
  std::unordered_map<size_t, std::vector<void *>> free_;
  std::map<std::string, MemoryPlan> plans_;
  MemoryPlan *plan_ = nullptr;
  int64_t clock_ = 0;
  size_t next_ = 0;
  bool diverged_ = false;
};

Pool &pool(bool host) {
  // Never destroyed: tensors in static storage may outlive them otherwise.
  static Pool *compute = new Pool(false);
#if defined(DTENSOR_RT_CUDA)
  static Pool *hostPool = new Pool(true);
  return host ? *hostPool : *compute;
#else
  (void)host;
  return *compute;
#endif
}


} // namespace

const MemStats &memStats() { return pool(false).stats; }
void resetMemPeak() {
  MemStats &s = pool(false).stats;
  s.peakLiveBytes = s.liveBytes;
  s.allocations = 0;
}
void beginMemoryRun(const std::string &entry) { pool(false).beginRun(entry); }
void endMemoryRun() { pool(false).endRun(); }

Tensor Tensor::allocate(DType dtype, Shape shape, bool host) {
  for (int64_t d : shape)
    if (d < 0)
      fail(nullptr, "a tensor dim is negative (" + std::to_string(d) + ")");
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.host_ = host || kComputeIsHost;
  size_t bytes = t.bytes();
  if (t.host_ && !kComputeIsHost) {
    // Host staging of the CUDA flavours: the pinned pool.
    void *p = pool(true).take(bytes);
    t.storage_ = std::shared_ptr<void>(
        p, [bytes](void *q) { pool(true).give(q, bytes); });
  } else {
    t.storage_ = pool(false).allocate(bytes);
  }
  t.data_ = t.storage_.get();
  return t;
}

Tensor Tensor::empty(DType dtype, Shape shape) {
  return allocate(dtype, std::move(shape), false);
}

Tensor Tensor::emptyHost(DType dtype, Shape shape) {
  return allocate(dtype, std::move(shape), true);
}

Tensor Tensor::zeros(DType dtype, Shape shape) {
  Tensor t = empty(dtype, std::move(shape));
  device::zero(t.data_, t.bytes());
  return t;
}

Tensor Tensor::fromBytes(DType dtype, Shape shape, const void *bytes) {
  Tensor t = empty(dtype, std::move(shape));
  device::fromHost(t.data_, bytes, t.bytes());
  return t;
}

Tensor Tensor::clone() const {
  Tensor t = host_ && !kComputeIsHost ? emptyHost(dtype_, shape_)
                                      : empty(dtype_, shape_);
  if (host_ && !kComputeIsHost)
    std::memcpy(t.data_, data_, bytes());
  else
    device::copy(t.data_, data_, bytes());
  return t;
}

Tensor Tensor::toHost() const {
  if (host_)
    return *this;
  Tensor t = emptyHost(dtype_, shape_);
  device::toHost(t.data_, data_, bytes());
  return t;
}

Tensor Tensor::toDevice() const {
  if (!host_ || kComputeIsHost)
    return *this;
  Tensor t = empty(dtype_, shape_);
  device::fromHost(t.data_, data_, bytes());
  return t;
}

Tensor Tensor::reshaped(Shape shape) const {
  if (numElements(shape) != numel())
    fail(nullptr, "reshape of " + std::to_string(numel()) + " elements to " +
                      std::to_string(numElements(shape)));
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::range(int64_t offset, int64_t count) const {
  if (rank() != 1 || offset < 0 || count < 0 || offset > numel() - count)
    fail("tensor.extract_slice",
         "elements [" + std::to_string(offset) + ", " +
             std::to_string(offset + count) + ") of a tensor of " +
             std::to_string(numel()) + (rank() == 1 ? "" : " (not 1-D)"));
  Tensor t = *this;
  t.data_ = static_cast<char *>(data_) + offset * int64_t(dtypeBytes(dtype_));
  t.shape_ = {count};
  return t;
}

Tensor writable(Tensor t) {
  if (t.unique())
    return t;
  return t.clone();
}

Tensor takeOrEmpty(Tensor &t) {
  if (t.unique() && t.raw() && (t.onHost() == kComputeIsHost))
    return release(t);
  return Tensor::empty(t.dtype(), t.shape());
}

Tensor release(Tensor &t) {
  Tensor taken = std::move(t);
  t = Tensor(); // (a moved-from Tensor keeps its data pointer)
  return taken;
}

namespace {
void checkElement(const Tensor &t, int64_t index, const char *what) {
  if (index < 0 || index >= t.numel())
    fail(what, "element " + std::to_string(index) + " of a tensor of " +
                   std::to_string(t.numel()));
}
} // namespace

void loadElement(const Tensor &t, int64_t index, void *value) {
  checkElement(t, index, "tensor.extract");
  size_t elem = dtypeBytes(t.dtype());
  const char *p = static_cast<const char *>(t.raw()) + index * elem;
  if (t.onHost())
    std::memcpy(value, p, elem);
  else
    device::toHost(value, p, elem);
}

void storeElement(Tensor &t, int64_t index, const void *value) {
  checkElement(t, index, "tensor.insert");
  size_t elem = dtypeBytes(t.dtype());
  char *p = static_cast<char *>(t.raw()) + index * elem;
  if (t.onHost())
    std::memcpy(p, value, elem);
  else
    device::fromHost(p, value, elem);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

Shape rowMajorStrides(const Shape &shape) {
  Shape s(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

namespace {

/// A box copy's geometry, captured by value by the kernel.
constexpr int kMaxRank = 12;
struct BoxGeometry {
  int rank;
  int64_t sizes[kMaxRank];
  int64_t src[kMaxRank];
  int64_t dst[kMaxRank];
};

template <typename T>
void copyElements(const T *src, int64_t srcBase, T *dst, int64_t dstBase,
                  BoxGeometry g, int64_t n) {
  parallel_for(n, DTENSOR_KERNEL(int64_t flat) {
    int64_t s = srcBase, d = dstBase;
    for (int k = g.rank - 1; k >= 0; --k) {
      int64_t i = flat % g.sizes[k];
      flat /= g.sizes[k];
      s += i * g.src[k];
      d += i * g.dst[k];
    }
    dst[d] = src[s];
  });
}

} // namespace

void copyBoxKernel(const void *src, int64_t srcBase, const Shape &srcStrides,
                   void *dst, int64_t dstBase, const Shape &dstStrides,
                   const Shape &sizes, size_t elem) {
  int64_t n = numElements(sizes);
  if (n == 0)
    return;
  if (sizes.size() > static_cast<size_t>(kMaxRank))
    fail(nullptr, "a copy of rank " + std::to_string(sizes.size()) +
                      " (the runtime's kernels take rank <= 12)");
  BoxGeometry g;
  g.rank = static_cast<int>(sizes.size());
  for (int k = 0; k < g.rank; ++k) {
    g.sizes[k] = sizes[k];
    g.src[k] = srcStrides[k];
    g.dst[k] = dstStrides[k];
  }
  switch (elem) {
  case 8:
    return copyElements(static_cast<const uint64_t *>(src), srcBase,
                        static_cast<uint64_t *>(dst), dstBase, g, n);
  case 4:
    return copyElements(static_cast<const uint32_t *>(src), srcBase,
                        static_cast<uint32_t *>(dst), dstBase, g, n);
  case 2:
    return copyElements(static_cast<const uint16_t *>(src), srcBase,
                        static_cast<uint16_t *>(dst), dstBase, g, n);
  default:
    return copyElements(static_cast<const uint8_t *>(src), srcBase,
                        static_cast<uint8_t *>(dst), dstBase, g, n);
  }
}

void copyBox(const void *srcPtr, int64_t srcBase, const Shape &srcStrides,
             void *dstPtr, int64_t dstBase, const Shape &dstStrides,
             const Shape &sizes, size_t elem) {
  size_t rank = sizes.size();
  if (numElements(sizes) == 0)
    return;
#if defined(DTENSOR_RT_CUDA)
  copyBoxKernel(srcPtr, srcBase, srcStrides, dstPtr, dstBase, dstStrides,
                sizes, elem);
#else
  // Rows of at least 16 contiguous elements: one memcpy each; anything
  // else is the kernel the CUDA flavours run.
  if (rank == 0 || srcStrides[rank - 1] != 1 || dstStrides[rank - 1] != 1 ||
      sizes[rank - 1] < 16)
    return copyBoxKernel(srcPtr, srcBase, srcStrides, dstPtr, dstBase,
                         dstStrides, sizes, elem);
  const char *src = static_cast<const char *>(srcPtr);
  char *dst = static_cast<char *>(dstPtr);
  Shape index(rank, 0);
  int64_t inner = sizes[rank - 1];
  while (true) {
    int64_t s = srcBase, d = dstBase;
    for (size_t k = 0; k + 1 < rank; ++k) {
      s += index[k] * srcStrides[k];
      d += index[k] * dstStrides[k];
    }
    std::memcpy(dst + d * elem, src + s * elem, inner * elem);
    // Next row.
    int64_t k = static_cast<int64_t>(rank) - 2;
    while (k >= 0 && ++index[k] == sizes[k]) {
      index[k] = 0;
      --k;
    }
    if (k < 0)
      return;
  }
#endif
}

namespace {

void checkBox(const char *what, const Shape &shape, const Shape &offsets,
              const Shape &sizes, const Shape &strides) {
  if (offsets.size() != shape.size() || sizes.size() != shape.size() ||
      strides.size() != shape.size())
    fail(what, "rank mismatch");
  for (size_t d = 0; d < shape.size(); ++d) {
    if (sizes[d] == 0)
      continue;
    int64_t last = offsets[d] + (sizes[d] - 1) * strides[d];
    if (offsets[d] < 0 || sizes[d] < 0 || last < 0 || last >= shape[d])
      fail(what, "the slice [offset " + std::to_string(offsets[d]) +
                     ", size " + std::to_string(sizes[d]) + ", stride " +
                     std::to_string(strides[d]) + "] leaves dim " +
                     std::to_string(d) + " of size " +
                     std::to_string(shape[d]));
  }
}

} // namespace

Tensor extractRange(const Tensor &source, const Shape &offsets,
                    const Shape &sizes) {
  if (offsets.size() != 1 || sizes.size() != 1)
    fail("tensor.extract_slice", "a range of a 1-D tensor takes one offset "
                                 "and one size");
  return source.range(offsets[0], sizes[0]);
}

Tensor extractSlice(const Tensor &source, const Shape &offsets,
                    const Shape &sizes, const Shape &strides,
                    const Shape &resultShape) {
  checkBox("tensor.extract_slice", source.shape(), offsets, sizes, strides);
  Tensor out = Tensor::empty(source.dtype(), resultShape);
  if (out.numel() != numElements(sizes))
    fail("tensor.extract_slice", "result shape does not hold the slice");
  Shape srcStrides = rowMajorStrides(source.shape());
  int64_t base = 0;
  Shape stepped(srcStrides.size());
  for (size_t d = 0; d < srcStrides.size(); ++d) {
    base += offsets[d] * srcStrides[d];
    stepped[d] = srcStrides[d] * strides[d];
  }
  copyBox(source.raw(), base, stepped, out.raw(), 0, rowMajorStrides(sizes),
          sizes, dtypeBytes(source.dtype()));
  return out;
}

Tensor insertSlice(const Tensor &source, Tensor dest, const Shape &offsets,
                   const Shape &sizes, const Shape &strides) {
  checkBox("tensor.insert_slice", dest.shape(), offsets, sizes, strides);
  if (source.numel() != numElements(sizes))
    fail("tensor.insert_slice", "source does not fill the slice");
  Shape dstStrides = rowMajorStrides(dest.shape());
  int64_t base = 0;
  Shape stepped(dstStrides.size());
  for (size_t d = 0; d < dstStrides.size(); ++d) {
    base += offsets[d] * dstStrides[d];
    stepped[d] = dstStrides[d] * strides[d];
  }
  copyBox(source.raw(), 0, rowMajorStrides(sizes), dest.raw(), base, stepped,
          sizes, dtypeBytes(dest.dtype()));
  return dest;
}

Tensor pad(const Tensor &source, const Shape &low, const Shape &high,
           const void *padValue) {
  Shape shape = source.shape();
  for (size_t d = 0; d < shape.size(); ++d) {
    if (low[d] < 0 || high[d] < 0)
      fail("tensor.pad", "negative padding");
    shape[d] += low[d] + high[d];
  }
  Tensor out = fill(Tensor::empty(source.dtype(), shape), padValue);
  Shape ones(shape.size(), 1);
  return insertSlice(source, std::move(out), low, source.shape(), ones);
}

Tensor concat(int64_t dim, const std::vector<Tensor> &parts) {
  if (parts.empty())
    fail("tensor.concat", "no operands");
  Shape shape = parts.front().shape();
  shape[dim] = 0;
  for (const Tensor &p : parts)
    shape[dim] += p.dim(dim);
  Tensor out = Tensor::empty(parts.front().dtype(), shape);
  Shape offsets(shape.size(), 0), ones(shape.size(), 1);
  for (const Tensor &p : parts) {
    out = insertSlice(p, std::move(out), offsets, p.shape(), ones);
    offsets[dim] += p.dim(dim);
  }
  return out;
}

namespace {
template <typename T> void fillWith(void *p, int64_t n, const void *value) {
  T v;
  std::memcpy(&v, value, sizeof(T));
  T *out = static_cast<T *>(p);
  parallel_for(n, DTENSOR_KERNEL(int64_t i) { out[i] = v; });
}
} // namespace

Tensor fill(Tensor dest, const void *value) {
  int64_t n = dest.numel();
  switch (dtypeBytes(dest.dtype())) {
  case 8: fillWith<uint64_t>(dest.raw(), n, value); break;
  case 4: fillWith<uint32_t>(dest.raw(), n, value); break;
  case 2: fillWith<uint16_t>(dest.raw(), n, value); break;
  default: fillWith<uint8_t>(dest.raw(), n, value); break;
  }
  return dest;
}

namespace {
template <typename T, typename D> void divideInType(void *data, int64_t n, D by) {
  T *p = static_cast<T *>(data);
  parallel_for(n, DTENSOR_KERNEL(int64_t i) { p[i] = T(p[i] / by); });
}
} // namespace

void divideBy(Tensor &t, double n) {
  int64_t count = t.numel();
  void *p = t.raw();
  switch (t.dtype()) {
  case DType::F32: return divideInType<float>(p, count, float(n));
  case DType::F64: return divideInType<double>(p, count, n);
  case DType::F16:
  case DType::BF16: {
    bool bf = t.dtype() == DType::BF16;
    uint16_t *q = static_cast<uint16_t *>(p);
    float by = float(n);
    parallel_for(count, DTENSOR_KERNEL(int64_t i) {
      float x = (bf ? bf16ToFloat(q[i]) : halfToFloat(q[i])) / by;
      q[i] = bf ? floatToBf16(x) : floatToHalf(x);
    });
    return;
  }
  case DType::I8: return divideInType<int8_t>(p, count, int64_t(n));
  case DType::I16: return divideInType<int16_t>(p, count, int64_t(n));
  case DType::I32: return divideInType<int32_t>(p, count, int64_t(n));
  case DType::I64: return divideInType<int64_t>(p, count, int64_t(n));
  case DType::I1:
    return; // bool(x / n) with x in {0, 1}: the interpreter keeps x for n == 1
  }
}

namespace {

template <typename T> void widen(const void *in, int64_t *out, int64_t n) {
  const T *x = static_cast<const T *>(in);
  parallel_for(n, DTENSOR_KERNEL(int64_t i) { out[i] = int64_t(x[i]); });
}

template <typename T> void narrowDivided(const int64_t *in, void *out, int64_t n,
                                         int64_t by) {
  T *y = static_cast<T *>(out);
  parallel_for(n, DTENSOR_KERNEL(int64_t i) { y[i] = T(in[i] / by); });
}

} // namespace

Tensor widenToI64(const Tensor &t) {
  Tensor w = Tensor::empty(DType::I64, t.shape());
  int64_t *out = w.data<int64_t>();
  switch (t.dtype()) {
  case DType::I8: widen<int8_t>(t.raw(), out, t.numel()); break;
  case DType::I16: widen<int16_t>(t.raw(), out, t.numel()); break;
  case DType::I32: widen<int32_t>(t.raw(), out, t.numel()); break;
  default:
    fail(nullptr, std::string("no i64 widening of ") + dtypeName(t.dtype()));
  }
  return w;
}

void narrowMean(const Tensor &wide, int64_t n, Tensor &out) {
  if (wide.numel() != out.numel() || wide.dtype() != DType::I64)
    fail(nullptr, "an integer mean's sums of another size or type");
  const int64_t *in = wide.data<int64_t>();
  switch (out.dtype()) {
  case DType::I8: return narrowDivided<int8_t>(in, out.raw(), out.numel(), n);
  case DType::I16: return narrowDivided<int16_t>(in, out.raw(), out.numel(), n);
  case DType::I32: return narrowDivided<int32_t>(in, out.raw(), out.numel(), n);
  default:
    fail(nullptr, std::string("no integer mean of ") + dtypeName(out.dtype()));
  }
}

namespace {

template <typename S, typename U>
void keysOf(const void *in, void *out, int64_t n, U infBits, bool max) {
  const U *x = static_cast<const U *>(in);
  S *k = static_cast<S *>(out);
  parallel_for(n, DTENSOR_KERNEL(int64_t i) {
    k[i] = orderedKey<S, U>(x[i], infBits, max);
  });
}

template <typename S, typename U>
void floatsOf(const void *in, void *out, int64_t n, U nanBits) {
  const S *k = static_cast<const S *>(in);
  U *x = static_cast<U *>(out);
  parallel_for(n, DTENSOR_KERNEL(int64_t i) {
    x[i] = fromOrderedKey<S, U>(k[i], nanBits);
  });
}

} // namespace

Tensor toOrderedKeys(const Tensor &floats, bool max) {
  int64_t n = floats.numel();
  switch (floats.dtype()) {
  case DType::F32: {
    Tensor k = Tensor::empty(DType::I32, floats.shape());
    keysOf<int32_t, uint32_t>(floats.raw(), k.raw(), n, 0x7f800000u, max);
    return k;
  }
  case DType::F64: {
    Tensor k = Tensor::empty(DType::I64, floats.shape());
    keysOf<int64_t, uint64_t>(floats.raw(), k.raw(), n,
                              0x7ff0000000000000ull, max);
    return k;
  }
  case DType::F16:
  case DType::BF16: {
    Tensor k = Tensor::empty(DType::I16, floats.shape());
    uint16_t inf = floats.dtype() == DType::F16 ? 0x7c00 : 0x7f80;
    keysOf<int16_t, uint16_t>(floats.raw(), k.raw(), n, inf, max);
    return k;
  }
  default:
    fail(nullptr, std::string("no ordered keys of ") +
                      dtypeName(floats.dtype()));
  }
}

void fromOrderedKeys(const Tensor &keys, Tensor &out) {
  int64_t n = out.numel();
  if (keys.numel() != n)
    fail(nullptr, "ordered keys of another size");
  switch (out.dtype()) {
  case DType::F32:
    return floatsOf<int32_t, uint32_t>(keys.raw(), out.raw(), n, 0x7fc00000u);
  case DType::F64:
    return floatsOf<int64_t, uint64_t>(keys.raw(), out.raw(), n,
                                       0x7ff8000000000000ull);
  case DType::F16:
    return floatsOf<int16_t, uint16_t>(keys.raw(), out.raw(), n, 0x7e00);
  case DType::BF16:
    return floatsOf<int16_t, uint16_t>(keys.raw(), out.raw(), n, 0x7fc0);
  default:
    fail(nullptr, std::string("no ordered keys of ") + dtypeName(out.dtype()));
  }
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

namespace {

/// C += A * B for row-major A (m x k), B (k x n), C (m x n): one kernel
/// over the outputs, each a K loop accumulating in `Acc` (integer types in
/// their own type, wrapping; f16 / bf16 in float, as cuBLAS does on a GPU).
/// C is of type `Out`: `T` itself, or the widened products' result (int8
/// operands into int32, f16 / bf16 into f32: each operand extended, then
/// added in the result's type in the order of k, as the interpreter does).
template <typename T, typename Acc = T, typename Out = T>
void gemmLoop(const T *a, const T *b, Out *c, int64_t m, int64_t n, int64_t k) {
  // Integers multiply and add as unsigned 64-bit numbers and keep the low
  // bits (a signed overflow is undefined in C++; MLIR's integers wrap).
  using Work = std::conditional_t<std::is_integral_v<Acc>, uint64_t, Acc>;
  parallel_for(m * n, DTENSOR_KERNEL(int64_t o) {
    int64_t i = o / n, j = o % n;
    Work acc = Work(c[o]);
    for (int64_t p = 0; p < k; ++p)
      acc = Work(acc + Work(a[i * k + p]) * Work(b[p * n + j]));
    // (An i1 matmul's body is an and and an or, linalg's for booleans:
    // bool(count).)
    c[o] = Out(Acc(acc));
  });
}

#if defined(DTENSOR_RT_CUDA)
cublasHandle_t blas() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
      fail("linalg.matmul", "cublasCreate failed");
    // The compute stream: the legacy default stream.
    cublasSetStream(h, 0);
    return h;
  }();
  return handle;
}

void checkBlas(cublasStatus_t status, const char *call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    fail("linalg.matmul", std::string(call) + " failed: " +
                              cublasGetStatusString(status));
}
#endif

/// The widened products (i8 -> i32, f16 / bf16 -> f32): cuBLAS's int8 and
/// mixed-precision GEMMs on a GPU where it takes the shapes (int8 wants its
/// leading dimensions, batch strides and pointers a multiple of 4 bytes),
/// else a loop (as for a shape cuBLAS answers NOT_SUPPORTED).
void widenedGemm(DType in, DType out, const void *a, const void *b, void *c,
                 int64_t m, int64_t n, int64_t k, int64_t count) {
  if (m == 0 || n == 0 || k == 0 || count == 0)
    return;
#if defined(DTENSOR_RT_CUDA)
  if (m <= INT32_MAX && n <= INT32_MAX && k <= INT32_MAX &&
      count <= INT32_MAX) {
    int M = int(m), N = int(n), K = int(k);
    long long sa = m * k, sb = k * n, sc = m * n;
    cublasStatus_t status = CUBLAS_STATUS_NOT_SUPPORTED;
    if (in == DType::I8 && out == DType::I32) {
      auto aligned = [](const void *p) {
        return reinterpret_cast<uintptr_t>(p) % 4 == 0;
      };
      if (n % 4 == 0 && k % 4 == 0 && aligned(a) && aligned(b)) {
        const int32_t one = 1;
        status = cublasGemmStridedBatchedEx(
            blas(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, CUDA_R_8I, N,
            sb, a, CUDA_R_8I, K, sa, &one, c, CUDA_R_32I, N, sc, int(count),
            CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
      }
    } else {
      cudaDataType type = in == DType::F16 ? CUDA_R_16F : CUDA_R_16BF;
      const float one = 1.0f;
      status = cublasGemmStridedBatchedEx(
          blas(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, type, N, sb, a,
          type, K, sa, &one, c, CUDA_R_32F, N, sc, int(count),
          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    }
    if (status == CUBLAS_STATUS_SUCCESS)
      return;
    if (status != CUBLAS_STATUS_NOT_SUPPORTED)
      checkBlas(status, "cublasGemmStridedBatchedEx");
  }
#endif
  size_t inElem = dtypeBytes(in), outElem = dtypeBytes(out);
  for (int64_t i = 0; i < count; ++i) {
    const char *ai = static_cast<const char *>(a) + i * m * k * inElem;
    const char *bi = static_cast<const char *>(b) + i * k * n * inElem;
    char *ci = static_cast<char *>(c) + i * m * n * outElem;
    if (in == DType::I8)
      gemmLoop<int8_t, int32_t, int32_t>(reinterpret_cast<const int8_t *>(ai),
                                         reinterpret_cast<const int8_t *>(bi),
                                         reinterpret_cast<int32_t *>(ci), m, n,
                                         k);
    else if (in == DType::F16)
      gemmLoop<half, float, float>(reinterpret_cast<const half *>(ai),
                                   reinterpret_cast<const half *>(bi),
                                   reinterpret_cast<float *>(ci), m, n, k);
    else
      gemmLoop<bfloat16, float, float>(reinterpret_cast<const bfloat16 *>(ai),
                                       reinterpret_cast<const bfloat16 *>(bi),
                                       reinterpret_cast<float *>(ci), m, n, k);
  }
}

/// `count` row-major products C_i += A_i * B_i, each A_i m x k, B_i k x n,
/// laid out one after another: A and B of dtype `in`, C of `t` (the same,
/// or one of widenedGemm's).
void gemm(DType in, DType t, const void *a, const void *b, void *c, int64_t m,
          int64_t n, int64_t k, int64_t count, const char *op) {
  if (in != t) {
    bool widened = (in == DType::I8 && t == DType::I32) ||
                   ((in == DType::F16 || in == DType::BF16) && t == DType::F32);
    if (!widened)
      fail(op, std::string("operands of dtype ") + dtypeName(in) +
                   " with a result of dtype " + dtypeName(t) +
                   " are not a product the runtime computes (same dtypes, "
                   "i8 -> i32, f16 / bf16 -> f32)");
    return widenedGemm(in, t, a, b, c, m, n, k, count);
  }
  if (m == 0 || n == 0 || k == 0 || count == 0)
    return;
  size_t elem = dtypeBytes(t);
#if defined(DTENSOR_RT_CUDA)
  // Row-major C = A * B is column-major C^T = B^T * A^T: cuBLAS computes
  // it with the operands swapped and no transposes.
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || count > INT32_MAX)
    fail("linalg.matmul", "a dimension or the batch exceeds cuBLAS's int");
  int M = int(m), N = int(n), K = int(k);
  long long sa = m * k, sb = k * n, sc = m * n;
  switch (t) {
  case DType::F32: {
    const float one = 1.0f;
    return checkBlas(cublasSgemmStridedBatched(
                         blas(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one,
                         static_cast<const float *>(b), N, sb,
                         static_cast<const float *>(a), K, sa, &one,
                         static_cast<float *>(c), N, sc, int(count)),
                     "cublasSgemmStridedBatched");
  }
  case DType::F64: {
    const double one = 1.0;
    return checkBlas(cublasDgemmStridedBatched(
                         blas(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one,
                         static_cast<const double *>(b), N, sb,
                         static_cast<const double *>(a), K, sa, &one,
                         static_cast<double *>(c), N, sc, int(count)),
                     "cublasDgemmStridedBatched");
  }
  case DType::F16:
  case DType::BF16: {
    cudaDataType type = t == DType::F16 ? CUDA_R_16F : CUDA_R_16BF;
    const float one = 1.0f;
    return checkBlas(cublasGemmStridedBatchedEx(
                         blas(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b,
                         type, N, sb, a, type, K, sa, &one, c, type, N, sc,
                         int(count), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmStridedBatchedEx");
  }
  default:
    break;
  }
#endif
  for (int64_t i = 0; i < count; ++i) {
    const char *ai = static_cast<const char *>(a) + i * m * k * elem;
    const char *bi = static_cast<const char *>(b) + i * k * n * elem;
    char *ci = static_cast<char *>(c) + i * m * n * elem;
    switch (t) {
#if !defined(DTENSOR_RT_CUDA)
    case DType::F32:
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                  reinterpret_cast<const float *>(ai), k,
                  reinterpret_cast<const float *>(bi), n, 1.0f,
                  reinterpret_cast<float *>(ci), n);
      break;
    case DType::F64:
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0,
                  reinterpret_cast<const double *>(ai), k,
                  reinterpret_cast<const double *>(bi), n, 1.0,
                  reinterpret_cast<double *>(ci), n);
      break;
#endif
    case DType::F16:
      gemmLoop<half, float>(reinterpret_cast<const half *>(ai),
                            reinterpret_cast<const half *>(bi),
                            reinterpret_cast<half *>(ci), m, n, k);
      break;
    case DType::BF16:
      gemmLoop<bfloat16, float>(reinterpret_cast<const bfloat16 *>(ai),
                                reinterpret_cast<const bfloat16 *>(bi),
                                reinterpret_cast<bfloat16 *>(ci), m, n, k);
      break;
    case DType::I1:
      gemmLoop(reinterpret_cast<const bool *>(ai),
               reinterpret_cast<const bool *>(bi),
               reinterpret_cast<bool *>(ci), m, n, k);
      break;
    case DType::I8:
      gemmLoop(reinterpret_cast<const int8_t *>(ai),
               reinterpret_cast<const int8_t *>(bi),
               reinterpret_cast<int8_t *>(ci), m, n, k);
      break;
    case DType::I16:
      gemmLoop(reinterpret_cast<const int16_t *>(ai),
               reinterpret_cast<const int16_t *>(bi),
               reinterpret_cast<int16_t *>(ci), m, n, k);
      break;
    case DType::I32:
      gemmLoop(reinterpret_cast<const int32_t *>(ai),
               reinterpret_cast<const int32_t *>(bi),
               reinterpret_cast<int32_t *>(ci), m, n, k);
      break;
    case DType::I64:
      gemmLoop(reinterpret_cast<const int64_t *>(ai),
               reinterpret_cast<const int64_t *>(bi),
               reinterpret_cast<int64_t *>(ci), m, n, k);
      break;
    default:
      fail("linalg.matmul", std::string("dtype ") + dtypeName(t) +
                                " is not supported by the runtime's matmul");
    }
  }
}

} // namespace

Tensor matmul(const Tensor &a, const Tensor &b, Tensor c) {
  if (a.rank() != 2 || b.rank() != 2 || c.rank() != 2 || a.dim(1) != b.dim(0) ||
      c.dim(0) != a.dim(0) || c.dim(1) != b.dim(1))
    fail("linalg.matmul", "operand shapes do not match");
  if (a.dtype() != b.dtype())
    fail("linalg.matmul", "operands of different dtypes");
  gemm(a.dtype(), c.dtype(), a.raw(), b.raw(), c.raw(), a.dim(0), b.dim(1),
       a.dim(1), 1, "linalg.matmul");
  return c;
}

Tensor batchMatmul(const Tensor &a, const Tensor &b, Tensor c) {
  if (a.rank() != 3 || b.rank() != 3 || c.rank() != 3 || a.dim(0) != b.dim(0) ||
      a.dim(0) != c.dim(0) || a.dim(2) != b.dim(1) || c.dim(1) != a.dim(1) ||
      c.dim(2) != b.dim(2))
    fail("linalg.batch_matmul", "operand shapes do not match");
  if (a.dtype() != b.dtype())
    fail("linalg.batch_matmul", "operands of different dtypes");
  gemm(a.dtype(), c.dtype(), a.raw(), b.raw(), c.raw(), a.dim(1), b.dim(2),
       a.dim(2), a.dim(0), "linalg.batch_matmul");
  return c;
}

} // namespace dtensor_rt
