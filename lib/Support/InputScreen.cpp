//===- InputScreen.cpp - reject input that crashes MLIR's own parsers -----===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Support/InputScreen.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
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
        size_t start = pos;
        skipString();
        afterRParen = false;
        // The generic form of tensor.concat: its `dim` property.
        llvm::StringRef name = text.slice(start, pos);
        if (name == "\"tensor.concat\"") {
          if (auto finding = checkGenericConcatDim())
            return finding;
        } else if (name == "\"tensor.from_elements\"") {
          size_t save = pos;
          std::optional<ScreenFinding> finding = checkGenericFromElements();
          pos = save;
          if (finding)
            return finding;
        }
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
        } else if (id == "linalg.transpose" || id == "linalg.broadcast" ||
                   id == "linalg.reduce") {
          // (A lookahead: the scan goes on from the op name either way.)
          size_t save = pos;
          std::optional<ScreenFinding> finding = checkLinalgListOp(id);
          pos = save;
          if (finding)
            return finding;
        } else if (id == "tensor.from_elements") {
          if (auto finding = checkFromElements())
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
      return negativeConcatDim(pos);
    return std::nullopt;
  }

  static std::optional<ScreenFinding> negativeConcatDim(size_t at) {
    return ScreenFinding{
        at, "tensor.concat's dimension must be non-negative (MLIR 22's "
            "verifier crashes on a negative one, so the input is rejected "
            "before parsing)"};
  }

  /// Skips a balanced region that starts at `pos` with `open` (strings and
  /// comments inside skipped); calls `f` at every identifier inside.
  template <typename F>
  std::optional<ScreenFinding> scanBalanced(char open, char close, F f) {
    int depth = 0;
    while (true) {
      skipTrivia();
      if (pos >= text.size())
        return std::nullopt;
      char c = text[pos];
      if (c == '"') {
        skipString();
        continue;
      }
      if (isIdStart(c)) {
        size_t start = pos;
        while (pos < text.size() && isIdChar(text[pos]))
          ++pos;
        if (auto finding = f(text.slice(start, pos)))
          return finding;
        continue;
      }
      if (c == '-' && pos + 1 < text.size() && text[pos + 1] == '>') {
        pos += 2; // an arrow (affine maps, function types) closes nothing
        continue;
      }
      ++pos;
      if (c == open)
        ++depth;
      else if (c == close && --depth <= 0)
        return std::nullopt;
    }
  }

  /// scanBalanced, looking at nothing inside.
  void skipBalanced(char open, char close) {
    (void)scanBalanced(open, close, [](llvm::StringRef) {
      return std::optional<ScreenFinding>();
    });
  }

  /// Whether the next token starts with `c` (trivia skipped).
  bool peek(char c) {
    skipTrivia();
    return pos < text.size() && text[pos] == c;
  }

  /// The identifier at `pos` (trivia skipped), consumed; empty if none.
  llvm::StringRef identifier() {
    skipTrivia();
    size_t start = pos;
    if (pos < text.size() && isIdStart(text[pos]))
      while (pos < text.size() && isIdChar(text[pos]))
        ++pos;
    return text.slice(start, pos);
  }

  /// An op's optional `<properties>` and `{attributes}`.
  void skipDictionaries() {
    if (peek('<'))
      skipBalanced('<', '>');
    if (peek('{'))
      skipBalanced('{', '}');
  }

  /// After the custom form of linalg.transpose, linalg.broadcast or
  /// linalg.reduce: their parsers read `{payload}`? (reduce only), then
  /// `<properties>`? `{attributes}`? (`ins(...)`)? (`outs(...)`)?, all
  /// optional, and then `permutation =` / `dimensions =` and a dense i64
  /// array, storing whatever that parse returns (null on failure, which
  /// crashes). The `) keyword =` rule of run() misses every form without
  /// `outs(...)` right before the keyword.
  std::optional<ScreenFinding> checkLinalgListOp(llvm::StringRef op) {
    if (op == "linalg.reduce" && peek('{'))
      skipBalanced('{', '}');
    skipDictionaries();
    llvm::StringRef keyword =
        op == "linalg.transpose" ? "permutation" : "dimensions";
    llvm::StringRef id = identifier();
    for (llvm::StringRef part : {"ins", "outs"}) {
      if (id != part)
        continue;
      if (peek('('))
        skipBalanced('(', ')');
      id = identifier();
    }
    if (id == keyword)
      return checkIntegerList(keyword);
    return std::nullopt;
  }


  /// After the generic form's `"tensor.concat"`: its operand list, then a
  /// properties dictionary `<{...}>` and/or an attribute dictionary `{...}`
  /// (the parser takes `dim` from either) in which `dim = -N` makes the
  /// verifier index the operand shape out of bounds.
  std::optional<ScreenFinding> checkGenericConcatDim() {
    auto dimIsNegative = [&](llvm::StringRef id) -> std::optional<ScreenFinding> {
      if (id != "dim")
        return std::nullopt;
      size_t save = pos;
      if (consume('=')) {
        skipTrivia();
        if (pos < text.size() && text[pos] == '-')
          return negativeConcatDim(pos);
      }
      pos = save;
      return std::nullopt;
    };
    if (peek('('))
      skipBalanced('(', ')');
    for (int dict = 0; dict < 2; ++dict) {
      skipTrivia();
      if (pos + 1 < text.size() && text[pos] == '<' && text[pos + 1] == '{') {
        ++pos; // then the braces
        if (auto finding = scanBalanced('{', '}', dimIsNegative))
          return finding;
        (void)consume('>');
      } else if (pos < text.size() && text[pos] == '{') {
        if (auto finding = scanBalanced('{', '}', dimIsNegative))
          return finding;
      } else {
        break;
      }
    }
    return std::nullopt;
  }

  /// After the custom form of `tensor.from_elements`: its parser makes one
  /// entry per element of the result type before it counts the operands, so
  /// a static type of more elements than a SmallVector holds aborts the
  /// process (and a billion allocates gigabytes). A type with more elements
  /// than operands is a parse error anyway: rejected here.
  std::optional<ScreenFinding> checkFromElements() {
    // `$elements attr-dict : type($result)`.
    int64_t operands = 0;
    while (true) {
      skipTrivia();
      if (pos >= text.size())
        return std::nullopt;
      char c = text[pos];
      if (c == '%') {
        ++operands;
        ++pos;
        while (pos < text.size() && isSuffixIdChar(text[pos]))
          ++pos;
        continue;
      }
      if (c == '#') { // a result number, %x#1
        ++pos;
        while (pos < text.size() && isSuffixIdChar(text[pos]))
          ++pos;
        continue;
      }
      if (c == ',') {
        ++pos;
        continue;
      }
      if (c == '{') {
        skipBalanced('{', '}');
        continue;
      }
      if (c == ':')
        break;
      return std::nullopt; // not the custom form: its parser reports it
    }
    ++pos;
    return checkElementCount(operands);
  }

  /// After the generic form's `"tensor.from_elements"`: the ODS verifier
  /// builds one entry per element of the result type to compare with the
  /// operands' types (the same abort). `(operands) <{...}>? {...}? :
  /// (types) -> tensor<...>`.
  std::optional<ScreenFinding> checkGenericFromElements() {
    if (!peek('('))
      return std::nullopt;
    size_t operandsStart = pos;
    skipBalanced('(', ')');
    int64_t operands = text.slice(operandsStart, pos).count('%');
    skipDictionaries();
    if (!peek(':'))
      return std::nullopt;
    ++pos;
    if (!peek('('))
      return std::nullopt;
    skipBalanced('(', ')');
    skipTrivia();
    if (!text.substr(pos).starts_with("->"))
      return std::nullopt;
    pos += 2;
    return checkElementCount(operands);
  }


  /// At a result type `tensor<NxMx...>` of a from_elements of `operands`
  /// elements: a finding when the type has more.
  std::optional<ScreenFinding> checkElementCount(int64_t operands) {
    skipTrivia();
    size_t typeStart = pos;
    if (!text.substr(pos).starts_with("tensor<"))
      return std::nullopt;
    pos += 7;
    // Static dims `NxMx...x` before the element type; saturating product.
    uint64_t elements = 1;
    constexpr uint64_t kCap = uint64_t(1) << 62;
    while (pos < text.size() && llvm::isDigit(text[pos])) {
      size_t start = pos;
      while (pos < text.size() && llvm::isDigit(text[pos]))
        ++pos;
      if (pos >= text.size() || text[pos] != 'x')
        return std::nullopt;
      uint64_t dim = 0;
      if (text.slice(start, pos).getAsInteger(10, dim) || dim > kCap)
        dim = kCap;
      elements = dim == 0 ? 0
                 : elements > kCap / dim ? kCap
                                         : elements * dim;
      ++pos; // the `x`
    }
    if (elements <= uint64_t(operands))
      return std::nullopt;
    return ScreenFinding{
        typeStart,
        ("tensor.from_elements lists " + llvm::Twine(operands) +
         " element(s) but its type has " +
         (elements >= kCap ? std::string("more than 2^62")
                           : std::to_string(elements)) +
         " (MLIR 22's parser and verifier make one entry per element of the "
         "type before they count, and abort on a large one, so the input is "
         "rejected before parsing)")
            .str()};
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
