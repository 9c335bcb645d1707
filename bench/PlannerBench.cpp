//===- PlannerBench.cpp - planner vs DTensor's greedy plan ----------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// For every legal pair of default-order specs (placements from R, P(sum),
// S(0), S(1) per mesh dim) on 2x2, 2x4 and 2x2x2 meshes and a few shapes,
// plans the redistribution and compares collectives and bytes per rank with
// DTensor's greedy plan: a win uses fewer of one and no more of the other, a
// tie the same, a loss more of either. Also times the planner per case.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Core/Redistribute.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

using namespace mlir::dtensor;

static std::string join(const Shape &s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? "x" : "") + std::to_string(s[i]);
  return out;
}

int main() {
  CostModel cost;
  std::vector<Shape> meshes{{2, 2}, {2, 4}, {2, 2, 2}};
  std::vector<Shape> shapes{{8, 8}, {1024, 4096}, {9, 5}, {3, 1}};
  int64_t totalPairs = 0, totalWins = 0, totalTies = 0, totalLosses = 0;
  int64_t savedCollectives = 0, savedBytes = 0, greedyCollectives = 0,
          greedyBytes = 0;
  double totalUs = 0, worstUs = 0;
  printf("| mesh | shape | pairs | wins | ties | losses | collectives (ours / greedy) "
         "| bytes/rank (ours / greedy) | plan time mean / max (us) |\n");
  printf("|---|---|---|---|---|---|---|---|---|\n");
  for (const Shape &mesh : meshes) {
    for (const Shape &shape : shapes) {
      int64_t pairs = 0, wins = 0, ties = 0, losses = 0;
      int64_t oursC = 0, greedyC = 0, oursB = 0, greedyB = 0;
      double sumUs = 0, maxUs = 0;
      std::vector<Placements> all = enumeratePlacements(
          mesh.size(), shape.size(), ReduceKind::Sum, /*withOrders=*/false);
      for (const Placements &from : all) {
        for (const Placements &to : all) {
          bool legal = true;
          for (size_t m = 0; m < from.size(); ++m)
            legal &= transitionError(from[m], to[m]).empty();
          if (!legal)
            continue;
          RedistributeRequest req{mesh, shape, 4, from, to};
          std::string error;
          auto start = std::chrono::steady_clock::now();
          std::optional<Plan> plan = planRedistribute(req, cost, error);
          double us = std::chrono::duration<double, std::micro>(
                          std::chrono::steady_clock::now() - start)
                          .count();
          std::optional<Plan> greedy = planGreedy(req, cost, error);
          if (!plan || !greedy) {
            fprintf(stderr, "no plan for %s -> %s: %s\n",
                    formatPlacements(from).c_str(),
                    formatPlacements(to).c_str(), error.c_str());
            return 1;
          }
          ++pairs;
          sumUs += us;
          maxUs = std::max(maxUs, us);
          int64_t c = plan->numCollectives(), gc = greedy->numCollectives();
          int64_t b = plan->bytesPerRank(), gb = greedy->bytesPerRank();
          oursC += c;
          greedyC += gc;
          oursB += b;
          greedyB += gb;
          if (c > gc || b > gb) {
            ++losses;
            fprintf(stderr, "LOSS %s %s: %s -> %s\n", join(mesh).c_str(),
                    join(shape).c_str(), formatPlacements(from).c_str(),
                    formatPlacements(to).c_str());
          } else if (c == gc && b == gb) {
            ++ties;
          } else {
            ++wins;
          }
        }
      }
      printf("| %s | %s | %lld | %lld | %lld | %lld | %lld / %lld | %lld / %lld "
             "| %.0f / %.0f |\n",
             join(mesh).c_str(), join(shape).c_str(), (long long)pairs,
             (long long)wins, (long long)ties, (long long)losses,
             (long long)oursC, (long long)greedyC, (long long)oursB,
             (long long)greedyB, sumUs / pairs, maxUs);
      totalPairs += pairs;
      totalWins += wins;
      totalTies += ties;
      totalLosses += losses;
      savedCollectives += greedyC - oursC;
      savedBytes += greedyB - oursB;
      greedyCollectives += greedyC;
      greedyBytes += greedyB;
      totalUs += sumUs;
      worstUs = std::max(worstUs, maxUs);
    }
  }
  printf("\ntotal: %lld pairs, %lld wins, %lld ties, %lld losses; "
         "%lld fewer collectives (%.1f%%), %lld fewer bytes/rank (%.1f%%); "
         "planning %.0f us mean, %.0f us max\n",
         (long long)totalPairs, (long long)totalWins, (long long)totalTies,
         (long long)totalLosses, (long long)savedCollectives,
         100.0 * savedCollectives / std::max<int64_t>(1, greedyCollectives),
         (long long)savedBytes,
         100.0 * savedBytes / std::max<int64_t>(1, greedyBytes),
         totalUs / totalPairs, worstUs);
  return totalLosses ? 1 : 0;
}
