//===- framework-opt.cpp - an opt tool that embeds dtensor-mlir ----------===//
//
// What a framework compiler adds to its own opt-like driver to use
// dtensor-mlir: our dialect and the dialects programs use (with the sharding
// rules of their ops), our passes and the dtensor-compile pipeline. A real
// framework registers its own dialects and passes next to these.
//
//===----------------------------------------------------------------------===//

#include "dtensor/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::dtensor::registerAllDialects(registry);
  mlir::dtensor::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "framework-opt: an opt tool with dtensor-mlir inside\n",
      registry));
}
