//===- DTensorDialect.td - The dtensor dialect -------------*- tablegen -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_DTENSORDIALECT_TD
#define DTENSOR_DIALECT_DTENSOR_IR_DTENSORDIALECT_TD

include "mlir/IR/OpBase.td"

def DTensor_Dialect : Dialect {
  let name = "dtensor";
  let cppNamespace = "::mlir::dtensor";
  let summary = "PyTorch DTensor's model of distributed tensors";
  let description = [{
    The `dtensor` dialect describes programs written against PyTorch
    DTensor's model: device meshes (`dtensor.mesh`), opaque device-mesh
    handles that functions take as arguments (`!dtensor.device_mesh`), and
    placements (`S(d)`, `R`, `P(op)`, one per mesh dim, with an optional
    shard order for nested sharding).

    A distributed tensor in the global view is a builtin ranked tensor whose
    encoding is a `#dtensor.spec`, so that upstream linalg, tensor and arith
    ops work on global-view values unchanged:

    ```mlir
    dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
    func.func @f(%m: !dtensor.device_mesh<@mesh>,
                 %x: tensor<16x8xf32, #dtensor.spec<@mesh, [S(0), R]>>)
    ```

    The DTensor API ops (`distribute_tensor`, `from_local`, `to_local`,
    `redistribute`, `full_tensor`) move between local tensors and
    distributed ones. Local shapes and offsets follow torch.chunk semantics
    and nested shard orders exactly as DTensor computes them; every verifier
    computes them through the dialect-free layout core (`dtensor/Core`).
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 0;
}

class DTensor_Op<string mnemonic, list<Trait> traits = []>
    : Op<DTensor_Dialect, mnemonic, traits>;

#endif // DTENSOR_DIALECT_DTENSOR_IR_DTENSORDIALECT_TD
