//===- DTensor.td - the dtensor dialect, all of it ---------*- tablegen -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_DTENSOR_TD
#define DTENSOR_DIALECT_DTENSOR_IR_DTENSOR_TD

include "dtensor/Dialect/DTensor/IR/DTensorOps.td"
include "dtensor/Dialect/DTensor/IR/DTensorCollectiveOps.td"

#endif // DTENSOR_DIALECT_DTENSOR_IR_DTENSOR_TD
