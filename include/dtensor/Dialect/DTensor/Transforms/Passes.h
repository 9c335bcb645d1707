//===- Passes.h - dtensor passes --------------------------------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_H
#define DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_H

#include "dtensor/Dialect/DTensor/IR/DTensor.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace dtensor {

#define GEN_PASS_DECL
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"

/// Checks every distributed type (`#dtensor.spec` encodings) and mesh handle
/// in `root` against its mesh, as `--dtensor-verify` does: the symbol names a
/// `dtensor.mesh`, a view's dims exist, a spec has one placement per view dim
/// and shard dims within the tensor's rank. Emits at the op and fails. Every
/// pass that computes layouts runs it first, so none relies on IR the parser
/// accepted but nothing verified.
LogicalResult verifyDistributedTypes(Operation *root);

/// Checks that no op of the global view computes on a distributed tensor
/// (or on a value computed from one) with a value that differs from rank to
/// rank: one computed from a rank query (dtensor.mesh_coord, shard_size,
/// shard_offset), a to_local shard, a collective that does not reach every
/// rank, or control flow on such a value. Partitioning would apply each
/// rank's own value to each rank's own shard, which matches no global
/// program (DTensor, too, assumes such values are the same everywhere).
/// from_local and local_map are the per-rank ways in. Emits at each such op
/// with a note at the value's origin.
LogicalResult verifyUniformCompute(ModuleOp module);

/// Whether `op` is an all_reduce, all_gather or broadcast over every mesh
/// dim of more than one rank: it gives every rank the same value, whatever
/// its operand (verifyUniformCompute; the emitter's rank-divergence check).
bool reachesWholeMesh(Operation *op);

/// Checks propagation's attributes (`dtensor.operand_specs`,
/// `dtensor.result_specs`, `dtensor.arg_specs`, see Propagation.h) where
/// they appear: one entry per operand / result / argument, each a unit or a
/// spec valid for that value. Written by hand they are input too.
LogicalResult verifyPropagationAttrs(Operation *root);

/// parsePassPipeline for a pipeline run on a module: `text` may carry the
/// module's own anchor (`builtin.module(...)`, as --pass-pipeline writes
/// it), and a pass nested under another op's anchor than the one it runs on
/// (a module pass in `func.func(...)`, which MLIR's parser aborts the
/// process on) is an error written to `errors`.
LogicalResult parseModulePassPipeline(llvm::StringRef text, OpPassManager &pm,
                                      llvm::raw_ostream &errors);

/// The check parseModulePassPipeline makes, on a whole `--pass-pipeline`
/// text (`builtin.module(func.func(dtensor-compile))`): why a pass sits under
/// an anchor it cannot run on, or nothing. dtensor-opt asks it before MLIR's
/// own driver parses the option, which aborts the process on that case.
std::optional<std::string> findMisnestedPass(llvm::StringRef anchoredPipeline);

#define GEN_PASS_REGISTRATION
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_H
