//===- Tensor.cpp - buffers, the pool, data movement and matmul -----------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor_rt/Runtime.h"

#include <cblas.h>

#include <algorithm>
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
// The pool
//===----------------------------------------------------------------------===//

namespace {

/// Free buffers by byte size. A program's steps allocate the same sizes
/// again and again, so after the first step every allocation is a reuse.
/// Host code is single-threaded (kernels never allocate), so no lock.
class Pool {
public:
  void *take(size_t bytes) {
    auto it = free_.find(bytes);
    if (it != free_.end() && !it->second.empty()) {
      void *p = it->second.back();
      it->second.pop_back();
      return p;
    }
    size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
    void *p = std::aligned_alloc(64, rounded);
    if (!p)
      fail(nullptr, "out of memory allocating " + std::to_string(bytes) +
                        " bytes");
    return p;
  }
  void give(void *p, size_t bytes) { free_[bytes].push_back(p); }
  ~Pool() {
    for (auto &[bytes, list] : free_)
      for (void *p : list)
        std::free(p);
  }

private:
  std::unordered_map<size_t, std::vector<void *>> free_;
};

Pool &pool() {
  // Never destroyed: tensors in static storage may outlive it otherwise.
  static Pool *p = new Pool;
  return *p;
}

} // namespace

Tensor Tensor::empty(DType dtype, Shape shape) {
  for (int64_t d : shape)
    if (d < 0)
      fail(nullptr, "a tensor dim is negative (" + std::to_string(d) + ")");
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  size_t bytes = t.bytes();
  void *p = pool().take(bytes);
  t.storage_ = std::shared_ptr<void>(p, [bytes](void *q) { pool().give(q, bytes); });
  t.data_ = p;
  return t;
}

Tensor Tensor::zeros(DType dtype, Shape shape) {
  Tensor t = empty(dtype, std::move(shape));
  std::memset(t.data_, 0, t.bytes());
  return t;
}

Tensor Tensor::fromBytes(DType dtype, Shape shape, const void *bytes) {
  Tensor t = empty(dtype, std::move(shape));
  if (t.bytes())
    std::memcpy(t.data_, bytes, t.bytes());
  return t;
}

Tensor Tensor::clone() const {
  return fromBytes(dtype_, shape_, data_);
}

Tensor Tensor::reshaped(Shape shape) const {
  if (numElements(shape) != numel())
    fail(nullptr, "reshape of " + std::to_string(numel()) + " elements to " +
                      std::to_string(numElements(shape)));
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor writable(Tensor t) {
  if (t.unique())
    return t;
  return t.clone();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

namespace {

Shape rowMajorStrides(const Shape &shape) {
  Shape s(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

/// Copies the box `sizes` of a strided view of `src` (element strides
/// `srcStrides`, starting at element `srcBase`) into the same box of `dst`.
/// The innermost dim is one memcpy when both sides are contiguous there.
void copyBox(const char *src, int64_t srcBase, const Shape &srcStrides,
             char *dst, int64_t dstBase, const Shape &dstStrides,
             const Shape &sizes, size_t elem) {
  size_t rank = sizes.size();
  if (numElements(sizes) == 0)
    return;
  if (rank == 0) {
    std::memcpy(dst + dstBase * elem, src + srcBase * elem, elem);
    return;
  }
  Shape index(rank, 0);
  int64_t inner = sizes[rank - 1];
  bool contiguous = srcStrides[rank - 1] == 1 && dstStrides[rank - 1] == 1;
  while (true) {
    int64_t s = srcBase, d = dstBase;
    for (size_t k = 0; k + 1 < rank; ++k) {
      s += index[k] * srcStrides[k];
      d += index[k] * dstStrides[k];
    }
    if (contiguous) {
      std::memcpy(dst + d * elem, src + s * elem, inner * elem);
    } else {
      for (int64_t i = 0; i < inner; ++i)
        std::memcpy(dst + (d + i * dstStrides[rank - 1]) * elem,
                    src + (s + i * srcStrides[rank - 1]) * elem, elem);
    }
    // Next row.
    int64_t k = static_cast<int64_t>(rank) - 2;
    while (k >= 0 && ++index[k] == sizes[k]) {
      index[k] = 0;
      --k;
    }
    if (k < 0)
      return;
  }
}

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
  copyBox(static_cast<const char *>(source.raw()), base, stepped,
          static_cast<char *>(out.raw()), 0, rowMajorStrides(sizes), sizes,
          dtypeBytes(source.dtype()));
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
  copyBox(static_cast<const char *>(source.raw()), 0, rowMajorStrides(sizes),
          static_cast<char *>(dest.raw()), base, stepped, sizes,
          dtypeBytes(dest.dtype()));
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

Tensor fill(Tensor dest, const void *value) {
  size_t elem = dtypeBytes(dest.dtype());
  int64_t n = dest.numel();
  char *p = static_cast<char *>(dest.raw());
  switch (elem) {
  case 8: {
    uint64_t v;
    std::memcpy(&v, value, 8);
    std::fill_n(reinterpret_cast<uint64_t *>(p), n, v);
    break;
  }
  case 4: {
    uint32_t v;
    std::memcpy(&v, value, 4);
    std::fill_n(reinterpret_cast<uint32_t *>(p), n, v);
    break;
  }
  case 2: {
    uint16_t v;
    std::memcpy(&v, value, 2);
    std::fill_n(reinterpret_cast<uint16_t *>(p), n, v);
    break;
  }
  default: {
    uint8_t v;
    std::memcpy(&v, value, 1);
    std::fill_n(reinterpret_cast<uint8_t *>(p), n, v);
  }
  }
  return dest;
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

namespace {

template <typename T>
void gemmLoop(const T *a, const T *b, T *c, int64_t m, int64_t n, int64_t k) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      T x = a[i * k + p];
      for (int64_t j = 0; j < n; ++j)
        c[i * n + j] = T(c[i * n + j] + x * b[p * n + j]);
    }
}

void gemm(DType t, const void *a, const void *b, void *c, int64_t m, int64_t n,
          int64_t k) {
  if (m == 0 || n == 0 || k == 0)
    return;
  switch (t) {
  case DType::F32:
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                static_cast<const float *>(a), k, static_cast<const float *>(b),
                n, 1.0f, static_cast<float *>(c), n);
    return;
  case DType::F64:
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0,
                static_cast<const double *>(a), k,
                static_cast<const double *>(b), n, 1.0,
                static_cast<double *>(c), n);
    return;
  case DType::I8:
    return gemmLoop(static_cast<const int8_t *>(a), static_cast<const int8_t *>(b),
                    static_cast<int8_t *>(c), m, n, k);
  case DType::I16:
    return gemmLoop(static_cast<const int16_t *>(a),
                    static_cast<const int16_t *>(b), static_cast<int16_t *>(c),
                    m, n, k);
  case DType::I32:
    return gemmLoop(static_cast<const int32_t *>(a),
                    static_cast<const int32_t *>(b), static_cast<int32_t *>(c),
                    m, n, k);
  case DType::I64:
    return gemmLoop(static_cast<const int64_t *>(a),
                    static_cast<const int64_t *>(b), static_cast<int64_t *>(c),
                    m, n, k);
  default:
    fail("linalg.matmul", std::string("dtype ") + dtypeName(t) +
                              " is not supported by the runtime's matmul");
  }
}

} // namespace

Tensor matmul(const Tensor &a, const Tensor &b, Tensor c) {
  if (a.rank() != 2 || b.rank() != 2 || c.rank() != 2 || a.dim(1) != b.dim(0) ||
      c.dim(0) != a.dim(0) || c.dim(1) != b.dim(1))
    fail("linalg.matmul", "operand shapes do not match");
  gemm(c.dtype(), a.raw(), b.raw(), c.raw(), a.dim(0), b.dim(1), a.dim(1));
  return c;
}

Tensor batchMatmul(const Tensor &a, const Tensor &b, Tensor c) {
  if (a.rank() != 3 || b.rank() != 3 || c.rank() != 3 || a.dim(0) != b.dim(0) ||
      a.dim(0) != c.dim(0) || a.dim(2) != b.dim(1) || c.dim(1) != a.dim(1) ||
      c.dim(2) != b.dim(2))
    fail("linalg.batch_matmul", "operand shapes do not match");
  size_t elem = dtypeBytes(c.dtype());
  int64_t m = a.dim(1), n = b.dim(2), k = a.dim(2);
  for (int64_t i = 0; i < a.dim(0); ++i)
    gemm(c.dtype(), static_cast<const char *>(a.raw()) + i * m * k * elem,
         static_cast<const char *>(b.raw()) + i * k * n * elem,
         static_cast<char *>(c.raw()) + i * m * n * elem, m, n, k);
  return c;
}

} // namespace dtensor_rt
