//===- dtensor-opt.cpp - the dtensor-mlir optimizer driver ----------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/InitAll.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::dtensor::setCrashReportMessage();
  mlir::DialectRegistry registry;
  mlir::dtensor::registerAllDialects(registry);
  mlir::dtensor::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "dtensor-mlir optimizer driver\n", registry));
}
