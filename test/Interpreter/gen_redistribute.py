#!/usr/bin/env python3
"""Writes a module with one function per legal redistribution between specs.

    gen_redistribute.py MESH SHAPE PARTIAL [--orders] [--every K]

MESH and SHAPE are like 2x2 and 9x5; PARTIAL is the Partial kind used
(sum, avg, max, min). With --orders, nested shards get every shard order.
--every K keeps every K-th pair (a deterministic sample). Each function
redistributes its argument and returns it, so that `dtensor-run --verify
--all-entries` checks the compiled collectives on every rank.
"""
import itertools
import sys


def specs(mesh_rank, rank, partial, orders):
    choices = ["R", f"P({partial})"] + [f"S({d})" for d in range(rank)]
    for combo in itertools.product(choices, repeat=mesh_rank):
        by_dim = {}
        for m, p in enumerate(combo):
            if p.startswith("S("):
                by_dim.setdefault(p, []).append(m)
        nested = [ms for ms in by_dim.values() if len(ms) > 1]
        perms = [list(itertools.permutations(ms)) if orders else [tuple(ms)]
                 for ms in nested]
        for choice in itertools.product(*perms):
            out = list(combo)
            for ms, perm in zip(nested, choice):
                if list(perm) == sorted(perm):
                    continue
                for k, m in enumerate(perm):
                    out[m] = f"{combo[m]}[{k}]"
            yield "[" + ", ".join(out) + "]"


def legal(src, dst):
    def parts(s):
        return [p.strip() for p in s.strip("[]").split(",")]
    for a, b in zip(parts(src), parts(dst)):
        if b.startswith("P(") and a != b:
            # S(d) -> P(sum) is legal (DTensor 2.15): its shard in place,
            # zeros elsewhere.
            if a.startswith("P(") or (a.startswith("S(") and b != "P(sum)"):
                return False
            if b == "P(product)":
                return False
    return True


def main():
    args = sys.argv[1:]
    orders = "--orders" in args
    every = 1
    if "--every" in args:
        every = int(args[args.index("--every") + 1])
    mesh, shape, partial = args[0], args[1], args[2]
    mesh_dims = [int(x) for x in mesh.split("x")]
    shape_dims = [int(x) for x in shape.split("x")]
    print(f"dtensor.mesh @mesh shape = [{', '.join(map(str, mesh_dims))}]")
    all_specs = list(specs(len(mesh_dims), len(shape_dims), partial, orders))
    index = 0
    for src in all_specs:
        for dst in all_specs:
            if src == dst or not legal(src, dst):
                continue
            index += 1
            if index % every:
                continue
            t_src = f"tensor<{shape}xf32, #dtensor.spec<@mesh, {src}>>"
            t_dst = f"tensor<{shape}xf32, #dtensor.spec<@mesh, {dst}>>"
            print(f"func.func @f{index}(%m: !dtensor.device_mesh<@mesh>, "
                  f"%x: {t_src}) -> {t_dst} {{")
            print(f"  %r = dtensor.redistribute %x, %m : {t_src}, "
                  f"!dtensor.device_mesh<@mesh> -> {t_dst}")
            print(f"  return %r : {t_dst}")
            print("}")


if __name__ == "__main__":
    main()
