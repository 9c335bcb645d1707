//===- Window.h - windowed reads of sharded dims ------------------*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// A loop `i` sharded over `parts` ranks (torch.chunk of its extent) that
// reads an operand dim at `stride * i + w + offset`, with the window term w
// ranging over [lowSpan, highSpan] (the other loops of the index: a
// convolution's kernel offsets times their dilation), needs on each rank an
// interval of that dim which is not the rank's own shard of it: its shard
// plus a halo on each side, or another rank's shard (a reversal, a large
// offset). These functions say which interval each rank holds as its
// window, and which pieces of it each other rank owns, for any extents
// (uneven, empty shards). Partitioning builds the window from them
// (docs/Windowed.md).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_CORE_WINDOW_H
#define DTENSOR_CORE_WINDOW_H

#include <cstdint>
#include <map>
#include <string>

namespace mlir {
namespace dtensor {

struct WindowRead {
  /// Coefficient of the sharded loop (nonzero; negative for a reversal).
  int64_t stride = 1;
  /// Constant term of the index.
  int64_t offset = 0;
  /// Range of the window term (sum of the other loops' contributions).
  int64_t lowSpan = 0, highSpan = 0;
  /// Iterations of the sharded loop, and the size of the operand dim.
  int64_t loopExtent = 0, inputSize = 0;
};

/// Half-open [begin, end).
struct Interval {
  int64_t begin = 0, end = 0;
  int64_t size() const { return end > begin ? end - begin : 0; }
};

/// The window every rank holds, in elements: the largest rank's needs, so
/// that the local loop reads each rank's window at the same indices
/// (`localIndexOffset`) whatever its share of the loop. Sets `error` and
/// returns -1 when the window does not fit in int64.
int64_t windowLength(const WindowRead &w, int64_t parts, std::string &error);

/// The first index of the operand dim in group rank `g`'s window (may lie
/// outside [0, inputSize): those positions are never read).
int64_t windowStart(const WindowRead &w, int64_t parts, int64_t g);

/// The constant term of the local index into the window: the local loop
/// reads `stride * i_local + w + localIndexOffset`.
int64_t localIndexOffset(const WindowRead &w, int64_t parts);

/// The part of rank `g`'s window that rank `h` owns when the operand dim is
/// chunked over the same `parts` ranks (its own part when h == g).
Interval windowPiece(const WindowRead &w, int64_t parts, int64_t g,
                     int64_t h);

/// For every shift `d != 0` such that some rank g needs a non-empty piece
/// from rank g + d: the largest such piece. One point-to-point exchange per
/// shift moves every rank's piece; a halo exchange has shifts -1 and +1.
std::map<int64_t, int64_t> haloShifts(const WindowRead &w, int64_t parts);

/// A window whose pieces come from more than this many shifts is gathered
/// whole along the mesh dim and sliced instead of exchanged piecewise
/// (partitioning does it; propagation prices it so).
constexpr int64_t kMaxHaloShifts = 8;

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_CORE_WINDOW_H
