"""dtensor_mlir.torch: PyTorch modules to dtensor-mlir programs.

    import torch, dtensor_mlir as dm
    from dtensor_mlir.torch import compile

    mesh = dm.DeviceMesh((2,), ("tp",))
    model = compile(mlp, (x,), mesh=mesh,
                    placements={"fc1.weight": [dm.Shard(0)], "fc1.bias": [dm.Shard(0)],
                                "fc2.weight": [dm.Shard(1)]})
    print(model.mlir)          # the global-view program
    print(model.compiled)      # the per-rank program (dtensor-compile)
    out = model.run(x)         # every rank on the interpreter, verified against the global program
    out[0].full_tensor()       # a torch.Tensor, equal to mlp(x)
    model.report()             # collectives of the compiled program, like CommDebugMode

The module is exported with torch.export and decomposed to core ATen; each
ATen op becomes linalg / tensor / arith / math on global tensors.
Parameters and inputs get the placements given (keys: parameter names and
input positions); a module whose parameters are already DTensors (from
parallelize_module or distribute_tensor) gives its own. Propagation decides
every other layout. An op without a lowering is a DTensorError naming the op
and the user's source line, never a wrong program.
"""

from __future__ import annotations

import contextlib
import copy
import math
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import torch

from ._text import float_literal, is_float
from . import (DeviceMesh, DTensorError, LocalTensor, Module, Output, Partial,
               Placement, Replicate, RunResult, Shard, run as _run)

__all__ = ["compile", "compile_training_step", "import_graph", "CompiledModel", "LocalProgram",
           "TorchOutput", "placements_of"]

aten = torch.ops.aten

_DTYPES = {
    torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
    torch.bfloat16: "bf16", torch.int64: "i64", torch.int32: "i32",
    torch.int16: "i16", torch.int8: "i8", torch.bool: "i1",
}
# A complex tensor's parts (_Complex).
_COMPLEX_PARTS = {torch.complex64: "f32", torch.complex128: "f64"}
# Ops applied to a complex tensor part by part (linear in it: views, copies,
# sums, concatenation, selection; a real operand is an index or a condition,
# or a value whose imaginary part is 0 in cat / stack / where / *_scatter).
_COMPLEX_BY_PARTS = {
    "view", "reshape", "_unsafe_view", "permute", "transpose", "t", "slice", "select",
    "unsqueeze", "squeeze", "expand", "cat", "stack", "clone", "alias", "flip", "roll",
    "repeat", "narrow", "index_select", "constant_pad_nd", "sum", "mean", "neg", "split",
    "split_with_sizes", "unbind", "chunk", "contiguous", "lift_fresh_copy", "detach",
    "flatten", "zeros_like", "slice_scatter", "select_scatter", "where", "diagonal",
    "unfold", "gather", "movedim", "resolve_conj", "resolve_neg", "expand_copy",
    "permute_copy", "view_copy", "select_copy", "slice_copy", "transpose_copy",
    "unsqueeze_copy", "squeeze_copy", "alias_copy"}
# Ops with their own complex lowering (Lowering.complex_<name>).
_COMPLEX_OWN = {"add", "sub", "mul", "div", "abs", "real", "imag", "conj", "_conj", "copy",
                "conj_physical", "view_as_real", "_fft_c2c", "_fft_c2r", "_to_copy", "angle"}
_NUMPY = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i64": np.int64,
          "i32": np.int32, "i16": np.int16, "i8": np.int8, "i1": np.bool_}


def _ttype(shape: Sequence[int], et: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + et + ">"


_is_float = is_float
_float_literal = float_literal


def placements_of(placements: Sequence[Any],
                  mesh_shape: Optional[Sequence[int]] = None) -> List[Placement]:
    """Our placements from torch.distributed.tensor placements (or ours).
    `_StridedShard` needs the mesh's shape: it becomes a shard order."""
    out = []
    strided: Dict[int, int] = {}
    for m, p in enumerate(placements):
        if isinstance(p, Placement):
            out.append(p)
            continue
        name = type(p).__name__
        if name in ("Shard", "_StridedShard"):
            if name == "_StridedShard":
                strided[m] = int(p.split_factor)
            out.append(Shard(p.dim))
        elif name == "Replicate":
            out.append(Replicate())
        elif name in ("Partial", "_Partial", "MaskPartial", "_MaskPartial"):
            op = getattr(p, "reduce_op", "sum")
            out.append(Partial(str(op).lower().split(".")[-1]))
        else:
            raise DTensorError(f"placement {p!r} has no counterpart here")
    if strided:
        if mesh_shape is None:
            raise DTensorError("_StridedShard placements need the mesh's shape")
        out = _orders_of_strided(out, strided, tuple(int(n) for n in mesh_shape))
    return out


def _orders_of_strided(ps: List[Placement], strided: Dict[int, int],
                       mesh_shape: Tuple[int, ...]) -> List[Placement]:
    """DTensor writes a nested shard order as `_StridedShard(d, split_factor)`
    on a mesh dim m: split_factor is the product of the sizes of the mesh
    dims that shard d, come after m and are applied before it
    (docs/IR.md). The order that gives every mesh dim its split factor is
    ours (`Shard(d, order)`); a split factor no order gives (the strided
    layout of a view) has no counterpart here."""
    import itertools
    if len(mesh_shape) != len(ps):
        raise DTensorError(f"{len(ps)} placement(s) for a {len(mesh_shape)}-D mesh")
    out = list(ps)
    for d in sorted({p.dim for p in ps if isinstance(p, Shard)}):
        dims = [m for m, p in enumerate(ps) if isinstance(p, Shard) and p.dim == d]
        want = [strided.get(m, 1) for m in dims]
        for order in itertools.permutations(dims):
            got = []
            for m in dims:
                sf = 1
                for j in dims:
                    if j > m and order.index(j) < order.index(m):
                        sf *= mesh_shape[j]
                got.append(sf)
            if got == want:
                if list(order) != dims:
                    for m in dims:
                        out[m] = Shard(d, order.index(m))
                break
        else:
            bad = [m for m in dims if m in strided]
            raise DTensorError(
                f"_StridedShard({d}, split_factor={strided[bad[0]]}) on mesh dim {bad[0]} is "
                f"not a shard order of tensor dim {d} on a {mesh_shape} mesh (the strided "
                f"layout of a view, which has no counterpart here)")
    return out


class _Value:
    """An SSA value of the program: its name, shape and element type."""

    def __init__(self, name: str, shape: Tuple[int, ...], et: str, spec: str = ""):
        self.name, self.shape, self.et = name, tuple(int(s) for s in shape), et
        # `#dtensor.spec<...>` of a distributed function argument: ops of the
        # global view take such values directly, typed with their spec.
        self.spec = spec

    @property
    def type(self) -> str:
        t = _ttype(self.shape, self.et)
        return t[:-1] + f", {self.spec}>" if self.spec else t


class _Complex:
    """A complex tensor as its real and imaginary parts: two real tensors of
    one shape and float type. Complex values live only in the importer (the
    program sees their parts); the ops that take them are the FFTs,
    view_as_real / view_as_complex, real / imag, conj, abs and complex +,
    -, *."""

    def __init__(self, re: "_Value", im: "_Value"):
        self.re, self.im = re, im

    @property
    def shape(self) -> Tuple[int, ...]:
        return self.re.shape


class _Missing:
    """An output the importer does not compute (batch norm's saved
    statistics, max pooling's indices): an error where it is used."""

    def __init__(self, why: str):
        self.why = why


class _Future:
    """A collective started and not yet waited on: `!dtensor.future<T>`."""

    def __init__(self, name: str, value: _Value):
        self.name, self.value = name, value

    @property
    def type(self) -> str:
        return f"!dtensor.future<{self.value.type}>"


class _Emitter:
    """Builds the text of one func.func in the global view."""

    def __init__(self):
        self.lines: List[str] = []
        self.counter = 0
        self.loc = ""

    def fresh(self, hint: str = "v") -> str:
        # `_` before the counter: never a body name (`%s3`, block arguments
        # `%a0`), which MLIR would take as a redefinition in a nested region.
        self.counter += 1
        return f"%{hint}_{self.counter}"

    def emit(self, text: str) -> None:
        # The location goes after the op's last line.
        self.lines.append("  " + text.replace("\n", "\n  ") + self.loc)

    # -- building blocks ----------------------------------------------------
    def empty(self, shape, et) -> str:
        n = self.fresh("e")
        self.emit(f"{n} = tensor.empty() : {_ttype(shape, et)}")
        return n

    def filled(self, shape, et, value) -> _Value:
        c = self.constant(value, et)
        e = self.empty(shape, et)
        n = self.fresh("f")
        t = _ttype(shape, et)
        self.emit(f"{n} = linalg.fill ins({c} : {et}) outs({e} : {t}) -> {t}")
        return _Value(n, shape, et)

    def constant(self, value, et) -> str:
        n = self.fresh("c")
        if _is_float(et):
            self.emit(f"{n} = arith.constant {_float_literal(float(value), et)} : {et}")
        elif et == "i1":
            self.emit(f"{n} = arith.constant {'true' if value else 'false'}")
        else:
            self.emit(f"{n} = arith.constant {int(value)} : {et}")
        return n

    def slice(self, v: _Value, offsets: Sequence[int], sizes: Sequence[int]) -> _Value:
        """v[offsets : offsets + sizes], unit strides, same rank. An empty
        piece starts at 0 (MLIR rejects an offset at the dim's end, where
        PyTorch's x[..., n:] is empty)."""
        offsets = [0 if n == 0 else o for o, n in zip(offsets, sizes)]
        out = _Value(self.fresh("sl"), tuple(sizes), v.et)
        self.emit(f"{out.name} = tensor.extract_slice {v.name}[{', '.join(map(str, offsets))}] "
                  f"[{', '.join(map(str, sizes))}] [{', '.join('1' for _ in sizes)}] : "
                  f"{v.type} to {out.type}")
        return out

    def collapse(self, v: _Value, groups: List[List[int]], shape) -> _Value:
        n = self.fresh("r")
        g = "[" + ", ".join("[" + ", ".join(map(str, x)) + "]" for x in groups) + "]"
        out = _Value(n, shape, v.et)
        self.emit(f"{n} = tensor.collapse_shape {v.name} {g} : {v.type} into {out.type}")
        return out

    def expand(self, v: _Value, groups: List[List[int]], shape) -> _Value:
        n = self.fresh("r")
        g = "[" + ", ".join("[" + ", ".join(map(str, x)) + "]" for x in groups) + "]"
        out = _Value(n, shape, v.et)
        sizes = ", ".join(map(str, shape))
        self.emit(f"{n} = tensor.expand_shape {v.name} {g} output_shape [{sizes}] : "
                  f"{v.type} into {out.type}")
        return out

    def drop_dims(self, v: _Value, keep: List[int]) -> _Value:
        """`v` without its unit dims not in `keep` (a rank-reducing collapse)."""
        if len(keep) == len(v.shape):
            return v
        for d in range(len(v.shape)):
            if d not in keep and v.shape[d] != 1:
                raise AssertionError("only unit dims can be dropped")
        groups: List[List[int]] = []
        pending: List[int] = []
        for d in range(len(v.shape)):
            if d in keep:
                groups.append(pending + [d])
                pending = []
            else:
                pending.append(d)
        if pending:
            if groups:
                groups[-1].extend(pending)
            # else: everything dropped, rank 0, no groups
        return self.collapse(v, groups, tuple(v.shape[d] for d in keep))

    def generic(self, ins: List[Tuple[_Value, List[int]]], out_shape, out_et: str,
                body, reduce_dims: Sequence[int] = (), init: Optional[_Value] = None,
                nloops: Optional[int] = None, out_map: Optional[List[int]] = None) -> _Value:
        """A linalg.generic over loops d0..dn-1: each input with the loops
        indexing its dims; `body(args, out)` returns (lines, result)."""
        n_loops = nloops if nloops is not None else len(out_shape)
        dims = [f"d{i}" for i in range(n_loops)]
        if out_map is None:
            out_map = [i for i in range(n_loops) if i not in reduce_dims]
        maps, operands, types, args = [], [], [], []
        for k, (v, m) in enumerate(ins):
            # A loop index, or an affine expression of the loops as text
            # (windowed reads: "d5 * 2 + d2", reversals: "-d5 + 2").
            maps.append("affine_map<(" + ", ".join(dims) + ") -> (" +
                        ", ".join(f"d{i}" if isinstance(i, int) else i for i in m) + ")>")
            operands.append(v.name)
            types.append(v.type)
            args.append((f"%a{k}", v.et))
        maps.append("affine_map<(" + ", ".join(dims) + ") -> (" +
                    ", ".join(f"d{i}" for i in out_map) + ")>")
        out = init if init is not None else _Value(self.empty(out_shape, out_et), out_shape, out_et)
        iters = ", ".join('"reduction"' if i in reduce_dims else '"parallel"'
                          for i in range(n_loops))
        lines, result = body([a for a, _ in args], "%o")
        n = self.fresh("g")
        block_args = ", ".join(f"{a}: {t}" for a, t in args + [("%o", out_et)])
        ins_text = (f"ins({', '.join(operands)} : {', '.join(types)}) " if operands else "")
        text = (f"{n} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
                f"iterator_types = [{iters}]}}\n"
                f"    {ins_text}outs({out.name} : {out.type}) {{\n"
                f"  ^bb0({block_args}):\n" +
                "".join(f"    {l}\n" for l in lines) +
                f"    linalg.yield {result} : {out_et}\n"
                f"  }} -> {out.type}")
        self.emit(text)
        return _Value(n, out_shape, out_et)


    def value_and_index(self, ins: List[Tuple[_Value, str]], out_map: str, iters: str,
                        vinit: _Value, iinit: _Value, lines: List[str], value: str,
                        index: str) -> Tuple[_Value, _Value]:
        """A reduction generic with two results, a value and its i64 index
        (block arguments %a0.. for `ins`, given with their indexing maps as
        text, then %o0, %o1)."""
        n = self.fresh("vi")
        maps = ", ".join([m for _, m in ins] + [out_map, out_map])
        et = vinit.et
        args = ", ".join(f"%a{k}: {v.et}" for k, (v, _) in enumerate(ins))
        self.emit(
            f"{n}:2 = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{iters}]}}\n"
            f"    ins({', '.join(v.name for v, _ in ins)} : {', '.join(v.type for v, _ in ins)}) "
            f"outs({vinit.name}, {iinit.name} : {vinit.type}, {iinit.type}) {{\n"
            f"  ^bb0({args}, %o0: {et}, %o1: i64):\n" +
            "".join(f"    {l}\n" for l in lines) +
            f"    linalg.yield {value}, {index} : {et}, i64\n"
            f"  }} -> ({vinit.type}, {iinit.type})")
        return _Value(f"{n}#0", vinit.shape, et), _Value(f"{n}#1", iinit.shape, "i64")

# -- body helpers: scalar ops on block arguments ----------------------------

class _Body:
    def __init__(self, et: str):
        self.et = et
        self.lines: List[str] = []
        self.n = 0

    def v(self, text: str, et: Optional[str] = None) -> str:
        self.n += 1
        name = f"%s{self.n}"
        self.lines.append(f"{name} = {text}")
        return name

    def const(self, value, et: Optional[str] = None) -> str:
        et = et or self.et
        if _is_float(et):
            return self.v(f"arith.constant {_float_literal(float(value), et)} : {et}")
        if et == "i1":
            return self.v(f"arith.constant {'true' if value else 'false'}")
        return self.v(f"arith.constant {int(value)} : {et}")

    def bin(self, fop: str, iop: Optional[str], a: str, b: str) -> str:
        if _is_float(self.et):
            return self.v(f"arith.{fop} {a}, {b} : {self.et}")
        if iop is None:
            raise DTensorError(f"arith.{fop} on integer tensors is not supported")
        return self.v(f"arith.{iop} {a}, {b} : {self.et}")

    def un(self, op: str, a: str) -> str:
        return self.v(f"{op} {a} : {self.et}")


def _acc_et(et: str) -> str:
    """The type PyTorch accumulates sums and products of `et` in: f32 for
    the half types (its CPU and GPU kernels, cuBLAS's too), `et` otherwise."""
    return "f32" if et in ("f16", "bf16") else et


def _extreme(et: str, largest: bool):
    """The largest (or smallest) value of an element type: the identity of a
    min (max) reduction. i1 is 0 or 1."""
    if _is_float(et):
        return math.inf if largest else -math.inf
    if et == "i1":
        return 1 if largest else 0
    bits = int(et[1:])
    return 2 ** (bits - 1) - 1 if largest else -(2 ** (bits - 1))


def _broadcast_map(shape: Tuple[int, ...], out_shape: Tuple[int, ...]) -> Tuple[List[int], List[int]]:
    """Which of `shape`'s dims survive broadcasting to `out_shape` (aligned
    right), and the output dims they index."""
    off = len(out_shape) - len(shape)
    keep, loops = [], []
    for i, s in enumerate(shape):
        j = i + off
        if s == out_shape[j]:
            keep.append(i)
            loops.append(j)
        elif s != 1:
            raise DTensorError(f"shape {shape} does not broadcast to {out_shape}")
    return keep, loops


def _view_groups(src: Tuple[int, ...], dst: Tuple[int, ...]) -> Optional[List[Tuple[List[int], List[int]]]]:
    """Pairs of (src dims, dst dims) whose products match, in order; unit
    dims join a neighbour. None when no such grouping exists."""
    groups = []
    i = j = 0
    while i < len(src) or j < len(dst):
        gi, gj = [], []
        pi = pj = 1
        if i < len(src):
            gi.append(i); pi *= src[i]; i += 1
        if j < len(dst):
            gj.append(j); pj *= dst[j]; j += 1
        while pi != pj:
            if pi < pj and i < len(src):
                gi.append(i); pi *= src[i]; i += 1
            elif pj < pi and j < len(dst):
                gj.append(j); pj *= dst[j]; j += 1
            else:
                return None
        # Trailing unit dims join this group.
        while i < len(src) and src[i] == 1 and (j >= len(dst) or dst[j] != 1):
            gi.append(i); i += 1
        while j < len(dst) and dst[j] == 1 and (i >= len(src) or src[i] != 1):
            gj.append(j); j += 1
        if not gi or not gj:
            # A unit dim on one side only, with nothing before it: merge forward.
            if groups:
                groups[-1][0].extend(gi)
                groups[-1][1].extend(gj)
                continue
            return None
        groups.append((gi, gj))
    return groups


class _Importer:
    """Lowers an ExportedProgram's graph to the global-view program."""

    def __init__(self, gm, kinds: Dict[str, Tuple[str, Any]], mesh: DeviceMesh,
                 arg_specs: Dict[str, List[Placement]],
                 out_specs: Optional[List[Optional[List[Placement]]]] = None,
                 groups: Optional[Dict[str, List[int]]] = None):
        # groups: process-group name -> the mesh dims its ranks differ in,
        # for graphs with functional collectives (the local view).
        self.groups = dict(groups or {})
        # kinds: placeholder name -> (PARAMETER | BUFFER | CONSTANT_TENSOR |
        # USER_INPUT, its name); placeholders not listed are user inputs.
        self.gm = gm
        self.kinds = kinds
        self.out_specs = out_specs
        self.mesh = mesh
        self.arg_specs = arg_specs
        self.e = _Emitter()
        self.values: Dict[Any, Any] = {}
        # Set while an op runs on one part of a complex tensor (_on_parts).
        self._as_part = False
        # Nodes lowered in f32 for their half operands (_in_f32).
        self._f32_nodes: set = set()
        # Graph inputs given new values in place (a training step's buffers:
        # BatchNorm's running statistics and counter), returned after the
        # graph's outputs; `updated` names them.
        self.updates: Dict[Any, _Value] = {}
        self.updated: List[str] = []
        # Graph outputs that are buffers' new values (an exported module in
        # train()), by output node name -> buffer name: placed after the
        # user's outputs, as a training step's updates are.
        self.mutated_outputs: Dict[str, str] = {}
        # Graph outputs that are user inputs' new values (a module that
        # updates its input in place, `x.mul_(2)`): output node name -> the
        # input's placeholder name. Placed last; `updated_inputs` gives the
        # user input position of each, so run() writes them back.
        self.input_mutations: Dict[str, str] = {}
        self.updated_inputs: List[int] = []
        # The seed argument of random ops and how many streams they use.
        self.rng_seed: Optional[_Value] = None
        self.rng_streams = 0
        self._user_index_of: Dict[str, int] = {}

    # -- errors and locations ------------------------------------------------
    @classmethod
    def _user_frame(cls, node) -> Optional[Tuple[str, int, str]]:
        """The innermost frame of the node's stack trace outside torch and
        this package: the user's line."""
        libraries = _library_dirs()
        trace = node.meta.get("stack_trace") or ""
        frames = []
        lines = trace.split("\n")
        for i, line in enumerate(lines):
            m = re.match(r'\s*File "([^"]+)", line (\d+), in ', line)
            if not m:
                continue
            code = ""
            if i + 1 < len(lines) and not re.match(r'\s*File "', lines[i + 1]):
                code = lines[i + 1].strip()
            frames.append((m.group(1), int(m.group(2)), code))
        # (Not the code export generates: `<eval_with_key>` and the like.)
        for f, line, code in reversed(frames):
            if not f.startswith(libraries) and not f.startswith("<"):
                return f, line, code
        frames = [f for f in frames if not f[0].startswith("<")]
        return frames[-1] if frames else None

    def fail(self, node, why: str):
        frame = self._user_frame(node)
        where = ""
        if frame:
            where = f"{frame[0]}:{frame[1]}: " + (f"{frame[2]}: " if frame[2] else "")
        raise DTensorError(f"{where}{why} (node {node.name}: {node.target})")

    def _higher_order(self, node):
        """A higher-order op export kept (torch.cond, while_loop, scan, map):
        an error at the user's line."""
        name = getattr(node.target, "__name__", str(node.target))
        if name == "cond":
            why = ("torch.cond (a branch chosen by a tensor's value) is not supported: a "
                   "program compiled for every rank runs one path; compute both branches "
                   "and select with torch.where")
        else:
            why = (f"the higher-order op torch.ops.higher_order.{name} (control flow or a "
                   "subgraph that export kept) is not supported")
        self.fail(node, why)

    def _set_loc(self, node):
        frame = self._user_frame(node)
        if frame:
            path = frame[0].replace("\\", "\\\\").replace('"', '\\"')
            self.e.loc = f' loc("{path}":{frame[1]}:1)'
        else:
            self.e.loc = ""

    # -- values ----------------------------------------------------------------
    def val(self, arg) -> _Value:
        if isinstance(arg, torch.fx.Node):
            v = self.values[arg]
            if isinstance(v, _Missing):
                raise DTensorError(v.why)
            if isinstance(v, _Complex):
                raise DTensorError(
                    f"{arg.name} is a complex tensor, which this op does not take (complex "
                    "values are supported through the FFTs, view_as_real, view_as_complex, "
                    "real, imag, conj, abs and complex +, -, *)")
            if not isinstance(v, _Value):
                raise DTensorError(f"{arg.name} is not a tensor here")
            return v
        raise DTensorError(f"expected a tensor, got {arg!r}")

    @staticmethod
    def meta(node) -> Tuple[Tuple[int, ...], str]:
        fake = node.meta.get("val", node.meta.get("example_value"))
        if fake is None or not isinstance(fake, torch.Tensor):
            raise DTensorError(f"{node.name} has no tensor metadata")
        if fake.dtype == torch.uint8:
            # Inside the graph only (torch.eye's index ranges): held as i16,
            # which holds 0..255 exactly; _check_uint8 admits the ops on it
            # that cannot wrap.
            return tuple(fake.shape), "i16"
        if fake.dtype not in _DTYPES:
            raise DTensorError(f"{node.name}: dtype {fake.dtype} is not supported")
        shape = tuple(fake.shape)
        if not all(isinstance(s, int) for s in shape):
            if any(str(s).startswith("u") for s in shape if not isinstance(s, int)):
                raise DTensorError(
                    f"{node.name}: its shape {shape} depends on tensor values (boolean-mask "
                    "indexing, nonzero, unique and masked_select give such shapes), which a "
                    "program compiled ahead of time for every rank cannot have: keep the "
                    "shape and mask with torch.where instead")
            raise DTensorError(f"{node.name}: dynamic shape {shape} (export with static shapes)")
        return shape, _DTYPES[fake.dtype]

    # Ops on uint8 tensors (held as i16) that give PyTorch's values: ranges,
    # views and copies (results in 0..255), comparisons and conversions
    # from uint8 (torch.eye: arange(n, dtype=uint8) compared with itself).
    _UINT8_OPS = {"arange", "unsqueeze", "view", "_unsafe_view", "reshape", "expand", "clone",
                  "alias", "slice", "select", "squeeze", "permute", "transpose", "t", "cat",
                  "eq", "ne", "lt", "le", "gt", "ge", "_to_copy", "lift_fresh_copy", "detach",
                  # zeros (batch norm's unread uint8 reserve space is one)
                  "empty", "empty_like", "empty_permuted", "empty_strided", "zeros",
                  "zeros_like", "ones", "ones_like"}

    def _check_uint8(self, node, base: str) -> None:
        def is_u8(n):
            f = n.meta.get("val") if isinstance(n, torch.fx.Node) else None
            return isinstance(f, torch.Tensor) and f.dtype == torch.uint8
        ins = []
        torch.fx.node.map_arg((node.args, node.kwargs), lambda n: ins.append(n) or n)
        out_u8 = is_u8(node)
        if not out_u8 and not any(is_u8(n) for n in ins):
            return
        if base not in self._UINT8_OPS or (out_u8 and base == "_to_copy" and
                                           not any(is_u8(n) for n in ins)):
            self.fail(node, f"'{base}' on uint8 tensors is not supported (uint8 is supported "
                            "inside the program for ranges, views, comparisons and conversions "
                            "from it, as torch.eye uses it)")

    # -- the program -----------------------------------------------------------
    def build(self) -> Tuple[str, List[Tuple[str, str]]]:
        gm = self.gm
        kinds = self.kinds
        args, inputs = [], []  # inputs: (kind, key) per function argument
        user_index = 0
        for node in gm.graph.nodes:
            if node.op == "get_attr":
                # A tensor the traced graph holds (a module buffer, a lifted
                # scalar): one more argument, its value the graph's own.
                if not isinstance(getattr(gm, node.target, None), torch.Tensor):
                    for user in node.users:
                        if isinstance(user.target, torch._ops.HigherOrderOperator):
                            self._higher_order(user)
                    self.fail(node, f"the graph attribute '{node.target}' is not a tensor")
                held = getattr(gm, node.target)
                part = _COMPLEX_PARTS.get(held.dtype)
                if part:
                    shape, et = tuple(held.shape) + (2,), part
                else:
                    shape, et = self.meta(node) if "val" in node.meta else (
                        tuple(held.shape), _DTYPES.get(held.dtype))
                if et is None:
                    self.fail(node, f"the graph attribute '{node.target}' has an unsupported dtype")
                v = _Value(f"%arg{len(args)}", shape, et)
                args.append(f"{v.name}: {v.type}")
                self.values[node] = self._split_parts(v) if part else v
                inputs.append(("CONSTANT", node.target))
                continue
            if node.op != "placeholder":
                continue
            if _is_mesh_value(node):
                # A DeviceMesh graph input (Dynamo's opaque mesh): the
                # function's own mesh argument.
                self.values[node] = "MESH"
                continue
            kind, target = kinds.get(node.name, ("USER_INPUT", None))
            fake = node.meta.get("val", node.meta.get("example_value"))
            if kind == "USER_INPUT" and not isinstance(fake, torch.Tensor) and \
                    (fake is None or isinstance(fake, (bool, int, float))):
                # A None or a number among the inputs: export specialized the
                # graph to it; not an argument (its position still counts).
                self.values[node] = fake
                user_index += 1
                continue
            part = self._complex_part_type(node)
            if part:
                # A complex input (a buffer of rotations): its parts, stacked
                # on a last dim of 2 (_to_numpy passes it so).
                shape, et = tuple(int(d) for d in fake.shape) + (2,), part
            else:
                if isinstance(fake, torch.Tensor) and fake.dtype == torch.uint8:
                    self.fail(node, "a uint8 input is not supported (convert it to int16 or "
                                    "a wider type)")
                shape, et = self.meta(node)
            key = target if kind != "USER_INPUT" else user_index
            if kind == "USER_INPUT":
                self._user_index_of[node.name] = user_index
                user_index += 1
            placements = self.arg_specs.get(key)
            spec = ""
            if placements:
                text = "[" + ", ".join(p.spec() for p in placements) + "]"
                spec = f"#dtensor.spec<@mesh, {text}>"
            v = _Value(f"%arg{len(args)}", shape, et, spec)
            args.append(f"{v.name}: {v.type}")
            self.values[node] = self._split_parts(v) if part else v
            inputs.append((kind, key))
        # Random ops (dropout in training, drop-path, rand): one more
        # argument, the step's seed (run() draws it from torch's generator).
        if any(self._is_random(n) for n in gm.graph.nodes):
            self.rng_seed = _Value(f"%arg{len(args)}", (), "i64")
            args.append(f"{self.rng_seed.name}: {self.rng_seed.type}")
            inputs.append(("RNG_SEED", None))
        self._find_batched_matmuls(gm.graph)
        results = []
        complex_out = set()  # positions of complex results
        for node in gm.graph.nodes:
            if node.op in ("placeholder", "get_attr"):
                continue
            if node.op == "output":
                outs = node.args[0]
                outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
                # (A backward graph returns None for inputs without a
                # gradient: import_graph's run() gives None there.)
                self.none_outputs = [i for i, o in enumerate(outs) if o is None]
                outs = [o for o in outs if o is not None]
                # Export puts the mutations first; a user output may be the
                # same node (`return x.add_(1)`), so split by position.
                n_mut = len(self.mutated_outputs) + len(self.input_mutations)
                mutations, input_muts, rest = [], [], []
                for i, o in enumerate(outs):
                    name = getattr(o, "name", None)
                    if i < n_mut and name in self.mutated_outputs:
                        mutations.append(o)
                    elif i < n_mut and name in self.input_mutations:
                        input_muts.append(o)
                    else:
                        rest.append(o)
                outs = rest
                if self.out_specs is not None and len(self.out_specs) != len(outs):
                    raise DTensorError(f"{len(self.out_specs)} output placement(s) for "
                                       f"{len(outs)} output(s)")
                self.e.loc = ""
                for i, o in enumerate(outs):
                    if isinstance(o, torch.fx.Node) and isinstance(self.values.get(o), _Complex):
                        # A complex output: its parts on a last dim of 2,
                        # viewed as complex again by TorchOutput.
                        v = self.complex_view_as_real(None, o)
                        complex_out.add(len(results))
                    else:
                        v = self.val(o)
                        f = o.meta.get("val") if isinstance(o, torch.fx.Node) else None
                        if isinstance(f, torch.Tensor) and f.dtype == torch.uint8:
                            self.fail(o, "a uint8 output is not supported (convert it to a "
                                         "wider type in the module)")
                    ps = self.out_specs[i] if self.out_specs else None
                    if ps:
                        text = "[" + ", ".join(p.spec() for p in ps) + "]"
                        d = _Value(self.e.fresh("out"), v.shape, v.et,
                                   f"#dtensor.spec<@mesh, {text}>")
                        # A target that only cost weighs, as DTensor computes
                        # an op by its own strategy and redistributes the
                        # result: a Partial output stays Partial (a K-sharded
                        # matmul's sum makes no collective), a K-sharded
                        # contraction wanted R sums its Partial once instead
                        # of gathering its operands (a hint, which its
                        # producer meets before it weighs cost, did that),
                        # and R -> P moves as DTensor's redistribute (a float
                        # sum divided over the group). An output that is a
                        # distributed argument moves by a redistribute, or
                        # not at all. (Named "output i": what a diagnostic
                        # at it names.)
                        self.e.loc = f' loc("output {i}")'
                        if not v.spec:
                            self.e.emit(f"{d.name} = dtensor.distribute_tensor {v.name}, %mesh : "
                                        f"{v.type}, !dtensor.device_mesh<@mesh> -> {d.type}")
                        elif v.spec.replace(" ", "") != d.spec.replace(" ", ""):
                            self.e.emit(f"{d.name} = dtensor.redistribute {v.name}, %mesh : "
                                        f"{v.type}, !dtensor.device_mesh<@mesh> -> {d.type}")
                        else:
                            d = v
                        self.e.loc = ""
                        v = d
                    results.append(v)
                for ph in gm.graph.nodes:
                    if ph.op == "placeholder" and ph in self.updates:
                        results.append(self.updates[ph])
                        self.updated.append(str(self.kinds.get(ph.name, ("", ph.name))[1]))
                for o in mutations:
                    results.append(self.val(o))
                    self.updated.append(self.mutated_outputs[o.name])
                for o in input_muts:
                    results.append(self.val(o))
                    self.updated_inputs.append(self._user_index_of[self.input_mutations[o.name]])
                continue
            if node.op not in ("call_function", "call_method"):
                self.fail(node, f"graph node kind '{node.op}' is not supported")
            if isinstance(node.target, torch._ops.HigherOrderOperator):
                self._higher_order(node)
            self._set_loc(node)
            unplaced = None
            try:
                self.lower(node)
            except DTensorError as e:
                if "(node " in str(e):
                    raise
                unplaced = str(e)
            if unplaced is not None:  # (said at the node's line, without torch's chain)
                self.fail(node, unplaced)
        body = "\n".join(self.e.lines)
        res_types = ", ".join(r.type for r in results)
        mesh_names = ""
        if self.mesh.mesh_dim_names:
            mesh_names = " names = [" + ", ".join(f'"{n}"' for n in self.mesh.mesh_dim_names) + "]"
        text = (f"dtensor.mesh @mesh shape = [{', '.join(map(str, self.mesh.shape))}]{mesh_names}\n\n"
                f"func.func @forward(%mesh: !dtensor.device_mesh<@mesh>"
                + "".join(f", {a}" for a in args) + f") -> ({res_types}) {{\n"
                + body + ("\n" if body else "")
                + f"  return {', '.join(r.name for r in results)} : {res_types}\n}}\n")
        self.result_ets = [("c" + r.et) if i in complex_out else r.et
                           for i, r in enumerate(results)]
        return text, inputs

    # -- batched matmuls over several batch dims ------------------------------
    _VIEWS = ("view", "_unsafe_view", "reshape")

    @staticmethod
    def _base(node) -> str:
        target = node.target
        packet = getattr(target, "_overloadpacket", None)
        return getattr(packet, "__name__", "") if packet else getattr(target, "__name__", "")

    def _find_batched_matmuls(self, graph) -> None:
        """ATen lowers `a @ b` on 4-D tensors to views that merge the batch
        dims, a bmm, and a view that splits them again. Merging a sharded
        batch dim (attention heads) with another is not a layout DTensor can
        name without strided shards, so the importer keeps the batch dims:
        such a view-bmm-view becomes one contraction over all of them."""
        self.skip, self.fused, self.batched = set(), {}, {}
        self.regrouped = {}

        def is_swap(n):
            """A transpose of the last two dims of a 3-D tensor."""
            val = n.meta.get("val")
            if n.op != "call_function" or val is None or len(val.shape) != 3:
                return False
            if self._base(n) == "permute":
                return [d % 3 for d in n.args[1]] == [0, 2, 1]
            if self._base(n) == "transpose":
                return sorted(d % 3 for d in n.args[1:3]) == [1, 2]
            return False

        def source(n):
            """The unmerged tensor a bmm operand views (through a view, and
            clones and expands that change nothing), and whether the operand
            is its transpose (a backward bmm reads permute(view(...)))."""
            chain, swapped = [], False
            if not isinstance(n, torch.fx.Node):
                return None, [], False
            if is_swap(n):
                chain.append(n)
                swapped, n = True, n.args[0]
            if n.op != "call_function" or self._base(n) not in self._VIEWS:
                return None, [], False
            chain.append(n)
            src = n.args[0]
            while (isinstance(src, torch.fx.Node) and src.op == "call_function" and
                   (self._base(src) == "clone" or
                    (self._base(src) == "expand" and
                     tuple(src.meta["val"].shape) == tuple(src.args[0].meta["val"].shape)))):
                chain.append(src)
                src = src.args[0]
            return src, chain, swapped

        chains = []
        for node in graph.nodes:
            if node.op != "call_function" or self._base(node) != "bmm":
                continue
            users = list(node.users)
            if len(users) != 1 or self._base(users[0]) not in self._VIEWS:
                continue
            out_view = users[0]
            (a, ca, ta), (b, cb, tb) = source(node.args[0]), source(node.args[1])
            if a is None or b is None:
                continue
            sa, sb = tuple(a.meta["val"].shape), tuple(b.meta["val"].shape)
            if ta:
                sa = sa[:-2] + (sa[-1], sa[-2])
            if tb:
                sb = sb[:-2] + (sb[-1], sb[-2])
            so = tuple(out_view.meta["val"].shape)
            if len(sa) < 4 or len(sa) != len(sb) or sa[:-2] != sb[:-2] or sa[-1] != sb[-2]:
                continue
            if so != sa[:-2] + (sa[-2], sb[-1]):
                continue
            chains.append(ca + cb)
            self.batched[node] = (a, b, ta, tb)
            self.fused[out_view] = node
        # What the form above does not match (an einsum's bmm: unsqueezes,
        # permutes of 5-D views, a merge of batch with heads, a view and a
        # permute after): every dim traced to the tensors the views and
        # permutes start from, one contraction over them (_regrouped_bmm).
        for node in graph.nodes:
            if (node.op == "call_function" and self._base(node) == "bmm" and
                    node not in self.batched):
                chain = self._regrouped_bmm(node)
                if chain is not None:
                    chains.append(chain)
        # The views (and clones) only fused bmms read are not lowered; one
        # another op reads too (a training step's forward view, read again by
        # a backward bmm through a transpose) is.
        candidates = {c for chain in chains for c in chain}
        changed = True
        while changed:
            changed = False
            for c in candidates - self.skip:
                if all(u in self.batched or u in self.skip for u in c.users):
                    self.skip.add(c)
                    changed = True

        # `F.linear` on an N-D input: a view merging the leading dims, an
        # (add)mm and a view splitting them again. Merging a sharded dim that
        # is not the first of the merge (the batch of a sequence-first
        # `nn.MultiheadAttention`: (T, B, C) -> (T * B, C)) needs DTensor's
        # `_StridedShard`; the importer keeps the leading dims instead: one
        # contraction over them (emitted as a plain matmul on each rank's
        # contiguous piece, docs/CodeGen.md).
        self.linear = {}
        for node in graph.nodes:
            if node.op != "call_function" or self._base(node) not in ("mm", "addmm"):
                continue
            lhs_at = 0 if self._base(node) == "mm" else 1
            if len(node.args) < lhs_at + 2:
                continue
            lhs, rhs = node.args[lhs_at], node.args[lhs_at + 1]
            users = list(node.users)
            if (len(users) != 1 or users[0].op != "call_function" or
                    self._base(users[0]) not in self._VIEWS):
                continue
            out_view = users[0]
            if (not isinstance(lhs, torch.fx.Node) or lhs.op != "call_function" or
                    self._base(lhs) not in self._VIEWS or len(lhs.users) != 1 or
                    not isinstance(lhs.args[0], torch.fx.Node)):
                continue
            x = lhs.args[0]
            sx = tuple(x.meta["val"].shape)
            sl = tuple(lhs.meta["val"].shape)
            sr = tuple(rhs.meta["val"].shape)
            so = tuple(out_view.meta["val"].shape)
            # The rows are the output view's leading dims; x is viewed as
            # those and K (a view that keeps a sharded dim sharded wherever
            # it is the first of what it merges: heads into (batch, heads)).
            if (len(sl) != 2 or len(sr) != 2 or len(so) < 3 or so[-1] != sr[1] or
                    _view_groups(sx, so[:-1] + (sl[1],)) is None):
                continue
            if lhs_at == 1 and isinstance(node.args[0], torch.fx.Node):
                sb = tuple(node.args[0].meta["val"].shape)
                if len(sb) == 2 and sb[0] != 1:
                    continue  # a bias per row of the merged dims
            self.skip.add(lhs)
            self.linear[node] = (x, lhs, so[:-1] + (sl[1],))
            self.fused[out_view] = node

    # Ops that only view their input: element order kept (row-major), or
    # dims permuted (_PERMUTES).
    _REGROUPS = ("view", "_unsafe_view", "reshape", "unsqueeze", "squeeze",
                 "clone", "alias", "flatten", "unflatten")
    _PERMUTES = ("permute", "transpose", "t")

    @staticmethod
    def _regroup(groups, shape):
        """`groups` (per dim, the atoms it merges, row-major; an atom is
        (id, size) with size > 1) viewed as `shape`; None where a dim
        would split an atom."""
        flat = [a for g in groups for a in g]
        out, i = [], 0
        for size in shape:
            g, n = [], 1
            while n < size and i < len(flat):
                g.append(flat[i])
                n *= flat[i][1]
                i += 1
            if n != size:
                return None
            out.append(g)
        return out if i == len(flat) else None

    def _view_step(self, n, groups):
        """The groups of `n`'s result, from those of its input (args[0])."""
        base = self._base(n)
        shape = tuple(n.meta["val"].shape)
        if base in self._PERMUTES:
            rank = len(groups)
            if base == "permute":
                perm = [d % rank for d in n.args[1]]
            else:
                d0, d1 = ((0, 1) if base == "t" else
                          (n.args[1] % rank, n.args[2] % rank)) if rank > 1 else (0, 0)
                perm = list(range(rank))
                perm[d0], perm[d1] = perm[d1], perm[d0]
            return [groups[d] for d in perm]
        if base == "expand" and self._noop_expand(n):
            return groups
        if base in self._REGROUPS:
            return self._regroup(groups, shape)
        return None

    @staticmethod
    def _noop_expand(n) -> bool:
        """An expand to the shape its input has."""
        return tuple(n.meta["val"].shape) == tuple(n.args[0].meta["val"].shape)

    def _is_view_like(self, n) -> bool:
        """A node _view_step follows: a view, a permute, a no-op expand."""
        return (isinstance(n, torch.fx.Node) and n.op == "call_function" and
                n.meta.get("val") is not None and len(n.args) > 0 and
                isinstance(n.args[0], torch.fx.Node) and
                (self._base(n) in self._REGROUPS + self._PERMUTES or
                 (self._base(n) == "expand" and self._noop_expand(n))))

    def _traced_operand(self, n, tag):
        """The tensor a bmm operand views (through view-like ops), the view
        ops between (nearest the bmm first), the atoms of the operand's
        three dims (each (tag, source dim, size)) and the source's shape:
        the deepest such tensor the views do not split a dim of."""
        chain, root = [], n
        while self._is_view_like(root):
            chain.append(root)
            root = root.args[0]
        for depth in range(len(chain), -1, -1):
            src = root if depth == len(chain) else chain[depth]
            if not isinstance(src, torch.fx.Node) or src.meta.get("val") is None:
                continue
            shape = tuple(src.meta["val"].shape)
            groups = [[((tag, d, size), size)] if size != 1 else []
                      for d, size in enumerate(shape)]
            for v in reversed(chain[:depth]):
                groups = self._view_step(v, groups)
                if groups is None:
                    break
            if groups is not None and len(groups) == 3:
                return src, chain[:depth], [[x for x, _ in g] for g in groups], shape
        return None

    def _regrouped_bmm(self, node):
        """A bmm whose operands and single-user result chain are views and
        permutes of tensors each of whose dims is one batch, row, column or
        reduction dim: one contraction over those dims, read through the
        permutes, with no merged batch dim (heads sharded inside one stay
        sharded, as DTensor's strided shards keep them). Records it and
        returns the view ops on the operands' side, or None."""
        if len(node.args) != 2 or node.meta.get("val") is None:
            return None
        ta, tb = self._traced_operand(node.args[0], "a"), self._traced_operand(node.args[1], "b")
        if ta is None or tb is None:
            return None
        (a, ca, (ab, am, ak), sa), (b, cb, (bb, bk, bn), sb) = ta, tb
        if ([x[2] for x in ab] != [x[2] for x in bb] or
                [x[2] for x in ak] != [x[2] for x in bk]):
            return None
        # Loops: batch, rows, columns, then the reduction; b's batch and
        # reduction atoms are a's, in order.
        loop = {}
        for group in (ab, am, bn, ak):
            for x in group:
                loop[x] = len(loop)
        for x, y in list(zip(bb, ab)) + list(zip(bk, ak)):
            loop[x] = loop[y]
        nparallel = len(ab) + len(am) + len(bn)
        nloops = nparallel + len(ak)
        # The result's chain: single users that only view it, as far as the
        # last tensor whose dims are each one loop (or of size 1).
        groups = [[(loop[x], x[2]) for x in g] for g in (ab, am, bn)]
        best, seen, cur = None, [], node
        while len(cur.users) == 1:
            user = next(iter(cur.users))
            if not self._is_view_like(user) or user.args[0] is not cur:
                break
            groups = self._view_step(user, groups)
            if groups is None:
                break
            seen.append(user)
            cur = user
            if all(len(g) <= 1 for g in groups):
                best = (user, groups, list(seen[:-1]))
        if best is None:
            return None
        end, ogroups, between = best
        out_map = []
        for g in ogroups:
            if g:
                out_map.append(g[0][0])
            else:  # a dim of size 1: a loop of its own
                out_map.append(nloops)
                nloops += 1

        def read_map(shape, tag):
            return ["0" if size == 1 else loop[(tag, d, size)] for d, size in enumerate(shape)]
        self.regrouped[node] = (a, b, read_map(sa, "a"), read_map(sb, "b"), out_map, nloops,
                                list(range(nparallel, nparallel + len(ak))),
                                tuple(end.meta["val"].shape))
        self.batched[node] = None
        self.skip.update(between)
        self.fused[end] = node
        return ca + cb

    def _mul_add(self, a: _Value, amap, b: _Value, bmap, shape, reduce, nloops,
                 out_map) -> _Value:
        """out = sum over `reduce` of a * b, from 0: one linalg.generic over
        `nloops` loops, a and b read through their maps (loops or affine
        text), in their (common) element type."""
        et = a.et

        def body(args, out):
            bb = _Body(et)
            p = bb.bin("mulf", "muli", args[0], args[1])
            return bb.lines, bb.bin("addf", "addi", out, p)
        return self.e.generic([(a, amap), (b, bmap)], shape, et, body, reduce_dims=reduce,
                              init=self.e.filled(shape, et, 0), nloops=nloops,
                              out_map=out_map)

    def _regrouped_matmul(self, node) -> _Value:
        an, bn, amap, bmap, out_map, nloops, reduce, shape = self.regrouped[node]
        a, b = self.val(an), self.val(bn)
        want = a.et
        # Half types: in f32, rounded once (as _batched_matmul).
        a, b = self._convert(a, _acc_et(want)), self._convert(b, _acc_et(want))
        return self._convert(self._mul_add(a, amap, b, bmap, shape, reduce, nloops, out_map),
                             want)

    def _batched_matmul(self, node) -> _Value:
        if node in self.regrouped:
            return self._regrouped_matmul(node)
        an, bn, ta, tb = self.batched[node]
        a, b = self.val(an), self.val(bn)
        want = a.et
        # Half types: in f32, rounded once (as cuBLAS and PyTorch's CPU bmm).
        a, b = self._convert(a, _acc_et(want)), self._convert(b, _acc_et(want))
        nb = len(a.shape) - 2
        shape = (a.shape[:-2] + ((a.shape[-1] if ta else a.shape[-2]),) +
                 ((b.shape[-2] if tb else b.shape[-1]),))
        batch = list(range(nb))
        m, n, k = nb, nb + 1, nb + 2
        # A transposed operand (swapped last dims) is read through its map.
        return self._convert(self._mul_add(a, batch + ([k, m] if ta else [m, k]),
                                           b, batch + ([n, k] if tb else [k, n]), shape,
                                           [k], nb + 3, batch + [m, n]), want)

    def _linear_over_leading(self, node) -> _Value:
        """out[b..., n] = sum_k x[b..., k] * w[k, n] (+ the addmm's bias)
        over x's leading dims, unmerged (see _find_batched_matmuls)."""
        xnode, view, shape = self.linear[node]
        x = self._reshape(view, self.val(xnode), shape)
        if self._base(node) == "mm":
            w, bias, beta, alpha = self.val(node.args[1]), None, 1, 1
        else:
            def parts(bias, a, b, beta=1, alpha=1):
                return bias, b, beta, alpha
            bias, b, beta, alpha = parts(*node.args, **node.kwargs)
            w = self.val(b)
        want = x.et
        # Half types: in f32 (the bias added there too), rounded once.
        x, w = self._convert(x, _acc_et(want)), self._convert(w, _acc_et(want))
        nb = len(x.shape) - 1
        shape = x.shape[:-1] + (w.shape[1],)
        et = x.et
        batch = list(range(nb))
        n, k = nb, nb + 1
        m = self._mul_add(x, batch + [k], w, [k, n], shape, [k], nb + 2, batch + [n])
        if bias is not None:
            m = self._add_bias(m, bias, shape, et, beta, alpha)
        return self._convert(m, want)

    def _add_bias(self, m: _Value, bias, shape, et, beta, alpha) -> _Value:
        """alpha * m + beta * bias, the bias broadcast to `shape`."""
        bv = self.val(bias)
        keep, loops = _broadcast_map(bv.shape, shape)
        bv2 = self.e.drop_dims(bv, keep)
        def body(args, out):
            bb = _Body(et)
            x, y = args
            y = self._cast(bb, y, bv.et, et)  # a half bias of an f32 accumulation
            if alpha != 1:
                x = bb.bin("mulf", None, x, bb.const(alpha))
            if beta != 1:
                y = bb.bin("mulf", None, y, bb.const(beta))
            return bb.lines, bb.bin("addf", "addi", x, y)
        return self.e.generic([(m, list(range(len(shape)))), (bv2, loops)], shape, et, body)

    # -- ops ---------------------------------------------------------------------
    def lower(self, node) -> None:
        if node in self.skip:
            return
        if node in self.batched:
            self.values[node] = self._batched_matmul(node)
            return
        if node in self.linear:
            self.values[node] = self._linear_over_leading(node)
            return
        if node in self.fused:
            self.values[node] = self.values[self.fused[node]]
            return
        if node.op == "call_method":
            fn = getattr(self, "method_" + node.target, None) or getattr(self, "op_" + node.target, None)
            if fn is None:
                self.fail(node, f"the method '.{node.target}()' has no lowering to dtensor-mlir yet")
            self.values[node] = fn(node, *node.args, **node.kwargs)
            return
        target = node.target
        if target is __import__("operator").getitem:
            seq, idx = node.args
            self.values[node] = self.values[seq][idx]
            return
        name = getattr(target, "__name__", str(target))
        packet = getattr(target, "_overloadpacket", None)
        base = getattr(packet, "__name__", name.split(".")[0]) if packet else name.split(".")[0]
        fn = getattr(self, "op_" + base, None)
        complex_in = self._complex_args(node)
        if complex_in:
            result = self._complex_op(node, base, fn, complex_in)
            self.values[node] = result
            return
        if fn is None:
            self.fail(node, f"the ATen op '{name}' has no lowering to dtensor-mlir yet")
        self._check_uint8(node, base)
        if base in self._ALONG_A_DIM and self._zero_d_input(node):
            self.values[node] = self._on_zero_d(node, base)
            return
        if base in self._HALF_IN_F32 and self._half_operands(node):
            self.values[node] = self._in_f32(node, fn)
            return
        result = fn(node, *node.args, **node.kwargs)
        self.values[node] = result

    # Ops that PyTorch computes in f32 for f16 / bf16 tensors, rounding their
    # results once: contractions (cuBLAS and the CPU kernels accumulate in
    # f32), means and variances, norms, softmaxes, attention, pooling sums.
    # The importer lowers them on f32 copies of their half operands and
    # rounds each result to its type (a separate element-wise truncf, after
    # any Partial sum is reduced).
    _HALF_IN_F32 = {
        "mm", "bmm", "addmm", "mean", "var", "var_mean", "std", "native_layer_norm",
        "_log_softmax", "log_softmax", "_softmax", "softmax", "native_group_norm",
        "native_batch_norm", "_native_batch_norm_legit", "_native_batch_norm_legit_functional",
        "_native_batch_norm_legit_no_training", "scaled_dot_product_attention", "convolution",
        "convolution_backward", "_grouped_mm", "grouped_mm_fallback",
        "grouped_mm_fallback_backward", "logcumsumexp", "_trilinear", "_cdist_forward",
        "_cdist_backward", "avg_pool2d", "avg_pool3d", "avg_pool2d_backward",
        "avg_pool3d_backward", "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward",
        "_embedding_bag", "_embedding_bag_backward", "embedding_dense_backward"}

    # Ops along a dim that PyTorch also takes on a 0-d tensor (dim 0 or -1):
    # there they see the one element (_on_zero_d).
    _ALONG_A_DIM = {"_softmax", "softmax", "_log_softmax", "log_softmax", "cumsum", "cumprod",
                    "logcumsumexp", "flip", "sort", "argmax", "argmin", "max", "min", "cummax",
                    "cummin", "topk", "kthvalue", "median", "argsort", "roll"}

    def _zero_d_input(self, node) -> bool:
        a = node.args[0] if node.args else None
        if not isinstance(a, torch.fx.Node):
            return False
        fake = a.meta.get("val")
        if not (isinstance(fake, torch.Tensor) and fake.dim() == 0):
            return False
        # A reduction of every element (argmax(), max()) is lowered as usual.
        base = self._base(node)
        if base in ("argmax", "argmin", "max", "min", "median"):
            dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
            return dim is not None
        return True

    def _on_zero_d(self, node, base: str):
        """An op along dim 0 (or -1) of a 0-d tensor: the one element.
        softmax is exp(x - x) (1, NaN where x is not finite, as PyTorch's
        exp(x - max) / sum), log_softmax x - x; scans and flips the element
        itself; sorts, arg reductions, topk / kthvalue of k = 1 the element
        and index 0; topk(0) empty tensors."""
        v = self.val(node.args[0])
        fake = node.meta.get("val")
        fakes = list(fake) if isinstance(fake, (tuple, list)) else [fake]
        outs = [(tuple(int(d) for d in f.shape), _DTYPES.get(f.dtype)) for f in fakes]
        if any(et is None for _, et in outs):
            self.fail(node, "an output dtype that is not supported")

        def element(et):
            return self._convert(v, et)

        def index(shape):
            return self.e.filled(shape, "i64", 0)
        if base in ("_softmax", "softmax", "_log_softmax", "log_softmax"):
            shape, et = outs[0]
            x = element(et)
            soft = "softmax" in base and "log" not in base

            def body(args, out):
                bb = _Body(et)
                d = bb.bin("subf", None, args[0], args[0])
                return bb.lines, bb.un("math.exp", d) if soft else d
            return self.e.generic([(x, [])], shape, et, body)
        if base in ("cumsum", "cumprod", "logcumsumexp", "flip", "roll"):
            return element(outs[0][1])
        if base in ("argmax", "argmin"):
            return index(outs[0][0])
        if base == "topk":
            k = node.args[1] if len(node.args) > 1 else node.kwargs.get("k")
            if k == 0:
                return self.e.filled(outs[0][0], outs[0][1], 0), index(outs[1][0])
        if base == "kthvalue":
            k = node.args[1] if len(node.args) > 1 else node.kwargs.get("k")
            if k != 1:
                self.fail(node, f"kthvalue with k={k} of a 0-d tensor")
        if base == "argsort":
            return index(outs[0][0])
        if len(outs) == 2 and outs[1][1] == "i64":
            # (values, indices): sort, max / min / median along the dim,
            # cummax / cummin, topk(1), kthvalue(1).
            return element(outs[0][1]), index(outs[1][0])
        self.fail(node, f"'{base}' along a dim of a 0-d tensor")

    def _half_operands(self, node) -> bool:
        found = []

        def see(n):
            v = self.values.get(n)
            if isinstance(v, _Value) and v.et in ("f16", "bf16"):
                found.append(n)
            return n
        torch.fx.node.map_arg((node.args, node.kwargs), see)
        return bool(found)

    def _in_f32(self, node, fn):
        """`fn` lowered on f32 copies of the node's f16 / bf16 operands, its
        own half result types read as f32 (`_out`), each result rounded to
        its type at the end."""
        saved: Dict[Any, _Value] = {}

        def widen(n):
            v = self.values.get(n)
            if n not in saved and isinstance(v, _Value) and v.et in ("f16", "bf16"):
                saved[n] = v
                self.values[n] = self._convert(v, "f32")
            return n
        torch.fx.node.map_arg((node.args, node.kwargs), widen)
        self._f32_nodes.add(node)
        try:
            result = fn(node, *node.args, **node.kwargs)
        finally:
            self.values.update(saved)
            self._f32_nodes.discard(node)
        fake = node.meta.get("val")

        def narrow(r, f):
            if isinstance(r, _Value) and isinstance(f, torch.Tensor) and f.dtype in _DTYPES:
                return self._convert(r, _DTYPES[f.dtype])
            return r
        if isinstance(result, tuple):
            fakes = list(fake) if isinstance(fake, (tuple, list)) else [None] * len(result)
            fakes += [None] * (len(result) - len(fakes))
            return tuple(narrow(r, f) for r, f in zip(result, fakes))
        return narrow(result, fake)

    def _out(self, node) -> Tuple[Tuple[int, ...], str]:
        if self._as_part:
            # An op applied to one part of a complex tensor: its result is
            # that part's (real) type.
            part = self._complex_part_type(node)
            if part:
                return tuple(int(d) for d in node.meta["val"].shape), part
        shape, et = self.meta(node)
        if node in self._f32_nodes and et in ("f16", "bf16"):
            et = "f32"  # computed in f32, rounded by _in_f32
        return shape, et

    # Elementwise with broadcasting; scalars are constants in the body.
    def _elementwise(self, node, operands: List[Any], fn, out_et: Optional[str] = None,
                     keep_types: bool = False) -> _Value:
        shape, et = self._out(node)
        ins = []
        refs = []
        for pos, o in enumerate(operands):
            if isinstance(o, torch.fx.Node):
                v = self.val(o)
                keep, loops = _broadcast_map(v.shape, shape)
                v2 = self.e.drop_dims(v, keep)
                kept = keep_types is True or (keep_types and pos in keep_types)
                refs.append(("arg", len(ins), None if kept else v.et))
                ins.append((v2, loops))
            else:
                refs.append(("const", o, None))
        def body(args, out):
            b = _Body(et)
            vals = []
            for kind, x, vet in refs:
                if kind == "arg":
                    a = args[x]
                    if vet is not None and vet != et:
                        a = self._cast(b, a, vet, et)
                    vals.append(a)
                else:
                    vals.append(b.const(x))
            r = fn(b, *vals)
            return b.lines, r
        return self.e.generic(ins, shape, out_et or et, body)

    @staticmethod
    def _cast(b: _Body, a: str, src: str, dst: str) -> str:
        """PyTorch's conversion of one element: to bool `x != 0` (NaN is
        true, -0.0 false), float to int truncating, f16 <-> bf16 through f32
        (neither holds the other)."""
        if src == dst:
            return a
        if dst == "i1":
            if _is_float(src):
                zero = b.v(f"arith.constant {_float_literal(0.0, src)} : {src}")
                return b.v(f"arith.cmpf une, {a}, {zero} : {src}")
            zero = b.v(f"arith.constant 0 : {src}")
            return b.v(f"arith.cmpi ne, {a}, {zero} : {src}")
        if _is_float(src) and _is_float(dst):
            if {src, dst} == {"f16", "bf16"}:
                a = b.v(f"arith.extf {a} : {src} to f32")
                return b.v(f"arith.truncf {a} : f32 to {dst}")
            wider = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
            op = "arith.extf" if wider[dst] > wider[src] else "arith.truncf"
            return b.v(f"{op} {a} : {src} to {dst}")
        if not _is_float(src) and _is_float(dst):
            op = "arith.uitofp" if src == "i1" else "arith.sitofp"
            return b.v(f"{op} {a} : {src} to {dst}")
        if _is_float(src) and not _is_float(dst):
            return b.v(f"arith.fptosi {a} : {src} to {dst}")
        bits = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64}
        if bits[dst] > bits[src]:
            return b.v(f"arith.{'extui' if src == 'i1' else 'extsi'} {a} : {src} to {dst}")
        return b.v(f"arith.trunci {a} : {src} to {dst}")

    def op_add(self, node, a, b, alpha=1):
        def f(bb, x, y):
            if bb.et == "i1":
                # bool + bool is a logical or in PyTorch (True + True = True).
                return bb.v(f"arith.ori {x}, {y} : i1")
            if alpha != 1:
                y = bb.bin("mulf", "muli", y, bb.const(alpha))
            return bb.bin("addf", "addi", x, y)
        return self._elementwise(node, [a, b], f)

    def op_sub(self, node, a, b, alpha=1):
        def f(bb, x, y):
            if alpha != 1:
                y = bb.bin("mulf", "muli", y, bb.const(alpha))
            return bb.bin("subf", "subi", x, y)
        return self._elementwise(node, [a, b], f)

    def op_rsub(self, node, a, b, alpha=1):
        return self._elementwise(node, [a, b], lambda bb, x, y: bb.bin("subf", "subi", y, x))

    def op_mul(self, node, a, b):
        return self._elementwise(node, [a, b], lambda bb, x, y: bb.bin("mulf", "muli", x, y))

    def op_div(self, node, a, b, rounding_mode=None):
        shape, et = self._out(node)
        if rounding_mode not in (None, "floor", "trunc"):
            self.fail(node, f"div with rounding_mode={rounding_mode!r}")
        if rounding_mode is None:
            if not _is_float(et):
                self.fail(node, "integer true division is not supported yet")
            return self._elementwise(node, [a, b], lambda bb, x, y: bb.bin("divf", None, x, y))
        if rounding_mode == "trunc":
            if _is_float(et):
                return self._elementwise(node, [a, b], lambda bb, x, y: bb.un(
                    "math.trunc", bb.bin("divf", None, x, y)))
            return self._elementwise(node, [a, b], lambda bb, x, y: bb.v(f"arith.divsi {x}, {y} : {et}"))

        def floor_div(bb, x, y):
            if not _is_float(et):
                # C's truncating quotient, one less where the remainder's sign
                # differs from the divisor's.
                q = bb.v(f"arith.divsi {x}, {y} : {et}")
                rem = bb.v(f"arith.remsi {x}, {y} : {et}")
                zero = bb.const(0)
                nz = bb.v(f"arith.cmpi ne, {rem}, {zero} : {et}")
                differ = bb.v(f"arith.xori {bb.v(f'arith.cmpi slt, {rem}, {zero} : {et}')}, "
                              f"{bb.v(f'arith.cmpi slt, {y}, {zero} : {et}')} : i1")
                fix = bb.v(f"arith.andi {nz}, {differ} : i1")
                return bb.v(f"arith.select {fix}, {bb.bin('subf', 'subi', q, bb.const(1))}, {q} : {et}")
            # PyTorch's div_floor_floating: exact where floor(x / y) is not.
            mod = bb.v(f"arith.remf {x}, {y} : {et}")
            div = bb.bin("divf", None, bb.bin("subf", None, x, mod), y)
            zero = bb.const(0.0)
            nz = bb.v(f"arith.cmpf une, {mod}, {zero} : {et}")
            differ = bb.v(f"arith.xori {bb.v(f'arith.cmpf olt, {mod}, {zero} : {et}')}, "
                          f"{bb.v(f'arith.cmpf olt, {y}, {zero} : {et}')} : i1")
            fix = bb.v(f"arith.andi {nz}, {differ} : i1")
            div = bb.v(f"arith.select {fix}, {bb.bin('subf', None, div, bb.const(1.0))}, {div} : {et}")
            fl = bb.un("math.floor", div)
            up = bb.v(f"arith.cmpf ogt, {bb.bin('subf', None, div, fl)}, {bb.const(0.5)} : {et}")
            fl = bb.v(f"arith.select {up}, {bb.bin('addf', None, fl, bb.const(1.0))}, {fl} : {et}")
            true_div = bb.bin("divf", None, x, y)
            signed_zero = bb.bin("mulf", None, zero, true_div)
            dnz = bb.v(f"arith.cmpf une, {div}, {zero} : {et}")
            res = bb.v(f"arith.select {dnz}, {fl}, {signed_zero} : {et}")
            # Division by zero: x / 0 (inf or NaN), as PyTorch.
            by_zero = bb.v(f"arith.cmpf oeq, {y}, {zero} : {et}")
            return bb.v(f"arith.select {by_zero}, {true_div}, {res} : {et}")
        return self._elementwise(node, [a, b], floor_div)

    def op_floor_divide(self, node, a, b):
        return self.op_div(node, a, b, rounding_mode="floor")

    def op_fmod(self, node, a, b):
        """C's fmod: the dividend's sign."""
        return self._elementwise(node, [a, b], lambda bb, x, y: bb.bin("remf", "remsi", x, y))

    def _float_test(self, node, a, test):
        v = self.val(a)
        if not _is_float(v.et):
            shape, _ = self._out(node)
            return self.e.filled(shape, "i1", test == "isfinite")
        return self._unary_value_typed(v, "i1", lambda bb, x: {
            "isnan": lambda: bb.v(f"arith.cmpf uno, {x}, {x} : {v.et}"),
            "isinf": lambda: bb.v(f"arith.cmpf oeq, {bb.un('math.absf', x)}, {bb.const(math.inf)} : {v.et}"),
            "isfinite": lambda: bb.v(f"arith.cmpf olt, {bb.un('math.absf', x)}, {bb.const(math.inf)} : {v.et}"),
        }[test]())

    def op_isnan(self, node, a): return self._float_test(node, a, "isnan")
    def op_isinf(self, node, a): return self._float_test(node, a, "isinf")
    def op_isfinite(self, node, a): return self._float_test(node, a, "isfinite")

    def op_repeat(self, node, a, repeats):
        """Tiled: the tensor broadcast along a new major dim per repeated dim,
        merged with it."""
        v = self.val(a)
        shape, et = self._out(node)
        lead = len(repeats) - len(v.shape)
        if lead < 0:
            self.fail(node, "repeat with fewer repeats than dims")
        if lead:
            v = self._reshape(node, v, (1,) * lead + v.shape)
        tiled_shape, in_map, groups = [], [], []
        for d, (size, rep) in enumerate(zip(v.shape, repeats)):
            groups.append([len(tiled_shape), len(tiled_shape) + 1])
            tiled_shape += [rep, size]
            in_map.append(len(tiled_shape) - 1)
        tiled = self.e.generic([(v, in_map)], tuple(tiled_shape), et, lambda args, out: ([], args[0]))
        return self.e.collapse(tiled, groups, shape)

    def op_maximum(self, node, a, b):
        # Bools: or / and (a signed i1 max would take True as -1).
        return self._elementwise(node, [a, b], lambda bb, x, y: bb.bin(
            "maximumf", "ori" if bb.et == "i1" else "maxsi", x, y))

    def op_minimum(self, node, a, b):
        return self._elementwise(node, [a, b], lambda bb, x, y: bb.bin(
            "minimumf", "andi" if bb.et == "i1" else "minsi", x, y))

    def _bitwise(self, node, a, b, op):
        et = self._out(node)[1]
        if _is_float(et):
            self.fail(node, f"bitwise {op} of floating-point tensors")
        return self._elementwise(node, [a, b], lambda bb, x, y: bb.v(f"arith.{op} {x}, {y} : {bb.et}"))

    def op_bitwise_and(self, node, a, b):
        return self._bitwise(node, a, b, "andi")

    def op_bitwise_or(self, node, a, b):
        return self._bitwise(node, a, b, "ori")

    def op_bitwise_xor(self, node, a, b):
        return self._bitwise(node, a, b, "xori")

    def op_sign(self, node, a):
        """-1, 0 or 1 (0 for NaN and both zeros, as PyTorch gives)."""
        def f(bb, x):
            zero, one = bb.const(0), bb.const(1)
            if _is_float(bb.et):
                gt = bb.v(f"arith.cmpf ogt, {x}, {zero} : {bb.et}")
                lt = bb.v(f"arith.cmpf olt, {x}, {zero} : {bb.et}")
                neg = bb.v(f"arith.negf {one} : {bb.et}")
            else:
                gt = bb.v(f"arith.cmpi sgt, {x}, {zero} : {bb.et}")
                lt = bb.v(f"arith.cmpi slt, {x}, {zero} : {bb.et}")
                neg = bb.const(-1)
            inner = bb.v(f"arith.select {lt}, {neg}, {zero} : {bb.et}")
            return bb.v(f"arith.select {gt}, {one}, {inner} : {bb.et}")
        return self._elementwise(node, [a], f)

    def op_neg(self, node, a):
        def f(bb, x):
            if _is_float(bb.et):
                return bb.un("arith.negf", x)
            return bb.v(f"arith.subi {bb.const(0)}, {x} : {bb.et}")  # integers: 0 - x
        return self._elementwise(node, [a], f)

    def _math(self, op):
        def f(node, a):
            return self._elementwise(node, [a], lambda bb, x: bb.un(f"math.{op}", x))
        return f

    def op_exp(self, node, a): return self._math("exp")(node, a)
    def op_log(self, node, a): return self._math("log")(node, a)
    def op_tanh(self, node, a): return self._math("tanh")(node, a)
    def op_sqrt(self, node, a): return self._math("sqrt")(node, a)
    def op_rsqrt(self, node, a): return self._math("rsqrt")(node, a)
    def op_erf(self, node, a): return self._math("erf")(node, a)
    def op_abs(self, node, a):
        def f(bb, x):
            if _is_float(bb.et):
                return bb.un("math.absf", x)
            # (integers: reflection padding's indices) x < 0 ? 0 - x : x
            neg = bb.v(f"arith.cmpi slt, {x}, {bb.const(0)} : {bb.et}")
            return bb.v(f"arith.select {neg}, {bb.bin('subf', 'subi', bb.const(0), x)}, {x} : {bb.et}")
        return self._elementwise(node, [a], f)
    def op_sin(self, node, a): return self._math("sin")(node, a)
    def op_cos(self, node, a): return self._math("cos")(node, a)

    def op_reciprocal(self, node, a):
        return self._elementwise(node, [a], lambda bb, x: bb.bin("divf", None, bb.const(1.0), x))

    def op_pow(self, node, a, b):
        shape, et = self._out(node)
        if not _is_float(et):
            return self._int_pow(node, a, b, et)
        if isinstance(b, (int, float)) and float(b) == 2.0:
            return self._elementwise(node, [a], lambda bb, x: bb.bin("mulf", "muli", x, x))
        if isinstance(b, (int, float)) and float(b) == 0.5:
            return self._elementwise(node, [a], lambda bb, x: bb.un("math.sqrt", x))
        return self._elementwise(node, [a, b], lambda bb, x, y: bb.v(f"math.powf {x}, {y} : {bb.et}"))

    def _int_pow(self, node, a, b, et):
        """Integer x ** y, staying integer as PyTorch's: square and multiply
        over the exponent's bits (wrapping as PyTorch's integer kernel); a
        negative exponent gives 1 for x = 1, +-1 for x = -1 and 0 otherwise
        (PyTorch's kernel for tensor exponents)."""
        if et == "i1":
            self.fail(node, "pow of bool tensors")
        if isinstance(b, (int, float)) and not isinstance(b, bool) and b < 0:
            self.fail(node, "integers to negative integer powers are not allowed (PyTorch's error)")
        bits = int(et[1:])

        def f(bb, x, y):
            one, zero = bb.const(1), bb.const(0)
            res, base, e = one, x, y
            for i in range(bits - 1):  # the sign bit is handled below
                bit = bb.v(f"arith.andi {e}, {one} : {et}")
                odd = bb.v(f"arith.cmpi ne, {bit}, {zero} : {et}")
                res = bb.v(f"arith.select {odd}, {bb.v(f'arith.muli {res}, {base} : {et}')}, "
                           f"{res} : {et}")
                if i + 1 < bits - 1:
                    base = bb.v(f"arith.muli {base}, {base} : {et}")
                    e = bb.v(f"arith.shrui {e}, {one} : {et}")
            neg = bb.v(f"arith.cmpi slt, {y}, {zero} : {et}")
            is_one = bb.v(f"arith.cmpi eq, {x}, {one} : {et}")
            is_m1 = bb.v(f"arith.cmpi eq, {x}, {bb.const(-1)} : {et}")
            odd_y = bb.v(f"arith.cmpi ne, {bb.v(f'arith.andi {y}, {one} : {et}')}, {zero} : {et}")
            m1 = bb.v(f"arith.select {odd_y}, {bb.const(-1)}, {one} : {et}")
            small = bb.v(f"arith.select {is_one}, {one}, {bb.v(f'arith.select {is_m1}, {m1}, {zero} : {et}')} : {et}")
            return bb.v(f"arith.select {neg}, {small}, {res} : {et}")
        return self._elementwise(node, [a, b], f)

    def op_relu(self, node, a):
        return self._elementwise(node, [a], lambda bb, x: bb.bin("maximumf", "maxsi", x, bb.const(0)))

    def op_sigmoid(self, node, a):
        def f(bb, x):
            e = bb.un("math.exp", bb.un("arith.negf", x))
            return bb.bin("divf", None, bb.const(1.0), bb.bin("addf", None, bb.const(1.0), e))
        return self._elementwise(node, [a], f)

    def op_silu(self, node, a):
        def f(bb, x):
            e = bb.un("math.exp", bb.un("arith.negf", x))
            return bb.bin("divf", None, x, bb.bin("addf", None, bb.const(1.0), e))
        return self._elementwise(node, [a], f)

    def op_gelu(self, node, a, approximate="none"):
        def f(bb, x):
            half = bb.const(0.5)
            one = bb.const(1.0)
            if approximate == "tanh":
                x3 = bb.bin("mulf", None, bb.bin("mulf", None, x, x), x)
                inner = bb.bin("addf", None, x, bb.bin("mulf", None, bb.const(0.044715), x3))
                t = bb.un("math.tanh", bb.bin("mulf", None, bb.const(math.sqrt(2 / math.pi)), inner))
            else:
                t = bb.un("math.erf", bb.bin("mulf", None, x, bb.const(1 / math.sqrt(2))))
            return bb.bin("mulf", None, bb.bin("mulf", None, half, x), bb.bin("addf", None, one, t))
        return self._elementwise(node, [a], f)

    def op_where(self, node, cond, a, b):
        """The two values promoted to the result's type (PyTorch's
        `where` promotes its tensor operands), the condition as it is."""
        shape, et = self._out(node)
        c = self.val(cond)
        if c.et != "i1":
            self.fail(node, f"where() with a condition of type {c.et} (a bool tensor expected)")
        return self._elementwise(node, [cond, a, b],
                                 lambda bb, c, x, y: bb.v(f"arith.select {c}, {x}, {y} : {et}"),
                                 keep_types={0})

    @staticmethod
    def _dtype_of(o):
        """A stand-in for operand `o` with what torch's type promotion reads
        of it: its dtype and whether it is a 0-d tensor (which counts as a
        scalar of its category); a Python number as it is."""
        if isinstance(o, torch.fx.Node):
            fake = o.meta.get("val", o.meta.get("example_value"))
            if isinstance(fake, torch.Tensor):
                return torch.empty((1,) * min(fake.dim(), 1), dtype=fake.dtype, device="meta")
            o = fake  # an item() used as a number (SymInt / SymFloat / SymBool)
        if isinstance(o, (bool, torch.SymBool)):
            return True
        if isinstance(o, (int, torch.SymInt)):
            return 1
        if isinstance(o, (float, torch.SymFloat)):
            return 1.0
        return o

    def _promoted(self, node, operands) -> str:
        """The element type torch's type promotion gives `operands`
        (torch.result_type, folded over them): the type PyTorch computes a
        comparison in, and casts `cat`'s and `where`'s operands to."""
        protos = [self._dtype_of(o) for o in operands]
        try:
            res = protos[0]
            for p in protos[1:]:
                dt = torch.result_type(res, p)
                dim = 1 if any(isinstance(x, torch.Tensor) and x.dim() for x in (res, p)) else 0
                res = torch.empty((1,) * dim, dtype=dt, device="meta")
            dt = res.dtype if isinstance(res, torch.Tensor) else torch.tensor(res).dtype
        except Exception as e:  # noqa: BLE001 (torch's own message)
            self.fail(node, f"no promoted type for operands {operands!r}: {e}")
        if dt == torch.uint8:
            return "i16"  # (held so: meta)
        if dt not in _DTYPES:
            self.fail(node, f"operands promote to {dt}, which is not supported")
        return _DTYPES[dt]

    # Integer predicates on bools: unsigned (True is 1, not -1 as a signed i1).
    _UNSIGNED = {"sgt": "ugt", "slt": "ult", "sge": "uge", "sle": "ule", "eq": "eq", "ne": "ne"}

    def _compare(self, node, a, b, fpred, ipred):
        # Compare in the promoted type (torch.result_type: i64 < f32 in f32,
        # bool == i64 in i64, an int tensor against 2.5 in float), produce i1.
        in_et = self._promoted(node, [a, b])

        def f(bb, x, y):
            if _is_float(bb.et):
                return bb.v(f"arith.cmpf {fpred}, {x}, {y} : {bb.et}")
            pred = self._UNSIGNED[ipred] if bb.et == "i1" else ipred
            return bb.v(f"arith.cmpi {pred}, {x}, {y} : {bb.et}")
        return self._elementwise_typed(node, [a, b], f, in_et, "i1")

    def _elementwise_typed(self, node, operands, fn, compute_et, out_et):
        shape, _ = self._out(node)
        ins, refs = [], []
        for o in operands:
            if isinstance(o, torch.fx.Node):
                v = self.val(o)
                keep, loops = _broadcast_map(v.shape, shape)
                refs.append(("arg", len(ins), v.et))
                ins.append((self.e.drop_dims(v, keep), loops))
            else:
                refs.append(("const", o, None))
        def body(args, out):
            b = _Body(compute_et)
            vals = [self._cast(b, args[x], vet, compute_et) if k == "arg" else b.const(x)
                    for k, x, vet in refs]
            return b.lines, fn(b, *vals)
        return self.e.generic(ins, shape, out_et, body)

    def op_gt(self, node, a, b): return self._compare(node, a, b, "ogt", "sgt")
    def op_lt(self, node, a, b): return self._compare(node, a, b, "olt", "slt")
    def op_ge(self, node, a, b): return self._compare(node, a, b, "oge", "sge")
    def op_le(self, node, a, b): return self._compare(node, a, b, "ole", "sle")
    def op_eq(self, node, a, b): return self._compare(node, a, b, "oeq", "eq")
    def op_ne(self, node, a, b): return self._compare(node, a, b, "une", "ne")

    def op__to_copy(self, node, a, **kwargs):
        part = self._complex_part_type(node)
        if part or isinstance(self.values.get(a), _Complex):
            return self._complex_copy(node, a, part)
        shape, et = self._out(node)
        v = self.val(a)
        if v.et == et:
            return v
        return self._elementwise_typed(node, [a], lambda bb, x: x, et, et)

    def _full(self, node, value):
        part = self._complex_part_type(node)
        if part and not self._as_part:
            c = complex(value) if not isinstance(value, torch.fx.Node) else None
            if c is None:
                self.fail(node, "a complex tensor filled with a computed value")
            shape = tuple(int(d) for d in node.meta["val"].shape)
            return _Complex(self.e.filled(shape, part, c.real), self.e.filled(shape, part, c.imag))
        shape, et = self._out(node)
        if isinstance(value, torch.fx.Node):
            # A fill value computed in the graph (`x.mean().item()`): the
            # 0-d value broadcast.
            return self._elementwise(node, [value], lambda bb, v: v)
        return self.e.filled(shape, et, value)

    def op__local_scalar_dense(self, node, a):
        """`t.item()` of a one-element tensor whose number the graph uses
        again (a clamp bound, a fill value): the 0-d value itself, which
        element-wise ops read as a scalar operand. (A number used as a size
        makes a data-dependent shape, which export refuses.)"""
        v = self.val(a)
        if math.prod(v.shape) != 1:
            self.fail(node, f"item() of a tensor of shape {list(v.shape)}")
        return self.e.drop_dims(v, [])

    def op_full_like(self, node, a, fill_value, **kwargs): return self._full(node, fill_value)
    def op_zeros_like(self, node, a, **kwargs): return self._full(node, 0)
    def op_ones_like(self, node, a, **kwargs): return self._full(node, 1)
    def op_full(self, node, size, fill_value, **kwargs): return self._full(node, fill_value)
    def op_zeros(self, node, size, **kwargs): return self._full(node, 0)
    def op_ones(self, node, size, **kwargs): return self._full(node, 1)
    def op_scalar_tensor(self, node, value, **kwargs): return self._full(node, value)
    # Uninitialized in PyTorch; zeros here, so a program never reads garbage.
    def op_empty(self, node, size, **kwargs):
        fake = node.meta.get("val")
        if isinstance(fake, torch.Tensor) and fake.dtype not in _DTYPES:
            # (batch norm's reserve space, uint8, read by nothing we lower)
            return self._missing(node, f"an empty {fake.dtype} tensor")
        return self._full(node, 0)
    def op_empty_permuted(self, node, size, physical_layout, **kwargs):
        # (group norm's gradient) The memory order is not a value: zeros.
        return self.op_empty(node, size, **kwargs)
    def op_empty_like(self, node, a, **kwargs): return self._full(node, 0)
    # (RWKV's and RecurrentGemma's scans allocate their output with the
    # input's strides: the strides are not a value.)
    def op_empty_strided(self, node, size, stride, **kwargs):
        return self.op_empty(node, size, **kwargs)
    def op_new_empty_strided(self, node, a, size, stride, **kwargs):
        return self.op_empty(node, size, **kwargs)
    def op_new_empty(self, node, a, size, **kwargs):
        return self.op_empty(node, size, **kwargs)

    def op__assert_tensor_metadata(self, node, *args, **kwargs): return None
    def op__assert_scalar(self, node, *args, **kwargs): return None
    def op_clone(self, node, a, **kwargs): return self.val(a)
    def op_alias(self, node, a): return self.val(a)

    def op_as_strided(self, node, a, size, stride, storage_offset=None):
        """A strided read of the input's storage. Where the input is the
        whole of a contiguous storage (its meta says so), element
        sum(i_d * stride_d) + offset of its row-major order: the identity
        where that is every element in order (decompositions restride a
        result to keep its memory format), else a read of the flattened
        input at that affine position. Another input's storage is not our
        tensor: an error."""
        v = self.val(a)
        shape, et = self._out(node)
        size, stride = [int(x) for x in size], [int(x) for x in stride]
        offset = int(storage_offset or 0)
        fake = a.meta.get("val") if isinstance(a, torch.fx.Node) else None
        if fake is None:
            self.fail(node, "as_strided of a value without a recorded layout")
        own = list(fake.stride())
        if (tuple(size) == tuple(v.shape) and offset == int(fake.storage_offset()) and
                all(n == 1 or st == o for n, st, o in zip(size, stride, own))):
            return v
        flat = self._strided_storage(node, "as_strided", v, fake, size, stride, offset)
        terms = [f"d{i} * {st}" for i, (n, st) in enumerate(zip(size, stride)) if n > 1 and st]
        expr = " + ".join(terms + ([str(offset)] if offset or not terms else []))
        return self.e.generic([(flat, [expr])], tuple(size), et, lambda args, out: ([], args[0]))
    def _strided_storage(self, node, what, v: _Value, fake, size, stride, offset) -> _Value:
        """`v` flattened, as the storage a strided view (size, stride,
        offset) addresses: an error unless `v` is a whole contiguous storage
        and the view stays inside it."""
        if fake is None or not fake.is_contiguous() or int(fake.storage_offset()) != 0:
            self.fail(node, f"{what} (size {size}, stride {stride}) of a tensor that is not a "
                            "whole contiguous storage")
        total = math.prod(v.shape)
        last = offset + sum((n - 1) * st for n, st in zip(size, stride) if n > 0)
        if any(st < 0 for st in stride) or (math.prod(size) and last >= total):
            self.fail(node, f"{what} (size {size}, stride {stride}) reaches outside the input")
        return v if len(v.shape) == 1 else self.e.collapse(
            v, [list(range(len(v.shape)))] if v.shape else [], (total,))

    def op_as_strided_scatter(self, node, a, src, size, stride, storage_offset=None):
        """`a` with `src` written where as_strided(a, size, stride, offset)
        reads (functionalized writes into a strided view: RWKV's scan fills
        its output one step at a time). Each element p of the flattened,
        contiguous input is decomposed, largest stride first, into the
        view's index; where that is exact and in bounds, it takes src's
        element there, else keeps its own. Views whose elements overlap (the
        decomposition not unique) are an error."""
        v, sv = self.val(a), self.val(src)
        shape, et = self._out(node)
        size, stride = [int(x) for x in size], [int(x) for x in stride]
        offset = int(storage_offset or 0)
        fake = a.meta.get("val") if isinstance(a, torch.fx.Node) else None
        if tuple(sv.shape) != tuple(size):
            self.fail(node, f"as_strided_scatter of a {list(sv.shape)} source into a {size} view")
        flat = self._strided_storage(node, "as_strided_scatter", v, fake, size, stride, offset)
        total = math.prod(v.shape)
        n_src = math.prod(size)
        moving = sorted((d for d in range(len(size)) if size[d] > 1), key=lambda d: -stride[d])
        for j, d in enumerate(moving):
            inner = sum((size[e] - 1) * stride[e] for e in moving[j + 1:])
            if stride[d] <= inner:
                self.fail(node, f"as_strided_scatter (size {size}, stride {stride}) into a view "
                                "whose elements overlap")
        if n_src == 0:
            return v
        src_flat = self.e.collapse(sv, [list(range(len(size)))] if size else [], (n_src,))
        rows = [math.prod(size[d + 1:]) for d in range(len(size))]

        def index_of(args, out):
            # The source element each input element takes (-1: none).
            bb = _Body("i64")
            p = bb.v("arith.index_cast " + bb.v("linalg.index 0 : index") + " : index to i64")
            r = bb.v(f"arith.subi {p}, {bb.const(offset)} : i64")
            ok = bb.v(f"arith.cmpi sge, {r}, {bb.const(0)} : i64")
            k = bb.const(0)
            for d in moving:
                i = bb.v(f"arith.divsi {r}, {bb.const(stride[d])} : i64")
                r = bb.v(f"arith.subi {r}, " + bb.v(f"arith.muli {i}, {bb.const(stride[d])} : i64") +
                         " : i64")
                inside = bb.v(f"arith.cmpi slt, {i}, {bb.const(size[d])} : i64")
                ok = bb.v(f"arith.andi {ok}, {inside} : i1")
                k = bb.v(f"arith.addi {k}, " + bb.v(f"arith.muli {i}, {bb.const(rows[d])} : i64") +
                         " : i64")
            exact = bb.v(f"arith.cmpi eq, {r}, {bb.const(0)} : i64")
            ok = bb.v(f"arith.andi {ok}, {exact} : i1")
            return bb.lines, bb.v(f"arith.select {ok}, {k}, {bb.const(-1)} : i64")
        which = self.e.generic([], (total,), "i64", index_of)
        table = self.e.expand(src_flat, [[0, 1]], (n_src, 1))
        clamped = self.e.generic([(which, [0])], (total,), "i64", lambda args, out: (
            lambda bb: (bb.lines, bb.v(f"arith.maxsi {args[0]}, {bb.const(0)} : i64")))(
                _Body("i64")))
        picked = self.e.collapse(self._lookup(table, clamped), [[0, 1]], (total,))

        def choose(args, out):
            bb = _Body(et)
            hit = bb.v(f"arith.cmpi sge, {args[0]}, {bb.const(0, 'i64')} : i64")
            return bb.lines, bb.v(f"arith.select {hit}, {args[1]}, {args[2]} : {et}")
        merged = self.e.generic([(which, [0]), (picked, [0]), (flat, [0])], (total,), et, choose)
        if len(shape) == 1:
            return merged
        return self.e.expand(merged, [list(range(len(shape)))] if shape else [], tuple(shape))

    def op_detach(self, node, a): return self.val(a)
    def op_contiguous(self, node, a, **kwargs): return self.val(a)
    def op_lift_fresh_copy(self, node, a): return self.val(a)
    def op_dropout(self, node, a, p=0.5, train=False):
        if not train or p == 0:
            return self.val(a)
        return self.op_native_dropout(node, a, p, train)[0]

    # -- random ops --------------------------------------------------------------
    _RANDOM = ("bernoulli", "rand", "rand_like", "randn", "randn_like", "native_dropout",
               "dropout", "randint", "randint_like")

    @classmethod
    def _is_random(cls, node) -> bool:
        if node.op != "call_function":
            return False
        packet = getattr(node.target, "_overloadpacket", None)
        name = getattr(packet, "__name__", "") if packet else ""
        if name == "dropout":
            p = node.args[1] if len(node.args) > 1 else node.kwargs.get("p", 0.5)
            train = node.args[2] if len(node.args) > 2 else node.kwargs.get("train", False)
            return bool(train) and p > 0
        return name in cls._RANDOM

    # SplitMix64's constants, as signed 64-bit integers.
    _GOLDEN = -7046029254386353131      # 0x9E3779B97F4A7C15
    _MIX1 = -4658895280553007687        # 0xBF58476D1CE4E5B9
    _MIX2 = -7723592293110705685        # 0x94D049BB133111EB

    def _splitmix(self, bb: "_Body", z: str) -> str:
        z = bb.v(f"arith.addi {z}, {bb.const(self._GOLDEN, 'i64')} : i64")
        for shift, mult in ((30, self._MIX1), (27, self._MIX2)):
            amount = bb.const(shift, "i64")
            z = bb.v(f"arith.xori {z}, {bb.v(f'arith.shrui {z}, {amount} : i64')} : i64")
            z = bb.v(f"arith.muli {z}, {bb.const(mult, 'i64')} : i64")
        amount = bb.const(31, "i64")
        return bb.v(f"arith.xori {z}, {bb.v(f'arith.shrui {z}, {amount} : i64')} : i64")

    def _random_bits(self, bb: "_Body", seed: str, stream: int, shape) -> str:
        """64 random bits for the element at the loop indices: SplitMix64 of
        the element's linear position in the whole tensor under a key made
        from the step's seed and the op's stream. A function of the global
        position only, so every rank computes its own shard's piece of one
        global tensor, whatever the sharding (DTensor's offset-based RNG
        gives the same guarantee)."""
        lin = bb.const(0, "i64")
        for d, n in enumerate(shape):
            i = bb.v(f"arith.index_cast {bb.v(f'linalg.index {d} : index')} : index to i64")
            size = bb.const(n, "i64")
            lin = bb.v(f"arith.addi {bb.v(f'arith.muli {lin}, {size} : i64')}, {i} : i64")
        key = bb.v(f"arith.addi {seed}, {bb.const(stream * 0x2545F491, 'i64')} : i64")
        key = self._splitmix(bb, key)
        return self._splitmix(bb, bb.v(f"arith.xori {key}, {lin} : i64"))

    def _uniform(self, bb: "_Body", bits: str, et: str) -> str:
        """A uniform value in [0, 1) of `et` from 64 random bits: the top
        mantissa-width bits, exactly representable."""
        width = {"f64": 53, "f32": 24, "f16": 11, "bf16": 8}[et]
        top = bb.v(f"arith.shrui {bits}, {bb.const(64 - width, 'i64')} : i64")
        x = bb.v(f"arith.sitofp {top} : i64 to {et}")
        return bb.v(f"arith.mulf {x}, {bb.const(2.0 ** -width, et)} : {et}")

    def _random(self, node, shape, et: str, ins, fn) -> _Value:
        """A generic over `shape` whose body gets each element's random bits
        (`fn(bb, bits, args)`); the seed argument is its last input."""
        if self.rng_seed is None:
            self.fail(node, "a random op outside a graph that takes a seed")
        stream = self.rng_streams
        self.rng_streams += 1
        r = len(shape)

        def body(args, out):
            bb = _Body(et)
            bits = self._random_bits(bb, args[-1], stream, shape)
            return bb.lines, fn(bb, bits, args[:-1])
        return self.e.generic(list(ins) + [(self.rng_seed, [])], tuple(shape), et, body,
                              nloops=r, out_map=list(range(r)))

    def _normal(self, bb: "_Body", bits: str, et: str) -> str:
        """A standard normal value (Box-Muller in f64 on two uniforms drawn
        from the element's bits)."""
        u1 = self._uniform(bb, bits, "f64")
        u1 = bb.v(f"arith.subf {bb.const(1.0, 'f64')}, {u1} : f64")  # (0, 1]
        u2 = self._uniform(bb, self._splitmix(bb, bits), "f64")
        minus_two = bb.const(-2.0, "f64")
        logged = bb.v(f"math.log {u1} : f64")
        radius = bb.v(f"math.sqrt {bb.v(f'arith.mulf {minus_two}, {logged} : f64')} : f64")
        angle = bb.v(f"arith.mulf {bb.const(2 * math.pi, 'f64')}, {u2} : f64")
        z = bb.v(f"arith.mulf {radius}, {bb.v(f'math.cos {angle} : f64')} : f64")
        return self._cast(bb, z, "f64", et)

    def op_rand(self, node, *args, **kwargs):
        """Uniform in [0, 1) (drop-path's keep mask). The values are ours,
        not PyTorch's generator's; the same for every sharding."""
        shape, et = self._out(node)
        if not _is_float(et):
            self.fail(node, "rand of an integer dtype")
        return self._random(node, shape, et, [], lambda bb, bits, a: self._uniform(bb, bits, et))

    op_rand_like = op_rand

    def op_randint(self, node, *args, **kwargs):
        """Integers uniform in [low, high) (`randint(high, size)`,
        `randint(low, high, size)`, `randint_like(t, high)`, `randint_like(t,
        low, high)`): the element's bits (top bit cleared) modulo the range.
        Ours, not PyTorch's generator's; the same for every sharding."""
        shape, et = self._out(node)
        name = node.target._overloadpacket.__name__
        if name == "randint_like":
            nums = [a for a in args[1:] if isinstance(a, (int, float))]
        else:
            nums = [a for a in args if isinstance(a, (int, float)) and not isinstance(a, bool)]
        low, high = (0, nums[0]) if len(nums) == 1 else (nums[0], nums[1])
        low, high = int(low), int(high)
        if high <= low:
            self.fail(node, f"randint with an empty range [{low}, {high})")

        def draw(bb, bits, a):
            positive = bb.v(f"arith.shrui {bits}, {bb.const(1, 'i64')} : i64")
            r = bb.v(f"arith.remsi {positive}, {bb.const(high - low, 'i64')} : i64")
            r = bb.v(f"arith.addi {r}, {bb.const(low, 'i64')} : i64")
            if et == "i64":
                return r
            if _is_float(et):
                return bb.v(f"arith.sitofp {r} : i64 to {et}")
            return bb.v(f"arith.trunci {r} : i64 to {et}")
        return self._random(node, shape, et, [], draw)

    op_randint_like = op_randint

    def op_randn(self, node, *args, **kwargs):
        shape, et = self._out(node)
        if not _is_float(et):
            self.fail(node, "randn of an integer dtype")
        return self._random(node, shape, et, [], lambda bb, bits, a: self._normal(bb, bits, et))

    op_randn_like = op_randn

    def op_bernoulli(self, node, a, p=None, **kwargs):
        """1 with probability p (a number, or `a`'s elements as
        probabilities), else 0, in `a`'s dtype: dropout's keep mask."""
        shape, et = self._out(node)
        v = self.val(a)
        r = len(shape)
        ins = [] if isinstance(p, (int, float)) else [(v, list(range(r)))]

        def fn(bb, bits, args):
            u = self._uniform(bb, bits, "f64")
            prob = bb.const(float(p), "f64") if not args else self._cast(bb, args[0], v.et, "f64")
            hit = bb.v(f"arith.cmpf olt, {u}, {prob} : f64")
            return bb.v(f"arith.select {hit}, {bb.const(1, et)}, {bb.const(0, et)} : {et}")
        return self._random(node, shape, et, ins, fn)

    def op_native_dropout(self, node, a, p, train=True):
        """Each element kept with probability 1 - p and scaled by 1 / (1 - p)
        (in training; the identity otherwise), and the keep mask."""
        v = self.val(a)
        r = len(v.shape)
        if not train or p == 0:
            return v, self.e.filled(v.shape, "i1", 1)
        if p >= 1:
            return self.e.filled(v.shape, v.et, 0), self.e.filled(v.shape, "i1", 0)
        et = v.et

        def keep_fn(bb, bits, args):
            u = self._uniform(bb, bits, "f64")
            return bb.v(f"arith.cmpf oge, {u}, {bb.const(float(p), 'f64')} : f64")
        keep = self._random(node, v.shape, "i1", [], keep_fn)

        def apply(args, out):
            bb = _Body(et)
            scaled = bb.bin("mulf", None, args[0], bb.const(1.0 / (1.0 - p)))
            return bb.lines, bb.v(f"arith.select {args[1]}, {scaled}, {bb.const(0)} : {et}")
        out = self.e.generic([(v, list(range(r))), (keep, list(range(r)))], v.shape, et, apply)
        return out, keep

    # -- the DTensor API in Dynamo graphs --------------------------------------
    def _spec_of(self, node, placements) -> str:
        try:
            ps = placements_of(placements, self.mesh.shape)
        except DTensorError as e:
            self.fail(node, str(e))
        if len(ps) != self.mesh.ndim:
            self.fail(node, f"{len(ps)} placement(s) for a {self.mesh.ndim}-D mesh")
        return "#dtensor.spec<@mesh, [" + ", ".join(p.spec() for p in ps) + "]>"

    def _mesh_arg(self, node, mesh):
        if mesh is not None and self.values.get(mesh) != "MESH" and not _is_mesh_object(mesh):
            self.fail(node, "the DeviceMesh must be a graph input")

    def op_from_local(self, node, x, mesh=None, placements=None, run_check=False,
                      shape=None, stride=None, **kw):
        self._mesh_arg(node, mesh)
        v = self.val(x)
        gshape, et = self._out(node)
        out = _Value(self.e.fresh("dt"), gshape, et, self._spec_of(node, placements))
        self.e.emit(f"{out.name} = dtensor.from_local {v.name}, %mesh : {v.type}, "
                    f"!dtensor.device_mesh<@mesh> -> {out.type}")
        return out

    def method_redistribute(self, node, dt, device_mesh=None, placements=None,
                            async_op=False, **kw):
        if placements is None and "mesh" in kw:
            device_mesh = kw.pop("mesh")
        self._mesh_arg(node, device_mesh)
        v = self.val(dt)
        out = _Value(self.e.fresh("dt"), v.shape, v.et, self._spec_of(node, placements))
        self.e.emit(f"{out.name} = dtensor.redistribute {v.name}, %mesh : {v.type}, "
                    f"!dtensor.device_mesh<@mesh> -> {out.type}")
        return out

    def method_to_local(self, node, dt, grad_placements=None):
        v = self.val(dt)
        shape, et = self._out(node)
        # Every rank's shard must have this shape: uneven shards would need
        # dynamic sizes, which the importer does not emit yet.
        ps = self.spec_placements(v)
        from . import layout as _layout
        sizes = {s.local_shape for s in _layout(self.mesh, v.shape, ps)}
        if len(sizes) != 1:
            self.fail(node, f"to_local of uneven shards ({sorted(sizes)}) is not supported yet")
        out = _Value(self.e.fresh("l"), next(iter(sizes)), et)
        self.e.emit(f"{out.name} = dtensor.to_local {v.name} : {v.type} -> {out.type}")
        return out

    def method_full_tensor(self, node, dt, grad_placements=None):
        v = self.val(dt)
        out = _Value(self.e.fresh("full"), v.shape, v.et)
        self.e.emit(f"{out.name} = dtensor.full_tensor {v.name}, %mesh : {v.type}, "
                    f"!dtensor.device_mesh<@mesh> -> {out.type}")
        return out

    @staticmethod
    def spec_placements(v: _Value) -> List[Placement]:
        inner = v.spec[v.spec.index("[") + 1:v.spec.rindex("]")]
        out = []
        for part in re.findall(r"S\((-?\d+)\)(?:\[(\d+)\])?|R|P\((\w+)\)", inner):
            pass
        for tok in [t.strip() for t in re.split(r",\s*(?![^\[]*\])", inner)]:
            if tok == "R":
                out.append(Replicate())
            elif tok.startswith("P("):
                out.append(Partial(tok[2:-1]))
            else:
                m = re.match(r"S\((-?\d+)\)(?:\[(\d+)\])?", tok)
                out.append(Shard(int(m.group(1)), int(m.group(2)) if m.group(2) else None))
        return out

    # -- functional collectives (AOTAutograd graphs, the local view) ---------
    _REDUCE = {"sum": "sum", "avg": "avg", "max": "max", "min": "min", "product": "product",
               "premul_sum": None, "bor": None, "band": None, "bxor": None}

    def _group(self, node, name, size: Optional[int] = None) -> str:
        name = str(name)
        if name not in self.groups:
            self.fail(node, f"process group '{name}' is not a group of the mesh: give "
                            f"groups={{'{name}': [mesh dims]}} (known: {sorted(self.groups)})")
        dims = self.groups[name]
        n = 1
        for d in dims:
            n *= self.mesh.shape[d]
        if size is not None and int(size) != n:
            self.fail(node, f"process group '{name}' has {size} ranks but mesh dims {dims} "
                            f"make groups of {n}")
        return "[" + ", ".join(map(str, dims)) + "]"

    def _reduce_kind(self, node, op) -> str:
        kind = self._REDUCE.get(str(op).lower())
        if kind is None:
            self.fail(node, f"reduction '{op}' is not supported")
        return kind

    def _start(self, node, x, text_of) -> _Future:
        v = self.val(x)
        shape, et = self._out(node)
        out = _Value("", shape, et)
        f = _Future(self.e.fresh("fut"), out)
        self.e.emit(f"{f.name} = {text_of(v)} : {v.type}, !dtensor.device_mesh<@mesh> -> {f.type}")
        return f

    def op_all_reduce(self, node, x, op, group):
        dims = self._group(node, group)
        kind = self._reduce_kind(node, op)
        return self._start(node, x, lambda v: f"dtensor.all_reduce {v.name}, %mesh "
                                              f"mesh_dims = {dims} reduce = {kind}")

    def op_all_gather_into_tensor(self, node, x, group_size, group):
        dims = self._group(node, group, group_size)
        return self._start(node, x, lambda v: f"dtensor.all_gather {v.name}, %mesh "
                                              f"mesh_dims = {dims} gather_dim = 0")

    def op_reduce_scatter_tensor(self, node, x, op, group_size, group):
        dims = self._group(node, group, group_size)
        kind = self._reduce_kind(node, op)
        return self._start(node, x, lambda v: f"dtensor.reduce_scatter {v.name}, %mesh "
                                              f"mesh_dims = {dims} scatter_dim = 0 reduce = {kind}")

    def op_all_to_all_single(self, node, x, output_split_sizes, input_split_sizes, group):
        for sizes in (output_split_sizes, input_split_sizes):
            if sizes is not None and len(set(sizes)) > 1:
                self.fail(node, f"all_to_all_single with uneven splits {list(sizes)} is not supported")
        dims = self._group(node, group)
        return self._start(node, x, lambda v: f"dtensor.all_to_all {v.name}, %mesh "
                                              f"mesh_dims = {dims} split_dim = 0 concat_dim = 0")

    def op_wait_tensor(self, node, f):
        fut = self.values[f]
        if isinstance(fut, _Value):
            return fut  # already a tensor (waited twice, or never async)
        out = _Value(self.e.fresh("w"), fut.value.shape, fut.value.et)
        self.e.emit(f"{out.name} = dtensor.wait {fut.name} : {fut.type}")
        return out

    # -- linear algebra ------------------------------------------------------
    def _matmul(self, a: _Value, b: _Value, shape, et, batched: bool) -> _Value:
        init = self.e.filled(shape, et, 0)
        n = self.e.fresh("mm")
        op = "linalg.batch_matmul" if batched else "linalg.matmul"
        out = _Value(n, shape, et)
        self.e.emit(f"{n} = {op} ins({a.name}, {b.name} : {a.type}, {b.type}) "
                    f"outs({init.name} : {init.type}) -> {out.type}")
        return out

    def op_mm(self, node, a, b):
        shape, et = self._out(node)
        return self._matmul(self.val(a), self.val(b), shape, et, False)

    def op_bmm(self, node, a, b):
        shape, et = self._out(node)
        return self._matmul(self.val(a), self.val(b), shape, et, True)

    def op_addmm(self, node, bias, a, b, beta=1, alpha=1):
        shape, et = self._out(node)
        m = self._matmul(self.val(a), self.val(b), shape, et, False)
        return self._add_bias(m, bias, shape, et, beta, alpha)

    def _transpose(self, v: _Value, perm: List[int]) -> _Value:
        if list(perm) == list(range(len(perm))):
            return v
        shape = tuple(v.shape[p] for p in perm)
        e = self.e.empty(shape, v.et)
        n = self.e.fresh("t")
        out = _Value(n, shape, v.et)
        self.e.emit(f"{n} = linalg.transpose ins({v.name} : {v.type}) outs({e} : {out.type}) "
                    f"permutation = [{', '.join(map(str, perm))}]")
        return out

    def op_t(self, node, a):
        v = self.val(a)
        return self._transpose(v, [1, 0]) if len(v.shape) == 2 else v

    def op_permute(self, node, a, dims):
        v = self.val(a)
        r = len(v.shape)
        return self._transpose(v, [d % r for d in dims])

    def op_transpose(self, node, a, d0, d1):
        v = self.val(a)
        r = len(v.shape)
        perm = list(range(r))
        perm[d0 % r], perm[d1 % r] = perm[d1 % r], perm[d0 % r]
        return self._transpose(v, perm)

    # -- shapes ----------------------------------------------------------------
    def op_view(self, node, a, size):
        v = self.val(a)
        shape, et = self._out(node)
        if isinstance(size, torch.dtype):
            # `Tensor.view(dtype)`: the same bits read as another type.
            if et == v.et:
                return v
            widths = {"i8": 8, "i16": 16, "f16": 16, "bf16": 16, "i32": 32, "f32": 32,
                      "i64": 64, "f64": 64}
            if widths.get(v.et) is None or widths.get(v.et) != widths.get(et):
                self.fail(node, f"Tensor.view({size}) of a {v.et} tensor reinterprets its bits "
                                "in elements of another width, which is not supported yet "
                                "(views between types of one width are); use .to(dtype) to "
                                "convert the values")
            r = len(v.shape)

            def body(args, out):
                bb = _Body(et)
                return bb.lines, bb.v(f"arith.bitcast {args[0]} : {v.et} to {et}")
            return self.e.generic([(v, list(range(r)))], tuple(v.shape), et, body)
        return self._reshape(node, v, shape)

    op__unsafe_view = op_view
    op_reshape = op_view

    def _reshape(self, node, v: _Value, shape) -> _Value:
        shape = tuple(shape)
        if shape == v.shape:
            return v
        # To or from rank 0 (every dim of 1): a collapse or expand with no
        # groups.
        if not shape and all(n == 1 for n in v.shape):
            return self.e.collapse(v, [], shape)
        if not v.shape and all(n == 1 for n in shape):
            return self.e.expand(v, [], shape)
        groups = _view_groups(v.shape, shape)
        if groups is None:
            self.fail(node, f"cannot express the view {v.shape} -> {shape} as collapses and expands")
        if all(len(gi) == 1 for gi, _ in groups):
            return self.e.expand(v, [gj for _, gj in groups], shape)
        if all(len(gj) == 1 for _, gj in groups):
            return self.e.collapse(v, [gi for gi, _ in groups], shape)
        # Collapse every group to one dim, then expand.
        mid = []
        for gi, _ in groups:
            p = 1
            for d in gi:
                p *= v.shape[d]
            mid.append(p)
        c = self.e.collapse(v, [gi for gi, _ in groups], tuple(mid))
        return self.e.expand(c, [gj for _, gj in groups], shape)

    def op_unsqueeze(self, node, a, dim):
        shape, _ = self._out(node)
        return self._reshape(node, self.val(a), shape)

    def op_squeeze(self, node, a, dim=None):
        shape, _ = self._out(node)
        return self._reshape(node, self.val(a), shape)

    def op_flatten(self, node, a, start=0, end=-1):
        shape, _ = self._out(node)
        return self._reshape(node, self.val(a), shape)

    def op_expand(self, node, a, size, implicit=False):
        shape, et = self._out(node)
        v = self.val(a)
        if v.shape == shape:
            return v
        keep, loops = _broadcast_map(v.shape, shape)
        v2 = self.e.drop_dims(v, keep)
        return self.e.generic([(v2, loops)], shape, et, lambda args, out: ([], args[0]))

    def op_slice(self, node, a, dim=0, start=None, end=None, step=1):
        v = self.val(a)
        shape, et = self._out(node)
        r = len(v.shape)
        dim %= r
        n = v.shape[dim]
        start = 0 if start is None else start
        start = max(0, min(n, start + n if start < 0 else start))
        offsets = [0] * r
        offsets[dim] = start
        strides = [1] * r
        strides[dim] = step
        if shape == v.shape and step == 1:
            return v
        if step != 1:
            # out[..., i, ...] = in[..., start + step * i, ...]: a windowed
            # read, which propagation and partitioning handle on sharded dims.
            dims = [f"d{i}" for i in range(r)]
            in_map = ", ".join(f"d{i} * {step} + {start}" if i == dim else f"d{i}"
                               for i in range(r))
            e = self.e.empty(shape, et)
            o = self.e.fresh("s")
            out = _Value(o, shape, et)
            loops = ", ".join(dims)
            iters = ", ".join(['"parallel"'] * r)
            self.e.emit(f"{o} = linalg.generic {{indexing_maps = [affine_map<({loops}) -> "
                        f"({in_map})>, affine_map<({loops}) -> ({loops})>], "
                        f"iterator_types = [{iters}]}}\n"
                        f"    ins({v.name} : {v.type}) outs({e} : {out.type}) {{\n"
                        f"  ^bb0(%a0: {et}, %o: {et}):\n"
                        f"    linalg.yield %a0 : {et}\n"
                        f"  }} -> {out.type}")
            return out
        return self.e.slice(v, offsets, shape)

    def op_select(self, node, a, dim, index):
        v = self.val(a)
        shape, et = self._out(node)
        r = len(v.shape)
        dim %= r
        index = index + v.shape[dim] if index < 0 else index
        offsets = [0] * r
        offsets[dim] = index
        sizes = list(v.shape)
        sizes[dim] = 1
        o = self.e.fresh("s")
        kept = tuple(sizes)
        sl = _Value(o, kept, et)
        self.e.emit(f"{o} = tensor.extract_slice {v.name}[{', '.join(map(str, offsets))}] "
                    f"[{', '.join(map(str, sizes))}] [{', '.join(['1'] * r)}] : "
                    f"{v.type} to {sl.type}")
        return self._reshape(node, sl, shape)

    def op_split_with_sizes(self, node, a, sizes, dim=0):
        v = self.val(a)
        r = len(v.shape)
        dim %= r
        outs, start = [], 0
        for size in sizes:
            offsets = [0] * r
            offsets[dim] = start
            shape = list(v.shape)
            shape[dim] = size
            outs.append(self.e.slice(v, offsets, shape))
            start += size
        return tuple(outs)

    def op_split(self, node, a, split_size, dim=0):
        v = self.val(a)
        n = v.shape[dim % len(v.shape)]
        sizes = [min(split_size, n - s) for s in range(0, n, split_size)]
        return self.op_split_with_sizes(node, a, sizes, dim)

    def op_cat(self, node, tensors, dim=0):
        shape, et = self._out(node)
        # Operands of several dtypes are promoted first (the result's type is
        # torch.result_type of them all).
        vs = [self._convert(self.val(t), et) for t in tensors]
        vs = [v for v in vs if v.shape != (0,)]
        if len(vs) == 1:
            return vs[0]
        dim %= len(shape)
        n = self.e.fresh("cat")
        out = _Value(n, shape, et)
        self.e.emit(f"{n} = tensor.concat dim({dim}) {', '.join(v.name for v in vs)} : "
                    f"({', '.join(v.type for v in vs)}) -> {out.type}")
        return out

    # -- reductions ------------------------------------------------------------
    def _reduce(self, node, v: _Value, dims, keepdim, kind: str, et: str,
                acc: bool = False) -> _Value:
        """A sum / max / min / prod over `dims`, in `et`. Sums and products
        of f16 / bf16 accumulate in f32 and are rounded once at the end, as
        PyTorch's kernels do (`acc`: keep the f32 result, for a mean)."""
        want = et
        if kind in ("sum", "prod"):
            et = _acc_et(et)
        res = self._reduce_in(node, v, dims, keepdim, kind, et)
        return res if acc else self._convert(res, want)

    def _reduce_in(self, node, v: _Value, dims, keepdim, kind: str, et: str) -> _Value:
        r = len(v.shape)
        dims = sorted({d % r for d in (dims if dims else range(r))}) if dims is not None else list(range(r))
        red_shape = tuple(s for i, s in enumerate(v.shape) if i not in dims)
        # The identity of max / min is the type's own extreme.
        init_value = {"sum": 0, "max": _extreme(et, False), "min": _extreme(et, True),
                      "prod": 1}[kind]
        init = self.e.filled(red_shape, et, init_value)
        fop, iop = {"sum": ("addf", "addi"), "max": ("maximumf", "maxsi"),
                    "min": ("minimumf", "minsi"), "prod": ("mulf", "muli")}[kind]
        if et == "i1" and kind != "sum":  # any / all
            iop = {"max": "ori", "min": "andi"}[kind]
        def body(args, out):
            bb = _Body(et)
            x = self._cast(bb, args[0], v.et, et)
            return bb.lines, bb.bin(fop, iop, x, out)
        res = self.e.generic([(v, list(range(r)))], red_shape, et, body,
                             reduce_dims=dims, init=init, nloops=r)
        if keepdim:
            shape = tuple(1 if i in dims else s for i, s in enumerate(v.shape))
            return self._reshape(node, res, shape)
        return res

    def op_sum(self, node, a, dim=None, keepdim=False, dtype=None):
        shape, et = self._out(node)
        return self._reduce(node, self.val(a), dim, keepdim, "sum", et)

    def op_amax(self, node, a, dim=(), keepdim=False):
        shape, et = self._out(node)
        return self._reduce(node, self.val(a), list(dim) if dim else None, keepdim, "max", et)

    def op_amin(self, node, a, dim=(), keepdim=False):
        shape, et = self._out(node)
        return self._reduce(node, self.val(a), list(dim) if dim else None, keepdim, "min", et)

    def _scale(self, v: _Value, factor: float) -> _Value:
        def body(args, out):
            bb = _Body(v.et)
            return bb.lines, bb.bin("mulf", None, args[0], bb.const(factor))
        r = len(v.shape)
        return self.e.generic([(v, list(range(r)))], v.shape, v.et, body)

    def op_mean(self, node, a, dim=None, keepdim=False, dtype=None):
        v = self.val(a)
        shape, et = self._out(node)
        r = len(v.shape)
        dims = sorted({d % r for d in dim}) if dim else list(range(r))
        count = 1
        for d in dims:
            count *= v.shape[d]
        s = self._reduce(node, v, dims, keepdim, "sum", et, acc=True)
        # Over no element: 0 / 0, NaN (as PyTorch).
        return self._convert(self._divide(s, count), et)

    def _divide(self, v: _Value, count: int) -> _Value:
        """v / count: a multiplication by 1 / count, or for count 0 a
        division by 0 (NaN or +-inf, as PyTorch's mean and var give)."""
        if count != 0:
            return self._scale(v, 1.0 / count)

        def body(args, out):
            bb = _Body(v.et)
            return bb.lines, bb.bin("divf", None, args[0], bb.const(0.0))
        r = len(v.shape)
        return self.e.generic([(v, list(range(r)))], v.shape, v.et, body)

    def _var(self, node, v: _Value, dim, correction, keepdim, et):
        """(variance, mean with the reduced dims kept as 1)."""
        r = len(v.shape)
        if isinstance(dim, int):
            dim = [dim]
        dims = sorted({d % r for d in dim}) if dim else list(range(r))
        count = 1
        for d in dims:
            count *= v.shape[d]
        mean = self._divide(self._reduce(node, v, dims, True, "sum", et), count)
        centered = self._binary_values(v, mean, lambda bb, x, y: bb.bin("subf", None, x, y))
        sq = self._binary_values(centered, centered, lambda bb, x, y: bb.bin("mulf", None, x, y))
        corr = correction if correction is not None else 1
        s = self._reduce(node, sq, dims, keepdim, "sum", et)
        # PyTorch divides by max(0, N - correction): with no degree of
        # freedom left the variance is 0 / 0 (NaN) or inf.
        return self._divide(s, max(count - corr, 0)), mean

    def op_var(self, node, a, dim=None, *, correction=1, keepdim=False, **kw):
        shape, et = self._out(node)
        return self._var(node, self.val(a), dim, correction, keepdim, et)[0]

    def op_var_mean(self, node, a, dim=None, *, correction=1, keepdim=False, **kw):
        v = self.val(a)
        var, mean = self._var(node, v, dim, correction, keepdim, v.et)
        return var, self._reshape(node, mean, var.shape)

    def op_std(self, node, a, dim=None, *, correction=1, keepdim=False, **kw):
        shape, et = self._out(node)
        var = self._var(node, self.val(a), dim, correction, keepdim, et)[0]
        return self._unary_value(var, lambda bb, x: bb.un("math.sqrt", x))

    def op_prod(self, node, a, dim=None, keepdim=False, dtype=None):
        shape, et = self._out(node)
        v = self.val(a)
        r = len(v.shape)
        dims = None if dim is None else [dim % r]
        if not _is_float(et) and v.et == "i1":
            self.fail(node, "the product of a bool tensor")
        return self._reduce(node, v, dims, keepdim, "prod", et)

    def op_cumsum(self, node, a, dim, dtype=None):
        """out[.., i, ..] = the sum of x[.., k, ..] for k <= i, in order: a
        reduction over k of the elements at or before i (so a sharded dim
        sums as a Partial, each rank's own elements at their global
        positions). Quadratic in the dim's size."""
        return self._scan(node, a, dim, 0, "addf", "addi")

    def op_cumprod(self, node, a, dim, dtype=None):
        """The product of x[.., k, ..] for k <= i, as cumsum (a Partial
        product along a sharded dim)."""
        return self._scan(node, a, dim, 1, "mulf", "muli")

    def op_cummax(self, node, a, dim):
        return self._cum_extreme(node, a, dim, True)

    def op_cummin(self, node, a, dim):
        return self._cum_extreme(node, a, dim, False)

    def _cum_extreme(self, node, a, dim, largest: bool):
        """The running max (min) along `dim`, a scan as cumsum (a Partial
        max along a sharded dim), and its index: the last k <= i whose
        element equals it (a NaN, once seen, is the value and the last NaN
        its index), as PyTorch's kernel, which replaces on ties."""
        v = self.val(a)
        r = len(v.shape)
        dim %= r
        et = v.et
        if et == "i1":
            self.fail(node, "cummax / cummin of a bool tensor")
        fop, iop = ("maximumf", "maxsi") if largest else ("minimumf", "minsi")
        vals = self._scan(node, a, dim, _extreme(et, not largest), fop, iop, out=(v.shape, et))
        k = r
        init = self.e.filled(v.shape, "i64", -1)

        def body(args, out):
            bb = _Body("i64")
            i = bb.v(f"linalg.index {dim} : index")
            j = bb.v(f"linalg.index {k} : index")
            upto = bb.v(f"arith.cmpi ule, {j}, {i} : index")
            x, m = args
            if _is_float(et):
                same = bb.v(f"arith.cmpf oeq, {x}, {m} : {et}")
                nan_x = bb.v(f"arith.cmpf uno, {x}, {x} : {et}")
                nan_m = bb.v(f"arith.cmpf uno, {m}, {m} : {et}")
                same = bb.v(f"arith.ori {same}, {bb.v(f'arith.andi {nan_x}, {nan_m} : i1')} : i1")
            else:
                same = bb.v(f"arith.cmpi eq, {x}, {m} : {et}")
            take = bb.v(f"arith.andi {upto}, {same} : i1")
            jv = bb.v(f"arith.index_cast {j} : index to i64")
            cand = bb.v(f"arith.select {take}, {jv}, {bb.const(-1)} : i64")
            return bb.lines, bb.v(f"arith.maxsi {out}, {cand} : i64")
        in_map = [d if d != dim else k for d in range(r)]
        idx = self.e.generic([(v, in_map), (vals, list(range(r)))], v.shape, "i64", body,
                             reduce_dims=[k], init=init, nloops=r + 1, out_map=list(range(r)))
        return (vals, idx)

    def op_logcumsumexp(self, node, a, dim):
        """log of the running sum of exp along `dim`, each position scaled by
        its own running max m (so nothing before it underflows): m_i +
        log(sum over k <= i of exp(x_k - m_i)), the sum a scan (a Partial sum
        along a sharded dim). An element equal to m counts 1 (infinities)."""
        v = self.val(a)
        shape, et = self._out(node)
        if not _is_float(et):
            self.fail(node, "logcumsumexp of an integer tensor")
        r = len(v.shape)
        dim %= r
        vals = self._scan(node, a, dim, -math.inf, "maximumf", None, out=(shape, et))
        k = r
        init = self.e.filled(shape, et, 0)

        def body(args, out):
            bb = _Body(et)
            i = bb.v(f"linalg.index {dim} : index")
            j = bb.v(f"linalg.index {k} : index")
            upto = bb.v(f"arith.cmpi ule, {j}, {i} : index")
            x, m = self._cast(bb, args[0], v.et, et), args[1]
            same = bb.v(f"arith.cmpf oeq, {x}, {m} : {et}")
            e = bb.un("math.exp", bb.bin("subf", None, x, m))
            e = bb.v(f"arith.select {same}, {bb.const(1)}, {e} : {et}")
            picked = bb.v(f"arith.select {upto}, {e}, {bb.const(0)} : {et}")
            return bb.lines, bb.bin("addf", None, out, picked)
        in_map = [d if d != dim else k for d in range(r)]
        total = self.e.generic([(v, in_map), (vals, list(range(r)))], shape, et, body,
                               reduce_dims=[k], init=init, nloops=r + 1, out_map=list(range(r)))

        def finish(args, out):
            bb = _Body(et)
            return bb.lines, bb.bin("addf", None, args[1], bb.un("math.log", args[0]))
        return self.e.generic([(total, list(range(r))), (vals, list(range(r)))], shape, et,
                              finish)

    def op__cdist_backward(self, node, grad, x1, x2, p, cdist):
        """The gradient of cdist with respect to x1 (x2's is this op with
        the two swapped), PyTorch's formula: over j of grad[i, j] times
        d dist[i, j] / d x1[i, k], which for diff = x1[i, k] - x2[j, k] and
        dist d is sign(diff) (p = 1), diff / d (p = 2), sign(diff) where
        |diff| is the max (p = inf), diff |diff|^(p-2) / d^(p-1) otherwise
        (sign(diff) |diff|^(p-1) / d^(p-1) below p = 2, 0 where diff is 0
        below p = 1); 0 where d is 0, and everywhere for p = 0."""
        g, a, b, dist = self.val(grad), self.val(x1), self.val(x2), self.val(cdist)
        shape, et = self._out(node)
        r = len(shape)
        nb = r - 2
        if a.shape[:-2] != b.shape[:-2] or len(b.shape) != r or tuple(g.shape) != tuple(dist.shape):
            self.fail(node, f"cdist's gradient of {a.shape} and {b.shape} (broadcast batch dims) "
                            "is not supported yet")
        p = float(p)
        if p == 0:
            return self.e.filled(shape, et, 0)
        batch = list(range(nb))
        i_, k_, j_ = nb, nb + 1, nb + 2

        def body(args, out):
            bb = _Body(et)
            gv, xa, xb, d = args
            zero = bb.const(0)
            diff = bb.bin("subf", None, xa, xb)
            absd = bb.un("math.absf", diff)
            pos = bb.v(f"arith.cmpf ogt, {diff}, {zero} : {et}")
            neg = bb.v(f"arith.cmpf olt, {diff}, {zero} : {et}")
            sign = bb.v(f"arith.select {pos}, {bb.const(1)}, " +
                        bb.v(f"arith.select {neg}, {bb.const(-1)}, {zero} : {et}") + f" : {et}")
            if p == 1:
                term = bb.bin("mulf", None, gv, sign)
            elif math.isinf(p):
                top = bb.v(f"arith.cmpf oeq, {absd}, {d} : {et}")
                term = bb.v(f"arith.select {top}, {bb.bin('mulf', None, gv, sign)}, {zero} : {et}")
            elif p == 2:
                term = bb.bin("divf", None, bb.bin("mulf", None, gv, diff), d)
            elif p < 2:
                num = bb.bin("mulf", None, sign, bb.v(f"math.powf {absd}, {bb.const(p - 1)} : {et}"))
                den = bb.v(f"math.powf {d}, {bb.const(p - 1)} : {et}")
                term = bb.bin("divf", None, bb.bin("mulf", None, gv, num), den)
                if p < 1:
                    nz = bb.v(f"arith.cmpf one, {diff}, {zero} : {et}")
                    term = bb.v(f"arith.select {nz}, {term}, {zero} : {et}")
            else:
                num = bb.bin("mulf", None, diff, bb.v(f"math.powf {absd}, {bb.const(p - 2)} : {et}"))
                den = bb.v(f"math.powf {d}, {bb.const(p - 1)} : {et}")
                term = bb.bin("divf", None, bb.bin("mulf", None, gv, num), den)
            if not math.isinf(p):
                alive = bb.v(f"arith.cmpf one, {d}, {zero} : {et}")
                term = bb.v(f"arith.select {alive}, {term}, {zero} : {et}")
            return bb.lines, bb.bin("addf", None, out, term)
        return self.e.generic([(g, batch + [i_, j_]), (a, batch + [i_, k_]),
                               (b, batch + [j_, k_]), (dist, batch + [i_, j_])], shape, et, body,
                              reduce_dims=[j_], init=self.e.filled(shape, et, 0), nloops=r + 1,
                              out_map=batch + [i_, k_])

    def op__cdist_forward(self, node, x1, x2, p, compute_mode=None):
        """out[.., i, j] = (sum over k of |x1[.., i, k] - x2[.., j, k]|^p)^(1/p)
        (p = 0 counts the differences, p = inf takes their max): a reduction
        over the feature dim, computed directly (PyTorch's matmul form for
        p = 2 differs from it by rounding only)."""
        a, b = self.val(x1), self.val(x2)
        shape, et = self._out(node)
        if not _is_float(et):
            self.fail(node, "cdist of integer tensors")
        r = len(shape)
        nb = r - 2
        if a.shape[:-2] != b.shape[:-2] or len(a.shape) != r or len(b.shape) != r:
            self.fail(node, f"cdist of {a.shape} and {b.shape} (broadcast batch dims) is not "
                            "supported yet")
        p = float(p)
        k = r
        batch = list(range(nb))
        combine = "maximumf" if math.isinf(p) else "addf"
        init = self.e.filled(shape, et, 0)

        def body(args, out):
            bb = _Body(et)
            d = bb.un("math.absf", bb.bin("subf", None, args[0], args[1]))
            if p == 0:
                nz = bb.v(f"arith.cmpf one, {d}, {bb.const(0)} : {et}")
                d = bb.v(f"arith.select {nz}, {bb.const(1)}, {bb.const(0)} : {et}")
            elif p == 2:
                d = bb.bin("mulf", None, d, d)
            elif p != 1 and not math.isinf(p):
                d = bb.v(f"math.powf {d}, {bb.const(p)} : {et}")
            return bb.lines, bb.bin(combine, None, out, d)
        total = self.e.generic([(a, batch + [nb, k]), (b, batch + [nb + 1, k])], shape, et, body,
                               reduce_dims=[k], init=init, nloops=r + 1, out_map=list(range(r)))
        if p in (0, 1) or math.isinf(p):
            return total
        if p == 2:
            return self._unary_value(total, lambda bb, x: bb.un("math.sqrt", x))
        return self._unary_value(total, lambda bb, x: bb.v(
            f"math.powf {x}, {bb.const(1.0 / p)} : {et}"))

    def op__trilinear(self, node, i1, i2, i3, expand1, expand2, expand3, sumdim,
                      unroll_dim=1):
        """F.bilinear's contraction: each input viewed with unit dims at its
        `expand` positions, their product summed over `sumdim`."""
        shape, et = self._out(node)
        vs = [self.val(i1), self.val(i2), self.val(i3)]
        total = len(vs[0].shape) + len(expand1)
        sizes = [1] * total
        maps = []
        for v, expand in zip(vs, (expand1, expand2, expand3)):
            pos = [d for d in range(total) if d not in expand]
            if len(pos) != len(v.shape):
                self.fail(node, f"_trilinear: {v.shape} with expand {list(expand)}")
            maps.append(pos)
            for d, n in zip(pos, v.shape):
                sizes[d] = max(sizes[d], n)
        ins = []
        for v, pos in zip(vs, maps):
            m = [d if n == sizes[d] else "0" for d, n in zip(pos, v.shape)]
            ins.append((v, m))
        keep = [d for d in range(total) if d not in sumdim]
        kept_shape = tuple(sizes[d] for d in keep)
        init = self.e.filled(kept_shape, et, 0)

        def body(args, out):
            bb = _Body(et)
            prod = bb.bin("mulf", "muli", bb.bin("mulf", "muli", args[0], args[1]), args[2])
            return bb.lines, bb.bin("addf", "addi", out, prod)
        res = self.e.generic(ins, kept_shape, et, body, reduce_dims=list(sumdim), init=init,
                             nloops=total, out_map=keep)
        if tuple(shape) != kept_shape:  # sum dims kept as 1s
            res = self._reshape(node, res, shape)
        return res

    def op_erfinv(self, node, a):
        """Giles' single-precision approximation ("Approximating the erfinv
        function", 2010) refined by two Newton steps on erf, in f64; +-1 give
        +-inf and |x| > 1 NaN, as PyTorch."""
        def f(bb, x):
            et = bb.et
            y = self._cast(bb, x, et, "f64")
            c = lambda v: bb.const(v, "f64")
            one = c(1.0)
            w = bb.v(f"arith.mulf {bb.v(f'arith.subf {one}, {y} : f64')}, "
                     f"{bb.v(f'arith.addf {one}, {y} : f64')} : f64")
            w = bb.v(f"arith.negf {bb.v(f'math.log {w} : f64')} : f64")

            def poly(t, coeffs):
                acc = c(coeffs[0])
                for k in coeffs[1:]:
                    acc = bb.v(f"arith.addf {c(k)}, {bb.v(f'arith.mulf {acc}, {t} : f64')} : f64")
                return acc
            central = poly(bb.v(f"arith.subf {w}, {c(2.5)} : f64"),
                           [2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                            0.00021858087, -0.00125372503, -0.00417768164, 0.246640727,
                            1.50140941])
            tail = poly(bb.v(f"arith.subf {bb.v(f'math.sqrt {w} : f64')}, {c(3.0)} : f64"),
                        [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                         0.00573950773, -0.0076224613, 0.00943887047, 1.00167406,
                         2.83297682])
            small = bb.v(f"arith.cmpf olt, {w}, {c(5.0)} : f64")
            r = bb.v(f"arith.mulf {bb.v(f'arith.select {small}, {central}, {tail} : f64')}, {y} : f64")
            two_over_sqrt_pi = c(2.0 / math.sqrt(math.pi))
            for _ in range(2):
                err = bb.v(f"arith.subf {bb.v(f'math.erf {r} : f64')}, {y} : f64")
                sq = bb.v(f"arith.mulf {r}, {r} : f64")
                gauss = bb.v(f"math.exp {bb.v(f'arith.negf {sq} : f64')} : f64")
                slope = bb.v(f"arith.mulf {two_over_sqrt_pi}, {gauss} : f64")
                r = bb.v(f"arith.subf {r}, {bb.v(f'arith.divf {err}, {slope} : f64')} : f64")
            edge = bb.v(f"arith.cmpf oeq, {bb.v(f'math.absf {y} : f64')}, {one} : f64")
            neg = bb.v(f"arith.cmpf olt, {y}, {c(0.0)} : f64")
            inf = bb.v(f"arith.select {neg}, {c(-math.inf)}, {c(math.inf)} : f64")
            r = bb.v(f"arith.select {edge}, {inf}, {r} : f64")
            return self._cast(bb, r, "f64", et)
        return self._elementwise(node, [a], f)

    def _index_pairs(self, node, pairs) -> _Value:
        """A (2, N) i64 constant of (row, col) index pairs."""
        shape, et = self._out(node)
        rows = ", ".join(str(int(i)) for i in pairs[0])
        cols = ", ".join(str(int(j)) for j in pairs[1])
        n = self.e.fresh("c")
        out = _Value(n, shape, et)
        if shape[1] == 0:
            return self.e.filled(shape, et, 0)
        self.e.emit(f"{n} = arith.constant dense<[[{rows}], [{cols}]]> : {out.type}")
        return out

    def op_tril_indices(self, node, row, col, offset=0, **kwargs):
        """The indices of a lower triangle: a constant (they depend on sizes only)."""
        return self._index_pairs(node, torch.tril_indices(row, col, offset).tolist())

    def op_triu_indices(self, node, row, col, offset=0, **kwargs):
        return self._index_pairs(node, torch.triu_indices(row, col, offset).tolist())

    def _scan(self, node, a, dim, identity, fop: str, iop: str,
              out: Optional[Tuple[Tuple[int, ...], str]] = None) -> _Value:
        v = self.val(a)
        shape, want = out if out is not None else self._out(node)
        # Running sums / products of half types accumulate in f32 (PyTorch's
        # cumsum kernel), each element rounded once.
        et = _acc_et(want) if fop in ("addf", "mulf") else want
        r = len(v.shape)
        dim %= r
        init = self.e.filled(shape, et, identity)
        k = r

        def body(args, out):
            bb = _Body(et)
            i = bb.v(f"linalg.index {dim} : index")
            j = bb.v(f"linalg.index {k} : index")
            upto = bb.v(f"arith.cmpi ule, {j}, {i} : index")
            x = self._cast(bb, args[0], v.et, et)
            picked = bb.v(f"arith.select {upto}, {x}, {bb.const(identity)} : {et}")
            return bb.lines, bb.bin(fop, iop, out, picked)
        in_map = [d if d != dim else k for d in range(r)]
        return self._convert(self.e.generic([(v, in_map)], shape, et, body, reduce_dims=[k],
                                            init=init, nloops=r + 1, out_map=list(range(r))),
                             want)

    @staticmethod
    def _index_names(bb: "_Body", index: str, index_et: str, size: int, loop: int) -> str:
        """Whether the index value `index` (negative: from the end, as in
        PyTorch) names the position of loop `loop` in a dim of `size`."""
        want = bb.v(f"arith.index_cast {index} : {index_et} to index")
        neg = bb.v(f"arith.cmpi slt, {want}, {bb.v('arith.constant 0 : index')} : index")
        wrapped = bb.v(f"arith.addi {want}, {bb.v(f'arith.constant {size} : index')} : index")
        want = bb.v(f"arith.select {neg}, {wrapped}, {want} : index")
        return bb.v(f"arith.cmpi eq, {want}, {bb.v(f'linalg.index {loop} : index')} : index")

    def _select_by_index(self, node, v: _Value, dim: int, idx: _Value, shape, et) -> _Value:
        """out[a.., j.., b..] = v[a.., idx[j..], b..]: a sum over v's `dim` of
        the element whose position is the index (as gather)."""
        r, ri = len(v.shape), len(idx.shape)
        # loops: v's dims before `dim`, idx's dims, v's dims after, then k.
        before = list(range(dim))
        mid = list(range(dim, dim + ri))
        after = list(range(dim + ri, dim + ri + r - dim - 1))
        k = dim + ri + r - dim - 1
        init = self.e.filled(shape, et, 0)

        def body(args, out):
            bb = _Body(et)
            hit = self._index_names(bb, args[1], idx.et, v.shape[dim], k)
            picked = bb.v(f"arith.select {hit}, {args[0]}, {bb.const(0)} : {et}")
            return bb.lines, bb.bin("addf", "addi", out, picked)
        return self.e.generic([(v, before + [k] + after), (idx, mid)], shape, et, body,
                              reduce_dims=[k], init=init, nloops=k + 1,
                              out_map=before + mid + after)

    def op_index_select(self, node, a, dim, index):
        v, idx = self.val(a), self.val(index)
        shape, et = self._out(node)
        return self._select_by_index(node, v, dim % len(v.shape), idx, shape, et)

    # The most elements a one-hot multi-index read may sum over per output
    # element (its indexed dims' sizes multiplied).
    _MAX_ONE_HOT = 1 << 16

    def op_index(self, node, a, indices):
        """x[i], x[:, i], x[.., i, j, ..] (index tensors broadcast together, as
        nearest upsampling's gradient traces) and x[i, :, j] (on dims apart:
        the index dims first, as PyTorch): a sum over the indexed dims of the
        element every index names."""
        v = self.val(a)
        shape, et = self._out(node)
        given = [(d, t) for d, t in enumerate(indices) if t is not None]
        if not given or not all(isinstance(t, torch.fx.Node) for _, t in given):
            self.fail(node, "indexing with something other than index tensors")
        idxs = [self.val(t) for _, t in given]
        if any(i.et == "i1" for i in idxs):
            self.fail(node, "indexing with a bool mask (a data-dependent shape) is not supported")
        if len(given) == 1:
            return self._select_by_index(node, v, given[0][0], idxs[0], shape, et)
        dims = [d for d, _ in given]
        span = 1
        for d in dims:
            span *= v.shape[d]
        if span > self._MAX_ONE_HOT:
            self.fail(node, f"indexing {len(dims)} dims of {span} elements together is not "
                            "supported yet")
        r = len(v.shape)
        rest = [d for d in range(r) if d not in dims]
        b = len(shape) - len(rest)  # the broadcast index shape's rank
        # PyTorch's layout: index tensors on consecutive dims put the
        # broadcast index dims where those dims were; on dims apart, first.
        consecutive = dims == list(range(dims[0], dims[0] + len(dims)))
        first = dims[0] if consecutive else 0
        bshape = shape[first:first + b]
        out_of = {}
        for k, d in enumerate(rest):
            out_of[d] = k if consecutive and d < first else k + b
        ks = list(range(len(shape), len(shape) + len(dims)))
        ins = [(v, [ks[dims.index(d)] if d in dims else out_of[d] for d in range(r)])]
        for i in idxs:
            keep, loops = _broadcast_map(i.shape, bshape)
            ins.append((self.e.drop_dims(i, keep), [first + l for l in loops]))
        init = self.e.filled(shape, et, 0)

        def body(args, out):
            bb = _Body(et)
            hit = None
            for j, (i, d) in enumerate(zip(idxs, dims)):
                here = self._index_names(bb, args[1 + j], i.et, v.shape[d], ks[j])
                hit = here if hit is None else bb.v(f"arith.andi {hit}, {here} : i1")
            picked = bb.v(f"arith.select {hit}, {args[0]}, {bb.const(0)} : {et}")
            return bb.lines, bb.bin("addf", "addi", out, picked)
        return self.e.generic(ins, shape, et, body, reduce_dims=ks, init=init,
                              nloops=len(shape) + len(dims), out_map=list(range(len(shape))))

    op__unsafe_index = op_index

    def op_unfold(self, node, a, dim, size, step):
        """`Tensor.unfold`: out[.., i, .., j] = x[.., i * step + j, ..], the
        windows as a new last dim (a windowed read: halos along a sharded
        dim)."""
        v = self.val(a)
        shape, et = self._out(node)
        r = len(v.shape)
        dim %= r if r else 1
        in_map = [d if d != dim else f"d{dim} * {step} + d{r}" for d in range(r)]
        return self.e.generic([(v, in_map)], shape, et, lambda args, out: ([], args[0]))

    def op_diagonal(self, node, a, offset=0, dim1=0, dim2=1):
        """out[.., i] = x[.., i, .., i + offset, ..] (a negative offset
        shifts dim1 instead), the diagonal as the last dim."""
        v = self.val(a)
        shape, et = self._out(node)
        r = len(v.shape)
        dim1, dim2 = dim1 % r, dim2 % r
        n = shape[-1]
        # The square the diagonal crosses, cut out first (so the diagonal's
        # loop runs over whole dims).
        starts = [0] * r
        sizes = list(v.shape)
        starts[dim1], starts[dim2] = max(0, -offset), max(0, offset)
        sizes[dim1] = sizes[dim2] = n
        if tuple(sizes) != v.shape:
            v = self.e.slice(v, starts, sizes)
        rest = [d for d in range(r) if d not in (dim1, dim2)]
        loop_of = {d: k for k, d in enumerate(rest)}
        diag = len(rest)
        in_map = [diag if d in (dim1, dim2) else loop_of[d] for d in range(r)]
        return self.e.generic([(v, in_map)], shape, et, lambda args, out: ([], args[0]))

    def op_index_put(self, node, a, indices, values, accumulate=False):
        """x[.., i, ..] = values (or += with accumulate: index_add): for each
        output element, a pass over the index's positions, taking (adding)
        the value where every index names this element; duplicate indices:
        the last wins (PyTorch leaves it unspecified). Index tensors on any
        dims, broadcast together (F.fold accumulates so)."""
        v = self.val(a)
        shape, et = self._out(node)
        given = [(d, t) for d, t in enumerate(indices) if t is not None]
        if not given or not all(isinstance(t, torch.fx.Node) for _, t in given):
            self.fail(node, "index_put with something other than index tensors")
        dims = [d for d, _ in given]
        idxs = [self.val(t) for _, t in given]
        if any(i.et == "i1" for i in idxs):
            self.fail(node, "index_put with a bool mask and a tensor of values (a data-dependent "
                            "count) is not supported")
        r = len(v.shape)
        bshape = tuple(np.broadcast_shapes(*[i.shape for i in idxs]))
        b = len(bshape)
        js = list(range(r, r + b))
        # The values broadcast to x[indices]'s shape: the index dims where the
        # indexed dims were (consecutive ones) or first (dims apart).
        rest = [d for d in range(r) if d not in dims]
        if dims == list(range(dims[0], dims[0] + len(dims))):
            view_loops = list(range(dims[0])) + js + [d for d in rest if d > dims[0]]
        else:
            view_loops = js + rest
        view_shape = tuple(v.shape[l] if l < r else bshape[l - r] for l in view_loops)
        ins = []
        for i in idxs:
            keep, loops = _broadcast_map(i.shape, bshape)
            ins.append((self.e.drop_dims(i, keep), [js[l] for l in loops]))
        if isinstance(values, torch.fx.Node):
            vv = self.val(values)
            keep, loops = _broadcast_map(vv.shape, view_shape)
            ins.append((self.e.drop_dims(vv, keep), [view_loops[l] for l in loops]))
        n_idx = len(idxs)

        def body(args, out):
            bb = _Body(et)
            hit = None
            for j, (i, d) in enumerate(zip(idxs, dims)):
                here = self._index_names(bb, args[j], i.et, v.shape[d], d)
                hit = here if hit is None else bb.v(f"arith.andi {hit}, {here} : i1")
            value = (self._cast(bb, args[n_idx], ins[n_idx][0].et, et) if len(args) > n_idx
                     else bb.const(values))
            if accumulate:
                return bb.lines, bb.bin("addf", "addi", out, bb.v(
                    f"arith.select {hit}, {value}, {bb.const(0)} : {et}"))
            return bb.lines, bb.v(f"arith.select {hit}, {value}, {out} : {et}")
        init = self.e.generic([(v, list(range(r)))], v.shape, et, lambda args_, out: ([], args_[0]))
        return self.e.generic(ins, shape, et, body, reduce_dims=js, init=init, nloops=r + b,
                              out_map=list(range(r)))

    def op__assert_async(self, node, *args, **kwargs):
        # A check of the data (one_hot's index range): PyTorch raises where
        # it fails; the compiled program does not check.
        return None

    def _binary_values(self, a: _Value, b: _Value, fn) -> _Value:
        # Broadcast: a dim of 1 takes the other's size (0 included).
        shape = tuple(y if x == 1 else x for x, y in zip(a.shape, b.shape)) if len(a.shape) == len(b.shape) else a.shape
        ins = []
        for v in (a, b):
            keep, loops = _broadcast_map(v.shape, shape)
            ins.append((self.e.drop_dims(v, keep), loops))
        def body(args, out):
            bb = _Body(a.et)
            return bb.lines, fn(bb, *args)
        return self.e.generic(ins, shape, a.et, body)

    def op_scaled_dot_product_attention(self, node, query, key, value, attn_mask=None,
                                        dropout_p=0.0, is_causal=False, scale=None,
                                        enable_gqa=False):
        """PyTorch's math attention, kept whole (its decomposition under
        export can give the output strides a later view rejects): scores as
        a contraction over the head dim times the scale, the mask (bool:
        -inf where false; float: added) and the causal triangle applied,
        softmax over the keys (a row with every key masked gives 0, as
        PyTorch's _safe_softmax), then a contraction with the values. Heads
        of grouped-query attention read their group's key and value head."""
        q, k, v = self.val(query), self.val(key), self.val(value)
        shape, et = self._out(node)
        if not _is_float(et):
            self.fail(node, "attention on integer tensors")
        if dropout_p:
            self.fail(node, "attention with dropout (call the model in eval(), or with "
                            "dropout_p = 0)")
        r = len(q.shape)
        if len(k.shape) != r or len(v.shape) != r:
            self.fail(node, f"attention with query {q.shape}, key {k.shape}, value {v.shape}")
        nb = r - 2
        big_l, e_ = q.shape[-2], q.shape[-1]
        big_s, ev = k.shape[-2], v.shape[-1]
        groups = 1
        if (r >= 3 and k.shape[-3] != q.shape[-3] and k.shape[-3] != 1 and enable_gqa
                and q.shape[-3] % k.shape[-3] == 0):
            groups = q.shape[-3] // k.shape[-3]

        def per_query_head(t: _Value) -> _Value:
            """Key or value heads repeated for the query heads of their group
            (head h reads head h // groups), merged back into one dim."""
            if groups == 1:
                return t
            hk = t.shape[-3]
            lead = list(range(r - 3))
            rep_shape = tuple(t.shape[:-3]) + (hk, groups) + tuple(t.shape[-2:])
            rep = self.e.generic([(t, lead + [r - 3, r - 1, r])], rep_shape, t.et,
                                 lambda args, out: ([], args[0]))
            grouping = [[i] for i in range(r - 3)] + [[r - 3, r - 2], [r - 1], [r]]
            return self.e.collapse(rep, grouping, tuple(t.shape[:-3]) + (hk * groups,) +
                                   tuple(t.shape[-2:]))
        k, v = per_query_head(k), per_query_head(v)
        batch = list(range(nb))
        # Key and value batch dims of 1 broadcast (multi-query attention:
        # one key head for every query head).
        kv_batch = []
        for i in range(nb):
            sizes = {k.shape[i], v.shape[i]}
            if sizes == {q.shape[i]}:
                kv_batch.append(i)
            elif sizes <= {1, q.shape[i]} and k.shape[i] == v.shape[i] == 1:
                kv_batch.append("0")
            else:
                self.fail(node, f"attention with query {q.shape}, key {k.shape}, value {v.shape}")
        score_shape = tuple(q.shape[:-2]) + (big_l, big_s)
        # scores[.., l, s] = sum_e q[.., l, e] * k[.., s, e]
        init = self.e.filled(score_shape, et, 0)
        scores = self.e.generic([(q, batch + [nb, nb + 2]), (k, kv_batch + [nb + 1, nb + 2])],
                                score_shape, et, self._mac(et), reduce_dims=[nb + 2], init=init,
                                nloops=nb + 3, out_map=batch + [nb, nb + 1])
        factor = scale if scale is not None else 1.0 / math.sqrt(e_)
        ins = [(scores, list(range(nb + 2)))]
        mask = None
        if isinstance(attn_mask, torch.fx.Node):
            mask = self.val(attn_mask)
            keep, loops = _broadcast_map(mask.shape, score_shape)
            ins.append((self.e.drop_dims(mask, keep), loops))

        def masked(args, out):
            bb = _Body(et)
            x = bb.bin("mulf", None, args[0], bb.const(factor))
            ninf = bb.const(-math.inf)
            if mask is not None:
                if mask.et == "i1":
                    x = bb.v(f"arith.select {args[1]}, {x}, {ninf} : {et}")
                else:
                    x = bb.bin("addf", None, x, self._cast(bb, args[1], mask.et, et))
            if is_causal:
                li = bb.v(f"linalg.index {nb} : index")
                si = bb.v(f"linalg.index {nb + 1} : index")
                seen = bb.v(f"arith.cmpi ule, {si}, {li} : index")
                x = bb.v(f"arith.select {seen}, {x}, {ninf} : {et}")
            return bb.lines, x
        logits = self.e.generic(ins, score_shape, et, masked)
        last = nb + 1
        mx = self._reduce(node, logits, [last], True, "max", et)

        def shifted_exp(args, out):
            bb = _Body(et)
            # A row whose max is -inf has every key masked: its weights are 0.
            dead = bb.v(f"arith.cmpf oeq, {args[1]}, {bb.const(-math.inf)} : {et}")
            ex = bb.un("math.exp", bb.bin("subf", None, args[0], args[1]))
            return bb.lines, bb.v(f"arith.select {dead}, {bb.const(0)}, {ex} : {et}")
        ex = self.e.generic([(logits, list(range(nb + 2))), (mx, batch + [nb, "0"])],
                            score_shape, et, shifted_exp)
        total = self._reduce(node, ex, [last], True, "sum", et)

        def normalize(args, out):
            bb = _Body(et)
            empty = bb.v(f"arith.cmpf oeq, {args[1]}, {bb.const(0)} : {et}")
            w = bb.bin("divf", None, args[0], args[1])
            return bb.lines, bb.v(f"arith.select {empty}, {bb.const(0)}, {w} : {et}")
        weights = self.e.generic([(ex, list(range(nb + 2))), (total, batch + [nb, "0"])],
                                 score_shape, et, normalize)
        # out[.., l, j] = sum_s weights[.., l, s] * v[.., s, j]
        init = self.e.filled(shape, et, 0)
        return self.e.generic([(weights, batch + [nb, nb + 2]), (v, kv_batch + [nb + 2, nb + 1])],
                              shape, et, self._mac(et), reduce_dims=[nb + 2], init=init,
                              nloops=nb + 3, out_map=batch + [nb, nb + 1])

    def op__softmax(self, node, a, dim, half_to_float=False):
        v = self.val(a)
        shape, et = self._out(node)
        dim %= len(v.shape)
        e = self.e.empty(shape, et)
        n = self.e.fresh("sm")
        out = _Value(n, shape, et)
        self.e.emit(f"{n} = linalg.softmax dimension({dim}) ins({v.name} : {v.type}) "
                    f"outs({e} : {out.type}) -> {out.type}")
        return out

    op_softmax = op__softmax

    def op__log_softmax(self, node, a, dim, half_to_float=False):
        v = self.val(a)
        shape, et = self._out(node)
        dim %= len(v.shape)
        mx = self._reduce(node, v, [dim], True, "max", et)
        shifted = self._binary_values(v, mx, lambda bb, x, y: bb.bin("subf", None, x, y))
        ex = self._unary_value(shifted, lambda bb, x: bb.un("math.exp", x))
        s = self._reduce(node, ex, [dim], True, "sum", et)
        ls = self._unary_value(s, lambda bb, x: bb.un("math.log", x))
        return self._binary_values(shifted, ls, lambda bb, x, y: bb.bin("subf", None, x, y))

    op_log_softmax = op__log_softmax

    def _convert(self, v: _Value, et: str) -> _Value:
        """`v` converted to element type `et` as PyTorch's `.to(dtype)`
        (the identity when it has it already)."""
        if v.et == et:
            return v
        def body(args, out):
            bb = _Body(et)
            return bb.lines, self._cast(bb, args[0], v.et, et)
        r = len(v.shape)
        return self.e.generic([(v, list(range(r)))], v.shape, et, body)

    def _unary_value(self, v: _Value, fn) -> _Value:
        def body(args, out):
            bb = _Body(v.et)
            return bb.lines, fn(bb, args[0])
        r = len(v.shape)
        return self.e.generic([(v, list(range(r)))], v.shape, v.et, body)

    def op_native_layer_norm(self, node, a, normalized_shape, weight, bias, eps):
        v = self.val(a)
        r = len(v.shape)
        k = len(normalized_shape)
        dims = list(range(r - k, r))
        count = 1
        for d in dims:
            count *= v.shape[d]
        et = v.et
        mean = self._scale(self._reduce(node, v, dims, True, "sum", et), 1.0 / count)
        centered = self._binary_values(v, mean, lambda bb, x, y: bb.bin("subf", None, x, y))
        sq = self._unary_value(centered, lambda bb, x: bb.bin("mulf", None, x, x))
        var = self._scale(self._reduce(node, sq, dims, True, "sum", et), 1.0 / count)
        rstd = self._unary_value(var, lambda bb, x: bb.un("math.rsqrt", bb.bin("addf", None, x, bb.const(eps))))
        out = self._binary_values(centered, rstd, lambda bb, x, y: bb.bin("mulf", None, x, y))
        if weight is not None:
            out = self._binary_values(out, self._broadcast_to(self.val(weight), out.shape),
                                      lambda bb, x, y: bb.bin("mulf", None, x, y))
        if bias is not None:
            out = self._binary_values(out, self._broadcast_to(self.val(bias), out.shape),
                                      lambda bb, x, y: bb.bin("addf", None, x, y))
        return (out, mean, rstd)

    def _broadcast_to(self, v: _Value, shape) -> _Value:
        # Right-aligned: prepend unit dims via expand.
        if len(v.shape) == len(shape):
            return v
        target = (1,) * (len(shape) - len(v.shape)) + v.shape
        keep, loops = _broadcast_map(v.shape, target)
        return self.e.generic([(v, loops)], target, v.et, lambda args, out: ([], args[0]))

    # -- embedding and convolution ---------------------------------------------
    def op_embedding(self, node, weight, indices, padding_idx=-1, scale_grad=False, sparse=False):
        return self._lookup(self.val(weight), self.val(indices))

    def op__embedding_bag(self, node, weight, indices, offsets, scale_grad_by_freq=False,
                          mode=0, sparse=False, per_sample_weights=None,
                          include_last_offset=False, padding_idx=-1):
        """EmbeddingBag: the rows of `indices` looked up (as `embedding`,
        so a vocab-sharded table stays sharded), weighted, then reduced per
        bag: position p belongs to the bag of the last offset at or before
        it. sum, mean (an empty bag is 0) or max (an empty bag is 0); rows of
        `padding_idx` are left out. Quadratic in bags x positions."""
        w, ids, offs = self.val(weight), self.val(indices), self.val(offsets)
        if len(ids.shape) != 1:
            self.fail(node, "embedding_bag of 2-D indices (PyTorch flattens them first)")
        if mode not in (0, 1, 2):
            self.fail(node, f"embedding_bag mode {mode}")
        et = w.et
        npos, width = ids.shape[0], w.shape[1]
        bags = offs.shape[0] - (1 if include_last_offset else 0)
        emb = self._lookup(w, ids)
        if per_sample_weights is not None:
            emb = self._binary_values(emb, self.e.expand(self.val(per_sample_weights), [[0, 1]],
                                                          (npos, 1)),
                                      lambda bb, x, y: bb.bin("mulf", None, x, y))
        bag = self._bag_of_positions(offs, bags, npos)

        bag_loop = "linalg.index 0 : index"

        def takes(bb, b_of_p, index):
            here = bb.v(f"arith.cmpi eq, {b_of_p}, "
                        f"{bb.v(f'arith.index_cast {bb.v(bag_loop)} : index to i64')} : i64")
            if padding_idx is not None and padding_idx >= 0:
                keep = bb.v(f"arith.cmpi ne, {self._cast(bb, index, ids.et, 'i64')}, "
                            f"{bb.const(padding_idx, 'i64')} : i64")
                here = bb.v(f"arith.andi {here}, {keep} : i1")
            return here
        # loops: b e | p
        identity = 0 if mode != 2 else _extreme(et, False)

        def reduce_body(args, out):
            bb = _Body(et)
            pick = bb.v(f"arith.select {takes(bb, args[1], args[2])}, {args[0]}, "
                        f"{bb.const(identity)} : {et}")
            return bb.lines, bb.bin("maximumf" if mode == 2 else "addf", None, out, pick)
        ins = [(emb, [2, 1]), (bag, [2]), (ids, [2])]
        total = self.e.generic(ins, (bags, width), et, reduce_body, reduce_dims=[2],
                               init=self.e.filled((bags, width), et, identity), nloops=3,
                               out_map=[0, 1])
        if mode == 0:
            return total, self._missing(node, "embedding_bag's offset2bag"), \
                self._missing(node, "embedding_bag's bag sizes"), \
                self._missing(node, "embedding_bag's max indices")
        maxima = self._missing(node, "embedding_bag's max indices")
        if mode == 2:
            maxima = self._bag_maxima(emb, bag, ids, total, bags, takes)

        count = self._bag_sizes(bag, ids, bags, padding_idx)

        def finish(args, out):
            bb = _Body(et)
            some = bb.v(f"arith.cmpi sgt, {args[1]}, {bb.const(0, 'i64')} : i64")
            value = args[0]
            if mode == 1:
                value = bb.bin("divf", None, value, bb.v(f"arith.sitofp {args[1]} : i64 to {et}"))
            return bb.lines, bb.v(f"arith.select {some}, {value}, {bb.const(0)} : {et}")
        out = self.e.generic([(total, [0, 1]), (count, [0])], (bags, width), et, finish)
        return out, self._missing(node, "embedding_bag's offset2bag"), \
            self._missing(node, "embedding_bag's bag sizes"), maxima

    def _bag_maxima(self, emb: _Value, bag: _Value, ids: _Value, total: _Value, bags: int,
                    takes) -> _Value:
        """EmbeddingBag's max indices (mode='max'): for each bag and feature,
        the id at the first position of the bag (padding_idx left out) whose
        row holds the maximum, as PyTorch picks it (a later equal value does
        not replace it); -1 for an empty bag (or a NaN maximum)."""
        npos, width = emb.shape
        far = npos

        def first_body(args, out):
            bb = _Body("i64")
            hit = takes(bb, args[1], args[2])
            same = bb.v(f"arith.cmpf oeq, {args[0]}, {args[3]} : {emb.et}")
            hit = bb.v(f"arith.andi {hit}, {same} : i1")
            p = bb.v(f"arith.index_cast {bb.v('linalg.index 2 : index')} : index to i64")
            cand = bb.v(f"arith.select {hit}, {p}, {bb.const(far, 'i64')} : i64")
            return bb.lines, bb.v(f"arith.minsi {out}, {cand} : i64")
        first = self.e.generic([(emb, [2, 1]), (bag, [2]), (ids, [2]), (total, [0, 1])],
                               (bags, width), "i64", first_body, reduce_dims=[2],
                               init=self.e.filled((bags, width), "i64", far), nloops=3,
                               out_map=[0, 1])

        def id_body(args, out):
            bb = _Body("i64")
            found = bb.v(f"arith.cmpi slt, {args[0]}, {bb.const(far, 'i64')} : i64")
            at = bb.v(f"arith.select {found}, {args[0]}, {bb.const(0, 'i64')} : i64")
            idx = bb.v(f"arith.index_cast {at} : i64 to index")
            got = self._cast(bb, bb.v(f"tensor.extract {ids.name}[{idx}] : {ids.type}"),
                             ids.et, "i64")
            return bb.lines, bb.v(f"arith.select {found}, {got}, {bb.const(-1, 'i64')} : i64")
        return self.e.generic([(first, [0, 1])], (bags, width), "i64", id_body)

    def _bag_of_positions(self, offs: _Value, bags: int, npos: int) -> _Value:
        """EmbeddingBag's bag of each position: #{k < bags : offsets[k] <= p}
        - 1 (offsets past `bags`, include_last_offset's end, left out)."""
        def in_bag(args, out):
            bb = _Body("i64")
            p = bb.v(f"arith.index_cast {bb.v('linalg.index 0 : index')} : index to i64")
            le = bb.v(f"arith.cmpi sle, {self._cast(bb, args[0], offs.et, 'i64')}, {p} : i64")
            return bb.lines, bb.v(f"arith.addi {out}, {bb.v(f'arith.extui {le} : i1 to i64')} : i64")
        cut = self.e.slice(offs, [0], [bags]) if offs.shape[0] > bags else offs
        return self.e.generic([(cut, [1])], (npos,), "i64", in_bag, reduce_dims=[1],
                              init=self.e.filled((npos,), "i64", -1), nloops=2, out_map=[0])

    def _bag_sizes(self, bag: _Value, ids: _Value, bags: int, padding_idx) -> _Value:
        """How many positions each bag holds (padding_idx's left out)."""
        def count_body(args, out):
            bb = _Body("i64")
            b = bb.v(f"arith.index_cast {bb.v('linalg.index 0 : index')} : index to i64")
            here = bb.v(f"arith.cmpi eq, {args[0]}, {b} : i64")
            if padding_idx is not None and padding_idx >= 0:
                keep = bb.v(f"arith.cmpi ne, {self._cast(bb, args[1], ids.et, 'i64')}, "
                            f"{bb.const(padding_idx, 'i64')} : i64")
                here = bb.v(f"arith.andi {here}, {keep} : i1")
            one = bb.v(f"arith.extui {here} : i1 to i64")
            return bb.lines, bb.v(f"arith.addi {out}, {one} : i64")
        return self.e.generic([(bag, [1]), (ids, [1])], (bags,), "i64", count_body,
                              reduce_dims=[1], init=self.e.filled((bags,), "i64", 0), nloops=2,
                              out_map=[0])

    op_embedding_bag = op__embedding_bag
    op__embedding_bag_forward_only = op__embedding_bag

    def _lookup(self, w: _Value, ids: _Value) -> _Value:
        """w[ids[..], :] by computed-index reads (as `embedding`)."""
        r = len(ids.shape)
        shape = ids.shape + (w.shape[1],)

        def body(args, out):
            bb = _Body(w.et)
            idx = bb.v(f"arith.index_cast {args[0]} : {ids.et} to index")
            col = bb.v(f"linalg.index {r} : index")
            return bb.lines, bb.v(f"tensor.extract {w.name}[{idx}, {col}] : {w.type}")
        return self.e.generic([(ids, list(range(r)))], shape, w.et, body)

    def _lift_1d(self, v: _Value) -> _Value:
        """(N, C, L) as (N, C, 1, L): a 1-D convolution is the 2-D one with
        a height of 1 (and a kernel, stride, padding, dilation of 1, 1, 0, 1
        along it)."""
        return self.e.expand(v, [[0], [1], [2, 3]], v.shape[:2] + (1, v.shape[2]))

    def _drop_1d(self, v: Optional[_Value]) -> Optional[_Value]:
        if v is None:
            return None
        return self.e.collapse(v, [[0], [1], [2, 3]], v.shape[:2] + (v.shape[3],))

    def op_convolution(self, node, x, w, bias, stride, padding, dilation, transposed,
                       output_padding, groups):
        xv, wv = self.val(x), self.val(w)
        shape, et = self._out(node)
        if len(xv.shape) == 3:
            out = self._convolution(node, self._lift_1d(xv), self._lift_1d(wv), bias,
                                    shape[:2] + (1, shape[2]), et, [1] + list(stride),
                                    [0] + list(padding), [1] + list(dilation), transposed, groups)
            return self._drop_1d(out)
        if len(xv.shape) not in (4, 5):
            self.fail(node, f"{len(xv.shape) - 2}-D convolution is not supported yet (1-D, "
                            f"2-D and 3-D only)")
        return self._convolution(node, xv, wv, bias, shape, et, stride, padding, dilation,
                                 transposed, groups)

    def _convolution(self, node, xv, wv, bias, shape, et, stride, padding, dilation, transposed,
                     groups) -> _Value:
        """A convolution over the spatial dims (2 on) of (N, C, ...): 2-D ones
        of one group as linalg's named op, the others as a generic (channels
        split into groups)."""
        n = len(xv.shape) - 2
        if transposed:
            if any(p < 0 for p in padding) or any(d < 1 for d in dilation):
                self.fail(node, "transposed convolution with this padding or dilation")
            # The input gradient of the convolution it transposes: `x` as
            # that convolution's output gradient, the weight (Cin, Cout, k..)
            # read flipped; output_padding is in the output's size.
            if groups != 1:
                out = self._grouped_transposed_conv(node, xv, wv, shape, stride, padding,
                                                    dilation, groups)
            else:
                out = self._conv_input_grad(xv, wv, shape, stride, padding, dilation)
        elif groups != 1 or n != 2:
            out = self._grouped_conv(node, xv, wv, shape, stride, padding, dilation, groups)
        else:
            xv = self._pad_hw(xv, list(padding), list(padding))
            init = self.e.filled(shape, et, 0)
            name = self.e.fresh("conv")
            out = _Value(name, shape, et)
            self.e.emit(f"{name} = linalg.conv_2d_nchw_fchw {{dilations = dense<[{dilation[0]}, {dilation[1]}]> : "
                        f"tensor<2xi64>, strides = dense<[{stride[0]}, {stride[1]}]> : tensor<2xi64>}} "
                        f"ins({xv.name}, {wv.name} : {xv.type}, {wv.type}) outs({init.name} : {init.type}) "
                        f"-> {out.type}")
        if bias is None:
            return out
        bv = self.val(bias)
        def body(args, o):
            bb = _Body(et)
            return bb.lines, bb.bin("addf", None, args[0], args[1])
        return self.e.generic([(out, list(range(n + 2))), (bv, [1])], shape, et, body)

    @staticmethod
    def _window_expr(out_loop: int, tap_loop: int, stride: int, dilation: int) -> str:
        """The input position of a window's tap: out * stride + tap * dilation."""
        return f"d{out_loop} * {stride} + d{tap_loop} * {dilation}"

    @staticmethod
    def _flipped_expr(pos_loop: int, tap_loop: int, k: int, dilation: int) -> str:
        """Where tap `tap_loop` of a kernel of `k` meets position `pos_loop` of a
        _dilate_pad layout (the kernel read flipped; every loop stays a plain
        index of some operand, as linalg requires)."""
        return f"d{pos_loop} - d{tap_loop} * {dilation} + {(k - 1) * dilation}"

    def _grouped_conv(self, node, xv, wv, shape, stride, padding, dilation, groups) -> _Value:
        """A convolution of `groups` groups (depthwise when every group is one
        channel; one group for 3-D ones): channels split as (group, channel
        in group), so sharding the channels shards the groups, and each
        group convolves its own."""
        c_, o_, g = xv.shape[1], wv.shape[0], groups
        if c_ % g or o_ % g:
            self.fail(node, f"{c_} input / {o_} output channels in {g} groups")
        xp = self._pad_hw(xv, list(padding), list(padding))
        return self._grouped_contraction(
            xp, wv, shape, g, True,
            lambda i, tap: self._window_expr(3 + i, tap, stride[i], dilation[i]))

    def _grouped_contraction(self, xp: _Value, wv: _Value, shape, groups: int,
                             weight_out_first: bool, read) -> _Value:
        """One windowed contraction per group: `xp` (N, C, P..) laid out for
        the window, channels split as (group, channel in group), so sharding
        the channels shards the groups; `wv` (g * A, B, k..) with (A, B) =
        (out, in) per group (`weight_out_first`, a forward convolution's
        weight) or (in, out) (a transposed one's); `read(i, tap)` the
        position read along spatial dim i. The result has `shape`."""
        et = xp.et
        n = len(xp.shape) - 2
        n_ = xp.shape[0]
        g = groups
        cg, og = xp.shape[1] // g, shape[1] // g
        ks = tuple(wv.shape[2:])
        sp = [[3 + i] for i in range(n)]
        xg = self.e.expand(xp, [[0], [1, 2]] + sp, (n_, g, cg) + tuple(xp.shape[2:]))
        wg = self.e.expand(wv, [[0, 1], [2]] + sp,
                           (g, og, cg) + ks if weight_out_first else (g, cg, og) + ks)
        # loops: n g o s.. | c k..
        cl = 3 + n
        taps = [4 + n + i for i in range(n)]
        oshape = (n_, g, og) + tuple(shape[2:])
        init = self.e.filled(oshape, et, 0)
        res = self.e.generic(
            [(xg, [0, 1, cl] + [read(i, taps[i]) for i in range(n)]),
             (wg, ([1, 2, cl] if weight_out_first else [1, cl, 2]) + taps)],
            oshape, et, self._mac(et), reduce_dims=[cl] + taps, init=init, nloops=4 + 2 * n,
            out_map=list(range(3 + n)))
        return self.e.collapse(res, [[0], [1, 2]] + sp, shape)

    def _grouped_transposed_conv(self, node, xv, wv, shape, stride, padding, dilation,
                                 groups) -> _Value:
        """A transposed convolution of `groups` groups (weight (Cin, Cout /
        groups, k..)): per group, the input gradient of the convolution it
        transposes, channels split as (group, channel in group) as the
        grouped forward's."""
        ci, ks, g = xv.shape[1], tuple(wv.shape[2:]), groups
        if ci % g:
            self.fail(node, f"{ci} input channels in {g} groups")
        xp = self._dilate_pad(xv, tuple(shape[2:]), ks, stride, padding, dilation)
        return self._grouped_contraction(
            xp, wv, shape, g, False,
            lambda i, tap: self._flipped_expr(3 + i, tap, ks[i], dilation[i]))

    def _dilate_pad(self, gv: _Value, in_sp, k, stride, padding, dilation) -> _Value:
        """`gv` (N, C, O..), per output position of a windowed op over an
        input of spatial sizes `in_sp` (kernel k, stride, padding,
        dilation), laid out so that input position h meets output o at
        h + (k - 1 - t) * d for the tap t with o * s - p + t * d = h (zero
        elsewhere): zeros inserted between the elements (stride), then
        padded. Convolution and pooling gradients read it through the
        window."""
        et = gv.et
        n = len(in_sp)
        n_, c_ = gv.shape[:2]
        osp = tuple(gv.shape[2:])
        g = gv
        if any(s > 1 for s in stride):
            # Each element followed by (stride - 1) zeros along new minor
            # dims, merged into the spatial dims (which stay shardable), and
            # the zeros after the last cut off.
            def body(args, out):
                bb = _Body(et)
                zero_i = bb.v("arith.constant 0 : index")
                first = None
                for i in range(n):
                    here = bb.v(f"arith.cmpi eq, {bb.v(f'linalg.index {3 + 2 * i} : index')}, "
                                f"{zero_i} : index")
                    first = here if first is None else bb.v(f"arith.andi {first}, {here} : i1")
                return bb.lines, bb.v(f"arith.select {first}, {args[0]}, {bb.const(0)} : {et}")
            spread_shape = (n_, c_) + sum(((osp[i], stride[i]) for i in range(n)), ())
            spread = self.e.generic([(gv, [0, 1] + [2 + 2 * i for i in range(n)])],
                                    spread_shape, et, body)
            merged = self.e.collapse(spread, [[0], [1]] + [[2 + 2 * i, 3 + 2 * i] for i in range(n)],
                                     (n_, c_) + tuple(osp[i] * stride[i] for i in range(n)))
            g = self.e.slice(merged, [0] * (n + 2),
                             (n_, c_) + tuple((osp[i] - 1) * stride[i] + 1 for i in range(n)))
        ke = [(k[i] - 1) * dilation[i] + 1 for i in range(n)]
        rem = [in_sp[i] + 2 * padding[i] - ke[i] - (osp[i] - 1) * stride[i] for i in range(n)]
        return self._pad_hw(g, [ke[i] - 1 - padding[i] for i in range(n)],
                            [ke[i] - 1 - padding[i] + rem[i] for i in range(n)])

    def _window_gradient(self, parts, in_shape, k, dilation, body) -> _Value:
        """The (N, C, ...) gradient of a pooling: for each input position, a
        sum over the window's taps of `body` applied to the `parts` (outputs
        of _dilate_pad) read where that tap's window meets it."""
        n = len(k)
        r = 2 + n
        et = parts[0].et
        taps = [r + i for i in range(n)]
        window = _Value(self.e.empty(tuple(k), et), tuple(k), et)
        ins = [(g, [0, 1] + [self._flipped_expr(2 + i, taps[i], k[i], dilation[i])
                             for i in range(n)]) for g in parts] + [(window, taps)]
        init = self.e.filled(in_shape, et, 0)
        return self.e.generic(ins, in_shape, et, body, reduce_dims=taps, init=init, nloops=r + n,
                              out_map=list(range(r)))

    def _avg_pool_divisor(self, bb, k, s, p, sizes, count_include_pad, divisor_override, et,
                          ceil_window: bool = False):
        """The divisor of the window at the output position (linalg.index 2
        on), as PyTorch's kernel: its size clipped to the padded input (a
        ceil_mode window can reach past it), or with count_include_pad=False
        the input elements it covers."""
        if divisor_override:
            return bb.const(float(divisor_override))
        if (count_include_pad or not any(p)) and not ceil_window:
            return bb.const(float(math.prod(k)))
        total = None
        for i, size in enumerate(sizes):
            o = bb.v(f"linalg.index {2 + i} : index")
            start = bb.v(f"arith.muli {o}, {bb.v(f'arith.constant {s[i]} : index')} : index")
            start = bb.v(f"arith.subi {start}, {bb.v(f'arith.constant {p[i]} : index')} : index")
            end = bb.v(f"arith.addi {start}, {bb.v(f'arith.constant {k[i]} : index')} : index")
            end = bb.v(f"arith.minsi {end}, {bb.v(f'arith.constant {size + p[i]} : index')} : index")
            if not count_include_pad:
                start = bb.v(f"arith.maxsi {start}, {bb.v('arith.constant 0 : index')} : index")
                end = bb.v(f"arith.minsi {end}, {bb.v(f'arith.constant {size} : index')} : index")
            count = bb.v(f"arith.subi {end}, {start} : index")
            total = count if total is None else bb.v(f"arith.muli {total}, {count} : index")
        total = bb.v(f"arith.index_cast {total} : index to i64")
        return self._cast(bb, total, "i64", et)

    def _conv_input_grad(self, gv, wv, in_shape, stride, padding, dilation) -> _Value:
        """The gradient of a convolution (groups 1, weight (O, C, k..)) with
        respect to its (N, C, ...) input, `in_shape`, from the gradient `gv`
        (N, O, O..) of its output: the zero-inserted (stride), padded
        gradient read through the flipped kernel."""
        et = gv.et
        n = len(in_shape) - 2
        ks = tuple(wv.shape[2:])
        g = self._dilate_pad(gv, tuple(in_shape[2:]), ks, stride, padding, dilation)
        # loops: n c s.. | o k..
        ol = 2 + n
        taps = [3 + n + i for i in range(n)]
        init = self.e.filled(tuple(in_shape), et, 0)
        return self.e.generic(
            [(g, [0, ol] + [self._flipped_expr(2 + i, taps[i], ks[i], dilation[i])
                            for i in range(n)]),
             (wv, [ol, 1] + taps)],
            tuple(in_shape), et, self._mac(et), reduce_dims=[ol] + taps, init=init,
            nloops=3 + 2 * n)

    def _pad_hw(self, v: _Value, low: Sequence[int], high: Sequence[int],
                value: float = 0.0) -> _Value:
        """`v` padded with `value` on its last len(low) dims (the spatial dims
        of N, C, ...); negative amounts crop."""
        et = v.et
        n = len(low)
        lead = len(v.shape) - n
        lo = [max(0, x) for x in low]
        hi = [max(0, x) for x in high]
        if any(lo) or any(hi):
            padded = tuple(v.shape[:lead]) + tuple(v.shape[lead + i] + lo[i] + hi[i]
                                                  for i in range(n))
            name = self.e.fresh("pad")
            zero = _float_literal(value, et) if _is_float(et) else str(int(value))
            out = _Value(name, padded, et)
            idx = ", ".join(f"%i{i}: index" for i in range(len(v.shape)))
            self.e.emit(f"{name} = tensor.pad {v.name} low[{', '.join(map(str, [0] * lead + lo))}] "
                        f"high[{', '.join(map(str, [0] * lead + hi))}] {{\n"
                        f"^bb0({idx}):\n"
                        f"  %z = arith.constant {zero} : {et}\n"
                        f"  tensor.yield %z : {et}\n"
                        f"}} : {v.type} to {out.type}")
            v = out
        cut_lo = [max(0, -x) for x in low]
        cut_hi = [max(0, -x) for x in high]
        if any(cut_lo) or any(cut_hi):
            v = self.e.slice(v, [0] * lead + cut_lo,
                             tuple(v.shape[:lead]) + tuple(v.shape[lead + i] - cut_lo[i] - cut_hi[i]
                                                           for i in range(n)))
        return v

    def _mac(self, et):
        """The body of a multiply-accumulate generic: out + a * b."""
        def body(args, out):
            bb = _Body(et)
            return bb.lines, bb.bin("addf", None, out, bb.bin("mulf", None, args[0], args[1]))
        return body

    def op_convolution_backward(self, node, grad_output, x, w, bias_sizes, stride, padding,
                                dilation, transposed, output_padding, groups, output_mask):
        """The gradients of a convolution, as windowed reads: the input's is
        the zero-inserted (stride), padded output gradient read through the
        flipped kernel; the weight's is a reduction over batch and space of
        the padded input times the output gradient; the bias's a sum.
        Sharded on batch or a spatial dim, they partition like the forward
        convolution (halo exchanges; the weight's is Partial)."""
        gv, xv, wv = self.val(grad_output), self.val(x), self.val(w)
        if len(xv.shape) == 3:
            grads = self._convolution_backward(
                node, self._lift_1d(gv), self._lift_1d(xv), self._lift_1d(wv),
                [1] + list(stride), [0] + list(padding), [1] + list(dilation), transposed,
                groups, output_mask)
            return self._drop_1d(grads[0]), self._drop_1d(grads[1]), grads[2]
        if len(xv.shape) not in (4, 5):
            self.fail(node, f"the gradient of a {len(xv.shape) - 2}-D convolution is not "
                            "supported yet (1-D, 2-D and 3-D only)")
        return self._convolution_backward(node, gv, xv, wv, stride, padding, dilation,
                                          transposed, groups, output_mask)

    def _convolution_backward(self, node, gv, xv, wv, stride, padding, dilation, transposed,
                              groups, output_mask):
        if transposed:
            return self._transposed_conv_backward(node, gv, xv, wv, stride, padding, dilation,
                                                  output_mask, groups)
        if groups != 1:
            return self._grouped_conv_backward(node, gv, xv, wv, stride, padding, dilation,
                                               groups, output_mask)
        et = xv.et
        n = len(xv.shape) - 2
        spatial = [2 + i for i in range(n)]
        results = [None, None, None]
        if output_mask[0]:
            results[0] = self._conv_input_grad(gv, wv, xv.shape, stride, padding, dilation)
        if output_mask[1]:
            xp = self._pad_hw(xv, list(padding), list(padding))
            # loops: o c k.. | n o..
            taps = [2 + i for i in range(n)]
            nl = 2 + n
            outs = [3 + n + i for i in range(n)]
            init = self.e.filled(tuple(wv.shape), et, 0)
            results[1] = self.e.generic(
                [(gv, [nl, 0] + outs),
                 (xp, [nl, 1] + [self._window_expr(outs[i], taps[i], stride[i], dilation[i])
                                 for i in range(n)])],
                tuple(wv.shape), et, self._mac(et), reduce_dims=[nl] + outs, init=init,
                nloops=3 + 2 * n)
        if output_mask[2]:
            results[2] = self._reduce(node, gv, [0] + spatial, False, "sum", et)
        return tuple(results)

    def _grouped_conv_backward(self, node, gv, xv, wv, stride, padding, dilation, groups,
                               output_mask):
        """A grouped convolution's gradients, per group as the ungrouped ones
        (channels split as (group, channel in group), as the forward)."""
        et = xv.et
        n = len(xv.shape) - 2
        n_ = xv.shape[0]
        o_, cg = wv.shape[:2]
        ks = tuple(wv.shape[2:])
        g_, og = groups, o_ // groups
        sp = [[3 + i] for i in range(n)]
        results = [None, None, None]
        if output_mask[0]:
            # The input gradient of a grouped convolution is the grouped
            # transposed convolution of its output gradient.
            results[0] = self._grouped_transposed_conv(node, gv, wv, xv.shape, stride, padding,
                                                       dilation, groups)
        if output_mask[1]:
            xp = self._pad_hw(xv, list(padding), list(padding))
            xp5 = self.e.expand(xp, [[0], [1, 2]] + sp, (n_, g_, cg) + tuple(xp.shape[2:]))
            g5 = self.e.expand(gv, [[0], [1, 2]] + sp, (n_, g_, og) + tuple(gv.shape[2:]))
            # loops: g og c k.. | n o..
            taps = [3 + i for i in range(n)]
            nl = 3 + n
            outs = [4 + n + i for i in range(n)]
            wshape = (g_, og, cg) + ks
            init = self.e.filled(wshape, et, 0)
            grad = self.e.generic(
                [(g5, [nl, 0, 1] + outs),
                 (xp5, [nl, 0, 2] + [self._window_expr(outs[i], taps[i], stride[i], dilation[i])
                                     for i in range(n)])],
                wshape, et, self._mac(et), reduce_dims=[nl] + outs, init=init,
                nloops=4 + 2 * n, out_map=list(range(3 + n)))
            results[1] = self.e.collapse(grad, [[0, 1], [2]] + sp, wv.shape)
        if output_mask[2]:
            results[2] = self._reduce(node, gv, [0] + [2 + i for i in range(n)], False, "sum", et)
        return tuple(results)

    def _transposed_conv_backward(self, node, gv, xv, wv, stride, padding, dilation, output_mask,
                                  groups=1):
        """A transposed convolution's gradients: the input's is the forward
        convolution of the output gradient with the same weight; the
        weight's pairs each input element with the (padded) output gradient
        where its taps wrote. Grouped: the same per group (channels split as
        (group, channel in group), the weight (in, out / groups, k..))."""
        et = xv.et
        n = len(xv.shape) - 2
        results = [None, None, None]
        gp = self._pad_hw(gv, list(padding), list(padding))
        if groups != 1:
            n_ = xv.shape[0]
            ci_, cog = wv.shape[:2]
            g_, cig = groups, ci_ // groups
            ks = tuple(wv.shape[2:])
            sp = [[3 + i] for i in range(n)]
            x5 = self.e.expand(xv, [[0], [1, 2]] + sp, (n_, g_, cig) + tuple(xv.shape[2:]))
            g5 = self.e.expand(gp, [[0], [1, 2]] + sp, (n_, g_, cog) + tuple(gp.shape[2:]))
            w5 = self.e.expand(wv, [[0, 1], [2]] + sp, (g_, cig, cog) + ks)
            if output_mask[0]:
                # loops: n g ci s.. | co k..
                col = 3 + n
                taps = [4 + n + i for i in range(n)]
                shape5 = (n_, g_, cig) + tuple(xv.shape[2:])
                grad = self.e.generic(
                    [(g5, [0, 1, col] + [self._window_expr(3 + i, taps[i], stride[i], dilation[i])
                                         for i in range(n)]),
                     (w5, [1, 2, col] + taps)],
                    shape5, et, self._mac(et), reduce_dims=[col] + taps,
                    init=self.e.filled(shape5, et, 0), nloops=4 + 2 * n,
                    out_map=list(range(3 + n)))
                results[0] = self.e.collapse(grad, [[0], [1, 2]] + sp, xv.shape)
            if output_mask[1]:
                # loops: g ci co k.. | n s..
                taps = [3 + i for i in range(n)]
                nl = 3 + n
                sps = [4 + n + i for i in range(n)]
                wshape = (g_, cig, cog) + ks
                grad = self.e.generic(
                    [(x5, [nl, 0, 1] + sps),
                     (g5, [nl, 0, 2] + [self._window_expr(sps[i], taps[i], stride[i], dilation[i])
                                        for i in range(n)])],
                    wshape, et, self._mac(et), reduce_dims=[nl] + sps,
                    init=self.e.filled(wshape, et, 0), nloops=4 + 2 * n,
                    out_map=list(range(3 + n)))
                results[1] = self.e.collapse(grad, [[0, 1], [2]] + sp, wv.shape)
            if output_mask[2]:
                results[2] = self._reduce(node, gv, [0] + [2 + i for i in range(n)], False, "sum",
                                          et)
            return tuple(results)
        if output_mask[0]:
            # loops: n ci s.. | co k..
            col = 2 + n
            taps = [3 + n + i for i in range(n)]
            init = self.e.filled(xv.shape, et, 0)
            results[0] = self.e.generic(
                [(gp, [0, col] + [self._window_expr(2 + i, taps[i], stride[i], dilation[i])
                                  for i in range(n)]),
                 (wv, [1, col] + taps)],
                xv.shape, et, self._mac(et), reduce_dims=[col] + taps, init=init,
                nloops=3 + 2 * n)
        if output_mask[1]:
            # loops: ci co k.. | n s..
            taps = [2 + i for i in range(n)]
            nl = 2 + n
            sps = [3 + n + i for i in range(n)]
            init = self.e.filled(wv.shape, et, 0)
            results[1] = self.e.generic(
                [(xv, [nl, 0] + sps),
                 (gp, [nl, 1] + [self._window_expr(sps[i], taps[i], stride[i], dilation[i])
                                 for i in range(n)])],
                wv.shape, et, self._mac(et), reduce_dims=[nl] + sps, init=init,
                nloops=3 + 2 * n)
        if output_mask[2]:
            results[2] = self._reduce(node, gv, [0] + [2 + i for i in range(n)], False, "sum", et)
        return tuple(results)

    def op_embedding_dense_backward(self, node, grad_output, indices, num_weights,
                                    padding_idx, scale_grad_by_freq):
        """The table's gradient: row v sums the output gradient's rows whose id
        is v (none for padding_idx). A reduction over the ids for every
        (v, d), with no data-dependent write, so it partitions: a table
        sharded on v (vocab-parallel) computes its own rows."""
        if scale_grad_by_freq:
            self.fail(node, "embedding gradients scaled by frequency are not supported yet")
        return self._table_grad(self.val(grad_output), self.val(indices), num_weights,
                                padding_idx)

    def op__embedding_bag_backward(self, node, grad, indices, offsets, offset2bag, bag_size,
                                   maximum_indices, num_weights, scale_grad_by_freq, mode,
                                   sparse, per_sample_weights=None, padding_idx=-1):
        """EmbeddingBag's table gradient (sum and mean): position p's row
        gets its bag's output gradient, times its per-sample weight, over the
        bag's size for mean; then as embedding's (a reduction over the
        positions for every row, padding_idx left out). The bags are
        recomputed from the offsets, as the forward does."""
        if scale_grad_by_freq:
            self.fail(node, "embedding_bag gradients scaled by frequency are not supported yet")
        if mode == 2:
            return self._bag_max_grad(node, self.val(grad), self.val(maximum_indices), num_weights)
        if mode not in (0, 1):
            self.fail(node, f"the gradient of embedding_bag mode {mode}")
        g, ids, offs = self.val(grad), self.val(indices), self.val(offsets)
        if len(ids.shape) != 1 or len(g.shape) != 2:
            self.fail(node, "embedding_bag's gradient of 2-D indices")
        et = g.et
        npos, width = ids.shape[0], g.shape[1]
        bags = g.shape[0]
        pad = padding_idx if padding_idx is not None and padding_idx >= 0 else None
        bag = self._bag_of_positions(offs, bags, npos)
        clamped = self.e.generic([(bag, [0])], (npos,), "i64", lambda args, out: (
            lambda bb: (bb.lines, bb.v(f"arith.maxsi {args[0]}, {bb.const(0)} : i64")))(
                _Body("i64")))
        rows = self._lookup(g, clamped)  # (npos, width): each position's bag's gradient
        factor = None
        if mode == 1:
            count = self._bag_sizes(bag, ids, bags, pad)
            sizes = self._lookup(self.e.expand(count, [[0, 1]], (bags, 1)), clamped)

            def inverse(args, out):
                bb = _Body(et)
                one = bb.const(1, "i64")
                at_least_one = bb.v(f"arith.maxsi {args[0]}, {one} : i64")
                n = bb.v(f"arith.sitofp {at_least_one} : i64 to {et}")
                return bb.lines, bb.bin("divf", None, bb.const(1.0), n)
            factor = self.e.generic([(self.e.collapse(sizes, [[0, 1]], (npos,)), [0])], (npos,),
                                    et, inverse)
        if per_sample_weights is not None:
            psw = self.val(per_sample_weights)
            factor = psw if factor is None else self._binary_values(
                factor, psw, lambda bb, x, y: bb.bin("mulf", None, x, y))
        if factor is not None:
            rows = self.e.generic([(rows, [0, 1]), (factor, [0])], (npos, width), et,
                                  lambda args, out: (lambda bb: (
                                      bb.lines, bb.bin("mulf", None, args[0], args[1])))(
                                      _Body(et)))
        return self._table_grad(rows, ids, num_weights, pad)

    def _bag_max_grad(self, node, g: _Value, maxima: _Value, num_weights: int) -> _Value:
        """EmbeddingBag's table gradient for mode='max': row v, feature d gets
        the output gradient of every bag whose maximum at d came from row v
        (the forward's max indices; -1, an empty bag, matches no row)."""
        if len(g.shape) != 2 or len(maxima.shape) != 2:
            self.fail(node, "embedding_bag's max-mode gradient of 2-D indices")
        bags, width = g.shape
        et = g.et

        def body(args, out):
            bb = _Body(et)
            v = bb.v(f"arith.index_cast {bb.v('linalg.index 0 : index')} : index to i64")
            hit = bb.v(f"arith.cmpi eq, {self._cast(bb, args[1], maxima.et, 'i64')}, {v} : i64")
            picked = bb.v(f"arith.select {hit}, {args[0]}, {bb.const(0.0)} : {et}")
            return bb.lines, bb.bin("addf", None, out, picked)
        return self.e.generic([(g, [2, 1]), (maxima, [2, 1])], (num_weights, width), et, body,
                              reduce_dims=[2], init=self.e.filled((num_weights, width), et, 0),
                              nloops=3, out_map=[0, 1])

    def _table_grad(self, gv: _Value, ids: _Value, num_weights: int, padding_idx) -> _Value:
        """Row v of the table's gradient: the sum of the gradient's rows
        whose id is v (none for padding_idx)."""
        r = len(ids.shape)
        d_ = gv.shape[-1]
        et = gv.et
        init = self.e.filled((num_weights, d_), et, 0)
        loops = list(range(2, 2 + r))

        def body(args, out):
            bb = _Body(et)
            v = bb.v("linalg.index 0 : index")
            idx = bb.v(f"arith.index_cast {args[1]} : {ids.et} to index")
            hit = bb.v(f"arith.cmpi eq, {idx}, {v} : index")
            if padding_idx is not None and padding_idx >= 0:
                pad = bb.v(f"arith.constant {int(padding_idx)} : index")
                keep = bb.v(f"arith.cmpi ne, {idx}, {pad} : index")
                hit = bb.v(f"arith.andi {hit}, {keep} : i1")
            zero = bb.const(0.0)
            picked = bb.v(f"arith.select {hit}, {args[0]}, {zero} : {et}")
            return bb.lines, bb.bin("addf", None, out, picked)
        return self.e.generic([(gv, loops + [1]), (ids, loops)], (num_weights, d_), et, body,
                              reduce_dims=loops, init=init, nloops=2 + r, out_map=[0, 1])

    # -- more core ATen: ranges, logic, clamps, norms, pooling, indexing ------
    def _missing(self, node, what: str) -> "_Missing":
        frame = self._user_frame(node)
        where = f"{frame[0]}:{frame[1]}: " if frame else ""
        return _Missing(f"{where}{what} is not supported yet (node {node.name}: {node.target})")

    def op_arange(self, node, *args, **kwargs):
        """start + i * step, computed from the loop index: each rank computes
        its own piece of a sharded range (no input to move)."""
        shape, et = self._out(node)
        nums = [a for a in args if isinstance(a, (int, float))]
        if len(nums) == 1:
            start, step = 0, 1
        elif len(nums) == 2:
            start, step = nums[0], 1
        elif len(nums) == 3:
            start, step = nums[0], nums[2]
        else:
            self.fail(node, f"arange with arguments {args!r}")
        fake = node.meta.get("val")
        if isinstance(fake, torch.Tensor) and fake.dtype == torch.uint8 and shape[0] and \
                not (0 <= start <= 255 and 0 <= start + (shape[0] - 1) * step <= 255):
            self.fail(node, "a uint8 arange outside 0..255 (it wraps in PyTorch)")

        def body(args_, out):
            bb = _Body(et)
            i = bb.v("linalg.index 0 : index")
            if _is_float(et):
                # In f64, then rounded once (PyTorch computes start + i * step
                # in the accumulate type).
                i64 = bb.v(f"arith.index_cast {i} : index to i64")
                x = bb.v(f"arith.sitofp {i64} : i64 to f64")
                x = bb.v(f"arith.mulf {x}, {bb.const(step, 'f64')} : f64")
                x = bb.v(f"arith.addf {x}, {bb.const(start, 'f64')} : f64")
                return bb.lines, self._cast(bb, x, "f64", et)
            x = bb.v(f"arith.index_cast {i} : index to {et}")
            if step != 1:
                x = bb.bin("mulf", "muli", x, bb.const(int(step)))
            if start != 0:
                x = bb.bin("addf", "addi", x, bb.const(int(start)))
            return bb.lines, x
        return self.e.generic([], shape, et, body)

    @staticmethod
    def _truth(bb: "_Body", x: str, et: str) -> str:
        """`x != 0` as i1 (a bool as it is)."""
        if et == "i1":
            return x
        if _is_float(et):
            return bb.v(f"arith.cmpf une, {x}, {bb.const(0.0, et)} : {et}")
        return bb.v(f"arith.cmpi ne, {x}, {bb.const(0, et)} : {et}")

    def _logical(self, node, operands, fn) -> _Value:
        shape, _ = self._out(node)
        ins, ets = [], []
        for o in operands:
            if not isinstance(o, torch.fx.Node):
                self.fail(node, "a logical op of a Python scalar")
            v = self.val(o)
            keep, loops = _broadcast_map(v.shape, shape)
            ins.append((self.e.drop_dims(v, keep), loops))
            ets.append(v.et)

        def body(args, out):
            bb = _Body("i1")
            truths = [self._truth(bb, a, et) for a, et in zip(args, ets)]
            return bb.lines, fn(bb, *truths)
        return self.e.generic(ins, shape, "i1", body)

    def op_logical_not(self, node, a):
        return self._logical(node, [a], lambda bb, x: bb.v(f"arith.xori {x}, {bb.const(True)} : i1"))

    def op_logical_and(self, node, a, b):
        return self._logical(node, [a, b], lambda bb, x, y: bb.v(f"arith.andi {x}, {y} : i1"))

    def op_logical_or(self, node, a, b):
        return self._logical(node, [a, b], lambda bb, x, y: bb.v(f"arith.ori {x}, {y} : i1"))

    def op_logical_xor(self, node, a, b):
        return self._logical(node, [a, b], lambda bb, x, y: bb.v(f"arith.xori {x}, {y} : i1"))

    def op_remainder(self, node, a, b):
        """Python's modulo (the sign of the divisor), as PyTorch: fmod / rem,
        plus the divisor where the signs differ."""
        def f(bb, x, y):
            if _is_float(bb.et):
                r = bb.v(f"arith.remf {x}, {y} : {bb.et}")
                zero = bb.const(0.0)
                nz = bb.v(f"arith.cmpf une, {r}, {zero} : {bb.et}")
                rneg = bb.v(f"arith.cmpf olt, {r}, {zero} : {bb.et}")
                yneg = bb.v(f"arith.cmpf olt, {y}, {zero} : {bb.et}")
            else:
                r = bb.v(f"arith.remsi {x}, {y} : {bb.et}")
                zero = bb.const(0)
                nz = bb.v(f"arith.cmpi ne, {r}, {zero} : {bb.et}")
                rneg = bb.v(f"arith.cmpi slt, {r}, {zero} : {bb.et}")
                yneg = bb.v(f"arith.cmpi slt, {y}, {zero} : {bb.et}")
            differ = bb.v(f"arith.xori {rneg}, {yneg} : i1")
            fix = bb.v(f"arith.andi {nz}, {differ} : i1")
            return bb.v(f"arith.select {fix}, {bb.bin('addf', 'addi', r, y)}, {r} : {bb.et}")
        return self._elementwise(node, [a, b], f)

    def op_bitwise_not(self, node, a):
        et = self._out(node)[1]
        if _is_float(et):
            self.fail(node, "bitwise not of a floating-point tensor")
        return self._elementwise(node, [a], lambda bb, x: bb.v(
            f"arith.xori {x}, {bb.const(True if et == 'i1' else -1)} : {et}"))

    def _any_all(self, node, a, dim, keepdim, kind):
        v = self.val(a)
        shape, _ = self._out(node)
        r = len(v.shape)
        if dim is None:
            dims = list(range(r))
        else:
            dims = [dim] if isinstance(dim, int) else list(dim)
            dims = dims or list(range(r))
        if v.et != "i1":
            v = self._unary_value_typed(v, "i1", lambda bb, x: self._truth(bb, x, v.et))
        res = self._reduce(node, v, dims, False, kind, "i1")
        return self._reshape(node, res, shape) if keepdim else res

    def op_any(self, node, a, dim=None, keepdim=False):
        return self._any_all(node, a, dim, keepdim, "max")

    def op_all(self, node, a, dim=None, keepdim=False):
        return self._any_all(node, a, dim, keepdim, "min")

    def _unary_value_typed(self, v: _Value, out_et: str, fn) -> _Value:
        def body(args, out):
            bb = _Body(v.et)
            return bb.lines, fn(bb, args[0])
        r = len(v.shape)
        return self.e.generic([(v, list(range(r)))], v.shape, out_et, body)

    def op_clamp(self, node, a, min=None, max=None):
        """min(max(x, lo), hi) in the result's type, as PyTorch (so lo > hi
        gives hi); NaN stays NaN."""
        ops = [a]
        for bound in (min, max):
            if bound is not None:
                ops.append(bound)
        lo_at = 1 if min is not None else None
        hi_at = (2 if min is not None else 1) if max is not None else None

        def f(bb, x, *bounds):
            if lo_at is not None:
                x = bb.bin("maximumf", "maxsi", x, bounds[lo_at - 1])
            if hi_at is not None:
                x = bb.bin("minimumf", "minsi", x, bounds[hi_at - 1])
            return x
        return self._elementwise(node, ops, f)

    def op_clamp_min(self, node, a, min):
        return self.op_clamp(node, a, min=min)

    def op_clamp_max(self, node, a, max):
        return self.op_clamp(node, a, max=max)

    def op_hardtanh(self, node, a, min_val=-1.0, max_val=1.0):
        return self.op_clamp(node, a, min=min_val, max=max_val)

    def op_leaky_relu(self, node, a, negative_slope=0.01):
        def f(bb, x):
            pos = bb.v(f"arith.cmpf ogt, {x}, {bb.const(0.0)} : {bb.et}")
            return bb.v(f"arith.select {pos}, {x}, {bb.bin('mulf', None, x, bb.const(negative_slope))} : {bb.et}")
        return self._elementwise(node, [a], f)

    def op_rrelu_with_noise(self, node, a, noise, lower=1.0 / 8, upper=1.0 / 3, training=False,
                            generator=None):
        if training:
            self.fail(node, "rrelu in training mode is random: export the module in eval()")
        return self.op_leaky_relu(node, a, (lower + upper) / 2)

    def op_rrelu_with_noise_functional(self, node, a, noise, lower=1.0 / 8, upper=1.0 / 3,
                                       training=False, generator=None):
        if training:
            self.fail(node, "rrelu in training mode is random: export the module in eval()")
        slope = (lower + upper) / 2

        def f(bb, x):
            pos = bb.v(f"arith.cmpf ogt, {x}, {bb.const(0.0)} : {bb.et}")
            return bb.v(f"arith.select {pos}, {x}, {bb.bin('mulf', None, x, bb.const(slope))} : {bb.et}")
        return self._unary_value(self.val(a), f), self._missing(node, "rrelu's noise")

    def op_elu(self, node, a, alpha=1.0, scale=1.0, input_scale=1.0):
        def f(bb, x):
            pos = bb.v(f"arith.cmpf ogt, {x}, {bb.const(0.0)} : {bb.et}")
            neg = bb.un("math.expm1", bb.bin("mulf", None, x, bb.const(input_scale)))
            neg = bb.bin("mulf", None, neg, bb.const(alpha * scale))
            return bb.v(f"arith.select {pos}, {bb.bin('mulf', None, x, bb.const(scale))}, {neg} : {bb.et}")
        return self._elementwise(node, [a], f)

    def _float_math(self, name):
        def f(node, a):
            if not _is_float(self._out(node)[1]):
                return self.val(a)  # floor / ceil / round / trunc of an integer
            return self._elementwise(node, [a], lambda bb, x: bb.un(f"math.{name}", x))
        return f

    def op_floor(self, node, a): return self._float_math("floor")(node, a)
    def op_ceil(self, node, a): return self._float_math("ceil")(node, a)
    def op_trunc(self, node, a): return self._float_math("trunc")(node, a)

    def op_round(self, node, a, decimals=0):
        if decimals:
            self.fail(node, "round with decimals is not supported yet")
        return self._float_math("roundeven")(node, a)  # half to even, as PyTorch

    def op_log1p(self, node, a): return self._math("log1p")(node, a)
    def op_log10(self, node, a): return self._math("log10")(node, a)
    def op_exp2(self, node, a): return self._math("exp2")(node, a)
    def op_tan(self, node, a): return self._math("tan")(node, a)
    def op_atan(self, node, a): return self._math("atan")(node, a)
    def op_asin(self, node, a): return self._math("asin")(node, a)
    def op_acos(self, node, a): return self._math("acos")(node, a)
    def op_sinh(self, node, a): return self._math("sinh")(node, a)
    def op_cosh(self, node, a): return self._math("cosh")(node, a)
    def op_asinh(self, node, a): return self._math("asinh")(node, a)
    def op_acosh(self, node, a): return self._math("acosh")(node, a)
    def op_atanh(self, node, a): return self._math("atanh")(node, a)

    def op_atan2(self, node, a, b):
        return self._elementwise(node, [a, b], lambda bb, x, y: bb.v(f"math.atan2 {x}, {y} : {bb.et}"))

    def op_erfc(self, node, a): return self._math("erfc")(node, a)

    def op_copysign(self, node, a, b):
        """|a| with b's sign bit (a negative zero or NaN's included)."""
        return self._elementwise(node, [a, b],
                                 lambda bb, x, y: bb.v(f"math.copysign {x}, {y} : {bb.et}"))

    def op_signbit(self, node, a):
        """Whether the sign bit is set: -0.0 and a negative NaN too (the sign
        of copysign(1, x)); for integers x < 0."""
        v = self.val(a)
        if v.et == "i1":
            return self.e.filled(self._out(node)[0], "i1", False)
        if not _is_float(v.et):
            return self._unary_value_typed(v, "i1", lambda bb, x: bb.v(
                f"arith.cmpi slt, {x}, {bb.const(0)} : {v.et}"))
        return self._unary_value_typed(v, "i1", lambda bb, x: bb.v(
            f"arith.cmpf olt, {bb.v(f'math.copysign {bb.const(1.0)}, {x} : {v.et}')}, "
            f"{bb.const(0.0)} : {v.et}"))

    def op_hypot(self, node, a, b):
        """sqrt(a^2 + b^2) without overflow or underflow, as std::hypot: the
        larger magnitude m times sqrt(1 + (n / m)^2); 0 where both are 0;
        infinity where either is infinite (a NaN in the other too)."""
        def f(bb, x, y):
            ax, ay = bb.un("math.absf", x), bb.un("math.absf", y)
            m = bb.bin("maximumf", None, ax, ay)
            n = bb.bin("minimumf", None, ax, ay)
            zero, one, inf = bb.const(0.0), bb.const(1.0), bb.const(math.inf)
            is_zero = bb.v(f"arith.cmpf oeq, {m}, {zero} : {bb.et}")
            safe = bb.v(f"arith.select {is_zero}, {one}, {m} : {bb.et}")
            q = bb.bin("divf", None, n, safe)
            r = bb.bin("mulf", None, m, bb.un("math.sqrt", bb.bin(
                "addf", None, one, bb.bin("mulf", None, q, q))))
            r = bb.v(f"arith.select {is_zero}, {zero}, {r} : {bb.et}")
            x_inf = bb.v(f"arith.cmpf oeq, {ax}, {inf} : {bb.et}")
            y_inf = bb.v(f"arith.cmpf oeq, {ay}, {inf} : {bb.et}")
            any_inf = bb.v(f"arith.ori {x_inf}, {y_inf} : i1")
            return bb.v(f"arith.select {any_inf}, {inf}, {r} : {bb.et}")
        if not _is_float(self._out(node)[1]):
            self.fail(node, "hypot of integer tensors")
        return self._elementwise(node, [a, b], f)

    def _shift(self, node, a, b, left: bool):
        """Integer shifts as PyTorch's: a shift by the width or more, or by a
        negative amount, gives 0 to the left and the sign (0 or -1) to the
        right; in the operands' own width (an i8 wraps at 8 bits)."""
        et = self._out(node)[1]
        if _is_float(et) or et == "i1":
            self.fail(node, f"a bit shift of {et} tensors")
        bits = int(et[1:])

        def f(bb, x, y):
            width = bb.const(bits)
            zero = bb.const(0)
            inside = bb.v(f"arith.andi {bb.v(f'arith.cmpi sge, {y}, {zero} : {et}')}, "
                          f"{bb.v(f'arith.cmpi slt, {y}, {width} : {et}')} : i1")
            amount = bb.v(f"arith.select {inside}, {y}, {zero} : {et}")
            if left:
                shifted = bb.v(f"arith.shli {x}, {amount} : {et}")
                return bb.v(f"arith.select {inside}, {shifted}, {zero} : {et}")
            shifted = bb.v(f"arith.shrsi {x}, {amount} : {et}")
            sign = bb.v(f"arith.shrsi {x}, {bb.const(bits - 1)} : {et}")
            return bb.v(f"arith.select {inside}, {shifted}, {sign} : {et}")
        return self._elementwise(node, [a, b], f)

    def op___lshift__(self, node, a, b): return self._shift(node, a, b, True)
    def op___rshift__(self, node, a, b): return self._shift(node, a, b, False)
    op_bitwise_left_shift = op___lshift__
    op_bitwise_right_shift = op___rshift__
    def op_expm1(self, node, a): return self._math("expm1")(node, a)
    def op_log2(self, node, a): return self._math("log2")(node, a)

    def op__native_batch_norm_legit_no_training(self, node, a, weight, bias, running_mean,
                                                running_var, momentum, eps):
        """Inference batch norm: (x - mean[c]) * rsqrt(var[c] + eps) * w[c] + b[c],
        element-wise with per-channel vectors (channel dim 1)."""
        v = self.val(a)
        r = len(v.shape)
        if r < 2:
            self.fail(node, "batch norm of a tensor with fewer than 2 dims")
        et = v.et
        mean, var = self.val(running_mean), self.val(running_var)
        ins = [(v, list(range(r))), (mean, [1]), (var, [1])]
        if weight is not None:
            ins.append((self.val(weight), [1]))
        if bias is not None:
            ins.append((self.val(bias), [1]))

        def body(args, out):
            bb = _Body(et)
            x, m, s = args[0], args[1], args[2]
            rstd = bb.un("math.rsqrt", bb.bin("addf", None, s, bb.const(eps)))
            y = bb.bin("mulf", None, bb.bin("subf", None, x, m), rstd)
            return bb.lines, self._affine(bb, y, args[3:], weight is not None, bias is not None)
        out = self.e.generic(ins, v.shape, et, body)
        return (out, self._missing(node, "batch norm's saved mean"),
                self._missing(node, "batch norm's saved inverse std"))

    @staticmethod
    def _affine(bb: "_Body", y: str, args, has_weight: bool, has_bias: bool) -> str:
        """y * weight + bias, each if given (the next block arguments)."""
        k = 0
        if has_weight:
            y = bb.bin("mulf", None, y, args[k])
            k += 1
        if has_bias:
            y = bb.bin("addf", None, y, args[k])
        return y

    def _batch_norm_train(self, node, a, weight, bias, running_mean, running_var, momentum, eps):
        """Batch norm with the batch's statistics (per channel over every dim
        but 1): (out, mean, 1 / std) and the running statistics' new values,
        (1 - momentum) * old + momentum * batch (the variance unbiased), or
        None without them. Over a sharded batch the statistics are the whole
        batch's (Partial sums reduced): SyncBatchNorm's, equal to eager on the
        whole batch."""
        v = self.val(a)
        r = len(v.shape)
        et = v.et
        dims = [d for d in range(r) if d != 1]
        count = 1
        for d in dims:
            count *= v.shape[d]
        c = v.shape[1]
        mean = self._scale(self._reduce(node, v, dims, False, "sum", et), 1.0 / count)
        vec_map = [1]
        centered = self.e.generic([(v, list(range(r))), (mean, vec_map)], v.shape, et,
                                  lambda args, o: (lambda bb: (bb.lines, bb.bin(
                                      "subf", None, args[0], args[1])))(_Body(et)))
        sq = self._unary_value(centered, lambda bb, x: bb.bin("mulf", None, x, x))
        var = self._scale(self._reduce(node, sq, dims, False, "sum", et), 1.0 / count)
        invstd = self._unary_value(var, lambda bb, x: bb.un(
            "math.rsqrt", bb.bin("addf", None, x, bb.const(eps))))
        ins = [(centered, list(range(r))), (invstd, vec_map)]
        if weight is not None:
            ins.append((self.val(weight), vec_map))
        if bias is not None:
            ins.append((self.val(bias), vec_map))

        def body(args, out):
            bb = _Body(et)
            y = bb.bin("mulf", None, args[0], args[1])
            return bb.lines, self._affine(bb, y, args[2:], weight is not None, bias is not None)
        out = self.e.generic(ins, v.shape, et, body)
        new_stats = None
        if running_mean is not None and running_var is not None:
            if momentum is None:
                # (A cumulative average over the batches seen so far.)
                self.fail(node, "batch norm with momentum=None is not supported yet")
            m = float(momentum)
            unbias = count / max(count - 1, 1)

            def blend(old, new, factor):
                return self._binary_values(self.val(old), new, lambda bb, x, y: bb.bin(
                    "addf", None, bb.bin("mulf", None, x, bb.const(1.0 - m)),
                    bb.bin("mulf", None, y, bb.const(m * factor))))
            new_stats = (blend(running_mean, mean, 1.0), blend(running_var, var, unbias))
        assert mean.shape == (c,)
        return out, mean, invstd, new_stats

    def _record_update(self, target, value: _Value) -> None:
        """A graph input (a buffer) given a new value: the training step
        returns it after the gradients."""
        if not (isinstance(target, torch.fx.Node) and target.op == "placeholder"):
            raise DTensorError("an in-place update of a value that is not a graph input")
        fake = target.meta.get("val")
        if isinstance(fake, torch.Tensor) and fake.dtype in _DTYPES:
            value = self._convert(value, _DTYPES[fake.dtype])  # (computed in f32)
        self.updates[target] = value

    def op_native_batch_norm(self, node, a, weight, bias, running_mean, running_var,
                             training, momentum, eps):
        if not training:
            return self.op__native_batch_norm_legit_no_training(
                node, a, weight, bias, running_mean, running_var, momentum, eps)
        # The running statistics are updated in place: a new value of each.
        out, mean, invstd, new_stats = self._batch_norm_train(
            node, a, weight, bias, running_mean, running_var, momentum, eps)
        if new_stats is not None:
            self._record_update(running_mean, new_stats[0])
            self._record_update(running_var, new_stats[1])
        return out, mean, invstd

    def op__native_batch_norm_legit_functional(self, node, a, weight, bias, running_mean,
                                               running_var, training, momentum, eps):
        if not training:
            out = self.op__native_batch_norm_legit_no_training(
                node, a, weight, bias, running_mean, running_var, momentum, eps)[0]
            return (out, self._missing(node, "batch norm's saved mean"),
                    self._missing(node, "batch norm's saved inverse std"),
                    self.val(running_mean), self.val(running_var))
        out, mean, invstd, new_stats = self._batch_norm_train(
            node, a, weight, bias, running_mean, running_var, momentum, eps)
        return out, mean, invstd, new_stats[0], new_stats[1]

    def op__native_batch_norm_legit(self, node, a, weight, bias, *rest):
        if getattr(node.target, "_overloadname", "") == "no_stats":
            # Statistics of this batch only, nothing to update: instance norm
            # (a (1, N * C, ...) view) and batch norm without running stats.
            training, momentum, eps = rest
            if not training:
                self.fail(node, "batch norm without running statistics in eval mode")
            out, mean, invstd, _ = self._batch_norm_train(node, a, weight, bias, None, None,
                                                          momentum, eps)
            return out, mean, invstd
        running_mean, running_var, training, momentum, eps = rest
        if training:
            self.fail(node, "batch norm in training mode (batch statistics) is not supported "
                            "in an exported forward: export the module in eval(), or compile a "
                            "training step")
        return self.op__native_batch_norm_legit_no_training(
            node, a, weight, bias, running_mean, running_var, momentum, eps)

    def op_copy(self, node, dst, src, non_blocking=False):
        """Out-of-place `copy(dst, src)`: src broadcast to dst's shape and
        cast to its type (circular padding's decomposition)."""
        shape, et = self._out(node)
        return self._elementwise(node, [src], lambda bb, x: x, out_et=et)

    def op_copy_(self, node, dst, src, non_blocking=False):
        """`dst.copy_(src)` of a graph input (a buffer's update, as
        functionalization leaves it): the buffer's new value."""
        d, v = self.val(dst), self.val(src)
        if v.shape != d.shape or v.et != d.et:
            self.fail(node, "copy_ that broadcasts or casts is not supported yet")
        try:
            self._record_update(dst, v)
        except DTensorError as e:
            self.fail(node, str(e))
        return v

    def op_native_group_norm(self, node, a, weight, bias, n, c, hw, group, eps):
        """Statistics per (sample, group) over the group's channels and space,
        then a per-channel affine: reductions and element-wise generics."""
        v = self.val(a)
        et = v.et
        grouped = self._reshape(node, v, (n, group, (c // group) * hw))
        count = (c // group) * hw
        mean = self._scale(self._reduce(node, grouped, [2], True, "sum", et), 1.0 / count)
        centered = self._binary_values(grouped, mean, lambda bb, x, y: bb.bin("subf", None, x, y))
        sq = self._unary_value(centered, lambda bb, x: bb.bin("mulf", None, x, x))
        var = self._scale(self._reduce(node, sq, [2], True, "sum", et), 1.0 / count)
        rstd = self._unary_value(var, lambda bb, x: bb.un("math.rsqrt", bb.bin("addf", None, x, bb.const(eps))))
        normed = self._binary_values(centered, rstd, lambda bb, x, y: bb.bin("mulf", None, x, y))
        out = self._reshape(node, normed, v.shape)
        r = len(v.shape)
        for vec, op in ((weight, "mulf"), (bias, "addf")):
            if vec is None:
                continue
            out = self.e.generic([(out, list(range(r))), (self.val(vec), [1])], v.shape, et,
                                 lambda args, o, op=op: (lambda bb: (bb.lines, bb.bin(op, None, args[0], args[1])))(_Body(et)))
        return (out, self._reshape(node, mean, (n, group)), self._reshape(node, rstd, (n, group)))

    def _pool_geometry(self, node, v, kernel_size, stride, padding, dilation, ceil_mode,
                       out_shape=None):
        if len(v.shape) not in (4, 5):
            self.fail(node, f"{len(v.shape)}-D pooling input is not supported yet (N, C, H, W "
                            "or N, C, D, H, W only)")
        n = len(v.shape) - 2

        def per_dim(x, default):
            if x is None or (isinstance(x, (list, tuple)) and len(x) == 0):
                x = default
            x = list(x) if isinstance(x, (list, tuple)) else [x]
            return x * n if len(x) == 1 else x
        k = per_dim(kernel_size, None)
        s = per_dim(stride, k)
        p = per_dim(padding, [0])
        d = per_dim(dilation, [1])
        if out_shape is not None:  # a gradient: the pooled output's shape
            shape, et = tuple(out_shape), v.et
        else:
            fake = node.meta.get("val")
            if isinstance(fake, (tuple, list)):  # (values, indices)
                fake = fake[0]
            shape, et = tuple(fake.shape), _DTYPES[fake.dtype]
            if node in self._f32_nodes and et in ("f16", "bf16"):
                et = "f32"  # computed in f32, rounded by _in_f32
        floor = [(v.shape[2 + i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(n)]
        out_sp = [shape[2 + i] for i in range(n)]
        # ceil_mode's extra window, where there is one, starts inside the
        # (padded) input and reads past its end.
        extra = [max(0, (out_sp[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 - (v.shape[2 + i] + 2 * p[i]))
                 for i in range(n)]
        return k, s, p, d, floor, out_sp, extra, shape, et

    def _window_reduce(self, v, k, s, d, out_shape, et, init_value, combine):
        """`combine` over each output position's window of `v` (N, C, ...)."""
        n = len(k)
        r = 2 + n
        init = self.e.filled(out_shape, et, init_value)
        def body(args, out):
            bb = _Body(et)
            return bb.lines, bb.bin(combine[0], combine[1], out, args[0])
        # The window's shape, as a pooling op's: every loop is a plain index
        # of some operand (linalg requires it); never read.
        taps = [r + i for i in range(n)]
        window = _Value(self.e.empty(tuple(k), et), tuple(k), et)
        return self.e.generic(
            [(v, [0, 1] + [self._window_expr(2 + i, taps[i], s[i], d[i]) for i in range(n)]),
             (window, taps)],
            out_shape, et, body, reduce_dims=taps, init=init, nloops=r + n,
            out_map=list(range(r)))

    def op_max_pool2d_with_indices(self, node, a, kernel_size, stride=(), padding=0,
                                   dilation=1, ceil_mode=False):
        """The window's max (padding reads -inf); a windowed read, so an input
        sharded on a spatial dim exchanges halos. 2-D and 3-D."""
        v = self.val(a)
        k, s, p, d, floor, out_sp, extra, shape, et = self._pool_geometry(
            node, v, kernel_size, stride, padding, dilation, ceil_mode)
        lowest = _extreme(et, False)
        vp = self._pad_hw(v, p, [p[i] + extra[i] for i in range(len(k))], value=lowest)
        wants_indices = any(u.target is __import__("operator").getitem and u.args[1] == 1 and u.users
                            for u in node.users)
        if wants_indices:  # a training step's backward reads them
            return self._max_pool_with_indices(v, vp, k, s, p, d, shape, et)
        out = self._window_reduce(vp, k, s, d, shape, et, lowest, ("maximumf", "maxsi"))
        return (out, self._missing(node, "max pooling's indices"))

    op_max_pool3d_with_indices = op_max_pool2d_with_indices

    def _max_pool_with_indices(self, v, vp, k, s, p, d, shape, et):
        """Max pooling and, per output, the flat position (h * W + w, or
        (d * H + h) * W + w) in the input of the max PyTorch picks: the
        first in the window's scan order (a NaN replaces it, as in
        PyTorch's CPU kernel); padding is never picked. One reduction with
        two outputs over the window."""
        n = len(k)
        r = 2 + n
        sizes = v.shape[2:]
        lowest = _extreme(et, False)
        vinit = self.e.filled(shape, et, lowest)
        iinit = self.e.filled(shape, "i64", -1)
        window = _Value(self.e.empty(tuple(k), et), tuple(k), et)
        dims = ", ".join(f"d{i}" for i in range(r + n))
        reads = ", ".join(self._window_expr(2 + i, r + i, s[i], d[i]) for i in range(n))
        in_map = f"affine_map<({dims}) -> (d0, d1, {reads})>"
        win_map = f"affine_map<({dims}) -> ({', '.join(f'd{r + i}' for i in range(n))})>"
        out_map = f"affine_map<({dims}) -> ({', '.join(f'd{i}' for i in range(r))})>"
        bb = _Body(et)
        x, cur, ci = "%a0", "%o0", "%o1"
        flat = None
        valid = None
        for i in range(n):
            o = bb.v(f"linalg.index {2 + i} : index")
            t = bb.v(f"linalg.index {r + i} : index")
            at = bb.v(f"arith.muli {o}, {bb.v(f'arith.constant {s[i]} : index')} : index")
            dil = bb.v(f"arith.constant {d[i]} : index")
            at = bb.v(f"arith.addi {at}, {bb.v(f'arith.muli {t}, {dil} : index')} : index")
            at = bb.v(f"arith.subi {at}, {bb.v(f'arith.constant {p[i]} : index')} : index")
            lo = bb.v(f"arith.cmpi sge, {at}, {bb.v('arith.constant 0 : index')} : index")
            hi = bb.v(f"arith.cmpi slt, {at}, {bb.v(f'arith.constant {sizes[i]} : index')} : index")
            inside = bb.v(f"arith.andi {lo}, {hi} : i1")
            valid = inside if valid is None else bb.v(f"arith.andi {valid}, {inside} : i1")
            if flat is None:
                flat = at
            else:
                flat = bb.v(f"arith.muli {flat}, {bb.v(f'arith.constant {sizes[i]} : index')} : index")
                flat = bb.v(f"arith.addi {flat}, {at} : index")
        flat = bb.v(f"arith.index_cast {flat} : index to i64")
        better = self._replaces(bb, x, cur, et, True, "every")
        first = bb.v(f"arith.cmpi eq, {ci}, {bb.const(-1, 'i64')} : i64")
        take = bb.v(f"arith.andi {valid}, {bb.v(f'arith.ori {better}, {first} : i1')} : i1")
        nv = bb.v(f"arith.select {take}, {x}, {cur} : {et}")
        ni = bb.v(f"arith.select {take}, {flat}, {ci} : i64")
        iters = ", ".join(['"parallel"'] * r + ['"reduction"'] * n)
        return self.e.value_and_index([(vp, in_map), (window, win_map)], out_map, iters, vinit,
                                      iinit, bb.lines, nv, ni)

    def op_max_pool2d_with_indices_backward(self, node, grad_output, a, kernel_size, stride,
                                            padding, dilation, ceil_mode, indices):
        """Each input position sums the output gradients of the windows whose
        picked max it is (the indices): the windows that meet it, read
        through the window as a convolution's input gradient is."""
        g, v, idx = self.val(grad_output), self.val(a), self.val(indices)
        k, s, p, d, floor, out_sp, extra, shape, et = self._pool_geometry(
            node, v, kernel_size, stride, padding, dilation, ceil_mode, out_shape=g.shape)
        n = len(k)
        sizes = tuple(v.shape[2:])
        r = len(idx.shape)
        # Position + 1, so the zeros the layout inserts match no position.
        shifted = self.e.generic([(idx, list(range(r)))], idx.shape, "i64",
                                 lambda args, out: (lambda bb: (bb.lines, bb.v(
                                     f"arith.addi {args[0]}, {bb.const(1)} : i64")))(_Body("i64")))
        gp = self._dilate_pad(g, sizes, k, s, p, d)
        ip = self._dilate_pad(shifted, sizes, k, s, p, d)

        def body(args, out):
            bb = _Body(et)
            here = None
            for i in range(n):
                at = bb.v(f"linalg.index {2 + i} : index")
                if here is None:
                    here = at
                else:
                    here = bb.v(f"arith.muli {here}, {bb.v(f'arith.constant {sizes[i]} : index')} : index")
                    here = bb.v(f"arith.addi {here}, {at} : index")
            here = bb.v(f"arith.addi {here}, {bb.v('arith.constant 1 : index')} : index")
            here = bb.v(f"arith.index_cast {here} : index to i64")
            hit = bb.v(f"arith.cmpi eq, {args[1]}, {here} : i64")
            return bb.lines, bb.bin("addf", None, out, bb.v(
                f"arith.select {hit}, {args[0]}, {bb.const(0)} : {et}"))
        return self._window_gradient([gp, ip], v.shape, k, d, body)

    op_max_pool3d_with_indices_backward = op_max_pool2d_with_indices_backward

    def op_avg_pool2d_backward(self, node, grad_output, a, kernel_size, stride, padding,
                               ceil_mode, count_include_pad, divisor_override):
        """Each input position sums, over the windows that cover it, the
        output gradient over that window's divisor."""
        g, v = self.val(grad_output), self.val(a)
        k, s, p, d, floor, out_sp, extra, shape, et = self._pool_geometry(
            node, v, kernel_size, stride, padding, 1, ceil_mode, out_shape=g.shape)
        ceil_window = out_sp != floor
        n = len(k)
        sizes = tuple(v.shape[2:])

        def scale(args, out):
            bb = _Body(et)
            div = self._avg_pool_divisor(bb, k, s, p, sizes, count_include_pad,
                                        divisor_override, et, ceil_window)
            return bb.lines, bb.bin("divf", None, args[0], div)
        per_window = self.e.generic([(g, list(range(2 + n)))], g.shape, et, scale)
        gp = self._dilate_pad(per_window, sizes, k, s, p, (1,) * n)
        return self._window_gradient([gp], v.shape, k, (1,) * n,
                                     lambda args, out: (lambda bb: (bb.lines, bb.bin(
                                         "addf", None, out, args[0])))(_Body(et)))

    op_avg_pool3d_backward = op_avg_pool2d_backward

    def op_max_pool2d(self, node, a, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        return self.op_max_pool2d_with_indices(node, a, kernel_size, stride, padding, dilation,
                                               ceil_mode)[0]

    op_max_pool3d = op_max_pool2d

    def op_avg_pool2d(self, node, a, kernel_size, stride=(), padding=0, ceil_mode=False,
                      count_include_pad=True, divisor_override=None):
        """The window's sum over its divisor: the window's size, or with
        count_include_pad=False the number of input elements it covers
        (computed from the output position in the kernel's body). 2-D and
        3-D."""
        v = self.val(a)
        k, s, p, d, floor, out_sp, extra, shape, et = self._pool_geometry(
            node, v, kernel_size, stride, padding, 1, ceil_mode)
        if not _is_float(et):
            self.fail(node, "average pooling of an integer tensor")
        ceil_window = out_sp != floor
        n = len(k)
        sizes = tuple(v.shape[2:])
        # The sum reads no further than the input's end: a window larger
        # than the padded input (EfficientNet pools a 1x1 map with a kernel
        # of 2,560) sums the same over its first p + size taps, and the
        # padding it would read is zeros.
        k_sum = [min(k[i], p[i] + sizes[i]) for i in range(n)]
        high = [max(0, (out_sp[i] - 1) * s[i] + k_sum[i] - sizes[i] - p[i]) for i in range(n)]
        vp = self._pad_hw(v, p, high)
        total = self._window_reduce(vp, k_sum, s, [1] * n, shape, et, 0.0, ("addf", "addi"))

        def body(args, out):
            bb = _Body(et)
            div = self._avg_pool_divisor(bb, k, s, p, sizes, count_include_pad, divisor_override, et,
                                         ceil_window)
            return bb.lines, bb.bin("divf", None, args[0], div)
        return self.e.generic([(total, list(range(2 + n)))], shape, et, body)

    op_avg_pool3d = op_avg_pool2d

    def op__adaptive_avg_pool2d(self, node, a, output_size):
        """Windows of one size (the input a multiple of the output) as
        avg_pool2d; windows of several sizes (output position o covers
        floor(o * In / Out) to ceil((o + 1) * In / Out)) as one separable
        pass per spatial dim, each a mean over its window's input positions
        (a sharded H or W sums as a Partial)."""
        v = self.val(a)
        if len(v.shape) != 4:
            self.fail(node, "adaptive average pooling of a tensor that is not N, C, H, W")
        shape, et = self._out(node)
        oh, ow = shape[2], shape[3]
        h, w = v.shape[2], v.shape[3]
        if not h % oh and not w % ow:
            return self.op_avg_pool2d(node, a, [h // oh, w // ow], [h // oh, w // ow])
        if not _is_float(et):
            self.fail(node, "adaptive average pooling of an integer tensor")
        out = v
        for axis in (2, 3):
            out = self._adaptive_pass(out, axis, shape[axis], "mean")
        return out

    def op_adaptive_max_pool2d(self, node, a, output_size):
        """The max over each adaptive window (see _adaptive_avg_pool2d), one
        separable pass per spatial dim (a max of maxes is the window's max;
        NaN wins, as in PyTorch); where a training step reads its indices, one
        reduction with both (_adaptive_max_with_indices)."""
        v = self.val(a)
        if len(v.shape) != 4:
            self.fail(node, "adaptive max pooling of a tensor that is not N, C, H, W")
        shape, et = tuple(node.meta["val"][0].shape), v.et
        wants_indices = any(u.target is __import__("operator").getitem and u.args[1] == 1 and u.users
                            for u in node.users)
        if wants_indices:  # a training step's backward reads them
            return self._adaptive_max_with_indices(v, shape)
        out = v
        for axis in (2, 3):
            out = self._adaptive_pass(out, axis, shape[axis], "max")
        return (out, self._missing(node, "adaptive max pooling's indices"))

    @staticmethod
    def _adaptive_window(bb: "_Body", o: str, n_in: int, n_out: int) -> Tuple[str, str]:
        """The input positions [start, end) of adaptive window `o` (an index):
        floor(o * In / Out) and ceil((o + 1) * In / Out)."""
        c_in = bb.v(f"arith.constant {n_in} : index")
        c_out = bb.v(f"arith.constant {n_out} : index")
        start = bb.v(f"arith.divsi {bb.v(f'arith.muli {o}, {c_in} : index')}, {c_out} : index")
        nxt = bb.v(f"arith.addi {o}, {bb.v('arith.constant 1 : index')} : index")
        end = bb.v(f"arith.muli {nxt}, {c_in} : index")
        end = bb.v(f"arith.addi {end}, {bb.v(f'arith.constant {n_out - 1} : index')} : index")
        return start, bb.v(f"arith.divsi {end}, {c_out} : index")

    def _adaptive_pass(self, v: _Value, axis: int, n_out: int, kind: str,
                       n_in: Optional[int] = None) -> _Value:
        """Along `axis`, output position o reduces the input positions
        floor(o * In / Out) <= i < ceil((o + 1) * In / Out): their mean or
        max. Given `n_in`, the mean's transpose (its gradient: `v` has the
        Out positions, the result In, each input position summing the
        gradient over the count of every window that covers it)."""
        et = v.et
        r = len(v.shape)
        transpose = n_in is not None
        if not transpose:
            n_in = v.shape[axis]
        size = n_in if transpose else n_out
        shape = tuple(size if d == axis else v.shape[d] for d in range(r))
        k = r
        out_loop, in_loop = (k, axis) if transpose else (axis, k)
        init = self.e.filled(shape, et, 0 if kind == "mean" else _extreme(et, False))

        def body(args, out):
            bb = _Body(et)
            i = bb.v(f"linalg.index {in_loop} : index")
            start, end = self._adaptive_window(bb, bb.v(f"linalg.index {out_loop} : index"),
                                               n_in, n_out)
            inside = bb.v(f"arith.andi {bb.v(f'arith.cmpi sge, {i}, {start} : index')}, "
                          f"{bb.v(f'arith.cmpi slt, {i}, {end} : index')} : i1")
            if kind == "max":
                lowest = bb.const(_extreme(et, False))
                x = bb.v(f"arith.select {inside}, {args[0]}, {lowest} : {et}")
                return bb.lines, bb.bin("maximumf", "maxsi", out, x)
            count = bb.v(f"arith.subi {end}, {start} : index")
            count = bb.v(f"arith.index_cast {count} : index to i64")
            x = bb.bin("divf", None, args[0], self._cast(bb, count, "i64", et))
            x = bb.v(f"arith.select {inside}, {x}, {bb.const(0)} : {et}")
            return bb.lines, bb.bin("addf", None, out, x)
        in_map = [d if d != axis else k for d in range(r)]
        return self.e.generic([(v, in_map)], shape, et, body, reduce_dims=[k], init=init,
                              nloops=r + 1, out_map=list(range(r)))

    def op__adaptive_avg_pool2d_backward(self, node, grad_output, a):
        """The transpose of the two mean passes (also for windows of one
        size, where each input position meets one window)."""
        g, v = self.val(grad_output), self.val(a)
        out = g
        for axis in (2, 3):
            out = self._adaptive_pass(out, axis, g.shape[axis], "mean", n_in=v.shape[axis])
        return out

    def _adaptive_max_with_indices(self, v: _Value, shape) -> Tuple[_Value, _Value]:
        """Adaptive max pooling and the flat position h * W + w of each
        window's max as PyTorch's CPU kernel picks it (scanning h, then w:
        the first max, a NaN replacing it each time): a reduction over every
        input position with those outside the window skipped."""
        et = v.et
        h_, w_ = v.shape[2], v.shape[3]
        oh, ow = shape[2], shape[3]
        vinit = self.e.filled(shape, et, _extreme(et, False))
        iinit = self.e.filled(shape, "i64", -1)
        dims = ", ".join(f"d{i}" for i in range(6))
        in_map = f"affine_map<({dims}) -> (d0, d1, d4, d5)>"
        out_map = f"affine_map<({dims}) -> (d0, d1, d2, d3)>"
        bb = _Body(et)
        x, cur, ci = "%a0", "%o0", "%o1"
        valid = None
        for out_loop, in_loop, n_in, n_out in ((2, 4, h_, oh), (3, 5, w_, ow)):
            i = bb.v(f"linalg.index {in_loop} : index")
            start, end = self._adaptive_window(bb, bb.v(f"linalg.index {out_loop} : index"),
                                               n_in, n_out)
            inside = bb.v(f"arith.andi {bb.v(f'arith.cmpi sge, {i}, {start} : index')}, "
                          f"{bb.v(f'arith.cmpi slt, {i}, {end} : index')} : i1")
            valid = inside if valid is None else bb.v(f"arith.andi {valid}, {inside} : i1")
        flat = bb.v(f"arith.muli {bb.v('linalg.index 4 : index')}, "
                    f"{bb.v(f'arith.constant {w_} : index')} : index")
        flat = bb.v(f"arith.addi {flat}, {bb.v('linalg.index 5 : index')} : index")
        flat = bb.v(f"arith.index_cast {flat} : index to i64")
        better = self._replaces(bb, x, cur, et, True, "every")
        first = bb.v(f"arith.cmpi eq, {ci}, {bb.const(-1, 'i64')} : i64")
        take = bb.v(f"arith.andi {valid}, {bb.v(f'arith.ori {better}, {first} : i1')} : i1")
        nv = bb.v(f"arith.select {take}, {x}, {cur} : {et}")
        ni = bb.v(f"arith.select {take}, {flat}, {ci} : i64")
        iters = ", ".join(['"parallel"'] * 4 + ['"reduction"'] * 2)
        return self.e.value_and_index([(v, in_map)], out_map, iters, vinit, iinit, bb.lines,
                                      nv, ni)

    def op_adaptive_max_pool2d_backward(self, node, grad_output, a, indices):
        """Each input position sums the output gradients whose picked max it
        is (the indices): a reduction over the output positions."""
        g, v, idx = self.val(grad_output), self.val(a), self.val(indices)
        et = g.et
        w_ = v.shape[3]

        def body(args, out):
            bb = _Body(et)
            here = bb.v(f"arith.muli {bb.v('linalg.index 2 : index')}, "
                        f"{bb.v(f'arith.constant {w_} : index')} : index")
            here = bb.v(f"arith.addi {here}, {bb.v('linalg.index 3 : index')} : index")
            here = bb.v(f"arith.index_cast {here} : index to i64")
            hit = bb.v(f"arith.cmpi eq, {args[1]}, {here} : i64")
            return bb.lines, bb.bin("addf", None, out, bb.v(
                f"arith.select {hit}, {args[0]}, {bb.const(0)} : {et}"))
        init = self.e.filled(v.shape, et, 0)
        return self.e.generic([(g, [0, 1, 4, 5]), (idx, [0, 1, 4, 5])], v.shape, et, body,
                              reduce_dims=[4, 5], init=init, nloops=6, out_map=[0, 1, 2, 3])

    def op_upsample_nearest2d(self, node, a, output_size=None, scale_factors=None, *args):
        """Nearest upsampling by whole factors: out[.., h, w] = x[.., h / s, w / s]."""
        v = self.val(a)
        shape, et = self._out(node)
        if len(v.shape) != 4:
            self.fail(node, "nearest upsampling of a tensor that is not N, C, H, W")
        if any(shape[i] % v.shape[i] for i in (2, 3)):
            # Other sizes: PyTorch's source index per output position, one
            # pass per spatial dim.
            scales = scale_factors if isinstance(scale_factors, (list, tuple)) else [None, None]
            out = v
            for i, axis in enumerate((2, 3)):
                out = self._nearest_pass(out, axis, shape[axis], scales[i])
            return out
        factors = [shape[i] // v.shape[i] for i in (2, 3)]
        # Each element repeated along new minor dims, then merged into H and
        # W: H (the major dim of its merge) stays shardable.
        fh, fw = factors
        n_, c_, h_, w_ = v.shape
        rep = self.e.generic([(v, [0, 1, 2, 4])], (n_, c_, h_, fh, w_, fw), et,
                             lambda args, out: ([], args[0]))
        return self.e.collapse(rep, [[0], [1], [2, 3], [4, 5]], shape)

    op_upsample_nearest2d_vec = op_upsample_nearest2d

    def op_grid_sampler_2d(self, node, a, grid, interpolation_mode, padding_mode,
                           align_corners):
        """F.grid_sample: each output pixel reads the input at the position its
        grid entry names (unnormalized as PyTorch's grid_sampler: align_corners
        either way; border padding clips it), bilinear (the four neighbours
        with PyTorch's weights, those outside the input contributing 0) or
        nearest (rounded half to even). A sum over the input positions of
        those it reads: a sharded H or W sums as a Partial, a sharded batch
        stays local."""
        v, g = self.val(a), self.val(grid)
        shape, et = self._out(node)
        self._check_grid_sample(node, v, et, interpolation_mode, padding_mode)
        h_in, w_in = v.shape[2], v.shape[3]
        corners = self._grid_corners(et, h_in, w_in, interpolation_mode, padding_mode,
                                     align_corners)

        def body(args, out):
            bb = _Body(et)
            x, gx, gy = args
            return bb.lines, bb.bin("addf", None, out, self._grid_term(bb, x, corners(bb, gx, gy, 5, 4)))
        init = self.e.filled(shape, et, 0)
        # loops: n c h w | y x
        return self.e.generic([(v, [0, 1, 4, 5]), (g, [0, 2, 3, "0"]), (g, [0, 2, 3, "1"])],
                              shape, et, body, reduce_dims=[4, 5], init=init, nloops=6,
                              out_map=[0, 1, 2, 3])

    def _check_grid_sample(self, node, v: _Value, et: str, interpolation_mode, padding_mode):
        if not _is_float(et) or len(v.shape) != 4:
            self.fail(node, "grid_sample of a tensor that is not float N, C, H, W")
        if interpolation_mode not in (0, 1):
            self.fail(node, "grid_sample with bicubic interpolation is not supported yet")
        if padding_mode not in (0, 1, 2):
            self.fail(node, f"grid_sample padding mode {padding_mode}")

    def _grid_corners(self, et: str, h_in: int, w_in: int, interpolation_mode, padding_mode,
                      align_corners):
        """grid_sample's weight of input position (loop `xl`, loop `yl`) for
        the grid entry (gx, gy), with its derivatives along the unnormalized
        x and y (bilinear: -1 at the low neighbour, +1 at the high one, times
        the other axis's weight) and d(x)/d(gx), d(y)/d(gy) (the unnormalizing
        factor, 0 where border padding clipped, as PyTorch's
        clip_coordinates_set_grad; its sign flipped where reflection padding
        reflected an odd number of times). Nearest gives only whether the
        position is the one read ("hit") and has no derivative."""
        def reflect(bb, pos, size):
            """PyTorch's reflect_coordinates (about -0.5 and size - 0.5, or 0
            and size - 1 with align_corners) and the derivative's sign."""
            lo, hi = (0.0, 2.0 * (size - 1)) if align_corners else (-1.0, 2.0 * size - 1)
            if lo == hi:
                return bb.const(0.0), bb.const(0.0)
            low, span = lo / 2, (hi - lo) / 2
            shifted = bb.bin("subf", None, pos, bb.const(low))
            neg = bb.v(f"arith.cmpf olt, {shifted}, {bb.const(0.0)} : {et}")
            sign = bb.v(f"arith.select {neg}, {bb.const(-1.0)}, {bb.const(1.0)} : {et}")
            a = bb.un("math.absf", shifted)
            extra = bb.bin("remf", None, a, bb.const(span))
            flips = bb.un("math.floor", bb.bin("divf", None, a, bb.const(span)))
            half = bb.un("math.floor", bb.bin("mulf", None, flips, bb.const(0.5)))
            odd = bb.v(f"arith.cmpf one, {bb.bin('mulf', None, half, bb.const(2.0))}, {flips} : {et}")
            back = bb.bin("addf", None, bb.bin("subf", None, bb.const(span), extra), bb.const(low))
            out = bb.v(f"arith.select {odd}, {back}, {bb.bin('addf', None, extra, bb.const(low))} : {et}")
            sign = bb.v(f"arith.select {odd}, {bb.bin('subf', None, bb.const(0.0), sign)}, {sign} : {et}")
            return out, sign

        def source(bb, coord, size):
            one = bb.const(1.0)
            if align_corners:
                pos = bb.bin("mulf", None, bb.bin("divf", None, bb.bin("addf", None, coord, one),
                                                  bb.const(2.0)), bb.const(float(size - 1)))
                mult = bb.const((size - 1) / 2.0)
            else:
                pos = bb.bin("mulf", None, bb.bin("addf", None, coord, one), bb.const(float(size)))
                pos = bb.bin("divf", None, bb.bin("subf", None, pos, one), bb.const(2.0))
                mult = bb.const(size / 2.0)
            if padding_mode == 2:  # reflection, then clipped (PyTorch's order)
                pos, flip = reflect(bb, pos, size)
                mult = bb.bin("mulf", None, mult, flip)
            if padding_mode in (1, 2):  # border: clip into [0, size - 1]
                last = bb.const(float(size - 1))
                inside = bb.v(f"arith.andi {bb.v(f'arith.cmpf ogt, {pos}, {bb.const(0.0)} : {et}')}, "
                              f"{bb.v(f'arith.cmpf olt, {pos}, {last} : {et}')} : i1")
                mult = bb.v(f"arith.select {inside}, {mult}, {bb.const(0.0)} : {et}")
                pos = bb.v(f"arith.minimumf {bb.v(f'arith.maximumf {pos}, {bb.const(0.0)} : {et}')}, "
                           f"{last} : {et}")
            return pos, mult

        def at(bb, loop):
            i = bb.v(f"arith.index_cast {bb.v(f'linalg.index {loop} : index')} : index to i64")
            return bb.v(f"arith.sitofp {i} : i64 to {et}")

        def corners(bb, gx, gy, xl, yl):
            (ix, mx), (iy, my) = source(bb, gx, w_in), source(bb, gy, h_in)
            px, py = at(bb, xl), at(bb, yl)
            zero = bb.const(0.0)
            if interpolation_mode == 1:
                nx, ny = bb.un("math.roundeven", ix), bb.un("math.roundeven", iy)
                hit = bb.v(f"arith.andi {bb.v(f'arith.cmpf oeq, {px}, {nx} : {et}')}, "
                           f"{bb.v(f'arith.cmpf oeq, {py}, {ny} : {et}')} : i1")
                return {"hit": hit}
            weights, slopes = [], []
            for pos, p in ((ix, px), (iy, py)):
                lo = bb.un("math.floor", pos)
                hi = bb.bin("addf", None, lo, bb.const(1.0))
                w_lo = bb.bin("subf", None, hi, pos)
                w_hi = bb.bin("subf", None, pos, lo)
                at_lo = bb.v(f"arith.cmpf oeq, {p}, {lo} : {et}")
                at_hi = bb.v(f"arith.cmpf oeq, {p}, {hi} : {et}")
                w = bb.v(f"arith.select {at_hi}, {w_hi}, {zero} : {et}")
                weights.append(bb.v(f"arith.select {at_lo}, {w_lo}, {w} : {et}"))
                d = bb.v(f"arith.select {at_hi}, {bb.const(1.0)}, {zero} : {et}")
                slopes.append(bb.v(f"arith.select {at_lo}, {bb.const(-1.0)}, {d} : {et}"))
            return {"weight": bb.bin("mulf", None, weights[0], weights[1]),
                    "dx": bb.bin("mulf", None, bb.bin("mulf", None, slopes[0], weights[1]), mx),
                    "dy": bb.bin("mulf", None, bb.bin("mulf", None, weights[0], slopes[1]), my)}
        return corners

    @staticmethod
    def _grid_term(bb: "_Body", x: str, parts) -> str:
        """x weighted for one input position (nearest: x where it is the
        one read, else 0, so an infinite value elsewhere does not leak)."""
        if "hit" in parts:
            return bb.v(f"arith.select {parts['hit']}, {x}, {bb.const(0.0)} : {bb.et}")
        return bb.bin("mulf", None, x, parts["weight"])

    def op_grid_sampler_2d_backward(self, node, grad_output, a, grid, interpolation_mode,
                                    padding_mode, align_corners, output_mask=(True, True)):
        """grid_sample's gradients. The input's: each input position sums
        the output gradients of the grid entries that read it, with the
        forward's weights (the forward with the roles swapped). The grid's:
        per entry, over the channels and the input positions it reads,
        gradient x value x the weight's derivative (bilinear; nearest's is
        0), times the unnormalizing factor (0 where border padding clipped)."""
        go, v, g = self.val(grad_output), self.val(a), self.val(grid)
        et = v.et
        self._check_grid_sample(node, v, et, interpolation_mode, padding_mode)
        n, c, h_in, w_in = v.shape
        h_out, w_out = go.shape[2], go.shape[3]
        corners = self._grid_corners(et, h_in, w_in, interpolation_mode, padding_mode,
                                     align_corners)
        mask = list(output_mask) if output_mask is not None else [True, True]
        grads = []
        if mask[0]:
            def in_body(args, out):
                bb = _Body(et)
                term = self._grid_term(bb, args[0], corners(bb, args[1], args[2], 3, 2))
                return bb.lines, bb.bin("addf", None, out, term)
            # loops: n c y x | h w
            grads.append(self.e.generic(
                [(go, [0, 1, 4, 5]), (g, [0, 4, 5, "0"]), (g, [0, 4, 5, "1"])], v.shape, et,
                in_body, reduce_dims=[4, 5], init=self.e.filled(v.shape, et, 0), nloops=6,
                out_map=[0, 1, 2, 3]))
        else:
            grads.append(self._missing(node, "grid_sample's input gradient"))
        if mask[1]:
            gshape = (n, h_out, w_out, 2)
            if interpolation_mode == 1:
                grads.append(self.e.filled(gshape, et, 0))
            else:
                def grid_body(args, out):
                    bb = _Body(et)
                    parts = corners(bb, args[2], args[3], 6, 5)
                    both = bb.bin("mulf", None, args[0], args[1])
                    k = bb.v("linalg.index 3 : index")
                    first = bb.v(f"arith.cmpi eq, {k}, {bb.v('arith.constant 0 : index')} : index")
                    d = bb.v(f"arith.select {first}, {parts['dx']}, {parts['dy']} : {et}")
                    return bb.lines, bb.bin("addf", None, out, bb.bin("mulf", None, both, d))
                # loops: n h w k | c y x
                grads.append(self.e.generic(
                    [(go, [0, 4, 1, 2]), (v, [0, 4, 5, 6]), (g, [0, 1, 2, "0"]),
                     (g, [0, 1, 2, "1"])], gshape, et, grid_body, reduce_dims=[4, 5, 6],
                    init=self.e.filled(gshape, et, 0), nloops=7, out_map=[0, 1, 2, 3]))
        else:
            grads.append(self._missing(node, "grid_sample's grid gradient"))
        return tuple(grads)


    def _nearest_pass(self, v: _Value, axis: int, n_out: int, scale_factor,
                      n_in: Optional[int] = None) -> _Value:
        """Along `axis`, output position o reads input position
        min(floor(o * scale), In - 1), the scale in float as PyTorch's
        nearest_idx computes it (1 / scale_factor, or In / Out); o itself
        where the sizes agree, o / 2 where Out is 2 In. A sum over the input
        positions of the one it names (a sharded dim sums as a Partial).
        Given `n_in`, its transpose (the gradient: `v` has the Out positions,
        each input position summing those that read it)."""
        et = v.et
        r = len(v.shape)
        transpose = n_in is not None
        if not transpose:
            n_in = v.shape[axis]
        if n_out == n_in:
            return v
        size = n_in if transpose else n_out
        shape = tuple(size if d == axis else v.shape[d] for d in range(r))
        scale = np.float32(1.0 / scale_factor) if scale_factor else np.float32(n_in) / np.float32(n_out)
        k = r
        out_loop, in_loop = (k, axis) if transpose else (axis, k)

        def body(args, out):
            bb = _Body(et)
            o = bb.v(f"linalg.index {out_loop} : index")
            if n_out == 2 * n_in:
                src = bb.v(f"arith.divsi {o}, {bb.v('arith.constant 2 : index')} : index")
            else:
                of = bb.v(f"arith.sitofp {bb.v(f'arith.index_cast {o} : index to i64')} : i64 to f32")
                factor = bb.const(float(scale), "f32")
                pos = bb.v(f"math.floor {bb.v(f'arith.mulf {of}, {factor} : f32')} : f32")
                src = bb.v(f"arith.index_cast {bb.v(f'arith.fptosi {pos} : f32 to i64')} : i64 to index")
                src = bb.v(f"arith.minsi {src}, {bb.v(f'arith.constant {n_in - 1} : index')} : index")
            hit = bb.v(f"arith.cmpi eq, {bb.v(f'linalg.index {in_loop} : index')}, {src} : index")
            picked = bb.v(f"arith.select {hit}, {args[0]}, {bb.const(0)} : {et}")
            return bb.lines, bb.bin("addf", "addi", out, picked)
        in_map = [d if d != axis else k for d in range(r)]
        return self.e.generic([(v, in_map)], shape, et, body, reduce_dims=[k],
                              init=self.e.filled(shape, et, 0), nloops=r + 1,
                              out_map=list(range(r)))

    def op_upsample_nearest2d_backward(self, node, grad_output, output_size, input_size,
                                       scales_h=None, scales_w=None):
        """Each input element sums the gradient of the (fh, fw) block it was
        repeated into: a windowed sum with the factors as kernel and stride."""
        g = self.val(grad_output)
        shape, et = self._out(node)
        if any(g.shape[i] % shape[i] for i in (2, 3)):
            out = g
            for axis, factor in ((2, scales_h), (3, scales_w)):
                out = self._nearest_pass(out, axis, g.shape[axis], factor, n_in=shape[axis])
            return out
        factors = []
        for i in (2, 3):
            if g.shape[i] % shape[i]:
                self.fail(node, f"the gradient of nearest upsampling of {shape[i]} to "
                                f"{g.shape[i]} (not a whole factor) is not supported yet")
            factors.append(g.shape[i] // shape[i])
        return self._window_reduce(g, factors, factors, (1, 1), shape, et, 0.0, ("addf", "addi"))

    def op_flip(self, node, a, dims):
        """Reversed along `dims`: a read at `size - 1 - i` (a sharded
        reversed dim fetches the mirrored shard)."""
        v = self.val(a)
        r = len(v.shape)
        flipped = {d % r for d in dims}
        m = [f"-d{d} + {v.shape[d] - 1}" if d in flipped else d for d in range(r)]
        return self.e.generic([(v, m)], v.shape, v.et, lambda args, out: ([], args[0]))

    def op_upsample_bilinear2d(self, node, a, output_size=None, align_corners=False,
                               scale_factors=None, *scales):
        """Bilinear resizing as PyTorch computes it (the source position of an
        output pixel, its two neighbours and their weights, in the input's
        float type), one separable pass per spatial dim: a sum over the input
        positions of the (at most two) that the output reads. A sharded H or
        W sums as a Partial."""
        v = self.val(a)
        shape, et = self._out(node)
        if len(v.shape) != 4 or not _is_float(et):
            self.fail(node, "bilinear upsampling of a tensor that is not float N, C, H, W")
        if not isinstance(scale_factors, (list, tuple)):
            # upsample_bilinear2d.default: (input, output_size, align_corners,
            # scales_h, scales_w), the scales as separate numbers.
            scale_factors = [scale_factors, scales[0] if scales else None]
            scale_factors = [f if f is not None else 0 for f in scale_factors]
        # Half types in float, rounded once at the end (PyTorch's opmath).
        work = "f64" if et == "f64" else "f32"
        out = v if v.et == work else self._unary_value_typed(
            v, work, lambda bb, x: self._cast(bb, x, v.et, work))
        for axis in (2, 3):
            n_in, n_out = v.shape[axis], shape[axis]
            factor = scale_factors[axis - 2] if scale_factors else None
            scale = self._area_scale(n_in, n_out, align_corners, factor, work)
            out = self._linear_resize(out, axis, n_out, scale, align_corners, work)
        if work != et:
            out = self._unary_value_typed(out, et, lambda bb, x: self._cast(bb, x, work, et))
        return out

    def _linear_resize(self, v: _Value, axis: int, n_out: int, scale: float, align_corners: bool,
                       et: str, n_in: Optional[int] = None) -> _Value:
        """One bilinear pass along `axis`: to `n_out` positions; or, given
        `n_in`, its transpose (the gradient: `v` has the pass's n_out
        positions along `axis`, the result n_in), each input position
        summing the gradient of the outputs that read it, with their weights."""
        r = len(v.shape)
        transpose = n_in is not None
        if not transpose:
            n_in = v.shape[axis]
        size = n_in if transpose else n_out
        shape = tuple(size if d == axis else v.shape[d] for d in range(r))
        init = self.e.filled(shape, et, 0)
        k = r  # the loop over the positions of `v` along `axis`
        dst_loop, src_loop = (k, axis) if transpose else (axis, k)

        def body(args, out):
            bb = _Body(et)
            dst = bb.v(f"arith.index_cast {bb.v(f'linalg.index {dst_loop} : index')} : index to i64")
            dst = bb.v(f"arith.sitofp {dst} : i64 to {et}")
            if align_corners:
                src = bb.bin("mulf", None, bb.const(scale), dst)
            else:
                src = bb.bin("mulf", None, bb.const(scale), bb.bin("addf", None, dst, bb.const(0.5)))
                src = bb.bin("subf", None, src, bb.const(0.5))
                src = bb.bin("maximumf", None, src, bb.const(0.0))
            lo = bb.v(f"arith.fptosi {src} : {et} to i64")
            lam1 = bb.bin("subf", None, src, bb.v(f"arith.sitofp {lo} : i64 to {et}"))
            lam0 = bb.bin("subf", None, bb.const(1.0), lam1)
            lo = bb.v(f"arith.index_cast {lo} : i64 to index")
            last = bb.v(f"arith.constant {n_in - 1} : index")
            inside = bb.v(f"arith.cmpi slt, {lo}, {last} : index")
            step = bb.v(f"arith.select {inside}, {bb.v('arith.constant 1 : index')}, "
                        f"{bb.v('arith.constant 0 : index')} : index")
            hi = bb.v(f"arith.addi {lo}, {step} : index")
            pos = bb.v(f"linalg.index {src_loop} : index")
            zero = bb.const(0.0)
            at_lo = bb.v(f"arith.cmpi eq, {pos}, {lo} : index")
            at_hi = bb.v(f"arith.cmpi eq, {pos}, {hi} : index")
            t0 = bb.v(f"arith.select {at_lo}, {bb.bin('mulf', None, lam0, args[0])}, {zero} : {et}")
            t1 = bb.v(f"arith.select {at_hi}, {bb.bin('mulf', None, lam1, args[0])}, {zero} : {et}")
            return bb.lines, bb.bin("addf", None, out, bb.bin("addf", None, t0, t1))
        in_map = [d if d != axis else k for d in range(r)]
        return self.e.generic([(v, in_map)], shape, et, body, reduce_dims=[k], init=init,
                              nloops=r + 1, out_map=list(range(r)))

    op_upsample_bilinear2d_vec = op_upsample_bilinear2d

    @staticmethod
    def _area_scale(n_in: int, n_out: int, align_corners: bool, factor, work: str) -> float:
        """PyTorch's area_pixel_compute_scale, in the op math type `work`:
        (In - 1) / (Out - 1) with align_corners, else 1 / the given scale
        factor, else In / Out."""
        np_t = {"f32": np.float32, "f64": np.float64}[work]
        if align_corners:
            return float(np_t(n_in - 1) / np_t(n_out - 1)) if n_out > 1 else 0.0
        if factor:
            return float(np_t(1.0 / factor))
        return float(np_t(n_in) / np_t(n_out))

    def _resize_gradient(self, node, grad_output, align_corners, scales, what: str,
                         transposed_pass) -> _Value:
        """A separable resize's gradient: `transposed_pass(v, axis, n_in,
        scale, work)` along each spatial dim (one per scale: W; H, W; or D,
        H, W), in float (f64 kept; half types rounded once at the end,
        PyTorch's opmath)."""
        g = self.val(grad_output)
        shape, et = self._out(node)
        spatial = len(scales)
        if len(g.shape) != 2 + spatial or not _is_float(et):
            dims = {1: "N, C, W", 2: "N, C, H, W", 3: "N, C, D, H, W"}[spatial]
            self.fail(node, f"{what} resizing's gradient of a tensor that is not float {dims}")
        work = "f64" if et == "f64" else "f32"
        out = g if g.et == work else self._unary_value_typed(
            g, work, lambda bb, x: self._cast(bb, x, g.et, work))
        for axis, factor in zip(range(2, 2 + spatial), scales):
            n_in, n_out = shape[axis], g.shape[axis]
            scale = self._area_scale(n_in, n_out, align_corners, factor, work)
            out = transposed_pass(out, axis, n_in, scale, work)
        if work != et:
            out = self._unary_value_typed(out, et, lambda bb, x: self._cast(bb, x, work, et))
        return out

    def _linear_resize_gradient(self, node, grad_output, align_corners, scales, what):
        """The gradient of linear resizing along one, two or three spatial
        dims: the transposes of its separable passes (the forwards PyTorch
        decomposes weigh the neighbours by the products of the passes'
        weights)."""
        return self._resize_gradient(
            node, grad_output, align_corners, scales, what,
            lambda v, axis, n_in, scale, work: self._linear_resize(
                v, axis, v.shape[axis], scale, align_corners, work, n_in=n_in))

    def op_upsample_bilinear2d_backward(self, node, grad_output, output_size, input_size,
                                        align_corners, scales_h=None, scales_w=None):
        return self._linear_resize_gradient(node, grad_output, align_corners,
                                            (scales_h, scales_w), "bilinear")

    def op_upsample_linear1d_backward(self, node, grad_output, output_size, input_size,
                                      align_corners, scales=None):
        return self._linear_resize_gradient(node, grad_output, align_corners, (scales,),
                                            "linear")

    def op_upsample_trilinear3d_backward(self, node, grad_output, output_size, input_size,
                                         align_corners, scales_d=None, scales_h=None,
                                         scales_w=None):
        return self._linear_resize_gradient(node, grad_output, align_corners,
                                            (scales_d, scales_h, scales_w), "trilinear")

    def op_upsample_bicubic2d_backward(self, node, grad_output, output_size, input_size,
                                       align_corners, scales_h=None, scales_w=None):
        """Bicubic resizing's gradient: the transpose of its two separable
        passes (as bilinear's), each input position summing the output
        gradients of the (at most four) taps that read it, with PyTorch's
        cubic-convolution weights (A = -0.75) and its clamped taps at the
        borders."""
        return self._resize_gradient(
            node, grad_output, align_corners, (scales_h, scales_w), "bicubic",
            lambda v, axis, n_in, scale, work: self._cubic_resize_transposed(
                v, axis, n_in, scale, align_corners, work))

    def _cubic_resize_transposed(self, v: _Value, axis: int, n_in: int, scale: float,
                                 align_corners: bool, et: str) -> _Value:
        """The transpose of one bicubic pass along `axis` (`v` has the pass's
        output positions there, the result `n_in`): output position o reads
        src = scale * o (align_corners) or scale * (o + 0.5) - 0.5, the taps
        b - 1 .. b + 2 (b = floor(src), at most the last input) clamped to
        the input, weighted by the cubic convolution of t = src - b."""
        r = len(v.shape)
        shape = tuple(n_in if d == axis else v.shape[d] for d in range(r))
        init = self.e.filled(shape, et, 0)
        k = r  # the loop over the output positions (v's, along `axis`)
        a = -0.75

        def body(args, out):
            bb = _Body(et)
            dst = bb.v(f"arith.index_cast {bb.v(f'linalg.index {k} : index')} : index to i64")
            dst = bb.v(f"arith.sitofp {dst} : i64 to {et}")
            if align_corners:
                src = bb.bin("mulf", None, bb.const(scale), dst)
            else:
                src = bb.bin("mulf", None, bb.const(scale), bb.bin("addf", None, dst, bb.const(0.5)))
                src = bb.bin("subf", None, src, bb.const(0.5))
            # PyTorch's guard_index_and_lambda: the base tap at most the
            # last input, t clamped to [0, 1].
            base = bb.v(f"arith.fptosi {bb.un('math.floor', src)} : {et} to i64")
            base = bb.v(f"arith.minsi {base}, {bb.const(n_in - 1, 'i64')} : i64")
            t = bb.bin("subf", None, src, bb.v(f"arith.sitofp {base} : i64 to {et}"))
            t = bb.bin("minimumf", None, bb.bin("maximumf", None, t, bb.const(0.0)),
                       bb.const(1.0))

            def near(x):  # ((A + 2) x - (A + 3)) x x + 1, for |x| <= 1
                p = bb.bin("subf", None, bb.bin("mulf", None, bb.const(a + 2), x), bb.const(a + 3))
                return bb.bin("addf", None, bb.bin("mulf", None, bb.bin("mulf", None, p, x), x),
                              bb.const(1.0))

            def far(x):  # ((A x - 5A) x + 8A) x - 4A, for 1 < |x| < 2
                p = bb.bin("subf", None, bb.bin("mulf", None, bb.const(a), x), bb.const(5 * a))
                p = bb.bin("addf", None, bb.bin("mulf", None, p, x), bb.const(8 * a))
                return bb.bin("subf", None, bb.bin("mulf", None, p, x), bb.const(4 * a))
            one = bb.const(1.0)
            weights = [far(bb.bin("addf", None, t, one)), near(t),
                       near(bb.bin("subf", None, one, t)),
                       far(bb.bin("subf", None, bb.const(2.0), t))]
            pos = bb.v(f"arith.index_cast {bb.v(f'linalg.index {axis} : index')} : index to i64")
            lo, hi = bb.const(0, "i64"), bb.const(n_in - 1, "i64")
            zero = bb.const(0.0)
            total = zero
            for tap, w in enumerate(weights):
                at = bb.v(f"arith.addi {base}, {bb.const(tap - 1, 'i64')} : i64")
                at = bb.v(f"arith.minsi {bb.v(f'arith.maxsi {at}, {lo} : i64')}, {hi} : i64")
                hit = bb.v(f"arith.cmpi eq, {pos}, {at} : i64")
                term = bb.v(f"arith.select {hit}, {bb.bin('mulf', None, w, args[0])}, {zero} : {et}")
                total = bb.bin("addf", None, total, term)
            return bb.lines, bb.bin("addf", None, out, total)
        in_map = [d if d != axis else k for d in range(r)]
        return self.e.generic([(v, in_map)], shape, et, body, reduce_dims=[k], init=init,
                              nloops=r + 1, out_map=list(range(r)))

    def op_slice_scatter(self, node, a, src, dim=0, start=None, end=None, step=1):
        """`a` with `src` written over a[.., start:end, ..] (slicing's
        gradient): tensor.insert_slice."""
        v, sv = self.val(a), self.val(src)
        shape, et = self._out(node)
        r = len(v.shape)
        dim %= r
        size = v.shape[dim]
        start = 0 if start is None else (start + size if start < 0 else start)
        start = max(0, min(start, size))
        if sv.shape[dim] == 0:
            return v  # nothing written
        if step != 1:
            return self._strided_slice_scatter(v, sv, dim, start, step, shape, et)
        offsets = [start if d == dim else 0 for d in range(r)]
        n = self.e.fresh("ins")
        out = _Value(n, shape, et, v.spec)  # the destination's type, spec and all
        self.e.emit(f"{n} = tensor.insert_slice {sv.name} into {v.name}"
                    f"[{', '.join(map(str, offsets))}] [{', '.join(map(str, sv.shape))}] "
                    f"[{', '.join('1' for _ in range(r))}] : {sv.type} into {v.type}")
        return out

    def _strided_slice_scatter(self, v: _Value, sv: _Value, dim: int, start: int, step: int,
                               shape, et) -> _Value:
        """a[.., start::step, ..] = src (the gradient of a strided slice,
        GPT-J's rotary halves): `src` with (step - 1) zeros after each
        element along new minor dims, merged into `dim` (which stays
        shardable), moved to `start` by padding or cropping, then taken at
        the positions the slice wrote and `a` elsewhere (all element-wise)."""
        r = len(v.shape)
        m = sv.shape[dim]
        size = v.shape[dim]

        def spread_body(args, out):
            bb = _Body(et)
            first = bb.v(f"arith.cmpi eq, {bb.v(f'linalg.index {dim + 1} : index')}, "
                         f"{bb.v('arith.constant 0 : index')} : index")
            return bb.lines, bb.v(f"arith.select {first}, {args[0]}, {bb.const(0)} : {et}")
        spread_shape = tuple(sv.shape[:dim]) + (m, step) + tuple(sv.shape[dim + 1:])
        in_map = [d if d <= dim else d + 1 for d in range(r)]
        spread = self.e.generic([(sv, in_map)], spread_shape, et, spread_body)
        groups = [[d] for d in range(dim)] + [[dim, dim + 1]] + [[d + 1] for d in range(dim + 1, r)]
        merged = self.e.collapse(spread, groups, tuple(sv.shape[:dim]) + (m * step,) +
                                 tuple(sv.shape[dim + 1:]))
        low = [0] * r
        high = [0] * r
        low[dim] = start
        high[dim] = size - start - m * step  # negative: crop
        placed = self._pad_hw(merged, low, high)
        last = start + (m - 1) * step

        def pick(args, out):
            bb = _Body(et)
            i = bb.v(f"linalg.index {dim} : index")
            off = bb.v(f"arith.subi {i}, {bb.v(f'arith.constant {start} : index')} : index")
            zero = bb.v("arith.constant 0 : index")
            rem = bb.v(f"arith.remsi {off}, {bb.v(f'arith.constant {step} : index')} : index")
            on_grid = bb.v(f"arith.cmpi eq, {rem}, {zero} : index")
            after = bb.v(f"arith.cmpi sge, {off}, {zero} : index")
            before = bb.v(f"arith.cmpi sle, {i}, {bb.v(f'arith.constant {last} : index')} : index")
            inside = bb.v(f"arith.andi {after}, {before} : i1")
            hit = bb.v(f"arith.andi {on_grid}, {inside} : i1")
            return bb.lines, bb.v(f"arith.select {hit}, {args[0]}, {args[1]} : {et}")
        ident = list(range(r))
        return self.e.generic([(placed, ident), (v, ident)], shape, et, pick)

    def op_select_scatter(self, node, a, src, dim, index):
        v, sv = self.val(a), self.val(src)
        r = len(v.shape)
        dim %= r
        index = index + v.shape[dim] if index < 0 else index
        kept = tuple(1 if d == dim else v.shape[d] for d in range(r))
        piece = self._reshape(node, sv, kept)
        n = self.e.fresh("ins")
        out = _Value(n, v.shape, v.et, v.spec)
        offsets = [index if d == dim else 0 for d in range(r)]
        self.e.emit(f"{n} = tensor.insert_slice {piece.name} into {v.name}"
                    f"[{', '.join(map(str, offsets))}] [{', '.join(map(str, kept))}] "
                    f"[{', '.join('1' for _ in range(r))}] : {piece.type} into {v.type}")
        return out

    def op_constant_pad_nd(self, node, a, pad, value=0):
        v = self.val(a)
        shape, et = self._out(node)
        r = len(v.shape)
        low, high = [0] * r, [0] * r
        for i in range(len(pad) // 2):
            low[r - 1 - i], high[r - 1 - i] = pad[2 * i], pad[2 * i + 1]
        if any(x < 0 for x in low + high):
            # Negative amounts crop (F.fold's padding): pad, then slice.
            return self._pad_hw(v, low, high, value)
        n = self.e.fresh("pad")
        out = _Value(n, shape, et)
        lit = _float_literal(float(value), et) if _is_float(et) else str(int(value))
        idx = ", ".join(f"%i{i}: index" for i in range(r))
        self.e.emit(f"{n} = tensor.pad {v.name} low[{', '.join(map(str, low))}] "
                    f"high[{', '.join(map(str, high))}] {{\n"
                    f"^bb0({idx}):\n"
                    f"  %z = arith.constant {lit} : {et}\n"
                    f"  tensor.yield %z : {et}\n"
                    f"}} : {v.type} to {out.type}")
        return out

    def op_gather(self, node, a, dim, index, sparse_grad=False):
        """out[..., j, ...] = a[..., index[..., j, ...], ...] along `dim`, as a
        sum over `dim` of the element whose position is the index: a
        reduction with no computed address, so an input sharded along `dim`
        gathers into a Partial sum (vocab-parallel cross-entropy) and one
        sharded elsewhere stays sharded."""
        v, idx = self.val(a), self.val(index)
        shape, et = self._out(node)
        r = len(v.shape)
        dim %= r
        # PyTorch allows the index to be smaller than the input off `dim`.
        if any(idx.shape[i] != v.shape[i] for i in range(r) if i != dim):
            sizes = [idx.shape[i] if i != dim else v.shape[i] for i in range(r)]
            v = self.e.slice(v, [0] * r, sizes)
        init = self.e.filled(shape, et, 0)
        k = r  # the loop over the input's `dim`

        def body(args, out):
            bb = _Body(et)
            pos = bb.v(f"linalg.index {k} : index")
            want = bb.v(f"arith.index_cast {args[1]} : {idx.et} to index")
            hit = bb.v(f"arith.cmpi eq, {want}, {pos} : index")
            picked = bb.v(f"arith.select {hit}, {args[0]}, {bb.const(0)} : {et}")
            return bb.lines, bb.bin("addf", "addi", out, picked)
        in_map = [i if i != dim else k for i in range(r)]
        return self.e.generic([(v, in_map), (idx, list(range(r)))], shape, et, body,
                              reduce_dims=[k], init=init, nloops=r + 1,
                              out_map=list(range(r)))

    def _scatter(self, node, a, dim, index, src, reduce_add: bool):
        """out = a, then out[.., index[.., j, ..], ..] = src[.., j, ..] along
        `dim` (or += with reduce_add): for each output element, a pass over
        the index's positions j along `dim`, taking (or adding) src where the
        index names this element. Duplicate indices: the last one wins (in
        PyTorch, an unspecified one)."""
        v, idx = self.val(a), self.val(index)
        shape, et = self._out(node)
        r = len(v.shape)
        dim %= r
        if any(idx.shape[d] != v.shape[d] for d in range(r) if d != dim):
            self.fail(node, "scatter with an index smaller than the tensor off its dim is not "
                            "supported yet")
        k = r  # the loop over the index's positions along `dim`
        ins = [(idx, [d if d != dim else k for d in range(r)])]
        if isinstance(src, torch.fx.Node):
            sv = self.val(src)
            if sv.shape != idx.shape:
                sv = self.e.slice(sv, [0] * r, idx.shape)
            ins.append((sv, [d if d != dim else k for d in range(r)]))

        def body(args, out):
            bb = _Body(et)
            pos = bb.v(f"linalg.index {dim} : index")
            want = bb.v(f"arith.index_cast {args[0]} : {idx.et} to index")
            hit = bb.v(f"arith.cmpi eq, {want}, {pos} : index")
            value = args[1] if len(args) > 1 else bb.const(src)
            if reduce_add:
                return bb.lines, bb.bin("addf", "addi", out, bb.v(
                    f"arith.select {hit}, {value}, {bb.const(0)} : {et}"))
            return bb.lines, bb.v(f"arith.select {hit}, {value}, {out} : {et}")
        # The tensor itself is the init (a copy, as out-of-place scatter).
        init = self.e.generic([(v, list(range(r)))], v.shape, et, lambda args_, out: ([], args_[0]))
        return self.e.generic(ins, shape, et, body, reduce_dims=[k], init=init, nloops=r + 1,
                              out_map=list(range(r)))

    def op_scatter(self, node, a, dim, index, src=None, value=None, reduce=None):
        if reduce is not None:
            if reduce != "add":
                self.fail(node, f"scatter with reduce={reduce!r} is not supported yet")
        if src is None:
            src = value
        return self._scatter(node, a, dim, index, src, reduce == "add")

    def op_scatter_add(self, node, a, dim, index, src):
        return self._scatter(node, a, dim, index, src, True)

    # reduce -> (identity, float op, integer op) of scatter_reduce.
    _SCATTER_REDUCE = {"sum": (0, "addf", "addi"), "mean": (0, "addf", "addi"),
                       "prod": (1, "mulf", "muli"), "amax": (None, "maximumf", "maxsi"),
                       "amin": (None, "minimumf", "minsi")}

    def op_scatter_reduce(self, node, a, dim, index, src, reduce, include_self=True):
        """out[.., i, ..] = self's element combined (include_self) with
        every src element whose index along `dim` is i, by `reduce`: a
        reduction over the index's positions (a Partial along a sharded
        index dim), a count of them, then one element-wise step. Positions
        no index names keep self's element."""
        if reduce not in self._SCATTER_REDUCE:
            self.fail(node, f"scatter_reduce with reduce={reduce!r} is not supported")
        v, idx, sv = self.val(a), self.val(index), self.val(src)
        shape, et = self._out(node)
        r = len(v.shape)
        dim %= r
        if reduce == "mean" and not _is_float(et):
            self.fail(node, "scatter_reduce with reduce='mean' on integers is not supported yet")
        if any(idx.shape[d] != v.shape[d] for d in range(r) if d != dim):
            self.fail(node, "scatter_reduce with an index smaller than the tensor off its dim "
                            "is not supported yet")
        if sv.shape != idx.shape:
            sv = self.e.slice(sv, [0] * r, idx.shape)
        identity, fop, iop = self._SCATTER_REDUCE[reduce]
        if identity is None:
            identity = _extreme(et, reduce == "amin")
        k = r
        by_index = [d if d != dim else k for d in range(r)]

        def hit(bb, index_value):
            want = bb.v(f"arith.index_cast {index_value} : {idx.et} to index")
            return bb.v(f"arith.cmpi eq, {want}, {bb.v(f'linalg.index {dim} : index')} : index")

        def combined(args, out):
            bb = _Body(et)
            picked = bb.v(f"arith.select {hit(bb, args[0])}, {args[1]}, {bb.const(identity)} : {et}")
            return bb.lines, bb.bin(fop, iop, out, picked)
        red = self.e.generic([(idx, by_index), (sv, by_index)], shape, et, combined, reduce_dims=[k],
                             init=self.e.filled(shape, et, identity), nloops=r + 1,
                             out_map=list(range(r)))

        def counted(args, out):
            bb = _Body("i64")
            one = bb.v(f"arith.extui {hit(bb, args[0])} : i1 to i64")
            return bb.lines, bb.v(f"arith.addi {out}, {one} : i64")
        count = self.e.generic([(idx, by_index)], shape, "i64", counted, reduce_dims=[k],
                               init=self.e.filled(shape, "i64", 0), nloops=r + 1,
                               out_map=list(range(r)))

        def finish(args, out):
            bb = _Body(et)
            x, y, n = args
            some = bb.v(f"arith.cmpi sgt, {n}, {bb.const(0, 'i64')} : i64")
            if reduce == "mean":
                total = bb.bin("addf", None, y, x) if include_self else y
                terms = n
                if include_self:
                    terms = bb.v(f"arith.addi {n}, {bb.const(1, 'i64')} : i64")
                avg = bb.bin("divf", None, total, bb.v(f"arith.sitofp {terms} : i64 to {et}"))
                return bb.lines, bb.v(f"arith.select {some}, {avg}, {x} : {et}")
            value = bb.bin(fop, iop, x, y) if include_self else y
            return bb.lines, bb.v(f"arith.select {some}, {value}, {x} : {et}")
        full = list(range(r))
        return self.e.generic([(v, full), (red, full), (count, full)], shape, et, finish)

    @staticmethod
    def _replaces(bb: "_Body", x: str, cur: str, et: str, largest: bool, nan: Optional[str]) -> str:
        """Whether `x` replaces the extreme `cur` so far, earlier elements
        winning ties. `nan`: None (NaN never replaces), "first" (a NaN
        replaces a number: the first NaN wins, as argmax), "every" (every NaN
        replaces, as PyTorch's max pooling kernel)."""
        if not _is_float(et):
            pred = ("ugt" if largest else "ult") if et == "i1" else ("sgt" if largest else "slt")
            return bb.v(f"arith.cmpi {pred}, {x}, {cur} : {et}")
        better = bb.v(f"arith.cmpf {'ogt' if largest else 'olt'}, {x}, {cur} : {et}")
        if nan is None:
            return better
        xnan = bb.v(f"arith.cmpf uno, {x}, {x} : {et}")
        if nan == "first":
            curnan = bb.v(f"arith.cmpf uno, {cur}, {cur} : {et}")
            notcur = bb.v(f"arith.xori {curnan}, {bb.const(True, 'i1')} : i1")
            xnan = bb.v(f"arith.andi {xnan}, {notcur} : i1")
        return bb.v(f"arith.ori {better}, {xnan} : i1")

    def _arg_reduce(self, node, a, dim, keepdim, largest: bool, want_values: bool):
        """The first extreme along `dim` and its index (NaN counts as the
        extreme, as in PyTorch): one reduction with two outputs, which no
        partial result combines, so propagation keeps `dim` whole."""
        v = self.val(a)
        if dim is None:
            v = self._reshape(node, v, (max(1, math.prod(v.shape)),))
            dim = 0
        r = len(v.shape)
        dim %= r if r else 1
        et = v.et
        red_shape = tuple(s for i, s in enumerate(v.shape) if i != dim)
        start = _extreme(et, not largest)
        vinit = self.e.filled(red_shape, et, start)
        iinit = self.e.filled(red_shape, "i64", 0)
        dims = [f"d{i}" for i in range(r)]
        in_map = f"affine_map<({', '.join(dims)}) -> ({', '.join(dims)})>"
        out_map = f"affine_map<({', '.join(dims)}) -> ({', '.join(d for i, d in enumerate(dims) if i != dim)})>"
        iters = ", ".join('"reduction"' if i == dim else '"parallel"' for i in range(r))
        bb = _Body(et)
        x, cur, ci = "%a0", "%o0", "%o1"
        # (min and argmin propagate NaN too, as PyTorch's.)
        take = self._replaces(bb, x, cur, et, largest, "first")
        pos = bb.v(f"linalg.index {dim} : index")
        pos = bb.v(f"arith.index_cast {pos} : index to i64")
        nv = bb.v(f"arith.select {take}, {x}, {cur} : {et}")
        ni = bb.v(f"arith.select {take}, {pos}, {ci} : i64")
        values, indices = self.e.value_and_index([(v, in_map)], out_map, iters, vinit, iinit,
                                                 bb.lines, nv, ni)
        if keepdim:
            kept = tuple(1 if i == dim else s for i, s in enumerate(self.val(a).shape))
            values, indices = self._reshape(node, values, kept), self._reshape(node, indices, kept)
        return (values, indices) if want_values else indices

    def _concat(self, vs: List[_Value], dim: int) -> _Value:
        if len(vs) == 1:
            return vs[0]
        shape = list(vs[0].shape)
        shape[dim] = sum(v.shape[dim] for v in vs)
        n = self.e.fresh("cat")
        out = _Value(n, tuple(shape), vs[0].et)
        self.e.emit(f"{n} = tensor.concat dim({dim}) {', '.join(v.name for v in vs)} : "
                    f"({', '.join(v.type for v in vs)}) -> {out.type}")
        return out

    # -- complex numbers and FFTs ----------------------------------------------
    # A complex tensor is its two real parts (_Complex): the program never
    # sees a complex type. FFTs are DFTs: a contraction with cosine and sine
    # tables (computed in f64 from (k t mod n), then rounded to the parts'
    # type), one dim at a time; quadratic in the transformed length, and a
    # sharded transformed dim sums as a Partial.
    def _complex_part_type(self, node) -> Optional[str]:
        fake = node.meta.get("val", node.meta.get("example_value"))
        if isinstance(fake, torch.Tensor) and fake.dtype.is_complex:
            if fake.dtype not in _COMPLEX_PARTS:
                self.fail(node, f"dtype {fake.dtype} is not supported (complex64 and "
                                "complex128 are)")
            return _COMPLEX_PARTS[fake.dtype]
        return None

    def _complex_args(self, node) -> List[Any]:
        """The nodes among `node`'s arguments (lists too) holding complex
        values."""
        found = []

        def visit(x):
            if isinstance(x, torch.fx.Node):
                if isinstance(self.values.get(x), _Complex):
                    found.append(x)
            elif isinstance(x, (list, tuple)):
                for y in x:
                    visit(y)
        visit(list(node.args) + list(node.kwargs.values()))
        return found

    def _complex_op(self, node, base: str, fn, complex_in):
        own = getattr(self, "complex_" + base, None) if base in _COMPLEX_OWN else None
        if own is not None:
            result = own(node, *node.args, **node.kwargs)
            if result is not NotImplemented:
                return result
        if base in _COMPLEX_BY_PARTS and fn is not None:
            promoted = {}
            if base in ("where", "cat", "stack", "slice_scatter", "select_scatter"):
                # Real values beside complex ones (not a condition): their
                # imaginary part is 0, not their value again.
                def visit(x):
                    if isinstance(x, (list, tuple)):
                        for y in x:
                            visit(y)
                    elif isinstance(x, torch.fx.Node) and x not in complex_in and \
                            isinstance(self.values.get(x), _Value) and \
                            _is_float(self.values[x].et):
                        promoted[x] = self.values[x]
                visit(list(node.args))
            try:
                for x, v in promoted.items():
                    self.values[x] = _Complex(v, self.e.filled(v.shape, v.et, 0))
                return self._on_parts(fn, node, list(complex_in) + list(promoted))
            finally:
                self.values.update(promoted)
        self.fail(node, f"'{base}' of a complex tensor is not supported (complex values are "
                        "supported through the FFTs, view_as_real, view_as_complex, polar, "
                        "real, imag, conj, abs, complex +, -, *, / and views, copies, sums "
                        "and concatenation)")

    def _on_parts(self, fn, node, complex_in):
        """`fn` run once on the real parts and once on the imaginary ones of
        the complex operands (an op linear in them)."""
        saved = {x: self.values[x] for x in complex_in}
        outs = []
        try:
            for part in ("re", "im"):
                for x in complex_in:
                    self.values[x] = getattr(saved[x], part)
                self._as_part = True
                outs.append(fn(node, *node.args, **node.kwargs))
                self._as_part = False
        finally:
            self._as_part = False
            self.values.update(saved)
        re, im = outs
        if isinstance(re, (list, tuple)):
            return type(re)(_Complex(a, b) for a, b in zip(re, im))
        return _Complex(re, im)

    def _cval(self, arg) -> _Complex:
        """A complex operand: a complex value, or a real one with 0 as its
        imaginary part."""
        if isinstance(arg, torch.fx.Node) and isinstance(self.values.get(arg), _Complex):
            return self.values[arg]
        v = self.val(arg)
        return _Complex(v, self.e.filled(v.shape, v.et, 0))

    def _parts_elementwise(self, node, operands, fn) -> _Complex:
        """Element-wise over complex, real and scalar operands (broadcast to
        the node's shape): `fn(bb, parts)` gets each operand as (re, im), im
        None where it is 0, and returns the result's (re, im)."""
        part = self._complex_part_type(node)
        shape = tuple(int(d) for d in node.meta["val"].shape)
        ins, refs = [], []
        for o in operands:
            if isinstance(o, torch.fx.Node):
                v = self.values.get(o)
                pieces = [v.re, v.im] if isinstance(v, _Complex) else [self.val(o)]
                idx = []
                for piece in pieces:
                    keep, loops = _broadcast_map(piece.shape, shape)
                    idx.append(len(ins))
                    ins.append((self.e.drop_dims(piece, keep), loops, piece.et))
                refs.append(("t", idx))
            else:
                c = complex(o)
                refs.append(("c", (c.real, c.imag)))

        def run(which):
            def body(args, out):
                bb = _Body(part)
                ops = []
                for kind, x in refs:
                    if kind == "c":
                        ops.append((bb.const(x[0]), bb.const(x[1]) if x[1] else None))
                        continue
                    vals = []
                    for i in x:
                        a, et = args[i], ins[i][2]
                        vals.append(a if et == part else self._cast(bb, a, et, part))
                    ops.append((vals[0], vals[1] if len(vals) > 1 else None))
                re, im = fn(bb, ops)
                if which == 1 and im is None:
                    im = bb.const(0.0)
                return bb.lines, re if which == 0 else im
            return self.e.generic([(v, m) for v, m, _ in ins], shape, part, body)
        return _Complex(run(0), run(1))

    @staticmethod
    def _cmul(bb, x, y):
        (a, b), (c, d) = x, y
        if b is None and d is None:
            return bb.bin("mulf", None, a, c), None
        if b is None:
            return bb.bin("mulf", None, a, c), bb.bin("mulf", None, a, d)
        if d is None:
            return bb.bin("mulf", None, a, c), bb.bin("mulf", None, b, c)
        return (bb.bin("subf", None, bb.bin("mulf", None, a, c), bb.bin("mulf", None, b, d)),
                bb.bin("addf", None, bb.bin("mulf", None, a, d), bb.bin("mulf", None, b, c)))

    def _cadd(self, node, a, b, alpha, sign):
        def f(bb, ops):
            (ar, ai), (br, bi) = ops
            if alpha != 1:
                br, bi = self._cmul(bb, (br, bi), (bb.const(complex(alpha).real),
                                                    bb.const(complex(alpha).imag)
                                                    if complex(alpha).imag else None))
            op = "addf" if sign > 0 else "subf"
            re = bb.bin(op, None, ar, br)
            if ai is None and bi is None:
                return re, None
            im = bi if ai is None else ai
            if ai is not None and bi is not None:
                im = bb.bin(op, None, ai, bi)
            elif ai is None and sign < 0:
                im = bb.bin("subf", None, bb.const(0.0), bi)
            return re, im
        return self._parts_elementwise(node, [a, b], f)

    def complex_add(self, node, a, b, alpha=1):
        return self._cadd(node, a, b, alpha, 1)

    def complex_sub(self, node, a, b, alpha=1):
        return self._cadd(node, a, b, alpha, -1)

    def complex_mul(self, node, a, b):
        return self._parts_elementwise(node, [a, b], lambda bb, ops: self._cmul(bb, *ops))

    def complex_div(self, node, a, b, rounding_mode=None):
        if rounding_mode is not None:
            self.fail(node, "div of complex tensors with a rounding mode")

        def f(bb, ops):
            (a_, b_), (c, d) = ops
            if d is None:
                return (bb.bin("divf", None, a_, c),
                        None if b_ is None else bb.bin("divf", None, b_, c))
            den = bb.bin("addf", None, bb.bin("mulf", None, c, c), bb.bin("mulf", None, d, d))
            num_re, num_im = self._cmul(bb, (a_, b_), (c, bb.bin("subf", None, bb.const(0.0), d)))
            return (bb.bin("divf", None, num_re, den),
                    bb.bin("divf", None, num_im if num_im is not None else bb.const(0.0), den))
        return self._parts_elementwise(node, [a, b], f)

    def complex_copy(self, node, dst, src, non_blocking=False):
        """copy(dst, src) into a complex tensor: src's parts (a real src's
        imaginary part 0) broadcast to dst's shape; into a real one, src's
        real part."""
        if not self._complex_part_type(node):
            saved = self.values[src]
            self.values[src] = saved.re
            try:
                return self.op_copy(node, dst, src)
            finally:
                self.values[src] = saved
        return self._parts_elementwise(node, [src], lambda bb, ops: ops[0])

    def complex_abs(self, node, a):
        z = self._cval(a)

        def body(args, out):
            bb = _Body(z.re.et)
            sq = bb.bin("addf", None, bb.bin("mulf", None, args[0], args[0]),
                        bb.bin("mulf", None, args[1], args[1]))
            return bb.lines, bb.un("math.sqrt", sq)
        r = len(z.shape)
        return self.e.generic([(z.re, list(range(r))), (z.im, list(range(r)))], z.shape,
                              z.re.et, body)

    def complex_angle(self, node, a):
        z = self._cval(a)

        def body(args, out):
            bb = _Body(z.re.et)
            return bb.lines, bb.v(f"math.atan2 {args[1]}, {args[0]} : {z.re.et}")
        r = len(z.shape)
        return self.e.generic([(z.re, list(range(r))), (z.im, list(range(r)))], z.shape,
                              z.re.et, body)

    def complex_real(self, node, a):
        return self._cval(a).re

    def complex_imag(self, node, a):
        return self._cval(a).im

    def complex_conj(self, node, a):
        z = self._cval(a)
        return _Complex(z.re, self._unary_value(z.im, lambda bb, x: bb.un("arith.negf", x)))

    complex__conj = complex_conj
    complex_conj_physical = complex_conj

    def complex_view_as_real(self, node, a):
        """(..., 2): the parts stacked along a new last dim."""
        z = self._cval(a)
        r = len(z.shape)
        groups = [[d] for d in range(r - 1)] + [[r - 1, r]] if r else []
        parts = [self.e.expand(p, groups, z.shape + (1,)) for p in (z.re, z.im)]
        return self._concat(parts, r)

    def op_view_as_complex(self, node, a):
        v = self.val(a)
        if not v.shape or v.shape[-1] != 2 or v.et not in ("f32", "f64"):
            self.fail(node, "view_as_complex of a tensor whose last dim is not 2 f32/f64 values")
        return self._split_parts(v)

    def _split_parts(self, v: _Value) -> _Complex:
        """A real (..., 2) tensor as the complex tensor whose parts it holds."""
        r = len(v.shape)
        return _Complex(*[self.e.generic([(v, list(range(r - 1)) + [str(k)])], v.shape[:-1],
                                         v.et, lambda args, o: ([], args[0])) for k in (0, 1)])

    def op_complex(self, node, real, imag):
        re, im = self.val(real), self.val(imag)
        shape = tuple(int(d) for d in node.meta["val"].shape)
        out = []
        for v in (re, im):
            keep, loops = _broadcast_map(v.shape, shape)
            out.append(self.e.generic([(self.e.drop_dims(v, keep), loops)], shape, v.et,
                                      lambda args, o: ([], args[0])))
        return _Complex(*out)

    def op_polar(self, node, magnitude, angle):
        """magnitude (cos angle + i sin angle)."""
        def f(bb, ops):
            (m, _), (t, _) = ops
            return (bb.bin("mulf", None, m, bb.un("math.cos", t)),
                    bb.bin("mulf", None, m, bb.un("math.sin", t)))
        return self._parts_elementwise(node, [magnitude, angle], f)

    def complex__to_copy(self, node, a, **kwargs):
        return self._complex_copy(node, a, self._complex_part_type(node))

    def _complex_copy(self, node, a, part: Optional[str]):
        """_to_copy to a complex type (a real input gets 0 as its imaginary
        part), or from one to a real type (the real part, as PyTorch)."""
        src = self.values.get(a)
        if part is None:  # complex to real: the real part
            shape, et = self._out(node)
            re = src.re
            return re if re.et == et else self._unary_value_typed(
                re, et, lambda bb, x: self._cast(bb, x, re.et, et))
        z = src if isinstance(src, _Complex) else self._cval(a)
        return _Complex(*[p if p.et == part else self._unary_value_typed(
            p, part, lambda bb, x, et=p.et: self._cast(bb, x, et, part)) for p in (z.re, z.im)])

    def _dft_tables(self, n_out: int, n_in: int, length: int, et: str,
                    weights: Optional[List[float]] = None) -> Tuple[_Value, _Value]:
        """cos and sin of 2 pi (k t mod length) / length for k < n_out (dim 0),
        t < n_in (dim 1), in f64, rounded to `et`; each column t times
        weights[t] if given."""
        tables = []
        for fn in ("math.cos", "math.sin"):
            def body(args, out, fn=fn):
                bb = _Body("f64")
                k = bb.v(f"arith.index_cast {bb.v('linalg.index 0 : index')} : index to i64")
                t = bb.v(f"arith.index_cast {bb.v('linalg.index 1 : index')} : index to i64")
                m = bb.v(f"arith.remsi {bb.v(f'arith.muli {k}, {t} : i64')}, "
                         f"{bb.const(length, 'i64')} : i64")
                ang = bb.bin("mulf", None, bb.v(f"arith.sitofp {m} : i64 to f64"),
                             bb.const(2 * math.pi / length))
                val = bb.un(fn, ang)
                if weights is not None:
                    w = bb.const(weights[-1])
                    for i in range(len(weights) - 2, -1, -1):
                        if weights[i] != weights[-1]:
                            hit = bb.v(f"arith.cmpi eq, {t}, {bb.const(i, 'i64')} : i64")
                            w = bb.v(f"arith.select {hit}, {bb.const(weights[i])}, {w} : f64")
                    val = bb.bin("mulf", None, val, w)
                if et != "f64":
                    val = bb.v(f"arith.truncf {val} : f64 to {et}")
                return bb.lines, val
            tables.append(self.e.generic([], (n_out, n_in), et, body))
        return tables[0], tables[1]

    def _dft(self, z: _Complex, dim: int, n_out: int, inverse: bool, length: Optional[int] = None,
             weights: Optional[List[float]] = None, real_out: bool = False):
        """Along `dim` (size n_in): out[k] = sum_t z[t] e^(-+ 2 pi i k t / length)
        (+ when `inverse`), for k < n_out; `weights` scale each term t.
        `z.im` may be None (a real input); `real_out` keeps the real part
        only."""
        re = z.re
        r = len(re.shape)
        n_in = re.shape[dim]
        length = length or n_in
        et = re.et
        cos, sin = self._dft_tables(n_out, n_in, length, et, weights)
        shape = tuple(n_out if d == dim else re.shape[d] for d in range(r))
        in_map = [d if d != dim else r for d in range(r)]
        ins = [(cos, [dim, r]), (sin, [dim, r]), (re, in_map)]
        if z.im is not None:
            ins.append((z.im, in_map))
        # e^(-i th) (a + ib) = (a cos + b sin) + i (b cos - a sin); inverse: the sin terms negated.
        sgn = -1.0 if inverse else 1.0

        def part(which):
            def body(args, out):
                bb = _Body(et)
                c, s_, a = args[0], args[1], args[2]
                b = args[3] if len(args) > 3 else None
                if which == 0:
                    term = bb.bin("mulf", None, a, c)
                    if b is not None:
                        bs = bb.bin("mulf", None, b, s_)
                        term = bb.bin("addf" if sgn > 0 else "subf", None, term, bs)
                else:
                    term = bb.bin("mulf", None, a, s_)
                    term = bb.bin("subf", None, bb.const(0.0), term) if sgn > 0 else term
                    if b is not None:
                        term = bb.bin("addf", None, bb.bin("mulf", None, b, c), term)
                return bb.lines, bb.bin("addf", None, out, term)
            return self.e.generic(ins, shape, et, body, reduce_dims=[r],
                                  init=self.e.filled(shape, et, 0), nloops=r + 1,
                                  out_map=list(range(r)))
        if real_out:
            return part(0)
        return _Complex(part(0), part(1))

    def _fft_scale(self, z, norm: int, count: int):
        """ATen's normalization: 0 none, 1 by 1/sqrt(n), 2 by 1/n."""
        if norm == 0 or count == 0:
            return z
        f = 1.0 / math.sqrt(count) if norm == 1 else 1.0 / count
        scale = lambda v: self._unary_value(v, lambda bb, x: bb.bin("mulf", None, x, bb.const(f)))  # noqa: E731
        if isinstance(z, _Complex):
            return _Complex(scale(z.re), scale(z.im))
        return scale(z)

    def complex__fft_c2c(self, node, a, dim, normalization, forward):
        """torch.fft.fft / ifft / fftn (complex to complex): a DFT per dim."""
        z = self._cval(a)
        r = len(z.shape)
        count = 1
        for d in dim:
            d %= r
            z = self._dft(z, d, z.shape[d], not forward)
            count *= z.shape[d]
        return self._fft_scale(z, normalization, count)

    def op__fft_c2c(self, node, a, dim, normalization, forward):
        return self.complex__fft_c2c(node, a, dim, normalization, forward)

    def op__fft_r2c(self, node, a, dim, normalization, onesided):
        """torch.fft.rfft / rfftn (real to complex): the last dim's DFT of a
        real input (its first n // 2 + 1 terms when onesided), then the
        others'."""
        v = self.val(a)
        if v.et not in ("f32", "f64"):
            self.fail(node, f"an FFT of {v.et} values (f32 and f64 are supported)")
        r = len(v.shape)
        dims = [d % r for d in dim]
        last = dims[-1]
        n = v.shape[last]
        z = self._dft(_Complex(v, None), last, n // 2 + 1 if onesided else n, False)
        for d in dims[:-1]:
            z = self._dft(z, d, z.shape[d], False)
        return self._fft_scale(z, normalization, math.prod(v.shape[d] for d in dims))

    def complex__fft_c2r(self, node, a, dim, normalization, last_dim_size):
        """torch.fft.irfft / irfftn (complex to real): the inverse DFT of
        every dim but the last, then the last dim's from its one-sided
        spectrum: x[t] = sum_k c_k (Re X[k] cos - Im X[k] sin), c_k 1 for
        k = 0 and k = n / 2, 2 otherwise (the imaginary parts there unused,
        as PyTorch)."""
        z = self._cval(a)
        r = len(z.shape)
        dims = [d % r for d in dim]
        count = last_dim_size
        for d in dims[:-1]:
            z = self._dft(z, d, z.shape[d], True)
            count *= z.shape[d]
        last = dims[-1]
        m = min(z.shape[last], last_dim_size // 2 + 1)
        if m < z.shape[last]:
            sizes = tuple(m if d == last else z.shape[d] for d in range(r))
            z = _Complex(self.e.slice(z.re, [0] * r, sizes), self.e.slice(z.im, [0] * r, sizes))
        weights = [1.0 if k == 0 or 2 * k == last_dim_size else 2.0 for k in range(m)]
        x = self._dft(z, last, last_dim_size, True, length=last_dim_size, weights=weights,
                      real_out=True)
        return self._fft_scale(x, normalization, count)

    def op_topk(self, node, a, k, dim=-1, largest=True, sorted=True):
        """The k largest (smallest) along `dim`, in order, and their indices:
        k rounds of an arg reduction over the elements not yet taken (the
        first of equal ones; NaN the largest, as PyTorch). Meant for small k
        (routers, sampling): 2k generics; a larger k takes the first k of the
        stable sort."""
        v = self.val(a)
        r = len(v.shape)
        dim %= r
        if k == 0:
            # Nothing taken: empty values and indices.
            sizes = tuple(0 if d == dim else n for d, n in enumerate(v.shape))
            return self.e.filled(sizes, v.et, 0), self.e.filled(sizes, "i64", 0)
        if k > 64:
            # The first k of the stable sort (the same order: the first of
            # equal ones; NaN first descending, last ascending).
            values, indices = self._sort_value(node, v, dim, largest)
            sizes = tuple(k if d == dim else n for d, n in enumerate(v.shape))
            return self.e.slice(values, [0] * r, sizes), self.e.slice(indices, [0] * r, sizes)
        et = v.et
        if not _is_float(et) and et == "i1":
            self.fail(node, "topk of a bool tensor")
        red_shape = tuple(s_ for i, s_ in enumerate(v.shape) if i != dim)
        kept = tuple(1 if i == dim else s_ for i, s_ in enumerate(v.shape))
        dims = [f"d{i}" for i in range(r)]
        full_map = f"affine_map<({', '.join(dims)}) -> ({', '.join(dims)})>"
        red_map = (f"affine_map<({', '.join(dims)}) -> "
                   f"({', '.join(d for i, d in enumerate(dims) if i != dim)})>")
        iters = ", ".join('"reduction"' if i == dim else '"parallel"' for i in range(r))
        start = _extreme(et, not largest)
        taken = self.e.filled(v.shape, "i1", False)
        values, indices = [], []
        for step in range(k):
            vinit = self.e.filled(red_shape, et, start)
            iinit = self.e.filled(red_shape, "i64", -1)
            bb = _Body(et)
            x, cur, ci = "%a0", "%o0", "%o1"
            free = bb.v(f"arith.xori %a1, {bb.const(True, 'i1')} : i1")
            # NaN is the largest: first among the largest, never among the
            # smallest (PyTorch's topk).
            better = self._replaces(bb, x, cur, et, largest, "first" if largest else None)
            none = bb.v(f"arith.cmpi eq, {ci}, {bb.const(-1, 'i64')} : i64")
            take = bb.v(f"arith.andi {free}, {bb.v(f'arith.ori {better}, {none} : i1')} : i1")
            pos = bb.v(f"arith.index_cast {bb.v(f'linalg.index {dim} : index')} : index to i64")
            nv = bb.v(f"arith.select {take}, {x}, {cur} : {et}")
            ni = bb.v(f"arith.select {take}, {pos}, {ci} : i64")
            val, idx = self.e.value_and_index([(v, full_map), (taken, full_map)], red_map, iters,
                                              vinit, iinit, bb.lines, nv, ni)
            values.append(self._reshape(node, val, kept))
            indices.append(self._reshape(node, idx, kept))
            if step + 1 < k:
                def mark(args, out):
                    bb2 = _Body("i1")
                    here = bb2.v(f"arith.index_cast {bb2.v(f'linalg.index {dim} : index')} : index to i64")
                    hit = bb2.v(f"arith.cmpi eq, {args[1]}, {here} : i64")
                    return bb2.lines, bb2.v(f"arith.ori {args[0]}, {hit} : i1")
                taken = self.e.generic([(taken, list(range(r))),
                                        (idx, [i for i in range(r) if i != dim])],
                                       v.shape, "i1", mark)
        return self._concat(values, dim), self._concat(indices, dim)

    def op_sort(self, node, a, *args, **kwargs):
        """Sorted along `dim` with each element's original index: its rank
        (how many elements go before it: smaller, or equal and earlier; NaN
        last ascending, first descending, as PyTorch) by a sum over the dim,
        then each rank's element and index picked by a sum over the dim.
        Stable. Quadratic in the dim's size (up to 4,096)."""
        # sort.default(self, dim=-1, descending=False);
        # sort.stable(self, *, stable, dim=-1, descending=False)
        dim = kwargs.get("dim", args[0] if args and not isinstance(args[0], bool) else -1)
        descending = kwargs.get("descending", args[1] if len(args) > 1 else False)
        if args and isinstance(args[0], bool):  # (stable, dim, descending) positionally
            dim = args[1] if len(args) > 1 else kwargs.get("dim", -1)
            descending = args[2] if len(args) > 2 else kwargs.get("descending", False)
        return self._sort_value(node, self.val(a), dim, descending)

    def op_kthvalue(self, node, a, k, dim=-1, keepdim=False):
        """The k-th smallest along `dim` and its index: element k - 1 of the
        stable ascending sort (of equal values, the index of the first; NaN
        largest, as PyTorch)."""
        v = self.val(a)
        r = len(v.shape)
        dim %= r
        if not 1 <= k <= v.shape[dim]:
            self.fail(node, f"kthvalue with k = {k} along a dim of {v.shape[dim]}")
        values, indices = self._sort_value(node, v, dim, False)
        offsets = [0] * r
        offsets[dim] = k - 1
        sizes = list(v.shape)
        sizes[dim] = 1
        outs = []
        for t in (values, indices):
            t = self.e.slice(t, offsets, sizes)
            outs.append(t if keepdim else self.e.drop_dims(t, [d for d in range(r) if d != dim]))
        return tuple(outs)

    def _sort_value(self, node, v: _Value, dim: int, descending: bool):
        et = v.et
        r = len(v.shape)
        dim %= r
        n = v.shape[dim]
        if n > 1024:
            return self._bitonic_sort(v, dim, descending)
        k = r
        at_i = list(range(r))
        at_k = [d if d != dim else k for d in range(r)]

        def rank_body(args_, out):
            bb = _Body(et)
            xi, xj = args_[0], args_[1]
            ahead, same = self._sort_ahead(bb, et, descending, xj, xi)  # j before i?
            earlier = bb.v(f"arith.cmpi ult, {bb.v(f'linalg.index {k} : index')}, "
                           f"{bb.v(f'linalg.index {dim} : index')} : index")
            before = bb.v(f"arith.ori {ahead}, {bb.v(f'arith.andi {same}, {earlier} : i1')} : i1")
            one = bb.v(f"arith.extui {before} : i1 to i64")
            return bb.lines, bb.v(f"arith.addi {out}, {one} : i64")
        rank = self.e.generic([(v, at_i), (v, at_k)], v.shape, "i64", rank_body, reduce_dims=[k],
                              init=self.e.filled(v.shape, "i64", 0), nloops=r + 1,
                              out_map=list(range(r)))

        def pick(value_of, out_et):
            def body(args_, out):
                bb = _Body(out_et)
                here = bb.v(f"arith.index_cast {bb.v(f'linalg.index {dim} : index')} : index to i64")
                hit = bb.v(f"arith.cmpi eq, {args_[1]}, {here} : i64")
                val = value_of(bb, args_[0])
                return bb.lines, bb.v(f"arith.select {hit}, {val}, {out} : {out_et}")
            return self.e.generic([(v, at_k), (rank, at_k)], v.shape, out_et, body,
                                  reduce_dims=[k], init=self.e.filled(v.shape, out_et, 0),
                                  nloops=r + 1, out_map=list(range(r)))
        values = pick(lambda bb, x: x, et)
        indices = pick(lambda bb, x: bb.v(
            f"arith.index_cast {bb.v(f'linalg.index {k} : index')} : index to i64"), "i64")
        return values, indices

    @staticmethod
    def _sort_ahead(bb: "_Body", et: str, descending: bool, xi, xj):
        """(xi goes ahead of xj by value, the two are equal) in a sort: NaN
        last ascending and first descending, as PyTorch; NaNs equal."""
        if _is_float(et):
            ni = bb.v(f"arith.cmpf uno, {xi}, {xi} : {et}")
            nj = bb.v(f"arith.cmpf uno, {xj}, {xj} : {et}")
            true = bb.const(True, "i1")
            if descending:  # i first: i is NaN and j is not, or i > j
                strict = bb.v(f"arith.cmpf ogt, {xi}, {xj} : {et}")
                first = bb.v(f"arith.andi {ni}, {bb.v(f'arith.xori {nj}, {true} : i1')} : i1")
            else:  # i first: j is NaN and i is not, or i < j
                strict = bb.v(f"arith.cmpf olt, {xi}, {xj} : {et}")
                first = bb.v(f"arith.andi {nj}, {bb.v(f'arith.xori {ni}, {true} : i1')} : i1")
            ahead = bb.v(f"arith.ori {strict}, {first} : i1")
            same = bb.v(f"arith.ori {bb.v(f'arith.cmpf oeq, {xi}, {xj} : {et}')}, "
                        f"{bb.v(f'arith.andi {ni}, {nj} : i1')} : i1")
            return ahead, same
        pred = ("ugt" if descending else "ult") if et == "i1" else ("sgt" if descending else "slt")
        return (bb.v(f"arith.cmpi {pred}, {xi}, {xj} : {et}"),
                bb.v(f"arith.cmpi eq, {xi}, {xj} : {et}"))

    def _sort_before(self, bb: "_Body", et: str, descending: bool, xi, ii, xj, ij, n: int):
        """Whether element (xi, index ii) goes before (xj, ij) in a stable
        sort: ahead by value (_sort_ahead), or equal and earlier; padding
        (index >= n) goes last."""
        ahead, same = self._sort_ahead(bb, et, descending, xi, xj)
        earlier = bb.v(f"arith.cmpi slt, {ii}, {ij} : i64")
        before = bb.v(f"arith.ori {ahead}, {bb.v(f'arith.andi {same}, {earlier} : i1')} : i1")
        limit = bb.const(n, "i64")
        yes = bb.const(True, "i1")
        i_real = bb.v(f"arith.cmpi slt, {ii}, {limit} : i64")
        j_pad = bb.v(f"arith.cmpi sge, {ij}, {limit} : i64")
        j_real = bb.v(f"arith.xori {j_pad}, {yes} : i1")
        i_pad = bb.v(f"arith.xori {i_real}, {yes} : i1")
        # Real before padding; between reals, the order; between paddings,
        # the index.
        both_real = bb.v(f"arith.andi {i_real}, {j_real} : i1")
        pads = bb.v(f"arith.andi {i_pad}, {j_pad} : i1")
        by_order = bb.v(f"arith.andi {both_real}, {before} : i1")
        real_first = bb.v(f"arith.andi {i_real}, {j_pad} : i1")
        pad_order = bb.v(f"arith.andi {pads}, {earlier} : i1")
        return bb.v(f"arith.ori {bb.v(f'arith.ori {by_order}, {real_first} : i1')}, {pad_order} : i1")

    def _bitonic_sort(self, v: _Value, dim: int, descending: bool):
        """A stable sort along `dim` by a bitonic network over the dim padded
        to a power of two P: log2(P) (log2(P) + 1) / 2 compare-exchange
        stages, each element reading its partner (index xor j) and keeping
        the one its place in the block takes, on (value, index) pairs so
        that equal values keep their order. n log^2 n work, for the dims the
        quadratic rank sort would make too slow."""
        et = v.et
        r = len(v.shape)
        n = v.shape[dim]
        size = 1
        while size < n:
            size *= 2
        vals = v
        if size > n:
            pad_shape = tuple(size - n if d == dim else v.shape[d] for d in range(r))
            vals = self._concat([v, self.e.filled(pad_shape, et, 0)], dim)
        shape = vals.shape

        def index_body(args, out):
            bb = _Body("i64")
            return bb.lines, bb.v(f"arith.index_cast {bb.v(f'linalg.index {dim} : index')} : index to i64")
        idx = self.e.generic([], shape, "i64", index_body)
        k = 2
        while k <= size:
            j = k // 2
            while j >= 1:
                outs = []
                for which in (0, 1):
                    def body(args, out, which=which, j=j, k=k, vals=vals, idx=idx):
                        bb = _Body(et if which == 0 else "i64")
                        at = [bb.v(f"linalg.index {d} : index") for d in range(r)]
                        i = at[dim]
                        p = bb.v(f"arith.xori {i}, {bb.v(f'arith.constant {j} : index')} : index")
                        where = ", ".join(p if d == dim else at[d] for d in range(r))
                        xp = bb.v(f"tensor.extract {vals.name}[{where}] : {vals.type}")
                        ip = bb.v(f"tensor.extract {idx.name}[{where}] : {idx.type}")
                        xi, ii = args[0], args[1]
                        first = self._sort_before(bb, et, descending, xi, ii, xp, ip, n)
                        blk = bb.v(f"arith.andi {i}, {bb.v(f'arith.constant {k} : index')} : index")
                        asc = bb.v(f"arith.cmpi eq, {blk}, {bb.v('arith.constant 0 : index')} : index")
                        lower = bb.v(f"arith.cmpi ult, {i}, {p} : index")
                        # The lower place of an ascending block (the upper of a
                        # descending one) keeps the element that goes first.
                        keep_first = bb.v(f"arith.cmpi eq, {lower}, {asc} : i1")
                        take_i = bb.v(f"arith.cmpi eq, {first}, {keep_first} : i1")
                        if which == 0:
                            return bb.lines, bb.v(f"arith.select {take_i}, {xi}, {xp} : {et}")
                        return bb.lines, bb.v(f"arith.select {take_i}, {ii}, {ip} : i64")
                    outs.append(self.e.generic([(vals, list(range(r))), (idx, list(range(r)))],
                                               shape, et if which == 0 else "i64", body))
                vals, idx = outs
                j //= 2
            k *= 2
        if size > n:
            sizes = tuple(n if d == dim else shape[d] for d in range(r))
            vals = self.e.slice(vals, [0] * r, sizes)
            idx = self.e.slice(idx, [0] * r, sizes)
        return vals, idx

    def op_median(self, node, a, dim=None, keepdim=False):
        """The lower median ((n - 1) // 2 in sorted order) along `dim` and its
        index (the stable sort's: the first of equal elements), or of all
        elements."""
        v = self.val(a)
        if dim is None:
            v = self._reshape(node, v, (max(1, math.prod(v.shape)),))
            dim = 0
        r = len(v.shape)
        dim %= r if r else 1
        values, indices = self._sort_value(node, v, dim, False)
        m = (v.shape[dim] - 1) // 2
        kept = tuple(1 if d == dim else n for d, n in enumerate(v.shape))
        dropped = tuple(n for d, n in enumerate(v.shape) if d != dim)

        def at_median(t: _Value) -> _Value:
            cut = self.e.slice(t, [m if d == dim else 0 for d in range(r)], kept)
            if keepdim:
                return cut
            if not dropped:  # (the median of all elements: 0-d)
                return self.e.collapse(cut, [], ())
            return self._reshape(node, cut, dropped)
        if len(node.args) < 2 and "dim" not in node.kwargs:  # median.default: the value
            return at_median(values)
        return at_median(values), at_median(indices)

    def op_bucketize(self, node, a, boundaries, out_int32=False, right=False):
        """How many boundaries are below x (at or below with right=True): a
        sum over the boundaries (a Partial sum where they are sharded)."""
        return self._count_below(node, self.val(a), self.val(boundaries), right)

    def op_searchsorted(self, node, seq, a, out_int32=False, right=False, side=None,
                        sorter=None):
        if sorter is not None:
            self.fail(node, "searchsorted with a sorter is not supported yet")
        if isinstance(a, (int, float)):
            self.fail(node, "searchsorted of a scalar is not supported yet")
        return self._count_below(node, self.val(a), self.val(seq),
                                 right or side == "right")

    def op_histc(self, node, a, bins=100, min=0, max=0):
        """Counts per bin of `bins` equal bins over [min, max] (both 0: the
        data's own range, widened by 1 each way when that is one value), as
        PyTorch's CPU kernel: bin (x - min) * bins / (max - min) truncated,
        in the element type, max in the last bin, values outside the range
        and NaN not counted. A sum over every element (a Partial sum where
        the input is sharded)."""
        v = self.val(a)
        shape, et = self._out(node)
        if not _is_float(v.et):
            self.fail(node, "histc of an integer tensor (PyTorch's CPU kernel takes floats only)")
        r = len(v.shape)
        lo_hi = []
        if float(min) == float(max):
            for kind in ("min", "max"):
                red = self._reduce(node, v, list(range(r)), False, kind, v.et)
                lo_hi.append(red)
        elif float(min) > float(max):
            self.fail(node, f"histc with min {min} above max {max}")
        loops = list(range(1, r + 1))
        ins = [(v, loops)] + [(t, []) for t in lo_hi]

        def body(args, out):
            bb = _Body(v.et)
            x = args[0]
            if lo_hi:
                lo, hi = args[1], args[2]
                same = bb.v(f"arith.cmpf oeq, {lo}, {hi} : {v.et}")
                lo = bb.v(f"arith.select {same}, {bb.bin('subf', None, lo, bb.const(1))}, {lo} : {v.et}")
                hi = bb.v(f"arith.select {same}, {bb.bin('addf', None, hi, bb.const(1))}, {hi} : {v.et}")
            else:
                lo, hi = bb.const(float(min)), bb.const(float(max))
            inside = bb.v(f"arith.andi {bb.v(f'arith.cmpf oge, {x}, {lo} : {v.et}')}, "
                          f"{bb.v(f'arith.cmpf ole, {x}, {hi} : {v.et}')} : i1")
            pos = bb.bin("mulf", None, bb.bin("subf", None, x, lo), bb.const(float(bins)))
            pos = bb.bin("divf", None, pos, bb.bin("subf", None, hi, lo))
            pos = bb.v(f"arith.fptosi {pos} : {v.et} to i64")
            last = bb.const(bins, "i64")
            at_end = bb.v(f"arith.cmpi eq, {pos}, {last} : i64")
            pos = bb.v(f"arith.select {at_end}, {bb.const(bins - 1, 'i64')}, {pos} : i64")
            here = bb.v(f"arith.index_cast {bb.v('linalg.index 0 : index')} : index to i64")
            hit = bb.v(f"arith.andi {inside}, {bb.v(f'arith.cmpi eq, {pos}, {here} : i64')} : i1")
            one = bb.v(f"arith.select {hit}, {bb.const(1, et)}, {bb.const(0, et)} : {et}")
            return bb.lines, bb.v(f"arith.addf {out}, {one} : {et}")
        return self.e.generic(ins, shape, et, body, reduce_dims=loops,
                              init=self.e.filled(shape, et, 0), nloops=r + 1, out_map=[0])

    def op__grouped_mm(self, node, a, b, offs=None, bias=None, out_dtype=None):
        """Matmuls of row groups (mixture-of-experts layers): with `offs`
        (cumulative group ends), row s of (S, K) meets group g's (K, N)
        matrix, g the number of ends at or below s; rows past the last end
        are 0. The group of each row is a count, the matrix a computed-index
        read of its group's (as `embedding`), then a contraction. Without
        `offs`, a batched matmul."""
        x, w = self.val(a), self.val(b)
        shape, et = self._out(node)
        if bias is not None or (out_dtype is not None and _DTYPES.get(out_dtype, et) != et):
            self.fail(node, "_grouped_mm with a bias or another output dtype is not supported yet")
        if offs is None:
            if len(x.shape) != 3 or len(w.shape) != 3:
                self.fail(node, f"_grouped_mm of {x.shape} and {w.shape} without offsets")
            return self._matmul(x, w, shape, et, True)
        if len(x.shape) != 2 or len(w.shape) != 3:
            self.fail(node, f"_grouped_mm of {x.shape} and {w.shape} with offsets is not supported "
                            "yet (rows grouped against a stack of matrices only)")
        n_rows, k_ = x.shape
        groups, _, n_ = w.shape
        group, picked = self._row_groups(self.val(offs), w, n_rows)
        init = self.e.filled(shape, et, 0)
        prod = self.e.generic([(x, [0, 2]), (picked, [0, 2, 1])], shape, et, self._mac(et),
                              reduce_dims=[2], init=init, nloops=3, out_map=[0, 1])
        return self._rows_in_groups(prod, group, groups)

    def _row_groups(self, ends: _Value, w: _Value, n_rows: int):
        """Each row's group (how many of the cumulative `ends` are at or
        below it; `groups` past the last end) and each row's matrix of the
        stack `w` (G, K, N), read by computed index (the last group's for
        rows past the end, which callers mask)."""
        groups, k_, n_ = w.shape

        def count(args, out):
            bb = _Body("i64")
            row = bb.v(f"arith.index_cast {bb.v('linalg.index 0 : index')} : index to {ends.et}")
            passed = bb.v(f"arith.cmpi sle, {args[0]}, {row} : {ends.et}")
            return bb.lines, bb.v(f"arith.addi {out}, {bb.v(f'arith.extui {passed} : i1 to i64')} : i64")
        group = self.e.generic([(ends, [1])], (n_rows,), "i64", count, reduce_dims=[1],
                               init=self.e.filled((n_rows,), "i64", 0), nloops=2, out_map=[0])
        clamped = self.e.generic([(group, [0])], (n_rows,), "i64", lambda args, out: (
            lambda bb: (bb.lines, bb.v(f"arith.minsi {args[0]}, {bb.const(groups - 1)} : i64")))(
                _Body("i64")))
        table = self.e.collapse(w, [[0], [1, 2]], (groups, k_ * n_))
        picked = self.e.expand(self._lookup(table, clamped), [[0], [1, 2]], (n_rows, k_, n_))
        return group, picked

    def _rows_in_groups(self, v: _Value, group: _Value, groups: int) -> _Value:
        """`v` (rows first) with the rows past the last group zeroed."""
        et = v.et

        def mask(args, out):
            bb = _Body(et)
            inside = bb.v(f"arith.cmpi slt, {args[1]}, {bb.const(groups, 'i64')} : i64")
            return bb.lines, bb.v(f"arith.select {inside}, {args[0]}, {bb.const(0)} : {et}")
        r = len(v.shape)
        return self.e.generic([(v, list(range(r))), (group, [0])], v.shape, et, mask)

    def op_grouped_mm_fallback_backward(self, node, a, b, offs, grad_output):
        """The gradients of transformers' grouped matmul (its custom
        backward op): the input's, each row's output gradient times its
        group's matrix transposed (0 past the last group); each group's
        matrix's, the sum over its rows of input row times output-gradient
        row (an outer product), through a one-hot of the rows' groups."""
        x, w, g = self.val(a), self.val(b), self.val(grad_output)
        if len(x.shape) != 2 or len(w.shape) != 3 or not _is_float(x.et):
            self.fail(node, f"grouped_mm_fallback_backward of {x.shape} and {w.shape}")
        n_rows, k_ = x.shape
        groups, _, n_ = w.shape
        et = x.et
        group, picked = self._row_groups(self.val(offs), w, n_rows)
        gin = self.e.generic([(g, [0, 2]), (picked, [0, 1, 2])], (n_rows, k_), et, self._mac(et),
                             reduce_dims=[2], init=self.e.filled((n_rows, k_), et, 0), nloops=3,
                             out_map=[0, 1])
        gin = self._rows_in_groups(gin, group, groups)

        def onehot(args, out):
            bb = _Body(et)
            gi = bb.v(f"arith.index_cast {bb.v('linalg.index 1 : index')} : index to i64")
            same = bb.v(f"arith.cmpi eq, {args[0]}, {gi} : i64")
            return bb.lines, bb.v(f"arith.select {same}, {bb.const(1)}, {bb.const(0)} : {et}")
        member = self.e.generic([(group, [0])], (n_rows, groups), et, onehot)

        def mac3(args, out):
            bb = _Body(et)
            prod = bb.bin("mulf", None, bb.bin("mulf", None, args[0], args[1]), args[2])
            return bb.lines, bb.bin("addf", None, out, prod)
        # Loops (g, k, n, s): s reduced.
        gw = self.e.generic([(member, [3, 0]), (x, [3, 1]), (g, [3, 2])], (groups, k_, n_), et,
                            mac3, reduce_dims=[3], init=self.e.filled((groups, k_, n_), et, 0),
                            nloops=4, out_map=[0, 1, 2])
        return gin, gw

    # Hugging Face transformers' own op for the same contract, which it
    # calls where PyTorch's kernel is not used (CPU, export).
    op_grouped_mm_fallback = op__grouped_mm

    def _count_below(self, node, x: _Value, b: _Value, right: bool) -> _Value:
        shape, et = self._out(node)
        r = len(x.shape)
        k = r
        if len(b.shape) == 1:
            b_map = [k]
        elif b.shape[:-1] == x.shape[:-1]:
            b_map = list(range(r - 1)) + [k]
        else:
            self.fail(node, "searchsorted with a sorted sequence whose leading dims differ from "
                            "the values' is not supported")
        cmp_et = x.et if _is_float(x.et) or not _is_float(b.et) else b.et

        def body(args, out):
            bb = _Body(et)
            xv = self._cast(bb, args[0], x.et, cmp_et)
            bv = self._cast(bb, args[1], b.et, cmp_et)
            if _is_float(cmp_et):
                below = bb.v(f"arith.cmpf {'ole' if right else 'olt'}, {bv}, {xv} : {cmp_et}")
            else:
                below = bb.v(f"arith.cmpi {'sle' if right else 'slt'}, {bv}, {xv} : {cmp_et}")
            one = bb.v(f"arith.extui {below} : i1 to {et}")
            return bb.lines, bb.v(f"arith.addi {out}, {one} : {et}")
        return self.e.generic([(x, list(range(r))), (b, b_map)], shape, et, body, reduce_dims=[k],
                              init=self.e.filled(shape, et, 0), nloops=r + 1,
                              out_map=list(range(r)))

    def op_argmax(self, node, a, dim=None, keepdim=False):
        out = self._arg_reduce(node, a, dim, keepdim and dim is not None, True, False)
        shape, _ = self._out(node)
        return self._reshape(node, out, shape)

    def op_argmin(self, node, a, dim=None, keepdim=False):
        out = self._arg_reduce(node, a, dim, keepdim and dim is not None, False, False)
        shape, _ = self._out(node)
        return self._reshape(node, out, shape)

    def op_max(self, node, a, dim=None, keepdim=False):
        if dim is None or isinstance(dim, torch.fx.Node):
            if isinstance(dim, torch.fx.Node):  # max.other: element-wise
                return self.op_maximum(node, a, dim)
            shape, et = self._out(node)
            return self._reduce(node, self.val(a), None, False, "max", et)
        return self._arg_reduce(node, a, dim, keepdim, True, True)

    def op_min(self, node, a, dim=None, keepdim=False):
        if dim is None or isinstance(dim, torch.fx.Node):
            if isinstance(dim, torch.fx.Node):
                return self.op_minimum(node, a, dim)
            shape, et = self._out(node)
            return self._reduce(node, self.val(a), None, False, "min", et)
        return self._arg_reduce(node, a, dim, keepdim, False, True)


class TorchOutput:
    """One output of a compiled model, DTensor-like."""

    def __init__(self, out: Output, et: Optional[str] = None):
        self._out = out
        self._et = et

    def _torch(self, a) -> torch.Tensor:
        t = torch.from_numpy(np.array(a))
        if self._et and self._et.startswith("c"):
            # A complex output travels as its parts on a last dim of 2.
            return torch.view_as_complex(t.contiguous())
        # bf16 comes back widened to f32 (numpy has none); exactly.
        return t.to(torch.bfloat16) if self._et == "bf16" else t

    @property
    def placements(self) -> Optional[str]:
        return self._out.placements

    def full_tensor(self) -> torch.Tensor:
        return self._torch(self._out.full_tensor())

    def to_local(self) -> LocalTensor:
        return self._out.to_local()

    def local_tensors(self) -> Dict[int, torch.Tensor]:
        return {r: self._torch(t) for r, t in self._out.to_local().local_tensors.items()}


class CompiledModel:
    """The result of dtensor_mlir.torch.compile."""

    def __init__(self, mlir: str, program: Module, compiled: Module,
                 inputs: List[Tuple[str, Any]], state: Dict[str, np.ndarray], mesh: DeviceMesh,
                 result_ets: Optional[List[str]] = None):
        self.mlir = mlir
        self._result_ets = result_ets or []
        # A training step's outputs after the gradients: the new values of
        # these buffers (BatchNorm's running statistics and counter).
        self.updated_buffers: List[str] = []
        # User inputs (by position) the module updates in place: the
        # compiled function's last results, which run() copies back into
        # the tensors it was given (and does not return).
        self.updated_inputs: List[int] = []
        # compile()'s inputs: (positional count, keyword names, example
        # values); None for graphs without a signature (training steps).
        self._signature: Optional[Tuple[int, List[str], List[Any]]] = None
        self._rng_seed: Optional[int] = None
        self.program = program
        self.compiled = compiled
        self.mesh = mesh
        self._inputs = inputs
        self._state = state
        self._last: Optional[RunResult] = None

    def _leaves(self, args, kwargs) -> List[Any]:
        """The user inputs by leaf position (positional, then keyword in the
        example's order), checked against the example's signature."""
        n_pos, names, example = self._signature
        if len(args) != n_pos:
            raise DTensorError(f"the model takes {n_pos} positional input(s), {len(args)} given")
        if set(kwargs) != set(names):
            raise DTensorError(f"the model takes the keyword input(s) {names or 'none'}, "
                               f"{sorted(kwargs) or 'none'} given")
        inputs = list(args) + [kwargs[n] for n in names]
        leaves = []
        for i, (got, (is_tensor, want)) in enumerate(zip(inputs, example)):
            where = f"input {i}" if i < n_pos else f"input '{names[i - n_pos]}'"
            if is_tensor == "tree":
                if isinstance(got, torch.Tensor) or got is None or \
                        isinstance(got, (bool, int, float)):
                    raise DTensorError(f"{where} was a structure of tensors when compiled, "
                                       f"{type(got).__name__} given")
                flat, tree = _tree_leaves(got, where)
                if tree != want:
                    raise DTensorError(f"{where} has another structure than when compiled "
                                       f"({tree.num_leaves} tensor(s) against "
                                       f"{want.num_leaves}; the program is specialized to "
                                       "its structure, a cache to its number of layers)")
                leaves.extend(flat)
                continue
            if is_tensor:
                if not isinstance(got, torch.Tensor):
                    raise DTensorError(f"{where} was a tensor when compiled, "
                                       f"{type(got).__name__} given")
            elif isinstance(got, torch.Tensor) or got != want:
                raise DTensorError(f"{where} was {want!r} when compiled (the graph is "
                                   f"specialized to it), {got!r} given")
            leaves.append(got)
        return leaves

    def run(self, *args, seed: int = 0, **kwargs) -> List[TorchOutput]:
        """Runs every rank of the compiled program on the interpreter, checked
        against the global program; the outputs as DTensor-like results.
        Raises DTensorError when a rank's result differs."""
        values = self.argument_arrays(*args, **kwargs)
        args = tuple(self._leaves(args, kwargs)) if self._signature else args
        r = _run(self.program, compiled=self.compiled, entry="forward", inputs=values, seed=seed)
        if r.mismatches:
            raise DTensorError("the compiled program differs from the global one:\n" +
                               "\n".join(r.mismatches))
        self._last = r
        ets = self._result_ets + [None] * len(r.compiled_outputs)
        outs = [TorchOutput(o, et) for o, et in zip(r.compiled_outputs, ets)]
        if self.updated_inputs:
            n = len(self.updated_inputs)
            for index, out in zip(self.updated_inputs, outs[-n:]):
                _write_back(args[index], out.full_tensor(), index)
            outs = outs[:-n]
        return outs

    def argument_arrays(self, *args, **kwargs) -> Dict[int, np.ndarray]:
        """The compiled function's tensor arguments for these model inputs,
        by argument position (position 0 is the mesh): parameters and
        buffers from the module, inputs from `args` and `kwargs`, each its
        global value."""
        values = {}
        if self._signature:
            args = tuple(self._leaves(args, kwargs))
        else:
            if kwargs:
                raise DTensorError("this model takes positional inputs only")
            n_user = sum(k == "USER_INPUT" for k, _ in self._inputs)
            if len(args) != n_user:
                raise DTensorError(f"the model takes {n_user} input(s), {len(args)} given")
        for i, (kind, key) in enumerate(self._inputs):
            if kind == "RNG_SEED":
                values[i + 1] = np.asarray(self._next_seed(), dtype=np.int64)
            else:
                values[i + 1] = _to_numpy(args[key]) if kind == "USER_INPUT" else self._state[key]
        return values

    def _next_seed(self) -> int:
        """The seed of the next run's random ops (dropout, drop-path): the one
        set by `set_rng_seed`, or drawn from torch's default generator (so
        torch.manual_seed makes runs repeatable, and each run gets new
        masks)."""
        if self._rng_seed is not None:
            return self._rng_seed
        return int(torch.randint(-2 ** 63, 2 ** 63 - 1, (), dtype=torch.int64))

    def set_rng_seed(self, seed: Optional[int]) -> None:
        """Fixes the seed of the random ops for every later run (None: draw
        one per run from torch's generator)."""
        self._rng_seed = None if seed is None else int(seed)

    @property
    def takes_rng_seed(self) -> bool:
        """Whether the program has random ops (and a seed argument)."""
        return any(kind == "RNG_SEED" for kind, _ in self._inputs)

    def write_inputs(self, directory: str, *args, **kwargs) -> List[str]:
        """Writes every tensor argument as a global .npy file under
        `directory` and returns the `--input N=path` flags of an executable
        built from `compiled` (dtensor-translate --dtensor-to-cpp,
        dtensor-build): each rank reads only its own box."""
        import os
        os.makedirs(directory, exist_ok=True)
        flags = []
        for i, a in self.argument_arrays(*args, **kwargs).items():
            path = os.path.join(directory, f"arg{i}.npy")
            if a.dtype == np.uint16:  # bf16 bits: as f32, which holds them exactly
                a = (a.astype(np.uint32) << 16).view(np.float32)
            np.save(path, a)
            flags += ["--input", f"{i}={path}"]
        return flags

    def report(self) -> dict:
        """Collectives of the last run of the compiled program."""
        if self._last is None:
            raise DTensorError("run() the model first")
        return self._last.report()

    def num_collectives(self) -> int:
        return self.report()["total"]["count"]


def _write_back(target, value: torch.Tensor, index: int) -> None:
    """Copies an input's new value into the caller's tensor (eager's in-place
    update of a module input)."""
    if not isinstance(target, torch.Tensor):
        raise DTensorError(f"the model updates input {index} in place: pass a tensor")
    with torch.no_grad():
        if _is_dtensor(target):
            try:
                from torch.distributed.tensor import distribute_tensor
                target.copy_(distribute_tensor(value.to(target.dtype), target.device_mesh,
                                               target.placements))
            except Exception as e:  # noqa: BLE001
                raise DTensorError(f"the model updates input {index} in place and writing its "
                                   f"new value back into the DTensor failed "
                                   f"({type(e).__name__}: {e}); pass a plain tensor") from None
        else:
            target.copy_(value.to(target.dtype))


def _to_numpy(t) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        if hasattr(t, "full_tensor") and type(t).__name__ == "DTensor":
            t = t.full_tensor()
        t = t.detach().cpu()
        if t.is_complex():
            # A complex argument is its parts, stacked on a last dim of 2
            # (the importer's _Complex).
            t = torch.view_as_real(t.resolve_conj())
        if t.dtype == torch.bfloat16:
            # numpy has no bfloat16: its bits as uint16, which the
            # interpreter takes as bf16.
            return np.asarray(t.contiguous().view(torch.int16).numpy().view(np.uint16), order="C")
        return np.asarray(t.numpy(), order="C")  # (ascontiguousarray makes a 0-d array 1-d)
    return np.asarray(t, order="C")


def _plain(t) -> torch.Tensor:
    """A DTensor's (or LocalTensor's) full value as a plain tensor."""
    if type(t).__name__ == "DTensor":
        try:
            t = t.full_tensor()
        except Exception as e:  # noqa: BLE001
            raise DTensorError("cannot gather a DTensor parameter's value "
                               f"({type(e).__name__}: {e}); call compile() where its "
                               "collectives can run (e.g. inside LocalTensorMode)") from None
    if hasattr(t, "wait") and type(t).__name__ == "AsyncCollectiveTensor":
        t = t.wait()
    # Plain tensors are made with LocalTensorMode off (inside it every new
    # tensor is a LocalTensor again).
    with _outside_local_tensor_mode():
        if type(t).__name__ == "LocalTensor":
            t = t.reconcile()
        return t.detach().clone()


def _is_dtensor(t) -> bool:
    return type(t).__name__ == "DTensor"


def _dtensor_layout(t) -> Tuple["DeviceMesh", List[Placement]]:
    """A DTensor's mesh and placements, on its root mesh: a DTensor on a
    sub-mesh (`mesh["tp"]` of a (dp, tp) mesh, as torchtitan-style 2-D
    parallelism makes) is replicated over the root's other dims, so its
    placements are those of its named dims there and R elsewhere. Every
    DTensor of a program then lives on one mesh (a sub-mesh's tensor was an
    error: "lives on a (2,) mesh, not (2, 2)")."""
    dm_ = t.device_mesh
    ps = placements_of(t.placements, tuple(dm_.shape))
    root = dm_._get_root_mesh() if hasattr(dm_, "_get_root_mesh") else None
    if root is None or root is dm_ or (tuple(root.shape) == tuple(dm_.shape) and
                                       root.mesh_dim_names == dm_.mesh_dim_names):
        return DeviceMesh(tuple(dm_.shape), dm_.mesh_dim_names), ps
    names, sub = root.mesh_dim_names, dm_.mesh_dim_names
    if not names or not sub or any(n not in names for n in sub) or \
            any(dm_.shape[i] != root.shape[names.index(n)] for i, n in enumerate(sub)):
        raise DTensorError(f"a DTensor lives on a sub-mesh {sub or tuple(dm_.shape)} whose dims "
                           f"are not dims of its root mesh {names or tuple(root.shape)} "
                           "(a flattened sub-mesh has no counterpart here)")
    lifted: List[Placement] = [Replicate() for _ in names]
    for n, p in zip(sub, ps):
        lifted[names.index(n)] = p
    if any(isinstance(p, Shard) and p.order is not None for p in ps) and \
            [names.index(n) for n in sub] != sorted(names.index(n) for n in sub):
        raise DTensorError(f"a DTensor with shard orders on a sub-mesh {sub} whose dims are "
                           f"in another order than its root mesh's {names}")
    return DeviceMesh(tuple(root.shape), names), lifted


def _unwrap_dtensor_params(module: torch.nn.Module):
    """A copy of `module` whose DTensor parameters and buffers are plain full
    tensors and whose torch.distributed forward hooks (parallelize_module's
    input/output redistributions) are gone, with the placements and mesh the
    DTensors had."""
    found: Dict[str, List[Placement]] = {}
    mesh = None
    swapped = []
    # One plain tensor per DTensor: a parameter registered in two places (an
    # LM head tied to its token embedding) stays one parameter, whose
    # gradient sums both uses (two copies would split it in two).
    plains: Dict[int, torch.Tensor] = {}
    for mod_name, mod in module.named_modules(remove_duplicate=False):
        for store in (mod._parameters, mod._buffers):
            for name, p in list(store.items()):
                if p is None or not _is_dtensor(p):
                    continue
                key = f"{mod_name}.{name}" if mod_name else name
                swapped.append((store, name, p))
                if id(p) in plains:
                    store[name] = plains[id(p)]  # known by its first name
                    continue
                this, found[key] = _dtensor_layout(p)
                if mesh is not None and mesh.shape != this.shape:
                    raise DTensorError(f"'{key}' lives on a {this.shape} mesh, others on {mesh.shape}")
                mesh = this
                plain = _plain(p)
                with _outside_local_tensor_mode():
                    plains[id(p)] = (torch.nn.Parameter(plain, requires_grad=p.requires_grad)
                                     if store is mod._parameters else plain)
                store[name] = plains[id(p)]
    if not swapped:
        return module, found, None
    try:
        with _outside_local_tensor_mode():
            copy_ = copy.deepcopy(module)
    finally:
        for store, name, p in swapped:
            store[name] = p
    for mod in copy_.modules():
        for hooks in (mod._forward_pre_hooks, mod._forward_hooks):
            for k, h in list(hooks.items()):
                fn = getattr(h, "func", h)
                if (getattr(fn, "__module__", "") or "").startswith("torch.distributed"):
                    del hooks[k]
    return copy_, found, mesh


def _compiling_state():
    """torch.compiler.is_compiling() and is_exporting() true, as under
    torch.export."""
    try:
        from torch._export.utils import _compiling_state_context
        return _compiling_state_context()
    except ImportError:  # pragma: no cover - older torch
        import contextlib
        return contextlib.nullcontext()


def _outside_local_tensor_mode():
    """LocalTensorMode (and any other dispatch mode) off: torch.export and
    plain tensors need the mode stack empty, not just the mode disabled."""
    import contextlib
    stack = contextlib.ExitStack()
    try:
        from torch.distributed._local_tensor import maybe_disable_local_tensor_mode
        stack.enter_context(maybe_disable_local_tensor_mode())
    except ImportError:  # pragma: no cover - older torch
        pass
    from torch.utils._python_dispatch import _disable_current_modes
    stack.enter_context(_disable_current_modes())
    return stack


def compile(module: torch.nn.Module, example_args: Tuple[Any, ...] = (), *,
            example_kwargs: Optional[Dict[str, Any]] = None,
            mesh: Optional[DeviceMesh] = None,
            placements: Optional[Dict[Union[str, int], Sequence[Any]]] = None,
            output_placements: Optional[Sequence[Optional[Sequence[Any]]]] = None,
            pipeline: str = "dtensor-compile") -> CompiledModel:
    """Exports `module` on `example_args` (and keyword inputs
    `example_kwargs`) and compiles it for `mesh`.

    placements: parameter or buffer names (as in named_parameters), user
    input positions and keyword input names to DTensor placements (ours or
    torch's); everything not named is replicated at the start and left to
    propagation after. DTensor parameters, buffers and inputs give their own
    placements and mesh. Inputs that are None or numbers are specialized
    (the compiled model takes the same values again).
    output_placements: per output, the placements it should have (as
    DTensor's output would), or None for a plain (replicated) result."""
    example_args = tuple(example_args)
    example_kwargs = dict(example_kwargs or {})
    module, found, own_mesh = _unwrap_dtensor_params(module)
    specs: Dict[Union[str, int], List[Placement]] = dict(found)
    _register_cache_pytrees(module)
    # User inputs by leaf position: the positional ones, then the keyword
    # ones in the order given (export's); an input that is a structure of
    # tensors (a Hugging Face cache, a list or dict of tensors) gives its
    # tensors in pytree order, as export flattens it.
    inputs = list(example_args) + list(example_kwargs.values())
    names = [f"input {i}" for i in range(len(example_args))] + \
        [f"input '{n}'" for n in example_kwargs]
    leaves, ranges, example = [], [], []
    for a, where in zip(inputs, names):
        first = len(leaves)
        if isinstance(a, torch.Tensor) or a is None or isinstance(a, (bool, int, float)):
            leaves.append(a)
            example.append((isinstance(a, torch.Tensor),
                            None if isinstance(a, torch.Tensor) else a))
        else:
            flat, tree = _tree_leaves(a, where)
            leaves.extend(flat)
            example.append(("tree", tree))
        ranges.append(range(first, len(leaves)))
    leaf_of = {name: ranges[len(example_args) + i] for i, name in enumerate(example_kwargs)}
    plain = []
    input_mesh = None  # the mesh of the DTensor inputs, if any
    for i, a in enumerate(leaves):
        if _is_dtensor(a):
            this, ps = _dtensor_layout(a)
            if input_mesh is not None and tuple(input_mesh.shape) != tuple(this.shape):
                raise DTensorError(f"DTensor inputs live on a {input_mesh.shape} mesh and a "
                                   f"{this.shape} mesh")
            input_mesh = input_mesh or this
            specs.setdefault(i, ps)
        plain.append(_plain(a) if isinstance(a, torch.Tensor) and
                     (_is_dtensor(a) or type(a).__name__ == "LocalTensor") else a)
    # The mesh: given, else the DTensor parameters', else the DTensor
    # inputs'.
    if mesh is None:
        mesh = own_mesh or input_mesh
    if mesh is None:
        raise DTensorError("give a mesh: DeviceMesh(shape, names)")
    for what, m in (("module's DTensors", own_mesh), ("DTensor inputs", input_mesh)):
        if m is not None and tuple(m.shape) != tuple(mesh.shape):
            raise DTensorError(f"the {what} live on a {m.shape} mesh, not {mesh.shape}")
    plain_inputs = [_tree_rebuild(inputs[j], example[j], [plain[i] for i in r])
                    for j, r in enumerate(ranges)]
    plain_args, plain_kwargs = tuple(plain_inputs[:len(example_args)]), dict(
        zip(example_kwargs, plain_inputs[len(example_args):]))
    for k, v in (placements or {}).items():
        if isinstance(k, str) and k in leaf_of:
            if k in dict(module.named_parameters()) or k in dict(module.named_buffers()):
                raise DTensorError(f"placements for '{k}': both a keyword input and a "
                                   "parameter or buffer")
            at = leaf_of[k]
        elif isinstance(k, int):
            if not 0 <= k < len(example_args):
                raise DTensorError(f"placements for input {k}: the model takes "
                                   f"{len(example_args)} positional input(s)")
            at = ranges[k]
        else:
            specs[k] = placements_of(v, mesh.shape)
            continue
        # Every tensor of a structure input gets its placements, where they
        # fit (a cache's 0-d counters stay replicated).
        ps = placements_of(v, mesh.shape)
        tree = example[ranges.index(at)][0] == "tree"
        for i in at:
            rank = leaves[i].dim() if isinstance(leaves[i], torch.Tensor) else 0
            if tree and any(isinstance(p, Shard) and not -rank <= p.dim < rank for p in ps):
                continue
            specs[i] = ps
    for k, v in specs.items():
        if len(v) != mesh.ndim:
            raise DTensorError(f"'{k}': {len(v)} placement(s) for a {mesh.ndim}-D mesh")
    outs = None
    if output_placements is not None:
        outs = [None if o is None else placements_of(o, mesh.shape) for o in output_placements]
        for o in outs:
            if o is not None and len(o) != mesh.ndim:
                raise DTensorError(f"output placements {o}: {len(o)} for a {mesh.ndim}-D mesh")
    with _outside_local_tensor_mode():
        try:
            ep = torch.export.export(module, plain_args, kwargs=plain_kwargs, strict=False)
            # Attention stays one op (lowered whole): its decomposition can
            # give the output strides a later view rejects (Hugging Face's
            # GPT-2 fails so in PyTorch's own run_decompositions).
            table = torch.export.default_decompositions()
            table.pop(torch.ops.aten.scaled_dot_product_attention.default, None)
            ep = ep.run_decompositions(table)
        except Exception as e:  # noqa: BLE001 - torch's own errors, reported as ours
            raise _tracing_failure("torch.export", e) from None
        model = _finish(ep, mesh, specs, outs, pipeline)
    model._signature = (len(example_args), list(example_kwargs), example)
    return model

_LIBRARY_DIRS: Optional[Tuple[str, str]] = None


def _library_dirs() -> Tuple[str, str]:
    """The directories of torch and of this package (with a trailing
    separator): frames in them are not the user's."""
    global _LIBRARY_DIRS
    if _LIBRARY_DIRS is None:
        import os
        _LIBRARY_DIRS = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep
                              for m in (torch, __import__("dtensor_mlir")))
    return _LIBRARY_DIRS


# torch's failures while tracing a module (export, make_fx) that come from
# the module reading a tensor's values in Python.
_DATA_DEPENDENT_MARKS = ("GuardOnDataDependentSymNode", "DataDependentOutputException",
                         "_local_scalar_dense", "data-dependent", "data dependent")


def _tracing_failure(what: str, e: BaseException) -> DTensorError:
    """torch's exception `e` while tracing, as ours: the module's line that
    raised it (the innermost frame of the user's code, and the innermost
    torch.nn frame below it, where there is one), torch's first line, and,
    for a data-dependent failure, what it means for a compiled program."""
    import os
    import traceback
    torch_dir, ours = _library_dirs()
    nn_dir = os.path.join(torch_dir, "nn") + os.sep
    user = module_frame = None
    for f in traceback.extract_tb(e.__traceback__):
        path = os.path.abspath(f.filename)
        if path.startswith(ours) or f.filename.startswith("<"):
            continue
        if not path.startswith(torch_dir):
            user, module_frame = f, None
        elif path.startswith(nn_dir):
            module_frame = f
    where = ""
    if user is not None:
        where = f"{user.filename}:{user.lineno}: " + (f"{user.line}: " if user.line else "")
    text = str(e).strip()
    first = text.split("\n", 1)[0].strip()
    data_dependent = any(m in type(e).__name__ or m in text for m in _DATA_DEPENDENT_MARKS)
    if data_dependent:
        # (Its first sentence: torch's advice after it is for make_fx's callers.)
        first = re.split(r"(?<=[.!])\s", first, maxsplit=1)[0]
    message = f"{where}{what} failed: {type(e).__name__}: {first}"
    if module_frame is not None:
        message += (f" (in {os.path.relpath(module_frame.filename, torch_dir)}:"
                    f"{module_frame.lineno}, {module_frame.name})")
    if data_dependent:
        message += (". The module reads a tensor's values in Python (control flow, .item(), "
                    "or a shape that depends on the values), which a program compiled ahead "
                    "of time for every rank cannot do: make that choice from shapes or "
                    "constants, or compute both sides and select with torch.where")
        if module_frame is not None and module_frame.name == "_detect_is_causal_mask":
            message += ("; nn.Transformer inspects the mask given to it: pass is_causal=True "
                        "(tgt_is_causal / src_is_causal) with a causal mask")
    return DTensorError(message)


def _trace_joint_aot(module, loss_fn, args, names, bnames, table):
    """The training step's joint graph through AOTAutograd's export
    (aot_export_module with trace_joint), in the form the functorch path
    gives: placeholders parameters, buffers, inputs; outputs the loss, then
    every parameter's gradient in named_parameters order (zeros where it
    has none); a buffer's update as a copy_ into its placeholder."""
    from torch._functorch.aot_autograd import aot_export_module

    class _Step(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = module

        def forward(self, *xs):
            loss = loss_fn(self.m, *xs)
            # AOTAutograd wants a gradient for every parameter: each enters
            # the loss through the sum of an empty slice (exactly 0 whatever
            # its values; its gradient is 0), so an unused one gets zeros.
            anchor = sum(p.reshape(-1)[:0].sum().to(loss.dtype) for p in self.m.parameters())
            return (loss + anchor,)
    step = _Step()
    gm, sig = aot_export_module(step, args, trace_joint=True, output_loss_index=0,
                                decompositions=table)
    strip = lambda n: n[2:] if n.startswith("m.") else n  # noqa: E731
    # Tied parameters (BLOOM's LM head is its token embedding) are one
    # placeholder each here: their uses go to the first, and the gradient
    # is the sum of theirs (as tie_weights=True gives it).
    full = [(strip(n), p) for n, p in step.named_parameters(remove_duplicate=False)]
    if [strip(n) for n in sig.parameters] != [n for n, _ in full] or \
            [strip(n) for n in sig.buffers] != list(bnames):
        raise DTensorError("AOTAutograd's parameters or buffers are not the module's")
    first = {}
    canonical = {}
    for i, (n, p) in enumerate(full):
        first.setdefault(id(p), i)
        canonical[n] = full[first[id(p)]][0]
    if [n for n, _ in full if canonical[n] == n] != list(names):
        raise DTensorError("AOTAutograd's parameters are not the module's")
    graph = gm.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    for i, (n, p) in enumerate(full):
        if first[id(p)] != i:
            placeholders[i].replace_all_uses_with(placeholders[first[id(p)]])
            graph.erase_node(placeholders[i])
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    out = graph.output_node()
    by_name = {n.name: n for n in out.args[0]}
    loss = by_name[sig.user_outputs[0]]
    grads: Dict[str, List[Any]] = {}
    for o, p in sig.backward_signature.gradients_to_parameters.items():
        grads.setdefault(canonical[strip(p)], []).append(by_name[o])
    results = [loss]
    with graph.inserting_before(out):
        for i, n in enumerate(names):
            parts = grads.get(n)
            if not parts:
                z = graph.call_function(torch.ops.aten.zeros_like.default, (placeholders[i],))
                z.meta = dict(placeholders[i].meta)
                results.append(z)
                continue
            g = parts[0]
            for other in parts[1:]:
                total = graph.call_function(torch.ops.aten.add.Tensor, (g, other))
                total.meta = dict(g.meta)
                g = total
            results.append(g)
        for o, b in sig.buffers_to_mutate.items():
            ph = placeholders[len(names) + [strip(x) for x in sig.buffers].index(strip(b))]
            c = graph.call_function(torch.ops.aten.copy_.default, (ph, by_name[o]))
            c.meta = dict(ph.meta)
    out.args = (tuple(results),)
    graph.lint()
    gm.recompile()
    return gm


def _register_cache_pytrees(module) -> None:
    """Hugging Face caches (DynamicCache and the other Cache classes) as
    pytrees, so that export flattens them into tensors: a decoder's outputs
    (use_cache=True, the default) then end with every layer's keys and
    values, and a cache given as an input (a decoding step) is its tensors.
    Transformers' own registration, where transformers is in use."""
    import sys
    if "transformers" not in sys.modules:
        return
    try:
        from transformers.exporters.exporter_dynamo import register_cache_pytrees_for_model
    except ImportError:  # another transformers: its caches stay opaque to export
        return
    register_cache_pytrees_for_model(module)


def _tree_leaves(value, where: str):
    """The tensors of a structured input, in pytree order, and its
    structure; a clear error for anything that is not a structure of
    tensors."""
    flat, tree = torch.utils._pytree.tree_flatten(value)
    if tree.num_leaves == 1 and flat and flat[0] is value:
        raise DTensorError(f"{where} is a {type(value).__name__}: the model's inputs are "
                           "tensors, None, numbers or structures of tensors (lists, tuples, "
                           "dicts, registered pytrees such as Hugging Face caches)")
    for leaf in flat:
        if not isinstance(leaf, torch.Tensor):
            raise DTensorError(f"{where} holds a {type(leaf).__name__} among its tensors; "
                               "a structured input holds tensors only")
    return flat, tree


def _tree_rebuild(value, example, leaves):
    """`value` with its tensors replaced by `leaves` (a structured input),
    or the one leaf."""
    if isinstance(example, tuple) and example and example[0] == "tree":
        return torch.utils._pytree.tree_unflatten(leaves, example[1])
    return leaves[0]


def _finish(ep, mesh, specs, outs, pipeline) -> "CompiledModel":
    known = set()
    for spec in ep.graph_signature.input_specs:
        if spec.target is not None:
            known.add(spec.target)
    n_user = sum(1 for s in ep.graph_signature.input_specs if s.kind.name == "USER_INPUT")
    for k in specs:
        if isinstance(k, int):
            if not 0 <= k < n_user:
                raise DTensorError(f"placements for input {k}: the model takes {n_user} input(s)")
        elif k not in known:
            raise DTensorError(f"placements for '{k}': no such parameter or buffer "
                               f"(known: {', '.join(sorted(known)) or 'none'})")
    kinds = {spec.arg.name: (spec.kind.name, spec.target)
             for spec in ep.graph_signature.input_specs}
    values = dict(ep.state_dict)
    values.update(ep.constants)
    # A module in train() updates buffers (BatchNorm's running statistics):
    # export returns their new values as outputs of their own.
    mutated = {spec.arg.name: spec.target for spec in ep.graph_signature.output_specs
               if spec.kind.name == "BUFFER_MUTATION"}
    # An input the module updates in place: export returns its new value as
    # an output of its own (first); run() writes it back into the caller's
    # tensor, as eager does.
    input_mutations = {spec.arg.name: spec.target for spec in ep.graph_signature.output_specs
                       if spec.kind.name == "USER_INPUT_MUTATION"}
    return _import_graph(ep.graph_module, kinds, values, mesh, specs, outs, pipeline, mutated,
                         input_mutations)


def _import_graph(gm, kinds, values, mesh, specs, outs, pipeline,
                  mutated: Optional[Dict[str, str]] = None,
                  input_mutations: Optional[Dict[str, str]] = None) -> "CompiledModel":
    imp = _Importer(gm, kinds, mesh, specs, outs)
    imp.mutated_outputs = dict(mutated or {})
    imp.input_mutations = dict(input_mutations or {})
    text, inputs = imp.build()
    program = Module.parse(text, "forward.mlir")
    compiled = program.compile(pipeline)
    state = {}
    for kind, key in inputs:
        if kind in ("USER_INPUT", "RNG_SEED"):
            continue
        t = values.get(key)
        if t is None and kind == "CONSTANT":
            t = getattr(gm, key, None)
        if t is None:
            raise DTensorError(f"no value for '{key}'")
        state[key] = _to_numpy(t)
    model = CompiledModel(text, program, compiled, inputs, state, mesh, imp.result_ets)
    model.updated_buffers = list(imp.updated)
    model.updated_inputs = list(imp.updated_inputs)
    return model


def _is_mesh_object(x) -> bool:
    name = type(x).__name__
    return name in ("DeviceMesh", "FakeScriptObject", "ScriptObject") or \
        "DeviceMesh" in str(getattr(x, "script_class_name", ""))


def _is_mesh_value(node) -> bool:
    ex = node.meta.get("example_value", node.meta.get("val"))
    if ex is None:
        return False
    return not isinstance(ex, torch.Tensor) and _is_mesh_object(ex)


class LocalProgram:
    """A per-rank program imported from a graph with functional collectives:
    run it on every rank of the interpreter with per-rank inputs."""

    def __init__(self, mlir: str, program: Module, mesh: DeviceMesh, num_inputs: int,
                 compiled: Optional[Module] = None):
        self.mlir = mlir
        self.program = program
        self.compiled = compiled
        self.mesh = mesh
        self._num_inputs = num_inputs
        self._none_outputs: List[int] = []
        self._last: Optional[RunResult] = None

    def run(self, *args, seed: int = 0) -> List[TorchOutput]:
        """args: one per graph input: a torch LocalTensor (one tensor per
        rank), a dtensor_mlir LocalTensor, or a tensor every rank holds."""
        args = [a for a in args if not _is_mesh_object(a)]  # meshes are implicit
        if len(args) != self._num_inputs:
            raise DTensorError(f"the graph takes {self._num_inputs} tensor input(s), {len(args)} given")
        inputs = {}
        for i, a in enumerate(args):
            if type(a).__name__ == "LocalTensor" and hasattr(a, "_local_tensors"):
                with _outside_local_tensor_mode():
                    a = LocalTensor({r: _to_numpy(t) for r, t in a._local_tensors.items()})
            inputs[i + 1] = a if isinstance(a, LocalTensor) else _to_numpy(a)
        self._last = _run(self.program, compiled=self.compiled, entry="forward",
                          inputs=inputs, seed=seed)
        if self._last.mismatches:
            raise DTensorError("the compiled program differs from the graph:\n" +
                               "\n".join(self._last.mismatches))
        outs = self._last.compiled_outputs if self.compiled else self._last.outputs
        results: List[Optional[TorchOutput]] = [TorchOutput(o) for o in outs]
        # The graph's None outputs (no gradient) in their places, so that
        # results line up with the graph's outputs.
        for i in self._none_outputs:
            results.insert(i, None)
        return results

    def report(self) -> dict:
        if self._last is None:
            raise DTensorError("run() the program first")
        return self._last.report()


@contextlib.contextmanager
def _traceable_one_hot():
    """F.one_hot checks its ids' range with .item(), which tracing a
    training step cannot follow (the op is decomposed above the table
    make_fx is given): while tracing, with num_classes given, it is a
    comparison with arange."""
    import torch.nn.functional as F
    original = F.one_hot

    def one_hot(ids, num_classes=-1):
        if num_classes < 0:
            raise DTensorError("F.one_hot without num_classes reads the largest id "
                               "(.item()), which a traced training step cannot; "
                               "pass num_classes")
        return (ids.unsqueeze(-1) ==
                torch.arange(num_classes, device=ids.device)).to(torch.int64)
    F.one_hot = one_hot
    try:
        yield
    finally:
        F.one_hot = original


def import_graph(gm: "torch.fx.GraphModule", *, mesh: DeviceMesh,
                 groups: Optional[Dict[str, Sequence[int]]] = None,
                 device_mesh: Any = None,
                 pipeline: Optional[str] = "dtensor-compile") -> LocalProgram:
    """Imports a per-rank FX graph of ATen ops and functional collectives
    (`_c10d_functional.all_reduce`, `all_gather_into_tensor`,
    `reduce_scatter_tensor`, `all_to_all_single`, each followed by
    `wait_tensor`), as AOTAutograd and make_fx produce them, into a
    local-view program: async dtensor collectives with dtensor.wait.

    groups maps process-group names to the mesh dims their ranks differ in;
    device_mesh (a torch DeviceMesh of the same shape) gives them instead.

    Dynamo graphs whose inputs include the DeviceMesh (an opaque object)
    and that call DTensor.from_local, .redistribute, .to_local and
    .full_tensor import to our API ops; `pipeline` then compiles them, and
    run() checks every rank of the compiled program against the graph."""
    groups = {str(k): list(v) for k, v in (groups or {}).items()}
    if device_mesh is not None:
        if tuple(device_mesh.shape) != tuple(mesh.shape):
            raise DTensorError(f"device_mesh {tuple(device_mesh.shape)} is not the mesh {mesh.shape}")
        for d in range(device_mesh.ndim):
            groups.setdefault(str(device_mesh.get_group(d).group_name), [d])
    placeholders = [n for n in gm.graph.nodes
                    if n.op == "placeholder" and not _is_mesh_value(n)]
    imp = _Importer(gm, {}, mesh, {}, None, groups)
    try:
        text, inputs = imp.build()
    except DTensorError as e:
        if "has no lowering" not in str(e):
            raise
        # AOTAutograd hands a backend ATen graphs that are not decomposed
        # (nll_loss_forward, gelu_backward) unless asked to.
        raise DTensorError(f"{e} (import_graph lowers core ATen: give AOTAutograd "
                           "decompositions=torch._decomp.core_aten_decompositions())") from None
    program = Module.parse(text, "graph.mlir")
    uses_api = any(op in text for op in ("dtensor.from_local", "dtensor.redistribute",
                                         "dtensor.distribute_tensor"))
    compiled = program.compile(pipeline) if pipeline and uses_api else None
    local = LocalProgram(text, program, mesh, len(placeholders), compiled)
    local._none_outputs = list(getattr(imp, "none_outputs", []))
    return local


def compile_training_step(module: torch.nn.Module, loss_fn, example_args: Tuple[Any, ...], *,
                          mesh: Optional[DeviceMesh] = None,
                          placements: Optional[Dict[Union[str, int], Sequence[Any]]] = None,
                          grad_placements: str = "like-params",
                          pipeline: str = "dtensor-compile") -> "CompiledModel":
    """One training step, forward and backward: `loss_fn(module, *args)`
    returns a scalar loss; the compiled function returns the loss, the
    gradient of every parameter (in named_parameters order), then the new
    value of every buffer the step updates (BatchNorm in train(): its running
    statistics, over the whole batch as SyncBatchNorm's, and its counter),
    named by the result's `updated_buffers`. Autodiff is
    PyTorch's (torch.func.grad_and_value, traced with make_fx into core
    ATen); we compile the joint graph it produces. Gradients keep their
    parameter's placements (as DTensor gives them) unless grad_placements is
    "replicated"."""
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch._decomp import core_aten_decompositions
    module, found, own_mesh = _unwrap_dtensor_params(module)
    # DTensor inputs give their placements and mesh, as in compile() (they
    # were read as plain tensors: replicated, found by probing).
    example_args = tuple(example_args)
    input_specs: Dict[int, List[Placement]] = {}
    input_mesh = None
    for i, a in enumerate(example_args):
        if _is_dtensor(a):
            this, input_specs[i] = _dtensor_layout(a)
            if input_mesh is not None and tuple(input_mesh.shape) != tuple(this.shape):
                raise DTensorError(f"DTensor inputs live on a {input_mesh.shape} mesh and a "
                                   f"{this.shape} mesh")
            input_mesh = input_mesh or this
    mesh = mesh or own_mesh or input_mesh
    if mesh is None:
        raise DTensorError("give a mesh: DeviceMesh(shape, names)")
    for what, m in (("module's DTensors", own_mesh), ("DTensor inputs", input_mesh)):
        if m is not None and tuple(m.shape) != tuple(mesh.shape):
            raise DTensorError(f"the {what} live on a {m.shape} mesh, not {mesh.shape}")
    specs: Dict[Union[str, int], List[Placement]] = dict(found)
    specs.update(input_specs)
    for k, v in (placements or {}).items():
        specs[k] = placements_of(v, mesh.shape)
    names = [n for n, _ in module.named_parameters()]
    for k, v in specs.items():
        if isinstance(k, str) and k not in names:
            raise DTensorError(f"placements for '{k}': no such parameter (known: {', '.join(names)})")
        if len(v) != mesh.ndim:
            raise DTensorError(f"'{k}': {len(v)} placement(s) for a {mesh.ndim}-D mesh")
    if grad_placements not in ("like-params", "replicated"):
        raise DTensorError("grad_placements is 'like-params' or 'replicated'")
    params = [p.detach() for _, p in module.named_parameters()]
    # Buffers go in as inputs of the step (BatchNorm updates its running
    # statistics in place; the step returns their new values).
    bnames = [n for n, _ in module.named_buffers()]
    buffers = [b.detach().clone() for _, b in module.named_buffers()]
    args = tuple(_plain(a) if isinstance(a, torch.Tensor) else a for a in example_args)

    def joint(plist, blist, *xs):
        def loss_of(pl, bl):
            # tie_weights: a tied parameter (GPT-2's LM head is its token
            # embedding) gets the gradient of every use.
            state = dict(zip(names, pl))
            state.update(zip(bnames, bl))
            with torch.nn.utils.stateless._reparametrize_module(module, state, tie_weights=True):
                return loss_fn(module, *xs)
        grads, loss = torch.func.grad_and_value(loss_of, argnums=0)(plist, blist)
        return (loss, *grads)

    with _outside_local_tensor_mode():
        try:
            # The table's gradient stays one op (a reduction we partition)
            # rather than its decomposition into index_put.
            table = dict(core_aten_decompositions())
            table.pop(torch.ops.aten.embedding_dense_backward.default, None)
            # (export reaches bicubic and trilinear resizing through their
            # .vec overloads, which the table decomposes; autograd calls
            # .default; their gradients are lowered.)
            from torch._decomp import decomposition_table as _all_decompositions
            for resize in (torch.ops.aten.upsample_bicubic2d.default,
                           torch.ops.aten.upsample_trilinear3d.default):
                if resize in _all_decompositions:
                    table[resize] = _all_decompositions[resize]
            # Functionalized: modules that update in place (add_, copy_ in
            # nn.MultiheadAttention's fast paths) trace to pure ops.
            # Attention through its math form (matmuls and a softmax), whose
            # backward is theirs, not a fused kernel's.
            from torch.nn.attention import SDPBackend, sdpa_kernel
            # As torch.export does: libraries that check is_compiling() /
            # is_exporting() (Hugging Face's mask helpers) then skip their
            # data-dependent shortcuts, which tracing cannot follow.
            with sdpa_kernel([SDPBackend.MATH]), _compiling_state(), _traceable_one_hot():
                gm = make_fx(torch.func.functionalize(joint), decomposition_table=table,
                             record_stack_traces=True)(params, buffers, *args)
        except Exception as e:  # noqa: BLE001
            gm = None
            if "setup_context" in str(e):
                # An autograd.Function written the old way (forward saving
                # on ctx, no setup_context: BLOOM's GeLU), which functorch's
                # grad cannot run: traced as AOTAutograd traces training
                # (torch.autograd.grad on functional tensors).
                try:
                    with sdpa_kernel([SDPBackend.MATH]), _compiling_state():
                        gm = _trace_joint_aot(module, loss_fn, args, names, bnames, table)
                except Exception as e2:  # noqa: BLE001
                    raise DTensorError("tracing the training step failed: "
                                       f"{type(e2).__name__}: {e2}") from None
            if gm is not None:
                pass
            elif "in-place operation" in str(e) and "captured Tensor" in str(e):
                raise DTensorError(
                    "tracing the training step failed: the module updates in place a tensor "
                    "that is neither a parameter nor a buffer, which a training step does not "
                    f"support: {e}") from None
            else:
                raise _tracing_failure("tracing the training step", e) from None
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    kinds = {}
    for i, node in enumerate(placeholders):
        if i < len(names):
            kinds[node.name] = ("PARAMETER", names[i])
        elif i < len(names) + len(bnames):
            kinds[node.name] = ("BUFFER", bnames[i - len(names)])
        else:
            kinds[node.name] = ("USER_INPUT", None)
    outs = None
    if grad_placements == "like-params":
        outs = [None] + [specs.get(n) for n in names]
    values = {n: p for n, p in zip(names, params)}
    # The buffers as the module holds them (tracing ran the step on copies,
    # which it updated).
    values.update((n, b.detach().clone()) for n, b in module.named_buffers())
    return _import_graph(gm, kinds, values, mesh, specs, outs, pipeline)
