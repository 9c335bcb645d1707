//===- dtensor-translate.cpp - compiled programs to source code -----------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// mlir-translate with our translations: `--dtensor-to-cpp` emits a compiled
// (local view) module as a C++ program over MPI (docs/CodeGen.md). The
// translations screen their input as dtensor-opt does (InputScreen.h).
//
//===----------------------------------------------------------------------===//

#include "dtensor/InitAll.h"
#include "dtensor/Support/ToolOptions.h"
#include "dtensor/Target/Cpp.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int rawArgc, char **rawArgv) {
  std::vector<char *> args = mlir::dtensor::quietOpDiagnostics(rawArgc, rawArgv);
  int argc = static_cast<int>(args.size()) - 1;
  char **argv = args.data();
  mlir::dtensor::setCrashReportMessage();
  mlir::dtensor::hideLibraryOptions({});
  mlir::dtensor::setVersionPrinter("dtensor-translate");
  mlir::dtensor::registerToCppTranslation();
  return mlir::failed(mlir::mlirTranslateMain(
      argc, argv, "dtensor-mlir translation driver\n"));
}
