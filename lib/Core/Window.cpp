//===- Window.cpp - windowed reads of sharded dims -------------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Window.h"
#include "dtensor/Core/Layout.h"

#include "llvm/Support/CheckedArithmetic.h"

#include <algorithm>

using namespace mlir::dtensor;

/// The largest share of the loop any rank gets.
static int64_t largestShare(const WindowRead &w, int64_t parts) {
  return chunk(w.loopExtent, parts, 0).size;
}

int64_t mlir::dtensor::windowLength(const WindowRead &w, int64_t parts,
                                    std::string &error) {
  int64_t n = std::max<int64_t>(largestShare(w, parts), 1);
  int64_t stride = w.stride < 0 ? -w.stride : w.stride;
  std::optional<int64_t> reach = llvm::checkedMul(stride, n - 1);
  std::optional<int64_t> span =
      llvm::checkedSub(w.highSpan, w.lowSpan);
  std::optional<int64_t> length;
  if (reach && span)
    if (std::optional<int64_t> s = llvm::checkedAdd(*reach, *span))
      length = llvm::checkedAdd(*s, int64_t(1));
  if (!length) {
    error = "the window of a sharded loop does not fit in 64 bits";
    return -1;
  }
  return *length;
}

int64_t mlir::dtensor::windowStart(const WindowRead &w, int64_t parts,
                                   int64_t g) {
  int64_t first = chunk(w.loopExtent, parts, g).offset;
  // A reversal reads its largest index first: anchor the window at the
  // iteration the largest share would end on.
  if (w.stride < 0)
    first += std::max<int64_t>(largestShare(w, parts), 1) - 1;
  return w.stride * first + w.offset + w.lowSpan;
}

int64_t mlir::dtensor::localIndexOffset(const WindowRead &w, int64_t parts) {
  // stride * (i_local + first) + t + offset - start, for t the window term.
  int64_t shift = 0;
  if (w.stride < 0)
    shift = -w.stride * (std::max<int64_t>(largestShare(w, parts), 1) - 1);
  return shift - w.lowSpan;
}

Interval mlir::dtensor::windowPiece(const WindowRead &w, int64_t parts,
                                    int64_t g, int64_t h) {
  std::string error;
  int64_t start = windowStart(w, parts, g);
  int64_t end = start + windowLength(w, parts, error);
  Chunk owned = chunk(w.inputSize, parts, h);
  Interval piece{std::max(start, owned.offset),
                 std::min(end, owned.offset + owned.size)};
  if (piece.end < piece.begin)
    piece.end = piece.begin;
  // Only what the rank's loop really reads (an empty share reads nothing).
  if (chunk(w.loopExtent, parts, g).size == 0)
    piece.end = piece.begin;
  return piece;
}

std::map<int64_t, int64_t> mlir::dtensor::haloShifts(const WindowRead &w,
                                                     int64_t parts) {
  std::map<int64_t, int64_t> shifts;
  for (int64_t g = 0; g < parts; ++g) {
    if (chunk(w.loopExtent, parts, g).size == 0)
      continue;
    std::string error;
    int64_t start = windowStart(w, parts, g);
    int64_t end = start + windowLength(w, parts, error);
    // Owners of [start, end) within [0, inputSize): non-empty chunks are
    // [h * full, (h + 1) * full), so they are a range of h.
    int64_t full = chunk(w.inputSize, parts, 0).size;
    int64_t lo = std::max<int64_t>(start, 0);
    int64_t hi = std::min(end, w.inputSize);
    if (full == 0 || lo >= hi)
      continue;
    for (int64_t h = lo / full; h <= (hi - 1) / full && h < parts; ++h) {
      int64_t size = windowPiece(w, parts, g, h).size();
      if (h == g || size == 0)
        continue;
      int64_t &best = shifts[h - g];
      best = std::max(best, size);
    }
  }
  return shifts;
}
