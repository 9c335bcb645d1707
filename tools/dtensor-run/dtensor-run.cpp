//===- dtensor-run.cpp - run dtensor programs on simulated ranks ----------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
//   dtensor-run prog.mlir [--entry f] [--input 1=x.npy] [--seed 7]
//               [--verify [--pipeline 'dtensor-partition,canonicalize']]
//               [--report | --report-json] [--output-dir out] [--trace t.json]
//
// Runs a function for every rank of the module's mesh in one process. With
// --verify, also compiles the program (the pass pipeline) and runs the
// compiled form on the same inputs, comparing every output.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "dtensor/InitAll.h"
#include "dtensor/Support/InputScreen.h"
#include "dtensor/Interpreter/Driver.h"
#include "dtensor/Support/ToolOptions.h"
#include "dtensor/Target/Cpp.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
#include <cmath>
#include <functional>
#include <random>
#include <unistd.h>

extern char **environ;

using namespace mlir;
using namespace mlir::dtensor;
using namespace mlir::dtensor::interp;
namespace cl = llvm::cl;

/// Our options: the only ones --help lists besides MLIR's and the generic
/// ones (hideLibraryOptions).
static cl::OptionCategory runCategory("dtensor-run options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::cat(runCategory), cl::desc("<program.mlir>"),
                                      cl::init("-"));
static cl::opt<std::string>
    entryName("entry", cl::cat(runCategory), cl::desc("Function to run (default: the only public "
                                "function with a body, or @main)"));
static cl::list<std::string> inputs(
    "input",
    cl::cat(runCategory), cl::desc("Argument N from a .npy file: N=path.npy (a global tensor, or "
             "the same tensor on every rank); a path containing {rank} gives "
             "one file per rank"),
    cl::value_desc("N=path"));
static cl::opt<unsigned>
    seed("seed", cl::cat(runCategory), cl::desc("Seed of generated inputs (default 0)"), cl::init(0));
static cl::opt<bool> verify(
    "verify",
    cl::cat(runCategory), cl::desc("Compile with --pipeline and check the compiled program against "
             "the original on the same inputs"));
static cl::opt<std::string> pipeline(
    "pipeline",
    cl::cat(runCategory), cl::desc("Passes that compile the program for --verify (default: "
             "dtensor-normalize-specs,dtensor-partition,"
             "dtensor-lower-redistribute,canonicalize,cse, for programs "
             "whose every tensor has a layout; when that fails, "
             "dtensor-compile, with a note)"),
    cl::init("dtensor-normalize-specs,dtensor-partition,"
             "dtensor-lower-redistribute,canonicalize,cse"));
static cl::opt<bool> report("report",
                            cl::cat(runCategory), cl::desc("Print the collectives that ran"));
static cl::opt<bool> reportJson(
    "report-json", cl::cat(runCategory), cl::desc("Print the collectives that ran as JSON"));
static cl::opt<std::string>
    outputDir("output-dir", cl::cat(runCategory), cl::desc("Write every output as .npy here"));
static cl::opt<std::string>
    traceFile("trace", cl::cat(runCategory), cl::desc("Write a Chrome trace (JSON) of the run"));
static cl::opt<bool> quiet("quiet", cl::cat(runCategory), cl::desc("Print no output summaries"));
static cl::opt<std::string> compiledFile(
    "compiled",
    cl::cat(runCategory), cl::desc("With --verify: check this already compiled program (any "
             "pipeline stage) instead of compiling with --pipeline"),
    cl::value_desc("file.mlir"));
static cl::opt<bool> allEntries(
    "all-entries",
    cl::cat(runCategory), cl::desc("Run (and with --verify, check) every public function with a "
             "body, one after another"));
static cl::opt<bool> printValues(
    "print-values",
    cl::cat(runCategory), cl::desc("Print the values of every output (on every rank where they "
             "differ)"));
static cl::list<unsigned> reconcileOutputs(
    "reconcile",
    cl::cat(runCategory), cl::desc("Outputs (by index) that must be the same on all ranks "
             "(LocalTensor's reconcile): checked, and printed once"),
    cl::CommaSeparated, cl::value_desc("N,M,..."));
static cl::opt<unsigned> timeRuns(
    "time",
    cl::cat(runCategory), cl::desc("Run the entry N times and print the fastest wall time of one "
             "run (interpretation only, no parsing or input loading)"),
    cl::init(0), cl::value_desc("N"));
static cl::list<unsigned> showLines(
    "show",
    cl::cat(runCategory), cl::desc("Print the values of the ops on these source lines, on every "
             "rank, as they are computed"),
    cl::CommaSeparated, cl::value_desc("line,..."));
static cl::opt<bool> printCompiled(
    "print-compiled", cl::cat(runCategory), cl::desc("Print the compiled program of --verify"));
static cl::opt<bool> reportMemory(
    "report-memory",
    cl::cat(runCategory), cl::desc("Print the most bytes of tensors alive at once during the "
             "runs (every rank's values, inputs and outputs included)"));
static cl::opt<std::string> maxTensorBytes(
    "max-tensor-bytes",
    cl::cat(runCategory), cl::desc("The most bytes one tensor (an input, a result, any rank's "
             "value) may take; a larger one is an error naming it. A count, "
             "or with a K, M, G or T suffix (powers of 1024). Default: 8G, "
             "or half the physical memory when that is less"),
    cl::value_desc("bytes"));
static cl::opt<int64_t> maxLoopIterations(
    "max-loop-iterations",
    cl::cat(runCategory), cl::desc("The most iterations one execution of an scf.for or scf.while "
             "may run on the interpreter; more is an error at the loop (a "
             "bound for loops that may not end on the inputs given). "
             "Default 0: no limit"),
    cl::init(0), cl::value_desc("N"));
static cl::opt<unsigned> rankThreads(
    "rank-threads",
    cl::cat(runCategory), cl::desc("Threads that run the simulated ranks of an op at once, each "
             "BLAS call single-threaded (1: one rank after another; "
             "default 0: the machine's hardware threads)"),
    cl::init(0), cl::value_desc("N"));

static cl::opt<std::string> target(
    "target",
    cl::cat(runCategory), cl::desc("With --verify: also run the compiled program for real. 'mpi': "
             "emit it as C++ (dtensor-translate --dtensor-to-cpp), build it "
             "(dtensor-build) and run it as an mpirun job with one process "
             "per rank on the same inputs; every rank's outputs are compared "
             "with the interpreter's. 'cuda' (NCCL, one GPU per rank) and "
             "'cuda-mpi' (MPI staged through host memory; ranks may share a "
             "GPU): the same with --dtensor-to-cuda, on GPUs. DTENSOR_MPIRUN "
             "names the launcher, DTENSOR_MPIRUN_FLAGS replaces its flags"),
    cl::value_desc("interp|mpi|cuda|cuda-mpi"), cl::init("interp"));
static cl::opt<double> rtolOption(
    "rtol",
    cl::cat(runCategory), cl::desc("Relative tolerance of every floating-point comparison (--verify "
             "and --target): |got - want| <= atol + rtol * |want|. Default: "
             "per dtype (f32 1e-5, f64 1e-12, f16 1e-2, bf16 5e-2; real "
             "targets f32 1e-4, f64 1e-10)"),
    cl::init(NAN));
static cl::opt<double> atolOption(
    "atol",
    cl::cat(runCategory), cl::desc("Absolute tolerance of every floating-point comparison, used as "
             "given (default: the dtype's rtol times the largest |expected| "
             "of the tensor, at least 1: a sum's rounding error follows its "
             "terms, so an element that cancels near zero keeps it)"),
    cl::init(NAN));
static cl::opt<std::string> keepTargetDir(
    "keep-target-dir",
    cl::cat(runCategory), cl::desc("With --target=mpi/cuda/cuda-mpi: build and run in this "
             "directory and keep "
             "it (default: a temporary directory, removed afterwards)"),
    cl::value_desc("dir"));

/// Whether --target runs the compiled program for real (not the
/// interpreter only).
static bool realTarget() {
  return target == "mpi" || target == "cuda" || target == "cuda-mpi";
}

static int fail(const llvm::Twine &message) {
  llvm::outs().flush();
  llvm::WithColor::error(llvm::errs(), "dtensor-run") << message << "\n";
  return 1;
}

/// Parses --max-tensor-bytes: `1000`, `64K`, `8G` (powers of 1024).
static std::optional<int64_t> parseByteCount(llvm::StringRef text) {
  int64_t scale = 1;
  char last = text.empty() ? 0 : llvm::toUpper(text.back());
  if (last == 'K' || last == 'M' || last == 'G' || last == 'T') {
    scale = int64_t(1) << (last == 'K' ? 10 : last == 'M' ? 20
                                              : last == 'G' ? 30 : 40);
    text = text.drop_back();
  }
  int64_t count;
  if (text.getAsInteger(10, count) || count < 0)
    return std::nullopt;
  return llvm::checkedMul(count, scale);
}

/// A real run against the interpreter: the interpreter computes float ops in
/// double and BLAS sums in another order, so f32 gets 1e-4 relative (plus
/// absolute), f16 and bf16 a few units in their last place (the runtime
/// accumulates matmuls in float, the interpreter in double); integers are
/// exact.
static std::optional<std::string> compareTarget(const Tensor &got,
                                                const Tensor &want) {
  // A bf16 result is written to .npy widened to f32 (numpy has no bf16),
  // which holds every bf16 value exactly.
  if (want.dtype() == DType::BF16 && got.dtype() == DType::F32) {
    Tolerance tol = effectiveTolerance(DType::BF16, 5e-2);
    std::string error;
    std::optional<Tensor> wide = Tensor::create(DType::F32, want.shape(), error);
    if (!wide)
      return error;
    for (int64_t i = 0; i < want.numElements(); ++i)
      wide->mutableData<float>()[i] = float(want.at(i));
    return compareWithin(got, *wide, tol);
  }
  double tol = 0;
  switch (got.dtype()) {
  case DType::F32: tol = 1e-4; break;
  case DType::F64: tol = 1e-10; break;
  case DType::F16: tol = 1e-2; break;
  case DType::BF16: tol = 5e-2; break;
  default: break;
  }
  return compareWithin(got, want, effectiveTolerance(got.dtype(), tol));
}

/// `[[1, 2], [3, 4]]`; `[]` for an empty tensor (as numpy prints it: its
/// other dims may be huge).
static void printValuesOf(llvm::raw_ostream &os, const Tensor &t) {
  if (t.numElements() == 0) {
    os << "[]\n";
    return;
  }
  Shape strides(t.rank(), 1);
  for (int64_t d = t.rank() - 1; d > 0; --d)
    strides[d - 1] = strides[d] * t.shape()[d];
  std::function<void(int64_t, int64_t)> rec = [&](int64_t dim, int64_t base) {
    if (dim == t.rank()) {
      // Integers exactly (an i64 above 2^53 has no double).
      if (isFloat(t.dtype()))
        os << llvm::format("%g", t.at(base));
      else
        dispatch(t.dtype(), [&](auto v) {
          using T = decltype(v);
          if constexpr (std::is_integral_v<T>)
            os << int64_t(t.data<T>()[base]);
        });
      return;
    }
    os << "[";
    for (int64_t i = 0; i < t.shape()[dim]; ++i) {
      if (i)
        os << ", ";
      rec(dim + 1, base + i * strides[dim]);
    }
    os << "]";
  };
  rec(0, 0);
  os << "\n";
}

static bool summarize(llvm::raw_ostream &os, const std::string &label,
                      std::optional<size_t> index, const MValue &m,
                      Interpreter &I) {
  auto stats = [](const Tensor &t) {
    double sum = 0;
    for (int64_t i = 0; i < t.numElements(); ++i)
      sum += t.at(i);
    std::string s;
    llvm::raw_string_ostream o(s);
    o << shapeText(t.shape()) << " " << stringifyDType(t.dtype())
      << " sum=" << llvm::format("%.6g", sum);
    return s;
  };
  bool ok = true;
  const RValue &first = m.on(0);
  if (first.kind == RValue::Kind::Dist) {
    os << label << ": distributed "
       << formatPlacements(first.dist->layout.placements()) << ", global "
       << stats(first.dist->global) << "\n";
    if (printValues)
      printValuesOf(os, first.dist->global);
    return true;
  }
  if (first.kind == RValue::Kind::Int || first.kind == RValue::Kind::Float) {
    os << label << ": ";
    for (int64_t r = 0; r < (m.uniform ? 1 : I.numRanks()); ++r) {
      const RValue &v = m.on(r);
      if (!m.uniform)
        os << (r ? ", " : "") << "rank " << r << " ";
      if (v.kind == RValue::Kind::Int)
        os << v.i;
      else
        os << llvm::format("%g", v.f);
    }
    os << "\n";
    return true;
  }
  bool reconcile =
      index && llvm::is_contained(reconcileOutputs, unsigned(*index));
  bool agree = m.uniform;
  if (!agree && reconcile) {
    agree = true;
    for (int64_t r = 1; r < I.numRanks() && agree; ++r)
      agree = m.on(r).tensor.sameContents(first.tensor);
  }
  if (agree) {
    os << label << ": "
       << (m.uniform ? "same on every rank, " : "reconciled, ")
       << stats(first.tensor) << "\n";
    if (printValues)
      printValuesOf(os, first.tensor);
    return true;
  }

  os << label << ": per rank\n";
  for (int64_t r = 0; r < I.numRanks(); ++r) {
    os << "  rank " << r << ": " << stats(m.on(r).tensor) << "\n";
    if (printValues) {
      os << "    ";
      printValuesOf(os, m.on(r).tensor);
    }
  }
  if (reconcile) {
    os << label << ": cannot reconcile: ranks hold different values\n";
    ok = false;
  }
  return ok;
}

static bool writeOutputs(const std::vector<MValue> &results, Interpreter &I,
                         std::string &error) {
  llvm::sys::fs::create_directories(outputDir);
  for (size_t i = 0; i < results.size(); ++i) {
    const MValue &m = results[i];
    std::string base = outputDir + "/out" + std::to_string(i);
    if (m.on(0).kind == RValue::Kind::Dist) {
      const DistTensor &d = *m.on(0).dist;
      // One global tensor when every group holds the same (always on a
      // whole mesh); the shards of every rank in any case.
      if (m.uniform && !writeNpy(base + ".npy", d.global, error))
        return false;
      std::optional<MValue> shards = I.shardsOfDist(m, error);
      if (!shards) {
        error = "output " + std::to_string(i) + ": cannot hold " + error;
        return false;
      }
      for (int64_t r = 0; r < I.numRanks(); ++r)
        if (!writeNpy(base + ".rank" + std::to_string(r) + ".npy",
                      shards->on(r).tensor, error))
          return false;
    } else if (m.uniform) {
      if (!writeNpy(base + ".npy", m.on(0).tensor, error))
        return false;
    } else {
      for (int64_t r = 0; r < I.numRanks(); ++r)
        if (!writeNpy(base + ".rank" + std::to_string(r) + ".npy",
                      m.on(r).tensor, error))
          return false;
    }
  }
  return true;
}

/// Runs `program` with `args`; its stdout and stderr go to `log`. Returns
/// the exit code (-1 when it could not start or crashed), after `timeout`
/// seconds at most. With `tmpDir`, the child's TMPDIR is that directory
/// instead of ours.
static int runProgram(StringRef program, ArrayRef<std::string> args,
                      StringRef log, unsigned timeout, std::string &error,
                      StringRef tmpDir = "") {
  SmallVector<StringRef> argv;
  argv.push_back(program);
  for (const std::string &a : args)
    argv.push_back(a);
  std::optional<ArrayRef<StringRef>> env;
  std::vector<std::string> envStrings;
  SmallVector<StringRef> envRefs;
  if (!tmpDir.empty()) {
    for (char **e = environ; *e; ++e)
      if (!StringRef(*e).starts_with("TMPDIR="))
        envStrings.push_back(*e);
    envStrings.push_back(("TMPDIR=" + tmpDir).str());
    for (const std::string &e : envStrings)
      envRefs.push_back(e);
    env = envRefs;
  }
  std::optional<StringRef> redirects[] = {std::nullopt, log, log};
  bool failedToRun = false;
  int rc = llvm::sys::ExecuteAndWait(program, argv, env, redirects,
                                     timeout, 0, &error, &failedToRun);
  if (failedToRun)
    return -1;
  return rc;
}

static std::string readLog(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return "";
  StringRef text = (*buffer)->getBuffer();
  // The end says what went wrong.
  if (text.size() > 4000)
    text = text.take_back(4000);
  return text.str();
}

/// --target=mpi: what one entry contributes to the mpirun job, and what its
/// ranks must return (the interpreter's run of the same compiled program).
struct TargetJob {
  std::string entry;
  /// `--input` values for the executable: N=path.
  std::vector<std::string> inputs;
  std::vector<MValue> expected;
};

/// The directory the target's files go to, made once per dtensor-run.
static FailureOr<std::string> targetDir() {
  static std::string made;
  if (!made.empty())
    return made;
  SmallString<128> dir;
  if (!keepTargetDir.empty()) {
    dir = keepTargetDir;
    if (auto ec = llvm::sys::fs::create_directories(dir))
      return fail("--keep-target-dir '" + keepTargetDir + "': " + ec.message()),
             failure();
  } else if (auto ec =
                 llvm::sys::fs::createUniqueDirectory("dtensor-run", dir)) {
    return fail("cannot make a temporary directory: " + ec.message()), failure();
  }
  made = std::string(dir);
  return made;
}

static std::string joinPath(StringRef dir, const Twine &a, const Twine &b = "") {
  SmallString<128> p(dir);
  llvm::sys::path::append(p, a, b);
  return std::string(p);
}

/// Writes the inputs of `entry` for the executable and records the job.
static int addTargetJob(func::FuncOp entry,
                        const std::vector<std::optional<Tensor>> &globals,
                        const std::map<unsigned, std::string> &files,
                        const std::vector<MValue> &localResults,
                        std::vector<TargetJob> &jobs) {
  FailureOr<std::string> dir = targetDir();
  if (failed(dir))
    return 1;
  TargetJob job;
  job.entry = entry.getName().str();
  job.expected = localResults;
  std::string inDir = joinPath(*dir, "in", job.entry);
  llvm::sys::fs::create_directories(inDir);
  std::string error;
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    if (llvm::isa<DeviceMeshType>(type))
      continue;
    auto it = files.find(i);
    if (it != files.end() && it->second.find("{rank}") != std::string::npos) {
      job.inputs.push_back(std::to_string(i) + "=" + it->second);
      continue;
    }
    if (!globals[i])
      return fail("argument " + std::to_string(i) +
                  " cannot be given to the emitted program");
    std::string file = joinPath(inDir, "in" + std::to_string(i) + ".npy");
    if (!writeNpy(file, *globals[i], error))
      return fail(error);
    job.inputs.push_back(std::to_string(i) + "=" + file);
  }
  jobs.push_back(std::move(job));
  return 0;
}

/// Emits the compiled module once, builds it once, and runs every job's
/// entry in one mpirun job (`--batch`); compares every rank's outputs.
/// Returns the number of entries that failed.
static int runTargetJobs(ModuleOp compiled, std::vector<TargetJob> &jobs,
                         int64_t ranks) {
  if (jobs.empty())
    return 0;
  FailureOr<std::string> dirOr = targetDir();
  if (failed(dirOr))
    return static_cast<int>(jobs.size());
  std::string dir = *dirOr;
  struct Cleanup {
    std::string dir;
    bool keep;
    ~Cleanup() {
      if (!keep)
        llvm::sys::fs::remove_directories(dir);
    }
  } cleanup{dir, !keepTargetDir.empty()};
  auto all = [&](const Twine &why) {
    fail(why);
    return static_cast<int>(jobs.size());
  };
  std::string error;

  // Emit.
  bool cuda = target != "mpi";
  std::string source = joinPath(dir, cuda ? "program.cu" : "program.cpp");
  OwningOpRef<ModuleOp> program = compiled.clone();
  // Only the entries run here are the executable's entries: another public
  // function (one whose arguments the emitted main cannot take, a scalar)
  // is dropped, or kept private where something calls it.
  {
    llvm::StringSet<> run;
    for (const TargetJob &job : jobs)
      run.insert(job.entry);
    SmallVector<func::FuncOp> others;
    for (auto fn : program->getOps<func::FuncOp>())
      if (fn.isPublic() && !fn.isExternal() && !run.contains(fn.getSymName()))
        others.push_back(fn);
    for (func::FuncOp fn : others) {
      if (SymbolTable::symbolKnownUseEmpty(fn, *program))
        fn.erase();
      else
        fn.setPrivate();
    }
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(source, ec);
    if (ec)
      return all("cannot write '" + source + "': " + ec.message());
    if (failed(prepareForCpp(*program)) ||
        failed(emitCpp(*program, os,
                       cuda ? CppFlavour::Cuda : CppFlavour::Host)))
      return all("the compiled program cannot be emitted as C++ (see the "
                 "error above)");
  }
  // Build, with dtensor-build next to this executable.
  std::string self = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&runTargetJobs));
  SmallString<128> build(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(build, "dtensor-build");
  if (!llvm::sys::fs::can_execute(build))
    return all("--target=" + target + " needs dtensor-build next to dtensor-run ('" +
               build + "' is missing)");
  std::string binary = joinPath(dir, "program");
  int rc = runProgram("/bin/bash",
                      {std::string(build), "--target=" + (cuda ? target : std::string("cpu")),
                       source, "-o", binary},
                      joinPath(dir, "build.log"), 600, error);
  if (rc != 0)
    return all("building the emitted program failed (" +
               (error.empty() ? "exit " + std::to_string(rc) : error) +
               "):\n" + readLog(joinPath(dir, "build.log")));

  // One batch file: a line per entry, its name then its --input values.
  std::string batch = joinPath(dir, "batch.txt");
  std::string outDir = joinPath(dir, "out");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(batch, ec);
    if (ec)
      return all("cannot write '" + batch + "': " + ec.message());
    for (const TargetJob &job : jobs) {
      os << job.entry;
      for (const std::string &in : job.inputs)
        os << " " << in;
      os << "\n";
    }
  }

  // Run.
  std::string launcher = "mpirun";
  if (const char *e = std::getenv("DTENSOR_MPIRUN"))
    launcher = e;
  auto found = llvm::sys::findProgramByName(launcher);
  if (!found)
    return all("--target=" + target + " needs '" + launcher +
               "' (install openmpi-bin, or set DTENSOR_MPIRUN)");
  std::vector<std::string> mpiArgs;
  if (const char *flags = std::getenv("DTENSOR_MPIRUN_FLAGS")) {
    SmallVector<StringRef> parts;
    StringRef(flags).split(parts, ' ', -1, false);
    for (StringRef p : parts)
      mpiArgs.push_back(p.str());
  } else {
    // Open MPI's: as many processes as ranks on any machine, also as root.
    mpiArgs = {"--oversubscribe"};
    if (::getuid() == 0)
      mpiArgs.push_back("--allow-run-as-root");
  }
  mpiArgs.push_back("-np");
  mpiArgs.push_back(std::to_string(ranks));
  mpiArgs.push_back(binary);
  mpiArgs.push_back("--batch");
  mpiArgs.push_back(batch);
  mpiArgs.push_back("--output-dir");
  mpiArgs.push_back(outDir);
  // Under AddressSanitizer (a sanitizer build running the emitted program
  // with the same flags), leak checking is off in the MPI processes: Open
  // MPI's dlopen'ed plugins leak by design and unload before LeakSanitizer
  // could attribute their allocations. Memory errors are still reported.
  if (const char *asan = std::getenv("ASAN_OPTIONS"))
    ::setenv("ASAN_OPTIONS", (std::string(asan) + ":detect_leaks=0").c_str(), 1);
  // One thread per process unless the user chose: ranks share the cores.
  ::setenv("OMP_NUM_THREADS", "1", /*overwrite=*/0);
  ::setenv("OPENBLAS_NUM_THREADS", "1", /*overwrite=*/0);
  // The job gets a TMPDIR of its own. Open MPI 4 makes its session directory
  // there ($TMPDIR/ompi.<host>.<uid>) and fails with "File exists" when two
  // jobs started at once (two test workers, two users' scripts) race to
  // create the same one. A short path: Open MPI's sockets live under it.
  SmallString<64> mpiTmp;
  if (auto ec = llvm::sys::fs::createUniqueDirectory("dtensor-mpi", mpiTmp))
    return all("cannot make a temporary directory for the mpirun job: " +
               ec.message());
  struct RemoveTmp {
    std::string dir;
    ~RemoveTmp() { llvm::sys::fs::remove_directories(dir); }
  } removeTmp{std::string(mpiTmp)};
  rc = runProgram(*found, mpiArgs, joinPath(dir, "run.log"), 900, error,
                  mpiTmp);
  if (rc != 0)
    return all("the mpirun job failed (" +
               (error.empty() ? "exit " + std::to_string(rc) : error) +
               "):\n" + readLog(joinPath(dir, "run.log")));

  // Compare every rank's outputs.
  int failedEntries = 0;
  for (const TargetJob &job : jobs) {
    int mismatches = 0;
    for (size_t i = 0; i < job.expected.size() && !mismatches; ++i) {
      for (int64_t r = 0; r < ranks; ++r) {
        std::string file =
            joinPath(outDir, job.entry,
                     "out" + std::to_string(i) + ".rank" + std::to_string(r) +
                         ".npy");
        std::optional<Tensor> got = readNpy(file, error);
        if (!got) {
          llvm::errs() << "@" << job.entry << " output " << i << ": rank " << r
                       << " wrote nothing readable: " << error << "\n";
          ++mismatches;
          break;
        }
        const RValue &want = job.expected[i].on(r);
        std::optional<std::string> diff;
        if (want.kind == RValue::Kind::Tensor) {
          diff = compareTarget(*got, want.tensor);
        } else if (want.kind == RValue::Kind::Int ||
                   want.kind == RValue::Kind::Float) {
          double a = got->numElements() == 1 ? got->at(0) : NAN;
          double b = want.kind == RValue::Kind::Int ? double(want.i) : want.f;
          if (!(std::fabs(a - b) <= 1e-5 * (1 + std::fabs(b))))
            diff = "scalar " + std::to_string(a) + ", expected " +
                   std::to_string(b);
        } else {
          diff = std::string("an output the target cannot return");
        }
        if (diff) {
          llvm::errs() << "@" << job.entry << " output " << i << ": rank " << r
                       << " of the mpirun job differs: " << *diff << "\n";
          ++mismatches;
          break;
        }
      }
    }
    if (mismatches) {
      ++failedEntries;
      continue;
    }
    if (!quiet)
      llvm::outs() << "verified @" << job.entry << " on target " << target << ": "
                   << job.expected.size() << " output(s) of " << ranks
                   << " MPI process(es) match the interpreter\n";
  }
  if (failedEntries)
    fail(std::to_string(failedEntries) +
         " function(s) of the mpirun job differ from the interpreter");
  return failedEntries;
}

/// numpy has no bf16: a bf16 argument takes an f32 file (as the real job
/// does, and as outputs are written), rounded to nearest even.
static void narrowToBf16(Tensor &t, RankedTensorType plain) {
  if (!plain || !plain.getElementType().isBF16() || t.dtype() != DType::F32)
    return;
  std::string error;
  std::optional<Tensor> narrow = Tensor::create(DType::BF16, t.shape(), error);
  if (!narrow)
    return; // (the type check then names the file's dtype)
  const float *from = t.data<float>();
  BFloat16 *to = narrow->mutableData<BFloat16>();
  for (int64_t e = 0; e < t.numElements(); ++e)
    to[e] = BFloat16(from[e]);
  t = std::move(*narrow);
}

/// Runs one entry (and checks it against the compiled program when there is
/// one). Returns 1 on failure, after printing why.
static int runEntry(ModuleOp module, ModuleOp compiled, func::FuncOp entry,
                    std::vector<TargetJob> *targetJobs) {
  std::string error;

  Interpreter reference(module);
  int64_t ranks = reference.numRanks();

  // Inputs: mesh handles are implicit; tensors from files or generated.
  std::map<unsigned, std::string> files;
  for (const std::string &spec : inputs) {
    auto [number, path] = llvm::StringRef(spec).split('=');
    if (number.size() == spec.size() || number.empty() ||
        !llvm::all_of(number, llvm::isDigit) || path.empty())
      return fail("--input '" + spec + "': expected N=path.npy");
    // Digits only, so getAsInteger fails only when N overflows.
    uint64_t index;
    if (number.getAsInteger(10, index) || index >= entry.getNumArguments())
      return fail("--input " + number.str() + ": @" + entry.getName().str() +
                  " has only " + std::to_string(entry.getNumArguments()) +
                  " arguments");
    if (!files.emplace(unsigned(index), path.str()).second)
      return fail("--input " + number.str() + " is given twice ('" +
                  files[index] + "' and '" + path.str() + "')");
  }
  for (unsigned index : reconcileOutputs)
    if (index >= entry.getNumResults())
      return fail("--reconcile " + std::to_string(index) + ": @" +
                  entry.getName().str() + " has only " +
                  std::to_string(entry.getNumResults()) + " results");
  // Files are read here (their names make the messages); the driver checks
  // them against the arguments and generates the rest.
  std::map<unsigned, ArgumentInput> given;
  for (const auto &[i, pattern] : files) {
    ArgumentInput &in = given[i];
    auto type = llvm::dyn_cast<RankedTensorType>(entry.getArgumentTypes()[i]);
    RankedTensorType plain =
        type ? RankedTensorType::get(type.getShape(), type.getElementType())
             : RankedTensorType();
    in.origin = pattern;
    if (pattern.find("{rank}") == std::string::npos) {
      std::optional<Tensor> t = readNpy(pattern, error);
      if (!t)
        return fail("argument " + std::to_string(i) + ": " + error);
      narrowToBf16(*t, plain);
      in.global = std::move(*t);
      continue;
    }
    if (type && getSpec(type))
      return fail("argument " + std::to_string(i) +
                  " is distributed: give its global tensor, not per-rank files");
    for (int64_t r = 0; r < ranks; ++r) {
      std::string path = pattern;
      for (size_t at = path.find("{rank}"); at != std::string::npos;
           at = path.find("{rank}", at))
        path.replace(at, 6, std::to_string(r));
      std::optional<Tensor> t = readNpy(path, error);
      if (!t)
        return fail("argument " + std::to_string(i) + " on rank " +
                    std::to_string(r) + " of " + std::to_string(ranks) +
                    ": " + error);
      narrowToBf16(*t, plain);
      std::string why;
      if (plain && !checkTensorType(*t, plain, why))
        return fail("argument " + std::to_string(i) + " on rank " +
                    std::to_string(r) + ": '" + path + "' " + why);
      in.perRank.push_back(std::move(*t));
    }
  }
  std::vector<std::optional<Tensor>> globals;
  std::optional<std::vector<MValue>> built =
      buildArguments(reference, entry, given, seed, error, &globals);
  if (!built)
    return fail(error);
  std::vector<MValue> args = std::move(*built);

  std::vector<MValue> results;
  reference.enableTrace(!traceFile.empty());
  reference.setMaxLoopIterations(maxLoopIterations);
  // Every --show line must hold an op of the program (else it would print
  // nothing, silently).
  for (unsigned line : showLines) {
    bool found = false;
    module.walk([&](Operation *op) {
      auto loc = llvm::dyn_cast<FileLineColLoc>(op->getLoc());
      if (loc && loc.getLine() == line)
        found = true;
      return found ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (!found)
      return fail("--show " + std::to_string(line) + ": line " +
                  std::to_string(line) + " of '" + inputFile +
                  "' holds no op");
  }
  if (!showLines.empty())
    reference.setObserver([&](Operation *op) {
      auto loc = llvm::dyn_cast<FileLineColLoc>(op->getLoc());
      if (!loc || !llvm::is_contained(showLines, loc.getLine()))
        return;
      for (auto [i, res] : llvm::enumerate(op->getResults()))
        summarize(llvm::outs(),
                  "line " + std::to_string(loc.getLine()) + " " +
                      op->getName().getStringRef().str() + " #" +
                      std::to_string(i),
                  std::nullopt, reference.lookup(res), reference);
    });
  if (failed(reference.run(entry, args, results)))
    return 1;
  if (timeRuns) {
    double best = 1e300;
    for (unsigned t = 0; t < timeRuns; ++t) {
      std::vector<MValue> again;
      auto start = std::chrono::steady_clock::now();
      if (failed(reference.run(entry, args, again)))
        return 1;
      best = std::min(best, std::chrono::duration<double, std::milli>(
                                std::chrono::steady_clock::now() - start)
                                .count());
    }
    llvm::outs() << "@" << entry.getName() << " run time: "
                 << llvm::format("%.3f", best) << " ms (best of " << timeRuns
                 << ")\n";
  }
  if (!quiet) {
    llvm::outs() << "ran @" << entry.getName() << " on " << ranks
                 << " rank(s)\n";
    bool reconciled = true;
    for (size_t i = 0; i < results.size(); ++i)
      reconciled &= summarize(llvm::outs(), "output " + std::to_string(i), i,
                              results[i], reference);
    if (!reconciled)
      return fail("@" + entry.getName().str() +
                  ": an output differs across ranks and cannot be reconciled");
  }
  if (!outputDir.empty() && !writeOutputs(results, reference, error))
    return fail(error);

  Interpreter *reported = &reference;
  std::unique_ptr<Interpreter> compiledRun;
  if (compiled) {
    auto compiledEntry = compiled.lookupSymbol<func::FuncOp>(entry.getName());
    if (!compiledEntry || compiledEntry.isExternal())
      return fail("the compiled program has no function @" +
                  entry.getName().str());
    compiledRun = std::make_unique<Interpreter>(compiled);
    compiledRun->enableTrace(!traceFile.empty());
    compiledRun->setMaxLoopIterations(maxLoopIterations);
    // The compiled program takes each rank's shard of distributed inputs.
    std::optional<std::vector<MValue>> localArgs =
        localArguments(*compiledRun, args, error, compiledEntry);
    if (!localArgs)
      return fail(error);
    std::vector<MValue> localResults;
    if (failed(compiledRun->run(compiledEntry, *localArgs, localResults)))
      return fail("the compiled program failed to run");
    std::vector<std::string> mismatches = compareOutputs(
        *compiledRun, entry.getName(), results, localResults);
    for (const std::string &m : mismatches)
      llvm::errs() << m << "\n";
    if (!mismatches.empty())
      return fail(std::to_string(mismatches.size()) +
                  " output(s) of the compiled program differ from the "
                  "original");
    if (!quiet)
      llvm::outs() << "verified @" << entry.getName() << ": " << results.size()
                 << " output(s) of the compiled program match the original on "
                 << ranks << " rank(s)\n";
    reported = compiledRun.get();
    if (realTarget() && targetJobs) {
      if (int rc = addTargetJob(compiledEntry, globals, files, localResults,
                                *targetJobs))
        return rc;
    }
  }

  if (report)
    reported->report().print(llvm::outs());
  if (reportJson)
    reported->report().printJson(llvm::outs());
  if (!traceFile.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(traceFile, ec);
    if (ec)
      return fail("cannot write '" + traceFile + "': " + ec.message());
    os << "{\"traceEvents\": [";
    bool first = true;
    for (const TraceEvent &e : reported->trace()) {
      os << (first ? "" : ", ") << "{\"name\": \"" << e.name
         << "\", \"cat\": \"" << (e.collective ? "collective" : "op")
         << "\", \"ph\": \"X\", \"ts\": " << llvm::format("%.3f", e.startUs)
         << ", \"dur\": " << llvm::format("%.3f", e.durationUs)
         << ", \"pid\": 0, \"tid\": " << (e.rank < 0 ? 0 : e.rank + 1)
         << ", \"args\": {\"rank\": \""
         << (e.rank < 0 ? std::string("all") : std::to_string(e.rank))
         << "\"}}";
      first = false;
    }
    os << "]}\n";
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::dtensor::setCrashReportMessage();
  mlir::dtensor::hideLibraryOptions({&runCategory});
  mlir::dtensor::setVersionPrinter("dtensor-run");
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  dtensor::registerAllPasses();
  cl::ParseCommandLineOptions(
      argc, argv,
      "dtensor-run: runs a dtensor program for every rank of its mesh in one "
      "process (LocalTensor-style)\n");
  // (NaN means "not given"; one given as nan is an error, as are negative
  // and infinite ones.)
  auto badTolerance = [](cl::opt<double> &t) {
    return t.getNumOccurrences() && !(t >= 0 && !std::isinf(t));
  };
  if (badTolerance(rtolOption) || badTolerance(atolOption))
    return fail("--rtol and --atol take a finite tolerance >= 0");
  setToleranceOverride(rtolOption, atolOption);
  if (maxLoopIterations < 0)
    return fail("--max-loop-iterations takes 0 (no limit) or a positive "
                "count, not " + llvm::Twine(int64_t(maxLoopIterations)));
  if (!maxTensorBytes.empty() || maxTensorBytes.getNumOccurrences()) {
    std::optional<int64_t> limit = parseByteCount(maxTensorBytes);
    if (!limit)
      return fail("--max-tensor-bytes '" + maxTensorBytes +
                  "': expected a byte count such as 1048576 or 8G");
    setMaxTensorBytes(*limit);
  }
  setRankThreads(rankThreads);

  DialectRegistry registry;
  dtensor::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // The location says where; a diagnostic need not print the whole op
  // (unless --mlir-print-op-on-diagnostic asks).
  if (!printOpOnDiagnosticGiven(argc, argv))
    context.printOpOnDiagnostic(false);

  std::string error;
  auto file = openInputFile(inputFile, &error);
  if (!file)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  unsigned bufferId =
      sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  // Spellings that crash MLIR's own parsers are errors here instead.
  if (!dtensor::screenSourceBuffer(sourceMgr, bufferId))
    return 1;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  // A program after dtensor-partition still has its redistributes as
  // dtensor.reshard: they run as the collectives they lower to.
  if (failed(lowerReshards(*module)))
    return fail("lowering the program's dtensor.reshard ops failed");
  // The types as every pass checks them first (an integer Partial(avg)
  // over two mesh dims, which has no value, included).
  if (failed(dtensor::verifyDistributedTypes(*module)))
    return 1;
  if (target != "interp" && !realTarget())
    return fail("--target '" + target +
                "': expected interp, mpi, cuda or cuda-mpi");
  if (realTarget() && !verify)
    return fail("--target=" + target + " checks a compiled program: add --verify");
  // The compiled program: given, or compiled once from the original.
  OwningOpRef<ModuleOp> compiled;
  if (verify) {
    if (!compiledFile.empty()) {
      auto compiledBuffer = openInputFile(compiledFile, &error);
      if (!compiledBuffer)
        return fail(error);
      llvm::SourceMgr compiledSourceMgr;
      unsigned compiledId = compiledSourceMgr.AddNewSourceBuffer(
          std::move(compiledBuffer), llvm::SMLoc());
      if (!dtensor::screenSourceBuffer(compiledSourceMgr, compiledId))
        return 1;
      compiled = parseSourceFile<ModuleOp>(compiledSourceMgr, &context);
      if (!compiled)
        return 1;
    } else {
      compiled = module->clone();
      PassManager pm(&context);
      std::string why;
      llvm::raw_string_ostream whyOs(why);
      if (failed(dtensor::parseModulePassPipeline(pipeline, pm, whyOs)))
        return fail("--pipeline '" + pipeline + "' is not a pass pipeline: " +
                    llvm::StringRef(why).trim().str());
      // The default pipeline partitions programs whose every tensor has a
      // layout. One that leaves layouts to propagation fails there; then,
      // unless the user chose the pipeline, it is compiled with
      // dtensor-compile (saying so), and the first attempt's diagnostics
      // are shown only if that fails too.
      bool chosen = pipeline.getNumOccurrences() > 0;
      std::string firstErrors;
      LogicalResult ran = success();
      {
        std::optional<ScopedDiagnosticHandler> collect;
        if (!chosen)
          collect.emplace(&context, [&](Diagnostic &d) {
            llvm::raw_string_ostream os(firstErrors);
            os << d.getLocation() << ": " << d << "\n";
            return success();
          });
        ran = pm.run(*compiled);
      }
      if (failed(ran) && !chosen) {
        compiled = module->clone();
        PassManager full(&context);
        if (failed(parsePassPipeline("dtensor-compile", full, llvm::errs())) ||
            failed(full.run(*compiled))) {
          llvm::errs() << firstErrors;
          return fail("compiling with '" + pipeline +
                      "' (the default) failed, and so did dtensor-compile");
        }
        llvm::errs() << "dtensor-run: note: the default pipeline partitions "
                        "fully annotated programs; this one leaves layouts to "
                        "propagation, so it was compiled with --pipeline "
                        "dtensor-compile\n";
      } else if (failed(ran)) {
        return fail("compiling with '" + pipeline + "' failed");
      }
    }
    if (failed(lowerReshards(*compiled)))
      return fail("lowering the compiled program's dtensor.reshard ops failed");
    if (printCompiled)
      compiled->print(llvm::outs());
  }

  std::vector<func::FuncOp> entries;
  if (allEntries) {
    for (auto fn : module->getOps<func::FuncOp>())
      if (!fn.isExternal() && fn.isPublic())
        entries.push_back(fn);
  } else if (func::FuncOp entry = findEntry(*module, entryName)) {
    entries.push_back(entry);
  } else {
    return fail(entryName.empty()
                    ? "no entry function: name one with --entry"
                    : "no function @" + entryName + " with a body");
  }
  int failures = 0;
  std::vector<TargetJob> targetJobs;
  for (func::FuncOp entry : entries)
    failures += runEntry(*module, compiled ? *compiled : ModuleOp(), entry,
                         &targetJobs);
  // The real run: one build and one mpirun job for every entry that passed.
  if (realTarget() && compiled) {
    Interpreter sizing(*module);
    failures += runTargetJobs(*compiled, targetJobs, sizing.numRanks());
  }
  if (allEntries)
    llvm::outs() << (verify ? "verified " : "ran ")
                 << entries.size() - failures << " of " << entries.size()
                 << " function(s)\n";
  if (reportMemory)
    llvm::outs() << "tensor memory: at most " << getTensorMemory().peak
                 << " bytes alive at once\n";
  return failures ? 1 : 0;
}
