#!/usr/bin/env python3
"""Writes a module of random global programs for --dtensor-compile.

    gen_compile_programs.py MESH COUNT SEED

MESH is like 2x2 or 2x3. Each of the COUNT functions takes arguments with
random specs (R, S(0), S(1), some P(sum); sizes chosen so that many shards
are uneven) and chains random ops on them: matmul (a new weight argument
each), element-wise tanh / negf / add, transpose, softmax over either dim,
a row or column sum broadcast back, and hints with random priorities on
computed values. Its result is returned plain or
distributed to a random spec. `dtensor-run --verify --all-entries` then
checks that the compiled program computes the global program's values on
every rank: propagation, redistribution, partitioning and lowering, for
programs nobody wrote by hand. Deterministic for a given SEED.
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

    def step(self):
        rng = self.rng
        kind = rng.choice(["matmul", "matmul", "unary", "binary", "transpose",
                           "softmax", "sum", "hint"])
        a, shape, at = self.pick()
        m, k = shape
        if kind == "hint" and "#dtensor" not in at:
            # A user hint with a random priority on a computed value.
            t = ty(shape, spec(rng, self.mesh_rank, False))
            v = self.fresh("h")
            self.body.append(
                f"  {v} = dtensor.hint {a}, %m priority {rng.randrange(3)} : "
                f"{at}, !dtensor.device_mesh<@mesh> -> {t}")
            self.add_value(v, shape, t)
            return
        if kind == "hint":
            kind = "unary"
        if kind == "matmul":
            n = rng.choice(SIZES)
            w, wt = self.arg([k, n], allow_partial=False)
            z = self.zeros([m, n])
            v = self.fresh()
            self.body.append(
                f"  {v} = linalg.matmul ins({a}, {w} : {at}, {wt}) outs({z} : {ty([m, n])}) -> {ty([m, n])}")
            self.add_value(v, [m, n])
        elif kind == "unary":
            v = self.fresh()
            if rng.random() < 0.5:
                self.body.append(f"  {v} = math.tanh {a} : {at}")
                self.add_value(v, shape, at)
            else:
                e = self.empty(shape)
                self.body.append(
                    f"  {v} = linalg.negf ins({a} : {at}) outs({e} : {ty(shape)}) -> {ty(shape)}")
                self.add_value(v, shape)
        elif kind == "binary":
            same = [x for x in self.values if x[1] == shape and x[0] != a]
            if same and rng.random() < 0.7:
                b, _, bt = rng.choice(same)
            else:
                b, bt = self.arg(shape)
            e = self.empty(shape)
            v = self.fresh()
            self.body.append(
                f"  {v} = linalg.map {{ arith.addf }} ins({a}, {b} : {at}, {bt}) outs({e} : {ty(shape)})")
            self.add_value(v, shape)
        elif kind == "transpose":
            e = self.empty([k, m])
            v = self.fresh()
            self.body.append(
                f"  {v} = linalg.transpose ins({a} : {at}) outs({e} : {ty([k, m])}) permutation = [1, 0]")
            self.add_value(v, [k, m])
        elif kind == "softmax":
            d = rng.randrange(2)
            e = self.empty(shape)
            v = self.fresh()
            self.body.append(
                f"  {v} = linalg.softmax dimension({d}) ins({a} : {at}) outs({e} : {ty(shape)}) -> {ty(shape)}")
            self.add_value(v, shape)
        else:  # a sum over one dim, broadcast back
            d = rng.randrange(2)
            kept = shape[1 - d]
            z = self.zeros([kept])
            s = self.fresh("s")
            self.body.append(
                f"  {s} = linalg.reduce ins({a} : {at}) outs({z} : {ty([kept])}) dimensions = [{d}]\n"
                f"    (%x: f32, %acc: f32) {{\n"
                f"      %r = arith.addf %x, %acc : f32\n"
                f"      linalg.yield %r : f32\n"
                f"    }}")
            e = self.empty(shape)
            v = self.fresh()
            self.body.append(
                f"  {v} = linalg.broadcast ins({s} : {ty([kept])}) outs({e} : {ty(shape)}) dimensions = [{d}]")
            self.add_value(v, shape)

    def build(self, steps):
        rng = self.rng
        for _ in range(rng.randint(1, 2)):
            shape = [rng.choice(SIZES), rng.choice(SIZES)]
            v, t = self.arg(shape)
            self.add_value(v, shape, t)
        for _ in range(steps):
            self.step()
        out, shape, outt = self.values[-1]
        lines = ["  %zero = arith.constant 0.0 : f32"] + self.body
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
                         [f"{n}: {ty(s, sp)}" for n, s, sp in self.args])
        return (f"func.func @{self.name}({args}) -> {result} {{\n" +
                "\n".join(lines) + "\n}\n")


def main():
    mesh = [int(x) for x in sys.argv[1].split("x")]
    count, seed = int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    names = ", ".join(f'"d{i}"' for i in range(len(mesh)))
    print(f"// Generated by gen_compile_programs.py {sys.argv[1]} {count} {seed}.")
    print(f"dtensor.mesh @mesh shape = [{', '.join(map(str, mesh))}] names = [{names}]\n")
    for i in range(count):
        print(Function(rng, f"p{i}", len(mesh)).build(rng.randint(2, 6)))


if __name__ == "__main__":
    main()
