//===- ToolOptions.h - what --help and --version of our tools say -*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// LLVM's shared library registers some 400 command-line options when it is
// loaded (backend and target flags), and LLVM's --version names LLVM. Our
// tools call these first thing in main, before they register their own or
// MLIR's options, so that --help lists what a user of this project can set
// and --version names this project.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_SUPPORT_TOOLOPTIONS_H
#define DTENSOR_SUPPORT_TOOLOPTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

#include "dtensor/Config/Version.h"

namespace mlir {
namespace dtensor {

/// Hides from --help every option registered so far (LLVM's, registered
/// when its library loaded) unless it is in one of `keep` (the tool's own,
/// declared as statics) or one of the generic ones (--help, --version,
/// --color). Options registered afterwards (MLIR's, passes, pipelines,
/// translations) stay listed.
inline void
hideLibraryOptions(llvm::ArrayRef<const llvm::cl::OptionCategory *> keep) {
  static const llvm::StringRef generic[] = {
      "help", "help-hidden", "help-list", "help-list-hidden", "version",
      "color", "print-options", "print-all-options"};
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::cl::Option *option = entry.second;
    if (llvm::is_contained(generic, entry.first))
      continue;
    bool ours = llvm::any_of(option->Categories,
                             [&](const llvm::cl::OptionCategory *c) {
                               return llvm::is_contained(keep, c);
                             });
    if (!ours)
      option->setHiddenFlag(llvm::cl::ReallyHidden);
  }
}

/// Whether the command line sets --mlir-print-op-on-diagnostic itself.
inline bool printOpOnDiagnosticGiven(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (llvm::StringRef(argv[i]).contains("mlir-print-op-on-diagnostic"))
      return true;
  return false;
}

/// `argv` with --mlir-print-op-on-diagnostic=false added unless it sets the
/// flag: a diagnostic at an op then prints its location and message, not
/// the op in generic form (for a function, hundreds of lines). For tools
/// whose MLIR context the MLIR driver creates (dtensor-opt,
/// dtensor-translate).
inline std::vector<char *> quietOpDiagnostics(int argc, char **argv) {
  static char flag[] = "--mlir-print-op-on-diagnostic=false";
  std::vector<char *> args(argv, argv + argc);
  if (!printOpOnDiagnosticGiven(argc, argv))
    args.insert(args.begin() + (argc > 0 ? 1 : 0), flag);
  args.push_back(nullptr);
  return args;
}

/// --version: this project's version and the LLVM/MLIR it was built on.
inline void setVersionPrinter(llvm::StringRef tool) {
  std::string name = tool.str();
  llvm::cl::SetVersionPrinter([name](llvm::raw_ostream &os) {
    os << name << " (dtensor-mlir " << DTENSOR_VERSION << ")\n"
       << "  built on LLVM/MLIR " << LLVM_VERSION_STRING << "\n";
  });
}

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_SUPPORT_TOOLOPTIONS_H
