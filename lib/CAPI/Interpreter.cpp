//===- Interpreter.cpp - C API: run and verify programs -------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor-c/Interpreter.h"
#include "dtensor/Interpreter/Driver.h"
#include "dtensor/Dialect/DTensor/IR/DTensor.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

#include <cstring>

using namespace mlir;
using namespace mlir::dtensor;
using namespace mlir::dtensor::interp;

namespace {

struct RunState {
  ModuleOp program, compiled;
  /// Copies of the given modules where their dtensor.reshard ops had to be
  /// lowered (a run leaves the caller's modules as they are).
  OwningOpRef<ModuleOp> ownProgram, ownCompiled;
  func::FuncOp entry;
  int64_t ranks = 0;
  std::map<unsigned, ArgumentInput> inputs;
  /// Per-rank inputs as they are given, by argument.
  std::map<unsigned, std::vector<std::optional<Tensor>>> rankInputs;
  bool executed = false;
  RunOutcome outcome;
  std::vector<OutputView> views, compiledViews;
};

RunState *unwrap(DTensorRun run) { return static_cast<RunState *>(run.ptr); }

void report(MlirStringCallback error, void *userData,
            const std::string &message) {
  if (error)
    error(mlirStringRefCreate(message.data(), message.size()), userData);
}

std::optional<DType> parseDType(llvm::StringRef name) {
  for (DType d : {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I1,
                  DType::I8, DType::I16, DType::I32, DType::I64})
    if (name == stringifyDType(d))
      return d;
  return std::nullopt;
}

std::optional<Tensor> makeTensor(MlirStringRef dtype, const int64_t *shape,
                                 intptr_t rank, const void *data,
                                 std::string &error) {
  std::optional<DType> dt = parseDType(unwrap(dtype));
  if (!dt) {
    error = "unknown dtype '" + unwrap(dtype).str() + "'";
    return std::nullopt;
  }
  if (rank < 0 || (rank > 0 && !shape)) {
    error = "no shape given";
    return std::nullopt;
  }
  Shape s(shape, shape + rank);
  std::optional<Tensor> t = Tensor::create(*dt, s, error);
  if (!t)
    return std::nullopt;
  if (t->numBytes() > 0) {
    if (!data) {
      error = "no data given";
      return std::nullopt;
    }
    std::memcpy(t->mutableBytes(), data, t->numBytes());
    t->normalizeBools();
  }
  return t;
}

bool viewOf(const Tensor &t, DTensorTensorView *view) {
  if (!view)
    return false;
  view->dtype = stringifyDType(t.dtype());
  view->rank = t.rank();
  view->shape = t.shape().data();
  view->data = t.bytes();
  view->numBytes = t.numBytes();
  return true;
}

} // namespace

DTensorRun dtensorRunCreate(MlirModule program, MlirModule compiled,
                            MlirStringRef entry, MlirStringCallback error,
                            void *userData) {
  if (mlirModuleIsNull(program)) {
    report(error, userData, "no program given");
    return {nullptr};
  }
  auto state = std::make_unique<RunState>();
  // The interpreter runs reshards lowered: on a copy, where there are any.
  auto runnable = [&](ModuleOp m, OwningOpRef<ModuleOp> &own) -> ModuleOp {
    bool reshards = m.walk([](dtensor::ReshardOp) {
                       return WalkResult::interrupt();
                     }).wasInterrupted();
    if (!reshards)
      return m;
    own = m.clone();
    return *own;
  };
  state->program = runnable(unwrap(program), state->ownProgram);
  state->compiled = mlirModuleIsNull(compiled)
                        ? ModuleOp()
                        : runnable(unwrap(compiled), state->ownCompiled);
  llvm::StringRef name = unwrap(entry);
  state->entry = findEntry(state->program, name);
  if (!state->entry) {
    report(error, userData,
           name.empty() ? "no entry function: name one"
                        : "no function @" + name.str() + " with a body");
    return {nullptr};
  }
  if (failed(lowerReshards(state->program)) ||
      (state->compiled && failed(lowerReshards(state->compiled)))) {
    report(error, userData, "lowering dtensor.reshard ops failed");
    return {nullptr};
  }
  Interpreter sizing(state->program);
  state->ranks = sizing.numRanks();
  return {state.release()};
}

void dtensorRunDestroy(DTensorRun run) { delete unwrap(run); }

int64_t dtensorRunGetNumRanks(DTensorRun run) {
  return run.ptr ? unwrap(run)->ranks : 0;
}

/// Whether argument `index` of the run's entry takes an input: it exists
/// and is no mesh handle (reported otherwise).
static bool takesInput(RunState *s, intptr_t index, MlirStringCallback error,
                       void *userData) {
  if (!s || index < 0 || index >= intptr_t(s->entry.getNumArguments())) {
    report(error, userData,
           "input " + std::to_string(index) + ": no such argument");
    return false;
  }
  if (llvm::isa<dtensor::DeviceMeshType>(
          s->entry.getArgument(unsigned(index)).getType())) {
    report(error, userData,
           "input " + std::to_string(index) +
               ": the argument is a mesh handle, which takes no input");
    return false;
  }
  return true;
}

MlirLogicalResult dtensorRunSetInput(DTensorRun run, intptr_t index,
                                     MlirStringRef dtype, const int64_t *shape,
                                     intptr_t rank, const void *data,
                                     MlirStringCallback error,
                                     void *userData) {
  RunState *s = unwrap(run);
  std::string why;
  if (!takesInput(s, index, error, userData))
    return mlirLogicalResultFailure();
  std::optional<Tensor> t = makeTensor(dtype, shape, rank, data, why);
  if (!t) {
    report(error, userData, "input " + std::to_string(index) + ": " + why);
    return mlirLogicalResultFailure();
  }
  s->rankInputs.erase(unsigned(index));
  ArgumentInput &in = s->inputs[unsigned(index)];
  in = ArgumentInput();
  in.global = std::move(*t);
  return mlirLogicalResultSuccess();
}

MlirLogicalResult dtensorRunSetRankInput(DTensorRun run, intptr_t index,
                                         int64_t deviceRank,
                                         MlirStringRef dtype,
                                         const int64_t *shape, intptr_t rank,
                                         const void *data,
                                         MlirStringCallback error,
                                         void *userData) {
  RunState *s = unwrap(run);
  std::string why;
  if (!takesInput(s, index, error, userData))
    return mlirLogicalResultFailure();
  if (deviceRank < 0 || deviceRank >= s->ranks) {
    report(error, userData,
           "input " + std::to_string(index) + ": rank " +
               std::to_string(deviceRank) + " is not in [0, " +
               std::to_string(s->ranks) + ")");
    return mlirLogicalResultFailure();
  }
  std::optional<Tensor> t = makeTensor(dtype, shape, rank, data, why);
  if (!t) {
    report(error, userData, "input " + std::to_string(index) + ": " + why);
    return mlirLogicalResultFailure();
  }
  s->inputs.erase(unsigned(index));
  auto &slots = s->rankInputs[unsigned(index)];
  slots.resize(s->ranks);
  slots[deviceRank] = std::move(*t);
  return mlirLogicalResultSuccess();
}

MlirLogicalResult dtensorRunExecute(DTensorRun run, unsigned seed,
                                    MlirStringCallback error, void *userData) {
  RunState *s = unwrap(run);
  if (!s) {
    report(error, userData, "no run");
    return mlirLogicalResultFailure();
  }
  std::map<unsigned, ArgumentInput> inputs = s->inputs;
  for (auto &[index, slots] : s->rankInputs) {
    ArgumentInput &in = inputs[index];
    for (size_t r = 0; r < slots.size(); ++r) {
      if (!slots[r]) {
        report(error, userData,
               "input " + std::to_string(index) + ": rank " +
                   std::to_string(r) + " was given no tensor");
        return mlirLogicalResultFailure();
      }
      in.perRank.push_back(*slots[r]);
    }
  }
  s->executed = false;
  s->outcome = RunOutcome();
  s->views.clear();
  s->compiledViews.clear();
  std::string why;
  if (failed(runEntry(s->program, s->compiled, s->entry, inputs, seed,
                      s->outcome, why))) {
    report(error, userData, why);
    return mlirLogicalResultFailure();
  }
  auto viewAll = [&](ModuleOp module, const std::vector<MValue> &results,
                     std::vector<OutputView> &views) {
    Interpreter I(module);
    func::FuncOp fn = module.lookupSymbol<func::FuncOp>(s->entry.getName());
    for (auto [i, m] : llvm::enumerate(results)) {
      std::optional<OutputView> v = viewOutput(I, fn, i, m, why);
      if (!v)
        return false;
      views.push_back(std::move(*v));
    }
    return true;
  };
  if (!viewAll(s->program, s->outcome.results, s->views) ||
      (s->compiled &&
       !viewAll(s->compiled, s->outcome.compiledResults, s->compiledViews))) {
    report(error, userData, why);
    return mlirLogicalResultFailure();
  }
  s->executed = true;
  return mlirLogicalResultSuccess();
}

intptr_t dtensorRunGetNumOutputs(DTensorRun run) {
  RunState *s = unwrap(run);
  return s && s->executed ? intptr_t(s->views.size()) : 0;
}

MlirLogicalResult dtensorRunGetOutput(DTensorRun run, intptr_t index,
                                      int64_t deviceRank, bool compiled,
                                      DTensorTensorView *view) {
  RunState *s = unwrap(run);
  if (!s || !s->executed || (compiled && !s->compiled))
    return mlirLogicalResultFailure();
  const std::vector<OutputView> &views = compiled ? s->compiledViews : s->views;
  if (index < 0 || index >= intptr_t(views.size()))
    return mlirLogicalResultFailure();
  const OutputView &v = views[index];
  if (v.kind != OutputView::Kind::Tensor && v.perRank.empty())
    return mlirLogicalResultFailure(); // (a scalar of no tensor type)
  if (deviceRank == -1)
    return v.global && viewOf(*v.global, view) ? mlirLogicalResultSuccess()
                                               : mlirLogicalResultFailure();
  if (deviceRank < 0 || deviceRank >= intptr_t(v.perRank.size()))
    return mlirLogicalResultFailure();
  return viewOf(v.perRank[deviceRank], view) ? mlirLogicalResultSuccess()
                                             : mlirLogicalResultFailure();
}

intptr_t dtensorRunGetNumMismatches(DTensorRun run) {
  RunState *s = unwrap(run);
  return s ? intptr_t(s->outcome.mismatches.size()) : 0;
}

void dtensorRunGetMismatch(DTensorRun run, intptr_t index,
                           MlirStringCallback callback, void *userData) {
  RunState *s = unwrap(run);
  if (!s || !callback || index < 0 ||
      index >= intptr_t(s->outcome.mismatches.size()))
    return;
  const std::string &m = s->outcome.mismatches[index];
  callback(mlirStringRefCreate(m.data(), m.size()), userData);
}

void dtensorRunPrintReport(DTensorRun run, bool json,
                           MlirStringCallback callback, void *userData) {
  RunState *s = unwrap(run);
  if (!s || !callback)
    return;
  std::string text;
  llvm::raw_string_ostream os(text);
  if (json)
    s->outcome.report.printJson(os);
  else
    s->outcome.report.print(os);
  callback(mlirStringRefCreate(text.data(), text.size()), userData);
}

void dtensorRunPrintOutputSpec(DTensorRun run, intptr_t index, bool compiled,
                               MlirStringCallback callback, void *userData) {
  RunState *s = unwrap(run);
  if (!s || !callback || !s->executed || (compiled && !s->compiled))
    return;
  const std::vector<OutputView> &views = compiled ? s->compiledViews : s->views;
  if (index < 0 || index >= intptr_t(views.size()) || views[index].spec.empty())
    return;
  const std::string &spec = views[index].spec;
  callback(mlirStringRefCreate(spec.data(), spec.size()), userData);
}
