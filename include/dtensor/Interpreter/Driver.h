//===- Driver.h - run and verify programs on the interpreter ----*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// What `dtensor-run`, the C API and the Python package share: choosing an
// entry, making its arguments (given tensors, per-rank tensors, or random
// ones from a seed), compiling a program with a pass pipeline, running the
// compiled program on each rank's shards and comparing every output with the
// global original. One implementation, so the three front ends cannot
// disagree on what "verified" means.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_INTERPRETER_DRIVER_H
#define DTENSOR_INTERPRETER_DRIVER_H

#include "dtensor/Interpreter/Interpreter.h"

#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace dtensor {
namespace interp {

/// `2x3`, or `scalar` for rank 0.
std::string shapeText(const Shape &shape);

/// A random tensor of a static type, reproducible from `seed`: floats
/// uniform in [-1, 1), integers in [-8, 8], i1 random bits. std::nullopt
/// with an empty `error` when the type cannot be generated (dynamic shape,
/// unsupported element type), with the reason when it cannot be held.
std::optional<Tensor> generateTensor(RankedTensorType type, unsigned seed,
                                     std::string &error);

/// Whether `t` can be an argument of type `type` (dtype, rank, static
/// sizes); `why` says how it differs.
bool checkTensorType(const Tensor &t, RankedTensorType type, std::string &why);

/// A floating-point tolerance: `|got - want| <= atol + rtol * |want|`.
/// With `scaleAtol`, atol is relative too: times the largest finite
/// |want| of the tensor (at least 1). A sum's rounding error follows the
/// size of its terms, not of its result, so an element that cancels to
/// near zero keeps the absolute error of its neighbours; scaling by the
/// tensor's magnitude accepts that and nothing more.
struct Tolerance {
  double rtol = 0, atol = 0;
  bool scaleAtol = false;
};

/// Where `got` differs from `want` by more than `tol` allows (or in shape,
/// dtype or NaN-ness): the first such element, how many there are, and the
/// largest error among them. std::nullopt when they agree.
std::optional<std::string> compareWithin(const Tensor &got, const Tensor &want,
                                         const Tolerance &tol);

/// The tolerance of --verify (compiled against original, both interpreted):
/// 1e-5 for f32, 1e-12 for f64, 1e-2 for f16, 5e-2 for bf16, exact
/// otherwise; unless setToleranceOverride gave one.
double verifyTolerance(DType dtype);
/// The user's --rtol / --atol for every floating-point comparison (--verify
/// and real targets); NaN leaves the dtype's default.
void setToleranceOverride(double rtol, double atol);
/// A dtype's default tolerance `tol` (rtol = tol, atol = tol scaled by the
/// expected tensor's magnitude) with the user's override applied; an --atol
/// given is used as it is. Exact for non-float dtypes.
Tolerance effectiveTolerance(DType dtype, double tol);

/// The entry to run: `name` when given; otherwise the only public function
/// with a body, or @main. A null op when there is none.
func::FuncOp findEntry(ModuleOp module, llvm::StringRef name = {});

/// Lowers the `dtensor.reshard` ops a partitioned program still holds into
/// the collectives they stand for, so the interpreter can run it.
LogicalResult lowerReshards(ModuleOp module);

/// A clone of `module` compiled with the textual pass pipeline `pipeline`
/// (e.g. `dtensor-compile`), with its reshards lowered. Diagnostics go to
/// the context's handlers; `error` says which stage failed.
FailureOr<OwningOpRef<ModuleOp>> compileModule(ModuleOp module,
                                               llvm::StringRef pipeline,
                                               std::string &error);

/// A value given for one argument of an entry.
struct ArgumentInput {
  /// The global tensor; for a distributed argument, its logical value.
  std::optional<Tensor> global;
  /// Or one tensor per rank (arguments without a spec only).
  std::vector<Tensor> perRank;
  /// Where it came from, for messages (a file name, `argument 2`).
  std::string origin;
};

/// The arguments of `entry` for interpreter `I`: mesh handles implicit,
/// tensors from `inputs` (by argument index) or generated from `seed + i`.
/// `globals` (optional) receives each argument's global tensor when it has
/// one. std::nullopt with `error` set when an input does not fit.
std::optional<std::vector<MValue>>
buildArguments(Interpreter &I, func::FuncOp entry,
               const std::map<unsigned, ArgumentInput> &inputs, unsigned seed,
               std::string &error,
               std::vector<std::optional<Tensor>> *globals = nullptr);

/// The arguments of the compiled entry: each rank's shard of a distributed
/// argument, and of a plain one the compiled `entry` (when given) takes as a
/// shard (its `dtensor.global` type has a spec: auto-sharding chose one);
/// everything else as it is.
std::optional<std::vector<MValue>>
localArguments(Interpreter &compiled, const std::vector<MValue> &args,
               std::string &error, func::FuncOp entry = {});

/// Compares the compiled program's outputs `got` with the original's `want`:
/// every rank's shard where the placements define one (no Partial), and the
/// logical value always. One message per output that differs.
std::vector<std::string> compareOutputs(const Interpreter &compiled,
                                        llvm::StringRef entryName,
                                        const std::vector<MValue> &want,
                                        const std::vector<MValue> &got);

/// One output seen from outside: what each rank holds and, where it is
/// defined, the logical global value.
struct OutputView {
  enum class Kind { Tensor, Int, Float } kind = Kind::Tensor;
  /// Each rank's tensor (a distributed value's local shard).
  std::vector<Tensor> perRank;
  /// The logical global tensor: a distributed value's global, a tensor the
  /// same on every rank, or a local-view result assembled by its
  /// `dtensor.global` spec. Empty when ranks hold different values that no
  /// spec relates.
  std::optional<Tensor> global;
  /// Scalars per rank.
  std::vector<int64_t> ints;
  std::vector<double> floats;
  /// The spec text when the output is distributed (`#dtensor.spec<...>`).
  std::string spec;
  /// Whether every rank holds the same value.
  bool uniform = false;
};

/// Views output `index` of `entry` run on `I` as `result`. A local-view
/// output whose function result has a `dtensor.global` spec is assembled to
/// its global value. std::nullopt with `error` when shards cannot be held or
/// assembled.
std::optional<OutputView> viewOutput(Interpreter &I, func::FuncOp entry,
                                     unsigned index, const MValue &result,
                                     std::string &error);

/// One run of an entry, optionally verified against a compiled program.
struct RunOutcome {
  /// The original program's outputs.
  std::vector<MValue> results;
  /// The compiled program's outputs (with a compiled program).
  std::vector<MValue> compiledResults;
  /// One message per output of the compiled program that differs.
  std::vector<std::string> mismatches;
  /// Collectives of the compiled run when there is one, else of the
  /// original run.
  CommReport report;
};

/// Runs `entry` of `program` with `inputs` (the rest generated from `seed`)
/// and, when `compiled` is given, the same function of it on the arguments'
/// shards, comparing outputs. Interpreter diagnostics go to the context's
/// handlers; `error` says what failed. Mismatches are not a failure: they
/// are listed in the outcome.
LogicalResult runEntry(ModuleOp program, ModuleOp compiled, func::FuncOp entry,
                       const std::map<unsigned, ArgumentInput> &inputs,
                       unsigned seed, RunOutcome &outcome, std::string &error);

} // namespace interp
} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_INTERPRETER_DRIVER_H
