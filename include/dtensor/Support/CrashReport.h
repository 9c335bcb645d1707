//===- CrashReport.h - where a crash of our tools is reported ----*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_SUPPORT_CRASHREPORT_H
#define DTENSOR_SUPPORT_CRASHREPORT_H

#include "llvm/Support/PrettyStackTrace.h"

namespace mlir {
namespace dtensor {

/// What a crash of one of our tools asks the user to do: report it to this
/// project (the stack is ours far more often than LLVM's), not to
/// llvm-project as LLVM's default message says.
inline void setCrashReportMessage() {
  llvm::setBugReportMsg(
      "PLEASE report this crash to dtensor-mlir (not to llvm-project): open "
      "an issue in the dtensor-mlir repository with the input file, the "
      "command line and the stack dump below (docs/Development.md, "
      "\"Reporting a crash\").\n");
}

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_SUPPORT_CRASHREPORT_H
