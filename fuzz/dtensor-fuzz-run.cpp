//===- dtensor-fuzz-run.cpp - fuzz the interpreter on small programs ------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Input: MLIR text. Parses and verifies it, then runs every public function
// with a body on the interpreter, on generated inputs as dtensor-run makes
// them, both as written and after --dtensor-compile. Programs on meshes of
// more than 16 ranks or with arguments of more than 4096 elements are
// skipped, and loops stop after 256 iterations (the fuzzer's budget, not a
// limit of the interpreter). Any program may be rejected; none may crash the
// interpreter.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "dtensor/Interpreter/Interpreter.h"
#include "dtensor/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::dtensor;
using namespace mlir::dtensor::interp;

/// Arguments for `fn` (small static tensors filled with a pattern), or
/// false when it takes something the fuzzer does not make.
static bool makeArgs(Interpreter &interp, func::FuncOp fn,
                     std::vector<MValue> &args) {
  for (Type type : fn.getArgumentTypes()) {
    if (llvm::isa<DeviceMeshType>(type)) {
      args.emplace_back();
      continue;
    }
    auto tensor = llvm::dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() || tensor.getNumElements() > 4096)
      return false;
    std::optional<DType> dt = dtypeOf(tensor.getElementType());
    if (!dt)
      return false;
    std::string error;
    std::optional<Tensor> made = Tensor::create(
        *dt, Shape(tensor.getShape().begin(), tensor.getShape().end()), error);
    if (!made)
      return false;
    Tensor t = std::move(*made);
    dispatch(*dt, [&](auto v) {
      using T = decltype(v);
      T *x = t.mutableData<T>();
      // i1 is stored as uint8_t: it takes 0 and 1 only (a negative double
      // converted to an unsigned type is undefined).
      for (int64_t i = 0; i < t.numElements(); ++i) {
        if (*dt == DType::I1)
          x[i] = T((i * 7) % 3 == 0 ? 1.0 : 0.0);
        else
          x[i] = T(double((i * 7) % 11) - 5.0);
      }
    });
    SpecAttr spec = getSpec(tensor);
    if (!spec) {
      args.push_back(MValue::same(RValue::ofTensor(std::move(t))));
      continue;
    }
    FailureOr<Layout> layout = interp.layoutOf(tensor, fn);
    if (failed(layout))
      return false;
    RValue d;
    d.kind = RValue::Kind::Dist;
    d.tensor = t;
    d.dist = std::make_shared<DistTensor>(DistTensor{t, spec, *layout});
    args.push_back(MValue::same(std::move(d)));
  }
  return true;
}

static void runAll(ModuleOp module) {
  int64_t meshes = 0;
  for (MeshOp mesh : module.getOps<MeshOp>()) {
    ++meshes;
    int64_t ranks = 1;
    for (int64_t m : mesh.getShape())
      if (m <= 0 || (ranks *= m) > 16)
        return;
  }
  if (meshes > 1)
    return;
  Interpreter interp(module);
  // A while loop may not end on the fuzzer's inputs (x*x from 5 grows past
  // any threshold): the budget bounds it, as dtensor-run's
  // --max-loop-iterations does.
  interp.setMaxLoopIterations(256);
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isExternal() || fn.isPrivate())
      continue;
    std::vector<MValue> args, results;
    if (!makeArgs(interp, fn, args))
      continue;
    (void)interp.run(fn, std::move(args), results);
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &ctx = dtensor_fuzz::context();
  ScopedDiagnosticHandler quiet(&ctx,
                                [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> module = dtensor_fuzz::parse(ctx, data, size);
  if (!module)
    return 0;
  runAll(*module);
  PassManager pm(&ctx);
  buildCompilePipeline(pm, CompileOptions{});
  if (succeeded(pm.run(*module)))
    runAll(*module);
  return 0;
}
