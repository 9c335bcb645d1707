//===- DTensorModule.cpp - dtensor_mlir._core, nanobind over the C API ----===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// The native half of the Python package: thin bindings over the C API
// (include/dtensor-c), so the package shares every rule with the tools and
// is compiled with exceptions and RTTI without mixing them into MLIR's code.
// Every failure raises dtensor_mlir.DTensorError carrying the diagnostics
// (`file:line:col: error: message`); nothing here aborts the process.
// The Python half (dtensor_mlir/__init__.py) gives DTensor's vocabulary.
//
//===----------------------------------------------------------------------===//

#include "dtensor-c/Core.h"
#include "dtensor-c/Dialects.h"
#include "dtensor-c/Interpreter.h"
#include "dtensor-c/Target.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>

#include <string_view>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace {

/// Raised for every error; registered as dtensor_mlir._core.DTensorError.
struct DTensorError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void appendTo(MlirStringRef s, void *userData) {
  static_cast<std::string *>(userData)->append(s.data, s.length);
}

std::string locationText(MlirLocation loc) {
  if (mlirLocationIsAFileLineColRange(loc)) {
    MlirIdentifier file = mlirLocationFileLineColRangeGetFilename(loc);
    MlirStringRef name = mlirIdentifierStr(file);
    return std::string(name.data, name.length) + ":" +
           std::to_string(mlirLocationFileLineColRangeGetStartLine(loc)) + ":" +
           std::to_string(mlirLocationFileLineColRangeGetStartColumn(loc));
  }
  std::string text;
  mlirLocationPrint(loc, appendTo, &text);
  return text;
}

/// An MLIR context with our dialects, collecting diagnostics as text.
struct Context {
  MlirContext ctx;
  std::vector<std::string> diagnostics;

  Context() {
    ctx = mlirContextCreateWithThreading(false);
    MlirDialectRegistry registry = mlirDialectRegistryCreate();
    dtensorRegisterRequiredDialects(registry);
    mlirContextAppendDialectRegistry(ctx, registry);
    mlirDialectRegistryDestroy(registry);
    mlirContextLoadAllAvailableDialects(ctx);
    // The location says where; a diagnostic need not print the whole op.
    dtensorContextSetPrintOpOnDiagnostic(ctx, false);
    mlirContextAttachDiagnosticHandler(ctx, &Context::onDiagnostic, this,
                                       nullptr);
    dtensorRegisterPasses();
  }
  ~Context() { mlirContextDestroy(ctx); }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  static MlirLogicalResult onDiagnostic(MlirDiagnostic d, void *userData) {
    auto *self = static_cast<Context *>(userData);
    const char *severity = "error";
    switch (mlirDiagnosticGetSeverity(d)) {
    case MlirDiagnosticWarning:
      severity = "warning";
      break;
    case MlirDiagnosticNote:
      severity = "note";
      break;
    case MlirDiagnosticRemark:
      severity = "remark";
      break;
    default:
      break;
    }
    std::string text = locationText(mlirDiagnosticGetLocation(d)) + ": " +
                       severity + ": ";
    mlirDiagnosticPrint(d, appendTo, &text);
    for (intptr_t i = 0, e = mlirDiagnosticGetNumNotes(d); i < e; ++i) {
      MlirDiagnostic note = mlirDiagnosticGetNote(d, i);
      text += "\n" + locationText(mlirDiagnosticGetLocation(note)) + ": note: ";
      mlirDiagnosticPrint(note, appendTo, &text);
    }
    self->diagnostics.push_back(std::move(text));
    return mlirLogicalResultSuccess();
  }

  /// Raises DTensorError: the diagnostics collected since the last call,
  /// then `what`.
  [[noreturn]] void fail(const std::string &what) {
    std::string message;
    for (const std::string &d : diagnostics)
      message += d + "\n";
    diagnostics.clear();
    message += what;
    throw DTensorError(message);
  }
};

/// A module and the context it lives in (shared by its compiled clones).
struct Module {
  std::shared_ptr<Context> context;
  MlirModule module;

  Module(std::shared_ptr<Context> c, MlirModule m)
      : context(std::move(c)), module(m) {}
  ~Module() { mlirModuleDestroy(module); }
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  static std::shared_ptr<Module> parse(const std::string &text,
                                       const std::string &name) {
    auto context = std::make_shared<Context>();
    MlirModule m = dtensorParseModule(
        context->ctx, mlirStringRefCreate(text.data(), text.size()),
        mlirStringRefCreate(name.data(), name.size()));
    if (mlirModuleIsNull(m))
      context->fail("cannot parse '" + name + "'");
    context->diagnostics.clear();
    return std::make_shared<Module>(context, m);
  }

  /// A compiled clone: `pipeline` run on a copy.
  std::shared_ptr<Module> compile(const std::string &pipeline) const {
    MlirModule copy = mlirModuleFromOperation(
        mlirOperationClone(mlirModuleGetOperation(module)));
    auto result = std::make_shared<Module>(context, copy);
    std::string error;
    context->diagnostics.clear();
    if (mlirLogicalResultIsFailure(dtensorRunPassPipeline(
            copy, mlirStringRefCreate(pipeline.data(), pipeline.size()),
            appendTo, &error)))
      context->fail(error);
    context->diagnostics.clear();
    return result;
  }

  std::string str() const {
    std::string text;
    mlirOperationPrint(mlirModuleGetOperation(module), appendTo, &text);
    return text;
  }

  /// The compiled program as C++ over the runtime (or CUDA C++).
  std::string toCpp(bool cuda) const {
    std::string text;
    context->diagnostics.clear();
    if (mlirLogicalResultIsFailure(dtensorTranslateToCpp(
            module, cuda ? DTensorCppFlavourCuda : DTensorCppFlavourHost,
            appendTo, &text)))
      context->fail(std::string("the module cannot be emitted as ") +
                    (cuda ? "CUDA C++" : "C++") + " (the diagnostics say where)");
    context->diagnostics.clear();
    return text;
  }
};

//===----------------------------------------------------------------------===//
// Tensors between numpy and the interpreter
//===----------------------------------------------------------------------===//

using Array = nb::ndarray<nb::numpy, nb::c_contig>;

std::string dtypeName(nb::dlpack::dtype dt) {
  using Code = nb::dlpack::dtype_code;
  if (dt.lanes != 1)
    return "";
  if (dt.code == uint8_t(Code::Float))
    return dt.bits == 32 ? "f32" : dt.bits == 64 ? "f64" : dt.bits == 16 ? "f16" : "";
  if (dt.code == uint8_t(Code::Bfloat) && dt.bits == 16)
    return "bf16";
  if (dt.code == uint8_t(Code::Bool) && dt.bits == 8)
    return "i1";
  // numpy has no bfloat16: a uint16 array is bf16 given by its bits.
  if (dt.code == uint8_t(Code::UInt) && dt.bits == 16)
    return "bf16";
  if (dt.code == uint8_t(Code::Int))
    return dt.bits == 8    ? "i8"
           : dt.bits == 16 ? "i16"
           : dt.bits == 32 ? "i32"
           : dt.bits == 64 ? "i64"
                           : "";
  return "";
}

nb::dlpack::dtype dlpackOf(const std::string &name) {
  if (name == "f32")
    return nb::dtype<float>();
  if (name == "f64")
    return nb::dtype<double>();
  if (name == "i1")
    return nb::dtype<bool>();
  if (name == "i8")
    return nb::dtype<int8_t>();
  if (name == "i16")
    return nb::dtype<int16_t>();
  if (name == "i32")
    return nb::dtype<int32_t>();
  if (name == "i64")
    return nb::dtype<int64_t>();
  if (name == "f16")
    return {uint8_t(nb::dlpack::dtype_code::Float), 16, 1};
  return {uint8_t(nb::dlpack::dtype_code::Bfloat), 16, 1};
}

/// A numpy array holding a copy of `view`. numpy has no bfloat16: a bf16
/// tensor comes back widened to float32, which holds every bf16 value
/// exactly (as .npy files hold bf16, docs/Interpreter.md).
nb::object toNumpy(const DTensorTensorView &view) {
  std::vector<size_t> dims(view.shape, view.shape + view.rank);
  if (std::string_view(view.dtype) == "bf16") {
    size_t count = size_t(view.numBytes) / 2;
    auto *wide = new float[count ? count : 1];
    const auto *bits = static_cast<const uint16_t *>(view.data);
    for (size_t i = 0; i < count; ++i) {
      uint32_t w = uint32_t(bits[i]) << 16;
      std::memcpy(&wide[i], &w, 4);
    }
    nb::capsule owner(wide, [](void *p) noexcept { delete[] (float *)p; });
    Array array(wide, dims.size(), dims.data(), owner, nullptr,
                nb::dtype<float>());
    return array.cast();
  }
  size_t bytes = size_t(view.numBytes);
  auto *data = new char[bytes ? bytes : 1];
  if (bytes)
    std::memcpy(data, view.data, bytes);
  nb::capsule owner(data, [](void *p) noexcept { delete[] (char *)p; });
  std::vector<size_t> shape(view.shape, view.shape + view.rank);
  Array array(data, shape.size(), shape.data(), owner, nullptr,
              dlpackOf(view.dtype));
  return array.cast();
}

/// Calls into the C API with a string sink for its error.
struct ErrorSink {
  std::string text;
  MlirStringCallback cb() { return appendTo; }
  void *ud() { return &text; }
};

/// A run of the interpreter, with its results read out.
struct RunResult {
  int64_t ranks = 0;
  /// Per output: per-rank arrays and, where defined, the global array.
  std::vector<std::vector<nb::object>> locals, compiledLocals;
  std::vector<nb::object> globals, compiledGlobals;
  std::vector<std::string> specs, compiledSpecs;
  std::vector<std::string> mismatches;
  std::string report, reportJson;
  bool hasCompiled = false;
};

void readOutputs(DTensorRun run, bool compiled, RunResult &r) {
  intptr_t n = dtensorRunGetNumOutputs(run);
  auto &locals = compiled ? r.compiledLocals : r.locals;
  auto &globals = compiled ? r.compiledGlobals : r.globals;
  auto &specs = compiled ? r.compiledSpecs : r.specs;
  for (intptr_t i = 0; i < n; ++i) {
    std::vector<nb::object> perRank;
    DTensorTensorView view;
    for (int64_t rank = 0; rank < r.ranks; ++rank)
      if (mlirLogicalResultIsSuccess(
              dtensorRunGetOutput(run, i, rank, compiled, &view)))
        perRank.push_back(toNumpy(view));
      else
        perRank.push_back(nb::none());
    locals.push_back(std::move(perRank));
    globals.push_back(mlirLogicalResultIsSuccess(
                          dtensorRunGetOutput(run, i, -1, compiled, &view))
                          ? toNumpy(view)
                          : nb::none());
    std::string spec;
    dtensorRunPrintOutputSpec(run, i, compiled, appendTo, &spec);
    specs.push_back(spec);
  }
}

RunResult runModule(const std::shared_ptr<Module> &program,
                    const std::shared_ptr<Module> &compiled,
                    const std::string &entry,
                    const std::map<int64_t, Array> &inputs,
                    const std::map<int64_t, std::vector<Array>> &rankInputs,
                    unsigned seed) {
  if (compiled && compiled->context != program->context)
    throw DTensorError("the compiled module must come from the program's "
                       "compile()");
  Context &ctx = *program->context;
  ctx.diagnostics.clear();
  ErrorSink err;
  DTensorRun run = dtensorRunCreate(
      program->module, compiled ? compiled->module : MlirModule{nullptr},
      mlirStringRefCreate(entry.data(), entry.size()), err.cb(), err.ud());
  if (dtensorRunIsNull(run))
    ctx.fail(err.text);
  std::unique_ptr<void, void (*)(void *)> guard(
      run.ptr, [](void *p) { dtensorRunDestroy(DTensorRun{p}); });
  auto setOne = [&](int64_t index, int64_t rank, const Array &a) {
    std::string dt = dtypeName(a.dtype());
    if (dt.empty())
      throw DTensorError("input " + std::to_string(index) +
                         ": unsupported numpy dtype (use float32, float64, "
                         "float16, bool, int8/16/32/64, or uint16 for bf16 "
                         "bits)");
    std::vector<int64_t> shape;
    for (size_t d = 0; d < a.ndim(); ++d)
      shape.push_back(int64_t(a.shape(d)));
    MlirStringRef dtype = mlirStringRefCreate(dt.data(), dt.size());
    MlirLogicalResult ok =
        rank < 0 ? dtensorRunSetInput(run, index, dtype, shape.data(),
                                      intptr_t(shape.size()), a.data(),
                                      err.cb(), err.ud())
                 : dtensorRunSetRankInput(run, index, rank, dtype, shape.data(),
                                          intptr_t(shape.size()), a.data(),
                                          err.cb(), err.ud());
    if (mlirLogicalResultIsFailure(ok))
      ctx.fail(err.text);
  };
  for (const auto &[index, a] : inputs)
    setOne(index, -1, a);
  for (const auto &[index, arrays] : rankInputs)
    for (size_t r = 0; r < arrays.size(); ++r)
      setOne(index, int64_t(r), arrays[r]);
  if (mlirLogicalResultIsFailure(
          dtensorRunExecute(run, seed, err.cb(), err.ud())))
    ctx.fail(err.text);
  ctx.diagnostics.clear();
  RunResult r;
  r.ranks = dtensorRunGetNumRanks(run);
  r.hasCompiled = bool(compiled);
  readOutputs(run, false, r);
  if (compiled)
    readOutputs(run, true, r);
  for (intptr_t i = 0, e = dtensorRunGetNumMismatches(run); i < e; ++i) {
    std::string m;
    dtensorRunGetMismatch(run, i, appendTo, &m);
    r.mismatches.push_back(m);
  }
  dtensorRunPrintReport(run, false, appendTo, &r.report);
  dtensorRunPrintReport(run, true, appendTo, &r.reportJson);
  return r;
}

//===----------------------------------------------------------------------===//
// The semantic core
//===----------------------------------------------------------------------===//

std::vector<DTensorPlacement> parsePlacements(const std::string &text,
                                              size_t meshRank) {
  std::vector<DTensorPlacement> out(std::max<size_t>(meshRank, 16));
  intptr_t count = 0;
  ErrorSink err;
  if (mlirLogicalResultIsFailure(dtensorParsePlacements(
          mlirStringRefCreate(text.data(), text.size()), out.data(),
          intptr_t(out.size()), &count, err.cb(), err.ud())))
    throw DTensorError("placements '" + text + "': " + err.text);
  if (size_t(count) != meshRank)
    throw DTensorError("placements '" + text + "' give " +
                       std::to_string(count) + " placement(s) for a " +
                       std::to_string(meshRank) + "-D mesh");
  out.resize(count);
  return out;
}

std::pair<std::vector<int64_t>, std::vector<int64_t>>
localShard(const std::vector<int64_t> &mesh, const std::vector<int64_t> &shape,
           const std::string &placements, int64_t rank) {
  std::vector<DTensorPlacement> ps = parsePlacements(placements, mesh.size());
  std::vector<int64_t> local(shape.size()), offset(shape.size());
  ErrorSink err;
  if (mlirLogicalResultIsFailure(dtensorLocalShard(
          mesh.data(), intptr_t(mesh.size()), shape.data(),
          intptr_t(shape.size()), ps.data(), rank, local.data(), offset.data(),
          err.cb(), err.ud())))
    throw DTensorError(err.text);
  return {local, offset};
}

nb::dict planRedistribute(const std::vector<int64_t> &mesh,
                          const std::vector<int64_t> &shape,
                          int64_t elementBytes, const std::string &from,
                          const std::string &to, int64_t devicesPerHost) {
  std::vector<DTensorPlacement> a = parsePlacements(from, mesh.size());
  std::vector<DTensorPlacement> b = parsePlacements(to, mesh.size());
  ErrorSink err;
  DTensorPlan plan = dtensorPlanRedistribute(
      mesh.data(), intptr_t(mesh.size()), shape.data(), intptr_t(shape.size()),
      elementBytes, a.data(), b.data(), devicesPerHost, err.cb(), err.ud());
  if (dtensorPlanIsNull(plan))
    throw DTensorError(err.text);
  static const char *reduces[] = {"sum", "avg", "max", "min", "product"};
  nb::list steps;
  for (intptr_t i = 0, e = dtensorPlanGetNumSteps(plan); i < e; ++i) {
    DTensorPlanStep s = dtensorPlanGetStep(plan, i);
    std::string before, after;
    dtensorPlanPrintStepStates(plan, i, appendTo, nullptr, &before);
    dtensorPlanPrintStepStates(plan, i, nullptr, appendTo, &after);
    nb::dict step;
    step["kind"] = std::string(s.kind);
    step["mesh_dims"] =
        std::vector<int64_t>(s.meshDims, s.meshDims + s.numMeshDims);
    step["from_dim"] = s.fromDim;
    step["to_dim"] = s.toDim;
    step["reduce"] = std::string(reduces[int(s.reduce) % 5]);
    step["bytes_per_rank"] = s.bytesPerRank;
    step["time_us"] = s.timeUs;
    step["before"] = before;
    step["after"] = after;
    steps.append(step);
  }
  nb::dict out;
  out["steps"] = steps;
  out["num_collectives"] = dtensorPlanGetNumCollectives(plan);
  out["bytes_per_rank"] = dtensorPlanGetBytesPerRank(plan);
  out["time_us"] = dtensorPlanGetTimeUs(plan);
  out["optimal"] = dtensorPlanIsOptimal(plan);
  dtensorPlanDestroy(plan);
  return out;
}

} // namespace

NB_MODULE(_core, m) {
  m.doc() = "dtensor-mlir's native bindings (use the dtensor_mlir package)";
  // Modules kept in Python globals may outlive the interpreter's teardown:
  // that is not a leak of ours.
  nb::set_leak_warnings(false);
  nb::exception<DTensorError>(m, "DTensorError");

  nb::class_<Module>(m, "Module")
      .def_static("parse", &Module::parse, nb::arg("text"),
                  nb::arg("name") = "<string>",
                  "Parses a module; raises DTensorError with the diagnostics.")
      .def("compile", &Module::compile, nb::arg("pipeline"),
           "A copy compiled with a textual pass pipeline.")
      .def("to_cpp", &Module::toCpp, nb::arg("cuda") = false,
           "The compiled program as C++ over the runtime (CUDA C++ with "
           "cuda=True), as dtensor-translate --dtensor-to-cpp writes it.")
      .def("__str__", &Module::str);

  nb::class_<RunResult>(m, "RunResult")
      .def_ro("ranks", &RunResult::ranks)
      .def_ro("locals", &RunResult::locals)
      .def_ro("globals", &RunResult::globals)
      .def_ro("specs", &RunResult::specs)
      .def_ro("compiled_locals", &RunResult::compiledLocals)
      .def_ro("compiled_globals", &RunResult::compiledGlobals)
      .def_ro("compiled_specs", &RunResult::compiledSpecs)
      .def_ro("has_compiled", &RunResult::hasCompiled)
      .def_ro("mismatches", &RunResult::mismatches)
      .def_ro("report_text", &RunResult::report)
      .def_ro("report_json", &RunResult::reportJson);

  m.def("run", &runModule, nb::arg("program"), nb::arg("compiled").none(),
        nb::arg("entry"), nb::arg("inputs"), nb::arg("rank_inputs"),
        nb::arg("seed"));
  m.def("local_shard", &localShard, nb::arg("mesh"), nb::arg("shape"),
        nb::arg("placements"), nb::arg("rank"));
  m.def("plan_redistribute", &planRedistribute, nb::arg("mesh"),
        nb::arg("shape"), nb::arg("element_bytes"), nb::arg("src"),
        nb::arg("dst"), nb::arg("devices_per_host"));
}
