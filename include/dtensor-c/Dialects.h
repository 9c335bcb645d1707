/*===-- dtensor-c/Dialects.h - C API: dialect and passes ----------*- C -*-===*\
|*                                                                            *|
|* Part of dtensor-mlir.                                                      *|
|*                                                                            *|
|* Registration in MLIR's C API conventions: the dialect handle, the         *|
|* upstream dialects global-view programs are written in (with the sharding  *|
|* rules of their ops), and our passes plus the `dtensor-compile` pipeline,  *|
|* so `mlirParsePassPipeline` and `dtensorRunPassPipeline` know them.        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef DTENSOR_C_DIALECTS_H
#define DTENSOR_C_DIALECTS_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// mlirGetDialectHandle__dtensor__(): the `dtensor` dialect alone.
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(DTensor, dtensor);

/// Inserts our dialect and the upstream ones programs use (func, arith, math,
/// tensor, linalg, scf) into `registry`, with the sharding rules of their
/// ops. Without the rules, propagation treats upstream ops as opaque.
MLIR_CAPI_EXPORTED void
dtensorRegisterRequiredDialects(MlirDialectRegistry registry);

/// Registers our passes (`dtensor-propagate`, `dtensor-partition`, ...), the
/// `dtensor-compile` pipeline and the upstream cleanups it uses in the global
/// pass registry. Idempotent.
MLIR_CAPI_EXPORTED void dtensorRegisterPasses(void);

/// Whether a diagnostic at an op also prints the op (MLIR's default: yes,
/// in generic form, which for an op with a body is the whole body).
/// dtensor's tools and the Python package turn it off: the location says
/// where, and one line says what.
MLIR_CAPI_EXPORTED void dtensorContextSetPrintOpOnDiagnostic(MlirContext context,
                                                            bool enable);

/// Parses `text` as a module whose locations name `sourceName`, like
/// mlirModuleCreateParse, after screening it for spellings that crash MLIR
/// 22's own parsers (those are reported as errors at their location
/// instead). Errors go to the context's diagnostic handlers; the module is
/// null when there is one.
MLIR_CAPI_EXPORTED MlirModule dtensorParseModule(MlirContext context,
                                                 MlirStringRef text,
                                                 MlirStringRef sourceName);

/// Runs the textual pass pipeline `pipeline` (e.g. `dtensor-compile` or
/// `dtensor-propagate,dtensor-partition`, with or without the module's own
/// anchor `builtin.module(...)`) on `module` in place. A pipeline that does
/// not parse, or nests a pass under another op than the one it runs on, is
/// reported through `error`; failures of passes go
/// to the context's diagnostic handlers (mlirContextAttachDiagnosticHandler),
/// with their locations, and `error` says which pipeline failed.
MLIR_CAPI_EXPORTED MlirLogicalResult
dtensorRunPassPipeline(MlirModule module, MlirStringRef pipeline,
                       MlirStringCallback error, void *userData);

#ifdef __cplusplus
}
#endif

#endif // DTENSOR_C_DIALECTS_H
