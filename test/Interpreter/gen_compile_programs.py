#!/usr/bin/env python3
"""Writes a module of random global programs for --dtensor-compile.

    gen_compile_programs.py MESH COUNT SEED [SIZES]

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
"""
import random
import sys

SIZES = [3, 4, 5, 6, 8]


def spec(rng, mesh_rank, allow_partial):
    out = []
    for _ in range(mesh_rank):
        r = rng.random()
        if allow_partial and r < 0.1:
            out.append("P(sum)")
        elif r < 0.45:
            out.append("R")
        else:
            out.append(f"S({rng.randrange(2)})")
    return "[" + ", ".join(out) + "]"


def ty(shape, s=None):
    dims = "x".join(str(d) for d in shape)
    if s is None:
        return f"tensor<{dims}xf32>"
    return f"tensor<{dims}xf32, #dtensor.spec<@mesh, {s}>>"


class Function:
    def __init__(self, rng, name, mesh_rank):
        self.rng = rng
        self.name = name
        self.mesh_rank = mesh_rank
        self.args = []  # (name, shape, spec)
        self.body = []
        self.values = []  # (ssa, shape, type text)
        self.n = 0
        self.trips = set()
        self.uses_flag = False
        self.callees = []

    def fresh(self, prefix="v"):
        self.n += 1
        return f"%{prefix}{self.n}"

    def arg(self, shape, allow_partial=True):
        name = f"%a{len(self.args)}"
        s = spec(self.rng, self.mesh_rank, allow_partial)
        self.args.append((name, shape, s))
        return name, ty(shape, s)

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

    def pick(self):
        return self.rng.choice(self.values)

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
        if kind == "hint" and "#dtensor" not in at:
            # A user hint with a random priority on a computed value.
            t = ty(shape, spec(rng, self.mesh_rank, False))
            self.emit(f"dtensor.hint {a}, %m priority {rng.randrange(3)} : "
                      f"{at}, !dtensor.device_mesh<@mesh> -> {t}", shape, t, "h")
            return
        if kind == "hint":
            kind = "unary"
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
        a, shape, at = self.pick()
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
            callee, actual, types = self.callee(shape, t, depth=0)
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
        params = "".join(f", {n}: {ty(sh, sp)}" for n, sh, sp in added)
        actual = "".join(f", {n}" for n, _, _ in added)
        types = "".join(f", {ty(sh, sp)}" for n, sh, sp in added)
        self.callees[slot] = (
            f"func.func private @{name}(%m: !dtensor.device_mesh<@mesh>, "
            f"%cx: {t}{params}) -> {t} {{\n  %zero = arith.constant 0.0 : f32\n"
            + "\n".join(lines) + f"\n  return {last} : {t}\n}}\n")
        return name, actual, types

    def build(self, steps):
        rng = self.rng
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
            elif r < 0.27:
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
            lines.append(f"  return {out} : {outt}")
            if outt != result:
                d = self.fresh("d")
                lines[-1] = (f"  {d} = dtensor.full_tensor {out}, %m : {outt}, "
                             f"!dtensor.device_mesh<@mesh> -> {result}\n"
                             f"  return {d} : {result}")
        else:
            result = ty(shape, spec(rng, self.mesh_rank, False))
            d = self.fresh("d")
            op = "redistribute" if "#dtensor" in outt else "distribute_tensor"
            lines.append(f"  {d} = dtensor.{op} {out}, %m : {outt}, "
                         f"!dtensor.device_mesh<@mesh> -> {result}")
            lines.append(f"  return {d} : {result}")
        args = ", ".join(["%m: !dtensor.device_mesh<@mesh>"] +
                         (["%flagin: tensor<1xf32>"] if self.uses_flag else []) +
                         [f"{n}: {ty(s, sp)}" for n, s, sp in self.args])
        return ("".join(self.callees) +
                f"func.func @{self.name}({args}) -> {result} {{\n" +
                "\n".join(lines) + "\n}\n")


def main():
    mesh = [int(x) for x in sys.argv[1].split("x")]
    count, seed = int(sys.argv[2]), int(sys.argv[3])
    if len(sys.argv) > 4:
        SIZES[:] = [int(x) for x in sys.argv[4].split(",")]
    rng = random.Random(seed)
    names = ", ".join(f'"d{i}"' for i in range(len(mesh)))
    print(f"// Generated by gen_compile_programs.py {sys.argv[1]} {count} {seed}.")
    print(f"dtensor.mesh @mesh shape = [{', '.join(map(str, mesh))}] names = [{names}]\n")
    for i in range(count):
        print(Function(rng, f"p{i}", len(mesh)).build(rng.randint(2, 6)))


if __name__ == "__main__":
    main()
