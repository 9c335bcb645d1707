/*===-- dtensor-c/Interpreter.h - C API: run and verify programs --*- C -*-===*\
|*                                                                            *|
|* Part of dtensor-mlir.                                                      *|
|*                                                                            *|
|* The multi-rank interpreter behind `dtensor-run`, from C: run a function   *|
|* of a module on every rank of its mesh in one process, with given or       *|
|* generated inputs, optionally check a compiled (per-rank) module against   *|
|* it, and read every rank's outputs and the communication report. Same     *|
|* implementation as the tool (include/dtensor/Interpreter/Driver.h).        *|
|* Interpreter errors at ops go to the context's diagnostic handlers.        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef DTENSOR_C_INTERPRETER_H
#define DTENSOR_C_INTERPRETER_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One run: a program, an optional compiled program, an entry and inputs.
/// Owned by the caller (dtensorRunDestroy); the modules must outlive it.
typedef struct DTensorRun {
  void *ptr;
} DTensorRun;

/// A tensor the run holds, valid until the run is destroyed or executed
/// again. `dtype` is `f32`, `f64`, `f16`, `bf16`, `i1`, `i8`, `i16`, `i32`
/// or `i64`; data is dense row-major (i1 as one byte per element).
typedef struct DTensorTensorView {
  const char *dtype;
  intptr_t rank;
  const int64_t *shape;
  const void *data;
  int64_t numBytes;
} DTensorTensorView;

/// A run of `entry` of `program` (empty: the only public function, or
/// @main). With a non-null `compiled`, executing also runs its function of
/// the same name on each rank's shards and compares every output.
MLIR_CAPI_EXPORTED DTensorRun dtensorRunCreate(MlirModule program,
                                               MlirModule compiled,
                                               MlirStringRef entry,
                                               MlirStringCallback error,
                                               void *userData);
static inline bool dtensorRunIsNull(DTensorRun run) { return !run.ptr; }
MLIR_CAPI_EXPORTED void dtensorRunDestroy(DTensorRun run);

/// The number of ranks (the size of the program's mesh).
MLIR_CAPI_EXPORTED int64_t dtensorRunGetNumRanks(DTensorRun run);

/// Gives argument `index` its global value (copied). Arguments not given
/// are generated from the seed of dtensorRunExecute.
MLIR_CAPI_EXPORTED MlirLogicalResult dtensorRunSetInput(
    DTensorRun run, intptr_t index, MlirStringRef dtype, const int64_t *shape,
    intptr_t rank, const void *data, MlirStringCallback error, void *userData);
/// Gives argument `index` (one without a spec) rank `deviceRank`'s value;
/// every rank must then be given one.
MLIR_CAPI_EXPORTED MlirLogicalResult dtensorRunSetRankInput(
    DTensorRun run, intptr_t index, int64_t deviceRank, MlirStringRef dtype,
    const int64_t *shape, intptr_t rank, const void *data,
    MlirStringCallback error, void *userData);

/// Runs. Fails when an input does not fit or a program fails to run; a
/// compiled program whose outputs differ is not a failure: see
/// dtensorRunGetNumMismatches.
MLIR_CAPI_EXPORTED MlirLogicalResult dtensorRunExecute(DTensorRun run,
                                                       unsigned seed,
                                                       MlirStringCallback error,
                                                       void *userData);

MLIR_CAPI_EXPORTED intptr_t dtensorRunGetNumOutputs(DTensorRun run);
/// Output `index` on `deviceRank` (its local shard when distributed), or its
/// global value with deviceRank = -1 (fails when ranks hold different values
/// that no spec relates). A scalar output is a 0-d view of its type (an
/// index as i64). `compiled` picks the compiled program's outputs.
MLIR_CAPI_EXPORTED MlirLogicalResult
dtensorRunGetOutput(DTensorRun run, intptr_t index, int64_t deviceRank,
                    bool compiled, DTensorTensorView *view);
/// The spec of output `index` (`#dtensor.spec<@mesh, [S(0), R]>`) when it
/// is distributed or, in the compiled program, a shard of a distributed
/// value; nothing is printed otherwise (scalar outputs included).
MLIR_CAPI_EXPORTED void dtensorRunPrintOutputSpec(DTensorRun run,
                                                  intptr_t index,
                                                  bool compiled,
                                                  MlirStringCallback callback,
                                                  void *userData);
/// How many outputs of the compiled program differ from the original, and
/// why each does.
MLIR_CAPI_EXPORTED intptr_t dtensorRunGetNumMismatches(DTensorRun run);
MLIR_CAPI_EXPORTED void dtensorRunGetMismatch(DTensorRun run, intptr_t index,
                                              MlirStringCallback callback,
                                              void *userData);
/// The communication report (of the compiled run when there is one), as
/// text like `dtensor-run --report` or as JSON like `--report-json`.
MLIR_CAPI_EXPORTED void dtensorRunPrintReport(DTensorRun run, bool json,
                                              MlirStringCallback callback,
                                              void *userData);

#ifdef __cplusplus
}
#endif

#endif // DTENSOR_C_INTERPRETER_H
