//===- BodyProgram.cpp - compiled scalar bodies of linalg ops -------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "BodyProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "dtensor/Interpreter/Tensor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/bit.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::dtensor::interp;

namespace {
/// Rounds half to even (math.roundeven), whatever the rounding mode.
double roundHalfEven(double x) {
  double r = std::round(x); // half away from zero
  if (std::fabs(x - std::trunc(x)) == 0.5)
    r = 2.0 * std::round(x / 2.0);
  return r;
}

/// Integers of `bits` < 64 are held sign-extended, except i1 (0 or 1).
int64_t zeroExtend(int64_t v, int bits) {
  return bits >= 64 ? v : int64_t(uint64_t(v) & ((uint64_t(1) << bits) - 1));
}
int64_t signExtend(int64_t v, int bits) {
  if (bits == 1)
    return (v & 1) ? -1 : 0;
  if (bits >= 64)
    return v;
  uint64_t low = uint64_t(v) & ((uint64_t(1) << bits) - 1);
  uint64_t sign = uint64_t(1) << (bits - 1);
  return int64_t((low ^ sign) - sign);
}
double unsignedToDouble(int64_t v, int bits) {
  return bits >= 64 ? double(uint64_t(v)) : double(zeroExtend(v, bits));
}
/// fptosi through a 64-bit integer (the emitted C++'s rt_fptosi): a value
/// out of the result's range (poison in MLIR) wraps to its width; NaN and
/// values beyond 64 bits give the least 64-bit integer.
int64_t floatToInt(double x) {
  if (!(x > -9223372036854775808.0 && x < 9223372036854775808.0))
    return std::numeric_limits<int64_t>::min();
  return int64_t(x);
}
int64_t truncateInt(int64_t v, int bits) {
  return bits == 1 ? (v & 1) : signExtend(v, bits);
}
/// A float op's result rounded to its type (through float for the 16-bit
/// types, as the emitted C++ computes them).
double roundTo(uint8_t round, double x) {
  switch (round) {
  case BodyProgram::RoundF32:
    return double(float(x));
  case BodyProgram::RoundF16:
    return double(float(Half(float(x))));
  case BodyProgram::RoundBF16:
    return double(float(BFloat16(float(x))));
  default:
    return x;
  }
}
/// Shifts of a `bits`-wide integer; a shift by `bits` or more is poison in
/// MLIR, 0 here (or the sign for an arithmetic shift right).
int64_t shiftLeft(int64_t v, int64_t s, int bits) {
  if (s < 0 || s >= bits)
    return 0;
  return truncateInt(int64_t(uint64_t(v) << s), bits);
}
int64_t shiftRightUnsigned(int64_t v, int64_t s, int bits) {
  if (s < 0 || s >= bits)
    return 0;
  return truncateInt(int64_t(uint64_t(zeroExtend(v, bits)) >> s), bits);
}
int64_t shiftRightSigned(int64_t v, int64_t s, int bits) {
  int64_t x = signExtend(v, bits);
  if (s < 0 || s >= bits)
    return truncateInt(x < 0 ? -1 : 0, bits);
  return truncateInt(x >> s, bits);
}

enum Op : uint16_t {
  FAdd, FSub, FMul, FDiv, FMaximum, FMinimum, FMaxNum, FMinNum, FRem, FNeg,
  FExp, FLog, FTanh, FSqrt, FRsqrt, FErf, FAbs, FSin, FCos, FFloor, FCeil,
  FTrunc, FRoundEven, FLog1p, FExpM1, FLog2,
  FTan, FAtan, FAsin, FAcos, FSinh, FCosh, FAsinh, FAcosh, FAtanh, FExp2, FLog10, FCbrt, FAtan2,
  FRoundAway, FErfc, FCopySign, FFma, // (FFma: c is the addend's register)
  FPow, FCmp, FRound,
  IAdd, ISub, IMul, IDivS, IFloorDivS, ICeilDivS, IRemS, IMinS, IMaxS, IAnd, IOr, IXor, ICmp, IAbs,
  IShL, IShRU, IShRS, // c: the bit width
  Select, SIToFP, FPToSI, Copy, Index, Extract,
  ZExt, SExt, TruncInt, UIToFP, // c: the source's (ZExt, SExt, UIToFP,
                                // SIToFP) or result's (TruncInt) bit width
  BitCast, // c: bitKind(source) << 8 | bitKind(result)
  FIsNan, FIsInf, FIsFinite,
  // c: the bit width (of the operands; FPToUI: of the result)
  ICtlz, ICttz, ICtpop, IDivU, IRemU, ICeilDivU, IMaxU, IMinU, IPowI, FPToUI,
};

/// An integer of `bits` as the unsigned value of its bits.
uint64_t unsignedOf(int64_t v, int bits) {
  return uint64_t(zeroExtend(v, bits));
}
/// An unsigned result of `bits` as a register holds it (i1: 0 or 1, else
/// sign-extended).
int64_t fromUnsigned(uint64_t u, int bits) { return truncateInt(int64_t(u), bits); }
/// math.ipowi: by squaring, wrapping; a negative exponent gives 1 / base^-e
/// truncated: 0 but for a base of 1 or -1 (MLIR's own expansion).
int64_t powInt(int64_t base, int64_t e) {
  if (e < 0)
    return base == 1 ? 1 : base == -1 ? ((e & 1) ? -1 : 1) : 0;
  uint64_t result = 1, b = uint64_t(base);
  for (uint64_t n = uint64_t(e); n; n >>= 1, b *= b)
    if (n & 1)
      result *= b;
  return int64_t(result);
}
/// The ops after BitCast, shared by run() and runColumns().
Reg evalMore(uint16_t op, int c, Reg a, Reg b, Reg addend) {
  Reg d;
  d.i = 0;
  switch (op) {
  case FRoundAway: d.f = std::round(a.f); break;
  case FErfc: d.f = std::erfc(a.f); break;
  case FCopySign: d.f = std::copysign(a.f, b.f); break;
  case FFma: d.f = std::fma(a.f, b.f, addend.f); break;
  case FIsNan: d.i = std::isnan(a.f); break;
  case FIsInf: d.i = std::isinf(a.f); break;
  case FIsFinite: d.i = std::isfinite(a.f); break;
  case ICtlz: {
    uint64_t u = unsignedOf(a.i, c);
    d.i = u ? int64_t(llvm::countl_zero(u)) - (64 - c) : c;
    break;
  }
  case ICttz: {
    uint64_t u = unsignedOf(a.i, c);
    d.i = u ? int64_t(llvm::countr_zero(u)) : c;
    break;
  }
  case ICtpop: d.i = llvm::popcount(unsignedOf(a.i, c)); break;
  // Division by 0 gives 0, as the signed ones do.
  case IDivU: {
    uint64_t y = unsignedOf(b.i, c);
    d.i = fromUnsigned(y ? unsignedOf(a.i, c) / y : 0, c);
    break;
  }
  case IRemU: {
    uint64_t y = unsignedOf(b.i, c);
    d.i = fromUnsigned(y ? unsignedOf(a.i, c) % y : 0, c);
    break;
  }
  case ICeilDivU: {
    uint64_t x = unsignedOf(a.i, c), y = unsignedOf(b.i, c);
    d.i = fromUnsigned(y ? x / y + (x % y != 0) : 0, c);
    break;
  }
  case IMaxU:
    d.i = fromUnsigned(std::max(unsignedOf(a.i, c), unsignedOf(b.i, c)), c);
    break;
  case IMinU:
    d.i = fromUnsigned(std::min(unsignedOf(a.i, c), unsignedOf(b.i, c)), c);
    break;
  case IPowI: d.i = powInt(a.i, b.i); break;
  // Through a 64-bit integer, as fptosi, or its unsigned range above 2^63
  // (out of range is poison in MLIR); the emitted C++'s rt_fptoui.
  case FPToUI:
    d.i = truncateInt(a.f >= 9223372036854775808.0 && a.f < 18446744073709551616.0
                          ? int64_t(uint64_t(a.f))
                          : floatToInt(a.f),
                      c);
    break;
  default: break;
  }
  return d;
}

/// How a register holds a scalar type's bits for arith.bitcast: 1 f32, 2
/// f64, 3 f16, 4 bf16 (floats as doubles), else 64 + the integer's width.
int bitKind(Type t) {
  if (t.isF32())
    return 1;
  if (t.isF64())
    return 2;
  if (t.isF16())
    return 3;
  if (t.isBF16())
    return 4;
  return 64 + int(t.isIndex() ? 64 : t.getIntOrFloatBitWidth());
}
uint64_t bitsOf(Reg r, int kind) {
  switch (kind) {
  case 1: {
    float f = float(r.f);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  }
  case 2: {
    uint64_t u;
    std::memcpy(&u, &r.f, 8);
    return u;
  }
  case 3: return Half(float(r.f)).bits;
  case 4: return BFloat16(float(r.f)).bits;
  default: return uint64_t(zeroExtend(r.i, kind - 64));
  }
}
Reg fromBits(uint64_t u, int kind) {
  Reg r;
  switch (kind) {
  case 1: {
    uint32_t w = uint32_t(u);
    float f;
    std::memcpy(&f, &w, 4);
    r.f = f;
    break;
  }
  case 2: std::memcpy(&r.f, &u, 8); break;
  case 3: {
    Half h;
    h.bits = uint16_t(u);
    r.f = float(h);
    break;
  }
  case 4: {
    BFloat16 h;
    h.bits = uint16_t(u);
    r.f = float(h);
    break;
  }
  default: r.i = truncateInt(int64_t(u), kind - 64); break;
  }
  return r;
}
Reg bitCast(Reg a, int c) { return fromBits(bitsOf(a, c >> 8), c & 0xff); }

} // namespace

/// arith.divsi / remsi: division by zero and the one overflow (the least
/// value divided by -1) are undefined in MLIR; here they give 0 and the
/// wrapped quotient instead of trapping (x86's idiv faults on both).
int64_t mlir::dtensor::interp::divideSigned(int64_t a, int64_t b) {
  if (b == 0)
    return 0;
  if (b == -1)
    return int64_t(0 - uint64_t(a));
  return a / b;
}
int64_t mlir::dtensor::interp::floorDivideSigned(int64_t a, int64_t b) {
  if (b == 0 || b == -1)
    return divideSigned(a, b);
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t mlir::dtensor::interp::ceilDivideSigned(int64_t a, int64_t b) {
  if (b == 0 || b == -1)
    return divideSigned(a, b);
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}
int64_t mlir::dtensor::interp::remainderSigned(int64_t a, int64_t b) {
  return b == 0 || b == -1 ? 0 : a % b;
}
// (std::max returned its first operand for -0 and +0.)
double mlir::dtensor::interp::maximumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return NAN;
  if (a == 0 && b == 0)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
double mlir::dtensor::interp::minimumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return NAN;
  if (a == 0 && b == 0)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

bool mlir::dtensor::interp::compareFloats(unsigned predicate, double a,
                                          double b) {
  auto p = arith::CmpFPredicate(predicate);
  using P = arith::CmpFPredicate;
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (p) {
  case P::AlwaysFalse:
    return false;
  case P::OEQ:
    return !unordered && a == b;
  case P::OGT:
    return !unordered && a > b;
  case P::OGE:
    return !unordered && a >= b;
  case P::OLT:
    return !unordered && a < b;
  case P::OLE:
    return !unordered && a <= b;
  case P::ONE:
    return !unordered && a != b;
  case P::ORD:
    return !unordered;
  case P::UEQ:
    return unordered || a == b;
  case P::UGT:
    return unordered || a > b;
  case P::UGE:
    return unordered || a >= b;
  case P::ULT:
    return unordered || a < b;
  case P::ULE:
    return unordered || a <= b;
  case P::UNE:
    return unordered || a != b;
  case P::UNO:
    return unordered;
  case P::AlwaysTrue:
    return true;
  }
  return false;
}

bool mlir::dtensor::interp::compareInts(unsigned predicate, int64_t a,
                                        int64_t b) {
  auto p = arith::CmpIPredicate(predicate);
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::eq:
    return a == b;
  case P::ne:
    return a != b;
  case P::slt:
    return a < b;
  case P::sle:
    return a <= b;
  case P::sgt:
    return a > b;
  case P::sge:
    return a >= b;
  case P::ult:
    return uint64_t(a) < uint64_t(b);
  case P::ule:
    return uint64_t(a) <= uint64_t(b);
  case P::ugt:
    return uint64_t(a) > uint64_t(b);
  case P::uge:
    return uint64_t(a) >= uint64_t(b);
  }
  return false;
}

FailureOr<BodyProgram> BodyProgram::compile(Block &body) {
  BodyProgram p;
  llvm::DenseMap<Value, int> regOf;
  for (BlockArgument arg : body.getArguments()) {
    regOf[arg] = p.registers++;
    p.floatArgs.push_back(llvm::isa<FloatType>(arg.getType()));
  }
  auto reg = [&](Value v) -> int {
    auto it = regOf.find(v);
    if (it != regOf.end())
      return it->second;
    // A scalar from outside the body: a register the caller fills.
    if (v.getParentBlock() == &body || !v.getType().isIntOrIndexOrFloat())
      return -1;
    int r = p.registers++;
    regOf[v] = r;
    p.captured.push_back({r, v});
    return r;
  };
  for (Operation &op : body) {
    if (auto extract = llvm::dyn_cast<tensor::ExtractOp>(op)) {
      // A read of a tensor from outside the body by computed indices (an
      // embedding lookup): the caller puts the tensor in a register.
      Value table = extract.getTensor();
      if (table.getParentBlock() == &body)
        return op.emitOpError() << "reads a tensor made inside the body, "
                                   "which the interpreter does not support";
      auto it = regOf.find(table);
      int tableReg = it != regOf.end() ? it->second : p.registers++;
      if (it == regOf.end()) {
        regOf[table] = tableReg;
        p.captured.push_back({tableReg, table});
      }
      ExtractInfo info{tableReg, {},
                       llvm::isa<FloatType>(extract.getType())};
      for (Value i : extract.getIndices()) {
        int r = reg(i);
        if (r < 0)
          return op.emitOpError() << "uses an index the interpreter cannot "
                                     "compute in a body";
        info.indices.push_back(r);
      }
      Instr in{Extract, RoundNone, p.registers,
               int32_t(p.extracts.size()), -1, -1};
      p.extracts.push_back(std::move(info));
      regOf[extract.getResult()] = p.registers++;
      p.code.push_back(in);
      continue;
    }
    if (auto y = llvm::dyn_cast<linalg::YieldOp>(op)) {
      for (Value v : y.getOperands()) {
        int r = reg(v);
        if (r < 0)
          return op.emitOpError() << "yields a value from outside the body, "
                                     "which the interpreter does not support";
        p.yielded.push_back(r);
      }
      break;
    }
    if (auto c = llvm::dyn_cast<arith::ConstantOp>(op)) {
      Reg value;
      if (auto f = llvm::dyn_cast<FloatAttr>(c.getValue()))
        value.f = f.getValueAsDouble();
      else if (auto i = llvm::dyn_cast<IntegerAttr>(c.getValue()))
        // An i1 is held as 0 or 1 (true is 1, as a comparison gives).
        value.i = i.getType().isIndex()       ? i.getInt()
                  : i.getType().isInteger(1) ? int64_t(i.getValue().getZExtValue())
                                              : i.getValue().getSExtValue();
      else
        return op.emitOpError() << "is not a scalar constant";
      int r = p.registers++;
      p.constants.push_back({r, value});
      regOf[c.getResult()] = r;
      continue;
    }
    std::optional<uint16_t> code =
        llvm::TypeSwitch<Operation *, std::optional<uint16_t>>(&op)
            .Case([](arith::AddFOp) { return FAdd; })
            .Case([](arith::SubFOp) { return FSub; })
            .Case([](arith::MulFOp) { return FMul; })
            .Case([](arith::DivFOp) { return FDiv; })
            .Case([](arith::RemFOp) { return FRem; })
            .Case([](arith::MaximumFOp) { return FMaximum; })
            .Case([](arith::MinimumFOp) { return FMinimum; })
            .Case([](arith::MaxNumFOp) { return FMaxNum; })
            .Case([](arith::MinNumFOp) { return FMinNum; })
            .Case([](arith::NegFOp) { return FNeg; })
            .Case([](math::ExpOp) { return FExp; })
            .Case([](math::LogOp) { return FLog; })
            .Case([](math::TanhOp) { return FTanh; })
            .Case([](math::SqrtOp) { return FSqrt; })
            .Case([](math::RsqrtOp) { return FRsqrt; })
            .Case([](math::ErfOp) { return FErf; })
            .Case([](math::AbsFOp) { return FAbs; })
            .Case([](math::SinOp) { return FSin; })
            .Case([](math::CosOp) { return FCos; })
            .Case([](math::FloorOp) { return FFloor; })
            .Case([](math::CeilOp) { return FCeil; })
            .Case([](math::TruncOp) { return FTrunc; })
            .Case([](math::RoundEvenOp) { return FRoundEven; })
            .Case([](math::Log1pOp) { return FLog1p; })
            .Case([](math::ExpM1Op) { return FExpM1; })
            .Case([](math::Log2Op) { return FLog2; })
            .Case([](math::TanOp) { return FTan; })
            .Case([](math::AtanOp) { return FAtan; })
            .Case([](math::AsinOp) { return FAsin; })
            .Case([](math::AcosOp) { return FAcos; })
            .Case([](math::SinhOp) { return FSinh; })
            .Case([](math::CoshOp) { return FCosh; })
            .Case([](math::AsinhOp) { return FAsinh; })
            .Case([](math::AcoshOp) { return FAcosh; })
            .Case([](math::AtanhOp) { return FAtanh; })
            .Case([](math::Exp2Op) { return FExp2; })
            .Case([](math::Log10Op) { return FLog10; })
            .Case([](math::CbrtOp) { return FCbrt; })
            .Case([](math::Atan2Op) { return FAtan2; })
            .Case([](math::PowFOp) { return FPow; })
            .Case([](arith::CmpFOp) { return FCmp; })
            .Case([](arith::AddIOp) { return IAdd; })
            .Case([](arith::SubIOp) { return ISub; })
            .Case([](arith::MulIOp) { return IMul; })
            .Case([](arith::DivSIOp) { return IDivS; })
            .Case([](arith::FloorDivSIOp) { return IFloorDivS; })
            .Case([](arith::CeilDivSIOp) { return ICeilDivS; })
            .Case([](arith::RemSIOp) { return IRemS; })
            .Case([](arith::MinSIOp) { return IMinS; })
            .Case([](arith::MaxSIOp) { return IMaxS; })
            .Case([](arith::AndIOp) { return IAnd; })
            .Case([](arith::OrIOp) { return IOr; })
            .Case([](arith::XOrIOp) { return IXor; })
            .Case([](arith::ShLIOp) { return IShL; })
            .Case([](arith::ShRUIOp) { return IShRU; })
            .Case([](arith::ShRSIOp) { return IShRS; })
            .Case([](arith::CmpIOp) { return ICmp; })
            .Case([](math::AbsIOp) { return IAbs; })
            .Case([](arith::SelectOp) { return Select; })
            .Case([](arith::SIToFPOp) { return SIToFP; })
            .Case([](arith::UIToFPOp) { return UIToFP; })
            .Case([](arith::FPToSIOp) { return FPToSI; })
            .Case([](arith::ExtFOp) { return Copy; })
            .Case([](arith::TruncFOp) { return FRound; })
            .Case([](arith::IndexCastOp) { return Copy; })
            .Case([](arith::ExtUIOp) { return ZExt; })
            .Case([](arith::ExtSIOp) { return SExt; })
            .Case([](arith::TruncIOp) { return TruncInt; })
            .Case([](arith::BitcastOp) { return BitCast; })
            .Case([](math::RoundOp) { return FRoundAway; })
            .Case([](math::ErfcOp) { return FErfc; })
            .Case([](math::CopySignOp) { return FCopySign; })
            .Case([](math::FmaOp) { return FFma; })
            .Case([](math::IsNaNOp) { return FIsNan; })
            .Case([](math::IsInfOp) { return FIsInf; })
            .Case([](math::IsFiniteOp) { return FIsFinite; })
            .Case([](math::CountLeadingZerosOp) { return ICtlz; })
            .Case([](math::CountTrailingZerosOp) { return ICttz; })
            .Case([](math::CtPopOp) { return ICtpop; })
            .Case([](arith::DivUIOp) { return IDivU; })
            .Case([](arith::RemUIOp) { return IRemU; })
            .Case([](arith::CeilDivUIOp) { return ICeilDivU; })
            .Case([](arith::MaxUIOp) { return IMaxU; })
            .Case([](arith::MinUIOp) { return IMinU; })
            .Case([](math::IPowIOp) { return IPowI; })
            .Case([](arith::FPToUIOp) { return FPToUI; })
            .Case([](linalg::IndexOp) { return Index; })
            .Default([](Operation *) { return std::nullopt; });
    if (!code || op.getNumResults() != 1)
      return op.emitOpError()
             << "cannot be compiled into a linalg body by the interpreter";
    Instr in{*code, RoundNone, p.registers, -1, -1, -1};
    if (auto index = llvm::dyn_cast<linalg::IndexOp>(op)) {
      in.a = index.getDim();
    } else {
      int *slots[3] = {&in.a, &in.b, &in.c};
      for (auto [k, operand] : llvm::enumerate(op.getOperands())) {
        int r = reg(operand);
        if (r < 0)
          return op.emitOpError() << "uses a value from outside the body, "
                                     "which the interpreter does not support";
        *slots[k] = r;
      }
    }
    if (auto cmp = llvm::dyn_cast<arith::CmpFOp>(op))
      in.c = int(cmp.getPredicate());
    if (auto cmp = llvm::dyn_cast<arith::CmpIOp>(op))
      in.c = int(cmp.getPredicate());
    // i1 is held as 0 / 1, and its signed order reads true as -1: a signed
    // max is an and, a signed min an or, and a signed comparison the
    // unsigned one reversed.
    if (op.getNumOperands() == 2 && op.getOperand(0).getType().isInteger(1)) {
      using P = arith::CmpIPredicate;
      if (in.op == IMaxS)
        in.op = IAnd;
      else if (in.op == IMinS)
        in.op = IOr;
      else if (in.op == ICmp)
        switch (P(in.c)) {
        case P::slt: in.c = int(P::ugt); break;
        case P::sle: in.c = int(P::uge); break;
        case P::sgt: in.c = int(P::ult); break;
        case P::sge: in.c = int(P::ule); break;
        default: break;
        }
    }
    if (llvm::isa<arith::ExtUIOp, arith::ExtSIOp, arith::SIToFPOp,
                  arith::UIToFPOp>(op))
      in.c = int(op.getOperand(0).getType().getIntOrFloatBitWidth());
    if (llvm::isa<arith::TruncIOp>(op))
      in.c = int(op.getResult(0).getType().getIntOrFloatBitWidth());
    if (llvm::isa<arith::BitcastOp>(op))
      in.c = bitKind(op.getOperand(0).getType()) << 8 |
             bitKind(op.getResult(0).getType());
    if (llvm::isa<math::CountLeadingZerosOp, math::CountTrailingZerosOp,
                  math::CtPopOp, arith::DivUIOp, arith::RemUIOp,
                  arith::CeilDivUIOp, arith::MaxUIOp, arith::MinUIOp,
                  arith::FPToUIOp>(op)) {
      Type t = op.getResult(0).getType();
      in.c = t.isIndex() ? 64 : int(t.getIntOrFloatBitWidth());
    }
    if (llvm::isa<arith::ShLIOp, arith::ShRUIOp, arith::ShRSIOp>(op)) {
      Type t = op.getResult(0).getType();
      in.c = t.isIndex() ? 64 : int(t.getIntOrFloatBitWidth());
    }
    Type resultType = op.getResult(0).getType();
    in.round = resultType.isF32()    ? RoundF32
               : resultType.isF16()  ? RoundF16
               : resultType.isBF16() ? RoundBF16
                                     : RoundNone;
    // (fptosi too: MLIR's result is the value modulo 2^width, which the
    // emitted C++ computes; true is 1 in an i1.)
    if (llvm::isa<arith::AddIOp, arith::SubIOp, arith::MulIOp,
                  arith::DivSIOp, arith::FloorDivSIOp, arith::CeilDivSIOp,
                  math::AbsIOp, arith::FPToSIOp, math::IPowIOp>(op))
      if (auto it = llvm::dyn_cast<IntegerType>(op.getResult(0).getType());
          it && it.getWidth() < 64)
        in.wrapBits = uint8_t(it.getWidth());
    // The result's register comes after any captured operand's.
    in.dst = p.registers;
    regOf[op.getResult(0)] = p.registers++;
    p.code.push_back(in);
  }
  return p;
}

template <typename RegAt>
Reg BodyProgram::extractAt(const ExtractInfo &info, RegAt regAt) const {
  Reg out;
  out.i = 0;
  auto *table = reinterpret_cast<const Tensor *>(regAt(info.table).i);
  int64_t offset = 0;
  for (auto [d, r] : llvm::enumerate(info.indices)) {
    int64_t i = regAt(r).i, size = table->shape()[d];
    if (i < 0 || i >= size) {
      outOfBounds = true;
      return out;
    }
    offset = offset * size + i;
  }
  double v = table->at(offset);
  if (info.isFloat)
    out.f = v;
  else
    out.i = int64_t(v);
  return out;
}

void BodyProgram::init(Reg *regs) const {
  for (auto &[r, v] : constants)
    regs[r] = v;
}

void BodyProgram::run(Reg *r, const int64_t *index) const {
  for (const Instr &in : code) {
    Reg &d = r[in.dst];
    const Reg &a = r[in.a < 0 ? 0 : in.a];
    const Reg &b = r[in.b < 0 ? 0 : in.b];
    switch (in.op) {
    case FAdd: d.f = a.f + b.f; break;
    case FSub: d.f = a.f - b.f; break;
    case FMul: d.f = a.f * b.f; break;
    case FDiv: d.f = a.f / b.f; break;
    case FRem: d.f = std::fmod(a.f, b.f); break;
    case FMaximum: d.f = maximumF(a.f, b.f); break;
    case FMinimum: d.f = minimumF(a.f, b.f); break;
    case FMaxNum: d.f = std::fmax(a.f, b.f); break;
    case FMinNum: d.f = std::fmin(a.f, b.f); break;
    case FNeg: d.f = -a.f; break;
    case FExp: d.f = std::exp(a.f); break;
    case FLog: d.f = std::log(a.f); break;
    case FTanh: d.f = std::tanh(a.f); break;
    case FSqrt: d.f = std::sqrt(a.f); break;
    case FRsqrt: d.f = 1.0 / std::sqrt(a.f); break;
    case FErf: d.f = std::erf(a.f); break;
    case FAbs: d.f = std::fabs(a.f); break;
    case FSin: d.f = std::sin(a.f); break;
    case FCos: d.f = std::cos(a.f); break;
    case FFloor: d.f = std::floor(a.f); break;
    case FCeil: d.f = std::ceil(a.f); break;
    case FTrunc: d.f = std::trunc(a.f); break;
    case FRoundEven: d.f = roundHalfEven(a.f); break;
    case FLog1p: d.f = std::log1p(a.f); break;
    case FExpM1: d.f = std::expm1(a.f); break;
    case FLog2: d.f = std::log2(a.f); break;
    case FTan: d.f = std::tan(a.f); break;
    case FAtan: d.f = std::atan(a.f); break;
    case FAsin: d.f = std::asin(a.f); break;
    case FAcos: d.f = std::acos(a.f); break;
    case FSinh: d.f = std::sinh(a.f); break;
    case FCosh: d.f = std::cosh(a.f); break;
    case FAsinh: d.f = std::asinh(a.f); break;
    case FAcosh: d.f = std::acosh(a.f); break;
    case FAtanh: d.f = std::atanh(a.f); break;
    case FExp2: d.f = std::exp2(a.f); break;
    case FLog10: d.f = std::log10(a.f); break;
    case FCbrt: d.f = std::cbrt(a.f); break;
    case FAtan2: d.f = std::atan2(a.f, b.f); break;
    case FPow: d.f = std::pow(a.f, b.f); break;
    case FCmp: d.i = compareFloats(in.c, a.f, b.f); break;
    case FRound: d.f = a.f; break; // rounded to the result type below
    case IAdd: d.i = int64_t(uint64_t(a.i) + uint64_t(b.i)); break;
    case ISub: d.i = int64_t(uint64_t(a.i) - uint64_t(b.i)); break;
    case IMul: d.i = int64_t(uint64_t(a.i) * uint64_t(b.i)); break;
    case IDivS: d.i = divideSigned(a.i, b.i); break;
    case IFloorDivS: d.i = floorDivideSigned(a.i, b.i); break;
    case ICeilDivS: d.i = ceilDivideSigned(a.i, b.i); break;
    case IRemS: d.i = remainderSigned(a.i, b.i); break;
    case IMinS: d.i = std::min(a.i, b.i); break;
    case IMaxS: d.i = std::max(a.i, b.i); break;
    case IAbs: d.i = a.i < 0 ? int64_t(0 - uint64_t(a.i)) : a.i; break;
    case IAnd: d.i = a.i & b.i; break;
    case IOr: d.i = a.i | b.i; break;
    case IXor: d.i = a.i ^ b.i; break;
    case IShL: d.i = shiftLeft(a.i, b.i, in.c); break;
    case IShRU: d.i = shiftRightUnsigned(a.i, b.i, in.c); break;
    case IShRS: d.i = shiftRightSigned(a.i, b.i, in.c); break;
    case ICmp: d.i = compareInts(in.c, a.i, b.i); break;
    case Select: d = a.i ? b : r[in.c]; break;
    case SIToFP: d.f = double(signExtend(a.i, in.c)); break;
    case UIToFP: d.f = unsignedToDouble(a.i, in.c); break;
    case FPToSI: d.i = floatToInt(a.f); break;
    case Copy: d = a; break;
    case ZExt: d.i = zeroExtend(a.i, in.c); break;
    case SExt: d.i = signExtend(a.i, in.c); break;
    case TruncInt: d.i = truncateInt(a.i, in.c); break;
    case BitCast: d = bitCast(a, in.c); break;
    case FRoundAway: case FErfc: case FCopySign: case FFma: case FIsNan:
    case FIsInf: case FIsFinite: case ICtlz: case ICttz: case ICtpop:
    case IDivU: case IRemU: case ICeilDivU: case IMaxU: case IMinU:
    case IPowI: case FPToUI:
      d = evalMore(in.op, in.c, a, b, in.op == FFma ? r[in.c] : a);
      break;
    case Index: d.i = index[in.a]; break;
    case Extract:
      d = extractAt(extracts[in.a], [&](int k) { return r[k]; });
      break;
    }
    if (in.round && (in.op <= FPow || in.op == FRound || in.op == SIToFP ||
                     in.op == UIToFP))
      d.f = roundTo(in.round, d.f);
    if (in.wrapBits)
      d.i = truncateInt(d.i, in.wrapBits);
  }
}

void BodyProgram::initColumns(Reg *block, int64_t width) const {
  for (auto &[r, v] : constants)
    std::fill_n(block + r * width, width, v);
}

void BodyProgram::runColumns(Reg *block, int64_t stride, int64_t w,
                             const int64_t *index, int innerLoop) const {
  for (const Instr &in : code) {
    Reg *d = block + in.dst * stride;
    const Reg *a = block + (in.a < 0 ? 0 : in.a) * stride;
    const Reg *b = block + (in.b < 0 ? 0 : in.b) * stride;
    const Reg *c = block + (in.c < 0 ? 0 : in.c) * stride;
#define COLUMN(expr)                                                           \
  for (int64_t i = 0; i < w; ++i)                                              \
    expr;                                                                      \
  break;
    switch (in.op) {
    case FAdd: COLUMN(d[i].f = a[i].f + b[i].f)
    case FSub: COLUMN(d[i].f = a[i].f - b[i].f)
    case FMul: COLUMN(d[i].f = a[i].f * b[i].f)
    case FDiv: COLUMN(d[i].f = a[i].f / b[i].f)
    case FRem: COLUMN(d[i].f = std::fmod(a[i].f, b[i].f))
    case FMaximum: COLUMN(d[i].f = maximumF(a[i].f, b[i].f))
    case FMinimum: COLUMN(d[i].f = minimumF(a[i].f, b[i].f))
    case FMaxNum: COLUMN(d[i].f = std::fmax(a[i].f, b[i].f))
    case FMinNum: COLUMN(d[i].f = std::fmin(a[i].f, b[i].f))
    case FNeg: COLUMN(d[i].f = -a[i].f)
    case FExp: COLUMN(d[i].f = std::exp(a[i].f))
    case FLog: COLUMN(d[i].f = std::log(a[i].f))
    case FTanh: COLUMN(d[i].f = std::tanh(a[i].f))
    case FSqrt: COLUMN(d[i].f = std::sqrt(a[i].f))
    case FRsqrt: COLUMN(d[i].f = 1.0 / std::sqrt(a[i].f))
    case FErf: COLUMN(d[i].f = std::erf(a[i].f))
    case FAbs: COLUMN(d[i].f = std::fabs(a[i].f))
    case FSin: COLUMN(d[i].f = std::sin(a[i].f))
    case FCos: COLUMN(d[i].f = std::cos(a[i].f))
    case FFloor: COLUMN(d[i].f = std::floor(a[i].f))
    case FCeil: COLUMN(d[i].f = std::ceil(a[i].f))
    case FTrunc: COLUMN(d[i].f = std::trunc(a[i].f))
    case FRoundEven: COLUMN(d[i].f = roundHalfEven(a[i].f))
    case FLog1p: COLUMN(d[i].f = std::log1p(a[i].f))
    case FExpM1: COLUMN(d[i].f = std::expm1(a[i].f))
    case FLog2: COLUMN(d[i].f = std::log2(a[i].f))
    case FTan: COLUMN(d[i].f = std::tan(a[i].f))
    case FAtan: COLUMN(d[i].f = std::atan(a[i].f))
    case FAsin: COLUMN(d[i].f = std::asin(a[i].f))
    case FAcos: COLUMN(d[i].f = std::acos(a[i].f))
    case FSinh: COLUMN(d[i].f = std::sinh(a[i].f))
    case FCosh: COLUMN(d[i].f = std::cosh(a[i].f))
    case FAsinh: COLUMN(d[i].f = std::asinh(a[i].f))
    case FAcosh: COLUMN(d[i].f = std::acosh(a[i].f))
    case FAtanh: COLUMN(d[i].f = std::atanh(a[i].f))
    case FExp2: COLUMN(d[i].f = std::exp2(a[i].f))
    case FLog10: COLUMN(d[i].f = std::log10(a[i].f))
    case FCbrt: COLUMN(d[i].f = std::cbrt(a[i].f))
    case FAtan2: COLUMN(d[i].f = std::atan2(a[i].f, b[i].f))
    case FPow: COLUMN(d[i].f = std::pow(a[i].f, b[i].f))
    case FCmp:
      COLUMN(d[i].i = compareFloats(in.c, a[i].f, b[i].f))
    case FRound: COLUMN(d[i].f = a[i].f) // rounded below
    case IAdd: COLUMN(d[i].i = int64_t(uint64_t(a[i].i) + uint64_t(b[i].i)))
    case ISub: COLUMN(d[i].i = int64_t(uint64_t(a[i].i) - uint64_t(b[i].i)))
    case IMul: COLUMN(d[i].i = int64_t(uint64_t(a[i].i) * uint64_t(b[i].i)))
    case IDivS: COLUMN(d[i].i = divideSigned(a[i].i, b[i].i))
    case IFloorDivS: COLUMN(d[i].i = floorDivideSigned(a[i].i, b[i].i))
    case ICeilDivS: COLUMN(d[i].i = ceilDivideSigned(a[i].i, b[i].i))
    case IRemS: COLUMN(d[i].i = remainderSigned(a[i].i, b[i].i))
    case IMinS: COLUMN(d[i].i = std::min(a[i].i, b[i].i))
    case IMaxS: COLUMN(d[i].i = std::max(a[i].i, b[i].i))
    case IAbs:
      COLUMN(d[i].i = a[i].i < 0 ? int64_t(0 - uint64_t(a[i].i)) : a[i].i)
    case IAnd: COLUMN(d[i].i = a[i].i & b[i].i)
    case IOr: COLUMN(d[i].i = a[i].i | b[i].i)
    case IXor: COLUMN(d[i].i = a[i].i ^ b[i].i)
    case IShL: COLUMN(d[i].i = shiftLeft(a[i].i, b[i].i, in.c))
    case IShRU: COLUMN(d[i].i = shiftRightUnsigned(a[i].i, b[i].i, in.c))
    case IShRS: COLUMN(d[i].i = shiftRightSigned(a[i].i, b[i].i, in.c))
    case ICmp:
      COLUMN(d[i].i = compareInts(in.c, a[i].i, b[i].i))
    case Select: COLUMN(d[i] = a[i].i ? b[i] : c[i])
    case SIToFP: COLUMN(d[i].f = double(signExtend(a[i].i, in.c)))
    case UIToFP: COLUMN(d[i].f = unsignedToDouble(a[i].i, in.c))
    case FPToSI: COLUMN(d[i].i = floatToInt(a[i].f))
    case Copy: COLUMN(d[i] = a[i])
    case ZExt: COLUMN(d[i].i = zeroExtend(a[i].i, in.c))
    case SExt: COLUMN(d[i].i = signExtend(a[i].i, in.c))
    case TruncInt: COLUMN(d[i].i = truncateInt(a[i].i, in.c))
    case BitCast: COLUMN(d[i] = bitCast(a[i], in.c))
    case FRoundAway: case FErfc: case FCopySign: case FFma: case FIsNan:
    case FIsInf: case FIsFinite: case ICtlz: case ICttz: case ICtpop:
    case IDivU: case IRemU: case ICeilDivU: case IMaxU: case IMinU:
    case IPowI: case FPToUI:
      COLUMN(d[i] = evalMore(in.op, in.c, a[i], b[i],
                             in.op == FFma ? c[i] : a[i]))
    case Extract: {
      const ExtractInfo &info = extracts[in.a];
      auto at = [&](int64_t i) {
        return [&, i](int k) { return block[k * stride + i]; };
      };
      COLUMN((d[i] = extractAt(info, at(i))))
    }
    case Index:
      COLUMN(d[i].i = index[in.a] + (in.a == innerLoop ? i : 0))
    }
#undef COLUMN
    if (in.round && (in.op <= FPow || in.op == FRound || in.op == SIToFP ||
                     in.op == UIToFP)) {
      if (in.round == RoundF32) // (the common case: a loop the compiler
                                // vectorizes)
        for (int64_t i = 0; i < w; ++i)
          d[i].f = double(float(d[i].f));
      else
        for (int64_t i = 0; i < w; ++i)
          d[i].f = roundTo(in.round, d[i].f);
    }
    if (in.wrapBits)
      for (int64_t i = 0; i < w; ++i)
        d[i].i = truncateInt(d[i].i, in.wrapBits);
  }
}
