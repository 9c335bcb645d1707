//===- Interpreter.h - run dtensor programs on N simulated ranks -*- C++ -*-===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// A LocalTensor-style interpreter: one process holds every rank's value. An
// op whose operands are the same on every rank runs once (a "uniform"
// value); an op with rank-dependent operands runs once per rank; collectives
// compute exactly over each group of each mesh dim. Global-view programs hold
// a distributed value as its logical global tensor plus its spec; local-view
// programs hold one buffer per rank, whose sizes may differ.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_INTERPRETER_INTERPRETER_H
#define DTENSOR_INTERPRETER_INTERPRETER_H

#include "dtensor/Dialect/DTensor/IR/DTensor.h"
#include "dtensor/Interpreter/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

namespace mlir {
namespace dtensor {
namespace interp {

/// A distributed tensor of the global view: the logical value and its spec.
struct DistTensor {
  Tensor global;
  SpecAttr spec;
  Layout layout;
  /// A Partial value's terms, when they are not R -> P's (from_local's
  /// per-rank terms, S(d) -> P(sum)'s zero-padded shards, and what
  /// redistribute makes of them): one global-shaped tensor per coordinate
  /// of the layout's Partial mesh dims (row-major over those dims), whose
  /// reduction is `global`. Rank r's local is its box of the term of its
  /// coordinates, as LocalTensor holds it. Null: R -> P's terms of `global`.
  std::shared_ptr<const std::vector<Tensor>> terms;
};

/// What an SSA value holds on one rank.
struct RValue {
  enum class Kind : uint8_t { Empty, Tensor, Int, Float, Mesh, Future, Dist };
  Kind kind = Kind::Empty;
  interp::Tensor tensor; // Tensor, Future, and Dist (its global tensor)
  int64_t i = 0;         // Int (integers, index, i1)
  double f = 0;          // Float
  std::shared_ptr<DistTensor> dist;

  static RValue ofTensor(interp::Tensor t) {
    RValue v;
    v.kind = Kind::Tensor;
    v.tensor = std::move(t);
    return v;
  }
  static RValue ofInt(int64_t x) {
    RValue v;
    v.kind = Kind::Int;
    v.i = x;
    return v;
  }
  static RValue ofFloat(double x) {
    RValue v;
    v.kind = Kind::Float;
    v.f = x;
    return v;
  }
};

/// An SSA value across ranks: one RValue shared by all ranks (uniform) or
/// one per rank.
struct MValue {
  bool uniform = true;
  std::vector<RValue> values;

  static MValue same(RValue v) { return {true, {std::move(v)}}; }
  const RValue &on(int64_t rank) const {
    return uniform ? values[0] : values[rank];
  }
};

/// One kind of collective, as the communication report counts it.
struct CommStat {
  int64_t count = 0;
  int64_t bytes = 0;
  /// Distinct groups used, as mesh dim lists, each with the mesh symbol
  /// they are dims of (`meshes[i]` for `meshDims[i]`).
  std::vector<std::vector<int64_t>> meshDims;
  std::vector<std::string> meshes;
};

/// What ran: collectives by kind, like CommDebugMode.
struct CommReport {
  std::map<std::string, CommStat> byKind;
  /// Each mesh's dim names. With several meshes, groups are printed with
  /// the mesh they belong to (`@flat["x"]`).
  std::map<std::string, std::vector<std::string>> meshDimNames;
  void print(llvm::raw_ostream &os) const;
  void printJson(llvm::raw_ostream &os) const;
};

/// One event of the optional Chrome trace.
struct TraceEvent {
  std::string name;
  double startUs, durationUs;
  bool collective;
  /// The rank the event belongs to, or -1 for an op that ran once for all.
  int64_t rank = -1;
};

class Interpreter {
public:
  /// Interprets functions of `module`; the ranks are those of its meshes.
  /// Several meshes are several arrangements of one world of ranks (as
  /// DTensor's `init_device_mesh` called twice over the same processes), so
  /// each must have as many ranks; run() says so at the mesh op otherwise.
  explicit Interpreter(ModuleOp module);

  /// Runs `entry` on `args` (one per function argument; mesh handles may be
  /// given as empty values). Fails with a diagnostic at the op that failed.
  LogicalResult run(func::FuncOp entry, std::vector<MValue> args,
                    std::vector<MValue> &results);

  int64_t numRanks() const { return meshSize(meshShape); }
  /// The shape of mesh `name` (declared in the module; the verifier saw to
  /// that), or of the mesh a handle of type `!dtensor.device_mesh<@name..>`
  /// belongs to.
  const Shape &meshShapeOf(StringRef name) const;
  const Shape &meshShapeOf(Value handle) const;
  CommReport &report() { return comm; }
  /// Events of the last run, when tracing was enabled.
  std::vector<TraceEvent> &trace() { return events; }
  void enableTrace(bool on) { tracing = on; }
  /// The most iterations one execution of an scf.for or scf.while may run
  /// (0, the default: no limit). A loop that would run more is an error at
  /// the loop: a bound for programs that may not terminate (a while loop
  /// whose condition never turns false on the inputs given).
  void setMaxLoopIterations(int64_t n) { maxLoopIterations = n; }
  int64_t getMaxLoopIterations() const { return maxLoopIterations; }
  /// Called after every op has run (to show values as they are computed).
  void setObserver(std::function<void(Operation *)> fn) {
    observer = std::move(fn);
  }

  /// The local shard each rank holds of the global tensor `global` under a
  /// spec (Partial dims split as DTensor does when going from R to P).
  /// Ranks holding the same shard (replicas) share its storage, so memory
  /// grows with the shards, not with ranks times the global tensor. Fails
  /// with a message when a shard cannot be held.
  std::optional<MValue> shardsOf(const Tensor &global, const Layout &layout,
                                 const Placements &placements,
                                 std::string &error) const;
  /// The logical global tensor of per-rank shards `local` under `layout`
  /// (replicas from coordinate 0, Partial terms reduced). Fails with a
  /// message when a rank's shard has the wrong shape.
  std::optional<Tensor> assemble(const MValue &local, const Layout &layout,
                                 DType dtype, const Shape &global,
                                 std::string &error) const;

  /// The Partial terms (DistTensor::terms) of a value whose ranks hold
  /// `local` under `layout`, which has Partial mesh dims of one reduction;
  /// `global` is their reduction (assemble).
  std::optional<std::vector<Tensor>>
  termsFromLocals(const MValue &local, const Layout &layout,
                  const Tensor &global, std::string &error) const;
  /// The terms of `d` in `target`'s layout, as DTensor's redistribute makes
  /// them: Partial dims that stay keep their terms, those that go are
  /// reduced, new ones take R -> P's terms or S(d) -> P(sum)'s zero-padded
  /// shards. Null when `target` has no Partial dims or its terms are R ->
  /// P's (also when the reductions of the dims differ, which is kept
  /// logical only).
  std::optional<std::shared_ptr<const std::vector<Tensor>>>
  redistributeTerms(const DistTensor &d, const Layout &target,
                    std::string &error) const;
  /// The terms of `d` redistributed to `target` as the compiled program
  /// makes them: redistributeTerms along the planner's steps (default cost
  /// model), which differ from the direct transition only where R -> P (our
  /// extension) leaves a choice; the direct one if there is no plan.
  std::optional<std::shared_ptr<const std::vector<Tensor>>>
  plannedTerms(const DistTensor &d, const Layout &target,
               std::string &error) const;
  /// Every rank's local tensor of `d` viewed in `layout` (to_local,
  /// local_map's inputs): its terms where it has them, else the shards of
  /// the logical value.
  std::optional<MValue> localsOf(const DistTensor &d, const Layout &layout,
                                 std::string &error) const;

  /// Resolves a spec on its mesh view (a whole mesh, a sub-mesh or a
  /// flattened view): the layout over the view's shape.
  FailureOr<Layout> layoutOf(RankedTensorType type, Operation *at);

  /// The groups of world ranks a spec's mesh view makes: `groups[g][v]` is
  /// the rank at view rank v of group g (meshGroups over the view's mesh
  /// dims). A spec on a whole mesh makes one group of every rank, in order.
  /// In the global view a value on a sub-mesh is one logical tensor per
  /// group (each group holds its own DTensor, as each process group does in
  /// DTensor), so a rank's RValue holds its group's instance.
  using Groups = std::vector<std::vector<int64_t>>;
  const Groups &groupsOf(SpecAttr spec) const;
  /// Group `group`'s values of the per-world-rank `world`, by view rank.
  static MValue gatherGroup(const MValue &world,
                            const std::vector<int64_t> &group);
  /// Writes a group's per-view-rank `view` into the per-world-rank `world`
  /// (made per rank, with one value per world rank, first).
  void scatterGroup(MValue &world, const std::vector<int64_t> &group,
                    const MValue &view) const;
  /// Every rank's shard of its group's logical value of the distributed
  /// `v` (shardsOf per group, in the value's own layout).
  std::optional<MValue> shardsOfDist(const MValue &v, std::string &error) const;

  using Kernel = std::function<LogicalResult(Interpreter &, Operation *)>;

  // Used by kernels.
  const MValue &lookup(Value v) const { return env.find(v)->second; }
  void bind(Value v, MValue m) { env[v] = std::move(m); }
  /// Runs an element-wise arith/math op on tensors as the linalg.generic
  /// that applies it per element (made for the run in a module of the
  /// interpreter's own): every op linalg bodies run runs on tensors, with
  /// the bodies' rounding and wrapping.
  LogicalResult runElementwise(Operation *op);
  /// Whether `op` is the last op to read its operand `i` (the value is
  /// released right after `op`) and reads it through no other operand.
  bool isLastUse(Operation *op, unsigned i);
  /// The tensor operand `i` of `op` holds on `rank`, moved out of the
  /// environment when `op` may write it in place instead of copying it: it is
  /// the value's last use and no handle outside it shares its storage.
  /// `once` says the op runs once for all ranks (runsOnce); otherwise a
  /// tensor several ranks share is never taken. std::nullopt when the op
  /// must copy.
  std::optional<Tensor> takeForUpdate(Operation *op, unsigned i, int64_t rank,
                                      bool once);
  /// Whether `op` computes the same on every rank, so it runs once and the
  /// ranks share its results: every operand, and every value of `extra` (a
  /// linalg body's captures), is the same on all ranks (sameOnAllRanks).
  bool runsOnce(Operation *op, ValueRange extra = {}) const;
  /// Whether `m` is the same on every rank: uniform, or one value per rank
  /// that is the same tensor (a collective's result is one tensor shared by
  /// its group, and so are the results of ops that ran once) or scalar.
  bool sameOnAllRanks(const MValue &m) const;
  /// Runs `fn(r)` for every rank r in [0, n). With `parallel`, more than one
  /// rank thread (setRankThreads) and a context that allows threads, the
  /// ranks run on a thread pool, each BLAS call single-threaded; `fn` must
  /// then touch only rank r's state. Diagnostics come out as a serial run
  /// prints them: those of the ranks before the first failing one, then its
  /// own, in rank order. Stops at the first failing rank.
  LogicalResult forEachRank(int64_t n, bool parallel,
                            llvm::function_ref<LogicalResult(int64_t)> fn);
  LogicalResult callFunction(func::FuncOp fn, std::vector<MValue> args,
                             std::vector<MValue> &results);
  /// Runs the entry block of `region` with `args`; `results` are the
  /// operands of its terminator (return, yield, condition).
  LogicalResult runRegion(Region &region, std::vector<MValue> args,
                          std::vector<MValue> &results);
  ModuleOp getModule() { return module; }
  SymbolTableCollection &symbols() { return symbolTable; }
  /// Whether `fn` is being run (a call of it now would recurse).
  bool isRunning(func::FuncOp fn) const { return running.contains(fn); }

private:
  LogicalResult runBlock(Block &block, std::vector<MValue> &results);
  /// Finds, once per block, the op after which each value defined in the
  /// block is dead (its last user, or the op that nests it).
  void analyzeLiveness(Block &block);

  ModuleOp module;
  /// The world: the first mesh's shape ([1] without meshes); every mesh has
  /// as many ranks.
  Shape meshShape;
  llvm::StringMap<Shape> meshShapes;
  /// groupsOf's answers, by mesh view.
  mutable std::map<std::tuple<std::string, std::vector<int64_t>, bool>, Groups>
      viewGroups;
  mutable std::mutex viewGroupsMutex;
  SymbolTableCollection symbolTable;
  llvm::DenseMap<Value, MValue> env;
  /// Liveness: the values to release after each op, and each value's last
  /// user in its block. Without releasing, every intermediate of a run stays
  /// alive to its end, and a chain of per-rank updates (the insert_slice
  /// chain of an uneven all_gather) holds ranks x steps full-size copies.
  llvm::DenseSet<Block *> analyzedBlocks;
  llvm::DenseMap<Operation *, llvm::SmallVector<Value, 2>> releaseAfter;
  llvm::DenseMap<Value, Operation *> lastUser;
  llvm::StringMap<Kernel> kernels;
  /// Where runElementwise makes its function (one at a time).
  OwningOpRef<ModuleOp> scratch;
  CommReport comm;
  bool tracing = false;
  int64_t maxLoopIterations = 0;
  std::function<void(Operation *)> observer;
  std::vector<TraceEvent> events;
  /// The functions on the call stack: values live in one environment, so
  /// a function cannot run inside itself.
  llvm::SmallPtrSet<Operation *, 8> running;
};

/// How many threads run the ranks of an op at once (1: one after another);
/// 0 picks the machine's hardware threads, the default.
void setRankThreads(unsigned threads);
unsigned getRankThreads();

/// Splits [0, n) into at most one chunk per rank thread, none smaller than
/// `grain`, and runs `fn(begin, end)` for each on the rank threads (each
/// BLAS call single-threaded); serially when called from a rank thread or
/// with one thread. For work that cannot fail: tiles of one kernel.
void parallelChunks(int64_t n, int64_t grain,
                    llvm::function_ref<void(int64_t, int64_t)> fn);

/// Whether running `op` per rank on threads pays (its tensors are large
/// enough) and its kernel keeps to each rank's own values.
bool worthThreads(Interpreter &I, Operation *op);

/// Converts an MLIR element type; std::nullopt when unsupported.
std::optional<DType> dtypeOf(Type type);

/// Reports at `op` that a tensor it makes on `rank` cannot be held; `why` is
/// Tensor::create's message (the tensor's shape, type and size).
InFlightDiagnostic emitCannotHold(Operation *op, int64_t rank,
                                  llvm::StringRef why);

} // namespace interp
} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_INTERPRETER_INTERPRETER_H
