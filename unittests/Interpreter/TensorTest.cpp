//===- TensorTest.cpp - Tests for the interpreter's tensors -----*- C++ -*-===//
//
// Part of dtensor-mlir. Unit tests for the interpreter.
//
//===----------------------------------------------------------------------===//
//
// Checked element and byte counts, the allocation limit, empty tensors
// (whose buffers must still be valid pointers), and the .npy reader on
// hostile headers: sizes that overflow, files shorter than their header
// claims (checked before anything is allocated), malformed shape tuples.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Interpreter/Tensor.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <fstream>
#include <limits>
#include <string>

using namespace mlir::dtensor;
using namespace mlir::dtensor::interp;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t k2p62 = int64_t(1) << 62;

TEST(TensorSizeTest, CountsAreCheckedProducts) {
  EXPECT_EQ(checkedNumElements({}), 1);
  EXPECT_EQ(checkedNumElements({2, 3, 4}), 24);
  EXPECT_EQ(checkedNumElements({kMax}), kMax);
  EXPECT_EQ(checkedNumElements({-1}), std::nullopt);
  EXPECT_EQ(checkedNumElements({4, -2}), std::nullopt);
  // 2^62 x 4 wraps to 0 and 2^32 x 2^32 to 0 in 64-bit arithmetic.
  EXPECT_EQ(checkedNumElements({k2p62, 4}), std::nullopt);
  EXPECT_EQ(checkedNumElements({int64_t(1) << 32, int64_t(1) << 32}),
            std::nullopt);
  // Empty is exact whatever the other dims are.
  EXPECT_EQ(checkedNumElements({k2p62, 4, 0}), 0);
  EXPECT_EQ(checkedNumElements({0, -1}), std::nullopt);

  EXPECT_EQ(checkedNumBytes(DType::F32, {2, 3}), 24);
  EXPECT_EQ(checkedNumBytes(DType::F64, {0, 7}), 0);
  EXPECT_EQ(checkedNumBytes(DType::I1, {k2p62}), k2p62);
  // 2^62 + 1 f32 elements: the count fits, the bytes do not (this shape
  // became a 4-byte buffer before).
  EXPECT_EQ(checkedNumElements({k2p62 + 1}), k2p62 + 1);
  EXPECT_EQ(checkedNumBytes(DType::F32, {k2p62 + 1}), std::nullopt);
  EXPECT_EQ(checkedNumBytes(DType::F32, {(int64_t(1) << 61) - 1}),
            ((int64_t(1) << 61) - 1) * 4);
}

TEST(TensorSizeTest, DefaultLimitIsAtMost8GiB) {
  EXPECT_GT(defaultMaxTensorBytes(), 0);
  EXPECT_LE(defaultMaxTensorBytes(), int64_t(8) << 30);
}

/// Sets the tensor limit for one test and restores it.
struct LimitGuard {
  int64_t saved = getMaxTensorBytes();
  explicit LimitGuard(int64_t limit) { setMaxTensorBytes(limit); }
  ~LimitGuard() { setMaxTensorBytes(saved); }
};

TEST(TensorCreateTest, RejectsWhatCannotBeHeld) {
  std::string error;
  EXPECT_FALSE(Tensor::create(DType::F32, {k2p62 + 1}, error));
  EXPECT_EQ(error, "a 4611686018427387905 f32 tensor has more than 2^63 bytes");
  EXPECT_FALSE(Tensor::create(DType::F32, {k2p62, 4}, error));
  EXPECT_EQ(error, "a 4611686018427387904x4 f32 tensor has more than 2^63 bytes");
  EXPECT_FALSE(Tensor::create(DType::I8, {3, -1}, error));
  EXPECT_EQ(error, "a 3x-1 i8 tensor has a negative size");

  LimitGuard limit(100);
  EXPECT_TRUE(Tensor::create(DType::F32, {25}, error));
  EXPECT_FALSE(Tensor::create(DType::F32, {26}, error));
  EXPECT_EQ(error.rfind("a 26 f32 tensor needs 104 bytes, more than the limit "
                        "of 100 (raise it with --max-tensor-bytes",
                        0),
            0u)
      << error;
  // A huge empty tensor takes no bytes.
  EXPECT_TRUE(Tensor::create(DType::F32, {k2p62, 4, 0}, error));
}

TEST(TensorCreateTest, ZeroFilledAndCounted) {
  std::string error;
  int64_t before = getTensorMemory().live;
  {
    std::optional<Tensor> t = Tensor::create(DType::I32, {3, 5}, error);
    ASSERT_TRUE(t) << error;
    EXPECT_EQ(t->numElements(), 15);
    EXPECT_EQ(t->numBytes(), 60);
    for (int64_t i = 0; i < 15; ++i)
      EXPECT_EQ(t->data<int32_t>()[i], 0);
    EXPECT_EQ(getTensorMemory().live, before + 60);
    EXPECT_GE(getTensorMemory().peak, before + 60);
    Tensor shared = *t;
    EXPECT_EQ(t->numHandles(), 2);
    EXPECT_TRUE(shared.isSameAs(*t));
    EXPECT_FALSE(shared.reshaped({15}).isSameAs(*t));
  }
  EXPECT_EQ(getTensorMemory().live, before);
}

TEST(TensorCreateTest, EmptyTensorsHaveValidBuffers) {
  // memcpy and memcmp need valid pointers even for zero bytes (UBSan).
  std::string error;
  std::optional<Tensor> empty = Tensor::create(DType::F32, {0, 4}, error);
  ASSERT_TRUE(empty) << error;
  EXPECT_NE(empty->bytes(), nullptr);
  EXPECT_EQ(empty->numBytes(), 0);
  std::optional<Tensor> copy = empty->copy(error);
  ASSERT_TRUE(copy) << error;
  EXPECT_TRUE(copy->sameContents(*empty));
  EXPECT_FALSE(copy->isSameAs(*empty));

  std::optional<Tensor> full = Tensor::create(DType::F32, {2, 4}, error);
  ASSERT_TRUE(full) << error;
  full->mutableData<float>()[5] = 3;
  std::optional<Tensor> same = full->inserted(*empty, {1, 0}, error);
  ASSERT_TRUE(same) << error;
  EXPECT_TRUE(same->sameContents(*full));
  std::optional<Tensor> none = full->slice({2, 0}, {0, 4}, error);
  ASSERT_TRUE(none) << error;
  EXPECT_EQ(none->shape(), Shape({0, 4}));
  EXPECT_NE(none->bytes(), nullptr);
  std::optional<Tensor> joined = Tensor::concat({*empty, *full}, 0, error);
  ASSERT_TRUE(joined) << error;
  EXPECT_TRUE(joined->sameContents(*full));
}

TEST(TensorCreateTest, ConcatSizeIsChecked) {
  // Two empty parts of 2^62 rows: 2^63 rows overflow the dim.
  std::string error;
  std::optional<Tensor> part = Tensor::create(DType::F32, {k2p62, 0}, error);
  ASSERT_TRUE(part) << error;
  EXPECT_FALSE(Tensor::concat({*part, *part}, 0, error));
  EXPECT_EQ(error, "concatenating 2 4611686018427387904x0 f32 tensors "
                   "overflows dim 0");
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

class NpyTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("dtensor-npy", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  /// Writes a version 1.0 .npy file with `header` (padded as numpy pads it)
  /// followed by `data`; returns its path.
  std::string write(const std::string &name, std::string header,
                    const std::string &data) {
    header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, name);
    std::ofstream out(path.c_str(), std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    char len[2] = {char(header.size() & 0xff), char(header.size() >> 8)};
    out.write(len, 2);
    out << header << data;
    return path.str().str();
  }

  std::string f32Header(const std::string &shape) {
    return "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape +
           ", }";
  }

  /// Reads `path` expecting failure; returns the error after the path.
  std::string readError(const std::string &path) {
    std::string error;
    std::optional<Tensor> t = readNpy(path, error);
    EXPECT_FALSE(t) << path << " was read";
    std::string quoted = "'" + path + "'";
    size_t at = error.find(quoted);
    return at == std::string::npos ? error
                                   : error.substr(at + quoted.size());
  }

  llvm::SmallString<128> dir;
  const std::string four = std::string("\0\0\x80?\0\0\0@\0\0@@\0\0\x80@", 16);
};

TEST_F(NpyTest, ReadsShapes) {
  std::string error;
  std::optional<Tensor> t = readNpy(write("a.npy", f32Header("(4,)"), four), error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->shape(), Shape({4}));
  EXPECT_EQ(t->data<float>()[3], 4.0f);
  t = readNpy(write("b.npy", f32Header("( 2 , 2 )"), four), error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->shape(), Shape({2, 2}));
  t = readNpy(write("c.npy", f32Header("()"), four.substr(0, 4)), error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->shape(), Shape());
  EXPECT_EQ(t->data<float>()[0], 1.0f);
  t = readNpy(write("d.npy", f32Header("(3, 0)"), ""), error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->numElements(), 0);
}

TEST_F(NpyTest, ChecksTheFileLengthBeforeAllocating) {
  int64_t peak = getTensorMemory().peak;
  // 2^40 floats (4 TiB) claimed, 16 bytes held: this was allocated first.
  EXPECT_EQ(readError(write("claim.npy", f32Header("(1099511627776,)"), four)),
            " holds 16 bytes of data, fewer than the 4398046511104 bytes its "
            "shape (1099511627776,) of f32 needs");
  EXPECT_EQ(readError(write("short.npy", f32Header("(5,)"), four)),
            " holds 16 bytes of data, fewer than the 20 bytes its shape (5,) "
            "of f32 needs");
  EXPECT_EQ(getTensorMemory().peak, peak);
}

TEST_F(NpyTest, RejectsSizesThatOverflow) {
  int64_t peak = getTensorMemory().peak;
  EXPECT_EQ(readError(write("wrap.npy", f32Header("(4611686018427387904, 4)"),
                            four)),
            " claims shape (4611686018427387904, 4) of f32, more than 2^63 "
            "bytes");
  EXPECT_EQ(readError(write("wrap1.npy", f32Header("(4611686018427387905,)"),
                            four)),
            " claims shape (4611686018427387905,) of f32, more than 2^63 "
            "bytes");
  EXPECT_EQ(getTensorMemory().peak, peak);
}

TEST_F(NpyTest, RejectsMalformedHeaders) {
  const char *tuple = " (expected a tuple of non-negative integers)";
  // `'shape': ,` threw std::out_of_range from substr.
  EXPECT_EQ(readError(write("noshape.npy", f32Header(""), four)),
            " has a malformed .npy header (it needs 'descr', 'fortran_order' "
            "and 'shape')");
  EXPECT_EQ(readError(write("digits.npy", f32Header("(99999999999999999999,)"),
                            four)),
            " has a malformed shape (99999999999999999999,)" +
                std::string(tuple));
  EXPECT_EQ(readError(write("neg.npy", f32Header("(-4,)"), four)),
            " has a malformed shape (-4,)" + std::string(tuple));
  EXPECT_EQ(readError(write("comma.npy", f32Header("(4,,)"), four)),
            " has a malformed shape (4,,)" + std::string(tuple));
  EXPECT_EQ(readError(write("word.npy", f32Header("(4x,)"), four)),
            " has a malformed shape (4x,)" + std::string(tuple));
  EXPECT_EQ(readError(write("open.npy", f32Header("(4"), four)),
            " has a malformed .npy header (it needs 'descr', 'fortran_order' "
            "and 'shape')");
  EXPECT_EQ(readError(write("bare.npy", f32Header("4"), four)),
            " has a malformed shape 4" + std::string(tuple));
  EXPECT_EQ(
      readError(write("fortran.npy",
                      "{'descr': '<f4', 'fortran_order': True, 'shape': (4,), }",
                      four)),
      " is in Fortran order; save it in C order");
  EXPECT_EQ(
      readError(write("order.npy",
                      "{'descr': '<f4', 'fortran_order': 1, 'shape': (4,), }",
                      four)),
      " has a malformed .npy header ('fortran_order' is 1, not True or "
      "False)");
  EXPECT_EQ(
      readError(write("dtype.npy",
                      "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }",
                      four)),
      " has dtype '<c8'; supported: <f2, <f4, <f8, |b1, |i1, <i2, <i4, <i8");
}

TEST_F(NpyTest, RoundTrips) {
  std::string error;
  std::optional<Tensor> t = Tensor::create(DType::I16, {2, 3}, error);
  ASSERT_TRUE(t) << error;
  for (int64_t i = 0; i < 6; ++i)
    t->mutableData<int16_t>()[i] = int16_t(i * 100 - 250);
  llvm::SmallString<128> path(dir);
  llvm::sys::path::append(path, "out.npy");
  ASSERT_TRUE(writeNpy(path.str().str(), *t, error)) << error;
  std::optional<Tensor> back = readNpy(path.str().str(), error);
  ASSERT_TRUE(back) << error;
  EXPECT_TRUE(back->sameContents(*t));

  std::optional<Tensor> empty = Tensor::create(DType::F64, {0, 3}, error);
  ASSERT_TRUE(empty) << error;
  ASSERT_TRUE(writeNpy(path.str().str(), *empty, error)) << error;
  back = readNpy(path.str().str(), error);
  ASSERT_TRUE(back) << error;
  EXPECT_TRUE(back->sameContents(*empty));
}

} // namespace
