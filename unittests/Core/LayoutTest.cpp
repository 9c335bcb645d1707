//===- LayoutTest.cpp - Tests for DTensor shard layouts ---------*- C++ -*-===//
//
// Part of dtensor-mlir. Unit tests for the semantic core.
//
//===----------------------------------------------------------------------===//
//
// Meshes, torch.chunk pieces and per-rank shards (local shapes and global
// offsets) with nested shard orders and empty shards. Hand-computed examples
// from SEMANTICS.md first, then property tests that compare every shard with
// an independent simulation of torch.chunk on explicit index lists.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Layout.h"
#include "dtensor/Core/Placement.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace mlir::dtensor;

namespace {

using Groups = std::vector<std::vector<int64_t>>;

Placement S(int64_t dim, int64_t order = -1) {
  return Placement::shard(dim, order);
}
Placement R() { return Placement::replicate(); }
Placement P(ReduceKind kind = ReduceKind::Sum) {
  return Placement::partial(kind);
}

std::string str(const Shape &shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i)
    os << (i ? "," : "") << shape[i];
  os << "]";
  return os.str();
}

std::optional<Layout> makeLayout(const Shape &mesh, int64_t rank,
                                 const Placements &ps) {
  std::string error;
  std::optional<Layout> layout = Layout::create(mesh, rank, ps, error);
  EXPECT_TRUE(layout.has_value())
      << "mesh " << str(mesh) << " rank " << rank << " " << formatPlacements(ps)
      << ": " << error;
  return layout;
}

void expectCreateError(const Shape &mesh, int64_t rank, const Placements &ps) {
  std::string error;
  std::optional<Layout> layout = Layout::create(mesh, rank, ps, error);
  EXPECT_FALSE(layout.has_value())
      << "mesh " << str(mesh) << " rank " << rank << " " << formatPlacements(ps)
      << " was accepted";
  EXPECT_FALSE(error.empty()) << "no error for mesh " << str(mesh) << " rank "
                              << rank << " " << formatPlacements(ps);
}

/// Expected shard of every rank, in rank order.
void expectShards(const Layout &layout, const Shape &global,
                  const std::vector<Shape> &shapes,
                  const std::vector<Shape> &offsets) {
  ASSERT_EQ(static_cast<int64_t>(shapes.size()), layout.numRanks());
  ASSERT_EQ(shapes.size(), offsets.size());
  for (int64_t r = 0; r < layout.numRanks(); ++r) {
    Shard shard = layout.shardOf(global, r);
    EXPECT_EQ(shard.shape, shapes[r])
        << "rank " << r << " global " << str(global) << " "
        << formatPlacements(layout.placements());
    EXPECT_EQ(shard.offset, offsets[r])
        << "rank " << r << " global " << str(global) << " "
        << formatPlacements(layout.placements());
  }
}

//===----------------------------------------------------------------------===//
// Meshes
//===----------------------------------------------------------------------===//

TEST(MeshTest, VerifyMeshShape) {
  std::string error;
  EXPECT_TRUE(verifyMeshShape({2, 4}, error)) << error;
  EXPECT_TRUE(verifyMeshShape({1}, error)) << error;
  EXPECT_TRUE(verifyMeshShape({3, 1, 2}, error)) << error;

  error.clear();
  EXPECT_FALSE(verifyMeshShape({}, error));
  EXPECT_FALSE(error.empty());
  error.clear();
  EXPECT_FALSE(verifyMeshShape({0}, error));
  EXPECT_FALSE(error.empty());
  error.clear();
  EXPECT_FALSE(verifyMeshShape({2, -1}, error));
  EXPECT_FALSE(error.empty());
  error.clear();
  EXPECT_FALSE(verifyMeshShape({2, 0, 2}, error));
  EXPECT_FALSE(error.empty());
}

TEST(MeshTest, MeshSize) {
  EXPECT_EQ(meshSize({2, 4}), 8);
  EXPECT_EQ(meshSize({4}), 4);
  EXPECT_EQ(meshSize({1}), 1);
  EXPECT_EQ(meshSize({2, 3, 4}), 24);
}

TEST(MeshTest, RankToCoordRowMajor) {
  EXPECT_EQ(rankToCoord({2, 4}, 5), (Shape{1, 1}));
  EXPECT_EQ(rankToCoord({2, 4}, 0), (Shape{0, 0}));
  EXPECT_EQ(rankToCoord({2, 4}, 3), (Shape{0, 3}));
  EXPECT_EQ(rankToCoord({2, 4}, 4), (Shape{1, 0}));
  EXPECT_EQ(rankToCoord({2, 4}, 7), (Shape{1, 3}));
  EXPECT_EQ(rankToCoord({4}, 3), (Shape{3}));
  // (r / 12, (r / 4) % 3, r % 4) on 2x3x4.
  EXPECT_EQ(rankToCoord({2, 3, 4}, 23), (Shape{1, 2, 3}));
  EXPECT_EQ(rankToCoord({2, 3, 4}, 17), (Shape{1, 1, 1}));
  EXPECT_EQ(rankToCoord({2, 3, 4}, 6), (Shape{0, 1, 2}));

  EXPECT_EQ(coordToRank({2, 4}, {1, 1}), 5);
  EXPECT_EQ(coordToRank({2, 4}, {1, 3}), 7);
  EXPECT_EQ(coordToRank({2, 4}, {0, 2}), 2);
  EXPECT_EQ(coordToRank({2, 3, 4}, {1, 1, 1}), 17);
  EXPECT_EQ(coordToRank({2, 3, 4}, {0, 1, 2}), 6);

  for (const Shape &mesh :
       {Shape{2, 4}, Shape{3}, Shape{2, 3, 4}, Shape{1, 4, 1}, Shape{4, 4}}) {
    for (int64_t r = 0; r < meshSize(mesh); ++r) {
      Shape coord = rankToCoord(mesh, r);
      ASSERT_EQ(coord.size(), mesh.size());
      for (size_t i = 0; i < mesh.size(); ++i) {
        EXPECT_GE(coord[i], 0);
        EXPECT_LT(coord[i], mesh[i]);
      }
      EXPECT_EQ(coordToRank(mesh, coord), r) << "mesh " << str(mesh);
    }
  }
}

TEST(MeshTest, MeshGroups2x4) {
  EXPECT_EQ(meshGroups({2, 4}, {0}), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_EQ(meshGroups({2, 4}, {1}), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(meshGroups({2, 4}, {0, 1}), (Groups{{0, 1, 2, 3, 4, 5, 6, 7}}));
}

TEST(MeshTest, MeshGroups2x2x2) {
  // Ranks are 4a + 2b + c. Over dims {0, 2} one group per b, each row-major
  // over (a, c): (0,0), (0,1), (1,0), (1,1).
  EXPECT_EQ(meshGroups({2, 2, 2}, {0, 2}),
            (Groups{{0, 1, 4, 5}, {2, 3, 6, 7}}));
  EXPECT_EQ(meshGroups({2, 2, 2}, {1}),
            (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  EXPECT_EQ(meshGroups({2, 2, 2}, {1, 2}),
            (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  // 2x3: ranks 3a + b.
  EXPECT_EQ(meshGroups({2, 3}, {0}), (Groups{{0, 3}, {1, 4}, {2, 5}}));
  EXPECT_EQ(meshGroups({1, 3}, {0}), (Groups{{0}, {1}, {2}}));
}

TEST(MeshTest, GroupRank) {
  EXPECT_EQ(groupRank({2, 4}, {0}, 5), 1);
  EXPECT_EQ(groupRank({2, 4}, {1}, 5), 1);
  EXPECT_EQ(groupRank({2, 4}, {1}, 6), 2);
  EXPECT_EQ(groupRank({2, 4}, {0}, 3), 0);
  EXPECT_EQ(groupRank({2, 4}, {0, 1}, 6), 6);
  // 2x2x2 over {0, 2}: rank 6 is (1,1,0) -> index 1*2 + 0 = 2.
  EXPECT_EQ(groupRank({2, 2, 2}, {0, 2}, 6), 2);
  EXPECT_EQ(groupRank({2, 2, 2}, {0, 2}, 3), 1);
  EXPECT_EQ(groupRank({2, 2, 2}, {0, 2}, 5), 3);

  // Consistent with meshGroups on a few meshes.
  struct Case {
    Shape mesh;
    std::vector<int64_t> dims;
  };
  for (const Case &c : {Case{{2, 4}, {0}}, Case{{2, 4}, {1}},
                        Case{{2, 3, 4}, {0, 2}}, Case{{2, 3, 4}, {1}},
                        Case{{2, 3, 4}, {0, 1, 2}}, Case{{3, 2, 2}, {1, 2}}}) {
    Groups groups = meshGroups(c.mesh, c.dims);
    int64_t groupSize = 1;
    for (int64_t d : c.dims)
      groupSize *= c.mesh[d];
    EXPECT_EQ(static_cast<int64_t>(groups.size()),
              meshSize(c.mesh) / groupSize);
    std::vector<int> seen(meshSize(c.mesh), 0);
    for (const std::vector<int64_t> &group : groups) {
      ASSERT_EQ(static_cast<int64_t>(group.size()), groupSize);
      for (size_t i = 0; i < group.size(); ++i) {
        ++seen[group[i]];
        EXPECT_EQ(groupRank(c.mesh, c.dims, group[i]), static_cast<int64_t>(i));
      }
    }
    for (int count : seen)
      EXPECT_EQ(count, 1) << "mesh " << str(c.mesh);
  }
}

//===----------------------------------------------------------------------===//
// Chunks
//===----------------------------------------------------------------------===//

void expectChunks(int64_t length, int64_t parts,
                  const std::vector<int64_t> &sizes,
                  const std::vector<int64_t> &offsets) {
  ASSERT_EQ(static_cast<int64_t>(sizes.size()), parts);
  for (int64_t i = 0; i < parts; ++i) {
    Chunk c = chunk(length, parts, i);
    EXPECT_EQ(c.size, sizes[i]) << length << " on " << parts << " piece " << i;
    EXPECT_EQ(c.offset, offsets[i])
        << length << " on " << parts << " piece " << i;
  }
}

TEST(ChunkTest, SemanticsExamples) {
  expectChunks(13, 4, {4, 4, 4, 1}, {0, 4, 8, 12});
  expectChunks(5, 4, {2, 2, 1, 0}, {0, 2, 4, 5});
  expectChunks(3, 4, {1, 1, 1, 0}, {0, 1, 2, 3});
  expectChunks(1, 4, {1, 0, 0, 0}, {0, 1, 1, 1});
}

TEST(ChunkTest, MoreCases) {
  expectChunks(8, 4, {2, 2, 2, 2}, {0, 2, 4, 6});
  // ceil(6 / 4) = 2: the last piece is empty although 6 >= 4.
  expectChunks(6, 4, {2, 2, 2, 0}, {0, 2, 4, 6});
  expectChunks(9, 4, {3, 3, 3, 0}, {0, 3, 6, 9});
  expectChunks(10, 4, {3, 3, 3, 1}, {0, 3, 6, 9});
  expectChunks(2, 4, {1, 1, 0, 0}, {0, 1, 2, 2});
  expectChunks(0, 3, {0, 0, 0}, {0, 0, 0});
  expectChunks(7, 1, {7}, {0});
  expectChunks(0, 1, {0}, {0});
  expectChunks(9, 2, {5, 4}, {0, 5});
  expectChunks(17, 3, {6, 6, 5}, {0, 6, 12});
}

//===----------------------------------------------------------------------===//
// Layouts: hand-computed cases
//===----------------------------------------------------------------------===//

TEST(LayoutTest, Accessors) {
  std::optional<Layout> layout = makeLayout({2, 4}, 2, {S(-1), R()});
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->mesh(), (Shape{2, 4}));
  EXPECT_EQ(layout->rank(), 2);
  EXPECT_EQ(layout->numRanks(), 8);
  ASSERT_EQ(layout->placements().size(), 2u);
  EXPECT_TRUE(layout->placements()[0].isShard(1));
  EXPECT_TRUE(layout->placements()[1].isReplicate());
  EXPECT_EQ(layout->order(0), (std::vector<int64_t>{}));
  EXPECT_EQ(layout->order(1), (std::vector<int64_t>{0}));
  EXPECT_EQ(layout->kindOn(0), PlacementKind::Shard);
  EXPECT_EQ(layout->kindOn(1), PlacementKind::Replicate);

  std::optional<Layout> partial =
      makeLayout({2, 2}, 1, {P(ReduceKind::Max), S(0, 0)});
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->kindOn(0), PlacementKind::Partial);
  EXPECT_EQ(partial->kindOn(1), PlacementKind::Shard);
  // The explicit default order is normalized away.
  EXPECT_EQ(partial->placements()[1].order, -1);
  EXPECT_EQ(partial->order(0), (std::vector<int64_t>{1}));
}

TEST(LayoutTest, OneDimUneven) {
  std::optional<Layout> layout = makeLayout({4}, 1, {S(0)});
  ASSERT_TRUE(layout);
  expectShards(*layout, {13}, {{4}, {4}, {4}, {1}}, {{0}, {4}, {8}, {12}});
  expectShards(*layout, {5}, {{2}, {2}, {1}, {0}}, {{0}, {2}, {4}, {5}});
  expectShards(*layout, {3}, {{1}, {1}, {1}, {0}}, {{0}, {1}, {2}, {3}});
}

TEST(LayoutTest, NestedIsNotFlat) {
  // [S(0), S(0)] on 2x2, coord (a, b): chunk a of 9 over 2 (5 at 0, 4 at 5),
  // then chunk b of that over 2: 5 -> 3 at 0, 2 at 3; 4 -> 2 at 5, 2 at 7.
  std::optional<Layout> layout = makeLayout({2, 2}, 1, {S(0), S(0)});
  ASSERT_TRUE(layout);
  expectShards(*layout, {9}, {{3}, {2}, {2}, {2}}, {{0}, {3}, {5}, {7}});
  EXPECT_EQ(layout->order(0), (std::vector<int64_t>{0, 1}));
  // 5 rows: a -> 3 at 0, 2 at 3; then 3 -> 2 at 0, 1 at 2; 2 -> 1 at 3, 1 at 4.
  expectShards(*layout, {5}, {{2}, {1}, {1}, {1}}, {{0}, {2}, {3}, {4}});
}

TEST(LayoutTest, IssueExample9x5) {
  // --mesh 2x2 --shape 9x5 --placements [S(0), S(0)]
  std::optional<Layout> layout = makeLayout({2, 2}, 2, {S(0), S(0)});
  ASSERT_TRUE(layout);
  Shard shard0 = layout->shardOf({9, 5}, 0);
  EXPECT_EQ(shard0.shape, (Shape{3, 5}));
  EXPECT_EQ(shard0.offset, (Shape{0, 0}));
  expectShards(*layout, {9, 5}, {{3, 5}, {2, 5}, {2, 5}, {2, 5}},
               {{0, 0}, {3, 0}, {5, 0}, {7, 0}});
}

TEST(LayoutTest, ExplicitShardOrder) {
  // [S(0)[1], S(0)[0]] on 2x2, 9 rows: mesh dim 1 is applied first.
  // Coord (a, b): chunk b of 9 over 2 (b=0: 5 at 0, b=1: 4 at 5), then chunk
  // a of that over 2:
  //   (0,0) rank 0: 5 -> first  3 at 0
  //   (0,1) rank 1: 4 -> first  2 at 5
  //   (1,0) rank 2: 5 -> second 2 at 3
  //   (1,1) rank 3: 4 -> second 2 at 7
  std::optional<Layout> layout = makeLayout({2, 2}, 1, {S(0, 1), S(0, 0)});
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->order(0), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(layout->placements()[0].order, 1);
  EXPECT_EQ(layout->placements()[1].order, 0);
  expectShards(*layout, {9}, {{3}, {2}, {2}, {2}}, {{0}, {5}, {3}, {7}});
  EXPECT_EQ(layout->sizeTable({9}, 0), (std::vector<int64_t>{3, 2, 2, 2}));

  // Same on a 2x3 mesh with 10 rows. Coord (a, b), rank 3a + b: chunk b of
  // 10 over 3 (4 at 0, 4 at 4, 2 at 8), then chunk a over 2:
  //   4 at 0 -> (2 at 0, 2 at 2); 4 at 4 -> (2 at 4, 2 at 6);
  //   2 at 8 -> (1 at 8, 1 at 9).
  std::optional<Layout> l23 = makeLayout({2, 3}, 1, {S(0, 1), S(0, 0)});
  ASSERT_TRUE(l23);
  expectShards(*l23, {10}, {{2}, {2}, {1}, {2}, {2}, {1}},
               {{0}, {4}, {8}, {2}, {6}, {9}});
  // The default order for comparison: chunk a of 10 over 2 (5 at 0, 5 at 5),
  // then chunk b over 3: 5 -> (2, 2, 1).
  std::optional<Layout> d23 = makeLayout({2, 3}, 1, {S(0), S(0)});
  ASSERT_TRUE(d23);
  expectShards(*d23, {10}, {{2}, {2}, {1}, {2}, {2}, {1}},
               {{0}, {2}, {4}, {5}, {7}, {9}});
}

TEST(LayoutTest, ThreeMeshDimsOrder) {
  // [S(0)[2], S(0)[0], S(0)[1]] on 2x2x2, 9 rows: order mesh dims 1, 2, 0.
  // Coord (a, b, c), rank 4a + 2b + c: chunk b of 9 over 2 (5 at 0 / 4 at 5),
  // chunk c of that over 2 (5 -> 3 at 0, 2 at 3; 4 -> 2 at 5, 2 at 7), chunk
  // a of that over 2 (3 at 0 -> 2 at 0, 1 at 2; 2 at s -> 1 at s, 1 at s+1).
  std::optional<Layout> layout =
      makeLayout({2, 2, 2}, 1, {S(0, 2), S(0, 0), S(0, 1)});
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->order(0), (std::vector<int64_t>{1, 2, 0}));
  //           rank:   0     1     2     3     4     5     6     7
  //          coord: 000   001   010   011   100   101   110   111
  expectShards(*layout, {9}, {{2}, {1}, {1}, {1}, {1}, {1}, {1}, {1}},
               {{0}, {3}, {5}, {7}, {2}, {4}, {6}, {8}});
}

TEST(LayoutTest, EmptyShards) {
  // 1 row over 4 ranks: 1, 0, 0, 0; empty shards report offset 1.
  std::optional<Layout> layout = makeLayout({4}, 2, {S(0)});
  ASSERT_TRUE(layout);
  expectShards(*layout, {1, 3}, {{1, 3}, {0, 3}, {0, 3}, {0, 3}},
               {{0, 0}, {1, 0}, {1, 0}, {1, 0}});

  // 3 rows on [S(0), S(0)] on 2x4, coord (a, b), rank 4a + b:
  // chunk a of 3 over 2: 2 at 0, 1 at 2. Then over 4:
  //   2 at 0 -> 1 at 0, 1 at 1, empty, empty
  //   1 at 2 -> 1 at 2, empty, empty, empty
  // An empty shard reports the global size 3 (not the local length 2).
  std::optional<Layout> nested = makeLayout({2, 4}, 1, {S(0), S(0)});
  ASSERT_TRUE(nested);
  expectShards(*nested, {3}, {{1}, {1}, {0}, {0}, {1}, {0}, {0}, {0}},
               {{0}, {1}, {3}, {3}, {2}, {3}, {3}, {3}});

  // An empty dim next to a non-empty one: [S(1), S(0)] on 2x4, 9x10.
  // Dim 0 is chunk b of 9 over 4 (3, 3, 3, 0 at 0, 3, 6, 9); dim 1 is chunk
  // a of 10 over 2 (5 at 0, 5 at 5).
  std::optional<Layout> twoDims = makeLayout({2, 4}, 2, {S(1), S(0)});
  ASSERT_TRUE(twoDims);
  expectShards(
      *twoDims, {9, 10},
      {{3, 5}, {3, 5}, {3, 5}, {0, 5}, {3, 5}, {3, 5}, {3, 5}, {0, 5}},
      {{0, 0}, {3, 0}, {6, 0}, {9, 0}, {0, 5}, {3, 5}, {6, 5}, {9, 5}});

  // Both dims empty on the last rank: [S(0), S(1)] on 4x4, 3x3.
  std::optional<Layout> both = makeLayout({4, 4}, 2, {S(0), S(1)});
  ASSERT_TRUE(both);
  Shard last = both->shardOf({3, 3}, 15);
  EXPECT_EQ(last.shape, (Shape{0, 0}));
  EXPECT_EQ(last.offset, (Shape{3, 3}));
  Shard mixed = both->shardOf({3, 3}, 2); // coord (0, 2)
  EXPECT_EQ(mixed.shape, (Shape{1, 1}));
  EXPECT_EQ(mixed.offset, (Shape{0, 2}));
  Shard mixed2 = both->shardOf({3, 3}, 13); // coord (3, 1)
  EXPECT_EQ(mixed2.shape, (Shape{0, 1}));
  EXPECT_EQ(mixed2.offset, (Shape{3, 1}));

  // A zero-size global dim: everything is empty at offset 0.
  expectShards(*layout, {0, 3}, {{0, 3}, {0, 3}, {0, 3}, {0, 3}},
               {{0, 0}, {0, 0}, {0, 0}, {0, 0}});
}

TEST(LayoutTest, ReplicateAndPartialDoNotSplit) {
  // [R, S(0)] on 2x2, coord (a, b): chunk b of 5 over 2 (3 at 0, 2 at 3).
  std::optional<Layout> rs = makeLayout({2, 2}, 1, {R(), S(0)});
  ASSERT_TRUE(rs);
  expectShards(*rs, {5}, {{3}, {2}, {3}, {2}}, {{0}, {3}, {0}, {3}});

  // [P(sum), S(1)] on 2x2, 4x5: dim 1 is chunk b of 5 over 2.
  std::optional<Layout> ps = makeLayout({2, 2}, 2, {P(), S(1)});
  ASSERT_TRUE(ps);
  expectShards(*ps, {4, 5}, {{4, 3}, {4, 2}, {4, 3}, {4, 2}},
               {{0, 0}, {0, 3}, {0, 0}, {0, 3}});

  // Nothing sharded: every rank holds the whole tensor.
  std::optional<Layout> rp = makeLayout({2, 3}, 2, {R(), P(ReduceKind::Max)});
  ASSERT_TRUE(rp);
  for (int64_t r = 0; r < 6; ++r) {
    Shard shard = rp->shardOf({7, 3}, r);
    EXPECT_EQ(shard.shape, (Shape{7, 3})) << "rank " << r;
    EXPECT_EQ(shard.offset, (Shape{0, 0})) << "rank " << r;
  }
  EXPECT_EQ(rp->uniformSize({7, 3}, 0), 7);

  // [S(0), R, S(0)] on 2x3x2: the middle mesh dim does not take part in the
  // nesting of dim 0 (order 0, 2). Coord (a, m, c): chunk a of 9 over 2 (5 at
  // 0, 4 at 5), then chunk c over 2.
  std::optional<Layout> srs = makeLayout({2, 3, 2}, 1, {S(0), R(), S(0)});
  ASSERT_TRUE(srs);
  EXPECT_EQ(srs->order(0), (std::vector<int64_t>{0, 2}));
  for (int64_t m = 0; m < 3; ++m) {
    EXPECT_EQ(srs->shardAt({9}, {0, m, 0}).offset, (Shape{0}));
    EXPECT_EQ(srs->shardAt({9}, {0, m, 0}).shape, (Shape{3}));
    EXPECT_EQ(srs->shardAt({9}, {0, m, 1}).offset, (Shape{3}));
    EXPECT_EQ(srs->shardAt({9}, {0, m, 1}).shape, (Shape{2}));
    EXPECT_EQ(srs->shardAt({9}, {1, m, 0}).offset, (Shape{5}));
    EXPECT_EQ(srs->shardAt({9}, {1, m, 0}).shape, (Shape{2}));
    EXPECT_EQ(srs->shardAt({9}, {1, m, 1}).offset, (Shape{7}));
    EXPECT_EQ(srs->shardAt({9}, {1, m, 1}).shape, (Shape{2}));
  }
}

TEST(LayoutTest, SizeTableAndUniformSize) {
  std::optional<Layout> layout = makeLayout({4}, 2, {S(0)});
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->sizeTable({13, 6}, 0), (std::vector<int64_t>{4, 4, 4, 1}));
  EXPECT_EQ(layout->sizeTable({13, 6}, 1), (std::vector<int64_t>{6, 6, 6, 6}));
  EXPECT_EQ(layout->uniformSize({13, 6}, 0), std::nullopt);
  EXPECT_EQ(layout->uniformSize({13, 6}, 1), 6);
  EXPECT_EQ(layout->uniformSize({12, 6}, 0), 3);
  EXPECT_EQ(layout->uniformSize({1, 6}, 0), std::nullopt);

  std::optional<Layout> nested = makeLayout({2, 2}, 1, {S(0), S(0)});
  ASSERT_TRUE(nested);
  EXPECT_EQ(nested->sizeTable({9}, 0), (std::vector<int64_t>{3, 2, 2, 2}));
  EXPECT_EQ(nested->uniformSize({9}, 0), std::nullopt);
  EXPECT_EQ(nested->uniformSize({8}, 0), 2);
  // 6 over 2 is 3, 3 over 2 is 2, 1: uneven although 6 is not prime.
  EXPECT_EQ(nested->sizeTable({6}, 0), (std::vector<int64_t>{2, 1, 2, 1}));
  EXPECT_EQ(nested->uniformSize({6}, 0), std::nullopt);

  std::optional<Layout> rs = makeLayout({2, 2}, 1, {R(), S(0)});
  ASSERT_TRUE(rs);
  EXPECT_EQ(rs->sizeTable({8}, 0), (std::vector<int64_t>{4, 4, 4, 4}));
  EXPECT_EQ(rs->uniformSize({8}, 0), 4);
  EXPECT_EQ(rs->sizeTable({7}, 0), (std::vector<int64_t>{4, 3, 4, 3}));
  EXPECT_EQ(rs->uniformSize({7}, 0), std::nullopt);

  // A zero-size dim is uniformly zero.
  EXPECT_EQ(layout->uniformSize({0, 6}, 0), 0);
}

TEST(LayoutTest, MixedSignSpelling) {
  // S(-1) and S(1) name the same tensor dim of a rank-2 tensor, so this is
  // [S(1), S(1)] on 2x2: chunk a of 9 over 2, then chunk b over 2.
  std::optional<Layout> layout = makeLayout({2, 2}, 2, {S(-1), S(1)});
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->order(1), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(layout->order(0), (std::vector<int64_t>{}));
  EXPECT_EQ(layout->placements(), (Placements{S(1), S(1)}));
  expectShards(*layout, {4, 9}, {{4, 3}, {4, 2}, {4, 2}, {4, 2}},
               {{0, 0}, {0, 3}, {0, 5}, {0, 7}});

  // With explicit positions the two spellings still form one order:
  // [S(1)[1], S(1)[0]], mesh dim 1 first (as in ExplicitShardOrder).
  std::optional<Layout> ordered = makeLayout({2, 2}, 2, {S(-1, 1), S(1, 0)});
  ASSERT_TRUE(ordered);
  EXPECT_EQ(ordered->order(1), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(ordered->placements(), (Placements{S(1, 1), S(1, 0)}));
  expectShards(*ordered, {4, 9}, {{4, 3}, {4, 2}, {4, 2}, {4, 2}},
               {{0, 0}, {0, 5}, {0, 3}, {0, 7}});
  // And a non-permutation across spellings is still rejected.
  expectCreateError({2, 2}, 2, {S(-1, 0), S(1, 0)});
}

TEST(LayoutTest, CreateErrors) {
  // Wrong placement count.
  expectCreateError({2, 2}, 1, {S(0)});
  expectCreateError({4}, 1, {S(0), R()});
  // Shard dim out of range.
  expectCreateError({4}, 2, {S(2)});
  expectCreateError({4}, 2, {S(-3)});
  expectCreateError({2, 2}, 1, {R(), S(1)});
  // Mixed partials.
  expectCreateError({2, 2}, 1, {P(ReduceKind::Sum), P(ReduceKind::Max)});
  expectCreateError({2, 2}, 1, {P(ReduceKind::Avg), P(ReduceKind::Sum)});
  // Bad shard orders.
  expectCreateError({2, 2}, 1, {S(0, 0), S(0)});
  expectCreateError({2, 2}, 1, {S(0, 0), S(0, 0)});
  expectCreateError({2, 2}, 1, {S(0, 2), S(0, 0)});
  // Bad meshes.
  expectCreateError({0}, 1, {S(0)});
  expectCreateError({2, 0}, 1, {S(0), R()});
  expectCreateError({-2}, 1, {R()});
  expectCreateError({2, -1}, 1, {S(0), R()});
  expectCreateError({}, 1, {});

  // And a few legal ones for contrast.
  std::string error;
  EXPECT_TRUE(Layout::create({2, 2}, 1,
                             {P(ReduceKind::Max), P(ReduceKind::Max)}, error))
      << error;
  EXPECT_TRUE(Layout::create({4}, 2, {S(-2)}, error)) << error;
  EXPECT_TRUE(Layout::create({1, 1}, 0, {R(), P()}, error)) << error;
}

//===----------------------------------------------------------------------===//
// Property tests
//===----------------------------------------------------------------------===//

/// Application order of the mesh dims sharding tensor dim `dim`, computed
/// from the raw placements (shard dims already made non-negative).
std::vector<int64_t> referenceOrder(const Placements &ps, int64_t dim) {
  std::vector<std::pair<int64_t, int64_t>> keyed; // (position, mesh dim)
  for (int64_t m = 0; m < static_cast<int64_t>(ps.size()); ++m)
    if (ps[m].isShard(dim))
      keyed.push_back({ps[m].order < 0 ? m : ps[m].order, m});
  std::sort(keyed.begin(), keyed.end());
  std::vector<int64_t> order;
  for (const auto &entry : keyed)
    order.push_back(entry.second);
  return order;
}

/// Buffers reused across configurations, so that the exhaustive sweep does
/// not spend its time in malloc.
struct Scratch {
  std::vector<int64_t> list, next;
  std::vector<uint8_t> marks;
  std::vector<int64_t> covered;         // marked elements per group
  std::vector<int64_t> shapes, offsets; // [rank * numRanks], rank-major
};

/// torch.chunk on an explicit list of indices: `ceil(len / n)` per piece, the
/// last pieces short or empty. Piece `c` goes to `out`.
void chunkList(const std::vector<int64_t> &list, int64_t n, int64_t c,
               std::vector<int64_t> &out) {
  out.clear();
  int64_t len = static_cast<int64_t>(list.size());
  int64_t per = (len + n - 1) / n;
  for (int64_t i = c * per; i < (c + 1) * per && i < len; ++i)
    out.push_back(list[i]);
}

/// The reference shard of one tensor dim of length `length` at `coord`:
/// start from the list 0..length-1 and re-chunk it mesh dim by mesh dim.
void referenceDim(int64_t length, const std::vector<int64_t> &order,
                  const Shape &mesh, const Shape &coord, Scratch &scratch,
                  int64_t &size, int64_t &offset) {
  scratch.list.resize(length);
  std::iota(scratch.list.begin(), scratch.list.end(), 0);
  for (int64_t m : order) {
    chunkList(scratch.list, mesh[m], coord[m], scratch.next);
    std::swap(scratch.list, scratch.next);
  }
  size = static_cast<int64_t>(scratch.list.size());
  offset = scratch.list.empty() ? length : scratch.list.front();
}

std::string describe(const Shape &mesh, const Shape &global,
                     const Placements &ps) {
  return "mesh " + str(mesh) + " global " + str(global) + " placements " +
         formatPlacements(ps);
}

/// A mesh and placements under test: the Layout, built once, and the
/// reference's view of the placements (non-negative dims, orders kept).
struct Config {
  Shape mesh;
  int64_t rank = 0;
  Placements ps;
  std::optional<Layout> layout;
  Placements raw;
  std::vector<std::vector<int64_t>> orders;

  /// Creates the layout and checks what does not depend on the global
  /// shape; returns a description of the first problem, or an empty string.
  std::string setup();
  /// Checks every rank's shard of `global`. `thorough` adds the consistency
  /// checks of shardOf, sizeTable and uniformSize against shardAt, which
  /// cost a pass over all ranks each.
  std::string check(const Shape &global, Scratch &scratch, bool thorough) const;
};

std::string Config::setup() {
  const int64_t meshRank = static_cast<int64_t>(mesh.size());
  std::string error;
  layout = Layout::create(mesh, rank, ps, error);
  if (!layout)
    return "create failed: " + error;

  raw = ps;
  for (Placement &p : raw)
    if (p.isShard() && p.dim < 0)
      p.dim += rank;
  orders.assign(rank, {});
  for (int64_t d = 0; d < rank; ++d) {
    orders[d] = referenceOrder(raw, d);
    if (layout->order(d) != orders[d])
      return "order(" + std::to_string(d) + ") is " + str(layout->order(d)) +
             ", expected " + str(orders[d]);
  }
  if (layout->rank() != rank || layout->mesh() != mesh)
    return "rank() or mesh() differs from what was given";
  if (static_cast<int64_t>(layout->placements().size()) != meshRank)
    return "normalized placements have the wrong size";
  for (int64_t m = 0; m < meshRank; ++m) {
    if (layout->kindOn(m) != ps[m].kind)
      return "kindOn(" + std::to_string(m) + ") differs";
    if (ps[m].isShard() && layout->placements()[m].dim != raw[m].dim)
      return "normalized shard dim of mesh dim " + std::to_string(m) + " is " +
             std::to_string(layout->placements()[m].dim);
  }
  return "";
}

std::string Config::check(const Shape &global, Scratch &scratch,
                          bool thorough) const {
  const int64_t meshRank = static_cast<int64_t>(mesh.size());
  if (static_cast<int64_t>(global.size()) != rank)
    return "test bug: global shape of the wrong rank";

  int64_t numRanks = 1;
  for (int64_t s : mesh)
    numRanks *= s;
  if (layout->numRanks() != numRanks)
    return "numRanks is " + std::to_string(layout->numRanks());

  int64_t numel = 1;
  for (int64_t s : global)
    numel *= s;

  // Non-Shard mesh dims identify the group a rank tiles with.
  int64_t numGroups = 1;
  for (int64_t m = 0; m < meshRank; ++m)
    if (!ps[m].isShard())
      numGroups *= mesh[m];
  scratch.marks.assign(numGroups * numel, 0);
  scratch.covered.assign(numGroups, 0);
  scratch.shapes.assign(numRanks * rank, 0);
  scratch.offsets.assign(numRanks * rank, 0);

  Shape coord(meshRank, 0);
  for (int64_t r = 0; r < numRanks; ++r) {
    Shard shard = layout->shardAt(global, coord);
    if (static_cast<int64_t>(shard.shape.size()) != rank ||
        static_cast<int64_t>(shard.offset.size()) != rank)
      return "rank " + std::to_string(r) + ": shard of the wrong rank";
    if (thorough) {
      Shard byRank = layout->shardOf(global, r);
      if (shard.shape != byRank.shape || shard.offset != byRank.offset)
        return "shardOf(" + std::to_string(r) + ") differs from shardAt(" +
               str(coord) + ")";
    }

    // (c) Equal to the reference.
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size, offset;
      referenceDim(global[d], orders[d], mesh, coord, scratch, size, offset);
      if (shard.shape[d] != size || shard.offset[d] != offset)
        return "rank " + std::to_string(r) + " coord " + str(coord) +
               ": shape " + str(shard.shape) + " offset " + str(shard.offset) +
               ", expected dim " + std::to_string(d) + " size " +
               std::to_string(size) + " offset " + std::to_string(offset);
    }

    // Sanity, so that marking stays in bounds.
    for (int64_t d = 0; d < rank; ++d) {
      if (shard.shape[d] < 0 || shard.offset[d] < 0 ||
          shard.offset[d] + shard.shape[d] > global[d])
        return "rank " + std::to_string(r) + " out of bounds";
      if (shard.shape[d] == 0 && shard.offset[d] != global[d])
        return "rank " + std::to_string(r) + " empty dim " + std::to_string(d) +
               " offset is not the global size";
    }

    // (b) Equal to the shard of the rank with the same Shard coordinates and
    // zero Replicate/Partial coordinates (seen before, as it is not larger).
    int64_t group = 0, rep = 0;
    for (int64_t m = 0; m < meshRank; ++m) {
      rep = rep * mesh[m] + (ps[m].isShard() ? coord[m] : 0);
      if (!ps[m].isShard())
        group = group * mesh[m] + coord[m];
    }
    for (int64_t d = 0; d < rank; ++d) {
      scratch.shapes[r * rank + d] = shard.shape[d];
      scratch.offsets[r * rank + d] = shard.offset[d];
      if (shard.shape[d] != scratch.shapes[rep * rank + d] ||
          shard.offset[d] != scratch.offsets[rep * rank + d])
        return "rank " + std::to_string(r) + " differs from rank " +
               std::to_string(rep) +
               " although they differ only in Replicate/Partial coordinates";
    }

    // (a) Mark the shard in its group's copy of the tensor: no element twice
    // here, and every element once when the group's marks add up to numel.
    int64_t volume = 1;
    for (int64_t d = 0; d < rank; ++d)
      volume *= shard.shape[d];
    if (volume > 0) {
      // Rows along the last dim are contiguous; walk the leading dims.
      int64_t rowLength = rank ? shard.shape[rank - 1] : 1;
      Shape idx(rank, 0);
      while (true) {
        int64_t flat = 0;
        for (int64_t d = 0; d < rank; ++d)
          flat = flat * global[d] + shard.offset[d] + idx[d];
        uint8_t *row = scratch.marks.data() + group * numel + flat;
        for (int64_t i = 0; i < rowLength; ++i) {
          if (row[i])
            return "rank " + std::to_string(r) + " covers element " +
                   std::to_string(flat + i) +
                   " already covered by another rank of its group";
          row[i] = 1;
        }
        int64_t d = rank - 2;
        while (d >= 0 && ++idx[d] == shard.shape[d])
          idx[d--] = 0;
        if (d < 0)
          break;
      }
    }
    scratch.covered[group] += volume;

    for (int64_t m = meshRank - 1; m >= 0; --m) {
      if (++coord[m] < mesh[m])
        break;
      coord[m] = 0;
    }
  }

  for (int64_t g = 0; g < numGroups; ++g)
    if (scratch.covered[g] != numel)
      return "the ranks of group " + std::to_string(g) + " cover " +
             std::to_string(scratch.covered[g]) + " of " +
             std::to_string(numel) + " elements";

  if (!thorough)
    return "";
  // Size tables agree with the shards.
  for (int64_t d = 0; d < rank; ++d) {
    std::vector<int64_t> table = layout->sizeTable(global, d);
    if (static_cast<int64_t>(table.size()) != numRanks)
      return "sizeTable(" + std::to_string(d) + ") has the wrong size";
    bool uniform = true;
    for (int64_t r = 0; r < numRanks; ++r) {
      if (table[r] != scratch.shapes[r * rank + d])
        return "sizeTable(" + std::to_string(d) + ")[" + std::to_string(r) +
               "] is " + std::to_string(table[r]);
      uniform &= table[r] == table[0];
    }
    std::optional<int64_t> u = layout->uniformSize(global, d);
    if (uniform != u.has_value() || (uniform && *u != table[0]))
      return "uniformSize(" + std::to_string(d) + ") is wrong";
  }
  return "";
}

/// Every placement assignment from {S(0), S(1) when rank 2, R, P(sum)} per
/// mesh dim, with every shard order: the default one (no positions) and
/// every permutation of the mesh dims sharding a tensor dim written as [k].
std::vector<Placements> allPlacements(int64_t meshRank, int64_t rank) {
  std::vector<Placement> choices = {S(0), R(), P()};
  if (rank == 2)
    choices.push_back(S(1));
  std::vector<Placements> base = {{}};
  for (int64_t m = 0; m < meshRank; ++m) {
    std::vector<Placements> next;
    for (const Placements &prefix : base)
      for (const Placement &p : choices) {
        Placements ps = prefix;
        ps.push_back(p);
        next.push_back(ps);
      }
    base = next;
  }

  std::vector<Placements> result;
  for (const Placements &ps : base) {
    std::vector<Placements> variants = {ps};
    for (int64_t d = 0; d < rank; ++d) {
      std::vector<int64_t> meshDims;
      for (int64_t m = 0; m < meshRank; ++m)
        if (ps[m].isShard(d))
          meshDims.push_back(m);
      if (meshDims.empty())
        continue;
      std::vector<Placements> next;
      for (const Placements &v : variants) {
        next.push_back(v); // default order
        std::vector<int64_t> perm = meshDims;
        do {
          Placements w = v;
          for (size_t k = 0; k < perm.size(); ++k)
            w[perm[k]].order = static_cast<int64_t>(k);
          next.push_back(w);
        } while (std::next_permutation(perm.begin(), perm.end()));
      }
      variants = next;
    }
    result.insert(result.end(), variants.begin(), variants.end());
  }
  return result;
}

std::vector<Shape> allMeshes(int64_t meshRank) {
  std::vector<Shape> meshes = {{}};
  for (int64_t m = 0; m < meshRank; ++m) {
    std::vector<Shape> next;
    for (const Shape &prefix : meshes)
      for (int64_t s = 1; s <= 4; ++s) {
        Shape mesh = prefix;
        mesh.push_back(s);
        next.push_back(mesh);
      }
    meshes = next;
  }
  return meshes;
}

std::vector<Shape> allShapes() {
  std::vector<Shape> shapes;
  for (int64_t a = 0; a <= 17; ++a)
    shapes.push_back({a});
  for (int64_t a = 1; a <= 17; ++a)
    for (int64_t b = 1; b <= 17; ++b)
      shapes.push_back({a, b});
  for (const Shape &zero :
       {Shape{0, 5}, Shape{6, 0}, Shape{0, 0}, Shape{0, 1}, Shape{13, 0}})
    shapes.push_back(zero);
  return shapes;
}

void runExhaustive(int64_t meshRank) {
  std::vector<Shape> meshes = allMeshes(meshRank);
  std::vector<Placements> byRank[3] = {
      {}, allPlacements(meshRank, 1), allPlacements(meshRank, 2)};
  std::vector<Shape> shapes = allShapes();
  Scratch scratch;
  int failures = 0;
  int64_t checked = 0;
  auto report = [&](const Config &config, const Shape &global,
                    const std::string &problem) {
    ADD_FAILURE() << describe(config.mesh, global, config.ps) << ": "
                  << problem;
    return ++failures < 20;
  };
  for (const Shape &mesh : meshes)
    for (int64_t rank = 1; rank <= 2; ++rank)
      for (const Placements &ps : byRank[rank]) {
        Config config;
        config.mesh = mesh;
        config.rank = rank;
        config.ps = ps;
        std::string problem = config.setup();
        if (!problem.empty()) {
          if (!report(config, Shape(rank, -1), problem))
            return;
          continue;
        }
        for (const Shape &global : shapes) {
          if (static_cast<int64_t>(global.size()) != rank)
            continue;
          // The API consistency checks on a deterministic quarter.
          bool thorough = checked % 4 == 0;
          ++checked;
          problem = config.check(global, scratch, thorough);
          if (!problem.empty() && !report(config, global, problem))
            return;
        }
      }
  // Guard against an enumeration that silently checks nothing.
  EXPECT_GT(checked, 1000);
}

TEST(LayoutPropertyTest, OneDimMeshes) { runExhaustive(1); }

TEST(LayoutPropertyTest, TwoDimMeshes) { runExhaustive(2); }

TEST(LayoutPropertyTest, EnumerationSize) {
  // 1-D mesh, rank 2: S(0) and S(1) get default + [0] each, R and P one.
  EXPECT_EQ(allPlacements(1, 2).size(), 6u);
  // 2-D mesh, rank 1, choices {S(0), R, P}: [S(0), S(0)] has 3 spellings,
  // the 4 mixes of one S(0) with R/P have 2 each, the 4 without S(0) have 1.
  EXPECT_EQ(allPlacements(2, 1).size(), 3u + 4 * 2 + 4);
  EXPECT_EQ(allMeshes(2).size(), 16u);
}

TEST(LayoutPropertyTest, ThreeDimMeshesSampled) {
  std::mt19937 rng(20240611u);
  auto pick = [&](int64_t n) { return static_cast<int64_t>(rng() % n); };
  const ReduceKind kinds[] = {ReduceKind::Sum, ReduceKind::Avg, ReduceKind::Max,
                              ReduceKind::Min, ReduceKind::Product};
  Scratch scratch;
  int failures = 0;
  const int samples = 4000;
  for (int i = 0; i < samples; ++i) {
    Shape mesh = {1 + pick(4), 1 + pick(4), 1 + pick(4)};
    int64_t rank = 1 + pick(2);
    Shape global;
    for (int64_t d = 0; d < rank; ++d)
      global.push_back(pick(20) == 0 ? 0 : 1 + pick(17));
    ReduceKind kind = kinds[pick(5)];
    Placements ps;
    for (int64_t m = 0; m < 3; ++m) {
      int64_t c = pick(rank == 2 ? 4 : 3);
      if (c == 0)
        ps.push_back(S(0));
      else if (c == 1)
        ps.push_back(R());
      else if (c == 2)
        ps.push_back(P(kind));
      else
        ps.push_back(S(1));
    }
    // A random order per tensor dim, or the default one.
    for (int64_t d = 0; d < rank; ++d) {
      std::vector<int64_t> meshDims;
      for (int64_t m = 0; m < 3; ++m)
        if (ps[m].isShard(d))
          meshDims.push_back(m);
      if (meshDims.empty() || pick(3) == 0)
        continue;
      for (size_t k = meshDims.size(); k > 1; --k)
        std::swap(meshDims[k - 1], meshDims[pick(static_cast<int64_t>(k))]);
      for (size_t k = 0; k < meshDims.size(); ++k)
        ps[meshDims[k]].order = static_cast<int64_t>(k);
    }
    // Spell some shard dims negatively, also mixing S(-k) and S(rank-k)
    // within one tensor dim's order.
    for (Placement &p : ps)
      if (p.isShard() && pick(2) == 0)
        p.dim -= rank;

    Config config;
    config.mesh = mesh;
    config.rank = rank;
    config.ps = ps;
    std::string problem = config.setup();
    if (problem.empty())
      problem = config.check(global, scratch, /*thorough=*/true);
    if (!problem.empty()) {
      ADD_FAILURE() << describe(mesh, global, ps) << ": " << problem;
      if (++failures >= 20) {
        ADD_FAILURE() << "too many failures, stopping";
        return;
      }
    }
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Big meshes and distinct sizes
//===----------------------------------------------------------------------===//

namespace {

TEST(LayoutBigMesh, RejectsMoreRanksThanSupported) {
  std::string error;
  EXPECT_TRUE(verifyMeshShape({kMaxMeshRanks}, error));
  EXPECT_FALSE(verifyMeshShape({kMaxMeshRanks, 2}, error));
  EXPECT_NE(error.find("more than"), std::string::npos);
  error.clear();
  // Products that overflow int64 are caught before they overflow.
  EXPECT_FALSE(verifyMeshShape({int64_t(1) << 32, int64_t(1) << 32}, error));
  EXPECT_FALSE(error.empty());
}

TEST(LayoutDistinctSizes, EnumeratesOnlyShardingMeshDims) {
  std::string error;
  Placements ps;
  ASSERT_TRUE(parsePlacements("[S(0), R, S(0)]", ps, error)) << error;
  std::optional<Layout> layout = Layout::create({2, 1000, 2}, 2, ps, error);
  ASSERT_TRUE(layout) << error;
  // 9 rows: 5 | 4 over mesh dim 0, then 3,2 | 2,2 over mesh dim 2.
  EXPECT_EQ(layout->distinctSizes({9, 4}, 0), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(layout->distinctSizes({9, 4}, 1), (std::vector<int64_t>{4}));
  EXPECT_EQ(layout->uniformSize({9, 4}, 1), std::optional<int64_t>(4));
  EXPECT_EQ(layout->uniformSize({9, 4}, 0), std::nullopt);
  EXPECT_EQ(layout->uniformSize({8, 4}, 0), std::optional<int64_t>(2));
  // Agrees with the full per-rank table.
  for (Shape global : {Shape{9, 4}, Shape{1, 3}, Shape{0, 2}, Shape{17, 5}}) {
    for (int64_t d = 0; d < 2; ++d) {
      std::vector<int64_t> table = layout->sizeTable(global, d);
      std::sort(table.begin(), table.end());
      table.erase(std::unique(table.begin(), table.end()), table.end());
      EXPECT_EQ(layout->distinctSizes(global, d), table);
    }
  }
}

} // namespace

namespace {
TEST(NestedChunk, AppliesMeshDimsInOrder) {
  using namespace mlir::dtensor;
  // 9 rows over mesh dims 0 then 1 of a 2x2 mesh: (1, 0) holds rows 5..6.
  Chunk c = nestedChunk(9, {2, 2}, {0, 1}, {1, 0});
  EXPECT_EQ(c.size, 2);
  EXPECT_EQ(c.offset, 5);
  // Mesh dim 1 first: (1, 0) holds chunk 1 of chunk 0 = rows 3..4.
  c = nestedChunk(9, {2, 2}, {1, 0}, {1, 0});
  EXPECT_EQ(c.size, 2);
  EXPECT_EQ(c.offset, 3);
  // An empty piece reports the full length.
  c = nestedChunk(3, {2, 4}, {0, 1}, {0, 3});
  EXPECT_EQ(c.size, 0);
  EXPECT_EQ(c.offset, 3);
  // No mesh dims: the whole dim.
  c = nestedChunk(7, {2}, {}, {1});
  EXPECT_EQ(c.size, 7);
  EXPECT_EQ(c.offset, 0);
}
} // namespace

//===----------------------------------------------------------------------===//
// Sizes near INT64_MAX (issue 10): exact or an error, never wrapped around
//===----------------------------------------------------------------------===//

namespace {

/// torch.chunk in 128-bit arithmetic, where nothing near INT64_MAX overflows.
Chunk reference128(int64_t length, int64_t parts, int64_t index) {
  __int128 full = ((__int128)length + parts - 1) / parts;
  __int128 start = std::min<__int128>(full * index, length);
  __int128 size =
      std::max<__int128>(0, std::min<__int128>(length, start + full) - start);
  return {(int64_t)size, (int64_t)start};
}

TEST(ChunkTest, LengthsNearInt64Max) {
  // The issue's example: ceil-div overflow gave both halves an empty shard.
  expectChunks(INT64_MAX, 2, {int64_t(1) << 62, (int64_t(1) << 62) - 1},
               {0, int64_t(1) << 62});
  std::mt19937_64 rng(10);
  std::vector<int64_t> lengths{INT64_MAX, INT64_MAX - 1, INT64_MAX - 6,
                               int64_t(1) << 62, (int64_t(1) << 62) + 1};
  for (int i = 0; i < 200; ++i)
    lengths.push_back(int64_t(rng() >> 1));
  for (int64_t length : lengths) {
    for (int64_t parts : {int64_t(1), int64_t(2), int64_t(3), int64_t(7),
                          int64_t(1000), kMaxMeshRanks}) {
      for (int64_t index :
           {int64_t(0), int64_t(1), parts / 2, parts - 2, parts - 1}) {
        if (index < 0 || index >= parts)
          continue;
        Chunk got = chunk(length, parts, index);
        Chunk want = reference128(length, parts, index);
        ASSERT_EQ(got.size, want.size)
            << length << " on " << parts << " piece " << index;
        ASSERT_EQ(got.offset, want.offset)
            << length << " on " << parts << " piece " << index;
        ASSERT_GE(got.size, 0);
        ASSERT_LE(got.offset + got.size, length);
      }
      // The distinct sizes are those of the first piece, of the piece
      // after the full ones (the tail, if any) and of the last (empty, if
      // any pieces are left over).
      std::vector<int64_t> want{reference128(length, parts, 0).size};
      int64_t fullPieces = length / want.front();
      if (fullPieces < parts)
        want.push_back(reference128(length, parts, fullPieces).size);
      want.push_back(reference128(length, parts, parts - 1).size);
      std::sort(want.begin(), want.end());
      want.erase(std::unique(want.begin(), want.end()), want.end());
      std::vector<int64_t> got = distinctChunkSizes(length, parts);
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, want) << length << " on " << parts;
    }
  }
}

TEST(ChunkTest, DistinctChunkSizesMatchEveryPiece) {
  for (int64_t length = 0; length <= 40; ++length)
    for (int64_t parts = 1; parts <= 9; ++parts) {
      std::vector<int64_t> all;
      for (int64_t i = 0; i < parts; ++i)
        all.push_back(chunk(length, parts, i).size);
      std::sort(all.begin(), all.end());
      all.erase(std::unique(all.begin(), all.end()), all.end());
      std::vector<int64_t> got = distinctChunkSizes(length, parts);
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, all) << length << " on " << parts;
    }
}

TEST(LayoutHugeSizes, ShardsOfTheLargestDims) {
  std::string error;
  Placements ps;
  ASSERT_TRUE(parsePlacements("[S(0), S(0)]", ps, error)) << error;
  std::optional<Layout> layout = Layout::create({2, 3}, 1, ps, error);
  ASSERT_TRUE(layout) << error;
  // Every rank's shard is exact, and the shards tile [0, INT64_MAX).
  std::vector<std::pair<int64_t, int64_t>> pieces;
  std::vector<int64_t> sizes;
  for (int64_t r = 0; r < 6; ++r) {
    Shard s = layout->shardOf({INT64_MAX}, r);
    Shape coord = rankToCoord({2, 3}, r);
    Chunk outer = reference128(INT64_MAX, 2, coord[0]);
    Chunk inner = reference128(outer.size, 3, coord[1]);
    EXPECT_EQ(s.shape[0], inner.size) << "rank " << r;
    EXPECT_EQ(s.offset[0], outer.offset + inner.offset) << "rank " << r;
    pieces.push_back({s.offset[0], s.shape[0]});
    sizes.push_back(s.shape[0]);
  }
  std::sort(pieces.begin(), pieces.end());
  int64_t next = 0;
  for (auto [offset, size] : pieces) {
    EXPECT_EQ(offset, next);
    next = offset + size;
  }
  EXPECT_EQ(next, INT64_MAX);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  EXPECT_EQ(layout->distinctSizes({INT64_MAX}, 0), sizes);
  EXPECT_EQ(sizes.size(), 3u);
}

TEST(LayoutHugeSizes, DistinctSizesOnTheLargestMeshAreCheap) {
  // 2^24 ranks on one mesh dim: the sizes come from three chunk sizes, not
  // from 2^24 shards.
  std::string error;
  Placements ps{Placement::shard(0)};
  std::optional<Layout> layout = Layout::create({kMaxMeshRanks}, 1, ps, error);
  ASSERT_TRUE(layout) << error;
  EXPECT_EQ(layout->distinctSizes({kMaxMeshRanks + 1}, 0),
            (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(layout->distinctSizes({INT64_MAX}, 0),
            (std::vector<int64_t>{549755813887, 549755813888}));
}

TEST(SizeArithmetic, CheckedOperations) {
  EXPECT_EQ(checkedMul(int64_t(1) << 31, int64_t(1) << 31),
            std::optional<int64_t>(int64_t(1) << 62));
  EXPECT_EQ(checkedMul(int64_t(1) << 62, 2), std::nullopt);
  EXPECT_EQ(checkedMul(INT64_MAX, -1), std::optional<int64_t>(-INT64_MAX));
  EXPECT_EQ(checkedAdd(INT64_MAX - 1, 1), std::optional<int64_t>(INT64_MAX));
  EXPECT_EQ(checkedAdd(INT64_MAX, 1), std::nullopt);
  EXPECT_EQ(ceilDiv(INT64_MAX, 2), int64_t(1) << 62);
  EXPECT_EQ(ceilDiv(0, 5), 0);
  EXPECT_EQ(ceilDiv(10, 5), 2);
  EXPECT_EQ(numElements({}), std::optional<int64_t>(1));
  EXPECT_EQ(numElements({3, 0, INT64_MAX}), std::optional<int64_t>(0));
  EXPECT_EQ(numElements({int64_t(1) << 62, 2}), std::nullopt);
  EXPECT_EQ(numElements({int64_t(1) << 62, 4}), std::nullopt); // wraps to 0
  EXPECT_EQ(numElements({-1}), std::nullopt);
}

TEST(SizeArithmetic, VerifyGlobalShape) {
  std::string error;
  EXPECT_TRUE(verifyGlobalShape({INT64_MAX}, 1, error)) << error;
  EXPECT_TRUE(verifyGlobalShape({INT64_MAX}, 0, error)) << error;
  EXPECT_TRUE(verifyGlobalShape({int64_t(1) << 61, 3}, 1, error)) << error;
  EXPECT_FALSE(verifyGlobalShape({INT64_MAX}, 2, error));
  EXPECT_NE(error.find("more bytes than fit in a signed 64-bit integer"),
            std::string::npos)
      << error;
  error.clear();
  EXPECT_FALSE(verifyGlobalShape({int64_t(1) << 62, 4}, 0, error));
  EXPECT_NE(error.find("'4611686018427387904x4' has more elements"),
            std::string::npos)
      << error;
  error.clear();
  EXPECT_FALSE(verifyGlobalShape({2, -3}, 4, error));
  EXPECT_NE(error.find("negative size -3 in dim 1"), std::string::npos)
      << error;
}

//===----------------------------------------------------------------------===//
// Shape parsing
//===----------------------------------------------------------------------===//

TEST(ParseShapeTest, Accepted) {
  auto parsed = [](const std::string &text, bool positive) {
    Shape s;
    std::string error;
    EXPECT_TRUE(parseShape(text, positive, s, error)) << text << ": " << error;
    return s;
  };
  EXPECT_EQ(parsed("2x4", true), (Shape{2, 4}));
  EXPECT_EQ(parsed(" 2 x 4 ", true), (Shape{2, 4}));
  EXPECT_EQ(parsed("2,4,8", true), (Shape{2, 4, 8}));
  EXPECT_EQ(parsed("", false), Shape{});
  EXPECT_EQ(parsed("  ", false), Shape{});
  EXPECT_EQ(parsed("0x5", false), (Shape{0, 5}));
  EXPECT_EQ(parsed("007", false), (Shape{7}));
  EXPECT_EQ(parsed("9223372036854775807", false), (Shape{INT64_MAX}));
}

TEST(ParseShapeTest, Rejected) {
  for (const char *text : {"x",
                           "2x",
                           "x2",
                           "2xx4",
                           "2x-4",
                           "-1",
                           "+1",
                           "2x4x",
                           "2 4",
                           "2.5",
                           "2x4,8",
                           "0x",
                           "1e3",
                           "abc",
                           "2\t4",
                           "9223372036854775808",
                           "99999999999999999999999",
                           "2,,4",
                           ",",
                           "2x 4 x",
                           "\xff"}) {
    Shape s{1};
    std::string error;
    EXPECT_FALSE(parseShape(text, false, s, error))
        << "accepted '" << text << "'";
    EXPECT_NE(error.find("is not a shape"), std::string::npos) << error;
    EXPECT_TRUE(s.empty()) << "left sizes behind for '" << text << "'";
  }
  Shape s;
  std::string error;
  EXPECT_FALSE(parseShape("2x0", true, s, error));
  EXPECT_NE(error.find("a size is 0; expected positive sizes"),
            std::string::npos)
      << error;
  EXPECT_FALSE(parseShape("9223372036854775808", false, s, error));
  EXPECT_NE(error.find("larger than 9223372036854775807"), std::string::npos)
      << error;
}

/// Random strings over the characters of shapes and placement lists: the
/// parsers must return an answer for each (no crash, no assertion; run the
/// unit tests under -fsanitize=address,undefined for UB), an error message
/// whenever they reject, and what they accept must print and parse back to
/// the same value and go through Layout::create and shardOf.
TEST(ParserRobustness, RandomStrings) {
  std::mt19937 rng(20261122);
  const std::vector<std::string> tokens{"S",
                                        "R",
                                        "P",
                                        "Shard",
                                        "Replicate",
                                        "Partial",
                                        "(",
                                        ")",
                                        "[",
                                        "]",
                                        ",",
                                        " ",
                                        "x",
                                        "-",
                                        "+",
                                        "0",
                                        "1",
                                        "2",
                                        "9",
                                        "sum",
                                        "avg",
                                        "max",
                                        "prod",
                                        "foo",
                                        std::string(1, '\0'),
                                        "\xff",
                                        "9223372036854775807",
                                        "9223372036854775808",
                                        "-9223372036854775808",
                                        "18446744073709551616"};
  std::uniform_int_distribution<size_t> pick(0, tokens.size() - 1);
  std::uniform_int_distribution<int> length(0, 12);
  int64_t parsedLists = 0, parsedShapes = 0, laidOut = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    for (int n = length(rng); n > 0; --n)
      text += tokens[pick(rng)];
    Placements ps;
    std::string error;
    if (parsePlacements(text, ps, error)) {
      ++parsedLists;
      Placements again;
      std::string printed = formatPlacements(ps);
      ASSERT_TRUE(parsePlacements(printed, again, error)) << printed;
      EXPECT_EQ(again, ps) << text;
    } else {
      EXPECT_FALSE(error.empty()) << "no error for '" << text << "'";
    }
    Shape shape;
    error.clear();
    if (parseShape(text, /*positive=*/false, shape, error)) {
      ++parsedShapes;
      for (int64_t s : shape)
        EXPECT_GE(s, 0);
    } else {
      EXPECT_FALSE(error.empty()) << "no error for '" << text << "'";
    }
    // A parsed list on a small mesh, over a parsed (or a huge) shape.
    if (ps.empty() || ps.size() > 3)
      continue;
    Shape global = !shape.empty() ? shape
                   : i % 2        ? Shape{INT64_MAX, 1}
                                  : Shape{9, 5};
    std::optional<Layout> layout =
        Layout::create(Shape(ps.size(), 3), global.size(), ps, error);
    if (!layout || !verifyGlobalShape(global, 0, error))
      continue;
    ++laidOut;
    for (int64_t r = 0; r < layout->numRanks(); ++r) {
      Shard s = layout->shardOf(global, r);
      for (size_t d = 0; d < global.size(); ++d) {
        EXPECT_GE(s.shape[d], 0);
        EXPECT_LE(s.shape[d], global[d]);
      }
    }
    for (size_t d = 0; d < global.size(); ++d)
      EXPECT_FALSE(layout->distinctSizes(global, d).empty());
  }
  // The generator must reach the interesting paths, or this tests nothing.
  EXPECT_GT(parsedLists, 100);
  EXPECT_GT(parsedShapes, 100);
  EXPECT_GT(laidOut, 20);
}

} // namespace
