//===- BlasBaseline.cpp - what OpenBLAS does on its own -------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// The baselines of bench/interpreter.sh: single-precision GEMM called
// directly (GFLOP/s), and a plain C++ loop for z = x * y + x (elements/s),
// timed the same way the interpreter is (best of N runs).
//
//   dtensor-blas-baseline gemm N RUNS | elementwise N RUNS
//
//===----------------------------------------------------------------------===//

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s gemm|elementwise N RUNS\n", argv[0]);
    return 1;
  }
  std::string kind = argv[1];
  long n = std::atol(argv[2]);
  int runs = std::atoi(argv[3]);
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> dist(-1, 1);
  double best = 1e300;
  if (kind == "gemm") {
    std::vector<float> a(n * n), b(n * n), c(n * n);
    for (float &v : a)
      v = dist(rng);
    for (float &v : b)
      v = dist(rng);
    for (int r = 0; r < runs; ++r) {
      std::fill(c.begin(), c.end(), 0.0f);
      auto start = std::chrono::steady_clock::now();
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                  a.data(), n, b.data(), n, 1.0f, c.data(), n);
      best = std::min(best, std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - start)
                                .count());
    }
    std::printf("openblas sgemm %ld: %.3f ms, %.2f GFLOP/s\n", n, best * 1e3,
                2.0 * n * n * n / best / 1e9);
  } else {
    std::vector<float> x(n), y(n), z(n);
    for (float &v : x)
      v = dist(rng);
    for (float &v : y)
      v = dist(rng);
    for (int r = 0; r < runs; ++r) {
      auto start = std::chrono::steady_clock::now();
      for (long i = 0; i < n; ++i)
        z[i] = x[i] * y[i] + x[i];
      best = std::min(best, std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - start)
                                .count());
    }
    std::printf("c++ loop %ld: %.3f ms, %.1f M elements/s (z[0]=%g)\n", n,
                best * 1e3, n / best / 1e6, z[0]);
  }
  return 0;
}
