//===- Tensor.cpp - runtime tensors of the interpreter --------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Interpreter/Tensor.h"

#include <algorithm>
#include <cassert>
#include <fstream>

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

Tensor::Tensor(DType dtype, Shape shape)
    : type(dtype), dims(std::move(shape)),
      storage(std::make_shared<std::vector<char>>(numElements() *
                                                  byteWidth(dtype))) {}

int64_t Tensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
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

Tensor Tensor::slice(const Shape &offset, const Shape &sizes) const {
  Tensor out(type, sizes);
  copyBox(bytes(), dims, offset, out.mutableBytes(), sizes,
          Shape(sizes.size(), 0), sizes, byteWidth(type));
  return out;
}

void Tensor::write(const Tensor &piece, const Shape &offset) {
  assert(piece.dtype() == type && "dtype mismatch");
  copyBox(piece.bytes(), piece.shape(), Shape(piece.rank(), 0),
          mutableBytes(), dims, offset, piece.shape(), byteWidth(type));
}

Tensor Tensor::inserted(const Tensor &piece, const Shape &offset) const {
  Tensor out(type, dims);
  std::memcpy(out.mutableBytes(), bytes(), numBytes());
  out.write(piece, offset);
  return out;
}

Tensor Tensor::concat(const std::vector<Tensor> &parts, int64_t dim) {
  Shape shape = parts.front().shape();
  shape[dim] = 0;
  for (const Tensor &p : parts)
    shape[dim] += p.shape()[dim];
  Tensor out(parts.front().dtype(), shape);
  Shape offset(shape.size(), 0);
  for (const Tensor &p : parts) {
    out.write(p, offset);
    offset[dim] += p.shape()[dim];
  }
  return out;
}

Tensor Tensor::reshaped(const Shape &shape) const {
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
         std::memcmp(bytes(), o.bytes(), numBytes()) == 0;
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

/// The value of `key` in a .npy header dict, as text.
std::optional<std::string> headerField(const std::string &header,
                                       const std::string &key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos)
    return std::nullopt;
  size_t colon = header.find(':', k);
  if (colon == std::string::npos)
    return std::nullopt;
  size_t start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos)
    return std::nullopt;
  size_t end;
  if (header[start] == '(') {
    end = header.find(')', start);
    if (end == std::string::npos)
      return std::nullopt;
    return header.substr(start, end - start + 1);
  }
  if (header[start] == '\'') {
    end = header.find('\'', start + 1);
    if (end == std::string::npos)
      return std::nullopt;
    return header.substr(start + 1, end - start - 1);
  }
  end = header.find_first_of(",}", start);
  return header.substr(start, end - start);
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
    error = "'" + path + "' has an implausible header length";
    return std::nullopt;
  }
  std::string header(headerLen, '\0');
  if (!in.read(header.data(), headerLen)) {
    error = "'" + path + "' is truncated in its header";
    return std::nullopt;
  }
  std::optional<std::string> descr = headerField(header, "descr");
  std::optional<std::string> fortran = headerField(header, "fortran_order");
  std::optional<std::string> shapeText = headerField(header, "shape");
  if (!descr || !fortran || !shapeText) {
    error = "'" + path + "' has a malformed .npy header";
    return std::nullopt;
  }
  std::optional<DType> dtype = dtypeOfDescr(*descr);
  if (!dtype) {
    error = "'" + path + "' has dtype '" + *descr +
            "'; supported: <f2, <f4, <f8, |b1, |i1, <i2, <i4, <i8";
    return std::nullopt;
  }
  if (fortran->find("True") != std::string::npos) {
    error = "'" + path + "' is in Fortran order; save it in C order";
    return std::nullopt;
  }
  Shape shape;
  std::string dimsText = shapeText->substr(1, shapeText->size() - 2);
  size_t pos = 0;
  while (pos < dimsText.size()) {
    size_t comma = dimsText.find(',', pos);
    std::string item = dimsText.substr(pos, comma == std::string::npos
                                                ? std::string::npos
                                                : comma - pos);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) {
      char *end = nullptr;
      long long v = std::strtoll(item.c_str(), &end, 10);
      if (*end != '\0' || v < 0) {
        error = "'" + path + "' has a malformed shape " + *shapeText;
        return std::nullopt;
      }
      shape.push_back(v);
    }
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  Tensor t(*dtype, shape);
  if (!in.read(t.mutableBytes(), t.numBytes())) {
    error = "'" + path + "' holds fewer bytes than its shape " + *shapeText +
            " needs";
    return std::nullopt;
  }
  return t;
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
    Tensor wide(DType::F32, tensor.shape());
    for (int64_t i = 0; i < tensor.numElements(); ++i)
      wide.mutableData<float>()[i] = float(tensor.data<BFloat16>()[i]);
    out.close();
    return writeNpy(path, wide, error);
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
