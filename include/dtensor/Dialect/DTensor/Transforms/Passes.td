//===- Passes.td - dtensor passes --------------------------*- tablegen -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD
#define DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DTensorVerifyPass : Pass<"dtensor-verify", "::mlir::ModuleOp"> {
  let summary = "Checks every distributed type in the module against its mesh";
  let description = [{
    The first stage of the pipeline. A `#dtensor.spec` encoding or a
    `!dtensor.device_mesh` handle can appear on any value (function
    arguments, results of upstream ops), where no dtensor op verifies it.
    This pass resolves each one's mesh symbol and checks what needs the mesh:
    the symbol names a `dtensor.mesh`, a view's dims exist, are unique and in
    mesh order, and a spec has exactly one placement per mesh dim of its
    view. Errors point at the op (or function) holding the value.
  }];
}

def DTensorNormalizeSpecsPass : Pass<"dtensor-normalize-specs", "::mlir::ModuleOp"> {
  let summary = "Rewrites negative shard dims in every spec to their positive form";
  let description = [{
    A spec is parsed without knowing the rank of its tensor, so `S(-1)` is
    kept as written and normalized wherever a layout is computed. Two
    spellings of one layout (`S(-1)` and `S(1)` on a rank-2 tensor) are
    different types, though, and ops that compare types see them as
    different. This pass rewrites every type in the module to the
    non-negative spelling, as DTensor normalizes `Shard(-1)` on
    construction. The pipeline runs it first.

    ```mlir
    // before: tensor<4x8xf32, #dtensor.spec<@mesh, [S(-1)]>>
    // after:  tensor<4x8xf32, #dtensor.spec<@mesh, [S(1)]>>
    ```
  }];
}

def DTensorPrintLayoutPass : Pass<"dtensor-print-layout", "::mlir::ModuleOp"> {
  let summary = "Prints each rank's local shape and offset of every distributed value";
  let description = [{
    An analysis printer: for every function argument and op result whose type
    carries a `#dtensor.spec`, prints a table with one row per rank of the
    mesh view: the rank's mesh coordinate, its local shard shape and the
    shard's global offset (torch.chunk semantics, nested shard orders, and
    the global size as the offset of an empty shard). Also prints the rank
    groups of each mesh dim. Output goes to stderr (like
    `-print-op-stats`), so `-o /dev/null` keeps just the tables. The IR is
    unchanged.
  }];
  let options = [
    Option<"showGroups", "groups", "bool", /*default=*/"true",
           "Print the rank groups of each mesh dim">,
  ];
}

def DTensorPropagatePass : Pass<"dtensor-propagate", "::mlir::ModuleOp"> {
  let summary = "Chooses a spec for every tensor value computed from distributed ones";
  let description = [{
    Sharding propagation, as an analysis. In program order (into scf.for,
    scf.if and scf.while regions, and into private callees at their first
    call) every op with a sharding rule (`ShardingRuleOpInterface`: linalg
    structured ops and softmax, element-wise arith/math, tensor
    extract_slice / insert_slice / pad / concat / collapse_shape /
    expand_shape / reshape) and a distributed operand chooses, per mesh dim,
    one factor (loop) of its iteration space to shard, or none. The rule
    gives the placements of every operand and result for each choice: a
    sharded reduction leaves the Partial of its combiner; Partials pass only
    through linear ops; padded, sliced, concatenated and softmax dims stay
    whole; a reshaped group shards only its leading dim, and only evenly.

    Choice: user hints (`dtensor.hint`) by priority first (0 strongest: a
    choice that moves a value held by a stronger hint, or misses one, loses);
    then DTensor's order: no redistribution, the least redistribution cost
    (the planner's cost model, including the cost of reaching a result's
    annotated, hinted or returned spec), the most sharded result.

    Lookups: a table read by `tensor.extract` in a linalg body is priced with
    each choice as insert-redistribute will move it (dims read at a sharded
    loop's own index lined up with the loop, the rest whole). A pure lookup
    (Lookups.h) may also leave the table sharded along a dim it reads at a
    computed index: every operand whole on that mesh dim, the result P(sum)
    (DTensor's MaskPartial), masked by partitioning.

    Lookahead (on by default): deciding each op alone can pick a cheap move
    now that forces a second one at the next op (a reduce_scatter of a
    Partial, then an all_gather where the consumer needs it whole, instead
    of DTensor's one all_reduce). So each function analysed on its own
    (private callees are analysed within their callers' analyses) is
    analysed twice: the second time, every result also prices its moves to
    the specs its users asked for in the first analysis. The analysis with
    the lower total redistribution cost is kept, so by the cost model
    lookahead never costs more than the one-op choice.

    Local search (on by default, `search-budget`): lookahead only prices
    moves to specs the first analysis chose, so a locally cheap move whose
    cost comes later can survive it (a reduce_scatter of a Partial feeding
    a LayerNorm and a gather, where DTensor all-reduces once). After it,
    every op that redistributes an operand offers its next-cheapest choices
    (same hint priorities); one at a time, most expensive move first, a
    re-analysis forces that choice at every op with the same decision (the
    same op on operands in the same state: all the layers of a model at
    once) and keeps it only if the function's total redistribution cost
    drops and its moves send no more bytes per rank than the best plan's
    (no more communication than DTensor). Trials are silent; the budget bounds the re-analyses (fewer on
    functions of more than a few thousand ops), so the search never costs
    more than a constant factor, and by the cost model never loses.

    Callees that look ahead: a function that calls private functions is
    planned again (lookahead and search) with the callees it calls directly
    looking ahead themselves and pricing their returned values' moves to
    what the caller does with the call's results (a layer called twice
    all-reduces its sum once instead of reduce-scattering it for the caller
    to gather). That plan is kept only if the function's total cost drops.

    Whole-function optimization (`whole-function-ops`): a function of one
    block (`scf.for` and `scf.while` loops, a loop of unknown trip count
    counted 1000 times, `scf.if` branches and the private functions only it
    calls are taken in, calls of other functions with a body stay calls;
    the hints' decisions in the plan are kept: a hint the plan meets is
    met, and values computed from hinted values keep the plan's specs)
    with at most that
    many ops to decide is then solved as one integer program (COIN-OR CBC,
    `whole-function-seconds` per function): each op picks a strategy, each
    distinct move of a value is paid once at the planner's price, bytes are
    bounded by the plan's; solved by variable elimination (exact on chains
    and trees of ops; the bytes bound by Lagrangian weights, then by
    elimination over Pareto frontiers of time and bytes), then an exact
    branch and bound, then CBC for the rest. The solution is analysed with every op's choice
    forced and kept only where that analysis costs less than the plan.
    A larger function is solved in windows of `whole-function-window-ops`
    consecutive ops (every op outside kept as the plan has it), the
    `whole-function-windows` whose ops move the most first; a kept window's
    choices are then tried at every op alike elsewhere (the other layers),
    kept where the total drops and no more bytes move than the plan did.

    Auto-sharding (`auto-shard=MESH`): in a public function, every ranked
    tensor argument without a spec gets one on MESH, chosen with the ops'
    strategies by the whole-function optimization: each such argument is a
    node whose options are every placement without Partials (its data
    arrives in that layout, for free), each costing its shard's bytes per
    rank against `memory-budget-mb` (a constraint on their sum; activations
    are not counted), and each op's compute is priced as a roofline (its
    flops divided by the mesh dims that split its loops, or its traffic),
    so dividing the work pays. Results without a spec stay replicated (the caller
    gets the whole tensor). The function must be one the whole-function
    optimization covers; otherwise, or when no placement fits the budget,
    it is an error at the function. `explain=true` prints each argument's
    placement and bytes, the memory against the budget and the modeled
    time. The chosen specs are written into the function's type, and the
    function is then planned as any other.

    Loop-carried values take the init's spec unless the body turns them into
    another, which the loop then carries (the init is redistributed once,
    not every iteration). A private function's unannotated arguments take the
    specs of its first call's operands, and its calls' results the specs it
    returns. User annotations in types are never changed.

    Nothing is rewritten: choices are recorded as `dtensor.operand_specs`,
    `dtensor.result_specs` and `dtensor.arg_specs` attributes, which
    `dtensor-insert-redistribute` makes real. With `explain=true`, every
    redistribution the choice implies is printed with the op, the factors
    chosen per mesh dim, the rule or hint that forced it, and its cost.
  }];
  let options = [
    Option<"devicesPerHost", "devices-per-host", "int64_t", /*default=*/"8",
           "Devices per host in the cost model">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Print why each redistribution is needed">,
    Option<"narrow", "narrow", "bool", /*default=*/"true",
           "Price a move of an element-wise value as the cheaper of moving "
           "it and moving its producer's inputs (what dtensor-narrow-moves "
           "does after)">,
    Option<"lookahead", "lookahead", "bool", /*default=*/"true",
           "Re-analyse each function with its users' first-pass specs as "
           "targets; keep the cheaper analysis">,
    Option<"searchBudget", "search-budget", "int64_t", /*default=*/"24",
           "Local search after lookahead: at most this many re-analyses per "
           "function, each forcing another choice at the ops (by decision) "
           "that redistribute, kept when the function's total cost drops; "
           "0 turns it off">,
    Option<"wholeFunctionOps", "whole-function-ops", "int64_t",
           /*default=*/"200",
           "Whole-function optimization: a function of one block (tables "
           "read in an op's body priced per strategy; scf.for and scf.while "
           "loops, scf.if "
           "branches and the private functions only it calls taken in; what "
           "hints decided in the plan kept) with "
           "at most this "
           "many ops to decide is also solved exactly over every op's "
           "strategies (variable elimination, then branch and bound, then "
           "COIN-OR CBC), moving no more bytes than the plan found "
           "otherwise; kept when its cost is lower. 0 turns it off">,
    Option<"wholeFunctionWindows", "whole-function-windows", "int64_t",
           /*default=*/"4",
           "A function with more than whole-function-ops ops to decide is "
           "optimized in windows of whole-function-window-ops consecutive "
           "ops (overlapping by half; every op outside a window kept as the "
           "plan has it), the windows whose ops move the most data first, at "
           "most this many of them; 0 leaves such functions to the plan">,
    Option<"wholeFunctionWindowOps", "whole-function-window-ops", "int64_t",
           /*default=*/"100",
           "The ops to decide in one window (at most whole-function-ops)">,
    Option<"wholeFunctionSeconds", "whole-function-seconds", "double",
           /*default=*/"0.5",
           "Time limit of CBC per function, for the whole-function problems "
           "that elimination and the exact branch and bound do not finish "
           "(the best plan found by then is used; a function's windows share "
           "it equally); 0 leaves CBC out, so the result depends on the "
           "program alone">,
    Option<"autoShard", "auto-shard", "std::string", /*default=*/"",
           "Auto-sharding: the mesh (symbol name) over which the unannotated "
           "tensor arguments of public functions get placements, chosen with "
           "every op's strategy by the whole-function optimization (under "
           "memory-budget-mb); empty turns it off">,
    Option<"memoryBudgetMb", "memory-budget-mb", "double", /*default=*/"0",
           "With auto-shard: the most MiB per rank that the chosen "
           "arguments' shards may take together; 0: no budget">,
  ];
}

def DTensorInsertRedistributePass
    : Pass<"dtensor-insert-redistribute", "::mlir::ModuleOp"> {
  let summary = "Makes propagation's choices real: specs in types, explicit redistributes";
  let description = [{
    Reads the attributes `dtensor-propagate` records and gives every value
    its chosen spec in its type (results, loop-carried values, arguments and
    results of private functions). Wherever a consumer needs another spec
    than its operand has, it inserts `dtensor.redistribute` (between specs),
    `dtensor.distribute_tensor` (from a plain value: each rank keeps its
    chunk) or `dtensor.full_tensor` (into an op with no rule, or a plain
    function result). Fresh outputs (`tensor.empty`, a `linalg.fill` of one)
    are made in the spec they are needed in. A result the user annotated
    keeps its type: the op computes in the chosen spec and a redistribute
    restores the annotation. `dtensor.hint` ops disappear where their value
    came out in the hinted spec and become redistributes elsewhere.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def DTensorNarrowMovesPass
    : Pass<"dtensor-narrow-moves", "::mlir::ModuleOp"> {
  let summary = "Moves the narrow inputs of an element-wise value instead of the value";
  let description = [{
    A redistribution that moves data and reduces nothing (no Partial on
    either side: all_gather, all_to_all, slicing) of a value computed
    element-wise from narrower inputs (an int8 weight times its f32 scale,
    a bf16 -> f32 cast) can move the inputs instead and compute the value
    again after the move. The global value is the same, so the rewrite is
    exact by construction; it is made when the planner's cost of moving the
    inputs (each from its own spec to the one the op needs for the target)
    is below that of moving the value. Chains are followed (the cheapest
    cut of the producers' tree, at most `depth` ops deep, in the same
    block), inputs already in place cost nothing, and constants made by a
    fill are made again rather than moved.

    ```mlir
    %f = linalg.generic {dequantize} ins(%w : tensor<64x32xi8, S(0)>,
                                          %s : tensor<64x1xf32, S(0)>) ...
    %r = dtensor.redistribute %f ... -> tensor<64x32xf32, [R]>
    // becomes (an all_gather of 2 KiB + 256 B instead of 8 KiB)
    %wr = dtensor.redistribute %w ... -> tensor<64x32xi8, [R]>
    %sr = dtensor.redistribute %s ... -> tensor<64x1xf32, [R]>
    %r = linalg.generic {dequantize} ins(%wr, %sr) ... -> tensor<64x32xf32, [R]>
    ```

    Handles `dtensor.redistribute` and `dtensor.full_tensor` in the global
    view (after `dtensor-insert-redistribute`, before partitioning); the
    producers are ops with a sharding rule whose loops are all parallel and
    all index the result (element-wise ops, broadcasts, transposes), free of
    memory effects, whose init is not read and whose body reads no
    distributed table (its placement follows the producer's spec). Runs in `dtensor-compile`
    (`narrow=0` turns it off).
  }];
  let options = [
    Option<"devicesPerHost", "devices-per-host", "int64_t", /*default=*/"8",
           "Devices per host in the cost model">,
    Option<"depth", "depth", "int64_t", /*default=*/"8",
           "How many producers deep a move may be pushed">,
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numNarrowed", "narrowed",
              "Moves replaced by moves of the value's inputs">,
  ];
}

def DTensorPartitionPass : Pass<"dtensor-partition", "::mlir::ModuleOp"> {
  let summary = "Rewrites annotated global-view programs into the local view";
  let description = [{
    Turns a global-view program whose tensors all carry specs (written by the
    user or by `dtensor-propagate`) into one SPMD program that every rank
    runs on its own shard:

    - every `tensor<..., #dtensor.spec<...>>` becomes the local shard type:
      static where every rank's shard has the same size, dynamic (`?`) where
      shards are uneven, in function signatures, calls and returns too;
    - `from_local` / `to_local` disappear (with `run_check`, replicated mesh
      dims are broadcast from group rank 0, as DTensor does);
    - `distribute_tensor` slices this rank's shard (after a broadcast from
      `src_rank`, when given);
    - `redistribute` and `full_tensor` become `dtensor.reshard` ops (local
      value, global type, target spec), which `dtensor-lower-redistribute`
      turns into planned collectives;
    - `local_map` redistributes its inputs to its in_specs and inlines its
      region on the local shards;
    - ops with a sharding rule (linalg, element-wise arith/math, tensor
      slices, pad, concat, reshapes) and `tensor.empty` keep their form on
      local shards, after a check that their operands' specs are a choice
      their rule allows (a sharded reduction gives a Partial, Partials pass
      only through linear ops, blocked dims stay whole, reshaped groups split
      evenly); `linalg.index` of a sharded loop is shifted by this rank's
      offset; slices and reshapes get local sizes; `scf.for`/`if`/`while`
      carry local types.

    A `from_local` whose local type leaves a size open (`?` for a static
    global dim) checks it at run time with a `cf.assert`: a rank passing a
    tensor that is not its shard stops every rank at the op's location, as
    the global view does.

    Anything else on distributed values, and any spec the local computation
    could not honour exactly, is reported at the op.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def DTensorLowerRedistributePass
    : Pass<"dtensor-lower-redistribute", "::mlir::ModuleOp"> {
  let summary = "Lowers dtensor.reshard to the planner's collectives";
  let description = [{
    Every `dtensor.reshard` (a redistribute in the local view) becomes the
    steps the redistribution planner chooses: `dtensor.all_gather`,
    `all_reduce`, `reduce_scatter`, `all_to_all`, and local chunking or
    scaling, with uneven shards padded to the largest piece around each
    collective and sliced back after. The planner never uses more
    collectives or bytes than DTensor's greedy plan.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect",
  ];
  let options = [
    Option<"devicesPerHost", "devices-per-host", "int64_t", /*default=*/"8",
           "Devices per host in the cost model: mesh dims whose groups span "
           "more use the slower inter-host links">,
  ];
}

def DTensorOptimizeCollectivesPass
    : Pass<"dtensor-optimize-collectives", "::mlir::ModuleOp"> {
  let summary = "Moves loop-invariant collectives out of loops and merges equal ones";
  let description = [{
    Collectives carry a communicator effect, so generic CSE and LICM leave
    them alone (every rank must issue a group's collectives in one order).
    In a compiled SPMD program that order is the program's own, and this
    pass changes it identically on every rank:
    - a synchronous collective equal to one that dominates it (kind, input,
      mesh, groups, attributes, result type) is replaced by that one;
    - a synchronous collective in a loop whose operands are all defined
      outside the loop moves before it when the loop's trip count is a
      constant of at least one (so no rank communicates where the program
      would not), with the pure ops around it (loop-invariant code motion).
    Asynchronous starts and their waits are left where they are. Runs in
    `dtensor-compile` after lowering.
  }];
  let options = [
    Option<"hoist", "hoist", "bool", /*default=*/"true",
           "Move loop-invariant collectives out of loops that run">,
    Option<"dedupe", "dedupe", "bool", /*default=*/"true",
           "Replace a collective by an equal one that dominates it">,
  ];
  let statistics = [
    Statistic<"numHoisted", "hoisted", "Collectives moved out of loops">,
    Statistic<"numMerged", "merged", "Collectives replaced by an equal one">,
  ];
}

def DTensorMaskLookupsPass
    : Pass<"dtensor-mask-lookups", "::mlir::ModuleOp"> {
  let summary = "Looks tables up where they are sharded (DTensor's MaskPartial)";
  let description = [{
    A table read by computed index in a linalg body (an embedding lookup)
    is gathered whole before the op by partitioning. When the lookup's
    result is the same on every rank of the gather's group, each rank can
    instead look up only the indices its own shard holds (zero elsewhere)
    and the group sum the results with one all_reduce: exact, since one
    rank contributes each element. Rewritten when the gathered table has
    more bytes than twice the result (a vocab-parallel embedding: the table
    is large, the looked-up rows few). Even gathers of one user, in
    functions with a `dtensor.global` contract. A slice of the sum taken
    alike across the group (this rank's rows over another mesh dim) is
    taken first, so only the rows kept are reduced. Runs in
    `dtensor-compile` after lowering.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numMasked", "masked", "Gathered tables replaced by masked lookups">,
  ];
}

def DTensorBucketCollectivesPass
    : Pass<"dtensor-bucket-collectives", "::mlir::ModuleOp"> {
  let summary = "Merges all_reduces of one group into buckets (one latency each)";
  let description = [{
    In each block, synchronous all_reduces of the same mesh handle, mesh
    dims, reduction and element type (static shapes, rank >= 1) are
    collected until an op uses one of their results or the bucket would
    pass `bucket-bytes`; then, just before that op, their inputs are
    flattened, concatenated and reduced by one all_reduce, and each result
    is its slice of the reduced buffer (DDP's gradient buckets). Exact: an
    element-wise reduction of a concatenation is the concatenation of the
    reductions. `dtensor-compile{overlap=1}` runs it before
    `dtensor-schedule-async`.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
  let options = [
    Option<"bucketBytes", "bucket-bytes", "int64_t", /*default=*/"26214400",
           "The most bytes one bucket reduces (default 25 MiB, as DDP)">,
  ];
  let statistics = [
    Statistic<"numBuckets", "buckets", "All_reduces made of several">,
    Statistic<"numBucketed", "bucketed", "All_reduces merged into buckets">,
  ];
}

def DTensorScheduleAsyncPass
    : Pass<"dtensor-schedule-async", "::mlir::ModuleOp"> {
  let summary = "Overlaps collectives with compute: start early, wait late";
  let description = [{
    Every synchronous collective of the local view whose result is not
    needed at once becomes an asynchronous start and a `dtensor.wait`
    (Inductor's raise/sink): the start moves up to just after the last op
    of its block that defines one of its operands, and the wait moves down
    to just before the first op of the block that uses its result (the end
    of the block when nothing does). Starts never pass each other, nor a
    call or a region op that communicates, so every rank still issues its
    collectives in one order; a collective with nothing to overlap (its
    start and first use adjacent) stays synchronous. In the emitted
    programs, compute between the start and the wait runs while the
    collective is in flight (the NCCL flavour's communication stream; MPI's
    non-blocking collectives). `dtensor-compile{overlap=1}` runs it last.
  }];
  let statistics = [
    Statistic<"numStarted", "started", "Collectives made asynchronous">,
    Statistic<"numOverlapped", "overlapped-ops",
              "Ops placed between a start and its wait">,
  ];
}

def DTensorCommReportPass : Pass<"dtensor-comm-report", "::mlir::ModuleOp"> {
  let summary = "Prints the collectives of each function: kind, count, bytes, mesh dims";
  let description = [{
    A static CommDebugMode: for every function, counts the dtensor
    collectives it contains by kind, with the bytes each moves per rank (the
    larger of its input and result buffers, from their static types) and the
    mesh dims of their groups. Ops in loop bodies count once per trip (the
    product of the static trip counts of the loops around them); a loop
    without a static trip count counts as one trip, and such ops are
    reported (`in_unknown_loops`). Both branches of an scf.if count.
    Collectives with dynamic shapes are counted and their bytes reported as
    unknown. A function not compiled that far (still in the global view, or
    with redistributes not yet lowered) says so instead of "no
    collectives" (`not_yet`). The IR is unchanged. Prints to stderr, as
    text or (`json=true`) as JSON: `{"functions": [{"name": "f",
    "collectives": {"all_gather": {"count": 1, "bytes": 2048, "dynamic": 0,
    "async": 0, "in_unknown_loops": 0, "mesh_dims": [["tp"]], "meshes":
    ["mesh"]}, ...}, "total": {...}}, ...]}` (`meshes[i]` is the mesh of
    `mesh_dims[i]`; kinds that do not occur are left out).

    Each compiled function also gets a modeled step time per rank: its ops
    replayed in program order on two streams, compute and communication. A
    compute op takes the roofline time of its bytes and floating-point
    work (`peak-tflops`, `memory-gbs`); a collective the planner's cost
    model's time (`devices-per-host` as in propagation). A synchronous
    collective holds both streams; an asynchronous start runs on the
    communication stream once its input is ready, and its wait holds
    compute only until it is done, so overlap shows as communication time
    hidden behind compute. Loops count their static trip count (one trip
    when unknown), an scf.if its slower branch, a call its callee's time.
    Text: `modeled step: T us per rank (compute C us, communication M us,
    H us of it hidden)`; JSON: `"modeled": {"step_us": T, "compute_us": C,
    "comm_us": M, "hidden_us": H}`.
  }];
  let options = [
    Option<"json", "json", "bool", /*default=*/"false",
           "Print JSON instead of text">,
    Option<"model", "model", "bool", /*default=*/"true",
           "Print each compiled function's modeled step time">,
    Option<"peakTflops", "peak-tflops", "double", /*default=*/"50",
           "Floating-point rate of one rank's device in the step model, "
           "TFLOP/s (50: an H100's f32 GEMMs as measured, bench/gpu_mlp.sh)">,
    Option<"memoryGbs", "memory-gbs", "double", /*default=*/"2000",
           "Memory bandwidth of one rank's device in the step model, GB/s">,
    Option<"devicesPerHost", "devices-per-host", "int64_t", /*default=*/"8",
           "Devices per host in the communication cost model">,
  ];
}

#endif // DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD
