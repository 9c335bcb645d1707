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
    if (anchors.back() == OpPassManager::getAnyOpAnchorName())
      continue; // an op-agnostic manager takes any pass
    for (Pass &pass : probe.getPasses())
      if (std::optional<llvm::StringRef> on = pass.getOpName();
          on && *on != anchors.back())
        return ("'" + name + "' runs on '" + *on + "' ops and cannot be nested in '" +
                anchors.back() + "(...)'")
            .str();
  }
  return std::nullopt;
}

std::optional<std::string>
dtensor::findMisnestedPass(llvm::StringRef anchoredPipeline) {
  return misnestedPass(anchoredPipeline.trim());
}

LogicalResult dtensor::parseModulePassPipeline(llvm::StringRef text,
                                               OpPassManager &pm,
                                               llvm::raw_ostream &errors) {
  // The module's own anchor, as `--pass-pipeline` writes it, is the pass
  // manager's: `builtin.module(P)` runs P (nested in the manager it would
  // run only on modules inside the module: nothing, silently).
  text = text.trim();
  if (text.consume_front("builtin.module(") ||
      text.consume_front("builtin.module (")) {
    int depth = 1;
    size_t close = 0;
    for (; close < text.size() && depth > 0; ++close)
      depth += text[close] == '(' ? 1 : text[close] == ')' ? -1 : 0;
    if (depth != 0 || !text.drop_front(close).trim().empty()) {
      errors << "unbalanced parentheses";
      return failure();
    }
    text = text.take_front(close - 1);
  }
  if (std::optional<std::string> why = misnestedPass(text)) {
    errors << *why;
    return failure();
  }
  return parsePassPipeline(text, pm, errors);
}
