//===- InputScreen.h - reject input that crashes MLIR's own parsers -*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// MLIR 22's parsers crash, before any code of ours runs, on a few malformed
// spellings of upstream ops (fuzzing found them; docs/Robustness.md lists
// them). Our tools look at the source text first and reject those spellings
// with an error at the location, so that a typo is a diagnostic, never a
// SIGSEGV:
//
//   - `linalg.transpose ... permutation = X`, `linalg.broadcast ...
//     dimensions = X` and `linalg.reduce ... dimensions = X` where X is not a
//     bracketed list of 64-bit integers: the op parser stores the null
//     attribute a failed parse leaves (`NamedAttrList::set`);
//   - `tensor.concat dim(-N)`, and `dim = -N` in the generic form's
//     properties or attributes: the verifier indexes the shape with it;
//   - `tensor.from_elements` (custom or generic form) whose static type has
//     more elements than it lists: the parser or the verifier allocates one
//     entry per element of the type before counting (abort on a huge one).
//
// The screen is a lexical scan (strings and comments skipped) and accepts
// every spelling the parsers accept without crashing; anything it passes goes
// to the real parser unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_SUPPORT_INPUTSCREEN_H
#define DTENSOR_SUPPORT_INPUTSCREEN_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
namespace dtensor {

/// One spelling the screen rejects: where, and why.
struct ScreenFinding {
  size_t offset = 0;
  std::string message;
};

/// The first spelling in `text` that would crash MLIR's parser or verifier,
/// if any.
std::optional<ScreenFinding> screenForParserCrashes(llvm::StringRef text);

/// Screens buffer `bufferId` of `sourceMgr`; on a finding, prints an error at
/// its location (file:line:col, with the line) to stderr and returns false.
bool screenSourceBuffer(llvm::SourceMgr &sourceMgr, unsigned bufferId);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_SUPPORT_INPUTSCREEN_H
