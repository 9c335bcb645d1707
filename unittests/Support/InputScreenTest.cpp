//===- InputScreenTest.cpp - Tests for the input screen ---------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// The screen must reject every spelling that crashes MLIR 22's linalg and
// tensor parsers (InputScreen.h) and accept everything valid, including the
// same words in strings, comments, attribute dictionaries and generic form.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Support/InputScreen.h"

#include "gtest/gtest.h"

#include <string>

using mlir::dtensor::screenForParserCrashes;

namespace {

const char *kTranspose =
    "%t = linalg.transpose ins(%a : tensor<2x3xf32>) "
    "outs(%b : tensor<3x2xf32>) permutation = ";

bool rejects(const std::string &text) {
  return screenForParserCrashes(text).has_value();
}

TEST(InputScreen, AcceptsValidLists) {
  for (const char *list :
       {"[1, 0]", "[]", "[ ]", "[0]", "[-1, 2]", "[0x1, 0]", "[\n 1 ,\n 0 ]",
        "[1, // a comment\n 0]", "[9223372036854775807]",
        "[-9223372036854775808]", "[- 1]"})
    EXPECT_FALSE(rejects(std::string(kTranspose) + list)) << list;
}

TEST(InputScreen, RejectsMalformedLists) {
  for (const char *list :
       {"1, 0", "[1, 0", "[1,]", "[,]", "[a]", "[1.5]", "[1e3]", "[0x]",
        "[9223372036854775808]", "[-9223372036854775809]",
        "[99999999999999999999999]", "array<i64: 1, 0>", "", "[1 0]",
        "[1, %x]", "[\"1\"]"}) {
    std::string text = std::string(kTranspose) + list;
    auto finding = screenForParserCrashes(text);
    ASSERT_TRUE(finding.has_value()) << list;
    // The error points at the value, right after `permutation = `.
    EXPECT_EQ(finding->offset, std::string(kTranspose).size()) << list;
    EXPECT_NE(finding->message.find("permutation"), std::string::npos);
  }
}

TEST(InputScreen, BroadcastAndReduce) {
  EXPECT_TRUE(rejects("linalg.broadcast ins(%a : tensor<2xf32>) outs(%b : "
                      "tensor<2x3xf32>) dimensions = 1"));
  EXPECT_FALSE(rejects("linalg.broadcast ins(%a : tensor<2xf32>) outs(%b : "
                       "tensor<2x3xf32>) dimensions = [1]"));
  // The short form puts the combiner before the operands.
  EXPECT_TRUE(rejects("linalg.reduce { arith.addf } ins(%a : tensor<2x3xf32>) "
                      "outs(%b : tensor<2xf32>) dimensions = [1,"));
  EXPECT_FALSE(rejects("linalg.reduce ins(%a : tensor<2x3xf32>) outs(%b : "
                       "tensor<2xf32>) dimensions = [1] (%x: f32, %y: f32) "
                       "{ %s = arith.addf %x, %y : f32 linalg.yield %s : f32 }"));
  // Without `=` the op parser fails cleanly on its own.
  EXPECT_FALSE(rejects("linalg.reduce ins(%a : t) outs(%b : t) dimensions"));
}

TEST(InputScreen, LeavesOtherSpellingsAlone) {
  // Attribute dictionaries and generic form use `array<i64: ...>`, which the
  // generic attribute parser handles without crashing.
  EXPECT_FALSE(rejects("\"linalg.transpose\"(%a, %b) <{permutation = "
                       "array<i64: 1, 0>}> : (t, t) -> t"));
  EXPECT_FALSE(rejects("foo.op {dimensions = 3 : i64}"));
  EXPECT_FALSE(rejects("foo.op(%a) {dimensions = 3 : i64}"));
  // Strings and comments are not code.
  EXPECT_FALSE(rejects("foo.op() {s = \") permutation = 1\"}"));
  EXPECT_FALSE(rejects("// outs(%b) permutation = 1\nfoo.op"));
  EXPECT_FALSE(rejects("foo.op() {s = \"\\\") permutation = 1\"}"));
  // Sigil names and longer identifiers are not the keyword.
  EXPECT_FALSE(rejects("f(%a) %permutation = 1"));
  EXPECT_FALSE(rejects("f(%a) permutations = 1"));
}

TEST(InputScreen, ConcatDimension) {
  EXPECT_TRUE(rejects("%c = tensor.concat dim(-1) %a, %b : (t, t) -> t"));
  EXPECT_TRUE(rejects("%c = tensor.concat dim( - 1) %a, %b : (t, t) -> t"));
  EXPECT_FALSE(rejects("%c = tensor.concat dim(0) %a, %b : (t, t) -> t"));
  EXPECT_FALSE(rejects("%c = \"tensor.concat\"(%a) <{dim = 0 : i64}> : t"));
  EXPECT_FALSE(rejects("%c = tensor.concat dimension(-1)"));
}

TEST(InputScreen, LinalgListsWithoutOperandLists) {
  // ins(...) and outs(...) are optional, and properties and attributes may
  // come before them: the list after the keyword is checked in every form.
  for (const char *text :
       {"linalg.transpose permutation = 1",
        "linalg.transpose {x = 1} permutation = 1",
        "linalg.transpose <{permutation = array<i64: 0>}> permutation = 1",
        "linalg.transpose <{m = affine_map<(d0) -> (d0)>}> {y = \">\"} "
        "permutation = 1",
        "linalg.transpose ins(%a : t) permutation = [1",
        "linalg.transpose outs(%a : t) permutation = x",
        "linalg.broadcast dimensions = 1",
        "linalg.broadcast {x} ins(%a : t) outs(%b : t) dimensions = [1.0]",
        "linalg.reduce { arith.addf } dimensions = 1",
        "linalg.reduce {arith.maximumf {fastmath = #arith.fastmath<fast>}} "
        "dimensions = [a]"})
    EXPECT_TRUE(rejects(text)) << text;
  for (const char *text :
       {"linalg.transpose permutation = [1, 0]",
        "linalg.transpose ins(%a : t) outs(%b : t) permutation = [1, 0] {x}",
        "linalg.reduce { arith.addf } ins(%a : t) outs(%b : t) dimensions = []",
        "linalg.broadcast <{dimensions = array<i64: 1>}> ins(%a : t) "
        "outs(%b : t) dimensions = [1]",
        // Without the keyword the parser fails cleanly.
        "linalg.transpose ins(%a : t) outs(%b : t) {x}",
        "linalg.reduce { arith.addf } (%x: f32)"})
    EXPECT_FALSE(rejects(text)) << text;
}

TEST(InputScreen, GenericConcatDimension) {
  // The generic form takes `dim` from its properties or its attributes.
  EXPECT_TRUE(rejects("%c = \"tensor.concat\"(%a, %b) <{dim = -1 : i64}> : "
                      "(t, t) -> t"));
  EXPECT_TRUE(rejects("%c = \"tensor.concat\"(%a, %b) {dim = - 2 : i64} : "
                      "(t, t) -> t"));
  EXPECT_TRUE(rejects("%c = \"tensor.concat\"(%a) <{x = 1}> {y = \"}\", "
                      "dim = -1 : i64} : (t) -> t"));
  EXPECT_FALSE(rejects("%c = \"tensor.concat\"(%a) <{dim = 1 : i64}> "
                       "{note = -1 : i64} : (t) -> t"));
  EXPECT_FALSE(rejects("%c = \"tensor.concat\"(%a) {s = \"dim = -1\"} : t"));
  // Another op's `dim`, or the name in a string elsewhere, is not concat's.
  EXPECT_FALSE(rejects("%c = \"tensor.dim\"(%a) {dim = -1 : i64} : t"));
  EXPECT_FALSE(rejects("foo.op {s = \"tensor.concat\"} {dim = -1}"));
  // The operands come first: a `dim` among them is not the property.
  EXPECT_FALSE(rejects("%c = \"tensor.concat\"(%dim) <{dim = 0 : i64}> : t"));
}

TEST(InputScreen, FromElementsCount) {
  EXPECT_TRUE(rejects("%t = tensor.from_elements %a : tensor<100000000000xf32>"));
  EXPECT_TRUE(rejects("%t = tensor.from_elements %a : "
                      "tensor<99999999999999999999999x2xf32>"));
  EXPECT_TRUE(rejects("%t = tensor.from_elements %a, %b : tensor<65536x65536xi8>"));
  EXPECT_TRUE(rejects("%t = tensor.from_elements %a : tensor<3xf32>"));
  auto finding = screenForParserCrashes(
      "%t = tensor.from_elements %a : tensor<4294967296xf32>");
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->offset, std::string("%t = tensor.from_elements %a : ").size());
  EXPECT_NE(finding->message.find("lists 1 element(s) but its type has "
                                  "4294967296"),
            std::string::npos);
  EXPECT_FALSE(rejects("%t = tensor.from_elements %a, %b : tensor<2xf32>"));
  EXPECT_FALSE(rejects("%t = tensor.from_elements %a, %b#1 {n = 1} : "
                       "tensor<1x2xf32>"));
  EXPECT_FALSE(rejects("%t = tensor.from_elements %a : tensor<f32>"));
  EXPECT_FALSE(rejects("%t = tensor.from_elements : tensor<0x3xf32>"));
  // The generic form: the ODS verifier builds the same list.
  EXPECT_TRUE(rejects("%t = \"tensor.from_elements\"(%a) : (f32) -> "
                      "tensor<100000000000xf32>"));
  EXPECT_TRUE(rejects("%t = \"tensor.from_elements\"(%a, %b#1) <{}> {x = \")\"} : "
                      "(f32, f32) -> tensor<3xf32>"));
  EXPECT_FALSE(rejects("%t = \"tensor.from_elements\"(%a, %b) : (f32, f32) -> "
                       "tensor<2x1xf32>"));
  EXPECT_FALSE(rejects("%t = \"tensor.from_elements\"() : () -> tensor<0xf32>"));
  EXPECT_FALSE(rejects("foo.op {s = \"tensor.from_elements\"} : () -> tensor<9xf32>"));
  // Not a static type: its parser answers.
  EXPECT_FALSE(rejects("%t = tensor.from_elements %a : tensor<?x9999999999xf32>"));
  EXPECT_FALSE(rejects("%t = tensor.from_elements %a : memref<99999999xf32>"));
}

TEST(InputScreen, TruncatedInputsDoNotOverrun) {
  std::string text = std::string(kTranspose) + "[1, 0]";
  for (size_t n = 0; n <= text.size(); ++n)
    (void)screenForParserCrashes(llvm::StringRef(text.data(), n));
  for (const char *t : {"\"", "\"\\", "//", "tensor.concat", "tensor.concat dim",
                        "tensor.concat dim(", "f() dimensions =", "0x", "%",
                        "\"tensor.concat\"", "\"tensor.concat\"(%a",
                        "\"tensor.concat\"(%a) <{", "\"tensor.concat\"(%a) <{dim =",
                        "\"tensor.concat\"(%a) {dim = \"", "tensor.from_elements",
                        "tensor.from_elements %a,", "tensor.from_elements %a {",
                        "tensor.from_elements %a :", "tensor.from_elements %a : tensor<",
                        "tensor.from_elements %a : tensor<99", "linalg.reduce {",
                        "linalg.reduce { arith.addf", "linalg.transpose <",
                        "linalg.transpose <{x = affine_map<(d0) -", "linalg.transpose ins(",
                        "linalg.transpose ins(%a) outs(%b", "linalg.broadcast dimensions",
                        "linalg.broadcast dimensions =",
                        "\"tensor.from_elements\"(", "\"tensor.from_elements\"(%a)",
                        "\"tensor.from_elements\"(%a) :", "\"tensor.from_elements\"(%a) : (",
                        "\"tensor.from_elements\"(%a) : (f32) -",
                        "\"tensor.from_elements\"(%a) : (f32) -> tensor<9"})
    (void)screenForParserCrashes(t);
  SUCCEED();
}

} // namespace
