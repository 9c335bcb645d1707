/*===- framework-compile.c - dtensor-mlir from C ---------------------------===*\
|*                                                                            *|
|* framework-compile prog.mlir [pipeline [out.cpp]]: parses a global-view   *|
|* program, compiles it (default pipeline: dtensor-compile), runs every rank *|
|* of the compiled program on the interpreter against the original with      *|
|* random inputs, and prints the communication report; with out.cpp, writes  *|
|* the compiled program there as C++ for dtensor-build. Errors come with     *|
|* locations.                                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "dtensor-c/Dialects.h"
#include "dtensor-c/Interpreter.h"
#include "dtensor-c/Target.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdio.h>
#include <stdlib.h>

static void print(MlirStringRef s, void *stream) {
  fwrite(s.data, 1, s.length, (FILE *)stream);
}

static void printError(MlirStringRef s, void *userData) {
  (void)userData;
  fputs("framework-compile: error: ", stderr);
  print(s, stderr);
  fputc('\n', stderr);
}

static MlirLogicalResult onDiagnostic(MlirDiagnostic d, void *userData) {
  (void)userData;
  mlirLocationPrint(mlirDiagnosticGetLocation(d), print, stderr);
  fputs(": ", stderr);
  mlirDiagnosticPrint(d, print, stderr);
  fputc('\n', stderr);
  return mlirLogicalResultSuccess();
}

static char *readFile(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
    free(text);
    text = NULL;
  }
  if (text)
    text[n] = 0;
  fclose(f);
  return text;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs("usage: framework-compile prog.mlir [pipeline [out.cpp]]\n", stderr);
    return 2;
  }
  const char *pipeline = argc > 2 ? argv[2] : "dtensor-compile";
  const char *cppPath = argc > 3 ? argv[3] : NULL;
  char *text = readFile(argv[1]);
  if (!text) {
    fprintf(stderr, "framework-compile: error: cannot read '%s'\n", argv[1]);
    return 1;
  }
  MlirContext ctx = mlirContextCreateWithThreading(false);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  dtensorRegisterRequiredDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, NULL, NULL);
  dtensorRegisterPasses();

  int rc = 1;
  MlirModule program =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  free(text);
  if (mlirModuleIsNull(program))
    goto done;
  MlirModule compiled = mlirModuleFromOperation(
      mlirOperationClone(mlirModuleGetOperation(program)));
  if (mlirLogicalResultIsFailure(dtensorRunPassPipeline(
          compiled, mlirStringRefCreateFromCString(pipeline), printError,
          NULL)))
    goto destroy;
  DTensorRun run = dtensorRunCreate(
      program, compiled, mlirStringRefCreateFromCString(""), printError, NULL);
  if (dtensorRunIsNull(run))
    goto destroy;
  if (mlirLogicalResultIsSuccess(dtensorRunExecute(run, 0, printError, NULL))) {
    intptr_t mismatches = dtensorRunGetNumMismatches(run);
    for (intptr_t i = 0; i < mismatches; ++i) {
      dtensorRunGetMismatch(run, i, printError, NULL);
    }
    printf("%d rank(s): %s\n", (int)dtensorRunGetNumRanks(run),
           mismatches ? "the compiled program differs"
                      : "every output of the compiled program matches");
    dtensorRunPrintReport(run, false, print, stdout);
    rc = mismatches ? 1 : 0;
  }
  // The compiled program as C++ over the runtime, for dtensor-build.
  if (rc == 0 && cppPath) {
    FILE *out = fopen(cppPath, "w");
    if (!out) {
      fprintf(stderr, "framework-compile: error: cannot write '%s'\n", cppPath);
      rc = 1;
    } else {
      if (mlirLogicalResultIsFailure(dtensorTranslateToCpp(
              compiled, DTensorCppFlavourHost, print, out)))
        rc = 1;
      fclose(out);
    }
  }
  dtensorRunDestroy(run);
destroy:
  mlirModuleDestroy(compiled);
  mlirModuleDestroy(program);
done:
  mlirContextDestroy(ctx);
  return rc;
}
