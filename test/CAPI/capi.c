/*===- capi.c - the C API, from C -----------------------------------------===*\
|*                                                                            *|
|* Part of dtensor-mlir.                                                      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

// RUN: dtensor-capi-test 2>&1 | FileCheck %s

#include "dtensor-c/Core.h"
#include "dtensor-c/Dialects.h"
#include "dtensor-c/Interpreter.h"
#include "dtensor-c/Target.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Checked in every build type (assert is gone under NDEBUG).
#define require(cond)                                                          \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("FAILED: %s (line %d)\n", #cond, __LINE__);                       \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static void print(MlirStringRef s, void *userData) {
  (void)userData;
  fwrite(s.data, 1, s.length, stdout);
}

static void printTo(MlirStringRef s, void *userData) {
  fwrite(s.data, 1, s.length, (FILE *)userData);
}

static void printLine(MlirStringRef s, void *userData) {
  print(s, userData);
  fputc('\n', stdout);
}

static void printArrow(MlirStringRef s, void *userData) {
  print(s, userData);
  fputs(" -> ", stdout);
}

static MlirLogicalResult onDiagnostic(MlirDiagnostic d, void *userData) {
  (void)userData;
  fputs("diagnostic: ", stdout);
  mlirLocationPrint(mlirDiagnosticGetLocation(d), print, NULL);
  fputs(": ", stdout);
  mlirDiagnosticPrint(d, print, NULL);
  fputc('\n', stdout);
  return mlirLogicalResultSuccess();
}

static const char *kMlp =
    "dtensor.mesh @mesh shape = [2, 2] names = [\"dp\", \"tp\"]\n"
    "func.func @mlp(%m: !dtensor.device_mesh<@mesh>,\n"
    "    %x: tensor<4x6xf32, #dtensor.spec<@mesh, [S(0), R]>>,\n"
    "    %w1: tensor<6x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>,\n"
    "    %w2: tensor<8x6xf32, #dtensor.spec<@mesh, [R, S(0)]>>)\n"
    "    -> tensor<4x6xf32, #dtensor.spec<@mesh, [S(0), R]>> {\n"
    "  %zero = arith.constant 0.0 : f32\n"
    "  %e1 = tensor.empty() : tensor<4x8xf32>\n"
    "  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x8xf32>) -> "
    "tensor<4x8xf32>\n"
    "  %h = linalg.matmul ins(%x, %w1 : tensor<4x6xf32, #dtensor.spec<@mesh, "
    "[S(0), R]>>, tensor<6x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z1 "
    ": tensor<4x8xf32>) -> tensor<4x8xf32>\n"
    "  %e2 = tensor.empty() : tensor<4x6xf32>\n"
    "  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x6xf32>) -> "
    "tensor<4x6xf32>\n"
    "  %y = linalg.matmul ins(%h, %w2 : tensor<4x8xf32>, tensor<8x6xf32, "
    "#dtensor.spec<@mesh, [R, S(0)]>>) outs(%z2 : tensor<4x6xf32>) -> "
    "tensor<4x6xf32>\n"
    "  %d = dtensor.distribute_tensor %y, %m : tensor<4x6xf32>, "
    "!dtensor.device_mesh<@mesh> -> tensor<4x6xf32, #dtensor.spec<@mesh, "
    "[S(0), R]>>\n"
    "  return %d : tensor<4x6xf32, #dtensor.spec<@mesh, [S(0), R]>>\n"
    "}\n";

static void testCore(void) {
  // CHECK-LABEL: core
  puts("core");
  DTensorPlacement ps[4];
  intptr_t n = 0;
  MlirLogicalResult ok = dtensorParsePlacements(
      mlirStringRefCreateFromCString("[S(0), S(0)]"), ps, 4, &n, printLine,
      NULL);
  require(mlirLogicalResultIsSuccess(ok));
  // CHECK: parsed 2: [S(0), S(0)]
  printf("parsed %d: ", (int)n);
  dtensorPrintPlacements(ps, n, printLine, NULL);

  // The 2x4-mesh example of the README: 9 rows over 8 ranks.
  int64_t mesh[2] = {2, 4}, shape[2] = {9, 4}, local[2], offset[2];
  for (int64_t r = 0; r < 8; r += 3) {
    ok = dtensorLocalShard(mesh, 2, shape, 2, ps, r, local, offset, printLine,
                           NULL);
    require(mlirLogicalResultIsSuccess(ok));
    printf("rank %" PRId64 ": %" PRId64 "x%" PRId64 " at (%" PRId64
           ", %" PRId64 ")\n",
           r, local[0], local[1], offset[0], offset[1]);
  }
  // CHECK: rank 0: 2x4 at (0, 0)
  // CHECK: rank 3: 0x4 at (9, 0)
  // CHECK: rank 6: 1x4 at (7, 0)

  // CHECK: error: device rank 8 is not in [0, 8)
  fputs("error: ", stdout);
  dtensorLocalShard(mesh, 2, shape, 2, ps, 8, local, offset, printLine, NULL);
  // CHECK: error: expected a placement
  fputs("error: ", stdout);
  dtensorParsePlacements(mlirStringRefCreateFromCString("[S(0), Q]"), ps, 4,
                         &n, printLine, NULL);

  // [S(0), R] -> [R, S(1)] of a 64x64 f32 tensor.
  DTensorPlacement from[2], to[2];
  dtensorParsePlacements(mlirStringRefCreateFromCString("[S(0), R]"), from, 2,
                         &n, printLine, NULL);
  dtensorParsePlacements(mlirStringRefCreateFromCString("[R, S(1)]"), to, 2,
                         &n, printLine, NULL);
  int64_t big[2] = {64, 64};
  DTensorPlan plan = dtensorPlanRedistribute(mesh, 2, big, 2, 4, from, to, 0,
                                             printLine, NULL);
  require(!dtensorPlanIsNull(plan));
  // One collective: a local chunk, then an all_gather over dp.
  // CHECK: plan: 2 step(s), 1 collective(s), 4096 bytes/rank, optimal 1
  printf("plan: %d step(s), %" PRId64 " collective(s), %" PRId64
         " bytes/rank, optimal %d\n",
         (int)dtensorPlanGetNumSteps(plan), dtensorPlanGetNumCollectives(plan),
         dtensorPlanGetBytesPerRank(plan), (int)dtensorPlanIsOptimal(plan));
  for (intptr_t i = 0; i < dtensorPlanGetNumSteps(plan); ++i) {
    DTensorPlanStep s = dtensorPlanGetStep(plan, i);
    printf("  %s over mesh dim %" PRId64 ", %" PRId64 " bytes: ", s.kind,
           s.meshDims[0], s.bytesPerRank);
    dtensorPlanPrintStepStates(plan, i, printArrow, printLine, NULL);
  }
  // CHECK-NEXT: local over mesh dim 1, 0 bytes: [S(0), R] -> [S(0), S(1)]
  // CHECK-NEXT: all_gather over mesh dim 0, 4096 bytes: [S(0), S(1)] -> [R, S(1)]
  require(dtensorPlanGetTimeUs(plan) > 0);
  dtensorPlanDestroy(plan);

  // S -> P(max) is not a redistribution DTensor allows (S -> P(sum) is).
  dtensorParsePlacements(mlirStringRefCreateFromCString("[P(max), R]"), to,
                         2, &n, printLine, NULL);
  // CHECK: error: on mesh dim 0: cannot redistribute S(0) to P(max)
  fputs("error: ", stdout);
  plan = dtensorPlanRedistribute(mesh, 2, big, 2, 4, from, to, 0, printLine,
                                 NULL);
  require(dtensorPlanIsNull(plan));

  // Enum fields holding values the enums do not name are errors (read as
  // the integers they are: loading them as the enums was undefined).
  DTensorPlacement odd[2] = {from[0], from[1]};
  int seven = 7, nine = 9;
  memcpy(&odd[1].kind, &seven, sizeof seven);
  // CHECK: error: unknown placement kind 7
  fputs("error: ", stdout);
  dtensorLocalShard(mesh, 2, shape, 2, odd, 0, local, offset, printLine, NULL);
  odd[1].kind = DTensorPlacementPartial;
  memcpy(&odd[1].reduce, &nine, sizeof nine);
  // CHECK: error: unknown Partial reduction 9
  fputs("error: ", stdout);
  dtensorLocalShard(mesh, 2, shape, 2, odd, 0, local, offset, printLine, NULL);
}

static void testCompileAndRun(void) {
  // CHECK-LABEL: compile
  puts("compile");
  MlirContext ctx = mlirContextCreateWithThreading(false);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  dtensorRegisterRequiredDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, NULL, NULL);
  dtensorRegisterPasses();

  // CHECK: namespace dtensor
  MlirStringRef ns =
      mlirDialectHandleGetNamespace(mlirGetDialectHandle__dtensor__());
  printf("namespace %.*s\n", (int)ns.length, ns.data);

  MlirModule program =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kMlp));
  require(!mlirModuleIsNull(program));
  MlirOperation copy = mlirOperationClone(mlirModuleGetOperation(program));
  MlirModule compiled = mlirModuleFromOperation(copy);

  // CHECK: error: 'no-such-pass' is not a pass pipeline
  fputs("error: ", stdout);
  dtensorRunPassPipeline(compiled, mlirStringRefCreateFromCString("no-such-pass"),
                         printLine, NULL);
  MlirLogicalResult ok = dtensorRunPassPipeline(
      compiled, mlirStringRefCreateFromCString("dtensor-compile"), printLine,
      NULL);
  require(mlirLogicalResultIsSuccess(ok));
  // CHECK: func.func @mlp
  // CHECK-SAME: tensor<6x4xf32> {dtensor.global = tensor<6x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>}
  // CHECK: dtensor.all_reduce
  // CHECK-NOT: dtensor.all_
  // CHECK: return
  mlirOperationPrint(mlirModuleGetOperation(compiled), print, NULL);

  // The compiled program as C++ over the runtime and as CUDA C++; the module
  // stays as it was (the emitter rewrites a copy).
  char *before = NULL;
  size_t beforeLength = 0;
  {
    FILE *f = open_memstream(&before, &beforeLength);
    mlirOperationPrint(mlirModuleGetOperation(compiled), printTo, f);
    fclose(f);
  }
  // CHECK-LABEL: emitted host:
  // CHECK: #include "dtensor_rt/Runtime.h"
  // CHECK: static std::tuple<rt::Tensor> f_mlp(rt::Mesh &v0, rt::Tensor v1, rt::Tensor v2, rt::Tensor v3) {
  // CHECK: rt::matmul(
  // CHECK: rt::allReduce(v0, 0, rt::release({{v[0-9]+}}), rt::Reduction::Sum, "dtensor.all_reduce at -:
  // CHECK: int main(int argc, char **argv) {
  puts("emitted host:");
  require(mlirLogicalResultIsSuccess(dtensorTranslateToCpp(
      compiled, DTensorCppFlavourHost, print, NULL)));
  // CHECK-LABEL: emitted cuda:
  // CHECK-NEXT: // Generated by dtensor-translate --dtensor-to-cuda.
  // CHECK: #error "a CUDA program: build it with dtensor-build (nvcc)"
  // CHECK: rt::allReduce(v0, 0,
  puts("emitted cuda:");
  require(mlirLogicalResultIsSuccess(dtensorTranslateToCpp(
      compiled, DTensorCppFlavourCuda, print, NULL)));
  {
    char *after = NULL;
    size_t afterLength = 0;
    FILE *f = open_memstream(&after, &afterLength);
    mlirOperationPrint(mlirModuleGetOperation(compiled), printTo, f);
    fclose(f);
    // CHECK: unchanged by the emitter: 1
    printf("unchanged by the emitter: %d\n",
           beforeLength == afterLength && memcmp(before, after, afterLength) == 0);
    free(after);
  }
  free(before);
  // The global view is not what the emitter translates: an error at an op
  // through the diagnostic handler, and nothing emitted.
  // CHECK-LABEL: emitting the global view:
  // CHECK-NEXT: diagnostic: loc("-":2:1): 'func.func' op has a global-view (spec-typed) value: run --dtensor-compile (or --dtensor-partition) before emitting C++
  // CHECK-NEXT: result: 0
  puts("emitting the global view:");
  printf("result: %d\n", (int)mlirLogicalResultIsSuccess(dtensorTranslateToCpp(
                             program, DTensorCppFlavourHost, print, NULL)));

  // Every rank of the compiled program against the global one, with x given.
  DTensorRun run = dtensorRunCreate(program, compiled,
                                    mlirStringRefCreateFromCString(""),
                                    printLine, NULL);
  require(!dtensorRunIsNull(run));
  float x[24];
  for (int i = 0; i < 24; ++i)
    x[i] = (float)i / 24.0f;
  int64_t xShape[2] = {4, 6};
  // CHECK: error: input 1: unknown dtype 'f31'
  fputs("error: ", stdout);
  dtensorRunSetInput(run, 1, mlirStringRefCreateFromCString("f31"), xShape, 2,
                     x, printLine, NULL);
  // CHECK: error: input 0: the argument is a mesh handle, which takes no input
  fputs("error: ", stdout);
  dtensorRunSetInput(run, 0, mlirStringRefCreateFromCString("f32"), xShape, 2,
                     x, printLine, NULL);
  ok = dtensorRunSetInput(run, 1, mlirStringRefCreateFromCString("f32"),
                          xShape, 2, x, printLine, NULL);
  require(mlirLogicalResultIsSuccess(ok));
  ok = dtensorRunExecute(run, 7, printLine, NULL);
  require(mlirLogicalResultIsSuccess(ok));
  // CHECK: ranks 4, outputs 1, mismatches 0
  printf("ranks %" PRId64 ", outputs %d, mismatches %d\n",
         dtensorRunGetNumRanks(run), (int)dtensorRunGetNumOutputs(run),
         (int)dtensorRunGetNumMismatches(run));
  DTensorTensorView global, shard;
  ok = dtensorRunGetOutput(run, 0, -1, false, &global);
  require(mlirLogicalResultIsSuccess(ok));
  ok = dtensorRunGetOutput(run, 0, 3, true, &shard);
  require(mlirLogicalResultIsSuccess(ok));
  // Rank 3 = (1, 1) holds rows 2..3 of the global output.
  // CHECK: global 4x6 f32, rank 3 holds 2x6, rows 2-3 match: 1
  // The compiled program sums in another order: equal within 1e-5.
  int same = 1;
  for (int i = 0; i < 12; ++i) {
    float a = ((const float *)global.data)[12 + i];
    float b = ((const float *)shard.data)[i];
    same &= (a - b < 1e-5f && b - a < 1e-5f);
  }
  printf("global %" PRId64 "x%" PRId64 " %s, rank 3 holds %" PRId64
         "x%" PRId64 ", rows 2-3 match: %d\n",
         global.shape[0], global.shape[1], global.dtype, shard.shape[0],
         shard.shape[1], same);
  // CHECK: communication: 1 collective, 48 bytes/rank
  // CHECK-NEXT: all_reduce{{ +}}1{{ +}}48 bytes
  dtensorRunPrintReport(run, false, print, NULL);
  // CHECK: "all_reduce"
  dtensorRunPrintReport(run, true, print, NULL);
  // Null arguments are failures or do nothing; they crashed (found by
  // probing): a null callback, module or context.
  // CHECK: null arguments: report, spec, placements done
  dtensorRunPrintReport(run, false, NULL, NULL);
  dtensorRunPrintOutputSpec(run, 0, true, NULL, NULL);
  dtensorPrintPlacements(NULL, 0, NULL, NULL);
  puts("null arguments: report, spec, placements done");
  // CHECK-NEXT: error: dtensorRunPassPipeline: the module is null
  fputs("error: ", stdout);
  MlirModule none = {NULL};
  require(mlirLogicalResultIsFailure(dtensorRunPassPipeline(
      none, mlirStringRefCreateFromCString("dtensor-compile"), printLine, NULL)));
  // CHECK-NEXT: null module, bad flavour, null context: 1 1 1
  printf("null module, bad flavour, null context: %d %d %d\n",
         (int)mlirLogicalResultIsFailure(
             dtensorTranslateToCpp(none, DTensorCppFlavourHost, print, NULL)),
         (int)mlirLogicalResultIsFailure(dtensorTranslateToCpp(
             compiled, (DTensorCppFlavour)7, print, NULL)),
         (int)mlirModuleIsNull(dtensorParseModule(
             (MlirContext){NULL}, mlirStringRefCreateFromCString(kMlp),
             mlirStringRefCreateFromCString("x.mlir"))));
  // No text at all ({NULL, 0}) is the empty module (MLIR's lexer read the
  // byte at its start).
  MlirModule empty = dtensorParseModule(ctx, (MlirStringRef){NULL, 0},
                                        (MlirStringRef){NULL, 0});
  // CHECK-NEXT: no text: a module 1
  printf("no text: a module %d\n", (int)!mlirModuleIsNull(empty));
  mlirModuleDestroy(empty);
  // A slice of a longer text (an MlirStringRef need not end in a NUL, which
  // MLIR's lexer relies on): only the slice is parsed, not what follows it.
  const char kSliced[] = "dtensor.mesh @sliced shape = [2]\n} not part of the slice";
  MlirModule sliced = dtensorParseModule(
      ctx, mlirStringRefCreate(kSliced, sizeof("dtensor.mesh @sliced shape = [2]\n") - 1),
      mlirStringRefCreateFromCString("sliced.mlir"));
  // CHECK-NEXT: slice: a module 1
  printf("slice: a module %d\n", (int)!mlirModuleIsNull(sliced));
  mlirModuleDestroy(sliced);
  dtensorRunDestroy(run);

  // An entry that does not exist, and a program that fails at an op.
  // CHECK: error: no function @nope with a body
  fputs("error: ", stdout);
  run = dtensorRunCreate(program, compiled,
                         mlirStringRefCreateFromCString("nope"), printLine,
                         NULL);
  require(dtensorRunIsNull(run));

  MlirModule bad = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(
               "dtensor.mesh @g shape = [2]\n"
               "func.func @f(%m: !dtensor.device_mesh<@g>, %a: tensor<3xf32, "
               "#dtensor.spec<@g, [S(0)]>>) "
               "-> tensor<3xf32, #dtensor.spec<@g, [P(max)]>> {\n"
               "  %b = dtensor.redistribute %a, %m : tensor<3xf32, "
               "#dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g> -> "
               "tensor<3xf32, #dtensor.spec<@g, [P(max)]>>\n"
               "  return %b : tensor<3xf32, #dtensor.spec<@g, [P(max)]>>\n"
               "}\n"));
  // The verifier's diagnostic reaches the handler with its location.
  // CHECK: diagnostic: loc("-":3:8): 'dtensor.redistribute' op on mesh dim 0: cannot redistribute S(0) to P(max)
  // CHECK-NEXT: the bad module did not parse
  if (!mlirModuleIsNull(bad)) {
    fputs("failed: ", stdout);
    dtensorRunPassPipeline(bad, mlirStringRefCreateFromCString("dtensor-compile"),
                           printLine, NULL);
    mlirModuleDestroy(bad);
  } else {
    puts("the bad module did not parse");
  }
  require(mlirModuleIsNull(bad));

  mlirModuleDestroy(compiled);
  mlirModuleDestroy(program);
  mlirContextDestroy(ctx);
}

int main(void) {
  testCore();
  testCompileAndRun();
  // CHECK: done
  puts("done");
  return 0;
}
