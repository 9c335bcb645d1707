//===- PlacementTest.cpp - Tests for DTensor placements ---------*- C++ -*-===//
//
// Part of dtensor-mlir. Unit tests for the semantic core.
//
//===----------------------------------------------------------------------===//
//
// Parsing, printing, validation, normalization and transition legality of
// placements, checked against the rules written in SEMANTICS.md.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Placement.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace mlir::dtensor;

namespace {

// Shorthands.
Placement S(int64_t dim, int64_t order = -1) {
  return Placement::shard(dim, order);
}
Placement R() { return Placement::replicate(); }
Placement P(ReduceKind kind = ReduceKind::Sum) {
  return Placement::partial(kind);
}

/// Parses `text`, expecting success and no error message.
Placements parseOk(const std::string &text) {
  Placements ps;
  std::string error;
  bool ok = parsePlacements(text, ps, error);
  EXPECT_TRUE(ok) << "input: '" << text << "' error: " << error;
  return ps;
}

/// Expects `text` to be rejected with a non-empty error message.
void expectParseError(const std::string &text) {
  Placements ps;
  std::string error;
  bool ok = parsePlacements(text, ps, error);
  EXPECT_FALSE(ok) << "input '" << text << "' was accepted as "
                   << formatPlacements(ps);
  EXPECT_FALSE(error.empty()) << "no error message for input '" << text << "'";
}

/// Exact field comparison, stricter than operator== (which ignores the
/// irrelevant fields of a kind).
void expectSame(const Placements &actual, const Placements &expected,
                const std::string &context) {
  ASSERT_EQ(actual.size(), expected.size()) << context;
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(actual[i].kind, expected[i].kind) << context << " at " << i;
    if (expected[i].isShard()) {
      EXPECT_EQ(actual[i].dim, expected[i].dim) << context << " at " << i;
      EXPECT_EQ(actual[i].order, expected[i].order) << context << " at " << i;
    }
    if (expected[i].isPartial()) {
      EXPECT_EQ(actual[i].reduce, expected[i].reduce) << context << " at " << i;
    }
  }
}

bool structureOk(const Placements &ps, std::string *errorOut = nullptr) {
  std::string error;
  bool ok = verifyPlacementStructure(ps, error);
  if (errorOut)
    *errorOut = error;
  return ok;
}

//===----------------------------------------------------------------------===//
// ReduceKind
//===----------------------------------------------------------------------===//

TEST(ReduceKindTest, StringifyAndParse) {
  EXPECT_STREQ(stringifyReduceKind(ReduceKind::Sum), "sum");
  EXPECT_STREQ(stringifyReduceKind(ReduceKind::Avg), "avg");
  EXPECT_STREQ(stringifyReduceKind(ReduceKind::Max), "max");
  EXPECT_STREQ(stringifyReduceKind(ReduceKind::Min), "min");
  EXPECT_STREQ(stringifyReduceKind(ReduceKind::Product), "product");

  EXPECT_EQ(parseReduceKind("sum"), ReduceKind::Sum);
  EXPECT_EQ(parseReduceKind("avg"), ReduceKind::Avg);
  EXPECT_EQ(parseReduceKind("max"), ReduceKind::Max);
  EXPECT_EQ(parseReduceKind("min"), ReduceKind::Min);
  EXPECT_EQ(parseReduceKind("product"), ReduceKind::Product);
  EXPECT_EQ(parseReduceKind("prod"), ReduceKind::Product);
  EXPECT_FALSE(parseReduceKind("foo").has_value());
  EXPECT_FALSE(parseReduceKind("").has_value());
  EXPECT_FALSE(parseReduceKind("summ").has_value());
}

TEST(ReduceKindTest, OnlySumAndAvgAreLinear) {
  EXPECT_TRUE(isLinear(ReduceKind::Sum));
  EXPECT_TRUE(isLinear(ReduceKind::Avg));
  EXPECT_FALSE(isLinear(ReduceKind::Max));
  EXPECT_FALSE(isLinear(ReduceKind::Min));
  EXPECT_FALSE(isLinear(ReduceKind::Product));
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

TEST(ParsePlacementsTest, BasicList) {
  Placements ps = parseOk("[S(0), R, P(sum)]");
  expectSame(ps, {S(0), R(), P(ReduceKind::Sum)}, "[S(0), R, P(sum)]");
  EXPECT_EQ(formatPlacements(ps), "[S(0), R, P(sum)]");
}

TEST(ParsePlacementsTest, OuterBracketsAreOptional) {
  expectSame(parseOk("S(0), R, P(sum)"), {S(0), R(), P()}, "no brackets");
  expectSame(parseOk("R"), {R()}, "single R");
  expectSame(parseOk("S(1)"), {S(1)}, "single S(1)");
  expectSame(parseOk("S(0)[1], S(0)[0]"), {S(0, 1), S(0, 0)},
             "orders without brackets");
}

TEST(ParsePlacementsTest, Whitespace) {
  Placements expected = {S(0), R(), P()};
  for (const char *text :
       {"[S(0),R,P(sum)]", "[S(0), R, P(sum)]", "  [S(0), R, P(sum)]  ",
        "[ S(0) , R , P(sum) ]", "[S(0) ,R ,P(sum)]", "\t[S(0),\tR,  P(sum)]\n",
        "  S(0) ,  R,P(sum)  "})
    expectSame(parseOk(text), expected, std::string("'") + text + "'");
}

TEST(ParsePlacementsTest, PartialKinds) {
  expectSame(parseOk("[P(sum)]"), {P(ReduceKind::Sum)}, "sum");
  expectSame(parseOk("[P(avg)]"), {P(ReduceKind::Avg)}, "avg");
  expectSame(parseOk("[P(max)]"), {P(ReduceKind::Max)}, "max");
  expectSame(parseOk("[P(min)]"), {P(ReduceKind::Min)}, "min");
  expectSame(parseOk("[P(product)]"), {P(ReduceKind::Product)}, "product");
  expectSame(parseOk("[P(max), R, P(max)]"),
             {P(ReduceKind::Max), R(), P(ReduceKind::Max)}, "max twice");
}

TEST(ParsePlacementsTest, DTensorSpellings) {
  expectSame(parseOk("[Shard(1), Replicate(), Partial()]"), {S(1), R(), P()},
             "long names");
  expectSame(parseOk("[Partial(max)]"), {P(ReduceKind::Max)}, "Partial(max)");
  expectSame(parseOk("[Partial(avg), Shard(0)]"), {P(ReduceKind::Avg), S(0)},
             "Partial(avg)");
  expectSame(parseOk("Shard(-1)"), {S(-1)}, "Shard(-1)");
  // Partial() is Partial(sum), so it prints as P(sum).
  EXPECT_EQ(formatPlacements(parseOk("[Shard(1), Replicate(), Partial()]")),
            "[S(1), R, P(sum)]");
  EXPECT_EQ(formatPlacements(parseOk("[Partial(min)]")), "[P(min)]");
}

TEST(ParsePlacementsTest, ShardOrders) {
  Placements ps = parseOk("[S(0)[1], S(0)[0], R]");
  expectSame(ps, {S(0, 1), S(0, 0), R()}, "shard orders");
  EXPECT_EQ(formatPlacements(ps), "[S(0)[1], S(0)[0], R]");

  expectSame(parseOk("[S(1)[0], S(0), S(1)[1]]"), {S(1, 0), S(0), S(1, 1)},
             "mixed orders");
}

TEST(ParsePlacementsTest, NegativeDims) {
  expectSame(parseOk("[S(-1)]"), {S(-1)}, "S(-1)");
  expectSame(parseOk("[S(-2), R]"), {S(-2), R()}, "S(-2)");
  EXPECT_EQ(formatPlacements(parseOk("[S(-1), R]")), "[S(-1), R]");
}

TEST(ParsePlacementsTest, MultiDigitDims) {
  expectSame(parseOk("[S(12), S(3)[10]]"), {S(12), S(3, 10)}, "multi digit");
}

TEST(ParsePlacementsTest, Malformed) {
  for (const char *text :
       {"[S(0), X]", "S(",           "S()",          "S(a)",       "P(foo)",
        "R[0]",      "P(sum)[0]",    "[S(0),]",      "[,S(0)]",    "[S(0),,R]",
        "",          "   ",          "[S(0), R] x",  "[S(0), R]]", "S(0) R",
        "S(0)[x]",   "S(0)[]",       "S(0)[0",       "[S(0), R",   "S(0), R]",
        "Shard(0",   "Replicate(0)", "Partial(foo)", "S(0)R"})
    expectParseError(text);
}

TEST(ParsePlacementsTest, IntegersAtTheEdgeOfInt64) {
  // Every int64 parses exactly; one more is an error, not a wrapped value.
  expectSame(parseOk("S(9223372036854775807)"), {S(INT64_MAX)}, "max dim");
  expectSame(parseOk("S(-9223372036854775807)"), {S(-INT64_MAX)}, "min dim");
  expectSame(parseOk("S(0)[9223372036854775807]"), {S(0, INT64_MAX)},
             "max order");
  for (const char *text :
       {"S(9223372036854775808)", "S(-9223372036854775808)",
        "S(99999999999999999999)", "S(0)[9223372036854775808]", "S(0)[-1]",
        "S(-)", "S(+)", "S(--1)"}) {
    expectParseError(text);
  }
  Placements ps;
  std::string error;
  EXPECT_FALSE(parsePlacements("S(9223372036854775808)", ps, error));
  EXPECT_NE(error.find("integer larger than 9223372036854775807"),
            std::string::npos)
      << error;
  // Parsed, then rejected with a reason by the checks that know the rank.
  EXPECT_FALSE(verifyPlacementsForRank({S(INT64_MAX)}, 2, error));
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  EXPECT_FALSE(verifyPlacementsForRank({S(-INT64_MAX)}, 2, error));
  EXPECT_FALSE(structureOk({S(0, INT64_MAX), S(0, 0)}, &error));
  EXPECT_NE(error.find("not a permutation"), std::string::npos) << error;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

TEST(FormatPlacementTest, EveryKind) {
  EXPECT_EQ(formatPlacement(R()), "R");
  EXPECT_EQ(formatPlacement(S(0)), "S(0)");
  EXPECT_EQ(formatPlacement(S(3)), "S(3)");
  EXPECT_EQ(formatPlacement(S(-1)), "S(-1)");
  EXPECT_EQ(formatPlacement(S(0, 1)), "S(0)[1]");
  EXPECT_EQ(formatPlacement(S(2, 0)), "S(2)[0]");
  EXPECT_EQ(formatPlacement(P(ReduceKind::Sum)), "P(sum)");
  EXPECT_EQ(formatPlacement(P(ReduceKind::Avg)), "P(avg)");
  EXPECT_EQ(formatPlacement(P(ReduceKind::Max)), "P(max)");
  EXPECT_EQ(formatPlacement(P(ReduceKind::Min)), "P(min)");
  EXPECT_EQ(formatPlacement(P(ReduceKind::Product)), "P(product)");
}

TEST(FormatPlacementTest, ListFormat) {
  EXPECT_EQ(formatPlacements({S(0), R()}), "[S(0), R]");
  EXPECT_EQ(formatPlacements({S(0, 1), S(0, 0), R()}), "[S(0)[1], S(0)[0], R]");
  EXPECT_EQ(formatPlacements({P(ReduceKind::Avg)}), "[P(avg)]");
}

TEST(FormatPlacementTest, RoundTripEveryKind) {
  Placements all = {R(),
                    S(0),
                    S(1),
                    S(-1),
                    S(-3),
                    S(0, 0),
                    S(1, 2),
                    S(-2, 1),
                    P(ReduceKind::Sum),
                    P(ReduceKind::Avg),
                    P(ReduceKind::Max),
                    P(ReduceKind::Min),
                    P(ReduceKind::Product)};
  for (const Placement &p : all) {
    std::string text = formatPlacement(p);
    Placements parsed;
    std::string error;
    ASSERT_TRUE(parsePlacements(text, parsed, error))
        << "'" << text << "': " << error;
    expectSame(parsed, {p}, text);
    // And as a one-element list.
    std::string listText = formatPlacements({p});
    EXPECT_EQ(listText, "[" + text + "]");
    Placements parsedList;
    ASSERT_TRUE(parsePlacements(listText, parsedList, error))
        << "'" << listText << "': " << error;
    expectSame(parsedList, {p}, listText);
  }
  // The whole list at once.
  std::string text = formatPlacements(all);
  Placements parsed;
  std::string error;
  ASSERT_TRUE(parsePlacements(text, parsed, error)) << text << ": " << error;
  expectSame(parsed, all, text);
  EXPECT_EQ(formatPlacements(parsed), text);
}

//===----------------------------------------------------------------------===//
// Structure checks
//===----------------------------------------------------------------------===//

TEST(VerifyPlacementStructureTest, PartialKinds) {
  std::string error;
  EXPECT_FALSE(structureOk({P(ReduceKind::Sum), P(ReduceKind::Max)}, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(
      structureOk({P(ReduceKind::Avg), R(), P(ReduceKind::Sum)}, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(
      structureOk({P(ReduceKind::Min), S(0), P(ReduceKind::Max)}, &error));
  EXPECT_FALSE(error.empty());

  EXPECT_TRUE(structureOk({P(ReduceKind::Sum), P(ReduceKind::Sum)}));
  EXPECT_TRUE(structureOk({P(ReduceKind::Max), R(), P(ReduceKind::Max)}));
  EXPECT_TRUE(structureOk({P(ReduceKind::Product), S(0)}));
  EXPECT_TRUE(structureOk({S(0), R(), P(ReduceKind::Avg)}));
}

TEST(VerifyPlacementStructureTest, ShardOrders) {
  std::string error;
  // A permutation: fine.
  EXPECT_TRUE(structureOk({S(0, 1), S(0, 0)}, &error)) << error;
  EXPECT_TRUE(structureOk({S(0, 0), S(0, 1)}, &error)) << error;
  EXPECT_TRUE(structureOk({S(0, 2), S(0, 0), S(0, 1)}, &error)) << error;
  EXPECT_TRUE(structureOk({S(0, 1), R(), S(0, 0)}, &error)) << error;
  // A single sharding mesh dim with position 0.
  EXPECT_TRUE(structureOk({S(0, 0)}, &error)) << error;
  // Each tensor dim is checked on its own.
  EXPECT_TRUE(structureOk({S(0, 0), S(1, 0)}, &error)) << error;
  EXPECT_TRUE(structureOk({S(0, 0), S(1)}, &error)) << error;
  EXPECT_TRUE(structureOk({S(1, 1), S(0), S(1, 0), S(0)}, &error)) << error;

  // Order given for some but not all mesh dims of a tensor dim.
  EXPECT_FALSE(structureOk({S(0, 0), S(0)}, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(structureOk({S(0), S(0, 0)}, &error));
  EXPECT_FALSE(error.empty());
  // The same position twice.
  EXPECT_FALSE(structureOk({S(0, 0), S(0, 0)}, &error));
  EXPECT_FALSE(error.empty());
  // Not a permutation of 0..n-1.
  EXPECT_FALSE(structureOk({S(0, 2), S(0, 0)}, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(structureOk({S(0, 1)}, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(structureOk({S(0, 1), S(1, 0), S(0, 1)}, &error));
  EXPECT_FALSE(error.empty());
}

TEST(VerifyPlacementsForRankTest, ShardDims) {
  std::string error;
  EXPECT_TRUE(verifyPlacementsForRank({S(0), S(1)}, 2, error)) << error;
  EXPECT_TRUE(verifyPlacementsForRank({S(-1)}, 2, error)) << error;
  EXPECT_TRUE(verifyPlacementsForRank({S(-2), R()}, 2, error)) << error;
  EXPECT_TRUE(verifyPlacementsForRank({R(), P()}, 0, error)) << error;

  error.clear();
  EXPECT_FALSE(verifyPlacementsForRank({S(2)}, 2, error));
  EXPECT_FALSE(error.empty());
  error.clear();
  EXPECT_FALSE(verifyPlacementsForRank({R(), S(-3)}, 2, error));
  EXPECT_FALSE(error.empty());
  error.clear();
  EXPECT_FALSE(verifyPlacementsForRank({S(0)}, 0, error));
  EXPECT_FALSE(error.empty());
}

TEST(VerifyPlacementsForMeshTest, Count) {
  std::string error;
  EXPECT_TRUE(verifyPlacementsForMesh({S(0), R()}, 2, error)) << error;
  EXPECT_TRUE(verifyPlacementsForMesh({R()}, 1, error)) << error;

  error.clear();
  EXPECT_FALSE(verifyPlacementsForMesh({S(0), R()}, 3, error));
  EXPECT_FALSE(error.empty());
  error.clear();
  EXPECT_FALSE(verifyPlacementsForMesh({S(0), R(), R()}, 2, error));
  EXPECT_FALSE(error.empty());
}

//===----------------------------------------------------------------------===//
// Normalization and shard order
//===----------------------------------------------------------------------===//

TEST(NormalizePlacementsTest, NegativeDims) {
  expectSame(normalizePlacements({S(-1)}, 2), {S(1)}, "S(-1) rank 2");
  expectSame(normalizePlacements({S(-2), R()}, 2), {S(0), R()}, "S(-2) rank 2");
  expectSame(normalizePlacements({S(-1), P(ReduceKind::Max)}, 3),
             {S(2), P(ReduceKind::Max)}, "S(-1) rank 3");
  expectSame(normalizePlacements({S(1), S(0)}, 2), {S(1), S(0)},
             "already normal");
}

TEST(NormalizePlacementsTest, DefaultOrderDropped) {
  expectSame(normalizePlacements({S(0, 0), S(0, 1)}, 2), {S(0), S(0)},
             "[S(0)[0], S(0)[1]]");
  expectSame(normalizePlacements({S(0, 0)}, 1), {S(0)}, "[S(0)[0]]");
  expectSame(normalizePlacements({S(0, 0), R(), S(0, 1)}, 1), {S(0), R(), S(0)},
             "[S(0)[0], R, S(0)[1]]");
  expectSame(normalizePlacements({S(0, 0), S(1, 0)}, 2), {S(0), S(1)},
             "[S(0)[0], S(1)[0]]");
  // Equal layouts compare equal after normalization.
  EXPECT_EQ(normalizePlacements({S(0, 0), S(0, 1)}, 2),
            normalizePlacements({S(0), S(0)}, 2));
  EXPECT_EQ(normalizePlacements({S(-1), S(1)}, 2),
            normalizePlacements({S(1), S(1)}, 2));
}

TEST(NormalizePlacementsTest, NonDefaultOrderKept) {
  expectSame(normalizePlacements({S(0, 1), S(0, 0)}, 2), {S(0, 1), S(0, 0)},
             "[S(0)[1], S(0)[0]]");
  expectSame(normalizePlacements({S(0, 1), R(), S(0, 0)}, 1),
             {S(0, 1), R(), S(0, 0)}, "[S(0)[1], R, S(0)[0]]");
  expectSame(normalizePlacements({S(-1, 1), S(-1, 0)}, 3), {S(2, 1), S(2, 0)},
             "[S(-1)[1], S(-1)[0]] rank 3");
  // Only the tensor dim whose order is not the default keeps it.
  expectSame(normalizePlacements({S(0, 1), S(1, 0), S(0, 0), S(1, 1)}, 2),
             {S(0, 1), S(1), S(0, 0), S(1)}, "two tensor dims");
  EXPECT_NE(normalizePlacements({S(0, 1), S(0, 0)}, 2),
            normalizePlacements({S(0), S(0)}, 2));
}

TEST(ShardOrderTest, ApplicationOrder) {
  EXPECT_EQ(shardOrder(normalizePlacements({S(0, 1), S(0, 0)}, 2), 0),
            (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(shardOrder(normalizePlacements({S(0, 1), S(0, 0)}, 2), 1),
            (std::vector<int64_t>{}));
  EXPECT_EQ(shardOrder({S(0), S(0)}, 0), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(shardOrder({S(0), R(), S(0)}, 0), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(shardOrder({S(1), R(), S(0)}, 0), (std::vector<int64_t>{2}));
  EXPECT_EQ(shardOrder({S(1), R(), S(0)}, 1), (std::vector<int64_t>{0}));
  EXPECT_EQ(shardOrder({R(), P()}, 0), (std::vector<int64_t>{}));
  // Positions 2, 0, 1: mesh dim 1 first, then 2, then 0.
  EXPECT_EQ(shardOrder({S(0, 2), S(0, 0), S(0, 1)}, 0),
            (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(shardOrder({S(0, 1), S(1), S(0, 2), S(0, 0)}, 0),
            (std::vector<int64_t>{3, 0, 2}));
  EXPECT_EQ(shardOrder({S(0, 1), S(1), S(0, 2), S(0, 0)}, 1),
            (std::vector<int64_t>{1}));
}

//===----------------------------------------------------------------------===//
// Transitions
//===----------------------------------------------------------------------===//

TEST(TransitionErrorTest, Illegal) {
  // DTensor 2.15: S(d) -> P(sum) is its shard in place, zeros elsewhere.
  EXPECT_TRUE(transitionError(S(0), P()).empty());
  EXPECT_FALSE(transitionError(S(0), P(ReduceKind::Product)).empty());
  EXPECT_FALSE(transitionError(S(1), P(ReduceKind::Max)).empty());
  EXPECT_FALSE(transitionError(S(0), P(ReduceKind::Avg)).empty());
  EXPECT_FALSE(transitionError(P(ReduceKind::Sum), P(ReduceKind::Max)).empty());
  EXPECT_FALSE(transitionError(P(ReduceKind::Max), P(ReduceKind::Min)).empty());
  EXPECT_FALSE(transitionError(P(ReduceKind::Avg), P(ReduceKind::Sum)).empty());
  EXPECT_FALSE(transitionError(R(), P(ReduceKind::Product)).empty());
}

TEST(TransitionErrorTest, Legal) {
  EXPECT_EQ(transitionError(S(0), R()), "");
  EXPECT_EQ(transitionError(P(ReduceKind::Sum), R()), "");
  EXPECT_EQ(transitionError(P(ReduceKind::Max), R()), "");
  EXPECT_EQ(transitionError(P(ReduceKind::Product), R()), "");
  EXPECT_EQ(transitionError(P(ReduceKind::Sum), S(0)), "");
  EXPECT_EQ(transitionError(P(ReduceKind::Min), S(1)), "");
  EXPECT_EQ(transitionError(S(0), S(1)), "");
  EXPECT_EQ(transitionError(S(1), S(0)), "");
  EXPECT_EQ(transitionError(R(), S(0)), "");
  EXPECT_EQ(transitionError(R(), P(ReduceKind::Sum)), "");
  EXPECT_EQ(transitionError(R(), P(ReduceKind::Avg)), "");
  EXPECT_EQ(transitionError(R(), P(ReduceKind::Max)), "");
  EXPECT_EQ(transitionError(R(), P(ReduceKind::Min)), "");
  // from == to.
  EXPECT_EQ(transitionError(R(), R()), "");
  EXPECT_EQ(transitionError(S(0), S(0)), "");
  EXPECT_EQ(transitionError(P(ReduceKind::Sum), P(ReduceKind::Sum)), "");
  EXPECT_EQ(transitionError(P(ReduceKind::Max), P(ReduceKind::Max)), "");
  EXPECT_EQ(transitionError(P(ReduceKind::Product), P(ReduceKind::Product)),
            "");
}

} // namespace

namespace {
TEST(EnumeratePlacements, EverySpecAndOrderOnce) {
  using namespace mlir::dtensor;
  // Mesh rank 2, tensor rank 1: each mesh dim R, P(sum) or S(0): 9 specs,
  // and [S(0), S(0)] in both orders: 10.
  std::vector<Placements> all = enumeratePlacements(2, 1, ReduceKind::Sum);
  EXPECT_EQ(all.size(), 10u);
  std::vector<std::string> text;
  for (const Placements &ps : all)
    text.push_back(formatPlacements(ps));
  EXPECT_EQ(std::count(text.begin(), text.end(), "[S(0), S(0)]"), 1);
  EXPECT_EQ(std::count(text.begin(), text.end(), "[S(0)[1], S(0)[0]]"), 1);
  EXPECT_EQ(std::count(text.begin(), text.end(), "[P(sum), R]"), 1);
  // Without orders, one spelling per placement assignment.
  EXPECT_EQ(enumeratePlacements(2, 1, ReduceKind::Max, false).size(), 9u);
  EXPECT_EQ(enumeratePlacements(3, 2, ReduceKind::Sum, false).size(), 64u);
}
} // namespace

namespace {
// sameIgnoringDefaultOrders (no copies) agrees with comparing the copies
// dropDefaultOrders makes, on every pair of specs with every order spelled
// explicitly or left default; dropping is idempotent.
TEST(DropDefaultOrders, SameIgnoringDefaultOrdersAgreesWithTheCopies) {
  using namespace mlir::dtensor;
  for (auto [meshRank, rank] : {std::pair<int64_t, int64_t>{2, 1}, {3, 2}}) {
    std::vector<Placements> all =
        enumeratePlacements(meshRank, rank, ReduceKind::Sum, /*withOrders=*/true);
    // Also every default order written out: [S(0)[0], S(0)[1]].
    size_t n = all.size();
    for (size_t i = 0; i < n; ++i) {
      Placements explicitOrders = all[i];
      for (int64_t d = 0; d < rank; ++d) {
        int64_t k = 0;
        for (Placement &p : explicitOrders)
          if (p.isShard(d) && p.order < 0)
            p.order = k++;
      }
      all.push_back(explicitOrders);
    }
    for (const Placements &a : all) {
      Placements dropped = dropDefaultOrders(a);
      EXPECT_EQ(dropDefaultOrders(dropped), dropped) << formatPlacements(a);
      EXPECT_TRUE(sameIgnoringDefaultOrders(a, dropped)) << formatPlacements(a);
      for (const Placements &b : all)
        EXPECT_EQ(sameIgnoringDefaultOrders(a, b),
                  dropDefaultOrders(a) == dropDefaultOrders(b))
            << formatPlacements(a) << " vs " << formatPlacements(b);
    }
  }
}
} // namespace
