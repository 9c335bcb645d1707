#!/usr/bin/env python3
"""Writes a module of random integer global programs for --dtensor-compile.

    gen_int_programs.py MESH COUNT SEED

MESH is like 2x2 or 2x3. Each of the COUNT functions works on one integer
element type (i8, i16, i32 or i64) and takes arguments with random specs
(R, S(0), S(1), and P(sum), P(max) or P(min); sizes chosen so that many
shards are uneven or empty). It chains random ops: matmul (a new weight
argument each), element-wise addi / subi / muli / maxsi / minsi (with a new
argument or a value of the same shape), a scaling by a constant, math.absi,
a product by a large constant (it overflows) compared with its operand in
the same body, transpose, and row or column reductions with every integer
combiner (addi, muli, maxsi, minsi, andi, ori, xori, each from its
identity), sometimes added back to the value as a broadcast. Its result is returned plain or distributed to a
random spec. Integer arithmetic wraps, so every rank's result must equal the
global program's bit for bit: `dtensor-run --verify --all-entries` (the
interpreter) and `--target=mpi` (the emitted C++) check it. The float
generator (gen_compile_programs.py) never makes an integer Partial, an
integer reduction's fill or an integer matmul, which is how a P(product)
fill of the integer 1 came to be rejected unnoticed. Deterministic for a
given SEED.
"""
import random
import sys

SIZES = [1, 2, 3, 4, 5, 7]
BITS = {"i8": 8, "i16": 16, "i32": 32, "i64": 64}
COMBINERS = {
    # name: (op, identity of a BITS-wide integer)
    "sum": ("arith.addi", lambda b: "0"),
    "product": ("arith.muli", lambda b: "1"),
    "max": ("arith.maxsi", lambda b: str(-(1 << (b - 1)))),
    "min": ("arith.minsi", lambda b: str((1 << (b - 1)) - 1)),
    "and": ("arith.andi", lambda b: "-1"),
    "or": ("arith.ori", lambda b: "0"),
    "xor": ("arith.xori", lambda b: "0"),
}
# A factor that overflows every type when multiplied by most values.
LARGE_FACTOR = {"i8": "77", "i16": "12345", "i32": "123456789", "i64": "3037000493"}


def ty(shape, elem, s=None):
    dims = "x".join(str(d) for d in shape)
    if s is None:
        return f"tensor<{dims}x{elem}>"
    return f"tensor<{dims}x{elem}, #dtensor.spec<@mesh, {s}>>"


class Function:
    def __init__(self, rng, name, mesh_rank):
        self.rng = rng
        self.name = name
        self.mesh_rank = mesh_rank
        self.elem = rng.choice(["i8", "i16", "i32", "i32", "i64", "i64"])
        self.args = []  # (name, type)
        self.body = []
        self.values = []  # (ssa, shape)
        self.n = 0

    def fresh(self, prefix="v"):
        self.n += 1
        return f"%{prefix}{self.n}"

    def placements(self, rank, partial=True, kinds=("P(sum)", "P(max)", "P(min)")):
        """Random placements; Partials of one kind per spec (a spec holds
        one Partial reduction)."""
        out = []
        kind = self.rng.choice(kinds)
        for _ in range(self.mesh_rank):
            r = self.rng.random()
            if partial and r < 0.15:
                out.append(kind)
            elif r < 0.5:
                out.append("R")
            else:
                out.append(f"S({self.rng.randrange(rank)})")
        return "[" + ", ".join(out) + "]"

    def arg(self, shape, partial=True):
        name = f"%a{len(self.args)}"
        t = ty(shape, self.elem, self.placements(len(shape), partial))
        self.args.append((name, t))
        return name, t

    def const(self, value):
        c = self.fresh("c")
        self.body.append(f"  {c} = arith.constant {value} : {self.elem}")
        return c

    def filled(self, shape, value):
        e = self.fresh("e")
        t = ty(shape, self.elem)
        self.body.append(f"  {e} = tensor.empty() : {t}")
        f = self.fresh("f")
        c = self.const(value)
        self.body.append(f"  {f} = linalg.fill ins({c} : {self.elem}) outs({e} : {t}) -> {t}")
        return f

    def pick(self):
        if not any(len(x[1]) == 2 for x in self.values) or self.rng.random() < 0.15:
            shape = [self.rng.choice(SIZES), self.rng.choice(SIZES)]
            v, t = self.arg(shape)
            self.values.append((v, shape, t))
        return self.rng.choice([x for x in self.values if len(x[1]) == 2])

    def generic(self, ins, out_init, out_shape, maps, iters, body):
        """A linalg.generic; `ins` are (value, type), body lines use %x0..,
        the accumulator %acc, and yield %y."""
        v = self.fresh()
        t = ty(out_shape, self.elem)
        names = ", ".join(x for x, _ in ins)
        types = ", ".join(t for _, t in ins)
        args = ", ".join(f"%x{i}: {self.elem}" for i in range(len(ins)))
        self.body.append(
            f"  {v} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
            f"iterator_types = [{', '.join(chr(34) + i + chr(34) for i in iters)}]}}")
        self.body.append(f"      ins({names} : {types}) outs({out_init} : {t}) {{")
        self.body.append(f"  ^bb0({args}, %acc: {self.elem}):")
        for line in body:
            self.body.append("    " + line)
        self.body.append(f"    linalg.yield %y : {self.elem}")
        self.body.append(f"  }} -> {t}")
        self.values.append((v, out_shape, t))
        return v

    def step(self):
        rng = self.rng
        kind = rng.choice(["matmul", "binary", "binary", "unary", "wrap",
                           "transpose", "reduce", "reduce", "broadcast"])
        a, shape, at = self.pick()
        e = self.elem
        ident2 = "affine_map<(d0, d1) -> (d0, d1)>"
        if kind == "matmul":
            n = rng.choice(SIZES)
            w, wt = self.arg([shape[1], n])
            init = self.filled([shape[0], n], "0")
            v = self.fresh()
            t = ty([shape[0], n], e)
            self.body.append(f"  {v} = linalg.matmul ins({a}, {w} : {at}, {wt}) "
                             f"outs({init} : {t}) -> {t}")
            self.values.append((v, [shape[0], n], t))
        elif kind == "binary":
            same = [x for x in self.values if x[1] == shape and x[0] != a]
            if same and rng.random() < 0.5:
                b, _, bt = rng.choice(same)
            else:
                b, bt = self.arg(shape)
            op = rng.choice(["arith.addi", "arith.subi", "arith.muli",
                             "arith.maxsi", "arith.minsi"])
            init = self.filled(shape, "0")
            self.generic([(a, at), (b, bt)], init, shape, [ident2] * 3,
                         ["parallel", "parallel"],
                         [f"%y = {op} %x0, %x1 : {e}"])
        elif kind == "unary":
            init = self.filled(shape, "0")
            if rng.random() < 0.5:
                body = [f"%y = math.absi %x0 : {e}"]
            else:
                k = rng.choice([-3, -1, 2, 5])
                body = [f"%k = arith.constant {k} : {e}",
                        f"%y = arith.muli %x0, %k : {e}"]
            self.generic([(a, at)], init, shape, [ident2] * 2,
                         ["parallel", "parallel"], body)
        elif kind == "wrap":
            # A product that overflows, read by a comparison in the same
            # body: the product must wrap at the type's width first.
            init = self.filled(shape, "0")
            k = LARGE_FACTOR[e]
            op = rng.choice(["arith.maxsi", "arith.minsi"])
            self.generic([(a, at)], init, shape, [ident2] * 2,
                         ["parallel", "parallel"],
                         [f"%k = arith.constant {k} : {e}",
                          f"%p = arith.muli %x0, %k : {e}",
                          f"%y = {op} %p, %x0 : {e}"])
        elif kind == "transpose":
            out = [shape[1], shape[0]]
            e0 = self.fresh("e")
            t = ty(out, e)
            self.body.append(f"  {e0} = tensor.empty() : {t}")
            v = self.fresh()
            self.body.append(f"  {v} = linalg.transpose ins({a} : {at}) outs({e0} : {t}) "
                             f"permutation = [1, 0]")
            self.values.append((v, out, t))
        else:
            name = rng.choice(sorted(COMBINERS))
            op, identity = COMBINERS[name]
            dim = rng.randrange(2)
            out = [shape[1 - dim]]
            init = self.filled(out, identity(BITS[e]))
            omap = "affine_map<(d0, d1) -> (d1)>" if dim == 0 else "affine_map<(d0, d1) -> (d0)>"
            iters = ["reduction", "parallel"] if dim == 0 else ["parallel", "reduction"]
            r = self.generic([(a, at)], init, out, [ident2, omap], iters,
                             [f"%y = {op} %acc, %x0 : {e}"])
            if kind == "broadcast":
                # The reduced vector added back to every row or column.
                rt = ty(out, e)
                init = self.filled(shape, "0")
                self.generic([(a, at), (r, rt)], init, shape, [ident2, omap, ident2],
                             ["parallel", "parallel"], [f"%y = arith.addi %x0, %x1 : {e}"])

    def text(self):
        for _ in range(self.rng.randint(1, 5)):
            self.step()
        v, shape, _ = self.values[-1]
        plain = ty(shape, self.elem)
        if self.rng.random() < 0.5:
            # (An integer P(sum) cannot be made from a computed, replicated
            # value without dividing it by the group size.)
            s = self.placements(len(shape), kinds=("P(max)", "P(min)"))
            result_t = ty(shape, self.elem, s)
            d = self.fresh("d")
            self.body.append(f"  {d} = dtensor.distribute_tensor {v}, %m : {plain}, "
                             f"!dtensor.device_mesh<@mesh> -> {result_t}")
            v = d
        else:
            result_t = plain
        head = ", ".join(["%m: !dtensor.device_mesh<@mesh>"] +
                         [f"{n}: {t}" for n, t in self.args])
        return "\n".join([f"func.func @{self.name}({head}) -> {result_t} {{"] +
                         self.body + [f"  return {v} : {result_t}", "}"])


def main():
    mesh, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    dims = [int(d) for d in mesh.split("x")]
    rng = random.Random(seed)
    print(f"dtensor.mesh @mesh shape = [{', '.join(str(d) for d in dims)}]")
    for i in range(count):
        print()
        print(Function(rng, f"f{i}", len(dims)).text())


if __name__ == "__main__":
    main()
