//===- Interpreter.cpp - run dtensor programs on N simulated ranks --------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// The driver and the kernels of func, arith and tensor. Kernels are looked
// up by op name in a table that each file fills (registerDTensorKernels adds
// ours), so a new op is one registration, not a branch in a switch.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Interpreter/Interpreter.h"

#include "BodyProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>

// OpenBLAS (the library the interpreter links): its thread count.
extern "C" {
void openblas_set_num_threads(int numThreads);
}

using namespace mlir;
using namespace mlir::dtensor;
using namespace mlir::dtensor::interp;

namespace mlir::dtensor::interp {
void registerDTensorKernels(llvm::StringMap<Interpreter::Kernel> &kernels);
void registerLinalgKernels(llvm::StringMap<Interpreter::Kernel> &kernels);
} // namespace mlir::dtensor::interp

std::optional<DType> interp::dtypeOf(Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isInteger(1))
    return DType::I1;
  if (type.isInteger(8))
    return DType::I8;
  if (type.isInteger(16))
    return DType::I16;
  if (type.isInteger(32))
    return DType::I32;
  if (type.isInteger(64) || type.isIndex())
    return DType::I64;
  return std::nullopt;
}

InFlightDiagnostic interp::emitCannotHold(Operation *op, int64_t rank,
                                          StringRef why) {
  return op->emitOpError() << "cannot hold a tensor it makes on rank " << rank
                           << ": " << why;
}

//===----------------------------------------------------------------------===//
// Ranks on threads
//===----------------------------------------------------------------------===//

namespace {
/// An integer constant as the interpreter holds it: sign-extended, except an
/// i1, which is 0 or 1 (true is 1, as comparisons give and bool storage
/// holds).
int64_t heldInt(const llvm::APInt &v) {
  return v.getBitWidth() == 1 ? int64_t(v.getZExtValue()) : v.getSExtValue();
}
} // namespace

namespace {
std::mutex rankPoolMutex;
unsigned rankThreadsSetting = 0;
std::unique_ptr<llvm::StdThreadPool> rankPool;
/// The rank whose kernel this thread runs (for the diagnostics it emits).
thread_local int64_t diagnosticRank = -1;
/// Whether this thread is one of the rank pool's, running a rank or a
/// chunk: work it starts runs on it, serially.
thread_local bool onRankThread = false;

/// OpenBLAS runs each call on one thread, always: the interpreter's own pool
/// runs ranks and tiles in parallel, and a result must not depend on how
/// many threads computed it (OpenBLAS's threaded kernels split and round
/// differently: a 128x256x64 sgemm on 2 threads differs from 1 thread in
/// the last bits, so `--rank-threads 1` and `4` would disagree).
void blasOnOneThread() {
  static bool once = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  (void)once;
}
} // namespace

void interp::setRankThreads(unsigned threads) {
  std::lock_guard<std::mutex> lock(rankPoolMutex);
  rankThreadsSetting = threads;
  rankPool.reset();
}

unsigned interp::getRankThreads() {
  std::lock_guard<std::mutex> lock(rankPoolMutex);
  if (rankThreadsSetting)
    return rankThreadsSetting;
  return llvm::hardware_concurrency().compute_thread_count();
}

static llvm::StdThreadPool &getRankPool(unsigned threads) {
  std::lock_guard<std::mutex> lock(rankPoolMutex);
  if (!rankPool || rankPool->getMaxConcurrency() != threads)
    rankPool = std::make_unique<llvm::StdThreadPool>(
        llvm::hardware_concurrency(threads));
  return *rankPool;
}

void interp::parallelChunks(int64_t n, int64_t grain,
                            llvm::function_ref<void(int64_t, int64_t)> fn) {
  unsigned threads = getRankThreads();
  int64_t chunks = grain > 0 ? std::min<int64_t>(threads, n / grain) : 1;
  if (chunks <= 1 || onRankThread) {
    fn(0, n);
    return;
  }
  llvm::StdThreadPool &pool = getRankPool(threads);
  llvm::ThreadPoolTaskGroup group(pool);
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t begin = n * c / chunks, end = n * (c + 1) / chunks;
    group.async([=, &fn] {
      onRankThread = true;
      fn(begin, end);
      onRankThread = false;
    });
  }
  group.wait();
}

LogicalResult
Interpreter::forEachRank(int64_t n, bool parallel,
                         llvm::function_ref<LogicalResult(int64_t)> fn) {
  MLIRContext *context = module.getContext();
  unsigned threads = parallel && n > 1 ? getRankThreads() : 1;
  if (threads <= 1 || !context->isMultithreadingEnabled() || onRankThread) {
    for (int64_t r = 0; r < n; ++r)
      if (failed(fn(r)))
        return failure();
    return success();
  }
  llvm::StdThreadPool &pool = getRankPool(threads);
  std::vector<std::vector<Diagnostic>> held(n);
  std::mutex heldMutex;
  std::atomic<int64_t> next{0}, firstFailed{n};
  {
    // Holds each rank's diagnostics; emitted below in the serial order.
    ScopedDiagnosticHandler capture(context, [&](Diagnostic &diag) {
      int64_t r = diagnosticRank;
      if (r < 0)
        return failure(); // not a rank's: the next handler's
      std::lock_guard<std::mutex> lock(heldMutex);
      held[r].push_back(std::move(diag));
      return success();
    });
      auto work = [&] {
      for (;;) {
        int64_t r = next.fetch_add(1);
        if (r >= n || r > firstFailed.load())
          return;
        diagnosticRank = r;
        onRankThread = true;
        bool ok = succeeded(fn(r));
        onRankThread = false;
        diagnosticRank = -1;
        int64_t first = firstFailed.load();
        while (!ok && r < first &&
               !firstFailed.compare_exchange_weak(first, r)) {
        }
      }
    };
    llvm::ThreadPoolTaskGroup group(pool);
    for (int64_t t = 0, e = std::min<int64_t>(n, threads); t < e; ++t)
      group.async(work);
    group.wait();
  }
  int64_t failedAt = firstFailed.load();
  for (int64_t r = 0; r < n && r <= failedAt; ++r)
    for (Diagnostic &diag : held[r])
      context->getDiagEngine().emit(std::move(diag));
  return failure(failedAt < n);
}

//===----------------------------------------------------------------------===//
// Per-rank evaluation
//===----------------------------------------------------------------------===//

namespace {

using RankFn = llvm::function_ref<FailureOr<std::vector<RValue>>(int64_t)>;

} // namespace

/// Whether running `op`'s ranks on threads pays: it moves or computes on a
/// tensor of at least 16K elements (a thread hand-off costs microseconds).
/// Only ops of dialects whose kernels keep to their rank's values.
bool interp::worthThreads(Interpreter &I, Operation *op) {
  if (!llvm::isa<tensor::TensorDialect, arith::ArithDialect,
                 linalg::LinalgDialect>(op->getDialect()) &&
      op->getDialect()->getNamespace() != "math")
    return false;
  constexpr int64_t kMinElements = 16384;
  for (Value v : op->getOperands()) {
    const RValue &first = I.lookup(v).on(0);
    if ((first.kind == RValue::Kind::Tensor ||
         first.kind == RValue::Kind::Dist) &&
        first.tensor.numElements() >= kMinElements)
      return true;
  }
  for (Type t : op->getResultTypes())
    if (auto type = llvm::dyn_cast<RankedTensorType>(t))
      if (type.hasStaticShape() && type.getNumElements() >= kMinElements)
        return true;
  return false;
}

namespace {

/// Runs `fn` once when every operand is the same on all ranks (and the op
/// does not depend on the rank), else once per rank; binds the results.
/// Operands that are per rank but the same everywhere (what a collective
/// hands its group) also run once, and every rank shares the result: 4096
/// ranks cutting the same piece out of a gathered tensor cut it once.
LogicalResult evaluate(Interpreter &I, Operation *op, bool rankDependent,
                       RankFn fn) {
  bool uniform = !rankDependent;
  for (Value v : op->getOperands())
    uniform &= I.lookup(v).uniform;
  bool once = uniform || (!rankDependent && I.runsOnce(op));
  int64_t ranks = once ? 1 : I.numRanks();
  std::vector<MValue> results(op->getNumResults());
  for (MValue &m : results) {
    m.uniform = uniform;
    m.values.resize(ranks);
  }
  bool parallel = ranks > 1 && !rankDependent && worthThreads(I, op);
  LogicalResult ok = I.forEachRank(ranks, parallel, [&](int64_t r) -> LogicalResult {
    FailureOr<std::vector<RValue>> out = fn(r);
    if (failed(out))
      return failure();
    for (size_t i = 0; i < out->size(); ++i)
      results[i].values[r] = std::move((*out)[i]);
    return success();
  });
  if (failed(ok))
    return failure();
  // Still one value per rank (printed and compared per rank), all sharing.
  if (once && !uniform)
    for (MValue &m : results)
      m.values.assign(I.numRanks(), m.values[0]);
  for (auto [res, m] : llvm::zip(op->getResults(), results))
    I.bind(res, std::move(m));
  return success();
}

const RValue &operand(Interpreter &I, Operation *op, unsigned i,
                      int64_t rank) {
  return I.lookup(op->getOperand(i)).on(rank);
}

/// Truncates an integer scalar to the width of `type`, sign-extending.
int64_t wrapInt(int64_t v, Type type) {
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  if (width >= 64)
    return v;
  if (width == 1)
    return v & 1;
  uint64_t mask = (uint64_t(1) << width) - 1;
  uint64_t u = uint64_t(v) & mask;
  if (u >> (width - 1))
    u |= ~mask;
  return int64_t(u);
}

//===----------------------------------------------------------------------===//
// arith
//===----------------------------------------------------------------------===//

template <typename T, typename F>
std::optional<Tensor> mapBinary(const Tensor &a, const Tensor &b, DType out,
                                F f, std::string &error) {
  std::optional<Tensor> r = Tensor::create(out, a.shape(), error);
  if (!r)
    return std::nullopt;
  const T *x = a.data<T>(), *y = b.data<T>();
  int64_t n = a.numElements();
  dispatch(out, [&](auto o) {
    using O = decltype(o);
    O *z = r->mutableData<O>();
    for (int64_t i = 0; i < n; ++i)
      z[i] = O(f(x[i], y[i]));
  });
  return r;
}

/// Whether `op` is an element-wise arith/math op with a tensor result.
bool isElementwiseOnTensors(Operation *op) {
  return llvm::isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
         op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() == 1 &&
         llvm::isa<RankedTensorType>(op->getResult(0).getType());
}

/// An integer binary op on any integer width: computed in int64 and wrapped
/// to the element type (unsigned arithmetic avoids C++ signed overflow).
using IntFn = int64_t (*)(int64_t, int64_t);
using FloatFn = double (*)(double, double);

int64_t floorDiv(int64_t a, int64_t b) { return floorDivideSigned(a, b); }
int64_t ceilDiv(int64_t a, int64_t b) { return ceilDivideSigned(a, b); }

void registerIntBinary(llvm::StringMap<Interpreter::Kernel> &k, StringRef name,
                       IntFn f, bool divides) {
  k[name] = [f, divides](Interpreter &I, Operation *op) -> LogicalResult {
    Type type = getElementTypeOrSelf(op->getResult(0).getType());
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      const RValue &a = operand(I, op, 0, r), &b = operand(I, op, 1, r);
      if (a.kind == RValue::Kind::Int) {
        if (divides && b.i == 0)
          return op->emitOpError() << "divides by zero on rank " << r;
        return std::vector<RValue>{RValue::ofInt(wrapInt(f(a.i, b.i), type))};
      }
      if (a.tensor.shape() != b.tensor.shape())
        return op->emitOpError()
               << "operands differ in shape on rank " << r;
      DType dt = a.tensor.dtype();
      std::string error;
      std::optional<Tensor> out = dispatch(dt, [&](auto v) {
        using T = decltype(v);
        return mapBinary<T>(a.tensor, b.tensor, dt, [&](T x, T y) {
          if (divides && y == 0)
            return T(0);
          return T(wrapInt(f(int64_t(x), int64_t(y)), type));
        }, error);
      });
      if (!out)
        return emitCannotHold(op, r, error);
      return std::vector<RValue>{RValue::ofTensor(std::move(*out))};
    });
  };
}

/// `v` rounded to the float type `type` (f32, f16, bf16; f64 as is); the
/// 16-bit types through float, as linalg bodies (BodyProgram's roundTo) and
/// the emitted C++ round them.
double roundToType(double v, Type type) {
  if (type.isF32())
    return double(float(v));
  if (type.isF16())
    return double(float(Half(float(v))));
  if (type.isBF16())
    return double(float(BFloat16(float(v))));
  return v;
}

void registerFloatBinary(llvm::StringMap<Interpreter::Kernel> &k,
                         StringRef name, FloatFn f) {
  k[name] = [f](Interpreter &I, Operation *op) -> LogicalResult {
    Type type = getElementTypeOrSelf(op->getResult(0).getType());
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      const RValue &a = operand(I, op, 0, r), &b = operand(I, op, 1, r);
      if (a.kind == RValue::Kind::Float) {
        return std::vector<RValue>{RValue::ofFloat(roundToType(f(a.f, b.f), type))};
      }
      if (a.tensor.shape() != b.tensor.shape())
        return op->emitOpError()
               << "operands differ in shape on rank " << r;
      DType dt = a.tensor.dtype();
      std::string error;
      std::optional<Tensor> out = dispatch(dt, [&](auto v) {
        using T = decltype(v);
        return mapBinary<T>(a.tensor, b.tensor, dt, [&](T x, T y) {
          return T(f(double(x), double(y)));
        }, error);
      });
      if (!out)
        return emitCannotHold(op, r, error);
      return std::vector<RValue>{RValue::ofTensor(std::move(*out))};
    });
  };
}

/// A tensor of `type` from a dense elements attribute.
FailureOr<Tensor> tensorOfAttr(DenseElementsAttr attr, Operation *op) {
  auto type = llvm::cast<RankedTensorType>(attr.getType());
  std::optional<DType> dt = dtypeOf(type.getElementType());
  if (!dt)
    return op->emitOpError() << "element type " << type.getElementType()
                             << " is not supported by the interpreter";
  std::string error;
  std::optional<Tensor> made = Tensor::create(
      *dt, Shape(type.getShape().begin(), type.getShape().end()), error);
  if (!made)
    return emitCannotHold(op, 0, error);
  Tensor &t = *made;
  int64_t n = t.numElements();
  if (isFloat(*dt)) {
    auto values = attr.getValues<APFloat>();
    dispatch(*dt, [&](auto v) {
      using T = decltype(v);
      T *out = t.mutableData<T>();
      for (int64_t i = 0; i < n; ++i)
        out[i] = T(values[attr.isSplat() ? 0 : i].convertToDouble());
    });
  } else {
    auto values = attr.getValues<APInt>();
    dispatch(*dt, [&](auto v) {
      using T = decltype(v);
      T *out = t.mutableData<T>();
      for (int64_t i = 0; i < n; ++i)
        out[i] = T(heldInt(values[attr.isSplat() ? 0 : i]));
    });
  }
  return std::move(t);
}

void registerArithKernels(llvm::StringMap<Interpreter::Kernel> &k) {
  k["arith.constant"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    Attribute value = llvm::cast<arith::ConstantOp>(op).getValue();
    RValue v;
    if (auto i = llvm::dyn_cast<IntegerAttr>(value))
      v = RValue::ofInt(i.getType().isIndex() ? i.getInt()
                                              : heldInt(i.getValue()));
    else if (auto f = llvm::dyn_cast<FloatAttr>(value))
      v = RValue::ofFloat(f.getValueAsDouble());
    else if (auto d = llvm::dyn_cast<DenseElementsAttr>(value)) {
      FailureOr<Tensor> t = tensorOfAttr(d, op);
      if (failed(t))
        return failure();
      v = RValue::ofTensor(std::move(*t));
    } else
      return op->emitOpError() << "constant " << value
                               << " is not supported by the interpreter";
    I.bind(op->getResult(0), MValue::same(std::move(v)));
    return success();
  };
  registerIntBinary(k, "arith.addi", [](int64_t a, int64_t b) {
    return int64_t(uint64_t(a) + uint64_t(b));
  }, false);
  registerIntBinary(k, "arith.subi", [](int64_t a, int64_t b) {
    return int64_t(uint64_t(a) - uint64_t(b));
  }, false);
  registerIntBinary(k, "arith.muli", [](int64_t a, int64_t b) {
    return int64_t(uint64_t(a) * uint64_t(b));
  }, false);
  registerIntBinary(k, "arith.divsi", divideSigned, true);
  registerIntBinary(k, "arith.remsi", remainderSigned, true);
  registerIntBinary(k, "arith.ceildivsi", ceilDiv, true);
  registerIntBinary(k, "arith.floordivsi", floorDiv, true);
  registerIntBinary(k, "arith.minsi",
                    [](int64_t a, int64_t b) { return std::min(a, b); }, false);
  registerIntBinary(k, "arith.maxsi",
                    [](int64_t a, int64_t b) { return std::max(a, b); }, false);
  registerIntBinary(k, "arith.andi", [](int64_t a, int64_t b) { return a & b; },
                    false);
  registerIntBinary(k, "arith.ori", [](int64_t a, int64_t b) { return a | b; },
                    false);
  registerIntBinary(k, "arith.xori", [](int64_t a, int64_t b) { return a ^ b; },
                    false);
  registerFloatBinary(k, "arith.addf", [](double a, double b) { return a + b; });
  registerFloatBinary(k, "arith.subf", [](double a, double b) { return a - b; });
  registerFloatBinary(k, "arith.mulf", [](double a, double b) { return a * b; });
  registerFloatBinary(k, "arith.divf", [](double a, double b) { return a / b; });
  registerFloatBinary(k, "arith.maximumf", maximumF);
  registerFloatBinary(k, "arith.minimumf", minimumF);
  registerFloatBinary(k, "arith.maxnumf",
                      [](double a, double b) { return std::fmax(a, b); });
  registerFloatBinary(k, "arith.minnumf",
                      [](double a, double b) { return std::fmin(a, b); });
  k["arith.cmpi"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    if (isElementwiseOnTensors(op))
      return I.runElementwise(op);
    auto cmp = llvm::cast<arith::CmpIOp>(op);
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      const RValue &a = operand(I, op, 0, r), &b = operand(I, op, 1, r);
      if (a.kind != RValue::Kind::Int)
        return op->emitOpError() << "on tensors is not supported yet";
      return std::vector<RValue>{
          RValue::ofInt(compareInts(unsigned(cmp.getPredicate()), a.i, b.i))};
    });
  };
  k["arith.cmpf"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    if (isElementwiseOnTensors(op))
      return I.runElementwise(op);
    auto cmp = llvm::cast<arith::CmpFOp>(op);
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      const RValue &a = operand(I, op, 0, r), &b = operand(I, op, 1, r);
      if (a.kind != RValue::Kind::Float)
        return op->emitOpError() << "on tensors is not supported yet";
      return std::vector<RValue>{
          RValue::ofInt(compareFloats(unsigned(cmp.getPredicate()), a.f, b.f))};
    });
  };
  k["arith.select"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    if (isElementwiseOnTensors(op))
      return I.runElementwise(op);
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      const RValue &c = operand(I, op, 0, r);
      if (c.kind != RValue::Kind::Int)
        return op->emitOpError() << "with a tensor condition is not supported yet";
      return std::vector<RValue>{operand(I, op, c.i ? 1 : 2, r)};
    });
  };
  // Scalar casts (on tensors, runElementwise).
  auto scalarCast = [](StringRef name, llvm::StringMap<Interpreter::Kernel> &k) {
    k[name] = [](Interpreter &I, Operation *op) -> LogicalResult {
      if (isElementwiseOnTensors(op))
        return I.runElementwise(op);
      Type type = op->getResult(0).getType();
      return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
        const RValue &a = operand(I, op, 0, r);
        if (a.kind != RValue::Kind::Int && a.kind != RValue::Kind::Float)
          return op->emitOpError() << "on tensors is not supported yet";
        double x = a.kind == RValue::Kind::Float ? a.f : double(a.i);
        if (llvm::isa<FloatType>(type))
          return std::vector<RValue>{RValue::ofFloat(roundToType(x, type))};
        return std::vector<RValue>{RValue::ofInt(
            wrapInt(a.kind == RValue::Kind::Int ? a.i : int64_t(x), type))};
      });
    };
  };
  for (StringRef name : {"arith.sitofp", "arith.fptosi", "arith.extf",
                         "arith.truncf", "arith.extsi", "arith.trunci"})
    scalarCast(name, k);
  k["arith.index_cast"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    if (isElementwiseOnTensors(op))
      return I.runElementwise(op);
    Type type = op->getResult(0).getType();
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      const RValue &a = operand(I, op, 0, r);
      if (a.kind != RValue::Kind::Int)
        return op->emitOpError() << "on tensors is not supported yet";
      return std::vector<RValue>{RValue::ofInt(wrapInt(a.i, type))};
    });
  };
}

//===----------------------------------------------------------------------===//
// tensor
//===----------------------------------------------------------------------===//

/// Whether [offset, offset + size) lies in [0, dimSize), without computing
/// offset + size (runtime offsets may be anything).
bool boxFits(int64_t offset, int64_t size, int64_t dimSize) {
  return offset >= 0 && size >= 0 && offset <= dimSize &&
         size <= dimSize - offset;
}

/// Static-or-dynamic index lists of slice ops, read on one rank.
Shape resolveMixed(Interpreter &I, ArrayRef<int64_t> statics,
                   OperandRange dynamics, int64_t rank) {
  Shape out;
  unsigned next = 0;
  for (int64_t s : statics) {
    if (ShapedType::isDynamic(s))
      out.push_back(I.lookup(dynamics[next++]).on(rank).i);
    else
      out.push_back(s);
  }
  return out;
}

/// Checks that a runtime shape fits a (possibly dynamic) static type.
LogicalResult checkShape(Operation *op, const Shape &shape, Type type,
                         int64_t rank) {
  auto t = llvm::cast<RankedTensorType>(type);
  if ((int64_t)shape.size() != t.getRank())
    return op->emitOpError() << "produced rank " << shape.size()
                             << " on rank " << rank << ", type says " << type;
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (!t.isDynamicDim(d) && t.getDimSize(d) != shape[d])
      return op->emitOpError() << "produced size " << shape[d] << " in dim "
                               << d << " on rank " << rank << ", type says "
                               << type;
  return success();
}

void registerTensorKernels(llvm::StringMap<Interpreter::Kernel> &k) {
  k["tensor.dim"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      const Tensor &t = operand(I, op, 0, r).tensor;
      int64_t d = operand(I, op, 1, r).i;
      if (d < 0 || d >= t.rank())
        return op->emitOpError() << "dim " << d << " out of range on rank " << r;
      return std::vector<RValue>{RValue::ofInt(t.shape()[d])};
    });
  };
  k["tensor.cast"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      const RValue &v = operand(I, op, 0, r);
      if (failed(checkShape(op, v.tensor.shape(), op->getResult(0).getType(), r)))
        return failure();
      return std::vector<RValue>{v};
    });
  };
  k["tensor.empty"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    auto type = llvm::cast<RankedTensorType>(op->getResult(0).getType());
    std::optional<DType> dt = dtypeOf(type.getElementType());
    if (!dt)
      return op->emitOpError() << "element type is not supported";
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      Shape shape = resolveMixed(I, type.getShape(), op->getOperands(), r);
      std::string error;
      std::optional<Tensor> t = Tensor::create(*dt, shape, error);
      if (!t)
        return emitCannotHold(op, r, error);
      return std::vector<RValue>{RValue::ofTensor(std::move(*t))};
    });
  };
  k["tensor.splat"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    auto splat = llvm::cast<tensor::SplatOp>(op);
    auto type = splat.getType();
    std::optional<DType> dt = dtypeOf(type.getElementType());
    if (!dt)
      return op->emitOpError() << "element type is not supported";
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      Shape shape =
          resolveMixed(I, type.getShape(), splat.getDynamicSizes(), r);
      std::string error;
      std::optional<Tensor> t = Tensor::create(*dt, shape, error);
      if (!t)
        return emitCannotHold(op, r, error);
      const RValue &s = operand(I, op, 0, r);
      dispatch(*dt, [&](auto v) {
        using T = decltype(v);
        T x = s.kind == RValue::Kind::Float ? T(s.f) : T(s.i);
        std::fill_n(t->mutableData<T>(), t->numElements(), x);
      });
      return std::vector<RValue>{RValue::ofTensor(std::move(*t))};
    });
  };
  k["tensor.extract_slice"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    auto slice = llvm::cast<tensor::ExtractSliceOp>(op);
    if (!llvm::all_of(slice.getStaticStrides(),
                      [](int64_t s) { return s == 1; }))
      return op->emitOpError() << "with strides other than 1 is not supported yet";
    if (slice.getType().getRank() != slice.getSourceType().getRank())
      return op->emitOpError() << "that drops dims is not supported yet";
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      const Tensor &src = operand(I, op, 0, r).tensor;
      Shape offsets =
          resolveMixed(I, slice.getStaticOffsets(), slice.getOffsets(), r);
      Shape sizes = resolveMixed(I, slice.getStaticSizes(), slice.getSizes(), r);
      for (int64_t d = 0; d < src.rank(); ++d)
        if (!boxFits(offsets[d], sizes[d], src.shape()[d]))
          return op->emitOpError()
                 << "reads " << sizes[d] << " elements at offset "
                 << offsets[d] << " of dim " << d << " of size "
                 << src.shape()[d] << " on rank " << r;
      std::string error;
      std::optional<Tensor> out = src.slice(offsets, sizes, error);
      if (!out)
        return emitCannotHold(op, r, error);
      return std::vector<RValue>{RValue::ofTensor(std::move(*out))};
    });
  };
  k["tensor.insert_slice"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    auto insert = llvm::cast<tensor::InsertSliceOp>(op);
    bool once = I.runsOnce(op);
    if (!llvm::all_of(insert.getStaticStrides(),
                      [](int64_t s) { return s == 1; }))
      return op->emitOpError() << "with strides other than 1 is not supported yet";
    if (insert.getSourceType().getRank() != insert.getType().getRank())
      return op->emitOpError() << "that adds dims is not supported yet";
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      const Tensor &src = operand(I, op, 0, r).tensor;
      const Tensor &dest = operand(I, op, 1, r).tensor;
      Shape offsets =
          resolveMixed(I, insert.getStaticOffsets(), insert.getOffsets(), r);
      Shape sizes =
          resolveMixed(I, insert.getStaticSizes(), insert.getSizes(), r);
      if (sizes != src.shape())
        return op->emitOpError() << "source shape differs from the sizes on rank " << r;
      for (int64_t d = 0; d < dest.rank(); ++d)
        if (!boxFits(offsets[d], sizes[d], dest.shape()[d]))
          return op->emitOpError()
                 << "writes " << sizes[d] << " elements at offset "
                 << offsets[d] << " of dim " << d << " of size "
                 << dest.shape()[d] << " on rank " << r;
      // At the destination's last use, write the piece into it: a chain of
      // inserts (how uneven collectives are lowered) then copies each piece
      // once instead of the whole destination per piece.
      if (std::optional<Tensor> target = I.takeForUpdate(op, 1, r, once)) {
        target->write(src, offsets);
        return std::vector<RValue>{RValue::ofTensor(std::move(*target))};
      }
      std::string error;
      std::optional<Tensor> out = dest.inserted(src, offsets, error);
      if (!out)
        return emitCannotHold(op, r, error);
      return std::vector<RValue>{RValue::ofTensor(std::move(*out))};
    });
  };
}

/// Reads indices given as index operands on one rank.
Shape indicesOf(Interpreter &I, OperandRange values, int64_t rank) {
  Shape out;
  for (Value v : values)
    out.push_back(I.lookup(v).on(rank).i);
  return out;
}

/// Row-major offset of `index` in `shape`, or -1 when out of bounds.
int64_t offsetOf(const Shape &shape, const Shape &index) {
  int64_t off = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (index[d] < 0 || index[d] >= shape[d])
      return -1;
    off = off * shape[d] + index[d];
  }
  return off;
}

void registerMoreTensorKernels(llvm::StringMap<Interpreter::Kernel> &k) {
  k["tensor.extract"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    auto ex = llvm::cast<tensor::ExtractOp>(op);
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      const Tensor &t = operand(I, op, 0, r).tensor;
      int64_t off = offsetOf(t.shape(), indicesOf(I, ex.getIndices(), r));
      if (off < 0)
        return op->emitOpError() << "reads out of bounds on rank " << r;
      double v = t.at(off);
      return std::vector<RValue>{isFloat(t.dtype()) ? RValue::ofFloat(v)
                                                    : RValue::ofInt(int64_t(v))};
    });
  };
  k["tensor.insert"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    auto in = llvm::cast<tensor::InsertOp>(op);
    bool once = I.runsOnce(op);
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      const RValue &scalar = operand(I, op, 0, r);
      const Tensor &dest = operand(I, op, 1, r).tensor;
      int64_t off = offsetOf(dest.shape(), indicesOf(I, in.getIndices(), r));
      if (off < 0)
        return op->emitOpError() << "writes out of bounds on rank " << r;
      // In place at the destination's last use (a loop of inserts is then
      // linear, not quadratic).
      std::optional<Tensor> target = I.takeForUpdate(op, 1, r, once);
      std::string error;
      if (!target)
        target = dest.copy(error);
      if (!target)
        return emitCannotHold(op, r, error);
      Tensor &out = *target;
      dispatch(out.dtype(), [&](auto v) {
        using T = decltype(v);
        out.mutableData<T>()[off] = scalar.kind == RValue::Kind::Float
                                        ? T(scalar.f)
                                        : T(scalar.i);
      });
      return std::vector<RValue>{RValue::ofTensor(std::move(out))};
    });
  };
  k["tensor.from_elements"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    auto type = llvm::cast<RankedTensorType>(op->getResult(0).getType());
    std::optional<DType> dt = dtypeOf(type.getElementType());
    if (!dt)
      return op->emitOpError() << "element type is not supported";
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      std::string error;
      std::optional<Tensor> t = Tensor::create(
          *dt, Shape(type.getShape().begin(), type.getShape().end()), error);
      if (!t)
        return emitCannotHold(op, r, error);
      dispatch(*dt, [&](auto v) {
        using T = decltype(v);
        T *x = t->mutableData<T>();
        for (unsigned i = 0; i < op->getNumOperands(); ++i) {
          const RValue &e = operand(I, op, i, r);
          x[i] = e.kind == RValue::Kind::Float ? T(e.f) : T(e.i);
        }
      });
      return std::vector<RValue>{RValue::ofTensor(std::move(*t))};
    });
  };
  k["tensor.pad"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    auto pad = llvm::cast<tensor::PadOp>(op);
    Value padValue = pad.getConstantPaddingValue();
    if (!padValue)
      return op->emitOpError()
             << "with a non-constant padding body is not supported yet";
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      const Tensor &src = operand(I, op, 0, r).tensor;
      Shape low = resolveMixed(I, pad.getStaticLow(), pad.getLow(), r);
      Shape high = resolveMixed(I, pad.getStaticHigh(), pad.getHigh(), r);
      Shape shape = src.shape();
      for (size_t d = 0; d < shape.size(); ++d) {
        if (low[d] < 0 || high[d] < 0)
          return op->emitOpError() << "has negative padding on rank " << r;
        std::optional<int64_t> padded = llvm::checkedAdd(shape[d], low[d]);
        if (padded)
          padded = llvm::checkedAdd(*padded, high[d]);
        if (!padded)
          return op->emitOpError()
                 << "pads dim " << d << " of size " << shape[d] << " by "
                 << low[d] << " and " << high[d]
                 << ", which overflows, on rank " << r;
        shape[d] = *padded;
      }
      std::string error;
      std::optional<Tensor> made = Tensor::create(src.dtype(), shape, error);
      if (!made)
        return emitCannotHold(op, r, error);
      Tensor &out = *made;
      double fill = 0;
      if (auto c = padValue.getDefiningOp<arith::ConstantOp>()) {
        if (auto f = llvm::dyn_cast<FloatAttr>(c.getValue()))
          fill = f.getValueAsDouble();
        else if (auto i = llvm::dyn_cast<IntegerAttr>(c.getValue()))
          fill = double(heldInt(i.getValue()));
      } else {
        const RValue &v = I.lookup(padValue).on(r);
        fill = v.kind == RValue::Kind::Float ? v.f : double(v.i);
      }
      dispatch(out.dtype(), [&](auto v) {
        using T = decltype(v);
        std::fill_n(out.mutableData<T>(), out.numElements(), T(fill));
      });
      out.write(src, low);
      return std::vector<RValue>{RValue::ofTensor(std::move(*made))};
    });
  };
  k["tensor.concat"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    int64_t dim = llvm::cast<tensor::ConcatOp>(op).getDim();
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      std::vector<Tensor> parts;
      for (unsigned i = 0; i < op->getNumOperands(); ++i) {
        parts.push_back(operand(I, op, i, r).tensor);
        for (int64_t d = 0; d < parts[0].rank(); ++d)
          if (d != dim && parts[i].shape()[d] != parts[0].shape()[d])
            return op->emitOpError()
                   << "operand " << i << " has size " << parts[i].shape()[d]
                   << " in dim " << d << ", operand 0 has "
                   << parts[0].shape()[d] << ", on rank " << r;
      }
      std::string error;
      std::optional<Tensor> out = Tensor::concat(parts, dim, error);
      if (!out)
        return emitCannotHold(op, r, error);
      return std::vector<RValue>{RValue::ofTensor(std::move(*out))};
    });
  };
  // linalg.softmax as it decomposes: exp(x - max) / sum(exp(x - max))
  // along its dim, computed in double and rounded once.
  k["linalg.softmax"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    auto softmax = llvm::cast<linalg::SoftmaxOp>(op);
    int64_t dim = softmax.getDimension();
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      const Tensor &src = operand(I, op, 0, r).tensor;
      if (!isFloat(src.dtype()))
        return op->emitOpError() << "needs a float tensor";
      std::string error;
      std::optional<Tensor> made =
          Tensor::create(src.dtype(), src.shape(), error);
      if (!made)
        return emitCannotHold(op, r, error);
      Tensor &out = *made;
      // Nothing to compute; the dims of an empty tensor may be huge.
      if (out.numElements() == 0)
        return std::vector<RValue>{RValue::ofTensor(std::move(*made))};
      int64_t n = src.shape()[dim], inner = 1, outer = 1;
      for (int64_t d = dim + 1; d < src.rank(); ++d)
        inner *= src.shape()[d];
      for (int64_t d = 0; d < dim; ++d)
        outer *= src.shape()[d];
      std::vector<double> row(n);
      dispatch(out.dtype(), [&](auto v) {
        using T = decltype(v);
        T *y = out.mutableData<T>();
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            int64_t base = o * n * inner + i;
            double max = -std::numeric_limits<double>::infinity(), sum = 0;
            for (int64_t k = 0; k < n; ++k)
              max = std::max(max, row[k] = src.at(base + k * inner));
            for (int64_t k = 0; k < n; ++k)
              sum += row[k] = std::exp(row[k] - max);
            for (int64_t k = 0; k < n; ++k)
              y[base + k * inner] = T(row[k] / sum);
          }
      });
      return std::vector<RValue>{RValue::ofTensor(std::move(*made))};
    });
  };
  // Reshapes keep the data and change the shape (row-major throughout).
  auto reshape = [](Interpreter &I, Operation *op,
                    llvm::function_ref<Shape(int64_t, const Tensor &)> shapeOf)
      -> LogicalResult {
    return evaluate(I, op, false, [&](int64_t r) -> FailureOr<std::vector<RValue>> {
      const Tensor &src = operand(I, op, 0, r).tensor;
      Shape shape = shapeOf(r, src);
      std::optional<int64_t> n = checkedNumElements(shape);
      if (n != src.numElements())
        return op->emitOpError()
               << "reshapes " << src.numElements() << " elements into shape "
               << describeTensor(src.dtype(), shape) << " on rank " << r;
      return std::vector<RValue>{RValue::ofTensor(src.reshaped(shape))};
    });
  };
  k["tensor.collapse_shape"] = [reshape](Interpreter &I, Operation *op) {
    auto c = llvm::cast<tensor::CollapseShapeOp>(op);
    return reshape(I, op, [&](int64_t, const Tensor &src) {
      Shape shape;
      for (ReassociationIndices group : c.getReassociationIndices()) {
        // Checked even for an existing tensor: an empty one's other dims may
        // be huge. -1 (no size) makes the count check below fail.
        Shape dims;
        for (int64_t d : group)
          dims.push_back(src.shape()[d]);
        shape.push_back(checkedNumElements(dims).value_or(-1));
      }
      return shape;
    });
  };
  k["tensor.expand_shape"] = [reshape](Interpreter &I, Operation *op) {
    auto e = llvm::cast<tensor::ExpandShapeOp>(op);
    return reshape(I, op, [&](int64_t r, const Tensor &) {
      return resolveMixed(I, e.getStaticOutputShape(), e.getOutputShape(), r);
    });
  };
  k["tensor.reshape"] = [reshape](Interpreter &I, Operation *op) {
    return reshape(I, op, [&](int64_t r, const Tensor &) {
      const Tensor &s = operand(I, op, 1, r).tensor;
      Shape shape;
      // Read as integers: through a double, a size above 2^53 would round
      // and one near 2^63 would not convert back.
      dispatch(s.dtype(), [&](auto v) {
        using T = decltype(v);
        for (int64_t i = 0; i < s.numElements(); ++i)
          if constexpr (std::is_integral_v<T>)
            shape.push_back(int64_t(s.data<T>()[i]));
          else
            shape.push_back(-1);
      });
      return shape;
    });
  };
}

void registerFuncKernels(llvm::StringMap<Interpreter::Kernel> &k) {
  // A failed assertion stops the run at the op, naming the first rank it
  // failed on (partitioning checks from_local's shapes this way).
  k["cf.assert"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    auto check = llvm::cast<cf::AssertOp>(op);
    const MValue &cond = I.lookup(check.getArg());
    int64_t ranks = cond.uniform ? 1 : I.numRanks();
    for (int64_t r = 0; r < ranks; ++r)
      if (!cond.on(r).i)
        return op->emitError()
               << "assertion failed "
               << (cond.uniform ? std::string("on every rank")
                                : "on rank " + std::to_string(r))
               << ": " << check.getMsg();
    return success();
  };
  k["func.call"] = [](Interpreter &I, Operation *op) -> LogicalResult {
    auto call = llvm::cast<func::CallOp>(op);
    auto callee = I.symbols().lookupNearestSymbolFrom<func::FuncOp>(
        op, call.getCalleeAttr());
    if (!callee || callee.isExternal())
      return op->emitOpError() << "calls " << call.getCalleeAttr()
                               << ", which has no body to interpret";
    if (I.isRunning(callee))
      return op->emitOpError()
             << "calls " << call.getCalleeAttr()
             << " recursively, which the interpreter does not run (a "
                "function's values live in one environment)";
    std::vector<MValue> args, results;
    for (Value v : call.getOperands())
      args.push_back(I.lookup(v));
    if (failed(I.callFunction(callee, std::move(args), results)))
      return failure();
    for (auto [res, m] : llvm::zip(call.getResults(), results))
      I.bind(res, std::move(m));
    return success();
  };
}

} // namespace

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

Interpreter::Interpreter(ModuleOp module) : module(module) {
  blasOnOneThread();
  for (MeshOp mesh : module.getOps<MeshOp>()) {
    Shape shape(mesh.getShape().begin(), mesh.getShape().end());
    if (meshShape.empty())
      meshShape = shape;
    meshShapes[mesh.getSymName()] = std::move(shape);
  }
  if (meshShape.empty())
    meshShape = {1};
  registerArithKernels(kernels);
  registerTensorKernels(kernels);
  registerMoreTensorKernels(kernels);
  registerFuncKernels(kernels);
  registerDTensorKernels(kernels);
  registerLinalgKernels(kernels);
}

const Shape &Interpreter::meshShapeOf(StringRef name) const {
  auto it = meshShapes.find(name);
  return it == meshShapes.end() ? meshShape : it->second;
}

const Shape &Interpreter::meshShapeOf(Value handle) const {
  if (auto type = llvm::dyn_cast<DeviceMeshType>(handle.getType()))
    return meshShapeOf(type.getMesh().getValue());
  return meshShape;
}

LogicalResult Interpreter::run(func::FuncOp entry, std::vector<MValue> args,
                               std::vector<MValue> &results) {
  comm = CommReport();
  MeshOp first;
  for (MeshOp mesh : module.getOps<MeshOp>()) {
    int64_t size = meshSize(meshShapeOf(mesh.getSymName()));
    if (first && size != numRanks())
      return mesh.emitOpError()
             << "has " << size << " ranks and mesh @" << first.getSymName()
             << " has " << numRanks()
             << "; meshes of one program are arrangements of the same ranks "
                "(as init_device_mesh over one world), so each needs as many "
                "ranks. For a group of some ranks, take a sub-mesh "
                "(dtensor.submesh) of a mesh of all of them";
    if (!first)
      first = mesh;
    std::vector<std::string> &names = comm.meshDimNames[mesh.getSymName().str()];
    for (int64_t d = 0; d < mesh.getRank(); ++d)
      names.push_back(mesh.getDimName(d));
  }
  events.clear();
  // A distributed argument takes a distributed value (one kind of value per
  // type: the kernels of the DTensor API read a distributed value's layout).
  for (auto [i, value] : llvm::enumerate(args)) {
    if (i >= entry.getNumArguments() || value.values.empty())
      break;
    bool distributed = bool(getSpec(entry.getArgument(i).getType()));
    bool given = llvm::all_of(value.values, [](const RValue &v) {
      return v.kind == RValue::Kind::Dist;
    });
    bool plain = llvm::none_of(value.values, [](const RValue &v) {
      return v.kind == RValue::Kind::Dist;
    });
    if (distributed ? !given : !plain)
      return entry.emitError()
             << "argument " << i << " of @" << entry.getSymName() << " is "
             << (distributed ? "a distributed tensor (global view), given a "
                               "rank's local tensor"
                             : "a local tensor, given a distributed value");
  }
  return callFunction(entry, std::move(args), results);
}

LogicalResult Interpreter::callFunction(func::FuncOp fn,
                                        std::vector<MValue> args,
                                        std::vector<MValue> &results) {
  running.insert(fn);
  LogicalResult ok = runRegion(fn.getBody(), std::move(args), results);
  running.erase(fn);
  return ok;
}

LogicalResult Interpreter::runRegion(Region &region, std::vector<MValue> args,
                                     std::vector<MValue> &results) {
  Block &entry = region.front();
  if (args.size() != entry.getNumArguments())
    return region.getParentOp()->emitError()
           << "expects " << entry.getNumArguments() << " block arguments, got "
           << args.size();
  for (auto [arg, value] : llvm::zip(entry.getArguments(), args)) {
    if (value.values.empty())
      value = MValue::same(RValue{RValue::Kind::Mesh});
    bind(arg, std::move(value));
  }
  return runBlock(entry, results);
}

void Interpreter::analyzeLiveness(Block &block) {
  // Read-only once analyzed: ranks on threads call this through isLastUse.
  if (analyzedBlocks.contains(&block))
    return;
  analyzedBlocks.insert(&block);
  llvm::DenseMap<Operation *, unsigned> position;
  for (auto [i, op] : llvm::enumerate(block))
    position[&op] = i;
  auto noteValue = [&](Value v, Operation *definer) {
    // A value nothing reads dies where it is made (block arguments: at the
    // first op).
    Operation *last = definer ? definer : &block.front();
    for (OpOperand &use : v.getUses()) {
      Operation *user = block.findAncestorOpInBlock(*use.getOwner());
      if (user && position[user] > position[last])
        last = user;
    }
    lastUser[v] = last;
    releaseAfter[last].push_back(v);
  };
  for (BlockArgument arg : block.getArguments())
    noteValue(arg, nullptr);
  for (Operation &op : block)
    for (Value v : op.getResults())
      noteValue(v, &op);
}

bool Interpreter::isLastUse(Operation *op, unsigned i) {
  Value v = op->getOperand(i);
  if (Block *block = v.getParentBlock())
    analyzeLiveness(*block);
  auto it = lastUser.find(v);
  return it != lastUser.end() && it->second == op &&
         llvm::count(op->getOperands(), v) == 1;
}

std::optional<Tensor> Interpreter::takeForUpdate(Operation *op, unsigned i,
                                                 int64_t rank, bool once) {
  if (!isLastUse(op, i))
    return std::nullopt;
  auto it = env.find(op->getOperand(i));
  if (it == env.end())
    return std::nullopt;
  MValue &m = it->second;
  if (!once) {
    // One value shared by all ranks is theirs too when the op runs per rank.
    if (m.uniform && numRanks() > 1)
      return std::nullopt;
    RValue &v = m.uniform ? m.values[0] : m.values[rank];
    if (v.kind != RValue::Kind::Tensor || v.tensor.numHandles() != 1)
      return std::nullopt;
    return std::move(v.tensor);
  }
  // Run once for all ranks: the value's handles (one per rank) may be all
  // there are.
  RValue &first = m.values[0];
  if (first.kind != RValue::Kind::Tensor)
    return std::nullopt;
  int64_t handles = 0;
  for (const RValue &v : m.values)
    handles += v.kind == RValue::Kind::Tensor && v.tensor.isSameAs(first.tensor);
  if (handles != int64_t(m.values.size()) ||
      first.tensor.numHandles() != handles)
    return std::nullopt;
  Tensor taken = std::move(first.tensor);
  for (RValue &v : m.values)
    v.tensor = Tensor();
  return taken;
}

bool Interpreter::sameOnAllRanks(const MValue &m) const {
  if (m.uniform)
    return true;
  const RValue &first = m.values[0];
  for (const RValue &v : llvm::drop_begin(m.values)) {
    if (v.kind != first.kind)
      return false;
    switch (v.kind) {
    case RValue::Kind::Tensor:
    case RValue::Kind::Future:
      if (!v.tensor.isSameAs(first.tensor))
        return false;
      break;
    case RValue::Kind::Int:
      if (v.i != first.i)
        return false;
      break;
    case RValue::Kind::Float:
      if (std::memcmp(&v.f, &first.f, sizeof(double)) != 0)
        return false;
      break;
    case RValue::Kind::Empty:
    case RValue::Kind::Mesh:
      break;
    case RValue::Kind::Dist:
      if (v.dist != first.dist)
        return false;
      break;
    }
  }
  return true;
}

bool Interpreter::runsOnce(Operation *op, ValueRange extra) const {
  auto same = [&](Value v) { return sameOnAllRanks(lookup(v)); };
  return llvm::all_of(op->getOperands(), same) && llvm::all_of(extra, same);
}

LogicalResult Interpreter::runElementwise(Operation *op) {
  // Made for this run and erased after it (a cache by op would outlive an
  // op of a module changed between runs).
  Operation *generic;
  {
    MLIRContext *ctx = op->getContext();
    Location loc = op->getLoc();
    if (!scratch)
      scratch = ModuleOp::create(UnknownLoc::get(ctx));
    auto type = llvm::cast<RankedTensorType>(op->getResult(0).getType());
    auto plainType = [](Type t) -> Type {
      if (auto r = llvm::dyn_cast<RankedTensorType>(t))
        return RankedTensorType::get(r.getShape(), r.getElementType());
      return t;
    };
    RankedTensorType result =
        llvm::cast<RankedTensorType>(plainType(type));
    for (Value v : op->getOperands())
      if (auto t = llvm::dyn_cast<RankedTensorType>(v.getType());
          t && t.getShape() != result.getShape())
        return op->emitOpError()
               << "mixes tensor shapes, which the interpreter does not run";
    // f(operands..., init) -> result, the generic in its body.
    SmallVector<Type> argTypes;
    for (Value v : op->getOperands())
      argTypes.push_back(plainType(v.getType()));
    argTypes.push_back(result);
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(scratch->getBody());
    auto fn = func::FuncOp::create(
        b, loc, "elementwise",
        b.getFunctionType(argTypes, {result}));
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToEnd(entry);
    SmallVector<Value> ins;
    SmallVector<unsigned> tensorOperands;
    for (auto [i, v] : llvm::enumerate(op->getOperands()))
      if (llvm::isa<RankedTensorType>(v.getType())) {
        ins.push_back(entry->getArgument(i));
        tensorOperands.push_back(i);
      }
    SmallVector<AffineMap> maps(ins.size() + 1,
                                b.getMultiDimIdentityMap(result.getRank()));
    SmallVector<utils::IteratorType> iterators(result.getRank(),
                                               utils::IteratorType::parallel);
    auto made = linalg::GenericOp::create(
        b, loc, TypeRange{result}, ins, ValueRange{entry->getArguments().back()},
        maps, iterators, [&](OpBuilder &nested, Location at, ValueRange args) {
          IRMapping map;
          for (auto [i, v] : llvm::enumerate(op->getOperands()))
            map.map(v, entry->getArgument(i));
          for (auto [k, i] : llvm::enumerate(tensorOperands))
            map.map(op->getOperand(i), args[k]);
          Operation *scalar = nested.clone(*op, map);
          scalar->getResult(0).setType(result.getElementType());
          linalg::YieldOp::create(nested, at, scalar->getResult(0));
        });
    func::ReturnOp::create(b, loc, made.getResult(0));
    generic = made;
  }
  auto fn = generic->getParentOfType<func::FuncOp>();
  Block &entry = fn.getBody().front();
  // Nothing of the function outlives this run, whatever its end: its
  // values, the liveness noted for its block, the function.
  auto cleanup = llvm::make_scope_exit([&]() {
    for (BlockArgument arg : entry.getArguments()) {
      env.erase(arg);
      lastUser.erase(arg);
    }
    env.erase(generic->getResult(0));
    lastUser.erase(generic->getResult(0));
    for (Operation &inner : entry)
      releaseAfter.erase(&inner);
    analyzedBlocks.erase(&entry);
    fn.erase();
  });
  for (auto [arg, v] : llvm::zip(entry.getArguments(), op->getOperands()))
    bind(arg, lookup(v));
  // The init: zeros of the result's shape on each rank (a local shape may
  // differ across ranks: uneven shards), which the body never reads.
  auto type = llvm::cast<RankedTensorType>(generic->getResult(0).getType());
  std::optional<DType> dt = dtypeOf(type.getElementType());
  if (!dt)
    return op->emitOpError() << "element type " << type.getElementType()
                             << " is not supported by the interpreter";
  Value shaped;
  for (Value v : op->getOperands())
    if (llvm::isa<RankedTensorType>(v.getType())) {
      shaped = v;
      break;
    }
  MValue init;
  init.uniform = !shaped || lookup(shaped).uniform;
  for (int64_t r = 0; r < (init.uniform ? 1 : numRanks()); ++r) {
    Shape shape(type.getShape().begin(), type.getShape().end());
    if (shaped)
      shape = lookup(shaped).on(r).tensor.shape();
    std::string error;
    std::optional<Tensor> zeros = Tensor::create(*dt, shape, error);
    if (!zeros)
      return emitCannotHold(op, r, error);
    init.values.push_back(RValue::ofTensor(std::move(*zeros)));
  }
  bind(entry.getArguments().back(), std::move(init));
  if (failed(kernels.find("linalg.generic")->second(*this, generic)))
    return failure();
  bind(op->getResult(0), lookup(generic->getResult(0)));
  return success();
}

LogicalResult Interpreter::runBlock(Block &block,
                                    std::vector<MValue> &results) {
  analyzeLiveness(block);
  // Drops the values whose last reader was `op`, so a run holds only what
  // later ops still read.
  auto release = [&](Operation &op) {
    auto it = releaseAfter.find(&op);
    if (it != releaseAfter.end())
      for (Value v : it->second)
        env.erase(v);
  };
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      for (Value v : op.getOperands())
        results.push_back(lookup(v));
      release(op);
      return success();
    }
    auto it = kernels.find(op.getName().getStringRef());
    // Every structured op (convolutions and poolings of any layout) runs on
    // the one kernel that reads its indexing maps and body.
    if (it == kernels.end() && llvm::isa<linalg::LinalgOp>(op))
      it = kernels.find("linalg.generic");
    // Element-wise ops on tensors without a kernel of their own run as the
    // generic that applies them per element.
    bool perElement = it == kernels.end() && isElementwiseOnTensors(&op);
    if (it == kernels.end() && !perElement)
      return op.emitOpError() << "is not supported by the interpreter yet";
    auto start = std::chrono::steady_clock::now();
    if (failed(perElement ? runElementwise(&op) : it->second(*this, &op)))
      return failure();
    // Global view: compute ops see distributed operands as their logical
    // tensors; a result typed with a spec becomes a distributed value.
    if (!llvm::isa<DTensorDialect>(op.getDialect()))
      for (OpResult res : op.getResults()) {
        auto type = llvm::dyn_cast<RankedTensorType>(res.getType());
        if (!type || !getSpec(type))
          continue;
        MValue &m = env[res];
        if (m.values[0].kind != RValue::Kind::Tensor)
          continue;
        FailureOr<Layout> layout = layoutOf(type, &op);
        if (failed(layout))
          return failure();
        if (m.uniform) {
          RValue &v = m.values[0];
          v.kind = RValue::Kind::Dist;
          v.dist = std::make_shared<DistTensor>(
              DistTensor{v.tensor, getSpec(type), std::move(*layout)});
          continue;
        }
        // Per rank: on a sub-mesh, each group computes its own logical
        // value, which its ranks must agree on.
        const Groups &groups = groupsOf(getSpec(type));
        if (groups.size() == 1)
          return op.emitOpError()
                 << "produced a distributed value that differs across ranks "
                    "in the global view";
        for (const std::vector<int64_t> &group : groups) {
          const Tensor &first = m.values[group.front()].tensor;
          for (int64_t r : group) {
            const Tensor &t = m.values[r].tensor;
            if (!t.sameContents(first))
              return op.emitOpError()
                     << "produced a distributed value that differs across "
                        "the ranks of one group of its sub-mesh (ranks "
                     << group.front() << " and " << r
                     << ") in the global view";
          }
          RValue v;
          v.kind = RValue::Kind::Dist;
          v.tensor = first;
          v.dist = std::make_shared<DistTensor>(
              DistTensor{first, getSpec(type), *layout});
          for (int64_t r : group)
            m.values[r] = v;
        }
      }
    if (observer)
      observer(&op);
    if (tracing) {
      double us = std::chrono::duration<double, std::micro>(
                      std::chrono::steady_clock::now() - start)
                      .count();
      double at = events.empty()
                      ? 0
                      : events.back().startUs + events.back().durationUs;
      StringRef name = op.getName().getStringRef();
      bool collective = name.starts_with("dtensor.all_") ||
                        name.starts_with("dtensor.reduce_") ||
                        name == "dtensor.broadcast" || name == "dtensor.permute";
      bool perRank = llvm::any_of(op.getResults(), [&](Value v) {
        return !lookup(v).uniform;
      });
      if (!perRank) {
        events.push_back({name.str(), at, us, collective, -1});
      } else {
        // Kernels loop over ranks inside one call: share the time out.
        for (int64_t r = 0; r < numRanks(); ++r)
          events.push_back({name.str(), at + us * r / numRanks(),
                            us / numRanks(), collective, r});
      }
    }
    release(op);
  }
  return block.getParentOp()->emitOpError()
         << "block ended without a return";
}
