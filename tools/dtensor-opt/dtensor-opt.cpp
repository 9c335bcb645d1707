//===- dtensor-opt.cpp - the dtensor-mlir optimizer driver ----------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with our dialects and passes, and one step before parsing: the
// input screen (dtensor/Support/InputScreen.h) rejects, with an error at the
// location, the few malformed spellings that crash MLIR 22's own parsers.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "dtensor/InitAll.h"
#include "dtensor/Support/InputScreen.h"
#include "dtensor/Support/ToolOptions.h"

#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

int main(int rawArgc, char **rawArgv) {
  // A diagnostic prints its location and message, not the op in generic
  // form, unless --mlir-print-op-on-diagnostic says otherwise.
  std::vector<char *> args = mlir::dtensor::quietOpDiagnostics(rawArgc, rawArgv);
  int argc = static_cast<int>(args.size()) - 1;
  char **argv = args.data();
  mlir::dtensor::setCrashReportMessage();
  mlir::dtensor::hideLibraryOptions({});
  mlir::dtensor::setVersionPrinter("dtensor-opt");
  mlir::DialectRegistry registry;
  mlir::dtensor::registerAllDialects(registry);
  mlir::dtensor::registerAllPasses();

  // MLIR's driver aborts the process (LLVM ERROR) on a pass nested under an
  // anchor it cannot run on, as `--pass-pipeline='builtin.module(func.func(
  // dtensor-compile))'`: the same text is checked here first, as the C API,
  // Python and dtensor-run check theirs.
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (!arg.consume_front("--pass-pipeline") &&
        !arg.consume_front("-pass-pipeline"))
      continue;
    std::optional<llvm::StringRef> text;
    if (arg.consume_front("="))
      text = arg;
    else if (arg.empty() && i + 1 < argc)
      text = llvm::StringRef(argv[i + 1]);
    if (!text)
      continue;
    if (std::optional<std::string> why =
            mlir::dtensor::findMisnestedPass(*text)) {
      llvm::errs() << "error: --pass-pipeline: " << *why
                   << "; a pass on 'builtin.module' ops goes at the top level, "
                      "as --pass-pipeline='builtin.module(dtensor-compile)'\n";
      return 1;
    }
  }

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "dtensor-mlir optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  // Listings read no input: mlir-opt's own driver prints them.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        argc, argv, inputFilename, outputFilename, registry));

  llvm::InitLLVM initLLVM(argc, argv);
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  {
    // The screen reads the buffer in place; the SourceMgr only borrows it
    // for the error's file:line:col.
    llvm::SourceMgr sourceMgr;
    unsigned id = sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(file->getMemBufferRef(),
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    if (!mlir::dtensor::screenSourceBuffer(sourceMgr, id))
      return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(file), registry,
                                     config)))
    return 1;
  output->keep();
  return 0;
}
