//===- InputScreen.cpp - reject input that crashes MLIR's own parsers -----===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Support/InputScreen.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

using namespace mlir::dtensor;

namespace {

bool isIdStart(char c) { return llvm::isAlpha(c) || c == '_'; }
bool isIdChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}
bool isSuffixIdChar(char c) { return isIdChar(c) || c == '-'; }

/// A lexical scan of MLIR's textual form, just fine enough to find the
/// spellings InputScreen.h lists: it knows identifiers, sigil names,
/// numbers, string literals and `//` comments, and treats anything else as
/// one punctuation character.
class Scanner {
public:
  explicit Scanner(llvm::StringRef text) : text(text) {}

  std::optional<ScreenFinding> run() {
    while (true) {
      skipTrivia();
      if (pos >= text.size())
        return std::nullopt;
      char c = text[pos];
      if (c == '"') {
        skipString();
        afterRParen = false;
        continue;
      }
      if (c == '%' || c == '^' || c == '#' || c == '!' || c == '@') {
        ++pos;
        while (pos < text.size() && isSuffixIdChar(text[pos]))
          ++pos;
        afterRParen = false;
        continue;
      }
      if (isIdStart(c)) {
        size_t start = pos;
        while (pos < text.size() && isIdChar(text[pos]))
          ++pos;
        llvm::StringRef id = text.slice(start, pos);
        bool keywordAfterOperands = afterRParen;
        afterRParen = false;
        if (keywordAfterOperands &&
            (id == "permutation" || id == "dimensions")) {
          if (auto finding = checkIntegerList(id))
            return finding;
        } else if (id == "tensor.concat") {
          if (auto finding = checkConcatDim())
            return finding;
        }
        continue;
      }
      if (llvm::isDigit(c)) {
        while (pos < text.size() && (isIdChar(text[pos])))
          ++pos;
        afterRParen = false;
        continue;
      }
      afterRParen = c == ')';
      ++pos;
    }
  }

private:
  void skipTrivia() {
    while (pos < text.size()) {
      char c = text[pos];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos;
      } else if (c == '/' && pos + 1 < text.size() && text[pos + 1] == '/') {
        while (pos < text.size() && text[pos] != '\n')
          ++pos;
      } else {
        return;
      }
    }
  }

  void skipString() {
    ++pos; // the opening quote
    while (pos < text.size() && text[pos] != '"' && text[pos] != '\n') {
      if (text[pos] == '\\' && pos + 1 < text.size())
        ++pos;
      ++pos;
    }
    if (pos < text.size())
      ++pos; // the closing quote (or the newline the lexer stops at)
  }

  bool consume(char c) {
    skipTrivia();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  /// One element of a DenseI64ArrayAttr: `-`? (decimal | 0x hex) that fits
  /// in int64_t.
  bool integer() {
    skipTrivia();
    bool negative = false;
    if (pos < text.size() && text[pos] == '-') {
      negative = true;
      ++pos;
      skipTrivia();
    }
    if (pos >= text.size() || !llvm::isDigit(text[pos]))
      return false;
    unsigned radix = 10;
    if (text[pos] == '0' && pos + 2 < text.size() && text[pos + 1] == 'x' &&
        llvm::isHexDigit(text[pos + 2])) {
      radix = 16;
      pos += 2;
    }
    size_t start = pos;
    while (pos < text.size() &&
           (radix == 16 ? llvm::isHexDigit(text[pos]) : llvm::isDigit(text[pos])))
      ++pos;
    // A float or an identifier glued on: not an integer token.
    if (pos < text.size() && (isIdChar(text[pos]) || text[pos] == '-'))
      return false;
    uint64_t magnitude = 0;
    if (text.slice(start, pos).getAsInteger(radix, magnitude))
      return false;
    uint64_t limit = static_cast<uint64_t>(INT64_MAX) + (negative ? 1 : 0);
    return magnitude <= limit;
  }

  /// After `permutation` / `dimensions` following an operand list: when an
  /// `=` follows, the value must be `[` (integer (`,` integer)*)? `]`.
  std::optional<ScreenFinding> checkIntegerList(llvm::StringRef keyword) {
    if (!consume('='))
      return std::nullopt; // the op parser fails cleanly without `=`
    skipTrivia();
    size_t valueStart = pos;
    auto reject = [&]() {
      return ScreenFinding{
          valueStart,
          ("expected a list of 64-bit integers such as [1, 0] after '" +
           keyword +
           " =' (MLIR 22's linalg parser crashes on anything else here, so "
           "the input is rejected before parsing)")
              .str()};
    };
    if (!consume('['))
      return reject();
    if (consume(']'))
      return std::nullopt;
    do {
      if (!integer())
        return reject();
    } while (consume(','));
    if (!consume(']'))
      return reject();
    return std::nullopt;
  }

  /// After `tensor.concat`: `dim(-N)` makes MLIR 22's verifier index the
  /// operand shape out of bounds.
  std::optional<ScreenFinding> checkConcatDim() {
    skipTrivia();
    if (!text.substr(pos).starts_with("dim"))
      return std::nullopt;
    size_t save = pos;
    pos += 3;
    if (pos < text.size() && isIdChar(text[pos])) {
      pos = save;
      return std::nullopt;
    }
    if (!consume('(')) {
      pos = save;
      return std::nullopt;
    }
    skipTrivia();
    if (pos < text.size() && text[pos] == '-')
      return ScreenFinding{
          pos, "tensor.concat's dimension must be non-negative (MLIR 22's "
               "verifier crashes on a negative one, so the input is rejected "
               "before parsing)"};
    return std::nullopt;
  }

  llvm::StringRef text;
  size_t pos = 0;
  bool afterRParen = false;
};

} // namespace

std::optional<ScreenFinding>
mlir::dtensor::screenForParserCrashes(llvm::StringRef text) {
  return Scanner(text).run();
}

bool mlir::dtensor::screenSourceBuffer(llvm::SourceMgr &sourceMgr,
                                       unsigned bufferId) {
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(bufferId);
  std::optional<ScreenFinding> finding =
      screenForParserCrashes(buffer->getBuffer());
  if (!finding)
    return true;
  sourceMgr.PrintMessage(
      llvm::errs(),
      llvm::SMLoc::getFromPointer(buffer->getBufferStart() + finding->offset),
      llvm::SourceMgr::DK_Error, finding->message);
  return false;
}
