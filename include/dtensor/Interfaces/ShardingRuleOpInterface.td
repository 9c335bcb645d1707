//===- ShardingRuleOpInterface.td - per-op sharding rules --*- tablegen -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_INTERFACES_SHARDINGRULEOPINTERFACE_TD
#define DTENSOR_INTERFACES_SHARDINGRULEOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let description = [{
    An op that computes on tensors and can be partitioned by sharding the
    factors (loops) of its iteration space. The rule (see ShardingRule.h)
    names, per factor, the dims of each tensor operand and result that it
    indexes, whether it is parallel, a reduction (and with what Partial
    combiner) or blocked, and which Partial operands the op keeps Partial.
    `dtensor-propagate` chooses from it and `dtensor-partition` checks
    against it. Upstream ops get the interface through external models
    (`registerShardingRuleModels`).
  }];
  let cppNamespace = "::mlir::dtensor";
  let methods = [
    InterfaceMethod<
      /*desc=*/[{The op's rule, or failure with `reason` set when the op
                 as written has none (dynamic shapes, non-tensor results).}],
      /*retTy=*/"::mlir::FailureOr<::mlir::dtensor::ShardingRule>",
      /*methodName=*/"getShardingRule",
      /*args=*/(ins "std::string &":$reason)>,
  ];
}

#endif // DTENSOR_INTERFACES_SHARDINGRULEOPINTERFACE_TD
