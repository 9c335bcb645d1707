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
// Every allocation goes through Tensor::create, which computes the element
// and byte counts with checked arithmetic and holds them to a per-tensor
// limit, so a huge or overflowing shape (from a type, a file header or a
// runtime size) is an error naming its size, never a wrapped-around small
// buffer, a failed allocation that aborts, or a heap overrun.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_INTERPRETER_TENSOR_H
#define DTENSOR_INTERPRETER_TENSOR_H

#include "dtensor/Core/Layout.h"

#include "llvm/ADT/ArrayRef.h"

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

/// The element count of `shape`, or std::nullopt when a dim is negative or
/// the product does not fit in int64_t. The one place that multiplies dims:
/// every element and byte count of the interpreter comes from here.
std::optional<int64_t> checkedNumElements(llvm::ArrayRef<int64_t> shape);
/// The byte count of a `dtype` tensor of `shape`, checked the same way.
std::optional<int64_t> checkedNumBytes(DType dtype,
                                       llvm::ArrayRef<int64_t> shape);
/// `4x5 f32` (`scalar f32` for rank 0), for messages.
std::string describeTensor(DType dtype, llvm::ArrayRef<int64_t> shape);

/// The most bytes one tensor may take (dtensor-run's --max-tensor-bytes).
/// A limit below physical memory turns a tensor the machine cannot hold into
/// an error naming it, instead of an allocation failure that aborts or the
/// kernel killing the process when the pages are touched.
int64_t getMaxTensorBytes();
void setMaxTensorBytes(int64_t bytes);
/// 8 GiB, or half the physical memory when that is less.
int64_t defaultMaxTensorBytes();

/// Bytes of tensor storage alive now, and the most alive at once since the
/// process started (dtensor-run's --report-memory): how a run's memory
/// grows with ranks, measured without the allocator's or the OS's noise.
struct TensorMemory {
  int64_t live = 0;
  int64_t peak = 0;
};
TensorMemory getTensorMemory();

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

/// A dense row-major tensor. A default-constructed one holds no elements.
class Tensor {
public:
  Tensor() = default;
  /// A zero-filled tensor, or std::nullopt with `error` saying why it cannot
  /// be held: a negative dim, a size that overflows, more bytes than
  /// getMaxTensorBytes(), or an allocation the system refuses. Callers add
  /// which value it was. `zeroed = false` leaves the elements undefined, for
  /// a caller that writes every one.
  static std::optional<Tensor> create(DType dtype, Shape shape,
                                      std::string &error, bool zeroed = true);

  DType dtype() const { return type; }
  const Shape &shape() const { return dims; }
  int64_t rank() const { return dims.size(); }
  /// Counted once by create (checked), so never an overflowed product.
  int64_t numElements() const { return count; }
  int64_t numBytes() const { return count * byteWidth(type); }

  template <typename T> const T *data() const {
    return reinterpret_cast<const T *>(bytes());
  }
  /// Writable data: only for a tensor being built, or one whose every
  /// handle its writer holds (numHandles).
  template <typename T> T *mutableData() {
    return reinterpret_cast<T *>(mutableBytes());
  }
  /// Never null for a created tensor, even an empty one (its buffer has at
  /// least one byte), so pointer arithmetic and copies of zero bytes are
  /// defined.
  const char *bytes() const { return storage ? storage->data : nullptr; }
  char *mutableBytes() { return storage ? storage->data : nullptr; }
  /// For i1 data written as raw bytes (a file, a caller's buffer): every
  /// nonzero byte becomes 1, as numpy and torch read a bool. (Kernels hold
  /// i1 as 0 / 1 bytes: an `and` of 2 and 1 would be 0.)
  void normalizeBools();
  /// How many handles share this tensor's storage: when they all belong to a
  /// value at its last use, the op may write it in place instead of copying.
  int64_t numHandles() const { return storage ? storage.use_count() : 0; }
  /// Whether `o` is this very tensor: the same storage, viewed the same way.
  bool isSameAs(const Tensor &o) const {
    return storage == o.storage && type == o.type && dims == o.dims;
  }

  /// A copy of the box [offset, offset + sizes) (in bounds: callers check).
  std::optional<Tensor> slice(const Shape &offset, const Shape &sizes,
                              std::string &error) const;
  /// A copy of this tensor with `piece` written at `offset`.
  std::optional<Tensor> inserted(const Tensor &piece, const Shape &offset,
                                 std::string &error) const;
  /// A copy of this tensor.
  std::optional<Tensor> copy(std::string &error) const;
  /// Writes `piece` at `offset` in place (for a tensor being built).
  void write(const Tensor &piece, const Shape &offset);
  /// Writes the box [srcOffset, srcOffset + sizes) of `src` at `offset` in
  /// place: a piece of another tensor, copied once, with no temporary.
  void writeBox(const Tensor &src, const Shape &srcOffset, const Shape &sizes,
                const Shape &offset);
  /// Concatenation along `dim`; the result's size is checked.
  static std::optional<Tensor> concat(const std::vector<Tensor> &parts,
                                      int64_t dim, std::string &error);
  /// The same data viewed with another shape of equal element count (callers
  /// compare counts with checkedNumElements).
  Tensor reshaped(const Shape &shape) const;
  /// Element `i` (row-major) as a double (for printing and comparing).
  double at(int64_t i) const;

  bool sameContents(const Tensor &o) const;

private:
  /// A calloc'ed buffer: zero pages of a large one are mapped lazily, and a
  /// refused allocation is a null pointer to report, not an abort.
  struct Buffer {
    char *data = nullptr;
    int64_t size = 0;
    Buffer(char *data, int64_t size);
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;
    ~Buffer();
  };

  DType type = DType::F32;
  Shape dims;
  int64_t count = 0;
  std::shared_ptr<Buffer> storage;
};

/// Reads a .npy file (format 1.0-3.0, little-endian, C order) into a tensor.
/// Returns std::nullopt and sets `error` on a missing or malformed file, an
/// unsupported dtype, a file shorter than its header's shape needs (checked
/// before anything is allocated) or a shape that cannot be held.
std::optional<Tensor> readNpy(const std::string &path, std::string &error);
/// Writes a tensor as .npy; false and `error` on failure.
bool writeNpy(const std::string &path, const Tensor &tensor,
              std::string &error);

} // namespace interp
} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_INTERPRETER_TENSOR_H
