#!/usr/bin/env python3
"""Writes a module of random global programs for --dtensor-compile.

    gen_compile_programs.py MESH COUNT SEED [SIZES] [--narrow] [--lookups]
                            [--reuse-callees] [--hints] [--while]

MESH is like 2x2 or 2x3. Each of the COUNT functions takes arguments with
random specs (R, S(0), S(1), some P(sum); sizes chosen so that many shards
are uneven) and chains random ops on them: matmul (a new weight argument
each), element-wise tanh / negf / add, transpose, softmax over either dim,
a row or column sum broadcast back, and hints with random priorities on
computed values. Its result is returned plain or
distributed to a random spec. `dtensor-run --verify --all-entries` then
checks that the compiled program computes the global program's values on
every rank: propagation, redistribution, partitioning and lowering, for
programs nobody wrote by hand. Deterministic for a given SEED. SIZES (like
1,2,3,5,7) replaces the dim sizes drawn from: sizes below a mesh dim's size
give empty shards.

With --narrow (for dtensor-narrow-moves), each function first computes one
or two f32 values element-wise from arguments of narrow dtypes (i8 times a
per-row or per-column f32 scale, i8 by sitofp, bf16 by extf; in random
specs without Partial, most of them 256 to 640 on a side), sometimes
through a second element-wise op, and moves them by a redistribute or
full_tensor to a random spec or uses them in a matmul (see dequantized());
those values are results too. The random ops above then follow, on small
values only where they sum (a sum of hundreds in another order, then tanh,
can differ by more than the comparison's tolerance). The programs differ
from those without --narrow.

With --lookups, a third of the steps are lookups: a linalg.generic over a
value's [i, j] that reads a new table argument (random rows, the value's
columns, a random spec without Partial: rows or columns sharded, uneven,
replicated) at a computed row ((a*i + b*j + c) mod rows) and at j or a
computed column, then yields the row, or it times or plus the value, or
its tanh (propagation may mask the lookup: DTensor's MaskPartial, a P(sum)
result), sometimes reading it twice (which keeps the table whole).

With --hints, half of the steps are hints (a random spec and priority on a
computed value), for the whole-function model's handling of hints
(check_hints.py). With --while, the loops are scf.while loops counting to
their trip count (which propagation does not know) instead of scf.for.
"""
import random
import sys

SIZES = [3, 4, 5, 6, 8]
# Dim sizes of most narrow-mode values: large enough that moving an int8
# weight and its scale instead of the f32 value can pay for the extra
# collective's latency; some of them uneven on every mesh.
LARGE = [256, 257, 384, 510, 512, 640]


def placements(rng, mesh_rank, allow_partial, rank=2):
    out = []
    for _ in range(mesh_rank):
        r = rng.random()
        if allow_partial and r < 0.1:
            out.append("P(sum)")
        elif r < 0.45:
            out.append("R")
        else:
            out.append(f"S({rng.randrange(rank)})")
    return out


def spec(rng, mesh_rank, allow_partial, rank=2):
    return fmt(placements(rng, mesh_rank, allow_partial, rank))


def large(shape):
    return max(shape) >= min(LARGE)


def fmt(ps):
    return "[" + ", ".join(ps) + "]"


def swap(p):
    """A placement of a 2-D tensor, for its transpose."""
    return {"S(0)": "S(1)", "S(1)": "S(0)"}.get(p, p)


def ty(shape, s=None, elem="f32"):
    dims = "x".join(str(d) for d in shape)
    if s is None:
        return f"tensor<{dims}x{elem}>"
    return f"tensor<{dims}x{elem}, #dtensor.spec<@mesh, {s}>>"


class Function:
    def __init__(self, rng, name, mesh_rank, narrow=False, lookups=False,
                 reuse=False, hints=False, whiles=False):
        self.rng = rng
        self.hints = hints
        self.whiles = whiles
        self.reuse = reuse
        self.reusable = []  # (type, callee, actual, types) of calls made
        self.name = name
        self.mesh_rank = mesh_rank
        self.narrow = narrow
        self.lookups = lookups
        self.args = []  # (name, shape, spec, element type)
        self.body = []
        self.values = []  # (ssa, shape, type text)
        self.n = 0
        self.trips = set()
        self.uses_flag = False
        self.callees = []
        self.outputs = []  # (value, type): more results (narrow mode)

    def fresh(self, prefix="v"):
        self.n += 1
        return f"%{prefix}{self.n}"

    def arg(self, shape, allow_partial=True, elem="f32", s=None):
        name = f"%a{len(self.args)}"
        if s is None:
            s = spec(self.rng, self.mesh_rank, allow_partial, len(shape))
        self.args.append((name, shape, s, elem))
        return name, ty(shape, s, elem)

    def empty(self, shape):
        e = self.fresh("e")
        self.body.append(f"  {e} = tensor.empty() : {ty(shape)}")
        return e

    def zeros(self, shape):
        e = self.empty(shape)
        z = self.fresh("z")
        self.body.append(
            f"  {z} = linalg.fill ins(%zero : f32) outs({e} : {ty(shape)}) -> {ty(shape)}")
        return z

    def pick(self, small=False):
        """A value to compute from; with `small`, one whose dims are all
        below LARGE's (a new argument if there is none)."""
        pool = [x for x in self.values if not small or not large(x[1])]
        if not pool:
            shape = [self.rng.choice(SIZES), self.rng.choice(SIZES)]
            v, t = self.arg(shape)
            self.add_value(v, shape, t)
            pool = self.values[-1:]
        return self.rng.choice(pool)

    def add_value(self, v, shape, t=None):
        self.values.append((v, shape, t or ty(shape)))

    def emit(self, rhs, shape, t=None, prefix="v"):
        """A new value `%vN = rhs` of `shape` (type `t`, plain by default)."""
        v = self.fresh(prefix)
        self.body.append(f"  {v} = {rhs}")
        self.add_value(v, shape, t)
        return v

    def step(self):
        rng = self.rng
        kind = rng.choice(["matmul", "matmul", "unary", "binary", "transpose",
                           "softmax", "sum", "hint", "slice", "pad", "concat",
                           "flatten", "insert", "window"])
        a, shape, at = self.pick()
        m, k = shape
        if self.lookups and rng.randrange(3) == 0:
            kind = "lookup"
        if self.hints and rng.randrange(2) == 0:
            kind = "hint"
        if self.narrow and large(shape) and kind in ("matmul", "softmax", "sum"):
            # Large values take the ops that round as the global program
            # does: a sum of hundreds of terms in another order, then
            # softmax or tanh, can differ by more than the tolerance.
            kind = rng.choice(["unary", "binary", "transpose", "hint", "slice",
                               "pad", "concat", "flatten", "insert", "window"])
        if kind == "hint" and "#dtensor" not in at:
            # A user hint with a random priority on a computed value.
            t = ty(shape, spec(rng, self.mesh_rank, False))
            self.emit(f"dtensor.hint {a}, %m priority {rng.randrange(3)} : "
                      f"{at}, !dtensor.device_mesh<@mesh> -> {t}", shape, t, "h")
            return
        if kind == "hint":
            kind = "unary"
        if kind == "lookup":
            self.lookup(a, shape, at)
            return
        if kind == "matmul":
            n = rng.choice(SIZES)
            w, wt = self.arg([k, n], allow_partial=False)
            z = self.zeros([m, n])
            self.emit(f"linalg.matmul ins({a}, {w} : {at}, {wt}) "
                      f"outs({z} : {ty([m, n])}) -> {ty([m, n])}", [m, n])
        elif kind == "slice":
            offs = [rng.randrange(d) for d in shape]
            sizes = [rng.randint(1, d - o) for d, o in zip(shape, offs)]
            self.emit(f"tensor.extract_slice {a}[{offs[0]}, {offs[1]}] "
                      f"[{sizes[0]}, {sizes[1]}] [1, 1] : {at} to {ty(sizes)}",
                      sizes)
        elif kind == "pad":
            low = [rng.randrange(3) for _ in shape]
            high = [rng.randrange(3) for _ in shape]
            out = [d + l + h for d, l, h in zip(shape, low, high)]
            self.emit(f"tensor.pad {a} low[{low[0]}, {low[1]}] high[{high[0]}, {high[1]}] {{\n"
                      f"  ^bb0(%pi: index, %pj: index):\n    tensor.yield %zero : f32\n"
                      f"  }} : {at} to {ty(out)}", out)
        elif kind == "window" and shape[0] > 1:
            # A windowed sum along dim 0 (a stencil / pooling): stride,
            # dilation, or a reversal; the loop i sweeps the dim.
            n = shape[0]
            taps = rng.randint(1, 3)
            dil = rng.choice([1, 1, 2])
            reach = dil * (taps - 1)
            if reach >= n:
                taps, dil, reach = 1, 1, 0
            if rng.randrange(5) == 0:
                out = n - reach
                index = f"{out - 1} - i + {dil} * t"
            else:
                stride = rng.choice([1, 1, 2])
                out = (n - 1 - reach) // stride + 1
                index = f"{stride} * i + {dil} * t"
            z = self.zeros([out, k])
            wts = self.fresh("wt")
            weights = ", ".join(str(0.5 + i) for i in range(taps))
            self.body.append(f"  {wts} = arith.constant dense<[{weights}]> : "
                             f"tensor<{taps}xf32>")
            self.emit(
                "linalg.generic {indexing_maps = ["
                f"affine_map<(i, j, t) -> ({index}, j)>, "
                "affine_map<(i, j, t) -> (t)>, "
                "affine_map<(i, j, t) -> (i, j)>], iterator_types = "
                "[\"parallel\", \"parallel\", \"reduction\"]} "
                f"ins({a}, {wts} : {at}, tensor<{taps}xf32>) "
                f"outs({z} : {ty([out, k])}) {{\n"
                "  ^bb0(%wx: f32, %ww: f32, %wy: f32):\n"
                "    %wp = arith.mulf %wx, %ww : f32\n"
                "    %ws = arith.addf %wp, %wy : f32\n"
                "    linalg.yield %ws : f32\n"
                f"  }} -> {ty([out, k])}", [out, k])
        elif kind == "concat":
            d = rng.randrange(2)
            other = list(shape)
            other[d] = rng.choice(SIZES)
            same = [x for x in self.values if x[1] == other]
            b, bt = (rng.choice(same)[0::2] if same else self.arg(other))
            out = list(shape)
            out[d] += other[d]
            self.emit(f"tensor.concat dim({d}) {a}, {b} : ({at}, {bt}) -> {ty(out)}",
                      out)
        elif kind == "flatten":
            flat_t = ty([m * k])
            flat = self.fresh("f")
            self.body.append(
                f"  {flat} = tensor.collapse_shape {a} [[0, 1]] : {at} into {flat_t}")
            e = self.empty([m * k])
            n = self.fresh()
            self.body.append(
                f"  {n} = linalg.negf ins({flat} : {flat_t}) outs({e} : {flat_t}) -> {flat_t}")
            self.emit(f"tensor.expand_shape {n} [[0, 1]] output_shape [{m}, {k}] : "
                      f"{flat_t} into {ty(shape)}", shape)
        elif kind == "insert":
            out = [d + rng.randrange(3) for d in shape]
            offs = [rng.randint(0, o - d) for o, d in zip(out, shape)]
            z = self.zeros(out)
            self.emit(f"tensor.insert_slice {a} into {z}[{offs[0]}, {offs[1]}] "
                      f"[{m}, {k}] [1, 1] : {at} into {ty(out)}", out)
        elif kind == "transpose":
            e = self.empty([k, m])
            self.emit(f"linalg.transpose ins({a} : {at}) outs({e} : {ty([k, m])}) "
                      f"permutation = [1, 0]", [k, m])
        else:  # element-wise, softmax or a sum broadcast back
            pool = [(x[0], x[2]) for x in self.values
                    if x[1] == shape and x[0] != a]
            v, vt = self.same_shape_step(a, at, shape, pool, kind, plain=False)
            self.add_value(v, shape, vt)

    def lookup(self, a, shape, at):
        """A table argument read at computed indices in a linalg body."""
        rng = self.rng
        m, k = shape
        rows = rng.choice(SIZES + [2 * max(SIZES)])
        table, tt = self.arg([rows, k], allow_partial=False)
        ca, cb, cc = rng.randrange(1, 4), rng.randrange(4), rng.randrange(rows)
        col = "%lj"
        lines = [
            "  ^bb0(%lx: f32, %lo: f32):",
            "    %li = linalg.index 0 : index",
            "    %lj = linalg.index 1 : index",
            f"    %lca = arith.constant {ca} : index",
            f"    %lcb = arith.constant {cb} : index",
            f"    %lcc = arith.constant {cc} : index",
            f"    %lcr = arith.constant {rows} : index",
            "    %lr0 = arith.muli %li, %lca : index",
            "    %lr1 = arith.muli %lj, %lcb : index",
            "    %lr2 = arith.addi %lr0, %lr1 : index",
            "    %lr3 = arith.addi %lr2, %lcc : index",
            "    %lr = arith.remsi %lr3, %lcr : index",
        ]
        if rng.randrange(4) == 0:
            # A column computed too: (j + 1) mod k.
            lines += [f"    %lck = arith.constant {k} : index",
                      "    %lc1 = arith.constant 1 : index",
                      "    %lj1 = arith.addi %lj, %lc1 : index",
                      "    %ljc = arith.remsi %lj1, %lck : index"]
            col = "%ljc"
        lines.append(f"    %lv = tensor.extract {table}[%lr, {col}] : {tt}")
        how = rng.choice(["row", "mul", "add", "tanh", "twice"])
        if how == "row":
            lines.append("    linalg.yield %lv : f32")
        elif how == "tanh":
            lines += ["    %ly = math.tanh %lv : f32", "    linalg.yield %ly : f32"]
        elif how == "twice":
            lines += [f"    %lw = tensor.extract {table}[%lr, %lj] : {tt}",
                      "    %ly = arith.addf %lv, %lw : f32",
                      "    linalg.yield %ly : f32"]
        else:
            op = "mulf" if how == "mul" else "addf"
            lines += [f"    %ly = arith.{op} %lv, %lx : f32",
                      "    linalg.yield %ly : f32"]
        e = self.empty(shape)
        body = "\n".join(lines)
        self.emit(
            "linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, "
            "affine_map<(i, j) -> (i, j)>], iterator_types = "
            f"[\"parallel\", \"parallel\"]}} ins({a} : {at}) "
            f"outs({e} : {ty(shape)}) {{\n{body}\n  }} -> {ty(shape)}", shape)

    def same_shape_step(self, a, at, shape, pool, kind=None, plain=True):
        """One op from `a` to a new value of the same shape, and its type:
        plain unless `plain` is false and the op is math on an annotated
        value (whose result type keeps the annotation). `pool` holds other
        values (name, type) of that shape it may combine with."""
        rng = self.rng
        kind = {"unary": rng.choice(["tanh", "negf"]), "binary": "add"}.get(
            kind, kind) or rng.choice(["tanh", "negf", "add", "matmul",
                                        "softmax", "sum"])
        v = self.fresh()
        if kind == "tanh" and (not plain or "#dtensor" not in at):
            self.body.append(f"  {v} = math.tanh {a} : {at}")
            return v, at
        if kind in ("tanh", "negf"):
            e = self.empty(shape)
            self.body.append(
                f"  {v} = linalg.negf ins({a} : {at}) outs({e} : {ty(shape)}) -> {ty(shape)}")
        elif kind == "add":
            b, bt = rng.choice(pool) if pool else self.arg(shape)
            e = self.empty(shape)
            self.body.append(
                f"  {v} = linalg.map {{ arith.addf }} ins({a}, {b} : {at}, {bt}) outs({e} : {ty(shape)})")
        elif kind == "matmul":
            k = shape[1]
            w, wt = self.arg([k, k], allow_partial=False)
            z = self.zeros(shape)
            self.body.append(
                f"  {v} = linalg.matmul ins({a}, {w} : {at}, {wt}) outs({z} : {ty(shape)}) -> {ty(shape)}")
        elif kind == "softmax":
            e = self.empty(shape)
            self.body.append(
                f"  {v} = linalg.softmax dimension({rng.randrange(2)}) ins({a} : {at}) outs({e} : {ty(shape)}) -> {ty(shape)}")
        else:
            d = rng.randrange(2)
            kept = shape[1 - d]
            z = self.zeros([kept])
            sname = self.fresh("s")
            self.body.append(
                f"  {sname} = linalg.reduce ins({a} : {at}) outs({z} : {ty([kept])}) dimensions = [{d}]\n"
                f"    (%x: f32, %acc: f32) {{\n"
                f"      %r = arith.addf %x, %acc : f32\n"
                f"      linalg.yield %r : f32\n"
                f"    }}")
            e = self.empty(shape)
            self.body.append(
                f"  {v} = linalg.broadcast ins({sname} : {ty([kept])}) outs({e} : {ty(shape)}) dimensions = [{d}]")
        return v, ty(shape)

    def generic(self, ins, shape, rspec, body):
        """A linalg.generic with loops (i, j), all parallel, computing an f32
        value of `shape` in spec `rspec` (a list; None: plain) from `ins`
        (value, type, map results, element type) without reading its init:
        `body` computes it from the block arguments %b0, %b1, ..."""
        t = ty(shape, None if rspec is None else fmt(rspec))
        e = self.fresh("e")
        self.body.append(f"  {e} = tensor.empty() : {t}")
        maps = ", ".join(f"affine_map<(i, j) -> {m}>" for _, _, m, _ in ins)
        bbargs = ", ".join(f"%b{n}: {el}" for n, (_, _, _, el) in enumerate(ins))
        lines = "".join(f"    {line}\n" for line in body[:-1])
        v = self.fresh("q")
        self.body.append(
            f"  {v} = linalg.generic {{indexing_maps = [{maps}, "
            "affine_map<(i, j) -> (i, j)>], iterator_types = "
            "[\"parallel\", \"parallel\"]} "
            f"ins({', '.join(x for x, _, _, _ in ins)} : "
            f"{', '.join(xt for _, xt, _, _ in ins)}) outs({e} : {t}) {{\n"
            f"  ^bb0({bbargs}, %bo: f32):\n{lines}"
            f"    linalg.yield {body[-1]} : f32\n  }} -> {t}")
        return v, t

    def result_spec(self, natural, needed):
        """The spec of an element-wise op's result: its input's mapped
        (`natural`, when it has one), a random one, or (unless `needed`)
        none."""
        rng = self.rng
        r = rng.random()
        if not needed and r < 0.4:
            return None
        if natural is not None and r < 0.75:
            return natural
        return placements(rng, self.mesh_rank, False)

    def dequantized(self):
        """An f32 value computed element-wise from a narrow argument, what
        dtensor-narrow-moves may move instead of the value: an i8 weight
        times a per-row or per-column f32 scale ([M, 1], [1, N] or 1-D,
        broadcast along the other dim), i8 by sitofp alone, or a bf16 cast
        by extf (now and then with a scale); stored as is or transposed.
        The i8 ones also times a per-tensor constant: generated i8 inputs
        are in [-8, 8]. In a third of them a second element-wise op follows
        (a transpose, a broadcast bf16 or f32 vector added or multiplied, or
        for a square value v - v^T: one value read in two specs). Results
        carry their input's spec, a random one, or none. The last one is
        then moved to another spec by an explicit redistribute, gathered by
        full_tensor, or left to a following matmul for propagation to
        decide; a moved one is sometimes also used by a matmul."""
        rng = self.rng
        if rng.random() < 0.6:
            shape = [rng.choice(LARGE), rng.choice(LARGE)]
        else:
            shape = [rng.choice(SIZES), rng.choice(SIZES)]
        chain = rng.random() < 0.35
        anchor = rng.choice(["redistribute", "redistribute", "full_tensor", "use"])
        elem = rng.choice(["i8", "i8", "bf16"])
        transposed = rng.random() < 0.25
        wps = placements(rng, self.mesh_rank, False)
        w, wt = self.arg(shape[::-1] if transposed else list(shape), elem=elem,
                         s=fmt(wps))
        ins = [(w, wt, "(j, i)" if transposed else "(i, j)", elem)]
        body = [f"%t0 = arith.{'sitofp' if elem == 'i8' else 'extf'} %b0 : "
                f"{elem} to f32", "%t0"]
        if elem == "i8":
            # Sums of hundreds of values up to 8 would round beyond the
            # tolerance of the comparison.
            body[-1:] = ["%k = arith.constant 0.0625 : f32",
                         "%t1 = arith.mulf %t0, %k : f32", "%t1"]
        if rng.random() < (0.7 if elem == "i8" else 0.2):
            d = rng.randrange(2)  # the result dim the scale follows
            one_d = rng.random() < 0.3
            sshape = [shape[d]] if one_d else [shape[0], 1] if d == 0 else [1, shape[1]]
            smap = ("(i)", "(j)")[d] if one_d else ("(i, 0)", "(0, j)")[d]
            if rng.random() < 0.5:  # sharded as its weight's dim is
                wd = 1 - d if transposed else d
                sps = [f"S({0 if one_d else d})" if p == f"S({wd})" else "R"
                       for p in wps]
            else:
                sps = placements(rng, self.mesh_rank, False, len(sshape))
            sc, sct = self.arg(sshape, s=fmt(sps))
            ins.append((sc, sct, smap, "f32"))
            body[-1:] = [f"%t2 = arith.mulf {body[-1]}, %b1 : f32", "%t2"]
        natural = [swap(p) if transposed else p for p in wps]
        rspec = self.result_spec(natural, not chain and anchor != "use")
        v, vt = self.generic(ins, shape, rspec, body)
        if chain:
            flip = rng.random() < 0.5
            out = shape[::-1] if flip else list(shape)
            ins = [(v, vt, "(j, i)" if flip else "(i, j)", "f32")]
            body = ["%t0 = arith.negf %b0 : f32", "%t0"]
            if out[0] == out[1] and rng.random() < 0.7:
                # The value read twice, once transposed: v - v^T.
                ins.append((v, vt, "(i, j)" if flip else "(j, i)", "f32"))
                body = ["%t1 = arith.subf %b0, %b1 : f32", "%t1"]
            elif rng.random() < 0.6:
                d = rng.randrange(2)
                el = rng.choice(["bf16", "f32"])
                x, xt = self.arg([out[d]], allow_partial=False, elem=el)
                ins.append((x, xt, ("(i)", "(j)")[d], el))
                op = rng.choice(["addf", "mulf"])
                body = (["%t0 = arith.extf %b1 : bf16 to f32"] if el == "bf16" else []) + [
                    f"%t1 = arith.{op} %b0, {'%t0' if el == 'bf16' else '%b1'} : f32",
                    "%t1"]
            natural = rspec and [swap(p) if flip else p for p in rspec]
            rspec = self.result_spec(natural, anchor != "use")
            v, vt = self.generic(ins, out, rspec, body)
            shape = out
        self.add_value(v, shape, vt)
        if anchor == "redistribute":
            for _ in range(3):
                target = placements(rng, self.mesh_rank, False)
                if target != rspec:
                    break
            t = ty(shape, fmt(target))
            v = self.emit(f"dtensor.redistribute {v}, %m : {vt}, "
                          f"!dtensor.device_mesh<@mesh> -> {t}", shape, t, "r")
            vt = t
        elif anchor == "full_tensor":
            v = self.emit(f"dtensor.full_tensor {v}, %m : {vt}, "
                          f"!dtensor.device_mesh<@mesh> -> {ty(shape)}", shape,
                          prefix="r")
            vt = ty(shape)
        if anchor != "use":
            self.outputs.append((v, vt))
        if anchor == "use" or rng.random() < 0.5:
            # x @ v, or x @ v^T as nn.Linear computes with v stored [out, in].
            b = rng.choice(SIZES)
            rows = rng.randrange(2)
            x, xt = self.arg([b, shape[rows]])
            out = [b, shape[1 - rows]]
            z = self.zeros(out)
            maps = ("" if rows == 0 else
                    "indexing_maps = [affine_map<(b, o, i) -> (b, i)>, "
                    "affine_map<(b, o, i) -> (o, i)>, "
                    "affine_map<(b, o, i) -> (b, o)>] ")
            y = self.emit(f"linalg.matmul {maps}ins({x}, {v} : {xt}, {vt}) "
                          f"outs({z} : {ty(out)}) -> {ty(out)}", out)
            self.outputs.append((y, ty(out)))
            if large([shape[rows]]):
                self.values.pop()  # a sum of hundreds: returned, not used

    def region(self, a, at, shape, pool, steps):
        """Steps in a nested region; returns (lines, last value)."""
        outer, self.body = self.body, []
        v, vt = a, at
        for _ in range(steps):
            v, vt = self.same_shape_step(v, vt, shape, pool)
        lines, self.body = self.body, outer
        return ["  " + line for line in lines], v

    def structured(self, kind):
        """A loop, a branch or a call around a few steps."""
        rng = self.rng
        a, shape, at = self.pick(small=self.narrow)
        t = ty(shape)
        pool = [(x[0], x[2]) for x in self.values if x[1] == shape]
        v = self.fresh("y")
        if kind == "for":
            trips = rng.randint(1, 3)
            acc = self.fresh("acc")
            body, last = self.region(acc, t, shape, pool + [(acc, t)],
                                     rng.randint(1, 2))
            init = a
            if at != t:  # carry a plain value: the loop's types are one
                init = self.fresh()
                e = self.empty(shape)
                self.body.append(
                    f"  {init} = linalg.negf ins({a} : {at}) outs({e} : {t}) -> {t}")
            if self.whiles:
                # --while: the same loop as an scf.while counting to trips
                # (its trip count is not a constant to propagation).
                n = v[1:]
                self.body.append(
                    f"  %w{n}:2 = scf.while (%i{n} = %c0, %b{n} = {init}) : "
                    f"(index, {t}) -> (index, {t}) {{\n"
                    f"    %go{n} = arith.cmpi slt, %i{n}, %c{trips} : index\n"
                    f"    scf.condition(%go{n}) %i{n}, %b{n} : index, {t}\n"
                    f"  }} do {{\n"
                    f"  ^bb0(%j{n}: index, {acc}: {t}):")
                self.body += body
                self.body.append(
                    f"    %n{n} = arith.addi %j{n}, %c1 : index\n"
                    f"    scf.yield %n{n}, {last} : index, {t}\n  }}\n"
                    f"  {v} = tensor.cast %w{n}#1 : {t} to {t}")
            else:
                self.body.append(
                    f"  {v} = scf.for %i{v[1:]} = %c0 to %c{trips} step %c1 "
                    f"iter_args({acc} = {init}) -> ({t}) {{")
                self.body += body
                self.body.append(f"    scf.yield {last} : {t}\n  }}")
            self.trips.add(trips)
        elif kind == "if":
            then, x = self.region(a, at, shape, pool, rng.randint(1, 2))
            other, y = self.region(a, at, shape, pool, rng.randint(1, 2))
            self.body.append(f"  {v} = scf.if %flag -> ({t}) {{")
            self.body += then
            self.body.append(f"    scf.yield {x} : {t}\n  }} else {{")
            self.body += other
            self.body.append(f"    scf.yield {y} : {t}\n  }}")
            self.uses_flag = True
        else:  # a private callee without specs
            same = [c for c in self.reusable if c[0] == t]
            if self.reuse and same and rng.random() < 0.6:
                # --reuse-callees: call one made before again, on another value
                _, callee, actual, types = rng.choice(same)
            else:
                callee, actual, types = self.callee(shape, t, depth=0)
                self.reusable.append((t, callee, actual, types))
            arg = a
            if at != t:
                arg = self.fresh()
                e = self.empty(shape)
                self.body.append(
                    f"  {arg} = linalg.negf ins({a} : {at}) outs({e} : {t}) -> {t}")
            self.body.append(
                f"  {v} = func.call @{callee}(%m, {arg}{actual}) : "
                f"(!dtensor.device_mesh<@mesh>, {t}{types}) -> {t}")
        self.add_value(v, shape)

    def callee(self, shape, t, depth):
        """Writes a private function without specs from `t` to `t`: a step
        or two, sometimes then a call to another such function (a chain of
        up to three). Returns its name and the extra arguments (weights its
        steps made, which its callers pass through) as call text."""
        rng = self.rng
        name = f"{self.name}_f{len(self.callees)}"
        self.callees.append(None)  # its place: callees print before callers
        slot = len(self.callees) - 1
        outer, before = self.body, len(self.args)
        self.body = []
        last = self.same_shape_step("%cx", t, shape, [])[0]
        for _ in range(rng.randint(0, 1)):
            last = self.same_shape_step(last, t, shape, [])[0]
        if depth < 2 and rng.random() < 0.4:
            inner, actual, types = self.callee(shape, t, depth + 1)
            v = self.fresh()
            self.body.append(
                f"  {v} = func.call @{inner}(%m, {last}{actual}) : "
                f"(!dtensor.device_mesh<@mesh>, {t}{types}) -> {t}")
            last = v
        added = self.args[before:]
        lines, self.body = self.body, outer
        params = "".join(f", {n}: {ty(sh, sp, el)}" for n, sh, sp, el in added)
        actual = "".join(f", {n}" for n, _, _, _ in added)
        types = "".join(f", {ty(sh, sp, el)}" for n, sh, sp, el in added)
        self.callees[slot] = (
            f"func.func private @{name}(%m: !dtensor.device_mesh<@mesh>, "
            f"%cx: {t}{params}) -> {t} {{\n  %zero = arith.constant 0.0 : f32\n"
            + "\n".join(lines) + f"\n  return {last} : {t}\n}}\n")
        return name, actual, types

    def build(self, steps):
        rng = self.rng
        if self.narrow:
            for _ in range(rng.randint(1, 2)):
                self.dequantized()
            steps -= 2
        else:
            for _ in range(rng.randint(1, 2)):
                shape = [rng.choice(SIZES), rng.choice(SIZES)]
                v, t = self.arg(shape)
                self.add_value(v, shape, t)
        for _ in range(steps):
            r = rng.random()
            if r < 0.1:
                self.structured("for")
            elif r < 0.2:
                self.structured("if")
            elif r < (0.6 if self.reuse else 0.27):
                self.structured("call")
            else:
                self.step()
        out, shape, outt = self.values[-1]
        lines = ["  %zero = arith.constant 0.0 : f32"]
        if self.trips:
            lines += ["  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index"]
            lines += [f"  %c{t} = arith.constant {t} : index"
                      for t in sorted(self.trips - {0, 1})]
        if self.uses_flag:
            lines += ["  %i0 = arith.constant 0 : index",
                      "  %fv = tensor.extract %flagin[%i0] : tensor<1xf32>",
                      "  %flag = arith.cmpf ogt, %fv, %zero : f32"]
        lines += self.body
        if rng.random() < 0.5:
            result = ty(shape)
            ret = out
            if outt != result:
                ret = self.fresh("d")
                lines.append(f"  {ret} = dtensor.full_tensor {out}, %m : {outt}, "
                             f"!dtensor.device_mesh<@mesh> -> {result}")
        else:
            result = ty(shape, spec(rng, self.mesh_rank, False))
            ret = self.fresh("d")
            op = "redistribute" if "#dtensor" in outt else "distribute_tensor"
            lines.append(f"  {ret} = dtensor.{op} {out}, %m : {outt}, "
                         f"!dtensor.device_mesh<@mesh> -> {result}")
        # The values narrow mode moved are results too (so they stay live).
        rets = [(ret, result)] + [x for x in self.outputs if x[0] != out]
        lines.append(f"  return {', '.join(v for v, _ in rets)} : "
                     f"{', '.join(t for _, t in rets)}")
        if len(rets) > 1:
            result = f"({', '.join(t for _, t in rets)})"
        args = ", ".join(["%m: !dtensor.device_mesh<@mesh>"] +
                         (["%flagin: tensor<1xf32>"] if self.uses_flag else []) +
                         [f"{n}: {ty(s, sp, el)}" for n, s, sp, el in self.args])
        return ("".join(self.callees) +
                f"func.func @{self.name}({args}) -> {result} {{\n" +
                "\n".join(lines) + "\n}\n")


def main():
    narrow = "--narrow" in sys.argv
    lookups = "--lookups" in sys.argv
    reuse = "--reuse-callees" in sys.argv
    hints = "--hints" in sys.argv
    whiles = "--while" in sys.argv
    argv = [a for a in sys.argv
            if a not in ("--narrow", "--lookups", "--reuse-callees", "--hints",
                         "--while")]
    if len(argv) < 4 or any(a.startswith("-") for a in argv[1:]):
        sys.stderr.write((__doc__ or "") + "\nusage: gen_compile_programs.py MESH COUNT SEED "
                         "[SIZES] [--narrow] [--lookups] [--reuse-callees] [--hints] "
                         "[--while]\n")
        sys.exit(0 if any(a in ("-h", "--help") for a in argv) else 2)
    mesh = [int(x) for x in argv[1].split("x")]
    count, seed = int(argv[2]), int(argv[3])
    if len(argv) > 4:
        SIZES[:] = [int(x) for x in argv[4].split(",")]
    rng = random.Random(seed)
    names = ", ".join(f'"d{i}"' for i in range(len(mesh)))
    print(f"// Generated by gen_compile_programs.py {argv[1]} {count} {seed}"
          f"{' --narrow' if narrow else ''}{' --lookups' if lookups else ''}"
          f"{' --reuse-callees' if reuse else ''}{' --hints' if hints else ''}"
          f"{' --while' if whiles else ''}.")
    print(f"dtensor.mesh @mesh shape = [{', '.join(map(str, mesh))}] names = [{names}]\n")
    for i in range(count):
        print(Function(rng, f"p{i}", len(mesh), narrow, lookups, reuse, hints,
                       whiles).build(rng.randint(2, 6)))


if __name__ == "__main__":
    main()
