//===- Tensor.cpp - runtime tensors of the interpreter --------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Interpreter/Tensor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <fstream>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

using namespace mlir::dtensor;
using namespace mlir::dtensor::interp;

Half::Half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) { // inf or nan
    bits = uint16_t(sign | 0x7c00 | (mant ? 0x200 : 0));
    return;
  }
  if (exp >= 31) { // overflow to inf
    bits = uint16_t(sign | 0x7c00);
    return;
  }
  if (exp <= 0) { // subnormal or zero
    if (exp < -10) {
      bits = uint16_t(sign);
      return;
    }
    mant |= 0x800000;
    uint32_t shift = uint32_t(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rest = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1)))
      ++half;
    bits = uint16_t(sign | half);
    return;
  }
  uint32_t half = (uint32_t(exp) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is right
  bits = uint16_t(sign | half);
}

Half::operator float() const {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exp = (bits >> 10) & 0x1f;
  uint32_t mant = bits & 0x3ff;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else { // subnormal: normalize
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400));
      x = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000 | (mant << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

BFloat16::BFloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) { // nan stays nan
    bits = uint16_t((x >> 16) | 0x40);
    return;
  }
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  bits = uint16_t((x + rounding) >> 16);
}

BFloat16::operator float() const {
  uint32_t x = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

const char *interp::stringifyDType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I1:
    return "i1";
  case DType::I8:
    return "i8";
  case DType::I16:
    return "i16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  return "?";
}

int64_t interp::byteWidth(DType dtype) {
  return dispatch(dtype, [](auto v) { return int64_t(sizeof(v)); });
}

bool interp::isFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16 ||
         dtype == DType::BF16;
}

std::optional<int64_t>
interp::checkedNumElements(llvm::ArrayRef<int64_t> shape) {
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return std::nullopt;
  // Exact for empty tensors: a 0 anywhere makes 0, whatever the other dims.
  if (llvm::is_contained(shape, 0))
    return 0;
  int64_t n = 1;
  for (int64_t d : shape) {
    std::optional<int64_t> next = llvm::checkedMul(n, d);
    if (!next)
      return std::nullopt;
    n = *next;
  }
  return n;
}

std::optional<int64_t> interp::checkedNumBytes(DType dtype,
                                               llvm::ArrayRef<int64_t> shape) {
  std::optional<int64_t> n = checkedNumElements(shape);
  if (!n)
    return std::nullopt;
  return llvm::checkedMul(*n, byteWidth(dtype));
}

std::string interp::describeTensor(DType dtype, llvm::ArrayRef<int64_t> shape) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? "x" : "") + std::to_string(shape[i]);
  return (out.empty() ? "scalar" : out) + " " + stringifyDType(dtype);
}

namespace {
int64_t maxTensorBytes = defaultMaxTensorBytes();
/// Atomic: ranks' kernels run on several threads (setRankThreads).
std::atomic<int64_t> liveBytes{0}, peakBytes{0};

/// Freed buffers of at least kMinCached bytes, kept by size for the next
/// tensor of that size: a program makes the same sizes op after op and step
/// after step, and a fresh large allocation costs a page fault per page
/// (with several rank threads, contended ones). At most kMaxCached bytes
/// are kept; they are not live tensors (getTensorMemory does not count
/// them).
constexpr int64_t kMinCached = int64_t(64) << 10;
constexpr int64_t kMaxCached = int64_t(256) << 20;
struct BufferCache {
  std::mutex mutex;
  std::unordered_map<int64_t, std::vector<char *>> bySize;
  int64_t bytes = 0;
};
/// Never destroyed: tensors may be freed during static destruction.
BufferCache &bufferCache() {
  static BufferCache *cache = new BufferCache;
  return *cache;
}

char *allocateBuffer(int64_t bytes, bool zeroed) {
  if (bytes >= kMinCached) {
    char *data = nullptr;
    {
      BufferCache &cache = bufferCache();
      std::lock_guard<std::mutex> lock(cache.mutex);
      auto it = cache.bySize.find(bytes);
      if (it != cache.bySize.end() && !it->second.empty()) {
        data = it->second.back();
        it->second.pop_back();
        cache.bytes -= bytes;
      }
    }
    if (data) {
      if (zeroed)
        std::memset(data, 0, size_t(bytes));
      return data;
    }
  }
  // At least one byte: an empty tensor still has a valid, non-null buffer.
  size_t size = std::max<size_t>(size_t(bytes), 1);
  return static_cast<char *>(zeroed ? std::calloc(size, 1)
                                    : std::malloc(size));
}

void releaseBuffer(char *data, int64_t bytes) {
  if (bytes >= kMinCached) {
    BufferCache &cache = bufferCache();
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (cache.bytes + bytes <= kMaxCached) {
      cache.bySize[bytes].push_back(data);
      cache.bytes += bytes;
      return;
    }
  }
  std::free(data);
}
} // namespace

int64_t interp::defaultMaxTensorBytes() {
  int64_t limit = int64_t(8) << 30;
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageSize > 0)
    if (std::optional<int64_t> physical =
            llvm::checkedMul<int64_t>(pages, pageSize))
      limit = std::min(limit, *physical / 2);
#endif
  return limit;
}

int64_t interp::getMaxTensorBytes() { return maxTensorBytes; }
void interp::setMaxTensorBytes(int64_t bytes) { maxTensorBytes = bytes; }
TensorMemory interp::getTensorMemory() {
  return {liveBytes.load(), peakBytes.load()};
}

Tensor::Buffer::Buffer(char *data, int64_t size) : data(data), size(size) {
  int64_t live = liveBytes.fetch_add(size) + size;
  int64_t peak = peakBytes.load();
  while (live > peak && !peakBytes.compare_exchange_weak(peak, live)) {
  }
}

Tensor::Buffer::~Buffer() {
  liveBytes.fetch_sub(size);
  releaseBuffer(data, size);
}

std::optional<Tensor> Tensor::create(DType dtype, Shape shape,
                                     std::string &error, bool zeroed) {
  for (int64_t d : shape)
    if (d < 0) {
      error = "a " + describeTensor(dtype, shape) +
              " tensor has a negative size";
      return std::nullopt;
    }
  std::optional<int64_t> bytes = checkedNumBytes(dtype, shape);
  if (!bytes) {
    error = "a " + describeTensor(dtype, shape) +
            " tensor has more than 2^63 bytes";
    return std::nullopt;
  }
  if (*bytes > maxTensorBytes) {
    error = "a " + describeTensor(dtype, shape) + " tensor needs " +
            std::to_string(*bytes) + " bytes, more than the limit of " +
            std::to_string(maxTensorBytes) +
            " (raise it with --max-tensor-bytes, or use smaller shapes or "
            "fewer ranks)";
    return std::nullopt;
  }
  // At least one byte: an empty tensor still has a valid, non-null buffer.
  char *data = allocateBuffer(*bytes, zeroed);
  if (!data) {
    error = "a " + describeTensor(dtype, shape) + " tensor needs " +
            std::to_string(*bytes) +
            " bytes, which the system cannot allocate (lower "
            "--max-tensor-bytes to fail sooner, or use smaller shapes or "
            "fewer ranks)";
    return std::nullopt;
  }
  Tensor t;
  t.type = dtype;
  t.dims = std::move(shape);
  t.count = *checkedNumElements(t.dims);
  t.storage = std::make_shared<Buffer>(data, *bytes);
  return t;
}

namespace {
/// Copies the box `sizes` from `src` at `srcOffset` to `dst` at `dstOffset`,
/// one contiguous innermost row at a time.
void copyBox(const char *src, const Shape &srcShape, const Shape &srcOffset,
             char *dst, const Shape &dstShape, const Shape &dstOffset,
             const Shape &sizes, int64_t elementBytes) {
  int64_t rank = sizes.size();
  for (int64_t s : sizes)
    if (s == 0)
      return;
  if (rank == 0) {
    std::memcpy(dst, src, elementBytes);
    return;
  }
  Shape srcStride(rank, 1), dstStride(rank, 1);
  for (int64_t d = rank - 1; d > 0; --d) {
    srcStride[d - 1] = srcStride[d] * srcShape[d];
    dstStride[d - 1] = dstStride[d] * dstShape[d];
  }
  int64_t rowBytes = sizes[rank - 1] * elementBytes;
  Shape index(rank, 0);
  while (true) {
    int64_t s = 0, t = 0;
    for (int64_t d = 0; d < rank; ++d) {
      s += (srcOffset[d] + index[d]) * srcStride[d];
      t += (dstOffset[d] + index[d]) * dstStride[d];
    }
    std::memcpy(dst + t * elementBytes, src + s * elementBytes, rowBytes);
    int64_t d = rank - 2;
    for (; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}
} // namespace

std::optional<Tensor> Tensor::slice(const Shape &offset, const Shape &sizes,
                                    std::string &error) const {
  std::optional<Tensor> out = create(type, sizes, error, /*zeroed=*/false);
  if (!out)
    return std::nullopt;
  copyBox(bytes(), dims, offset, out->mutableBytes(), sizes,
          Shape(sizes.size(), 0), sizes, byteWidth(type));
  return out;
}

void Tensor::write(const Tensor &piece, const Shape &offset) {
  assert(piece.dtype() == type && "dtype mismatch");
  copyBox(piece.bytes(), piece.shape(), Shape(piece.rank(), 0),
          mutableBytes(), dims, offset, piece.shape(), byteWidth(type));
}

void Tensor::writeBox(const Tensor &src, const Shape &srcOffset,
                      const Shape &sizes, const Shape &offset) {
  assert(src.dtype() == type && "dtype mismatch");
  copyBox(src.bytes(), src.shape(), srcOffset, mutableBytes(), dims, offset,
          sizes, byteWidth(type));
}

std::optional<Tensor> Tensor::copy(std::string &error) const {
  std::optional<Tensor> out = create(type, dims, error, /*zeroed=*/false);
  // memcpy needs valid pointers even for zero bytes: skip empty tensors.
  if (out && count != 0)
    std::memcpy(out->mutableBytes(), bytes(), numBytes());
  return out;
}

std::optional<Tensor> Tensor::inserted(const Tensor &piece,
                                       const Shape &offset,
                                       std::string &error) const {
  std::optional<Tensor> out = copy(error);
  if (out)
    out->write(piece, offset);
  return out;
}

std::optional<Tensor> Tensor::concat(const std::vector<Tensor> &parts,
                                     int64_t dim, std::string &error) {
  Shape shape = parts.front().shape();
  shape[dim] = 0;
  for (const Tensor &p : parts) {
    std::optional<int64_t> sum = llvm::checkedAdd(shape[dim], p.shape()[dim]);
    if (!sum) {
      error = "concatenating " + std::to_string(parts.size()) + " " +
              describeTensor(p.dtype(), p.shape()) +
              " tensors overflows dim " + std::to_string(dim);
      return std::nullopt;
    }
    shape[dim] = *sum;
  }
  std::optional<Tensor> out =
      create(parts.front().dtype(), shape, error, /*zeroed=*/false);
  if (!out)
    return std::nullopt;
  Shape offset(shape.size(), 0);
  for (const Tensor &p : parts) {
    out->write(p, offset);
    offset[dim] += p.shape()[dim];
  }
  return out;
}

Tensor Tensor::reshaped(const Shape &shape) const {
  assert(checkedNumElements(shape) == count && "reshape changes the count");
  Tensor out = *this;
  out.dims = shape;
  return out;
}

double Tensor::at(int64_t i) const {
  return dispatch(type, [&](auto v) {
    using T = decltype(v);
    return double(data<T>()[i]);
  });
}

bool Tensor::sameContents(const Tensor &o) const {
  return type == o.type && dims == o.dims &&
         (count == 0 || storage == o.storage ||
          std::memcmp(bytes(), o.bytes(), numBytes()) == 0);
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

namespace {
std::optional<DType> dtypeOfDescr(const std::string &descr) {
  // '<f4', '|b1', '<i8', ... ('=' and '|' mean native / not applicable).
  if (descr.size() < 3)
    return std::nullopt;
  char order = descr[0];
  if (order == '>')
    return std::nullopt;
  std::string code = descr.substr(1);
  if (code == "f4")
    return DType::F32;
  if (code == "f8")
    return DType::F64;
  if (code == "f2")
    return DType::F16;
  if (code == "b1")
    return DType::I1;
  if (code == "i1")
    return DType::I8;
  if (code == "i2")
    return DType::I16;
  if (code == "i4")
    return DType::I32;
  if (code == "i8")
    return DType::I64;
  return std::nullopt;
}

const char *descrOf(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  case DType::F16:
    return "<f2";
  case DType::BF16:
    return "<f4"; // numpy has no bfloat16: written widened to f32
  case DType::I1:
    return "|b1";
  case DType::I8:
    return "|i1";
  case DType::I16:
    return "<i2";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  }
  return "?";
}

/// The value of `key` in a .npy header dict, as text: a parenthesized tuple
/// with its parentheses, a quoted string without its quotes, or a bare word.
std::optional<llvm::StringRef> headerField(llvm::StringRef header,
                                           llvm::StringRef key) {
  std::string quoted = "'" + key.str() + "'";
  size_t k = header.find(quoted);
  if (k == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = header.drop_front(k + quoted.size()).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t end = rest.find(')');
    if (end == llvm::StringRef::npos)
      return std::nullopt;
    return rest.take_front(end + 1);
  }
  if (rest.consume_front("'")) {
    size_t end = rest.find('\'');
    if (end == llvm::StringRef::npos)
      return std::nullopt;
    return rest.take_front(end);
  }
  llvm::StringRef word = rest.take_until([](char c) {
    return c == ',' || c == '}';
  }).rtrim();
  if (word.empty())
    return std::nullopt;
  return word;
}

/// The dims of a .npy shape tuple such as `(9, 4)`, `(3,)` or `()`;
/// std::nullopt unless every item is a non-negative integer that fits in
/// int64_t.
std::optional<Shape> parseShapeTuple(llvm::StringRef text) {
  if (!text.consume_front("(") || !text.consume_back(")"))
    return std::nullopt;
  Shape shape;
  text = text.trim();
  while (!text.empty()) {
    auto [item, rest] = text.split(',');
    int64_t dim;
    // getAsInteger fails on empty text, trailing junk and overflow.
    if (item.trim().getAsInteger(10, dim) || dim < 0)
      return std::nullopt;
    shape.push_back(dim);
    // `(3,)`: one trailing comma is how Python writes a 1-tuple.
    text = rest.trim();
  }
  return shape;
}
} // namespace

std::optional<Tensor> interp::readNpy(const std::string &path,
                                      std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return std::nullopt;
  }
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
    error = "'" + path + "' is not a .npy file (bad magic)";
    return std::nullopt;
  }
  uint32_t headerLen = 0;
  if (magic[6] == 1) {
    unsigned char len[2];
    if (!in.read(reinterpret_cast<char *>(len), 2)) {
      error = "'" + path + "' is truncated in its header";
      return std::nullopt;
    }
    headerLen = len[0] | (len[1] << 8);
  } else if (magic[6] == 2 || magic[6] == 3) {
    unsigned char len[4];
    if (!in.read(reinterpret_cast<char *>(len), 4)) {
      error = "'" + path + "' is truncated in its header";
      return std::nullopt;
    }
    headerLen = len[0] | (len[1] << 8) | (len[2] << 16) | (uint32_t(len[3]) << 24);
  } else {
    error = "'" + path + "' has an unknown .npy version";
    return std::nullopt;
  }
  if (headerLen > (1u << 20)) {
    error = "'" + path + "' has an implausible header length of " +
            std::to_string(headerLen) + " bytes";
    return std::nullopt;
  }
  std::string header(headerLen, '\0');
  if (!in.read(header.data(), headerLen)) {
    error = "'" + path + "' is truncated in its header";
    return std::nullopt;
  }
  std::optional<llvm::StringRef> descr = headerField(header, "descr");
  std::optional<llvm::StringRef> fortran = headerField(header, "fortran_order");
  std::optional<llvm::StringRef> shapeText = headerField(header, "shape");
  if (!descr || !fortran || !shapeText) {
    error = "'" + path + "' has a malformed .npy header (it needs 'descr', "
            "'fortran_order' and 'shape')";
    return std::nullopt;
  }
  std::optional<DType> dtype = dtypeOfDescr(descr->str());
  if (!dtype) {
    error = "'" + path + "' has dtype '" + descr->str() +
            "'; supported: <f2, <f4, <f8, |b1, |i1, <i2, <i4, <i8";
    return std::nullopt;
  }
  if (*fortran == "True") {
    error = "'" + path + "' is in Fortran order; save it in C order";
    return std::nullopt;
  }
  if (*fortran != "False") {
    error = "'" + path + "' has a malformed .npy header ('fortran_order' is " +
            fortran->str() + ", not True or False)";
    return std::nullopt;
  }
  std::optional<Shape> shape = parseShapeTuple(*shapeText);
  if (!shape) {
    error = "'" + path + "' has a malformed shape " + shapeText->str() +
            " (expected a tuple of non-negative integers)";
    return std::nullopt;
  }
  std::optional<int64_t> needed = checkedNumBytes(*dtype, *shape);
  if (!needed) {
    error = "'" + path + "' claims shape " + shapeText->str() + " of " +
            stringifyDType(*dtype) + ", more than 2^63 bytes";
    return std::nullopt;
  }
  // The file must hold what the header claims before anything is allocated
  // for it: a corrupt or hostile header costs nothing.
  std::streamoff dataStart = in.tellg();
  in.seekg(0, std::ios::end);
  std::streamoff fileEnd = in.tellg();
  in.seekg(dataStart);
  if (dataStart < 0 || fileEnd < dataStart) {
    error = "cannot read '" + path + "'";
    return std::nullopt;
  }
  int64_t available = int64_t(fileEnd - dataStart);
  if (available < *needed) {
    error = "'" + path + "' holds " + std::to_string(available) +
            " bytes of data, fewer than the " + std::to_string(*needed) +
            " bytes its shape " + shapeText->str() + " of " +
            stringifyDType(*dtype) + " needs";
    return std::nullopt;
  }
  std::optional<Tensor> t = Tensor::create(*dtype, *shape, error);
  if (!t) {
    error = "'" + path + "': " + error;
    return std::nullopt;
  }
  if (!in.read(t->mutableBytes(), t->numBytes())) {
    error = "cannot read the data of '" + path + "'";
    return std::nullopt;
  }
  t->normalizeBools();
  return t;
}

void Tensor::normalizeBools() {
  if (type != DType::I1)
    return;
  uint8_t *x = mutableData<uint8_t>();
  for (int64_t i = 0; i < count; ++i)
    x[i] = x[i] != 0;
}

bool interp::writeNpy(const std::string &path, const Tensor &tensor,
                      std::string &error) {
  std::string shape = "(";
  for (int64_t d : tensor.shape())
    shape += std::to_string(d) + ", ";
  if (tensor.rank() > 1)
    shape.erase(shape.size() - 2);
  else if (tensor.rank() == 1)
    shape.erase(shape.size() - 1);
  shape += ")";
  std::string header = "{'descr': '" + std::string(descrOf(tensor.dtype())) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  if (tensor.dtype() == DType::BF16) {
    // Widened to f32, which holds every bf16 value exactly.
    std::optional<Tensor> wide = Tensor::create(DType::F32, tensor.shape(),
                                                error);
    if (!wide) {
      error = "cannot write '" + path + "': " + error;
      return false;
    }
    for (int64_t i = 0; i < tensor.numElements(); ++i)
      wide->mutableData<float>()[i] = float(tensor.data<BFloat16>()[i]);
    out.close();
    return writeNpy(path, *wide, error);
  }
  out.write("\x93NUMPY\x01\x00", 8);
  unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xff),
                          static_cast<unsigned char>(header.size() >> 8)};
  out.write(reinterpret_cast<char *>(len), 2);
  out.write(header.data(), header.size());
  out.write(tensor.bytes(), tensor.numBytes());
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}
