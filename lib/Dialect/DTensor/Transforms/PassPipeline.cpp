//===- PassPipeline.cpp - Pipelines as text, checked ----------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

/// Checks that every pass of `text` (a pipeline as dtensor-opt's
/// --pass-pipeline or --dtensor-* options take it, without the module's
/// anchor) may run where the text nests it: MLIR aborts the process when a
/// pass restricted to one op is added under another's anchor (a module pass
/// inside `func.func(...)`), so that case is an error here. Text it cannot
/// follow is left to the pipeline parser.
static std::optional<std::string> misnestedPass(llvm::StringRef text) {
  std::vector<std::string> anchors{"builtin.module"};
  auto isNameChar = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '-' || c == '.';
  };
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == ',' || llvm::isSpace(c)) {
      ++i;
      continue;
    }
    if (c == ')') {
      if (anchors.size() > 1)
        anchors.pop_back();
      ++i;
      continue;
    }
    if (!isNameChar(c))
      return std::nullopt;
    size_t start = i;
    while (i < text.size() && isNameChar(text[i]))
      ++i;
    llvm::StringRef name = text.slice(start, i);
    while (i < text.size() && llvm::isSpace(text[i]))
      ++i;
    if (i < text.size() && text[i] == '(') {
      anchors.push_back(name.str());
      ++i;
      continue;
    }
    llvm::StringRef options;
    if (i < text.size() && text[i] == '{') {
      size_t open = i, depth = 0;
      for (; i < text.size(); ++i) {
        depth += text[i] == '{';
        depth -= text[i] == '}';
        if (depth == 0)
          break;
      }
      if (i == text.size())
        return std::nullopt;
      options = text.slice(open + 1, i);
      ++i;
    }
    const PassRegistryEntry *entry = PassInfo::lookup(name);
    if (!entry)
      entry = PassPipelineInfo::lookup(name);
    if (!entry)
      continue; // the parser says so
    OpPassManager probe(OpPassManager::getAnyOpAnchorName(),
                        OpPassManager::Nesting::Explicit);
    if (failed(entry->addToPipeline(probe, options, [](const Twine &) {
          return failure();
        })))
      continue; // bad options: the parser says so
    for (Pass &pass : probe.getPasses()) {
      std::optional<llvm::StringRef> on = pass.getOpName();
      if (!on)
        continue; // an op-agnostic pass runs anywhere
      if (anchors.back() != OpPassManager::getAnyOpAnchorName() &&
          *on != anchors.back())
        return ("'" + name + "' runs on '" + *on + "' ops and cannot be nested in '" +
                anchors.back() + "(...)'")
            .str();
      // A module pass nested under `any(...)` or an inner
      // `builtin.module(...)` runs on modules inside the module:
      // none, so nothing would be compiled, silently.
      if (*on == ModuleOp::getOperationName() && anchors.size() > 1)
        return ("'" + name + "' runs on the module itself and cannot be nested in '" +
                anchors.back() +
                "(...)', where it would run only on modules inside the module "
                "(none: nothing would be compiled)")
            .str();
    }
  }
  return std::nullopt;
}

/// `text` without the root's anchor, `builtin.module(...)` or `any(...)`
/// (both the module the pipeline runs on); nullopt when the parentheses do
/// not balance.
static std::optional<llvm::StringRef> withoutRootAnchor(llvm::StringRef text) {
  text = text.trim();
  for (llvm::StringRef anchor : {"builtin.module", "any"}) {
    llvm::StringRef rest = text;
    if (!rest.consume_front(anchor))
      continue;
    rest = rest.ltrim();
    if (!rest.consume_front("("))
      continue;
    int depth = 1;
    size_t close = 0;
    for (; close < rest.size() && depth > 0; ++close)
      depth += rest[close] == '(' ? 1 : rest[close] == ')' ? -1 : 0;
    if (depth != 0)
      return std::nullopt;
    if (!rest.drop_front(close).trim().empty())
      return text; // `any(P),Q`: an anchor among others, not the root's
    return rest.take_front(close - 1);
  }
  return text;
}

std::optional<std::string>
dtensor::findMisnestedPass(llvm::StringRef anchoredPipeline) {
  std::optional<llvm::StringRef> inner = withoutRootAnchor(anchoredPipeline);
  if (!inner)
    return std::nullopt; // MLIR's parser says what is wrong
  return misnestedPass(*inner);
}

LogicalResult dtensor::parseModulePassPipeline(llvm::StringRef text,
                                               OpPassManager &pm,
                                               llvm::raw_ostream &errors) {
  // The module's own anchor, as `--pass-pipeline` writes it
  // (`builtin.module(P)` or `any(P)`), is the pass manager's: nested in the
  // manager it would run P only on ops inside the module.
  std::optional<llvm::StringRef> inner = withoutRootAnchor(text);
  if (!inner) {
    errors << "unbalanced parentheses";
    return failure();
  }
  text = *inner;
  if (std::optional<std::string> why = misnestedPass(text)) {
    errors << *why;
    return failure();
  }
  return parsePassPipeline(text, pm, errors);
}
