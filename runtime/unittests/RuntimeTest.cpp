//===- RuntimeTest.cpp - the runtime under mpirun -------------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Run under mpirun (test/Target/Runtime/*.test):
//
//   dtensor-rt-test groups MESH        every ordered subset of MESH's dims:
//                                      the communicator's members, in order,
//                                      equal the layout core's meshGroups
//   dtensor-rt-test collectives MESH   every collective on every group, dims
//                                      0 and 1, every reduction, f32 / f64 /
//                                      i32 / i64 / f16, against a reference
//                                      computed from every rank's (known)
//                                      input; permute zero-fill; two started
//                                      collectives in flight at once
//   dtensor-rt-test keys MESH          float max / min as ordered integer
//                                      keys: the keys' order on every f16 /
//                                      bf16 pattern and random f32 / f64
//                                      ones; all_reduce and reduce_scatter
//                                      with NaNs, infinities and both zeros
//                                      on every rank position, exactly
//   dtensor-rt-test npy DIR            box reads of .npy files (empty box
//                                      included) and their errors
//   dtensor-rt-test tensors            pool reuse and copy-on-write; the
//                                      box-copy kernel the CUDA flavours run
//                                      against the row copies and a plain
//                                      loop on random boxes; integer and
//                                      widened matmuls, division kernels
//   dtensor-rt-test plan               the memory plan: a recorded run, a
//                                      planned one, and runs that leave it
//                                      (a tensor held too long, other sizes)
//
// Rank 0 prints one summary line; any failure prints the rank, the case and
// the first wrong element, and exits 1.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Layout.h"
#include "dtensor_rt/Runtime.h"
// The runtime's private helpers (copyBox, copyBoxKernel, divideBy).
#include "../lib/Internal.h"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace dtensor_rt;

namespace {

int worldRank = 0, worldSize = 1;
int failures = 0;

void check(bool ok, const std::string &what) {
  if (ok)
    return;
  std::fprintf(stderr, "rank %d: FAILED: %s\n", worldRank, what.c_str());
  ++failures;
}

Shape parseMesh(const std::string &text) {
  Shape s;
  size_t at = 0;
  while (at < text.size()) {
    size_t x = text.find('x', at);
    if (x == std::string::npos)
      x = text.size();
    s.push_back(std::atoll(text.substr(at, x - at).c_str()));
    at = x + 1;
  }
  return s;
}

/// Every ordered subset of {0..rank-1} (non-empty).
void orderedSubsets(int64_t rank, std::vector<std::vector<int64_t>> &out,
                    std::vector<int64_t> &cur) {
  if (!cur.empty())
    out.push_back(cur);
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(cur.begin(), cur.end(), d) != cur.end())
      continue;
    cur.push_back(d);
    orderedSubsets(rank, out, cur);
    cur.pop_back();
  }
}

/// Adds the group of `dims` to `mesh` as the compiler does: color = the
/// index of the core's group holding the rank, key = its position there.
int addGroup(Mesh &mesh, const Shape &shape, const std::vector<int64_t> &dims,
             std::vector<std::vector<int64_t>> &groups) {
  groups = mlir::dtensor::meshGroups(shape, dims);
  int64_t n = mlir::dtensor::meshSize(shape);
  std::vector<int64_t> color(n), key(n);
  for (size_t g = 0; g < groups.size(); ++g)
    for (size_t i = 0; i < groups[g].size(); ++i) {
      color[groups[g][i]] = static_cast<int64_t>(g);
      key[groups[g][i]] = static_cast<int64_t>(i);
    }
  return mesh.addGroup(color.data(), key.data());
}

const std::vector<int64_t> &myGroup(const std::vector<std::vector<int64_t>> &gs) {
  for (const auto &g : gs)
    if (std::find(g.begin(), g.end(), worldRank) != g.end())
      return g;
  std::fprintf(stderr, "rank %d is in no group\n", worldRank);
  std::exit(1);
}

std::string dimsText(const std::vector<int64_t> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

int runGroups(const Shape &shape) {
  Mesh mesh(shape);
  std::vector<std::vector<int64_t>> subsets;
  std::vector<int64_t> cur;
  orderedSubsets(static_cast<int64_t>(shape.size()), subsets, cur);
  for (const auto &dims : subsets) {
    std::vector<std::vector<int64_t>> groups;
    int id = addGroup(mesh, shape, dims, groups);
    const Group &g = mesh.group(id);
    const std::vector<int64_t> &mine = myGroup(groups);
    std::vector<int> members(g.size);
    MPI_Allgather(&worldRank, 1, MPI_INT, members.data(), 1, MPI_INT,
                  *static_cast<MPI_Comm *>(g.comm));
    check(static_cast<size_t>(g.size) == mine.size(),
          "group " + dimsText(dims) + " has " + std::to_string(g.size) +
              " members, the core says " + std::to_string(mine.size()));
    for (size_t i = 0; i < mine.size() && i < members.size(); ++i)
      check(members[i] == mine[i], "group " + dimsText(dims) + " member " +
                                       std::to_string(i) + " is rank " +
                                       std::to_string(members[i]) +
                                       ", the core says " +
                                       std::to_string(mine[i]));
  }
  if (worldRank == 0 && !failures)
    std::printf("groups %zu-d mesh: %zu orderings checked on %d ranks\n",
                shape.size(), subsets.size(), worldSize);
  return failures != 0;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// Rank r's input element i (small integers: exact in every dtype).
double inputValue(int64_t r, int64_t i) {
  return static_cast<double>((r * 7 + i * 3) % 23) - 5;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  int exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits = exp == 0 ? sign  // only zero and small integers occur here
                           : sign | uint32_t(exp - 15 + 127) << 23 | mant << 13;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
uint16_t floatToHalf(float f) {
  if (f == 0)
    return std::signbit(f) ? 0x8000 : 0;
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = (x >> 16) & 0x8000;
  int exp = int((x >> 23) & 0xff) - 127 + 15;
  return sign | uint16_t(exp << 10) | uint16_t((x & 0x7fffff) >> 13);
}

Tensor makeInput(DType t, const Shape &shape, int64_t rank) {
  Tensor x = Tensor::empty(t, shape);
  for (int64_t i = 0; i < x.numel(); ++i) {
    double v = inputValue(rank, i);
    switch (t) {
    case DType::F32: x.data<float>()[i] = float(v); break;
    case DType::F64: x.data<double>()[i] = v; break;
    case DType::I32: x.data<int32_t>()[i] = int32_t(v); break;
    case DType::I64: x.data<int64_t>()[i] = int64_t(v); break;
    case DType::F16: x.data<uint16_t>()[i] = floatToHalf(float(v)); break;
    default: break;
    }
  }
  return x;
}

double at(const Tensor &x, int64_t i) {
  switch (x.dtype()) {
  case DType::F32: return x.data<float>()[i];
  case DType::F64: return x.data<double>()[i];
  case DType::I32: return x.data<int32_t>()[i];
  case DType::I64: return double(x.data<int64_t>()[i]);
  case DType::F16: return halfToFloat(x.data<uint16_t>()[i]);
  default: return NAN;
  }
}

double reduceValues(Reduction r, const std::vector<double> &vs, bool isInt) {
  double acc = vs[0];
  for (size_t k = 1; k < vs.size(); ++k) {
    double v = vs[k];
    acc = r == Reduction::Max     ? std::max(acc, v)
          : r == Reduction::Min   ? std::min(acc, v)
          : r == Reduction::Product ? acc * v
                                    : acc + v;
  }
  if (r == Reduction::Avg)
    acc = isInt ? std::trunc(acc / double(vs.size())) : acc / double(vs.size());
  return acc;
}

/// Compares `got` with the element function `want` (by row-major index of a
/// 2-D result of shape `shape`).
void expect(const Tensor &got, const Shape &shape,
            const std::function<double(int64_t, int64_t)> &want,
            const std::string &what) {
  if (got.shape() != shape) {
    check(false, what + ": wrong shape");
    return;
  }
  for (int64_t i = 0; i < shape[0]; ++i)
    for (int64_t j = 0; j < shape[1]; ++j) {
      double a = at(got, i * shape[1] + j), b = want(i, j);
      double tol = got.dtype() == DType::F16 ? 1e-2 * (1 + std::fabs(b)) : 1e-9;
      if (!(std::fabs(a - b) <= tol)) {
        check(false, what + ": element (" + std::to_string(i) + ", " +
                         std::to_string(j) + ") is " + std::to_string(a) +
                         ", expected " + std::to_string(b));
        return;
      }
    }
}

int runCollectives(const Shape &meshShape) {
  Mesh mesh(meshShape);
  std::vector<std::vector<int64_t>> subsets;
  std::vector<int64_t> cur;
  orderedSubsets(static_cast<int64_t>(meshShape.size()), subsets, cur);
  int cases = 0;
  const DType dtypes[] = {DType::F32, DType::F64, DType::I32, DType::I64,
                          DType::F16};
  const Reduction reductions[] = {Reduction::Sum, Reduction::Avg,
                                  Reduction::Max, Reduction::Min,
                                  Reduction::Product};
  for (const auto &dims : subsets) {
    std::vector<std::vector<int64_t>> groups;
    int id = addGroup(mesh, meshShape, dims, groups);
    const std::vector<int64_t> &members = myGroup(groups);
    int64_t n = static_cast<int64_t>(members.size());
    int64_t me = mesh.group(id).rank;
    // Shapes divisible by every group size used (1, 2, 4, 8): 8 x 8 keeps
    // gather results small; a 0-row input checks empty messages.
    for (DType t : dtypes) {
      bool isInt = t == DType::I32 || t == DType::I64;
      std::string tag = std::string(dtypeName(t)) + " group " + dimsText(dims);
      for (int64_t dim = 0; dim < 2; ++dim) {
        Shape in = {8, 8};
        Tensor x = makeInput(t, in, worldRank);
        // all_gather.
        Shape gs = in;
        gs[dim] *= n;
        Tensor g = allGather(mesh, id, x, dim, "all_gather");
        expect(g, gs,
               [&](int64_t i, int64_t j) {
                 int64_t idx[2] = {i, j};
                 int64_t src = idx[dim] / in[dim];
                 idx[dim] %= in[dim];
                 return inputValue(members[src], idx[0] * in[1] + idx[1]);
               },
               tag + " all_gather dim " + std::to_string(dim));
        ++cases;
        // reduce_scatter, every reduction (products only over pairs, where
        // they stay exact in every dtype but f16).
        for (Reduction r : reductions) {
          if (r == Reduction::Product && (t == DType::F16 || n > 2))
            continue;
          Shape rs = in;
          rs[dim] /= n;
          Tensor s = reduceScatter(mesh, id, x, dim, r, "reduce_scatter");
          expect(s, rs,
                 [&](int64_t i, int64_t j) {
                   int64_t idx[2] = {i, j};
                   idx[dim] += me * rs[dim];
                   std::vector<double> vs;
                   for (int64_t m : members)
                     vs.push_back(inputValue(m, idx[0] * in[1] + idx[1]));
                   return reduceValues(r, vs, isInt);
                 },
                 tag + " reduce_scatter dim " + std::to_string(dim));
          Tensor a = allReduce(mesh, id, x, r, "all_reduce");
          expect(a, in,
                 [&](int64_t i, int64_t j) {
                   std::vector<double> vs;
                   for (int64_t m : members)
                     vs.push_back(inputValue(m, i * in[1] + j));
                   return reduceValues(r, vs, isInt);
                 },
                 tag + " all_reduce");
          cases += 2;
        }
        // all_to_all: split `dim`, concat the other dim (and the same dim).
        for (int64_t cdim = 0; cdim < 2; ++cdim) {
          Shape piece = in;
          piece[dim] /= n;
          Shape out = piece;
          out[cdim] *= n;
          Tensor y = allToAll(mesh, id, x, dim, cdim, "all_to_all");
          expect(y, out,
                 [&](int64_t i, int64_t j) {
                   int64_t idx[2] = {i, j};
                   int64_t src = idx[cdim] / piece[cdim];
                   idx[cdim] %= piece[cdim];
                   idx[dim] += me * piece[dim];
                   return inputValue(members[src], idx[0] * in[1] + idx[1]);
                 },
                 tag + " all_to_all split " + std::to_string(dim) +
                     " concat " + std::to_string(cdim));
          ++cases;
        }
      }
      Shape in = {8, 8};
      Tensor x = makeInput(t, in, worldRank);
      int64_t root = n - 1;
      Tensor b = broadcast(mesh, id, x, root, "broadcast");
      expect(b, in,
             [&](int64_t i, int64_t j) {
               return inputValue(members[root], i * in[1] + j);
             },
             tag + " broadcast");
      // permute: a shift by one along the group, the last rank receiving
      // nothing (zeros) ...
      std::vector<int64_t> pairs;
      for (int64_t s = 0; s + 1 < n; ++s) {
        pairs.push_back(s + 1);
        pairs.push_back(s);
      }
      Tensor p = permute(mesh, id, x, pairs.data(), pairs.size() / 2, "permute");
      expect(p, in,
             [&](int64_t i, int64_t j) {
               return me + 1 < n ? inputValue(members[me + 1], i * in[1] + j)
                                 : 0.0;
             },
             tag + " permute shift");
      // ... and a full ring, where every rank sends and receives (itself
      // when alone).
      pairs.clear();
      for (int64_t s = 0; s < n; ++s) {
        pairs.push_back(s);
        pairs.push_back((s + 1) % n);
      }
      Tensor q = permute(mesh, id, x, pairs.data(), pairs.size() / 2, "permute");
      expect(q, in,
             [&](int64_t i, int64_t j) {
               return inputValue(members[(me + n - 1) % n], i * in[1] + j);
             },
             tag + " permute ring");
      cases += 3;
    }
    // Empty messages.
    Tensor e = makeInput(DType::F32, {0, 8}, worldRank);
    check(allGather(mesh, id, e, 0, "all_gather").numel() == 0,
          "empty all_gather");
    check(allReduce(mesh, id, e, Reduction::Sum, "all_reduce").numel() == 0,
          "empty all_reduce");
    ++cases;
  }
  // An all_reduce of a value at its last use: the result takes its storage
  // when nothing else holds it (MPI_IN_PLACE in the CPU flavour), else
  // fresh storage and the held value left as it was; sums, keyed float max
  // and pre-divided averages alike.
  {
    std::vector<std::vector<int64_t>> members;
    int id = addGroup(mesh, meshShape, {int64_t(meshShape.size()) - 1}, members);
    const auto &mine = myGroup(members);
    for (Reduction r : {Reduction::Sum, Reduction::Max, Reduction::Avg}) {
      auto want = [&](int64_t i, int64_t j) {
        double acc = r == Reduction::Max ? -1e300 : 0;
        for (int64_t m : mine)
          acc = r == Reduction::Max ? std::max(acc, inputValue(m, i * 5 + j))
                                    : acc + inputValue(m, i * 5 + j);
        return r == Reduction::Avg ? acc / double(mine.size()) : acc;
      };
      Tensor x = makeInput(DType::F32, {3, 5}, worldRank).toDevice();
      const void *storage = x.raw();
      Tensor y = allReduce(mesh, id, release(x), r, "all_reduce");
      check(!x.raw() && y.raw() == storage, "an all_reduce in place");
      expect(y, {3, 5}, want, "an all_reduce in place");
      Tensor held = makeInput(DType::F32, {3, 5}, worldRank).toDevice();
      Tensor copy = held;
      Tensor z = allReduce(mesh, id, release(copy), r, "all_reduce");
      check(z.raw() != held.raw(), "a shared input is not reduced in place");
      expect(z, {3, 5}, want, "a shared input's all_reduce");
      expect(held, {3, 5}, [&](int64_t i, int64_t j) {
               return inputValue(worldRank, i * 5 + j);
             }, "a shared input left as it was");
      Future f = allReduceStart(mesh, id, release(held), r, "all_reduce");
      expect(f.wait(), {3, 5}, want, "a started all_reduce in place");
    }
    ++cases;
  }
  // Two started collectives in flight at once, on different groups, waited
  // in the opposite order.
  if (meshShape.size() >= 2) {
    std::vector<std::vector<int64_t>> g0, g1;
    int a = addGroup(mesh, meshShape, {0}, g0);
    int b = addGroup(mesh, meshShape, {1}, g1);
    Tensor x = makeInput(DType::F32, {4, 4}, worldRank);
    Future fa = allReduceStart(mesh, a, x, Reduction::Sum, "all_reduce");
    Future fb = allGatherStart(mesh, b, x, 1, "all_gather");
    Tensor rb = fb.wait();
    Tensor ra = fa.wait();
    const auto &ma = myGroup(g0);
    const auto &mb = myGroup(g1);
    expect(ra, {4, 4},
           [&](int64_t i, int64_t j) {
             double s = 0;
             for (int64_t m : ma)
               s += inputValue(m, i * 4 + j);
             return s;
           },
           "two in flight: all_reduce");
    expect(rb, {4, 4 * static_cast<int64_t>(mb.size())},
           [&](int64_t i, int64_t j) {
             return inputValue(mb[j / 4], i * 4 + j % 4);
           },
           "two in flight: all_gather");
    ++cases;
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (worldRank == 0 && !all)
    std::printf("collectives %zu-d mesh: %d cases passed on %d ranks\n",
                meshShape.size(), cases, worldSize);
  return all != 0;
}

//===----------------------------------------------------------------------===//
// Float max / min: ordered integer keys
//===----------------------------------------------------------------------===//

/// The float rule of a Partial max / min (torch.maximum / minimum,
/// arith.maximumf / minimumf; the interpreter's): a NaN gives NaN, -0 is
/// below +0.
double ieeeMaxMin(bool max, double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return NAN;
  if (a == 0 && b == 0)
    return std::signbit(a) == max ? b : a;
  return (a > b) == max ? a : b;
}

/// Bit patterns of every float type that reach the rule's edges: quiet and
/// signalling NaNs of both signs, infinities, both zeros, the largest
/// finite values, the smallest subnormals, and ordinary values.
const DType kFloatTypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16};
std::vector<uint64_t> specialBits(DType t) {
  switch (t) {
  case DType::F16:
    return {0x7e00, 0xfe00, 0x7c01, 0x7c00, 0xfc00, 0x8000, 0x0000, 0x3c00,
            0xbc00, 0x7bff, 0xfbff, 0x0001, 0x8001, 0x4100};
  case DType::BF16:
    return {0x7fc0, 0xffc0, 0x7f81, 0x7f80, 0xff80, 0x8000, 0x0000, 0x3f80,
            0xbf80, 0x7f7f, 0xff7f, 0x0001, 0x8001, 0x4020};
  case DType::F32:
    return {0x7fc00000, 0xffc00000, 0x7f800001, 0x7f800000, 0xff800000,
            0x80000000, 0x00000000, 0x3f800000, 0xbf800000, 0x7f7fffff,
            0xff7fffff, 0x00000001, 0x80000001, 0x40200000};
  default:
    return {0x7ff8000000000000ull, 0xfff8000000000000ull,
            0x7ff0000000000001ull, 0x7ff0000000000000ull,
            0xfff0000000000000ull, 0x8000000000000000ull, 0,
            0x3ff0000000000000ull, 0xbff0000000000000ull,
            0x7fefffffffffffffull, 0xffefffffffffffffull, 1,
            0x8000000000000001ull, 0x4004000000000000ull};
  }
}

/// The value of the float bits `b` of type `t` (exact in double).
double floatOfBits(DType t, uint64_t b) {
  switch (t) {
  case DType::F16: return dtensor_rt::halfToFloat(uint16_t(b));
  case DType::BF16: return dtensor_rt::bf16ToFloat(uint16_t(b));
  case DType::F32: {
    uint32_t w = uint32_t(b);
    float f;
    std::memcpy(&f, &w, 4);
    return f;
  }
  default: {
    double d;
    std::memcpy(&d, &b, 8);
    return d;
  }
  }
}

uint64_t bitsAt(const Tensor &x, int64_t i) {
  switch (dtypeBytes(x.dtype())) {
  case 2: return x.data<uint16_t>()[i];
  case 4: return x.data<uint32_t>()[i];
  default: return x.data<uint64_t>()[i];
  }
}

void setBits(Tensor &x, int64_t i, uint64_t b) {
  switch (dtypeBytes(x.dtype())) {
  case 2: x.data<uint16_t>()[i] = uint16_t(b); break;
  case 4: x.data<uint32_t>()[i] = uint32_t(b); break;
  default: x.data<uint64_t>()[i] = b; break;
  }
}

/// Whether `got` is `want` exactly: the same value and sign of zero, or
/// both NaN.
bool sameFloat(double got, double want) {
  if (std::isnan(want) || std::isnan(got))
    return std::isnan(want) && std::isnan(got);
  return got == want && std::signbit(got) == std::signbit(want);
}

/// The keys themselves, on this process: every 16-bit pattern (and random
/// 32- and 64-bit ones with the specials) in float order has a strictly
/// larger key than the one before (zeros: -0 first), NaNs take the end
/// their reduction needs, and every other key maps back to its bits.
int checkKeys() {
  int cases = 0;
  for (DType t : kFloatTypes) {
    size_t width = dtypeBytes(t);
    std::vector<uint64_t> bits = specialBits(t);
    if (width == 2) {
      for (uint64_t b = 0; b < 0x10000; ++b)
        bits.push_back(b);
    } else {
      uint64_t state = 0x9e3779b97f4a7c15ull;
      for (int k = 0; k < 200000; ++k) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bits.push_back(width == 4 ? (state & 0xffffffffull) : state);
      }
    }
    Tensor x = Tensor::empty(t, {static_cast<int64_t>(bits.size())});
    for (size_t i = 0; i < bits.size(); ++i)
      setBits(x, int64_t(i), bits[i]);
    for (bool max : {true, false}) {
      Tensor keys = toOrderedKeys(x, max);
      Tensor back = Tensor::empty(t, x.shape());
      fromOrderedKeys(keys, back);
      auto keyAt = [&](size_t i) -> int64_t {
        switch (width) {
        case 2: return keys.data<int16_t>()[i];
        case 4: return keys.data<int32_t>()[i];
        default: return keys.data<int64_t>()[i];
        }
      };
      int64_t top = width == 2   ? INT16_MAX
                    : width == 4 ? INT32_MAX
                                 : INT64_MAX;
      std::vector<size_t> order;
      for (size_t i = 0; i < bits.size(); ++i) {
        double v = floatOfBits(t, bits[i]);
        double r = floatOfBits(t, bitsAt(back, int64_t(i)));
        if (std::isnan(v)) {
          check(keyAt(i) == (max ? top : -top - 1) && std::isnan(r),
                std::string(dtypeName(t)) + " NaN key");
          continue;
        }
        check(bitsAt(back, int64_t(i)) == bits[i],
              std::string(dtypeName(t)) + " key round trip of bits " +
                  std::to_string(bits[i]));
        order.push_back(i);
      }
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        double va = floatOfBits(t, bits[a]), vb = floatOfBits(t, bits[b]);
        if (va != vb)
          return va < vb;
        return std::signbit(va) > std::signbit(vb);
      });
      for (size_t k = 1; k < order.size(); ++k) {
        double a = floatOfBits(t, bits[order[k - 1]]);
        double b = floatOfBits(t, bits[order[k]]);
        bool equal = a == b && std::signbit(a) == std::signbit(b);
        bool ok = equal ? keyAt(order[k - 1]) == keyAt(order[k])
                        : keyAt(order[k - 1]) < keyAt(order[k]);
        if (!ok) {
          check(false, std::string(dtypeName(t)) + " keys out of order at " +
                           std::to_string(a) + ", " + std::to_string(b));
          break;
        }
      }
      ++cases;
    }
  }
  return cases;
}

/// all_reduce and reduce_scatter by max and min of every float type on
/// every group of the mesh, each element's terms drawn from the specials
/// so that NaNs, infinities and both zeros meet on every rank position,
/// compared exactly with the rule folded over the group's members in order.
int runKeys(const Shape &meshShape) {
  int cases = worldRank == 0 ? checkKeys() : 0;
  Mesh mesh(meshShape);
  std::vector<std::vector<int64_t>> subsets;
  std::vector<int64_t> cur;
  orderedSubsets(static_cast<int64_t>(meshShape.size()), subsets, cur);
  for (const auto &dims : subsets) {
    std::vector<std::vector<int64_t>> groups;
    int id = addGroup(mesh, meshShape, dims, groups);
    const std::vector<int64_t> &members = myGroup(groups);
    int64_t n = static_cast<int64_t>(members.size());
    int64_t me = mesh.group(id).rank;
    for (DType t : kFloatTypes) {
      std::vector<uint64_t> specials = specialBits(t);
      int64_t k = static_cast<int64_t>(specials.size());
      auto term = [&](int64_t rank, int64_t i) {
        return specials[(i * 5 + rank * 3 + (i / k) * rank) % k];
      };
      Shape in = {24, 24}; // divisible by every group size (1 to 4, 6, 8)
      Tensor x = Tensor::empty(t, in);
      for (int64_t i = 0; i < x.numel(); ++i)
        setBits(x, i, term(worldRank, i));
      for (bool max : {true, false}) {
        Reduction r = max ? Reduction::Max : Reduction::Min;
        auto want = [&](int64_t i) {
          double acc = floatOfBits(t, term(members[0], i));
          for (int64_t m = 1; m < n; ++m)
            acc = ieeeMaxMin(max, acc, floatOfBits(t, term(members[m], i)));
          return acc;
        };
        std::string tag = std::string(dtypeName(t)) + (max ? " max" : " min") +
                          " group " + dimsText(dims);
        Tensor a = allReduce(mesh, id, x, r, "all_reduce");
        for (int64_t i = 0; i < a.numel(); ++i)
          if (!sameFloat(floatOfBits(t, bitsAt(a, i)), want(i))) {
            check(false, tag + " all_reduce element " + std::to_string(i) +
                             " is " + std::to_string(floatOfBits(t, bitsAt(a, i))) +
                             ", expected " + std::to_string(want(i)));
            break;
          }
        for (int64_t dim = 0; dim < 2; ++dim) {
          Shape rs = in;
          rs[dim] /= n;
          Tensor s = reduceScatter(mesh, id, x, dim, r, "reduce_scatter");
          check(s.shape() == rs, tag + " reduce_scatter shape");
          for (int64_t i = 0; i < rs[0] && s.shape() == rs; ++i)
            for (int64_t j = 0; j < rs[1]; ++j) {
              int64_t idx[2] = {i, j};
              idx[dim] += me * rs[dim];
              double w = want(idx[0] * in[1] + idx[1]);
              double got = floatOfBits(t, bitsAt(s, i * rs[1] + j));
              if (!sameFloat(got, w)) {
                check(false, tag + " reduce_scatter dim " +
                                 std::to_string(dim) + " element (" +
                                 std::to_string(i) + ", " + std::to_string(j) +
                                 ") is " + std::to_string(got) +
                                 ", expected " + std::to_string(w));
                i = rs[0];
                break;
              }
            }
        }
        cases += 3;
      }
    }
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (worldRank == 0 && !all)
    std::printf("keys %zu-d mesh: %d cases passed on %d ranks\n",
                meshShape.size(), cases, worldSize);
  return all != 0;
}

//===----------------------------------------------------------------------===//
// .npy and tensors
//===----------------------------------------------------------------------===//

int runNpy(const std::string &dir) {
  std::string path = dir + "/box" + std::to_string(worldRank) + ".npy";
  Tensor whole = Tensor::empty(DType::I32, {5, 7});
  for (int64_t i = 0; i < 35; ++i)
    whole.data<int32_t>()[i] = int32_t(i);
  std::string error;
  check(writeNpy(path, whole, error), "writeNpy: " + error);
  Tensor box;
  check(readNpyBox(path, DType::I32, {5, 7}, {1, 2}, {3, 4}, box, error),
        "readNpyBox: " + error);
  bool same = box.shape() == Shape{3, 4};
  for (int64_t i = 0; same && i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j)
      same &= box.data<int32_t>()[i * 4 + j] == int32_t((i + 1) * 7 + j + 2);
  check(same, "the box [1:4, 2:6] of a 5x7 file");
  check(readNpyBox(path, DType::I32, {5, 7}, {5, 0}, {0, 7}, box, error) &&
            box.numel() == 0,
        "an empty box");
  check(!readNpyBox(path, DType::F32, {5, 7}, {0, 0}, {5, 7}, box, error) &&
            error.find("holds dtype '<i4', expected '<f4'") != std::string::npos,
        "a wrong dtype is an error naming both: " + error);
  check(!readNpyBox(path, DType::I32, {7, 5}, {0, 0}, {7, 5}, box, error) &&
            error.find("has shape (5, 7), expected (7, 5)") != std::string::npos,
        "a wrong shape is an error naming both: " + error);
  check(!readNpy(dir + "/missing.npy", DType::I32, box, error) &&
            error.find("cannot open") != std::string::npos,
        "a missing file is an error: " + error);
  Tensor all;
  check(readNpy(path, DType::I32, all, error) && all.shape() == Shape{5, 7} &&
            all.data<int32_t>()[34] == 34,
        "a whole file");
  if (worldRank == 0 && !failures)
    std::printf("npy: box reads and errors passed\n");
  return failures != 0;
}

int runTensors() {
  Tensor a = Tensor::zeros(DType::F32, {16});
  void *storage = a.raw();
  a = Tensor();
  Tensor b = Tensor::empty(DType::F32, {4, 4});
  check(b.raw() == storage, "the pool reuses a freed buffer of the same size");
  Tensor c = b;
  check(!b.unique() && !c.unique(), "copies share storage");
  Tensor d = writable(c);
  check(d.raw() != b.raw(), "writable copies shared storage");
  Tensor e = writable(std::move(d));
  check(e.unique(), "writable keeps unique storage");
  // takeOrEmpty: a unique tensor's storage is taken and the tensor left
  // empty; a shared one stays, and the result is fresh storage of its shape.
  const void *eRaw = e.raw();
  Tensor taken = takeOrEmpty(e);
  check(taken.raw() == eRaw && !e.raw() && e.shape().empty(),
        "takeOrEmpty takes unique storage and empties the tensor");
  Tensor shared = taken;
  Tensor fresh = takeOrEmpty(taken);
  check(taken.raw() == eRaw && fresh.raw() && fresh.raw() != eRaw &&
            fresh.shape() == taken.shape() && fresh.dtype() == taken.dtype(),
        "takeOrEmpty leaves shared storage and gives fresh storage");
  Tensor r = b.reshaped({16});
  check(r.raw() == b.raw() && r.shape() == Shape{16}, "reshape shares storage");
  // A range of a 1-D tensor is a view: its elements, in place, and a write
  // through writable() copies it while the whole is alive.
  {
    Tensor whole = makeInput(DType::F32, {10}, 1);
    Tensor part = extractRange(whole, {3}, {4});
    check(part.shape() == Shape{4} && !part.unique() &&
              part.data<float>() == whole.data<float>() + 3,
          "a range is a view of its tensor");
    expect(part.reshaped({1, 4}), {1, 4},
           [&](int64_t, int64_t j) { return inputValue(1, 3 + j); },
           "a range's elements");
    Tensor written = writable(part);
    check(written.raw() != part.raw(), "writing a shared range copies it");
    whole = Tensor();
    check(part.unique(), "a range alone holds its storage");
  }

  // Box copies: the kernel every CUDA flavour runs (one thread per element,
  // any strides), the CPU flavour's row copies, and a plain loop agree on
  // random strided boxes of random tensors, for every element size.
  unsigned seed = 12345;
  auto next = [&](int64_t n) {
    seed = seed * 1103515245u + 12345u;
    return static_cast<int64_t>((seed >> 8) % static_cast<unsigned>(n));
  };
  int boxes = 0;
  for (int trial = 0; trial < 400; ++trial) {
    size_t elem = size_t(1) << next(4);
    int64_t rank = 1 + next(4);
    Shape shape(rank), offsets(rank), sizes(rank), strides(rank);
    for (int64_t d = 0; d < rank; ++d) {
      shape[d] = 1 + next(d + 1 == rank ? 40 : 6);
      strides[d] = 1 + next(3);
      offsets[d] = next(shape[d]);
      int64_t room = (shape[d] - 1 - offsets[d]) / strides[d] + 1;
      // An empty box now and then.
      sizes[d] = trial % 25 == 0 && d == 0 ? 0 : 1 + next(room);
    }
    DType dtype = elem == 1 ? DType::I8 : elem == 2 ? DType::I16
                  : elem == 4 ? DType::I32 : DType::I64;
    int64_t n = numElements(shape);
    std::vector<unsigned char> bytes(size_t(n) * elem);
    for (unsigned char &b : bytes)
      b = static_cast<unsigned char>(next(256));
    Tensor src = Tensor::fromBytes(dtype, shape, bytes.data());
    Shape srcStrides(rank, 1);
    for (int64_t d = rank - 2; d >= 0; --d)
      srcStrides[d] = srcStrides[d + 1] * shape[d + 1];
    Shape stepped(rank), dstStrides(rank, 1);
    int64_t base = 0;
    for (int64_t d = 0; d < rank; ++d) {
      base += offsets[d] * srcStrides[d];
      stepped[d] = srcStrides[d] * strides[d];
    }
    for (int64_t d = rank - 2; d >= 0; --d)
      dstStrides[d] = dstStrides[d + 1] * sizes[d + 1];
    int64_t count = numElements(sizes);
    std::vector<unsigned char> want(size_t(count) * elem);
    for (int64_t i = 0; i < count; ++i) {
      int64_t rest = i, at = base;
      for (int64_t d = rank - 1; d >= 0; --d) {
        at += (rest % sizes[d]) * stepped[d];
        rest /= sizes[d];
      }
      std::memcpy(&want[size_t(i) * elem], &bytes[size_t(at) * elem], elem);
    }
    Tensor rows = Tensor::zeros(dtype, sizes), kernel = Tensor::zeros(dtype, sizes);
    copyBox(src.raw(), base, stepped, rows.raw(), 0, dstStrides, sizes, elem);
    copyBoxKernel(src.raw(), base, stepped, kernel.raw(), 0, dstStrides, sizes,
                  elem);
    bool same = count == 0 ||
                (std::memcmp(rows.raw(), want.data(), want.size()) == 0 &&
                 std::memcmp(kernel.raw(), want.data(), want.size()) == 0);
    check(same, "box copy " + std::to_string(trial) + " (rank " +
                    std::to_string(rank) + ", " + std::to_string(elem) +
                    "-byte elements)");
    Tensor sliced = extractSlice(src, offsets, sizes, strides, sizes);
    check(count == 0 || std::memcmp(sliced.raw(), want.data(), want.size()) == 0,
          "extract_slice " + std::to_string(trial));
    boxes += count > 0;
  }
  check(boxes > 300, "enough non-empty boxes");

  // The integer matmul kernel (cuBLAS and CBLAS take the floats).
  {
    int32_t a[6] = {1, -2, 3, 4, 5, -6}, b[6] = {7, 8, 9, 10, -11, 12};
    int32_t c0[4] = {1, 1, 1, 1};
    Tensor c = matmul(Tensor::fromBytes(DType::I32, {2, 3}, a),
                      Tensor::fromBytes(DType::I32, {3, 2}, b),
                      Tensor::fromBytes(DType::I32, {2, 2}, c0));
    const int32_t *p = c.data<int32_t>();
    check(p[0] == 1 + 7 - 18 - 33 && p[1] == 1 + 8 - 20 + 36 &&
              p[2] == 1 + 28 + 45 + 66 && p[3] == 1 + 32 + 50 - 72,
          "integer matmul");
  }
  // Widened products: int8 operands sign-extended into an int32 result
  // (a sum past int8's range, -128 * -128 included), f16 into f32.
  {
    int8_t a[6] = {-128, 127, -1, 100, -100, 3};
    int8_t b[6] = {-128, 2, 127, -1, 5, -7};
    int32_t c0[4] = {1, -1, 0, 2};
    Tensor c = matmul(Tensor::fromBytes(DType::I8, {2, 3}, a),
                      Tensor::fromBytes(DType::I8, {3, 2}, b),
                      Tensor::fromBytes(DType::I32, {2, 2}, c0));
    const int32_t *p = c.data<int32_t>();
    check(p[0] == 1 + 16384 + 16129 - 5 && p[1] == -1 - 256 - 127 + 7 &&
              p[2] == 0 - 12800 - 12700 + 15 && p[3] == 2 + 200 + 100 - 21,
          "int8 x int8 -> int32 matmul");
    half h[4] = {half(1.5f), half(-2.0f), half(0.25f), half(4.0f)};
    float f0[1] = {0.5f};
    Tensor g = matmul(Tensor::fromBytes(DType::F16, {1, 2}, h),
                      Tensor::fromBytes(DType::F16, {2, 1}, h + 2),
                      Tensor::fromBytes(DType::F32, {1, 1}, f0));
    check(g.data<float>()[0] == 0.5f + 0.375f - 8.0f, "f16 -> f32 matmul");
  }
  // Division in the type: integers truncate toward zero.
  {
    int32_t v[4] = {7, -7, 8, 1};
    Tensor t = Tensor::fromBytes(DType::I32, {4}, v);
    divideBy(t, 2);
    const int32_t *p = t.data<int32_t>();
    check(p[0] == 3 && p[1] == -3 && p[2] == 4 && p[3] == 0, "integer divideBy");
    float f[2] = {1.0f, -3.0f};
    Tensor u = Tensor::fromBytes(DType::F32, {2}, f);
    divideBy(u, 4);
    check(u.data<float>()[0] == 0.25f && u.data<float>()[1] == -0.75f,
          "float divideBy");
  }
  if (worldRank == 0 && !failures)
    std::printf("tensors: pool, copy-on-write, box-copy kernels, integer "
                "matmul and division passed\n");
  return failures != 0;
}

/// The memory plan (Tensor.cpp): a recorded run, a run that follows the
/// plan, and runs that leave it.
int runPlan() {
  auto inArena = [](const Tensor &t, const char *base, int64_t bytes) {
    const char *p = static_cast<const char *>(t.raw());
    return p >= base && p < base + bytes;
  };
  // The recorded run: a (1 KiB) and b (2 KiB) live together; a dies, then
  // c (1 KiB) is made and lives past the run with b.
  Tensor b, c;
  beginMemoryRun("plan");
  {
    Tensor a = Tensor::empty(DType::F32, {256});
    b = Tensor::empty(DType::F32, {512});
    a = Tensor();
    c = Tensor::empty(DType::F32, {256});
  }
  endMemoryRun();
  b = Tensor();
  c = Tensor();
  int64_t reserved = memStats().reservedBytes;

  // The same run again follows the plan: b (the largest) at offset 0, a
  // after it, c where a was (their lifetimes do not meet); 3 KiB in all,
  // and the recorded run's free buffers are given back.
  beginMemoryRun("plan");
  resetMemPeak();
  const char *base = nullptr;
  {
    Tensor a = Tensor::empty(DType::F32, {256});
    b = Tensor::empty(DType::F32, {512});
    base = static_cast<const char *>(b.raw());
    check(a.raw() == base + 2048, "the plan puts a after b");
    const void *aAt = a.raw();
    a = Tensor();
    c = Tensor::empty(DType::F32, {256});
    check(c.raw() == aAt, "c takes a's range once a is dead");
  }
  endMemoryRun();
  check(memStats().planBytes == 3072, "the arena holds 3 KiB (" +
                                          std::to_string(memStats().planBytes) +
                                          ")");
  check(memStats().allocations == 0, "a planned run allocates nothing");
  check(reserved == 3072 && memStats().reservedBytes == 3072,
        "the recorded run's buffers (3 KiB) are given back for the arena");
  check(memStats().peakLiveBytes >= 3072, "the peak counts arena tensors");

  // c is still held when the next run wants its range for a: a must not get
  // it (it would overwrite c), so the run leaves the plan for the pool.
  b = Tensor();
  float one = 1;
  c = fill(std::move(c), &one);
  beginMemoryRun("plan");
  {
    Tensor a = Tensor::empty(DType::F32, {256});
    check(!inArena(a, base, 3072), "a range still held is not given again");
    float two = 2;
    a = fill(std::move(a), &two);
    check(c.data<float>()[255] == 1, "the held tensor is intact");
    Tensor d = Tensor::empty(DType::F32, {512});
    check(!inArena(d, base, 3072), "a run that left its plan stays off it");
  }
  endMemoryRun();
  c = Tensor();

  // A run with other sizes leaves the plan at its first difference.
  beginMemoryRun("plan");
  {
    Tensor a = Tensor::empty(DType::F32, {128});
    check(!inArena(a, base, 3072), "a size the plan does not have");
  }
  endMemoryRun();
  // And the plan is still there for a run that follows it.
  beginMemoryRun("plan");
  {
    Tensor a = Tensor::empty(DType::F32, {256});
    check(inArena(a, base, 3072), "the plan holds for a later run");
  }
  endMemoryRun();
  // Outside a run, the pool.
  Tensor outside = Tensor::empty(DType::F32, {256});
  check(!inArena(outside, base, 3072), "outside a run, the pool");
  if (worldRank == 0 && !failures)
    std::printf("plan: recorded, followed, left safely\n");
  return failures != 0;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  std::string what = argc > 1 ? argv[1] : "";
  int rc = 2;
  if ((what == "groups" || what == "collectives" || what == "keys") &&
      argc == 3) {
    Shape mesh = parseMesh(argv[2]);
    if (mlir::dtensor::meshSize(mesh) != worldSize) {
      std::fprintf(stderr, "run with -np %lld\n",
                   static_cast<long long>(mlir::dtensor::meshSize(mesh)));
    } else {
      rc = what == "groups"        ? runGroups(mesh)
           : what == "collectives" ? runCollectives(mesh)
                                   : runKeys(mesh);
    }
  } else if (what == "npy" && argc == 3) {
    rc = runNpy(argv[2]);
  } else if (what == "tensors") {
    rc = runTensors();
  } else if (what == "plan") {
    rc = runPlan();
  } else if (worldRank == 0) {
    std::fprintf(stderr, "usage: %s groups MESH | collectives MESH | "
                         "keys MESH | npy DIR | tensors | plan\n",
                 argv[0]);
  }
  int any = 0;
  MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
