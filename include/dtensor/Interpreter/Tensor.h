//===- Tensor.h - runtime tensors of the interpreter ------------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Dense row-major tensors with a dtype, shared immutable storage (values in
// the interpreter are SSA values: an op makes new tensors, never edits its
// operands), N-D box copies for slicing, and .npy reading and writing.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_INTERPRETER_TENSOR_H
#define DTENSOR_INTERPRETER_TENSOR_H

#include "dtensor/Core/Layout.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace mlir {
namespace dtensor {
namespace interp {

/// Element types the interpreter computes in.
enum class DType : uint8_t { F32, F64, F16, BF16, I1, I8, I16, I32, I64 };

/// IEEE half precision, stored as bits; arithmetic goes through float and
/// rounds back (round to nearest even) on every store.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f);
  template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U> &&
                                                    !std::is_same_v<U, float>>>
  Half(U v) : Half(float(v)) {}
  operator float() const;
};

/// bfloat16 (the upper half of an f32), stored as bits; rounds to nearest
/// even on every store.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f);
  template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U> &&
                                                    !std::is_same_v<U, float>>>
  BFloat16(U v) : BFloat16(float(v)) {}
  operator float() const;
};

const char *stringifyDType(DType dtype);
int64_t byteWidth(DType dtype);
bool isFloat(DType dtype);

/// Calls `fn` with a value of the C++ type that stores `dtype` (bool data is
/// stored as uint8_t).
template <typename Fn>
auto dispatch(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::F32:
    return fn(float());
  case DType::F64:
    return fn(double());
  case DType::F16:
    return fn(Half());
  case DType::BF16:
    return fn(BFloat16());
  case DType::I1:
    return fn(uint8_t());
  case DType::I8:
    return fn(int8_t());
  case DType::I16:
    return fn(int16_t());
  case DType::I32:
    return fn(int32_t());
  case DType::I64:
    return fn(int64_t());
  }
  return fn(float());
}

/// A dense row-major tensor.
class Tensor {
public:
  Tensor() = default;
  /// Zero-filled.
  Tensor(DType dtype, Shape shape);

  DType dtype() const { return type; }
  const Shape &shape() const { return dims; }
  int64_t rank() const { return dims.size(); }
  int64_t numElements() const;
  int64_t numBytes() const { return numElements() * byteWidth(type); }

  template <typename T> const T *data() const {
    return reinterpret_cast<const T *>(storage->data());
  }
  /// Writable data: only for a tensor being built (not yet shared).
  template <typename T> T *mutableData() {
    return reinterpret_cast<T *>(storage->data());
  }
  const char *bytes() const { return storage->data(); }
  char *mutableBytes() { return storage->data(); }

  /// A copy of the box [offset, offset + sizes).
  Tensor slice(const Shape &offset, const Shape &sizes) const;
  /// A copy of this tensor with `piece` written at `offset`.
  Tensor inserted(const Tensor &piece, const Shape &offset) const;
  /// Writes `piece` at `offset` in place (for a tensor being built).
  void write(const Tensor &piece, const Shape &offset);
  /// Concatenation along `dim`.
  static Tensor concat(const std::vector<Tensor> &parts, int64_t dim);
  /// The same data viewed with another shape of equal element count.
  Tensor reshaped(const Shape &shape) const;
  /// Element `i` (row-major) as a double (for printing and comparing).
  double at(int64_t i) const;

  bool sameContents(const Tensor &o) const;

private:
  DType type = DType::F32;
  Shape dims;
  std::shared_ptr<std::vector<char>> storage;
};

/// Reads a .npy file (format 1.0-3.0, little-endian, C order) into a tensor.
/// Returns std::nullopt and sets `error` on a missing or malformed file or an
/// unsupported dtype.
std::optional<Tensor> readNpy(const std::string &path, std::string &error);
/// Writes a tensor as .npy; false and `error` on failure.
bool writeNpy(const std::string &path, const Tensor &tensor,
              std::string &error);

} // namespace interp
} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_INTERPRETER_TENSOR_H
