//===- Cpp.h - the local view as a C++ program over the runtime -*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Emits a compiled (local view) module as one C++17 translation unit that
// includes `dtensor_rt/Runtime.h` and runs one rank of the program per MPI
// process: every function, and a `main` that reads each rank's shard of the
// inputs, runs an entry and writes each rank's outputs. docs/CodeGen.md
// describes the design and what is supported.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TARGET_CPP_H
#define DTENSOR_TARGET_CPP_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class DialectRegistry;
namespace dtensor {

/// Rewrites `module` (a compiled local view) into the subset the emitter
/// translates: element-wise ops on tensors become linalg.generic, aggregate
/// ops (softmax) are decomposed, and named structured ops other than fill
/// and plain matmul / batch_matmul are generalized.
LogicalResult prepareForCpp(ModuleOp module);

/// What the emitted translation unit is compiled as. The program text is the
/// same for both: every kernel is a `DTENSOR_KERNEL` lambda run by
/// `rt::parallel_for`, an OpenMP loop under a host compiler and a
/// grid-stride CUDA kernel under nvcc; only the file's preamble differs.
enum class CppFlavour { Host, Cuda };

/// Emits `module` (after prepareForCpp) as C++ (or CUDA C++). Unsupported
/// ops are errors at the op; nothing is written to `os` then.
LogicalResult emitCpp(ModuleOp module, raw_ostream &os,
                      CppFlavour flavour = CppFlavour::Host);

/// Registers `--dtensor-to-cpp` and `--dtensor-to-cuda` with MLIR's
/// translation registry.
void registerToCppTranslation();

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_TARGET_CPP_H
