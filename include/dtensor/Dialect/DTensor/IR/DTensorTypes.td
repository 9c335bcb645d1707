//===- DTensorTypes.td - dtensor types ---------------------*- tablegen -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_DTENSORTYPES_TD
#define DTENSOR_DIALECT_DTENSOR_IR_DTENSORTYPES_TD

include "dtensor/Dialect/DTensor/IR/DTensorDialect.td"
include "mlir/IR/AttrTypeBase.td"

def DTensor_DeviceMeshType : TypeDef<DTensor_Dialect, "DeviceMesh"> {
  let mnemonic = "device_mesh";
  let summary = "An opaque handle to a device mesh (DeviceMesh at run time)";
  let description = [{
    The run-time device mesh: its process groups or communicators. Programs
    know the mesh's shape at compile time (from the `dtensor.mesh` symbol)
    but not its devices, so the handle is a reference-type value that
    functions take as an argument and that every communicating op uses.

    ```mlir
    !dtensor.device_mesh<@mesh>          // the whole mesh
    !dtensor.device_mesh<@mesh[1]>       // sub-mesh of mesh dim 1 ("tp")
    !dtensor.device_mesh<@mesh[0, 2]>    // sub-mesh of dims 0 and 2
    !dtensor.device_mesh<@mesh[(0, 1)]>  // dims 0 and 1 flattened into one
    ```

    A sub-mesh is the group of ranks that differ only along its dims; each
    rank belongs to exactly one such group. A flattened view is a 1-D mesh
    over the product of its dims, ordered row-major.
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$mesh,
    OptionalArrayRefParameter<"int64_t">:$meshDims,
    DefaultValuedParameter<"bool", "false">:$flattened);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilder<(ins "::llvm::StringRef":$mesh), [{
      return $_get($_ctxt, ::mlir::FlatSymbolRefAttr::get($_ctxt, mesh),
                   ::llvm::ArrayRef<int64_t>{}, false);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The mesh view this handle stands for.
    ::mlir::dtensor::MeshViewRef getView() const {
      return {getMesh(), getMeshDims(), getFlattened()};
    }
  }];
}

def DTensor_FutureValueParameter
    : TypeParameter<"::mlir::RankedTensorType",
                    "the value type, a ranked tensor"> {
  let parser = "::mlir::dtensor::parseFutureValueType($_parser)";
}

def DTensor_FutureType : TypeDef<DTensor_Dialect, "Future"> {
  let mnemonic = "future";
  let summary = "A tensor a collective is still computing (an async tensor)";
  let description = [{
    The result of a collective started asynchronously, as PyTorch's
    functional collectives (`all_gather_into_tensor`, `all_reduce`, ...)
    return an async tensor in compiled graphs. `dtensor.wait` (PyTorch's
    `wait_tensor`) blocks until the collective is done and yields the
    tensor, so that communication can overlap the work placed between the
    start and the wait.

    ```mlir
    !dtensor.future<tensor<8x8xf32>>
    ```

    The parameter is the value type, a ranked tensor; the collectives use it
    for local tensors (no encoding).
  }];
  let parameters = (ins DTensor_FutureValueParameter:$valueType);
  let assemblyFormat = "`<` $valueType `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::RankedTensorType":$valueType),
                                   [{
      return $_get(valueType.getContext(), valueType);
    }]>
  ];
}

#endif // DTENSOR_DIALECT_DTENSOR_IR_DTENSORTYPES_TD
