/*===-- dtensor-c/Target.h - C API: code generation ---------------*- C -*-===*\
|*                                                                            *|
|* Part of dtensor-mlir.                                                      *|
|*                                                                            *|
|* The emitters of `dtensor-translate` for embedding compilers: a compiled   *|
|* (local view) module as one C++ translation unit over the runtime          *|
|* (`--dtensor-to-cpp`) or the same program as CUDA C++ (`--dtensor-to-cuda`)*|
|* (docs/CodeGen.md). Build the text with `dtensor-build`, or with the       *|
|* runtime of the installed CMake package.                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef DTENSOR_C_TARGET_H
#define DTENSOR_C_TARGET_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// What the emitted translation unit is compiled as: a host C++ program
/// (MPI, OpenMP, OpenBLAS) or a CUDA one (nvcc; NCCL or MPI staged through
/// host memory, chosen when it is built). The program text is the same;
/// only the preamble differs.
typedef enum DTensorCppFlavour {
  DTensorCppFlavourHost = 0,
  DTensorCppFlavourCuda = 1,
} DTensorCppFlavour;

/// Emits `module`, a compiled local view (the output of the
/// `dtensor-compile` pipeline), as C++ of `flavour`, passing the text to
/// `callback` (in one or more pieces). `module` is left as it was: the
/// emitter's own rewrites (element-wise fusion, decompositions) run on a
/// copy. An op the emitter does not support, or a global-view module, is an
/// error at the op through the context's diagnostic handlers; the result is
/// then a failure and `callback` is not called.
MLIR_CAPI_EXPORTED MlirLogicalResult
dtensorTranslateToCpp(MlirModule module, DTensorCppFlavour flavour,
                      MlirStringCallback callback, void *userData);

#ifdef __cplusplus
}
#endif

#endif // DTENSOR_C_TARGET_H
