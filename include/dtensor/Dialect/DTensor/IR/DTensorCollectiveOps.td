//===- DTensorCollectiveOps.td - local-view collectives ----*- tablegen -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// The local view: every value is one rank's buffer (a ranked tensor without
// encoding), and data moves between ranks only through these collectives.
// A collective runs over groups of ranks given by some dims of a mesh; the
// queries tell a rank where it sits in such a group.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_DTENSORCOLLECTIVEOPS_TD
#define DTENSOR_DIALECT_DTENSOR_IR_DTENSORCOLLECTIVEOPS_TD

include "dtensor/Dialect/DTensor/IR/DTensorOps.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

/// What collectives read and write: the communicator. Collectives are
/// ordered against each other (every rank must issue them in the same order)
/// and are never dropped when their result is unused (the other ranks of the
/// group wait for them), yet they do not touch memory that other ops use.
def DTensor_CommunicatorResource
    : Resource<"::mlir::dtensor::CommunicatorResource">;

/// An i64 attribute read as int64_t (I64Attr reads uint64_t), so that a
/// negative dim or rank reaches the verifiers as negative.
def DTensor_I64Attr : TypedSignlessIntegerAttrBase<I64, "int64_t",
    "64-bit signless integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

/// A future whose value is a local tensor.
def DTensor_LocalFuture : Type<And<[
      CPred<"::llvm::isa<::mlir::dtensor::FutureType>($_self)">,
      CPred<"!::llvm::cast<::mlir::dtensor::FutureType>($_self)"
            ".getValueType().getEncoding()">]>,
    "future of a ranked tensor without encoding",
    "::mlir::dtensor::FutureType">;

/// The result of a collective: the tensor (synchronous) or a future of it
/// (asynchronous start).
def DTensor_LocalTensorOrFuture
    : AnyTypeOf<[DTensor_LocalTensor, DTensor_LocalFuture],
                "ranked tensor without encoding, or a future of one">;

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

class DTensor_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : DTensor_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<SymbolUserOpInterface>,
        MemoryEffects<[MemRead<DTensor_CommunicatorResource>,
                       MemWrite<DTensor_CommunicatorResource>]>])> {
  dag commonArgs = (ins DTensor_LocalTensor:$input,
                        DTensor_AnyDeviceMesh:$mesh,
                        DenseI64ArrayAttr:$mesh_dims);
  let results = (outs DTensor_LocalTensorOrFuture:$result);
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The result's tensor type, unwrapped from the future when async.
    ::mlir::RankedTensorType getResultTensorType();
    /// Whether this op starts the collective and returns a future.
    bool isAsync() {
      return ::llvm::isa<::mlir::dtensor::FutureType>(getResult().getType());
    }
  }];
  let extraClassDefinition = [{
    ::mlir::RankedTensorType $cppClass::getResultTensorType() {
      return ::mlir::dtensor::getTensorOrFutureValueType(getResult().getType());
    }
  }];
}

def DTensor_AllGatherOp : DTensor_CollectiveOp<"all_gather"> {
  let summary = "Concatenates the group's buffers (`all_gather_into_tensor`)";
  let description = [{
    Every rank of the group receives the concatenation of all the group's
    inputs along `gather_dim`, in group order (see below). The result's
    `gather_dim` is the group size n times the input's; other dims are
    equal. A dynamic size (`?`) on either side is accepted. Every rank must
    contribute the same size: uneven shards are padded first.

    ```mlir
    %g = dtensor.all_gather %x, %m mesh_dims = [1] gather_dim = 0
        : tensor<2x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
    ```

    The group of a rank is the ranks of the mesh symbol that differ from it
    only along `mesh_dims`, ordered row-major over `mesh_dims` in the order
    listed (the last listed dim varies fastest), exactly as the core's
    `meshGroups(meshShape, meshDims)`. `mesh_dims` are dims of the mesh
    symbol, and the handle's view must cover them. With a
    `!dtensor.future<...>` result the op starts the collective and
    `dtensor.wait` yields the tensor.
  }];
  let arguments = !con(commonArgs, (ins DTensor_I64Attr:$gather_dim));
  let assemblyFormat = [{
    $input `,` $mesh `mesh_dims` `=` $mesh_dims `gather_dim` `=` $gather_dim
    attr-dict `:` type($input) `,` qualified(type($mesh)) `->` type($result)
  }];
}

def DTensor_AllReduceOp : DTensor_CollectiveOp<"all_reduce"> {
  let summary = "Reduces the group's buffers onto every rank (`all_reduce`)";
  let description = [{
    Every rank of the group receives the element-wise reduction of all the
    group's inputs: `sum`, `avg` (the mean over the group), `max`, `min` or
    `product`. The shape is unchanged (a `?` matches any size). This is the
    step that turns `P(op)` into `R` on a mesh dim.

    ```mlir
    %r = dtensor.all_reduce %x, %m mesh_dims = [0, 1] reduce = sum
        : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
    %f = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = avg
        : tensor<8x8xf32>, !dtensor.device_mesh<@mesh>
        -> !dtensor.future<tensor<8x8xf32>>
    ```

    Groups are formed over `mesh_dims` as for `dtensor.all_gather`.
  }];
  let arguments = !con(commonArgs, (ins DTensor_ReductionAttr:$reduce));
  let assemblyFormat = [{
    $input `,` $mesh `mesh_dims` `=` $mesh_dims `reduce` `=` `` $reduce
    attr-dict `:` type($input) `,` qualified(type($mesh)) `->` type($result)
  }];
}

def DTensor_ReduceScatterOp : DTensor_CollectiveOp<"reduce_scatter"> {
  let summary = "Reduces the group's buffers and scatters the pieces "
                "(`reduce_scatter_tensor`)";
  let description = [{
    Reduces the group's inputs element-wise (as `dtensor.all_reduce`) and
    splits the reduction along `scatter_dim` into n equal pieces, n being
    the group size: group rank i receives piece i. A static input
    `scatter_dim` must be divisible by n (pad uneven shards first); the
    result's `scatter_dim` is the input's divided by n, other dims are
    equal, and a `?` on either side is accepted. This is the step that turns
    `P(op)` into `S(d)`.

    ```mlir
    %s = dtensor.reduce_scatter %x, %m mesh_dims = [1] scatter_dim = 0
        reduce = sum
        : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x8xf32>
    ```

    Groups are formed over `mesh_dims` as for `dtensor.all_gather`.
  }];
  let arguments = !con(commonArgs, (ins DTensor_I64Attr:$scatter_dim,
                                        DTensor_ReductionAttr:$reduce));
  let assemblyFormat = [{
    $input `,` $mesh `mesh_dims` `=` $mesh_dims `scatter_dim` `=` $scatter_dim
    `reduce` `=` `` $reduce attr-dict `:` type($input) `,`
    qualified(type($mesh)) `->` type($result)
  }];
}

def DTensor_AllToAllOp : DTensor_CollectiveOp<"all_to_all"> {
  let summary = "Exchanges pieces between all ranks of a group "
                "(`all_to_all_single`)";
  let description = [{
    Splits the input along `split_dim` into n equal pieces (n is the group
    size) and sends piece j to group rank j; each rank concatenates the
    pieces it receives along `concat_dim`, in group order. A static
    `split_dim` must be divisible by n; the result's `split_dim` is divided
    by n and its `concat_dim` multiplied by n. With `split_dim` equal to
    `concat_dim` the shape is unchanged. A `?` on either side is accepted.
    This is the step that turns `S(i)` into `S(j)`.

    ```mlir
    %a = dtensor.all_to_all %x, %m mesh_dims = [0] split_dim = 1
        concat_dim = 0
        : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x4xf32>
    ```

    Groups are formed over `mesh_dims` as for `dtensor.all_gather`.
  }];
  let arguments = !con(commonArgs, (ins DTensor_I64Attr:$split_dim,
                                        DTensor_I64Attr:$concat_dim));
  let assemblyFormat = [{
    $input `,` $mesh `mesh_dims` `=` $mesh_dims `split_dim` `=` $split_dim
    `concat_dim` `=` $concat_dim attr-dict `:` type($input) `,`
    qualified(type($mesh)) `->` type($result)
  }];
}

def DTensor_BroadcastOp : DTensor_CollectiveOp<"broadcast"> {
  let summary = "Sends one group rank's buffer to the whole group "
                "(`broadcast`)";
  let description = [{
    Every rank of the group receives the input of group rank `root` (its
    index in the group, in [0, n)); the other ranks' inputs are ignored.
    The shape is unchanged (a `?` matches any size).
    `distribute_tensor(..., src_data_rank=k)` broadcasts from group rank k
    on each Replicate mesh dim.

    ```mlir
    %b = dtensor.broadcast %x, %m mesh_dims = [0] root = 0
        : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
    ```

    Groups are formed over `mesh_dims` as for `dtensor.all_gather`.
  }];
  let arguments = !con(commonArgs, (ins DTensor_I64Attr:$root));
  let assemblyFormat = [{
    $input `,` $mesh `mesh_dims` `=` $mesh_dims `root` `=` $root
    attr-dict `:` type($input) `,` qualified(type($mesh)) `->` type($result)
  }];
}

def DTensor_PermuteOp : DTensor_CollectiveOp<"permute"> {
  let summary = "Point-to-point sends within a group (`collective_permute`)";
  let description = [{
    `source_target_pairs` lists (source, target) pairs of group ranks,
    flattened: group rank `source` sends its input to group rank `target`.
    Each rank is a source at most once and a target at most once; a rank
    that receives nothing gets zeros. The shape is unchanged (a `?` matches
    any size). A shift by one along a ring is the halo exchange of a
    width-sharded convolution:

    ```mlir
    // Group ranks 0 -> 1 -> 2 -> 3 along mesh dim 1; rank 0 gets zeros.
    %h = dtensor.permute %x, %m mesh_dims = [1]
        source_target_pairs = [0, 1, 1, 2, 2, 3]
        : tensor<8x1xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x1xf32>
    ```

    Groups are formed over `mesh_dims` as for `dtensor.all_gather`.
  }];
  let arguments = !con(commonArgs,
                       (ins DenseI64ArrayAttr:$source_target_pairs));
  let assemblyFormat = [{
    $input `,` $mesh `mesh_dims` `=` $mesh_dims `source_target_pairs` `=`
    $source_target_pairs attr-dict `:` type($input) `,`
    qualified(type($mesh)) `->` type($result)
  }];
}

def DTensor_WaitOp : DTensor_Op<"wait", [
    MemoryEffects<[MemRead<DTensor_CommunicatorResource>,
                   MemWrite<DTensor_CommunicatorResource>]>,
    TypesMatchWith<"result is the future's value type", "future", "result",
                   "::llvm::cast<::mlir::dtensor::FutureType>($_self)"
                   ".getValueType()">]> {
  let summary = "Waits for an asynchronous collective (`wait_tensor`)";
  let description = [{
    Blocks until the collective that produced `future` is done and yields
    its tensor, as PyTorch's `wait_tensor` does for a functional
    collective's async tensor. The result type is the future's value type,
    so only the future's type is written.

    ```mlir
    %f = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum
        : tensor<8x8xf32>, !dtensor.device_mesh<@mesh>
        -> !dtensor.future<tensor<8x8xf32>>
    // ... work that overlaps the all_reduce ...
    %r = dtensor.wait %f : !dtensor.future<tensor<8x8xf32>>
    ```
  }];
  let arguments = (ins DTensor_FutureType:$future);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $future attr-dict `:` qualified(type($future))
  }];
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

class DTensor_GroupQueryOp<string mnemonic, list<Trait> traits = []>
    : DTensor_Op<mnemonic, !listconcat(traits, [
        Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>])> {
  let results = (outs Index:$result);
  let hasVerifier = 1;
}

def DTensor_MeshCoordOp : DTensor_GroupQueryOp<"mesh_coord"> {
  let summary = "This rank's index in its group over some mesh dims";
  let description = [{
    This rank's position in its group over `mesh_dims`: its coordinates
    along `mesh_dims`, combined row-major in the order listed (the last
    listed dim varies fastest), exactly the index the collectives use for
    it. With one mesh dim it is the rank's coordinate on that dim.

    ```mlir
    // On a 2x4 mesh, rank 6 (coordinates (1, 2)) gets 1 * 4 + 2 = 6;
    // with mesh_dims = [1, 0] it gets 2 * 2 + 1 = 5.
    %i = dtensor.mesh_coord %m mesh_dims = [0, 1]
        : !dtensor.device_mesh<@mesh> -> index
    ```
  }];
  let arguments = (ins DTensor_AnyDeviceMesh:$mesh,
                       DenseI64ArrayAttr:$mesh_dims);
  let assemblyFormat = [{
    $mesh `mesh_dims` `=` $mesh_dims attr-dict `:` qualified(type($mesh))
    `->` type($result)
  }];
}

def DTensor_ShardSizeOp : DTensor_GroupQueryOp<"shard_size"> {
  let summary = "This rank's shard size of a dim sharded over some mesh dims";
  let description = [{
    The size of this rank's shard of a tensor dim of global size `size`
    sharded by `mesh_dims` (in that order, nested: each mesh dim re-chunks
    the current local size, with torch.chunk semantics), exactly as the
    core's Layout computes it for a shard order equal to `mesh_dims`. This
    is how a local-view program learns an uneven shard's size.

    ```mlir
    // 9 rows as [S(0), S(0)] on a 2x2 mesh: sizes 3, 2, 2, 2.
    %n = dtensor.shard_size %m mesh_dims = [0, 1] size = 9
        : !dtensor.device_mesh<@mesh> -> index
    ```
  }];
  let arguments = (ins DTensor_AnyDeviceMesh:$mesh,
                       DenseI64ArrayAttr:$mesh_dims, DTensor_I64Attr:$size);
  let assemblyFormat = [{
    $mesh `mesh_dims` `=` $mesh_dims `size` `=` $size attr-dict `:`
    qualified(type($mesh)) `->` type($result)
  }];
}

def DTensor_ShardOffsetOp : DTensor_GroupQueryOp<"shard_offset"> {
  let summary = "This rank's global offset of a dim sharded over some mesh "
                "dims";
  let description = [{
    The global offset of this rank's shard of a tensor dim of global size
    `size` sharded by `mesh_dims` (in that order, nested, as
    `dtensor.shard_size`). An empty shard reports `size`, as DTensor does.

    ```mlir
    // 9 rows as [S(0), S(0)] on a 2x2 mesh: offsets 0, 3, 5, 7.
    %o = dtensor.shard_offset %m mesh_dims = [0, 1] size = 9
        : !dtensor.device_mesh<@mesh> -> index
    ```
  }];
  let arguments = (ins DTensor_AnyDeviceMesh:$mesh,
                       DenseI64ArrayAttr:$mesh_dims, DTensor_I64Attr:$size);
  let assemblyFormat = [{
    $mesh `mesh_dims` `=` $mesh_dims `size` `=` $size attr-dict `:`
    qualified(type($mesh)) `->` type($result)
  }];
}

#endif // DTENSOR_DIALECT_DTENSOR_IR_DTENSORCOLLECTIVEOPS_TD
