//===- WindowTest.cpp - windows of sharded loops ---------------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Layout.h"
#include "dtensor/Core/Window.h"
#include "gtest/gtest.h"

#include <random>
#include <set>

using namespace mlir::dtensor;

namespace {

/// Every index rank g's share of the loop reads.
std::set<int64_t> readsOf(const WindowRead &w, int64_t parts, int64_t g) {
  std::set<int64_t> reads;
  Chunk share = chunk(w.loopExtent, parts, g);
  for (int64_t i = share.offset; i < share.offset + share.size; ++i)
    for (int64_t t = w.lowSpan; t <= w.highSpan; ++t)
      reads.insert(w.stride * i + t + w.offset);
  return reads;
}

/// Checks, for every rank: the window holds every index the rank reads, at
/// the local index the partitioned loop uses; the pieces of the window
/// owned by the ranks are disjoint, cover every read, come from the owner
/// of each index, and every piece from another rank is a shift that
/// haloShifts lists with a piece at least as large.
void checkWindow(const WindowRead &w, int64_t parts) {
  std::string error;
  int64_t length = windowLength(w, parts, error);
  ASSERT_GT(length, 0) << error;
  std::map<int64_t, int64_t> shifts = haloShifts(w, parts);
  int64_t local = localIndexOffset(w, parts);
  for (int64_t g = 0; g < parts; ++g) {
    int64_t start = windowStart(w, parts, g);
    Chunk share = chunk(w.loopExtent, parts, g);
    for (int64_t i = 0; i < share.size; ++i)
      for (int64_t t = w.lowSpan; t <= w.highSpan; ++t) {
        int64_t global = w.stride * (i + share.offset) + t + w.offset;
        int64_t at = w.stride * i + t + local;
        ASSERT_GE(at, 0);
        ASSERT_LT(at, length);
        ASSERT_EQ(start + at, global);
      }
    std::set<int64_t> covered;
    for (int64_t h = 0; h < parts; ++h) {
      Interval piece = windowPiece(w, parts, g, h);
      Chunk owned = chunk(w.inputSize, parts, h);
      for (int64_t x = piece.begin; x < piece.end; ++x) {
        ASSERT_TRUE(covered.insert(x).second) << "index " << x << " twice";
        ASSERT_GE(x, owned.offset);
        ASSERT_LT(x, owned.offset + owned.size);
      }
      if (h != g && piece.size() > 0) {
        auto it = shifts.find(h - g);
        ASSERT_NE(it, shifts.end()) << "shift " << h - g << " missing";
        ASSERT_GE(it->second, piece.size());
      }
    }
    for (int64_t x : readsOf(w, parts, g))
      ASSERT_TRUE(covered.count(x)) << "rank " << g << " misses " << x;
  }
}

TEST(Window, HaloOfAThreePointStencil) {
  // out[i] = in[i] + in[i + 1] + in[i + 2] for 10 outputs, 12 inputs on 3
  // ranks: outputs 4 | 4 | 2, inputs 4 | 4 | 4; each window is 6 long.
  WindowRead w{1, 0, 0, 2, 10, 12};
  std::string error;
  EXPECT_EQ(windowLength(w, 3, error), 6);
  EXPECT_EQ(windowStart(w, 3, 1), 4);
  EXPECT_EQ(localIndexOffset(w, 3), 0);
  std::map<int64_t, int64_t> shifts = haloShifts(w, 3);
  // Only the right neighbour's first two elements: one exchange.
  EXPECT_EQ(shifts, (std::map<int64_t, int64_t>{{1, 2}}));
  checkWindow(w, 3);
}

TEST(Window, ReversalReadsTheMirrorRank) {
  // out[i] = in[7 - i] on 2 ranks: rank 0 reads rank 1's shard.
  WindowRead w{-1, 7, 0, 0, 8, 8};
  EXPECT_EQ(haloShifts(w, 2), (std::map<int64_t, int64_t>{{-1, 4}, {1, 4}}));
  checkWindow(w, 2);
}

TEST(Window, StridedAndDilated) {
  // A stride-2 convolution with a dilated 3-tap kernel: 2*i + 2*k.
  WindowRead w{2, 0, 0, 4, 7, 17};
  checkWindow(w, 3);
  checkWindow(w, 4);
}

TEST(Window, RandomReadsOnUnevenAndEmptyShards) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    WindowRead w;
    do
      w.stride = int64_t(rng() % 7) - 3;
    while (w.stride == 0);
    w.lowSpan = -int64_t(rng() % 3);
    w.highSpan = int64_t(rng() % 4);
    w.loopExtent = int64_t(rng() % 13);
    int64_t parts = 1 + int64_t(rng() % 6);
    // An input just large enough for every read, plus some slack.
    int64_t lowest = 0, highest = 0;
    if (w.loopExtent > 0) {
      int64_t a = w.stride * 0, b = w.stride * (w.loopExtent - 1);
      lowest = std::min(a, b) + w.lowSpan;
      highest = std::max(a, b) + w.highSpan;
    }
    w.offset = -lowest + int64_t(rng() % 3);
    w.inputSize = highest + w.offset + 1 + int64_t(rng() % 4);
    SCOPED_TRACE(testing::Message()
                 << "stride " << w.stride << " offset " << w.offset
                 << " span [" << w.lowSpan << ", " << w.highSpan << "] loop "
                 << w.loopExtent << " input " << w.inputSize << " parts "
                 << parts);
    checkWindow(w, parts);
  }
}

TEST(Window, AlignedHaloOnAMillionRanks) {
  // A "same" 3-tap stencil (reads i - 1 .. i + 1, zeros past the edges)
  // keeps input and output chunks aligned: two shifts of one element on a
  // million ranks, computed in linear time.
  WindowRead w{1, -1, 0, 2, 2000000, 2000000};
  std::map<int64_t, int64_t> shifts = haloShifts(w, 1000000);
  EXPECT_EQ(shifts, (std::map<int64_t, int64_t>{{-1, 1}, {1, 1}}));
}

TEST(Window, MisalignedChunksDrift) {
  // A valid (unpadded) window of 3 over 11 inputs, 9 outputs on 3 ranks:
  // input chunks of 4, output chunks of 3, so rank 2's window [6, 11) starts
  // in rank 1's shard: shifts grow with the rank (partitioning gathers the
  // operand instead when there are many).
  WindowRead w{1, 0, 0, 2, 9, 11};
  EXPECT_EQ(haloShifts(w, 3), (std::map<int64_t, int64_t>{{-1, 2}, {1, 1}}));
  checkWindow(w, 3);
}

} // namespace
