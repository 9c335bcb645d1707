"""dtensor_mlir: dtensor-mlir from Python, in PyTorch DTensor's vocabulary.

    import numpy as np
    import dtensor_mlir as dm

    mesh = dm.DeviceMesh((2, 4), ("dp", "tp"))
    for shard in dm.layout(mesh, (9, 4), [dm.Shard(0), dm.Shard(0)]):
        print(shard.rank, shard.coord, shard.local_shape, shard.offset)

    plan = dm.plan_redistribute(mesh, (64, 64), [dm.Shard(0), dm.Replicate()],
                                [dm.Replicate(), dm.Shard(1)])
    print(plan.num_collectives, plan.bytes_per_rank, plan.steps)

    program = dm.Module.parse(open("mlp.mlir").read(), "mlp.mlir")
    compiled = program.compile("dtensor-compile")
    result = dm.run(program, compiled=compiled, inputs={1: np.ones((8, 16), np.float32)})
    result.verified                   # every rank of the compiled program matches
    result.outputs[0].full_tensor()   # the global value, a numpy array
    result.outputs[0].to_local()      # a LocalTensor: one array per rank
    result.report()                   # collectives by kind, like CommDebugMode

Errors raise DTensorError with the MLIR diagnostics (file:line:col: error: ...).
The native half is dtensor_mlir._core (nanobind over the C API, include/dtensor-c).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._core import DTensorError

__all__ = [
    "DTensorError", "DeviceMesh", "Shard", "Replicate", "Partial", "Placement",
    "ShardInfo", "layout", "Plan", "PlanStep", "plan_redistribute", "Module",
    "compile", "run", "RunResult", "Output", "LocalTensor", "rank_map",
]

# ---------------------------------------------------------------------------
# Meshes and placements
# ---------------------------------------------------------------------------


def _integer(value, what: str) -> int:
    """`value` as an int, or DTensorError (a float or a bool is no size, no
    dim: they were truncated or read as 1)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise DTensorError(f"{what} must be an integer, got {value!r}")
    return int(value)


class DeviceMesh:
    """A device mesh: its shape and dim names, ranks row-major over it."""

    def __init__(self, shape: Union[int, Sequence[int]],
                 mesh_dim_names: Optional[Sequence[str]] = None):
        if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
            shape = (shape,)
        if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
            raise DTensorError(f"a mesh's shape is a size or a sequence of sizes, got {shape!r}")
        shape = tuple(_integer(s, "a mesh size") for s in shape)
        if not shape or any(s <= 0 for s in shape):
            raise DTensorError(f"a mesh needs positive sizes, got {shape}")
        if mesh_dim_names is not None and len(mesh_dim_names) != len(shape):
            raise DTensorError(
                f"{len(mesh_dim_names)} names for a {len(shape)}-D mesh")
        if mesh_dim_names is not None and len(set(mesh_dim_names)) != len(mesh_dim_names):
            raise DTensorError(f"mesh dim names must be unique, got {tuple(mesh_dim_names)}")
        self.shape: Tuple[int, ...] = shape
        self.mesh_dim_names = tuple(mesh_dim_names) if mesh_dim_names else None

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def coordinate(self, rank: int) -> Tuple[int, ...]:
        rank = _integer(rank, "a rank")
        if not 0 <= rank < self.size():
            raise DTensorError(
                f"rank {rank} is not a rank of a mesh of {self.size()} ranks")
        coord = []
        for s in reversed(self.shape):
            coord.append(rank % s)
            rank //= s
        return tuple(reversed(coord))

    def __repr__(self) -> str:
        names = f", mesh_dim_names={self.mesh_dim_names}" if self.mesh_dim_names else ""
        return f"DeviceMesh({self.shape}{names})"


class Placement:
    """How a tensor lies along one mesh dim."""

    def spec(self) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.spec()

    def __eq__(self, other) -> bool:
        return isinstance(other, Placement) and self.spec() == other.spec()

    def __hash__(self) -> int:
        return hash(self.spec())


class Shard(Placement):
    """Shard(dim): split tensor dim `dim` into torch.chunk pieces. `order`
    places this mesh dim in the dim's shard order (0 = split first), as in
    DTensor's nested orders; None for the default (mesh dims left to right)."""

    def __init__(self, dim: int, order: Optional[int] = None):
        self.dim = _integer(dim, "Shard's dim")
        self.order = None if order is None else _integer(order, "Shard's order")

    def spec(self) -> str:
        return f"S({self.dim})" + (f"[{self.order}]" if self.order is not None else "")


class Replicate(Placement):
    """Replicate(): every rank holds the whole tensor."""

    def spec(self) -> str:
        return "R"


class Partial(Placement):
    """Partial(reduce_op): every rank holds a term; the value is their
    reduction (sum, avg, max, min, product)."""

    REDUCE_OPS = ("sum", "avg", "max", "min", "product")

    def __init__(self, reduce_op: str = "sum"):
        if reduce_op not in self.REDUCE_OPS:
            raise DTensorError(f"Partial's reduce_op is one of {', '.join(self.REDUCE_OPS)}, "
                               f"not {reduce_op!r}")
        self.reduce_op = reduce_op

    def spec(self) -> str:
        return f"P({self.reduce_op})"


def _placements_text(mesh: DeviceMesh, placements: Sequence[Placement]) -> str:
    placements = list(placements)
    if len(placements) != mesh.ndim:
        raise DTensorError(
            f"{len(placements)} placement(s) for a {mesh.ndim}-D mesh")
    for p in placements:
        if not isinstance(p, Placement):
            raise DTensorError(f"{p!r} is not a placement (Shard, Replicate, Partial)")
    return "[" + ", ".join(p.spec() for p in placements) + "]"


@dataclass
class ShardInfo:
    """The shard one rank holds: its local shape and global offset (a dim
    whose shard is empty reports the dim's global size as offset)."""
    rank: int
    coord: Tuple[int, ...]
    local_shape: Tuple[int, ...]
    offset: Tuple[int, ...]


def layout(mesh: DeviceMesh, shape: Sequence[int],
           placements: Sequence[Placement]) -> List[ShardInfo]:
    """Every rank's shard of a tensor of global `shape` under `placements`."""
    text = _placements_text(mesh, placements)
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        raise DTensorError(f"a shape is a sequence of sizes, got {shape!r}")
    shape = [_integer(n, "a size") for n in shape]
    if any(not 0 <= n < 2**63 for n in shape):
        raise DTensorError(f"sizes must be in [0, 2**63), got {tuple(shape)}")
    out = []
    for r in range(mesh.size()):
        local, offset = _core.local_shard(list(mesh.shape), [int(s) for s in shape],
                                          text, r)
        out.append(ShardInfo(r, mesh.coordinate(r), tuple(local), tuple(offset)))
    return out


@dataclass
class PlanStep:
    kind: str                # all_gather, all_reduce, reduce_scatter, all_to_all, local
    mesh_dims: List[int]
    from_dim: int
    to_dim: int
    reduce: str
    bytes_per_rank: int
    time_us: float
    before: str
    after: str


@dataclass
class Plan:
    """The cheapest redistribution plan, never more collectives or bytes than
    DTensor's greedy one."""
    steps: List[PlanStep]
    num_collectives: int
    bytes_per_rank: int
    time_us: float
    optimal: bool


_ELEMENT_BYTES = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "i1": 1, "i8": 1,
                  "i16": 2, "i32": 4, "i64": 8}


def plan_redistribute(mesh: DeviceMesh, shape: Sequence[int],
                      src: Sequence[Placement], dst: Sequence[Placement],
                      dtype: str = "f32", devices_per_host: int = 8) -> Plan:
    """How a tensor moves from placements `src` to `dst` (raises DTensorError
    for moves DTensor forbids, such as Shard -> Partial)."""
    if not isinstance(dtype, str) or dtype not in _ELEMENT_BYTES:
        raise DTensorError(f"unknown dtype {dtype!r} (one of {sorted(_ELEMENT_BYTES)})")
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        raise DTensorError(f"a shape is a sequence of sizes, got {shape!r}")
    shape = [_integer(n, "a size") for n in shape]
    if any(not 0 <= n < 2**63 for n in shape):
        raise DTensorError(f"sizes must be in [0, 2**63), got {tuple(shape)}")
    devices_per_host = _integer(devices_per_host, "devices_per_host")
    if not 0 < devices_per_host < 2**63:
        raise DTensorError(f"devices_per_host must be positive, got {devices_per_host}")
    src_text, dst_text = _placements_text(mesh, src), _placements_text(mesh, dst)
    d = _core.plan_redistribute(list(mesh.shape), shape, _ELEMENT_BYTES[dtype],
                                src_text, dst_text, devices_per_host)
    steps = [PlanStep(**s) for s in d["steps"]]
    # A step that turns a replicated dim into Partial(sum) divides by the
    # group size: no exact integer form (dtensor-compile and dtensor-plan
    # refuse it too).
    if dtype[0] == "i":
        for st in steps:
            before = _split_placements(st.before)
            after = _split_placements(st.after)
            if any(a == "P(sum)" and b == "R" for b, a in zip(before, after)):
                raise DTensorError(
                    f"cannot redistribute {src_text} to {dst_text} for {dtype}: "
                    "a Partial(sum) of an integer tensor cannot be made from a "
                    "replicated one (that divides by the group size)")
    return Plan(steps, d["num_collectives"], d["bytes_per_rank"], d["time_us"],
                d["optimal"])


def _split_placements(text: str) -> List[str]:
    """`[R, S(0)[1], P(sum)]` as its placements' texts."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    return [p.strip() for p in text.split(",") if p.strip()]


# ---------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------


class Module:
    """An MLIR module of the dtensor dialect (global view, or compiled per-rank
    view)."""

    def __init__(self, native: "_core.Module"):
        self._native = native

    @staticmethod
    def parse(text: str, name: str = "<string>") -> "Module":
        """Parses and verifies; raises DTensorError with the diagnostics."""
        if not isinstance(text, str) or not isinstance(name, str):
            raise DTensorError(f"Module.parse takes the program's text (a str), got "
                               f"{type(text).__name__}")
        return Module(_core.Module.parse(text, name))

    def compile(self, pipeline: str = "dtensor-compile") -> "Module":
        """A compiled copy: `pipeline` is a textual pass pipeline such as
        `dtensor-compile` or `dtensor-propagate,dtensor-partition`."""
        if not isinstance(pipeline, str):
            raise DTensorError(f"a pipeline is a str such as 'dtensor-compile', got {pipeline!r}")
        return Module(self._native.compile(pipeline))

    def to_cpp(self, cuda: bool = False) -> str:
        """The compiled program (the output of `compile`) as one C++
        translation unit over the runtime, as `dtensor-translate
        --dtensor-to-cpp` writes it; with `cuda=True` the CUDA C++ of
        `--dtensor-to-cuda`. Build it with `dtensor-build`. Raises
        DTensorError at the op for a global-view module or an op the
        emitter does not support (docs/CodeGen.md); the module is not
        changed."""
        if not isinstance(cuda, (bool, np.bool_)):
            raise DTensorError(f"cuda must be True or False, got {cuda!r}")
        return self._native.to_cpp(bool(cuda))

    def __str__(self) -> str:
        return str(self._native)


def compile(program: Union[str, Module], pipeline: str = "dtensor-compile",
            name: str = "<string>") -> Module:
    """Compiles a module (text or Module) with a pass pipeline."""
    if isinstance(program, str):
        program = Module.parse(program, name)
    return program.compile(pipeline)


class LocalTensor:
    """One array per rank, as in LocalTensor: `local_tensors[rank]`."""

    def __init__(self, local_tensors: Dict[int, np.ndarray]):
        self.local_tensors = dict(local_tensors)

    def reconcile(self) -> np.ndarray:
        """The one array every rank holds; raises DTensorError when ranks
        differ."""
        ranks = sorted(self.local_tensors)
        if not ranks:
            raise DTensorError("cannot reconcile: the LocalTensor holds no rank")
        first = np.asarray(self.local_tensors[ranks[0]])
        # (NaNs at the same places are the same value.)
        nan = first.dtype.kind in "fc"
        for r in ranks[1:]:
            other = np.asarray(self.local_tensors[r])
            if other.shape != first.shape or other.dtype != first.dtype or \
                    not np.array_equal(other, first, equal_nan=nan):
                raise DTensorError(
                    f"cannot reconcile: rank {r} holds another value than rank {ranks[0]}")
        return first

    def tensor_map(self, fn: Callable[[int, np.ndarray], np.ndarray]) -> "LocalTensor":
        """fn(rank, array) on every rank."""
        return LocalTensor({r: fn(r, t) for r, t in self.local_tensors.items()})

    def __repr__(self) -> str:
        shapes = {r: t.shape for r, t in sorted(self.local_tensors.items())}
        return f"LocalTensor({shapes})"


def rank_map(mesh: Union[DeviceMesh, int], fn: Callable[[int], np.ndarray]) -> LocalTensor:
    """A LocalTensor whose rank r holds fn(r) (per-rank inputs)."""
    n = mesh.size() if isinstance(mesh, DeviceMesh) else _integer(mesh, "a number of ranks")
    if n <= 0:
        raise DTensorError(f"rank_map needs a positive number of ranks, got {n}")
    return LocalTensor({r: np.asarray(fn(r), order="C") for r in range(n)})


class Output:
    """One output of a run, DTensor-like: per-rank local values and, where it
    is defined, the global value."""

    def __init__(self, locals_: List[Optional[np.ndarray]], global_: Optional[np.ndarray],
                 spec: str):
        self._locals = locals_
        self._global = global_
        self.spec = spec or None

    @property
    def placements(self) -> Optional[str]:
        """The placements part of the spec (`[S(0), R]`), or None."""
        if not self.spec:
            return None
        start = self.spec.find("[")
        return self.spec[start:self.spec.rfind("]") + 1] if start >= 0 else None

    def to_local(self) -> LocalTensor:
        return LocalTensor({r: t for r, t in enumerate(self._locals) if t is not None})

    def full_tensor(self) -> np.ndarray:
        """The global value (Partial terms reduced, shards assembled): a new
        array each call, as DTensor's full_tensor() makes a new tensor (the
        same array returned twice let a write change the next call's)."""
        if self._global is None:
            raise DTensorError("this output differs across ranks and has no spec "
                               "relating the ranks: use to_local()")
        return self._global.copy()

    def __repr__(self) -> str:
        g = None if self._global is None else self._global.shape
        return f"Output(spec={self.spec}, global_shape={g}, ranks={len(self._locals)})"


class RunResult:
    """What a run gave: outputs of the program (and of the compiled program),
    mismatches between them, the communication report."""

    def __init__(self, native: "_core.RunResult"):
        self._native = native
        self.num_ranks: int = native.ranks
        self.outputs = [Output(l, g, s) for l, g, s in
                        zip(native.locals, native.globals, native.specs)]
        self.compiled_outputs = [Output(l, g, s) for l, g, s in
                                 zip(native.compiled_locals, native.compiled_globals,
                                     native.compiled_specs)]
        self.mismatches: List[str] = list(native.mismatches)

    @property
    def verified(self) -> bool:
        """Whether a compiled program ran and matched on every rank."""
        return self._native.has_compiled and not self.mismatches

    def report(self) -> dict:
        """Collectives by kind (count, bytes, mesh dims) and totals, of the
        compiled run when there is one."""
        return json.loads(self._native.report_json)

    def report_text(self) -> str:
        return self._native.report_text


def run(program: Union[str, Module], *, compiled: Optional[Module] = None,
        pipeline: Optional[str] = None, entry: str = "",
        inputs: Optional[Dict[int, Union[np.ndarray, LocalTensor]]] = None,
        seed: int = 0) -> RunResult:
    """Runs `entry` of `program` on every rank of its mesh in one process.

    inputs maps argument positions to global numpy arrays (a distributed
    argument's global value) or to LocalTensors (one array per rank, for
    arguments without a spec); arguments not given are random from `seed`.
    With `compiled` (or `pipeline`, to compile here), the compiled program runs
    on each rank's shards too and every output is compared."""
    if isinstance(program, str):
        program = Module.parse(program)
    if not isinstance(program, Module):
        raise DTensorError(f"run takes a Module or its text, got {type(program).__name__}")
    if compiled is not None and not isinstance(compiled, Module):
        raise DTensorError(f"compiled must be a Module, got {type(compiled).__name__}")
    if compiled is not None and pipeline:
        raise DTensorError("give compiled or pipeline, not both (the pipeline would be ignored)")
    if not isinstance(entry, str):
        raise DTensorError(f"entry is a function's name (a str; '' for the only one), got {entry!r}")
    if inputs is not None and not isinstance(inputs, dict):
        raise DTensorError("inputs maps argument positions to arrays (a dict), got "
                           f"{type(inputs).__name__}")
    if compiled is None and pipeline:
        compiled = program.compile(pipeline)
    if not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**32:
        raise DTensorError(f"seed must be an integer in [0, 2**32), got {seed!r}")

    def array(index, value):
        # What the native run takes: a C-ordered, writable array in the
        # machine's byte order (it only reads it); object arrays are no tensor.
        a = np.asarray(value, order="C")
        if a.dtype.kind == "O":
            raise DTensorError(f"input {index}: an array of Python objects is no tensor "
                               "(give a numeric dtype)")
        if a.dtype.kind not in "biufc":
            raise DTensorError(f"input {index}: unsupported numpy dtype {a.dtype} "
                               "(give a bool, integer or float array)")
        if a.dtype.kind == "f" and a.dtype.itemsize > 8:
            raise DTensorError(f"input {index}: unsupported numpy dtype {a.dtype} "
                               "(no program element type is wider than f64)")
        if not a.dtype.isnative:
            a = a.astype(a.dtype.newbyteorder("="))
        if not a.flags.writeable:
            a = a.copy()
        return a

    globals_, per_rank = {}, {}
    for index, value in (inputs or {}).items():
        if not isinstance(index, (int, np.integer)) or not 0 <= int(index) < 2**31:
            raise DTensorError(f"input {index!r}: not an argument position")
        if isinstance(value, LocalTensor):
            ranks = sorted(value.local_tensors)
            if not ranks:
                raise DTensorError(f"input {index}: a LocalTensor holds no rank")
            if ranks != list(range(len(ranks))):
                raise DTensorError(f"input {index}: a LocalTensor needs ranks 0..n-1")
            per_rank[int(index)] = [array(index, value.local_tensors[r]) for r in ranks]
        else:
            globals_[int(index)] = array(index, value)  # (ascontiguousarray makes 0-d arrays 1-d)
    native = _core.run(program._native, compiled._native if compiled else None,
                       entry, globals_, per_rank, int(seed))
    return RunResult(native)
