//===- Lookups.cpp - masked lookups of sharded tables ---------------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Lookups.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::dtensor;

bool mlir::dtensor::isPureLookup(Operation *raw) {
  auto op = llvm::dyn_cast<linalg::GenericOp>(raw);
  if (!op || op->getNumResults() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0)
    return false;
  Block &body = op.getRegion().front();
  if (!body.getArguments().back().use_empty())
    return false;
  Type elem = body.getTerminator()->getOperand(0).getType();
  return llvm::isa<FloatType, IntegerType>(elem) && !elem.isInteger(1);
}

bool mlir::dtensor::safeOnOtherRows(tensor::ExtractOp extract) {
  SmallVector<Value> work{extract.getResult()};
  llvm::DenseSet<Operation *> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (user->getBlock() != extract->getBlock())
        return false;
      if (llvm::isa<linalg::YieldOp>(user))
        continue;
      if (!seen.insert(user).second)
        continue;
      if (user->getNumRegions() || !isMemoryEffectFree(user) ||
          llvm::isa<tensor::ExtractOp, arith::DivSIOp, arith::DivUIOp,
                    arith::RemSIOp, arith::RemUIOp, arith::CeilDivSIOp,
                    arith::CeilDivUIOp, arith::FloorDivSIOp,
                    // out of range, undefined in the emitted C++
                    arith::FPToSIOp, arith::FPToUIOp>(user))
        return false;
      Dialect *dialect = user->getDialect();
      if (!dialect || (dialect->getNamespace() != "arith" &&
                       dialect->getNamespace() != "math"))
        return false;
      for (Value r : user->getResults()) {
        if (llvm::isa<ShapedType>(r.getType()))
          return false;
        work.push_back(r);
      }
    }
  }
  return true;
}

tensor::ExtractOp mlir::dtensor::maskableRead(Operation *op, Value table) {
  if (!isPureLookup(op) || op->isAncestor(table.getParentBlock()->getParentOp()))
    return {};
  Block &body = llvm::cast<linalg::GenericOp>(op).getRegion().front();
  tensor::ExtractOp read;
  for (Operation *user : table.getUsers()) {
    if (!op->isProperAncestor(user))
      continue;
    auto extract = llvm::dyn_cast<tensor::ExtractOp>(user);
    if (read || !extract || extract->getBlock() != &body ||
        extract.getTensor() != table)
      return {};
    read = extract;
  }
  return read && safeOnOtherRows(read) ? read : tensor::ExtractOp();
}

void mlir::dtensor::keepOrdersWhereSame(Placements &need,
                                        const Placements &have) {
  auto shards = [](const Placement &p, int64_t d) {
    return p.isShard() && p.dim == d;
  };
  for (const Placement &p : std::vector<Placement>(need.begin(), need.end())) {
    if (!p.isShard())
      continue;
    int64_t d = p.dim;
    bool same = true;
    for (size_t m = 0; m < need.size(); ++m)
      same &= shards(need[m], d) == shards(have[m], d);
    if (!same)
      for (Placement &q : need)
        if (shards(q, d))
          q.order = -1;
  }
}

bool mlir::dtensor::readAtComputedIndex(tensor::ExtractOp read, Operation *op,
                                        int64_t dim) {
  auto index = read.getIndices()[dim].getDefiningOp<linalg::IndexOp>();
  return !index || index->getParentOp() != op;
}
