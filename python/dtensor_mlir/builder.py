"""dtensor_mlir.builder: global-view programs built from Python, no MLIR text.

    import dtensor_mlir as dm
    from dtensor_mlir.builder import ProgramBuilder

    mesh = dm.DeviceMesh((2, 2), ("dp", "tp"))
    b = ProgramBuilder(mesh)
    with b.function("mlp") as f:
        x = f.argument((8, 16), "f32", [dm.Shard(0), dm.Replicate()], name="x")
        w1 = f.argument((16, 32), "f32", [dm.Replicate(), dm.Shard(1)])
        w2 = f.argument((32, 16), "f32", [dm.Replicate(), dm.Shard(0)])
        y = f.matmul(f.relu(f.matmul(x, w1)), w2)       # or x @ w1 ...
        f.returns(f.redistribute(y, [dm.Shard(0), dm.Replicate()]))
    module = b.build()                 # a dm.Module, parsed and verified
    print(b.text())                    # the MLIR
    r = dm.run(module, compiled=module.compile(), inputs=b.inputs({x: ...}))

The program is DTensor's global view (docs/Compile.md): arguments carry
placements (or none: a plain tensor every rank holds whole), compute ops take
and give global tensors, and propagation decides every layout in between. The
DTensor API ops (redistribute, distribute_tensor, hint, full_tensor,
to_local, from_local) fix layouts where the user wants them.

Every value knows its shape, dtype and placements, so each op checks its
operands in Python and raises DTensorError naming the op and the user's line
before any text exists; the text always parses and verifies. Each op's MLIR
location is the user's file and line (and column), so compiler diagnostics
point into the user's code.

Compute ops lower as the PyTorch importer (dtensor_mlir.torch) lowers the
ATen ops: element-wise ops and reductions as linalg.generic, matmul and
batch_matmul on a zero fill, linalg.transpose, linalg.softmax,
tensor.collapse_shape / expand_shape for reshapes.
"""

from __future__ import annotations

import math
import os
import re
import sys
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from ._text import float_literal, is_float
from . import (DeviceMesh, DTensorError, Module, Partial, Placement, Replicate, Shard,
               layout as _layout)

__all__ = ["ProgramBuilder", "FunctionBuilder", "Value", "DTYPES"]

# ---------------------------------------------------------------------------
# Element types
# ---------------------------------------------------------------------------

#: The element types a builder accepts (MLIR spelling).
DTYPES = ("f32", "f64", "f16", "bf16", "i32", "i64")

_ALIASES = {
    "float32": "f32", "float": "f32", "float64": "f64", "double": "f64",
    "float16": "f16", "half": "f16", "bfloat16": "bf16",
    "int32": "i32", "int64": "i64", "long": "i64",
}
_BYTES = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "i32": 4, "i64": 8}
_INT_RANGE = {"i32": (-(2 ** 31), 2 ** 31 - 1), "i64": (-(2 ** 63), 2 ** 63 - 1)}
_FLOAT_WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
_NUMPY = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
          "i32": np.int32, "i64": np.int64}
_REDUCE_OPS = ("sum", "avg", "max", "min", "product")
_INT64_MAX = 2 ** 63 - 1


_is_float = is_float
_float_literal = float_literal


def _tensor_type(shape: Sequence[int], dtype: str, spec: str = "") -> str:
    body = "".join(f"{d}x" for d in shape) + dtype
    return f"tensor<{body}, {spec}>" if spec else f"tensor<{body}>"


def _dims(items: Iterable) -> str:
    return "[" + ", ".join(str(i) for i in items) + "]"


# ---------------------------------------------------------------------------
# Locations: the user's frame
# ---------------------------------------------------------------------------

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _user_frame() -> Tuple[str, int, int]:
    """(file, line, column) of the innermost frame outside this package."""
    frame = sys._getframe(1)
    while frame is not None and \
            os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return "<unknown>", 0, 0
    line, col = frame.f_lineno, 0
    try:
        positions = frame.f_code.co_positions()  # Python 3.11+
        for i, pos in enumerate(positions):
            if i == frame.f_lasti // 2:
                if pos[0] == line and pos[2] is not None:
                    col = pos[2]
                break
    except (AttributeError, ValueError):
        pass
    return frame.f_code.co_filename, line, col + 1


def _loc_text(where: Tuple[str, int, int]) -> str:
    path = where[0].replace("\\", "\\\\").replace('"', '\\"')
    return f'loc("{path}":{where[1]}:{where[2]})'


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------


class Value:
    """A tensor of a function being built: global shape, dtype and, for a
    distributed value, its placements (None: a plain tensor, whose layout
    propagation decides when it is computed from distributed values).

    Python operators build ops on the value's function: `x + y`, `x - 1.0`,
    `x * y`, `x / y`, `-x`, `x @ w`."""

    __slots__ = ("_fn", "_name", "shape", "dtype", "placements", "_dist", "_local",
                 "_position")

    def __init__(self, fn: "FunctionBuilder", name: str, shape: Tuple[int, ...], dtype: str,
                 placements: Optional[Tuple[Placement, ...]] = None, *, dist: bool = False,
                 local: bool = False, position: Optional[int] = None):
        self._fn = fn
        self._name = name
        self.shape: Tuple[int, ...] = tuple(shape)
        self.dtype: str = dtype
        self.placements: Optional[Tuple[Placement, ...]] = \
            tuple(placements) if placements is not None else None
        # dist: a DTensor (placements) or computed from one; local: a rank's
        # own tensor (to_local), different on every rank. DTensor rejects
        # ops that mix the two, and so does the builder.
        self._dist = dist or placements is not None
        self._local = local
        self._position = position

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def is_distributed(self) -> bool:
        """Whether the value's type carries placements."""
        return self.placements is not None

    @property
    def position(self) -> Optional[int]:
        """For an argument: its position in the function's signature, as
        dm.run's `inputs` counts them (position 0 is the mesh)."""
        return self._position

    @property
    def function(self) -> str:
        return self._fn.name

    def _spec(self) -> str:
        if self.placements is None:
            return ""
        return "#dtensor.spec<@mesh, [" + ", ".join(p.spec() for p in self.placements) + "]>"

    @property
    def type(self) -> str:
        """The MLIR type, `tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>`."""
        return _tensor_type(self.shape, self.dtype, self._spec())

    def __repr__(self) -> str:
        p = f", placements={list(self.placements)}" if self.placements is not None else ""
        return f"Value({self._name} of @{self._fn.name}: {self.shape}, {self.dtype}{p})"

    # Operators: ops on this value's function.
    def __add__(self, other): return self._fn.add(self, other)
    def __radd__(self, other): return self._fn.add(other, self)
    def __sub__(self, other): return self._fn.sub(self, other)
    def __rsub__(self, other): return self._fn.sub(other, self)
    def __mul__(self, other): return self._fn.mul(self, other)
    def __rmul__(self, other): return self._fn.mul(other, self)
    def __truediv__(self, other): return self._fn.div(self, other)
    def __rtruediv__(self, other): return self._fn.div(other, self)
    def __neg__(self): return self._fn.neg(self)
    def __matmul__(self, other): return self._fn.matmul(self, other)

    @property
    def T(self) -> "Value":
        return self._fn.transpose(self)

    # Values are identities (for dicts such as ProgramBuilder.inputs), not
    # numbers to compare.
    __hash__ = object.__hash__

    def __eq__(self, other):
        return self is other

    def __bool__(self):
        raise DTensorError(f"{self._name}: a Value has no truth value (it is built, not computed)")


Operand = Union[Value, int, float]

# ---------------------------------------------------------------------------
# Scalar bodies of linalg.generic
# ---------------------------------------------------------------------------


class _Body:
    """Scalar ops in a linalg.generic body, in one element type. Names start
    with `_` so they never meet the function's names (MLIR forbids
    shadowing)."""

    def __init__(self, dtype: str, loc: str):
        self.dtype = dtype
        self.loc = loc
        self.lines: List[str] = []
        self.n = 0

    def v(self, text: str) -> str:
        self.n += 1
        name = f"%_s{self.n}"
        self.lines.append(f"{name} = {text} {self.loc}")
        return name

    def const(self, value, dtype: Optional[str] = None) -> str:
        dtype = dtype or self.dtype
        if _is_float(dtype):
            return self.v(f"arith.constant {_float_literal(float(value), dtype)} : {dtype}")
        return self.v(f"arith.constant {int(value)} : {dtype}")

    def bin(self, fop: str, iop: str, a: str, b: str) -> str:
        op = fop if _is_float(self.dtype) else iop
        return self.v(f"arith.{op} {a}, {b} : {self.dtype}")

    def un(self, op: str, a: str) -> str:
        return self.v(f"{op} {a} : {self.dtype}")


def _cast_op(src: str, dst: str) -> Optional[str]:
    if src == dst:
        return None
    if _is_float(src) and _is_float(dst):
        if {src, dst} == {"f16", "bf16"}:
            return "via f32"
        return "arith.extf" if _FLOAT_WIDTH[dst] > _FLOAT_WIDTH[src] else "arith.truncf"
    if _is_float(dst):
        return "arith.sitofp"
    if _is_float(src):
        return "arith.fptosi"
    return "arith.extsi" if dst == "i64" else "arith.trunci"


def _emit_cast(b: _Body, a: str, src: str, dst: str) -> str:
    op = _cast_op(src, dst)
    if op is None:
        return a
    if op == "via f32":
        mid = b.v(f"arith.extf {a} : {src} to f32")
        return b.v(f"arith.truncf {mid} : f32 to {dst}")
    return b.v(f"{op} {a} : {src} to {dst}")


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------


def _broadcast_shape(shapes: List[Tuple[int, ...]]) -> Optional[Tuple[int, ...]]:
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        sizes = {s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0}
        sizes.discard(1)
        if len(sizes) > 1:
            return None
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _view_groups(src: Tuple[int, ...], dst: Tuple[int, ...]
                 ) -> Optional[List[Tuple[List[int], List[int]]]]:
    """Pairs (src dims, dst dims) with equal products, in order, covering
    both shapes; None when there is none (then a reshape goes through 1-D).
    Every group has at least one dim on each side."""
    groups: List[Tuple[List[int], List[int]]] = []
    i = j = 0
    while i < len(src) and j < len(dst):
        gi, gj = [i], [j]
        pi, pj = src[i], dst[j]
        i += 1
        j += 1
        while pi != pj:
            if pi < pj and i < len(src):
                gi.append(i)
                pi *= src[i]
                i += 1
            elif pj < pi and j < len(dst):
                gj.append(j)
                pj *= dst[j]
                j += 1
            else:
                return None
        groups.append((gi, gj))
    # Leftover unit dims join the last group.
    if (i < len(src) and any(s != 1 for s in src[i:])) or \
            (j < len(dst) and any(d != 1 for d in dst[j:])):
        return None
    if not groups:
        return None
    groups[-1][0].extend(range(i, len(src)))
    groups[-1][1].extend(range(j, len(dst)))
    return groups


def _normalize_placements(mesh: DeviceMesh, rank: int, placements, fail
                          ) -> Tuple[Placement, ...]:
    """Checks placements against the mesh and a tensor's rank (`fail(why)`
    raises): one per mesh dim, shard dims in range (negative ones made
    non-negative), one Partial kind, shard orders all-or-none per dim and a
    permutation; orders equal to the default are dropped (the parser keeps
    one spelling per layout, and so do we)."""
    if isinstance(placements, Placement) or not isinstance(placements, (list, tuple)):
        fail(f"placements must be a list with one placement per mesh dim, "
             f"got {placements!r}")
    placements = list(placements)
    if len(placements) != mesh.ndim:
        fail(f"{len(placements)} placement(s) for a {mesh.ndim}-D mesh {mesh.shape}: "
             "give one per mesh dim")
    out: List[Placement] = []
    partial_kinds = set()
    for m, p in enumerate(placements):
        if isinstance(p, Shard):
            d = p.dim
            if not -rank <= d < rank:
                fail(f"Shard({d}) on mesh dim {m} is out of range for a {rank}-D tensor "
                     f"(dims {-rank}..{rank - 1})" if rank else
                     f"Shard({d}) on mesh dim {m}: a 0-D tensor cannot be sharded")
            if p.order is not None and (isinstance(p.order, bool) or
                                        not isinstance(p.order, int) or p.order < 0):
                fail(f"Shard({d}) has shard order {p.order!r}; orders are non-negative "
                     "integers")
            out.append(Shard(d % rank, p.order))
        elif isinstance(p, Replicate):
            out.append(Replicate())
        elif isinstance(p, Partial):
            if p.reduce_op not in _REDUCE_OPS:
                fail(f"Partial({p.reduce_op!r}) is not a reduction "
                     f"(one of {', '.join(_REDUCE_OPS)})")
            partial_kinds.add(p.reduce_op)
            out.append(Partial(p.reduce_op))
        else:
            fail(f"{p!r} is not a placement (Shard, Replicate, Partial)")
    if len(partial_kinds) > 1:
        fail(f"Partials of one kind only, got {', '.join(sorted(partial_kinds))}")
    for d in range(rank):
        on = [m for m, p in enumerate(out) if isinstance(p, Shard) and p.dim == d]
        orders = [out[m].order for m in on]
        if all(o is None for o in orders):
            continue
        if any(o is None for o in orders) or sorted(orders) != list(range(len(on))):
            fail(f"the shard orders of tensor dim {d} must be given on every mesh dim "
                 f"sharding it and be a permutation of 0..{len(on) - 1}, got {orders}")
        if orders == list(range(len(on))):
            for m in on:
                out[m] = Shard(d)
    return tuple(out)


def _placements_str(ps: Optional[Sequence[Placement]]) -> str:
    return "plain" if ps is None else "[" + ", ".join(p.spec() for p in ps) + "]"


# ---------------------------------------------------------------------------
# Functions
# ---------------------------------------------------------------------------


class FunctionBuilder:
    """One func.func of the program. Use it as a context manager (`with
    b.function("f") as f:`); its ops build ops of the function, and
    `returns(...)` gives its results. After the `with` block it is closed:
    other functions may `call` it, and nothing can be added to it."""

    def __init__(self, builder: "ProgramBuilder", name: str, private: Optional[bool],
                 where: Tuple[str, int, int]):
        self._b = builder
        self.name = name
        self._private = private
        self._where = where
        self._args: List[Tuple[Value, str]] = []      # (value, loc)
        self._lines: List[str] = []
        self._results: Optional[List[Value]] = None
        self._results_loc = ""
        self._closed = False
        self._counter = 0
        self._names = {"mesh"}
        self._called = False
        self._entered = False
        self._op: Optional[Tuple[str, Tuple[str, int, int]]] = None

    # -- the context manager ---------------------------------------------------
    def __enter__(self) -> "FunctionBuilder":
        self._entered = True
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is not None:
            # The user's error wins; the function is dropped.
            self._closed = True
            self._b._functions.pop(self.name, None)
            return False
        where = _user_frame()
        if self._results is None:
            self._closed = True
            self._b._functions.pop(self.name, None)
            raise DTensorError(f"{where[0]}:{where[1]}: function '{self.name}': the `with` "
                               f"block ended without f.returns(...)")
        self._closed = True
        return False

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def arguments(self) -> List[Value]:
        return [v for v, _ in self._args]

    @property
    def results(self) -> Optional[List[Value]]:
        return list(self._results) if self._results is not None else None

    # -- op plumbing -------------------------------------------------------------
    def _begin(self, op: str) -> bool:
        """Enters a user-facing op; False when already inside one (an op
        built from others keeps the outer op's name and location)."""
        if self._op is not None:
            return False
        where = _user_frame()
        if self._closed:
            raise DTensorError(self._message(op, f"function '{self.name}' is closed (its "
                                                 "`with` block ended, or it returned outside "
                                                 "one): ops go into an open function", where))
        if self._results is not None:
            raise DTensorError(self._message(op, f"function '{self.name}' already returned: "
                                                 "returns(...) is its last op", where))
        self._op = (op, where)
        return True

    @staticmethod
    def _message(op: str, why: str, where: Tuple[str, int, int]) -> str:
        return f"{where[0]}:{where[1]}: {op}: {why}"

    def _fail(self, why: str):
        op, where = self._op if self._op else ("builder", _user_frame())
        self._op = None
        raise DTensorError(self._message(op, why, where))

    @property
    def _loc(self) -> str:
        return _loc_text(self._op[1]) if self._op else ""

    def _fresh(self) -> str:
        name = f"%{self._counter}"
        self._counter += 1
        return name

    def _emit(self, text: str) -> None:
        self._lines.append(text + " " + self._loc)

    def _value(self, name, shape, dtype, placements=None, *, dist=False, local=False) -> Value:
        return Value(self, name, tuple(shape), dtype, placements, dist=dist, local=local)

    def _check(self, v, what: str = "operand") -> Value:
        if not isinstance(v, Value):
            self._fail(f"{what} must be a Value of this builder, got {type(v).__name__} {v!r}")
        if v._fn is not self:
            self._fail(f"{what} {v._name} belongs to function '{v._fn.name}', not to "
                       f"'{self.name}': values cannot cross functions (pass it as an "
                       "argument, or call the other function)")
        return v

    def _check_mix(self, values: Sequence[Value]) -> Tuple[bool, bool]:
        dist = any(v._dist for v in values)
        local = any(v._local for v in values)
        if dist and local:
            self._fail("mixes a local tensor (from to_local) with a distributed one, as "
                       "DTensor forbids: from_local the local one, or to_local the other")
        return dist, local

    def _dtype(self, dtype) -> str:
        return self._b._dtype(dtype, self._fail)

    def _shape(self, shape) -> Tuple[int, ...]:
        return self._b._shape(shape, self._fail)

    def _dim(self, v: Value, dim, what: str = "dim") -> int:
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
            self._fail(f"{what} must be an integer, got {dim!r}")
        r = v.ndim
        if not -r <= int(dim) < r:
            self._fail(f"{what} {dim} is out of range for a {r}-D tensor of shape {v.shape}")
        return int(dim) % r

    def _scalar(self, s, dtype: str) -> Union[int, float]:
        if isinstance(s, (bool, np.bool_)):
            s = int(s)
        if isinstance(s, (np.integer,)):
            s = int(s)
        if isinstance(s, np.floating):
            s = float(s)
        if isinstance(s, float):
            if not _is_float(dtype):
                self._fail(f"the float scalar {s!r} with an {dtype} tensor: cast the tensor to a "
                           "float dtype first (f.cast)")
            return s
        if isinstance(s, int):
            if not _is_float(dtype):
                lo, hi = _INT_RANGE[dtype]
                if not lo <= s <= hi:
                    self._fail(f"the scalar {s} does not fit in {dtype}")
            return s
        self._fail(f"expected a Value or a Python number, got {type(s).__name__} {s!r}")

    # Text pieces.
    def _empty(self, shape, dtype) -> str:
        n = self._fresh()
        self._emit(f"{n} = tensor.empty() : {_tensor_type(shape, dtype)}")
        return n

    def _fill(self, shape, dtype, value) -> str:
        c = self._fresh()
        lit = _float_literal(float(value), dtype) if _is_float(dtype) else str(int(value))
        self._emit(f"{c} = arith.constant {lit} : {dtype}")
        e = self._empty(shape, dtype)
        n = self._fresh()
        t = _tensor_type(shape, dtype)
        self._emit(f"{n} = linalg.fill ins({c} : {dtype}) outs({e} : {t}) -> {t}")
        return n

    def _generic(self, ins: List[Tuple[Value, List[int]]], nloops: int, out_shape,
                 out_dtype: str, out_map: List[int], reduce_dims: Sequence[int], body,
                 init: Optional[str] = None) -> str:
        """A linalg.generic over loops d0..d{n-1}: each input with the loops
        indexing its dims; `body(bb, args, out)` returns the yielded name."""
        loops = ", ".join(f"d{i}" for i in range(nloops))
        maps = [f"affine_map<({loops}) -> ({', '.join(f'd{i}' for i in m)})>" for _, m in ins]
        maps.append(f"affine_map<({loops}) -> ({', '.join(f'd{i}' for i in out_map)})>")
        out_t = _tensor_type(out_shape, out_dtype)
        out = init if init is not None else self._empty(out_shape, out_dtype)
        iters = ", ".join('"reduction"' if i in reduce_dims else '"parallel"'
                          for i in range(nloops))
        bb = _Body(out_dtype, self._loc)
        args = [f"%_a{k}" for k in range(len(ins))]
        result = body(bb, args, "%_o")
        block = ", ".join([f"{a}: {v.dtype}" for a, (v, _) in zip(args, ins)] +
                          [f"%_o: {out_dtype}"])
        ins_text = (f"ins({', '.join(v._name for v, _ in ins)} : "
                    f"{', '.join(v.type for v, _ in ins)}) ") if ins else ""
        n = self._fresh()
        self._lines.append(
            f"{n} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
            f"iterator_types = [{iters}]}}\n"
            f"    {ins_text}outs({out} : {out_t}) {{\n"
            f"  ^bb0({block}):\n" +
            "".join(f"    {l}\n" for l in bb.lines) +
            f"    linalg.yield {result} : {out_dtype} {self._loc}\n"
            f"  }} -> {out_t} {self._loc}")
        return n

    def _elementwise(self, operands: Sequence[Operand], fn,
                     out_dtype: Optional[str] = None, float_only: bool = False) -> Value:
        """An element-wise op with numpy broadcasting; Python numbers are
        constants in the body. fn(bb, *scalars) gives the result."""
        values = [self._check(o) for o in operands if isinstance(o, Value)]
        if not values:
            self._fail("needs at least one Value operand")
        dtypes = sorted({v.dtype for v in values})
        if len(dtypes) > 1:
            self._fail(f"operands have dtypes {' and '.join(dtypes)}: cast one with "
                       f"f.cast(x, dtype) first (no implicit promotion)")
        dtype = dtypes[0]
        if float_only and not _is_float(dtype):
            self._fail(f"needs a float tensor, got {dtype} (cast it with f.cast first)")
        dist, local = self._check_mix(values)
        shape = _broadcast_shape([v.shape for v in values])
        if shape is None:
            self._fail("shapes " + " and ".join(str(v.shape) for v in values) +
                       " do not broadcast (numpy rules: trailing dims equal or 1)")
        scalars = [None if isinstance(o, Value) else self._scalar(o, dtype) for o in operands]
        rank = len(shape)
        ins: List[Tuple[Value, List[int]]] = []
        refs = []
        for o, s in zip(operands, scalars):
            if isinstance(o, Value):
                v = self._broadcast_operand(o, shape)
                off = rank - o.ndim
                loops = [off + i for i in range(o.ndim) if o.shape[i] == shape[off + i]]
                refs.append(("arg", len(ins)))
                ins.append((v, loops))
            else:
                refs.append(("const", s))

        def body(bb, args, out):
            vals = [args[x] if k == "arg" else bb.const(x) for k, x in refs]
            return fn(bb, *vals)
        name = self._generic(ins, rank, shape, out_dtype or dtype, list(range(rank)), (), body)
        return self._value(name, shape, out_dtype or dtype, dist=dist, local=local)

    def _broadcast_operand(self, v: Value, shape: Tuple[int, ...]) -> Value:
        """`v` without the unit dims that broadcasting stretches (a rank-
        reducing collapse_shape), so its map names only real loops."""
        off = len(shape) - v.ndim
        keep = [i for i in range(v.ndim) if v.shape[i] == shape[off + i]]
        if len(keep) == v.ndim:
            return v
        groups: List[List[int]] = []
        pending: List[int] = []
        for d in range(v.ndim):
            if d in keep:
                groups.append(pending + [d])
                pending = []
            else:
                pending.append(d)
        if pending and groups:
            groups[-1].extend(pending)
        return self._collapse(v, groups, tuple(v.shape[d] for d in keep))

    def _collapse(self, v: Value, groups: List[List[int]], shape) -> Value:
        n = self._fresh()
        out = self._value(n, shape, v.dtype, dist=v._dist, local=v._local)
        g = "[" + ", ".join(_dims(x) for x in groups) + "]"
        self._emit(f"{n} = tensor.collapse_shape {v._name} {g} : {v.type} into {out.type}")
        return out

    def _expand(self, v: Value, groups: List[List[int]], shape) -> Value:
        n = self._fresh()
        out = self._value(n, shape, v.dtype, dist=v._dist, local=v._local)
        g = "[" + ", ".join(_dims(x) for x in groups) + "]"
        self._emit(f"{n} = tensor.expand_shape {v._name} {g} output_shape {_dims(shape)} : "
                   f"{v.type} into {out.type}")
        return out

    def _run(self, op: str, impl, *args, **kwargs):
        outer = self._begin(op)
        mark = (len(self._lines), self._counter)
        try:
            return impl(*args, **kwargs)
        except BaseException:
            if outer:
                # A failed op leaves nothing behind: the function can go on.
                del self._lines[mark[0]:]
                self._counter = mark[1]
            raise
        finally:
            if outer:
                self._op = None

    # -- arguments and results -----------------------------------------------------
    def argument(self, shape: Sequence[int], dtype="f32",
                 placements: Optional[Sequence[Placement]] = None, *,
                 name: Optional[str] = None) -> Value:
        """A function argument of global `shape`: distributed with
        `placements` (one per mesh dim), or a plain tensor (None) that every
        rank holds whole. Arguments come before any op."""
        def impl():
            if self._lines:
                self._fail("arguments come before the function's ops")
            shape_ = self._shape(shape)
            dtype_ = self._dtype(dtype)
            ps = None
            if placements is not None:
                ps = _normalize_placements(self._b.mesh, len(shape_), placements, self._fail)
            v = Value(self, "", shape_, dtype_, ps, position=len(self._args) + 1)
            self._b._check_size(v, self._fail)
            v._name = self._arg_name(name)
            self._args.append((v, self._loc))
            return v
        return self._run("argument", impl)

    def _arg_name(self, name: Optional[str]) -> str:
        if name is None:
            name = f"arg{len(self._args)}"
            while name in self._names:
                name += "_"
        elif not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
            self._fail(f"argument name {name!r} must be an identifier starting with a letter")
        if name in self._names:
            self._fail(f"argument name '{name}' is already taken in '{self.name}'")
        self._names.add(name)
        return f"%{name}"

    def returns(self, *values: Value) -> None:
        """The function's results (none, one or several), each with its own
        type: a distributed value returns in its placements, a plain one whole
        on every rank (propagation decides how it is computed). The last op;
        outside a `with` block it also closes the function."""
        def impl():
            vals = list(values[0]) if len(values) == 1 and isinstance(values[0], (list, tuple)) \
                else list(values)
            for i, v in enumerate(vals):
                self._check(v, f"result {i}")
            self._results = vals
            self._results_loc = self._loc
            if not self._entered:
                self._closed = True   # built without `with`: returns() ends it
        self._run("returns", impl)

    # -- element-wise ops ----------------------------------------------------------
    def add(self, a: Operand, b: Operand) -> Value:
        """a + b (numpy broadcasting; either may be a Python number)."""
        return self._run("add", self._elementwise, [a, b],
                         lambda bb, x, y: bb.bin("addf", "addi", x, y))

    def sub(self, a: Operand, b: Operand) -> Value:
        return self._run("sub", self._elementwise, [a, b],
                         lambda bb, x, y: bb.bin("subf", "subi", x, y))

    def mul(self, a: Operand, b: Operand) -> Value:
        return self._run("mul", self._elementwise, [a, b],
                         lambda bb, x, y: bb.bin("mulf", "muli", x, y))

    def div(self, a: Operand, b: Operand) -> Value:
        """a / b on float tensors (true division)."""
        return self._run("div", self._elementwise, [a, b],
                         lambda bb, x, y: bb.bin("divf", "divf", x, y), float_only=True)

    def maximum(self, a: Operand, b: Operand) -> Value:
        return self._run("maximum", self._elementwise, [a, b],
                         lambda bb, x, y: bb.bin("maximumf", "maxsi", x, y))

    def minimum(self, a: Operand, b: Operand) -> Value:
        return self._run("minimum", self._elementwise, [a, b],
                         lambda bb, x, y: bb.bin("minimumf", "minsi", x, y))

    def neg(self, x: Value) -> Value:
        def fn(bb, v):
            if _is_float(bb.dtype):
                return bb.un("arith.negf", v)
            return bb.bin("subf", "subi", bb.const(0), v)
        return self._run("neg", self._elementwise, [x], fn)

    def relu(self, x: Value) -> Value:
        return self._run("relu", self._elementwise, [x],
                         lambda bb, v: bb.bin("maximumf", "maxsi", v, bb.const(0)))

    def _math(self, op: str, x: Value, fn) -> Value:
        return self._run(op, self._elementwise, [x], fn, float_only=True)

    def exp(self, x: Value) -> Value:
        return self._math("exp", x, lambda bb, v: bb.un("math.exp", v))

    def log(self, x: Value) -> Value:
        return self._math("log", x, lambda bb, v: bb.un("math.log", v))

    def tanh(self, x: Value) -> Value:
        return self._math("tanh", x, lambda bb, v: bb.un("math.tanh", v))

    def sqrt(self, x: Value) -> Value:
        return self._math("sqrt", x, lambda bb, v: bb.un("math.sqrt", v))

    def rsqrt(self, x: Value) -> Value:
        return self._math("rsqrt", x, lambda bb, v: bb.un("math.rsqrt", v))

    def sigmoid(self, x: Value) -> Value:
        def fn(bb, v):
            e = bb.un("math.exp", bb.un("arith.negf", v))
            return bb.bin("divf", "divf", bb.const(1.0), bb.bin("addf", "addf", bb.const(1.0), e))
        return self._math("sigmoid", x, fn)

    def silu(self, x: Value) -> Value:
        """x * sigmoid(x)."""
        def fn(bb, v):
            e = bb.un("math.exp", bb.un("arith.negf", v))
            return bb.bin("divf", "divf", v, bb.bin("addf", "addf", bb.const(1.0), e))
        return self._math("silu", x, fn)

    def gelu(self, x: Value, approximate: str = "none") -> Value:
        """GELU as torch.nn.functional.gelu: exact (erf) by default,
        `approximate="tanh"` for the tanh approximation."""
        if approximate not in ("none", "tanh"):
            return self._run("gelu", self._fail_now,
                             f"approximate must be 'none' or 'tanh', got {approximate!r}")

        def fn(bb, v):
            half, one = bb.const(0.5), bb.const(1.0)
            if approximate == "tanh":
                v3 = bb.bin("mulf", "", bb.bin("mulf", "", v, v), v)
                inner = bb.bin("addf", "", v, bb.bin("mulf", "", bb.const(0.044715), v3))
                t = bb.un("math.tanh", bb.bin("mulf", "", bb.const(math.sqrt(2 / math.pi)), inner))
            else:
                t = bb.un("math.erf", bb.bin("mulf", "", v, bb.const(1 / math.sqrt(2))))
            return bb.bin("mulf", "", bb.bin("mulf", "", half, v), bb.bin("addf", "", one, t))
        return self._math("gelu", x, fn)

    def _fail_now(self, why: str):
        self._fail(why)

    def cast(self, x: Value, dtype) -> Value:
        """x converted to `dtype` (floats round, float to int truncates)."""
        def impl():
            v = self._check(x)
            dt = self._dtype(dtype)
            if dt == v.dtype:
                return v
            dist, local = self._check_mix([v])
            r = v.ndim
            name = self._generic([(v, list(range(r)))], r, v.shape, dt, list(range(r)), (),
                                 lambda bb, args, out: _emit_cast(bb, args[0], v.dtype, dt))
            return self._value(name, v.shape, dt, dist=dist, local=local)
        return self._run("cast", impl)

    # -- linear algebra ------------------------------------------------------------
    def matmul(self, a: Value, b: Value) -> Value:
        """a @ b: 2-D (m, k) @ (k, n), or batched 3-D (b, m, k) @ (b, k, n)."""
        return self._run("matmul", self._matmul, a, b, None)

    def bmm(self, a: Value, b: Value) -> Value:
        """Batched matmul of 3-D tensors (b, m, k) @ (b, k, n)."""
        return self._run("bmm", self._matmul, a, b, 3)

    def _matmul(self, a, b, want_rank):
        a, b = self._check(a, "lhs"), self._check(b, "rhs")
        if a.dtype != b.dtype:
            self._fail(f"operands have dtypes {a.dtype} and {b.dtype}: cast one with f.cast first")
        if a.ndim != b.ndim or a.ndim not in ((want_rank,) if want_rank else (2, 3)):
            ranks = "3-D" if want_rank == 3 else "2-D or both 3-D"
            self._fail(f"needs both operands {ranks}, got shapes {a.shape} and {b.shape}")
        if a.ndim == 3 and a.shape[0] != b.shape[0]:
            self._fail(f"batch sizes differ: {a.shape} and {b.shape}")
        if a.shape[-1] != b.shape[-2]:
            self._fail(f"contraction dims differ: {a.shape} @ {b.shape} "
                       f"({a.shape[-1]} != {b.shape[-2]})")
        dist, local = self._check_mix([a, b])
        shape = a.shape[:-1] + (b.shape[-1],)
        init = self._fill(shape, a.dtype, 0)
        n = self._fresh()
        op = "linalg.batch_matmul" if a.ndim == 3 else "linalg.matmul"
        t = _tensor_type(shape, a.dtype)
        self._emit(f"{n} = {op} ins({a._name}, {b._name} : {a.type}, {b.type}) "
                   f"outs({init} : {t}) -> {t}")
        return self._value(n, shape, a.dtype, dist=dist, local=local)

    def transpose(self, x: Value, perm: Optional[Sequence[int]] = None) -> Value:
        """The transpose of a 2-D tensor, or any permutation `perm` of dims."""
        def impl():
            v = self._check(x)
            if perm is None:
                if v.ndim != 2:
                    self._fail(f"without perm, needs a 2-D tensor, got shape {v.shape}")
                p = [1, 0]
            else:
                p = [self._dim(v, d, "perm entry") for d in perm]
                if sorted(p) != list(range(v.ndim)):
                    self._fail(f"perm {list(perm)} is not a permutation of the {v.ndim} dims")
            if p == list(range(v.ndim)):
                return v
            shape = tuple(v.shape[i] for i in p)
            e = self._empty(shape, v.dtype)
            n = self._fresh()
            self._emit(f"{n} = linalg.transpose ins({v._name} : {v.type}) "
                       f"outs({e} : {_tensor_type(shape, v.dtype)}) permutation = {_dims(p)}")
            return self._value(n, shape, v.dtype, dist=v._dist, local=v._local)
        return self._run("transpose", impl)

    # -- reductions ------------------------------------------------------------------
    def sum(self, x: Value, dim: int, keepdim: bool = False) -> Value:
        """The sum over `dim`."""
        return self._run("sum", self._reduce, x, dim, keepdim, "sum")

    def max(self, x: Value, dim: int, keepdim: bool = False) -> Value:
        """The maximum over `dim` (values only, as torch.amax)."""
        return self._run("max", self._reduce, x, dim, keepdim, "max")

    def min(self, x: Value, dim: int, keepdim: bool = False) -> Value:
        return self._run("min", self._reduce, x, dim, keepdim, "min")

    def mean(self, x: Value, dim: int, keepdim: bool = False) -> Value:
        """The mean over `dim` (float tensors)."""
        def impl():
            v = self._check(x)
            if not _is_float(v.dtype):
                self._fail(f"needs a float tensor, got {v.dtype} (cast it with f.cast first)")
            d = self._dim(v, dim)
            s = self._reduce(v, d, keepdim, "sum")
            count = v.shape[d]
            r = s.ndim
            name = self._generic([(s, list(range(r)))], r, s.shape, s.dtype, list(range(r)), (),
                                 # (torch: the mean over nothing is NaN)
                                 lambda bb, args, out: bb.bin("mulf", "", args[0],
                                                              bb.const(1.0 / count if count
                                                                       else float("nan"))))
            return self._value(name, s.shape, s.dtype, dist=s._dist, local=s._local)
        return self._run("mean", impl)

    def _reduce(self, x, dim, keepdim, kind) -> Value:
        v = self._check(x)
        if v.ndim == 0:
            self._fail("needs a tensor of rank 1 or more, got a 0-D tensor")
        d = self._dim(v, dim)
        if kind in ("max", "min") and v.shape[d] == 0:
            # (torch.amax / amin: "Expected reduction dim to have non-zero size")
            self._fail(f"a {kind} over dim {d} of size 0 has no value")
        r = v.ndim
        shape = tuple(s for i, s in enumerate(v.shape) if i != d)
        if _is_float(v.dtype):
            identity = {"sum": 0.0, "max": -math.inf, "min": math.inf}[kind]
        else:
            lo, hi = _INT_RANGE[v.dtype]
            identity = {"sum": 0, "max": lo, "min": hi}[kind]
        init = self._fill(shape, v.dtype, identity)
        fop, iop = {"sum": ("addf", "addi"), "max": ("maximumf", "maxsi"),
                    "min": ("minimumf", "minsi")}[kind]
        name = self._generic([(v, list(range(r)))], r, shape, v.dtype,
                             [i for i in range(r) if i != d], (d,),
                             lambda bb, args, out: bb.bin(fop, iop, args[0], out), init=init)
        out = self._value(name, shape, v.dtype, dist=v._dist, local=v._local)
        if keepdim:
            out = self._unsqueeze(out, d)
        return out

    def _unsqueeze(self, v: Value, d: int) -> Value:
        """`v` with a unit dim inserted at `d` (an expand_shape)."""
        shape = v.shape[:d] + (1,) + v.shape[d:]
        if v.ndim == 0:
            return self._expand(v, [], shape)
        groups = [[i if i < d else i + 1] for i in range(v.ndim)]
        if d == 0:
            groups[0].insert(0, 0)
        else:
            groups[d - 1].append(d)
        return self._expand(v, groups, shape)

    def softmax(self, x: Value, dim: int = -1) -> Value:
        """softmax over `dim` (the last by default): linalg.softmax."""
        def impl():
            v = self._check(x)
            if not _is_float(v.dtype):
                self._fail(f"needs a float tensor, got {v.dtype} (cast it with f.cast first)")
            if v.ndim == 0:
                self._fail("needs a tensor of rank 1 or more, got a 0-D tensor")
            d = self._dim(v, dim)
            e = self._empty(v.shape, v.dtype)
            n = self._fresh()
            t = _tensor_type(v.shape, v.dtype)
            self._emit(f"{n} = linalg.softmax dimension({d}) ins({v._name} : {v.type}) "
                       f"outs({e} : {t}) -> {t}")
            return self._value(n, v.shape, v.dtype, dist=v._dist, local=v._local)
        return self._run("softmax", impl)

    # -- shapes ------------------------------------------------------------------------
    def reshape(self, x: Value, shape: Sequence[int]) -> Value:
        """The same elements in another shape (row-major); one dim may be -1."""
        def impl():
            v = self._check(x)
            if isinstance(shape, (int, np.integer)):
                target = [int(shape)]
            else:
                target = list(shape) if isinstance(shape, (list, tuple)) else None
            if target is None or any(isinstance(s, bool) or not isinstance(s, (int, np.integer))
                                     for s in target):
                self._fail(f"the shape must be a sequence of integers, got {shape!r}")
            target = [int(s) for s in target]
            total = 1
            for s in v.shape:
                total *= s
            if target.count(-1) > 1:
                self._fail(f"at most one -1 in {tuple(target)}")
            if -1 in target:
                known = 1
                for s in target:
                    if s != -1:
                        known *= s
                if known == 0 or total % known:
                    self._fail(f"cannot infer the -1 of {tuple(target)} for {total} elements")
                target[target.index(-1)] = total // known
            new = self._shape(target)
            count = 1
            for s in new:
                count *= s
            if count != total:
                self._fail(f"cannot view shape {v.shape} ({total} elements) as {new} "
                           f"({count} elements)")
            return self._reshape_to(v, new)
        return self._run("reshape", impl)

    def _reshape_to(self, v: Value, shape: Tuple[int, ...]) -> Value:
        if shape == v.shape:
            return v
        if 0 in shape or 0 in v.shape:
            self._fail(f"reshapes of empty tensors ({v.shape} -> {shape}) are not supported")
        if v.ndim == 0:
            return self._expand(v, [], shape)
        if len(shape) == 0:
            return self._collapse(v, [], shape)
        groups = _view_groups(v.shape, shape)
        if groups is None:
            total = 1
            for s in v.shape:
                total *= s
            flat = self._collapse(v, [list(range(v.ndim))], (total,)) if v.ndim > 1 else v
            return self._expand(flat, [list(range(len(shape)))], shape) \
                if len(shape) > 1 else flat
        if all(len(gi) == 1 for gi, _ in groups):
            return self._expand(v, [gj for _, gj in groups], shape)
        if all(len(gj) == 1 for _, gj in groups):
            return self._collapse(v, [gi for gi, _ in groups], shape)
        mid = []
        for gi, _ in groups:
            p = 1
            for d in gi:
                p *= v.shape[d]
            mid.append(p)
        c = self._collapse(v, [gi for gi, _ in groups], tuple(mid))
        return self._expand(c, [gj for _, gj in groups], shape)

    # -- constants -----------------------------------------------------------------------
    def full(self, shape: Sequence[int], value: Union[int, float], dtype="f32") -> Value:
        """A plain tensor of `shape` filled with `value` (linalg.fill)."""
        def impl():
            shape_ = self._shape(shape)
            dt = self._dtype(dtype)
            val = self._scalar(value, dt)
            v = self._value(self._fill(shape_, dt, val), shape_, dt)
            self._b._check_size(v, self._fail)
            return v
        return self._run("full", impl)

    def zeros(self, shape: Sequence[int], dtype="f32") -> Value:
        return self._run("zeros", self.full, shape, 0, dtype)

    def ones(self, shape: Sequence[int], dtype="f32") -> Value:
        return self._run("ones", self.full, shape, 1, dtype)

    def constant(self, array, dtype=None) -> Value:
        """A plain tensor with the values of a numpy array (arith.constant
        dense). dtype defaults to the array's (f32, f64, f16, i32, i64)."""
        def impl():
            a = np.asarray(array)
            if dtype is None:
                names = {np.dtype(t): n for n, t in _NUMPY.items()}
                if a.dtype not in names:
                    self._fail(f"numpy dtype {a.dtype} has no counterpart: give dtype= "
                               f"(one of {', '.join(DTYPES)})")
                dt = names[a.dtype]
            else:
                dt = self._dtype(dtype)
            if a.dtype.kind not in "biuf":
                self._fail(f"numpy dtype {a.dtype} is not numeric")
            if _is_float(dt):
                flat = [float(x) for x in a.astype(np.float64).ravel()]
                if dt != "bf16":
                    flat = [float(x) for x in np.asarray(flat).astype(_NUMPY[dt]).ravel()]
                lit = [_float_literal(x, dt) for x in flat]
                if any(x.startswith("0x") for x in lit):
                    self._fail("infinities and NaNs in a dense constant are not supported "
                               "(use f.full for a splat)")
            else:
                if a.dtype.kind == "f":
                    self._fail(f"float values for an {dt} constant: convert the array first")
                lo, hi = _INT_RANGE[dt]
                flat = [int(x) for x in a.ravel()]
                if any(not lo <= x <= hi for x in flat):
                    self._fail(f"a value does not fit in {dt}")
                lit = [str(x) for x in flat]
            shape_ = tuple(int(s) for s in a.shape)
            if not lit:
                body = "0.0" if _is_float(dt) else "0"   # an empty tensor: any splat
            elif len(set(lit)) == 1:
                body = lit[0]
            else:
                def nest(items, dims):
                    if not dims:
                        return items[0]
                    step = len(items) // dims[0] if dims[0] else 0
                    return "[" + ", ".join(nest(items[i * step:(i + 1) * step], dims[1:])
                                           for i in range(dims[0])) + "]"
                body = nest(lit, list(shape_))
            n = self._fresh()
            v = self._value(n, shape_, dt)
            self._b._check_size(v, self._fail)
            self._emit(f"{n} = arith.constant dense<{body}> : {v.type}")
            return v
        return self._run("constant", impl)

    # -- the DTensor API -----------------------------------------------------------------
    _MESH_T = "!dtensor.device_mesh<@mesh>"

    def _placements(self, v: Value, placements) -> Tuple[Placement, ...]:
        return _normalize_placements(self._b.mesh, v.ndim, placements, self._fail)

    def _check_transition(self, src: Tuple[Placement, ...], dst: Tuple[Placement, ...],
                          dtype: str):
        for m, (s, d) in enumerate(zip(src, dst)):
            if not isinstance(d, Partial):
                continue
            # S(d) -> P(sum) is legal (DTensor 2.15): the shard in place, zeros elsewhere.
            if isinstance(s, Shard) and d.reduce_op != "sum":
                self._fail(f"mesh dim {m}: cannot go from {s.spec()} to {d.spec()} "
                           f"({_placements_str(src)} -> {_placements_str(dst)}), as in DTensor")
            if isinstance(s, Partial) and s.reduce_op != d.reduce_op:
                self._fail(f"mesh dim {m}: cannot go from {s.spec()} to {d.spec()} "
                           f"({_placements_str(src)} -> {_placements_str(dst)}), as in DTensor")
            if isinstance(s, Replicate) and d.reduce_op == "product":
                self._fail(f"mesh dim {m}: cannot go from R to P(product), as in DTensor")
            if isinstance(s, Replicate) and d.reduce_op == "sum" and not _is_float(dtype):
                self._fail(f"mesh dim {m}: an {dtype} value cannot go from R to P(sum): its "
                           "terms would be the value divided by the group size (inexact)")

    def _api_value(self, op_text: str, v: Value, ps: Tuple[Placement, ...]) -> Value:
        n = self._fresh()
        out = self._value(n, v.shape, v.dtype, ps)
        self._emit(f"{n} = {op_text} : {v.type}, {self._MESH_T} -> {out.type}")
        return out

    def redistribute(self, x: Value, placements: Sequence[Placement]) -> Value:
        """x in `placements` (DTensor's `redistribute`): a distributed value
        is redistributed; a plain one (an argument, or a value whose layout
        propagation decides) is distributed from its global value."""
        def impl():
            v = self._check(x)
            if v._local:
                self._fail("a local tensor (from to_local) cannot be redistributed: "
                           "from_local it first")
            ps = self._placements(v, placements)
            if v.placements is None:
                if any(isinstance(p, Partial) for p in ps):
                    # R -> P is legal; distribute_tensor takes no Partial.
                    base = tuple(Replicate() if isinstance(p, Partial) else p for p in ps)
                    self._check_transition(base, ps, v.dtype)
                    r = self._api_value(f"dtensor.distribute_tensor {v._name}, %mesh", v, base)
                    return self._api_value(f"dtensor.redistribute {r._name}, %mesh", r, ps)
                return self._api_value(f"dtensor.distribute_tensor {v._name}, %mesh", v, ps)
            if ps == v.placements:
                return v
            self._check_transition(v.placements, ps, v.dtype)
            return self._api_value(f"dtensor.redistribute {v._name}, %mesh", v, ps)
        return self._run("redistribute", impl)

    def distribute_tensor(self, x: Value, placements: Sequence[Placement],
                          src_data_rank: Optional[int] = None) -> Value:
        """DTensor's `distribute_tensor(x, mesh, placements, src_data_rank)`
        of a plain tensor: with `src_data_rank=k`, group rank k's copy is
        scattered; without, each rank keeps its chunk of its own copy."""
        def impl():
            v = self._check(x)
            if v.placements is not None:
                self._fail(f"the operand is already distributed ({_placements_str(v.placements)}): "
                           "use redistribute")
            if v._local:
                self._fail("a local tensor (from to_local) cannot be distributed: use from_local")
            ps = self._placements(v, placements)
            # Partial placements (DTensor 2.15): R -> P's terms (sum: t / n).
            self._check_transition(tuple(Replicate() for _ in ps), ps, v.dtype)
            src = ""
            if src_data_rank is not None:
                k = src_data_rank
                if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or \
                        not 0 <= k < min(self._b.mesh.shape):
                    self._fail(f"src_data_rank={k!r} must be a group rank below every mesh "
                               f"dim's size {self._b.mesh.shape}")
                src = f" src_rank = {int(k)}"
            return self._api_value(f"dtensor.distribute_tensor {v._name}, %mesh{src}", v, ps)
        return self._run("distribute_tensor", impl)

    def hint(self, x: Value, placements: Sequence[Placement], priority: int = 0) -> Value:
        """A soft redistribute for propagation: the producer of `x` computes
        in `placements` when it can (priority 0 is the strongest)."""
        def impl():
            v = self._check(x)
            if v._local:
                self._fail("a local tensor (from to_local) cannot be hinted: from_local it first")
            ps = self._placements(v, placements)
            if isinstance(priority, bool) or not isinstance(priority, (int, np.integer)) \
                    or priority < 0:
                self._fail(f"priority must be a non-negative integer, got {priority!r}")
            if v.placements is None:
                if any(isinstance(p, Partial) for p in ps):
                    self._fail("a plain value cannot be hinted to a Partial "
                               f"({_placements_str(ps)})")
            else:
                self._check_transition(v.placements, ps, v.dtype)
            prio = f" priority {int(priority)}" if priority else ""
            return self._api_value(f"dtensor.hint {v._name}, %mesh{prio}", v, ps)
        return self._run("hint", impl)

    def full_tensor(self, x: Value) -> Value:
        """The whole global tensor on every rank (a plain value already is)."""
        def impl():
            v = self._check(x)
            if v.placements is None:
                if v._local:
                    self._fail("a local tensor (from to_local) has no global value: "
                               "from_local it first")
                return v
            n = self._fresh()
            out = self._value(n, v.shape, v.dtype, dist=True)
            self._emit(f"{n} = dtensor.full_tensor {v._name}, %mesh : {v.type}, "
                       f"{self._MESH_T} -> {out.type}")
            return out
        return self._run("full_tensor", impl)

    def _even_local_shape(self, shape, ps) -> Tuple[int, ...]:
        shapes = {s.local_shape for s in _layout(self._b.mesh, shape, list(ps))}
        if len(shapes) != 1:
            self._fail(f"shape {tuple(shape)} in {_placements_str(ps)} gives uneven shards "
                       f"{sorted(shapes)}; only even sharding is supported here")
        return next(iter(shapes))

    def to_local(self, x: Value) -> Value:
        """This rank's shard (DTensor's `to_local`): a local tensor, different
        on every rank. Shards must be even."""
        def impl():
            v = self._check(x)
            if v.placements is None:
                self._fail("needs a distributed value (one with placements)")
            local_shape = self._even_local_shape(v.shape, v.placements)
            n = self._fresh()
            out = self._value(n, local_shape, v.dtype, local=True)
            self._emit(f"{n} = dtensor.to_local {v._name} : {v.type} -> {out.type}")
            return out
        return self._run("to_local", impl)

    def from_local(self, x: Value, placements: Sequence[Placement],
                   shape: Optional[Sequence[int]] = None, run_check: bool = False) -> Value:
        """A distributed value whose shards are every rank's `x` (DTensor's
        `from_local`); the global shape is inferred from even shards unless
        given."""
        def impl():
            v = self._check(x)
            if v._dist:
                self._fail("the operand must be a local (or plain) tensor, not a distributed one")
            ps = self._placements(v, placements)
            if shape is None:
                g = list(v.shape)
                for m, p in enumerate(ps):
                    if isinstance(p, Shard):
                        g[p.dim] *= self._b.mesh.shape[m]
                g = tuple(g)
            else:
                g = self._shape(shape)
                if len(g) != v.ndim:
                    self._fail(f"global shape {g} and local shape {v.shape} differ in rank")
            local_shape = self._even_local_shape(g, ps)
            if local_shape != v.shape:
                self._fail(f"every rank's shard of {g} in {_placements_str(ps)} is "
                           f"{local_shape}, not the local shape {v.shape}")
            n = self._fresh()
            out = self._value(n, g, v.dtype, ps)
            self._b._check_size(out, self._fail)
            check = " run_check" if run_check else ""
            self._emit(f"{n} = dtensor.from_local {v._name}, %mesh{check} : {v.type}, "
                       f"{self._MESH_T} -> {out.type}")
            return out
        return self._run("from_local", impl)

    # -- calls -----------------------------------------------------------------------------
    def call(self, callee: "FunctionBuilder", *args: Value) -> Union[Value, Tuple[Value, ...]]:
        """Calls another (closed) function of this program; its results (one
        Value, or a tuple). Each argument must have the callee's parameter
        type: shape, dtype and placements (redistribute first if not)."""
        def impl():
            if not isinstance(callee, FunctionBuilder) or callee._b is not self._b or \
                    self._b._functions.get(callee.name) is not callee:
                self._fail(f"the callee must be a function of this builder, got {callee!r}")
            if callee is self:
                self._fail(f"'{self.name}' cannot call itself")
            if not callee._closed or callee._results is None:
                self._fail(f"'{callee.name}' is still being built: close its `with` block "
                           "before calling it")
            params = callee.arguments
            if len(args) != len(params):
                self._fail(f"'{callee.name}' takes {len(params)} argument(s), "
                           f"{len(args)} given")
            vals = []
            for i, (a, p) in enumerate(zip(args, params)):
                a = self._check(a, f"argument {i}")
                if a.shape != p.shape or a.dtype != p.dtype:
                    self._fail(f"argument {i} of '{callee.name}' is {p.shape} {p.dtype}, "
                               f"got {a.shape} {a.dtype}")
                if a.placements != p.placements:
                    self._fail(f"argument {i} of '{callee.name}' is "
                               f"{_placements_str(p.placements)}, got "
                               f"{_placements_str(a.placements)}: redistribute it first")
                vals.append(a)
            dist, local = self._check_mix(vals)
            callee._called = True
            results = callee._results
            names = [self._fresh() for _ in results]
            res_types = ", ".join(r.type for r in results)
            lhs = ", ".join(names) + " = " if names else ""
            arg_types = ", ".join([self._MESH_T] + [p.type for p in params])
            self._emit(f"{lhs}func.call @{callee.name}(%mesh" +
                       "".join(f", {a._name}" for a in vals) +
                       f") : ({arg_types}) -> ({res_types})")
            outs = tuple(self._value(n, r.shape, r.dtype, r.placements, dist=dist or r._dist,
                                     local=local and not r._dist) for n, r in zip(names, results))
            return outs[0] if len(outs) == 1 else outs
        return self._run("call", impl)

    # -- text ------------------------------------------------------------------------------
    def text(self) -> str:
        private = self._private if self._private is not None else self._called
        mesh_loc = _loc_text(self._where)
        params = [f"%mesh: {self._MESH_T} {mesh_loc}"] + \
            [f"{v._name}: {v.type} {loc}" for v, loc in self._args]
        results = self._results or []
        res = f" -> ({', '.join(r.type for r in results)})" if results else ""
        ret = ("return " + ", ".join(r._name for r in results) + " : " +
               ", ".join(r.type for r in results)) if results else "return"
        body = "".join("  " + l.replace("\n", "\n  ") + "\n" for l in self._lines)
        return (f"func.func {'private ' if private else ''}@{self.name}(" +
                ", ".join(params) + f"){res} {{\n" + body +
                f"  {ret} {self._results_loc}\n}} {mesh_loc}\n")

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"FunctionBuilder(@{self.name}, {len(self._args)} argument(s), {state})"


# ---------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------


class ProgramBuilder:
    """A global-view program on one device mesh: functions built with
    `function(name)`, then `text()` (the MLIR) or `build()` (a dm.Module,
    parsed and verified)."""

    def __init__(self, mesh: DeviceMesh):
        if not isinstance(mesh, DeviceMesh):
            raise DTensorError(f"ProgramBuilder: needs a dm.DeviceMesh, got {mesh!r}")
        names = mesh.mesh_dim_names
        if names is not None:
            if any(not isinstance(n, str) or not n for n in names):
                raise DTensorError(f"ProgramBuilder: mesh dim names must be non-empty "
                                   f"strings, got {names}")
            if len(set(names)) != len(names):
                raise DTensorError(f"ProgramBuilder: mesh dim names must be unique, got {names}")
        if mesh.size() > 1 << 24:
            raise DTensorError(f"ProgramBuilder: a mesh of {mesh.size()} ranks is more than "
                               "the 2^24 supported")
        self.mesh = mesh
        self._functions: Dict[str, FunctionBuilder] = {}

    def function(self, name: str, *, private: Optional[bool] = None) -> FunctionBuilder:
        """A new function `name`. Its first argument is the mesh handle;
        `argument(...)` adds the others. private=None: private exactly when
        another function calls it (propagation then gives its plain
        parameters their callers' layouts)."""
        where = _user_frame()
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise DTensorError(f"{where[0]}:{where[1]}: function: name {name!r} must be an "
                               "identifier")
        if name == "mesh":
            raise DTensorError(f"{where[0]}:{where[1]}: function: 'mesh' is the mesh's symbol; "
                               "choose another name")
        if name in self._functions:
            raise DTensorError(f"{where[0]}:{where[1]}: function: '{name}' is already defined")
        for f in self._functions.values():
            if not f._closed:
                raise DTensorError(f"{where[0]}:{where[1]}: function: '{f.name}' is still open; "
                                   "finish its `with` block first")
        f = FunctionBuilder(self, name, private, where)
        self._functions[name] = f
        return f

    # Checks shared by the functions.
    @staticmethod
    def _dtype(dtype, fail) -> str:
        key = dtype
        if not isinstance(dtype, str):
            try:
                key = np.dtype(dtype).name
            except TypeError:
                fail(f"unknown dtype {dtype!r} (one of {', '.join(DTYPES)})")
        key = _ALIASES.get(key, key)
        if key not in DTYPES:
            fail(f"unknown dtype {dtype!r} (one of {', '.join(DTYPES)})")
        return key

    @staticmethod
    def _shape(shape, fail) -> Tuple[int, ...]:
        if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
            shape = (shape,)
        if not isinstance(shape, (list, tuple)) or \
                any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) for s in shape):
            fail(f"a shape is a sequence of integers, got {shape!r}")
        if any(s < 0 for s in shape):
            fail(f"shape {tuple(shape)} has a negative size")
        return tuple(int(s) for s in shape)

    @staticmethod
    def _check_size(v: Value, fail) -> None:
        n = 1
        for s in v.shape:
            n *= s
        if n * _BYTES[v.dtype] > _INT64_MAX:
            fail(f"shape {v.shape} of {v.dtype} is larger than the int64 byte bound")

    def text(self) -> str:
        """The module's MLIR text (every function must be finished)."""
        for f in self._functions.values():
            if not f._closed:
                raise DTensorError(f"ProgramBuilder: function '{f.name}' is still open "
                                   "(finish its `with` block)")
        names = ""
        if self.mesh.mesh_dim_names:
            names = " names = [" + ", ".join(
                '"' + n.replace("\\", "\\\\").replace('"', '\\"') + '"'
                for n in self.mesh.mesh_dim_names) + "]"
        out = [f"dtensor.mesh @mesh shape = {_dims(self.mesh.shape)}{names}\n"]
        out += [f.text() for f in self._functions.values()]
        return "\n".join(out)

    def build(self, name: str = "builder.mlir") -> Module:
        """The program as a dm.Module, parsed and verified by the real parser.
        A failure here is a bug of the builder (its checks let something
        through), reported with the diagnostics."""
        text = self.text()
        try:
            return Module.parse(text, name)
        except DTensorError as e:
            raise DTensorError(f"ProgramBuilder.build: the built text does not verify (a bug of "
                               f"dtensor_mlir.builder; please report it):\n{e}") from None

    def inputs(self, values: Dict[Value, np.ndarray]) -> Dict[int, np.ndarray]:
        """dm.run's `inputs` for arguments given as Values: {x: array} ->
        {x.position: array} (all arguments of one function)."""
        out: Dict[int, np.ndarray] = {}
        fns = set()
        for v, a in values.items():
            if not isinstance(v, Value) or v._fn._b is not self or v.position is None:
                raise DTensorError(f"inputs: {v!r} is not an argument of this program")
            fns.add(v._fn.name)
            out[v.position] = a
        if len(fns) > 1:
            raise DTensorError(f"inputs: arguments of several functions ({', '.join(sorted(fns))})")
        return out

    @property
    def functions(self) -> List[str]:
        return list(self._functions)
