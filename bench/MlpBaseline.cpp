//===- MlpBaseline.cpp - the codegen benchmark's MLP, written by hand -----===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// The baseline of bench/codegen.sh: the same MLP as bench/gen_tp_mlp.py on
// one process (BLOCKS blocks of h = h + gelu(h @ W1) @ W2), with
// single-thread OpenBLAS for the matmuls and plain loops for gelu and the
// residual add. Prints the best time of one step over RUNS.
//
//   dtensor-mlp-baseline BLOCKS BATCH HIDDEN RUNS
//
//===----------------------------------------------------------------------===//

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s BLOCKS BATCH HIDDEN RUNS\n", argv[0]);
    return 1;
  }
  int blocks = std::atoi(argv[1]);
  long b = std::atol(argv[2]), d = std::atol(argv[3]);
  int runs = std::atoi(argv[4]);
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> dist(-0.05f, 0.05f);
  std::vector<std::vector<float>> w1(blocks), w2(blocks);
  for (int k = 0; k < blocks; ++k) {
    w1[k].resize(d * d);
    w2[k].resize(d * d);
    for (float &v : w1[k])
      v = dist(rng);
    for (float &v : w2[k])
      v = dist(rng);
  }
  std::vector<float> x(b * d), h(b * d), a(b * d), y(b * d);
  for (float &v : x)
    v = dist(rng);
  double best = 1e300;
  for (int run = 0; run < runs; ++run) {
    auto start = std::chrono::steady_clock::now();
    h = x;
    for (int k = 0; k < blocks; ++k) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, b, d, d, 1.0f,
                  h.data(), d, w1[k].data(), d, 0.0f, a.data(), d);
      for (long i = 0; i < b * d; ++i) {
        float v = a[i];
        a[i] = 0.5f * v *
               (1.0f + std::tanh(0.7978846f * (v + 0.044715f * v * v * v)));
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, b, d, d, 1.0f,
                  a.data(), d, w2[k].data(), d, 0.0f, y.data(), d);
      for (long i = 0; i < b * d; ++i)
        h[i] += y[i];
    }
    best = std::min(best, std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - start)
                              .count());
  }
  double check = 0;
  for (float v : h)
    check += v;
  std::printf("mlp baseline: %.3f ms per step (checksum %g)\n", best, check);
  return 0;
}
