#!/usr/bin/env python3
"""Propagation against an exhaustive search on small programs (issue 14).

Generates small global programs (matmuls, element-wise ops, transposes and
reductions between inputs of fixed specs), then for each one:
  - compiles it with --dtensor-compile and reads the communication time of
    the compiled function from --dtensor-comm-report (the planner's cost
    model: the quantity propagation minimizes);
  - enumerates every assignment of specs to the values the ops produce, by
    a priority-0 dtensor.hint on each (the op computes in the spec it
    prefers and the value is moved to the hinted one where they differ, so
    every plan "value v is held in spec s" is one assignment), compiles each
    the same way and keeps the cheapest.
Prints one line per program; with --check, exits 1 when an enumerated plan
is faster than propagation's (beyond a tolerance) and moves no more bytes
per rank (propagation minimizes time within its plan's bytes), naming it;
faster plans that move more bytes are noted.

  bench/exhaustive_plans.py --opt build/bin/dtensor-opt --mesh 4 --count 25 --seed 2

Measured (docs/Compile.md, "Against an exhaustive search"): 25 of 25 optimal
within their bytes with the whole-function integer program; in one (program 1)
a faster plan moves twice the bytes (16.8 us, 768 B against 18.6 us, 384 B).
"""

import argparse
import itertools
import random
import re
import subprocess
import sys


def placements_options(mesh_rank, rank, partial):
    """Per mesh dim: R, S(d) for each tensor dim, and P(sum) where the
    producer can leave a Partial (a contraction)."""
    per_dim = ["R"] + [f"S({d})" for d in range(rank)] + (["P(sum)"] if partial else [])
    out = []
    for combo in itertools.product(per_dim, repeat=mesh_rank):
        # One tensor dim sharded by two mesh dims keeps the default order;
        # both orders are the same spec for the search's purpose.
        out.append("[" + ", ".join(combo) + "]")
    return out


class Program:
    def __init__(self, rng, mesh_shape):
        self.rng = rng
        self.mesh_rank = len(mesh_shape)
        self.args = []      # (name, shape, spec or None)
        self.lines = []
        self.values = []    # (name, shape, partial_ok): op results to hint
        self.n = 0

    def fresh(self):
        self.n += 1
        return f"%v{self.n}"

    def ty(self, shape, spec=None):
        dims = "x".join(str(s) for s in shape)
        if spec:
            return f"tensor<{dims}xf32, #dtensor.spec<@mesh, {spec}>>"
        return f"tensor<{dims}xf32>"

    def arg(self, shape, spec):
        name = f"%a{len(self.args)}"
        self.args.append((name, shape, spec))
        return (name, shape, spec)

    def matmul(self, a, b):
        (an, ash, asp), (bn, bsh, bsp) = a, b
        out = [ash[0], bsh[1]]
        e, z, r = self.fresh(), self.fresh(), self.fresh()
        self.lines.append(f"  {e} = tensor.empty() : {self.ty(out)}")
        self.lines.append(f"  {z} = linalg.fill ins(%zero : f32) outs({e} : {self.ty(out)}) -> {self.ty(out)}")
        self.lines.append(f"  {r} = linalg.matmul ins({an}, {bn} : {self.ty(ash, asp)}, {self.ty(bsh, bsp)}) "
                          f"outs({z} : {self.ty(out)}) -> {self.ty(out)}")
        self.values.append((r, out, True))
        return (r, out, None)

    def unary(self, a, op):
        an, ash, asp = a
        r = self.fresh()
        # Element-wise ops keep their operand's type: only plain (unplaced)
        # values are passed here.
        assert not asp
        self.lines.append(f"  {r} = {op} {an} : {self.ty(ash)}")
        self.values.append((r, ash, False))
        return (r, ash, None)

    def add(self, a, b):
        (an, ash, _), (bn, bsh, _) = a, b
        e, r = self.fresh(), self.fresh()
        self.lines.append(f"  {e} = tensor.empty() : {self.ty(ash)}")
        self.lines.append(f"  {r} = linalg.add ins({an}, {bn} : {self.ty(ash, a[2])}, {self.ty(bsh, b[2])}) "
                          f"outs({e} : {self.ty(ash)}) -> {self.ty(ash)}")
        self.values.append((r, ash, False))
        return (r, ash, None)

    def text(self, hints, result, result_spec):
        """The module with value i hinted to hints[i] (None: no hint). The
        hints have no users: each steers its value's producer (a priority-0
        hinted target wins over every other candidate the op has), and the
        value's users take it in that spec, moving it where they need."""
        rn, rsh, _ = result
        out = ['dtensor.mesh @mesh shape = [%s]' % ", ".join(str(s) for s in MESH)]
        sig = ", ".join([f"%m: !dtensor.device_mesh<@mesh>"] +
                        [f"{n}: {self.ty(s, sp)}" for n, s, sp in self.args])
        rty = self.ty(rsh, result_spec)
        out.append(f"func.func @f({sig}) -> {rty} {{")
        out.append("  %zero = arith.constant 0.0 : f32")
        hinted = {name: h for (name, _, _), h in zip(self.values, hints) if h}
        shapes = {name: s for name, s, _ in self.values}
        for line in self.lines:
            out.append(line)
            name = line.partition(" = ")[0].strip()
            if name in hinted:
                out.append(f"  {name}_h = dtensor.hint {name}, %m priority 0 : {self.ty(shapes[name])}, "
                           f"!dtensor.device_mesh<@mesh> -> {self.ty(shapes[name], hinted[name])}")
        final = rn
        if result_spec:
            out.append(f"  %dres = dtensor.distribute_tensor {rn}, %m : {self.ty(rsh)}, "
                       f"!dtensor.device_mesh<@mesh> -> {rty}")
            final = "%dres"
        out.append(f"  return {final} : {rty}")
        out.append("}")
        return "\n".join(out) + "\n"


def random_spec(rng, rank):
    dims = ["R"] + [f"S({d})" for d in range(rank)]
    return "[" + ", ".join(rng.choice(dims) for _ in MESH) + "]"


def generate(rng):
    p = Program(rng, MESH)
    b, h = rng.choice([8, 16]), rng.choice([8, 16])
    x = p.arg([b, h], random_spec(rng, 2))
    w1 = p.arg([h, 2 * h], random_spec(rng, 2))
    w2 = p.arg([2 * h, h], random_spec(rng, 2))
    v = p.matmul(x, w1)
    if rng.random() < 0.5:
        v = p.unary(v, "math.tanh")
    v = p.matmul(v, w2)
    if rng.random() < 0.5:
        v = p.add(v, p.unary(v, "math.exp")) if rng.random() < 0.3 else p.unary(v, "math.tanh")
    result_spec = random_spec(rng, 2) if rng.random() < 0.5 else None
    return p, v, result_spec


def comm_time(opt, text, pipeline):
    """(communication us, bytes per rank) of the compiled program, or None."""
    r = subprocess.run([opt, "-", f"--{pipeline}", "--dtensor-comm-report", "-o", "/dev/null"],
                       input=text, capture_output=True, text=True)
    if r.returncode != 0:
        return None
    out = r.stdout + r.stderr
    m = re.search(r"communication ([0-9.]+) us", out)
    if not m:
        return None
    b = re.search(r"([0-9]+) bytes/rank", out)
    return float(m.group(1)), int(b.group(1)) if b else 0


def main():
    global MESH
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--opt", required=True)
    ap.add_argument("--mesh", default="4")
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pipeline", default="dtensor-compile")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--tolerance", type=float, default=1e-6)
    args = ap.parse_args()
    MESH = [int(s) for s in args.mesh.split("x")]
    rng = random.Random(args.seed)
    worse = []
    for i in range(args.count):
        p, result, result_spec = generate(rng)
        base = comm_time(args.opt, p.text([None] * len(p.values), result, result_spec), args.pipeline)
        options = [[None] + placements_options(len(MESH), len(s), partial)
                   for _, s, partial in p.values]
        # The fastest plan, and the fastest that moves no more bytes than
        # propagation's (propagation's objective: time within its plan's
        # bytes, so a faster plan that moves more is not a miss).
        best, best_hints, bounded, plans = None, None, None, 0
        for hints in itertools.product(*options):
            t = comm_time(args.opt, p.text(list(hints), result, result_spec), args.pipeline)
            if t is None:
                continue
            plans += 1
            if best is None or t[0] < best[0]:
                best, best_hints = t, hints
            if base is not None and t[1] <= base[1] and (bounded is None or t[0] < bounded[0]):
                bounded = t
        status = ("optimal" if base is not None and bounded is not None and
                  base[0] <= bounded[0] + args.tolerance else "WORSE")
        faster = ""
        if status == "optimal" and best[0] < base[0] - args.tolerance:
            faster = f" (faster by moving more: {best[0]} us, {best[1]} B)"
        print(f"program {i}: propagation {base[0] if base else None} us, "
              f"{base[1] if base else None} B; exhaustive optimum within its bytes "
              f"{bounded[0] if bounded else None} us over {plans} plans: {status}{faster}")
        if status != "optimal":
            worse.append((i, p.text([None] * len(p.values), result, result_spec), best_hints))
    for i, text, hints in worse:
        print(f"--- program {i} (optimum with hints {hints}):\n{text}", file=sys.stderr)
    print(f"{args.count - len(worse)} of {args.count} programs: propagation's plan is optimal "
          f"within its bytes")
    return 1 if (args.check and worse) else 0


if __name__ == "__main__":
    sys.exit(main())
