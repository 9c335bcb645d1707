//===- BodyProgram.h - compiled scalar bodies of linalg ops -----*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// A linalg body (arith and math on scalars, linalg.index, linalg.yield) is
// compiled once into a flat register program, then run per iteration point
// without walking the IR again.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_LIB_INTERPRETER_BODYPROGRAM_H
#define DTENSOR_LIB_INTERPRETER_BODYPROGRAM_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <vector>

namespace mlir {
namespace dtensor {
namespace interp {

/// One register: a float (held as double, rounded to f32 where the type is
/// f32) or an integer.
union Reg {
  double f;
  int64_t i;
};

/// arith.cmpi and arith.cmpf on scalars, shared by body programs and the
/// scalar kernels.
bool compareInts(unsigned predicate, int64_t a, int64_t b);
bool compareFloats(unsigned predicate, double a, double b);
/// arith.maximumf / minimumf: NaN if either operand is, -0 below +0.
double maximumF(double a, double b);
double minimumF(double a, double b);
/// arith.divsi / remsi: by 0 give 0, by -1 the wrapped negation and 0 (both
/// undefined in MLIR; x86's idiv traps on the least value over -1).
int64_t divideSigned(int64_t a, int64_t b);
/// arith.floordivsi / ceildivsi; by 0 as divideSigned (0), the least value
/// over -1 wrapped.
int64_t floorDivideSigned(int64_t a, int64_t b);
int64_t ceilDivideSigned(int64_t a, int64_t b);
int64_t remainderSigned(int64_t a, int64_t b);

class BodyProgram {
public:
  /// Compiles `body`, whose arguments take registers 0..n-1 in order.
  /// Fails with a diagnostic at the first op it cannot compile.
  static FailureOr<BodyProgram> compile(Block &body);

  /// Runs the program. `regs` has numRegs() entries; arguments are set by
  /// the caller, constants are preloaded by init(); `index` are the loop
  /// indices (for linalg.index).
  void run(Reg *regs, const int64_t *index) const;
  /// Writes the constants into a register file.
  void init(Reg *regs) const;

  /// Runs the program on `count` points at once: register r of point i is
  /// `block[r * stride + i]`. Points differ only in loop `innerLoop`, whose
  /// index is `index[innerLoop] + i`. Only for points that do not depend on
  /// each other (no reduction along the inner loop).
  void runColumns(Reg *block, int64_t stride, int64_t count,
                  const int64_t *index, int innerLoop) const;
  /// Writes the constants into every column of a register block.
  void initColumns(Reg *block, int64_t width) const;

  int numRegs() const { return registers; }
  /// Registers yielded, in order.
  const std::vector<int> &yields() const { return yielded; }
  /// Whether argument `i` (and so the register) holds a float.
  bool isFloatArg(unsigned i) const { return floatArgs[i]; }
  /// Values from outside the body that it uses, and their registers: the
  /// caller loads them (they may differ per rank) before running. A tensor
  /// (read by `tensor.extract`) is loaded as a pointer to its interp::Tensor.
  const std::vector<std::pair<int, Value>> &captures() const {
    return captured;
  }

  /// What a float result rounds to after each op (MLIR rounds every op's
  /// result to its type; a register holds a double).
  enum Rounding : uint8_t { RoundNone, RoundF32, RoundF16, RoundBF16 };

  struct Instr {
    uint16_t op;
    uint8_t round;
    int32_t dst, a, b, c;
    /// For addi, subi, muli, divsi and absi of an integer narrower than 64 bits:
    /// its width, to which the result wraps (0 otherwise). A register holds
    /// a 64-bit integer; without the wrap an i32 sum that overflows would
    /// stay above 2^31 for the next op (a maxsi) to read.
    uint8_t wrapBits = 0;
  };

  /// Whether a `tensor.extract` in the body read out of bounds since the
  /// program was compiled (it then reads 0).
  bool readOutOfBounds() const { return outOfBounds; }

private:
  /// A `tensor.extract`: the register holding the tensor (a pointer to an
  /// interp::Tensor the caller loads) and those of the indices.
  struct ExtractInfo {
    int table;
    std::vector<int> indices;
    bool isFloat;
  };
  template <typename RegAt>
  Reg extractAt(const ExtractInfo &info, RegAt regAt) const;

  std::vector<ExtractInfo> extracts;
  /// Per program object: ranks on threads each run their own copy
  /// (runLinalg), so no two threads write it.
  mutable bool outOfBounds = false;
  std::vector<Instr> code;
  std::vector<std::pair<int, Reg>> constants;
  std::vector<int> yielded;
  std::vector<bool> floatArgs;
  std::vector<std::pair<int, Value>> captured;
  int registers = 0;
};

} // namespace interp
} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_LIB_INTERPRETER_BODYPROGRAM_H
